//! How long a case waits: the start-up limit, then the case deadline,
//! which runs from the start of the case's own steps or from the last
//! write the target took, whichever is later, at most [`MOVES`] deadlines
//! later; and the waits under it, for replies, for events, for the exit.

use std::time::{Duration, Instant};

use super::run::Run;
use rpcspec_matcher::Direction;

use super::{EXIT_GRACE, Evidence, RuleRef, Verdict};

/// How many deadlines' length a case deadline may move past its first
/// while the target takes rpcspec's writes ([`Run::deadline`]): a target
/// that reads a byte at a time holds a case at most this long. Three were
/// too few for the reference language server taking a hundred requests
/// in 300 pieces on 2 cores beside two busy loops and two test binaries.
pub(super) const MOVES: u32 = 9;

impl Run<'_> {
    /// When the case must be over: the start-up limit while starting;
    /// then the case deadline, from the start of the case's own steps or
    /// from the last write the target took, whichever is later (a target
    /// cannot answer what it was not given, and rpcspec's own pacing of
    /// its writes, slower on a loaded machine, is not the target's time),
    /// at most [`MOVES`] deadlines later.
    pub(super) fn deadline(&self) -> Instant {
        if self.starting {
            return self.deadline;
        }
        let timeout = self.opts.timeout;
        let taken = self.running.taken().map_or(self.deadline, |t| t + timeout);
        taken.clamp(self.deadline, self.deadline + MOVES * timeout)
    }

    /// Waits a little for the replies still due before the runner closes
    /// stdin, which ends many servers at once with their work in flight.
    /// JSON-RPC does not order the replies to separate requests, so one may
    /// come after the barrier's (the Codex app-server answers
    /// `account/read` after a later unknown method): the wait is ten
    /// barrier round trips, at least 100 ms and at most 1 s, and never past
    /// the case deadline. A server that answers in order has answered
    /// everything by then and costs nothing; one that drops requests costs
    /// the wait once per case.
    pub(super) fn await_replies(&mut self) {
        // Also the id-null errors the session awaits (to unreadable
        // requests): a server may send one after later replies, and it must
        // not reach the next case. One that never comes is silence, which
        // some dialects allow, so it does not keep the process from the
        // next case.
        let due =
            |r: &Run<'_>| r.replies_due() || r.session.outstanding(Direction::ClientToServer) > 0;
        if !due(self) {
            return;
        }
        let grace =
            (self.barrier_rtt * 10).clamp(Duration::from_millis(100), Duration::from_secs(1));
        let until = self.deadline().min(Instant::now() + grace);
        self.wait(|r| !due(r), until);
    }

    /// A TIMEOUT before the deadline, saying why.
    pub(super) fn give_up(&mut self, why: String) {
        self.timed_out = true;
        self.stopped = true;
        self.evidence.push(Evidence::note(Verdict::Timeout, why));
    }

    pub(super) fn ended(&self) -> bool {
        self.stdout_closed && self.exit.is_some()
    }

    /// [`Run::wait`] that also gives up (false) once the target has written
    /// nothing for `quiet` since `since`.
    pub(super) fn wait_quiet(
        &mut self,
        done: impl Fn(&Run<'_>) -> bool,
        quiet: Duration,
        since: Instant,
    ) -> bool {
        loop {
            if done(self) || self.ended() {
                return true;
            }
            let until = self.deadline().min(self.last_output.max(since) + quiet);
            if self.timed_out || Instant::now() >= until {
                return false;
            }
            self.handle_next(until);
        }
    }

    /// Handles the target's events until `done` holds, the case deadline
    /// passes (a TIMEOUT), or nothing more can come.
    pub(super) fn pump(&mut self, done: impl Fn(&Run<'_>) -> bool, waiting_for: &str) {
        // The deadline moves while the target takes rpcspec's writes.
        let mut passed = false;
        while !self.wait(&done, self.deadline()) {
            passed = Instant::now() >= self.deadline();
            if self.timed_out || passed {
                break;
            }
        }
        if passed && !self.timed_out {
            self.timed_out = true;
            self.stopped = true;
            let timeout = self.opts.timeout;
            let limit = if self.starting {
                format!("the start-up limit ({:?})", self.opts.startup)
            } else if self.deadline() == self.deadline {
                format!("the case deadline ({timeout:?} from the start of its own steps)")
            } else if self.deadline() < self.deadline + MOVES * timeout {
                format!("the case deadline ({timeout:?} from its last write the target took)")
            } else {
                format!(
                    "the case deadline ({timeout:?} from its last write the target took, \
                     at most {:?} from the start of its own steps)",
                    (MOVES + 1) * timeout
                )
            };
            self.evidence.push(Evidence::note(
                Verdict::Timeout,
                format!(
                    "{limit} passed while waiting for {waiting_for}{}",
                    if self.stdout_closed {
                        "; the target had closed its stdout"
                    } else {
                        ""
                    }
                ),
            ));
        }
    }

    /// Handles events until `done` holds (true), `until` passes (false), or
    /// nothing more can come (true). The deadline is checked before every
    /// event, so a target that never stops writing cannot hold the case.
    pub(super) fn wait(&mut self, done: impl Fn(&Run<'_>) -> bool, until: Instant) -> bool {
        loop {
            if done(self) || (self.stdout_closed && self.exit.is_some()) {
                return true;
            }
            if self.timed_out || Instant::now() >= until {
                return false;
            }
            self.handle_next(until);
        }
    }

    /// Handles the target's next message by `until`, if one comes. One
    /// that wrote past the budget was stopped by the drive, its output cut
    /// at the cap: its FAIL is taken here, and any output after ignored.
    pub(super) fn handle_next(&mut self, until: Instant) {
        if let Some(msg) = self.running.next(until) {
            self.handle(msg);
        }
        if let Some(flood) = self.running.take_flood() {
            self.evidence.push(flood);
            self.flooded = true;
            self.stopped = true;
        }
    }

    /// After a step that tells the target to exit (`expect_exit`, LSP's
    /// `exit`), it gets the exit grace to end by itself, stdin still open;
    /// one still running then is left to the case's end, which closes
    /// stdin and kills it. The grader compares how it ended.
    pub(super) fn await_own_exit(&mut self) {
        self.exit_expected = true;
        let grace = self
            .opts
            .readiness
            .exit_grace(self.started_in.unwrap_or_default());
        let until = self.deadline().min(Instant::now() + grace);
        self.wait(|r| r.stdout_closed && r.exit.is_some(), until);
    }

    /// After its stdin closed, the target gets [`EXIT_GRACE`] to finish
    /// writing and exit. Neither JSON-RPC nor NDJSON requires exiting at
    /// EOF (MCP clients send SIGTERM next), so staying alive is NON-STRICT,
    /// not a TIMEOUT, where the end of stdin is the case's input
    /// ([`Run::eof_is_input`]); it is then killed.
    pub(super) fn await_exit(&mut self) {
        let grace = self
            .opts
            .readiness
            .exit_grace(self.started_in.unwrap_or_default());
        let until = self.deadline().min(Instant::now() + grace);
        if self.wait(|r| r.stdout_closed && r.exit.is_some(), until) || self.timed_out {
            return;
        }
        if !self.eof_is_input {
            self.running.kill();
            let until = Instant::now() + Duration::from_millis(500);
            self.wait(|r| r.stdout_closed && r.exit.is_some(), until);
            return;
        }
        self.evidence.push(Evidence {
            rule: Some(RuleRef::from_rule(&crate::rules::PROCESS_EXIT_ON_EOF)),
            ..Evidence::note(
                Verdict::NonStrict,
                format!(
                    "the target was still running {grace:.1?} after its stdin closed ({EXIT_GRACE:?}, \
                     or twice the slowest start-up of the run if longer); killed"
                ),
            )
        });
        self.running.kill();
        // Collect what it wrote and its exit.
        let until = Instant::now() + Duration::from_millis(500);
        self.wait(|r| r.stdout_closed && r.exit.is_some(), until);
    }
}
