use std::time::Instant;

use crate::capture::{Capture, Framing};
use crate::casefile::Location;
use rpcspec_framer::{BlankLines, Config};

use super::{grade::json_eq, *};

fn serve_str(stream: &[u8]) -> String {
    let mut out = Vec::new();
    serve(stream, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// The findings of grading `output` (the adapter's stdout) for
/// `stream`, read as `run_case` reads it.
fn findings(stream: &[u8], output: &str) -> Vec<Evidence> {
    let slots = expected(stream);
    let mut out = Output::new(4 * slots.len() + 64);
    let mut capture = Capture::new(Framing::Ndjson(
        Config::default().with_blank_lines(BlankLines::Report),
    ));
    capture.push(output.as_bytes(), Duration::ZERO, |a| out.take(a));
    capture.finish(Duration::ZERO, |a| out.take(a));
    let (records, _, mut findings) = out.finish();
    findings.extend(grade(&slots, &records));
    findings
}

fn verdicts(stream: &[u8], output: &str) -> Vec<(Verdict, String)> {
    findings(stream, output)
        .into_iter()
        .map(|e| (e.verdict, e.rule.map(|r| r.id).unwrap_or_default()))
        .collect()
}

fn case_of(stream: &[u8]) -> DecoderCase {
    DecoderCase {
        meta: Meta {
            id: "decoder/t/x".into(),
            title: String::new(),
            section: String::new(),
            level: Level::Must,
            requires: Vec::new(),
            source: Location {
                file: "t.toml".into(),
                line: 1,
                column: 1,
            },
        },
        stream: stream.to_vec(),
        ends: vec![stream.len()],
        only: None,
    }
}

fn sh(script: &str) -> Target {
    Target {
        argv: vec!["sh".into(), "-c".into(), script.into()],
    }
}

#[test]
fn the_reference_output() {
    let stream = b"\xEF\xBB\xBF{\"a\":1}\r\n\n\r\n{}{}\n\xFF\n{\"type\":\"done\"}";
    insta::assert_snapshot!(serve_str(stream), @r#"
        {"value":{"a":1}}
        {"error":"line 4 (byte 17): not one json value: trailing characters"}
        {"error":"line 5 (byte 20): invalid utf-8 after 0 valid bytes: \"\\xff\""}
        {"value":{"type":"done"}}
        {"end":"complete"}
        "#);
}

#[test]
fn the_reference_grades_itself_pass() {
    for stream in [
        &b"\xEF\xBB\xBF{\"a\":1}\r\n\n\r\n{}{}\n\xFF\n{\"type\":\"done\"}"[..],
        b"",
        b"\n\n",
        b"{\"a\":\"\xE2\x80\xA8\"}\n{\"a\":",
    ] {
        assert_eq!(verdicts(stream, &serve_str(stream)), [], "{stream:?}");
    }
}

#[test]
fn choices_are_graded_not_failed() {
    let stream = b"\xEF\xBB\xBF{\"a\":1}\n\n\r\n{\"type\":\"done\"}\n";
    let out = "{\"error\":\"bom\"}\n{\"error\":\"blank\"}\n{\"error\":\"blank\"}\n{\"value\":{\"type\":\"done\"}}\n{\"end\":\"complete\"}\n";
    assert_eq!(
        verdicts(stream, out),
        [
            (Verdict::NonStrict, "decoder.bom".to_owned()),
            (Verdict::Pass, "decoder.blank-line".to_owned()),
            (Verdict::Pass, "decoder.blank-line".to_owned()),
        ]
    );
}

#[test]
fn a_leaked_cr_shows_on_a_crlf_blank_line() {
    let stream = b"{\"a\":1}\r\n\n\r\n{\"type\":\"done\"}\r\n";
    let out = "{\"value\":{\"a\":1}}\n{\"error\":\"x\"}\n{\"value\":{\"type\":\"done\"}}\n{\"end\":\"complete\"}\n";
    let got = verdicts(stream, out);
    assert!(
        got.contains(&(Verdict::Fail, "decoder.crlf".to_owned())),
        "{got:?}"
    );
}

#[test]
fn blank_lines_treated_differently_are_named_truly() {
    let stream = b"{\"a\":1}\n\n\r\n{\"type\":\"done\"}\n";
    let message = |out: &str| {
        findings(stream, out)
            .into_iter()
            .find(|e| e.rule.as_ref().is_some_and(|r| r.id == "decoder.crlf"))
            .map(|e| e.message)
            .unwrap_or_default()
    };
    // The leaks-cr mutant: skips line 2, rejects line 3. Nothing in its
    // output tells which blank line the error is about.
    let out = "{\"value\":{\"a\":1}}\n{\"error\":\"x\"}\n{\"value\":{\"type\":\"done\"}}\n{\"end\":\"complete\"}\n";
    assert_eq!(
        message(out),
        r"blank line 2 (\n) and blank line 3 (\r\n) were treated differently: one skipped, one rejected; the \r of \r\n leaked into the record"
    );
    // With a value between them, the order of the records tells.
    let stream = b"\r\n{\"a\":1}\n\n{\"type\":\"done\"}\n";
    let out = "{\"error\":\"x\"}\n{\"value\":{\"a\":1}}\n{\"value\":{\"type\":\"done\"}}\n{\"end\":\"complete\"}\n";
    let got = findings(stream, out);
    assert_eq!(
        got.iter().map(|e| e.message.as_str()).collect::<Vec<_>>(),
        [
            "line 1 (byte 0) ``: the decoder answered {\"error\":\"x\"} (a blank line is skipped or rejected: both are documented choices)",
            r"blank line 1 (\r\n) was rejected and blank line 3 (\n) skipped; the \r of \r\n leaked into the record",
        ]
    );
}

#[test]
fn a_skipped_empty_line_and_a_rejected_whitespace_line_agree() {
    // Empty lines skipped, the whitespace-only one rejected: allowed,
    // whichever blank line the alignment gives the error to.
    let stream = b"\n\r\n  \t \n{\"type\":\"done\"}\n";
    let out = "{\"error\":\"x\"}\n{\"value\":{\"type\":\"done\"}}\n{\"end\":\"complete\"}\n";
    assert_eq!(
        verdicts(stream, out),
        [(Verdict::Pass, "decoder.blank-line".to_owned())]
    );
}

#[test]
fn a_skipped_crlf_line_and_a_rejected_whitespace_line_agree() {
    // Skipping empty lines and rejecting whitespace-only ones are both
    // allowed; neither line shows a leaked \r.
    let stream = b"\n\r\n  \t \n  \t \r\n{\"type\":\"done\"}\n";
    let out = "{\"error\":\"x\"}\n{\"error\":\"x\"}\n{\"value\":{\"type\":\"done\"}}\n{\"end\":\"complete\"}\n";
    assert_eq!(
        verdicts(stream, out),
        [
            (Verdict::Pass, "decoder.blank-line".to_owned()),
            (Verdict::Pass, "decoder.blank-line".to_owned()),
        ]
    );
}

#[test]
fn a_bad_line_after_a_bom_is_rejected_plainly() {
    let done = "{\"value\":{\"type\":\"done\"}}\n{\"end\":\"complete\"}\n";
    let out = format!("{{\"error\":\"x\"}}\n{done}");
    for stream in [
        &b"\xEF\xBB\xBF{\"a\":\n{\"type\":\"done\"}\n"[..],
        b"\xEF\xBB\xBF{\"t\":\"\xFF\"}\n{\"type\":\"done\"}\n",
    ] {
        assert_eq!(verdicts(stream, &out), [], "{stream:?}");
    }
    // A good line after it: rejecting is NON-STRICT.
    let stream = b"\xEF\xBB\xBF{\"a\":1}\n{\"type\":\"done\"}\n";
    assert_eq!(
        verdicts(stream, &out),
        [(Verdict::NonStrict, "decoder.bom".to_owned())]
    );
}

#[test]
fn a_flood_of_output_is_kept_within_bounds() {
    let stream = b"{\"type\":\"done\"}\n";
    let mut out = String::new();
    for _ in 0..5000 {
        out.push_str("not json\n\n{\"value\":\"\\udcff\"}\n");
    }
    out.push_str("{\"end\":\"complete\"}\n");
    for _ in 0..5000 {
        out.push_str("{\"value\":{}}\n");
    }
    let slots = expected(stream);
    let mut reader = Output::new(4 * slots.len() + 64);
    let mut capture = Capture::new(Framing::Ndjson(
        Config::default().with_blank_lines(BlankLines::Report),
    ));
    capture.push(out.as_bytes(), Duration::ZERO, |a| reader.take(a));
    capture.finish(Duration::ZERO, |a| reader.take(a));
    let (records, received, findings) = reader.finish();
    assert_eq!(records.before.len(), 68);
    assert_eq!(records.before_count, 5000);
    assert_eq!(records.after.len(), MAX_MISMATCHES);
    assert_eq!(records.after_count, 5000);
    assert_eq!(received.len(), MAX_RECEIVED);
    assert_eq!(findings.len(), 2 * MAX_MISMATCHES + 2);
    let last: Vec<&str> = findings[2 * MAX_MISMATCHES..]
        .iter()
        .map(|e| e.message.as_str())
        .collect();
    assert_eq!(
        last,
        [
            "and 9988 more stdout lines that are not contract records",
            "and 4988 more stdout lines with lone surrogates"
        ]
    );
    let graded = grade(&slots, &records);
    assert_eq!(
        graded.last().unwrap().message,
        "stdout line 15002: 5000 more record(s) after the end record"
    );
    assert_eq!(graded.last().unwrap().actual.len(), MAX_MISMATCHES);
}

#[test]
fn the_level_caps_record_findings_only() {
    let stream = b"{\"a\":\r1}\n{\"type\":\"done\"}\n";
    // Split on the \r, and the end record wrong.
    let out = "{\"error\":\"1\"}\n{\"error\":\"2\"}\n{\"value\":{\"type\":\"done\"}}\nnot json\n{\"end\":\"interrupted\"}\n";
    let mut found = findings(stream, out);
    cap_by_level(Level::Should, &mut found);
    let got: Vec<(Verdict, String)> = found
        .into_iter()
        .map(|e| (e.verdict, e.rule.map(|r| r.id).unwrap_or_default()))
        .collect();
    assert_eq!(
        got,
        [
            (Verdict::Fail, "decoder.contract".to_owned()),
            (Verdict::NonStrict, "decoder.record".to_owned()),
            (Verdict::NonStrict, "decoder.extra-record".to_owned()),
            (Verdict::Fail, "decoder.end".to_owned()),
        ]
    );
}

#[test]
fn a_slow_start_does_not_use_up_the_timeout() {
    // Starts in 1 s, so the writer waits about that long for it to read
    // the split's first piece: longer than the timeout, which must not
    // count it.
    let target = sh(
        "sleep 1; cat >/dev/null; echo '{\"value\":{\"type\":\"done\"}}'; echo '{\"end\":\"complete\"}'",
    );
    let case = case_of(b"{\"type\":\"done\"}\n");
    let result = run_case(
        &case,
        &DecoderPlan::Split(3),
        &target,
        Duration::from_millis(800),
        &Budget::DEFAULT,
    );
    assert_eq!(result.verdict, Verdict::Pass, "{:?}", result.evidence);
    assert!(
        result.duration >= Duration::from_secs(1),
        "{:?}",
        result.duration
    );
}

#[test]
fn a_timeout_says_what_the_decoder_had_not_done() {
    let message = |script: &str, stream: &[u8]| {
        let result = run_case(
            &case_of(stream),
            &DecoderPlan::Whole,
            &sh(script),
            Duration::from_millis(300),
            &Budget::DEFAULT,
        );
        assert_eq!(result.verdict, Verdict::Timeout);
        result.evidence[0].message.clone()
    };
    // More than a pipe holds, never read.
    assert_eq!(
        message("sleep 5", &[b'\n'; 1 << 20]),
        "the decoder had not read the whole stream 300ms after the last write was due; killed"
    );
    assert_eq!(
        message("cat >/dev/null; sleep 5", b"{}\n"),
        "the decoder had not closed its stdout (the stream was written and its stdin closed) 300ms after the last write was due; killed"
    );
}

#[test]
fn dropped_split_and_wrong_end_fail() {
    let stream = b"{\"a\":\"x\xE2\x80\xA8y\"}\n{\"type\":\"text\"}\n{\"b\":";
    // Split on U+2028, tail dropped, end claims complete.
    let out = "{\"error\":\"1\"}\n{\"error\":\"2\"}\n{\"value\":{\"type\":\"text\"}}\n{\"end\":\"complete\"}\n";
    let got = verdicts(stream, out);
    assert_eq!(
        got,
        [
            (Verdict::Fail, "decoder.record".to_owned()),
            (Verdict::Fail, "decoder.extra-record".to_owned()),
            (Verdict::Fail, "decoder.unterminated".to_owned()),
            (Verdict::Fail, "decoder.end".to_owned()),
        ]
    );
}

#[test]
fn lone_surrogates_are_found_and_pairs_kept() {
    assert_eq!(
        replace_lone_surrogates(r#"{"t":"\udcff","p":"\ud83d\ude00","e":"\\udcff"}"#).unwrap(),
        r#"{"t":"\ufffd","p":"\ud83d\ude00","e":"\\udcff"}"#
    );
    assert_eq!(replace_lone_surrogates(r#"{"t":"\u00e9"}"#), None);
}

#[test]
fn numbers_compare_by_value() {
    assert!(json_eq(&serde_json::json!(1), &serde_json::json!(1.0)));
    assert!(!json_eq(&serde_json::json!(1), &serde_json::json!(2)));
    assert!(!json_eq(
        &serde_json::json!({"a": 1}),
        &serde_json::json!({"a": 1, "b": 2})
    ));
}

#[test]
fn plans_fit_the_stream() {
    let case = |stream: &[u8]| DecoderCase {
        ends: vec![stream.len() / 2, stream.len()],
        ..case_of(stream)
    };
    let names = |c: &DecoderCase| c.plans().iter().map(DecoderPlan::name).collect::<Vec<_>>();
    assert_eq!(
        names(&case(b"abcd")),
        [
            "whole",
            "coalesced",
            "bytewise",
            "split@1",
            "split@2",
            "split@3"
        ]
    );
    assert_eq!(
        names(&case(&[b'x'; 2000])),
        ["whole", "coalesced", "chunked@4093"]
    );
    let split = DecoderPlan::Split(2).writes(b"abcd", &[4]);
    assert_eq!(split[0].bytes, b"ab");
    assert_eq!(split[1].pause, SPLIT_PAUSE);
    assert_eq!(case(b"abcd").listing().plans.last().unwrap(), "split@1..3");
}

#[test]
fn case_files_load_with_pads_and_fail_with_positions() {
    let text = "[[case]]\nname = \"long\"\ntitle = \"t\"\nsection = \"s\"\nlines = ['\"$pad(5)\"', '\\x0D']\ntail = '{'\n";
    let cases = load_str(Path::new("decoder/t.toml"), text).unwrap();
    assert_eq!(cases[0].meta.id, "decoder/t/long");
    assert_eq!(cases[0].stream, b"\"xxxxx\"\n\r\n{");
    assert_eq!(cases[0].ends, [8, 10, 11]);

    let err = |text: &str| {
        load_str(Path::new("decoder/t.toml"), text)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        err("[[case]]\nname = \"x\"\ntitle = \"t\"\nsection = \"s\"\nlines = ['$pad(9']\n"),
        "decoder/t.toml:5:10: `$pad(` without its `)`"
    );
    assert_eq!(
        err("[[case]]\nname = \"x\"\ntitle = \"t\"\nsection = \"s\"\nlines = ['a\\x0Ab']\n"),
        "decoder/t.toml:5:10: a line contains `\\x0A`: give each line its own string"
    );
    assert!(
        err("[[case]]\nname = \"x\"\ntitle = \"t\"\nsection = \"s\"\nstream = 'a'\n")
            .starts_with("decoder/t.toml:5:1: unknown field `stream`")
    );
    assert!(
        err("[[case]]\nname = \"x\"\ntitle = \"t\"\nsection = \"s\"\nplans = ['crlf']\n")
            .starts_with("decoder/t.toml:5:9: unknown plan family `crlf`")
    );
}

/// An adapter in `sh`: offered pipes, it says hello and answers each
/// stream with `shared` (after reading it); on its own, with `own`.
fn pipes_adapter(shared: &str, own: &str) -> Target {
    sh(&format!(
        r#"if [ "$RPCSPEC_STREAMS" = pipes ]; then
             echo '{{"streams": "pipes"}}'
             while read -r p; do cat "$p" >/dev/null; printf '%s\n' {shared}; done
           else cat >/dev/null; printf '%s\n' {own}; fi"#
    ))
}

const DONE: &str = r#"'{"value":{"type":"done"}}' '{"end":"complete"}'"#;

/// The stream `{"type":"done"}` under `plan`, through `session`.
fn done_stream(
    session: &mut Session,
    target: &Target,
    plan: &DecoderPlan,
    timeout: Duration,
) -> CaseResult {
    let case = case_of(b"{\"type\":\"done\"}\n");
    run_case_in(
        session,
        &case,
        plan,
        target,
        timeout,
        &Budget::DEFAULT,
        &Default::default(),
    )
}

#[test]
fn a_shared_adapter_decodes_stream_after_stream() {
    let target = pipes_adapter(DONE, DONE);
    let mut session = Session::new(false);
    for plan in [
        DecoderPlan::Whole,
        DecoderPlan::Bytewise,
        DecoderPlan::Split(5),
    ] {
        let r = done_stream(&mut session, &target, &plan, Duration::from_secs(5));
        assert_eq!(r.verdict, Verdict::Pass, "{plan:?}: {:?}", r.evidence);
        // On the shared process: it did not exit.
        assert_eq!(r.exit, None, "{plan:?}");
    }
    assert!(session.sharing());
}

#[test]
fn a_stream_that_fails_on_a_shared_adapter_is_run_again_on_its_own() {
    let target = pipes_adapter(r#"'{"value":1}' '{"end":"complete"}'"#, DONE);
    let mut session = Session::new(false);
    let r = done_stream(
        &mut session,
        &target,
        &DecoderPlan::Whole,
        Duration::from_secs(5),
    );
    assert_eq!(r.verdict, Verdict::Pass, "{:?}", r.evidence);
    assert!(r.exit.is_some());
    assert!(
        r.evidence
            .iter()
            .any(|e| e.message.contains("this stream was FAIL")
                && e.message.contains("it is PASS, which is the verdict")),
        "{:?}",
        r.evidence
    );
    // It ended cleanly (its end record came): the adapter is kept.
    assert!(session.sharing());
}

#[test]
fn an_adapter_that_never_opens_its_pipe_is_given_up_after_two_streams() {
    let target = sh(
        r#"if [ "$RPCSPEC_STREAMS" = pipes ]; then echo '{"streams": "pipes"}'; exec sleep 30
           else cat >/dev/null; echo '{"value":{"type":"done"}}'; echo '{"end":"complete"}'; fi"#,
    );
    let mut session = Session::new(false);
    for _ in 0..2 {
        let r = done_stream(
            &mut session,
            &target,
            &DecoderPlan::Whole,
            Duration::from_millis(300),
        );
        assert_eq!(r.verdict, Verdict::Pass, "{:?}", r.evidence);
        assert!(
            r.evidence
                .iter()
                .any(|e| e.message.contains("this stream was TIMEOUT")),
            "{:?}",
            r.evidence
        );
    }
    assert!(!session.sharing());
    // The third goes straight to a process of its own.
    let started = Instant::now();
    let r = done_stream(
        &mut session,
        &target,
        &DecoderPlan::Whole,
        Duration::from_millis(300),
    );
    assert_eq!(
        (r.verdict, r.evidence.len()),
        (Verdict::Pass, 0),
        "{:?}",
        r.evidence
    );
    assert!(started.elapsed() < Duration::from_millis(300));
}

#[test]
fn an_adapter_without_the_hello_runs_a_process_per_stream() {
    let target = pipes_adapter(DONE, DONE);
    let plain =
        sh(r#"cat >/dev/null; echo '{"value":{"type":"done"}}'; echo '{"end":"complete"}'"#);
    assert!(startup(&target, Duration::from_secs(5)).pipes);
    assert!(!startup(&plain, Duration::from_secs(5)).pipes);
    let mut session = Session::new(false);
    let r = done_stream(
        &mut session,
        &plain,
        &DecoderPlan::Whole,
        Duration::from_secs(5),
    );
    assert_eq!(r.verdict, Verdict::Pass);
    assert!(r.exit.is_some());
}

/// The decoder's plans as written before the cutter was shared (core's
/// `plan::cut`): the oracle it must match, write for write.
fn naive_writes(plan: &DecoderPlan, stream: &[u8], ends: &[usize]) -> Vec<PlanWrite> {
    let now = |bytes: &[u8]| PlanWrite {
        pause: Duration::ZERO,
        bytes: bytes.to_vec(),
    };
    match *plan {
        DecoderPlan::Whole => {
            let mut start = 0;
            let mut out = Vec::new();
            for &end in ends {
                out.push(now(&stream[start..end]));
                start = end;
            }
            out
        }
        DecoderPlan::Coalesced => vec![now(stream)],
        DecoderPlan::Bytewise => stream.chunks(1).map(now).collect(),
        DecoderPlan::Split(k) => {
            let k = k.min(stream.len());
            let second = PlanWrite {
                pause: SPLIT_PAUSE,
                bytes: stream[k..].to_vec(),
            };
            vec![now(&stream[..k]), second]
        }
        DecoderPlan::Chunked(n) => {
            let pause = if stream.len() <= BYTEWISE_MAX {
                SPLIT_PAUSE
            } else {
                Duration::ZERO
            };
            let chunks = stream.chunks(n.max(1)).enumerate();
            chunks
                .map(|(i, c)| PlanWrite {
                    pause: if i == 0 { Duration::ZERO } else { pause },
                    bytes: c.to_vec(),
                })
                .collect()
        }
    }
}

#[test]
fn the_shared_cutter_writes_what_each_decoder_plan_wrote() {
    for len in [1usize, 2, 7, 80, 1024, 1025, 3000] {
        let stream: Vec<u8> = (0..len)
            .map(|i| if i % 9 == 8 { b'\n' } else { b'a' })
            .collect();
        let mut ends: Vec<usize> = (0..len)
            .filter(|i| stream[*i] == b'\n')
            .map(|i| i + 1)
            .collect();
        if ends.last() != Some(&len) {
            ends.push(len);
        }
        let mut plans = vec![
            DecoderPlan::Whole,
            DecoderPlan::Coalesced,
            DecoderPlan::Bytewise,
        ];
        plans.extend([0, 1, len / 2, len].map(DecoderPlan::Split));
        plans.extend([1, 3, 4093].map(DecoderPlan::Chunked));
        for plan in plans {
            assert_eq!(
                plan.writes(&stream, &ends),
                naive_writes(&plan, &stream, &ends),
                "{} on {len} bytes",
                plan.name()
            );
        }
    }
}
