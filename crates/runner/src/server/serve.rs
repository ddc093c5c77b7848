//! `rpcspec serve`: the reference JSON-RPC 2.0 server over stdio NDJSON,
//! and one for each dialect that has a server (`--dialect`).
//!
//! The JSON-RPC 2.0 reference implements the methods the specification's
//! examples (§7) assume: `subtract` (by position and by name), `sum`,
//! `get_data`, and the notifications `update`, `notify_hello`,
//! `notify_sum`; `foobar` and `foo.get` do not exist. The `lenient`
//! reference is the same without the `"jsonrpc"` member. The `mcp` one
//! is [`crate::dialects::mcp::reference`] (every revision, or one with
//! `mcp@REVISION`); the `codex` one is
//! lenient, answers "Not initialized" until `initialize`, as the Codex
//! app-server does, has `account/read` and no batches. Framing is the reference framer's;
//! what is a request, a notification or an invalid request is the
//! matcher's classification, so the server and the oracle read the spec
//! the same way.

use std::io::{self, Read, Write};

use std::time::Duration;

use rpcspec_framer::read::read_chunk;
use rpcspec_framer::{Event, ProblemKind};

use crate::capture::{Capture, Framing};
use rpcspec_matcher::{Dialect, Id, IdKind, Kind, classify};
use serde::Deserialize;
use serde_json::{Number, Value, value::RawValue};

use crate::dialects::mcp::{Revision, reference};

/// `-32700`: invalid JSON.
pub const PARSE_ERROR: i64 = -32700;
/// `-32600`: not a valid Request object.
pub const INVALID_REQUEST: i64 = -32600;
/// `-32601`: no such method.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// `-32602`: invalid method parameters.
pub const INVALID_PARAMS: i64 = -32602;

/// Which reference server: the dialects that have one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// JSON-RPC 2.0 with the §7 example methods.
    Jsonrpc2,
    /// The same, without the `"jsonrpc"` member in replies.
    Lenient,
    /// The Codex app-server's protocol: lenient, `initialize` first, no
    /// batches, none of the example methods.
    Codex,
    /// The reference MCP server ([`crate::dialects::mcp::reference`]) of one
    /// revision, or of every one (`None`: a dual-era server). Through
    /// [`Server`], only its envelope: `initialize`, `ping`, no batches.
    Mcp(Option<Revision>),
    /// A language server: JSON-RPC 2.0 with LSP's lifecycle
    /// ([`crate::dialects::lsp::Lifecycle`]), no method of its own, in Content-Length
    /// framing by default.
    Lsp,
}

impl Flavor {
    /// The flavor called `name` (a `--dialect` name whose descriptor has
    /// a reference server, `crate::dialects`).
    pub fn named(name: &str) -> Option<Flavor> {
        Some(match name {
            "jsonrpc2" => Flavor::Jsonrpc2,
            "lenient" => Flavor::Lenient,
            "codex" => Flavor::Codex,
            "lsp" => Flavor::Lsp,
            "mcp" => Flavor::Mcp(None),
            _ => Flavor::Mcp(Some(name.strip_prefix("mcp@")?.parse().ok()?)),
        })
    }

    fn dialect(self) -> Dialect {
        match self {
            Flavor::Jsonrpc2 | Flavor::Lsp => Dialect::Jsonrpc2,
            Flavor::Lenient | Flavor::Codex => Dialect::Lenient,
            Flavor::Mcp(_) => Dialect::Mcp,
        }
    }
}

/// The MCP revisions the `mcp` reference speaks, newest first: it answers
/// `initialize` with the client's revision when it is one of these, else
/// with the newest (MCP basic/lifecycle, version negotiation).
const MCP_REVISIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26"];

/// A reference server's state: whether the handshake has happened.
#[derive(Debug, Clone)]
pub struct Server {
    flavor: Flavor,
    initialized: bool,
    /// Where a language server is in its life (LSP only).
    lsp: crate::dialects::lsp::Lifecycle,
}

impl Server {
    /// A server of `flavor` that has seen nothing yet.
    pub fn new(flavor: Flavor) -> Server {
        Server {
            flavor,
            initialized: false,
            lsp: crate::dialects::lsp::Lifecycle::default(),
        }
    }

    /// The status to exit with, once the client has said so (LSP's `exit`).
    pub fn exit(&self) -> Option<i32> {
        self.lsp.exit()
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
        if matches!(self.flavor, Flavor::Mcp(_) | Flavor::Codex) {
            // Neither protocol has batches: an array is no request.
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
        match classify(text, &self.flavor.dialect()).kind {
            Kind::Request { id, method } => Some(match self.call(&method, params(text)) {
                Ok(value) => self.message(&format!(r#""result":{value}"#), Some(&id)),
                Err((code, message)) => self.message(&error_member(code, message), Some(&id)),
            }),
            Kind::Notification { method } => {
                // Run it for its effects; a notification is never answered,
                // whatever went wrong.
                if self.flavor == Flavor::Codex && &*method == "initialized" {
                    return None;
                }
                if self.flavor == Flavor::Lsp {
                    self.lsp.notification(&method);
                    return None;
                }
                let _ = self.call(&method, params(text));
                None
            }
            // The id is echoed when it could be read (§5).
            Kind::Invalid { id, .. } => Some(self.error(INVALID_REQUEST, id.as_ref())),
            // Responses to requests this server never sends: nothing to say.
            _ => None,
        }
    }

    /// Runs a method: its result, or an error code and message.
    fn call(&mut self, method: &str, params: Option<Value>) -> Result<Value, (i64, &'static str)> {
        match self.flavor {
            Flavor::Jsonrpc2 | Flavor::Lenient => {
                example(method, params).map_err(|code| (code, message(code)))
            }
            Flavor::Lsp => self.lsp.request(method),
            Flavor::Mcp(_) => match method {
                "initialize" => {
                    let asked = params
                        .as_ref()
                        .and_then(|p| p.get("protocolVersion"))
                        .and_then(Value::as_str);
                    let version = MCP_REVISIONS
                        .iter()
                        .find(|v| Some(**v) == asked)
                        .unwrap_or(&MCP_REVISIONS[0]);
                    self.initialized = true;
                    Ok(serde_json::json!({
                        "protocolVersion": version,
                        "capabilities": {},
                        "serverInfo": {"name": "rpcspec-reference", "version": env!("CARGO_PKG_VERSION")},
                    }))
                }
                "ping" => Ok(serde_json::json!({})),
                _ => Err((METHOD_NOT_FOUND, message(METHOD_NOT_FOUND))),
            },
            Flavor::Codex => match method {
                "initialize" if self.initialized => Err((INVALID_REQUEST, "Already initialized")),
                "initialize" => {
                    self.initialized = true;
                    Ok(
                        serde_json::json!({"userAgent": concat!("rpcspec-reference/", env!("CARGO_PKG_VERSION"))}),
                    )
                }
                _ if !self.initialized => Err((INVALID_REQUEST, "Not initialized")),
                // The one method that needs no login; like the app-server,
                // it takes an object of params, empty.
                "account/read" => match params {
                    Some(Value::Object(_)) => {
                        Ok(serde_json::json!({"account": null, "requiresOpenaiAuth": true}))
                    }
                    _ => Err((INVALID_REQUEST, "Invalid request: missing field `params`")),
                },
                _ => Err((METHOD_NOT_FOUND, message(METHOD_NOT_FOUND))),
            },
        }
    }

    /// An error reply with the spec's message for `code`.
    fn error(&self, code: i64, id: Option<&Id>) -> String {
        self.message(&error_member(code, message(code)), id)
    }

    /// One reply: `members` (`"result":…` or `"error":…`) with the
    /// flavor's envelope and `id`. An id that could not be read is null,
    /// except in MCP, whose ids are strings or integers only: there it is
    /// left out (2025-11-25 schema, `JSONRPCErrorResponse.id?`).
    fn message(&self, members: &str, id: Option<&Id>) -> String {
        let version = match self.flavor {
            Flavor::Jsonrpc2 | Flavor::Mcp(_) | Flavor::Lsp => r#""jsonrpc":"2.0","#,
            Flavor::Lenient | Flavor::Codex => "",
        };
        let id = match (self.flavor, id) {
            (Flavor::Mcp(_), Some(id)) if mcp_id(id) => format!(r#","id":{}"#, id.raw()),
            (Flavor::Mcp(_), _) => String::new(),
            (_, Some(id)) => format!(r#","id":{}"#, id.raw()),
            (_, None) => r#","id":null"#.to_owned(),
        };
        format!("{{{version}{members}{id}}}")
    }
}

/// Whether MCP takes `id` as a request id: a string, or an integer.
fn mcp_id(id: &Id) -> bool {
    match id.kind() {
        IdKind::String => true,
        IdKind::Number => !id.raw().contains(['.', 'e', 'E']),
        IdKind::Null => false,
    }
}

fn error_member(code: i64, message: &str) -> String {
    format!(r#""error":{{"code":{code},"message":"{message}"}}"#)
}

/// The reply to one line from the JSON-RPC 2.0 reference; `None` when
/// nothing is returned.
pub fn respond(line: &str) -> Option<String> {
    Server::new(Flavor::Jsonrpc2).respond(line)
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
    run_flavor(Flavor::Jsonrpc2, input, output)
}

/// Serves stdin until it ends as the reference of `flavor`, on `output`.
/// The MCP reference reads stdin on a thread of its own (its `slow` tool
/// answers while no line comes), so stdin must not be locked here.
/// Returns the status to exit with, when the client said (LSP's `exit`).
pub fn serve_stdio(
    flavor: Flavor,
    framing: Framing,
    output: impl Write,
) -> io::Result<Option<i32>> {
    match flavor {
        Flavor::Mcp(served) => {
            reference::serve(mcp_server(served), io::stdin(), output).map(|()| None)
        }
        _ => run_framed(flavor, framing, io::stdin().lock(), output),
    }
}

/// The reference MCP server of every revision, or of `served` alone.
pub fn mcp_server(served: Option<Revision>) -> reference::Server {
    match served {
        Some(revision) => reference::Server::new(&[revision]),
        None => reference::Server::new(Revision::ALL),
    }
}

/// Serves `input` until it ends as the reference of `flavor` (the MCP
/// one through [`reference::serve_blocking`]: a pending `slow` call moves
/// on only as lines arrive).
pub fn run_flavor(flavor: Flavor, input: impl Read, output: impl Write) -> io::Result<()> {
    run_framed(flavor, Framing::ndjson(), input, output).map(|_| ())
}

/// [`run_flavor`] in `framing` (the MCP reference speaks NDJSON only),
/// until the input ends or the client says to exit (LSP's `exit`: then
/// the status to exit with).
pub fn run_framed(
    flavor: Flavor,
    framing: Framing,
    input: impl Read,
    output: impl Write,
) -> io::Result<Option<i32>> {
    if let Flavor::Mcp(served) = flavor {
        return reference::serve_blocking(mcp_server(served), input, output).map(|()| None);
    }
    let mut server = Server::new(flavor);
    let exit = std::cell::Cell::new(None);
    let reply = |input: Input<'_>| {
        let reply = match input {
            Input::Line(line) => server.respond(line),
            Input::Unreadable => server.unreadable(),
        };
        exit.set(server.exit());
        reply
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
    reply: impl FnMut(Input<'_>) -> Option<String>,
) -> io::Result<()> {
    run_until(input, output, framing, reply, || None).map(|_| ())
}

/// [`run_with`], which also ends once `exit` says so (after writing what
/// was answered before): the status it gives is returned.
pub fn run_until(
    mut input: impl Read,
    mut output: impl Write,
    framing: Framing,
    mut reply: impl FnMut(Input<'_>) -> Option<String>,
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
        if let Some(text) = reply(input) {
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
