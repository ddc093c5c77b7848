//! Every dialect's reference server passes every case of its dialect under
//! every plan: proof that each case is passable where it runs. A case that
//! cannot apply is N/A there, and the few that are SKIPPED are listed here
//! with why. And the references are not interchangeable: a server of one
//! dialect fails another's suite.

use std::{collections::BTreeSet, time::Duration};

use rpcspec::{
    cases,
    exec::{RunOptions, dialect_named},
    plan::ALL_PLANS,
    report::{CaseResult, Verdict},
    run_suite,
    target::Target,
};

const BIN: &str = env!("CARGO_BIN_EXE_rpcspec");

fn run(dialect: &str, server: &str) -> Vec<CaseResult> {
    let (matcher, handshake) = dialect_named(dialect).expect("a known dialect");
    let opts = RunOptions {
        timeout: Duration::from_secs(5),
        dialect: matcher,
        handshake: Some(handshake),
        ..RunOptions::default()
    };
    let target = Target {
        argv: vec![
            BIN.into(),
            "serve".into(),
            "--dialect".into(),
            server.into(),
        ],
    };
    let all = cases::builtin().unwrap();
    run_suite(&all, &ALL_PLANS, &target, &opts, 4, &|_, _| {})
}

fn ids(results: &[CaseResult], verdict: Verdict) -> BTreeSet<&str> {
    results
        .iter()
        .filter(|r| r.verdict == verdict)
        .map(|r| r.id.as_str())
        .collect()
}

#[track_caller]
fn passes(dialect: &str, skipped: &[&str]) {
    let results = run(dialect, dialect);
    let all = cases::builtin().unwrap();
    let expected: usize = all.iter().map(|c| c.plans.len()).sum();
    assert_eq!(results.len(), expected, "{dialect}: every (case, plan) ran");
    let bad: Vec<String> = results
        .iter()
        .filter(|r| {
            !matches!(
                r.verdict,
                Verdict::Pass | Verdict::NotApplicable | Verdict::Skipped
            )
        })
        .map(|r| format!("{} [{}] {:?}: {:?}", r.id, r.plan, r.verdict, r.evidence))
        .collect();
    assert!(
        bad.is_empty(),
        "the {dialect} reference must pass:\n{}",
        bad.join("\n")
    );
    assert_eq!(
        ids(&results, Verdict::Skipped),
        skipped.iter().copied().collect(),
        "{dialect}: the cases SKIPPED"
    );
    let passed = ids(&results, Verdict::Pass).len();
    assert!(passed > 30, "{dialect}: only {passed} cases passed");
}

#[test]
fn the_jsonrpc2_reference_passes_every_case() {
    passes("jsonrpc2", &[]);
}

#[test]
fn the_lenient_reference_passes_every_case() {
    passes("lenient", &[]);
}

/// The app-server's one call that needs no login takes params: the case
/// that sends a call without any has none to send. (Recased names are
/// N/A in codex, as unknown members are.)
#[test]
fn the_codex_reference_passes_every_case() {
    passes("codex", &["jsonrpc/params/absent"]);
}

/// `ping` takes no params, so there are none whose names to change.
#[test]
fn the_mcp_reference_passes_every_case() {
    passes("mcp", &["jsonrpc/params/names-case-sensitive"]);
}

/// The N/A cases of MCP are the ones its protocol rules out: batches, the
/// §7 example methods, ids that are not strings or integers, replies in
/// flight at shutdown.
#[test]
fn in_mcp_only_what_the_protocol_rules_out_is_not_applicable() {
    let results = run("mcp", "mcp");
    let na = ids(&results, Verdict::NotApplicable);
    for id in [
        "jsonrpc/examples/batch",
        "jsonrpc/examples/positional-params",
        "jsonrpc/ids/null",
        "framing/lines/eof-flushes",
    ] {
        assert!(na.contains(id), "{id} is N/A in MCP: {na:?}");
    }
    for id in [
        "jsonrpc/envelope/result-object-shape",
        "jsonrpc/params/absent",
        "jsonrpc/params/null",
        "jsonrpc/ids/string",
        "framing/lines/split-writes",
    ] {
        assert!(!na.contains(id), "{id} runs in MCP with `ping`");
    }
}

/// A JSON-RPC server knows no `initialize`, a Codex one refuses MCP's
/// `ping` before its own handshake, an MCP one writes `"jsonrpc"` where
/// the lenient reference would not need it but refuses `account/read`.
#[test]
fn a_reference_fails_another_dialects_suite() {
    for (dialect, server) in [("mcp", "jsonrpc2"), ("codex", "lenient"), ("mcp", "codex")] {
        let results = run(dialect, server);
        let failed = ids(&results, Verdict::Fail).len();
        assert!(
            failed > 10,
            "the {server} reference under the {dialect} suite: only {failed} cases failed"
        );
    }
}
