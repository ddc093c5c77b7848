//! `rpcspec-mutant-lsp NAME`: the reference language server (`rpcspec
//! serve --dialect lsp`: JSON-RPC 2.0 in Content-Length framing, LSP's
//! lifecycle) with one bug seen in real ones. `tests/lsp_self_test.rs`
//! runs the `lsp` suite against each and asserts which cases catch it.
//! `reference` is the unbroken server, on this file's own reader.

use std::{
    io::{self, Read, Write},
    process::ExitCode,
};

use rpcspec::serve::Server;
use serde_json::Value;

/// Every mutant: name and the bug it has.
const MUTANTS: &[(&str, &str)] = &[
    ("reference", "none: the reference language server"),
    (
        "length-in-characters",
        "reads a body of Content-Length characters, not bytes (racket-langserver #76)",
    ),
    (
        "one-read",
        "takes each read() as one whole message: the header, then the rest of the read as the body",
    ),
    (
        "length-off-by-one",
        "writes Content-Length one more than its body's length (scalameta/metals #3810)",
    ),
    (
        "case-sensitive-header",
        "reads only `Content-Length` spelt exactly so",
    ),
    (
        "no-reply-after-cancel",
        "drops the reply to a request cancelled in the same read (tower-lsp #281)",
    ),
    (
        "answers-before-initialize",
        "answers requests before initialize as usual, not with -32002",
    ),
    (
        "exit-zero-without-shutdown",
        "exits with status 0 on exit, shutdown or not",
    ),
    (
        "answers-after-shutdown",
        "answers requests after shutdown as usual, not with -32600",
    ),
    ("ignores-dollar-requests", "never answers a $/ request"),
    (
        "undeclared-request",
        "asks a client that declared no capability for workspace/configuration once initialized",
    ),
    (
        "notifies-before-initialized",
        "publishes diagnostics before its initialize result",
    ),
    ("string-ids", "echoes number ids as strings (1 -> \"1\")"),
    (
        "off-model",
        "declares `textDocumentSync: \"full\"` in its initialize result, a string where LSP's meta-model has TextDocumentSyncOptions | TextDocumentSyncKind (a number)",
    ),
];

fn main() -> ExitCode {
    let name = std::env::args().nth(1).unwrap_or_default();
    if !MUTANTS.iter().any(|(n, _)| *n == name) {
        eprintln!("usage: rpcspec-mutant-lsp NAME\n\nmutants:");
        for (n, bug) in MUTANTS {
            eprintln!("  {n:<28} {bug}");
        }
        return ExitCode::from(2);
    }
    match serve(&name, io::stdin().lock(), io::stdout().lock()) {
        Ok(Some(status)) => ExitCode::from(u8::try_from(status).unwrap_or(1)),
        Ok(None) => ExitCode::SUCCESS,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rpcspec-mutant-lsp: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Serves `input` as the mutant `name` until it ends or the client says
/// `exit` (then the status to exit with).
fn serve(name: &str, mut input: impl Read, mut output: impl Write) -> io::Result<Option<i32>> {
    let mut state = State {
        name: name.to_owned(),
        server: Server::new(&rpcspec::dialects::lsp::REFERENCE),
        initialized: false,
        shut_down: false,
        held: Vec::new(),
    };
    let mut buf = Vec::new();
    let mut chunk = vec![0; 64 * 1024];
    loop {
        let n = input.read(&mut chunk)?;
        if n == 0 {
            return Ok(None);
        }
        if name == "one-read" {
            buf.clear();
        }
        buf.extend_from_slice(&chunk[..n]);
        while let Some(body) = next_body(name, &mut buf) {
            if let Some(status) = state.take(&body) {
                state.flush(&mut output)?;
                return Ok(Some(status));
            }
        }
        state.flush(&mut output)?;
    }
}

/// The next whole body in `buf`, taken out of it, as the mutant reads.
fn next_body(name: &str, buf: &mut Vec<u8>) -> Option<Vec<u8>> {
    loop {
        let end = buf.windows(4).position(|w| w == b"\r\n\r\n")?;
        let header = String::from_utf8_lossy(&buf[..end]).into_owned();
        let start = end + 4;
        let length = header.split("\r\n").find_map(|line| {
            let (field, value) = line.split_once(':')?;
            let named = if name == "case-sensitive-header" {
                field == "Content-Length"
            } else {
                field.trim().eq_ignore_ascii_case("content-length")
            };
            named.then(|| value.trim().parse::<usize>().ok()).flatten()
        });
        let Some(length) = length else {
            // No length: the block is dropped, and reading goes on.
            buf.drain(..start);
            continue;
        };
        let stop = match name {
            "one-read" => buf.len(),
            "length-in-characters" => start + chars_end(&buf[start..], length)?,
            _ if buf.len() >= start + length => start + length,
            _ => return None,
        };
        let body = buf[start..stop].to_vec();
        buf.drain(..stop);
        return Some(body);
    }
}

/// Where `n` characters of UTF-8 end in `bytes`, if they all arrived.
fn chars_end(bytes: &[u8], n: usize) -> Option<usize> {
    let mut at = 0;
    for _ in 0..n {
        let lead = *bytes.get(at)?;
        at += match lead {
            0xF0.. => 4,
            0xE0.. => 3,
            0xC0.. => 2,
            _ => 1,
        };
    }
    (at <= bytes.len()).then_some(at)
}

struct State {
    name: String,
    server: Server,
    initialized: bool,
    shut_down: bool,
    /// Messages to write at the end of this read: the id each answers (if
    /// a reply), and its text.
    held: Vec<(Option<String>, String)>,
}

impl State {
    /// Takes one body; the exit status once the client said `exit`.
    fn take(&mut self, body: &[u8]) -> Option<i32> {
        let Ok(text) = std::str::from_utf8(body) else {
            let reply = self.server.unreadable();
            self.held.extend(reply.map(|r| (None, r)));
            return None;
        };
        let value: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        let method = value.get("method").and_then(Value::as_str).unwrap_or("");
        let id = value.get("id").map(Value::to_string);
        let request = id.is_some() && !method.is_empty();
        let name = self.name.as_str();
        if method == "$/cancelRequest" && name == "no-reply-after-cancel" {
            let cancelled = value.pointer("/params/id").map(Value::to_string);
            self.held.retain(|(id, _)| *id != cancelled || id.is_none());
        }
        if request && method.starts_with("$/") && name == "ignores-dollar-requests" {
            return None;
        }
        if method == "initialize" && name == "notifies-before-initialized" {
            let early = r#"{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"uri":"file:///rpcspec","diagnostics":[]}}"#;
            self.held.push((None, early.to_owned()));
        }
        let usual = request
            && ((!self.initialized
                && method != "initialize"
                && name == "answers-before-initialize")
                || (self.shut_down && name == "answers-after-shutdown"));
        let reply = if usual {
            let id = id.clone().unwrap_or_default();
            Some(format!(
                r#"{{"jsonrpc":"2.0","error":{{"code":-32601,"message":"Method not found"}},"id":{id}}}"#
            ))
        } else {
            self.server.respond(text)
        };
        if request && method == "initialize" {
            self.initialized = true;
        }
        if request && method == "shutdown" && self.initialized {
            self.shut_down = true;
        }
        if let Some(reply) = reply {
            let reply = match name {
                "string-ids" => stringify_id(&reply),
                "off-model" if method == "initialize" => off_model(&reply),
                _ => reply,
            };
            self.held.push((id, reply));
        }
        if method == "initialized" && name == "undeclared-request" {
            let ask = r#"{"jsonrpc":"2.0","id":"rpcspec-mutant-1","method":"workspace/configuration","params":{"items":[{"section":"rpcspec"}]}}"#;
            self.held.push((None, ask.to_owned()));
        }
        let status = self.server.exit()?;
        Some(if name == "exit-zero-without-shutdown" {
            0
        } else {
            status
        })
    }

    /// Writes what this read drew, each message framed, and flushes.
    fn flush(&mut self, output: &mut impl Write) -> io::Result<()> {
        for (_, text) in self.held.drain(..) {
            let extra = usize::from(self.name == "length-off-by-one");
            write!(
                output,
                "Content-Length: {}\r\n\r\n{text}",
                text.len() + extra
            )?;
        }
        output.flush()
    }
}

/// An initialize `reply` whose capabilities say `textDocumentSync: "full"`.
fn off_model(reply: &str) -> String {
    let Ok(mut value) = serde_json::from_str::<Value>(reply) else {
        return reply.to_owned();
    };
    if let Some(caps) = value.pointer_mut("/result/capabilities") {
        caps["textDocumentSync"] = Value::from("full");
    }
    value.to_string()
}

/// `reply` with a number `id` written as a string.
fn stringify_id(reply: &str) -> String {
    let Ok(mut value) = serde_json::from_str::<Value>(reply) else {
        return reply.to_owned();
    };
    if let Some(id) = value.get_mut("id").filter(|id| id.is_number()) {
        *id = Value::String(id.to_string());
    }
    value.to_string()
}
