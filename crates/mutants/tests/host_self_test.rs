//! The Codex host scenarios (`spec-cases/client/codex/`, rpcspec playing
//! `codex app-server`) must be able to fail: the reference host
//! (`rpcspec-mutant-host reference`, the code of `rpcspec serve --role
//! client --dialect codex`) passes every one, and each mutant host (the
//! reference with one realistic bug) is caught by the scenarios written
//! for it. The table of each mutant's verdicts there is a snapshot
//! (`snapshots/host_self_test__host_catches.snap`).

use std::time::Duration;

use rpcspec::client::{Protocol, reference::HostQuirk};

mod support;
use support::clients::self_test;

const HOST: &str = env!("CARGO_BIN_EXE_rpcspec-mutant-host");

/// Each mutant, and the scenarios (under `client/codex/session/`) that
/// must catch it.
const EXPECTED: &[(&str, &[&str])] = &[
    ("no-initialized", &["session"]),
    ("initialized-late", &["session"]),
    ("ignores-unknown", &["unknown-request"]),
    ("result-for-unknown", &["unknown-request"]),
    ("accepts-all", &["session", "approvals-together"]),
    ("wrong-id", &["session", "approvals-together"]),
    ("answers-twice", &["session"]),
    ("needs-jsonrpc", &["session"]),
    ("integer-ids-only", &["string-ids"]),
    ("no-turn-timeout", &["exit-mid-turn"]),
];

fn short(id: &str) -> &str {
    id.strip_prefix("client/codex/session/").unwrap_or(id)
}

#[test]
fn the_reference_host_passes_and_every_mutant_is_caught() {
    let names: Vec<&str> = HostQuirk::ALL.iter().map(|(n, _)| *n).collect();
    // Three steps of at most 3 s each: a deadline well past it, whatever the machine's load; a
    // client that hangs ends in TIMEOUT.
    let table = self_test(
        HOST,
        Protocol::named("codex").unwrap(),
        &names,
        EXPECTED,
        (12, Duration::from_secs(20), 4),
        &|id| short(id).to_owned(),
    );
    insta::assert_snapshot!("host_catches", table);
}
