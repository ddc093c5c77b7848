//! What the mutant self-tests share: a mutant binary's own list of its
//! mutants, a run of one dialect's suite against a mutant, the check that
//! every FAIL names a registry rule, and the comparison of the verdicts of
//! shared and fresh processes.

use std::{collections::BTreeSet, process::Command, time::Duration};

use rpcspec::{
    capture::Framing,
    cases::{self, Case},
    compile_filters,
    dialects::dialect_named,
    exec::{self, RunOptions},
    plan::Plan,
    report::{CaseResult, Verdict},
    run_suite, selected,
    target::Target,
};

/// The built-in cases of `dialect` in `framing` under `filters` (empty:
/// all), under `plans`, against `binary NAME`: each case with a 2 s
/// deadline, in processes shared or `fresh`.
pub fn run_dialect(
    binary: &str,
    name: &str,
    (dialect, framing): (&str, Framing),
    filters: &[&str],
    plans: &[Plan],
    fresh: bool,
) -> Vec<CaseResult> {
    let (dialect, handshake) = dialect_named(dialect).unwrap();
    let filters: Vec<String> = filters.iter().map(|s| (*s).to_owned()).collect();
    let filters = compile_filters(&filters).unwrap();
    let cases: Vec<Case> = cases::builtin()
        .unwrap()
        .into_iter()
        .filter(|c| selected(&c.meta.id, &filters))
        .filter(|c| exec::foreign(c, &handshake, &framing).is_none())
        .collect();
    assert!(!cases.is_empty(), "{name}: no case selected");
    let target = Target {
        argv: vec![binary.into(), name.into()],
    };
    let opts = RunOptions {
        timeout: Duration::from_millis(2000),
        startup: Duration::from_secs(2),
        fresh,
        dialect,
        handshake: Some(handshake),
        framing,
        ..RunOptions::default()
    };
    run_suite(&cases, plans, &target, &opts, 4, &|_, _| {})
}

/// The mutants `binary` lists when run without one (its usage, exit status
/// 2), the correct `reference…` servers left out.
pub fn listed(binary: &str) -> BTreeSet<String> {
    let out = Command::new(binary).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let usage = String::from_utf8(out.stderr).unwrap();
    usage
        .lines()
        .filter_map(|l| l.strip_prefix("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| !n.starts_with("reference"))
        .map(str::to_owned)
        .collect()
}

/// Every FAIL of `results` (mutant `mutant`'s) names the registry rule it
/// breaks (its sentence is in the rule's section).
#[track_caller]
pub fn assert_fails_name_rules(mutant: &str, results: &[CaseResult]) {
    for r in results {
        for e in r.evidence.iter().filter(|e| e.verdict == Verdict::Fail) {
            let rule = e.rule.as_ref().unwrap_or_else(|| {
                panic!(
                    "mutant `{mutant}`: {} [{}]: a FAIL without a rule: {}",
                    r.id, r.plan, e.message
                )
            });
            assert!(
                rpcspec::rules::by_id(&rule.id).is_some(),
                "{}: not a registry rule",
                rule.id
            );
        }
    }
}

/// The same verdicts, one per (mutant, case, plan), with shared processes
/// and with fresh ones.
#[track_caller]
pub fn assert_same_verdicts(shared: &[String], fresh: &[String]) {
    let differ: Vec<String> = shared
        .iter()
        .zip(fresh)
        .filter(|(a, b)| a != b)
        .map(|(a, b)| format!("shared: {a}\n fresh: {b}"))
        .collect();
    assert_eq!(shared.len(), fresh.len());
    assert!(
        differ.is_empty(),
        "verdicts differ between shared and fresh processes:\n{}",
        differ.join("\n")
    );
}

/// What a verdict says of a mutant: FAIL, TIMEOUT and CRASH are one class
/// (which of them a framing bug draws is the scheduler's choice), and a
/// NON-STRICT catches a bug that breaks a SHOULD.
pub fn class(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Fail | Verdict::Timeout | Verdict::Crash => "caught",
        other => other.as_str(),
    }
}

/// The cases that did not pass under some plan (SKIPPED and N/A are no
/// catch).
pub fn caught(results: &[CaseResult]) -> BTreeSet<&str> {
    results
        .iter()
        .filter(|r| {
            !matches!(
                r.verdict,
                Verdict::Pass | Verdict::Skipped | Verdict::NotApplicable
            )
        })
        .map(|r| r.id.as_str())
        .collect()
}
