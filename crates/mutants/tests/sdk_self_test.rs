//! The Claude client scenarios (`spec-cases/client/claude/`, rpcspec
//! playing Claude Code) must be able to fail: the reference SDK
//! (`rpcspec-mutant-sdk reference`, the code of `rpcspec serve --role
//! client --dialect claude`) passes every one, and each mutant SDK (the
//! reference with one realistic bug) is caught by the scenarios written
//! for it. The table of each mutant's verdicts there is a snapshot
//! (`snapshots/sdk_self_test__sdk_catches.snap`).

use std::{thread, time::Duration};

use rpcspec::{
    client::{self, Protocol, Scenario, reference::SdkQuirk},
    report::Verdict,
};

mod support;
use support::clients::{catch_table, run};

const SDK: &str = env!("CARGO_BIN_EXE_rpcspec-mutant-sdk");

/// Each mutant, and the scenarios (under `client/claude/`) that must
/// catch it.
const EXPECTED: &[(&str, &[&str])] = &[
    ("answers-events", &["session/session", "asks/keep-alive"]),
    ("answers-keep-alive", &["asks/keep-alive"]),
    (
        "wrong-request-id",
        &[
            "asks/can-use-tool",
            "asks/hook-callback",
            "asks/mcp-message",
        ],
    ),
    ("answers-twice", &["asks/can-use-tool", "asks/cancelled"]),
    ("answers-cancel", &["asks/cancelled"]),
    (
        "ignores-can-use-tool",
        &["asks/can-use-tool", "asks/asks-together"],
    ),
    ("allow-drops-input", &["asks/can-use-tool"]),
    ("mcp-wrong-id", &["asks/mcp-message"]),
    ("success-on-unknown", &["asks/unknown-subtype"]),
    (
        "ignores-error-response",
        &["session/initialize-error", "session/controls-error"],
    ),
    ("no-initialize", &["session/session"]),
    ("no-initialize-timeout", &["session/initialize-never"]),
    (
        "hangs-without-result",
        &[
            "endings/no-result",
            "endings/exit-nonzero",
            "endings/stdout-closed",
            "endings/truncated-last-line",
        ],
    ),
    ("splits-on-cr", &["framing/cr-whitespace"]),
    (
        "read-is-line",
        &[
            "framing/coalesced",
            "framing/split-mid-line",
            "framing/split-mid-utf8",
        ],
    ),
    ("drops-after-noise", &["framing/noise-lines"]),
    ("line-limit", &["framing/long-line"]),
    ("stops-at-unknown-type", &["asks/unknown-records"]),
    ("unread-stderr", &["endings/stderr-flood"]),
    ("leaves-cli", &["session/session"]),
];

fn claude_scenarios() -> Vec<Scenario> {
    client::builtin()
        .expect("the shipped scenarios load")
        .into_iter()
        .filter(|s| s.protocol == Protocol::Claude)
        .collect()
}

/// `session/session` for `client/claude/session/session`.
fn short(id: &str) -> &str {
    id.strip_prefix("client/claude/").unwrap_or(id)
}

#[test]
fn the_reference_sdk_passes_and_every_mutant_is_caught() {
    let names: Vec<&str> = SdkQuirk::ALL.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        EXPECTED.len() + 1,
        names.len(),
        "a mutant SDK without its row"
    );
    let scenarios = claude_scenarios();
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
    // The SDKs mostly wait (on answers, on 3 s timeouts): both at once.
    // A deadline well past the series' own (seven steps of at most 3 s):
    // a mutant that fails every step still ends in FAIL, one that hangs
    // in TIMEOUT, whatever the machine's load.
    let deadline = Duration::from_secs(30);
    let (reference, mutants) = thread::scope(|s| {
        let r = s.spawn(|| run(SDK, &reference, deadline, 4));
        let m = run(SDK, &mutants, deadline, 8);
        (r.join().expect("the reference's run"), m)
    });
    for r in &reference {
        assert_eq!(
            r.verdict,
            Verdict::Pass,
            "the reference SDK, {}: {:#?}\nstderr: {}",
            r.id,
            r.evidence,
            r.stderr
        );
    }
    let table = catch_table(EXPECTED, &mutants, &|id| short(id).to_owned());
    insta::assert_snapshot!("sdk_catches", table);
}
