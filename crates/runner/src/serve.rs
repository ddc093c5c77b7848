//! `rpcspec serve`: the reference JSON-RPC 2.0 server over stdio NDJSON.
//!
//! It implements the methods the specification's examples (§7) assume:
//! `subtract` (by position and by name), `sum`, `get_data`, and the
//! notifications `update`, `notify_hello`, `notify_sum`; `foobar` and
//! `foo.get` do not exist. Framing is the reference framer's; what is a
//! request, a notification or an invalid request is the matcher's
//! classification, so the server and the oracle read the spec the same way.

use std::io::{self, Read, Write};

use rpcspec_framer::read::read_chunk;
use rpcspec_framer::{Config, Event, Framer, ProblemKind};
use rpcspec_matcher::{Dialect, Kind, classify};
use serde::Deserialize;
use serde_json::{Number, Value, value::RawValue};

/// `-32700`: invalid JSON.
pub const PARSE_ERROR: i64 = -32700;
/// `-32600`: not a valid Request object.
pub const INVALID_REQUEST: i64 = -32600;
/// `-32601`: no such method.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// `-32602`: invalid method parameters.
pub const INVALID_PARAMS: i64 = -32602;

/// The reply to one line, without its `\n`; `None` when nothing is
/// returned (notifications, all-notification batches, stray responses).
pub fn respond(line: &str) -> Option<String> {
    let Ok(raw) = serde_json::from_str::<&RawValue>(line) else {
        return Some(error(PARSE_ERROR, "null"));
    };
    if raw.get().starts_with('[') {
        let members: Vec<&RawValue> = serde_json::from_str(raw.get()).expect("an array");
        if members.is_empty() {
            return Some(error(INVALID_REQUEST, "null"));
        }
        let replies: Vec<String> = members
            .iter()
            .filter_map(|m| respond_one(m.get()))
            .collect();
        // "Nothing is returned for all notification batches" - not even [].
        return (!replies.is_empty()).then(|| format!("[{}]", replies.join(",")));
    }
    respond_one(raw.get())
}

/// The reply to one request object (a whole message or a batch member).
fn respond_one(text: &str) -> Option<String> {
    if text.starts_with('[') {
        // A batch inside a batch is not a Request object.
        return Some(error(INVALID_REQUEST, "null"));
    }
    match classify(text, &Dialect::Jsonrpc2).kind {
        Kind::Request { id, method } => Some(match call(&method, params(text)) {
            Ok(value) => format!(r#"{{"jsonrpc":"2.0","result":{value},"id":{}}}"#, id.raw()),
            Err(code) => error(code, id.raw()),
        }),
        Kind::Notification { method } => {
            // Run it for its effects; a notification is never answered,
            // whatever went wrong.
            let _ = call(&method, params(text));
            None
        }
        // The id is echoed when it could be read, else null (§5).
        Kind::Invalid { id, .. } => Some(error(
            INVALID_REQUEST,
            id.as_ref().map_or("null", |id| id.raw()),
        )),
        // Responses to requests this server never sends: nothing to say.
        _ => None,
    }
}

fn params(text: &str) -> Option<Value> {
    #[derive(Deserialize)]
    struct Params {
        params: Option<Value>,
    }
    serde_json::from_str::<Params>(text).ok()?.params
}

/// Runs a method: its result, or an error code.
fn call(method: &str, params: Option<Value>) -> Result<Value, i64> {
    match method {
        "subtract" => {
            let (minuend, subtrahend) = match &params {
                Some(Value::Array(p)) if p.len() == 2 => (&p[0], &p[1]),
                Some(Value::Object(p)) if p.len() == 2 => (
                    p.get("minuend").ok_or(INVALID_PARAMS)?,
                    p.get("subtrahend").ok_or(INVALID_PARAMS)?,
                ),
                _ => return Err(INVALID_PARAMS),
            };
            arithmetic(minuend, subtrahend, i64::checked_sub, |a, b| a - b)
        }
        "sum" => match params {
            Some(Value::Array(terms)) => terms.iter().try_fold(Value::from(0), |acc, term| {
                arithmetic(&acc, term, i64::checked_add, |a, b| a + b)
            }),
            _ => Err(INVALID_PARAMS),
        },
        "get_data" => Ok(serde_json::json!(["hello", 5])),
        "update" | "notify_hello" | "notify_sum" => Ok(Value::Null),
        _ => Err(METHOD_NOT_FOUND),
    }
}

fn arithmetic(
    a: &Value,
    b: &Value,
    int: fn(i64, i64) -> Option<i64>,
    float: fn(f64, f64) -> f64,
) -> Result<Value, i64> {
    let (Value::Number(a), Value::Number(b)) = (a, b) else {
        return Err(INVALID_PARAMS);
    };
    if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64())
        && let Some(r) = int(x, y)
    {
        return Ok(Value::from(r));
    }
    let (x, y) = (
        a.as_f64().ok_or(INVALID_PARAMS)?,
        b.as_f64().ok_or(INVALID_PARAMS)?,
    );
    Number::from_f64(float(x, y))
        .map(Value::Number)
        .ok_or(INVALID_PARAMS)
}

/// An error reply with the spec's message for `code` and the id's raw text.
pub fn error(code: i64, id: &str) -> String {
    let message = match code {
        PARSE_ERROR => "Parse error",
        INVALID_REQUEST => "Invalid Request",
        METHOD_NOT_FOUND => "Method not found",
        INVALID_PARAMS => "Invalid params",
        _ => "Internal error",
    };
    format!(r#"{{"jsonrpc":"2.0","error":{{"code":{code},"message":"{message}"}},"id":{id}}}"#)
}

/// What the server read: a line of text, or bytes that cannot be one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input<'a> {
    /// A complete line (or an unterminated last line at end of input).
    Line(&'a str),
    /// A line that is not UTF-8, or too long to keep: unparseable.
    Unreadable,
}

/// Serves `input` until it ends, with the reference behaviour.
pub fn run(input: impl Read, output: impl Write) -> io::Result<()> {
    run_with(input, output, Config::default(), |input| match input {
        Input::Line(line) => respond(line),
        Input::Unreadable => Some(error(PARSE_ERROR, "null")),
    })
}

/// The serving loop: frames `input` with `config`, asks `reply` for the
/// answer to each line, writes each answer as one line, and flushes after
/// every chunk read. Never stops on a bad line; returns at end of input.
pub fn run_with(
    mut input: impl Read,
    mut output: impl Write,
    config: Config,
    mut reply: impl FnMut(Input<'_>) -> Option<String>,
) -> io::Result<()> {
    let mut framer = Framer::new(config);
    let mut buf = vec![0; 64 * 1024];
    let mut out = Vec::new();
    let mut answer = |event: Event<'_>, out: &mut Vec<u8>| {
        let input = match &event {
            Event::Line(line) => match line.as_str() {
                Ok(text) => Input::Line(text),
                Err(_) => Input::Unreadable,
            },
            Event::Problem(p) => match p.kind {
                // Be lenient in what we accept: a last line without its
                // newline is still answered.
                ProblemKind::Truncated => match std::str::from_utf8(&p.bytes) {
                    Ok(text) => Input::Line(text),
                    Err(_) => Input::Unreadable,
                },
                ProblemKind::InvalidUtf8 { .. } | ProblemKind::Overlong { .. } => Input::Unreadable,
                _ => return,
            },
        };
        if let Some(text) = reply(input) {
            out.extend_from_slice(text.as_bytes());
            out.push(b'\n');
        }
    };
    loop {
        let n = read_chunk(&mut input, &mut buf)?;
        if n == 0 {
            break;
        }
        framer.push(&buf[..n], |e| answer(e, &mut out));
        if !out.is_empty() {
            output.write_all(&out)?;
            output.flush()?;
            out.clear();
        }
    }
    framer.finish(|e| answer(e, &mut out));
    output.write_all(&out)?;
    output.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(request: &str, reply: Option<&str>) {
        assert_eq!(respond(request).as_deref(), reply, "{request}");
    }

    #[test]
    fn the_specification_examples() {
        check(
            r#"{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}"#,
            Some(r#"{"jsonrpc":"2.0","result":19,"id":1}"#),
        );
        check(
            r#"{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 3}"#,
            Some(r#"{"jsonrpc":"2.0","result":19,"id":3}"#),
        );
        check(
            r#"{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}"#,
            None,
        );
        check(
            r#"{"jsonrpc": "2.0", "method": "foobar", "id": "1"}"#,
            Some(
                r#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"1"}"#,
            ),
        );
        check(
            r#"{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]"#,
            Some(r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#),
        );
        check(
            r#"{"jsonrpc": "2.0", "method": 1, "params": "bar"}"#,
            Some(
                r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}"#,
            ),
        );
        check(
            "[]",
            Some(
                r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}"#,
            ),
        );
        check(
            "[1]",
            Some(
                r#"[{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}]"#,
            ),
        );
        check(
            r#"[{"jsonrpc":"2.0","method":"notify_sum","params":[1,2,4]},{"jsonrpc":"2.0","method":"notify_hello","params":[7]}]"#,
            None,
        );
    }

    #[test]
    fn ids_come_back_as_sent() {
        for id in ["18446744073709551616", "1.5", "\"\\u00e9\"", "null", "-0"] {
            let reply = respond(&format!(
                r#"{{"jsonrpc":"2.0","method":"get_data","id":{id}}}"#
            ))
            .unwrap();
            assert!(reply.ends_with(&format!(",\"id\":{id}}}")), "{reply}");
        }
    }

    #[test]
    fn keeps_serving_after_bad_lines() {
        let input: &[u8] = b"\xFF\n{\"jsonrpc\":\"2.0\",\"method\":\"sum\",\"params\":[1,2],\"id\":1}\r\n\n{\"jsonrpc\":\"2.0\",\"method\":\"sum\",\"params\":[3],\"id\":2}";
        let mut out = Vec::new();
        run(input, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            concat!(
                r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#,
                "\n",
                r#"{"jsonrpc":"2.0","result":3,"id":1}"#,
                "\n",
                r#"{"jsonrpc":"2.0","result":3,"id":2}"#,
                "\n"
            )
        );
    }
}
