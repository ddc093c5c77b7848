//! The server role's grader: a pure function of what one (case, plan)
//! observed ([`Observed`], taken from the run once it has ended), never of
//! the run's state or of which cases shared its process.

use std::{collections::BTreeMap, process::ExitStatus};

use rpcspec_matcher::{Finding, Id, IdKind, IdMatch, Level};

use super::{
    Case, Evidence, Expect, Got, Match, Pattern, RuleRef, Verdict, describe_exit, grade_step,
    null_capacity, owner_step,
};
use crate::{
    dialects::serving::{Serving, Wrote},
    report::{FINDINGS_PER_RULE, Sent},
};

/// What one (case, plan) observed: all its grader reads.
pub(super) struct Observed<'a> {
    /// Every line the target wrote, with what the runner made of it.
    pub(super) got: &'a [Got],
    /// The ids each step's requests carried.
    pub(super) step_ids: &'a [Vec<Id>],
    /// Every write.
    pub(super) sent: &'a [Sent],
    /// The barriers sent, and the tag in their ids.
    pub(super) barriers: &'a [Id],
    pub(super) tag: &'a str,
    /// The step whose window was open last.
    pub(super) window: usize,
    /// How many of the case's steps are a preamble's.
    pub(super) preamble: usize,
    /// The run stopped sending: the target timed out, crashed or flooded.
    pub(super) stopped: bool,
    pub(super) timed_out: bool,
    /// The runner killed the process.
    pub(super) killed: bool,
    /// The end of stdin was part of the case's input.
    pub(super) eof_is_input: bool,
    /// How the process ended, if it did.
    pub(super) exit: Option<ExitStatus>,
    /// What the server role does in the run's dialect (its descriptor's).
    pub(super) serving: &'a Serving,
    /// What the matcher's session found left open when it was closed.
    pub(super) closing: &'a [Finding],
    /// Framing problems per rule: how many, and the verdict of each.
    pub(super) framing_seen: &'a BTreeMap<String, (usize, Verdict)>,
    /// The evidence the run gave as it went (framing, start-up, crashes).
    pub(super) earlier: &'a [Evidence],
}

/// How a target told to exit (a last step's `expect_exit`: LSP's `exit`)
/// ended, against the status `wanted`: nothing if it ended so by itself.
fn exit_asked(o: &Observed<'_>, wanted: i32) -> Option<Evidence> {
    let rule = RuleRef::from_rule(&crate::dialects::lsp::LSP_EXIT_STATUS);
    let message = match o.exit {
        _ if o.timed_out => return None,
        Some(status) if !o.killed && status.code() == Some(wanted) => return None,
        Some(status) if !o.killed => format!(
            "told to exit, the target ended with {}, not exit status {wanted}",
            describe_exit(status)
        ),
        _ => format!(
            "told to exit, the target was still running after the exit grace (it should end \
             with exit status {wanted}); killed"
        ),
    };
    Some(Evidence {
        rule: Some(rule.clone()),
        ..Evidence::note(rule.verdict(), message)
    })
}

/// The requests the case's steps send, whole lines only: each id and
/// method.
fn asked(case: &Case) -> Vec<(Id, String)> {
    #[derive(serde::Deserialize)]
    struct Request {
        id: Option<serde_json::Value>,
        method: Option<String>,
    }
    let mut out = Vec::new();
    for step in &case.steps {
        let crate::cases::Send::Lines(lines) = &step.send else {
            continue;
        };
        for line in lines {
            let Ok(Request {
                id: Some(id),
                method: Some(method),
            }) = serde_json::from_slice::<Request>(line)
            else {
                continue;
            };
            if let Some(id) = Id::parse(&id.to_string()) {
                out.push((id, method));
            }
        }
    }
    out
}

/// The method of the request among `asked` whose id is one of `ids`.
fn answered_method<'a>(asked: &'a [(Id, String)], ids: &[Id]) -> Option<&'a str> {
    ids.iter().find_map(|id| {
        asked
            .iter()
            .find(|(a, _)| a.compare(id) == IdMatch::Same)
            .map(|(_, m)| m.as_str())
    })
}

/// Whether the barrier `id` was answered.
fn answered(got: &[Got], id: &Id) -> bool {
    got.iter().any(|g| {
        g.barrier
            && g.ids
                .first()
                .is_some_and(|a| a.compare(id) == IdMatch::Same)
    })
}

/// The evidence of one (case, plan) from what was observed, in order:
/// each step's answer, what the conversation left unanswered, the
/// matcher's findings (a few per rule, the rest counted), the exit.
pub(super) fn grade(case: &Case, o: &Observed<'_>) -> Vec<Evidence> {
    let mut out = steps(case, o);
    // What the conversation left unanswered (the runner closes the
    // session only where the case states no answer and the target ran to
    // the end).
    for f in o.closing {
        if f.rule.level == Level::Must && !case.allow.iter().any(|a| a == f.rule.id) {
            out.push(Evidence {
                rule: Some(RuleRef::from_rule(f.rule)),
                ..Evidence::note(Verdict::Fail, f.detail.clone())
            });
        }
    }
    out.extend(findings(case, o));
    // What the server initiated is graded once, by the case that checks
    // its rule, not in every case of the session.
    if let Some(initiated) = o.serving.initiated {
        let checked = |e: &Evidence| {
            let rule = e.rule.as_ref().map(|r| r.id.as_str());
            case.rule.is_some_and(|r| Some(r.id) == rule)
        };
        let asked = asked(case);
        let wrote: Vec<Wrote<'_>> = o
            .got
            .iter()
            .map(|g| Wrote {
                text: g.text.as_deref(),
                reply: g.reply,
                ids: &g.ids,
                answers: g.reply.then(|| answered_method(&asked, &g.ids)).flatten(),
                window: g.window,
            })
            .collect();
        out.extend(initiated(&wrote).into_iter().filter(checked));
    }
    if let Some(wanted) = case.steps.last().and_then(|s| s.exit) {
        out.extend(exit_asked(o, wanted));
    }
    if let Some(status) = o.exit {
        let crashed = o
            .earlier
            .iter()
            .chain(&out)
            .any(|e| e.verdict == Verdict::Crash);
        if !status.success() && !crashed && !o.timed_out && !o.killed && o.eof_is_input {
            out.push(Evidence {
                rule: Some(RuleRef::from_rule(&crate::rules::PROCESS_EXIT_STATUS)),
                ..Evidence::note(
                    Verdict::NonStrict,
                    format!(
                        "the target ended with {} after stdin closed",
                        describe_exit(status)
                    ),
                )
            });
        }
    }
    out
}

/// Each step's answer: every message attributed to the step whose
/// request it answers, or else to the window it arrived in, and graded
/// against the step's expectation.
fn steps(case: &Case, o: &Observed<'_>) -> Vec<Evidence> {
    let mut out = Vec::new();
    // Attribute each message to the step whose request it answers, or
    // else to the window it arrived in.
    // A reply whose ids are all null names no request: it goes to the
    // earliest step up to its window that still awaits an id-null
    // message, so out-of-order answers to invalid requests land right.
    let mut null_room: Vec<usize> = case.steps.iter().map(null_capacity).collect();
    let mut per_step: Vec<Vec<&str>> = vec![Vec::new(); case.steps.len()];
    for g in o.got.iter().filter(|g| !g.barrier && g.reply) {
        let Some(text) = &g.text else { continue };
        let null_only = !g.ids.is_empty() && g.ids.iter().all(|id| id.kind() == IdKind::Null);
        let owner = owner_step(&g.ids, o.step_ids).unwrap_or_else(|| {
            let last = g.window.min(null_room.len().saturating_sub(1));
            (0..=last)
                .find(|&k| null_only && null_room[k] > 0)
                .unwrap_or(g.window)
        });
        if null_only && let Some(room) = null_room.get_mut(owner) {
            *room = room.saturating_sub(1);
        }
        if let Some(list) = per_step.get_mut(owner) {
            list.push(text);
        }
    }
    let ran = if o.stopped {
        o.window + 1
    } else {
        case.steps.len()
    };
    for (k, step) in case.steps.iter().enumerate().take(ran) {
        // A failed handshake makes the rest meaningless: always a MUST.
        let level = if k < o.preamble {
            Level::Must
        } else {
            case.meta.level
        };
        if let Some(mut e) = grade_step(step, k, &per_step[k], level) {
            name_unanswered(o, &mut e, k, case, per_step[k].len());
            // A FAIL of the case's own answer names the rule it breaks:
            // the one the case checks, else the generic one. A case's
            // rule names its NON-STRICT answers too.
            match case.rule {
                Some(rule) if k >= o.preamble && e.verdict != Verdict::Pass => {
                    e.rule = Some(RuleRef::from_rule(rule));
                }
                _ if e.rule.is_none() && e.verdict == Verdict::Fail => {
                    let rule = rule_of_step(step, &per_step[k]);
                    e.rule = Some(RuleRef::from_rule(rule));
                }
                _ => {}
            }
            if k < o.preamble {
                e.step = None;
                e.message = format!("{} {}: {}", crate::report::PREAMBLE_STEP, k + 1, e.message);
            } else {
                e.step = Some(k + 1 - o.preamble);
            }
            out.push(e);
        }
    }
    out
}

/// The matcher's findings in what the target wrote: a few per rule, the
/// rest counted (and the framing problems' counts).
fn findings(case: &Case, o: &Observed<'_>) -> Vec<Evidence> {
    let mut out = Vec::new();
    // A few findings per rule say enough; a flood would say it 500k times.
    let mut per_rule: Vec<(&'static str, usize, Verdict)> = Vec::new();
    for g in o.got {
        for f in &g.findings {
            if case.allow.iter().any(|a| a == f.rule.id) {
                continue;
            }
            let verdict = match f.rule.level {
                Level::Must => Verdict::Fail,
                Level::Should => Verdict::NonStrict,
                Level::Info => continue,
            };
            let seen = match per_rule.iter_mut().find(|(id, _, _)| *id == f.rule.id) {
                Some(entry) => {
                    entry.1 += 1;
                    entry.1
                }
                None => {
                    per_rule.push((f.rule.id, 1, verdict));
                    1
                }
            };
            if seen > FINDINGS_PER_RULE {
                continue;
            }
            out.push(Evidence {
                verdict,
                rule: Some(RuleRef::from_rule(f.rule)),
                message: format!("line {}: {}", g.received.line, f.detail),
                step: None,
                expected: Vec::new(),
                actual: vec![g.text.clone().unwrap_or_default()],
            });
        }
    }
    let framing = o.framing_seen.iter();
    let per_rule = per_rule
        .into_iter()
        .map(|(id, n, v)| (id.to_owned(), n, v))
        .chain(framing.map(|(id, (n, v))| (id.clone(), *n, *v)));
    for (id, count, verdict) in per_rule {
        if count > FINDINGS_PER_RULE {
            out.push(Evidence {
                rule: crate::rules::by_id(&id).map(RuleRef::from_rule),
                ..Evidence::note(
                    verdict,
                    format!("… and {} more findings of {id}", count - FINDINGS_PER_RULE),
                )
            });
        }
    }
    out
}

/// A step that got fewer replies than it expects: when requests of
/// its own got none, say which, with what was sent, whether the
/// barrier after them was answered (so the target read them), and the
/// rule a lost request breaks.
fn name_unanswered(o: &Observed<'_>, e: &mut Evidence, k: usize, case: &Case, replies: usize) {
    let Expect::Messages(patterns) = &case.steps[k].expect else {
        return;
    };
    if replies >= patterns.len() {
        return;
    }
    let replies = o.got.iter().filter(|g| g.reply && !g.barrier);
    let replied: Vec<&Id> = replies.flat_map(|g| &g.ids).collect();
    let lost: Vec<&Id> = o
        .step_ids
        .get(k)
        .into_iter()
        .flatten()
        .filter(|id| id.kind() != IdKind::Null)
        .filter(|id| replied.iter().all(|a| a.compare(id) == IdMatch::Different))
        .collect();
    if lost.is_empty() || patterns.is_empty() {
        return;
    }
    let sent: String = o
        .sent
        .iter()
        .filter_map(|s| match &s.bytes {
            crate::report::Bytes::Text(t) => Some(t.as_str()),
            crate::report::Bytes::Base64(_) => None,
        })
        .collect();
    let line_of = |id: &Id| {
        sent.lines().find(|l| {
            !l.contains("rpcspec-barrier-")
                && id_in(l).is_some_and(|i| i.compare(id) == IdMatch::Same)
        })
    };
    let barrier = format!("\"rpcspec-barrier-{}{}\"", o.tag, k + 1);
    let barrier_answered = o
        .barriers
        .iter()
        .find(|b| b.raw() == barrier)
        .is_some_and(|b| answered(o.got, b));
    // A few named; the rest counted (a step may send a thousand).
    const NAMED: usize = 3;
    let mut named: Vec<String> = lost
        .iter()
        .take(NAMED)
        .map(|id| match line_of(id) {
            Some(line) => format!(
                "request id {} (`{}`)",
                id.raw(),
                crate::report::head_of(line.trim_end_matches('\r'), 160)
            ),
            None => format!("request id {}", id.raw()),
        })
        .collect();
    if lost.len() > NAMED {
        named.push(format!("{} more", lost.len() - NAMED));
    }
    let (them, it) = if lost.len() == 1 {
        ("it", "it")
    } else {
        ("them", "them")
    };
    let why = if barrier_answered {
        format!(
            "; the barrier sent after {them} was answered, so the target read {it} and dropped {it}"
        )
    } else {
        String::new()
    };
    let got = if lost.len() == 1 { "got" } else { "each got" };
    e.message = format!("{} {got} no reply{why} ({})", named.join(", "), e.message);
    if e.verdict == Verdict::Fail {
        e.rule = Some(RuleRef::from_rule(&crate::rules::SESSION_UNANSWERED));
    }
}

/// The rule a step's wrong answer breaks: no reply was due
/// (`session.reply-to-notification`), a batch's (`reply.batch`), or that
/// of the first expected message nothing matched: an error
/// (`reply.error`) or a result (`reply.result`).
fn rule_of_step(step: &crate::cases::Step, actual: &[&str]) -> &'static crate::rules::Rule {
    use crate::rules::{REPLY_BATCH, REPLY_ERROR, REPLY_RESULT, SESSION_REPLY_TO_NOTIFICATION};
    match &step.expect {
        Expect::Nothing => &SESSION_REPLY_TO_NOTIFICATION,
        Expect::Batch(_) => &REPLY_BATCH,
        Expect::Messages(patterns) => {
            let unmatched = patterns
                .iter()
                .find(|p| !actual.iter().any(|a| p.matches(a) == Match::Yes));
            // Every expected reply came, and more: one nothing asked for.
            if unmatched.is_none() && actual.len() > patterns.len() {
                return if sends_notification(step) {
                    &SESSION_REPLY_TO_NOTIFICATION
                } else {
                    &crate::rules::SESSION_DUPLICATE_REPLY
                };
            }
            if unmatched
                .or(patterns.first())
                .is_some_and(Pattern::is_error)
            {
                &REPLY_ERROR
            } else {
                &REPLY_RESULT
            }
        }
        Expect::Any => &REPLY_RESULT,
    }
}

/// Whether `step` sends a notification: an object with a `method` and no
/// `id`, alone or in a batch.
fn sends_notification(step: &crate::cases::Step) -> bool {
    let lines = match &step.send {
        crate::cases::Send::Lines(lines) | crate::cases::Send::Raw(lines) => lines,
    };
    let is_notification =
        |v: &serde_json::Value| v.get("method").is_some() && v.get("id").is_none();
    lines.iter().any(
        |line| match serde_json::from_slice::<serde_json::Value>(line) {
            Ok(serde_json::Value::Array(members)) => members.iter().any(is_notification),
            Ok(v) => is_notification(&v),
            Err(_) => false,
        },
    )
}

/// The `id` of the JSON object on `line`, if it has one.
fn id_in(line: &str) -> Option<Id> {
    #[derive(serde::Deserialize)]
    struct WithId<'a> {
        #[serde(borrow)]
        id: Option<&'a serde_json::value::RawValue>,
    }
    let with: WithId<'_> = serde_json::from_str(line).ok()?;
    Id::parse(with.id?.get())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use rpcspec_matcher::Id;

    use super::{Observed, grade};
    use crate::{
        cases::load_str,
        dialects::{lsp, serving::Serving},
        report::{Bytes, Received, Sent, Verdict},
    };

    const CASE: &str = r#"
[[case]]
name = "echo"
title = "a request is answered"
section = "JSON-RPC 2.0 §5"

[[case.step]]
send = '{"jsonrpc": "2.0", "method": "m", "id": 1}'
expect = '{"jsonrpc": "2.0", "result": "$any", "id": 1}'
"#;

    fn got(text: &str) -> super::Got {
        super::Got {
            received: Received {
                at_ms: 1,
                line: 1,
                offset: 0,
                bytes: Bytes::new(text.as_bytes()),
                unit: Default::default(),
            },
            text: Some(text.to_owned()),
            window: 0,
            ids: vec![Id::parse("1").unwrap()],
            barrier: false,
            reply: true,
            findings: Vec::new(),
        }
    }

    /// The grader reads only what it is handed: the same observation
    /// grades the same, and a reply missing from it is named with the
    /// request it leaves unanswered.
    #[test]
    fn the_grade_is_a_function_of_the_observation() {
        let case = &load_str(Path::new("t.toml"), CASE).unwrap()[0];
        let sent = [Sent {
            at_ms: 0,
            bytes: Bytes::new(br#"{"jsonrpc": "2.0", "method": "m", "id": 1}"#),
        }];
        let step_ids = [vec![Id::parse("1").unwrap()]];
        let answered = [got(r#"{"jsonrpc": "2.0", "result": 7, "id": 1}"#)];
        let framing = Default::default();
        let observed = |got| Observed {
            got,
            step_ids: &step_ids,
            sent: &sent,
            barriers: &[],
            tag: "",
            window: 0,
            preamble: 0,
            stopped: false,
            timed_out: false,
            killed: false,
            eof_is_input: false,
            exit: None,
            serving: &Serving::PLAIN,
            closing: &[],
            framing_seen: &framing,
            earlier: &[],
        };
        assert!(grade(case, &observed(&answered)).is_empty());
        let lost = grade(case, &observed(&[]));
        assert_eq!(lost, grade(case, &observed(&[])));
        assert_eq!(lost.len(), 1);
        assert_eq!(lost[0].verdict, Verdict::Fail);
        assert_eq!(lost[0].rule.as_ref().unwrap().id, "session.unanswered");
        assert!(
            lost[0].message.starts_with("request id 1 (`"),
            "{}",
            lost[0].message
        );
    }

    /// In LSP, what the server sends of its own accord is graded by the
    /// case that checks its rule, from the whole observation (the
    /// handshake's traffic included), and nowhere else; a target told to
    /// exit is held to the status it was told.
    #[test]
    fn lsp_session_findings_go_to_the_case_that_checks_them() {
        let text = |t: &str, reply: bool, id: Option<&str>| super::Got {
            reply,
            ids: id.map(|i| Id::parse(i).unwrap()).into_iter().collect(),
            ..got(t)
        };
        let early = [
            text(
                r#"{"jsonrpc":"2.0","id":7,"method":"client/registerCapability","params":{}}"#,
                false,
                None,
            ),
            // The handshake's reply, which no step of this one-step case
            // owns (as none owns a barrier's answer).
            super::Got {
                barrier: true,
                ..text(
                    r#"{"jsonrpc":"2.0","result":{"capabilities":{}},"id":"rpcspec-initialize"}"#,
                    true,
                    Some("\"rpcspec-initialize\""),
                )
            },
            text(
                r#"{"jsonrpc": "2.0", "result": 7, "id": 1}"#,
                true,
                Some("1"),
            ),
        ];
        let cases = load_str(
            Path::new("lsp.toml"),
            &CASE.replace(
                "[[case.step]]",
                "dialect = \"lsp\"\nrule = \"lsp.before-initialized\"\n\n[[case.step]]",
            ),
        )
        .unwrap();
        let plain = &load_str(Path::new("t.toml"), CASE).unwrap()[0];
        let framing = Default::default();
        let observed = |got, serving, exit| Observed {
            got,
            step_ids: &[],
            sent: &[],
            barriers: &[],
            tag: "",
            window: 0,
            preamble: 0,
            stopped: false,
            timed_out: false,
            killed: false,
            eof_is_input: false,
            exit,
            serving,
            closing: &[],
            framing_seen: &framing,
            earlier: &[],
        };
        let found = grade(&cases[0], &observed(&early, &lsp::SERVING, None));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].rule.as_ref().unwrap().id, "lsp.before-initialized");
        assert_eq!(found[0].verdict, Verdict::Fail);
        assert!(grade(plain, &observed(&early, &lsp::SERVING, None)).is_empty());
        assert!(grade(&cases[0], &observed(&early, &Serving::PLAIN, None)).is_empty());
        assert!(grade(&cases[0], &observed(&early[1..], &lsp::SERVING, None)).is_empty());

        let exit_case = &load_str(
            Path::new("exit.toml"),
            &CASE.replace(
                "expect = '{\"jsonrpc\": \"2.0\", \"result\": \"$any\", \"id\": 1}'",
                "expect_exit = 0\nexpect_none = true",
            ),
        )
        .unwrap()[0];
        use std::os::unix::process::ExitStatusExt;
        let status = |code: i32| Some(std::process::ExitStatus::from_raw(code << 8));
        assert!(grade(exit_case, &observed(&[], &lsp::SERVING, status(0))).is_empty());
        let wrong = grade(exit_case, &observed(&[], &lsp::SERVING, status(1)));
        assert_eq!(wrong.len(), 1, "{wrong:?}");
        assert_eq!(wrong[0].rule.as_ref().unwrap().id, "lsp.exit-status");
        assert_eq!(wrong[0].verdict, Verdict::NonStrict);
        assert!(
            wrong[0].message.contains("not exit status 0"),
            "{}",
            wrong[0].message
        );
        let alive = grade(exit_case, &observed(&[], &lsp::SERVING, None));
        assert!(alive[0].message.contains("still running"), "{alive:?}");
    }
}
