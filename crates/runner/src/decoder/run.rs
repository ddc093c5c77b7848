//! Running one stream case under one plan against an adapter process:
//! writing, reading its records until it exits or the deadline, grading.

use std::borrow::Cow;
use std::time::{Duration, Instant};

use crate::capture::{Arrival, Capture, Framing, Kept};
use rpcspec_framer::{BlankLines, Config, Event, ProblemKind};
use serde_json::Value;

use super::{
    Budget, Bytes, CONTRACT, CaseResult, DecoderCase, DecoderPlan, Drive, END, Evidence, Item,
    KILL_GRACE, Level, MAX_MISMATCHES, MAX_RECEIVED, Msg, PlanWrite, Received, Records, Running,
    SHOWN_BYTES, SPLIT_PAUSE, Sent, Target, UTF8, Verdict, contract_record, describe_exit,
    evidence, expected, grade, replace_lone_surrogates, show_bytes,
};

pub(super) fn shown_bytes(bytes: &[u8]) -> Bytes {
    Bytes::head(bytes, SHOWN_BYTES)
}

/// What was measured of each target once: how long it takes to start and
/// exit on an empty stream, and whether it takes streams over named pipes.
pub(super) static STARTUPS: std::sync::Mutex<Vec<(Target, Startup)>> =
    std::sync::Mutex::new(Vec::new());

/// What [`startup`] measured of a target.
#[derive(Debug, Clone, Copy)]
pub(super) struct Startup {
    /// How long to wait before the first write of a rechunking plan on a
    /// new process.
    pub(super) pause: Duration,
    /// Whether the adapter answered [`PIPES_ENV`] with [`PIPES_HELLO`].
    pub(super) pipes: bool,
    /// Whether, given an empty stream, it neither wrote nor exited within
    /// the probe's limit: a first case that also hears nothing halts the
    /// run.
    pub(super) silent: bool,
}

/// The environment variable that offers an adapter many streams over
/// named pipes (`spec-cases/decoder/README.md`, "Many streams in one
/// process"), and its value.
pub const PIPES_ENV: (&str, &str) = ("RPCSPEC_STREAMS", "pipes");

/// The first line of an adapter that takes the offer.
pub const PIPES_HELLO: &str = r#"{"streams": "pipes"}"#;

/// The length of `out`'s first line, its newline included, if that line
/// is [`PIPES_HELLO`] (as JSON, `\r\n` accepted).
pub(super) fn hello_len(out: &[u8]) -> Option<usize> {
    let end = out.iter().position(|&b| b == b'\n')?;
    let line = &out[..end];
    serde_json::from_slice::<Value>(line.strip_suffix(b"\r").unwrap_or(line))
        .is_ok_and(|v| v == serde_json::json!({"streams": "pipes"}))
        .then_some(end + 1)
}

/// The target's [`Startup`], measured once per target on a process given
/// an empty stream (and the [`PIPES_ENV`] offer): the pause is half as
/// long again as it took to start and exit (a Rust binary a few
/// milliseconds, a Python or Node adapter a few hundred), so the target is
/// already blocked in `read` when the pieces arrive one by one. Without it,
/// a split written while the target is still starting reaches it as a
/// single read and tests nothing.
pub(super) fn startup(target: &Target, timeout: Duration) -> Startup {
    let mut known = STARTUPS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, s)) = known.iter().find(|(t, _)| t == target) {
        return *s;
    }
    let limit = timeout.min(Duration::from_secs(2));
    let (mut measured, mut first_line) = (Duration::ZERO, Vec::new());
    let mut silent = false;
    if let Ok(mut running) = Running::spawn_with(target, &[PIPES_ENV]) {
        running.close_stdin();
        let until = Instant::now() + limit;
        let (mut exited, mut closed) = (false, false);
        // Its exit and the end of its stdout come in either order.
        while !(exited && closed) {
            match running.next(until) {
                None => break,
                Some(Msg::Exited(_)) => {
                    exited = true;
                    measured = running.elapsed();
                }
                Some(Msg::StdoutClosed) => closed = true,
                // The first line is all that is looked at (and bounded).
                Some(Msg::Stdout(bytes)) if first_line.len() < 4096 => {
                    first_line.extend_from_slice(&bytes)
                }
                Some(_) => {}
            }
        }
        if !exited {
            measured = limit;
            silent = first_line.is_empty();
        }
    }
    let found = Startup {
        pause: (measured + measured / 2).max(SPLIT_PAUSE),
        pipes: hello_len(&first_line).is_some(),
        silent,
    };
    known.push((target.clone(), found));
    found
}

/// Runs one case under one plan against a decoder on a process of its
/// own: writes the stream, closes stdin, reads the adapter's output until
/// it exits or the deadline passes, and grades it.
pub fn run_case(
    case: &DecoderCase,
    plan: &DecoderPlan,
    target: &Target,
    timeout: Duration,
    budget: &Budget,
) -> CaseResult {
    let started = Instant::now();
    let mut result = new_result(case, plan);
    let mut running = match Drive::spawn(target, budget) {
        Ok(r) => r,
        Err(e) => {
            result.evidence.push(*e);
            result.settle();
            return result;
        }
    };
    let writes = plan_writes(case, plan, || startup(target, timeout).pause);
    let deadline = sent(&mut result, &writes, timeout);
    let written = writes.is_empty();
    if !written {
        running.write(writes);
    }
    running.close_stdin();
    let watched = watch(
        &mut running,
        &mut result,
        case,
        deadline,
        timeout,
        written,
        false,
    );
    grade_watched(case, &mut result, watched, &running);
    result.stderr = String::from_utf8_lossy(&running.stderr_tail()).into_owned();
    drop(running);
    conclude(case, result, budget, started)
}

/// The writes of `case` under `plan`. Pieces written before the target
/// reads arrive as one read: before a split's second piece the writer
/// waits until the target has read the first (`target.rs`, `drain`), and
/// the first write of the other rechunking plans (byte-wise, chunks) waits
/// `first_pause()` for the target to be reading.
pub(super) fn plan_writes(
    case: &DecoderCase,
    plan: &DecoderPlan,
    first_pause: impl FnOnce() -> Duration,
) -> Vec<PlanWrite> {
    let mut writes = plan.writes(&case.stream, &case.ends);
    if writes.len() > 1
        && !matches!(plan.kind(), "whole" | "split")
        && let Some(first) = writes.first_mut()
    {
        first.pause = first_pause();
    }
    writes
}

/// A result for `case` under `plan`, with nothing in it yet.
pub(super) fn new_result(case: &DecoderCase, plan: &DecoderPlan) -> CaseResult {
    CaseResult::new(
        case.meta.id.clone(),
        plan.name(),
        case.meta.title.clone(),
        case.meta.section.clone(),
    )
}

/// Records `writes` as sent, and returns the deadline until the writes are
/// reported done: the timeout runs from when the last write is done (or
/// due, if the writes never report), since the pauses, and the writer's
/// waits for a slow-starting target to read a split's first piece, are the
/// runner's, not the target's.
pub(super) fn sent(result: &mut CaseResult, writes: &[PlanWrite], timeout: Duration) -> Instant {
    let mut at = Duration::ZERO;
    for w in writes {
        at += w.pause;
        result.sent.push(Sent {
            at_ms: at.as_millis() as u64,
            bytes: shown_bytes(&w.bytes),
        });
    }
    let drains = writes.iter().filter(|w| !w.pause.is_zero()).count() as u32;
    Instant::now() + at + timeout + crate::target::DRAIN_MAX * drains
}

/// What came of one stream: the adapter's output read, and how the
/// process and the writes ended.
pub(super) struct Watched {
    pub(super) out: Output,
    pub(super) exit: Option<std::process::ExitStatus>,
    pub(super) stdout_closed: bool,
    pub(super) timed_out: bool,
    /// The writes were reported done (or failed).
    pub(super) written: bool,
    pub(super) write_failed: bool,
    pub(super) flooded: bool,
}

/// Reads the adapter's output for one stream of `case` until it has
/// closed stdout and exited or, with `until_end` (a process that takes
/// stream after stream), until it wrote its end record after the stream
/// was written; at most until `deadline`, which is moved to `timeout`
/// after the writes are reported done. On the deadline the process is
/// killed and what it left is collected for [`KILL_GRACE`].
pub(super) fn watch(
    running: &mut Drive,
    result: &mut CaseResult,
    case: &DecoderCase,
    mut deadline: Instant,
    timeout: Duration,
    mut written: bool,
    until_end: bool,
) -> Watched {
    let slots = expected(&case.stream).len();
    let mut capture = Capture::new(Framing::Ndjson(
        Config::default().with_blank_lines(BlankLines::Report),
    ));
    let mut out = Output::new(4 * slots + 64);
    let (mut stdout_closed, mut exit) = (false, None);
    let (mut timed_out, mut write_failed, mut flooded) = (false, false, false);
    let mut grace: Option<Instant> = None;
    let started = Instant::now();
    loop {
        if stdout_closed && exit.is_some()
            || until_end && written && grace.is_none() && out.records.end.is_some()
        {
            break;
        }
        let until = grace.unwrap_or(deadline);
        let Some(msg) = running.next(until) else {
            if grace.is_some() || Instant::now() < until {
                // Collected what the kill left, or nothing more can come.
                break;
            }
            timed_out = true;
            let what = if !written {
                "read the whole stream".to_owned()
            } else if until_end {
                "written its end record (the stream was written and its pipe closed)".to_owned()
            } else {
                format!(
                    "{} (the stream was written and its stdin closed)",
                    if stdout_closed {
                        "exited"
                    } else {
                        "closed its stdout"
                    }
                )
            };
            result.evidence.push(Evidence::note(
                Verdict::Timeout,
                format!(
                    "the decoder had not {what} {timeout:?} after the last write was due; killed"
                ),
            ));
            running.kill();
            grace = Some(Instant::now() + KILL_GRACE);
            continue;
        };
        if let Some(flood) = running.take_flood() {
            result.evidence.push(flood);
            flooded = true;
            grace = Some(Instant::now() + KILL_GRACE);
        }
        // Times in the report run from the start of this stream.
        let elapsed = if until_end {
            started.elapsed()
        } else {
            running.elapsed()
        };
        match msg {
            Msg::Stdout(bytes) => capture.push(&bytes, elapsed, |a| out.take(a)),
            Msg::StdoutClosed => stdout_closed = true,
            Msg::Exited(status) => exit = Some(status),
            Msg::Wrote | Msg::WriteFailed(_) => {
                write_failed |= matches!(msg, Msg::WriteFailed(_));
                written = true;
                if grace.is_none() {
                    deadline = Instant::now() + timeout;
                }
            }
        }
    }
    let elapsed = running.elapsed();
    capture.finish(elapsed, |a| out.take(a));
    Watched {
        out,
        exit,
        stdout_closed,
        timed_out,
        written,
        write_failed,
        flooded,
    }
}

/// Grades what [`watch`] saw into `result`.
pub(super) fn grade_watched(
    case: &DecoderCase,
    result: &mut CaseResult,
    watched: Watched,
    running: &Drive,
) {
    let slots = expected(&case.stream);
    let (records, received, findings) = watched.out.finish();
    result.received = received;
    result.evidence.extend(findings);
    if let Some(status) = watched.exit {
        result.exit = Some(describe_exit(status));
        if !status.success() && !running.killed() && records.end.is_none() {
            result.evidence.push(Evidence::note(
                Verdict::Crash,
                format!(
                    "the decoder ended ({}) without writing its end record",
                    describe_exit(status)
                ),
            ));
        }
    }
    if !watched.timed_out || records.before_count > 0 || records.end.is_some() {
        result.evidence.extend(grade(&slots, &records));
    }
}

/// The result's verdict, under the case's level and the budget.
pub(super) fn conclude(
    case: &DecoderCase,
    mut result: CaseResult,
    budget: &Budget,
    started: Instant,
) -> CaseResult {
    cap_by_level(case.meta.level, &mut result.evidence);
    result.settle();
    result.fit(budget);
    result.duration = started.elapsed();
    result
}

/// A case's level caps the FAILs about its stream's records (SHOULD makes
/// them NON-STRICT, INFO a pass): the level says how firmly the specs ask
/// for the reading the case is about. A wrong or missing end record and
/// output that breaks the adapter contract are FAILs at every level: no
/// reading of the stream excuses them.
pub(super) fn cap_by_level(level: Level, evidence: &mut [Evidence]) {
    for e in evidence {
        let about_records = e.rule.as_ref().is_some_and(|r| {
            r.id != END.id && r.id != CONTRACT.id && !r.id.starts_with("process.")
        });
        if e.verdict == Verdict::Fail && about_records {
            match level {
                Level::Must => {}
                Level::Should => e.verdict = Verdict::NonStrict,
                _ => e.verdict = Verdict::Pass,
            }
        }
    }
}

/// What an adapter's stdout says, read line by line as it arrives: its
/// contract records (within the bounds of [`Records`]), the first
/// [`MAX_RECEIVED`] lines for the report, and the findings about lines
/// that are not contract records or carry lone surrogates, the first
/// [`MAX_MISMATCHES`] of each kind one by one and the rest counted. An
/// adapter that loops printing `{}` thus costs bounded memory up to the
/// output cap.
pub(super) struct Output {
    pub(super) records: Records,
    pub(super) received: Kept,
    pub(super) findings: Vec<Evidence>,
    /// Lines that are not contract records: how many.
    pub(super) not_records: usize,
    /// Lines with lone surrogates: how many.
    pub(super) surrogates: usize,
}

impl Output {
    pub(super) fn new(keep: usize) -> Output {
        Output {
            records: Records::new(keep),
            received: Kept::new(MAX_RECEIVED, usize::MAX, SHOWN_BYTES),
            findings: Vec::new(),
            not_records: 0,
            surrogates: 0,
        }
    }

    /// One message or problem read from stdout.
    pub(super) fn take(&mut self, arrival: Arrival<'_>) {
        let number = arrival.number();
        let bom = matches!(&arrival.event, Event::Problem(p) if p.kind == ProblemKind::Bom);
        if !bom {
            self.received.keep(&arrival);
        }
        let text = match &arrival.event {
            Event::Line(l) => Cow::Borrowed(l.as_str().unwrap_or_default()),
            Event::Problem(p) if p.kind == ProblemKind::Truncated => {
                // The record is still read: only its newline is missing.
                let e = evidence(
                    Verdict::NonStrict,
                    &CONTRACT,
                    format!("stdout line {number}: {}; read anyway", p.kind),
                );
                self.findings.push(e);
                String::from_utf8_lossy(&p.bytes)
            }
            Event::Problem(p) => {
                self.not_record(evidence(
                    Verdict::Fail,
                    &CONTRACT,
                    format!("stdout line {number}: {}", p.kind),
                ));
                return;
            }
        };
        let repaired = replace_lone_surrogates(&text);
        if repaired.is_some() {
            self.surrogates += 1;
            if self.surrogates <= MAX_MISMATCHES {
                self.findings.push(evidence(
                    Verdict::Fail,
                    &UTF8,
                    format!(
                        "stdout line {number} holds lone surrogates (such as Python's surrogateescape makes of invalid bytes): the decoder passed bytes that are not UTF-8 into a value (read here as U+FFFD)"
                    ),
                ));
            }
        }
        match contract_record(repaired.as_deref().unwrap_or(&text)) {
            Ok(said) => self.records.push(Item { said, line: number }),
            Err(why) => {
                let mut e = evidence(
                    Verdict::Fail,
                    &CONTRACT,
                    format!("stdout line {number} is not a contract record: {why}"),
                );
                e.actual = vec![show_bytes(text.as_bytes())];
                self.not_record(e);
            }
        }
    }

    pub(super) fn not_record(&mut self, e: Evidence) {
        self.not_records += 1;
        if self.not_records <= MAX_MISMATCHES {
            self.findings.push(e);
        }
    }

    /// The records, the lines kept for the report, and the findings.
    pub(super) fn finish(mut self) -> (Records, Vec<Received>, Vec<Evidence>) {
        if let Some(more) = self.not_records.checked_sub(MAX_MISMATCHES)
            && more > 0
        {
            self.findings.push(evidence(
                Verdict::Fail,
                &CONTRACT,
                format!("and {more} more stdout lines that are not contract records"),
            ));
        }
        if let Some(more) = self.surrogates.checked_sub(MAX_MISMATCHES)
            && more > 0
        {
            self.findings.push(evidence(
                Verdict::Fail,
                &UTF8,
                format!("and {more} more stdout lines with lone surrogates"),
            ));
        }
        (self.records, self.received.into_vec(), self.findings)
    }
}
