//! `rpcspec-mutant NAME`: the reference server with one realistic bug.
//!
//! Each mutant is a bug seen in real JSON-RPC servers. The self-test
//! (`tests/self_test.rs`) runs the whole suite against every mutant and
//! asserts which cases catch it: a suite that cannot fail a broken server
//! proves nothing. `rpcspec-mutant reference` is the unbroken server.

use std::{
    io::{self, Read, Write},
    process::ExitCode,
    thread,
    time::Duration,
};

use rpcspec::capture::Framing;
use rpcspec::serve::{self, INVALID_REQUEST, Input, PARSE_ERROR, error, respond};
use rpcspec_framer::{BlankLines, Config, Event, Framer, ProblemKind};
use serde_json::Value;

/// Every mutant: name and the bug it has.
const MUTANTS: &[(&str, &str)] = &[
    ("reference", "none: the reference server"),
    (
        "reference-out-of-order",
        "none: answers each line on a thread of its own after a pause of 0-7 ms, so replies come in any order",
    ),
    (
        "reference-reversed-reads",
        "none: answers the lines of each read() in reverse order, and a blank line with -32700 (JSON-RPC 2.0 orders no replies; a blank line is not JSON)",
    ),
    (
        "reference-late-parse-errors",
        "none: answers a line that is not JSON (a blank one included) with -32700 50 ms late, on a thread, and everything else at once",
    ),
    (
        "reference-nesting-limit",
        "none: correct, but refuses a line nested deeper than 100 levels with one -32700, as Python's json does past its recursion limit",
    ),
    (
        "string-id-as-number",
        "echoes a numeric string id as a number (\"1\" -> 1)",
    ),
    (
        "ids-through-f64",
        "parses number ids as doubles (9007199254740993 -> 9007199254740992)",
    ),
    (
        "replies-to-notifications",
        "answers notifications with a null result",
    ),
    (
        "null-id-as-notification",
        "treats \"id\": null as a notification and never answers it",
    ),
    (
        "result-and-error",
        "success replies also carry an error member",
    ),
    (
        "wrong-code-method-not-found",
        "answers an unknown method with -32600 instead of -32601",
    ),
    (
        "dies-on-invalid-json",
        "exits on the first line that is not JSON",
    ),
    (
        "empty-batch-as-array",
        "answers [] with an array holding the error",
    ),
    (
        "notification-batch-empty-array",
        "answers an all-notification batch with []",
    ),
    ("drops-jsonrpc", "omits \"jsonrpc\": \"2.0\" from replies"),
    (
        "chunk-as-message",
        "parses each read() chunk as one message instead of framing lines",
    ),
    (
        "rejects-crlf",
        "answers a \\r\\n-terminated line with -32700",
    ),
    ("pretty-prints", "pretty-prints replies over several lines"),
    ("logs-to-stdout", "writes a log line to stdout at start-up"),
    (
        "no-flush",
        "block-buffers stdout: replies only arrive at exit",
    ),
    (
        "drops-coalesced",
        "answers only the first of the lines that arrive in one read",
    ),
    (
        "ignores-unknown-methods",
        "never answers a request for a method it does not have",
    ),
];

fn main() -> ExitCode {
    let name = std::env::args().nth(1).unwrap_or_default();
    if !MUTANTS.iter().any(|(n, _)| *n == name) {
        eprintln!("usage: rpcspec-mutant NAME\n\nmutants:");
        for (n, bug) in MUTANTS {
            eprintln!("  {n:<32} {bug}");
        }
        return ExitCode::from(2);
    }
    // Stdout unlocked: `reference-out-of-order` writes from threads.
    match serve_as(&name, io::stdin().lock(), io::stdout()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rpcspec-mutant: {e}");
            ExitCode::FAILURE
        }
    }
}

fn serve_as(name: &str, input: impl Read, mut output: impl Write) -> io::Result<()> {
    let config = Config::default();
    match name {
        "reference" => serve::run(input, output),
        "reference-nesting-limit" => serve::run_with(
            input,
            output,
            Framing::Ndjson(config.clone()),
            |input| match input {
                Input::Line(line) if nesting(line) > 100 => Some(error(PARSE_ERROR, "null")),
                other => reference(other),
            },
        ),
        "reference-out-of-order" => serve_out_of_order(input),
        "reference-reversed-reads" => serve_reads(input, output, |replies| replies.reverse()),
        "reference-late-parse-errors" => serve_late_parse_errors(input, output),
        "drops-coalesced" => serve_first_of_each_read(input, output, config),
        "chunk-as-message" => serve_reads_as_messages(input, output),
        "no-flush" => {
            let mut replies = Vec::new();
            serve::run(input, &mut replies)?;
            output.write_all(&replies)?;
            output.flush()
        }
        "logs-to-stdout" => {
            writeln!(output, "mutant server listening on stdio")?;
            serve::run(input, output)
        }
        "rejects-crlf" => serve::run_with(
            input,
            output,
            Framing::Ndjson(config.with_strip_cr(false)),
            |input| match input {
                Input::Line(line) if line.ends_with('\r') => Some(error(PARSE_ERROR, "null")),
                other => reference(other),
            },
        ),
        "dies-on-invalid-json" => serve::run_with(
            input,
            output,
            Framing::Ndjson(config.clone()),
            |input| match input {
                Input::Line(line) if serde_json::from_str::<Value>(line).is_ok() => respond(line),
                _ => std::process::exit(1),
            },
        ),
        other => serve::run_with(input, output, Framing::Ndjson(config.clone()), |input| {
            let Input::Line(line) = input else {
                return reference(input);
            };
            mutate(other, line, respond(line))
        }),
    }
}

/// `reference-out-of-order`: the reference's replies, each written from a
/// thread of its own after a pause of 0-7 ms.
fn serve_out_of_order(input: impl Read) -> io::Result<()> {
    let mut workers = Vec::new();
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    serve::run_with(
        input,
        io::sink(),
        Framing::Ndjson(Config::default()),
        |input| {
            let reply = reference(input)?;
            // xorshift: a pause of 0-7 ms per reply.
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let pause = Duration::from_millis(state % 8);
            workers.push(thread::spawn(move || {
                thread::sleep(pause);
                let mut out = io::stdout().lock();
                let _ = writeln!(out, "{reply}").and_then(|()| out.flush());
            }));
            None
        },
    )?;
    for w in workers {
        let _ = w.join();
    }
    Ok(())
}

/// `reference-late-parse-errors`: each read's replies, its -32700 errors
/// held back 50 ms.
fn serve_late_parse_errors(input: impl Read, output: impl Write) -> io::Result<()> {
    let mut late = Vec::new();
    serve_reads(input, output, |replies| {
        let (errors, rest) = replies.drain(..).partition(|r| r.contains("-32700"));
        *replies = rest;
        for reply in errors {
            // Stdout unlocked, as main gives it: a line per write.
            late.push(thread::spawn(move || {
                thread::sleep(Duration::from_millis(50));
                let mut out = io::stdout();
                let _ = writeln!(out, "{reply}").and_then(|()| out.flush());
            }));
        }
    })?;
    for t in late {
        let _ = t.join();
    }
    Ok(())
}

/// `drops-coalesced`: answers only the first message of each read().
fn serve_first_of_each_read(
    mut input: impl Read,
    mut output: impl Write,
    config: Config,
) -> io::Result<()> {
    let mut framer = Framer::new(config);
    let mut buf = vec![0; 64 * 1024];
    loop {
        let n = input.read(&mut buf)?;
        if n == 0 {
            return Ok(());
        }
        let mut first = None;
        framer.push(&buf[..n], |e| {
            if first.is_none() {
                first = Some(e.into_owned());
            }
        });
        let reply = first.and_then(|e| match &e {
            Event::Line(line) => match line.as_str() {
                Ok(text) => respond(text),
                Err(_) => Some(error(PARSE_ERROR, "null")),
            },
            Event::Problem(_) => Some(error(PARSE_ERROR, "null")),
        });
        if let Some(reply) = reply {
            writeln!(output, "{reply}")?;
            output.flush()?;
        }
    }
}

/// `chunk-as-message`: takes each read() for one whole message.
fn serve_reads_as_messages(mut input: impl Read, mut output: impl Write) -> io::Result<()> {
    let mut buf = vec![0; 64 * 1024];
    loop {
        let n = input.read(&mut buf)?;
        if n == 0 {
            return Ok(());
        }
        let text = String::from_utf8_lossy(&buf[..n]);
        if let Some(reply) = respond(text.trim()) {
            writeln!(output, "{reply}")?;
            output.flush()?;
        }
    }
}

/// Serves each read() of `input` at once: its lines (a blank one answered
/// with -32700, as a line that is not JSON) are answered by the
/// reference, then `order` may reorder or take the replies before they
/// are written.
fn serve_reads(
    mut input: impl Read,
    mut output: impl Write,
    mut order: impl FnMut(&mut Vec<String>),
) -> io::Result<()> {
    let mut framer = Framer::new(Config::default().with_blank_lines(BlankLines::Report));
    let mut buf = vec![0; 64 * 1024];
    let mut replies = Vec::new();
    let answer = |e: Event<'_>, replies: &mut Vec<String>| {
        let input = match &e {
            Event::Line(line) => match line.as_str() {
                Ok(text) => Input::Line(text),
                Err(_) => Input::Unreadable,
            },
            Event::Problem(p) if matches!(p.kind, ProblemKind::Truncated) => {
                match std::str::from_utf8(&p.bytes) {
                    Ok(text) => Input::Line(text),
                    Err(_) => Input::Unreadable,
                }
            }
            Event::Problem(p) if matches!(p.kind, ProblemKind::Bom) => return,
            // A blank line, invalid UTF-8, a line too long to keep.
            Event::Problem(_) => Input::Unreadable,
        };
        replies.extend(reference(input));
    };
    loop {
        let n = input.read(&mut buf)?;
        if n == 0 {
            framer.finish(|e| answer(e, &mut replies));
        } else {
            framer.push(&buf[..n], |e| answer(e, &mut replies));
        }
        order(&mut replies);
        for reply in replies.drain(..) {
            writeln!(output, "{reply}")?;
        }
        output.flush()?;
        if n == 0 {
            return Ok(());
        }
    }
}

/// How deep `text` nests, counting brackets outside strings.
fn nesting(text: &str) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0, false, false);
    for b in text.bytes() {
        match (in_string, escaped, b) {
            (true, true, _) => escaped = false,
            (true, false, b'\\') => escaped = true,
            (true, false, b'"') => in_string = false,
            (true, ..) => {}
            (false, _, b'"') => in_string = true,
            (false, _, b'[' | b'{') => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            (false, _, b']' | b'}') => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

fn reference(input: Input<'_>) -> Option<String> {
    match input {
        Input::Line(line) => respond(line),
        Input::Unreadable => Some(error(PARSE_ERROR, "null")),
    }
}

/// The mutants that change what the reference answers to one line.
fn mutate(name: &str, line: &str, reply: Option<String>) -> Option<String> {
    let parsed = serde_json::from_str::<Value>(line).ok();
    match name {
        "string-id-as-number" => reply.map(|r| {
            rewrite_ids(&r, |id| match id {
                Value::String(s) if s.parse::<i64>().is_ok() => {
                    Value::Number(s.parse::<i64>().unwrap().into())
                }
                other => other.clone(),
            })
        }),
        // As JavaScript would: every number through a double.
        "ids-through-f64" => reply.map(|r| {
            rewrite_ids(&r, |id| match id.as_f64() {
                Some(f) if id.is_number() && f.fract() == 0.0 && f.abs() < 9.2e18 => {
                    Value::from(f as i64)
                }
                Some(f) if id.is_number() => {
                    serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)
                }
                _ => id.clone(),
            })
        }),
        "replies-to-notifications" => match (&reply, &parsed) {
            (None, Some(Value::Object(m))) if m.contains_key("method") => {
                Some(r#"{"jsonrpc":"2.0","result":null,"id":null}"#.to_owned())
            }
            _ => reply,
        },
        "null-id-as-notification" => match &parsed {
            Some(Value::Object(m))
                if m.get("id") == Some(&Value::Null) && m.contains_key("method") =>
            {
                None
            }
            _ => reply,
        },
        "result-and-error" => reply.map(|r| {
            r.replace(
                r#""result":"#,
                r#""error":{"code":-32603,"message":"Internal error"},"result":"#,
            )
        }),
        "wrong-code-method-not-found" => reply.map(|r| {
            r.replace(
                r#"-32601,"message":"Method not found""#,
                r#"-32600,"message":"Invalid Request""#,
            )
        }),
        "empty-batch-as-array" => match &parsed {
            Some(Value::Array(a)) if a.is_empty() => {
                Some(format!("[{}]", error(INVALID_REQUEST, "null")))
            }
            _ => reply,
        },
        "notification-batch-empty-array" => match (&reply, &parsed) {
            (None, Some(Value::Array(_))) => Some("[]".to_owned()),
            _ => reply,
        },
        "drops-jsonrpc" => reply.map(|r| r.replace(r#""jsonrpc":"2.0","#, "")),
        "ignores-unknown-methods" => reply.filter(|r| !r.contains(r#""code":-32601"#)),
        "pretty-prints" => reply.map(|r| {
            let value: Value = serde_json::from_str(&r).expect("the reference writes JSON");
            serde_json::to_string_pretty(&value).expect("a Value serialises")
        }),
        _ => unreachable!("every mutant is matched in serve_as or here: {name}"),
    }
}

/// Applies `f` to the `id` of a reply, or of each member of a batch reply.
fn rewrite_ids(reply: &str, f: impl Fn(&Value) -> Value) -> String {
    let mut value: Value = serde_json::from_str(reply).expect("the reference writes JSON");
    let members: Vec<&mut Value> = match &mut value {
        Value::Array(a) => a.iter_mut().collect(),
        one => vec![one],
    };
    for m in members {
        if let Some(id) = m.get_mut("id") {
            *id = f(id);
        }
    }
    value.to_string()
}
