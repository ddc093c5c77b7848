//! The `lsp` suite must be able to fail: the reference language server
//! (`rpcspec-mutant-lsp reference`, on that binary's own Content-Length
//! reader) passes every case of the `lsp` dialect under every plan, and
//! every mutant language server (the reference with one bug seen in real
//! ones) is caught by the cases written for its bug, whether cases share
//! a process or each has its own. The whole table of which cases catch
//! which mutant is a snapshot (`snapshots/lsp_self_test__lsp_catches.snap`).

mod support;

use std::collections::BTreeSet;

use support::mutants::{self, caught, class};

use rpcspec::{
    capture::Framing,
    plan::{ALL_PLANS, Plan},
    report::{CaseResult, Verdict},
};

const MUTANT: &str = env!("CARGO_BIN_EXE_rpcspec-mutant-lsp");

/// A mutant, the cases it is run against, and the cases that must catch it.
struct Mutant {
    name: &'static str,
    /// Case filters (empty: every case of the `lsp` dialect). A mutant
    /// that makes every case wait for its deadline runs on a few.
    filters: &'static [&'static str],
    /// The write plans (those of Content-Length framing but `crlf`).
    plans: &'static [Plan],
    /// Each of these must not pass under at least one plan.
    caught_by: &'static [&'static str],
}

/// Every plan of Content-Length framing.
const ALL: &[Plan] = &[Plan::Whole, Plan::Split, Plan::Bytewise, Plan::Coalesced];

const MUTANTS: &[Mutant] = &[
    Mutant {
        name: "length-in-characters",
        filters: &[],
        plans: ALL,
        caught_by: &["framing/content-length/length-in-bytes"],
    },
    Mutant {
        name: "one-read",
        // Every case that writes a message in pieces waits for its deadline.
        filters: &[
            "framing/content-length/header-and-body-apart",
            "framing/content-length/two-in-one-write",
        ],
        plans: ALL,
        caught_by: &["framing/content-length/header-and-body-apart"],
    },
    Mutant {
        name: "length-off-by-one",
        // Its every message swallows the next one's first byte.
        filters: &[
            "jsonrpc/ids/number",
            "framing/content-length/length-in-bytes",
        ],
        plans: ALL,
        caught_by: &[
            "jsonrpc/ids/number",
            "framing/content-length/length-in-bytes",
        ],
    },
    Mutant {
        name: "case-sensitive-header",
        filters: &[],
        plans: ALL,
        caught_by: &["framing/content-length/header-name-case"],
    },
    Mutant {
        name: "no-reply-after-cancel",
        filters: &[],
        // It drops a reply only when the cancel comes in the request's
        // read: one write (coalesced) makes that so; in separate writes
        // it is the scheduler's choice.
        plans: &[Plan::Coalesced],
        caught_by: &["lsp/lifecycle/cancelled-request-answered"],
    },
    Mutant {
        name: "answers-before-initialize",
        filters: &[],
        plans: ALL,
        caught_by: &["lsp/lifecycle/request-before-initialize"],
    },
    Mutant {
        name: "exit-zero-without-shutdown",
        filters: &[],
        plans: ALL,
        caught_by: &["lsp/lifecycle/exit-without-shutdown"],
    },
    Mutant {
        name: "answers-after-shutdown",
        filters: &[],
        plans: ALL,
        caught_by: &["lsp/lifecycle/requests-after-shutdown"],
    },
    Mutant {
        name: "ignores-dollar-requests",
        filters: &[],
        plans: ALL,
        caught_by: &["lsp/lifecycle/dollar-request"],
    },
    Mutant {
        name: "undeclared-request",
        filters: &[],
        plans: ALL,
        caught_by: &["lsp/lifecycle/asks-only-what-was-declared"],
    },
    Mutant {
        name: "notifies-before-initialized",
        filters: &[],
        plans: ALL,
        caught_by: &["lsp/lifecycle/quiet-until-initialized"],
    },
    Mutant {
        name: "string-ids",
        filters: &[],
        plans: ALL,
        caught_by: &["jsonrpc/ids/number", "lsp/lifecycle/id-int32-range"],
    },
    Mutant {
        name: "off-model",
        filters: &[],
        plans: ALL,
        caught_by: &["lsp/messages/shapes"],
    },
];

/// The cases the reference language server cannot pass for want of a
/// request that succeeds with params: no LSP request both succeeds on
/// every server and leaves it as it was (as for `serve --dialect lsp`).
const SKIPPED: &[&str] = &[
    "jsonrpc/envelope/result-object-shape",
    "jsonrpc/params/names-case-sensitive",
    "jsonrpc/params/wrong-arity",
];

/// The `lsp` suite (its cases under `filters`, every plan of its framing)
/// against mutant `name`.
fn run(name: &str, filters: &[&str], plans: &[Plan], fresh: bool) -> Vec<CaseResult> {
    let lsp = ("lsp", Framing::content_length());
    mutants::run_dialect(MUTANT, name, lsp, filters, plans, fresh)
}

#[test]
fn the_reference_language_server_passes_every_case_under_every_plan() {
    let framing = Framing::content_length();
    let every: Vec<Plan> = ALL_PLANS
        .into_iter()
        .filter(|p| p.applies_to(&framing))
        .collect();
    assert_eq!(ALL, every.as_slice());
    for fresh in [false, true] {
        let results = run("reference", &[], ALL, fresh);
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
        for area in ["jsonrpc/", "framing/content-length/", "lsp/lifecycle/"] {
            let n = passed.iter().filter(|id| id.starts_with(area)).count();
            assert!(n >= 8, "only {n} cases of {area} passed: {passed:?}");
        }
    }
}

#[test]
fn every_lsp_mutant_is_caught_by_the_cases_written_for_it() {
    let (shared, shared_verdicts) = catch_table(false);
    let (fresh, fresh_verdicts) = catch_table(true);
    // Not only what is caught: every (case, plan) has the same verdict.
    mutants::assert_same_verdicts(&shared_verdicts, &fresh_verdicts);
    assert_eq!(shared, fresh);
    insta::assert_snapshot!("lsp_catches", shared);
}

/// The catch table, and every result as `mutant id [plan] class`.
fn catch_table(fresh: bool) -> (String, Vec<String>) {
    let mut table = String::new();
    let mut verdicts = Vec::new();
    for m in MUTANTS {
        let results = run(m.name, m.filters, m.plans, fresh);
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
        let scope = if m.filters.is_empty() {
            "all cases".to_owned()
        } else {
            format!("{} selected cases", m.filters.len())
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
fn every_lsp_mutant_of_the_binary_is_tested() {
    let tested: BTreeSet<String> = MUTANTS.iter().map(|m| m.name.to_owned()).collect();
    assert_eq!(mutants::listed(MUTANT), tested);
}
