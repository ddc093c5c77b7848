//! The `codex/…` cases must be able to fail: the reference Codex
//! app-server (`rpcspec-mutant-codex reference`, on that binary's own line
//! reader) passes each of them under every plan, and every mutant (the
//! reference with one lifecycle bug) is caught by the case written for
//! it, whether cases share a process or each has its own. The whole table
//! of which cases catch which mutant is a snapshot
//! (`snapshots/codex_self_test__codex_catches.snap`).

mod support;

use std::collections::BTreeSet;

use support::mutants;

use rpcspec::{
    capture::Framing,
    plan::{ALL_PLANS, Plan},
    report::{CaseResult, Verdict},
};

const MUTANT: &str = env!("CARGO_BIN_EXE_rpcspec-mutant-codex");

/// A mutant and the cases that must catch it (each must not pass under
/// at least one plan), and how (`caught`: FAIL; or NON-STRICT).
const MUTANTS: &[(&str, &[(&str, Verdict)])] = &[
    (
        "serves-before-initialize",
        &[
            ("codex/lifecycle/request-before-initialize", Verdict::Fail),
            (
                "codex/lifecycle/unknown-method-before-initialize",
                Verdict::NonStrict,
            ),
        ],
    ),
    (
        "initializes-twice",
        &[("codex/lifecycle/initialize-once", Verdict::Fail)],
    ),
    (
        "no-user-agent",
        &[("codex/lifecycle/initialize-user-agent", Verdict::Fail)],
    ),
    (
        "unknown-method-first",
        &[(
            "codex/lifecycle/unknown-method-before-initialize",
            Verdict::NonStrict,
        )],
    ),
    (
        "other-message",
        &[
            (
                "codex/lifecycle/request-before-initialize",
                Verdict::NonStrict,
            ),
            (
                "codex/lifecycle/unknown-method-before-initialize",
                Verdict::NonStrict,
            ),
        ],
    ),
];

/// The `codex/…` cases, every plan of NDJSON framing, against mutant `name`.
fn run(name: &str, fresh: bool) -> Vec<CaseResult> {
    let plans: Vec<Plan> = ALL_PLANS
        .into_iter()
        .filter(|p| p.applies_to(&Framing::ndjson()))
        .collect();
    let codex = ("codex", Framing::ndjson());
    let results = mutants::run_dialect(MUTANT, name, codex, &["codex/*"], &plans, fresh);
    let cases: BTreeSet<&str> = results.iter().map(|r| r.id.as_str()).collect();
    assert!(cases.len() >= 4, "{name}: the codex cases: {cases:?}");
    results
}

#[test]
fn the_reference_app_server_passes_every_codex_case_under_every_plan() {
    for fresh in [false, true] {
        let results = run("reference", fresh);
        let bad: Vec<String> = results
            .iter()
            .filter(|r| r.verdict != Verdict::Pass)
            .map(|r| format!("{} [{}] {:?}: {:?}", r.id, r.plan, r.verdict, r.evidence))
            .collect();
        assert!(
            bad.is_empty(),
            "the reference must pass (fresh: {fresh}):\n{}",
            bad.join("\n")
        );
    }
}

#[test]
fn every_codex_mutant_is_caught_by_the_case_written_for_it() {
    let (shared, shared_verdicts) = catch_table(false);
    let (fresh, fresh_verdicts) = catch_table(true);
    mutants::assert_same_verdicts(&shared_verdicts, &fresh_verdicts);
    assert_eq!(shared, fresh);
    insta::assert_snapshot!("codex_catches", shared);
}

/// The catch table, and every result as `mutant id [plan] verdict`.
fn catch_table(fresh: bool) -> (String, Vec<String>) {
    let mut table = String::new();
    let mut verdicts = Vec::new();
    for (name, caught_by) in MUTANTS {
        let results = run(name, fresh);
        verdicts.extend(
            results
                .iter()
                .map(|r| format!("{name} {} [{}] {}", r.id, r.plan, r.verdict.as_str())),
        );
        mutants::assert_fails_name_rules(name, &results);
        let not_passed: BTreeSet<(&str, Verdict)> = results
            .iter()
            .filter(|r| r.verdict != Verdict::Pass)
            .map(|r| (r.id.as_str(), r.verdict))
            .collect();
        for (case, how) in *caught_by {
            assert!(
                not_passed.contains(&(*case, *how)),
                "mutant `{name}` is not caught by `{case}` as {how:?} (fresh: {fresh}); got: {not_passed:?}"
            );
        }
        table.push_str(&format!("{name}:\n"));
        for (case, how) in &not_passed {
            table.push_str(&format!("  {case} ({})\n", how.as_str()));
        }
    }
    (table, verdicts)
}

/// The list above and the binary's list of mutants are the same.
#[test]
fn every_codex_mutant_of_the_binary_is_tested() {
    let tested: BTreeSet<String> = MUTANTS.iter().map(|(m, _)| (*m).to_owned()).collect();
    assert_eq!(mutants::listed(MUTANT), tested);
}
