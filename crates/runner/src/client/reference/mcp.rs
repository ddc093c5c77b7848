//! The reference MCP client: the MCP series ([`crate::client::MCP_STEPS`])
//! as a 2025-11-25 client that declares `roots` and `elicitation` (and
//! answers a form with its defaults).

use std::{
    ffi::OsString,
    io::{self, Write},
};

use serde_json::{Value, json};

use super::{Outcome, Quirk, close, connect};
use crate::{capture::Framing, client::StepKind};

/// The MCP revisions the reference client speaks (it offers the newest).
const MCP_VERSIONS: [&str; 2] = ["2025-11-25", "2025-06-18"];

/// What the contract has an MCP adapter report of a tool call's result.
pub(super) fn tool_outcome(v: &Value) -> Value {
    let text = v
        .get("content")
        .and_then(Value::as_array)
        .and_then(|c| c.iter().find(|i| i["type"] == "text"))
        .map(|i| i["text"].clone())
        .unwrap_or_default();
    let is_error = v.get("isError").and_then(Value::as_bool).unwrap_or(false);
    json!({"text": text, "isError": is_error})
}

/// The answer to `roots/list`.
pub(super) fn roots() -> Value {
    json!({"roots": [{"uri": "file:///tmp/rpcspec", "name": "rpcspec"}]})
}

/// The answer to `elicitation/create` with `params`: the form accepted as
/// presented, each field its default (as text, whatever its type, with
/// [`Quirk::DefaultsAsText`]).
pub(super) fn elicited(params: Option<&Value>, quirk: Quirk) -> Value {
    let mut content = serde_json::Map::new();
    let fields = params
        .and_then(|p| p.pointer("/requestedSchema/properties"))
        .and_then(Value::as_object);
    for (name, schema) in fields.into_iter().flatten() {
        if let Some(d) = schema.get("default") {
            let d = match d {
                Value::String(_) => d.clone(),
                other if quirk == Quirk::DefaultsAsText => Value::from(other.to_string()),
                other => other.clone(),
            };
            content.insert(name.clone(), d);
        }
    }
    json!({"action": "accept", "content": content})
}

/// Runs the MCP series ([`super::MCP_STEPS`]) against `server`, as a
/// 2025-11-25 client that declares `roots`; returns the exit status.
pub fn run_mcp(
    server: &[OsString],
    quirk: Quirk,
    framing: &Framing,
    out: &mut dyn Write,
) -> io::Result<i32> {
    use crate::client::MCP_STEPS;
    let (child, mut client) = connect(server, quirk, framing)?;
    let report = |out: &mut dyn Write,
                  step: &str,
                  outcome: &Outcome,
                  shape: &dyn Fn(&Value) -> Value|
     -> io::Result<()> {
        let line = match outcome {
            Outcome::Result(v) => json!({"step": step, "result": shape(v)}),
            Outcome::Error(v) => json!({"step": step, "error": v}),
            Outcome::Failed(why) => json!({"step": step, "failed": why}),
        };
        writeln!(out, "{line}")?;
        out.flush()
    };
    let same = |v: &Value| v.clone();
    let names = |v: &Value| -> Value {
        v.get("tools")
            .and_then(Value::as_array)
            .map(|t| t.iter().map(|t| t["name"].clone()).collect())
            .unwrap_or_default()
    };
    let params =
        |s: &crate::client::Step| -> Value { serde_json::from_str(s.params).unwrap_or(json!({})) };
    let opened = client.call(
        "initialize",
        json!({
            "protocolVersion": MCP_VERSIONS[0],
            "capabilities": {"roots": {"listChanged": false}, "elicitation": {}},
            "clientInfo": {"name": "rpcspec-reference-client", "version": env!("CARGO_PKG_VERSION")},
        }),
    );
    let version = match &opened {
        Outcome::Result(r) => r["protocolVersion"].as_str().unwrap_or_default().to_owned(),
        _ => String::new(),
    };
    let speaks = MCP_VERSIONS.contains(&version.as_str()) || quirk == Quirk::AcceptsAnyVersion;
    let connected = match (&opened, speaks) {
        (Outcome::Result(_), true) => Outcome::Result(json!(version)),
        (Outcome::Result(_), false) => Outcome::Failed(format!(
            "the server answered with protocol version {version}, which this client does not speak"
        )),
        (other, _) => other.clone(),
    };
    report(out, "connect", &connected, &same)?;
    if !matches!(connected, Outcome::Result(_)) {
        for step in &MCP_STEPS[1..] {
            report(
                out,
                step.name,
                &Outcome::Failed("not connected".into()),
                &same,
            )?;
        }
        return close(child, &client);
    }
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    if quirk != Quirk::RequestsBeforeInitialized {
        let _ = client.write(&initialized);
    }
    let tools = client.call("tools/list", json!({}));
    report(out, "tools", &tools, &names)?;
    if quirk == Quirk::RequestsBeforeInitialized {
        let _ = client.write(&initialized);
    }
    for step in MCP_STEPS
        .iter()
        .filter(|s| s.name == "echo" || s.name == "tool-error")
    {
        let outcome = client.call(step.method, params(step));
        report(out, step.name, &outcome, &tool_outcome)?;
    }
    let calls: Vec<(&str, String, Value)> = MCP_STEPS
        .iter()
        .filter(|s| s.kind == StepKind::Concurrent)
        .map(|s| (s.method, s.name.to_owned(), params(s)))
        .collect();
    for (name, outcome) in client.together(&calls, false) {
        report(out, &name, &outcome, &tool_outcome)?;
    }
    let slow = MCP_STEPS.iter().find(|s| s.name == "slow").expect("a step");
    let outcome = client.abandoned(slow.method, &params(slow), |id| json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id, "reason": "timed out"}}));
    report(out, "slow", &outcome, &tool_outcome)?;
    let after = MCP_STEPS
        .iter()
        .find(|s| s.name == "after")
        .expect("a step");
    let outcome = client.call(after.method, params(after));
    report(out, after.name, &outcome, &tool_outcome)?;
    close(child, &client)
}
