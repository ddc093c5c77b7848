//! Running one case under one write plan against a target process, and
//! grading what came back.
//!
//! A case runs on a process of its own, or on one kept from the cases
//! before it ([`run_reusing`]): every process first proves it is reading
//! (barrier 0, or the dialect's handshake), and that prologue is recorded
//! and replayed into each later case on the process, so every case is
//! graded on what a process of its own would have shown it. A case's
//! deadline runs from the end of the prologue; the prologue has the
//! start-up limit.
//!
//! Every byte the target writes goes through the reference framer and the
//! matcher's session, so framing and envelope rules are checked on every
//! case. A step's answers are delimited with a barrier, not a sleep: after
//! the step's bytes the runner sends a request whose answer is known (an
//! unknown method with a fresh id) and waits for that answer; whatever the
//! target wrote before it belongs to the step.

use std::{
    process::ExitStatus,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use rpcspec_framer::{BlankLines, Config, Event, Framer, Problem, ProblemKind};
use rpcspec_matcher::{
    Dialect, Direction, Finding, Id, IdKind, IdMatch, Kind, Level, Session, Shape,
};

use crate::{
    cases::{Case, Expect, Grade, Preamble, Step},
    pattern::{Match, Pattern},
    plan::{Plan, Write},
    probe::{self, Probe, Slot},
    report::{Bytes, CaseResult, Evidence, Received, RuleRef, Sent, Verdict},
    target::{Msg, Running, Target, describe_exit},
};

/// How cases are run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Deadline for a whole case.
    pub timeout: Duration,
    /// The dialect the target's messages are judged in.
    pub dialect: Dialect,
    /// Features the target lacks: cases requiring them are skipped.
    pub without: Vec<String>,
    /// Most bytes a target may write in one case before it is stopped.
    pub output_cap: usize,
    /// Handshakes: the one for `dialect`, if any, opens every case. The
    /// default is the shipped ones (`spec-cases/preambles.toml`).
    pub preambles: Vec<Preamble>,
    /// The name of the handshake to use when it is not the dialect's own
    /// (`codex`: the lenient dialect with the app-server's handshake).
    pub handshake: Option<String>,
    /// A call known to succeed on the target (a target file's `[call]`),
    /// for the cases that need one; `None`: the dialect's, if it has one.
    pub call: Option<Probe>,
    /// The most a new process may take to show it is reading (answer
    /// barrier 0 or its handshake); the case deadline starts after it.
    pub startup: Duration,
    /// A process per (case, plan) (`--fresh`), instead of one process kept
    /// for as many cases as can share it.
    pub fresh: bool,
    /// What this run has learnt of the target's start-up. Shared by the
    /// clones of these options: make new options for another target.
    pub readiness: Arc<Readiness>,
}

/// What a run has learnt of its target's start-up.
#[derive(Debug, Default)]
pub struct Readiness {
    /// A process gave no sign of reading within the start-up limit: later
    /// processes of the run get a short wait instead (a target that never
    /// answers costs the limit once per job, not once per case).
    silent: AtomicBool,
}

impl Readiness {
    /// How long a new process gets to show it is reading.
    fn wait(&self, opts: &RunOptions) -> Duration {
        if self.silent.load(Ordering::Relaxed) {
            (opts.timeout / 10).min(Duration::from_millis(250))
        } else {
            opts.startup
        }
    }
}

/// The dialects `--dialect` takes: the matcher's, plus `codex`, the
/// lenient dialect opened by the Codex app-server's handshake. Returns the
/// dialect and the name of its handshake.
pub fn dialect_named(name: &str) -> Option<(Dialect, String)> {
    match name {
        "codex" => Some((Dialect::Lenient, "codex".to_owned())),
        other => Dialect::from_name(other).map(|d| (d, other.to_owned())),
    }
}

/// Every name [`dialect_named`] knows.
pub const DIALECTS: &[&str] = &["jsonrpc2", "lenient", "codex", "mcp", "claude", "events"];

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            timeout: Duration::from_secs(5),
            dialect: Dialect::Jsonrpc2,
            without: Vec::new(),
            output_cap: 16 << 20,
            preambles: crate::cases::builtin_preambles()
                .expect("the shipped preambles load (tests/case_files.rs checks them)"),
            handshake: None,
            call: None,
            startup: DEFAULT_STARTUP,
            fresh: false,
            readiness: Arc::default(),
        }
    }
}

/// The default start-up limit ([`RunOptions::startup`]): a Python MCP
/// server takes 2–3 s under load, an `npx` wrapper more.
pub const DEFAULT_STARTUP: Duration = Duration::from_secs(10);

/// The least time a barrier may still be answered once a second one was
/// (see `Run::resync`): a server that answers out of order may be slow on
/// one. The wait is the target's quiet period, and at least this.
pub const LOST_GRACE: Duration = Duration::from_millis(250);

/// How long a target may take to exit after its stdin closes.
pub const EXIT_GRACE: Duration = Duration::from_secs(1);

/// The method of the barrier request. Not `rpc.`-prefixed (reserved), and
/// unlikely to exist on any target.
pub const BARRIER_METHOD: &str = "rpcspec/barrier";

/// Runs `case` under `plan` against a process of its own.
pub fn run_case(case: &Case, plan: Plan, target: &Target, opts: &RunOptions) -> CaseResult {
    match prepare(case, plan, opts) {
        Ok((case, preamble)) => execute(&case, preamble, plan, target, opts, None, false).0,
        Err(result) => *result,
    }
}

/// A target process kept for the next case: it answered everything its
/// cases sent, wrote no partial line and is still reading.
pub struct Live {
    running: Running,
    /// What happened before the first case's own steps, replayed into
    /// every later case on this process.
    prologue: Vec<Recorded>,
    /// When the prologue ended, as time since spawn.
    prologue_end: Duration,
    /// Cases run on it so far.
    cases: usize,
    /// Its slowest barrier round trip so far.
    rtt: Duration,
}

/// One thing that happened in a prologue.
enum Recorded {
    Step(usize),
    Sent(Vec<(Duration, Vec<u8>)>, Option<usize>),
    Barrier(Id),
    Stdout(Vec<u8>, Duration),
}

/// Runs `case` under `plan` on `live`, the process kept from the cases
/// before it, or on a new one, and leaves in `live` the process the next
/// case may use. A case that closes stdin, ends a step without a newline or
/// says `fresh = true` gets a process of its own and leaves `live` alone.
/// A case that ends in CRASH or TIMEOUT on a process that ran cases before
/// it is run again on a new process, and that verdict is reported (with a
/// note when the two differ): a shared process never gives a verdict a
/// process of its own would not.
pub fn run_reusing(
    case: &Case,
    plan: Plan,
    target: &Target,
    opts: &RunOptions,
    live: &mut Option<Live>,
) -> CaseResult {
    let (case, preamble) = match prepare(case, plan, opts) {
        Ok(prepared) => prepared,
        Err(result) => return *result,
    };
    if opts.fresh || needs_own_process(&case, preamble, plan) {
        return execute(&case, preamble, plan, target, opts, None, false).0;
    }
    let earlier = live.as_ref().map_or(0, |l| l.cases);
    let (result, next) = execute(&case, preamble, plan, target, opts, live.take(), true);
    *live = next;
    if earlier == 0 || !matches!(result.verdict, Verdict::Crash | Verdict::Timeout) {
        return result;
    }
    let (mut again, next) = execute(&case, preamble, plan, target, opts, None, true);
    *live = next;
    if again.verdict != result.verdict {
        again.evidence.push(Evidence::note(
            Verdict::Pass,
            format!(
                "on a process that had run {earlier} cases before it, this case was {}; \
                 run again on a new process it is {}, which is the verdict",
                result.verdict.as_str(),
                again.verdict.as_str()
            ),
        ));
    }
    again
}

/// Whether `case` (with `preamble` steps first) must have a process of its
/// own under `plan`: it says so, closes stdin, or leaves a line unfinished
/// (no barrier can follow it, and the next case would inherit the bytes).
fn needs_own_process(case: &Case, preamble: usize, plan: Plan) -> bool {
    case.fresh
        || case.steps.iter().skip(preamble).any(|s| {
            s.close
                || plan
                    .writes(&s.send)
                    .last()
                    .is_some_and(|w| w.bytes.last() != Some(&b'\n'))
        })
}

/// A result for `case` under `plan`, before anything ran.
fn blank_result(case: &Case, plan: Plan) -> CaseResult {
    CaseResult::new(
        case.id.clone(),
        plan.name().to_owned(),
        case.title.clone(),
        case.section.clone(),
    )
}

/// `case` as it runs in the options' dialect: probes and calls put in,
/// expectations read in the dialect, the handshake's steps first (how many
/// is the second value). A case that cannot run is its result instead.
fn prepare(case: &Case, plan: Plan, opts: &RunOptions) -> Result<(Case, usize), Box<CaseResult>> {
    let result = blank_result(case, plan);
    let lacking: Vec<&str> = case
        .requires
        .iter()
        .filter(|r| opts.without.contains(r))
        .map(String::as_str)
        .collect();
    let not_run = |mut result: CaseResult, verdict: Verdict, why: String| {
        result.verdict = verdict;
        result.evidence.push(Evidence::note(verdict, why));
        Err(Box::new(result))
    };
    // What cannot apply to the dialect is N/A whatever the target has.
    let handshake = opts.handshake.as_deref().unwrap_or(opts.dialect.name());
    let declared = case
        .not_in
        .iter()
        .find(|(d, _)| d == handshake)
        .map(|(_, why)| why.clone());
    if let Some(why) = declared.or_else(|| not_applicable(case, handshake)) {
        let why = format!("not applicable in the {handshake} dialect: {why}");
        return not_run(result, Verdict::NotApplicable, why);
    }
    if !lacking.is_empty() {
        let why = format!("the target lacks {}", lacking.join(", "));
        return not_run(result, Verdict::Skipped, why);
    }
    // A case that needs some answered request uses the dialect's probe,
    // one that needs a successful call the target's or the dialect's.
    let mut case = case.clone();
    if probe::uses(&case, Slot::Probe) {
        match probe::probe(&opts.dialect) {
            Some(p) => case = probe::put(&case, Slot::Probe, &p),
            None => {
                let why = format!("the {handshake} dialect has no probe request (`$probe`)");
                return not_run(result, Verdict::NotApplicable, why);
            }
        }
    }
    if probe::uses(&case, Slot::Call) {
        let calls = match &opts.call {
            Some(c) => vec![c.clone()],
            None => probe::default_calls(&opts.dialect, handshake, &opts.without),
        };
        let need = probe::need(&case);
        // The unknown method stands in only where the dialect's probe is
        // one (plain JSON-RPC), and never for a call whose params matter.
        let stand_in = case.or_unknown_method
            && need <= probe::Need::Bare
            && handshake != "codex"
            && matches!(opts.dialect, Dialect::Jsonrpc2 | Dialect::Lenient);
        match probe::choose(&calls, need) {
            Some(c) => case = probe::put(&case, Slot::Call, c),
            None if stand_in => case = probe::put(&case, Slot::Call, &probe::unknown_method()),
            None => return not_run(result, Verdict::Skipped, probe::missing(&calls, need)),
        }
    }
    // MCP writes no `"id": null`; in the lenient dialect `"jsonrpc"` may be
    // absent from replies.
    let case = match opts.dialect {
        Dialect::Mcp => for_mcp(&case),
        Dialect::Lenient if handshake == "codex" => for_codex(&without_version(&case)),
        Dialect::Lenient => without_version(&case),
        _ => case,
    };
    // A dialect's handshake opens the conversation; its steps come first.
    Ok(
        match opts.preambles.iter().find(|p| p.dialect == handshake) {
            Some(p) => (with_preamble(&case, p), p.steps.len()),
            None => (case, 0),
        },
    )
}

/// Runs the prepared `case` on `live` or on a new process, and returns its
/// result and, when `keep` is set and the process can take another case,
/// the process.
fn execute(
    case: &Case,
    preamble: usize,
    plan: Plan,
    target: &Target,
    opts: &RunOptions,
    live: Option<Live>,
    keep: bool,
) -> (CaseResult, Option<Live>) {
    let started = Instant::now();
    let mut result = blank_result(case, plan);
    let mut run = match live {
        Some(live) => Run::resume(live, opts, preamble),
        None => match Running::spawn(target) {
            Ok(running) => Run::new(running, opts, preamble, keep),
            Err(e) => {
                result.verdict = Verdict::Error;
                result.evidence.push(Evidence::note(
                    Verdict::Error,
                    format!("cannot start `{}`: {e}", target.display()),
                ));
                return (result, None);
            }
        },
    };
    run.drive(case, plan, keep);
    run.grade(case, &mut result);
    // A report keeps the head of each message shown, as of each line.
    for e in &mut result.evidence {
        for text in &mut e.actual {
            crate::report::clip(text, MAX_KEPT_BYTES);
        }
    }
    result.duration = started.elapsed();
    let live = run.into_live(result.verdict);
    (result, live)
}

/// One line the target wrote, with what the runner made of it.
struct Got {
    received: Received,
    /// The line as text, if it was one (framing problems are not).
    text: Option<String>,
    /// The step whose window it arrived in.
    window: usize,
    /// The ids it answers (a batch answers several).
    ids: Vec<Id>,
    /// It is the answer to a barrier.
    barrier: bool,
    /// It can answer a step: anything but the target's own requests and
    /// notifications (MCP log messages, LSP `window/logMessage`), which a
    /// JSON-RPC peer may send at any time.
    reply: bool,
    /// What the matcher found wrong with it.
    findings: Vec<Finding>,
}

struct Run<'o> {
    running: Running,
    opts: &'o RunOptions,
    deadline: Instant,
    server: Framer,
    client: Framer,
    session: Session,
    got: Vec<Got>,
    sent: Vec<Sent>,
    /// The ids each step's requests carried.
    step_ids: Vec<Vec<Id>>,
    window: usize,
    barriers: Vec<Id>,
    evidence: Vec<Evidence>,
    pending_writes: usize,
    last_sent_byte: Option<u8>,
    /// When the writes queued so far are due (time since start): writes
    /// are queued without waiting, and the writer thread makes them in
    /// order, after their pauses.
    writes_due: Duration,
    stdout_closed: bool,
    exit: Option<ExitStatus>,
    output: usize,
    timed_out: bool,
    /// The target wrote more than the cap; its output is ignored.
    flooded: bool,
    /// Lines taken from the target's stdout so far.
    lines: usize,
    /// Framing problems seen per rule, and the verdict of each: the first
    /// [`MAX_PER_RULE`] of a rule are evidence, the rest a count.
    framing_seen: std::collections::BTreeMap<String, (usize, Verdict)>,
    /// Send nothing more: the target timed out, crashed or flooded.
    stopped: bool,
    /// Lines that are not JSON on their own, held back (see `hold`).
    held: Vec<(Received, String)>,
    /// The longest a barrier took to be answered (from its queueing).
    barrier_rtt: Duration,
    /// How many of the case's steps are a preamble's (they come first).
    preamble: usize,
    /// The first step this run writes: 0 on a new process, `preamble` on
    /// one whose prologue is replayed.
    first_step: usize,
    /// Subtracted from the process's age: a later case's times read as if
    /// it had followed the prologue at once.
    shift: Duration,
    /// The prologue so far, while it runs on a process to be kept.
    recording: Option<Vec<Recorded>>,
    /// The finished prologue, handed on with the process.
    prologue: Option<Vec<Recorded>>,
    prologue_end: Duration,
    /// Cases run on this process, this one included.
    cases: usize,
    /// Put in barrier ids after the first case, so that none repeats on
    /// one process.
    tag: String,
    /// The process can take another case (set at the end of `drive`).
    alive: bool,
    /// When the target last wrote to stdout.
    last_output: Instant,
    /// The second barriers sent (see `resync`).
    resyncs: Vec<Id>,
    /// Still in the prologue: waits are bounded by the start-up limit.
    starting: bool,
}

/// Most findings of one matcher or framing rule listed per result.
const MAX_PER_RULE: usize = 5;

/// Most messages an evidence entry lists.
const MAX_SHOWN: usize = 20;

/// Most received lines a result keeps (a flood is capped anyway).
const MAX_RECEIVED: usize = 2000;

/// Most bytes of one received line a report keeps (the rest is counted):
/// a 16 MiB line costs a result 64 KiB.
pub const MAX_KEPT_BYTES: usize = 64 << 10;

/// Most lines (messages, blank lines, framing problems) a target may write
/// in one case: what a case keeps grows with them, so a flood of short
/// lines is stopped here as a flood of bytes is at the output cap. The
/// largest shipped case (100 in flight) writes about a hundred.
pub const MAX_LINES: usize = 10_000;

/// Most lines held back as a possible pretty-printed message.
const MAX_HELD: usize = 64;

fn is_json(text: &str) -> bool {
    serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
}

impl<'o> Run<'o> {
    /// A run on a new process: the prologue first, under the start-up
    /// limit; recorded if the process is to be `keep`t.
    fn new(running: Running, opts: &'o RunOptions, preamble: usize, keep: bool) -> Run<'o> {
        let mut run = Run::blank(running, opts, preamble);
        run.deadline = Instant::now() + opts.startup;
        run.starting = true;
        run.recording = keep.then(Vec::new);
        run
    }

    /// A run on a kept process: its prologue is replayed, and the case's
    /// own steps start at once.
    fn resume(live: Live, opts: &'o RunOptions, preamble: usize) -> Run<'o> {
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
        for r in &prologue {
            match r {
                Recorded::Step(k) => run.begin_step(*k),
                Recorded::Sent(timed, step) => run.note_sent(timed, *step),
                Recorded::Barrier(id) => run.barriers.push(id.clone()),
                Recorded::Stdout(bytes, at) => run.stdout(bytes, *at),
            }
        }
        run.prologue = Some(prologue);
        run.prologue_end = prologue_end;
        run
    }

    fn blank(running: Running, opts: &'o RunOptions, preamble: usize) -> Run<'o> {
        // The target's output is held to the strict reading: blank lines and
        // a byte order mark are findings.
        let server = Framer::new(Config::default().blank_lines(BlankLines::Report));
        Run {
            running,
            opts,
            deadline: Instant::now() + opts.timeout,
            server,
            client: Framer::new(Config::default()),
            session: Session::new(opts.dialect.clone()),
            got: Vec::new(),
            sent: Vec::new(),
            step_ids: Vec::new(),
            window: 0,
            barriers: Vec::new(),
            evidence: Vec::new(),
            pending_writes: 0,
            last_sent_byte: None,
            writes_due: Duration::ZERO,
            stdout_closed: false,
            exit: None,
            output: 0,
            timed_out: false,
            flooded: false,
            lines: 0,
            framing_seen: Default::default(),
            stopped: false,
            held: Vec::new(),
            barrier_rtt: Duration::ZERO,
            preamble,
            first_step: 0,
            shift: Duration::ZERO,
            recording: None,
            prologue: None,
            prologue_end: Duration::ZERO,
            cases: 1,
            tag: String::new(),
            alive: false,
            starting: false,
            last_output: Instant::now(),
            resyncs: Vec::new(),
        }
    }

    /// Time on this case's clock: since spawn, less the shift.
    fn now(&self) -> Duration {
        self.running.elapsed().saturating_sub(self.shift)
    }

    fn begin_step(&mut self, k: usize) {
        if let Some(r) = &mut self.recording {
            r.push(Recorded::Step(k));
        }
        self.window = k;
        self.step_ids.push(Vec::new());
    }

    /// The prologue is over: the case deadline starts now, and a recorded
    /// prologue is kept for the next case.
    fn end_prologue(&mut self) {
        self.starting = false;
        self.deadline = Instant::now() + self.opts.timeout;
        if let Some(recorded) = self.recording.take() {
            self.prologue_end = self.now();
            self.prologue = Some(recorded);
        }
    }

    /// Whether the process can take another case: it is running and
    /// reading, answered every request, and its output and input end at a
    /// line boundary, so nothing of this case can reach the next.
    fn reusable(&self) -> bool {
        !self.stopped
            && !self.timed_out
            && !self.flooded
            && self.exit.is_none()
            && !self.stdout_closed
            && !self.running.stdin_closed()
            && !self.running.killed()
            && self.held.is_empty()
            && self.server.at_boundary()
            && self.client.at_boundary()
            && self.prologue.is_some()
            && !self.replies_due()
    }

    /// The process, if the case left it able to take another: a FAIL
    /// that left it answering everything keeps it (a wrong answer is no
    /// broken process), a TIMEOUT or CRASH never does.
    fn into_live(self, verdict: Verdict) -> Option<Live> {
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
    fn drive(&mut self, case: &Case, plan: Plan, keep: bool) {
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
            self.begin_step(k);
            let writes = plan.writes(&step.send);
            self.send(writes, Some(k));
            if step.close {
                self.close_stdin();
                self.await_exit();
            } else if self.last_sent_byte == Some(b'\n') && !self.running.stdin_closed() {
                self.barrier(k + 1, plan);
            }
            if self.stopped {
                break;
            }
        }
        let ended = self.stdout_closed && self.exit.is_some();
        if !self.timed_out && !ended {
            self.await_replies();
            if keep && self.reusable() {
                self.alive = true;
                return;
            }
            // Whatever the target still writes belongs to the last window.
            self.close_stdin();
            self.await_exit();
        }
        if self.timed_out {
            self.running.kill();
        }
        let mut events = Vec::new();
        self.server.finish(|e| events.push(e.into_owned()));
        for event in events {
            self.take(event, self.now());
        }
        self.release_held();
    }

    /// Writes, and feeds what was sent to the session as the client's side.
    fn send(&mut self, writes: Vec<Write>, step: Option<usize>) {
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
        self.pending_writes += 1;
        self.running.write(writes);
    }

    /// Keeps what was written when, and feeds it to the session as the
    /// client's side.
    fn note_sent(&mut self, timed: &[(Duration, Vec<u8>)], step: Option<usize>) {
        if let Some(r) = &mut self.recording {
            r.push(Recorded::Sent(timed.to_vec(), step));
        }
        let mut lines = Vec::new();
        for (at, bytes) in timed {
            self.sent.push(Sent {
                at_ms: at.as_millis() as u64,
                bytes: Bytes::new(bytes),
            });
            self.client.push(bytes, |e| lines.push(e.into_owned()));
            self.last_sent_byte = bytes.last().copied().or(self.last_sent_byte);
        }
        for event in lines {
            self.feed_client(event, step);
        }
    }

    fn feed_client(&mut self, event: Event<'_>, step: Option<usize>) {
        let text = match &event {
            Event::Line(line) => match line.as_str() {
                Ok(text) => text.to_owned(),
                Err(_) => "<invalid utf-8>".to_owned(),
            },
            Event::Problem(p) => match p.kind {
                // Unparseable for the session, so it awaits a parse error.
                ProblemKind::InvalidUtf8 { .. } => "<invalid utf-8>".to_owned(),
                ProblemKind::Truncated => String::from_utf8_lossy(&p.bytes).into_owned(),
                _ => return,
            },
        };
        let classified = self.session.feed(Direction::ClientToServer, &text);
        if let Some(k) = step {
            self.step_ids[k].extend(request_ids(&classified.kind));
        }
    }

    fn close_stdin(&mut self) {
        if self.running.stdin_closed() {
            return;
        }
        let mut tail = Vec::new();
        self.client.finish(|e| tail.push(e.into_owned()));
        for event in tail {
            self.feed_client(event, Some(self.window));
        }
        self.running.close_stdin();
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
    fn await_replies(&mut self) {
        if !self.replies_due() {
            return;
        }
        let grace =
            (self.barrier_rtt * 10).clamp(Duration::from_millis(100), Duration::from_secs(1));
        let until = self.deadline.min(Instant::now() + grace);
        self.wait(|r| !r.replies_due(), until);
    }

    /// Whether a request the case sent has no reply yet (one naming its
    /// id in any spelling or type counts: nothing more is due for it), or
    /// the session still awaits one (an id-null error to an unreadable
    /// request, which a server may send after later replies), or a second
    /// barrier has none.
    fn replies_due(&self) -> bool {
        self.resyncs.iter().any(|id| !self.answered(id))
            || self.session.outstanding(Direction::ClientToServer) > 0
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
    /// the case deadline and at most 250 ms, so that a target that writes
    /// nothing until it exits still has its cases. No sign is no verdict:
    /// the case goes on and its own barriers judge the target.
    fn ready(&mut self) {
        let id = self.send_barrier(0, Plan::Whole);
        let most = self.opts.readiness.wait(self.opts);
        let until = self.deadline.min(Instant::now() + most);
        let named = id.raw().trim_matches('"').to_owned();
        let sign = move |r: &Run<'_>| {
            r.answered(&id)
                || r.got
                    .iter()
                    .any(|g| g.text.as_deref().is_some_and(|t| t.contains(&named)))
        };
        if !self.wait(&sign, until) && most == self.opts.startup {
            self.opts.readiness.silent.store(true, Ordering::Relaxed);
            self.evidence.push(Evidence::note(
                Verdict::Pass,
                format!(
                    "no sign of reading within the start-up limit ({most:?}): barrier 0 was not \
                     answered; the case ran anyway"
                ),
            ));
        }
    }

    /// Whether the barrier `id` has been answered.
    fn answered(&self, id: &Id) -> bool {
        self.got.iter().any(|g| {
            g.barrier
                && g.ids
                    .first()
                    .is_some_and(|a| a.compare(id) == IdMatch::Same)
        })
    }

    /// Sends barrier `n` (0: before the first step, k + 1: after step k),
    /// and returns its id.
    fn send_barrier(&mut self, n: usize, plan: Plan) -> Id {
        self.send_barrier_as(&n.to_string(), plan)
    }

    /// Sends the barrier named `name` and returns its id.
    fn send_barrier_as(&mut self, name: &str, plan: Plan) -> Id {
        let id = format!("\"rpcspec-barrier-{}{name}\"", self.tag);
        let ending = if plan == Plan::Crlf { "\r\n" } else { "\n" };
        let method = barrier_method(&self.opts.dialect);
        let line = format!("{{\"jsonrpc\":\"2.0\",\"method\":\"{method}\",\"id\":{id}}}{ending}");
        let id = Id::parse(&id).expect("a JSON string");
        if let Some(r) = &mut self.recording {
            r.push(Recorded::Barrier(id.clone()));
        }
        self.barriers.push(id.clone());
        self.send(
            vec![Write {
                pause: Duration::ZERO,
                bytes: line.into_bytes(),
            }],
            None,
        );
        id
    }

    /// Sends the barrier after step k (numbered k + 1) and waits for its
    /// answer.
    fn barrier(&mut self, n: usize, plan: Plan) {
        let id = self.send_barrier(n, plan);
        let sent = Instant::now();
        if !self.starting && !self.resync(&id, n) {
            return;
        }
        self.pump(
            move |r| r.answered(&id),
            "the answer to the barrier request",
        );
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
    fn resync(&mut self, id: &Id, n: usize) -> bool {
        let quiet = self.quiet();
        if self.wait_quiet(|r| r.answered(id), quiet, Instant::now())
            || self.timed_out
            || Instant::now() >= self.deadline
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
            let until = self.deadline.min(Instant::now() + LOST_GRACE.max(quiet));
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
        if !heard && self.opts.readiness.silent.load(Ordering::Relaxed) {
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
    fn quiet(&self) -> Duration {
        (self.barrier_rtt * 20).clamp(Duration::from_millis(100), Duration::from_secs(1))
    }

    /// A TIMEOUT before the deadline, saying why.
    fn give_up(&mut self, why: String) {
        self.timed_out = true;
        self.stopped = true;
        self.evidence.push(Evidence::note(Verdict::Timeout, why));
    }

    fn ended(&self) -> bool {
        self.stdout_closed && self.exit.is_some()
    }

    /// [`Run::wait`] that also gives up (false) once the target has written
    /// nothing for `quiet` since `since`.
    fn wait_quiet(
        &mut self,
        done: impl Fn(&Run<'_>) -> bool,
        quiet: Duration,
        since: Instant,
    ) -> bool {
        loop {
            if done(self) || self.ended() {
                return true;
            }
            let until = self.deadline.min(self.last_output.max(since) + quiet);
            if self.timed_out || Instant::now() >= until {
                return false;
            }
            if let Some(msg) = self.running.next(until) {
                self.handle(msg);
            }
        }
    }

    /// Handles the target's events until `done` holds, the case deadline
    /// passes (a TIMEOUT), or nothing more can come.
    fn pump(&mut self, done: impl Fn(&Run<'_>) -> bool, waiting_for: &str) {
        let deadline = self.deadline;
        if !self.wait(done, deadline) && !self.timed_out {
            self.timed_out = true;
            self.stopped = true;
            let limit = if self.starting {
                format!("the start-up limit ({:?})", self.opts.startup)
            } else {
                format!(
                    "the case deadline ({:?} from the start of its own steps)",
                    self.opts.timeout
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
    fn wait(&mut self, done: impl Fn(&Run<'_>) -> bool, until: Instant) -> bool {
        loop {
            if done(self) || (self.stdout_closed && self.exit.is_some()) {
                return true;
            }
            if self.timed_out || Instant::now() >= until {
                return false;
            }
            let Some(msg) = self.running.next(until) else {
                continue;
            };
            self.handle(msg);
        }
    }

    /// The target wrote more than a case may keep: a FAIL saying `why`, and
    /// its output is ignored from here on.
    fn flood(&mut self, why: String) {
        self.evidence.push(Evidence::note(Verdict::Fail, why));
        self.running.kill();
        self.flooded = true;
        self.stopped = true;
    }

    fn handle(&mut self, msg: Msg) {
        let at = self.now();
        match msg {
            Msg::Stdout(bytes) => {
                self.last_output = Instant::now();
                if let Some(r) = &mut self.recording
                    && !self.flooded
                {
                    r.push(Recorded::Stdout(bytes.clone(), at));
                }
                self.stdout(&bytes, at);
            }
            Msg::StdoutClosed => self.stdout_closed = true,
            Msg::Wrote => self.pending_writes = self.pending_writes.saturating_sub(1),
            Msg::WriteFailed(e) => {
                self.pending_writes = self.pending_writes.saturating_sub(1);
                if !self.running.killed() {
                    self.evidence.push(Evidence::note(
                        Verdict::Crash,
                        format!("writing to the target's stdin failed: {e}"),
                    ));
                }
                self.stopped = true;
            }
            Msg::Exited(status) => {
                self.exit = Some(status);
                // Our own kill (flood, timeout, exit grace) is no crash.
                if !self.running.stdin_closed() && !self.running.killed() {
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
    fn stdout(&mut self, bytes: &[u8], at: Duration) {
        if self.flooded {
            return;
        }
        self.output += bytes.len();
        if self.output > self.opts.output_cap {
            self.flood(format!(
                "the target wrote more than {} bytes to stdout; stopped",
                self.opts.output_cap
            ));
            return;
        }
        let mut events = Vec::new();
        self.server.push(bytes, |e| events.push(e.into_owned()));
        for event in events {
            self.take(event, at);
        }
    }

    /// After its stdin closed, the target gets [`EXIT_GRACE`] to finish
    /// writing and exit. Neither JSON-RPC nor NDJSON requires exiting at
    /// EOF (MCP clients send SIGTERM next), so staying alive is NON-STRICT,
    /// not a TIMEOUT; it is then killed.
    fn await_exit(&mut self) {
        let until = self.deadline.min(Instant::now() + EXIT_GRACE);
        if self.wait(|r| r.stdout_closed && r.exit.is_some(), until) || self.timed_out {
            return;
        }
        self.evidence.push(Evidence {
            rule: Some(RuleRef {
                id: "process.exit-on-eof".into(),
                level: "SHOULD".into(),
                section: "rpcspec".into(),
                statement: "a stdio server exits once its input ends".into(),
            }),
            ..Evidence::note(
                Verdict::NonStrict,
                format!(
                    "the target was still running {EXIT_GRACE:?} after its stdin closed; killed"
                ),
            )
        });
        self.running.kill();
        // Collect what it wrote and its exit.
        let until = Instant::now() + Duration::from_millis(500);
        self.wait(|r| r.stdout_closed && r.exit.is_some(), until);
    }

    /// One framing event from the target's stdout.
    fn take(&mut self, event: Event<'_>, at: Duration) {
        if self.flooded {
            return;
        }
        self.lines += 1;
        if self.lines > MAX_LINES {
            self.flood(format!(
                "the target wrote more than {MAX_LINES} lines in one case; stopped"
            ));
            return;
        }
        let (number, offset, bytes) = match &event {
            Event::Line(l) => (l.number, l.offset, l.bytes.as_ref()),
            Event::Problem(p) => (p.number, p.offset, p.bytes.as_ref()),
        };
        let received = Received {
            at_ms: at.as_millis() as u64,
            line: number,
            offset,
            bytes: Bytes::head(bytes, MAX_KEPT_BYTES),
        };
        match event {
            Event::Line(line) => {
                let text = line.as_str().expect("the framer checks UTF-8").to_owned();
                // A scalar on its own line may be part of a pretty-printed
                // message (`5` inside an array); an object or array line is
                // a message of its own.
                let starts_message = text.trim_start().starts_with(['{', '[']);
                if is_json(&text) && (self.held.is_empty() || starts_message) {
                    self.release_held();
                    self.message(received, text);
                } else {
                    self.hold(received, text);
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

    /// A line that is not JSON on its own is held back: with the lines
    /// after it, it may be one pretty-printed message. Recognising that
    /// gives a precise finding (and lets the barrier be seen) instead of a
    /// timeout.
    fn hold(&mut self, received: Received, text: String) {
        self.held.push((received, text));
        if self.held.len() > 1 {
            let joined = self
                .held
                .iter()
                .map(|(_, t)| t.as_str())
                .collect::<Vec<_>>()
                .join("\n");
            if is_json(&joined) {
                let held = std::mem::take(&mut self.held);
                let (first, last) = (&held[0].0, &held[held.len() - 1].0);
                self.evidence.push(Evidence {
                    rule: Some(RuleRef::multi_line()),
                    ..Evidence::note(
                        Verdict::Fail,
                        format!(
                            "stdout lines {}-{} are one JSON message spread over {} lines (pretty-printed)",
                            first.line,
                            last.line,
                            held.len()
                        ),
                    )
                });
                let received = Received {
                    bytes: Bytes::new(joined.as_bytes()),
                    ..first.clone()
                };
                self.message(received, joined);
                return;
            }
        }
        if self.held.len() > MAX_HELD {
            let (received, text) = self.held.remove(0);
            self.message(received, text);
        }
    }

    /// Held lines that never became a message are what they are: not JSON.
    fn release_held(&mut self) {
        for (received, text) in std::mem::take(&mut self.held) {
            self.message(received, text);
        }
    }

    /// One message from the target, through the matcher's session.
    fn message(&mut self, received: Received, text: String) {
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
    fn grade(&mut self, case: &Case, result: &mut CaseResult) {
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
                case.level
            };
            if let Some(mut e) = grade_step(step, k, &per_step[k], level) {
                if k < self.preamble {
                    e.step = None;
                    e.message = format!("preamble step {}: {}", k + 1, e.message);
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
                self.evidence.push(Evidence::note(
                    verdict,
                    format!("… and {} more findings of {id}", count - MAX_PER_RULE),
                ));
            }
        }
        if let Some(status) = self.exit {
            result.exit = Some(describe_exit(status));
            let crashed = self.evidence.iter().any(|e| e.verdict == Verdict::Crash);
            if !status.success() && !crashed && !self.timed_out && !self.running.killed() {
                self.evidence.push(Evidence {
                    rule: Some(RuleRef {
                        id: "process.exit-status".into(),
                        level: "SHOULD".into(),
                        section: "rpcspec".into(),
                        statement: "a server exits with status 0 when its input ends".into(),
                    }),
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
        result.verdict = self
            .evidence
            .iter()
            .map(|e| e.verdict)
            .filter(|v| *v != Verdict::Pass)
            .max()
            .unwrap_or(Verdict::Pass);
        result.evidence = std::mem::take(&mut self.evidence);
        result.sent = std::mem::take(&mut self.sent);
        let received = self.got.len();
        result.received = std::mem::take(&mut self.got)
            .into_iter()
            .take(MAX_RECEIVED)
            .map(|g| g.received)
            .collect();
        if received > MAX_RECEIVED {
            result.evidence.push(Evidence::note(
                Verdict::Pass,
                format!(
                    "{} more lines received are not kept in the report",
                    received - MAX_RECEIVED
                ),
            ));
        }
        result.stderr = String::from_utf8_lossy(&self.running.stderr_tail()).into_owned();
    }
}

/// A request, notification or event the target sent of its own accord (a
/// batch of nothing else included).
fn initiated(kind: &Kind) -> bool {
    match kind {
        Kind::Request { .. }
        | Kind::Notification { .. }
        | Kind::Event { .. }
        | Kind::Cancel { .. } => true,
        Kind::Batch(members) => !members.is_empty() && members.iter().all(initiated),
        _ => false,
    }
}

/// Why `case` cannot apply to the dialect (or handshake) named `dialect`,
/// if it cannot: what it requires does not exist there. MCP and the Codex
/// app-server define their own methods, and neither takes batches.
pub fn not_applicable(case: &Case, dialect: &str) -> Option<String> {
    let (methods, batches) = match dialect {
        "mcp" => (
            "MCP's methods are its own",
            "MCP 2025-06-18 removed JSON-RPC batching (changelog); no server must accept a batch",
        ),
        "codex" => (
            "the app-server's methods are its own",
            "the app-server protocol has no batches (codex-rs/app-server-protocol, jsonrpc_lite.rs: a message is one request, notification or response)",
        ),
        _ => return None,
    };
    let example: Vec<&str> = case
        .requires
        .iter()
        .map(String::as_str)
        .filter(|r| matches!(*r, "subtract" | "sum" | "get_data"))
        .collect();
    if !example.is_empty() {
        return Some(format!(
            "no `{}` here (the JSON-RPC 2.0 §7 example methods; {methods})",
            example.join("`, `")
        ));
    }
    case.requires
        .iter()
        .any(|r| r == "batch")
        .then(|| batches.to_owned())
}

/// The method of the barrier request in `dialect`: MCP's `ping`, which a
/// server answers even before `notifications/initialized` (the only request
/// a client may send then), else [`BARRIER_METHOD`].
fn barrier_method(dialect: &Dialect) -> &'static str {
    match dialect {
        Dialect::Mcp => "ping",
        _ => BARRIER_METHOD,
    }
}

/// `case` as MCP reads it: an error to a request whose id could not be read
/// omits `id` (2025-11-25 schema: `JSONRPCErrorResponse.id?: RequestId`;
/// a `RequestId` is never null), where JSON-RPC 2.0 §5 writes `"id": null`.
/// The 2025-06-18 schema makes `id` required, so a server of that revision
/// has no schema-valid answer at all: staying silent is graded NON-STRICT.
fn for_mcp(case: &Case) -> Case {
    const WHY: &str = "no reply to an unreadable request: the MCP 2025-06-18 schema requires a non-null `id` on every error, so a server of that revision has no valid answer (JSON-RPC 2.0 §5.1 and §7 want one with id null, MCP 2025-11-25 one without id)";
    unreadable_ids(case, true, WHY)
}

/// `case` as the Codex app-server's protocol reads it: its errors carry a
/// `RequestId`, a string or an integer, never null
/// (codex-rs/app-server-protocol, jsonrpc_lite.rs), so a request whose id
/// could not be read has no answer there: staying silent is graded
/// NON-STRICT, and JSON-RPC's `"id": null` error is still accepted.
fn for_codex(case: &Case) -> Case {
    const WHY: &str = "no reply to an unreadable request: the app-server's errors carry a string or integer `id` (jsonrpc_lite.rs `RequestId`), so it has no way to write JSON-RPC 2.0's `\"id\": null` (§5.1, §7)";
    unreadable_ids(case, false, WHY)
}

/// `case` with each step that expects an id-null error also accepting
/// silence for it, NON-STRICT, saying `why`; with `absent`, the error is
/// expected without `id` instead of with `"id": null`.
fn unreadable_ids(case: &Case, absent: bool, why: &str) -> Case {
    let mut case = case.clone();
    let rewrite = |ps: &[Pattern]| -> Vec<Pattern> {
        ps.iter()
            .map(|p| {
                if absent && p.is_null_id_error() {
                    p.with_id_absent()
                } else {
                    p.clone()
                }
            })
            .collect()
    };
    for step in &mut case.steps {
        let Expect::Messages(ps) = &step.expect else {
            continue;
        };
        if !ps.iter().any(Pattern::is_null_id_error) {
            continue;
        }
        let silent: Vec<Pattern> = ps
            .iter()
            .filter(|p| !p.is_null_id_error())
            .cloned()
            .collect();
        step.expect = Expect::Messages(rewrite(ps));
        for alt in &mut step.alternatives {
            if let Expect::Messages(ps) = &alt.expect {
                alt.expect = Expect::Messages(rewrite(ps));
            }
        }
        step.alternatives.push(crate::cases::Alternative {
            expect: if silent.is_empty() {
                Expect::Nothing
            } else {
                Expect::Messages(silent)
            },
            grade: crate::cases::Grade::NonStrict,
            why: why.to_owned(),
        });
    }
    case
}

/// `case` opened by `preamble`'s steps.
fn with_preamble(case: &Case, preamble: &Preamble) -> Case {
    let mut opened = case.clone();
    opened.steps = preamble.steps.iter().chain(&case.steps).cloned().collect();
    opened
}

/// `case` with no `"jsonrpc"` member in any expected message.
fn without_version(case: &Case) -> Case {
    case.map_patterns(Pattern::without_version)
}

/// How many id-null messages a step may get back: the most any of its
/// answers (the expected one or an alternative) holds.
fn null_capacity(step: &Step) -> usize {
    let count = |e: &Expect| match e {
        Expect::Messages(ps) => ps.iter().filter(|p| p.accepts_null_id()).count(),
        _ => 0,
    };
    std::iter::once(&step.expect)
        .chain(step.alternatives.iter().map(|a| &a.expect))
        .map(count)
        .max()
        .unwrap_or(0)
}

/// The ids of the requests in a message the client sent.
fn request_ids(kind: &Kind) -> Vec<Id> {
    match kind {
        Kind::Request { id, .. } => vec![id.clone()],
        Kind::Invalid { id: Some(id), .. } => vec![id.clone()],
        Kind::Batch(members) => members.iter().flat_map(request_ids).collect(),
        _ => Vec::new(),
    }
}

/// The ids a message from the target answers (its own requests answer
/// nothing).
fn reply_ids(kind: &Kind) -> Vec<Id> {
    match kind {
        Kind::Batch(members) => members.iter().flat_map(reply_ids).collect(),
        Kind::Success { id } | Kind::Error { id: Some(id), .. } => vec![id.clone()],
        Kind::Invalid {
            shape: Shape::Response,
            id: Some(id),
        } => vec![id.clone()],
        _ => Vec::new(),
    }
}

/// The one step whose requests carry these ids, if there is exactly one.
/// Null ids say nothing: many invalid requests share them.
fn owner_step(ids: &[Id], step_ids: &[Vec<Id>]) -> Option<usize> {
    let mut owner = None;
    for id in ids.iter().filter(|id| id.raw() != "null") {
        let steps: Vec<usize> = step_ids
            .iter()
            .enumerate()
            .filter(|(_, sent)| sent.iter().any(|s| s.compare(id) != IdMatch::Different))
            .map(|(k, _)| k)
            .collect();
        match (steps.as_slice(), owner) {
            ([k], None) => owner = Some(*k),
            ([k], Some(o)) if *k == o => {}
            _ => return None,
        }
    }
    owner
}

/// Grades one step's answer: `None` for a pass.
fn grade_step(step: &Step, k: usize, actual: &[&str], level: Level) -> Option<Evidence> {
    let primary = expect_matches(&step.expect, actual);
    let (verdict, message) = match &primary {
        Ok(None) => return None,
        Ok(Some(why)) => (Verdict::NonStrict, why.clone()),
        Err(why) => {
            let alternative = step
                .alternatives
                .iter()
                .find(|alt| expect_matches(&alt.expect, actual).is_ok());
            match alternative {
                Some(alt) if alt.grade == Grade::Pass => return None,
                Some(alt) => (Verdict::NonStrict, format!("tolerated: {}", alt.why)),
                None => {
                    let verdict = match level {
                        Level::Must => Verdict::Fail,
                        Level::Should | Level::Info => Verdict::NonStrict,
                    };
                    (verdict, why.clone())
                }
            }
        }
    };
    let mut shown: Vec<String> = actual
        .iter()
        .take(MAX_SHOWN)
        .map(|s| (*s).to_owned())
        .collect();
    if actual.len() > MAX_SHOWN {
        shown.push(format!("… and {} more messages", actual.len() - MAX_SHOWN));
    }
    Some(Evidence {
        verdict,
        rule: None,
        message,
        step: Some(k + 1),
        expected: describe_expect(&step.expect),
        actual: shown,
    })
}

fn describe_expect(expect: &Expect) -> Vec<String> {
    match expect {
        Expect::Messages(ps) => ps.iter().map(|p| p.text().to_owned()).collect(),
        Expect::Batch(ps) => vec![format!(
            "[{}] (any order)",
            ps.iter().map(Pattern::text).collect::<Vec<_>>().join(", ")
        )],
        Expect::Nothing => vec!["(no reply)".to_owned()],
        Expect::Any => vec!["(any reply)".to_owned()],
    }
}

/// `Ok(None)`: matches. `Ok(Some(why))`: matches with a graded difference.
/// `Err(why)`: does not match.
fn expect_matches(expect: &Expect, actual: &[&str]) -> Result<Option<String>, String> {
    match expect {
        Expect::Any => Ok(None),
        Expect::Nothing if actual.is_empty() => Ok(None),
        Expect::Nothing => Err(format!(
            "expected no reply, got {} message{}",
            actual.len(),
            if actual.len() == 1 { "" } else { "s" }
        )),
        Expect::Messages(patterns) => {
            if patterns.len() != actual.len() {
                return Err(format!(
                    "expected {} message{}, got {}",
                    patterns.len(),
                    if patterns.len() == 1 { "" } else { "s" },
                    actual.len()
                ));
            }
            match_all(patterns, actual.iter().copied())
        }
        Expect::Batch(patterns) => {
            // §6: the server "should respond with an Array" (lower case):
            // the same replies as separate objects are graded, not failed.
            if actual.len() == patterns.len()
                && actual.iter().all(|a| a.trim_start().starts_with('{'))
                && match_all(patterns, actual.iter().copied()).is_ok()
            {
                return Ok(Some(format!(
                    "the batch was answered with {} separate objects instead of one array \
                     (JSON-RPC 2.0 §6: the server should respond with an Array)",
                    actual.len()
                )));
            }
            let [one] = actual else {
                return Err(format!(
                    "expected one batch reply, got {} messages",
                    actual.len()
                ));
            };
            let members: Vec<&serde_json::value::RawValue> = serde_json::from_str(one)
                .map_err(|_| "expected a batch reply (an array), got a single object".to_owned())?;
            if members.len() != patterns.len() {
                return Err(format!(
                    "expected a batch reply of {} members, got {}",
                    patterns.len(),
                    members.len()
                ));
            }
            match_all(patterns, members.iter().map(|m| m.get()))
        }
    }
}

/// Most (pattern, message) pairs tried when the messages must be paired
/// in any order: beyond, only the pairing by position and id is (a step
/// sends at most [`crate::cases::MAX_SENDS`]).
const MAX_PAIRINGS: usize = 256 * 256;

/// Pairs every pattern with a distinct message, in any order. Replies in
/// order or with the ids expected pair at once, one match each
/// ([`paired_by_id`]); otherwise it is a perfect bipartite matching
/// (Kuhn's algorithm), for at most [`MAX_PAIRINGS`] pairs. Exact matches
/// are tried first, so a same-value id is only graded when no exact
/// assignment exists.
fn match_all<'a>(
    patterns: &[Pattern],
    actual: impl Iterator<Item = &'a str>,
) -> Result<Option<String>, String> {
    let actual: Vec<&str> = actual.collect();
    let unpaired = match paired_by_id(patterns, &actual) {
        Ok(()) => return Ok(None),
        Err(i) => i,
    };
    if patterns.len() * actual.len() > MAX_PAIRINGS {
        return Err(format!(
            "no message with its position or id matches {} ({} messages are too many to pair in any order)",
            patterns[unpaired].text(),
            actual.len()
        ));
    }
    let table: Vec<Vec<Match>> = patterns
        .iter()
        .map(|p| actual.iter().map(|a| p.matches(a)).collect())
        .collect();
    if perfect(&table, |m| *m == Match::Yes) {
        return Ok(None);
    }
    if perfect(&table, |m| matches!(m, Match::Yes | Match::IdSameValue)) {
        let graded = table
            .iter()
            .zip(patterns)
            .find(|(row, _)| row.contains(&Match::IdSameValue))
            .map(|(_, p)| p.text().to_owned())
            .unwrap_or_default();
        return Ok(Some(format!(
            "`id` echoed as the same value with different text (expected {graded})"
        )));
    }
    // Say why the first pattern that fits nothing does not.
    for (row, p) in table.iter().zip(patterns) {
        if !row
            .iter()
            .any(|m| matches!(m, Match::Yes | Match::IdSameValue))
        {
            return Err(match row.as_slice() {
                [Match::No(why)] => why.clone(),
                _ => format!("no message matches {}", p.text()),
            });
        }
    }
    Err("the messages match the patterns only with one message used twice".into())
}

/// Pairs each pattern with the message at its position or, failing that,
/// one with its id, greedily; `Err` names the first pattern left without.
/// A success is a perfect matching; a failure only says to look further.
fn paired_by_id(patterns: &[Pattern], actual: &[&str]) -> Result<(), usize> {
    #[derive(serde::Deserialize)]
    struct WithId<'a> {
        #[serde(borrow)]
        id: Option<&'a serde_json::value::RawValue>,
    }
    fn id_of(text: &str) -> Option<&str> {
        let with: WithId<'_> = serde_json::from_str(text).ok()?;
        with.id.map(|r| r.get())
    }
    let mut by_id: std::collections::HashMap<&str, Vec<usize>> = Default::default();
    for (j, a) in actual.iter().enumerate() {
        if let Some(id) = id_of(a) {
            by_id.entry(id).or_default().push(j);
        }
    }
    let mut used = vec![false; actual.len()];
    for (i, p) in patterns.iter().enumerate() {
        let same_id = id_of(p.text()).and_then(|id| by_id.get(id));
        let mut candidates = (i < actual.len())
            .then_some(i)
            .into_iter()
            .chain(same_id.into_iter().flatten().copied());
        match candidates.find(|&j| !used[j] && p.matches(actual[j]) == Match::Yes) {
            Some(j) => used[j] = true,
            None => return Err(i),
        }
    }
    Ok(())
}

/// Whether every row (pattern) gets its own column (message) among the
/// cells `ok` accepts.
fn perfect(table: &[Vec<Match>], ok: impl Fn(&Match) -> bool) -> bool {
    fn augment(
        row: usize,
        table: &[Vec<bool>],
        seen: &mut [bool],
        owner: &mut [Option<usize>],
    ) -> bool {
        for (col, &edge) in table[row].iter().enumerate() {
            if edge && !seen[col] {
                seen[col] = true;
                if owner[col].is_none_or(|r| augment(r, table, seen, owner)) {
                    owner[col] = Some(row);
                    return true;
                }
            }
        }
        false
    }
    let cols = table.first().map_or(0, Vec::len);
    let edges: Vec<Vec<bool>> = table.iter().map(|r| r.iter().map(&ok).collect()).collect();
    let mut owner = vec![None; cols];
    (0..table.len()).all(|row| augment(row, &edges, &mut vec![false; cols], &mut owner))
}

/// A framing problem in the target's output.
fn framing_evidence(problem: &Problem<'_>) -> Evidence {
    let rule = RuleRef::framing(problem.kind);
    Evidence {
        verdict: rule.verdict(),
        rule: Some(rule),
        message: format!("stdout {problem}"),
        step: None,
        expected: Vec::new(),
        actual: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn patterns(texts: &[&str]) -> Vec<Pattern> {
        texts.iter().map(|t| Pattern::parse(t).unwrap()).collect()
    }

    #[test]
    fn messages_match_in_any_order() {
        let expect = Expect::Messages(patterns(&[
            r#"{"result":1,"id":1}"#,
            r#"{"result":2,"id":2}"#,
        ]));
        assert_eq!(
            expect_matches(
                &expect,
                &[r#"{"result":2,"id":2}"#, r#"{"result":1,"id":1}"#]
            ),
            Ok(None)
        );
        assert!(expect_matches(&expect, &[r#"{"result":2,"id":2}"#]).is_err());
    }

    #[test]
    fn a_batch_is_one_array() {
        let expect = Expect::Batch(patterns(&[r#"{"result":1,"id":1}"#]));
        assert_eq!(
            expect_matches(&expect, &[r#"[{"result":1,"id":1}]"#]),
            Ok(None)
        );
        // The same replies as separate objects: graded (§6 "should").
        assert!(matches!(
            expect_matches(&expect, &[r#"{"result":1,"id":1}"#]),
            Ok(Some(why)) if why.contains("separate objects")
        ));
        assert_eq!(
            expect_matches(&expect, &[r#"{"result":2,"id":1}"#]),
            Err("expected a batch reply (an array), got a single object".into())
        );
    }

    #[test]
    fn matching_finds_an_assignment_first_fit_would_miss() {
        // The wildcard pattern comes first and would take the only message
        // the exact pattern fits.
        let expect = Expect::Messages(patterns(&[
            r#"{"result":"$any","id":"$any"}"#,
            r#"{"result":1,"id":1}"#,
        ]));
        assert_eq!(
            expect_matches(
                &expect,
                &[r#"{"result":1,"id":1}"#, r#"{"result":2,"id":2}"#]
            ),
            Ok(None)
        );
    }

    #[test]
    fn nothing_means_nothing() {
        assert_eq!(expect_matches(&Expect::Nothing, &[]), Ok(None));
        assert!(expect_matches(&Expect::Nothing, &["[]"]).is_err());
    }

    fn one_case(text: &str) -> Case {
        crate::cases::load_str(std::path::Path::new("t.toml"), text)
            .expect("loads")
            .remove(0)
    }

    #[test]
    fn in_mcp_an_unreadable_request_is_answered_without_id_or_not_at_all() {
        let case = one_case(
            r#"
[[case]]
name = "x"
title = "t"
section = "s"

[[case.step]]
send = ['{"a":', '{"jsonrpc": "2.0", "method": "$probe", "id": 2}']
expect = ['{"jsonrpc": "2.0", "error": {"code": -32700, "message": "$string"}, "id": null}', '{"jsonrpc": "2.0", "$probe-reply": true, "id": 2}']
"#,
        );
        let mcp = probe::put(
            &for_mcp(&case),
            Slot::Probe,
            &probe::probe(&Dialect::Mcp).unwrap(),
        );
        let step = &mcp.steps[0];
        let texts = |e: &Expect| match e {
            Expect::Messages(ps) => ps.iter().map(|p| p.text().to_owned()).collect::<Vec<_>>(),
            _ => Vec::new(),
        };
        assert_eq!(
            texts(&step.expect),
            [
                r#"{"jsonrpc": "2.0", "error": {"code": -32700, "message": "$string"}, "id": "$absent"}"#,
                r#"{"jsonrpc": "2.0", "result": "$object", "id": 2}"#
            ]
        );
        let without_id = r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}"#;
        let pong = r#"{"jsonrpc":"2.0","id":2,"result":{}}"#;
        assert_eq!(expect_matches(&step.expect, &[without_id, pong]), Ok(None));
        // An id-null error is what JSON-RPC writes and MCP's schema forbids.
        let with_null =
            r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#;
        assert!(expect_matches(&step.expect, &[with_null, pong]).is_err());
        // Silence is the one alternative, NON-STRICT, and says why.
        assert_eq!(step.alternatives.len(), 1);
        assert_eq!(step.alternatives[0].grade, crate::cases::Grade::NonStrict);
        assert!(step.alternatives[0].why.contains("2025-06-18 schema"));
        assert_eq!(
            expect_matches(&step.alternatives[0].expect, &[pong]),
            Ok(None)
        );
        // Other dialects keep JSON-RPC's answer.
        let plain = probe::put(
            &case,
            Slot::Probe,
            &probe::probe(&Dialect::Jsonrpc2).unwrap(),
        );
        let unknown = r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"x"}}"#;
        assert_eq!(
            expect_matches(&plain.steps[0].expect, &[with_null, unknown]),
            Ok(None)
        );
        assert!(expect_matches(&plain.steps[0].expect, &[without_id, unknown]).is_err());
        assert!(plain.steps[0].alternatives.is_empty());
    }

    #[test]
    fn owner_is_the_one_step_with_that_id() {
        let id = |s: &str| Id::parse(s).unwrap();
        let steps = vec![vec![id("1")], vec![id("2"), id("3")]];
        assert_eq!(owner_step(&[id("3")], &steps), Some(1));
        assert_eq!(owner_step(&[id("1"), id("2")], &steps), None);
        assert_eq!(owner_step(&[id("null")], &steps), None);
        assert_eq!(
            owner_step(&[id("\"1\"")], &steps),
            Some(0),
            "a changed type still points at its step"
        );
    }
}
