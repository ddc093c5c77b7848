//! Snapshots of the machine reports (NDJSON and JUnit XML) for small runs
//! whose outcome is deterministic, with everything time- or
//! machine-dependent redacted; the JUnit XML is validated against the Ant
//! schema CI systems read.

use std::{
    fs,
    path::{Path, PathBuf},
    process::Command as StdCommand,
    time::Duration,
};

mod support;

use assert_cmd::Command;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_rpcspec");
const NOT_FOUND: &str = "jsonrpc/examples/method-not-found";
const INVALID_JSON: &str = "jsonrpc/examples/invalid-json";
/// Requires `subtract`: SKIPPED under `--without subtract`.
const NEEDS_SUBTRACT: &str = "jsonrpc/examples/positional-params";

/// Runs `rpcspec run ARGS` and returns its stdout, checking the exit code.
fn report(args: &[&str], code: i32) -> String {
    // One job unless a test says otherwise: which results share a process,
    // and so the barrier ids they carry (`rpcspec-barrier-1-1` on a
    // process's second case), would depend on how jobs took the work.
    let jobs: &[&str] = if args.contains(&"--jobs") {
        &[]
    } else {
        &["--jobs", "1"]
    };
    let out = Command::new(BIN)
        .arg("run")
        .args(jobs)
        .args(args)
        .env("NO_COLOR", "1")
        .timeout(Duration::from_secs(60))
        .assert()
        .code(code);
    String::from_utf8(out.get_output().stdout.clone()).expect("UTF-8 report")
}

/// Replaces the value after each `marker` (the longest run of characters
/// `in_value` accepts) with `with`.
fn replace_after(text: &str, marker: &str, in_value: impl Fn(char) -> bool, with: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(marker) {
        let (before, after) = rest.split_at(i + marker.len());
        out.push_str(before);
        let end = after.find(|c: char| !in_value(c)).unwrap_or(after.len());
        out.push_str(with);
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// `+12ms` (a timestamp in evidence text) becomes `+[ms]`.
fn redact_plus_ms(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(" +") {
        let (before, after) = rest.split_at(i + 2);
        out.push_str(before);
        let digits = after
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(after.len());
        if digits > 0 && after[digits..].starts_with("ms") {
            out.push_str("[ms]");
            rest = &after[digits + 2..];
        } else {
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// What varies between runs and machines: durations, timestamps, and the
/// path of the binary (the default target is `<path> serve`).
fn redact(text: &str) -> String {
    let digit = |c: char| c.is_ascii_digit();
    let text = text.replace(BIN, "[rpcspec]");
    let bad = support::unrunnable();
    let text = text.replace(bad.to_str().expect("UTF-8"), "[unrunnable]");
    let text = replace_after(&text, "\"duration\":", digit, "\"[ms]\"");
    let text = replace_after(&text, "\"at_ms\":", digit, "\"[ms]\"");
    let text = replace_after(&text, " timestamp=\"", |c| c != '"', "[timestamp]");
    let text = replace_after(&text, " time=\"", |c| c != '"', "[s]");
    redact_plus_ms(&text)
}

#[test]
fn redaction_replaces_only_what_varies() {
    assert_eq!(
        redact(r#"{"duration":12,"at_ms":0,"line":3,"time":5}"#),
        r#"{"duration":"[ms]","at_ms":"[ms]","line":3,"time":5}"#
    );
    assert_eq!(
        redact(r#"<a timestamp="2026-01-01T00:00:00" time="0.501"> sent +12ms: +3 +4m"#),
        r#"<a timestamp="[timestamp]" time="[s]"> sent +[ms]: +3 +4m"#
    );
}

/// Checks the NDJSON envelope and returns the lines' `type`s.
fn envelope(report: &str) -> Vec<String> {
    report
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).expect("each line is one JSON value");
            let obj = v.as_object().expect("an object");
            assert_eq!(obj.len(), 2, "only type and data: {line}");
            assert!(obj["data"].is_object(), "{line}");
            obj["type"].as_str().expect("type is a string").to_owned()
        })
        .collect()
}

#[test]
fn json_report_of_passing_results() {
    let out = report(
        &[
            "--format",
            "json",
            "--filter",
            NOT_FOUND,
            "--filter",
            INVALID_JSON,
            "--plans",
            "whole,split",
        ],
        0,
    );
    assert_eq!(
        envelope(&out),
        ["start", "result", "result", "result", "result", "summary"]
    );
    insta::assert_snapshot!(redact(&out));
}

#[test]
fn json_report_of_failing_and_skipped_results() {
    // `cat` echoes the requests back and never answers: a TIMEOUT, and the
    // echo of the invalid line is itself invalid JSON (a rule finding).
    let out = report(
        &[
            "--format",
            "json",
            "--timeout",
            "1",
            "--plans",
            "whole",
            "--without",
            "subtract",
            "--filter",
            NEEDS_SUBTRACT,
            "--filter",
            INVALID_JSON,
            "--",
            "cat",
        ],
        1,
    );
    assert_eq!(envelope(&out), ["start", "result", "result", "summary"]);
    insta::assert_snapshot!(redact(&out));

    let bad = support::unrunnable();
    let bad = bad.to_str().expect("UTF-8");
    let out = report(
        &[
            "--format", "json", "--plans", "whole", "--filter", NOT_FOUND, "--", bad,
        ],
        1,
    );
    assert_eq!(envelope(&out), ["start", "result", "summary"]);
    insta::assert_snapshot!("json_report_of_an_error", redact(&out));
}

#[test]
fn sent_timestamps_follow_the_order_of_the_writes() {
    // Under `split` the pieces of a line are written 2 ms apart, and the
    // barrier request after them: its `at_ms` cannot be earlier.
    let out = report(
        &[
            "--format", "json", "--plans", "split", "--filter", NOT_FOUND,
        ],
        0,
    );
    for line in out.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if v["type"] != "result" {
            continue;
        }
        let at: Vec<u64> = v["data"]["sent"]
            .as_array()
            .expect("sent")
            .iter()
            .map(|s| s["at_ms"].as_u64().expect("at_ms"))
            .collect();
        assert!(at.len() > 3, "{line}");
        assert!(
            at.windows(2).all(|w| w[0] <= w[1]),
            "sent at_ms out of order {at:?}: {line}"
        );
    }
}

/// Where the JUnit schema lives: beside the workspace, in `shared/`.
fn schema() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/schemas/junit.xsd")
}

/// A cheap well-formedness check: every tag is closed, in order.
fn check_tags_balance(xml: &str) {
    let mut open: Vec<&str> = Vec::new();
    let mut rest = xml;
    while let Some(start) = rest.find('<') {
        let end = rest[start..].find('>').expect("an unclosed `<`") + start;
        let tag = &rest[start + 1..end];
        rest = &rest[end + 1..];
        if tag.starts_with('?') || tag.starts_with('!') {
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(open.pop(), Some(name), "mismatched </{name}>");
        } else if !tag.ends_with('/') {
            open.push(tag.split_whitespace().next().expect("a tag name"));
        }
    }
    assert!(open.is_empty(), "unclosed tags: {open:?}");
    assert!(
        !rest.contains('>'),
        "a stray `>` outside any tag after the last one"
    );
}

/// The schema, when it and `xmllint` are both here; else says plainly why
/// the schema check is skipped.
fn schema_checker() -> Option<PathBuf> {
    let schema = schema();
    if !schema.is_file() {
        eprintln!(
            "skipped the JUnit schema check: {} does not exist (a clone outside the workspace); checked tag balance only",
            schema.display()
        );
        return None;
    }
    match StdCommand::new("xmllint").arg("--version").output() {
        Ok(_) => Some(schema),
        Err(e) => {
            eprintln!(
                "skipped the JUnit schema check: cannot run xmllint ({e}; apt-get install libxml2-utils); checked tag balance only"
            );
            None
        }
    }
}

/// Checks the tags balance, then validates with `xmllint` against the
/// schema when both are here.
fn validate_junit(xml: &str) {
    check_tags_balance(xml);
    let Some(schema) = schema_checker() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("report.xml");
    fs::write(&file, xml).unwrap();
    let out = StdCommand::new("xmllint")
        .arg("--noout")
        .arg("--schema")
        .arg(&schema)
        .arg(&file)
        .output()
        .expect("xmllint ran a moment ago");
    assert!(
        out.status.success(),
        "the JUnit report does not validate against {}:\n{}\n{xml}",
        schema.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_schema_check_rejects_what_the_schema_does_not_allow() {
    if schema_checker().is_none() {
        return;
    }
    // Balanced, but a <testsuite> needs <properties>, ids and counts.
    let bad = "<?xml version=\"1.0\"?>\n<testsuites><testsuite name=\"x\"/></testsuites>\n";
    assert!(std::panic::catch_unwind(|| validate_junit(bad)).is_err());
}

#[test]
fn tag_balance_check_catches_broken_xml() {
    check_tags_balance("<?xml?><a><b x=\"1\"/><c></c></a>");
    for broken in ["<a><b></a></b>", "<a>", "<a></a></b>"] {
        assert!(
            std::panic::catch_unwind(|| check_tags_balance(broken)).is_err(),
            "{broken}"
        );
    }
}

#[test]
fn junit_report_of_a_timeout_and_a_skip() {
    let xml = report(
        &[
            "--format",
            "junit",
            "--timeout",
            "1",
            "--plans",
            "whole",
            "--without",
            "subtract",
            "--filter",
            NEEDS_SUBTRACT,
            "--filter",
            INVALID_JSON,
            "--",
            "cat",
        ],
        1,
    );
    assert!(
        xml.contains("<failure ") && xml.contains("<skipped "),
        "{xml}"
    );
    validate_junit(&xml);
    insta::assert_snapshot!(redact(&xml));
}

#[test]
fn junit_report_of_an_error_a_skip_and_passes() {
    let bad = support::unrunnable();
    let bad = bad.to_str().expect("UTF-8");
    let xml = report(
        &[
            "--format",
            "junit",
            "--plans",
            "whole",
            "--without",
            "subtract",
            "--filter",
            NEEDS_SUBTRACT,
            "--filter",
            NOT_FOUND,
            "--",
            bad,
        ],
        1,
    );
    assert!(
        xml.contains("<error ") && xml.contains("<skipped "),
        "{xml}"
    );
    validate_junit(&xml);
    insta::assert_snapshot!(redact(&xml));

    // Two case files, all passing: one <testsuite> each.
    let xml = report(
        &[
            "--format",
            "junit",
            "--plans",
            "whole",
            "--filter",
            NOT_FOUND,
            "--filter",
            "framing/lines/crlf",
        ],
        0,
    );
    validate_junit(&xml);
    insta::assert_snapshot!("junit_report_of_passes", redact(&xml));
}

#[test]
fn junit_report_of_non_strict_results() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("own.toml"),
        r#"# A SHOULD expectation the reference server does not meet.
[[case]]
name = "should-differ"
title = "sum answered with a SHOULD-level expectation"
section = "test"
level = "SHOULD"
plans = ["whole"]

[[case.step]]
send = '{"jsonrpc": "2.0", "method": "sum", "params": [1, 2], "id": 1}'
expect = '{"jsonrpc": "2.0", "result": 4, "id": 1}'
"#,
    )
    .unwrap();
    let cases = dir.path().to_str().unwrap();
    // Not strict: a pass, noted in <system-out>.
    let xml = report(&["--format", "junit", "--cases", cases], 0);
    assert!(!xml.contains("<failure"), "{xml}");
    validate_junit(&xml);
    insta::assert_snapshot!(redact(&xml));
    // Strict: a <failure>.
    let xml = report(&["--format", "junit", "--strict", "--cases", cases], 1);
    assert!(xml.contains("<failure "), "{xml}");
    validate_junit(&xml);
    insta::assert_snapshot!("junit_report_of_non_strict_results_strict", redact(&xml));
}

#[test]
fn junit_report_of_hostile_output_validates() {
    // `cat` echoes what the framing cases send: invalid UTF-8, split
    // characters, U+2028, quotes and backslashes, one byte at a time under
    // `bytewise`. All of it lands in the report, escaped.
    let xml = report(
        &[
            "--format",
            "junit",
            "--timeout",
            "0.2",
            "--jobs",
            "16",
            "--plans",
            "whole,bytewise",
            "--filter",
            "framing",
            "--",
            "cat",
        ],
        1,
    );
    // One escaping style, as in the human report: bytes that are not
    // UTF-8 as \xNN, control characters as \u{…}.
    assert!(xml.contains("\\xFF"), "invalid UTF-8 shown as \\xNN");
    validate_junit(&xml);
}

/// `--format github`: one workflow command per case that did not pass,
/// `::error` for a failure and `::warning` for a NON-STRICT one, with the
/// properties and message escaped as the workflow-command syntax says
/// (`%`, CR, LF; `:` and `,` in properties), then the closing line; the
/// Markdown job summary goes to `$GITHUB_STEP_SUMMARY`, appended.
#[test]
fn github_format_is_workflow_commands_and_a_job_summary() {
    let dir = tempfile::tempdir().expect("tempdir");
    let summary = dir.path().join("summary.md");
    fs::write(&summary, "earlier step\n").expect("write");
    let out = Command::new(BIN)
        .args(["run", "--format", "github", "--jobs", "4"])
        .args(support::CAT_TIMES_OUT)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).expect("utf8");
    let lines: Vec<&str> = text.lines().collect();
    let (closing, commands) = lines.split_last().expect("output");
    assert!(
        closing.contains(" passed, ") && closing.ends_with(" skipped"),
        "{closing}"
    );
    assert!(commands.len() > 3, "{text}");
    for line in commands {
        let (command, message) = line
            .strip_prefix("::")
            .and_then(|l| l.split_once("::"))
            .unwrap_or_else(|| panic!("not a workflow command: {line}"));
        let (level, properties) = command.split_once(' ').expect("level and properties");
        assert!(level == "error" || level == "warning", "{line}");
        let title = properties.strip_prefix("title=").expect("a title");
        assert!(
            !title.contains([':', ',', '\n', '\r']) && !message.contains(['\n', '\r']),
            "{line}"
        );
        // Every `%` starts one of the escapes.
        for part in [title, message] {
            for (i, _) in part.match_indices('%') {
                assert!(
                    ["%25", "%0D", "%0A", "%3A", "%2C"]
                        .iter()
                        .any(|e| part[i..].starts_with(e)),
                    "{line}"
                );
            }
        }
        // The message names the rule: an id with its level, or the case's
        // level and section (a TIMEOUT, which judged no rule: the section).
        assert!(
            [
                "[MUST] ",
                "[SHOULD] ",
                "%0Acase NDJSON ",
                "%0Acase JSON-RPC "
            ]
            .iter()
            .any(|r| message.contains(r)),
            "{line}"
        );
    }
    assert!(
        commands
            .iter()
            .any(|l| l.starts_with("::error title=TIMEOUT jsonrpc/examples/")),
        "{text}"
    );
    let md = fs::read_to_string(&summary).expect("the job summary");
    assert!(
        md.starts_with("earlier step\n## rpcspec: `cat` (jsonrpc2 dialect)\n"),
        "{md}"
    );
    assert!(md.contains("\n| area | PASS | NON-STRICT | FAIL |"), "{md}");
    assert!(md.contains("\n|---|--:|"), "{md}");
    assert!(md.contains("\n| `jsonrpc/examples` | "), "{md}");
    assert!(
        md.contains(
            "\n| verdict | case | plans | first finding | rule |\n|---|---|---|---|---|\n| TIMEOUT | `"
        ),
        "{md}"
    );
    // Every table row has as many cells as its header.
    for table in md.split("\n\n").filter(|t| t.starts_with('|')) {
        let cells = |row: &str| row.replace("\\|", "").matches('|').count();
        let head = cells(table.lines().next().expect("a header"));
        assert!(table.lines().all(|row| cells(row) == head), "{table}");
    }
    // --format markdown prints the same summary.
    let out = Command::new(BIN)
        .args([
            "run",
            "--format",
            "markdown",
            "--jobs",
            "4",
            "--timeout",
            "0.5",
            "--plans",
            "whole",
            "--filter",
            "jsonrpc/examples/*",
            "--",
            "cat",
        ])
        .output()
        .expect("runs");
    let printed = String::from_utf8(out.stdout).expect("utf8");
    assert!(
        printed.starts_with("## rpcspec: `cat` (jsonrpc2 dialect)\n"),
        "{printed}"
    );
}
