//! What the target wrote, as it arrives: framing, pretty-printed messages
//! held back and joined, the matcher's session; and the grading of it all
//! into evidence and a verdict once the case has ended.

use crate::capture::Arrival;
use rpcspec_framer::{Event, ProblemKind};
use rpcspec_matcher::{Direction, Id, IdKind, IdMatch, Level};

use super::{
    Bytes, Case, CaseResult, Evidence, Expect, Got, MAX_PER_RULE, Match, Pattern, Received,
    RuleRef, Run, This, Verdict, describe_exit, framing_evidence, grade_step, initiated, is_json,
    null_capacity, owner_step, reply_ids,
};

impl Run<'_> {
    /// One framing event from the target's stdout.
    pub(super) fn take(&mut self, arrival: Arrival<'_>) {
        if self.flooded {
            return;
        }
        let received = arrival.received(self.opts.budget.kept_bytes());
        match arrival.event {
            Event::Line(line) => {
                let text = line.as_str().expect("the framer checks UTF-8").to_owned();
                let alone = is_json(&text);
                let offered = self.gather.offer(received, &text, alone);
                for (received, text) in offered.released {
                    self.message(received, text);
                }
                match offered.this {
                    This::Alone(received) => self.message(received, text),
                    This::Held => {}
                    This::Joined(lines, joined) => self.joined(lines, joined),
                }
            }
            Event::Problem(problem) => {
                self.release_held();
                let evidence = framing_evidence(&problem);
                let rule = evidence
                    .rule
                    .as_ref()
                    .map_or(String::new(), |r| r.id.clone());
                let seen = self
                    .framing_seen
                    .entry(rule)
                    .or_insert((0, evidence.verdict));
                seen.0 += 1;
                if seen.0 <= MAX_PER_RULE {
                    self.evidence.push(evidence);
                }
                if !matches!(problem.kind, ProblemKind::Bom) {
                    self.got.push(Got {
                        received,
                        text: None,
                        window: self.window,
                        ids: Vec::new(),
                        barrier: false,
                        reply: true,
                        findings: Vec::new(),
                    });
                }
            }
        }
    }

    /// Lines that are one pretty-printed message: a FAIL, and the message.
    pub(super) fn joined(&mut self, lines: Vec<Received>, joined: String) {
        let (first, last) = (&lines[0], &lines[lines.len() - 1]);
        self.evidence.push(Evidence {
            rule: Some(RuleRef::from_rule(&crate::rules::FRAMING_MULTI_LINE)),
            ..Evidence::note(
                Verdict::Fail,
                format!(
                    "stdout lines {}-{} are one JSON message spread over {} lines (pretty-printed)",
                    first.line,
                    last.line,
                    lines.len()
                ),
            )
        });
        let received = Received {
            bytes: Bytes::head(joined.as_bytes(), self.opts.budget.kept_bytes()),
            ..first.clone()
        };
        self.message(received, joined);
    }

    /// Held lines that never became a message are what they are: not JSON.
    pub(super) fn release_held(&mut self) {
        for (received, text) in self.gather.finish() {
            self.message(received, text);
        }
    }

    /// One message from the target, through the matcher's session.
    pub(super) fn message(&mut self, received: Received, text: String) {
        let classified = self.session.feed(Direction::ServerToClient, &text);
        let ids = reply_ids(&classified.kind);
        let barrier = ids.len() == 1
            && self
                .barriers
                .iter()
                .any(|b| b.compare(&ids[0]) == IdMatch::Same);
        let reply = !initiated(&classified.kind);
        self.got.push(Got {
            received,
            text: Some(text),
            window: self.window,
            ids,
            barrier,
            reply,
            findings: classified.findings,
        });
    }

    /// Turns what happened into evidence and a verdict.
    pub(super) fn grade(&mut self, case: &Case, result: &mut CaseResult) {
        // Attribute each message to the step whose request it answers, or
        // else to the window it arrived in.
        // A reply whose ids are all null names no request: it goes to the
        // earliest step up to its window that still awaits an id-null
        // message, so out-of-order answers to invalid requests land right.
        let mut null_room: Vec<usize> = case.steps.iter().map(null_capacity).collect();
        let mut per_step: Vec<Vec<&str>> = vec![Vec::new(); case.steps.len()];
        for g in self.got.iter().filter(|g| !g.barrier && g.reply) {
            let Some(text) = &g.text else { continue };
            let null_only = !g.ids.is_empty() && g.ids.iter().all(|id| id.kind() == IdKind::Null);
            let owner = owner_step(&g.ids, &self.step_ids).unwrap_or_else(|| {
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
        let ran = if self.stopped {
            self.window + 1
        } else {
            case.steps.len()
        };
        for (k, step) in case.steps.iter().enumerate().take(ran) {
            // A failed handshake makes the rest meaningless: always a MUST.
            let level = if k < self.preamble {
                Level::Must
            } else {
                case.meta.level
            };
            if let Some(mut e) = grade_step(step, k, &per_step[k], level) {
                self.name_unanswered(&mut e, k, case, per_step[k].len());
                // A FAIL of the case's own answer names the rule it breaks.
                if e.rule.is_none() && e.verdict == Verdict::Fail {
                    let rule = rule_of_step(step, &per_step[k]);
                    e.rule = Some(RuleRef::from_rule(rule));
                }
                if k < self.preamble {
                    e.step = None;
                    e.message =
                        format!("{} {}: {}", crate::report::PREAMBLE_STEP, k + 1, e.message);
                } else {
                    e.step = Some(k + 1 - self.preamble);
                }
                self.evidence.push(e);
            }
        }
        // Without a stated answer, "every request gets its reply" is still
        // a MUST (§5), checked over the whole conversation. Only when the
        // target ran to the end: a timeout or crash already says enough.
        let open_ended = case.steps.iter().any(|s| matches!(s.expect, Expect::Any));
        if open_ended && !self.stopped {
            for f in self.session.close() {
                if f.rule.level == Level::Must && !case.allow.iter().any(|a| a == f.rule.id) {
                    self.evidence.push(Evidence {
                        rule: Some(RuleRef::from_rule(f.rule)),
                        ..Evidence::note(Verdict::Fail, f.detail.clone())
                    });
                }
            }
        }
        // A few findings per rule say enough; a flood would say it 500k times.
        let mut per_rule: Vec<(&'static str, usize, Verdict)> = Vec::new();
        for g in &self.got {
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
                if seen > MAX_PER_RULE {
                    continue;
                }
                self.evidence.push(Evidence {
                    verdict,
                    rule: Some(RuleRef::from_rule(f.rule)),
                    message: format!("line {}: {}", g.received.line, f.detail),
                    step: None,
                    expected: Vec::new(),
                    actual: vec![g.text.clone().unwrap_or_default()],
                });
            }
        }
        let framing = std::mem::take(&mut self.framing_seen);
        let per_rule = per_rule
            .into_iter()
            .map(|(id, n, v)| (id.to_owned(), n, v))
            .chain(framing.into_iter().map(|(id, (n, v))| (id, n, v)));
        for (id, count, verdict) in per_rule {
            if count > MAX_PER_RULE {
                self.evidence.push(Evidence {
                    rule: crate::rules::by_id(&id).map(RuleRef::from_rule),
                    ..Evidence::note(
                        verdict,
                        format!("… and {} more findings of {id}", count - MAX_PER_RULE),
                    )
                });
            }
        }
        if let Some(status) = self.exit {
            result.exit = Some(describe_exit(status));
            let crashed = self.evidence.iter().any(|e| e.verdict == Verdict::Crash);
            if !status.success()
                && !crashed
                && !self.timed_out
                && !self.running.killed()
                && self.eof_is_input
            {
                self.evidence.push(Evidence {
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
        result.evidence = std::mem::take(&mut self.evidence);
        result.settle();
        result.sent = std::mem::take(&mut self.sent);
        result.prologue = self.prologue_marks;
        // Not `into_iter().map().collect()`: that reuses `got`'s allocation,
        // and a result would keep room for every line of a flood.
        let mut kept = Vec::with_capacity(self.got.len());
        kept.extend(self.got.drain(..).map(|g| g.received));
        result.received = kept;
        result.stderr = String::from_utf8_lossy(&self.running.stderr_tail()).into_owned();
    }

    /// A step that got fewer replies than it expects: when requests of
    /// its own got none, say which, with what was sent, whether the
    /// barrier after them was answered (so the target read them), and the
    /// rule a lost request breaks.
    fn name_unanswered(&self, e: &mut Evidence, k: usize, case: &Case, replies: usize) {
        let Expect::Messages(patterns) = &case.steps[k].expect else {
            return;
        };
        if replies >= patterns.len() {
            return;
        }
        let replies = self.got.iter().filter(|g| g.reply && !g.barrier);
        let answered: Vec<&Id> = replies.flat_map(|g| &g.ids).collect();
        let lost: Vec<&Id> = self
            .step_ids
            .get(k)
            .into_iter()
            .flatten()
            .filter(|id| id.kind() != IdKind::Null)
            .filter(|id| answered.iter().all(|a| a.compare(id) == IdMatch::Different))
            .collect();
        if lost.is_empty() || patterns.is_empty() {
            return;
        }
        let sent: String = self
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
        let barrier = format!("\"rpcspec-barrier-{}{}\"", self.tag, k + 1);
        let barrier_answered = self
            .barriers
            .iter()
            .find(|b| b.raw() == barrier)
            .is_some_and(|b| self.answered(b));
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
