//! Many streams in one adapter process, over named pipes: for adapters
//! slow to start (an interpreter takes 50 ms or more; the decoder cases
//! are a thousand streams). The contract is in
//! `spec-cases/decoder/README.md`, "Many streams in one process".
//!
//! An adapter offered [`PIPES_ENV`] that answers [`PIPES_HELLO`] is kept
//! by the job: each stream is a new named pipe whose path goes to the
//! adapter's stdin, and the stream's bytes into the pipe under the plan,
//! so the decoder still reads a pipe with the plan's read boundaries and
//! an EOF. The stream's output is what the adapter writes up to its end
//! record. A stream that does not end cleanly (no end record, a timeout,
//! a failed write, a flood, an exit) ends the process, and a result that
//! is not a PASS is run again on a process of its own, whose verdict is
//! reported (with a note when the two differ): a shared adapter never
//! gives a verdict a process of its own would not. After two streams in a
//! row that did not end cleanly, the job stops sharing.

use std::{
    fs, io,
    os::unix::fs::DirBuilderExt,
    path::PathBuf,
    sync::atomic::{AtomicU64, Ordering},
    time::{Duration, Instant},
};

use super::{
    DecoderCase, DecoderPlan,
    run::{
        PIPES_ENV, conclude, grade_watched, hello_len, new_result, plan_writes, run_case, sent,
        startup, watch,
    },
};
use crate::{
    budget::Budget,
    drive::{Drive, Readiness},
    plan::SPLIT_PAUSE,
    report::{CaseResult, Evidence, Halt, Verdict},
    target::{Msg, Target},
};

/// How long a shared adapter may take to start and write its hello.
const HELLO_WITHIN: Duration = Duration::from_secs(10);

/// Streams in a row that may end badly before a job stops sharing.
const MAX_BROKEN: u32 = 2;

/// One job's adapter, kept across its cases when the adapter takes streams
/// over named pipes.
pub struct Session {
    fresh: bool,
    adapter: Option<Drive>,
    dir: Option<PipeDir>,
    streams: u64,
    broken: u32,
}

impl Session {
    /// A job's session; `fresh` runs every stream on a process of its own
    /// (`--fresh`).
    pub fn new(fresh: bool) -> Session {
        Session {
            fresh,
            adapter: None,
            dir: None,
            streams: 0,
            broken: 0,
        }
    }

    /// Whether streams still go to a shared adapter (when it takes them).
    pub fn sharing(&self) -> bool {
        !self.fresh
    }

    /// Starts the shared adapter if there is none, and waits for its
    /// hello; `None` if it cannot start or says something else.
    fn adapter(&mut self, target: &Target, budget: &Budget) -> Option<&mut Drive> {
        if self.adapter.is_none() {
            let mut drive = Drive::spawn_with(target, &[PIPES_ENV], budget).ok()?;
            if !hello(&mut drive) {
                return None;
            }
            self.adapter = Some(drive);
            self.streams = 0;
        }
        self.adapter.as_mut()
    }
}

/// Whether the adapter's first line, within [`HELLO_WITHIN`], is
/// [`PIPES_HELLO`] (and nothing follows it yet).
fn hello(drive: &mut Drive) -> bool {
    let until = Instant::now() + HELLO_WITHIN;
    let mut seen = Vec::new();
    while !seen.contains(&b'\n') {
        match drive.next(until) {
            Some(Msg::Stdout(bytes)) if seen.len() < 4096 => seen.extend_from_slice(&bytes),
            Some(Msg::Wrote | Msg::WriteFailed(_)) => {}
            _ => return false,
        }
    }
    hello_len(&seen) == Some(seen.len())
}

/// A private directory for named pipes, removed with what is in it.
struct PipeDir {
    path: PathBuf,
    made: u64,
}

impl PipeDir {
    fn new() -> io::Result<PipeDir> {
        static DIRS: AtomicU64 = AtomicU64::new(0);
        let path = std::env::temp_dir().join(format!(
            "rpcspec-{}-{}",
            std::process::id(),
            DIRS.fetch_add(1, Ordering::Relaxed)
        ));
        fs::DirBuilder::new().mode(0o700).create(&path)?;
        Ok(PipeDir { path, made: 0 })
    }

    /// A new named pipe in the directory.
    fn pipe(&mut self) -> io::Result<PathBuf> {
        self.made += 1;
        let path = self.path.join(format!("stream-{}", self.made));
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &path,
            rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
        )?;
        Ok(path)
    }
}

impl Drop for PipeDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.path);
    }
}

/// Runs one case under one plan on the job's shared adapter when it takes
/// streams over named pipes, else on a process of its own ([`run_case`]);
/// see the module's documentation for when a result is run again.
pub fn run_case_in(
    session: &mut Session,
    case: &DecoderCase,
    plan: &DecoderPlan,
    target: &Target,
    timeout: Duration,
    budget: &Budget,
    readiness: &Readiness,
) -> CaseResult {
    if let Some(halt) = readiness.halted() {
        let mut result = new_result(case, plan);
        halt.apply(&mut result);
        return result;
    }
    let result = run_case_shared(session, case, plan, target, timeout, budget);
    let silent = result.received.is_empty() && result.verdict == Verdict::Timeout;
    if !silent {
        readiness.heard();
    } else if startup(target, timeout).silent {
        // Silent given an empty stream, and given this one.
        readiness.unheard(Halt {
            verdict: Verdict::Timeout,
            message: format!(
                "the adapter wrote nothing to stdout and did not exit, given an empty stream or \
                 this case's ({:?} after its stdin closed, --timeout): does it read the stream \
                 from stdin, and write `{{\"end\": …}}` at its end (spec-cases/decoder/README.md)?",
                timeout
            ),
        });
    }
    result
}

/// [`run_case_in`], once the run is known to go on.
fn run_case_shared(
    session: &mut Session,
    case: &DecoderCase,
    plan: &DecoderPlan,
    target: &Target,
    timeout: Duration,
    budget: &Budget,
) -> CaseResult {
    if session.fresh || !startup(target, timeout).pipes {
        return run_case(case, plan, target, timeout, budget);
    }
    let earlier = session.streams;
    let shared = on_shared(session, case, plan, target, timeout, budget);
    if shared.as_ref().is_some_and(|r| r.verdict == Verdict::Pass) {
        return shared.expect("checked");
    }
    let mut own = run_case(case, plan, target, timeout, budget);
    if let Some(shared) = shared
        && shared.verdict != own.verdict
    {
        own.evidence.push(Evidence::note(
            Verdict::Pass,
            format!(
                "on an adapter process that had decoded {earlier} streams before it, this stream was {}; \
                 run again on a process of its own it is {}, which is the verdict",
                shared.verdict.as_str(),
                own.verdict.as_str()
            ),
        ));
    }
    own
}

/// The stream on the shared adapter: its result, or `None` when it could
/// not be run there (the adapter would not start or say hello, no pipe
/// could be made). A stream that did not end cleanly ends the adapter.
fn on_shared(
    session: &mut Session,
    case: &DecoderCase,
    plan: &DecoderPlan,
    target: &Target,
    timeout: Duration,
    budget: &Budget,
) -> Option<CaseResult> {
    let started = Instant::now();
    if session.dir.is_none() {
        session.dir = PipeDir::new().ok();
    }
    let Some(pipe) = session.dir.as_mut().and_then(|d| d.pipe().ok()) else {
        session.fresh = true;
        return None;
    };
    let Some(adapter) = session.adapter(target, budget) else {
        let _ = fs::remove_file(&pipe);
        session.adapter = None;
        session.fresh = true;
        return None;
    };
    adapter.begin_case();
    adapter.clear_stderr();
    let mut result = new_result(case, plan);
    // The adapter opens the pipe and reads it at once: a short pause puts
    // it in `read` before the pieces of a rechunking plan arrive.
    let writes = plan_writes(case, plan, || SPLIT_PAUSE);
    let deadline = sent(&mut result, &writes, timeout) + timeout;
    adapter.write_stream(&pipe, writes, timeout);
    let watched = watch(adapter, &mut result, case, deadline, timeout, false, true);
    let clean = !(watched.timed_out
        || watched.write_failed
        || watched.flooded
        || watched.stdout_closed
        || watched.exit.is_some()
        || !watched.written
        || watched.out.records.end.is_none()
        || watched.out.records.after_count > 0);
    grade_watched(case, &mut result, watched, adapter);
    result.stderr = String::from_utf8_lossy(&adapter.stderr_tail()).into_owned();
    let _ = fs::remove_file(&pipe);
    if clean {
        session.streams += 1;
        session.broken = 0;
    } else {
        session.adapter = None;
        session.broken += 1;
        session.fresh = session.broken >= MAX_BROKEN;
    }
    Some(conclude(case, result, budget, started))
}
