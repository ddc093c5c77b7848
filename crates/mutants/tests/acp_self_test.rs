//! The `acp` suites must be able to fail. Agents: the reference agent
//! (`rpcspec-mutant-acp reference`, on that binary's own loop) passes every
//! case of the `acp` dialect under every plan, and every mutant agent (the
//! reference with one bug seen in real ones) is caught by the cases written
//! for its bug, whether cases share a process or each has its own. The
//! whole table of which cases catch which mutant is a snapshot
//! (`snapshots/acp_self_test__acp_catches.snap`). Clients: the reference
//! ACP client (`rpcspec-mutant-editor reference`) passes every scenario of
//! `client/acp/`, and each mutant editor (its own bugs and the JSON-RPC
//! client's) is caught by the scenarios written for it, with the rules
//! that caught it (`…__acp_client_catches.snap`).

mod support;

use std::{collections::BTreeSet, time::Duration};

use support::{
    clients::self_test,
    mutants::{self, caught, class},
};

use rpcspec::{
    capture::Framing,
    plan::{ALL_PLANS, Plan},
    report::{CaseResult, Verdict},
};

const MUTANT: &str = env!("CARGO_BIN_EXE_rpcspec-mutant-acp");

/// A mutant, the cases it is run against, and the cases that must catch it.
struct Mutant {
    name: &'static str,
    /// Case filters (empty: every case of the `acp` dialect).
    filters: &'static [&'static str],
    /// Each of these must not pass under at least one plan.
    caught_by: &'static [&'static str],
    /// The rule the bug breaks: some finding of those cases names it (a
    /// case caught for another reason proves nothing of its grader).
    rule: &'static str,
}

/// ACP's own cases: each mutant's bug is in ACP's layer (the two that
/// break the transport run on two cases, one of JSON-RPC's).
const OWN: &[&str] = &["acp/"];

const MUTANTS: &[Mutant] = &[
    Mutant {
        name: "update-before-session",
        rule: "acp.update-before-session",
        filters: OWN,
        caught_by: &["acp/session/update-before-reply"],
    },
    Mutant {
        name: "update-after-turn",
        rule: "acp.update-after-turn",
        filters: OWN,
        caught_by: &["acp/prompt/update-after-reply"],
    },
    Mutant {
        name: "echo-version",
        rule: "acp.version",
        filters: OWN,
        caught_by: &["acp/initialization/version-newer"],
    },
    Mutant {
        name: "refuses-other-version",
        rule: "acp.version",
        filters: OWN,
        caught_by: &[
            "acp/initialization/version-newer",
            "acp/initialization/version-older",
        ],
    },
    Mutant {
        name: "string-version",
        rule: "acp.version",
        filters: OWN,
        caught_by: &["acp/initialization/version-same"],
    },
    Mutant {
        name: "needs-client-capabilities",
        rule: "acp.initialize",
        filters: OWN,
        caught_by: &["acp/initialization/minimal"],
    },
    Mutant {
        name: "refuses-unknown-capability",
        rule: "acp.initialize",
        filters: OWN,
        caught_by: &["acp/initialization/unknown-capability"],
    },
    Mutant {
        name: "refuses-meta",
        rule: "acp.initialize",
        filters: OWN,
        caught_by: &["acp/initialization/meta"],
    },
    Mutant {
        name: "stdout-log",
        rule: "json.parse",
        filters: &["acp/session/new", "jsonrpc/ids/number"],
        caught_by: &["acp/session/new", "jsonrpc/ids/number"],
    },
    Mutant {
        name: "embedded-newline",
        rule: "framing.multi-line",
        filters: &["acp/session/new", "jsonrpc/ids/number"],
        caught_by: &["acp/session/new", "jsonrpc/ids/number"],
    },
    Mutant {
        name: "same-session-id",
        rule: "acp.session-new",
        filters: OWN,
        caught_by: &["acp/session/unique"],
    },
    Mutant {
        name: "session-id-number",
        rule: "acp.schema",
        filters: OWN,
        caught_by: &["acp/session/new", "acp/initialization/shapes"],
    },
    Mutant {
        name: "prompts-any-session",
        rule: "acp.never-offered",
        filters: OWN,
        caught_by: &["acp/session/prompt-unknown-session"],
    },
    Mutant {
        name: "no-resource-link",
        rule: "acp.content-baseline",
        filters: OWN,
        caught_by: &["acp/prompt/resource-link"],
    },
    Mutant {
        name: "no-stop-reason",
        rule: "acp.prompt",
        filters: OWN,
        caught_by: &["acp/prompt/text"],
    },
    Mutant {
        name: "unlisted-stop-reason",
        rule: "acp.schema",
        filters: OWN,
        caught_by: &["acp/prompt/shapes"],
    },
    Mutant {
        name: "cancel-as-error",
        rule: "acp.cancelled",
        filters: OWN,
        caught_by: &["acp/prompt/cancel"],
    },
    Mutant {
        name: "reads-undeclared-fs",
        rule: "acp.capabilities",
        filters: OWN,
        caught_by: &["acp/prompt/undeclared-capabilities"],
    },
    Mutant {
        name: "answers-notifications",
        rule: "session.reply-to-notification",
        filters: OWN,
        caught_by: &["acp/session/cancel-unknown-session"],
    },
    Mutant {
        name: "ignores-extension-requests",
        rule: "acp.extension-request",
        filters: OWN,
        caught_by: &["acp/session/extension-request"],
    },
    Mutant {
        name: "errors-on-extension-notifications",
        rule: "acp.extension-notification",
        filters: OWN,
        caught_by: &["acp/session/extension-notification"],
    },
    Mutant {
        name: "drops-cancelled-request",
        rule: "acp.cancel-request",
        filters: OWN,
        caught_by: &["acp/session/cancel-request-answered"],
    },
];

/// The cases the reference agent cannot pass for want of a request that
/// succeeds with params without a session (as for `serve --dialect acp`).
const SKIPPED: &[&str] = &[
    "jsonrpc/envelope/result-object-shape",
    "jsonrpc/params/names-case-sensitive",
    "jsonrpc/params/wrong-arity",
];

/// The `acp` suite (its cases under `filters`, every plan of NDJSON)
/// against mutant `name`.
fn run(name: &str, filters: &[&str], plans: &[Plan], fresh: bool) -> Vec<CaseResult> {
    let acp = ("acp", Framing::ndjson());
    mutants::run_dialect(MUTANT, name, acp, filters, plans, fresh)
}

/// Every plan of NDJSON.
fn every_plan() -> Vec<Plan> {
    let framing = Framing::ndjson();
    ALL_PLANS
        .into_iter()
        .filter(|p| p.applies_to(&framing))
        .collect()
}

#[test]
fn the_reference_agent_passes_every_case_under_every_plan() {
    let every = every_plan();
    for fresh in [false, true] {
        let results = run("reference", &[], &every, fresh);
        let bad: Vec<String> = results
            .iter()
            .filter(|r| !matches!(r.verdict, Verdict::Pass | Verdict::NotApplicable))
            .filter(|r| !(r.verdict == Verdict::Skipped && SKIPPED.contains(&r.id.as_str())))
            .map(|r| format!("{} [{}] {:?}: {:?}", r.id, r.plan, r.verdict, r.evidence))
            .collect();
        assert!(
            bad.is_empty(),
            "the reference must pass (fresh: {fresh}):\n{}",
            bad.join("\n")
        );
        let passed: BTreeSet<&str> = results
            .iter()
            .filter(|r| r.verdict == Verdict::Pass)
            .map(|r| r.id.as_str())
            .collect();
        for area in ["jsonrpc/", "framing/lines/", "acp/"] {
            let n = passed.iter().filter(|id| id.starts_with(area)).count();
            assert!(n >= 8, "only {n} cases of {area} passed: {passed:?}");
        }
    }
}

#[test]
fn every_acp_mutant_is_caught_by_the_cases_written_for_it() {
    let (shared, shared_verdicts) = catch_table(false);
    let (fresh, fresh_verdicts) = catch_table(true);
    // Not only what is caught: every (case, plan) has the same verdict.
    mutants::assert_same_verdicts(&shared_verdicts, &fresh_verdicts);
    assert_eq!(shared, fresh);
    insta::assert_snapshot!("acp_catches", shared);
}

/// The catch table, and every result as `mutant id [plan] class`.
fn catch_table(fresh: bool) -> (String, Vec<String>) {
    let mut table = String::new();
    let mut verdicts = Vec::new();
    for m in MUTANTS {
        let results = run(m.name, m.filters, &every_plan(), fresh);
        verdicts.extend(
            results
                .iter()
                .map(|r| format!("{} {} [{}] {}", m.name, r.id, r.plan, class(r.verdict))),
        );
        mutants::assert_fails_name_rules(m.name, &results);
        let caught = caught(&results);
        for case in m.caught_by {
            assert!(
                caught.contains(case),
                "mutant `{}` is not caught by `{case}` (fresh: {fresh}); caught by: {caught:?}",
                m.name
            );
        }
        let named = results
            .iter()
            .filter(|r| m.caught_by.contains(&r.id.as_str()))
            .flat_map(|r| &r.evidence)
            .any(|e| e.verdict != Verdict::Pass && e.rule.as_ref().is_some_and(|r| r.id == m.rule));
        assert!(
            named,
            "mutant `{}`: no finding of {:?} names `{}` (fresh: {fresh})",
            m.name, m.caught_by, m.rule
        );
        let scope = if m.filters.is_empty() {
            "all cases".to_owned()
        } else {
            format!("cases {}", m.filters.join(", "))
        };
        table.push_str(&format!("{} ({scope}): {} caught\n", m.name, caught.len()));
        for case in &caught {
            let how: BTreeSet<&str> = results
                .iter()
                .filter(|r| r.id == *case)
                .map(|r| class(r.verdict))
                .filter(|c| *c != "PASS")
                .collect();
            let how: Vec<&str> = how.into_iter().collect();
            table.push_str(&format!("  {case} ({})\n", how.join(", ")));
        }
    }
    (table, verdicts)
}

/// The list above and the binary's list of mutants are the same.
#[test]
fn every_acp_mutant_of_the_binary_is_tested() {
    let tested: BTreeSet<String> = MUTANTS.iter().map(|m| m.name.to_owned()).collect();
    assert_eq!(mutants::listed(MUTANT), tested);
}

const EDITOR: &str = env!("CARGO_BIN_EXE_rpcspec-mutant-editor");

/// Each mutant editor, and the scenarios (under `client/acp/session/`)
/// that must catch it: the editor's own bugs, then the JSON-RPC client's
/// that an ACP session shows.
const EDITORS: &[(&str, &[&str])] = &[
    ("acp-permission-after-cancel", &["permission-cancelled"]),
    ("acp-unoffered-option", &["permission"]),
    ("acp-relative-cwd", &["baseline"]),
    ("acp-eager-session", &["baseline"]),
    ("acp-no-cancel", &["baseline"]),
    ("acp-answers-extensions", &["extension-request"]),
    ("acp-version-string", &["baseline"]),
    // Not `unknown-id`: which call the decoy is paired with there, and
    // so which rules it breaks, depends on whether the next call was
    // already sent when the decoy came (the machine's load).
    ("arrival-order", &["out-of-order"]),
    ("read-is-message", &["coalesced", "split", "bytewise"]),
    ("drops-split-line", &["split", "bytewise"]),
    ("retyped-id-matches", &["retyped-id"]),
    (
        "ignores-server-requests",
        &[
            "permission",
            "permission-cancelled",
            "read-text-file",
            "write-text-file",
            "terminal",
            "extension-request",
        ],
    ),
    ("hangs-on-exit", &["exit-mid-turn", "close-stdout"]),
    ("reuses-id", &["out-of-order"]),
    ("crashes-on-unknown-id", &["unknown-id", "duplicate-reply"]),
    ("cr-is-line-end", &["cr-whitespace"]),
    ("notification-with-id", &["baseline"]),
    ("no-jsonrpc", &["baseline"]),
    ("line-limit", &["long-line"]),
    ("splitlines", &["u2028-in-result"]),
];

#[test]
fn the_reference_editor_passes_and_every_mutant_editor_is_caught() {
    use rpcspec::dialects::acp::client::Bug;
    // Every bug of the editor's own has its row; every row is a bug.
    let names: Vec<&str> = std::iter::once("reference")
        .chain(EDITORS.iter().map(|(n, _)| *n))
        .collect();
    for (own, _) in Bug::OWN {
        assert!(names.contains(&own), "`{own}` without its row");
    }
    for name in &names {
        assert!(Bug::named(name).is_some(), "no mutant editor `{name}`");
    }
    // A series of 3 s calls: a deadline well past it whatever the load;
    // a client that hangs ends in TIMEOUT.
    let table = self_test(
        EDITOR,
        rpcspec::client::Protocol::named("acp").unwrap(),
        &names,
        EDITORS,
        (20, Duration::from_secs(20), 4),
        &|id| {
            id.strip_prefix("client/acp/session/")
                .unwrap_or(id)
                .to_owned()
        },
    );
    insta::assert_snapshot!("acp_client_catches", table);
}
