//! Claude Code's stream-json and its control protocol, as the client role
//! plays it: an SDK drives a scripted CLI.

use rpcspec_matcher::Dialect;

use crate::{
    client::{agent::AgentCli, claude},
    dialects::{Framed, Peer, Playing},
};

/// What the client role does in Claude's protocol: the scenarios of
/// `client/claude/`, behind a scripted Claude Code CLI.
pub const PLAYING: Playing = Playing {
    folder: "client/claude/",
    label: "Claude",
    steps: &crate::client::CLAUDE_STEPS,
    framing: Some((Framed::Ndjson, "Claude's SDKs speak NDJSON (stream-json)")),
    peer: Peer::Claude,
    // An SDK starts `claude`; a CLI it leaves running once its adapter
    // exited is a finding. Its session is the CLI's to grade.
    cli: Some(AgentCli {
        command: "claude",
        launcher: claude::launcher,
        script: |sc| Box::new(claude::script::Cli::new(sc)),
        lingers: true,
    }),
    messages: Some(|| Dialect::Claude),
    server_request: None,
    // A scenario of SHOULD feeds the SDK a malformed control request: the
    // response it makes of it is judged at that level.
    scenario_level: &["claude.control-response"],
    // The CLI is its own framing's: NDJSON.
    reference: |cli, _, _, out| {
        use crate::client::reference::{SdkQuirk, run_claude};
        run_claude(cli, SdkQuirk::None, out)
    },
    ..Playing::PLAIN
};
