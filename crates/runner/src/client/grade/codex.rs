//! The Codex host scenarios' graders: pure functions of what the host
//! wrote to the scripted app-server ([`Log`]) and what its adapter
//! reported. The host's lines are held to the matcher's lenient dialect
//! with the rest of the client role's messages (`grade::messages`); here,
//! the lifecycle (`initialize`, then `initialized`), every request of the
//! server's answered once by its id, an approval with the handler's
//! decision, a method the host does not know with an error, and each
//! step's outcome against what the server answered (`docs/agents.md`).

use std::collections::HashMap;

use serde_json::{Value, json};

use super::{Observed, Outcome, capped, short};
use crate::{
    client::{
        CODEX_STEPS,
        codex::{
            ASK_WAIT, REPLY, THREAD, USER_AGENT, decision,
            script::{Asked, Log},
        },
    },
    report::Evidence,
    rules::{self, Rule},
};

/// Every piece of evidence of one Codex host scenario, beside the client
/// role's own (the adapter's reports, how it ended, the messages' shapes).
pub(crate) fn host_session(
    o: &Observed<'_>,
    log: &Log,
    outcomes: &HashMap<&'static str, Outcome>,
    out: &mut Vec<Evidence>,
) {
    let mut push = capped(out, o.scenario.meta.level);
    steps(log, outcomes, &mut push);
    // A host that never got `initialize`'s result has nothing to
    // acknowledge: what it sends next is its adapter's doing.
    let connected = !matches!(
        outcomes.get("connect"),
        Some(Outcome::Failed(_) | Outcome::Error(_))
    );
    lifecycle(log, connected, &mut push);
    for ask in &log.asks {
        answers(ask, &mut push);
    }
    for id in &log.stray {
        push(
            &rules::CODEX_HOST_REQUEST,
            format!("a response with id {id}, which no request of the server's had"),
        );
    }
}

/// `initialize` first and once, then `initialized` before any other
/// request.
fn lifecycle(log: &Log, connected: bool, push: &mut dyn FnMut(&'static Rule, String)) {
    let rule = &rules::CODEX_HOST_LIFECYCLE;
    let Some(first) = log.requests.first() else {
        return;
    };
    if first.method != "initialize" {
        push(
            rule,
            format!(
                "the host's first request was `{}` (its line {}): `initialize` comes before any other",
                first.method, first.line
            ),
        );
        return;
    }
    let again = log
        .requests
        .iter()
        .filter(|r| r.method == "initialize")
        .nth(1);
    if let Some(r) = again {
        push(
            rule,
            format!(
                "the host sent `initialize` again (its line {}): a single one a connection",
                r.line
            ),
        );
    }
    let initialized = log
        .notifications
        .iter()
        .find(|(_, m)| m == "initialized")
        .map(|(line, _)| *line);
    let next = log
        .requests
        .iter()
        .find(|r| r.method != "initialize")
        .filter(|_| connected);
    match (initialized, next) {
        (None, Some(r)) => push(
            rule,
            format!(
                "the host sent `{}` (its line {}) and never the `initialized` notification that acknowledges `initialize`",
                r.method, r.line
            ),
        ),
        (Some(at), Some(r)) if r.line < at => push(
            rule,
            format!(
                "the host sent `{}` (its line {}) before `initialized` (its line {at})",
                r.method, r.line
            ),
        ),
        (Some(at), _) if at < first.line => push(
            rule,
            format!(
                "the host sent `initialized` (its line {at}) before `initialize` (its line {})",
                first.line
            ),
        ),
        _ => {}
    }
}

/// The host's responses to one request of the server's.
fn answers(ask: &Asked, push: &mut dyn FnMut(&'static Rule, String)) {
    let what = format!(
        "the server's request `{}` (id {})",
        ask.method,
        short(&ask.id)
    );
    let Some((_, response)) = ask.responses.first() else {
        push(
            &rules::CODEX_HOST_REQUEST,
            format!("{what} got no response (the server waited {ASK_WAIT:?})"),
        );
        return;
    };
    if ask.responses.len() > 1 {
        push(
            &rules::CODEX_HOST_REQUEST,
            format!("{what} was answered {} times", ask.responses.len()),
        );
    }
    match decision(&ask.method) {
        Some(want) => {
            let got = response.pointer("/result/decision");
            if got != Some(&Value::from(want)) {
                push(
                    &rules::CODEX_HOST_APPROVAL,
                    format!(
                        "{what}: the adapter's handler decided \"{want}\", so the response is {}; the host answered {}",
                        json!({"result": {"decision": want}}),
                        short(response)
                    ),
                );
            }
        }
        None if response.get("error").is_none() => push(
            &rules::CODEX_HOST_UNKNOWN_METHOD,
            format!(
                "{what} is a method the host does not serve: it gets an error (-32601), not {}",
                short(response)
            ),
        ),
        None => {}
    }
}

/// What each step returned against what the server answered.
fn steps(
    log: &Log,
    outcomes: &HashMap<&'static str, Outcome>,
    push: &mut dyn FnMut(&'static Rule, String),
) {
    for step in &CODEX_STEPS {
        let Some(got) = outcomes.get(step.name) else {
            continue;
        };
        // `close` sends nothing the server answers.
        if step.method.is_empty() || matches!(got, Outcome::Skipped(_) | Outcome::Sent) {
            continue;
        }
        let expected = match step.name {
            "connect" => answered(log, "initialize", json!(USER_AGENT)),
            "thread" => answered(log, "thread/start", json!(THREAD)),
            _ => match (log.answer("turn/start"), log.turns.first()) {
                (Some(Err(m)), _) => Expected::Error(m.clone()),
                (_, Some(t)) => match (t.status, t.done) {
                    (Some(status), Some(done)) => Expected::Result(
                        json!({"text": REPLY, "status": status}),
                        status == "failed",
                        super::late(t.asked, done),
                    ),
                    _ => Expected::Unanswered("the server exited before the turn completed"),
                },
                _ => Expected::Unanswered("its `turn/start` never reached the server"),
            },
        };
        let call = format!("step `{}` ({})", step.name, step.method);
        match (&expected, got) {
            (Expected::Result(want, ..), Outcome::Result(v)) if v == want => {}
            // A library may raise for a failed turn, and may give up on
            // one the server took longer than the step's timeout to end.
            (Expected::Result(_, failed, slow), Outcome::Failed(_) | Outcome::Error(_))
                if *failed || *slow => {}
            (Expected::Error(m), Outcome::Error(v)) if mentions(v, m) => {}
            (Expected::Error(m), Outcome::Failed(why)) if why.contains(m.as_str()) => {}
            (Expected::Unanswered(_), Outcome::Failed(_) | Outcome::Error(_)) => {}
            (Expected::Unanswered(why), Outcome::Result(v)) => push(
                &rules::CODEX_HOST_RESULT,
                format!("{call}: {why}, yet the host returned {}", short(v)),
            ),
            (want, got) => push(
                &rules::CODEX_HOST_RESULT,
                format!(
                    "{call}: the server {}, the host returned {}",
                    want.describe(),
                    got.describe()
                ),
            ),
        }
    }
}

/// Whether the error `v` the adapter reported carries `text` (in its
/// `message`, or anywhere in its text).
fn mentions(v: &Value, text: &str) -> bool {
    match v.get("message").or(Some(v)) {
        Some(Value::String(s)) => s.contains(text),
        _ => v.to_string().contains(text),
    }
}

/// What a step of `method` should come to, from the server's answer.
fn answered(log: &Log, method: &str, result: Value) -> Expected {
    match log.answer(method) {
        Some(Ok(_)) => Expected::Result(result, false, false),
        Some(Err(m)) => Expected::Error(m.clone()),
        None => Expected::Unanswered("its request never reached the server"),
    }
}

/// What a step should come to.
enum Expected {
    /// This result (as the contract reports it); whether the turn failed,
    /// and whether the server took longer than the step's timeout.
    Result(Value, bool, bool),
    /// An error carrying this message.
    Error(String),
    /// No result, and why.
    Unanswered(&'static str),
}

impl Expected {
    fn describe(&self) -> String {
        match self {
            Expected::Result(v, ..) => {
                format!("answered so that the contract reports {}", short(v))
            }
            Expected::Error(m) => format!("answered with the error {}", Value::from(m.as_str())),
            Expected::Unanswered(why) => (*why).to_owned(),
        }
    }
}
