//! The client scenarios must be able to fail: the reference client
//! (`rpcspec serve --role client`) passes every scenario, and each mutant
//! client (`rpcspec-mutant-client NAME`, the reference with one realistic
//! bug) is caught by the scenarios written for its bug, in JSON-RPC and in
//! MCP. The whole tables of which scenarios catch which mutant are
//! snapshots (`snapshots/client_self_test__client_catches.snap`,
//! `…__mcp_client_catches.snap`).

use std::{collections::BTreeMap, path::Path, thread, time::Duration};

use rpcspec::{
    budget::Budget,
    client::{self, Limits, Protocol, reference::Quirk},
    report::{CaseResult, Verdict},
    target::Target,
};

const MUTANT: &str = env!("CARGO_BIN_EXE_rpcspec-mutant-client");
const PEER: &str = env!("CARGO_BIN_EXE_rpcspec-peer");

/// Each mutant, and the JSON-RPC scenarios that must catch it.
const EXPECTED: &[(&str, &[&str])] = &[
    (
        "arrival-order",
        &[
            "pairing/out-of-order",
            "pairing/batch-reordered",
            "pairing/unknown-id",
        ],
    ),
    (
        "read-is-message",
        &[
            "framing/coalesced",
            "framing/split-mid-line",
            "framing/bytewise",
        ],
    ),
    (
        "drops-split-line",
        &["framing/split-mid-line", "framing/bytewise"],
    ),
    ("retyped-id-matches", &["pairing/retyped-id"]),
    ("ignores-server-requests", &["pairing/server-request"]),
    (
        "hangs-on-exit",
        &[
            "robustness/exit-mid-call",
            "robustness/close-stdout",
            "robustness/exit-at-first-call",
        ],
    ),
    ("reuses-id", &["pairing/out-of-order", "framing/baseline"]),
    (
        "crashes-on-unknown-id",
        &["pairing/unknown-id", "pairing/duplicate-reply"],
    ),
    ("cr-is-line-end", &["framing/cr-whitespace"]),
    ("notification-with-id", &["framing/baseline"]),
    ("no-jsonrpc", &["framing/baseline"]),
    ("drops-error-data", &["pairing/error-data"]),
    ("line-limit", &["framing/long-line"]),
    ("splitlines", &["framing/u2028-in-result"]),
];

/// Each mutant that shows in an MCP session, and the MCP scenarios that
/// must catch it (`hangs-on-exit` is left to the JSON-RPC table: in MCP
/// every scenario would wait out the deadline on its abandoned call).
const EXPECTED_MCP: &[(&str, &[&str])] = &[
    (
        "arrival-order",
        &["mcp/session/out-of-order", "mcp/session/unknown-id"],
    ),
    (
        "read-is-message",
        &[
            "mcp/session/notifications-coalesced",
            "mcp/session/split-mid-line",
            "mcp/session/bytewise",
        ],
    ),
    (
        "drops-split-line",
        &["mcp/session/split-mid-line", "mcp/session/bytewise"],
    ),
    (
        "ignores-server-requests",
        &["mcp/session/ping", "mcp/session/roots"],
    ),
    ("reuses-id", &["mcp/session/out-of-order"]),
    (
        "crashes-on-unknown-id",
        &["mcp/session/unknown-id", "mcp/session/duplicate-reply"],
    ),
    ("no-jsonrpc", &["mcp/session/baseline"]),
    ("line-limit", &["mcp/session/long-line"]),
    ("requests-before-initialized", &["mcp/session/baseline"]),
    ("no-cancel", &["mcp/session/baseline"]),
    ("kills-server", &["mcp/session/baseline"]),
    ("accepts-any-version", &["mcp/session/version-unknown"]),
];

/// The mutants of one protocol only.
const JSONRPC_ONLY: [&str; 6] = [
    "retyped-id-matches",
    "cr-is-line-end",
    "notification-with-id",
    "drops-error-data",
    "splitlines",
    "hangs-on-exit",
];
const MCP_ONLY: [&str; 4] = [
    "requests-before-initialized",
    "no-cancel",
    "kills-server",
    "accepts-any-version",
];

/// Scenarios whose verdict for a mutant can hang on the machine's load.
const TIMED: [&str; 2] = ["/long-line", "/slow-reply"];

/// Every scenario of `protocol` against client `name`.
fn run(name: &str, protocol: Protocol) -> Vec<CaseResult> {
    let scenarios: Vec<_> = client::builtin()
        .expect("the shipped scenarios load")
        .into_iter()
        .filter(|s| s.protocol == protocol)
        .collect();
    let mut argv = vec![MUTANT.into(), name.into()];
    if protocol == Protocol::Mcp {
        argv.push("--mcp".into());
    }
    argv.push("{server}".into());
    let target = Target { argv };
    let limits = Limits {
        startup: Duration::from_secs(10),
        timeout: Duration::from_secs(8),
    };
    rpcspec::run_parallel_with(
        &scenarios,
        2,
        &|_, _| {},
        || (),
        |(), sc| {
            client::run_scenario(
                sc,
                &target,
                Path::new(PEER),
                limits,
                &Budget::DEFAULT,
                &Default::default(),
            )
        },
    )
}

/// `framing/coalesced` for `client/framing/coalesced`.
fn short(id: &str) -> &str {
    id.strip_prefix("client/").unwrap_or(id)
}

#[test]
fn the_reference_passes_and_every_mutant_is_caught() {
    let names: Vec<&str> = Quirk::ALL.iter().map(|(n, _)| *n).collect();
    for (name, _) in EXPECTED.iter().chain(EXPECTED_MCP) {
        assert!(names.contains(name), "no mutant `{name}`");
    }
    // Every mutant has its row in each table of its protocols.
    let jsonrpc: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| !MCP_ONLY.contains(n))
        .collect();
    let mcp: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| !JSONRPC_ONLY.contains(n))
        .collect();
    assert_eq!(
        jsonrpc.len(),
        EXPECTED.len() + 1,
        "a JSON-RPC mutant without its row"
    );
    assert_eq!(
        mcp.len(),
        EXPECTED_MCP.len() + 1,
        "an MCP mutant without its row"
    );
    // The two protocols at once too: their clients mostly wait.
    thread::scope(|s| {
        s.spawn(|| check(Protocol::JsonRpc, &jsonrpc, EXPECTED, "client_catches"));
        check(Protocol::Mcp, &mcp, EXPECTED_MCP, "mcp_client_catches");
    });
}

/// Runs the reference and the mutants `names` in `protocol`: the reference
/// passes everything, each mutant is caught by its `expected` scenarios,
/// and the whole catch table is the snapshot `snapshot`.
fn check(protocol: Protocol, names: &[&str], expected: &[(&str, &[&str])], snapshot: &str) {
    // The clients mostly wait (on replies, on timeouts): all at once.
    let results: BTreeMap<&str, Vec<CaseResult>> = thread::scope(|s| {
        let handles: Vec<_> = names
            .iter()
            .map(|n| (*n, s.spawn(move || run(n, protocol))))
            .collect();
        handles
            .into_iter()
            .map(|(n, h)| (n, h.join().expect("a run does not panic")))
            .collect()
    });
    for r in &results["reference"] {
        assert_eq!(
            r.verdict,
            Verdict::Pass,
            "the reference client, {}: {:#?}\nsent: {:?}\nreceived: {:?}",
            r.id,
            r.evidence,
            r.sent,
            r.received
        );
    }
    let mut table = String::new();
    for (name, expected) in expected {
        let caught: Vec<&str> = results[name]
            .iter()
            .filter(|r| !matches!(r.verdict, Verdict::Pass | Verdict::Skipped))
            .map(|r| short(&r.id))
            .collect();
        // Scenarios whose verdict hangs on time (a 10 MB line parsed by a
        // debug build under 30 clients at once, a 1.5 s reply against a 3 s
        // timeout) are in the table only where they are expected.
        let shown: Vec<&str> = caught
            .iter()
            .copied()
            .filter(|id| !TIMED.iter().any(|t| id.ends_with(t)) || expected.contains(id))
            .collect();
        for want in *expected {
            let r = results[name]
                .iter()
                .find(|r| short(&r.id) == *want)
                .expect("a shipped scenario");
            assert!(
                caught.contains(want),
                "mutant `{name}` passed `{want}`, which must catch it: {r:#?}"
            );
        }
        table.push_str(&format!("{name}: {}\n", shown.join(", ")));
    }
    insta::assert_snapshot!(snapshot, table);
}
