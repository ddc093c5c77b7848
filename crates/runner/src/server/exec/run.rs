//! One (case, plan) on one process: writing steps and barriers, waiting
//! under the start-up limit and the case deadline, asking again when a
//! barrier seems lost, and ending the case with the process kept or
//! closed.

use std::process::ExitStatus;
use std::time::{Duration, Instant};

use crate::capture::{Capture, Framing};
use rpcspec_framer::{BlankLines, Config, Event, ProblemKind};
use rpcspec_matcher::{Classified, Direction, Finding, Id, IdKind, IdMatch, Kind, classify};

use super::sends::{sends_initialize, sends_one_of};
use super::{
    Bytes, Case, Drive, Evidence, Gather, Live, Msg, Plan, Received, Recorded, RunOptions, Sent,
    Session, Verdict, Write, describe_exit, request_ids,
};

/// One line the target wrote, with what the runner made of it.
pub(super) struct Got {
    pub(super) received: Received,
    /// The line as text, if it was one (framing problems are not).
    pub(super) text: Option<String>,
    /// The step whose window it arrived in.
    pub(super) window: usize,
    /// The ids it answers (a batch answers several).
    pub(super) ids: Vec<Id>,
    /// It is the answer to a barrier.
    pub(super) barrier: bool,
    /// It can answer a step: anything but the target's own requests and
    /// notifications (MCP log messages, LSP `window/logMessage`), which a
    /// JSON-RPC peer may send at any time.
    pub(super) reply: bool,
    /// What the matcher found wrong with it.
    pub(super) findings: Vec<Finding>,
}

pub(super) struct Run<'o> {
    pub(super) running: Drive,
    pub(super) opts: &'o RunOptions,
    /// The start-up limit while `starting`; then the case deadline from
    /// the start of the case's own steps, which [`Run::deadline`] moves.
    pub(super) deadline: Instant,
    pub(super) server: Capture,
    pub(super) client: Capture,
    pub(super) session: Session,
    pub(super) got: Vec<Got>,
    pub(super) sent: Vec<Sent>,
    /// The ids each step's requests carried.
    pub(super) step_ids: Vec<Vec<Id>>,
    pub(super) window: usize,
    pub(super) barriers: Vec<Id>,
    pub(super) evidence: Vec<Evidence>,
    /// Some byte was written.
    pub(super) sent_any: bool,
    /// When the writes queued so far are due (time since start): writes
    /// are queued without waiting, and the writer thread makes them in
    /// order, after their pauses.
    pub(super) writes_due: Duration,
    pub(super) stdout_closed: bool,
    pub(super) exit: Option<ExitStatus>,
    pub(super) timed_out: bool,
    /// The target wrote more than the cap; its output is ignored.
    pub(super) flooded: bool,
    /// Framing problems seen per rule, and the verdict of each: the first
    /// [`crate::report::FINDINGS_PER_RULE`] of a rule are evidence, the rest a count.
    pub(super) framing_seen: std::collections::BTreeMap<String, (usize, Verdict)>,
    /// Send nothing more: the target timed out, crashed or flooded.
    pub(super) stopped: bool,
    /// Lines that may be one pretty-printed message (`gather.rs`).
    pub(super) gather: Gather<Received>,
    /// The longest a barrier took to be answered (from its queueing).
    pub(super) barrier_rtt: Duration,
    /// How many of the case's steps are a preamble's (they come first).
    pub(super) preamble: usize,
    /// The first step this run writes: 0 on a new process, `preamble` on
    /// one whose prologue is replayed.
    pub(super) first_step: usize,
    /// Subtracted from the process's age: a later case's times read as if
    /// it had followed the prologue at once.
    pub(super) shift: Duration,
    /// The prologue so far, while it runs on a process to be kept.
    pub(super) recording: Option<Vec<Recorded>>,
    /// The finished prologue, handed on with the process.
    pub(super) prologue: Option<Vec<Recorded>>,
    pub(super) prologue_end: Duration,
    /// Where the preamble's traffic ends in `sent` and `got`, once it has.
    pub(super) prologue_marks: Option<crate::report::Prologue>,
    /// Cases run on this process, this one included.
    pub(super) cases: usize,
    /// Put in barrier ids after the first case, so that none repeats on
    /// one process.
    pub(super) tag: String,
    /// The process can take another case (set at the end of `drive`).
    pub(super) alive: bool,
    /// When the target last wrote to stdout.
    pub(super) last_output: Instant,
    /// The second barriers sent (see `resync`).
    pub(super) resyncs: Vec<Id>,
    /// Still in the prologue: waits are bounded by the start-up limit.
    pub(super) starting: bool,
    /// How long this process took to answer its first request, when this
    /// case started it.
    pub(super) started_in: Option<Duration>,
    /// How many lines sent may draw a reply that names no id: blank,
    /// unreadable or invalid lines, requests with id null, a batch's
    /// members and the batch itself ([`idless_room`]).
    pub(super) idless_room: usize,
    /// The end of stdin is part of the case's input (a step closes it, or
    /// the last ends without a newline): how the target then exits is
    /// graded. When the runner closes stdin only to end the case, as it
    /// does on a process of its own, it is not: a shared process is never
    /// closed so, and a verdict must not depend on which it had.
    pub(super) eof_is_input: bool,
    /// A kept process's prologue is being replayed into this case.
    pub(super) replaying: bool,
    /// A step told the target to exit (`expect_exit`): its ending is no
    /// crash.
    pub(super) exit_expected: bool,
}

impl Run<'_> {
    /// Messages are framed by headers (Content-Length), not lines.
    fn framed(&self) -> bool {
        matches!(self.opts.framing, Framing::ContentLength(_))
    }
}

/// How many replies that name no id a message, sent by the client, may
/// draw; a notification a strict reader refuses (members JSON-RPC 2.0 §4
/// does not list, an `rpc.` name, a member named twice) may be refused
/// with an id-null -32600, alone or in a batch.
pub(super) fn idless_room(classified: &Classified) -> usize {
    use rpcspec_matcher::rules::{
        MESSAGE_DUPLICATE_MEMBER, REQUEST_METHOD_RESERVED, REQUEST_OTHER_MEMBERS,
    };
    let refusable = classified
        .findings
        .iter()
        .filter(|f| {
            [
                &REQUEST_OTHER_MEMBERS,
                &REQUEST_METHOD_RESERVED,
                &MESSAGE_DUPLICATE_MEMBER,
            ]
            .iter()
            .any(|r| r.id == f.rule.id)
        })
        .count();
    // What is beyond a parser's limit may be refused with one id-null
    // error, notification or not.
    let limit = usize::from(classified.limit.is_some());
    refusable
        + limit
        + match &classified.kind {
            Kind::Request { id, .. } => usize::from(id.kind() == IdKind::Null),
            Kind::Notification { .. } => 0,
            Kind::Batch(members) => members.len() + 1,
            _ => 1,
        }
}

/// Most messages an evidence entry lists.
pub(super) const MAX_SHOWN: usize = 20;

/// Most stdout a prologue (start-up and handshake) may write and still be
/// recorded for the next case on its process: an MCP initialize reply is
/// a few KiB.
pub(super) const MAX_RECORDED: usize = 1 << 20;

pub(super) fn is_json(text: &str) -> bool {
    serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
}

impl<'o> Run<'o> {
    /// A run on a new process: the prologue first, under the start-up
    /// limit; recorded if the process is to be `keep`t.
    pub(super) fn new(
        running: Drive,
        opts: &'o RunOptions,
        preamble: usize,
        keep: bool,
    ) -> Run<'o> {
        let mut run = Run::blank(running, opts, preamble);
        run.deadline = Instant::now() + opts.startup;
        run.starting = true;
        run.recording = keep.then(Vec::new);
        run
    }

    /// A run on a kept process: its prologue is replayed, and the case's
    /// own steps start at once.
    pub(super) fn resume(live: Live, opts: &'o RunOptions, preamble: usize) -> Run<'o> {
        let Live {
            running,
            prologue,
            prologue_end,
            cases,
            rtt,
        } = live;
        running.clear_stderr();
        let mut run = Run::blank(running, opts, preamble);
        run.shift = run.running.elapsed().saturating_sub(prologue_end);
        run.first_step = preamble;
        run.cases = cases + 1;
        run.barrier_rtt = rtt;
        run.tag = format!("{cases}-");
        run.replaying = true;
        for r in &prologue {
            match r {
                Recorded::Step(k) => run.begin_step(*k),
                Recorded::Sent(timed, step) => run.note_sent(timed, *step),
                Recorded::Barrier(id) => run.barriers.push(id.clone()),
                Recorded::Stdout(bytes, at) => run.stdout(bytes, *at),
            }
        }
        run.replaying = false;
        run.prologue = Some(prologue);
        run.prologue_end = prologue_end;
        run
    }

    pub(super) fn blank(mut running: Drive, opts: &'o RunOptions, preamble: usize) -> Run<'o> {
        running.begin_case();
        // The target's output is held to the strict reading: in NDJSON,
        // blank lines and a byte order mark are findings.
        let strict = match &opts.framing {
            Framing::Ndjson(_) => {
                Framing::Ndjson(Config::default().with_blank_lines(BlankLines::Report))
            }
            other => other.clone(),
        };
        let server = Capture::new(strict.clone());
        Run {
            running,
            opts,
            deadline: Instant::now() + opts.timeout,
            server,
            // Blank lines are counted: a target may answer them.
            client: Capture::new(strict),
            session: if opts.descriptor().serve.silent_to_unreadable {
                // Its errors carry a string or integer id, never null
                // (`super::dialect::for_codex`).
                Session::new(opts.dialect.clone()).silent_to_unreadable()
            } else {
                Session::new(opts.dialect.clone())
            },
            got: Vec::new(),
            sent: Vec::new(),
            step_ids: Vec::new(),
            window: 0,
            barriers: Vec::new(),
            evidence: Vec::new(),
            sent_any: false,
            writes_due: Duration::ZERO,
            stdout_closed: false,
            exit: None,
            timed_out: false,
            flooded: false,
            framing_seen: Default::default(),
            stopped: false,
            gather: Gather::new(),
            barrier_rtt: Duration::ZERO,
            preamble,
            first_step: 0,
            shift: Duration::ZERO,
            recording: None,
            prologue: None,
            prologue_end: Duration::ZERO,
            prologue_marks: None,
            cases: 1,
            tag: String::new(),
            alive: false,
            starting: false,
            started_in: None,
            last_output: Instant::now(),
            resyncs: Vec::new(),
            idless_room: 0,
            eof_is_input: false,
            replaying: false,
            exit_expected: false,
        }
    }

    /// Time on this case's clock: since spawn, less the shift.
    pub(super) fn now(&self) -> Duration {
        self.running.elapsed().saturating_sub(self.shift)
    }

    pub(super) fn begin_step(&mut self, k: usize) {
        if let Some(r) = &mut self.recording {
            r.push(Recorded::Step(k));
        }
        self.window = k;
        self.step_ids.push(Vec::new());
    }

    /// The prologue is over: the case deadline starts now, and a recorded
    /// prologue is kept for the next case.
    pub(super) fn end_prologue(&mut self) {
        if self.starting {
            self.opts.readiness.heard();
            self.note_start();
        }
        self.starting = false;
        if self.preamble > 0 && self.prologue_marks.is_none() {
            self.prologue_marks = Some(crate::report::Prologue {
                steps: self.preamble,
                sent: self.sent.len(),
                received: self.got.len(),
            });
        }
        self.deadline = Instant::now() + self.opts.timeout;
        if let Some(recorded) = self.recording.take() {
            self.prologue_end = self.now();
            self.prologue = Some(recorded);
        }
    }

    /// This process answered its first request now: how long it took to
    /// start, for its exit grace and the run's ([`Readiness::exit_grace`]).
    pub(super) fn note_start(&mut self) {
        let took = *self.started_in.get_or_insert(self.running.elapsed());
        self.opts.readiness.started_in(took);
    }

    /// Whether the process can take another case: it is running and
    /// reading, answered every request, and its output and input end at a
    /// line boundary, so nothing of this case can reach the next.
    pub(super) fn reusable(&self) -> bool {
        !self.stopped
            && !self.timed_out
            && !self.flooded
            && self.exit.is_none()
            && !self.stdout_closed
            && !self.running.stdin_closed()
            && !self.running.killed()
            && !self.gather.holding()
            && self.server.at_boundary()
            && self.client.at_boundary()
            && self.prologue.is_some()
            && !self.replies_due()
    }

    /// The process, if the case left it able to take another: a FAIL
    /// that left it answering everything keeps it (a wrong answer is no
    /// broken process), a TIMEOUT or CRASH never does.
    pub(super) fn into_live(self, verdict: Verdict) -> Option<Live> {
        let sound = matches!(verdict, Verdict::Pass | Verdict::NonStrict | Verdict::Fail);
        if !self.alive || !sound {
            return None;
        }
        Some(Live {
            running: self.running,
            prologue: self.prologue?,
            prologue_end: self.prologue_end,
            cases: self.cases,
            rtt: self.barrier_rtt,
        })
    }

    /// Runs the case's steps (from `first_step`); with `keep`, a process
    /// that can take another case is left running (`alive`).
    pub(super) fn drive(&mut self, case: &Case, plan: Plan, keep: bool) {
        // A new process first shows it is reading (a handshake's own
        // barriers do the same): a step written in pieces must reach a
        // target that is reading, or a slow starter gets the pieces as one
        // read and the plan tests nothing; a step that closes stdin must not
        // race a target that exits without reading; and the case deadline
        // must not be spent on start-up.
        if self.prologue.is_none() && self.first_step == 0 && self.preamble == 0 {
            self.ready();
        }
        for (k, step) in case.steps.iter().enumerate().skip(self.first_step) {
            if k == self.preamble {
                self.end_prologue();
            }
            // A handshake is written whole, so that every case on a process
            // shares one prologue.
            let plan = if k < self.preamble { Plan::Whole } else { plan };
            let send = match self.with_kept(case, k) {
                Ok(send) => send,
                Err(why) => {
                    self.stopped = true;
                    self.evidence.push(Evidence::note(Verdict::Skipped, why));
                    break;
                }
            };
            self.begin_step(k);
            let writes = if self.opts.quick_writes {
                plan.writes_quick(&send, &self.opts.framing)
            } else {
                plan.writes_in(&send, &self.opts.framing)
            };
            self.send(writes, Some(k));
            // In LSP no barrier may follow an `initialize`, the handshake's
            // or a case's own: "until the server has responded to the
            // initialize request with an InitializeResult, the client must
            // not send any additional requests or notifications" (LSP
            // 3.17, initialize). A server that takes its time over one
            // (bash-language-server builds a whole new server) would
            // otherwise answer it after the case had ended.
            let own = self.opts.descriptor().serve.initialize_alone
                && (k < self.preamble || sends_initialize(&step.send));
            if step.close {
                self.eof_is_input = true;
                self.close_stdin();
                self.await_exit();
            } else if step.exit.is_some() {
                self.await_own_exit();
            } else if !step.barrier {
                self.await_own_quietly(k);
            } else if own && !self.step_ids[k].is_empty() && self.sent_whole() {
                self.await_own(k);
            } else if self.sent_whole() && !self.running.stdin_closed() {
                self.barrier(k + 1, plan);
                // A request its dialect lets take its time (a session's
                // creation, a prompt turn) is answered after later ones:
                // its reply is awaited, up to the case deadline.
                let slow = self.opts.descriptor().serve.awaited;
                if !self.stopped && sends_one_of(&step.send, slow) {
                    self.await_slow(k);
                }
            }
            if self.stopped {
                break;
            }
        }
        let ended = self.stdout_closed && self.exit.is_some();
        if !self.timed_out && !ended {
            self.await_replies();
            if keep && self.reusable() && self.fence() {
                self.alive = true;
                return;
            }
            // Whatever the target still writes belongs to the last window.
            self.eof_is_input |= !self.sent_whole();
            self.close_stdin();
            self.await_exit();
        }
        if self.timed_out {
            self.running.kill();
        }
        for arrival in self.server.finish_owned(self.now()) {
            self.take(arrival);
        }
        self.release_held();
    }

    /// Whether something was sent and it ends where a message ends (in
    /// NDJSON, with a newline): a barrier can follow.
    pub(super) fn sent_whole(&self) -> bool {
        self.sent_any && self.client.at_boundary()
    }

    /// Writes, and feeds what was sent to the session as the client's side.
    pub(super) fn send(&mut self, writes: Vec<Write>, step: Option<usize>) {
        if writes.is_empty() {
            return;
        }
        // Queued behind the earlier writes, which may still be pausing.
        let mut at = self.now().max(self.writes_due);
        let mut timed = Vec::with_capacity(writes.len());
        for w in &writes {
            at += w.pause;
            timed.push((at, w.bytes.clone()));
        }
        self.writes_due = at;
        self.note_sent(&timed, step);
        self.running.write_unreported(writes);
    }

    /// Keeps what was written when, and feeds it to the session as the
    /// client's side.
    pub(super) fn note_sent(&mut self, timed: &[(Duration, Vec<u8>)], step: Option<usize>) {
        if let Some(r) = &mut self.recording {
            r.push(Recorded::Sent(timed.to_vec(), step));
        }
        let mut lines = Vec::new();
        for (at, bytes) in timed {
            self.sent.push(Sent {
                at_ms: at.as_millis() as u64,
                bytes: Bytes::new(bytes),
            });
            lines.extend(self.client.push_owned(bytes, *at));
            self.sent_any |= !bytes.is_empty();
        }
        for arrival in lines {
            self.feed_client(arrival.event, step);
        }
    }

    pub(super) fn feed_client(&mut self, event: Event<'_>, step: Option<usize>) {
        let lossy = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
        let text = match &event {
            Event::Line(line) => match line.as_str() {
                Ok(text) => text.to_owned(),
                Err(_) => return self.feed_invalid_utf8(&lossy(&line.bytes), step),
            },
            Event::Problem(p) => match p.kind {
                // Unparseable for the session, so it awaits a parse error,
                // or what the line read with U+FFFD awaits.
                ProblemKind::InvalidUtf8 { .. } => {
                    return self.feed_invalid_utf8(&lossy(&p.bytes), step);
                }
                // An unterminated last line may still be read as a
                // message, or dropped: nothing it awaits is due.
                ProblemKind::Truncated if !self.framed() => {
                    let classified = self
                        .session
                        .feed_unterminated(Direction::ClientToServer, &lossy(&p.bytes));
                    self.idless_room += idless_room(&classified);
                    if let Some(k) = step {
                        self.step_ids[k].extend(request_ids(&classified.kind));
                    }
                    return;
                }
                // Nothing for the session; a target may answer it with an
                // error that names no id: a blank line, and in
                // Content-Length framing a damaged frame or a body cut
                // short, which no reader can take as a message.
                ProblemKind::Blank => {
                    self.idless_room += 1;
                    return;
                }
                _ if self.framed() => {
                    self.idless_room += 1;
                    self.session.unframed(Direction::ClientToServer);
                    return;
                }
                _ => return,
            },
        };
        let d = self.opts.descriptor();
        let withdrawing = d.directions.filter(|_| d.check.withdraws);
        let classified = if let Some(directions) = withdrawing {
            // A cancel that withdraws its request (MCP's
            // `notifications/cancelled`): its reply may never come.
            let mut classified = classify(&text, self.session.dialect());
            if let Some(id) = directions().withdrawn(&classified.kind, &text) {
                classified.kind = Kind::Cancel { id };
            }
            if let Kind::Cancel { id } = &classified.kind {
                for ids in &mut self.step_ids {
                    ids.retain(|sent| sent.compare(id) == IdMatch::Different);
                }
            }
            self.session
                .feed_classified(Direction::ClientToServer, classified)
        } else {
            self.session.feed(Direction::ClientToServer, &text)
        };
        self.idless_room += idless_room(&classified);
        if let Some(k) = step {
            self.step_ids[k].extend(request_ids(&classified.kind));
        }
    }

    fn feed_invalid_utf8(&mut self, lossy: &str, step: Option<usize>) {
        let classified = self
            .session
            .feed_invalid_utf8(Direction::ClientToServer, lossy);
        self.idless_room += idless_room(&classified);
        if let Some(k) = step {
            self.step_ids[k].extend(request_ids(&classified.kind));
        }
    }

    pub(super) fn close_stdin(&mut self) {
        if self.running.stdin_closed() {
            return;
        }
        for arrival in self.client.finish_owned(self.now()) {
            self.feed_client(arrival.event, Some(self.window));
        }
        self.running.close_stdin();
    }

    pub(super) fn handle(&mut self, msg: Msg) {
        let at = self.now();
        match msg {
            Msg::Stdout(bytes) => {
                self.last_output = Instant::now();
                // A prologue is replayed into every later case: one that
                // wrote more than a little is not, and its process not kept.
                if self.running.output() > MAX_RECORDED {
                    self.recording = None;
                }
                if let Some(r) = &mut self.recording
                    && !self.flooded
                {
                    r.push(Recorded::Stdout(bytes.clone(), at));
                }
                self.stdout(&bytes, at);
            }
            Msg::StdoutClosed => self.stdout_closed = true,
            Msg::Wrote => {}
            Msg::WriteFailed(e) => {
                self.evidence.extend(self.running.write_failed(&e));
                self.stopped = true;
            }
            Msg::Exited(status) => {
                self.exit = Some(status);
                // Our own kill (flood, timeout, exit grace) is no crash, nor
                // an exit a step asked for.
                if !self.running.stdin_closed() && !self.running.killed() && !self.exit_expected {
                    self.evidence.push(Evidence::note(
                        Verdict::Crash,
                        format!(
                            "the target ended ({}) before its stdin was closed",
                            describe_exit(status)
                        ),
                    ));
                    // Send nothing more; read what it wrote before it ended.
                    self.stopped = true;
                    self.close_stdin();
                }
            }
        }
    }

    /// Bytes from the target's stdout, through the framer.
    pub(super) fn stdout(&mut self, bytes: &[u8], at: Duration) {
        if self.flooded {
            return;
        }
        // The drive has cut any read at the budget's caps. Each event is
        // taken as it is framed, borrowed from the framer's buffer: a huge
        // line is not copied once more.
        let fresh = Capture::new(self.server.framing().clone());
        let mut server = std::mem::replace(&mut self.server, fresh);
        server.push(bytes, at, |a| self.take(a));
        self.server = server;
    }
}
