//! The producer checks must be able to fail: the reference producers pass
//! every check under every scenario, over stdio and over HTTP, and every
//! mutant producer is caught by the check written for its bug. The whole
//! mutant → catching-checks table is a snapshot.

mod support;

use std::{collections::BTreeSet, time::Duration};

use rpcspec::{
    producer::{self, Limits, Profile, Source},
    report::{CaseResult, Verdict},
    target::Target,
};
use support::http_fixture::{self, Behaviour};

const MUTANT: &str = env!("CARGO_BIN_EXE_rpcspec-mutant-producer");

/// The stream's deadline, and the start-up time. The `buffered` mutant
/// costs the start-up time (the stdin gate) and `lingers` the exit grace;
/// `correct-cold-start` takes 1.2 s of the start-up time; everything else
/// ends at once.
const LIMITS: Limits = Limits {
    timeout: Duration::from_secs(3),
    startup: Duration::from_secs(2),
};

/// The text of the shipped events profile.
fn events_text() -> String {
    let events = Profile::named("events").expect("shipped profile");
    std::fs::read_to_string(&events.source)
        .or_else(|_| {
            std::fs::read_to_string(
                std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("../../spec-cases")
                    .join(&events.source),
            )
        })
        .expect("the events profile file")
}

/// A profile: a shipped one by name, or `expectations`: the events
/// profile with one opt-in application expectation, a scenario whose empty
/// prompt must end in `error` (or be refused over HTTP).
fn profile(name: &str) -> Profile {
    if name != "expectations" {
        return Profile::named(name).expect("shipped profile");
    }
    let text = events_text()
        + "\n[[scenario]]\nname = \"empty\"\ninput = ['{\"prompt\": \"\"}']\n\
           body = '{\"prompt\": \"\"}'\nend = \"error\"\n";
    Profile::parse(std::path::Path::new("expectations.toml"), &text).expect("a valid profile")
}

fn run_with(profile: &Profile, source: Source, limits: Limits) -> Vec<CaseResult> {
    let cases = producer::load(None, profile).expect("checks");
    producer::run(
        &cases,
        profile,
        &source,
        limits,
        &Default::default(),
        4,
        &|_, _| {},
    )
    .results
}

fn run(name: &str, source: Source) -> Vec<CaseResult> {
    run_with(&profile(name), source, LIMITS)
}

fn stdio(mutant: &str) -> Source {
    let mut argv: Vec<std::ffi::OsString> = vec![MUTANT.into(), mutant.into()];
    // Claude Code makes control requests only with this flag.
    if mutant.starts_with("claude-") {
        argv.extend(["--permission-prompt-tool".into(), "stdio".into()]);
    }
    Source::Command(Target { argv })
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

fn result<'a>(results: &'a [CaseResult], id: &str, plan: &str) -> &'a CaseResult {
    results
        .iter()
        .find(|r| r.id == id && r.plan == plan)
        .unwrap_or_else(|| panic!("no result for {id} [{plan}]"))
}

#[test]
fn reference_producers_pass_every_check() {
    assert_clean("events reference", &run("events", stdio("reference")));
    // A pause past the start-up time after the first record is a slow
    // model, not a held-back stream: the stdin gate stays open.
    assert_clean(
        "slow events reference",
        &run("events", stdio("reference-slow")),
    );
    assert_clean(
        "events reference, with expectations",
        &run("expectations", stdio("reference")),
    );
    assert_clean(
        "claude reference",
        &run("claude", stdio("claude-reference")),
    );
    let server = http_fixture::start(Behaviour::Reference);
    assert_clean("HTTP reference", &run("events", Source::Url(server.url())));
    assert_clean(
        "HTTP reference, with expectations",
        &run("expectations", Source::Url(server.url())),
    );
    // RFC 7464 framing, for a profile that names its media type.
    let text = events_text().replace(
        "content_types = [\"application/x-ndjson\"]",
        "content_types = [\"application/json-seq\"]",
    );
    let seq_profile = Profile::parse(std::path::Path::new("seq.toml"), &text).expect("valid");
    let seq = http_fixture::start(Behaviour::JsonSeq);
    assert_clean(
        "HTTP json-seq",
        &run_with(&seq_profile, Source::Url(seq.url()), LIMITS),
    );
}

/// Producers written from the protocol's text, each correct in an unusual
/// way, pass every check of the default profile.
#[test]
fn correct_producers_pass_the_default_profile() {
    for kind in [
        "plain",
        "error-end",
        "odd-chunks",
        "crlf",
        "u2028",
        "stderr",
        "cold-start",
    ] {
        let results = run("events", stdio(&format!("correct-{kind}")));
        assert_clean(&format!("correct-{kind}"), &results);
    }
    // The error end and its exit status 1 are consistent.
    let results = run("events", stdio("correct-error-end"));
    let exit = result(&results, "producer/lifecycle/exit-status", "prompt");
    assert_eq!(exit.verdict, Verdict::Pass, "{:?}", exit.evidence);
    assert_eq!(exit.exit.as_deref(), Some("exit status 1"));
}

/// A cold start is measured against the start-up time, not the stream's
/// deadline: 1.2 s of silence is a cold start with 2 s to start (though
/// the stream's timeout is 1 s), and a held-back stream with 0.6 s.
#[test]
fn a_cold_start_is_not_a_held_back_stream() {
    let events = profile("events");
    let cold = || stdio("correct-cold-start");
    let patient = Limits {
        timeout: Duration::from_secs(1),
        startup: Duration::from_secs(2),
    };
    let results = run_with(&events, cold(), patient);
    assert_clean("cold start within the start-up time", &results);
    let hasty = Limits {
        timeout: Duration::from_secs(3),
        startup: Duration::from_millis(600),
    };
    let results = run_with(&events, cold(), hasty);
    let streams = result(&results, "producer/lifecycle/streams", "prompt");
    assert_eq!(
        streams.verdict,
        Verdict::NonStrict,
        "{:?}",
        streams.evidence
    );
    assert!(
        streams.evidence[0]
            .message
            .contains("within the start-up time (0.6s"),
        "{:?}",
        streams.evidence
    );
}

/// A slow start does not eat the stream's time: the deadline runs from
/// the first byte. Started 0.9 s late, then pausing 1.8 s, the slow
/// reference ends after 2.7 s, past a 2.5 s deadline from the spawn.
#[test]
fn a_slow_start_does_not_use_up_the_deadline() {
    let source = Source::Command(Target {
        argv: vec![
            "sh".into(),
            "-c".into(),
            "sleep 0.9; exec \"$0\" reference-slow".into(),
            MUTANT.into(),
        ],
    });
    let limits = Limits {
        timeout: Duration::from_millis(2500),
        startup: Duration::from_secs(2),
    };
    let results = run_with(&profile("events"), source, limits);
    assert_clean("slow-starting slow reference", &results);
}

/// Claude Code without a login: its result reports the failure with
/// `is_error` and the process exits 1, which is consistent; no control
/// request can come, with or without the flag that enables them.
#[test]
fn claude_not_logged_in_is_no_failure() {
    let with_flag = run("claude", stdio("claude-not-logged-in"));
    assert_clean("claude, not logged in", &with_flag);
    let control = result(&with_flag, "producer/control/answered", "permission");
    assert_eq!(control.verdict, Verdict::Skipped);
    assert!(
        control.evidence[0]
            .message
            .starts_with("the turn failed before any `control_request`"),
        "{:?}",
        control.evidence
    );
    let exit = result(&with_flag, "producer/lifecycle/exit-status", "prompt");
    assert_eq!(exit.verdict, Verdict::Pass, "{:?}", exit.evidence);
    // Without --permission-prompt-tool the check does not apply at all,
    // to the reference either.
    let plain = Source::Command(Target {
        argv: vec![MUTANT.into(), "claude-reference".into()],
    });
    let results = run("claude", plain);
    assert_clean("claude reference without the flag", &results);
    let control = result(&results, "producer/control/answered", "permission");
    assert_eq!(control.verdict, Verdict::Skipped);
    assert!(
        control.evidence[0]
            .message
            .contains("does not pass `--permission-prompt-tool stdio`"),
        "{:?}",
        control.evidence
    );
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
        "meta-after-done",
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
        "expectations",
        &["producer/lifecycle/error-record"],
    ),
    ("buffered", "events", &["producer/lifecycle/streams"]),
    (
        "buffered-at-exit",
        "events",
        &["producer/lifecycle/streams"],
    ),
    ("no-start", "events", &["producer/lifecycle/start-first"]),
    (
        "second-start",
        "events",
        &["producer/lifecycle/start-first"],
    ),
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
    (
        "token-without-content",
        "events",
        &["producer/envelope/shape"],
    ),
    (
        "token-content-number",
        "events",
        &["producer/envelope/shape"],
    ),
    (
        "flat",
        "events",
        &["producer/envelope/shape", "producer/lifecycle/start-first"],
    ),
    (
        "done-on-failure",
        "expectations",
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
    (
        "claude-control-silent",
        "claude",
        &["producer/control/answered-once"],
    ),
    (
        "claude-control-twice",
        "claude",
        &["producer/control/answered-once"],
    ),
    (
        "claude-control-bad-shape",
        "claude",
        &["producer/control/response-shape"],
    ),
    (
        "claude-control-serves-anything",
        "claude",
        &["producer/control/unsupported"],
    ),
    (
        "claude-control-answers-everything",
        "claude",
        &["producer/control/unsolicited"],
    ),
    (
        "claude-control-dies-on-malformed",
        "claude",
        &["producer/control/malformed"],
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
    (Behaviour::ErrorRecord200, &["producer/http/bad-request"]),
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
        let results = run("expectations", Source::Url(server.url()));
        let got = caught(&results);
        for check in *must {
            assert!(
                got.iter().any(|c| c.starts_with(&format!("{check} "))),
                "HTTP fixture {behaviour:?} is not caught by {check}; caught by: {got:#?}"
            );
        }
        table.push_str(&format!("{behaviour:?} (http, expectations):\n"));
        for c in &got {
            table.push_str(&format!("  {c}\n"));
        }
    }
    insta::assert_snapshot!("producer_catches", table);
}

#[test]
fn interrupted_names_the_last_record_and_the_tail() {
    let results = run("events", stdio("no-final-newline"));
    let r = result(&results, "producer/framing/terminated", "prompt");
    assert_eq!(r.verdict, Verdict::Fail);
    assert!(
        r.evidence[0].message.contains("bytes after its last \\n"),
        "{:?}",
        r.evidence
    );
    let results = run("events", stdio("no-done"));
    let r = result(&results, "producer/lifecycle/interrupted", "prompt");
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
    let text = events_text().replace("stdin = \"open\"", "stdin = \"close\"");
    let profile =
        Profile::parse(std::path::Path::new("closing.toml"), &text).expect("a valid profile");
    assert!(!profile.stdin_open);
    let lingers = run_with(&profile, stdio("lingers"), LIMITS);
    let exit = result(&lingers, "producer/lifecycle/exit-status", "prompt");
    // No spec says a process must exit at EOF: SHOULD, as for servers.
    assert_eq!(exit.verdict, Verdict::NonStrict, "{:?}", exit.evidence);
    let rule = exit.evidence[0].rule.as_ref().expect("names its rule");
    assert_eq!(rule.id, "process.exit-on-eof");
    let reference = run_with(&profile, stdio("reference"), LIMITS);
    assert_clean("reference, stdin closed after the input", &reference);
    let streams = result(&reference, "producer/lifecycle/streams", "prompt");
    assert_eq!(
        streams.verdict,
        Verdict::Skipped,
        "not observable with stdin closed"
    );
}
