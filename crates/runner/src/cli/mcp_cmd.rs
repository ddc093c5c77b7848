//! The MCP checks on the command line (part of `main.rs`, not of the
//! library): `--dialect mcp@REVISION`, and `rpcspec list --dialect mcp`.

use rpcspec::{cases::Case, plan::Plan};

use crate::{args::TextFormat, fail};

/// `mcp@REVISION` as the dialect `mcp` pinned to that revision; any other
/// name as it is.
pub(crate) fn mcp_pin(name: &str) -> Result<(&str, Option<rpcspec::mcp::Revision>), u8> {
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

/// Every (case, plan) of `cases` as N/A, `why`.
pub(crate) fn not_applicable(
    cases: &[Case],
    plans: &[Plan],
    why: &str,
) -> Vec<rpcspec::report::CaseResult> {
    let mut out = Vec::new();
    for case in cases {
        for plan in case.plans.iter().filter(|p| plans.contains(p)) {
            let mut r = rpcspec::report::CaseResult::new(
                case.meta.id.clone(),
                plan.name().to_owned(),
                case.meta.title.clone(),
                case.meta.section.clone(),
            );
            r.evidence.push(rpcspec::report::Evidence::note(
                rpcspec::report::Verdict::NotApplicable,
                why.to_owned(),
            ));
            r.settle();
            out.push(r);
        }
    }
    out
}

/// Appends the MCP checks, with the rules each grades, to a listing.
pub(crate) fn list_checks(
    checks: &[&rpcspec::mcp::suite::Check],
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
