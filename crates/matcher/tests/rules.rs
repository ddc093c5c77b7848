//! `docs/rules.md` is generated from `RULES`; this test fails when it is
//! stale. `cargo xtask rules` (which sets `UPDATE_RULES=1`) rewrites it.

use std::{env, fs, path::Path};

use rpcspec_matcher::RULES;

fn render() -> String {
    let mut out = String::from(
        "# Rules\n\
         \n\
         <!-- Generated from `RULES` in crates/matcher/src/rules.rs by `cargo xtask rules`. Do not edit. -->\n\
         \n\
         Every check rpcspec makes, with its stable id. Breaking a MUST rule fails a case, \
         breaking a SHOULD rule makes it non-strict, and an INFO finding records behaviour \
         the specification leaves open. `message.*` to `batch.*` rules are checked on each \
         message alone; `session.*` rules need the conversation; `mcp.*`, `claude.*` and \
         `events.*` rules belong to their dialect.\n\
         \n\
         | Id | Level | Section | Statement |\n\
         |---|---|---|---|\n",
    );
    for rule in RULES {
        out += &format!(
            "| `{}` | {} | {} | {} |\n",
            rule.id,
            rule.level,
            rule.section,
            rule.statement.replace('|', "\\|")
        );
    }
    out
}

#[test]
fn rules_md_is_up_to_date() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/rules.md");
    let want = render();
    if env::var_os("UPDATE_RULES").is_some() {
        fs::write(&path, &want).expect("write docs/rules.md");
        return;
    }
    let have = fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/rules.md is stale or missing: run `cargo xtask rules` to regenerate it"
    );
}
