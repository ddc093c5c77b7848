//! The human report as a person reads it, for the reference server and
//! three mutants: snapshots (insta), with what changes from run to run
//! (timings, the mutant's path) redacted. One job, so which results share
//! a process (and so the barrier ids) is the same every run.

use std::time::Duration;

use rpcspec::{
    cases::{self, Case},
    compile_filters,
    exec::RunOptions,
    plan::ALL_PLANS,
    render,
    report::Report,
    run_suite, selected,
    target::Target,
};

const MUTANT: &str = env!("CARGO_BIN_EXE_rpcspec-mutant");

fn report(mutant: &str, filter: &str) -> String {
    let filters = compile_filters(&[filter.to_owned()]).unwrap();
    let cases: Vec<Case> = cases::builtin()
        .unwrap()
        .into_iter()
        .filter(|c| selected(&c.meta.id, &filters))
        .collect();
    let target = Target {
        argv: vec![MUTANT.into(), mutant.into()],
    };
    let opts = RunOptions {
        timeout: Duration::from_secs(3),
        startup: Duration::from_secs(2),
        ..RunOptions::default()
    };
    let results = run_suite(&cases, &ALL_PLANS, &target, &opts, 1, &|_, _| {});
    let report = Report {
        target: format!("rpcspec-mutant {mutant}"),
        role: "server".into(),
        dialect: "jsonrpc2".into(),
        strict: false,
        results,
        stale: Vec::new(),
        duration: Duration::ZERO,
        halt: opts.readiness.halted().cloned(),
    };
    redact(&render::human(&report, false))
}

/// Timings (`+12ms`) become `+Nms`; the styles are stripped.
fn redact(text: &str) -> String {
    let plain = anstream::adapter::strip_str(text).to_string();
    let mut out = String::with_capacity(plain.len());
    let mut rest = plain.as_str();
    while let Some(at) = rest.find('+') {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 1..];
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && tail[digits..].starts_with("ms") {
            out.push_str("+Nms");
            rest = &tail[digits + 2..];
        } else {
            out.push('+');
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn the_reference_report_is_its_summary() {
    insta::assert_snapshot!("reference", report("reference", "jsonrpc/examples/*"));
}

#[test]
fn a_wrong_error_code_shows_the_difference() {
    insta::assert_snapshot!(
        "wrong_code",
        report("wrong-code-method-not-found", "jsonrpc/examples/*")
    );
}

/// (A crash is not snapshotted: whether the target dies before the last
/// write, a broken pipe, is a race the report rightly shows.)
#[test]
fn a_session_finding_names_its_rule() {
    insta::assert_snapshot!(
        "replies_to_notifications",
        report("replies-to-notifications", "jsonrpc/notifications/*")
    );
}

#[test]
fn a_framing_finding_names_its_rule() {
    insta::assert_snapshot!(
        "pretty_prints",
        report("pretty-prints", "jsonrpc/examples/positional-params")
    );
}
