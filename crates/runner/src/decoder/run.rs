//! Running one stream case under one plan against an adapter process:
//! writing, reading its records until it exits or the deadline, grading.

use super::*;

pub(super) fn shown_bytes(bytes: &[u8]) -> Bytes {
    Bytes::head(bytes, SHOWN_BYTES)
}

/// How long each target took to start and exit on an empty stream.
pub(super) static STARTUPS: std::sync::Mutex<Vec<(Target, Duration)>> =
    std::sync::Mutex::new(Vec::new());

/// How long to wait before the first write of a rechunking plan, so the
/// target is already blocked in `read` when the pieces arrive one by one:
/// half as long again as the target takes to start and exit on an empty
/// stream, measured once per target (a Rust binary a few milliseconds, a
/// Python or Node adapter a few hundred). Without it, a split written
/// while the target is still starting reaches it as a single read and
/// tests nothing.
pub(super) fn startup(target: &Target, timeout: Duration) -> Duration {
    let mut known = STARTUPS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, d)) = known.iter().find(|(t, _)| t == target) {
        return *d;
    }
    let limit = timeout.min(Duration::from_secs(2));
    let measured = match Running::spawn(target) {
        Ok(mut running) => {
            running.close_stdin();
            let until = Instant::now() + limit;
            loop {
                match running.next(until) {
                    Some(Msg::Exited(_)) | None => break running.elapsed().min(limit),
                    Some(_) => {}
                }
            }
        }
        Err(_) => Duration::ZERO,
    };
    let pause = (measured + measured / 2).max(SPLIT_PAUSE);
    known.push((target.clone(), pause));
    pause
}

/// Runs one case under one plan against a decoder: writes the stream,
/// closes stdin, reads the adapter's output until it exits or the deadline
/// passes, and grades it.
pub fn run_case(
    case: &DecoderCase,
    plan: &DecoderPlan,
    target: &Target,
    timeout: Duration,
    budget: &Budget,
) -> CaseResult {
    let started = Instant::now();
    let mut result = CaseResult::new(
        case.id.clone(),
        plan.name(),
        case.title.clone(),
        case.section.clone(),
    );
    let note = Evidence::note;
    let mut running = match Drive::spawn(target, budget) {
        Ok(r) => r,
        Err(e) => {
            result.evidence.push(*e);
            result.settle();
            return result;
        }
    };
    let mut writes = plan.writes(&case.stream, &case.ends);
    // Pieces written before the target reads arrive as one read. Before a
    // split's second piece the writer waits until the target has read the
    // first (`target.rs`, `drain`); byte-wise and unpaused chunks wait for
    // the target to have started instead.
    if writes.len() > 1
        && !matches!(plan.kind(), "whole" | "split")
        && let Some(first) = writes.first_mut()
    {
        first.pause = startup(target, timeout);
    }
    let mut at = Duration::ZERO;
    for w in &writes {
        at += w.pause;
        result.sent.push(Sent {
            at_ms: at.as_millis() as u64,
            bytes: shown_bytes(&w.bytes),
        });
    }
    // The timeout runs from when the last write is done (or due, if the
    // writes never report): the pauses, and the writer's waits for a
    // slow-starting target to read a split's first piece, are the
    // runner's, not the target's.
    let drains = writes.iter().filter(|w| !w.pause.is_zero()).count() as u32;
    let mut deadline = Instant::now() + at + timeout + crate::target::DRAIN_MAX * drains;
    let mut written = writes.is_empty();
    if !written {
        running.write(writes);
    }
    running.close_stdin();

    let slots = expected(&case.stream);
    let mut framer = Framer::new(Config::default().blank_lines(BlankLines::Report));
    let mut out = Output::new(4 * slots.len() + 64);
    let (mut stdout_closed, mut exit) = (false, None);
    let mut timed_out = false;
    let mut grace: Option<Instant> = None;
    loop {
        if stdout_closed && exit.is_some() {
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
            result.evidence.push(note(
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
            grace = Some(Instant::now() + KILL_GRACE);
        }
        let elapsed = running.elapsed();
        match msg {
            Msg::Stdout(bytes) => framer.push(&bytes, |e| out.event(e, elapsed)),
            Msg::StdoutClosed => stdout_closed = true,
            Msg::Exited(status) => exit = Some(status),
            Msg::Wrote | Msg::WriteFailed(_) => {
                written = true;
                if grace.is_none() {
                    deadline = Instant::now() + timeout;
                }
            }
        }
    }
    let elapsed = running.elapsed();
    framer.finish(|e| out.event(e, elapsed));
    let (records, received, findings) = out.finish();
    result.received = received;
    result.evidence.extend(findings);

    if let Some(status) = exit {
        result.exit = Some(describe_exit(status));
        if !status.success() && !running.killed() && records.end.is_none() {
            result.evidence.push(note(
                Verdict::Crash,
                format!(
                    "the decoder ended ({}) without writing its end record",
                    describe_exit(status)
                ),
            ));
        }
    }
    if !timed_out || records.before_count > 0 || records.end.is_some() {
        result.evidence.extend(grade(&slots, &records));
    }
    result.stderr = String::from_utf8_lossy(&running.stderr_tail()).into_owned();
    drop(running);

    cap_by_level(case.level, &mut result.evidence);
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
    pub(super) received: Vec<Received>,
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
            received: Vec::new(),
            findings: Vec::new(),
            not_records: 0,
            surrogates: 0,
        }
    }

    /// One event of the framer reading stdout, `at` after the start.
    pub(super) fn event(&mut self, event: Event<'_>, at: Duration) {
        let (number, offset, bytes) = match &event {
            Event::Line(l) => (l.number, l.offset, l.bytes.as_ref()),
            Event::Problem(p) => (p.number, p.offset, p.bytes.as_ref()),
        };
        let bom = matches!(&event, Event::Problem(p) if p.kind == ProblemKind::Bom);
        if self.received.len() < MAX_RECEIVED && !bom {
            self.received.push(Received {
                at_ms: at.as_millis() as u64,
                line: number,
                offset,
                bytes: shown_bytes(bytes),
            });
        }
        let text = match &event {
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
        (self.records, self.received, self.findings)
    }
}
