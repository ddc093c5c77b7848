//! `rpcspec fuzz` end to end: it finds nothing wrong with the reference
//! server, finds a mutant's bug within a bounded number of executions with
//! a fixed seed, and writes a case file that replays the failure.

use std::time::Duration;

use rpcspec::{
    cases,
    exec::{RunOptions, run_case},
    fuzz::{FuzzOptions, fuzz, seed_lines},
    report::Verdict,
    target::Target,
};

const MUTANT: &str = env!("CARGO_BIN_EXE_rpcspec-mutant");

fn target(name: &str) -> Target {
    Target {
        argv: vec![MUTANT.into(), name.into()],
    }
}

fn options(seed: u64, executions: u64, out: &std::path::Path) -> FuzzOptions {
    FuzzOptions {
        run: RunOptions {
            timeout: Duration::from_secs(5),
            ..RunOptions::default()
        },
        ..FuzzOptions::new(seed, Duration::from_secs(120), Some(executions), out)
    }
}

#[test]
fn the_reference_server_has_no_finding() {
    let dir = tempfile::tempdir().unwrap();
    let seeds = seed_lines(&cases::builtin().unwrap());
    let report = fuzz(
        &target("reference"),
        &seeds,
        &options(7, 150, dir.path()),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(report.executions, 150);
    let found: Vec<String> = report
        .findings
        .iter()
        .map(|f| format!("{} in {}", f.signature, f.file.display()))
        .collect();
    assert!(found.is_empty(), "false findings: {found:?}");
}

/// A correct server may refuse what is beyond a parser's limits (RFC 8259
/// §9) with one error: fuzzing one that does, over several seeds, finds
/// nothing (it used to report `session.unanswered` for deep batches).
#[test]
fn a_server_with_a_nesting_limit_has_no_finding() {
    let dir = tempfile::tempdir().unwrap();
    let seeds = seed_lines(&cases::builtin().unwrap());
    let mut found = Vec::new();
    for seed in 1..=5 {
        let report = fuzz(
            &target("reference-nesting-limit"),
            &seeds,
            &options(seed, 60, dir.path()),
            &mut |_| {},
        )
        .unwrap();
        found.extend(
            report
                .findings
                .iter()
                .map(|f| format!("seed {seed}: {} in {}", f.signature, f.file.display())),
        );
    }
    assert!(found.is_empty(), "false findings: {found:?}");
}

#[test]
fn a_mutant_is_found_and_the_finding_replays() {
    let dir = tempfile::tempdir().unwrap();
    let seeds = seed_lines(&cases::builtin().unwrap());
    let mutant = target("replies-to-notifications");
    let report = fuzz(&mutant, &seeds, &options(1, 100, dir.path()), &mut |_| {}).unwrap();
    // Its replies to notifications show as replies to notifications, or as
    // id-null replies nothing awaits (duplicates of an invalid request's).
    let first = report
        .findings
        .iter()
        .find(|f| f.signature == "session.reply-to-notification")
        .unwrap_or_else(|| {
            panic!(
                "the bug is found within 100 executions: {:?}",
                report
                    .findings
                    .iter()
                    .map(|f| &f.signature)
                    .collect::<Vec<_>>()
            )
        });

    // The case file loads and fails the mutant the same way, and the
    // reference passes it.
    let replay = cases::load_dir(dir.path()).unwrap();
    let case = replay
        .iter()
        .find(|c| {
            first
                .file
                .ends_with(format!("{}.toml", c.meta.id.rsplit('/').next().unwrap()))
        })
        .unwrap();
    let opts = RunOptions::default();
    let against_mutant = run_case(case, case.plans[0], &mutant, &opts);
    assert_eq!(
        against_mutant.verdict,
        Verdict::Fail,
        "{:?}",
        against_mutant.evidence
    );
    assert!(against_mutant.evidence.iter().any(|e| {
        e.rule
            .as_ref()
            .is_some_and(|r| r.id == "session.reply-to-notification")
    }));
    let against_reference = run_case(case, case.plans[0], &target("reference"), &opts);
    assert_eq!(
        against_reference.verdict,
        Verdict::Pass,
        "{:?}",
        against_reference.evidence
    );
}
