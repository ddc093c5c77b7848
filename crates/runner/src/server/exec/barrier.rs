//! Barriers: how a case's answers are delimited and a process is heard.
//! After a step the runner sends a request whose answer is known (an
//! unknown method with a fresh id) and waits for it; a barrier unanswered
//! while the target is quiet is asked again on its own line
//! ([`Run::resync`]); a kept process's case ends with a fence
//! ([`Run::fence`]); barrier 0 proves a new process reads
//! ([`Run::ready`]), and a run whose processes never do halts
//! ([`Run::unheard`]).

use std::time::{Duration, Instant};

use rpcspec_matcher::{Id, IdKind, IdMatch};

use super::{LOST_GRACE, Recorded, dialect::barrier_method, run::Run};
use crate::{
    capture::Framing,
    dialects::Framed,
    plan::{Plan, Write},
    report::{Bytes, Evidence, Halt, Verdict},
    target::describe_exit,
};

impl Run<'_> {
    /// Closes the case on a process to be kept with a barrier written only
    /// now, once every earlier barrier has been answered: a target that
    /// answers its reads in turn answers it after everything this case
    /// sent (a blank line's parse error it writes after the last
    /// barrier's answer included), so what comes before its answer is this
    /// case's last window, as a process of its own would have written it
    /// before exiting. Unanswered within the replies' grace (see
    /// [`Run::await_replies`]), the process is not kept: the case then
    /// ends as on a process of its own. Returns whether it was answered.
    pub(super) fn fence(&mut self) -> bool {
        let id = self.send_barrier_as("fence", Plan::Whole);
        let grace =
            (self.barrier_rtt * 10).clamp(Duration::from_millis(100), Duration::from_secs(1));
        let until = self.deadline().min(Instant::now() + grace);
        self.wait(|r| r.answered(&id), until) && self.reusable()
    }

    /// Whether a request the case sent has no reply yet (one naming its
    /// id in any spelling or type counts: nothing more is due for it), or
    /// a second barrier has none.
    pub(super) fn replies_due(&self) -> bool {
        self.resyncs.iter().any(|id| !self.answered(id))
            || self.step_ids.iter().flatten().any(|id| {
                !self
                    .got
                    .iter()
                    .any(|g| g.reply && g.ids.iter().any(|a| a.compare(id) != IdMatch::Different))
            })
    }

    /// Waits for a sign that the target is reading: the answer to barrier
    /// 0, or any line that names it (`cat` echoes the barrier back; a
    /// banner is no sign), or its end; at most the start-up limit, and once
    /// a process of this run has given no sign in that time, a tenth of
    /// the case deadline and at most 250 ms. No sign is no verdict: the
    /// case goes on and its own barriers judge the target, unless no
    /// process of the run has given one, which halts the run
    /// ([`Run::unheard`]).
    pub(super) fn ready(&mut self) {
        let id = self.send_barrier(0, Plan::Whole);
        // Whether this wait is the full start-up limit, not the short one
        // a silent target gets.
        let full = !self.opts.readiness.silent();
        let most = if full {
            self.opts.startup
        } else {
            (self.opts.timeout / 10).min(Duration::from_millis(250))
        };
        let until = self.deadline().min(Instant::now() + most);
        let named = id.raw().trim_matches('"').to_owned();
        let sign = move |r: &Run<'_>| {
            r.answered(&id)
                || r.got
                    .iter()
                    .any(|g| g.text.as_deref().is_some_and(|t| t.contains(&named)))
        };
        self.wait(&sign, until);
        if sign(self) {
            self.opts.readiness.heard();
            self.note_start();
        } else if full || self.ended() {
            self.unheard();
            self.evidence.push(Evidence::note(
                Verdict::Pass,
                format!(
                    "no sign of reading within the start-up limit ({most:?}): barrier 0 was not \
                     answered; the case ran anyway"
                ),
            ));
        }
    }

    /// This process gave no sign of life in its prologue (barrier 0 or the
    /// handshake unanswered in the start-up limit, or an exit first): the
    /// run halts unless another process gave one, with a message for the
    /// person who runs it, as what it did suggests.
    pub(super) fn unheard(&self) {
        let limit = self.opts.startup;
        let handshake = self
            .opts
            .handshake
            .as_deref()
            .unwrap_or(self.opts.dialect.name());
        let asked = if self.preamble > 0 {
            format!("its `{handshake}` handshake")
        } else {
            format!(
                "barrier 0, a request for the unknown method `{}` that JSON-RPC 2.0 §5.1 has \
                 answered with -32601",
                barrier_method(&self.opts.descriptor().serve)
            )
        };
        let wrote = self.running.output();
        let first = self
            .got
            .iter()
            .find_map(|g| g.text.as_deref())
            .map(|t| format!(" (its first line: {})", crate::report::head_of(t, 120)))
            .unwrap_or_default();
        let hint = self.opts.descriptor().serve.startup_hint;
        let hint = format!("{hint}{}", self.framing_hint());
        let halt = match self.exit {
            // It spoke before it ended (or flooded, and was stopped): what
            // it wrote is judged case by case.
            Some(_) if wrote > 0 => return,
            Some(status) => Halt {
                verdict: Verdict::Crash,
                message: format!(
                    "the target exited ({}) {:.1?} after it started, before answering {asked}, \
                     and wrote nothing to stdout: its stderr may say why",
                    describe_exit(status),
                    self.running.elapsed()
                ),
            },
            None if wrote == 0 => Halt {
                verdict: Verdict::Timeout,
                message: format!(
                    "the target wrote nothing to stdout in {limit:?} (--startup-timeout), not even \
                     an answer to {asked}: {hint} If it starts slower, raise --startup-timeout"
                ),
            },
            None => Halt {
                verdict: Verdict::Timeout,
                message: format!(
                    "the target wrote {wrote} bytes to stdout in {limit:?} (--startup-timeout){first} \
                     but did not answer {asked}: {hint} If it starts slower, raise \
                     --startup-timeout"
                ),
            },
        };
        self.opts.readiness.unheard(halt);
    }

    /// What the target's output says of the framing it speaks, when it is
    /// not the run's: Content-Length headers in an NDJSON run, lines and
    /// no header in a Content-Length one.
    fn framing_hint(&self) -> String {
        let first = match self.got.first().map(|g| &g.received.bytes) {
            Some(Bytes::Text(text)) => text.as_bytes(),
            Some(_) => b"\xFF",
            None => b"",
        };
        let headers = first
            .get(..15)
            .is_some_and(|h| h.eq_ignore_ascii_case(b"content-length:"));
        match &self.opts.framing {
            Framing::Ndjson(_) if headers => " Its output has `Content-Length` headers: is it a \
                 language server (`--dialect lsp`, or `--framing content-length`)?"
                .to_owned(),
            Framing::ContentLength(_)
                if self.running.output() > 0 && !self.got.iter().any(|g| g.text.is_some()) =>
            {
                format!(
                    " This run frames messages with `Content-Length` headers (`--framing \
                 content-length`{}), and its output has none: does it speak NDJSON, one message \
                 per line?",
                    match self.opts.descriptor() {
                        d if d.framing == Framed::ContentLength =>
                            format!(", the {} dialect's", d.name),
                        _ => String::new(),
                    }
                )
            }
            _ => String::new(),
        }
    }

    /// Whether the barrier `id` has been answered.
    pub(super) fn answered(&self, id: &Id) -> bool {
        self.got.iter().any(|g| {
            g.barrier
                && g.ids
                    .first()
                    .is_some_and(|a| a.compare(id) == IdMatch::Same)
        })
    }

    /// Sends barrier `n` (0: before the first step, k + 1: after step k),
    /// and returns its id.
    pub(super) fn send_barrier(&mut self, n: usize, plan: Plan) -> Id {
        self.send_barrier_as(&n.to_string(), plan)
    }

    /// Sends the barrier named `name` and returns its id.
    pub(super) fn send_barrier_as(&mut self, name: &str, plan: Plan) -> Id {
        let id = format!("\"rpcspec-barrier-{}{name}\"", self.tag);
        let method = barrier_method(&self.opts.descriptor().serve);
        // With `params` where the dialect's requests all have them, as the
        // probe (`probe::probe`) has them.
        let params = if self.opts.descriptor().serve.params_always {
            ",\"params\":{}"
        } else {
            ""
        };
        let message =
            format!("{{\"jsonrpc\":\"2.0\",\"method\":\"{method}\"{params},\"id\":{id}}}");
        let bytes = match plan {
            Plan::Crlf => format!("{message}\r\n").into_bytes(),
            _ => self.opts.framing.encode(message.as_bytes()),
        };
        let id = Id::parse(&id).expect("a JSON string");
        if let Some(r) = &mut self.recording {
            r.push(Recorded::Barrier(id.clone()));
        }
        self.barriers.push(id.clone());
        self.send(
            vec![Write {
                pause: Duration::ZERO,
                bytes,
            }],
            None,
        );
        id
    }

    /// Whether every request step k sent has been answered, as a wait's
    /// condition.
    fn step_answered(&self, k: usize) -> impl Fn(&Run<'_>) -> bool + use<> {
        let ids = self.step_ids[k].clone();
        move |r: &Run<'_>| {
            ids.iter().all(|id| {
                r.got
                    .iter()
                    .any(|g| g.reply && g.ids.iter().any(|a| a.compare(id) == IdMatch::Same))
            })
        }
    }

    /// Waits for the answers to step k's requests themselves, in place of
    /// a barrier: LSP's handshake, where "until the server has responded
    /// to the initialize request with an InitializeResult, the client must
    /// not send any additional requests or notifications to the server"
    /// (LSP 3.17, initialize), so no barrier may follow `initialize`, the
    /// handshake's or a case's own.
    pub(super) fn await_own(&mut self, k: usize) {
        let done = self.step_answered(k);
        let waiting_for = if k < self.preamble {
            "the answer to the handshake's request"
        } else {
            "the answer to `initialize`, which LSP lets no other message follow"
        };
        self.pump(&done, waiting_for);
        if self.starting && !done(self) {
            self.unheard();
        }
    }

    /// After step k's barrier: waits for the answers to its requests, which
    /// its dialect lets come after later ones ([`Serving::awaited`]), up
    /// to the case deadline.
    ///
    /// [`Serving::awaited`]: crate::dialects::Serving::awaited
    pub(super) fn await_slow(&mut self, k: usize) {
        let done = self.step_answered(k);
        self.pump(
            &done,
            "the answer to a request its dialect lets take its time (a session opened, a turn played)",
        );
    }

    /// After a step without a barrier (`barrier = false`): waits for the
    /// answers to its requests while the target keeps writing, at most its
    /// quiet period past its last output, so that the next step follows
    /// them ("Clients should also wait with sending the exit notification
    /// until they have received a response from the shutdown request",
    /// LSP 3.17, shutdown). Proves nothing absent: the case's end (its
    /// exit, or a later barrier) delimits what was answered.
    pub(super) fn await_own_quietly(&mut self, k: usize) {
        let done = self.step_answered(k);
        let quiet = self.quiet();
        self.wait_quiet(done, quiet, Instant::now());
    }

    /// Sends the barrier after step k (numbered k + 1) and waits for its
    /// answer.
    pub(super) fn barrier(&mut self, n: usize, plan: Plan) {
        let id = self.send_barrier(n, plan);
        let sent = Instant::now();
        if !self.starting && !self.resync(&id, n) {
            return;
        }
        let answer = id.clone();
        self.pump(
            move |r| r.answered(&answer),
            "the answer to the barrier request",
        );
        // A handshake unanswered in the start-up limit: no sign of life.
        if self.starting && !self.answered(&id) {
            self.unheard();
        }
        // A handshake's answers include start-up: not a round trip.
        if !self.starting {
            self.barrier_rtt = self.barrier_rtt.max(sent.elapsed());
        }
    }

    /// Waits for barrier `id` while the target writes; once it has been
    /// quiet for [`Run::quiet`] without answering, asks again with barrier
    /// "`n`-again", plain and on its own line. If that one is answered and
    /// the first still is not within the quiet period again (at least
    /// [`LOST_GRACE`]), the first was lost or
    /// refused (a reader that parses each read as one message, or rejects
    /// `\r\n`): a TIMEOUT now, which a wait to the deadline would also end
    /// in. If neither is answered and no process of this run has answered
    /// barrier 0, the target answers no barrier: a TIMEOUT now too.
    /// Returns whether to go on waiting to the deadline.
    pub(super) fn resync(&mut self, id: &Id, n: usize) -> bool {
        let quiet = self.quiet();
        if self.wait_quiet(|r| r.answered(id), quiet, Instant::now())
            || self.timed_out
            || Instant::now() >= self.deadline()
        {
            return true;
        }
        let again = self.send_barrier_as(&format!("{n}-again"), Plan::Whole);
        self.resyncs.push(again.clone());
        let answered = |r: &Run<'_>| r.answered(id) || r.answered(&again);
        let heard = self.wait_quiet(answered, quiet, Instant::now());
        if self.answered(id) || self.ended() {
            return true;
        }
        if self.answered(&again) {
            let until = self.deadline().min(Instant::now() + LOST_GRACE.max(quiet));
            if self.wait(|r| r.answered(id), until) {
                return true;
            }
            self.give_up(format!(
                "the barrier request {} was not answered, though a second one, written on its own \
                 line after {quiet:?} without output, was: the target reads, but lost or refused \
                 the first (a wait to the deadline ends the same way)",
                id.raw()
            ));
            return false;
        }
        if !heard && self.opts.readiness.silent() {
            self.give_up(format!(
                "neither the barrier request nor a second one after {quiet:?} without output was \
                 answered, and this target answers no barrier (barrier 0 of its first process \
                 went unanswered for the start-up limit, {:?}; raise --startup-timeout if it \
                 starts slower): the case is not waited out to its deadline",
                self.opts.startup
            ));
            return false;
        }
        true
    }

    /// How long the target may be silent, with a barrier unanswered,
    /// before the runner asks again: twenty of its slowest barrier round
    /// trips, from 100 ms to 1 s.
    pub(super) fn quiet(&self) -> Duration {
        (self.barrier_rtt * 20).clamp(Duration::from_millis(100), Duration::from_secs(1))
    }

    /// Whether the target, on a process that ran cases before this one,
    /// wrote what this case cannot have drawn: a reply naming an id it
    /// never sent, or more replies naming none than it sent lines that
    /// may draw one. That is an earlier case's output, come late: it
    /// escaped that case's fence, and every case on the process is in
    /// doubt. On a process's first case everything is its own.
    pub(super) fn foreign(&self) -> bool {
        if self.cases <= 1 {
            return false;
        }
        let sent = |id: &Id| {
            self.step_ids
                .iter()
                .flatten()
                .chain(&self.barriers)
                .any(|s| s.compare(id) != IdMatch::Different)
        };
        let mut idless = 0;
        for g in self.got.iter().filter(|g| g.reply) {
            let mut named = g
                .ids
                .iter()
                .filter(|id| id.kind() != IdKind::Null)
                .peekable();
            if named.peek().is_none() {
                idless += 1;
            } else if named.any(|id| !sent(id)) {
                return true;
            }
        }
        idless > self.idless_room
    }
}
