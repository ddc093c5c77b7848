//! The Codex app-server, as the client role plays it: a host drives a
//! scripted app-server.

use rpcspec_matcher::Dialect;
use serde_json::Value;

use crate::{
    client::{agent::AgentCli, codex},
    dialects::{Framed, Peer, Playing},
    server::serve::{EXAMPLES, INVALID_REQUEST, METHOD_NOT_FOUND, Methods, Reference},
};

/// The reference app-server: lenient, answering "Not initialized" until
/// `initialize`, as the Codex app-server does, with `account/read` and no
/// batches.
pub const REFERENCE: Reference = Reference {
    reads: || Dialect::Lenient,
    version: false,
    batches: false,
    methods: || Box::new(AppServer::default()),
    ..EXAMPLES
};

/// The app-server's methods: whether `initialize` has come.
#[derive(Debug, Default)]
struct AppServer {
    initialized: bool,
}

impl Methods for AppServer {
    fn call(&mut self, method: &str, params: Option<Value>) -> Result<Value, (i64, &'static str)> {
        match method {
            "initialize" if self.initialized => Err((INVALID_REQUEST, "Already initialized")),
            "initialize" => {
                self.initialized = true;
                Ok(
                    serde_json::json!({"userAgent": concat!("rpcspec-reference/", env!("CARGO_PKG_VERSION"))}),
                )
            }
            _ if !self.initialized => Err((INVALID_REQUEST, "Not initialized")),
            // The one method that needs no login; like the app-server, it
            // takes an object of params, empty.
            "account/read" => match params {
                Some(Value::Object(_)) => {
                    Ok(serde_json::json!({"account": null, "requiresOpenaiAuth": true}))
                }
                _ => Err((INVALID_REQUEST, "Invalid request: missing field `params`")),
            },
            _ => Err((METHOD_NOT_FOUND, "Method not found")),
        }
    }

    fn notification(&mut self, method: &str, params: Option<Value>) {
        if method != "initialized" {
            let _ = self.call(method, params);
        }
    }
}

/// What the client role does in Codex's app-server protocol: the scenarios
/// of `client/codex/`, behind a scripted app-server.
pub const PLAYING: Playing = Playing {
    folder: "client/codex/",
    label: "Codex host",
    steps: &crate::client::CODEX_STEPS,
    framing: Some((Framed::Ndjson, "Codex's app-server speaks NDJSON")),
    peer: Peer::Codex,
    // Started as `codex`; its session is the app-server's to grade.
    cli: Some(AgentCli {
        command: "codex",
        launcher: codex::launcher,
        script: |sc| Box::new(codex::script::AppServer::new(sc)),
        lingers: false,
    }),
    // The app-server's JSON-RPC: `"jsonrpc"` left out.
    messages: Some(|| Dialect::Lenient),
    server_request: None,
    // The CLI is its own framing's: NDJSON.
    reference: |cli, _, _, out| {
        use crate::client::reference::{HostQuirk, run_codex_host};
        run_codex_host(cli, HostQuirk::None, out)
    },
    ..Playing::PLAIN
};
