//! The Codex CLI's `exec --json` event stream, as the client role plays
//! it: a decoder reads a scripted `codex exec`.

use crate::{
    client::{agent::AgentCli, codex_exec},
    dialects::{Framed, Peer, Playing},
};

/// What the client role does in codex-exec: the scenarios of
/// `client/codex-exec/`, behind a scripted `codex exec`.
pub const PLAYING: Playing = Playing {
    folder: "client/codex-exec/",
    label: "codex-exec",
    steps: &crate::client::CODEX_EXEC_STEPS,
    framing: Some((Framed::Ndjson, "Codex's exec stream is NDJSON")),
    peer: Peer::CodexExec,
    // Started as `codex`; its session is the CLI's to grade.
    cli: Some(AgentCli {
        command: "codex",
        launcher: codex_exec::launcher,
        script: |sc| Box::new(codex_exec::script::Exec::new(sc)),
        lingers: false,
    }),
    // A decoder writes its prompt, no messages.
    messages: None,
    server_request: None,
    // The CLI is its own framing's: NDJSON.
    reference: |cli, _, _, out| {
        use crate::client::reference::{ExecQuirk, run_codex_exec};
        run_codex_exec(cli, ExecQuirk::None, out)
    },
    ..Playing::PLAIN
};
