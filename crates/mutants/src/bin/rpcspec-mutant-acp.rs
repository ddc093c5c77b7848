//! `rpcspec-mutant-acp NAME`: the reference ACP agent (`rpcspec serve
//! --dialect acp`: version 1, an echo for a model) with one bug seen in
//! real agents. `tests/acp_self_test.rs` runs the `acp` suite against each
//! and asserts which cases catch it. `reference` is the unbroken agent, on
//! this file's own loop. Each bug breaks a sentence of ACP v1
//! (`docs/protocol/v1/*.mdx` and `schema/v1/schema.json` of
//! agentclientprotocol/agent-client-protocol); the table in `MUTANTS`
//! names it.

use std::{
    io::{self, Write},
    process::ExitCode,
};

use rpcspec::{
    capture::Framing,
    serve::{Input, Server, run_until},
};
use serde_json::{Value, json};

/// Every mutant: name, the bug it has, and the sentence it breaks.
const MUTANTS: &[(&str, &str)] = &[
    ("reference", "none: the reference agent"),
    (
        "update-before-session",
        "sends a session/update for a new session before its session/new response (zed#60199, fast-agent#481): Session Setup, \"The Agent MUST respond with a unique Session ID that identifies this conversation\" (the client learns the id from that reply; a SHOULD-level rule, acp.update-before-session)",
    ),
    (
        "update-after-turn",
        "sends the turn's session/update after its session/prompt response (opencode#18672): Prompt Turn, updates after a cancel come \"before responding to the session/prompt request\" (a SHOULD-level rule, acp.update-after-turn)",
    ),
    (
        "echo-version",
        "answers initialize with whatever version was asked: Initialization, \"Otherwise, the Agent MUST respond with the latest version it supports\"",
    ),
    (
        "refuses-other-version",
        "answers an initialize of another version with an error: Initialization, \"Otherwise, the Agent MUST respond with the latest version it supports\"",
    ),
    (
        "string-version",
        "answers protocolVersion \"1\", a string: schema ProtocolVersion is an integer (uint16)",
    ),
    (
        "needs-client-capabilities",
        "refuses an initialize without clientCapabilities: schema InitializeRequest requires only protocolVersion; Initialization, \"Clients and Agents MUST treat all capabilities omitted in the initialize request as UNSUPPORTED\"",
    ),
    (
        "refuses-unknown-capability",
        "refuses an initialize whose clientCapabilities hold a field it does not know: Initialization, \"The introduction of new capabilities is not considered a breaking change\"",
    ),
    (
        "refuses-meta",
        "refuses an initialize that carries `_meta`: Extensibility, \"All types in the protocol include a `_meta` field ... that implementations can use to attach custom information\"",
    ),
    (
        "stdout-log",
        "writes a log line to stdout before each answer (zed#44826): Transports, \"The agent MUST NOT write anything to its stdout that is not a valid ACP message\"",
    ),
    (
        "embedded-newline",
        "pretty-prints its messages over several lines: Transports, messages \"MUST NOT contain embedded newlines\"",
    ),
    (
        "same-session-id",
        "answers every session/new with the same session id: Session Setup, \"a unique Session ID\"",
    ),
    (
        "session-id-number",
        "answers session/new with a number for sessionId: schema SessionId is a string",
    ),
    (
        "prompts-any-session",
        "plays a turn for a session it never opened: Session Setup (the session id names a session the agent created)",
    ),
    (
        "no-resource-link",
        "refuses a resource_link block in a prompt: Initialization, \"all Agents MUST support ContentBlock::Text and ContentBlock::ResourceLink\"",
    ),
    (
        "no-stop-reason",
        "answers session/prompt with an empty result: Prompt Turn, \"the Agent MUST respond to the original session/prompt request with a StopReason\"",
    ),
    (
        "unlisted-stop-reason",
        "ends each turn with the stop reason \"done\": schema StopReason is one of end_turn, max_tokens, max_turn_requests, refusal, cancelled",
    ),
    (
        "cancel-as-error",
        "answers a turn cancelled while it runs with an error, not the `cancelled` stop reason: Prompt Turn, Cancellation, \"the Agent MUST respond to the original session/prompt request with the cancelled stop reason\"",
    ),
    (
        "reads-undeclared-fs",
        "asks fs/read_text_file of a client that declared no fs capability: Initialization, Client Capabilities, omitted capabilities \"MUST\" be treated as unsupported",
    ),
    (
        "answers-notifications",
        "answers session/cancel, a notification, with a result: JSON-RPC 2.0 §4.1, \"The Server MUST NOT reply to a Notification\"",
    ),
    (
        "ignores-extension-requests",
        "never answers a request for a method it does not know (`_rpcspec.dev/…`): Extensibility, \"Upon receiving a custom request, implementations MUST respond accordingly with the provided id\"",
    ),
    (
        "errors-on-extension-notifications",
        "answers an unknown `_` notification with an error: Extensibility, \"implementations SHOULD ignore unrecognized notifications\"; JSON-RPC 2.0 §4.1, \"The Server MUST NOT reply to a Notification\"",
    ),
    (
        "drops-cancelled-request",
        "never answers a request withdrawn by $/cancel_request: Cancellation, \"MUST send one of these responses for the original request\"",
    ),
];

fn main() -> ExitCode {
    let name = std::env::args().nth(1).unwrap_or_default();
    if !MUTANTS.iter().any(|(n, _)| *n == name) {
        eprintln!("usage: rpcspec-mutant-acp NAME\n\nmutants:");
        for (n, bug) in MUTANTS {
            eprintln!("  {n:<34} {bug}");
        }
        return ExitCode::from(2);
    }
    let mut agent = Agent {
        name,
        server: Server::new(&rpcspec::dialects::acp::REFERENCE),
        held: None,
        asked: 0,
    };
    let stdin = io::stdin().lock();
    let stdout = io::stdout().lock();
    match run_until(
        stdin,
        stdout,
        Framing::ndjson(),
        |input| agent.take(input),
        || None,
    ) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(io::stderr(), "rpcspec-mutant-acp: {e}");
            ExitCode::FAILURE
        }
    }
}

struct Agent {
    name: String,
    server: Server,
    /// A reply held until the next message is read (a turn, or a session
    /// being opened, that takes its time), and what it answers.
    held: Option<Held>,
    /// Requests this agent sent.
    asked: usize,
}

struct Held {
    id: Value,
    method: String,
    /// The messages to write: what it said, then its reply.
    out: Vec<String>,
}

impl Agent {
    /// What the agent writes for one message it read.
    fn take(&mut self, input: Input<'_>) -> Vec<String> {
        let Input::Line(text) = input else {
            return self.finish(self.server.unreadable().into_iter().collect());
        };
        let value: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        let method = value["method"].as_str().unwrap_or("").to_owned();
        let id = value.get("id").cloned();
        let params = &value["params"];
        let mut out = self.release(&method, params);
        let name = self.name.as_str();
        if let Some(early) = self.refused(name, &method, id.as_ref(), params) {
            out.extend(early);
            return self.finish(out);
        }
        let reply = self.server.respond(text);
        let said = self.server.said();
        let mut reply = reply.map(|r| self.mutate_reply(&method, params, r));
        if name == "answers-notifications" && id.is_none() && method == "session/cancel" {
            reply = Some(r#"{"jsonrpc":"2.0","result":null,"id":null}"#.to_owned());
        }
        if name == "update-before-session"
            && method == "session/new"
            && let Some(session) = reply.as_deref().and_then(session_of)
        {
            out.push(update(&session, "rpcspec-mutant: ready"));
        }
        let mut mine = Vec::new();
        match name {
            "update-after-turn" => mine.extend(reply.take().into_iter().chain(said)),
            _ => mine.extend(said.into_iter().chain(reply.take())),
        }
        if name == "reads-undeclared-fs" && method == "session/prompt" {
            self.asked += 1;
            let session = params["sessionId"].clone();
            let ask = json!({"jsonrpc": "2.0", "id": format!("rpcspec-mutant-{}", self.asked), "method": "fs/read_text_file", "params": {"sessionId": session, "path": "/etc/hostname"}});
            mine.insert(0, ask.to_string());
        }
        let holds = match name {
            "cancel-as-error" => method == "session/prompt",
            "drops-cancelled-request" => method == "session/new",
            _ => false,
        };
        match id {
            Some(id) if holds && !mine.is_empty() => {
                self.held = Some(Held {
                    id,
                    method,
                    out: mine,
                });
            }
            _ => out.extend(mine),
        }
        self.finish(out)
    }

    /// What a held reply becomes now that `method` was read: a cancel of
    /// it changes or drops it; anything else lets it go as it was.
    fn release(&mut self, method: &str, params: &Value) -> Vec<String> {
        let Some(held) = self.held.take() else {
            return Vec::new();
        };
        match (self.name.as_str(), method) {
            ("cancel-as-error", "session/cancel") if held.method == "session/prompt" => {
                let error = json!({"jsonrpc": "2.0", "error": {"code": -32603, "message": "The operation was aborted"}, "id": held.id});
                vec![error.to_string()]
            }
            ("drops-cancelled-request", "$/cancel_request")
                if params.get("requestId") == Some(&held.id) =>
            {
                Vec::new()
            }
            _ => held.out,
        }
    }

    /// The error a mutant answers in place of the reference's, if it
    /// refuses this message.
    fn refused(
        &self,
        name: &str,
        method: &str,
        id: Option<&Value>,
        params: &Value,
    ) -> Option<Vec<String>> {
        let error = |code: i64, message: &str| {
            let id = id.cloned().unwrap_or(Value::Null);
            vec![
                json!({"jsonrpc": "2.0", "error": {"code": code, "message": message}, "id": id})
                    .to_string(),
            ]
        };
        let custom = method.starts_with('_');
        let caps = &params["clientCapabilities"];
        match name {
            "refuses-other-version"
                if method == "initialize" && params["protocolVersion"] != json!(1) =>
            {
                Some(error(-32602, "Unsupported protocol version"))
            }
            "needs-client-capabilities" if method == "initialize" && caps.is_null() => Some(error(
                -32602,
                "Invalid params: clientCapabilities is required",
            )),
            "refuses-unknown-capability"
                if method == "initialize"
                    && caps.as_object().is_some_and(|c| {
                        c.keys()
                            .any(|k| !["fs", "terminal", "_meta"].contains(&k.as_str()))
                    }) =>
            {
                Some(error(-32602, "Invalid params: unknown field"))
            }
            "refuses-meta" if method == "initialize" && params.get("_meta").is_some() => {
                Some(error(-32602, "Invalid params: unknown field `_meta`"))
            }
            "ignores-extension-requests" if custom && id.is_some() => Some(Vec::new()),
            "errors-on-extension-notifications" if custom && id.is_none() => {
                Some(error(-32601, "Method not found"))
            }
            _ => None,
        }
    }

    /// The reference's `reply` to `method`, as this mutant writes it.
    fn mutate_reply(&self, method: &str, params: &Value, reply: String) -> String {
        let Ok(mut value) = serde_json::from_str::<Value>(&reply) else {
            return reply;
        };
        let result = value.get_mut("result");
        match (self.name.as_str(), method, result) {
            ("echo-version", "initialize", Some(result)) => {
                result["protocolVersion"] = params["protocolVersion"].clone();
            }
            ("string-version", "initialize", Some(result)) => {
                result["protocolVersion"] = json!("1");
            }
            ("same-session-id", "session/new", Some(result)) => {
                result["sessionId"] = json!("rpcspec-session-1");
            }
            ("session-id-number", "session/new", Some(result)) => {
                result["sessionId"] = json!(1);
            }
            ("no-stop-reason", "session/prompt", Some(result)) => *result = json!({}),
            ("unlisted-stop-reason", "session/prompt", Some(result)) => {
                result["stopReason"] = json!("done");
            }
            ("prompts-any-session", "session/prompt", None) => {
                value["result"] = json!({"stopReason": "end_turn"});
                if let Some(v) = value.as_object_mut() {
                    v.remove("error");
                }
            }
            ("no-resource-link", "session/prompt", Some(_)) => {
                let linked = params["prompt"]
                    .as_array()
                    .is_some_and(|b| b.iter().any(|b| b["type"] == "resource_link"));
                if linked {
                    value = json!({"jsonrpc": "2.0", "error": {"code": -32602, "message": "Unsupported content block: resource_link"}, "id": value["id"]});
                }
            }
            _ => return reply,
        }
        value.to_string()
    }

    /// `out` as this mutant writes it.
    fn finish(&self, out: Vec<String>) -> Vec<String> {
        match self.name.as_str() {
            "stdout-log" => {
                let mut logged = vec!["[agent] handling message".to_owned()];
                logged.extend(out);
                logged
            }
            "embedded-newline" => out
                .into_iter()
                .map(|m| {
                    serde_json::from_str::<Value>(&m)
                        .ok()
                        .and_then(|v| serde_json::to_string_pretty(&v).ok())
                        .unwrap_or(m)
                })
                .collect(),
            _ => out,
        }
    }
}

/// The session id a `session/new` reply gives.
fn session_of(reply: &str) -> Option<Value> {
    let value: Value = serde_json::from_str(reply).ok()?;
    value.pointer("/result/sessionId").cloned()
}

/// A `session/update` of `session` with an agent message chunk.
fn update(session: &Value, text: &str) -> String {
    json!({
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {
            "sessionId": session,
            "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}},
        },
    })
    .to_string()
}
