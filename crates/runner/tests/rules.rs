//! `docs/rules.md` is generated from the one rule registry
//! (`rpcspec::rules::all`, every role's rules); this test fails when it is
//! stale. `cargo xtask rules` (which sets `UPDATE_RULES=1`) rewrites it.

use std::{env, fs, path::Path};

use rpcspec::{dialects::mcp, producer::CHECKS, rules};

fn render() -> String {
    let mut out = String::from(
        "# Rules\n\
         \n\
         <!-- Generated from the rule registry (crates/runner/src/rules.rs, with the matcher's \
         `RULES`) by `cargo xtask rules`. Do not edit. -->\n\
         \n\
         Every check rpcspec makes, in every role, with its stable id: one id per defect, \
         whichever role finds it. Breaking a MUST rule fails a case, breaking a SHOULD rule \
         makes it non-strict, and an INFO finding records behaviour the specification leaves \
         open. `rpcspec rules ID` shows one, with the cases that check it; renaming an id is \
         a breaking change (README.md, Changelog).\n",
    );
    // By area, in the order areas first appear: the matcher's `events.*`
    // and the producer role's are one table.
    let area_of = |id: &'static str| id.split_once('.').map_or(id, |(a, _)| a);
    let mut areas: Vec<&str> = Vec::new();
    for rule in rules::all() {
        if !areas.contains(&area_of(rule.id)) {
            areas.push(area_of(rule.id));
        }
    }
    for area in areas {
        let these: Vec<_> = rules::all().filter(|r| area_of(r.id) == area).collect();
        out += &format!("\n## `{area}.*`\n\n");
        let mut wheres: Vec<&str> = Vec::new();
        for rule in &these {
            if !wheres.contains(&rules::checked_on(rule)) {
                wheres.push(rules::checked_on(rule));
            }
        }
        for w in wheres {
            out += &format!("* Checked in {w}.\n");
        }
        out += "\n| Id | Level | Section | Statement | Cases |\n|---|---|---|---|---|\n";
        for rule in these {
            let cases: Vec<String> = CHECKS
                .iter()
                .map(|c| (c.id, c.rules))
                .chain(mcp::suite::CHECKS.iter().map(|c| (c.id, c.rules)))
                .filter(|(_, rules)| rules.iter().any(|r| r.id == rule.id))
                .map(|(id, _)| format!("`{id}`"))
                .collect();
            out += &format!(
                "| `{}` | {} | {} | {} | {} |\n",
                rule.id,
                rule.level,
                rule.section.replace('|', "\\|"),
                rule.statement.replace('|', "\\|"),
                cases.join(", ")
            );
        }
    }
    out
}

/// `docs/mcp.md`: the MCP checks and the rules they grade, by revision.
fn render_mcp() -> String {
    use mcp::{Revision, suite::CHECKS as MCP_CHECKS};
    let mut out = String::from(
        "# MCP checks\n\
         \n\
         <!-- Generated from crates/runner/src/dialects/mcp (suite/, rules.rs) by `cargo xtask rules`. \
         Do not edit. -->\n\
         \n\
         `rpcspec run --dialect mcp -- CMD` runs these checks besides the JSON-RPC cases: one \
         session with the server, as a client would hold it. `--dialect mcp` negotiates (it \
         offers the newest revision, probing with `server/discover`, and falls back to \
         `initialize` as 2026-07-28's stdio backward-compatibility rules say), and checks a \
         2026-07-28 server that also has `initialize` again in a session at 2025-11-25 (each \
         result's plan names its revision); `--dialect mcp@REVISION` pins one. A check of a capability the server did not declare \
         is SKIPPED with the reason, never FAIL; a check its revision does not have is N/A. \
         Every message, both ways, is checked against the revision's official JSON Schema \
         (`crates/runner/schemas/mcp/`). `rpcspec list --dialect mcp` shows the same.\n\
         \n\
         Revisions: ",
    );
    out += &Revision::NAMES
        .iter()
        .map(|r| format!("`{r}`"))
        .collect::<Vec<_>>()
        .join(", ");
    out += ".\n\n## Checks\n\n| Check | What | Needs | Rules |\n|---|---|---|---|\n";
    for check in MCP_CHECKS {
        let rules: Vec<String> = check
            .rules
            .iter()
            .map(|r| format!("`{}` ({})", r.id, r.level))
            .collect();
        out += &format!(
            "| `{}` | {} | {} | {} |\n",
            check.id,
            check.title.replace('|', "\\|"),
            if check.gate.is_empty() {
                "every server"
            } else {
                check.gate
            },
            rules.join(", ")
        );
    }
    out += "\n## Rules\n\n| Id | Level | Revisions and section | Statement |\n|---|---|---|---|\n";
    // The MCP rules, then the matcher's that a check names (`mcp.id-reused`).
    let mut rules: Vec<&rpcspec::rules::Rule> = mcp::rules::MCP.to_vec();
    for rule in MCP_CHECKS.iter().flat_map(|c| c.rules.iter().copied()) {
        if !rules.iter().any(|r| r.id == rule.id) {
            rules.push(rule);
        }
    }
    for rule in rules {
        out += &format!(
            "| `{}` | {} | {} | {} |\n",
            rule.id,
            rule.level,
            rule.section.replace('|', "\\|"),
            rule.statement.replace('|', "\\|")
        );
    }
    out
}

#[test]
fn mcp_md_is_up_to_date() {
    up_to_date("docs/mcp.md", render_mcp());
}

/// Every rule an MCP check names is the registry's, and every MCP rule is
/// graded by a check.
#[test]
fn mcp_checks_name_registry_rules() {
    name_registry_rules(mcp::suite::CHECKS.iter().map(|c| (c.id, c.rules)));
    for rule in mcp::rules::MCP {
        assert!(
            mcp::suite::CHECKS
                .iter()
                .any(|c| c.rules.iter().any(|r| std::ptr::eq(*r, *rule))),
            "no check grades {}",
            rule.id
        );
    }
}

#[test]
fn rules_md_is_up_to_date() {
    up_to_date("docs/rules.md", render());
}

/// Fails when the generated page `doc` (relative to the workspace) is not
/// `want`; with `UPDATE_RULES` set (`cargo xtask rules`), writes it.
fn up_to_date(doc: &str, want: String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(doc);
    if env::var_os("UPDATE_RULES").is_some() {
        fs::write(&path, &want).unwrap_or_else(|e| panic!("write {doc}: {e}"));
        return;
    }
    let have = fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "{doc} is stale or missing: run `cargo xtask rules` to regenerate it"
    );
}

/// Every rule a check of `checks` names is the registry's, and every check
/// names one at least: no id is made up at run time.
fn name_registry_rules<'a>(
    checks: impl IntoIterator<Item = (&'a str, &'a [&'static rules::Rule])>,
) {
    for (id, named) in checks {
        assert!(!named.is_empty(), "{id} names no rule");
        for rule in named {
            assert!(
                rules::by_id(rule.id).is_some_and(|r| std::ptr::eq(r, *rule)),
                "{id}: {} is not the registry's",
                rule.id
            );
        }
    }
}

/// Every rule a producer check names is in the registry, and every check
/// names one at least: no id is made up at run time.
#[test]
fn producer_checks_name_registry_rules() {
    name_registry_rules(CHECKS.iter().map(|c| (c.id, c.rules)));
}

/// `rpcspec rules` lists every rule of every role; an id or a glob picks
/// some, with where they are checked and by which cases.
#[test]
fn the_rules_command_lists_and_picks() {
    let run = |args: &[&str]| {
        assert_cmd::Command::cargo_bin("rpcspec")
            .expect("binary built")
            .args(args)
            .output()
            .expect("runs")
    };
    let all = run(&["rules", "--format", "json"]);
    assert!(all.status.success());
    let ids: Vec<String> = String::from_utf8(all.stdout)
        .expect("utf8")
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("json");
            v["id"].as_str().expect("id").to_owned()
        })
        .collect();
    let want: Vec<&str> = rules::all().map(|r| r.id).collect();
    assert_eq!(ids, want);
    for area in [
        "framing.", "process.", "events.", "http.", "decoder.", "mcp.", "session.",
    ] {
        assert!(ids.iter().any(|i| i.starts_with(area)), "no {area} rule");
    }
    let one = run(&["rules", "framing.utf8"]);
    let text = String::from_utf8(one.stdout).expect("utf8");
    assert!(
        text.starts_with(
            "framing.utf8  MUST  (RFC 8259 §8.1 (JSON text exchanged between systems \"MUST be \
             encoded using UTF-8\"); NDJSON 1.0 §3.1 (\"MUST use the UTF8 encoding\"))\n  every \
             line is UTF-8\n"
        ),
        "{text}"
    );
    assert!(text.contains("  cases: producer/framing/utf8\n"), "{text}");
    let glob = run(&["rules", "http.*"]);
    assert_eq!(
        String::from_utf8(glob.stdout)
            .expect("utf8")
            .lines()
            .filter(|l| l.starts_with("http."))
            .count(),
        3
    );
    let none = run(&["rules", "no-such.rule"]);
    assert_eq!(none.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&none.stderr).contains("no rule matches `no-such.rule`"));
}
