//! The codex-exec scenarios' graders: pure functions of what the scripted
//! `codex exec` saw and wrote ([`Log`]) and what the adapter reported its
//! SDK yielded (`docs/agents.md`, "Codex exec decoders"): the CLI started
//! as the stream needs it, every event it wrote handed on in order, and
//! the turn's outcome true to how the process ended.

use std::{collections::HashMap, time::Duration};

use serde_json::Value;

use super::{Observed, Outcome, capped, short};
use crate::{
    client::codex_exec::{
        KNOWN, PROMPT,
        script::{Began, Log},
    },
    report::Evidence,
    rules::{self, Rule},
};

/// A line the CLI wrote, as a decoder can read it.
struct Line {
    /// The event it is: a JSON object with a string `type`, in UTF-8
    /// (with or without its line end). `None`: noise, a cut record,
    /// invalid UTF-8, which a decoder may stop at.
    event: Option<Value>,
    /// What a lenient decoder may make of a line that is no event (its
    /// text with U+FFFD for invalid bytes, parsed).
    lenient: Option<Value>,
}

impl Line {
    fn read(bytes: &[u8]) -> Line {
        let object = |v: Value| v.get("type").is_some_and(Value::is_string).then_some(v);
        let event = std::str::from_utf8(bytes)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(t).ok())
            .and_then(object);
        let lenient = match event {
            Some(_) => None,
            None => serde_json::from_str::<Value>(&String::from_utf8_lossy(bytes))
                .ok()
                .and_then(object),
        };
        Line { event, lenient }
    }

    fn kind(&self) -> &str {
        self.event
            .as_ref()
            .and_then(|e| e.get("type"))
            .and_then(Value::as_str)
            .unwrap_or_default()
    }
}

/// How the adapter said the turn ended.
enum Got<'a> {
    /// The SDK's stream ended without an error: the events it yielded.
    Done(&'a [Value]),
    /// It raised: the error's text, and the events it yielded first.
    Raised(String, &'a [Value]),
    /// Any other failure (the adapter's timeout).
    Failed(&'a str),
}

/// Every piece of evidence of one codex-exec scenario, beside the client
/// role's own (the adapter's reports, how it ended).
pub(crate) fn exec_session(
    o: &Observed<'_>,
    log: &Log,
    outcomes: &HashMap<&'static str, Outcome>,
    out: &mut Vec<Evidence>,
) {
    let mut push = capped(out, o.scenario.meta.level);
    if !invoked(log, &mut push) {
        return;
    }
    let got = match outcomes.get("turn") {
        None | Some(Outcome::Skipped(_) | Outcome::Sent) => return,
        Some(Outcome::Failed(why)) => Got::Failed(why),
        Some(Outcome::Result(v)) => match events_of(v) {
            Some(events) => Got::Done(events),
            None => {
                return push(
                    &rules::CLIENT_CONTRACT,
                    format!(
                        "step `turn`: a result is {{\"events\": [the events the SDK yielded]}}, not {}",
                        short(v)
                    ),
                );
            }
        },
        Some(Outcome::Error(v)) => match (v.get("message"), events_of(v)) {
            (Some(m), Some(events)) => Got::Raised(
                m.as_str().map_or_else(|| m.to_string(), str::to_owned),
                events,
            ),
            _ => {
                return push(
                    &rules::CLIENT_CONTRACT,
                    format!(
                        "step `turn`: an error is {{\"message\": its text, \"events\": [the events the SDK yielded first]}}, not {}",
                        short(v)
                    ),
                );
            }
        },
    };
    let lines: Vec<Line> = log.lines.iter().map(|w| Line::read(&w.bytes)).collect();
    outcome(log, &lines, &got, &mut push);
    match got {
        Got::Done(events) => events_handed_on(&lines, events, None, &mut push),
        Got::Raised(why, events) => events_handed_on(&lines, events, Some(&why), &mut push),
        Got::Failed(_) => {}
    }
}

/// The `events` array of a reported result or error.
fn events_of(v: &Value) -> Option<&[Value]> {
    v.get("events").and_then(Value::as_array).map(Vec::as_slice)
}

/// Whether the CLI was started as the stream needs and got its prompt;
/// `false` when it never began, and nothing else can be graded.
fn invoked(log: &Log, push: &mut dyn FnMut(&'static Rule, String)) -> bool {
    let rule = &rules::CODEX_EXEC_INVOKE;
    let json = log
        .args
        .iter()
        .any(|a| a == "--experimental-json" || a == "--json");
    // Codex takes its root options before the subcommand, and `e` for it.
    let exec = log.args.iter().any(|a| a == "exec" || a == "e");
    if !exec || !json {
        push(
            rule,
            format!(
                "the SDK started the CLI with the arguments {}: the JSON event stream is `codex exec --experimental-json` (or `--json`)",
                short(&Value::from(log.args.clone()))
            ),
        );
    }
    match log.began {
        None => {
            push(
                rule,
                format!(
                    "the SDK never ended the CLI's stdin ({} bytes came), nor gave the prompt as an argument: `codex exec` reads its prompt to the end of stdin, so the turn never began",
                    log.input
                ),
            );
            false
        }
        Some((_, Began::Eof)) => {
            let text = String::from_utf8_lossy(&log.prompt);
            if text.trim_end() != PROMPT {
                push(
                    rule,
                    format!(
                        "the CLI's stdin held {}; the turn's prompt is {}",
                        short(&Value::from(text.as_ref())),
                        Value::from(PROMPT)
                    ),
                );
            }
            true
        }
        Some((_, Began::Argument)) => true,
    }
}

/// The turn's outcome against how the CLI's process ended. What the CLI
/// wrote is what the scenario had it write; whether it got to the end of
/// it is whether it carried out its exit ([`Log::exited`]).
fn outcome(log: &Log, lines: &[Line], got: &Got<'_>, push: &mut dyn FnMut(&'static Rule, String)) {
    let kinds: Vec<&str> = lines.iter().map(Line::kind).collect();
    let ended = kinds
        .iter()
        .rev()
        .find(|k| matches!(**k, "turn.completed" | "turn.failed"));
    let whole = lines.iter().all(|l| l.event.is_some());
    let clean = whole && ended == Some(&"turn.completed") && log.exit == Some(0);
    let status = log.exit.unwrap_or(0);
    let closed = if log.closed {
        " (its stdout closed first)"
    } else {
        ""
    };
    let began = log.began.map_or(Duration::ZERO, |(at, _)| at);
    match got {
        Got::Done(_) if status != 0 => push(
            &rules::CODEX_EXEC_OUTCOME,
            format!(
                "the CLI's stream ends with exit status {status}{closed}, yet the SDK's turn ended without an error"
            ),
        ),
        Got::Done(_) if ended.is_none() => push(
            &rules::CODEX_EXEC_END,
            "the stream ended without `turn.completed` or `turn.failed` (the CLI exited 0), and the SDK's turn ended as if it were whole".into(),
        ),
        Got::Raised(why, _) if clean => push(
            &rules::CODEX_EXEC_OUTCOME,
            format!(
                "the CLI's stream is a whole turn ending in `turn.completed`, with exit status 0, yet the SDK raised: {}",
                short(&Value::from(why.as_str()))
            ),
        ),
        Got::Failed(why) if clean => match log.exited {
            // The CLI itself took longer than the step's timeout, as far
            // as rpcspec can tell.
            Some(exited) if super::late(began, exited) => {}
            Some(exited) => push(
                &rules::CODEX_EXEC_OUTCOME,
                format!(
                    "the CLI wrote a whole turn ending in `turn.completed` and exited 0, {} ms after it began, yet the turn failed: {why}",
                    exited.saturating_sub(began).as_millis()
                ),
            ),
            None => push(
                &rules::CODEX_EXEC_OUTCOME,
                format!(
                    "the CLI's stream is a whole turn ending in `turn.completed`, but the CLI never got to its end (its writes were not read: stdout or stderr left unread?, or it was killed first), and the turn failed: {why}"
                ),
            ),
        },
        _ => {}
    }
}

/// Whether `a` and `b` agree on every member both have, at any depth (a
/// typed decoder drops members it has no field for, and may add its
/// defaults); arrays agree element by element, anything else is equal.
fn agrees(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            a.iter().all(|(k, v)| b.get(k).is_none_or(|w| agrees(v, w)))
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(v, w)| agrees(v, w))
        }
        _ => a == b,
    }
}

/// The members a decoder keeps whatever it drops, where the CLI wrote
/// them: what an event is about (its thread, its item, its text, its
/// error, its usage).
const CORE: [&str; 9] = [
    "/type",
    "/thread_id",
    "/item/id",
    "/item/type",
    "/item/text",
    "/error/message",
    "/message",
    "/usage/input_tokens",
    "/usage/output_tokens",
];

/// Whether `yielded` is the event `written`: the same core members, and
/// no member both have differs.
fn same_event(written: &Value, yielded: &Value) -> bool {
    CORE.iter().all(|p| {
        written
            .pointer(p)
            .is_none_or(|w| yielded.pointer(p) == Some(w))
    }) && agrees(written, yielded)
}

/// The events the SDK yielded against the lines the CLI wrote: each
/// yielded event is a line written, in order ([`same_event`]: a decoder
/// may drop or add members, not change one), and each event of a known
/// type is yielded; after a line that is no event, a decoder that
/// `raised` (with this message) owes nothing more, and one that raised
/// with a `turn.failed`'s message handed that event on in its error.
fn events_handed_on(
    lines: &[Line],
    yielded: &[Value],
    raised: Option<&str>,
    push: &mut dyn FnMut(&'static Rule, String),
) {
    let rule = &rules::CODEX_EXEC_EVENTS;
    let mut delivered = vec![false; lines.len()];
    let mut next = 0;
    for (n, event) in yielded.iter().enumerate() {
        let found = (next..lines.len()).find(|&k| {
            lines[k]
                .event
                .as_ref()
                .or(lines[k].lenient.as_ref())
                .is_some_and(|w| same_event(w, event))
        });
        match found {
            Some(k) => {
                delivered[k] = true;
                next = k + 1;
            }
            None => push(
                rule,
                format!(
                    "event {} the SDK yielded, {}, is no line the CLI wrote at that place in the stream (a duplicate, a reordering or a made-up event)",
                    n + 1,
                    short(event)
                ),
            ),
        }
    }
    let stop = if raised.is_some() {
        lines
            .iter()
            .position(|l| l.event.is_none())
            .unwrap_or(lines.len())
    } else {
        lines.len()
    };
    for (k, line) in lines.iter().enumerate().take(stop) {
        let Some(event) = &line.event else { continue };
        if delivered[k] || !KNOWN.contains(&line.kind()) {
            continue;
        }
        let failed = event.pointer("/error/message").and_then(Value::as_str);
        if line.kind() == "turn.failed" && raised.zip(failed).is_some_and(|(r, f)| r.contains(f)) {
            continue;
        }
        push(
            rule,
            format!(
                "line {} the CLI wrote, {}, never reached the SDK's caller{}",
                k + 1,
                short(event),
                if raised.is_some() {
                    " (the SDK raised later)"
                } else {
                    ""
                }
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::{Value, json};

    use super::{Got, Line, agrees, events_handed_on, outcome};
    use crate::client::codex_exec::script::{Log, Written};

    fn lines(written: &[&[u8]]) -> Vec<Line> {
        written.iter().map(|b| Line::read(b)).collect()
    }

    /// The rule ids of what `f` pushed.
    fn pushed(f: impl FnOnce(&mut dyn FnMut(&'static crate::rules::Rule, String))) -> Vec<String> {
        let mut ids = Vec::new();
        f(&mut |rule, message| ids.push(format!("{}: {message}", rule.id)));
        ids
    }

    const STARTED: &[u8] = br#"{"type":"turn.started"}"#;
    const MESSAGE: &[u8] =
        br#"{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"hi"}}"#;
    const DONE: &[u8] =
        br#"{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":2}}"#;

    fn parsed(b: &[u8]) -> Value {
        serde_json::from_slice(b).unwrap()
    }

    #[test]
    fn members_agree_where_both_have_them() {
        assert!(agrees(
            &json!({"a": 1, "b": {"c": 2}}),
            &json!({"a": 1, "b": {}, "d": 3})
        ));
        assert!(!agrees(&json!({"a": 1}), &json!({"a": 2})));
        assert!(!agrees(&json!({"b": {"c": 2}}), &json!({"b": {"c": "2"}})));
        assert!(!agrees(&json!([1, 2]), &json!([1])));
        assert!(agrees(&json!([{"a": 1}]), &json!([{"a": 1, "b": 2}])));
    }

    #[test]
    fn an_event_that_lost_what_it_is_about_is_not_the_event() {
        let l = lines(&[MESSAGE]);
        let bare =
            json!({"type": "item.completed", "item": {"id": "item_0", "type": "agent_message"}});
        assert_eq!(pushed(|p| events_handed_on(&l, &[bare], None, p)).len(), 2);
    }

    #[test]
    fn a_decoder_that_raises_with_turn_failed_s_message_handed_it_on() {
        let failed: &[u8] = br#"{"type":"turn.failed","error":{"message":"boom"}}"#;
        let l = lines(&[STARTED, failed]);
        let y = [parsed(STARTED)];
        assert!(pushed(|p| events_handed_on(&l, &y, Some("Error: boom"), p)).is_empty());
        assert_eq!(
            pushed(|p| events_handed_on(&l, &y, Some("other"), p)).len(),
            1
        );
    }

    #[test]
    fn every_event_in_order_passes_and_a_typed_decoder_may_drop_members() {
        let l = lines(&[STARTED, MESSAGE, DONE]);
        let typed =
            json!({"type": "turn.completed", "usage": {"input_tokens": 1, "output_tokens": 2}});
        let yielded = [parsed(STARTED), parsed(MESSAGE), typed];
        assert!(pushed(|p| events_handed_on(&l, &yielded, None, p)).is_empty());
    }

    #[test]
    fn a_missing_a_repeated_or_a_changed_event_is_found() {
        let l = lines(&[STARTED, MESSAGE, DONE]);
        let missing = pushed(|p| events_handed_on(&l, &[parsed(STARTED), parsed(DONE)], None, p));
        assert_eq!(missing.len(), 1, "{missing:?}");
        assert!(
            missing[0].starts_with("codex.exec-events: line 2"),
            "{missing:?}"
        );
        let twice = [
            parsed(STARTED),
            parsed(MESSAGE),
            parsed(MESSAGE),
            parsed(DONE),
        ];
        let repeated = pushed(|p| events_handed_on(&l, &twice, None, p));
        assert!(
            repeated
                .iter()
                .any(|m| m.contains("event 3 the SDK yielded")),
            "{repeated:?}"
        );
        let mut changed = parsed(MESSAGE);
        changed["item"]["text"] = json!("h");
        let found =
            pushed(|p| events_handed_on(&l, &[parsed(STARTED), changed, parsed(DONE)], None, p));
        assert_eq!(found.len(), 2, "{found:?}");
    }

    #[test]
    fn after_a_line_that_is_no_event_a_decoder_that_raised_owes_nothing() {
        let l = lines(&[STARTED, b"[log] noise", MESSAGE, DONE]);
        assert!(pushed(|p| events_handed_on(&l, &[parsed(STARTED)], Some("x"), p)).is_empty());
        // One that went on owes the rest.
        let went_on = pushed(|p| events_handed_on(&l, &[parsed(STARTED), parsed(DONE)], None, p));
        assert_eq!(went_on.len(), 1, "{went_on:?}");
        // An unknown type is no excuse to stop, and may be dropped.
        let l = lines(&[STARTED, br#"{"type":"later.thing"}"#, DONE]);
        assert!(
            pushed(|p| events_handed_on(&l, &[parsed(STARTED), parsed(DONE)], None, p)).is_empty()
        );
        assert_eq!(
            pushed(|p| events_handed_on(&l, &[parsed(STARTED)], Some("x"), p)).len(),
            1
        );
        // What a lenient decoder makes of invalid UTF-8 is no made-up event.
        let l = lines(&[b"{\"type\":\"error\",\"message\":\"a\xFF\"}", DONE]);
        let lenient = json!({"type": "error", "message": "a\u{FFFD}"});
        assert!(pushed(|p| events_handed_on(&l, &[lenient, parsed(DONE)], None, p)).is_empty());
    }

    fn log(written: &[&[u8]], exit: i32) -> Log {
        Log {
            lines: written
                .iter()
                .map(|b| Written {
                    bytes: b.to_vec(),
                    end: true,
                })
                .collect(),
            exit: Some(exit),
            ..Log::default()
        }
    }

    #[test]
    fn the_outcome_follows_the_exit_status_and_the_turn_s_end() {
        let none: [Value; 0] = [];
        let whole = log(&[STARTED, DONE], 0);
        let l = lines(&[STARTED, DONE]);
        assert!(pushed(|p| outcome(&whole, &l, &Got::Done(&none), p)).is_empty());
        let raised = pushed(|p| outcome(&whole, &l, &Got::Raised("x".into(), &none), p));
        assert!(raised[0].starts_with("codex.exec-outcome"), "{raised:?}");
        let failed = log(&[STARTED, DONE], 1);
        let done = pushed(|p| outcome(&failed, &l, &Got::Done(&none), p));
        assert!(done[0].contains("ends with exit status 1"), "{done:?}");
        assert!(pushed(|p| outcome(&failed, &l, &Got::Raised("x".into(), &none), p)).is_empty());
        let cut = log(&[STARTED], 0);
        let l = lines(&[STARTED]);
        let end = pushed(|p| outcome(&cut, &l, &Got::Done(&none), p));
        assert!(end[0].starts_with("codex.exec-end"), "{end:?}");
        assert!(pushed(|p| outcome(&cut, &l, &Got::Failed("timed out"), p)).is_empty());
        // A timeout on a whole turn: a fault when the CLI exited in
        // time, or never got to its end; excused when it took longer.
        let l = lines(&[STARTED, DONE]);
        let mut gone = log(&[STARTED, DONE], 0);
        gone.exited = Some(Duration::from_millis(50));
        let found = pushed(|p| outcome(&gone, &l, &Got::Failed("timed out"), p));
        assert!(
            found[0].contains("exited 0, 50 ms after it began"),
            "{found:?}"
        );
        let stuck = pushed(|p| outcome(&whole, &l, &Got::Failed("timed out"), p));
        assert!(stuck[0].contains("never got to its end"), "{stuck:?}");
        gone.exited = Some(Duration::from_secs(4));
        assert!(pushed(|p| outcome(&gone, &l, &Got::Failed("timed out"), p)).is_empty());
    }
}
