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
        "an error record with a code but no message",
    ),
    (
        "buffered",
        "holds every record until stdin reaches EOF, then flushes them",
    ),
    ("no-start", "the stream begins with the first token"),
    (
        "start-without-id",
        "the start record carries no id (its metadata)",
    ),
    ("no-final-newline", "the done record has no \\n"),
    ("blank-lines", "a blank line between records"),
    ("latin1", "a token written in Latin-1, not UTF-8"),
    ("untyped", "the meta record has no type member"),
    (
        "token-without-text",
        "token records carry `content` instead of `text`",
    ),
    (
        "done-on-failure",
        "answers a bad input with done instead of error",
    ),
    ("exit-1", "exits with status 1 after done"),
    ("lingers", "does not exit after done until killed"),
    (
        "claude-reference",
        "none: the reference Claude stream-json producer",
    ),
    (
        "claude-stops-after-control",
        "asks permission, then exits without a result once answered",
    ),
    (
        "claude-no-control",
        "runs the tool without asking permission",
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
    let failed = records.iter().any(|r| r["type"] == "error");
    match name {
        "no-done" => {
            records.retain(|r| r["type"] != "done");
        }
        "after-done" => records.push(json!({"type": "token", "text": "!"})),
        "error-without-message" => {
            for r in &mut records {
                if r["type"] == "error" {
                    r.as_object_mut().expect("object").remove("message");
                }
            }
        }
        "no-start" => {
            records.remove(0);
        }
        "start-without-id" => {
            records[0].as_object_mut().expect("object").remove("id");
        }
        "untyped" => {
            for r in &mut records {
                if r["type"] == "meta" {
                    r.as_object_mut().expect("object").remove("type");
                }
            }
        }
        "token-without-text" => {
            for r in &mut records {
                if r["type"] == "token" {
                    let text = r["text"].take();
                    let m = r.as_object_mut().expect("object");
                    m.remove("text");
                    m.insert("content".into(), text);
                }
            }
        }
        "done-on-failure" if failed => {
            records.truncate(1);
            records.push(json!({"type": "done", "reason": "stop"}));
        }
        _ => {}
    }
    let mut writes: Vec<Vec<u8>> = records.iter().map(line).collect();
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
            b"{\"type\": \"token\", \"text\": \"caf\xE9 \"}\n".to_vec(),
        ),
        _ => {}
    }
    let mut out = io::stdout().lock();
    if name == "buffered" {
        // Written only when stdin ends, as a block-buffered stdout in a
        // process that reads to EOF would.
        io::copy(&mut io::stdin().lock(), &mut io::sink())?;
        out.write_all(&writes.concat())?;
        out.flush()?;
        return Ok(0);
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

/// The Claude stream-json producer, or one of its mutants.
fn claude(name: &str) -> io::Result<u8> {
    if name == "claude-reference" {
        let profile = rpcspec::producer::Profile::named("claude").map_err(io::Error::other)?;
        rpcspec::producer::serve(&profile, io::stdin().lock(), io::stdout().lock())?;
        return Ok(0);
    }
    let mut out = io::stdout().lock();
    let stdin = io::stdin();
    let mut lines = stdin.lock().lines();
    let Some(first) = lines.next().transpose()? else {
        return Ok(0);
    };
    let asks = first.contains("tool") || first.contains("Bash");
    out.write_all(&line(&json!({"type": "system", "subtype": "init",
        "session_id": "session-1", "tools": ["Bash"]})))?;
    out.flush()?;
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
