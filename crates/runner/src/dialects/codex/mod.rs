//! The Codex app-server, as the client role plays it: a host drives a
//! scripted app-server.

use rpcspec_matcher::Dialect;

use crate::{
    client::{agent::AgentCli, codex},
    dialects::{Framed, Peer, Playing},
};

/// What the client role does in Codex's app-server protocol: the scenarios
/// of `client/codex/`, behind a scripted app-server.
pub const PLAYING: Playing = Playing {
    folder: "client/codex/",
    label: "Codex host",
    steps: &crate::client::CODEX_STEPS,
    framing: Some((Framed::Ndjson, "Codex's app-server speaks NDJSON")),
    peer: Peer::Codex,
    // the scripted app-server, started as `codex`.
    cli: Some(AgentCli {
        command: "codex",
        launcher: codex::launcher,
        script: |sc| Box::new(codex::script::AppServer::new(sc)),
        lingers: false,
    }),
    held: |method, _| method == "echo",
    // The app-server's JSON-RPC: `"jsonrpc"` left out.
    messages: Some(|| Dialect::Lenient),
    server_request: None,
    scenario_level: &[],
    shaped: true,
    // The CLI is its own framing's: NDJSON.
    reference: |cli, _, _, out| {
        use crate::client::reference::{HostQuirk, run_codex_host};
        run_codex_host(cli, HostQuirk::None, out)
    },
};
