//! What the target wrote, as it arrives: framing, pretty-printed messages
//! held back and joined, the matcher's session; and, once the case has
//! ended, what was observed handed to the pure grader (`observed.rs`).

use crate::capture::{Arrival, Framing};
use crate::report::FINDINGS_PER_RULE;
use rpcspec_framer::{Event, ProblemKind};
use rpcspec_matcher::{Direction, IdMatch};

use super::{
    Bytes, Case, CaseResult, Evidence, Expect, Got, Received, RuleRef, Run, This, Verdict,
    describe_exit, framing_evidence, initiated, is_json,
    observed::{self, Observed},
    reply_ids,
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
                // A Content-Length body is one message, however many lines
                // it spans.
                if !matches!(self.server.framing(), Framing::Ndjson(_)) {
                    self.message(received, text);
                    return;
                }
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
                let evidence = framing_evidence(&problem, self.server.framing());
                let rule = evidence
                    .rule
                    .as_ref()
                    .map_or(String::new(), |r| r.id.clone());
                let seen = self
                    .framing_seen
                    .entry(rule)
                    .or_insert((0, evidence.verdict));
                seen.0 += 1;
                if seen.0 <= FINDINGS_PER_RULE {
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

    /// Answers a request the target sent, where the dialect has rpcspec
    /// answer (`Serving::answer`), so that a server waiting on its client
    /// goes on. Not while a kept process's prologue is replayed: its
    /// answers are replayed with it.
    pub(super) fn answer_server(&mut self, id: &rpcspec_matcher::Id, method: &str) {
        let Some(answer) = self.opts.descriptor().serve.answer else {
            return;
        };
        if self.replaying || self.stopped || self.running.stdin_closed() {
            return;
        }
        let text = format!(
            r#"{{"jsonrpc":"2.0",{},"id":{}}}"#,
            answer(method),
            id.raw()
        );
        let bytes = self.opts.framing.encode(text.as_bytes());
        let pause = std::time::Duration::ZERO;
        self.send(vec![crate::plan::Write { pause, bytes }], None);
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
        if let rpcspec_matcher::Kind::Request { id, method } = &classified.kind {
            self.answer_server(id, method);
        }
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

    /// Turns what happened into evidence and a verdict: the pure grader
    /// ([`super::observed::grade`]) over what the run observed, then the
    /// traffic moved into the result.
    pub(super) fn grade(&mut self, case: &Case, result: &mut CaseResult) {
        // Without a stated answer, "every request gets its reply" is still
        // a MUST (§5), checked over the whole conversation. Only when the
        // target ran to the end: a timeout or crash already says enough.
        let open_ended = case.steps.iter().any(|s| matches!(s.expect, Expect::Any));
        let closing = if open_ended && !self.stopped {
            self.session.close()
        } else {
            Vec::new()
        };
        let framing_seen = std::mem::take(&mut self.framing_seen);
        let observed = Observed {
            got: &self.got,
            step_ids: &self.step_ids,
            sent: &self.sent,
            barriers: &self.barriers,
            tag: &self.tag,
            window: self.window,
            preamble: self.preamble,
            stopped: self.stopped,
            timed_out: self.timed_out,
            killed: self.running.killed(),
            eof_is_input: self.eof_is_input,
            exit: self.exit,
            serving: &self.opts.descriptor().serve,
            closing: &closing,
            framing_seen: &framing_seen,
            earlier: &self.evidence,
        };
        let graded = observed::grade(case, &observed);
        self.evidence.extend(graded);
        if let Some(status) = self.exit {
            result.exit = Some(describe_exit(status));
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
}
