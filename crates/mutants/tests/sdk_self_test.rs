//! The Claude client scenarios (`spec-cases/client/claude/`, rpcspec
//! playing Claude Code) must be able to fail: the reference SDK
//! (`rpcspec-mutant-sdk reference`, the code of `rpcspec serve --role
//! client --dialect claude`) passes every one, and each mutant SDK (the
//! reference with one realistic bug) is caught by the scenarios written
//! for it. The table of each mutant's verdicts there is a snapshot
//! (`snapshots/sdk_self_test__sdk_catches.snap`).

use std::{path::Path, thread, time::Duration};

use rpcspec::{
    budget::Budget,
    capture::Framing,
    client::{self, Limits, Protocol, Scenario, reference::SdkQuirk},
    report::{CaseResult, Verdict},
    target::Target,
};

const SDK: &str = env!("CARGO_BIN_EXE_rpcspec-mutant-sdk");
const PEER: &str = env!("CARGO_BIN_EXE_rpcspec-peer");

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

/// Runs `pairs` (a mutant's name, a scenario), `jobs` at a time, each
/// with `timeout` once the SDK started its CLI.
fn run(pairs: &[(&str, &Scenario)], timeout: Duration, jobs: usize) -> Vec<CaseResult> {
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
                argv: vec![SDK.into(), (*name).into(), "{server}".into()],
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
        let r = s.spawn(|| run(&reference, deadline, 4));
        let m = run(&mutants, deadline, 8);
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
    let mut table = String::new();
    let mut results = mutants.iter();
    for (name, ids) in EXPECTED {
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
    insta::assert_snapshot!("sdk_catches", table);
}
