//! How the reference MCP server writes: errors, results, notifications
//! and requests of its own, one line each.

use rpcspec_matcher::{Id, IdKind};
use serde_json::{Value, json};

/// A JSON-RPC error to answer with.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RpcError {
    pub(super) code: i64,
    pub(super) message: String,
    pub(super) data: Option<Value>,
}

impl RpcError {
    pub(super) fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// `-32602` Invalid params.
    pub(super) fn params(message: impl Into<String>) -> RpcError {
        RpcError::new(-32602, message)
    }
}

/// What a step writes, in order, each a line without its `\n`.
pub(super) struct Out {
    pub(super) lines: Vec<String>,
    /// Lines due after the reply being made.
    pub(super) after: Vec<String>,
    pretty: bool,
}

impl Out {
    pub(super) fn new(pretty: bool) -> Out {
        Out {
            lines: Vec::new(),
            after: Vec::new(),
            pretty,
        }
    }

    pub(super) fn push(&mut self, text: String) {
        if self.pretty {
            let value: Value = serde_json::from_str(&text).expect("the server's own JSON");
            self.lines
                .push(serde_json::to_string_pretty(&value).expect("a value"));
        } else {
            self.lines.push(text);
        }
    }

    pub(super) fn result(&mut self, id: &str, result: &Value) {
        self.push(format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#
        ));
    }

    /// An error; without `id` when the request's could not be read.
    pub(super) fn error(&mut self, id: Option<&str>, e: &RpcError) {
        let mut error = json!({"code": e.code, "message": e.message});
        if let Some(data) = &e.data {
            error["data"] = data.clone();
        }
        match id {
            Some(id) => self.push(format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{error}}}"#)),
            None => self.push(format!(r#"{{"jsonrpc":"2.0","error":{error}}}"#)),
        }
    }

    pub(super) fn notify(&mut self, method: &str, params: Value) {
        self.push(json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string());
    }
}

pub(super) fn request_text(id: &str, method: &str, params: Option<Value>) -> String {
    let mut request = json!({"jsonrpc": "2.0", "id": id, "method": method});
    if let Some(params) = params {
        request["params"] = params;
    }
    request.to_string()
}

/// Whether MCP takes `id` as a request id: a string, or an integer.
pub(super) fn mcp_id(id: &Id) -> bool {
    match id.kind() {
        IdKind::String => true,
        IdKind::Number => !id.raw().contains(['.', 'e', 'E']),
        IdKind::Null => false,
    }
}

/// JSON-RPC 2.0's message for `code` (§5.1).
pub(super) fn message(code: i64) -> &'static str {
    match code {
        -32700 => "Parse error",
        -32600 => "Invalid Request",
        -32601 => "Method not found",
        -32602 => "Invalid params",
        _ => "Internal error",
    }
}
