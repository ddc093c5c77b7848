//! `rpcspec-mutant-producer NAME`: the reference event-stream producer with
//! one realistic bug. `tests/producer_self_test.rs` runs every producer
//! check against each and asserts which checks catch it.

use std::{
    io::{self, BufRead, Write},
    process::ExitCode,
    thread,
    time::Duration,
};

use rpcspec::producer::reference_records;
use serde_json::{Value, json};

/// Every mutant: name and the bug it has.
const MUTANTS: &[(&str, &str)] = &[
    ("reference", "none: the reference events producer"),
    (
        "reference-slow",
        "none: the reference, pausing 1.8 s after its start record, as a slow model does",
    ),
    ("no-done", "stops after the last token: no done record"),
    ("after-done", "writes one more token after done"),
    ("meta-after-done", "writes its meta record after done"),
    (
        "pretty",
        "pretty-prints the start record over several lines",
    ),
    (
        "log-line",
        "logs `INFO model loaded` to stdout before the stream",
    ),
    (
        "error-without-message",
        "an error record whose data has a code but no message",
    ),
    (
        "buffered",
        "holds every record until stdin reaches EOF, then flushes them",
    ),
    (
        "buffered-at-exit",
        "makes its records 25 ms apart but writes them in one piece as it exits (a block-buffered stdout)",
    ),
    ("no-start", "the stream begins with the first token"),
    (
        "second-start",
        "a second start record after the first token",
    ),
    (
        "start-without-id",
        "the start record's data carries no request_id",
    ),
    ("no-final-newline", "the done record has no \\n"),
    ("blank-lines", "a blank line between records"),
    ("latin1", "a token written in Latin-1, not UTF-8"),
    ("untyped", "the meta record has no type member"),
    (
        "token-without-content",
        "token records carry a flat `text` instead of `data.content`",
    ),
    (
        "token-content-number",
        "a token's `data.content` is a number, not a string",
    ),
    (
        "flat",
        "wave 1's flat records: `{\"type\": \"start\", \"id\": …}`, no `data`",
    ),
    (
        "done-on-failure",
        "answers a request without a prompt with done instead of error",
    ),
    ("exit-1", "exits with status 1 after done"),
    ("lingers", "does not exit after done until killed"),
    (
        "correct-plain",
        "none: written from the protocol, with `metadata` on every record",
    ),
    (
        "correct-error-end",
        "none: start, a token, then an error record, and exit status 1",
    ),
    (
        "correct-odd-chunks",
        "none: records cut into 7-byte writes, and two records in one write",
    ),
    ("correct-crlf", "none: every record ends with \\r\\n"),
    (
        "correct-u2028",
        "none: raw U+2028 and U+2029 inside token strings",
    ),
    (
        "correct-stderr",
        "none: logs a line to stderr before each record",
    ),
    (
        "correct-cold-start",
        "none: takes 1.2 s to start, then streams at once",
    ),
    (
        "claude-reference",
        "none: the reference Claude stream-json producer",
    ),
    (
        "claude-not-logged-in",
        "none: Claude Code without a login: init, a result with is_error, exit status 1",
    ),
    (
        "claude-stops-after-control",
        "asks permission, then exits without a result once answered",
    ),
    (
        "claude-no-control",
        "runs the tool without asking permission",
    ),
    (
        "claude-control-silent",
        "answers no control request the host sends",
    ),
    (
        "claude-control-twice",
        "answers each control request the host sends twice",
    ),
    (
        "claude-control-bad-shape",
        "answers with `response.subtype` \"ok\"",
    ),
    (
        "claude-control-serves-anything",
        "answers a subtype it does not serve with success",
    ),
    (
        "claude-control-answers-everything",
        "answers keep_alive, cancels and records of unknown types too",
    ),
    (
        "claude-control-dies-on-malformed",
        "exits 1 on a control request without `request`, as Claude Code 2.1.197 does",
    ),
];

fn main() -> ExitCode {
    let name = std::env::args().nth(1).unwrap_or_default();
    if !MUTANTS.iter().any(|(n, _)| *n == name) {
        eprintln!("usage: rpcspec-mutant-producer NAME\n\nmutants:");
        for (n, bug) in MUTANTS {
            eprintln!("  {n:<28} {bug}");
        }
        return ExitCode::from(2);
    }
    let result = if name.starts_with("claude-") {
        claude(&name)
    } else if let Some(kind) = name.strip_prefix("correct-") {
        correct(kind)
    } else {
        events(&name)
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rpcspec-mutant-producer: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A record's `data` object.
fn data(record: &mut Value) -> &mut serde_json::Map<String, Value> {
    record["data"].as_object_mut().expect("a data object")
}

fn line(v: &Value) -> Vec<u8> {
    let mut l = serde_json::to_vec(v).expect("serialises");
    l.push(b'\n');
    l
}

/// The events producer: one input line in, one stream out.
fn events(name: &str) -> io::Result<u8> {
    let stdin = io::stdin();
    let mut input = String::new();
    let got = stdin.lock().read_line(&mut input)?;
    let input = (got > 0).then(|| input.trim_end_matches(['\n', '\r']).to_owned());
    let mut records = reference_records(input.as_deref());
    break_records(name, &mut records);
    let mut writes: Vec<Vec<u8>> = records.iter().map(line).collect();
    break_lines(name, &records, &mut writes);
    write_stream(name, &writes)?;
    match name {
        "exit-1" => Ok(1),
        "lingers" => {
            // Ignores the closed stdin; only a kill ends it.
            thread::sleep(Duration::from_secs(60));
            Ok(0)
        }
        _ => Ok(0),
    }
}

/// The mutant `name`'s change to the records of the reference stream.
fn break_records(name: &str, records: &mut Vec<Value>) {
    let failed = records.iter().any(|r| r["type"] == "error");
    match name {
        "no-done" => {
            records.retain(|r| r["type"] != "done");
        }
        "after-done" => records.push(json!({"type": "token", "data": {"content": "!"}})),
        "meta-after-done" => {
            let meta = records.iter().position(|r| r["type"] == "meta");
            if let Some(i) = meta {
                let meta = records.remove(i);
                records.push(meta);
            }
        }
        "error-without-message" => {
            for r in records.iter_mut() {
                if r["type"] == "error" {
                    data(r).remove("message");
                }
            }
        }
        "no-start" => {
            records.remove(0);
        }
        "second-start" => {
            let again = records[0].clone();
            records.insert(2.min(records.len()), again);
        }
        "start-without-id" => {
            data(&mut records[0]).remove("request_id");
        }
        "untyped" => {
            for r in records.iter_mut() {
                if r["type"] == "meta" {
                    r.as_object_mut().expect("object").remove("type");
                }
            }
        }
        "token-without-content" => {
            for r in records.iter_mut() {
                if r["type"] == "token" {
                    let text = r["data"]["content"].take();
                    *r = json!({"type": "token", "text": text});
                }
            }
        }
        "token-content-number" => {
            if let Some(r) = records.iter_mut().find(|r| r["type"] == "token") {
                data(r).insert("content".into(), json!(42));
            }
        }
        "flat" => {
            for r in records.iter_mut() {
                let d = r["data"].take();
                *r = match r["type"].as_str().unwrap_or_default() {
                    "start" => json!({"type": "start", "id": d["request_id"]}),
                    "token" => json!({"type": "token", "text": d["content"]}),
                    "error" => json!({"type": "error", "code": d["code"], "message": d["message"]}),
                    "meta" => json!({"type": "meta", "data": {"tokens": d["total_tokens"]}}),
                    other => json!({"type": other}),
                };
            }
        }
        "done-on-failure" if failed => {
            records.truncate(1);
            records.push(json!({"type": "done"}));
        }
        _ => {}
    }
}

/// The mutant `name`'s change to the lines the records are written as.
fn break_lines(name: &str, records: &[Value], writes: &mut Vec<Vec<u8>>) {
    match name {
        "pretty" => {
            let mut pretty = serde_json::to_vec_pretty(&records[0]).expect("serialises");
            pretty.push(b'\n');
            writes[0] = pretty;
        }
        "log-line" => writes.insert(0, b"INFO model loaded\n".to_vec()),
        "no-final-newline" => {
            if let Some(last) = writes.last_mut() {
                last.pop();
            }
        }
        "blank-lines" => writes.insert(1, b"\n".to_vec()),
        "latin1" if writes.len() > 2 => writes.insert(
            1,
            b"{\"type\": \"token\", \"data\": {\"content\": \"caf\xE9 \"}}\n".to_vec(),
        ),
        _ => {}
    }
}

/// Writes the stream's lines to stdout, a record at a time (1 ms apart),
/// or as the mutant `name` buffers or delays them.
fn write_stream(name: &str, writes: &[Vec<u8>]) -> io::Result<()> {
    let mut out = io::stdout().lock();
    if name == "buffered" {
        // Written only when stdin ends, as a block-buffered stdout in a
        // process that reads to EOF would.
        io::copy(&mut io::stdin().lock(), &mut io::sink())?;
        out.write_all(&writes.concat())?;
        out.flush()?;
        return Ok(());
    }
    if name == "buffered-at-exit" {
        // Each record made 25 ms after the last, all kept in the buffer
        // until the process ends, as Python's print to a pipe does.
        let mut held = Vec::new();
        for w in writes {
            thread::sleep(Duration::from_millis(25));
            held.extend_from_slice(w);
        }
        out.write_all(&held)?;
        out.flush()?;
        return Ok(());
    }
    for (i, w) in writes.iter().enumerate() {
        if i > 0 {
            let pause = if name == "reference-slow" && i == 1 {
                1800
            } else {
                1
            };
            thread::sleep(Duration::from_millis(pause));
        }
        out.write_all(w)?;
        out.flush()?;
    }
    Ok(())
}

/// A producer written from the protocol's text alone, not from the
/// reference: correct, each in an unusual way (`kind`).
fn correct(kind: &str) -> io::Result<u8> {
    let mut input = String::new();
    io::stdin().lock().read_line(&mut input)?;
    let prompt = serde_json::from_str::<Value>(input.trim_end())
        .ok()
        .and_then(|v| v.get("prompt")?.as_str().map(str::to_owned))
        .unwrap_or_else(|| "hello".to_owned());
    if kind == "cold-start" {
        thread::sleep(Duration::from_millis(1200));
    }
    let mut records = vec![json!({"type": "start",
        "data": {"request_id": "r-42", "model": "fixture-1"}})];
    // A few characters a token, as a model streams them.
    let chars: Vec<char> = prompt.chars().collect();
    for piece in chars.chunks(4) {
        records
            .push(json!({"type": "token", "data": {"content": piece.iter().collect::<String>()}}));
    }
    if kind == "u2028" {
        records.push(json!({"type": "token", "data": {"content": "line\u{2028}break\u{2029}end"}}));
    }
    let failed = kind == "error-end";
    if failed {
        records.truncate(2);
        records.push(json!({"type": "error",
            "data": {"code": "UPSTREAM_TIMEOUT", "message": "the model did not answer in time"}}));
    } else {
        records.push(json!({"type": "meta",
            "data": {"total_tokens": records.len() - 1, "finish_reason": "stop"}}));
        records.push(json!({"type": "done"}));
    }
    if kind == "plain" {
        for r in &mut records {
            r["metadata"] = json!({"request_id": "r-42", "model": "fixture-1"});
        }
    }
    let ending: &[u8] = if kind == "crlf" { b"\r\n" } else { b"\n" };
    let lines: Vec<Vec<u8>> = records
        .iter()
        .map(|r| {
            [
                serde_json::to_vec(r).expect("serialises").as_slice(),
                ending,
            ]
            .concat()
        })
        .collect();
    let mut out = io::stdout().lock();
    if kind == "odd-chunks" {
        // Writes of 7, 1, 13 and 64 bytes in turn: records cut anywhere,
        // and the 64-byte writes carry the end of one and the next.
        let bytes = lines.concat();
        let mut at = 0;
        for size in [7, 1, 13, 64].into_iter().cycle() {
            if at >= bytes.len() {
                break;
            }
            let end = (at + size).min(bytes.len());
            out.write_all(&bytes[at..end])?;
            out.flush()?;
            at = end;
            thread::sleep(Duration::from_millis(1));
        }
    } else {
        for (i, l) in lines.iter().enumerate() {
            if kind == "stderr" {
                eprintln!("fixture: writing record {i}");
            }
            out.write_all(l)?;
            out.flush()?;
            // A slow starter then streams as a model does, its records
            // apart in time: reads see them apart even on a loaded machine
            // (1 ms apart, a CI run's load once merged them into one read
            // at exit, which is what a block-buffered stdout looks like).
            let gap = if kind == "cold-start" { 20 } else { 1 };
            thread::sleep(Duration::from_millis(gap));
        }
    }
    Ok(if failed { 1 } else { 0 })
}

/// The Claude stream-json producer, or one of its mutants.
fn claude(name: &str) -> io::Result<u8> {
    if name == "claude-reference" {
        let profile = rpcspec::producer::Profile::named("claude").map_err(io::Error::other)?;
        let ask = std::env::args().any(|a| a == "--permission-prompt-tool");
        rpcspec::producer::serve(&profile, ask, io::stdin().lock(), io::stdout().lock())?;
        return Ok(0);
    }
    if let Some(how) = name.strip_prefix("claude-control-") {
        let ask = std::env::args().any(|a| a == "--permission-prompt-tool");
        let mut answer = |line: &serde_json::Value| control(how, line);
        rpcspec::producer::serve_claude(ask, io::stdin().lock(), io::stdout().lock(), &mut answer)?;
        return Ok(0);
    }
    let mut out = io::stdout().lock();
    let stdin = io::stdin();
    let mut lines = stdin.lock().lines();
    // What comes before the turn (an SDK's control requests) is answered
    // as the reference answers it: these mutants' bugs are in the turn.
    let first = loop {
        let Some(text) = lines.next().transpose()? else {
            return Ok(0);
        };
        let value: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        if value.get("type") == Some(&json!("user")) {
            break text;
        }
        for answer in rpcspec::producer::claude_answer(&value) {
            out.write_all(&line(&answer))?;
        }
        out.flush()?;
    };
    let asks = first.contains("tool") || first.contains("Bash");
    out.write_all(&line(&json!({"type": "system", "subtype": "init",
        "session_id": "session-1", "tools": ["Bash"]})))?;
    out.flush()?;
    if name == "claude-not-logged-in" {
        let text = "Not logged in · Please run /login";
        out.write_all(&line(
            &json!({"type": "assistant", "message": {"role": "assistant",
            "content": [{"type": "text", "text": text}]}, "session_id": "session-1"}),
        ))?;
        out.write_all(&line(
            &json!({"type": "result", "subtype": "success", "is_error": true,
            "result": text, "session_id": "session-1"}),
        ))?;
        out.flush()?;
        return Ok(1);
    }
    if asks && name == "claude-stops-after-control" {
        out.write_all(&line(&json!({"type": "control_request", "request_id": "req_1_a1",
            "request": {"subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": "ls"}}})))?;
        out.flush()?;
        // Reads the answer, then gives up.
        let _ = lines.next();
        return Ok(0);
    }
    out.write_all(&line(
        &json!({"type": "assistant", "message": {"role": "assistant",
        "content": [{"type": "text", "text": "Ran it."}]}, "session_id": "session-1"}),
    ))?;
    out.write_all(&line(
        &json!({"type": "result", "subtype": "success", "is_error": false,
        "result": "Ran it.", "session_id": "session-1"}),
    ))?;
    out.flush()?;
    // Waits for the next turn that never comes, until stdin closes.
    for l in lines {
        l?;
    }
    Ok(0)
}

/// A control mutant's answer to a line that is not a user turn: the
/// reference's, but for its bug.
fn control(how: &str, line: &serde_json::Value) -> Vec<serde_json::Value> {
    let mut answers = rpcspec::producer::claude_answer(line);
    match how {
        "silent" => answers.clear(),
        "twice" => answers.extend(answers.clone()),
        "bad-shape" => {
            for a in &mut answers {
                a["response"]["subtype"] = json!("ok");
            }
        }
        "serves-anything" => {
            for a in &mut answers {
                if a["response"]["subtype"] == "error" {
                    a["response"] = json!({"subtype": "success",
                        "request_id": a["response"]["request_id"].clone()});
                }
            }
        }
        "answers-everything" if answers.is_empty() => {
            let id = line.get("request_id").cloned().unwrap_or(json!("req_0"));
            answers.push(json!({"type": "control_response",
                "response": {"subtype": "success", "request_id": id}}));
        }
        "dies-on-malformed"
            if line.get("type") == Some(&json!("control_request"))
                && line.pointer("/request/subtype").is_none() =>
        {
            eprintln!(
                "Error parsing streaming input line: {line}: TypeError: undefined is not an object (evaluating 'e.request.subtype')"
            );
            std::process::exit(1);
        }
        _ => {}
    }
    answers
}
