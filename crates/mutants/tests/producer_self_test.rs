//! The producer checks must be able to fail: the reference producers pass
//! every check under every scenario, over stdio and over HTTP, and every
//! mutant producer is caught by the check written for its bug. The whole
//! mutant → catching-checks table is a snapshot.

mod support;

use std::{collections::BTreeSet, time::Duration};

use rpcspec::{
    producer::{self, Profile, Source},
    report::{CaseResult, Verdict},
    target::Target,
};
use support::http_fixture::{self, Behaviour};

const MUTANT: &str = env!("CARGO_BIN_EXE_rpcspec-mutant-producer");

/// Deadline per scenario. The `buffered` mutant costs half of it (the
/// stdin gate) and `lingers` the exit grace; everything else ends at once.
const TIMEOUT: Duration = Duration::from_secs(3);

fn run(profile: &str, source: Source) -> Vec<CaseResult> {
    let profile = Profile::named(profile).expect("shipped profile");
    let cases = producer::load(None, &profile).expect("checks");
    producer::run(
        &cases,
        &profile,
        &source,
        TIMEOUT,
        &Default::default(),
        4,
        &|_, _| {},
    )
}

fn stdio(mutant: &str) -> Source {
    Source::Command(Target {
        argv: vec![MUTANT.into(), mutant.into()],
    })
}

fn caught(results: &[CaseResult]) -> BTreeSet<String> {
    results
        .iter()
        .filter(|r| r.verdict.fails(true))
        .map(|r| format!("{} [{}] {}", r.id, r.plan, r.verdict.as_str()))
        .collect()
}

fn assert_clean(what: &str, results: &[CaseResult]) {
    let bad: Vec<String> = results
        .iter()
        .filter(|r| !matches!(r.verdict, Verdict::Pass | Verdict::Skipped))
        .map(|r| format!("{} [{}] {:?}: {:?}", r.id, r.plan, r.verdict, r.evidence))
        .collect();
    assert!(
        bad.is_empty(),
        "{what} must pass every check:\n{}",
        bad.join("\n")
    );
    assert!(
        results.iter().any(|r| r.verdict == Verdict::Pass),
        "{what}: nothing ran"
    );
}

#[test]
fn reference_producers_pass_every_check() {
    assert_clean("events reference", &run("events", stdio("reference")));
    // A pause past half the deadline after the first record is a slow
    // model, not a held-back stream: the stdin gate stays open.
    assert_clean(
        "slow events reference",
        &run("events", stdio("reference-slow")),
    );
    assert_clean(
        "claude reference",
        &run("claude", stdio("claude-reference")),
    );
    let server = http_fixture::start(Behaviour::Reference);
    assert_clean("HTTP reference", &run("events", Source::Url(server.url())));
    let seq = http_fixture::start(Behaviour::JsonSeq);
    assert_clean("HTTP json-seq", &run("events", Source::Url(seq.url())));
}

/// A slow start does not eat the stream's time: the deadline runs from
/// the first byte. Started 0.9 s late, then pausing 1.8 s, the slow
/// reference ends after 2.7 s, past a 2.5 s deadline from the spawn, and
/// writes its first byte before the stdin gate (half the deadline).
#[test]
fn a_slow_start_does_not_use_up_the_deadline() {
    let profile = Profile::named("events").expect("shipped profile");
    let cases = producer::load(None, &profile).expect("checks");
    let source = Source::Command(Target {
        argv: vec![
            "sh".into(),
            "-c".into(),
            "sleep 0.9; exec \"$0\" reference-slow".into(),
            MUTANT.into(),
        ],
    });
    let timeout = Duration::from_millis(2500);
    let results = producer::run(
        &cases,
        &profile,
        &source,
        timeout,
        &Default::default(),
        2,
        &|_, _| {},
    );
    assert_clean("slow-starting slow reference", &results);
}

/// (mutant, profile, the checks that must catch it).
const STDIO: &[(&str, &str, &[&str])] = &[
    ("no-done", "events", &["producer/lifecycle/interrupted"]),
    (
        "after-done",
        "events",
        &["producer/lifecycle/nothing-after-end"],
    ),
    (
        "pretty",
        "events",
        &["producer/framing/one-line-per-record"],
    ),
    ("log-line", "events", &["producer/framing/json-lines"]),
    (
        "error-without-message",
        "events",
        &["producer/lifecycle/error-record"],
    ),
    ("buffered", "events", &["producer/lifecycle/streams"]),
    ("no-start", "events", &["producer/lifecycle/start-first"]),
    (
        "start-without-id",
        "events",
        &["producer/lifecycle/start-first"],
    ),
    (
        "no-final-newline",
        "events",
        &["producer/framing/terminated"],
    ),
    (
        "blank-lines",
        "events",
        &["producer/framing/no-blank-or-bom"],
    ),
    ("latin1", "events", &["producer/framing/utf8"]),
    ("untyped", "events", &["producer/envelope/type"]),
    ("token-without-text", "events", &["producer/envelope/shape"]),
    (
        "done-on-failure",
        "events",
        &["producer/lifecycle/expected-end"],
    ),
    ("exit-1", "events", &["producer/lifecycle/exit-status"]),
    ("lingers", "events", &["producer/lifecycle/exit-status"]),
    (
        "claude-stops-after-control",
        "claude",
        &[
            "producer/control/answered",
            "producer/lifecycle/interrupted",
        ],
    ),
    (
        "claude-no-control",
        "claude",
        &["producer/control/answered"],
    ),
];

/// (fixture behaviour, the checks that must catch it).
const HTTP: &[(Behaviour, &[&str])] = &[
    (Behaviour::Buffered, &["producer/lifecycle/streams"]),
    (Behaviour::OneChunk, &["producer/lifecycle/streams"]),
    (Behaviour::NoDone, &["producer/lifecycle/interrupted"]),
    (Behaviour::CutMidChunk, &["producer/lifecycle/interrupted"]),
    (Behaviour::TextPlain, &["producer/http/content-type"]),
    (Behaviour::AcceptsBadRequest, &["producer/http/bad-request"]),
    (
        Behaviour::HtmlErrors,
        &["producer/http/bad-request", "producer/http/status"],
    ),
    (Behaviour::ServerError, &["producer/http/status"]),
    (Behaviour::Silent, &["producer/lifecycle/interrupted"]),
];

#[test]
fn every_mutant_producer_is_caught() {
    let mut table = String::new();
    for (mutant, profile, must) in STDIO {
        let results = run(profile, stdio(mutant));
        let got = caught(&results);
        for check in *must {
            assert!(
                got.iter().any(|c| c.starts_with(&format!("{check} "))),
                "mutant `{mutant}` is not caught by {check}; caught by: {got:#?}"
            );
        }
        table.push_str(&format!("{mutant} (stdio, {profile}):\n"));
        for c in &got {
            table.push_str(&format!("  {c}\n"));
        }
    }
    for (behaviour, must) in HTTP {
        let server = http_fixture::start(*behaviour);
        let results = run("events", Source::Url(server.url()));
        let got = caught(&results);
        for check in *must {
            assert!(
                got.iter().any(|c| c.starts_with(&format!("{check} "))),
                "HTTP fixture {behaviour:?} is not caught by {check}; caught by: {got:#?}"
            );
        }
        table.push_str(&format!("{behaviour:?} (http, events):\n"));
        for c in &got {
            table.push_str(&format!("  {c}\n"));
        }
    }
    insta::assert_snapshot!("producer_catches", table);
}

#[test]
fn interrupted_names_the_last_record_and_the_tail() {
    let results = run("events", stdio("no-final-newline"));
    let r = results
        .iter()
        .find(|r| r.id == "producer/framing/terminated" && r.plan == "prompt")
        .expect("result");
    assert_eq!(r.verdict, Verdict::Fail);
    assert!(
        r.evidence[0].message.contains("bytes after its last \\n"),
        "{:?}",
        r.evidence
    );
    let results = run("events", stdio("no-done"));
    let r = results
        .iter()
        .find(|r| r.id == "producer/lifecycle/interrupted" && r.plan == "prompt")
        .expect("result");
    let message = &r.evidence[0].message;
    assert!(
        message
            .starts_with("interrupted: the process exited (exit status 0) without an end record")
            && message.contains("last record (line")
            && message.contains("\"type\":\"meta\""),
        "{message}"
    );
}

/// A profile whose producer reads its input to EOF (`stdin = "close"`):
/// stdin closes after the input, and the process must still exit once its
/// stream has ended.
#[test]
fn with_stdin_closed_after_the_input_a_lingering_producer_is_caught() {
    let events = Profile::named("events").expect("shipped");
    let text = std::fs::read_to_string(&events.source)
        .or_else(|_| {
            std::fs::read_to_string(
                std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("../../spec-cases")
                    .join(&events.source),
            )
        })
        .expect("the events profile file");
    let text = text.replace("stdin = \"open\"", "stdin = \"close\"");
    let profile =
        Profile::parse(std::path::Path::new("closing.toml"), &text).expect("a valid profile");
    assert!(!profile.stdin_open);
    let cases = producer::load(None, &profile).expect("checks");
    let lingers = producer::run(
        &cases,
        &profile,
        &stdio("lingers"),
        TIMEOUT,
        &Default::default(),
        4,
        &|_, _| {},
    );
    let exit = lingers
        .iter()
        .find(|r| r.id == "producer/lifecycle/exit-status" && r.plan == "prompt")
        .expect("result");
    assert_eq!(exit.verdict, Verdict::Fail, "{:?}", exit.evidence);
    let reference = producer::run(
        &cases,
        &profile,
        &stdio("reference"),
        TIMEOUT,
        &Default::default(),
        4,
        &|_, _| {},
    );
    assert_clean("reference, stdin closed after the input", &reference);
    let streams = reference
        .iter()
        .find(|r| r.id == "producer/lifecycle/streams")
        .expect("result");
    assert_eq!(
        streams.verdict,
        Verdict::Skipped,
        "not observable with stdin closed"
    );
}
