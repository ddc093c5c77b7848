//! The MCP checks on the command line (part of `main.rs`, not of the
//! library): `--dialect mcp@REVISION`, and `rpcspec list --dialect mcp`.

use crate::{args::TextFormat, fail};

/// `mcp@REVISION` as the dialect `mcp` pinned to that revision; any other
/// name as it is.
pub(crate) fn mcp_pin(name: &str) -> Result<(&str, Option<rpcspec::dialects::mcp::Revision>), u8> {
    match name.split_once('@') {
        Some(("mcp", revision)) => {
            revision
                .parse()
                .map(|r| ("mcp", Some(r)))
                .map_err(|e: rpcspec_matcher::UnknownName| {
                    fail(&format!("--dialect mcp@{revision}: {e}"))
                })
        }
        _ => Ok((name, None)),
    }
}

/// Appends the MCP checks, with the rules each grades, to a listing.
pub(crate) fn list_checks(
    checks: &[&rpcspec::dialects::mcp::suite::Check],
    format: TextFormat,
    out: &mut String,
) {
    for check in checks {
        match format {
            TextFormat::Json => {
                let rules: Vec<serde_json::Value> = check
                    .rules
                    .iter()
                    .map(|r| serde_json::json!({"id": r.id, "level": r.level.as_str(), "section": r.section, "statement": r.statement}))
                    .collect();
                let line = serde_json::json!({
                    "id": check.id, "title": check.title, "needs": check.gate,
                    "rules": rules, "plans": ["session"],
                });
                out.push_str(&line.to_string());
                out.push('\n');
            }
            TextFormat::Human => {
                let needs = if check.gate.is_empty() {
                    String::new()
                } else {
                    format!("  needs: {}", check.gate)
                };
                out.push_str(&format!("{}  {}{needs}\n", check.id, check.title));
                for r in check.rules {
                    out.push_str(&format!(
                        "    rule {} [{}] {}\n",
                        r.id,
                        r.level.as_str(),
                        r.section
                    ));
                }
            }
        }
    }
}
