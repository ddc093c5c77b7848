//! ACP as the client role plays it: rpcspec is the agent behind an
//! editor's ACP client, the scenarios are `client/acp/`, the adapter makes
//! the ACP series ([`STEPS`]) and the session is graded by [`session`].
//!
//! The scripted agent: `initialize` answered with version 1 and no
//! capability, `session/new` with [`SESSION_ID`], every turn opened with
//! one `session/update` ([`TURN_TEXT`]) and ended with `end_turn`; the
//! turn [`CANCEL_ME`] waits (at most 10 s) for its `session/cancel`, then
//! ends `cancelled`; `_rpcspec/echo` gives back its `text`,
//! `_rpcspec/fail` an error; -32601 for anything else.

use std::{collections::HashMap, time::Duration};

use super::series::CANCEL_WAIT;
pub use super::series::{AGENT_NAME, CANCEL_ME, SESSION_ID, STEPS, TURN_TEXT};

use serde_json::{Value, json};

use super::{
    ACP_CLIENT_ANSWERS, ACP_CLIENT_CWD, ACP_CLIENT_INITIALIZE, ACP_CLIENT_PERMISSION,
    ACP_CLIENT_SESSION, ACP_EXTENSION_REQUEST, ACP_SCHEMA, schema,
};
use crate::{
    client::{
        declares,
        grade::{Observed, Outcome, capped},
        script::{ASK_ID, Answer, Body},
    },
    dialects::{Answers, Framed, Peer, Playing},
    report::{Evidence, Verdict},
    rules::{self, Rule},
};

/// What the client role does in ACP.
pub const PLAYING: Playing = Playing {
    folder: "client/acp/",
    label: "ACP",
    steps: &STEPS,
    framing: Some((
        Framed::Ndjson,
        "ACP clients speak NDJSON (ACP transports, stdio: \"Messages are delimited by newlines\")",
    )),
    fields: &["ask_if"],
    peer: Peer::Plain,
    cli: None,
    held: |method, _| method == "_rpcspec/echo",
    // ACP's messages are JSON-RPC 2.0's.
    messages: Some(|| rpcspec_matcher::Dialect::Jsonrpc2),
    server_request: Some(&ACP_CLIENT_ANSWERS),
    scenario_level: &[],
    reported: Some(reported),
    session: Some(session),
    backend: None,
    answers: Some(Answers {
        body: |method, params, _| body(method, params),
        delay,
        shutdown: None,
        cancels,
        on_request,
        // Updates name a session: only a turn's reply has them ahead.
        before: |method| method == "session/prompt",
    }),
    may_ask: Some(|init, method, _, ask_if| {
        // The agent asks during a turn, and only what the client declared.
        init.is_some_and(|init| {
            method == "session/prompt" && ask_if.is_none_or(|p| declares(init, p))
        })
    }),
    reference: |server, _, _, out| super::client::run(server, super::client::Bug::NONE, out),
};

/// How long the scripted agent takes to answer `method`: the turn the
/// adapter cancels, until its cancel (at most [`CANCEL_WAIT`]);
/// `initialize` [`INITIALIZE_TAKES`], as an agent's start does, so that
/// what a client sends before the result has arrived by then.
fn delay(method: &str, params: &Value) -> Option<Duration> {
    match method {
        "initialize" => Some(INITIALIZE_TAKES),
        _ => is_cancel_me(method, params).then_some(CANCEL_WAIT),
    }
}

/// How long the scripted agent takes to answer `initialize`.
pub const INITIALIZE_TAKES: Duration = Duration::from_millis(150);

/// Whether a request is the turn the adapter cancels.
fn is_cancel_me(method: &str, params: &Value) -> bool {
    method == "session/prompt" && prompt_text(params).as_deref() == Some(CANCEL_ME)
}

/// The text of a prompt's blocks, joined.
fn prompt_text(params: &Value) -> Option<String> {
    let blocks = params.get("prompt")?.as_array()?;
    Some(
        blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect(),
    )
}

/// The scripted agent's answer to `method`.
fn body(method: &str, params: &Value) -> Body {
    let result = |v: Value| Body::Result(v.to_string().into_bytes());
    match method {
        "initialize" => result(json!({
            "protocolVersion": 1,
            "agentCapabilities": {},
            "authMethods": [],
            "agentInfo": {"name": AGENT_NAME, "version": env!("CARGO_PKG_VERSION")},
        })),
        "session/new" => result(json!({"sessionId": SESSION_ID})),
        "session/prompt" if params.get("sessionId") != Some(&json!(SESSION_ID)) => {
            Body::error(-32602, "Invalid params: no such session")
        }
        "session/prompt" => result(json!({"stopReason": "end_turn"})),
        "_rpcspec/echo" => match params.get("text") {
            Some(text) => result(json!({"text": text})),
            None => Body::error(-32602, "Invalid params: no text"),
        },
        "_rpcspec/fail" => Body::error(-32000, "rpcspec: asked to fail"),
        _ => Body::error(-32601, "Method not found"),
    }
}

/// `session/cancel` of a waiting turn's session ends it `cancelled`;
/// `$/cancel_request` of a waiting request's id answers it -32800.
fn cancels(method: &str, params: &Value, waiting: &Answer) -> Option<Body> {
    match method {
        "session/cancel"
            if waiting.method == "session/prompt"
                && params.get("sessionId").is_some()
                && params.get("sessionId") == waiting.params.get("sessionId") =>
        {
            Some(Body::Result(br#"{"stopReason":"cancelled"}"#.to_vec()))
        }
        "$/cancel_request"
            if params.get("requestId").map(Value::to_string).as_deref()
                == Some(waiting.id.as_str()) =>
        {
            Some(Body::error(-32800, "Request cancelled"))
        }
        _ => None,
    }
}

/// A turn opens with one `agent_message_chunk` of [`TURN_TEXT`], at once.
fn on_request(method: &str, params: &Value) -> Vec<Vec<u8>> {
    if method != "session/prompt" {
        return Vec::new();
    }
    let Some(session) = params.get("sessionId") else {
        return Vec::new();
    };
    let update = json!({"jsonrpc": "2.0", "method": "session/update", "params": {
        "sessionId": session,
        "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": TURN_TEXT}},
    }});
    vec![update.to_string().into_bytes()]
}

/// What the contract has the adapter report of `method`'s `result`: the
/// version of `initialize`, the session id of `session/new`, a turn's stop
/// reason with the text of its message chunks, the whole result else.
fn reported(method: &str, result: &Value) -> Option<Value> {
    Some(match method {
        "initialize" => result.get("protocolVersion").cloned().unwrap_or_default(),
        "session/new" => result.get("sessionId").cloned().unwrap_or_default(),
        "session/prompt" => json!({
            "stopReason": result.get("stopReason").cloned().unwrap_or_default(),
            "text": TURN_TEXT,
        }),
        _ => result.clone(),
    })
}

/// The ACP session as the client ran it: `initialize` before any session,
/// prompts and cancels naming the session the agent gave, an absolute
/// `cwd`, permission requests answered with an offered option (`cancelled`
/// once the client cancelled the turn), custom requests refused with
/// -32601, the `cancel` step's turn cancelled, every message against the
/// schema.
fn session(o: &Observed<'_>, _: &HashMap<&'static str, Outcome>, out: &mut Vec<Evidence>) {
    let level = o.scenario.meta.level;
    let mut loose = Vec::new();
    let mut push = capped(out, level);
    let messages: Vec<Option<Value>> = o
        .client_lines
        .iter()
        .map(|l| serde_json::from_slice(l).ok())
        .collect();
    let requests = || requests(&messages);
    opening(o, &messages, &mut push);
    // The scenario's request, if it could be made: nothing unobserved
    // passes.
    if let (Some(ask), true) = (&o.scenario.ask, o.log.asks.is_empty()) {
        let init = o.log.answers.iter().find(|a| a.method == "initialize");
        let why = match (&o.scenario.ask_if, init) {
            (Some(pointer), Some(init)) if !declares(&init.params, pointer) => format!(
                "the client's initialize params do not declare {pointer}: the agent may not ask `{ask}`"
            ),
            _ => format!("the agent never asked `{ask}`: the client made no turn to ask it in"),
        };
        if o.scenario.exit.is_none() && o.scenario.close.is_none() {
            loose.push(Evidence::note(Verdict::Skipped, why));
        }
    }
    // ACP's notifications are JSON-RPC's.
    for (n, name, m) in requests() {
        if name == "session/cancel" && m.get("id").is_some() {
            push(
                &rules::CLIENT_NOTIFICATION,
                format!(
                    "message {} the client wrote, the notification `session/cancel`, has an id",
                    n + 1
                ),
            );
        }
    }
    // The agent's requests, as answered.
    let cancel_at = requests()
        .find(|(_, name, _)| name == "session/cancel")
        .map(|(n, ..)| n);
    let answer_at = messages.iter().position(|m| {
        m.as_ref().is_some_and(|m| {
            m.get("method").is_none()
                && m.get("id")
                    .is_some_and(|id| crate::client::grade::same_id(id, ASK_ID))
        })
    });
    for ask in &o.log.asks {
        let Some(answer) = &ask.answer else { continue };
        for p in schema::problems(&ask.method, answer, true) {
            push(
                &ACP_SCHEMA,
                format!("the client's answer to `{}`: {p}", ask.method),
            );
        }
        if ask.method == "session/request_permission" {
            let after_cancel = cancel_at.zip(answer_at).is_some_and(|(c, a)| c < a);
            if let Some(why) = permission(o, answer, after_cancel) {
                push(&ACP_CLIENT_PERMISSION, why);
            }
        }
        if ask.method.starts_with('_') {
            let code = answer.pointer("/error/code").and_then(Value::as_i64);
            // "it should respond with the standard \"Method not found\"
            // error": another answer is NON-STRICT.
            if code != Some(-32601) {
                let mut e = Evidence::broke(
                    &ACP_EXTENSION_REQUEST,
                    format!(
                        "the agent's custom request `{}` was answered {}, not with the error -32601 Method not found",
                        ask.method,
                        crate::client::grade::short(answer)
                    ),
                );
                e.verdict = Verdict::NonStrict;
                loose.push(e);
            }
        }
    }
    // The `cancel` step's turn, cancelled.
    let cancel_turn = o
        .log
        .answers
        .iter()
        .any(|a| is_cancel_me(&a.method, &a.params));
    if cancel_turn && cancel_at.is_none() && o.scenario.exit.is_none() && o.scenario.close.is_none()
    {
        push(
            &rules::CLIENT_CONTRACT,
            format!(
                "the `cancel` step's turn ({CANCEL_ME:?}) was never cancelled: the contract has the adapter send `session/cancel` once the turn's first update (or permission request) arrives"
            ),
        );
    }
    // Every message the client wrote, against the schema.
    for (n, name, m) in requests() {
        for p in schema::problems(&name, m, false) {
            push(
                &ACP_SCHEMA,
                format!("message {} the client wrote (`{name}`): {p}", n + 1),
            );
        }
    }
    drop(push);
    out.extend(loose);
}

/// Each message of the client's that has a method: its index, method and
/// the message.
fn requests(messages: &[Option<Value>]) -> impl Iterator<Item = (usize, String, &Value)> {
    messages
        .iter()
        .enumerate()
        .filter_map(|(n, m)| Some((n, m.as_ref()?)))
        .filter_map(|(n, m)| Some((n, m.get("method")?.as_str()?.to_owned(), m)))
}

/// The session's opening as the client made it: `initialize` answered
/// before any session, an absolute `cwd`, prompts and cancels naming the
/// session the agent gave.
fn opening(
    o: &Observed<'_>,
    messages: &[Option<Value>],
    push: &mut impl FnMut(&'static Rule, String),
) {
    let requests = || requests(messages);
    // Initialization first.
    let initialize = requests()
        .find(|(_, name, _)| name == "initialize")
        .map(|(n, ..)| n);
    let replied = o.log.initialize_replied.unwrap_or(usize::MAX);
    for (n, name, _) in requests().filter(|(_, name, _)| name.starts_with("session/")) {
        let before = match initialize {
            None => Some("the client never sent `initialize`"),
            Some(i) if n < i => Some("before its `initialize`"),
            Some(_) if n < replied => Some("before the `initialize` reply"),
            Some(_) => None,
        };
        if let Some(when) = before {
            push(
                &ACP_CLIENT_INITIALIZE,
                format!("message {} the client wrote, `{name}`, came {when}", n + 1),
            );
            break;
        }
    }
    // Sessions the agent gave.
    let given: Vec<&str> = o
        .log
        .answers
        .iter()
        .filter(|a| a.method == "session/new" && matches!(a.given(), Some(Body::Result(_))))
        .map(|_| SESSION_ID)
        .collect();
    for (n, name, m) in requests() {
        let params = m.get("params").cloned().unwrap_or_default();
        if name == "session/new" {
            let cwd = params
                .get("cwd")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if !absolute(cwd) {
                push(
                    &ACP_CLIENT_CWD,
                    format!(
                        "the client's `session/new` (message {}) has the cwd {cwd:?}, not an absolute path",
                        n + 1
                    ),
                );
            }
        }
        if matches!(name.as_str(), "session/prompt" | "session/cancel") {
            let id = params.get("sessionId").and_then(Value::as_str);
            if !id.is_some_and(|id| given.contains(&id)) {
                push(
                    &ACP_CLIENT_SESSION,
                    format!(
                        "the client's `{name}` (message {}) names the session {}, which no `session/new` reply gave it",
                        n + 1,
                        id.map_or("(none)".to_owned(), |id| format!("{id:?}"))
                    ),
                );
            }
        }
    }
}

/// What is wrong with the client's answer to a permission request: an
/// option it was not offered, anything but `cancelled` once the client had
/// cancelled the turn.
fn permission(o: &Observed<'_>, answer: &Value, after_cancel: bool) -> Option<String> {
    let outcome = answer
        .pointer("/result/outcome/outcome")
        .and_then(Value::as_str);
    let offered: Vec<String> = o
        .scenario
        .ask_params
        .as_deref()
        .and_then(|p| serde_json::from_slice::<Value>(p).ok())
        .and_then(|p| p.get("options").cloned())
        .and_then(|o| o.as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|o| o.get("optionId").and_then(Value::as_str).map(str::to_owned))
        .collect();
    let chosen = answer
        .pointer("/result/outcome/optionId")
        .and_then(Value::as_str);
    match outcome {
        _ if answer.get("error").is_some() => None,
        Some("cancelled") => None,
        Some(other) if after_cancel => Some(format!(
            "the client answered the permission request with the outcome {other:?} after it had sent `session/cancel` for the turn, not `cancelled`"
        )),
        Some("selected") if chosen.is_some_and(|c| offered.iter().any(|o| o == c)) => None,
        Some("selected") => Some(format!(
            "the client selected the option {}, which the request did not offer (it offered {})",
            chosen.map_or("(none)".to_owned(), |c| format!("{c:?}")),
            offered.join(", ")
        )),
        _ => None,
    }
}

/// Whether `path` is absolute on any host: `/…`, `C:\…`, `\\server\…`.
fn absolute(path: &str) -> bool {
    let b = path.as_bytes();
    path.starts_with('/')
        || path.starts_with("\\\\")
        || (b.len() >= 3
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && matches!(b[2], b'\\' | b'/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancel_ends_only_its_sessions_waiting_turn() {
        let turn = Answer {
            method: "session/prompt".into(),
            params: json!({"sessionId": SESSION_ID, "prompt": [{"type": "text", "text": CANCEL_ME}]}),
            id: "7".into(),
            body: Body::Result(b"{}".to_vec()),
            sent: None,
            replaced: false,
            batch: false,
            awaiting: false,
            asked: std::time::Duration::ZERO,
        };
        let cancelled = cancels("session/cancel", &json!({"sessionId": SESSION_ID}), &turn);
        assert_eq!(
            cancelled,
            Some(Body::Result(br#"{"stopReason":"cancelled"}"#.to_vec()))
        );
        assert_eq!(
            cancels("session/cancel", &json!({"sessionId": "other"}), &turn),
            None
        );
        assert_eq!(cancels("session/cancel", &json!({}), &turn), None);
        let withdrawn = cancels("$/cancel_request", &json!({"requestId": 7}), &turn);
        assert_eq!(withdrawn, Some(Body::error(-32800, "Request cancelled")));
        assert_eq!(
            cancels("$/cancel_request", &json!({"requestId": 8}), &turn),
            None
        );
    }

    #[test]
    fn absolute_paths_of_every_host() {
        assert!(absolute("/home/a"));
        assert!(absolute("C:\\work"));
        assert!(absolute("\\\\server\\share"));
        assert!(!absolute("."));
        assert!(!absolute("work/a"));
        assert!(!absolute(""));
    }
}
