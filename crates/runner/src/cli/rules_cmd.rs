//! `rpcspec rules` (part of `main.rs`, not of the library): the rule
//! registry (`rpcspec::rules`) with where each rule is checked and by which
//! cases.

use rpcspec::{cases, exit};

use crate::{
    args::{RulesArgs, TextFormat},
    emit,
};

pub(crate) fn rules_cmd(args: RulesArgs) -> u8 {
    use rpcspec::rules;
    let picked = match &args.pattern {
        Some(p) => rules::matching(p),
        None => rules::all().collect(),
    };
    if picked.is_empty() {
        eprintln!(
            "rpcspec: no rule matches `{}`; `rpcspec rules` lists them all",
            args.pattern.as_deref().unwrap_or_default()
        );
        return exit::NO_CASES;
    }
    // The cases that name each rule: the producer and MCP checks it is one
    // of, the server cases that check it (`rule`), and those that tolerate
    // it (`allow`).
    let server = cases::builtin().unwrap_or_default();
    let mut out = String::new();
    for rule in picked {
        let mut checks: Vec<String> = rpcspec::producer::CHECKS
            .iter()
            .filter(|c| c.rules.iter().any(|r| r.id == rule.id))
            .map(|c| c.id.to_owned())
            .chain(
                rpcspec::dialects::mcp::suite::CHECKS
                    .iter()
                    .filter(|c| c.rules.iter().any(|r| r.id == rule.id))
                    .map(|c| c.id.to_owned()),
            )
            .chain(
                server
                    .iter()
                    .filter(|c| c.rule.is_some_and(|r| r.id == rule.id))
                    .map(|c| c.meta.id.clone()),
            )
            .collect();
        checks.sort();
        let allowed: Vec<&str> = server
            .iter()
            .filter(|c| c.allow.iter().any(|a| a == rule.id))
            .map(|c| c.meta.id.as_str())
            .collect();
        match args.format {
            TextFormat::Json => {
                let line = serde_json::json!({
                    "id": rule.id, "level": rule.level.as_str(), "section": rule.section,
                    "statement": rule.statement, "checked_on": rules::checked_on(rule),
                    "cases": checks, "allowed_by": allowed,
                });
                out.push_str(&line.to_string());
                out.push('\n');
            }
            TextFormat::Human => {
                out.push_str(&format!(
                    "{}  {}  ({})\n  {}\n  checked in: {}\n",
                    rule.id,
                    rule.level,
                    rule.section,
                    rule.statement,
                    rules::checked_on(rule)
                ));
                if !checks.is_empty() {
                    out.push_str(&format!("  cases: {}\n", checks.join(", ")));
                }
                if !allowed.is_empty() {
                    out.push_str(&format!("  tolerated by: {}\n", allowed.join(", ")));
                }
            }
        }
    }
    emit(&out, false);
    exit::OK
}
