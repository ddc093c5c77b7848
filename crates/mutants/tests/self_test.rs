//! The suite must be able to fail: the reference server passes every case
//! under every plan, and every mutant server is caught (FAIL, TIMEOUT or
//! CRASH) by the cases written for its bug. The full table of which cases
//! catch which mutant is a snapshot (`snapshots/self_test__catches.snap`),
//! and it is the same whether cases share a process (the default) or each
//! has its own (`--fresh`).

mod support;

use std::{collections::BTreeSet, time::Duration};

use support::mutants;

use rpcspec::{
    cases::{self, Case},
    compile_filters,
    exec::RunOptions,
    plan::{ALL_PLANS, Plan},
    report::{CaseResult, Verdict},
    run_suite, selected,
    target::Target,
};

const MUTANT: &str = env!("CARGO_BIN_EXE_rpcspec-mutant");

/// A mutant, the cases it is run against, and the cases that must catch it.
struct Mutant {
    name: &'static str,
    /// Case filters (empty: every case). Mutants that make every case wait
    /// for its deadline run on a subset, to keep the test fast.
    filters: &'static [&'static str],
    plans: &'static [Plan],
    timeout_ms: u64,
    /// Each of these must be caught under at least one plan.
    caught_by: &'static [&'static str],
}

const ALL: &[Plan] = &ALL_PLANS;

const MUTANTS: &[Mutant] = &[
    Mutant {
        name: "string-id-as-number",
        filters: &[],
        plans: ALL,
        timeout_ms: 3000,
        caught_by: &["jsonrpc/ids/string", "jsonrpc/examples/method-not-found"],
    },
    Mutant {
        name: "ids-through-f64",
        filters: &[],
        plans: ALL,
        timeout_ms: 3000,
        caught_by: &["jsonrpc/ids/big-integer"],
    },
    Mutant {
        name: "replies-to-notifications",
        filters: &[],
        plans: ALL,
        timeout_ms: 3000,
        caught_by: &[
            "jsonrpc/examples/notification",
            "jsonrpc/notifications/known-method",
        ],
    },
    Mutant {
        name: "null-id-as-notification",
        filters: &[],
        plans: ALL,
        timeout_ms: 3000,
        caught_by: &["jsonrpc/ids/null"],
    },
    Mutant {
        name: "result-and-error",
        filters: &[],
        plans: ALL,
        timeout_ms: 3000,
        caught_by: &[
            "jsonrpc/envelope/result-object-shape",
            "jsonrpc/examples/positional-params",
        ],
    },
    Mutant {
        name: "wrong-code-method-not-found",
        filters: &[],
        plans: ALL,
        timeout_ms: 3000,
        caught_by: &[
            "jsonrpc/examples/method-not-found",
            "jsonrpc/examples/batch",
        ],
    },
    Mutant {
        name: "dies-on-invalid-json",
        filters: &[],
        plans: ALL,
        timeout_ms: 3000,
        caught_by: &[
            "jsonrpc/examples/invalid-json",
            "framing/lines/broken-then-good",
        ],
    },
    Mutant {
        name: "empty-batch-as-array",
        filters: &[],
        plans: ALL,
        timeout_ms: 3000,
        caught_by: &["jsonrpc/examples/empty-batch"],
    },
    Mutant {
        name: "notification-batch-empty-array",
        filters: &[],
        plans: ALL,
        timeout_ms: 3000,
        caught_by: &["jsonrpc/examples/batch-all-notifications"],
    },
    Mutant {
        name: "drops-jsonrpc",
        filters: &[],
        plans: ALL,
        timeout_ms: 3000,
        caught_by: &[
            "jsonrpc/examples/positional-params",
            "jsonrpc/envelope/error-object-shape",
        ],
    },
    Mutant {
        name: "chunk-as-message",
        filters: &[
            "framing/lines/two-in-one-write",
            "framing/lines/split-writes",
        ],
        // Not `examples/batch`: its bytewise writes reach this mutant one
        // byte per read or all in one, as the scheduler pleases, so whether
        // it is caught is not a fact about the cases.
        plans: &[Plan::Whole, Plan::Bytewise],
        timeout_ms: 500,
        caught_by: &[
            "framing/lines/two-in-one-write",
            "framing/lines/split-writes",
        ],
    },
    Mutant {
        name: "drops-coalesced",
        // Only a case whose two lines are one write: elsewhere whether a
        // step and its barrier arrive in one read is the scheduler's choice.
        filters: &["framing/lines/two-in-one-write"],
        plans: &[Plan::Whole],
        timeout_ms: 500,
        caught_by: &["framing/lines/two-in-one-write"],
    },
    Mutant {
        name: "ignores-unknown-methods",
        filters: &[
            "jsonrpc/examples/method-not-found",
            "jsonrpc/examples/positional-params",
        ],
        plans: &[Plan::Whole],
        timeout_ms: 500,
        caught_by: &[
            "jsonrpc/examples/method-not-found",
            "jsonrpc/examples/positional-params",
        ],
    },
    Mutant {
        name: "rejects-crlf",
        filters: &[],
        // Under the crlf plan even the barrier is \r\n-terminated, so every
        // case waits for its deadline; the raw CRLF cases catch it anyway.
        plans: &[Plan::Whole, Plan::Split, Plan::Bytewise, Plan::Coalesced],
        timeout_ms: 3000,
        caught_by: &["framing/lines/crlf", "framing/lines/crlf-split"],
    },
    Mutant {
        name: "pretty-prints",
        filters: &[],
        plans: ALL,
        timeout_ms: 3000,
        caught_by: &["jsonrpc/examples/positional-params"],
    },
    Mutant {
        name: "logs-to-stdout",
        filters: &[],
        plans: ALL,
        timeout_ms: 3000,
        caught_by: &["jsonrpc/examples/notification"],
    },
    Mutant {
        name: "no-flush",
        filters: &[
            "jsonrpc/examples/positional-params",
            "framing/lines/eof-flushes",
        ],
        plans: &[Plan::Whole],
        timeout_ms: 500,
        caught_by: &["jsonrpc/examples/positional-params"],
    },
];

fn run(
    name: &str,
    filters: &[&str],
    plans: &[Plan],
    timeout_ms: u64,
    fresh: bool,
) -> Vec<CaseResult> {
    let filters: Vec<String> = filters.iter().map(|s| (*s).to_owned()).collect();
    let filters = compile_filters(&filters).unwrap();
    let cases: Vec<Case> = cases::builtin()
        .unwrap()
        .into_iter()
        .filter(|c| selected(&c.meta.id, &filters))
        .collect();
    assert!(!cases.is_empty(), "{name}: no case selected");
    let target = Target {
        argv: vec![MUTANT.into(), name.into()],
    };
    let opts = RunOptions {
        timeout: Duration::from_millis(timeout_ms),
        startup: Duration::from_secs(2),
        fresh,
        ..RunOptions::default()
    };
    run_suite(&cases, plans, &target, &opts, 4, &|_, _| {})
}

fn caught(results: &[CaseResult]) -> BTreeSet<&str> {
    results
        .iter()
        .filter(|r| matches!(r.verdict, Verdict::Fail | Verdict::Timeout | Verdict::Crash))
        .map(|r| r.id.as_str())
        .collect()
}

#[test]
fn the_reference_passes_every_case_under_every_plan() {
    for name in [
        "reference",
        "reference-nesting-limit",
        "reference-out-of-order",
    ] {
        for fresh in [false, true] {
            reference_passes(name, fresh);
        }
    }
}

/// A result N/A because its case belongs to Content-Length framing or to
/// the LSP or Codex dialect, which these NDJSON JSON-RPC servers do not
/// speak.
fn other_framing_or_dialect(r: &CaseResult) -> bool {
    // Another framing's cases, and each other dialect's own (`lsp/…`).
    let other_dialect = rpcspec::dialects::DIALECTS
        .iter()
        .any(|d| d.name != "jsonrpc2" && r.id.starts_with(&format!("{}/", d.name)));
    r.verdict == Verdict::NotApplicable
        && (other_dialect || r.id.starts_with("framing/content-length/"))
}

fn reference_passes(name: &str, fresh: bool) {
    let results = run(name, &[], ALL, 5000, fresh);
    let all_cases = cases::builtin().unwrap();
    let expected: usize = all_cases.iter().map(|c| c.plans.len()).sum();
    assert_eq!(results.len(), expected, "every (case, plan) ran");
    let bad: Vec<String> = results
        .iter()
        .filter(|r| r.verdict != Verdict::Pass && !other_framing_or_dialect(r))
        .map(|r| format!("{} [{}] {:?}: {:?}", r.id, r.plan, r.verdict, r.evidence))
        .collect();
    assert!(
        bad.is_empty(),
        "{name} must pass (fresh: {fresh}):\n{}",
        bad.join("\n")
    );
}

#[test]
fn every_mutant_is_caught_by_the_cases_written_for_it() {
    let (shared, shared_verdicts) = catch_table(false);
    let (fresh, fresh_verdicts) = catch_table(true);
    // Not only what is caught: every (case, plan) has the same verdict.
    mutants::assert_same_verdicts(&shared_verdicts, &fresh_verdicts);
    assert_eq!(shared, fresh);
    insta::assert_snapshot!("catches", shared);
}

/// The catch table, and every result as `mutant id [plan] class`.
fn catch_table(fresh: bool) -> (String, Vec<String>) {
    let mut table = String::new();
    let mut verdicts = Vec::new();
    for m in MUTANTS {
        let results = run(m.name, m.filters, m.plans, m.timeout_ms, fresh);
        // FAIL, TIMEOUT and CRASH are one class here: whether a mutant that
        // parses each read as a message gets a step and its barrier in one
        // read is the scheduler's choice, and decides which of them it is.
        verdicts.extend(results.iter().map(|r| {
            let class = match r.verdict {
                Verdict::Fail | Verdict::Timeout | Verdict::Crash => "caught",
                other => other.as_str(),
            };
            format!("{} {} [{}] {class}", m.name, r.id, r.plan)
        }));
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
            table.push_str(&format!("  {case}\n"));
        }
    }
    (table, verdicts)
}

/// A verdict never depends on which cases shared a process: two correct
/// servers that answer late what a shared process could hand to the next
/// case get, run after run, the verdicts they get with a process per
/// (case, plan). One answers the lines of each read in reverse order, a
/// blank line's -32700 after the barrier's answer; the other answers a
/// line that is not JSON 50 ms late, on a thread (after the case's fence).
#[test]
fn servers_that_answer_late_get_the_verdicts_of_fresh_processes_on_every_run() {
    let runs: usize = std::env::var("RPCSPEC_REUSE_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(20);
    let verdicts = |results: Vec<CaseResult>| -> Vec<String> {
        results
            .iter()
            .map(|r| format!("{} [{}] {}", r.id, r.plan, r.verdict.as_str()))
            .collect()
    };
    for name in ["reference-reversed-reads", "reference-late-parse-errors"] {
        let fresh = verdicts(run(name, &[], ALL, 5000, true));
        // Not vacuous: a blank line's late answer is graded, and would pass
        // where it reached the next case instead.
        assert!(
            fresh
                .iter()
                .any(|v| v.starts_with("framing/lines/blank-line [") && v.ends_with(" NON-STRICT")),
            "{name}: {fresh:?}"
        );
        for k in 0..runs {
            let shared = verdicts(run(name, &[], ALL, 5000, false));
            let differ: Vec<String> = fresh
                .iter()
                .zip(&shared)
                .filter(|(a, b)| a != b)
                .map(|(a, b)| format!("fresh: {a}; shared: {b}"))
                .collect();
            assert!(
                differ.is_empty() && fresh.len() == shared.len(),
                "{name}, run {}: shared processes gave other verdicts:\n{}",
                k + 1,
                differ.join("\n")
            );
        }
    }
}

/// The list above and the binary's list of mutants are the same.
#[test]
fn every_mutant_of_the_binary_is_tested() {
    let tested: BTreeSet<String> = MUTANTS.iter().map(|m| m.name.to_owned()).collect();
    assert_eq!(mutants::listed(MUTANT), tested);
    assert!(tested.len() >= 12, "at least 12 mutants");
}

/// Codex's app-server omits `"jsonrpc"` by design: in the lenient dialect
/// the server that drops it passes every case, while in the strict one it
/// is caught (above).
#[test]
fn dropping_jsonrpc_passes_in_the_lenient_dialect() {
    let cases = cases::builtin().unwrap();
    let target = Target {
        argv: vec![MUTANT.into(), "drops-jsonrpc".into()],
    };
    let opts = RunOptions {
        dialect: rpcspec_matcher::Dialect::Lenient,
        ..RunOptions::default()
    };
    let results = run_suite(&cases, &[Plan::Whole], &target, &opts, 4, &|_, _| {});
    let bad: Vec<String> = results
        .iter()
        .filter(|r| !matches!(r.verdict, Verdict::Pass | Verdict::NotApplicable))
        .map(|r| format!("{} {:?}", r.id, r.evidence))
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// No flakes: every (case, plan) gets the same verdict on every run, against
/// the reference and against a correct server that answers out of order on
/// threads, with both cores kept busy by two spinning threads. CI runs it
/// three times; `RPCSPEC_FLAKE_RUNS=10` is the full size (BENCHMARKS.md).
#[test]
fn verdicts_are_the_same_on_every_run_even_under_load() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let runs: usize = std::env::var("RPCSPEC_FLAKE_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(3);
    let stop = AtomicBool::new(false);
    // Stops the spinning threads however the scope ends (a failed assert
    // included), so that it can end.
    struct Stop<'a>(&'a AtomicBool);
    impl Drop for Stop<'_> {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Relaxed);
        }
    }
    std::thread::scope(|s| {
        let _stop = Stop(&stop);
        for _ in 0..2 {
            s.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
            });
        }
        for name in ["reference", "reference-out-of-order"] {
            let verdicts = |results: Vec<CaseResult>| -> Vec<String> {
                results
                    .iter()
                    .filter(|r| !other_framing_or_dialect(r))
                    .map(|r| format!("{} [{}] {}", r.id, r.plan, r.verdict.as_str()))
                    .collect()
            };
            let first = verdicts(run(name, &[], ALL, 5000, false));
            assert!(
                first.iter().all(|v| v.ends_with(" PASS")),
                "{name}: {first:?}"
            );
            for k in 1..runs {
                let again = verdicts(run(name, &[], ALL, 5000, false));
                assert_eq!(first, again, "{name}: run {} differs from run 1", k + 1);
            }
        }
    });
}

/// A case that is not a PASS on a process shared with another case is run
/// again on a new process, and its other plans then run on that one: a
/// case the target gets wrong costs one new process, not one per plan. One
/// job, so the order is fixed: `notification` (a PASS) five times on the
/// first process, `method-not-found` (a wrong code: FAIL) on the same one,
/// confirmed on a second, which takes its four other plans.
#[test]
fn a_case_the_target_gets_wrong_costs_one_new_process() {
    let log = std::env::temp_dir().join(format!("rpcspec-spawns-{}", std::process::id()));
    let _ = std::fs::remove_file(&log);
    let cases: Vec<Case> = cases::builtin()
        .unwrap()
        .into_iter()
        .filter(|c| {
            [
                "jsonrpc/examples/notification",
                "jsonrpc/examples/method-not-found",
            ]
            .contains(&c.meta.id.as_str())
        })
        .collect();
    assert_eq!(cases.len(), 2);
    // Each start of the target appends a line to `log`.
    let target = Target {
        argv: vec![
            "sh".into(),
            "-c".into(),
            r#"echo >> "$0"; exec "$1" wrong-code-method-not-found"#.into(),
            log.clone().into(),
            MUTANT.into(),
        ],
    };
    let spawns = |fresh: bool| {
        let _ = std::fs::remove_file(&log);
        let opts = RunOptions {
            timeout: Duration::from_secs(5),
            startup: Duration::from_secs(5),
            fresh,
            ..RunOptions::default()
        };
        let results = run_suite(&cases, &ALL_PLANS, &target, &opts, 1, &|_, _| {});
        let verdicts: Vec<(&str, Verdict)> = results
            .iter()
            .map(|r| (r.id.rsplit('/').next().unwrap(), r.verdict))
            .collect();
        let mut expected = vec![("notification", Verdict::Pass); 5];
        expected.extend([("method-not-found", Verdict::Fail); 5]);
        assert_eq!(verdicts, expected, "fresh: {fresh}");
        std::fs::read_to_string(&log).unwrap().lines().count()
    };
    assert_eq!(
        spawns(false),
        2,
        "a process per job, and one for the case that failed"
    );
    assert_eq!(spawns(true), 10, "--fresh: a process per (case, plan)");
    let _ = std::fs::remove_file(&log);
}
