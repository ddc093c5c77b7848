//! The reference agent (`rpcspec serve --dialect acp`): ACP version 1 with
//! an echo for a model. It declares no capability beyond the baseline,
//! offers no login, opens sessions, and answers each prompt turn by
//! sending the prompt's text back in a `session/update`, then `end_turn`.
//! Sans-IO: a state machine over calls.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::server::serve::{EXAMPLES, INVALID_PARAMS, METHOD_NOT_FOUND, Methods, Reference};

/// The reference agent, as the server role serves it.
pub const REFERENCE: Reference = Reference {
    // A batch is JSON-RPC 2.0's (§6), taken as §6 says.
    methods: || Box::new(Agent::default()),
    ..EXAMPLES
};

/// The agent's state: its sessions, and what it said during the last call.
#[derive(Debug, Default)]
struct Agent {
    sessions: BTreeSet<String>,
    opened: usize,
    said: Vec<Value>,
}

type Answer = Result<Value, (i64, &'static str)>;

const BAD_PARAMS: (i64, &str) = (INVALID_PARAMS, "Invalid params");

impl Methods for Agent {
    fn call(&mut self, method: &str, params: Option<Value>) -> Answer {
        let params = params.unwrap_or(Value::Null);
        match method {
            // "If the Agent supports the requested version, it MUST
            // respond with the same version. Otherwise, the Agent MUST
            // respond with the latest version it supports": 1 either way.
            "initialize" => match params.get("protocolVersion").map(Value::as_u64) {
                Some(Some(_)) => Ok(json!({
                    "protocolVersion": 1,
                    "agentCapabilities": {
                        "loadSession": false,
                        "promptCapabilities": {"image": false, "audio": false, "embeddedContext": false},
                    },
                    "authMethods": [],
                    "agentInfo": {"name": "rpcspec-reference-agent", "version": env!("CARGO_PKG_VERSION")},
                })),
                _ => Err(BAD_PARAMS),
            },
            "session/new" => self.open(&params),
            "session/prompt" => self.prompt(&params),
            // No method is offered, no mode is kept.
            "authenticate" | "session/set_mode" => Err(BAD_PARAMS),
            _ => Err((METHOD_NOT_FOUND, "Method not found")),
        }
    }

    /// `session/cancel` ends a turn (none is ever running: each is
    /// answered at once); `$/cancel_request` and extensions' notifications
    /// are ignored.
    fn notification(&mut self, _method: &str, _params: Option<Value>) {}

    fn said(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.said)
    }
}

impl Agent {
    fn open(&mut self, params: &Value) -> Answer {
        let cwd = params.get("cwd").and_then(Value::as_str);
        // "All file paths in the protocol MUST be absolute."
        if !cwd.is_some_and(|c| c.starts_with('/')) || !params["mcpServers"].is_array() {
            return Err(BAD_PARAMS);
        }
        self.opened += 1;
        let id = format!("rpcspec-session-{}", self.opened);
        self.sessions.insert(id.clone());
        Ok(json!({"sessionId": id}))
    }

    fn prompt(&mut self, params: &Value) -> Answer {
        let session = params.get("sessionId").and_then(Value::as_str);
        let Some(session) = session.filter(|s| self.sessions.contains(*s)) else {
            return Err(BAD_PARAMS);
        };
        let Some(blocks) = params.get("prompt").and_then(Value::as_array) else {
            return Err(BAD_PARAMS);
        };
        // The baseline every agent takes: text and resource links.
        let mut echo = String::new();
        for block in blocks {
            match block.get("type").and_then(Value::as_str) {
                Some("text") => echo.push_str(block["text"].as_str().ok_or(BAD_PARAMS)?),
                Some("resource_link") => echo.push_str(block["uri"].as_str().ok_or(BAD_PARAMS)?),
                _ => return Err(BAD_PARAMS),
            }
        }
        self.said.push(json!({
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {
                "sessionId": session,
                "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": echo}},
            },
        }));
        Ok(json!({"stopReason": "end_turn"}))
    }
}
