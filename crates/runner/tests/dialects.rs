//! Every dialect's reference server passes every case of its dialect under
//! every plan: proof that each case is passable where it runs. A case that
//! cannot apply is N/A there, and the few that are SKIPPED are listed here
//! with why. And the references are not interchangeable: a server of one
//! dialect fails another's suite.

use std::{collections::BTreeSet, time::Duration};

use rpcspec::{
    capture::Framing,
    cases,
    dialects::dialect_named,
    exec::RunOptions,
    plan::{ALL_PLANS, Plan},
    report::{CaseResult, Verdict},
    run_suite,
    target::Target,
};

const BIN: &str = env!("CARGO_BIN_EXE_rpcspec");

fn run(dialect: &str, server: &str) -> Vec<CaseResult> {
    let framing = rpcspec::dialects::framing_of(dialect_named(dialect).unwrap().1.as_str());
    run_in(dialect, server, framing)
}

/// The suite of `dialect` in `framing`, against the reference of `server`
/// speaking it.
fn run_in(dialect: &str, server: &str, framing: Framing) -> Vec<CaseResult> {
    let (matcher, handshake) = dialect_named(dialect).expect("a known dialect");
    let opts = RunOptions {
        timeout: Duration::from_secs(5),
        dialect: matcher,
        handshake: Some(handshake),
        framing: framing.clone(),
        ..RunOptions::default()
    };
    let target = Target {
        argv: vec![
            BIN.into(),
            "serve".into(),
            "--dialect".into(),
            server.into(),
            "--framing".into(),
            framing.name().into(),
        ],
    };
    let all = cases::builtin().unwrap();
    run_suite(&all, &plans(&framing), &target, &opts, 4, &|_, _| {})
}

fn plans(framing: &Framing) -> Vec<Plan> {
    ALL_PLANS
        .into_iter()
        .filter(|p| p.applies_to(framing))
        .collect()
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
    let framing = rpcspec::dialects::framing_of(dialect_named(dialect).unwrap().1.as_str());
    passes_in(dialect, framing, skipped);
}

#[track_caller]
fn passes_in(dialect: &str, framing: Framing, skipped: &[&str]) {
    let results = run_in(dialect, dialect, framing.clone());
    let all = cases::builtin().unwrap();
    let expected: usize = all
        .iter()
        .map(|c| {
            c.plans
                .iter()
                .filter(|p| plans(&framing).contains(p))
                .count()
        })
        .sum();
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

/// The same cases framed by `Content-Length` headers: framing is a layer
/// under the cases, and the NDJSON line cases are N/A there.
#[test]
fn the_jsonrpc2_reference_passes_every_case_in_content_length_framing() {
    passes_in("jsonrpc2", Framing::content_length(), &[]);
}

/// No LSP request both succeeds on every server and leaves it as it was,
/// so the cases that need a successful call with params are SKIPPED (a
/// target file's `[call]` gives them one).
#[test]
fn the_lsp_reference_passes_every_case() {
    passes(
        "lsp",
        &[
            "jsonrpc/envelope/result-object-shape",
            "jsonrpc/params/names-case-sensitive",
            "jsonrpc/params/wrong-arity",
        ],
    );
}

/// In LSP, what its base protocol rules out is N/A: ids that are not
/// 32-bit integers or strings, the §7 example methods, NDJSON's lines; its
/// batches and its own cases run.
#[test]
fn in_lsp_only_what_the_protocol_rules_out_is_not_applicable() {
    let results = run("lsp", "lsp");
    let na = ids(&results, Verdict::NotApplicable);
    for id in [
        "jsonrpc/ids/null",
        "jsonrpc/ids/fractional",
        "jsonrpc/ids/big-integer",
        "jsonrpc/examples/positional-params",
        "framing/lines/split-writes",
    ] {
        assert!(na.contains(id), "{id} is N/A in LSP: {na:?}");
    }
    for id in [
        "jsonrpc/examples/empty-batch",
        "jsonrpc/ids/number",
        "framing/content-length/length-in-bytes",
        "lsp/lifecycle/request-before-initialize",
    ] {
        assert!(!na.contains(id), "{id} runs in LSP");
    }
    let jsonrpc2 = run("jsonrpc2", "jsonrpc2");
    let elsewhere = ids(&jsonrpc2, Verdict::NotApplicable);
    assert!(elsewhere.contains("lsp/lifecycle/dollar-request"));
    assert!(elsewhere.contains("framing/content-length/two-in-one-write"));
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

/// ACP has no request that takes params and succeeds on every agent
/// without a session, so the cases that need one are SKIPPED (as in LSP);
/// its own cases open a session and play a turn with the reference's echo
/// model.
#[test]
fn the_acp_reference_passes_every_case() {
    passes(
        "acp",
        &[
            "jsonrpc/envelope/result-object-shape",
            "jsonrpc/params/names-case-sensitive",
            "jsonrpc/params/wrong-arity",
        ],
    );
    let results = run("acp", "acp");
    let passed = ids(&results, Verdict::Pass);
    let own = passed.iter().filter(|id| id.starts_with("acp/")).count();
    assert!(
        own >= 20,
        "only {own} of ACP's own cases passed: {passed:?}"
    );
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
/// A language server answers -32002 to all that comes before `initialize`:
/// the probe cases take any error, so there the calls fail.
#[test]
fn a_reference_fails_another_dialects_suite() {
    let cl = Framing::content_length;
    for (dialect, server, framing, least) in [
        ("mcp", "jsonrpc2", Framing::ndjson(), 10),
        ("codex", "lenient", Framing::ndjson(), 10),
        ("mcp", "codex", Framing::ndjson(), 10),
        // No lifecycle: `initialize` is an unknown method.
        ("lsp", "jsonrpc2", cl(), 10),
        ("jsonrpc2", "lsp", cl(), 5),
        // No `initialize`: every ACP case's session is refused.
        ("acp", "jsonrpc2", Framing::ndjson(), 10),
        ("acp", "mcp", Framing::ndjson(), 10),
    ] {
        let results = run_in(dialect, server, framing);
        let failed = ids(&results, Verdict::Fail);
        assert!(
            failed.len() >= least,
            "the {server} reference under the {dialect} suite: only {} cases failed",
            failed.len()
        );
    }
    let results = run_in("jsonrpc2", "lsp", cl());
    assert!(ids(&results, Verdict::Fail).contains("jsonrpc/examples/positional-params"));
}
