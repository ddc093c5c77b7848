//! The MCP checks must be able to fail: the reference MCP server passes
//! every check in every revision, and each MCP mutant (`rpcspec-mutant-mcp
//! NAME`, the reference with one realistic bug) is caught by the checks
//! written for its bug, in the revision where the bug shows. The whole
//! table of which checks catch which mutant is a snapshot
//! (`snapshots/mcp_self_test__mcp_catches.snap`).

use std::{collections::BTreeSet, thread, time::Duration};

use rpcspec::{
    budget::Budget,
    cases,
    dialects::dialect_named,
    dialects::mcp::{
        Revision,
        suite::{self, Options, ToolCall, ToolCalls},
    },
    exec::RunOptions,
    plan::Plan,
    report::{CaseResult, Verdict},
    run_suite,
    target::Target,
};
use serde_json::json;

const MUTANT: &str = env!("CARGO_BIN_EXE_rpcspec-mutant-mcp");

/// The tool calls the reference offers, as a target file's `[mcp]` names
/// them.
fn calls() -> ToolCalls {
    let call = |tool: &str, arguments| {
        Some(ToolCall {
            tool: tool.into(),
            arguments,
        })
    };
    ToolCalls {
        call: call("echo", json!({"text": "hi"})),
        slow: call("slow", json!({"ms": 600})),
        failing: call("fail", json!({})),
        asks_client: call("roots", json!({})),
        fixtures: true,
    }
}

/// Mutant `name`, serving the conformance suite's fixtures too (the
/// `mcp/fixtures/…` checks call them).
fn target(name: &str) -> Target {
    Target {
        argv: vec![MUTANT.into(), name.into(), "--fixtures".into()],
    }
}

/// The MCP checks against mutant `name`, in `pinned` (or negotiated).
fn checks(name: &str, pinned: Option<Revision>) -> Vec<CaseResult> {
    let opts = Options {
        pinned,
        startup: Duration::from_secs(10),
        timeout: Duration::from_secs(3),
        budget: Budget::DEFAULT,
        calls: calls(),
        readiness: Default::default(),
    };
    suite::run(&target(name), &opts, &|_| true).results
}

/// The ids of results that did not pass (SKIPPED and N/A pass here).
fn caught(results: &[CaseResult]) -> BTreeSet<String> {
    results
        .iter()
        .filter(|r| {
            !matches!(
                r.verdict,
                Verdict::Pass | Verdict::Skipped | Verdict::NotApplicable
            )
        })
        .map(|r| format!("{} {}", r.id, r.verdict.as_str()))
        .collect()
}

/// How each revision is asked for: negotiated, or pinned.
const WAYS: &[(&str, Option<Revision>)] = &[
    ("mcp", None),
    ("mcp@2025-06-18", Some(Revision::V2025_06_18)),
    ("mcp@2025-11-25", Some(Revision::V2025_11_25)),
    ("mcp@2026-07-28", Some(Revision::V2026_07_28)),
];

#[test]
fn the_reference_passes_every_check_in_every_revision() {
    let handles: Vec<_> = WAYS
        .iter()
        .map(|&(name, pinned)| thread::spawn(move || (name, checks("reference", pinned))))
        .collect();
    for h in handles {
        let (name, results) = h.join().expect("no panic");
        assert_eq!(
            results.len(),
            suite::CHECKS.len(),
            "{name}: a result per check"
        );
        assert!(
            caught(&results).is_empty(),
            "{name}: {:#?}",
            caught(&results)
        );
        // With every tool call named, nothing is SKIPPED but what the
        // reference declares it all (no undeclared method to call).
        let skipped: Vec<&str> = results
            .iter()
            .filter(|r| r.verdict == Verdict::Skipped)
            .map(|r| r.id.as_str())
            .collect();
        assert_eq!(skipped, ["mcp/capabilities/undeclared-method"], "{name}");
    }
}

/// A server of an older revision than rpcspec knows answers `initialize`
/// as the lifecycle allows: nothing fails, the checks that need a session
/// of a known revision are SKIPPED, and no schema is applied to it.
#[test]
fn a_server_of_an_unknown_older_revision_fails_nothing() {
    for pinned in [LEGACY, Some(Revision::V2025_06_18)] {
        let results = checks("speaks-2024", pinned);
        assert!(
            caught(&results).is_empty(),
            "{pinned:?}: {:#?}",
            caught(&results)
        );
        let verdict = |id: &str| {
            results
                .iter()
                .find(|r| r.id == id)
                .map(|r| r.verdict)
                .unwrap_or_else(|| panic!("no {id}"))
        };
        assert_eq!(verdict("mcp/lifecycle/initialize"), Verdict::Pass);
        assert_eq!(verdict("mcp/tools/list"), Verdict::Skipped);
        assert_eq!(verdict("mcp/schema/messages"), Verdict::NotApplicable);
        assert_eq!(verdict("mcp/shutdown/stdin-eof"), Verdict::Pass);
    }
}

/// A mutant, how it is run, and the checks that must catch it.
struct Mutant {
    name: &'static str,
    /// `None`: negotiated (the newest, 2026-07-28, for the dual-era
    /// reference); else pinned to show a bug of that revision.
    pinned: Option<Revision>,
    caught_by: &'static [&'static str],
}

const fn m(
    name: &'static str,
    pinned: Option<Revision>,
    caught_by: &'static [&'static str],
) -> Mutant {
    Mutant {
        name,
        pinned,
        caught_by,
    }
}

const LEGACY: Option<Revision> = Some(Revision::V2025_11_25);
const MODERN: Option<Revision> = Some(Revision::V2026_07_28);

const MUTANTS: &[Mutant] = &[
    m("stdout-log", None, &["mcp/stdio/messages-only"]),
    m(
        "echo-unknown-version",
        LEGACY,
        &["mcp/lifecycle/unknown-version"],
    ),
    m("lingers", None, &["mcp/shutdown/stdin-eof"]),
    m(
        "sampling-undeclared",
        LEGACY,
        &["mcp/capabilities/client-declared"],
    ),
    m(
        "input-schema-null",
        None,
        &["mcp/tools/list", "mcp/schema/messages"],
    ),
    m("endless-pagination", None, &["mcp/resources/list"]),
    m(
        "answers-cancelled",
        None,
        &["mcp/utilities/cancel-in-flight"],
    ),
    m("progress-backwards", None, &["mcp/utilities/progress"]),
    m(
        "tool-error-as-protocol-error",
        None,
        &["mcp/tools/execution-error"],
    ),
    m("reuses-server-id", LEGACY, &["mcp/tools/asks-client"]),
    m(
        "requests-before-initialized",
        LEGACY,
        &["mcp/lifecycle/before-initialized"],
    ),
    m(
        "no-ping",
        LEGACY,
        &["mcp/utilities/ping", "mcp/lifecycle/before-initialized"],
    ),
    // INFO only (no sentence says how a second one is refused): noted,
    // never failed; `a_second_initialize_that_succeeds_is_noted`.
    m("second-initialize-ok", LEGACY, &[]),
    // INFO only, as `a_not_found_error_without_its_uri_is_noted` shows.
    m("not-found-without-uri", MODERN, &[]),
    m(
        "invalid-cursor-ok",
        None,
        &["mcp/pagination/invalid-cursor"],
    ),
    m("wrong-resource-error", None, &["mcp/resources/unknown-uri"]),
    m("duplicate-tool-names", None, &["mcp/tools/list"]),
    m("no-result-type", None, &["mcp/schema/messages"]),
    m("discover-missing", MODERN, &["mcp/lifecycle/discover"]),
    m("embedded-newline", None, &["mcp/stdio/messages-only"]),
    m("no-completion", None, &["mcp/completion/complete"]),
    m(
        "blob-not-base64",
        None,
        &["mcp/resources/read", "mcp/schema/messages"],
    ),
    m("binary-unreadable", None, &["mcp/resources/read"]),
    m(
        "contents-without-uri",
        None,
        &[
            "mcp/resources/read",
            "mcp/resources/templates-read",
            "mcp/schema/messages",
        ],
    ),
    m("subscribe-missing", LEGACY, &["mcp/resources/subscribe"]),
    m(
        "prompt-content-untyped",
        None,
        &["mcp/prompts/get", "mcp/schema/messages"],
    ),
    m(
        "fixture-image-no-mime",
        None,
        &["mcp/fixtures/tools-call-image", "mcp/schema/messages"],
    ),
    m(
        "fixture-audio-mp3",
        None,
        &["mcp/fixtures/tools-call-audio"],
    ),
    m(
        "fixture-template-unfilled",
        None,
        &["mcp/fixtures/resources-templates-read"],
    ),
    m(
        "fixture-sampling-unasked",
        LEGACY,
        &["mcp/fixtures/tools-call-sampling"],
    ),
    m(
        "fixture-default-missing",
        LEGACY,
        &["mcp/fixtures/elicitation-sep1034-defaults"],
    ),
    m(
        "fixture-titled-enum-as-enum",
        LEGACY,
        &["mcp/fixtures/elicitation-sep1330-enums"],
    ),
    m(
        "mrtr-trusts-state",
        MODERN,
        &["mcp/fixtures/input-required-result-tampered-state"],
    ),
    m(
        "mrtr-same-state",
        MODERN,
        &["mcp/fixtures/input-required-result-multi-round"],
    ),
    m(
        "mrtr-ignores-capabilities",
        MODERN,
        &["mcp/fixtures/input-required-result-capability-check"],
    ),
    m(
        "missing-argument-ok",
        None,
        &["mcp/prompts/missing-argument"],
    ),
    // The checks after a crash run on a new process: only those that
    // send a cancellation are caught (the snapshot shows the rest pass).
    m(
        "exits-on-cancel",
        None,
        &[
            "mcp/utilities/cancel-unknown",
            "mcp/utilities/cancel-in-flight",
        ],
    ),
];

#[test]
fn every_mcp_mutant_is_caught_by_its_checks() {
    // All at once: each is a few processes that mostly wait (on replies,
    // on deadlines), a second of CPU for the whole table.
    let mut table = String::from("mutant | revision | caught by\n");
    let handles: Vec<_> = MUTANTS
        .iter()
        .map(|mutant| {
            let (name, pinned) = (mutant.name, mutant.pinned);
            thread::spawn(move || checks(name, pinned))
        })
        .collect();
    for (mutant, h) in MUTANTS.iter().zip(handles) {
        let results = h.join().expect("no panic");
        let caught = caught(&results);
        for id in mutant.caught_by {
            assert!(
                caught.iter().any(|c| c.split(' ').next() == Some(*id)),
                "{}: not caught by {id}; caught by {caught:#?}",
                mutant.name
            );
        }
        let how = mutant
            .pinned
            .map_or("negotiated".to_owned(), |r| r.to_string());
        let by: Vec<&str> = caught.iter().map(String::as_str).collect();
        // A mutant that breaks the session breaks every check: say so
        // once, with the checks that name the cause.
        let by = if by.len() > 8 {
            let fails: Vec<&str> = by
                .iter()
                .copied()
                .filter(|c| c.ends_with(" FAIL"))
                .collect();
            format!(
                "{} (and {} more that need a session)",
                fails.join(", "),
                by.len() - fails.len()
            )
        } else {
            by.join(", ")
        };
        table.push_str(&format!("{} | {how} | {by}\n", mutant.name));
    }
    insta::assert_snapshot!("mcp_catches", table);
}

/// `drops-invalid` stays silent on lines that are not valid JSON-RPC: the
/// JSON-RPC cases catch it, as MCP reads them (NON-STRICT: MCP lets an
/// unreadable request go unanswered, JSON-RPC 2.0 §5 does not).
#[test]
fn a_server_that_drops_invalid_lines_is_caught_by_the_json_rpc_cases() {
    let (dialect, handshake) = dialect_named("mcp").expect("mcp");
    let opts = RunOptions {
        timeout: Duration::from_secs(3),
        dialect,
        handshake: Some(handshake),
        ..RunOptions::default()
    };
    let all: Vec<_> = cases::builtin()
        .unwrap()
        .into_iter()
        .filter(|c| {
            c.meta.id.starts_with("jsonrpc/envelope/") || c.meta.id.starts_with("framing/lines/")
        })
        .collect();
    let run = |name: &str| run_suite(&all, &[Plan::Whole], &target(name), &opts, 4, &|_, _| {});
    let reference = run("reference");
    assert!(
        reference.iter().all(|r| matches!(
            r.verdict,
            Verdict::Pass | Verdict::NotApplicable | Verdict::Skipped
        )),
        "{:#?}",
        caught(&reference)
    );
    let dropped = caught(&run("drops-invalid"));
    assert!(
        dropped
            .iter()
            .any(|c| c.starts_with("jsonrpc/envelope/") && c.ends_with("NON-STRICT")),
        "{dropped:#?}"
    );
}

#[test]
fn a_second_initialize_that_succeeds_is_noted() {
    let results = checks("second-initialize-ok", LEGACY);
    let second = results
        .iter()
        .find(|r| r.id == "mcp/lifecycle/second-initialize")
        .expect("the check ran");
    assert_eq!(second.verdict, Verdict::Pass, "{second:#?}");
    assert!(
        second.evidence.iter().any(|e| e
            .rule
            .as_ref()
            .is_some_and(|r| r.id == "mcp.lifecycle.second-initialize" && r.level == "INFO")
            && e.message.contains("a second `initialize`")),
        "{second:#?}"
    );
    // The reference refuses it: nothing to note.
    let reference = checks("reference", LEGACY);
    let second = reference
        .iter()
        .find(|r| r.id == "mcp/lifecycle/second-initialize")
        .expect("the check ran");
    assert!(
        second.evidence.iter().all(|e| e.rule.is_none()),
        "{second:#?}"
    );
}

/// A not-found error without `data.uri` is noted (INFO: no sentence
/// requires it), never failed; the reference names the URI.
#[test]
fn a_not_found_error_without_its_uri_is_noted() {
    let noted = |results: &[CaseResult]| {
        let unknown = results
            .iter()
            .find(|r| r.id == "mcp/resources/unknown-uri")
            .expect("the check ran");
        assert_eq!(unknown.verdict, Verdict::Pass, "{unknown:#?}");
        unknown.evidence.iter().any(|e| {
            e.rule
                .as_ref()
                .is_some_and(|r| r.id == "mcp.resources.not-found-uri" && r.level == "INFO")
        })
    };
    for pinned in [LEGACY, MODERN] {
        assert!(
            noted(&checks("not-found-without-uri", pinned)),
            "{pinned:?}"
        );
        assert!(!noted(&checks("reference", pinned)), "{pinned:?}");
    }
}

/// A target file whose "safe" call fails as a tool (`isError: true`) says
/// nothing of a successful call: an ERROR naming the call, never a PASS.
#[test]
fn a_safe_call_that_fails_as_a_tool_is_an_error_of_the_target_file() {
    let mut calls = calls();
    calls.call = calls.failing.clone();
    let opts = Options {
        pinned: LEGACY,
        startup: Duration::from_secs(10),
        timeout: Duration::from_secs(3),
        budget: Budget::DEFAULT,
        calls,
        readiness: Default::default(),
    };
    let results = suite::run(&target("reference"), &opts, &|id| id == "mcp/tools/call").results;
    let call = results
        .iter()
        .find(|r| r.id == "mcp/tools/call")
        .expect("the check ran");
    assert_eq!(call.verdict, Verdict::Error, "{call:#?}");
    assert!(
        call.evidence.iter().any(|e| e
            .message
            .contains("`[mcp] call` of `fail` returned `isError: true`")),
        "{call:#?}"
    );
}
