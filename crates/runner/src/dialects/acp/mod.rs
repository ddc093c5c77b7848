//! The Agent Client Protocol (ACP, version 1): JSON-RPC 2.0 over NDJSON
//! on stdio between an editor (the client, which starts the agent) and a
//! coding agent. Both sides send requests. Who sends each method is read
//! from the protocol's own `meta.json`, the shape of every message from
//! its `schema.json` (both vendored in `schemas/acp/`); its rules quote
//! `docs/protocol/v1/*.mdx` of `agentclientprotocol/agent-client-protocol`.
//!
//! The server role plays the editor against an agent: its cases are
//! `spec-cases/acp/`, its handshake `initialize` (`preambles.toml`), and
//! what the agent sends of its own accord is graded here ([`initiated`]).

use std::{
    collections::{BTreeMap, BTreeSet},
    sync::OnceLock,
};

use rpcspec_matcher::Rule;
use serde_json::Value;

use crate::{
    dialects::{
        Checking, OwnRules,
        directions::{Directions, Sender},
        serving::{Batches, Serving, Unreadable, Wrote},
    },
    report::{Evidence, FINDINGS_PER_RULE, RuleRef},
};

pub mod client;
pub mod played;
pub mod reference;
pub mod schema;
pub mod series;

pub use reference::REFERENCE;

/// The protocol's method table, vendored.
pub(crate) const META: &str = include_str!("../../../schemas/acp/v1/meta.json");

/// Who sends each ACP method, from `meta.json`: `agentMethods` are the
/// agent's to answer (the client sends them), `clientMethods` the
/// client's (the agent sends them), `protocolMethods` either side's.
/// `session/cancel` withdraws nothing: the prompt it cancels still gets its
/// reply, with the `cancelled` stop reason.
pub fn directions() -> &'static Directions {
    static TABLE: OnceLock<Directions> = OnceLock::new();
    TABLE.get_or_init(|| {
        let meta: Value = serde_json::from_str(META).expect("the vendored meta.json parses");
        let mut table = Directions::new("ACP schema/v1/meta.json (agentMethods, clientMethods)");
        // "The protocol reserves any method name starting with an
        // underscore (`_`) for custom extensions" (Extensibility), and
        // either side may call them.
        table.open_prefixes = &["_"];
        for (side, sender) in [
            ("agentMethods", Sender::Client),
            ("clientMethods", Sender::Server),
            ("protocolMethods", Sender::Either),
        ] {
            for method in meta[side].as_object().expect("a method table").values() {
                table.add(method.as_str().expect("a method name"), sender);
            }
        }
        table
    })
}

/// What `check` does in ACP beyond pairing: every message against the
/// schema (rule `acp.schema`), drawn between the client and the agent.
pub const CHECKING: Checking = Checking {
    lanes: ("client", "agent"),
    shapes: Some((&ACP_SCHEMA, schema::problems)),
    ..Checking::PLAIN
};

/// What the server role does in ACP: rpcspec is an editor that declared
/// no capability; the agent's requests get what such a client answers
/// ([`answer`]); what the agent sends of its own accord is graded by
/// [`initiated`].
pub const SERVING: Serving = Serving {
    startup_hint: "is it an ACP agent over stdio (most need an argument: `--acp`, \
                   `--experimental-acp`, `acp`)? does it flush stdout after each message?",
    answer: Some(answer),
    // "Before a Session can be created, Clients MUST initialize the
    // connection": nothing follows `initialize` until it is answered (an
    // agent that answers it slowly, as Gemini CLI does in seconds, would
    // otherwise get a case's requests first).
    initialize_alone: true,
    // Opening a session starts a model session (claude-agent-acp takes
    // seconds, after answering later requests); a turn asks the model.
    awaited: &[
        "session/new",
        "session/load",
        "session/resume",
        "session/prompt",
        "authenticate",
    ],
    initiated: Some(initiated),
    own_methods: Some("ACP's methods are its own"),
    batches: Batches::Unnamed(
        "the batch refused or ignored: ACP (transports) \"uses JSON-RPC to encode messages\" and names no batch; its SDKs read one message per line (JSON-RPC 2.0 §6 wants one answered)",
    ),
    unreadable: Some(Unreadable {
        id_absent: false,
        why_silence: "no reply to a line that is not an ACP message: ACP (transports) says \"the client MUST NOT write anything to the agent's stdin that is not a valid ACP message\", and no more of the agent; JSON-RPC 2.0 §5.1 asks for -32700 with id null",
    }),
    reference: Some(REFERENCE),
    ..Serving::PLAIN
};

/// What rpcspec, an editor that declared no capability, answers a request
/// the agent sends: a permission request with the `cancelled` outcome (no
/// user is there to choose), every other with -32601, as a client without
/// `fs`, `terminal` or elicitation would.
pub fn answer(method: &str) -> &'static str {
    match method {
        "session/request_permission" => r#""result":{"outcome":{"outcome":"cancelled"}}"#,
        _ => {
            r#""error":{"code":-32601,"message":"rpcspec declared no client capability for this method"}"#
        }
    }
}

/// The client methods a capability gates, and the capability: an agent
/// "MUST NOT attempt to call" them on a client that did not declare it.
const GATED: [(&str, &str); 3] = [
    ("fs/", "fs.readTextFile / fs.writeTextFile"),
    ("terminal/", "terminal"),
    ("elicitation/create", "elicitation"),
];

/// The session updates of a turn's content: none may come once the turn's
/// `session/prompt` is answered.
const TURN_CONTENT: [&str; 6] = [
    "agent_message_chunk",
    "agent_thought_chunk",
    "tool_call",
    "tool_call_update",
    "plan",
    "user_message_chunk",
];

/// What an agent sent of its own accord, and its replies, held to ACP:
/// every message against the schema; no `fs/*`, `terminal/*` or
/// elicitation request to a client that declared none; session ids
/// unique, and no update for a session before the reply that opened it;
/// no content for a turn after its reply.
fn initiated(got: &[Wrote<'_>]) -> Vec<Evidence> {
    let mut found = Findings::default();
    // Sessions opened so far, and the updates seen for sessions not yet
    // opened (session id → the update's kind).
    let mut opened: BTreeSet<String> = BTreeSet::new();
    let mut early: BTreeMap<String, String> = BTreeMap::new();
    // The sessions whose turn was answered in each window.
    let mut ended: Vec<(usize, String)> = Vec::new();
    for g in got {
        let Some(value) = g.text.and_then(|t| serde_json::from_str::<Value>(t).ok()) else {
            continue;
        };
        if g.reply {
            let method = g.answers.unwrap_or_default();
            for p in schema::problems(method, &value, true) {
                found.add(&ACP_SCHEMA, p);
            }
            match method {
                "session/new" => {
                    if let Some(id) = value.pointer("/result/sessionId").and_then(Value::as_str) {
                        if !opened.insert(id.to_owned()) {
                            found.add(
                                &ACP_SESSION_NEW,
                                format!("`session/new` gave the session id {id:?} twice"),
                            );
                        }
                        if let Some(kind) = early.remove(id) {
                            found.add(
                                &ACP_UPDATE_BEFORE_SESSION,
                                format!(
                                    "a `session/update` ({kind}) for session {id:?} came before the `session/new` reply that gave the client that id"
                                ),
                            );
                        }
                    }
                }
                "session/prompt" if value.pointer("/result/stopReason").is_some() => {
                    if let Some(id) = session_of(got, g) {
                        ended.push((g.window, id));
                    }
                }
                _ => {}
            }
            continue;
        }
        let Some(method) = value.get("method").and_then(Value::as_str) else {
            continue;
        };
        for p in schema::problems(method, &value, false) {
            found.add(&ACP_SCHEMA, p);
        }
        // The agent's own request carries an id; a notification none.
        let request = value.get("id").is_some();
        if !request
            && method == "session/update"
            && let Some(id) = value.pointer("/params/sessionId").and_then(Value::as_str)
        {
            let kind = value
                .pointer("/params/update/sessionUpdate")
                .and_then(Value::as_str)
                .unwrap_or("?");
            if !opened.contains(id) {
                early
                    .entry(id.to_owned())
                    .or_insert_with(|| kind.to_owned());
            }
            if TURN_CONTENT.contains(&kind) && ended.iter().any(|(w, s)| *w == g.window && s == id)
            {
                found.add(
                    &ACP_UPDATE_AFTER_TURN,
                    format!(
                        "a `session/update` ({kind}) for session {id:?} came after the reply that ended its turn"
                    ),
                );
            }
        }
        if request && let Some((_, capability)) = GATED.iter().find(|(m, _)| method.starts_with(m))
        {
            found.add(
                &ACP_CAPABILITIES,
                format!(
                    "the agent sent the request `{method}` to a client that did not declare `{capability}` (rpcspec's initialize sent `clientCapabilities: {{}}`)"
                ),
            );
        }
    }
    found.into_evidence()
}

/// The session a `session/prompt` reply's request named: it is not in the
/// reply, so it is the session of the updates that came in its window
/// (none came: nothing can come after the turn either, in that window).
fn session_of(got: &[Wrote<'_>], reply: &Wrote<'_>) -> Option<String> {
    let session_in = |g: &Wrote<'_>| -> Option<String> {
        let value: Value = serde_json::from_str(g.text?).ok()?;
        if g.reply {
            return None;
        }
        Some(value.pointer("/params/sessionId")?.as_str()?.to_owned())
    };
    got.iter()
        .filter(|g| g.window == reply.window)
        .find_map(session_in)
}

/// Findings per rule, each said once, a few listed and the rest counted.
#[derive(Default)]
struct Findings {
    per_rule: Vec<(&'static Rule, Vec<String>)>,
}

impl Findings {
    fn add(&mut self, rule: &'static Rule, message: String) {
        match self.per_rule.iter_mut().find(|(r, _)| r.id == rule.id) {
            Some((_, list)) if !list.contains(&message) => list.push(message),
            Some(_) => {}
            None => self.per_rule.push((rule, vec![message])),
        }
    }

    fn into_evidence(self) -> Vec<Evidence> {
        let mut out = Vec::new();
        for (rule, messages) in self.per_rule {
            let r = RuleRef::from_rule(rule);
            let more = messages.len().saturating_sub(FINDINGS_PER_RULE);
            for m in messages.into_iter().take(FINDINGS_PER_RULE) {
                out.push(Evidence {
                    rule: Some(r.clone()),
                    ..Evidence::note(r.verdict(), m)
                });
            }
            if more > 0 {
                out.push(Evidence {
                    rule: Some(r.clone()),
                    ..Evidence::note(r.verdict(), format!("{more} more not listed"))
                });
            }
        }
        out
    }
}

/// ACP's own rules, and where each is checked.
pub const OWN: OwnRules = OwnRules {
    table: || ACP,
    checked_on: |rule| match rule.id {
        "acp.schema" => {
            "the server cases `acp/initialization/shapes` and `acp/prompt/shapes` (`rpcspec run --dialect acp`) on every message the agent writes in them, every client scenario of `client/acp/` (`rpcspec run --role client --dialect acp`) on every message the client writes, and `rpcspec check --rpc acp` on both sides"
        }
        "acp.extension-request" => {
            "the server case `acp/session/extension-request` and the client scenario `client/acp/session/extension-request`"
        }
        id if id.starts_with("acp.client-") => {
            "every client scenario of `client/acp/` (`rpcspec run --role client --dialect acp`), the agent's requests in those that send them"
        }
        _ => "the `acp/…` server cases that name it (`rpcspec run --dialect acp`)",
    },
};

rpcspec_matcher::rule_table! { ACP;
    ACP_SCHEMA = "acp.schema", Must, "ACP v1 schema.json (each method's params and result, named by `x-method`); ACP overview (\"the protocol's JSON Schema\")",
        "every ACP message has the shape the official schema gives it: the params of each request and notification, the result of each request, every error an `Error`";
    ACP_VERSION = "acp.version", Must, "ACP v1 Initialization, Protocol version (\"If the Agent supports the requested version, it MUST respond with the same version. Otherwise, the Agent MUST respond with the latest version it supports.\")",
        "`initialize` is answered with the version asked for, or else with the latest the agent supports (never one it was only offered)";
    ACP_INITIALIZE = "acp.initialize", Must, "ACP v1 Initialization (\"The Agent MUST respond with the chosen protocol version and the capabilities it supports\"; \"All capabilities included in the initialize request are OPTIONAL\"; \"The introduction of new capabilities is not considered a breaking change\")",
        "`initialize` is answered with a version, whatever the client declared: no capability, one unknown, `_meta`";
    ACP_SESSION_NEW = "acp.session-new", Must, "ACP v1 Session Setup, Creating a Session (\"The Agent MUST respond with a unique Session ID that identifies this conversation\"); schema NewSessionRequest (\"May return an `auth_required` error if the agent requires authentication\")",
        "`session/new` is answered with a session id no other session of the connection has, or with the `auth_required` error (-32000) an agent that needs a login gives (another error is NON-STRICT)";
    ACP_PROMPT = "acp.prompt", Must, "ACP v1 Prompt Turn, Check for Completion (\"the turn ends and the Agent MUST respond to the original `session/prompt` request with a `StopReason`\"); Initialization (\"all Agents MUST support `session/new`, `session/prompt`, `session/cancel`, and `session/update`\")",
        "a `session/prompt` of an open session is answered with a stop reason";
    ACP_CONTENT_BASELINE = "acp.content-baseline", Must, "ACP v1 Initialization, Prompt Capabilities (\"As a baseline, all Agents MUST support `ContentBlock::Text` and `ContentBlock::ResourceLink` in `session/prompt` requests\")",
        "a prompt of text and resource links is taken, whatever the agent's prompt capabilities";
    ACP_CANCELLED = "acp.cancelled", Must, "ACP v1 Prompt Turn, Cancellation (\"the Agent MUST respond to the original `session/prompt` request with the `cancelled` stop reason\"; \"Agents MUST catch these errors and return the semantically meaningful `cancelled` stop reason\")",
        "a turn cancelled with `session/cancel` is answered with a stop reason, not an error (`cancelled`, or another where the turn ended before the cancel arrived)";
    ACP_UPDATE_BEFORE_SESSION = "acp.update-before-session", Should, "ACP v1 Session Setup (\"The Agent MUST respond with a unique Session ID that identifies this conversation\": the client learns a session's id from that reply, and ACP names no update before it)",
        "no `session/update` names a session before the `session/new` reply that gives the client its id (clients drop such updates)";
    ACP_UPDATE_AFTER_TURN = "acp.update-after-turn", Should, "ACP v1 Prompt Turn (\"If there are no pending tool calls, the turn ends and the Agent MUST respond to the original `session/prompt` request\"; after a cancel, updates may come \"but it MUST ensure that it does so before responding to the `session/prompt` request\")",
        "no content of a turn (message or thought chunks, tool calls, plans) comes after the reply that ended the turn";
    ACP_CAPABILITIES = "acp.capabilities", Must, "ACP v1 File System (\"If `readTextFile` or `writeTextFile` is `false` or not present, the Agent MUST NOT attempt to call the corresponding filesystem method\"); Terminals (\"If `terminal` is `false` or not present, the Agent MUST NOT attempt to call any terminal methods\"); Elicitation (\"Agents MUST NOT request a mode the Client has not advertised\")",
        "the agent asks for no `fs/*`, `terminal/*` or `elicitation/create` of a client that did not declare it";
    ACP_EXTENSION_REQUEST = "acp.extension-request", Must, "ACP v1 Extensibility, Custom Requests (\"Upon receiving a custom request, implementations MUST respond accordingly with the provided `id`\"; \"If the receiving end doesn't recognize the custom method name, it should respond with the standard \\\"Method not found\\\" error\")",
        "a custom (`_…`) request it does not know is answered with its id: -32601 Method not found (another error is NON-STRICT)";
    ACP_EXTENSION_NOTIFICATION = "acp.extension-notification", Should, "ACP v1 Extensibility, Custom Notifications (\"implementations SHOULD ignore unrecognized notifications\")",
        "a custom (`_…`) notification it does not know draws nothing, and the session goes on";
    ACP_CANCEL_REQUEST = "acp.cancel-request", Must, "ACP v1 Cancellation, `$/cancel_request` (\"MUST send one of these responses for the original request: A valid response with appropriate data … An error response with code -32800 (Request Cancelled)\")",
        "a request withdrawn with `$/cancel_request` still gets its response: its result, or an error (-32800)";
    ACP_CLIENT_INITIALIZE = "acp.client-initialize", Must, "ACP v1 Initialization (\"Before a Session can be created, Clients MUST initialize the connection by calling the `initialize` method\"); Session Setup (\"Before creating a session, Clients MUST first complete the initialization phase\")",
        "the client opens no session before its `initialize` is answered";
    ACP_CLIENT_SESSION = "acp.client-session", Must, "ACP v1 Prompt Turn (\"Before sending prompts, Clients MUST first complete the initialization phase and session setup\"); Session Setup (\"The Agent MUST respond with a unique Session ID that identifies this conversation\")",
        "every `session/prompt` and `session/cancel` of the client names a session a `session/new` reply gave it";
    ACP_CLIENT_CWD = "acp.client-cwd", Must, "ACP v1 Session Setup, Working Directory (the `cwd` \"MUST be an absolute path\")",
        "`session/new` carries an absolute `cwd`";
    ACP_CLIENT_PERMISSION = "acp.client-permission", Must, "ACP v1 Prompt Turn, Cancellation (\"The Client MUST respond to all pending `session/request_permission` requests with the `cancelled` outcome\"); Tool Calls, Requesting Permission (\"If the current prompt turn gets cancelled, the Client MUST respond with the \\\"cancelled\\\" outcome\"; `optionId`: \"The ID of the option the user selected\")",
        "a permission request is answered with one of the options it offered, and with `cancelled` once the client has cancelled its turn";
    ACP_CLIENT_ANSWERS = "acp.client-answers", Must, "JSON-RPC 2.0 §4 (\"The Server MUST reply with a Response, except for in the case of Notifications\": the client serves the agent's requests); ACP v1 Extensibility (\"Upon receiving a custom request, implementations MUST respond accordingly with the provided `id`\")",
        "every request of the agent's (a permission, a file, a custom method) gets a response with its id";
    ACP_NEVER_OFFERED = "acp.never-offered", Should, "ACP v1 Session Setup, Session ID (\"The session ID returned by `session/new` is a unique identifier for the conversation context\"); Authentication (`methodId`: \"The ID of an advertised authentication method\"); ACP does not say how a request naming what was never offered is answered",
        "a request naming a session the agent never opened, or a mode or login method it never offered, is answered with an error, not a result";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directions_come_from_meta_json() {
        let acp = directions();
        assert_eq!(acp.sender("initialize"), Some(Sender::Client));
        assert_eq!(acp.sender("session/prompt"), Some(Sender::Client));
        assert_eq!(acp.sender("session/cancel"), Some(Sender::Client));
        assert_eq!(acp.sender("session/update"), Some(Sender::Server));
        assert_eq!(
            acp.sender("session/request_permission"),
            Some(Sender::Server)
        );
        assert_eq!(acp.sender("fs/read_text_file"), Some(Sender::Server));
        assert_eq!(acp.sender("$/cancel_request"), Some(Sender::Either));
        assert_eq!(acp.sender("no/such"), None);
        assert_eq!(acp.sender("_zed.dev/workspace"), Some(Sender::Either));
        assert!(acp.len() >= 24, "{}", acp.len());
    }

    #[test]
    fn the_editor_cancels_permissions_and_has_no_other_capability() {
        assert!(answer("session/request_permission").contains("cancelled"));
        assert!(answer("fs/read_text_file").contains("-32601"));
        assert!(answer("terminal/create").contains("-32601"));
    }
}
