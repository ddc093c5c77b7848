//! The reference language client: the LSP series
//! ([`crate::client::LSP_STEPS`]) in Content-Length framing.

use std::{
    ffi::OsString,
    io::{self, Write},
    time::Instant,
};

use serde_json::{Value, json};

use super::{Outcome, Quirk, close, connect};
use crate::{
    capture::Framing,
    client::{CALL_TIMEOUT, StepKind},
};

/// The capabilities the reference language client declares: those that
/// let a server ask it something.
fn lsp_capabilities() -> Value {
    json!({"window": {"workDoneProgress": true},
        "workspace": {"configuration": true, "codeLens": {"refreshSupport": true}}})
}

/// Runs the LSP series ([`super::LSP_STEPS`]) against `server` in
/// Content-Length framing, as a language client that declares
/// `window.workDoneProgress`, `workspace.configuration` and
/// `workspace.codeLens.refreshSupport`; returns the exit status.
pub fn run_lsp(
    server: &[OsString],
    quirk: Quirk,
    _framing: &Framing,
    out: &mut dyn Write,
) -> io::Result<i32> {
    use crate::client::LSP_STEPS;
    let (child, mut client) = connect(server, quirk, &Framing::content_length())?;
    let report = |out: &mut dyn Write, step: &str, outcome: &Outcome, at: &str| -> io::Result<()> {
        let line = match outcome {
            Outcome::Result(v) if at.is_empty() => json!({"step": step, "result": v}),
            Outcome::Result(v) => {
                json!({"step": step, "result": v.pointer(at).cloned().unwrap_or_default()})
            }
            Outcome::Error(v) => json!({"step": step, "error": v}),
            Outcome::Failed(why) => json!({"step": step, "failed": why}),
        };
        writeln!(out, "{line}")?;
        out.flush()
    };
    let params =
        |s: &crate::client::Step| -> Value { serde_json::from_str(s.params).unwrap_or(json!({})) };
    let mut init = json!({
        "processId": std::process::id(),
        "rootUri": null,
        "clientInfo": {"name": "rpcspec-reference-client", "version": env!("CARGO_PKG_VERSION")},
        "capabilities": lsp_capabilities(),
    });
    if quirk == Quirk::NoRootUri {
        init.as_object_mut().map(|o| o.remove("rootUri"));
    }
    let initialized = json!({"jsonrpc": "2.0", "method": "initialized", "params": {}});
    let opened = if quirk == Quirk::EagerInitialized {
        let id = client.id();
        match client.expect(id) {
            Err(why) => Outcome::Failed(why),
            Ok(rx) => {
                let _ = client.write(&client.message("initialize", &init, Some(id)));
                let _ = client.write(&initialized);
                client.wait(&rx, Instant::now() + CALL_TIMEOUT)
            }
        }
    } else {
        client.call("initialize", init)
    };
    report(out, "initialize", &opened, "/serverInfo/name")?;
    if !matches!(opened, Outcome::Result(_)) {
        for step in &LSP_STEPS[1..] {
            report(
                out,
                step.name,
                &Outcome::Failed("not initialized".into()),
                "",
            )?;
        }
        return close(child, &client);
    }
    if !matches!(quirk, Quirk::NoInitialized | Quirk::EagerInitialized) {
        let _ = client.write(&initialized);
    }
    let hover = json!({"textDocument": {"uri": "file:///rpcspec/a.txt"},
        "position": {"line": 0, "character": 0}});
    let outcome = client.call("textDocument/hover", hover);
    report(out, "hover", &outcome, "/contents/value")?;
    let outcome = client.call("rpcspec/fail", json!({}));
    report(out, "error", &outcome, "")?;
    let calls: Vec<(&str, String, Value)> = LSP_STEPS
        .iter()
        .filter(|s| s.kind == StepKind::Concurrent)
        .map(|s| (s.method, s.name.to_owned(), params(s)))
        .collect();
    for (name, outcome) in client.together(&calls, false) {
        report(out, &name, &outcome, "")?;
    }
    let slow = LSP_STEPS.iter().find(|s| s.name == "slow").expect("a step");
    let outcome = client.abandoned(
        slow.method,
        &params(slow),
        |id| json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": id}}),
    );
    report(out, "slow", &outcome, "")?;
    let after = LSP_STEPS
        .iter()
        .find(|s| s.name == "after")
        .expect("a step");
    let outcome = client.call(after.method, params(after));
    report(out, after.name, &outcome, "")?;
    if quirk == Quirk::NoShutdown {
        let skipped = json!({"step": "shutdown", "skipped": "this client does not shut down"});
        writeln!(out, "{skipped}")?;
        return close(child, &client);
    }
    let outcome = client.call("shutdown", Value::Null);
    report(out, "shutdown", &outcome, "")?;
    if quirk == Quirk::RequestAfterShutdown {
        let _ = client.call("rpcspec/echo", json!({"text": "late"}));
    }
    let _ = client.write(&json!({"jsonrpc": "2.0", "method": "exit"}));
    close(child, &client)
}
