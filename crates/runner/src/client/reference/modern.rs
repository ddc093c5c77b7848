//! The reference MCP 2026-07-28 client: the MCP series
//! ([`crate::client::MCP_STEPS`]) without a handshake. Every request
//! carries `_meta` (its protocol version, the client's capabilities
//! `roots` and form `elicitation`, its `clientInfo`); the session opens
//! with `server/discover`, retried once in a listed version after -32022;
//! a result without `resultType` is complete; an `InputRequiredResult` is
//! answered (roots, a form with its defaults) and the call retried with a
//! new id, its `requestState` echoed as given, at most [`ROUNDS`] times.
//! A network `$ref` is never fetched (but for [`Quirk::FetchesRef`]).

use std::{
    ffi::OsString,
    io::{self, Read, Write},
    net::{TcpStream, ToSocketAddrs},
    time::Duration,
};

use serde_json::{Value, json};

use super::{Client, Outcome, Quirk, close, connect, mcp, report};
use crate::{
    capture::Framing,
    client::{MCP_STEPS, Step, StepKind},
};

/// The one revision this client speaks.
const MODERN: &str = "2026-07-28";

/// The most `InputRequiredResult`s one call is retried after.
const ROUNDS: usize = 3;

/// Runs the MCP series against `server` as a 2026-07-28 client; returns
/// the exit status.
pub fn run_mcp_modern(
    server: &[OsString],
    quirk: Quirk,
    framing: &Framing,
    out: &mut dyn Write,
) -> io::Result<i32> {
    let (child, mut client) = connect(server, quirk, framing)?;
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {"roots": {}, "elicitation": {"form": {}}},
    });
    if quirk != Quirk::NoClientInfo {
        meta["io.modelcontextprotocol/clientInfo"] =
            json!({"name": "rpcspec-reference-client", "version": env!("CARGO_PKG_VERSION")});
    }
    client.meta = Some(meta);
    let connected = open(&mut client, quirk);
    report(out, "connect", &connected)?;
    if !matches!(connected, Outcome::Result(_)) {
        for step in &MCP_STEPS[1..] {
            report(out, step.name, &Outcome::Failed("not connected".into()))?;
        }
        return close(child, &client);
    }
    let params = |s: &Step| -> Value { serde_json::from_str(s.params).unwrap_or(json!({})) };
    let tools = complete(client.call("tools/list", json!({})), quirk);
    if quirk == Quirk::FetchesRef
        && let Outcome::Result(r) = &tools
    {
        fetch_refs(r);
    }
    let names = map(tools, |v| {
        v.get("tools")
            .and_then(Value::as_array)
            .map(|t| t.iter().map(|t| t["name"].clone()).collect())
            .unwrap_or_default()
    });
    report(out, "tools", &names)?;
    for step in MCP_STEPS
        .iter()
        .filter(|s| s.name == "echo" || s.name == "tool-error")
    {
        let outcome = call(&mut client, quirk, step.method, params(step));
        report(out, step.name, &map(outcome, mcp::tool_outcome))?;
    }
    let calls: Vec<(&str, String, Value)> = MCP_STEPS
        .iter()
        .filter(|s| s.kind == StepKind::Concurrent)
        .map(|s| (s.method, s.name.to_owned(), params(s)))
        .collect();
    for (name, outcome) in client.together(&calls, false) {
        report(
            out,
            &name,
            &map(complete(outcome, quirk), mcp::tool_outcome),
        )?;
    }
    let slow = MCP_STEPS.iter().find(|s| s.name == "slow").expect("a step");
    let outcome = client.abandoned(slow.method, &params(slow), |id| json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id, "reason": "timed out"}}));
    report(out, "slow", &map(outcome, mcp::tool_outcome))?;
    let after = MCP_STEPS
        .iter()
        .find(|s| s.name == "after")
        .expect("a step");
    let outcome = call(&mut client, quirk, after.method, params(after));
    report(out, after.name, &map(outcome, mcp::tool_outcome))?;
    close(child, &client)
}

/// `server/discover`, once more after -32022 when the error lists
/// [`MODERN`]: the version settled on, or why not.
fn open(client: &mut Client, quirk: Quirk) -> Outcome {
    let lists = |v: &Value, at: &str| {
        v.pointer(at)
            .and_then(Value::as_array)
            .is_some_and(|s| s.iter().any(|v| v == MODERN))
    };
    let mut opened = complete(client.call("server/discover", json!({})), quirk);
    if let Outcome::Error(e) = &opened
        && e["code"] == -32022
        && lists(e, "/data/supported")
        && quirk != Quirk::NoVersionRetry
    {
        opened = complete(client.call("server/discover", json!({})), quirk);
    }
    match opened {
        Outcome::Result(r) if lists(&r, "/supportedVersions") => Outcome::Result(json!(MODERN)),
        Outcome::Result(r) => Outcome::Failed(format!(
            "the server supports {}, not {MODERN}",
            r.get("supportedVersions").cloned().unwrap_or_default()
        )),
        other => other,
    }
}

/// A call, retried after each `InputRequiredResult` (at most [`ROUNDS`]).
fn call(client: &mut Client, quirk: Quirk, method: &str, params: Value) -> Outcome {
    let mut outcome = client.call(method, params.clone());
    for _ in 0..ROUNDS {
        let Outcome::Result(r) = &outcome else { break };
        if r.get("resultType").and_then(Value::as_str) != Some("input_required") {
            break;
        }
        let mut retry = params.clone();
        if let Some(asked) = r.get("inputRequests").and_then(Value::as_object) {
            let answers: serde_json::Map<String, Value> = asked
                .iter()
                .map(|(k, req)| (k.clone(), answer(req, quirk)))
                .collect();
            retry["inputResponses"] = Value::Object(answers);
        }
        match r.get("requestState") {
            Some(Value::String(s)) if quirk == Quirk::AltersRequestState => {
                retry["requestState"] = json!(s.trim());
            }
            Some(state) => retry["requestState"] = state.clone(),
            None if quirk == Quirk::InventsRequestState => retry["requestState"] = json!(""),
            None => {}
        }
        if quirk == Quirk::LeaksInputResponses {
            for k in ["inputResponses", "requestState"] {
                if let Some(v) = retry.get(k) {
                    client.extra.insert(k.to_owned(), v.clone());
                }
            }
        }
        outcome = if quirk == Quirk::RetrySameId {
            let id = client.next_id;
            client.call_as(id, method, retry)
        } else {
            client.call(method, retry)
        };
    }
    complete(outcome, quirk)
}

/// The client's result for an input request: roots, a form accepted with
/// its defaults; an error object for what it did not declare.
fn answer(request: &Value, quirk: Quirk) -> Value {
    match request.get("method").and_then(Value::as_str) {
        Some("roots/list") => mcp::roots(),
        Some("elicitation/create") => mcp::elicited(request.get("params"), quirk),
        _ => json!({"action": "decline"}),
    }
}

/// A result as the client takes it: without `resultType`, complete
/// (2026-07-28 basic/index); of a type it does not know, invalid.
fn complete(outcome: Outcome, quirk: Quirk) -> Outcome {
    let Outcome::Result(r) = &outcome else {
        return outcome;
    };
    match r.get("resultType").and_then(Value::as_str) {
        None if quirk == Quirk::RequiresResultType => {
            Outcome::Failed("a result without `resultType`".into())
        }
        None | Some("complete" | "input_required") => outcome,
        Some(other) => Outcome::Failed(format!("a result of unknown resultType `{other}`")),
    }
}

/// `outcome` with its result shaped by `f`.
fn map(outcome: Outcome, f: impl Fn(&Value) -> Value) -> Outcome {
    match outcome {
        Outcome::Result(v) => Outcome::Result(f(&v)),
        other => other,
    }
}

/// [`Quirk::FetchesRef`]: GETs every `http://` `$ref` of the listed tools'
/// input schemas (1 s each at most).
fn fetch_refs(tools: &Value) {
    let mut refs = Vec::new();
    collect_refs(tools, &mut refs);
    for url in refs {
        let Some(rest) = url.strip_prefix("http://") else {
            continue;
        };
        let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
        let Some(addr) = host.to_socket_addrs().ok().and_then(|mut a| a.next()) else {
            continue;
        };
        if let Ok(mut s) = TcpStream::connect_timeout(&addr, Duration::from_secs(1)) {
            let _ = s.set_read_timeout(Some(Duration::from_secs(1)));
            let _ = write!(s, "GET /{path} HTTP/1.0\r\nHost: {host}\r\n\r\n");
            let _ = s.read(&mut [0; 512]);
        }
    }
}

fn collect_refs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(o) => {
            for (k, v) in o {
                match (k.as_str(), v) {
                    ("$ref", Value::String(s)) => out.push(s.clone()),
                    _ => collect_refs(v, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|v| collect_refs(v, out)),
        _ => {}
    }
}
