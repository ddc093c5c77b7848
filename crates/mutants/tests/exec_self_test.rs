//! The codex-exec client scenarios (`spec-cases/client/codex-exec/`,
//! rpcspec playing `codex exec --experimental-json`) must be able to
//! fail: the reference decoder (`rpcspec-mutant-exec reference`, the code
//! of `rpcspec serve --role client --dialect codex-exec`) passes every
//! one, and each mutant decoder (the reference with one realistic bug) is
//! caught by the scenarios written for it. The table of each mutant's
//! verdicts there is a snapshot (`snapshots/exec_self_test__exec_catches.snap`).

use std::{thread, time::Duration};

use rpcspec::{
    client::{self, Protocol, Scenario, reference::ExecQuirk},
    report::Verdict,
};

mod support;
use support::clients::{catch_table, run};

const EXEC: &str = env!("CARGO_BIN_EXE_rpcspec-mutant-exec");

/// Each mutant, and the scenarios (under `client/codex-exec/stream/`)
/// that must catch it.
const EXPECTED: &[(&str, &[&str])] = &[
    ("keeps-stdin-open", &["plain-turn"]),
    ("unread-stderr", &["stderr-flood", "stderr-long-line"]),
    ("splits-on-cr", &["cr-whitespace"]),
    ("read-is-line", &["coalesced", "split", "chunks-utf8"]),
    ("drops-after-noise", &["noise-line"]),
    ("stops-at-unknown-type", &["unknown-type"]),
    (
        "ignores-exit",
        &["turn-failed", "exit-nonzero", "stdout-closed-first"],
    ),
    ("accepts-cut-turn", &["cut-before-completed"]),
    ("drops-unterminated", &["unterminated-last"]),
    ("repeats-items", &["plain-turn", "items"]),
];

fn short(id: &str) -> &str {
    id.strip_prefix("client/codex-exec/stream/").unwrap_or(id)
}

#[test]
fn the_reference_decoder_passes_and_every_mutant_is_caught() {
    let names: Vec<&str> = ExecQuirk::ALL.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        EXPECTED.len() + 1,
        names.len(),
        "a mutant decoder without its row"
    );
    let scenarios: Vec<Scenario> = client::builtin()
        .expect("the shipped scenarios load")
        .into_iter()
        .filter(|s| s.protocol == Protocol::CodexExec)
        .collect();
    assert!(scenarios.len() >= 20, "{} scenarios", scenarios.len());
    let find = |id: &str| {
        scenarios
            .iter()
            .find(|s| short(&s.meta.id) == id)
            .unwrap_or_else(|| panic!("no scenario `{id}`"))
    };
    let reference: Vec<(&str, &Scenario)> = scenarios.iter().map(|s| ("reference", s)).collect();
    let mutants: Vec<(&str, &Scenario)> = EXPECTED
        .iter()
        .flat_map(|(name, ids)| ids.iter().map(|id| (*name, find(id))))
        .collect();
    // One turn of at most 3 s each: a deadline well past it, whatever
    // the machine's load.
    let deadline = Duration::from_secs(20);
    let (reference, mutants) = thread::scope(|s| {
        let r = s.spawn(|| run(EXEC, &reference, deadline, 4));
        let m = run(EXEC, &mutants, deadline, 4);
        (r.join().expect("the reference's run"), m)
    });
    for r in &reference {
        assert_eq!(
            r.verdict,
            Verdict::Pass,
            "the reference decoder, {}: {:#?}\nstderr: {}",
            r.id,
            r.evidence,
            r.stderr
        );
    }
    let table = catch_table(EXPECTED, &mutants, &|id| short(id).to_owned());
    insta::assert_snapshot!("exec_catches", table);
}
