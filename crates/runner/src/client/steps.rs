//! The adapters' series of calls, one per protocol
//! (`spec-cases/client/README.md`): what each step sends and what it is
//! reported under.

use super::{Step, StepKind};

/// The adapter's series, in order (`spec-cases/client/README.md`).
pub const STEPS: [Step; 10] = [
    Step {
        name: "positional",
        method: "subtract",
        params: "[42,23]",
        kind: StepKind::Call,
    },
    Step {
        name: "named",
        method: "subtract",
        params: r#"{"minuend":42,"subtrahend":23}"#,
        kind: StepKind::Call,
    },
    Step {
        name: "notify",
        method: "update",
        params: "[1,2,3]",
        kind: StepKind::Notify,
    },
    Step {
        name: "error",
        method: "fail",
        params: r#"{"why":"asked"}"#,
        kind: StepKind::Call,
    },
    Step {
        name: "echo-a",
        method: "echo",
        params: r#"["a"]"#,
        kind: StepKind::Concurrent,
    },
    Step {
        name: "echo-b",
        method: "echo",
        params: r#"["b"]"#,
        kind: StepKind::Concurrent,
    },
    Step {
        name: "echo-c",
        method: "echo",
        params: r#"["c"]"#,
        kind: StepKind::Concurrent,
    },
    Step {
        name: "batch-x",
        method: "echo",
        params: r#"["x"]"#,
        kind: StepKind::Batch,
    },
    Step {
        name: "batch-y",
        method: "echo",
        params: r#"["y"]"#,
        kind: StepKind::Batch,
    },
    Step {
        name: "after",
        method: "subtract",
        params: "[5,3]",
        kind: StepKind::Call,
    },
];

/// The MCP adapter's series, in order (`spec-cases/client/README.md`).
/// `params` is a pattern: the request's params must hold it (an empty
/// pattern holds anything).
pub const MCP_STEPS: [Step; 9] = [
    Step {
        name: "connect",
        method: "initialize",
        params: "",
        kind: StepKind::Connect,
    },
    Step {
        name: "tools",
        method: "tools/list",
        params: "",
        kind: StepKind::Call,
    },
    Step {
        name: "echo",
        method: "tools/call",
        params: r#"{"name":"echo","arguments":{"text":"hi"}}"#,
        kind: StepKind::Call,
    },
    Step {
        name: "tool-error",
        method: "tools/call",
        params: r#"{"name":"fail"}"#,
        kind: StepKind::Call,
    },
    Step {
        name: "echo-a",
        method: "tools/call",
        params: r#"{"name":"echo","arguments":{"text":"a"}}"#,
        kind: StepKind::Concurrent,
    },
    Step {
        name: "echo-b",
        method: "tools/call",
        params: r#"{"name":"echo","arguments":{"text":"b"}}"#,
        kind: StepKind::Concurrent,
    },
    Step {
        name: "echo-c",
        method: "tools/call",
        params: r#"{"name":"echo","arguments":{"text":"c"}}"#,
        kind: StepKind::Concurrent,
    },
    Step {
        name: "slow",
        method: "tools/call",
        params: r#"{"name":"slow","arguments":{"ms":10000}}"#,
        kind: StepKind::Abandoned,
    },
    Step {
        name: "after",
        method: "tools/call",
        params: r#"{"name":"echo","arguments":{"text":"after"}}"#,
        kind: StepKind::Call,
    },
];

/// The LSP adapter's series, in order (`spec-cases/client/README.md`):
/// the lifecycle around calls of the scripted language server's own
/// methods (`rpcspec/…`), which any LSP client library can send.
pub const LSP_STEPS: [Step; 9] = [
    Step {
        name: "initialize",
        method: "initialize",
        params: "",
        kind: StepKind::Connect,
    },
    Step {
        name: "hover",
        method: "textDocument/hover",
        params: r#"{"position":{"line":0,"character":0}}"#,
        kind: StepKind::Call,
    },
    Step {
        name: "error",
        method: "rpcspec/fail",
        params: "",
        kind: StepKind::Call,
    },
    Step {
        name: "echo-a",
        method: "rpcspec/echo",
        params: r#"{"text":"a"}"#,
        kind: StepKind::Concurrent,
    },
    Step {
        name: "echo-b",
        method: "rpcspec/echo",
        params: r#"{"text":"b"}"#,
        kind: StepKind::Concurrent,
    },
    Step {
        name: "echo-c",
        method: "rpcspec/echo",
        params: r#"{"text":"c"}"#,
        kind: StepKind::Concurrent,
    },
    Step {
        name: "slow",
        method: "rpcspec/slow",
        params: r#"{"ms":10000}"#,
        kind: StepKind::Abandoned,
    },
    Step {
        name: "after",
        method: "rpcspec/echo",
        params: r#"{"text":"after"}"#,
        kind: StepKind::Call,
    },
    Step {
        name: "shutdown",
        method: "shutdown",
        params: "",
        kind: StepKind::Call,
    },
];

/// The adapter's series in Claude's protocol
/// (`spec-cases/client/README.md`). `method` is the control request or
/// record the step sends.
pub const CLAUDE_STEPS: [Step; 7] = [
    Step {
        name: "connect",
        method: "initialize",
        params: "",
        kind: StepKind::Connect,
    },
    Step {
        name: "turn",
        method: "user",
        params: "",
        kind: StepKind::Call,
    },
    Step {
        name: "permission-mode",
        method: "set_permission_mode",
        params: r#"{"mode":"acceptEdits"}"#,
        kind: StepKind::Call,
    },
    Step {
        name: "model",
        method: "set_model",
        params: r#"{"model":"rpcspec-model"}"#,
        kind: StepKind::Call,
    },
    Step {
        name: "interrupt",
        method: "interrupt",
        params: "",
        kind: StepKind::Call,
    },
    Step {
        name: "turn-2",
        method: "user",
        params: "",
        kind: StepKind::Call,
    },
    Step {
        name: "close",
        method: "",
        params: "",
        kind: StepKind::Notify,
    },
];

/// The adapter's series against Codex's exec stream
/// (`spec-cases/client/README.md`): one turn, one process. `method` is
/// the CLI's subcommand.
pub const CODEX_EXEC_STEPS: [Step; 1] = [Step {
    name: "turn",
    method: "exec",
    params: "",
    kind: StepKind::Call,
}];

/// The adapter's series against the Codex app-server
/// (`spec-cases/client/README.md`). `method` is the request the step
/// sends.
pub const CODEX_STEPS: [Step; 4] = [
    Step {
        name: "connect",
        method: "initialize",
        params: "",
        kind: StepKind::Connect,
    },
    Step {
        name: "thread",
        method: "thread/start",
        params: "",
        kind: StepKind::Call,
    },
    Step {
        name: "turn",
        method: "turn/start",
        params: "",
        kind: StepKind::Call,
    },
    Step {
        name: "close",
        method: "",
        params: "",
        kind: StepKind::Notify,
    },
];
