//! `rpcspec serve`: the serving loop of the reference servers, and the
//! JSON-RPC 2.0 one ([`EXAMPLES`]). Each dialect with a reference server
//! gives its [`Reference`] in its descriptor (`Serving::reference`): how
//! it reads and writes the envelope and the state machine of its methods,
//! or a server that serves on its own (MCP's).
//!
//! The JSON-RPC 2.0 reference implements the methods the specification's
//! examples (§7) assume: `subtract` (by position and by name), `sum`,
//! `get_data`, and the notifications `update`, `notify_hello`,
//! `notify_sum`; `foobar` and `foo.get` do not exist. Framing is the
//! reference framer's; what is a request, a notification or an invalid
//! request is the matcher's classification, so the server and the oracle
//! read the spec the same way.

use std::io::{self, Read, Write};

use std::time::Duration;

use rpcspec_framer::read::read_chunk;
use rpcspec_framer::{Event, ProblemKind};

use crate::capture::{Capture, Framing};
use rpcspec_matcher::{Dialect, Id, Kind, classify};
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

/// A dialect's reference server, as the serving loop reads it: how it
/// reads and writes the envelope, and the state machine of its methods.
#[derive(Debug, Clone, Copy)]
pub struct Reference {
    /// The pairing rules it reads messages by.
    pub reads: fn() -> Dialect,
    /// Whether its replies carry `"jsonrpc": "2.0"`.
    pub version: bool,
    /// Whether it takes batches (§6); without, an array is an invalid
    /// request.
    pub batches: bool,
    /// The ids its replies may carry, where not every one: an error for
    /// any other leaves the id out, as for one it could not read (MCP's
    /// ids are strings or integers). `None`: any, and null when unread.
    pub echoes: Option<fn(&Id) -> bool>,
    /// Its methods, in a fresh state.
    pub methods: fn() -> Box<dyn Methods>,
    /// A server that serves on its own, used in place of the above by
    /// [`serve_stdio`] and [`run_framed`] (MCP's reference, whose calls
    /// answer while no line comes).
    pub own: Option<OwnServer>,
}

/// A reference server that serves on its own, in its dialect's framing
/// only, of one revision where the name pins one.
#[derive(Debug, Clone, Copy)]
pub struct OwnServer {
    /// Serves stdin (read on a thread of its own) to `output` until it
    /// ends; `fixtures`: with its fixtures (`serve --fixtures`).
    pub stdio: fn(revision: Option<&str>, fixtures: bool, output: &mut dyn Write) -> io::Result<()>,
    /// Serves `input` to `output` on this thread: what is pending moves on
    /// only as lines arrive.
    pub blocking:
        fn(revision: Option<&str>, input: &mut dyn Read, output: &mut dyn Write) -> io::Result<()>,
}

/// A reference server's methods and the state they keep.
pub trait Methods: Send + std::fmt::Debug {
    /// A request's result, or an error code and message.
    fn call(&mut self, method: &str, params: Option<Value>) -> Result<Value, (i64, &'static str)>;

    /// A notification, run for its effects: never answered.
    fn notification(&mut self, method: &str, params: Option<Value>) {
        let _ = self.call(method, params);
    }

    /// The status to exit with, once the client said so (LSP's `exit`).
    fn exit(&self) -> Option<i32> {
        None
    }

    /// What it sends of its own before the reply to the call it just
    /// took (an ACP agent's `session/update` during a turn), each a whole
    /// message; taken once.
    fn said(&mut self) -> Vec<Value> {
        Vec::new()
    }
}

/// JSON-RPC 2.0's reference: the §7 examples' methods.
pub const EXAMPLES: Reference = Reference {
    reads: || Dialect::Jsonrpc2,
    version: true,
    batches: true,
    echoes: None,
    methods: || Box::new(Examples),
    own: None,
};

/// The §7 examples' methods, which keep no state.
#[derive(Debug)]
struct Examples;

impl Methods for Examples {
    fn call(&mut self, method: &str, params: Option<Value>) -> Result<Value, (i64, &'static str)> {
        example(method, params).map_err(|code| (code, message(code)))
    }
}

/// A reference server's state: its methods'.
#[derive(Debug)]
pub struct Server {
    reference: &'static Reference,
    methods: Box<dyn Methods>,
}

impl Server {
    /// A server of `reference` that has seen nothing yet.
    pub fn new(reference: &'static Reference) -> Server {
        Server {
            reference,
            methods: (reference.methods)(),
        }
    }

    /// The status to exit with, once the client has said so (LSP's `exit`).
    pub fn exit(&self) -> Option<i32> {
        self.methods.exit()
    }

    /// What its methods sent of their own while taking the last line, to
    /// be written before its reply.
    pub fn said(&mut self) -> Vec<String> {
        self.methods.said().iter().map(Value::to_string).collect()
    }

    /// The reply to one line, without its `\n`; `None` when nothing is
    /// returned (notifications, all-notification batches, stray responses).
    pub fn respond(&mut self, line: &str) -> Option<String> {
        let Ok(raw) = serde_json::from_str::<&RawValue>(line) else {
            return Some(self.error(PARSE_ERROR, None));
        };
        if !raw.get().starts_with('[') {
            return self.respond_one(raw.get());
        }
        if !self.reference.batches {
            // A protocol without batches: an array is no request.
            return Some(self.error(INVALID_REQUEST, None));
        }
        let members: Vec<&RawValue> = serde_json::from_str(raw.get()).expect("an array");
        if members.is_empty() {
            return Some(self.error(INVALID_REQUEST, None));
        }
        let replies: Vec<String> = members
            .iter()
            .filter_map(|m| self.respond_one(m.get()))
            .collect();
        // "Nothing is returned for all notification batches" - not even [].
        (!replies.is_empty()).then(|| format!("[{}]", replies.join(",")))
    }

    /// The reply to a line that is not text (invalid UTF-8, over-long).
    pub fn unreadable(&self) -> Option<String> {
        Some(self.error(PARSE_ERROR, None))
    }

    /// The reply to one request object (a whole message or a batch member).
    fn respond_one(&mut self, text: &str) -> Option<String> {
        if text.starts_with('[') {
            // A batch inside a batch is not a Request object.
            return Some(self.error(INVALID_REQUEST, None));
        }
        match classify(text, &(self.reference.reads)()).kind {
            Kind::Request { id, method } => Some(match self.methods.call(&method, params(text)) {
                Ok(value) => self.message(&format!(r#""result":{value}"#), Some(&id)),
                Err((code, message)) => self.message(&error_member(code, message), Some(&id)),
            }),
            Kind::Notification { method } => {
                // Run it for its effects; a notification is never answered,
                // whatever went wrong.
                self.methods.notification(&method, params(text));
                None
            }
            // The id is echoed when it could be read (§5).
            Kind::Invalid { id, .. } => Some(self.error(INVALID_REQUEST, id.as_ref())),
            // Responses to requests this server never sends: nothing to say.
            _ => None,
        }
    }

    /// An error reply with the spec's message for `code`.
    fn error(&self, code: i64, id: Option<&Id>) -> String {
        self.message(&error_member(code, message(code)), id)
    }

    /// One reply: `members` (`"result":…` or `"error":…`) with the
    /// reference's envelope and `id`. An id that could not be read is
    /// null, or left out where the dialect's ids cannot be null.
    fn message(&self, members: &str, id: Option<&Id>) -> String {
        let version = if self.reference.version {
            r#""jsonrpc":"2.0","#
        } else {
            ""
        };
        let id = match (self.reference.echoes, id) {
            (Some(fits), Some(id)) if fits(id) => format!(r#","id":{}"#, id.raw()),
            (Some(_), _) => String::new(),
            (None, Some(id)) => format!(r#","id":{}"#, id.raw()),
            (None, None) => r#","id":null"#.to_owned(),
        };
        format!("{{{version}{members}{id}}}")
    }
}

fn error_member(code: i64, message: &str) -> String {
    format!(r#""error":{{"code":{code},"message":"{message}"}}"#)
}

/// The reply to one line from the JSON-RPC 2.0 reference; `None` when
/// nothing is returned.
pub fn respond(line: &str) -> Option<String> {
    Server::new(&EXAMPLES).respond(line)
}

fn params(text: &str) -> Option<Value> {
    #[derive(Deserialize)]
    struct Params {
        params: Option<Value>,
    }
    serde_json::from_str::<Params>(text).ok()?.params
}

/// Runs one of the §7 examples' methods: its result, or an error code.
fn example(method: &str, params: Option<Value>) -> Result<Value, i64> {
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

/// The spec's message for `code` (§5.1).
fn message(code: i64) -> &'static str {
    match code {
        PARSE_ERROR => "Parse error",
        INVALID_REQUEST => "Invalid Request",
        METHOD_NOT_FOUND => "Method not found",
        INVALID_PARAMS => "Invalid params",
        _ => "Internal error",
    }
}

/// A JSON-RPC 2.0 error reply with the spec's message for `code` and the
/// id's raw text.
pub fn error(code: i64, id: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0",{},"id":{id}}}"#,
        error_member(code, message(code))
    )
}

/// What the server read: a line of text, or bytes that cannot be one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input<'a> {
    /// A complete line (or an unterminated last line at end of input).
    Line(&'a str),
    /// A line that is not UTF-8, or too long to keep: unparseable.
    Unreadable,
}

/// Serves `input` until it ends, with the JSON-RPC 2.0 reference
/// behaviour.
pub fn run(input: impl Read, output: impl Write) -> io::Result<()> {
    run_flavor(&EXAMPLES, None, input, output)
}

/// Serves stdin until it ends as `reference` (of `revision`, where the
/// name pins one), on `output`. A server of its own reads stdin on a
/// thread of its own, so stdin must not be locked here. Returns the status
/// to exit with, when the client said (LSP's `exit`).
pub fn serve_stdio(
    reference: &'static Reference,
    revision: Option<&str>,
    framing: Framing,
    mut output: impl Write,
) -> io::Result<Option<i32>> {
    match reference.own {
        Some(own) => (own.stdio)(revision, false, &mut output).map(|()| None),
        None => run_framed(reference, revision, framing, io::stdin().lock(), output),
    }
}

/// Serves `input` until it ends as `reference`, in NDJSON (a server of its
/// own on this thread: what is pending moves on only as lines arrive).
pub fn run_flavor(
    reference: &'static Reference,
    revision: Option<&str>,
    input: impl Read,
    output: impl Write,
) -> io::Result<()> {
    run_framed(reference, revision, Framing::ndjson(), input, output).map(|_| ())
}

/// [`run_flavor`] in `framing` (a server of its own speaks its dialect's
/// framing only), until the input ends or the client says to exit (LSP's
/// `exit`: then the status to exit with).
pub fn run_framed(
    reference: &'static Reference,
    revision: Option<&str>,
    framing: Framing,
    mut input: impl Read,
    mut output: impl Write,
) -> io::Result<Option<i32>> {
    if let Some(own) = reference.own {
        return (own.blocking)(revision, &mut input, &mut output).map(|()| None);
    }
    let mut server = Server::new(reference);
    let exit = std::cell::Cell::new(None);
    let reply = |input: Input<'_>| {
        let reply = match input {
            Input::Line(line) => server.respond(line),
            Input::Unreadable => server.unreadable(),
        };
        exit.set(server.exit());
        let mut out = server.said();
        out.extend(reply);
        out
    };
    run_until(input, output, framing, reply, || exit.get())
}

/// The serving loop: reads `input` through `framing`, asks `reply` for the
/// answer to each message, writes each answer framed the same way, and
/// flushes after every chunk read. Never stops on a bad message; returns
/// at end of input. A Content-Length message whose header is broken has
/// no body to answer, and is not answered.
pub fn run_with(
    input: impl Read,
    output: impl Write,
    framing: Framing,
    mut reply: impl FnMut(Input<'_>) -> Option<String>,
) -> io::Result<()> {
    let replies = move |input: Input<'_>| reply(input).into_iter().collect();
    run_until(input, output, framing, replies, || None).map(|_| ())
}

/// [`run_with`] with every message `reply` writes for each it reads
/// (none, its reply, or what it says before that), which also ends once
/// `exit` says so (after writing what was answered before): the status it
/// gives is returned.
pub fn run_until(
    mut input: impl Read,
    mut output: impl Write,
    framing: Framing,
    mut reply: impl FnMut(Input<'_>) -> Vec<String>,
    exit: impl Fn() -> Option<i32>,
) -> io::Result<Option<i32>> {
    let mut capture = Capture::new(framing.clone());
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
                // newline is still answered. A body cut short of its
                // Content-Length is not a message: nothing tells what
                // the rest would have said.
                ProblemKind::Truncated if matches!(framing, Framing::ContentLength(_)) => {
                    Input::Unreadable
                }
                ProblemKind::Truncated => match std::str::from_utf8(&p.bytes) {
                    Ok(text) => Input::Line(text),
                    Err(_) => Input::Unreadable,
                },
                ProblemKind::InvalidUtf8 { .. } | ProblemKind::Overlong { .. } => Input::Unreadable,
                _ => return,
            },
        };
        for text in reply(input) {
            out.extend_from_slice(&framing.encode(text.as_bytes()));
        }
    };
    loop {
        let n = read_chunk(&mut input, &mut buf)?;
        if n == 0 {
            break;
        }
        capture.push(&buf[..n], Duration::ZERO, |a| {
            if exit().is_none() {
                answer(a.event, &mut out);
            }
        });
        if !out.is_empty() {
            output.write_all(&out)?;
            output.flush()?;
            out.clear();
        }
        if let Some(status) = exit() {
            return Ok(Some(status));
        }
    }
    capture.finish(Duration::ZERO, |a| answer(a.event, &mut out));
    output.write_all(&out)?;
    output.flush()?;
    Ok(exit())
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
