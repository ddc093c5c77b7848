//! LSP as the client role plays it: the scenarios of `client/lsp/`, behind
//! the script's language server, in Content-Length framing.

use serde_json::Value;

use super::LSP_CLIENT_SERVER_REQUEST;
use crate::{
    client::{
        answers::{self, may_ask_lsp},
        grade::lsp_session,
        reference::{Quirk, run_lsp},
        script::Body,
    },
    dialects::{Answers, Framed, Peer, Playing},
};

/// What the client role does in LSP.
pub const PLAYING: Playing = Playing {
    folder: "client/lsp/",
    label: "LSP",
    steps: &crate::client::LSP_STEPS,
    framing: Some((
        Framed::ContentLength,
        "language clients speak Content-Length framing (LSP's base protocol)",
    )),
    fields: &["ask_if"],
    peer: Peer::Plain,
    cli: None,
    held: |method, _| method == "rpcspec/echo",
    // LSP's messages are JSON-RPC 2.0's.
    messages: Some(|| rpcspec_matcher::Dialect::Jsonrpc2),
    server_request: Some(&LSP_CLIENT_SERVER_REQUEST),
    scenario_level: &[],
    reported: Some(reported),
    session: Some(|o, _, out| lsp_session(o, out)),
    backend: None,
    answers: Some(Answers {
        body: answers::lsp,
        delay: answers::lsp_delay,
        shutdown: Some(("shutdown", "exit")),
        // `$/cancelRequest` of a request still waiting: RequestCancelled.
        cancels: |method, params, waiting| {
            let id = params.get("id").map(Value::to_string);
            (method == "$/cancelRequest" && id.as_deref() == Some(waiting.id.as_str()))
                .then(|| Body::error(-32800, "cancelled"))
        },
        on_request: Answers::nothing_on_request,
        before: |_| true,
    }),
    may_ask: Some(|init, method, _, ask_if| may_ask_lsp(init, method, ask_if)),
    reference: |server, framing, _, out| run_lsp(server, Quirk::None, framing, out),
};

/// What the contract has the adapter report of `method`'s `result`: the
/// server's name of `initialize` and the text of a hover.
fn reported(method: &str, result: &Value) -> Option<Value> {
    let at = match method {
        "initialize" => "/serverInfo/name",
        "textDocument/hover" => "/contents/value",
        _ => "",
    };
    Some(result.pointer(at).cloned().unwrap_or_default())
}
