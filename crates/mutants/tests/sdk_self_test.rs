//! The Claude client scenarios (`spec-cases/client/claude/`, rpcspec
//! playing Claude Code) must be able to fail: the reference SDK
//! (`rpcspec-mutant-sdk reference`, the code of `rpcspec serve --role
//! client --dialect claude`) passes every one, and each mutant SDK (the
//! reference with one realistic bug) is caught by the scenarios written
//! for it. The table of each mutant's verdicts there is a snapshot
//! (`snapshots/sdk_self_test__sdk_catches.snap`).

use std::time::Duration;

use rpcspec::client::{Protocol, reference::SdkQuirk};

mod support;
use support::clients::self_test;

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

/// `session/session` for `client/claude/session/session`.
fn short(id: &str) -> &str {
    id.strip_prefix("client/claude/").unwrap_or(id)
}

#[test]
fn the_reference_sdk_passes_and_every_mutant_is_caught() {
    let names: Vec<&str> = SdkQuirk::ALL.iter().map(|(n, _)| *n).collect();
    // A deadline well past the series' own (seven steps of at most 3 s):
    // a mutant that fails every step still ends in FAIL, one that hangs
    // in TIMEOUT, whatever the machine's load.
    let table = self_test(
        SDK,
        Protocol::named("claude").unwrap(),
        &names,
        EXPECTED,
        (20, Duration::from_secs(30), 8),
        &|id| short(id).to_owned(),
    );
    insta::assert_snapshot!("sdk_catches", table);
}
