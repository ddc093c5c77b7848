//! `rpcspec-mutant-codex NAME`: the reference Codex app-server (`rpcspec
//! serve --dialect codex`: JSON-RPC 2.0 without `"jsonrpc"`, `initialize`
//! first) with one lifecycle bug. `tests/codex_self_test.rs` runs the
//! `codex/…` cases against each and asserts which cases catch it.
//! `reference` is the unbroken server, on this file's own line reader.

use std::{
    io::{self, BufRead, Write},
    process::ExitCode,
};

use rpcspec::serve::Server;
use serde_json::{Value, json};

/// Every mutant: name and the bug it has.
const MUTANTS: &[(&str, &str)] = &[
    ("reference", "none: the reference Codex app-server"),
    (
        "serves-before-initialize",
        "answers requests before initialize as it would after it",
    ),
    (
        "initializes-twice",
        "answers a second initialize with a result, as the first",
    ),
    (
        "no-user-agent",
        "answers initialize with an empty result, no userAgent",
    ),
    (
        "unknown-method-first",
        "refuses an unknown method before initialize as unknown (-32600 \"Invalid request: unknown variant\"), not as \"Not initialized\", as @openai/codex 0.171.0 does",
    ),
    (
        "other-message",
        "refuses a request before initialize with \"Server not initialized\", not the README's \"Not initialized\"",
    ),
];

/// The methods the reference knows.
const KNOWN: &[&str] = &["initialize", "account/read"];

const INITIALIZE: &str = r#"{"id": 0, "method": "initialize", "params": {"clientInfo": {"name": "mutant", "version": "0"}}}"#;

fn main() -> ExitCode {
    let name = std::env::args().nth(1).unwrap_or_default();
    if !MUTANTS.iter().any(|(n, _)| *n == name) {
        eprintln!("usage: rpcspec-mutant-codex NAME\n\nmutants:");
        for (n, bug) in MUTANTS {
            eprintln!("  {n:<28} {bug}");
        }
        return ExitCode::from(2);
    }
    match serve(&name, io::stdin().lock(), io::stdout().lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rpcspec-mutant-codex: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Serves `input` line by line as the mutant `name` until it ends.
fn serve(name: &str, mut input: impl BufRead, mut output: impl Write) -> io::Result<()> {
    let mut server = Server::new(&rpcspec::dialects::codex::REFERENCE);
    // A server already past its handshake, for the mutant that serves
    // before it.
    let mut ready = Server::new(&rpcspec::dialects::codex::REFERENCE);
    ready.respond(INITIALIZE);
    let mut initialized = false;
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(());
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\n', '\r']);
        let message: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        let method = message.get("method").and_then(Value::as_str);
        let id = message.get("id").filter(|_| method.is_some()).cloned();
        let reply = match (name, method, id) {
            ("serves-before-initialize", Some(m), Some(_)) if !initialized && m != "initialize" => {
                ready.respond(text)
            }
            ("initializes-twice", Some("initialize"), Some(_)) if initialized => {
                Server::new(&rpcspec::dialects::codex::REFERENCE).respond(text)
            }
            ("no-user-agent", Some("initialize"), Some(id)) if !initialized => {
                server.respond(text);
                Some(json!({"id": id, "result": {}}).to_string())
            }
            ("unknown-method-first", Some(m), Some(id)) if !initialized && !KNOWN.contains(&m) => {
                let message = format!("Invalid request: unknown variant `{m}`");
                Some(json!({"id": id, "error": {"code": -32600, "message": message}}).to_string())
            }
            ("other-message", Some(m), Some(id)) if !initialized && m != "initialize" => {
                let error = json!({"code": -32600, "message": "Server not initialized"});
                Some(json!({"id": id, "error": error}).to_string())
            }
            _ => server.respond(text),
        };
        initialized |= method == Some("initialize");
        if let Some(reply) = reply {
            writeln!(output, "{reply}")?;
            output.flush()?;
        }
    }
}
