//! Running one case under one write plan against a target process, and
//! grading what came back.
//!
//! A case runs on a process of its own, or on one kept from the cases
//! before it ([`run_reusing`]): every process first proves it is reading
//! (barrier 0, or the dialect's handshake), and that prologue is recorded
//! and replayed into each later case on the process, so every case is
//! graded on what a process of its own would have shown it. A case's
//! deadline runs from the end of the prologue or from the last write the
//! target took, whichever is later, at most nine deadlines later
//! ([`wait::MOVES`]): rpcspec's own pacing of its writes, slower on a
//! loaded machine, is not the target's time. The prologue has the start-up
//! limit.
//!
//! Every byte the target writes goes through the reference framer and the
//! matcher's session, so framing and envelope rules are checked on every
//! case. A step's answers are delimited with a barrier, not a sleep: after
//! the step's bytes the runner sends a request whose answer is known (an
//! unknown method with a fresh id) and waits for that answer; whatever the
//! target wrote before it belongs to the step.

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use rpcspec_matcher::{Dialect, Id, Session};

mod barrier;
mod dialect;
mod grade;
mod kept;
mod observed;
mod received;
mod run;
mod sends;
mod wait;

use dialect::with_preamble;
pub use dialect::{no_batches, not_applicable};
// What the files of exec/ take from one another through this module.
use grade::{
    framing_evidence, grade_step, initiated, null_capacity, owner_step, reply_ids, request_ids,
};
use run::{Got, MAX_SHOWN, Run, is_json};

use crate::{
    budget::Budget,
    capture::Framing,
    cases::{Case, Expect, Grade, Preamble, Step},
    drive::Drive,
    gather::{Gather, This},
    pattern::{Match, Pattern},
    plan::{Plan, Write},
    probe::{self, Probe, Slot},
    report::{Bytes, CaseResult, Evidence, Received, RuleRef, Sent, Verdict},
    target::{Msg, Target, describe_exit},
};

/// How cases are run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Deadline for a whole case.
    pub timeout: Duration,
    /// The dialect the target's messages are judged in.
    pub dialect: Dialect,
    /// How messages are framed both ways (`--framing`).
    pub framing: Framing,
    /// Features the target lacks: cases requiring them are skipped.
    pub without: Vec<String>,
    /// What one (case, plan) may read and keep (`--budget`).
    pub budget: Budget,
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
    /// The write plans made quick ([`Plan::writes_quick`]: pauses that
    /// only wait for the target to read, `bytewise` a byte at a time for
    /// each message's first bytes only), for persistent fuzzing.
    pub quick_writes: bool,
    /// What this run has learnt of the target's start-up. Shared by the
    /// clones of these options: make new options for another target.
    pub readiness: Arc<Readiness>,
}

pub use crate::drive::Readiness;

impl RunOptions {
    /// The dialect the run speaks, as the registry describes it: its
    /// handshake's, else its matcher dialect's (JSON-RPC 2.0's for a name
    /// the registry does not know).
    pub fn descriptor(&self) -> &'static crate::dialects::Descriptor {
        let name = self.handshake.as_deref().unwrap_or(self.dialect.name());
        crate::dialects::find(name)
            .map(|(d, _)| d)
            .unwrap_or(&crate::dialects::DIALECTS[0])
    }
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            timeout: Duration::from_secs(5),
            dialect: Dialect::Jsonrpc2,
            framing: Framing::ndjson(),
            without: Vec::new(),
            budget: Budget::DEFAULT,
            preambles: crate::cases::builtin_preambles()
                .expect("the shipped preambles load (tests/case_files.rs checks them)"),
            handshake: None,
            call: None,
            startup: DEFAULT_STARTUP,
            fresh: false,
            quick_writes: false,
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

pub use crate::drive::EXIT_GRACE;

/// The method of the barrier request. Not `rpc.`-prefixed (reserved), and
/// unlikely to exist on any target.
pub const BARRIER_METHOD: &str = "rpcspec/barrier";

/// Runs `case` under `plan` against a process of its own.
pub fn run_case(case: &Case, plan: Plan, target: &Target, opts: &RunOptions) -> CaseResult {
    match prepare(case, plan, opts) {
        Ok((case, preamble)) => execute(&case, preamble, plan, target, opts, None, false).result,
        Err(result) => *result,
    }
}

/// A target process kept for the next case: it answered everything its
/// cases sent, wrote no partial line and is still reading.
pub struct Live {
    running: Drive,
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

/// What one job of a suite keeps between its cases: the process, and the
/// cases that ran on it.
#[derive(Default)]
pub struct Job {
    live: Option<Live>,
    /// The indices (in the suite's work) of the cases run on `live`.
    since: Vec<usize>,
}

/// Results from [`run_reusing`] and [`Job::finish`]: the case's own, and
/// earlier ones run again.
pub struct Reused {
    /// The case's result (`None` from [`Job::finish`]).
    pub result: Option<CaseResult>,
    /// Earlier cases of the job, run again on processes of their own: their
    /// indices in the work, and those results, which stand.
    pub again: Vec<(usize, CaseResult)>,
}

/// Runs `case` under `plan` (item `index` of the suite's work) on the
/// process `job` kept from the cases before it, or on a new one, and
/// leaves in `job` the process the next case may use. A case that closes
/// stdin, ends a step without a newline or says `fresh = true` gets a
/// process of its own and leaves the job's alone. `work` finds an earlier
/// case by its index.
///
/// A shared process never gives a verdict a process of its own would not:
/// - each case on it ends with a fence (`Run::fence`), so what the target
///   answers late to the case's input, before the fence's answer, is the
///   case's, as it would be on a process of its own before it exited;
/// - any result but a PASS on a process that ran other cases before it is
///   run again on a new process, and that verdict stands (with a note when
///   the two differ); a process that ran only this case, under other plans,
///   counts as new for it (the suite hands a job the plans of a case in
///   turn, so a case the target gets wrong costs one new process, not one
///   per plan);
/// - output that a later case on the process cannot have drawn
///   (`Run::foreign`), or that comes after the last fence when the job
///   ends ([`Job::finish`]), is some earlier case's, come after its fence:
///   every case that ran on the process is then run again on a process of
///   its own, and those verdicts stand.
pub fn run_reusing<'c>(
    index: usize,
    case: &Case,
    plan: Plan,
    target: &Target,
    opts: &RunOptions,
    job: &mut Job,
    work: impl Fn(usize) -> (&'c Case, Plan),
) -> Reused {
    let (prepared, preamble) = match prepare(case, plan, opts) {
        Ok(prepared) => prepared,
        Err(result) => return Reused::alone(*result),
    };
    if opts.fresh || needs_own_process(&prepared, preamble, plan, &opts.framing) {
        let run = execute(&prepared, preamble, plan, target, opts, None, false);
        return Reused::alone(run.result);
    }
    let earlier = std::mem::take(&mut job.since);
    let run = execute(
        &prepared,
        preamble,
        plan,
        target,
        opts,
        job.live.take(),
        true,
    );
    // Earlier cases on the process, run again on processes of their own.
    let alone = |earlier: &[usize]| -> Vec<(usize, CaseResult)> {
        earlier
            .iter()
            .map(|&i| (i, run_alone(work(i), target, opts)))
            .collect()
    };
    if run.foreign {
        // What else the process holds of earlier cases is theirs.
        drop(run.live);
    } else {
        job.live = run.live;
    }
    // A process that ran nothing but this case's other plans is as good
    // as a new one for it: the same messages, cut another way, and never
    // a case that depends on how the work was shared out (a suite hands a
    // job every plan of a case in turn). The same case is the same object
    // in the work, so that inputs that only share an id (a fuzzer's) are
    // never taken for it.
    let own_plans_only = earlier.iter().all(|&i| std::ptr::eq(work(i).0, case));
    let stands = own_plans_only || run.result.verdict == Verdict::Pass;
    if earlier.is_empty() || stands && !run.foreign {
        if job.live.is_some() {
            job.since = earlier.into_iter().chain([index]).collect();
        }
        return Reused::alone(run.result);
    }
    // The process is given up: what it writes as it closes is some earlier
    // case's, come late.
    let late = job.live.take().is_some_and(|live| live.close(opts));
    let confirmed = execute(&prepared, preamble, plan, target, opts, None, true);
    let mut result = confirmed.result;
    if confirmed.live.is_some() {
        job.live = confirmed.live;
        job.since = vec![index];
    }
    let differs = result.verdict != run.result.verdict;
    if differs {
        result.evidence.push(Evidence::note(
            Verdict::Pass,
            format!(
                "on a process that had run {} cases before it, this case was {}; run again on a \
                 new process it is {}, which is the verdict",
                earlier.len(),
                run.result.verdict.as_str(),
                result.verdict.as_str()
            ),
        ));
    }
    // What ran before changed what this case saw, or some of it came late:
    // what they saw is in doubt too.
    Reused {
        result: Some(result),
        again: if run.foreign || differs || late {
            alone(&earlier)
        } else {
            Vec::new()
        },
    }
}

/// Runs a case on a process of its own.
fn run_alone((case, plan): (&Case, Plan), target: &Target, opts: &RunOptions) -> CaseResult {
    run_case(
        case,
        plan,
        target,
        &RunOptions {
            fresh: true,
            ..opts.clone()
        },
    )
}

impl Job {
    /// The indices (in the suite's work) of the cases run on the process
    /// the job keeps: the ones a later case may send back to be run again
    /// alone (none when it keeps none).
    pub fn cases(&self) -> &[usize] {
        &self.since
    }

    /// Ends the job: its process, if it kept one, is closed as a process
    /// of its own is at the end of a case, and anything it writes after
    /// its last fence is some earlier case's, come late: then every case
    /// that ran on it is run again on a process of its own. `work` finds a
    /// case by its index.
    pub fn finish<'c>(
        self,
        target: &Target,
        opts: &RunOptions,
        work: impl Fn(usize) -> (&'c Case, Plan),
    ) -> Reused {
        let late = self.live.is_some_and(|live| live.close(opts));
        let again = if late {
            self.since
                .iter()
                .map(|&i| (i, run_alone(work(i), target, opts)))
                .collect()
        } else {
            Vec::new()
        };
        Reused {
            result: None,
            again,
        }
    }
}

impl Live {
    /// Closes the process as the runner ends a case on a process of its
    /// own (stdin closed, the exit awaited, then killed), and says whether
    /// it wrote anything but its own requests and notifications after the
    /// last fence.
    fn close(self, opts: &RunOptions) -> bool {
        let mut run = Run::resume(self, opts, 0);
        let replayed = run.got.len();
        run.close_stdin();
        run.await_exit();
        for arrival in run.server.finish_owned(run.now()) {
            run.take(arrival);
        }
        run.release_held();
        run.got[replayed..].iter().any(|g| g.reply)
    }
}

impl Reused {
    fn alone(result: CaseResult) -> Reused {
        Reused {
            result: Some(result),
            again: Vec::new(),
        }
    }
}

/// Whether `case` (with `preamble` steps first) must have a process of its
/// own under `plan`: it says so, closes stdin, or leaves a message
/// unfinished (no barrier can follow it, and the next case would inherit
/// the bytes).
fn needs_own_process(case: &Case, preamble: usize, plan: Plan, framing: &Framing) -> bool {
    case.fresh
        || case.steps.iter().skip(preamble).any(|s| {
            let bytes = plan.bytes_in(&s.send, framing);
            s.close || s.exit.is_some() || !framing.ends_message(&bytes)
        })
}

/// A result for `case` under `plan`, before anything ran.
fn blank_result(case: &Case, plan: Plan) -> CaseResult {
    CaseResult::new(
        case.meta.id.clone(),
        plan.name().to_owned(),
        case.meta.title.clone(),
        case.meta.section.clone(),
    )
}

/// `case` as it runs in the options' dialect: probes and calls put in,
/// expectations read in the dialect, the handshake's steps first (how many
/// is the second value). A case that cannot run is its result instead.
fn prepare(case: &Case, plan: Plan, opts: &RunOptions) -> Result<(Case, usize), Box<CaseResult>> {
    let result = blank_result(case, plan);
    let lacking: Vec<&str> = case
        .meta
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
    if let Some(why) = inapplicable(case, handshake, &opts.framing) {
        return not_run(result, Verdict::NotApplicable, why);
    }
    if !lacking.is_empty() {
        let why = format!("the target lacks {}", lacking.join(", "));
        return not_run(result, Verdict::Skipped, why);
    }
    // A case that needs some answered request uses the dialect's probe,
    // one that needs a successful call the target's or the dialect's.
    let serving = opts.descriptor().serve;
    let mut case = case.clone();
    if probe::uses(&case, Slot::Probe) {
        match probe::probe(&serving) {
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
            None => probe::default_calls(&serving, &opts.without),
        };
        let need = probe::need(&case);
        // The unknown method stands in only where the dialect's probe is
        // one (plain JSON-RPC), and never for a call whose params matter.
        let stand_in =
            case.or_unknown_method && need <= probe::Need::Bare && serving.unknown_stands_in;
        match probe::choose(&calls, need) {
            Some(c) => case = probe::put(&case, Slot::Call, c),
            None if stand_in => case = probe::put(&case, Slot::Call, &probe::unknown_method()),
            None => return not_run(result, Verdict::Skipped, probe::missing(&calls, need)),
        }
    }
    // As the dialect reads it: MCP writes no `"id": null`; in the lenient
    // dialect `"jsonrpc"` may be absent from replies; LSP names no batch.
    let case = dialect::read_in(case, &serving);
    // A dialect's handshake opens the conversation; its steps come first.
    Ok(
        match opts.preambles.iter().find(|p| p.dialect == handshake) {
            Some(p) if case.handshake => (with_preamble(&case, p), p.steps.len()),
            _ => (case, 0),
        },
    )
}

/// Why `case` cannot apply in the dialect whose handshake is `handshake`
/// spoken in `framing`, if it cannot: its `not_in`, its own `dialect` or
/// `framing`, or what the dialect lacks ([`not_applicable`]).
pub fn inapplicable(case: &Case, handshake: &str, framing: &Framing) -> Option<String> {
    let declared = case
        .not_in
        .iter()
        .find(|(d, _)| d == handshake)
        .map(|(_, why)| why.clone());
    if let Some(why) = declared {
        return Some(format!("not applicable in the {handshake} dialect: {why}"));
    }
    let dialect = foreign_dialect(case, handshake);
    let serving = crate::dialects::find(handshake).map(|(d, _)| &d.serve);
    let own = || serving.and_then(|s| not_applicable(case, s));
    if let Some(why) = dialect.or_else(own) {
        return Some(format!("not applicable in the {handshake} dialect: {why}"));
    }
    foreign_framing(case, framing)
}

/// Why `case` is of another suite than the dialect whose handshake is
/// `handshake` in `framing`: it is written for another dialect or another
/// framing. A run leaves such cases out rather than report them N/A
/// (`rpcspec list --dialect` lists them where they belong).
pub fn foreign(case: &Case, handshake: &str, framing: &Framing) -> Option<String> {
    match foreign_dialect(case, handshake) {
        Some(why) => Some(format!("not applicable in the {handshake} dialect: {why}")),
        None => foreign_framing(case, framing),
    }
}

fn foreign_dialect(case: &Case, handshake: &str) -> Option<String> {
    let other = case.dialect.as_ref().filter(|d| *d != handshake)?;
    Some(format!("a case of the {other} dialect"))
}

fn foreign_framing(case: &Case, framing: &Framing) -> Option<String> {
    let own = case.framing().filter(|f| *f != framing.name())?;
    Some(format!(
        "not applicable in {} framing: the case is written for {own} framing",
        framing.name()
    ))
}

/// What [`execute`] hands back.
struct Executed {
    result: CaseResult,
    /// The process, when it was to be kept and can take another case.
    live: Option<Live>,
    /// It wrote what this case cannot have drawn ([`Run::foreign`]).
    foreign: bool,
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
) -> Executed {
    let started = Instant::now();
    let mut result = blank_result(case, plan);
    if let Some(halt) = opts.readiness.halted().filter(|_| live.is_none()) {
        halt.apply(&mut result);
        return Executed {
            result,
            live: None,
            foreign: false,
        };
    }
    let mut run = match live {
        Some(live) => Run::resume(live, opts, preamble),
        None => match Drive::spawn(target, &opts.budget) {
            Ok(running) => Run::new(running, opts, preamble, keep),
            Err(e) => {
                result.evidence.push(*e);
                result.settle();
                return Executed {
                    result,
                    live: None,
                    foreign: false,
                };
            }
        },
    };
    run.drive(case, plan, keep);
    let foreign = run.foreign();
    run.grade(case, &mut result);
    result.fit(&opts.budget);
    result.duration = started.elapsed();
    let live = run.into_live(result.verdict);
    Executed {
        result,
        live,
        foreign,
    }
}
