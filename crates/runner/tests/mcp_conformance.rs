//! `docs/mcp-conformance.md` is generated from the map of the official
//! MCP conformance suite's required scenarios (`rpcspec::dialects::mcp::conformance`);
//! this test fails when it is stale (`cargo xtask rules` rewrites it), when
//! the map misses or invents a scenario of the vendored requirement files
//! (`tests/fixtures/mcp-conformance/`), or when it names a case
//! `rpcspec list` does not have.

use std::{collections::BTreeSet, env, fs, path::Path, process::Command};

use rpcspec::dialects::mcp::conformance::{AUTH, Coverage, Leg, SCENARIOS, tally};
use serde_json::Value;

const REVISIONS: &[&str] = &["2025-11-25", "2026-07-28"];

fn render() -> String {
    let mut out = String::from(
        "# The official MCP conformance scenarios, over stdio\n\
         \n\
         <!-- Generated from crates/runner/src/dialects/mcp/conformance.rs by `cargo xtask rules`. \
         Do not edit. -->\n\
         \n\
         The official suite ([modelcontextprotocol/conformance]\
         (https://github.com/modelcontextprotocol/conformance), 0.2.0-alpha.11) lists in \
         `requirements/*.yaml` the scenarios each revision requires, of servers (its `server` \
         subcommand) and of clients (`client`). It speaks HTTP only. This page maps every \
         required scenario to the rpcspec cases that check what it checks over stdio: \
         **covered** (every assertion), **partly** (the note says what is missing), **not**, or \
         **HTTP-only** (SSE, HTTP headers, OAuth: nothing of it exists over stdio). Server \
         scenarios map to MCP checks (`rpcspec list --dialect mcp`), client scenarios to client \
         cases (`rpcspec list --role client`). A scenario required by both revisions runs once \
         in each: `--dialect mcp` checks a server that negotiates 2026-07-28 and also has \
         `initialize` in both sessions; `--dialect mcp@2025-11-25` or `@2026-07-28` pins one. \
         A client speaks the revision it opens with: `client/mcp/modern/` is 2026-07-28's.\n\
         \n\
         ## Coverage\n\
         \n\
         Covered is counted against the transport-agnostic scenarios.\n\
         \n\
         | Leg | Revision | Required | HTTP-only | Transport-agnostic | Covered | Partly | Not | Covered % |\n\
         |---|---|--:|--:|--:|--:|--:|--:|--:|\n",
    );
    for leg in [Leg::Server, Leg::Client] {
        for revision in REVISIONS {
            let t = tally(leg, revision);
            out += &format!(
                "| {} | {revision} | {} | {} | {} | {} | {} | {} | {:.0} % |\n",
                leg.as_str(),
                t.required,
                t.http_only,
                t.agnostic(),
                t.covered,
                t.partly,
                t.not,
                t.percent()
            );
        }
    }
    for leg in [Leg::Server, Leg::Client] {
        out += &format!(
            "\n## {} scenarios\n\n| Scenario | Required at | Coverage | rpcspec cases | How, or what is missing |\n|---|---|---|---|---|\n",
            match leg {
                Leg::Server => "Server",
                Leg::Client => "Client",
            }
        );
        for s in SCENARIOS.iter().filter(|s| s.leg == leg) {
            let by: Vec<String> = s.by.iter().map(|c| format!("`{c}`")).collect();
            out += &format!(
                "| `{}` | {} | {} | {} | {} |\n",
                s.id,
                s.revisions.join(", "),
                s.coverage.as_str(),
                by.join(", "),
                s.note.replace('|', "\\|")
            );
        }
    }
    out += "\nThe client leg's authorization scenarios are HTTP-only (OAuth over HTTP): ";
    out += &AUTH
        .iter()
        .map(|(id, _)| format!("`{id}`"))
        .collect::<Vec<_>>()
        .join(", ");
    out += ".\n";
    out
}

#[test]
fn mcp_conformance_md_is_up_to_date() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/mcp-conformance.md");
    let want = render();
    if env::var_os("UPDATE_RULES").is_some() {
        fs::write(&path, &want).expect("write docs/mcp-conformance.md");
        return;
    }
    let have = fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/mcp-conformance.md is stale or missing: run `cargo xtask rules` to regenerate it"
    );
}

/// The scenario ids a requirement file lists under `leg:` (its scored
/// ones; `not_scored` is not required).
fn required(revision: &str, leg: Leg) -> BTreeSet<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mcp-conformance")
        .join(format!("{revision}.yaml"));
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut section = "";
    let mut ids = BTreeSet::new();
    for line in text.lines() {
        if !line.starts_with([' ', '#']) && line.ends_with(':') {
            section = line.trim_end_matches(':');
        } else if section == leg.as_str()
            && let Some(id) = line.strip_prefix("  - ")
        {
            ids.insert(id.trim().to_owned());
        }
    }
    assert!(
        !ids.is_empty(),
        "{revision}: no {} scenarios read",
        leg.as_str()
    );
    ids
}

/// The map holds exactly the scenarios each file requires, each once per
/// leg and revision.
#[test]
fn the_map_is_the_requirement_files() {
    for leg in [Leg::Server, Leg::Client] {
        for revision in REVISIONS {
            let mut mapped = BTreeSet::new();
            let listed = SCENARIOS
                .iter()
                .filter(|s| s.leg == leg && s.revisions.contains(revision))
                .map(|s| s.id)
                .chain(
                    AUTH.iter()
                        .filter(|(_, r)| leg == Leg::Client && r.contains(revision))
                        .map(|(id, _)| *id),
                );
            for id in listed {
                assert!(
                    mapped.insert(id.to_owned()),
                    "{id} is mapped twice at {revision}"
                );
            }
            let want = required(revision, leg);
            let missing: Vec<_> = want.difference(&mapped).collect();
            let extra: Vec<_> = mapped.difference(&want).collect();
            assert!(
                missing.is_empty() && extra.is_empty(),
                "{} leg at {revision}: the map lacks {missing:?} and has {extra:?}, which the requirements file does not list",
                leg.as_str()
            );
        }
    }
}

/// The ids and the `needs` of what `rpcspec list` lists.
fn listed(args: &[&str]) -> Vec<(String, String)> {
    let out = Command::new(env!("CARGO_BIN_EXE_rpcspec"))
        .arg("list")
        .args(args)
        .args(["--format", "json"])
        .output()
        .expect("run rpcspec list");
    assert!(out.status.success(), "rpcspec list {args:?} failed");
    String::from_utf8(out.stdout)
        .expect("UTF-8")
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("a JSON line");
            let field = |k: &str| v[k].as_str().unwrap_or_default().to_owned();
            (field("id"), field("needs"))
        })
        .collect()
}

/// Every case the map names is one `rpcspec list` lists, of the leg's
/// role, and runs at every revision the scenario is required at; a
/// scenario covered or partly covered names one case at least, and one
/// neither covered nor partly names none.
#[test]
fn the_map_names_listed_cases() {
    let server = listed(&["--dialect", "mcp"]);
    let client = listed(&["--role", "client"]);
    for s in SCENARIOS {
        match s.coverage {
            Coverage::Covered | Coverage::Partly => {
                assert!(!s.by.is_empty(), "{}: {:?} by no case", s.id, s.coverage)
            }
            Coverage::Not | Coverage::HttpOnly => {
                assert!(
                    s.by.is_empty(),
                    "{}: {:?} yet names cases",
                    s.id,
                    s.coverage
                )
            }
        }
        assert!(!s.note.is_empty(), "{}: no note", s.id);
        for case in s.by {
            let cases = match s.leg {
                Leg::Server => &server,
                Leg::Client => &client,
            };
            let Some((_, needs)) = cases.iter().find(|(id, _)| id == case) else {
                panic!("{}: `{case}` is not a case `rpcspec list` lists", s.id);
            };
            // A check limited to some revisions names them in its needs.
            let limited: Vec<&str> = ["2025-06-18", "2025-11-25", "2026-07-28"]
                .into_iter()
                .filter(|r| needs.contains(r))
                .collect();
            for revision in s.revisions {
                assert!(
                    limited.is_empty() || limited.contains(revision),
                    "{}: `{case}` does not run at {revision} (needs: {needs})",
                    s.id
                );
            }
        }
    }
}
