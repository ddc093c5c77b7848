//! The ACP client's series (`spec-cases/client/README.md`, "ACP
//! clients"): the adapter's steps and what the scripted agent names in
//! them. Data, read by the script ([`super::played`]) and the reference
//! client ([`super::client`]).

use std::time::Duration;

use crate::client::{Step, StepKind};

/// The session id the scripted agent gives.
pub const SESSION_ID: &str = "rpcspec-session-1";

/// The text of the one `agent_message_chunk` every turn opens with.
pub const TURN_TEXT: &str = "rpcspec: working";

/// The prompt text of the turn the adapter cancels.
pub const CANCEL_ME: &str = "rpcspec: cancel me";

/// The longest the cancelled turn waits for its cancel.
pub const CANCEL_WAIT: Duration = Duration::from_secs(10);

/// The scripted agent's name, in its `initialize` result.
pub const AGENT_NAME: &str = "rpcspec-scripted-agent";

/// The ACP adapter's series, in order (`spec-cases/client/README.md`).
pub const STEPS: [Step; 9] = [
    Step {
        name: "initialize",
        method: "initialize",
        params: "",
        kind: StepKind::Connect,
    },
    Step {
        name: "session",
        method: "session/new",
        params: "",
        kind: StepKind::Call,
    },
    Step {
        name: "prompt",
        method: "session/prompt",
        params: r#"{"prompt":[{"type":"text","text":"rpcspec: hello"}]}"#,
        kind: StepKind::Call,
    },
    Step {
        name: "error",
        method: "_rpcspec/fail",
        params: "",
        kind: StepKind::Call,
    },
    Step {
        name: "echo-a",
        method: "_rpcspec/echo",
        params: r#"{"text":"a"}"#,
        kind: StepKind::Concurrent,
    },
    Step {
        name: "echo-b",
        method: "_rpcspec/echo",
        params: r#"{"text":"b"}"#,
        kind: StepKind::Concurrent,
    },
    Step {
        name: "echo-c",
        method: "_rpcspec/echo",
        params: r#"{"text":"c"}"#,
        kind: StepKind::Concurrent,
    },
    Step {
        name: "cancel",
        method: "session/prompt",
        params: r#"{"prompt":[{"type":"text","text":"rpcspec: cancel me"}]}"#,
        kind: StepKind::Call,
    },
    Step {
        name: "after",
        method: "session/prompt",
        params: r#"{"prompt":[{"type":"text","text":"rpcspec: again"}]}"#,
        kind: StepKind::Call,
    },
];
