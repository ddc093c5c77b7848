//! MCP as the client role plays it: the scenarios of `client/mcp/`, behind
//! the reference MCP server ([`super::reference`], every revision), which
//! answers what the scenario's script does not.

use std::time::Instant;

use rpcspec_matcher::Dialect;
use serde_json::Value;

use super::{Revision, reference};
use crate::{
    client::{
        grade::{mcp_session, twists},
        reference::{Quirk, run_mcp, run_mcp_modern},
        script::Backend,
        twist,
    },
    dialects::{Framed, Peer, Playing},
};

/// What the client role does in MCP.
pub const PLAYING: Playing = Playing {
    folder: "client/mcp/",
    label: "MCP",
    steps: &crate::client::MCP_STEPS,
    framing: Some((
        Framed::Ndjson,
        "MCP clients speak NDJSON (MCP's stdio transport)",
    )),
    fields: &["version", "twist"],
    peer: Peer::Plain,
    cli: None,
    held: |method, params| {
        method == "tools/call" && params.get("name").and_then(Value::as_str) == Some("echo")
    },
    messages: Some(|| Dialect::Mcp),
    // A request of the reference's is graded with the session.
    server_request: None,
    scenario_level: &[],
    reported: Some(reported),
    session: Some(|o, outcomes, out| {
        mcp_session(o, outcomes, out);
        twists(o, out);
    }),
    backend: Some(|| Box::new(reference::Server::new(Revision::ALL))),
    answers: None,
    may_ask: Some(may_ask),
    reference: |server, framing, revision, out| match revision.map(str::parse::<Revision>) {
        None => run_mcp(server, Quirk::None, framing, out),
        Some(Ok(r)) if !r.has_initialize() => run_mcp_modern(server, Quirk::None, framing, out),
        Some(Ok(Revision::NEWEST_LEGACY)) => run_mcp(server, Quirk::None, framing, out),
        _ => Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "the reference MCP client speaks 2025-11-25 (`mcp`) and 2026-07-28 (`mcp@2026-07-28`)",
        )),
    },
};

impl Backend for reference::Server {
    fn on_line(&mut self, line: &str, at: Instant) -> Vec<String> {
        reference::Server::on_line(self, line, at)
    }

    fn on_unreadable(&mut self) -> Vec<String> {
        reference::Server::on_unreadable(self)
    }

    fn on_tick(&mut self, at: Instant) -> Vec<String> {
        reference::Server::on_tick(self, at)
    }

    fn on_eof(&mut self) {
        reference::Server::on_eof(self);
    }

    fn next_due(&self) -> Option<Instant> {
        reference::Server::next_due(self)
    }
}

/// A request of the script's goes out before the first tool call's reply,
/// in a session opened with `initialize` (2026-07-28 servers send no
/// requests over stdio): `roots/list` only to a client that declared
/// `roots`, `elicitation/create` only to one that declared `elicitation`.
fn may_ask(init: Option<&Value>, method: &str, ask: &str, _: Option<&str>) -> bool {
    let Some(init) = init else {
        return false;
    };
    let declared = |c: &str| init.pointer(&format!("/capabilities/{c}")).is_some();
    method == "tools/call"
        && (ask != "roots/list" || declared("roots"))
        && (ask != "elicitation/create"
            || twist::takes_form(init.pointer("/capabilities/elicitation")))
}

/// What the contract has the adapter report of `method`'s `result`: the
/// negotiated version of `initialize`, the tool names of `tools/list`, the
/// first text and `isError` of `tools/call` (`None` when any string will
/// do: `server/discover`, where the client picks); else the result.
fn reported(method: &str, result: &Value) -> Option<Value> {
    match method {
        "initialize" => Some(result.get("protocolVersion").cloned().unwrap_or_default()),
        "server/discover" => None,
        "tools/list" => Some(Value::Array(
            result
                .get("tools")
                .and_then(Value::as_array)
                .map(|tools| {
                    tools
                        .iter()
                        .filter_map(|t| t.get("name").cloned())
                        .collect()
                })
                .unwrap_or_default(),
        )),
        "tools/call" => {
            let text = result
                .get("content")
                .and_then(Value::as_array)
                .and_then(|c| {
                    c.iter()
                        .find(|i| i.get("type").and_then(Value::as_str) == Some("text"))
                })
                .and_then(|i| i.get("text"))
                .cloned()
                .unwrap_or_default();
            let is_error = result
                .get("isError")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            Some(serde_json::json!({"text": text, "isError": is_error}))
        }
        _ => Some(result.clone()),
    }
}
