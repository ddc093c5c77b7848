//! What the client-role self-tests of agent SDKs share: a run of
//! (mutant, scenario) pairs against a mutant binary, and the catch table
//! that names, for each mutant, the verdict and the rules of each
//! scenario that caught it.

use std::{path::Path, time::Duration};

use rpcspec::{
    budget::Budget,
    capture::Framing,
    client::{self, Limits, Scenario},
    report::{CaseResult, Verdict},
    target::Target,
};

/// The peer every scripted CLI runs as.
pub const PEER: &str = env!("CARGO_BIN_EXE_rpcspec-peer");

/// Runs `pairs` (a mutant's name, a scenario) against `binary NAME
/// {server}`, `jobs` at a time, each with `timeout` once the client
/// started its CLI.
pub fn run(
    binary: &str,
    pairs: &[(&str, &Scenario)],
    timeout: Duration,
    jobs: usize,
) -> Vec<CaseResult> {
    let limits = Limits {
        startup: Duration::from_secs(10),
        timeout,
    };
    rpcspec::run_parallel_with(
        pairs,
        jobs,
        &|_, _| {},
        || (),
        |(), (name, sc)| {
            let target = Target {
                argv: vec![binary.into(), (*name).into(), "{server}".into()],
            };
            client::run_scenario(
                sc,
                &Framing::ndjson(),
                &target,
                Path::new(PEER),
                limits,
                &Budget::DEFAULT,
                &Default::default(),
            )
        },
    )
}

/// The catch table of `results` (one a pair of `expected`, in order):
/// a line a mutant, each scenario's verdict and the rules that caught
/// it; panics when a scenario let its mutant pass. `short` names a
/// scenario in the table.
pub fn catch_table(
    expected: &[(&str, &[&str])],
    results: &[CaseResult],
    short: &dyn Fn(&str) -> String,
) -> String {
    let mut table = String::new();
    let mut results = results.iter();
    for (name, ids) in expected {
        let row: Vec<String> = ids
            .iter()
            .map(|id| {
                let r = results.next().expect("one result a pair");
                assert_eq!(short(&r.id), *id);
                assert!(
                    !matches!(r.verdict, Verdict::Pass | Verdict::Skipped),
                    "mutant `{name}` passed `{id}`, which must catch it: {:#?}",
                    r.evidence
                );
                // The rules that caught it, not only how.
                let mut rules: Vec<&str> = r
                    .evidence
                    .iter()
                    .filter(|e| !matches!(e.verdict, Verdict::Pass | Verdict::Skipped))
                    .filter_map(|e| e.rule.as_ref().map(|x| x.id.as_str()))
                    .collect();
                rules.sort_unstable();
                rules.dedup();
                format!("{id} {} ({})", r.verdict, rules.join(" "))
            })
            .collect();
        table.push_str(&format!("{name}: {}\n", row.join(", ")));
    }
    table
}

/// One agent protocol's self-test: the shipped scenarios of `protocol`
/// (at least `at_least`, their ids shortened by `short`), every one
/// against `binary reference` (each must PASS) and each mutant of
/// `expected` against its scenarios (each must catch it), with
/// `deadline` a scenario; `names` are the binary's quirks, `reference`
/// among them, each with its row. Returns the catch table.
pub fn self_test(
    binary: &str,
    protocol: rpcspec::client::Protocol,
    names: &[&str],
    expected: &[(&str, &[&str])],
    (at_least, deadline, jobs): (usize, Duration, usize),
    short: &dyn Fn(&str) -> String,
) -> String {
    assert_eq!(expected.len() + 1, names.len(), "a mutant without its row");
    let scenarios: Vec<Scenario> = client::builtin()
        .expect("the shipped scenarios load")
        .into_iter()
        .filter(|s| s.protocol == protocol)
        .collect();
    assert!(scenarios.len() >= at_least, "{} scenarios", scenarios.len());
    let find = |id: &str| {
        scenarios
            .iter()
            .find(|s| short(&s.meta.id) == id)
            .unwrap_or_else(|| panic!("no scenario `{id}`"))
    };
    let reference: Vec<(&str, &Scenario)> = scenarios.iter().map(|s| ("reference", s)).collect();
    let mutants: Vec<(&str, &Scenario)> = expected
        .iter()
        .flat_map(|(name, ids)| ids.iter().map(|id| (*name, find(id))))
        .collect();
    // The clients mostly wait (on answers, on their 3 s timeouts): the
    // reference and the mutants at once.
    let (reference, mutants) = std::thread::scope(|s| {
        let r = s.spawn(|| run(binary, &reference, deadline, 4));
        let m = run(binary, &mutants, deadline, jobs);
        (r.join().expect("the reference's run"), m)
    });
    for r in &reference {
        assert_eq!(
            r.verdict,
            Verdict::Pass,
            "the reference, {}: {:#?}\nstderr: {}",
            r.id,
            r.evidence,
            r.stderr
        );
    }
    catch_table(expected, &mutants, short)
}
