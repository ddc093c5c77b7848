//! The Claude scenarios' graders: pure functions of what the SDK wrote to
//! the scripted CLI ([`Log`]) and what its adapter reported. The SDK's
//! lines are held to the matcher's `claude` dialect with the rest of the
//! client role's messages (`grade::messages`); here, each step's outcome
//! against what the CLI answered, and the SDK's side of the control
//! protocol: every request of the CLI's answered once, by its
//! `request_id`, with what its kind asks for (`docs/agents.md`).

use std::{collections::HashMap, time::Duration};

use serde_json::{Value, json};

use super::{Observed, Outcome, ServerEnd, capped, short};
use crate::{
    client::{
        CLAUDE_STEPS,
        claude::{
            ALLOWED_MARK, ALLOWED_TOOL, ASK_WAIT, COMMAND, DENIED_MESSAGE, MCP_SERVER, prompt,
            script::{Asked, Log, Turn},
        },
    },
    report::{Evidence, Verdict},
    rules::{self, Rule},
};

/// Every piece of evidence of one Claude scenario, beside the client
/// role's own (the adapter's reports, how it ended, the messages'
/// shapes).
pub(crate) fn claude_session(
    o: &Observed<'_>,
    log: &Log,
    outcomes: &HashMap<&'static str, Outcome>,
    out: &mut Vec<Evidence>,
) {
    let mut push = capped(out, o.scenario.meta.level);
    steps(log, outcomes, &mut push);
    let notes = asks(log, &mut push);
    requests(log, &mut push);
    // The CLI exits when its stdin ends: an SDK that closes it sees it go.
    // A CLI killed with its stdin open is only noted: an SDK that closes
    // stdin and signals at once (TypeScript ports do) is told from one
    // that never closed it only by which the CLI saw first, a race.
    let ended_by_sdk = o.exit.is_some() && !o.timed_out && log.stop.is_none();
    let killed = match o.server_end {
        ServerEnd::Running if ended_by_sdk => {
            push(
                &rules::CLAUDE_SDK_CLOSE,
                "when the SDK's adapter exited, the CLI it started was still running, its stdin open"
                    .into(),
            );
            false
        }
        ServerEnd::Killed => ended_by_sdk,
        _ => false,
    };
    drop(push);
    if killed {
        out.push(Evidence::note(
            Verdict::Pass,
            "the SDK killed the CLI before it saw its stdin end (Claude Code exits when its stdin ends; both official SDKs close it first and wait)".into(),
        ));
    }
    for n in notes {
        out.push(Evidence::note(Verdict::Pass, n));
    }
    if log.missing.is_some() {
        out.push(Evidence::note(
            Verdict::Skipped,
            log.missing.clone().unwrap_or_default(),
        ));
    }
}

/// What each step returned against what the CLI answered.
fn steps(
    log: &Log,
    outcomes: &HashMap<&'static str, Outcome>,
    push: &mut dyn FnMut(&'static Rule, String),
) {
    for step in &CLAUDE_STEPS {
        let got = outcomes.get(step.name);
        // What else a turn may return ([`turn_expected`]).
        let mut also = Vec::new();
        let expected: Expected = match step.method {
            "" => continue,
            // A turn is found by the prompt the contract gives its step.
            "user" => match log.turns.iter().position(|t| t.prompt == prompt(step.name)) {
                Some(k) => {
                    let (expected, others) = turn_expected(&log.turns, k, &super::late);
                    also = others;
                    expected
                }
                None => Expected::Unanswered("its `user` message never reached the CLI"),
            },
            method => match log.requests.iter().find(|r| r.subtype == method) {
                None => Expected::Unanswered("its control request never reached the CLI"),
                Some(r) => match (&r.answer, r.written) {
                    (None, _) | (Some(_), false) => {
                        Expected::Unanswered("the CLI never answered it")
                    }
                    (Some(Err(text)), true) => Expected::Error(text.clone()),
                    (Some(Ok(_)), true) if method == "initialize" => {
                        Expected::Result(json!([COMMAND]), false)
                    }
                    (Some(Ok(_)), true) => Expected::Done,
                },
            },
        };
        let Some(got) = got else { continue };
        if matches!(got, Outcome::Skipped(_)) {
            continue;
        }
        let call = format!("step `{}` ({})", step.name, step.method);
        match (&expected, got) {
            (Expected::Result(want, _), Outcome::Result(v)) if v == want || also.contains(v) => {}
            (Expected::Result(_, true), Outcome::Failed(_)) => {}
            (Expected::Done, Outcome::Result(_)) => {}
            (Expected::Error(text), Outcome::Error(v)) if mentions(v, text) => {}
            (Expected::Error(text), Outcome::Failed(why)) if why.contains(text.as_str()) => {}
            (Expected::Unanswered(_), Outcome::Failed(_) | Outcome::Error(_)) => {}
            (Expected::Unanswered(why), Outcome::Result(v)) => push(
                &rules::CLAUDE_SDK_RESULT,
                format!("{call}: {why}, yet the SDK returned {}", short(v)),
            ),
            (want, got) => push(
                &rules::CLAUDE_SDK_RESULT,
                format!(
                    "{call}: the CLI {}, the SDK returned {}",
                    want.describe(),
                    got.describe()
                ),
            ),
        }
    }
}

/// What turn `k` of `turns` should come to, and what else it may return:
/// the result of an earlier turn that ended after this one's `user`
/// message came (the SDK gave up on it: stream-json names no turn a
/// `result` ends, so the SDK takes the next one). A failure is no fault
/// of the SDK's when the first `result` it could take came `late` (asked,
/// queued) for the step's timeout.
fn turn_expected(
    turns: &[Turn],
    k: usize,
    late: &dyn Fn(Duration, Duration) -> bool,
) -> (Expected, Vec<Value>) {
    let t = &turns[k];
    let (Some(value), Some(done)) = (turn_value(t), t.done) else {
        return (
            Expected::Unanswered("the turn ended without a whole `result` record"),
            Vec::new(),
        );
    };
    let owed = turns[..k]
        .iter()
        .filter(|e| e.done.is_some_and(|d| d > t.asked));
    let also = owed.clone().filter_map(turn_value).collect();
    let first = owed.filter_map(|e| e.done).min().unwrap_or(done);
    (Expected::Result(value, late(t.asked, first)), also)
}

/// What the contract reports of turn `t`, once its `result` was written
/// whole.
fn turn_value(t: &Turn) -> Option<Value> {
    let (result, is_error) = t.result.as_ref()?;
    Some(json!({
        "text": t.texts.concat(),
        "result": result,
        "is_error": is_error,
    }))
}

/// What a step should come to.
enum Expected {
    /// This result (as the contract reports it); with `true`, the CLI
    /// gave it only after the step's timeout, and a failure is fine too.
    Result(Value, bool),
    /// Any result.
    Done,
    /// An error carrying this text.
    Error(String),
    /// No result: the CLI never gave one, and why.
    Unanswered(&'static str),
}

impl Expected {
    fn describe(&self) -> String {
        match self {
            Expected::Result(v, _) => format!("answered so that the contract reports {}", short(v)),
            Expected::Done => "answered `success`".to_owned(),
            Expected::Error(text) => format!("answered `error` {}", Value::from(text.as_str())),
            Expected::Unanswered(why) => (*why).to_owned(),
        }
    }
}

/// Whether the error `v` the adapter reported carries `text`.
fn mentions(v: &Value, text: &str) -> bool {
    match v {
        Value::String(s) => s.contains(text),
        other => other.to_string().contains(text),
    }
}

/// The SDK's answers to the CLI's control requests; returns what is only
/// noted.
fn asks(log: &Log, push: &mut dyn FnMut(&'static Rule, String)) -> Vec<String> {
    let mut notes = Vec::new();
    for ask in &log.asks {
        let what = format!(
            "the CLI's `{}` control request (request_id {})",
            ask.subtype(),
            ask.id
        );
        if ask.responses.len() > 1 {
            push(
                &rules::CONTROL_ANSWERED_ONCE,
                format!("{what} was answered {} times", ask.responses.len()),
            );
        }
        if ask.cancelled {
            if let Some((at, _)) = ask.responses.first() {
                push(
                    &rpcspec_matcher::rules::CLAUDE_REPLY_AFTER_CANCEL,
                    format!(
                        "{what} was cancelled at once, and answered {} ms later",
                        at.saturating_sub(ask.at).as_millis()
                    ),
                );
            }
            continue;
        }
        let Some((at, response)) = ask.responses.first() else {
            push(
                &rules::CONTROL_ANSWERED_ONCE,
                format!("{what} got no control_response (the CLI waited {ASK_WAIT:?})"),
            );
            continue;
        };
        if at.saturating_sub(ask.at) > ASK_WAIT {
            // No source bounds the wait (Python's own requests wait 60 s):
            // noted, not graded.
            notes.push(format!(
                "{what} was answered after {} ms; the CLI had gone on after {ASK_WAIT:?}",
                at.saturating_sub(ask.at).as_millis()
            ));
        }
        if let Some((rule, why)) = judge(ask, response) {
            push(
                rule,
                format!("{what}: {why}; the SDK answered {}", short(response)),
            );
        }
    }
    for id in &log.stray {
        push(
            &rules::CONTROL_UNSOLICITED,
            format!("a control_response {id}, which answers no control request of the CLI's"),
        );
    }
    notes
}

/// What is wrong with `response` as the answer to `ask`, if anything.
fn judge(ask: &Asked, response: &Value) -> Option<(&'static Rule, String)> {
    let subtype = response.get("subtype").and_then(Value::as_str);
    let body = response.get("response");
    let request = &ask.request;
    match ask.subtype() {
        "can_use_tool" => {
            let rule = &rules::CLAUDE_PERMISSION;
            if subtype != Some("success") {
                return Some((rule, "a permission request is answered `success` with the decision".into()));
            }
            let tool = request.get("tool_name").and_then(Value::as_str).unwrap_or_default();
            let behavior = body.and_then(|b| b.get("behavior")).and_then(Value::as_str);
            if tool == ALLOWED_TOOL {
                let mut want = request.get("input").cloned().unwrap_or_else(|| json!({}));
                if let Some(o) = want.as_object_mut() {
                    o.insert(ALLOWED_MARK.0.into(), ALLOWED_MARK.1.into());
                }
                let given = body.and_then(|b| b.get("updatedInput"));
                if behavior != Some("allow") || given != Some(&want) {
                    return Some((
                        rule,
                        format!(
                            "the callback allowed `{tool}` with the input {}: `behavior` \"allow\" and that `updatedInput` belong in the response",
                            short(&want)
                        ),
                    ));
                }
            } else {
                let message = body.and_then(|b| b.get("message")).and_then(Value::as_str);
                if behavior != Some("deny") || message != Some(DENIED_MESSAGE) {
                    return Some((
                        rule,
                        format!(
                            "the callback denied `{tool}` with the message {}: `behavior` \"deny\" and that `message` belong in the response",
                            Value::from(DENIED_MESSAGE)
                        ),
                    ));
                }
            }
            None
        }
        "hook_callback" => {
            (subtype != Some("success") || !body.is_some_and(Value::is_object)).then(|| {
                (
                    &rules::CLAUDE_HOOK_CALLBACK,
                    "a registered hook's call is answered `success`, the hook's output (an object) as `response`".into(),
                )
            })
        }
        "mcp_message" => {
            let rule = &rules::CLAUDE_MCP_MESSAGE;
            let message = request.get("message").cloned().unwrap_or_default();
            let reply = body.and_then(|b| b.get("mcp_response"));
            if subtype != Some("success") || !reply.is_some_and(Value::is_object) {
                return Some((rule, "an `mcp_message` is answered `success` with `mcp_response`, the server's JSON-RPC reply".into()));
            }
            let reply = reply.expect("checked");
            let id = message.get("id")?;
            if reply.get("id") != Some(id) {
                return Some((
                    rule,
                    format!("the message's id is {id}: its reply carries that id"),
                ));
            }
            if message.get("method").and_then(Value::as_str) == Some("tools/call") {
                let sent = message.pointer("/params/arguments/text");
                let text = reply
                    .pointer("/result/content")
                    .and_then(Value::as_array)
                    .and_then(|c| c.iter().find_map(|i| i.get("text")));
                if sent.is_some() && text != sent {
                    return Some((
                        rule,
                        format!(
                            "the `{}` tool echoes its text {}: its result's text content carries it",
                            MCP_SERVER.1,
                            sent.map(Value::to_string).unwrap_or_default()
                        ),
                    ));
                }
            }
            None
        }
        other => (subtype != Some("error")).then(|| {
            (
                &rules::CONTROL_UNSUPPORTED,
                format!("`{other}` is a subtype no SDK serves: it is answered `error`"),
            )
        }),
    }
}

/// The SDK's own control requests: `initialize` first, and each
/// `request_id` its own.
fn requests(log: &Log, push: &mut dyn FnMut(&'static Rule, String)) {
    let initialize = log.requests.iter().find(|r| r.subtype == "initialize");
    match (initialize, log.before_user) {
        (None, Some(_)) => push(
            &rules::CLAUDE_SDK_INITIALIZE,
            "the SDK sent a `user` message and never an `initialize` control request".into(),
        ),
        (Some(r), Some(before)) if r.line > before => push(
            &rules::CLAUDE_SDK_INITIALIZE,
            format!(
                "the SDK's first `user` message was line {}, its `initialize` line {}",
                before + 1,
                r.line
            ),
        ),
        _ => {}
    }
    // A request the CLI never answered is in flight to the end.
    let mut in_flight: Vec<&Value> = Vec::new();
    for r in log.requests.iter().filter(|r| !r.id.is_null()) {
        if in_flight.contains(&&r.id) {
            push(
                &rules::SESSION_ID_REUSED,
                format!(
                    "the SDK sent a `{1}` control request with request_id {0}, the id of one still in flight",
                    short(&r.id),
                    r.subtype
                ),
            );
        }
        if !r.written {
            in_flight.push(&r.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(asked: u64, done: u64, text: &str) -> Turn {
        Turn {
            prompt: String::new(),
            asked: Duration::from_secs(asked),
            done: Some(Duration::from_secs(done)),
            texts: vec![text.to_owned()],
            result: Some((Some("done".to_owned()), false)),
        }
    }

    /// Late when the first `result` was queued 3 s or more after the ask.
    fn late(asked: Duration, queued: Duration) -> bool {
        queued.saturating_sub(asked) >= Duration::from_secs(3)
    }

    #[test]
    fn a_turn_queued_behind_a_slow_one_may_return_its_result_or_give_up_on_it() {
        // Turn 0 asked at 0 s ends at 8 s; turn 1 came at 6 s, behind it,
        // and ended at 10 s: the first result it could take came 2 s
        // after it, in time.
        let turns = [turn(0, 8, "first"), turn(6, 10, "second")];
        let (expected, also) = turn_expected(&turns, 1, &late);
        assert!(matches!(expected, Expected::Result(ref v, false) if v["text"] == "second"));
        assert_eq!(also.len(), 1);
        assert_eq!(also[0]["text"], "first");
        // Asked at 4 s: turn 0's result, the first it could take, came 4 s
        // later: giving up is fine.
        let turns = [turn(0, 8, "first"), turn(4, 8, "second")];
        assert!(matches!(
            turn_expected(&turns, 1, &late).0,
            Expected::Result(_, true)
        ));
        // Turn 0 ended before turn 1 was asked: only turn 1's own result.
        let turns = [turn(0, 1, "first"), turn(2, 3, "second")];
        let (expected, also) = turn_expected(&turns, 1, &late);
        assert!(also.is_empty());
        assert!(matches!(expected, Expected::Result(_, false)));
    }
}
