//! The client scenarios must be able to fail: the reference client
//! (`rpcspec serve --role client`) passes every scenario, and each mutant
//! client (`rpcspec-mutant-client NAME`, the reference with one realistic
//! bug) is caught by the scenarios written for its bug. The whole table of
//! which scenarios catch which mutant is a snapshot
//! (`snapshots/client_self_test__client_catches.snap`).

use std::{collections::BTreeMap, path::Path, thread, time::Duration};

use rpcspec::{
    budget::Budget,
    client::{self, reference::Quirk, run::Limits},
    report::{CaseResult, Verdict},
    target::Target,
};

const MUTANT: &str = env!("CARGO_BIN_EXE_rpcspec-mutant-client");
const PEER: &str = env!("CARGO_BIN_EXE_rpcspec-peer");

/// Each mutant, and the scenarios that must catch it.
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

/// Every scenario against client `name`.
fn run(name: &str) -> Vec<CaseResult> {
    let scenarios = client::builtin().expect("the shipped scenarios load");
    let target = Target {
        argv: vec![MUTANT.into(), name.into(), "{server}".into()],
    };
    let limits = Limits {
        startup: Duration::from_secs(10),
        timeout: Duration::from_secs(8),
    };
    rpcspec::run_parallel_with(
        &scenarios,
        2,
        &|_, _| {},
        || (),
        |(), sc| client::run_scenario(sc, &target, Path::new(PEER), limits, &Budget::DEFAULT),
    )
}

/// `framing/coalesced` for `client/framing/coalesced`.
fn short(id: &str) -> &str {
    id.strip_prefix("client/").unwrap_or(id)
}

#[test]
fn the_reference_passes_and_every_mutant_is_caught() {
    assert!(EXPECTED.len() >= 10);
    let names: Vec<&str> = Quirk::ALL.iter().map(|(n, _)| *n).collect();
    // Every mutant has its row, and every row a mutant.
    for (name, _) in EXPECTED {
        assert!(names.contains(name), "no mutant `{name}`");
    }
    assert_eq!(
        names.len(),
        EXPECTED.len() + 1,
        "a mutant without expected catches"
    );
    // The clients mostly wait (on replies, on timeouts): all at once.
    let results: BTreeMap<&str, Vec<CaseResult>> = thread::scope(|s| {
        let handles: Vec<_> = names
            .iter()
            .map(|n| (*n, s.spawn(move || run(n))))
            .collect();
        handles
            .into_iter()
            .map(|(n, h)| (n, h.join().expect("a run does not panic")))
            .collect()
    });
    let reference = &results["reference"];
    for r in reference {
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
    for (name, expected) in EXPECTED {
        let caught: Vec<&str> = results[name]
            .iter()
            .filter(|r| !matches!(r.verdict, Verdict::Pass | Verdict::Skipped))
            .map(|r| short(&r.id))
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
        table.push_str(&format!("{name}: {}\n", caught.join(", ")));
    }
    insta::assert_snapshot!("client_catches", table);
}
