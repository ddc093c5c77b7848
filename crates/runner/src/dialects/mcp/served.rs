//! The reference MCP server as `rpcspec serve --dialect mcp[@REVISION]`
//! runs it: [`super::reference`] serving on its own, in NDJSON (MCP's
//! stdio transport). Through the serving loop, only its envelope:
//! `initialize`, `ping`, no batches, and ids that are strings or integers.

use std::io::{self, Read, Write};

use rpcspec_matcher::{Dialect, Id, IdKind};
use serde_json::Value;

use super::{Revision, reference};
use crate::server::serve::{METHOD_NOT_FOUND, Methods, OwnServer, Reference};

/// The revisions the envelope speaks, newest first: it answers
/// `initialize` with the client's revision when it is one of these, else
/// with the newest (MCP basic/lifecycle, version negotiation).
const REVISIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26"];

/// The reference MCP server.
pub const REFERENCE: Reference = Reference {
    reads: || Dialect::Mcp,
    version: true,
    batches: false,
    echoes: Some(request_id),
    methods: || Box::new(Envelope),
    own: Some(OwnServer {
        stdio: |revision, fixtures, output| {
            let server = server(revision);
            let server = if fixtures {
                server.with_fixtures()
            } else {
                server
            };
            reference::serve(server, io::stdin(), output)
        },
        blocking: |revision, input: &mut dyn Read, output: &mut dyn Write| {
            reference::serve_blocking(server(revision), input, output)
        },
    }),
};

/// The reference MCP server of every revision, or of `revision` alone.
fn server(revision: Option<&str>) -> reference::Server {
    match revision.and_then(|r| r.parse::<Revision>().ok()) {
        Some(revision) => reference::Server::new(&[revision]),
        None => reference::Server::new(Revision::ALL),
    }
}

/// Whether MCP takes `id` as a request id: a string, or an integer.
fn request_id(id: &Id) -> bool {
    match id.kind() {
        IdKind::String => true,
        IdKind::Number => !id.raw().contains(['.', 'e', 'E']),
        IdKind::Null => false,
    }
}

/// MCP's envelope: `initialize` and `ping`.
#[derive(Debug)]
struct Envelope;

impl Methods for Envelope {
    fn call(&mut self, method: &str, params: Option<Value>) -> Result<Value, (i64, &'static str)> {
        match method {
            "initialize" => {
                let asked = params
                    .as_ref()
                    .and_then(|p| p.get("protocolVersion"))
                    .and_then(Value::as_str);
                let version = REVISIONS
                    .iter()
                    .find(|v| Some(**v) == asked)
                    .unwrap_or(&REVISIONS[0]);
                Ok(serde_json::json!({
                    "protocolVersion": version,
                    "capabilities": {},
                    "serverInfo": {"name": "rpcspec-reference", "version": env!("CARGO_PKG_VERSION")},
                }))
            }
            "ping" => Ok(serde_json::json!({})),
            _ => Err((METHOD_NOT_FOUND, "Method not found")),
        }
    }
}
