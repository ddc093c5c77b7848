//! The one layer between every role and a target process: a [`Running`]
//! target with the policies every role shares, decided here once.
//!
//! | policy | decided here |
//! |---|---|
//! | spawn failure | ERROR evidence: "cannot start `CMD`: why" ([`Drive::spawn`]) |
//! | output cap | a quarter of the [`Budget`]; the read that passes it is dropped, the target killed, FAIL `process.output-flood` ([`Drive::next`]) |
//! | line cap | a line (a `\n`) per 8 KiB of the budget, the same way |
//! | reads in flight | 16 (`target.rs`): a fast writer waits on its pipe |
//! | after a kill | [`KILL_GRACE`] to collect what the target left |
//! | exit once stdin closes | [`EXIT_GRACE`], then NON-STRICT and killed (server, producer) |
//! | a write that fails | CRASH in the server role ([`Drive::write_failed`]: a server reads all its input); the producer and decoder roles grade what came out, which names what was lost |
//! | stderr | its last 16 KiB (`target.rs`) |
//! | an HTTP response ([`post`]) | the same deadline and caps: the body is metered as stdout is |
//! | pretty-printed values | one policy, `gather.rs` |
//!
//! The roles keep what differs by nature: the server role's barriers and
//! shared processes (`exec/`), the producer's gate and control answers
//! (`producer/observe.rs`), the decoder's streams, one per process or over
//! named pipes to a shared adapter (`decoder/run.rs`, `decoder/session.rs`).

use std::{
    ops::{Deref, DerefMut},
    sync::{
        OnceLock,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use crate::{
    budget::Budget,
    http::{self, BodyEnd, Head, Url},
    report::{Evidence, Halt, Verdict},
    target::{Msg, Running, Target},
};

/// How long a killed target's last output and exit are collected.
pub const KILL_GRACE: Duration = Duration::from_millis(500);

/// How long a target may take to exit after its stdin closes (server and
/// producer roles; a decoder has the case deadline, its contract being to
/// exit at the end of its stream).
pub const EXIT_GRACE: Duration = Duration::from_secs(1);

/// What a run has learnt of its target's start, shared by every process
/// and job of the run (every role): whether any process gave a sign of
/// life (answered, connected, wrote what it was asked), and whether one
/// gave none within the start-up limit. A run whose first processes give
/// none, with none giving one, is halted: a target that answers nothing
/// costs the start-up limit once, not once per case, and the report says
/// so in one block ([`Halt`]).
#[derive(Debug, Default)]
pub struct Readiness {
    heard: AtomicBool,
    silent: AtomicBool,
    halt: OnceLock<Halt>,
    /// The longest start-up seen (spawn to first answer), in µs.
    slowest: AtomicU64,
}

impl Readiness {
    /// A process gave a sign of life: the run is not halted for silence.
    pub fn heard(&self) {
        self.heard.store(true, Ordering::Relaxed);
    }

    /// A process gave no sign of life within the start-up limit (or
    /// exited first): later processes of the run get a short wait, and
    /// unless some process gave one, the run halts with `halt`.
    pub fn unheard(&self, halt: Halt) {
        self.silent.store(true, Ordering::Relaxed);
        if !self.heard.load(Ordering::Relaxed) {
            let _ = self.halt.set(halt);
        }
    }

    /// Whether a process of this run gave no sign in time.
    pub fn silent(&self) -> bool {
        self.silent.load(Ordering::Relaxed)
    }

    /// Why the run halted, if it did: no case is started after.
    pub fn halted(&self) -> Option<&Halt> {
        self.halt.get()
    }

    /// Why the run halted, if it did, with every result that ran saying
    /// so ([`Halt::apply`]).
    pub fn halt_results(&self, results: &mut [crate::report::CaseResult]) -> Option<Halt> {
        let halt = self.halted()?.clone();
        results.iter_mut().for_each(|r| halt.apply(r));
        Some(halt)
    }

    /// A process answered its first request `took` after it was started.
    pub fn started_in(&self, took: Duration) {
        let micros = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        self.slowest.fetch_max(micros, Ordering::Relaxed);
    }

    /// How long a process that took `own` to start may take to exit once
    /// its stdin closes: [`EXIT_GRACE`], or twice the slowest start-up of
    /// the run (its own included), if longer. A target slow to start is
    /// slow to stop (an interpreter, an event loop to wind down), and both
    /// slow down alike under load.
    pub fn exit_grace(&self, own: Duration) -> Duration {
        let slowest = Duration::from_micros(self.slowest.load(Ordering::Relaxed));
        EXIT_GRACE.max(2 * own.max(slowest))
    }
}

/// Which of the budget's caps a target's output passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cap {
    /// More than [`Budget::output`] bytes.
    Bytes(usize),
    /// More than [`Budget::lines`] lines.
    Lines(usize),
}

impl std::fmt::Display for Cap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Cap::Bytes(n) => write!(f, "{n} bytes"),
            Cap::Lines(n) => write!(f, "{n} lines"),
        }
    }
}

/// A target's output counted against a budget: the one rule for a
/// process's stdout ([`Drive`]) and an HTTP response body.
#[derive(Debug, Clone)]
pub struct Meter {
    budget: Budget,
    output: usize,
    lines: usize,
}

impl Meter {
    /// Nothing counted yet.
    pub fn new(budget: &Budget) -> Meter {
        Meter {
            budget: *budget,
            output: 0,
            lines: 0,
        }
    }

    /// Counts `bytes`, the next piece of output. The piece that passes a
    /// cap is cut at it (at the last newline within the line cap) and the
    /// cap returned; the caller stops reading there.
    pub fn take(&mut self, bytes: &mut Vec<u8>) -> Option<Cap> {
        let mut cap = None;
        let room = self.budget.output().saturating_sub(self.output);
        if bytes.len() > room {
            cap = Some(Cap::Bytes(self.budget.output()));
            bytes.truncate(room);
        }
        let lines_room = self.budget.lines() - self.lines;
        // Counts newlines, up to one past the room; `end` is just after
        // the last one within it.
        let (mut seen, mut end) = (0, 0);
        for (i, _) in bytes.iter().enumerate().filter(|(_, b)| **b == b'\n') {
            if seen == lines_room {
                cap = Some(Cap::Lines(self.budget.lines()));
                bytes.truncate(end);
                break;
            }
            seen += 1;
            end = i + 1;
        }
        self.output += bytes.len();
        self.lines += seen;
        cap
    }

    /// Bytes counted so far.
    pub fn output(&self) -> usize {
        self.output
    }
}

/// A running target under a budget.
pub struct Drive {
    running: Running,
    budget: Budget,
    /// Stdout read in this case.
    meter: Meter,
    /// Why the target was stopped for writing too much, until taken.
    flood: Option<String>,
    flooded: bool,
}

impl Drive {
    /// Starts `target`; a failure is the ERROR evidence every role gives.
    pub fn spawn(target: &Target, budget: &Budget) -> Result<Drive, Box<Evidence>> {
        Drive::spawn_with(target, &[], budget)
    }

    /// [`Drive::spawn`], with `env` added to the target's environment.
    pub fn spawn_with(
        target: &Target,
        env: &[(&str, &str)],
        budget: &Budget,
    ) -> Result<Drive, Box<Evidence>> {
        match Running::spawn_with(target, env) {
            Ok(running) => Ok(Drive::new(running, budget)),
            Err(e) => Err(Box::new(Evidence::note(
                Verdict::Error,
                format!("cannot start `{}`: {e}", target.display()),
            ))),
        }
    }

    /// `running`, under `budget` from now on.
    pub fn new(running: Running, budget: &Budget) -> Drive {
        Drive {
            running,
            budget: *budget,
            meter: Meter::new(budget),
            flood: None,
            flooded: false,
        }
    }

    /// A new case begins on this process: its budget starts afresh.
    pub fn begin_case(&mut self) {
        self.meter = Meter::new(&self.budget);
    }

    /// Stdout bytes read in this case.
    pub fn output(&self) -> usize {
        self.meter.output()
    }

    /// The next message by `until`, or `None`. Stdout is counted against
    /// the budget ([`Meter`]): the read that passes the output or line cap
    /// is cut at the cap and the target killed ([`Drive::take_flood`], to
    /// be taken once that message is handled, says why); stdout after that
    /// is dropped.
    pub fn next(&mut self, until: Instant) -> Option<Msg> {
        loop {
            let msg = self.running.next(until)?;
            let Msg::Stdout(mut bytes) = msg else {
                return Some(msg);
            };
            if self.flooded {
                continue;
            }
            if let Some(cap) = self.meter.take(&mut bytes) {
                let to = if matches!(cap, Cap::Bytes(_)) {
                    " to stdout"
                } else {
                    ""
                };
                self.flood = Some(format!(
                    "the target wrote more than {cap}{to} in one case; stopped"
                ));
                self.flooded = true;
                self.running.kill();
            }
            return Some(Msg::Stdout(bytes));
        }
    }

    /// The FAIL for a target stopped for writing past the budget, once.
    pub fn take_flood(&mut self) -> Option<Evidence> {
        let why = self.flood.take()?;
        Some(Evidence::flood(why, &self.budget))
    }

    /// The CRASH for a write to the target's stdin that failed (`why`),
    /// unless rpcspec had killed it.
    pub fn write_failed(&self, why: &str) -> Option<Evidence> {
        (!self.running.killed()).then(|| {
            Evidence::note(
                Verdict::Crash,
                format!("writing to the target's stdin failed: {why}"),
            )
        })
    }
}

/// What came of one POST ([`post`]).
#[derive(Debug)]
pub struct Posted {
    /// How the body ended.
    pub end: BodyEnd,
    /// Pieces of body read.
    pub pieces: usize,
    /// Why the response was dropped for passing a cap of the budget.
    pub flood: Option<String>,
}

/// The HTTP path's drive (the producer's `--url`): one `POST` by
/// `deadline`, its body counted against the budget by the same [`Meter`]
/// as a process's stdout: the piece that passes a cap is cut at it, handed
/// on, and the response dropped ([`Posted::flood`] says why). Each piece
/// goes to `on_body` with the time since the request was sent.
pub fn post(
    url: &Url,
    body: &[u8],
    deadline: Instant,
    budget: &Budget,
    on_head: &mut dyn FnMut(&Head),
    on_body: &mut dyn FnMut(&[u8], Duration),
) -> Result<Posted, String> {
    let (mut meter, mut cap, mut pieces) = (Meter::new(budget), None, 0);
    let end = http::post(url, body, deadline, on_head, &mut |bytes, at| {
        pieces += 1;
        let mut piece = bytes.to_vec();
        cap = meter.take(&mut piece);
        on_body(&piece, at);
        cap.is_none()
    })?;
    Ok(Posted {
        end,
        pieces,
        flood: cap.map(|cap| format!("the response body passed {cap}; stopped")),
    })
}

impl Deref for Drive {
    type Target = Running;

    fn deref(&self) -> &Running {
        &self.running
    }
}

impl DerefMut for Drive {
    fn deref_mut(&mut self) -> &mut Running {
        &mut self.running
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Target {
        Target {
            argv: vec!["sh".into(), "-c".into(), script.into()],
        }
    }

    /// Reads everything `script` writes under the smallest budget: the
    /// stdout bytes handed on, and the flood evidence taken.
    fn read_all(script: &str) -> (Vec<u8>, Vec<Evidence>) {
        let budget = Budget::new(Budget::MIN).unwrap();
        let mut drive = Drive::spawn(&sh(script), &budget).unwrap();
        let until = Instant::now() + Duration::from_secs(10);
        let (mut out, mut floods) = (Vec::new(), Vec::new());
        let (mut closed, mut exited) = (false, false);
        while !(closed && exited) {
            match drive.next(until).expect("the target ends within 10 s") {
                Msg::Stdout(bytes) => out.extend(bytes),
                Msg::StdoutClosed => closed = true,
                Msg::Exited(_) => exited = true,
                _ => {}
            }
            floods.extend(drive.take_flood());
        }
        (out, floods)
    }

    #[test]
    fn the_meter_cuts_the_piece_that_passes_a_cap_at_the_cap() {
        let budget = Budget::new(Budget::MIN).unwrap();
        let mut meter = Meter::new(&budget);
        // 511 lines, then a piece whose second line is the 513th.
        let mut first = "1\n".repeat(511).into_bytes();
        assert_eq!(meter.take(&mut first), None);
        let mut second = b"2\n3\n4".to_vec();
        assert_eq!(meter.take(&mut second), Some(Cap::Lines(512)));
        assert_eq!(second, b"2\n");
        // No room left: the next newline is cut off, with what precedes it.
        let mut third = b"5\n".to_vec();
        assert_eq!(meter.take(&mut third), Some(Cap::Lines(512)));
        assert!(third.is_empty());
        // Bytes: the piece is cut to the room left.
        let mut bytes = Meter::new(&budget);
        let mut big = vec![b'x'; (1 << 20) + 10];
        assert_eq!(bytes.take(&mut big), Some(Cap::Bytes(1 << 20)));
        assert_eq!((big.len(), bytes.output()), (1 << 20, 1 << 20));
    }

    #[test]
    fn a_flood_of_lines_is_cut_at_the_line_cap_once() {
        let (out, floods) = read_all("exec yes 1");
        // 512 lines at the 4 MiB budget, whole, and nothing after.
        assert_eq!(out, "1\n".repeat(512).as_bytes());
        assert_eq!(floods.len(), 1, "{floods:?}");
        assert_eq!(floods[0].verdict, Verdict::Fail);
        assert_eq!(floods[0].rule.as_ref().unwrap().id, "process.output-flood");
        assert!(
            floods[0].message.contains("more than 512 lines"),
            "{}",
            floods[0].message
        );
    }

    #[test]
    fn a_flood_of_bytes_is_cut_at_the_output_cap() {
        let (out, floods) = read_all("exec tr '\\0' x < /dev/zero");
        assert_eq!(out.len(), 1 << 20);
        assert!(floods[0].message.contains("more than 1048576 bytes"));
    }

    #[test]
    fn output_within_the_budget_is_handed_on_whole() {
        let (out, floods) = read_all("printf 'a\\nb\\nc'");
        assert_eq!(out, b"a\nb\nc");
        assert!(floods.is_empty());
    }

    #[test]
    fn a_target_that_cannot_start_is_an_error_naming_it() {
        let missing = Target {
            argv: vec!["/nonexistent/rpcspec-target".into()],
        };
        let e = Drive::spawn(&missing, &Budget::DEFAULT).err().unwrap();
        assert_eq!(e.verdict, Verdict::Error);
        assert!(
            e.message
                .starts_with("cannot start `/nonexistent/rpcspec-target`"),
            "{}",
            e.message
        );
    }
}
