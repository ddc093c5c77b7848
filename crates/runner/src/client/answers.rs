//! What the scripted server answers to each method of the adapters'
//! series: the JSON-RPC series' `subtract`, `echo` and `fail`; the LSP
//! series' lifecycle (`initialize`, `shutdown`), `textDocument/hover` and
//! the `rpcspec/…` methods. MCP's answers are the reference MCP server's.
//! [`Answer`] is what the script keeps of each request and its reply.

use std::time::Duration;

use serde_json::{Value, json};

/// What a reply carries.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// `result`, as JSON text.
    Result(Vec<u8>),
    /// `error`, as JSON text.
    Error(Vec<u8>),
}

impl Body {
    /// An error object with `code` and `message`.
    pub fn error(code: i64, message: &str) -> Body {
        Body::Error(
            serde_json::json!({"code": code, "message": message})
                .to_string()
                .into_bytes(),
        )
    }
}

/// The scripted language server's name, in its `initialize` result.
pub const LSP_SERVER_NAME: &str = "rpcspec-scripted-language-server";

/// The text of its hover.
pub const LSP_HOVER: &str = "rpcspec: a hover";

/// The longest `rpcspec/slow` waits.
const SLOW_MAX: Duration = Duration::from_secs(10);

/// The JSON-RPC series: `subtract` (`[a, b]` or `{"minuend",
/// "subtrahend"}`), `echo` (`[x]` → `x`), `fail` (`error`, else -32000),
/// -32601 for anything else.
pub(super) fn jsonrpc(method: &str, params: &Value, error: Option<&[u8]>) -> Body {
    match method {
        "subtract" => {
            let (a, b) = match params {
                Value::Array(v) if v.len() == 2 => (&v[0], &v[1]),
                Value::Object(o) => match (o.get("minuend"), o.get("subtrahend")) {
                    (Some(a), Some(b)) => (a, b),
                    _ => return Body::error(-32602, "Invalid params"),
                },
                _ => return Body::error(-32602, "Invalid params"),
            };
            match (a.as_i64(), b.as_i64(), a.as_f64(), b.as_f64()) {
                (Some(a), Some(b), _, _) => {
                    Body::Result(a.wrapping_sub(b).to_string().into_bytes())
                }
                (_, _, Some(a), Some(b)) => {
                    Body::Result(Value::from(a - b).to_string().into_bytes())
                }
                _ => Body::error(-32602, "Invalid params"),
            }
        }
        "echo" => match params {
            Value::Array(v) if v.len() == 1 => Body::Result(v[0].to_string().into_bytes()),
            _ => Body::error(-32602, "Invalid params"),
        },
        "fail" => match error {
            Some(e) => Body::Error(e.to_vec()),
            None => Body::error(-32000, "asked to fail"),
        },
        _ => Body::error(-32601, "Method not found"),
    }
}

/// The LSP series (LSP 3.17): `initialize` (hover declared),
/// `shutdown` (`null`), `textDocument/hover`, `rpcspec/echo` (`{"text"}`
/// back), `rpcspec/fail` (RequestFailed), `rpcspec/slow`; after
/// `shutdown`, every request gets InvalidRequest ("If a server receives
/// requests after a shutdown request those requests should error with
/// InvalidRequest"); MethodNotFound for anything else, `$/` requests
/// included.
pub(crate) fn lsp(method: &str, params: &Value, shut_down: bool) -> Body {
    let result = |v: Value| Body::Result(v.to_string().into_bytes());
    if shut_down {
        return Body::error(-32600, "the server is shut down");
    }
    match method {
        "initialize" => result(json!({
            "capabilities": {"hoverProvider": true},
            "serverInfo": {"name": LSP_SERVER_NAME, "version": env!("CARGO_PKG_VERSION")},
        })),
        "shutdown" => result(Value::Null),
        "textDocument/hover" => {
            result(json!({"contents": {"kind": "plaintext", "value": LSP_HOVER}}))
        }
        "rpcspec/echo" => match params.get("text") {
            Some(text) => result(json!({"text": text})),
            None => Body::error(-32602, "Invalid params: no text"),
        },
        "rpcspec/fail" => Body::error(-32803, "asked to fail"),
        "rpcspec/slow" => result(json!({"slept": params.get("ms")})),
        _ => Body::error(-32601, "Method not found"),
    }
}

/// LSP: how long the answer to `method` waits: `rpcspec/slow` its `ms`
/// (at most 10 s); `initialize` [`INITIALIZE_TAKES`], as a server's start
/// does, so that what a client sends before the result has arrived by
/// then; `None` for any other call.
pub(crate) fn lsp_delay(method: &str, params: &Value) -> Option<Duration> {
    match method {
        "rpcspec/slow" => {
            let ms = params.get("ms").and_then(Value::as_u64).unwrap_or(0);
            Some(Duration::from_millis(ms).min(SLOW_MAX))
        }
        "initialize" => Some(INITIALIZE_TAKES),
        _ => None,
    }
}

/// How long the scripted language server takes to answer `initialize`.
pub const INITIALIZE_TAKES: Duration = Duration::from_millis(150);

/// LSP: whether the server may ask its request before answering a
/// `method` request, the client's `initialize` having had `init` params:
/// after `initialize` ("the server is not allowed to send any requests …
/// until it has responded with an InitializeResult"), not at `shutdown`,
/// and only of a client whose `initialize` params declare the capability
/// at `ask_if`.
pub(crate) fn may_ask_lsp(init: Option<&Value>, method: &str, ask_if: Option<&str>) -> bool {
    let Some(init) = init else {
        return false;
    };
    let declared = ask_if.is_none_or(|p| declares(init, p));
    declared && !matches!(method, "initialize" | "shutdown")
}

/// Whether `params` declare the capability at `pointer`: `true`, or an
/// object (`"workDoneProgress": true`, `"configuration": true`).
pub fn declares(params: &Value, pointer: &str) -> bool {
    matches!(
        params.pointer(pointer),
        Some(Value::Bool(true) | Value::Object(_))
    )
}

/// A request the client made, and what the server did with it.
#[derive(Debug, Clone)]
pub struct Answer {
    /// Its method.
    pub method: String,
    /// Its params (`null` when it had none).
    pub params: Value,
    /// Its id, as JSON text.
    pub id: String,
    /// What the server would reply.
    pub body: Body,
    /// When that reply was queued (a line holding it, valid), if it was.
    pub sent: Option<Duration>,
    /// Whether another line was written in its place (`replace`).
    pub replaced: bool,
    /// Whether it came in a batch.
    pub batch: bool,
    /// MCP: the reference server has not replied yet.
    pub awaiting: bool,
    /// When its request was read.
    pub asked: Duration,
}

impl Answer {
    /// The reply the client was given, if a valid one was written.
    pub fn given(&self) -> Option<&Body> {
        (self.sent.is_some() && !self.replaced).then_some(&self.body)
    }
}

/// `id` as JSON text of the other type: `7` → `"7"`, `"7"` → `7`; `None`
/// for a string that is not a plain integer, or anything else.
pub fn retype(id: &str) -> Option<String> {
    if let Some(inner) = id.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
        let digits = inner.strip_prefix('-').unwrap_or(inner);
        let plain = !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
            && (digits == "0" || !digits.starts_with('0'));
        return plain.then(|| inner.to_owned());
    }
    let number = !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit() || b == b'-');
    number.then(|| format!("\"{id}\""))
}
