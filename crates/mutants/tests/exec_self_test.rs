//! The codex-exec client scenarios (`spec-cases/client/codex-exec/`,
//! rpcspec playing `codex exec --experimental-json`) must be able to
//! fail: the reference decoder (`rpcspec-mutant-exec reference`, the code
//! of `rpcspec serve --role client --dialect codex-exec`) passes every
//! one, and each mutant decoder (the reference with one realistic bug) is
//! caught by the scenarios written for it. The table of each mutant's
//! verdicts there is a snapshot (`snapshots/exec_self_test__exec_catches.snap`).

use std::time::Duration;

use rpcspec::client::{Protocol, reference::ExecQuirk};

mod support;
use support::clients::self_test;

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
    // One turn of at most 3 s each: a deadline well past it, whatever the machine's load; a
    // client that hangs ends in TIMEOUT.
    let table = self_test(
        EXEC,
        Protocol::named("codex-exec").unwrap(),
        &names,
        EXPECTED,
        (20, Duration::from_secs(20), 4),
        &|id| short(id).to_owned(),
    );
    insta::assert_snapshot!("exec_catches", table);
}
