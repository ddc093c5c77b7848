//! One run of a producer (a process, or an HTTP response), recorded record
//! by record into an [`Observation`]; `grade.rs` holds the checks.

use std::{
    collections::VecDeque,
    process::ExitStatus,
    time::{Duration, Instant},
};

use rpcspec_framer::{BlankLines, Bom, Config, Event, Mode, ProblemKind};
use serde_json::Value;

use super::{Profile, Scenario, Source};
use crate::{
    budget::Budget,
    capture::{Arrival, Capture, Framing, Kept},
    drive::{self, Drive, EXIT_GRACE},
    gather::{Gather, This},
    http::{self, BodyEnd, BodyFraming, Url},
    plan::Write,
    report::{Bytes, Sent},
    target::{Msg, Running, describe_exit},
};

/// Most lines kept for a report, and most bytes of them: beyond, lines
/// are counted, graded, and left out.
const MAX_RECEIVED: usize = 2000;
const MAX_RECEIVED_BYTES: usize = 1 << 20;

/// One record of the stream: a JSON value (on one line, or pretty-printed
/// over several).
#[derive(Debug, Clone)]
pub struct Record {
    /// 1-based line number of its first line.
    pub line: u64,
    /// Byte offset of its first line.
    pub offset: u64,
    /// Its text.
    pub text: String,
    /// Its value.
    pub value: Value,
    /// The last line, when it spans several.
    pub last_line: Option<u64>,
    /// Milliseconds since the start when its last byte arrived.
    pub at_ms: u64,
    /// Which read (stdio) or body piece (HTTP) completed it, from 0.
    pub piece: usize,
}

/// A framing problem, where it is.
#[derive(Debug, Clone)]
pub struct Problem {
    pub(super) kind: ProblemKind,
    pub(super) line: u64,
    pub(super) offset: u64,
    pub(super) len: usize,
}

/// What the HTTP exchange looked like.
#[derive(Debug, Clone)]
pub struct HttpSeen {
    pub(super) status: u16,
    pub(super) status_line: String,
    pub(super) content_type: Option<String>,
    pub(super) framing: BodyFraming,
    pub(super) end: BodyEnd,
    /// How many pieces (chunks or reads) the body came in.
    pub pieces: usize,
    pub(super) body: Vec<u8>,
    /// The response to the profile's bad request.
    pub(super) bad: Option<Result<Refusal, String>>,
}

/// A response to the profile's bad request: status, content type, body.
type Refusal = (u16, Option<String>, Vec<u8>);

/// How the stdin gate went (stdio, profiles with `stdin = "open"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Gate {
    /// stdin was closed after the input (profile `stdin = "close"`), or HTTP.
    #[default]
    NotUsed,
    /// The end record (or the exit) came while stdin was open.
    Passed,
    /// stdin was closed when the start-up time passed with nothing
    /// written, and the stream ended after.
    Held,
    /// stdin was closed when the start-up time passed, and the stream
    /// never ended.
    NeverEnded,
}

/// Everything one run produced.
#[derive(Debug, Clone, Default)]
pub struct Observation {
    pub(super) sent: Vec<Sent>,
    /// The lines kept for the report; the rest, graded, are counted.
    pub(super) received: Kept,
    /// No response head came before the deadline (HTTP).
    pub(super) no_head: bool,
    pub(super) stderr: String,
    pub(super) exit: Option<String>,
    pub(super) duration: Duration,
    pub(super) timeout: Duration,
    /// The start-up time: how long the producer had for its first byte.
    pub(super) startup: Duration,
    /// Why the command cannot make control requests, when it cannot.
    pub(super) control_off: Option<String>,
    /// The run could not be made (spawn or connect failed).
    pub(super) error: Option<String>,
    /// The producer wrote more than the budget lets a run read, and was
    /// stopped: what it wrote before is graded, and every check fails.
    pub(super) flood: Option<String>,
    pub(super) timed_out: bool,
    /// The records, in order.
    pub records: Vec<Record>,
    pub(super) non_json: Vec<(u64, u64, String)>,
    pub(super) problems: Vec<Problem>,
    /// Index of the first end record.
    pub(super) end_index: Option<usize>,
    pub(super) status: Option<ExitStatus>,
    /// The process did not exit within the grace after its stdin closed.
    pub(super) lingered: bool,
    /// That grace: [`EXIT_GRACE`], or twice the time to the first byte if
    /// longer (a producer slow to start is slow to stop).
    pub(super) exit_grace: Duration,
    pub(super) stdout_closed: bool,
    pub(super) gate: Option<Gate>,
    /// Control requests: (record index, whether the runner answered).
    pub(super) controls: Vec<(usize, bool)>,
    pub(super) http: Option<HttpSeen>,
}

/// Frames a stream as it arrives and turns its lines into records.
struct Collector {
    capture: Capture,
    /// Lines that may be one pretty-printed value (`gather.rs`), with
    /// their line number and offset.
    gather: Gather<(u64, u64)>,
    obs: Observation,
    type_field: String,
    end_types: Vec<String>,
    piece: usize,
}

impl Collector {
    fn new(profile: &Profile, mode: Mode) -> Collector {
        let config = Config::default()
            .with_mode(mode)
            .with_blank_lines(BlankLines::Report)
            .with_bom(Bom::Report);
        Collector {
            capture: Capture::new(Framing::Ndjson(config)),
            gather: Gather::new(),
            obs: Observation {
                received: Kept::new(MAX_RECEIVED, MAX_RECEIVED_BYTES, usize::MAX),
                ..Observation::default()
            },
            type_field: profile.type_field.clone(),
            end_types: profile.end.clone(),
            piece: 0,
        }
    }

    /// Takes one read's bytes; returns the indexes of new records.
    fn push(&mut self, bytes: &[u8], at_ms: u64) -> Vec<usize> {
        let before = self.obs.records.len();
        let at = Duration::from_millis(at_ms);
        for arrival in self.capture.push_owned(bytes, at) {
            self.event(arrival);
        }
        self.piece += 1;
        (before..self.obs.records.len()).collect()
    }

    fn finish(&mut self, at_ms: u64) -> Vec<usize> {
        let before = self.obs.records.len();
        for arrival in self.capture.finish_owned(Duration::from_millis(at_ms)) {
            self.event(arrival);
        }
        self.flush_pending();
        (before..self.obs.records.len()).collect()
    }

    fn event(&mut self, arrival: Arrival<'static>) {
        let at_ms = arrival.at.as_millis() as u64;
        let keep = match &arrival.event {
            Event::Line(_) => true,
            Event::Problem(p) => !p.bytes.is_empty() || !matches!(p.kind, ProblemKind::Blank),
        };
        if keep {
            self.obs.received.keep(&arrival);
        }
        match arrival.event {
            Event::Line(line) => {
                let text = String::from_utf8_lossy(&line.bytes).into_owned();
                self.line(line.number, line.offset, text, at_ms);
            }
            Event::Problem(p) => {
                let len = match p.kind {
                    ProblemKind::Overlong { len, .. } => len as usize,
                    _ => p.bytes.len(),
                };
                match p.kind {
                    // The rest of the line is still delivered as a line.
                    ProblemKind::Bom => {}
                    // An unterminated tail that is a whole record still
                    // counts as one (the terminator is its own check).
                    ProblemKind::Truncated => {
                        let text = String::from_utf8_lossy(&p.bytes).into_owned();
                        if serde_json::from_str::<Value>(&text).is_ok() && !self.gather.holding() {
                            self.line(p.number, p.offset, text, at_ms);
                        } else {
                            self.flush_pending();
                        }
                    }
                    _ => self.flush_pending(),
                }
                self.obs.problems.push(Problem {
                    kind: p.kind,
                    line: p.number,
                    offset: p.offset,
                    len,
                });
            }
        }
    }

    fn line(&mut self, number: u64, offset: u64, text: String, at_ms: u64) {
        let value = serde_json::from_str::<Value>(&text).ok();
        let offered = self.gather.offer((number, offset), &text, value.is_some());
        let released = offered.released.into_iter();
        self.obs
            .non_json
            .extend(released.map(|((n, o), t)| (n, o, t)));
        match (offered.this, value) {
            (This::Alone((n, o)), Some(value)) => self.record(n, o, text, value, None, at_ms),
            (This::Alone((n, o)), None) => self.obs.non_json.push((n, o, text)),
            (This::Held, _) => {}
            (This::Joined(lines, joined), _) => {
                let ((first, offset), (last, _)) = (lines[0], lines[lines.len() - 1]);
                match serde_json::from_str::<Value>(&joined) {
                    Ok(value) => self.record(first, offset, joined, value, Some(last), at_ms),
                    // Deeper than serde_json's limit, say: not a record.
                    Err(_) => self.obs.non_json.push((first, offset, joined)),
                }
            }
        }
    }

    fn flush_pending(&mut self) {
        let held = self.gather.finish().into_iter();
        self.obs.non_json.extend(held.map(|((n, o), t)| (n, o, t)));
    }

    fn record(
        &mut self,
        line: u64,
        offset: u64,
        text: String,
        value: Value,
        last_line: Option<u64>,
        at_ms: u64,
    ) {
        let is_end = value
            .get(&self.type_field)
            .and_then(Value::as_str)
            .is_some_and(|t| self.end_types.iter().any(|e| e == t));
        if is_end && self.obs.end_index.is_none() {
            self.obs.end_index = Some(self.obs.records.len());
        }
        self.obs.records.push(Record {
            line,
            offset,
            text,
            value,
            last_line,
            at_ms,
            piece: self.piece,
        });
    }
}

/// A scenario's input as it is written: each step's bytes and the ids of
/// the control requests it sends that await an answer. One step, unless
/// the scenario is paced: then a step ends at each well-formed request.
fn steps(scenario: &Scenario) -> std::collections::VecDeque<(Vec<u8>, Vec<Value>)> {
    let mut steps = std::collections::VecDeque::new();
    let mut step: (Vec<u8>, Vec<Value>) = Default::default();
    for (i, line) in scenario.input.iter().enumerate() {
        step.0.extend_from_slice(line.as_bytes());
        step.0.push(b'\n');
        let request = scenario
            .requests
            .iter()
            .find(|r| r.line == i && r.well_formed);
        if let Some(id) = request.and_then(|r| r.id.clone()) {
            step.1.push(id);
            if scenario.paced {
                steps.push_back(std::mem::take(&mut step));
            }
        }
    }
    if !step.0.is_empty() || steps.is_empty() {
        steps.push_back(step);
    }
    steps
}

/// How long a run may take: `startup` for the first byte (stdio), then
/// `timeout` for the stream.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// The stream's deadline, from its first byte (stdio) or the request
    /// (HTTP).
    pub timeout: Duration,
    /// How long a process may take to write its first byte; with stdin
    /// open, the stdin gate closes stdin when it passes.
    pub startup: Duration,
}

/// Runs one scenario against the source and records everything.
pub fn observe(
    profile: &Profile,
    scenario: &Scenario,
    source: &Source,
    limits: Limits,
    budget: &Budget,
) -> Observation {
    let mut obs = match source {
        Source::Command(target) => {
            let mut obs = observe_stdio(profile, scenario, target, limits, budget);
            obs.control_off = profile.control_off(&target.argv);
            obs
        }
        Source::Url(url) => observe_http(profile, scenario, url, limits.timeout, budget),
    };
    obs.timeout = limits.timeout;
    obs.startup = limits.startup;
    obs
}

fn observe_stdio(
    profile: &Profile,
    scenario: &Scenario,
    target: &crate::target::Target,
    limits: Limits,
    budget: &Budget,
) -> Observation {
    let started = Instant::now();
    let mut c = Collector::new(profile, Mode::Lines);
    let running = match Drive::spawn(target, budget) {
        Ok(r) => r,
        Err(e) => {
            c.obs.error = Some(e.message);
            return c.obs;
        }
    };
    let mut run = Stdio::start(profile, scenario, running, c, started, limits);
    while run.turn() {}
    run.finish(started)
}

/// Milliseconds since the process started.
fn ms(r: &Running) -> u64 {
    r.elapsed().as_millis() as u64
}

/// A producer run over stdio as [`observe_stdio`] drives it: the process,
/// what is collected of its stream, what is left to write, and when it
/// is due to end.
struct Stdio<'a> {
    profile: &'a Profile,
    scenario: &'a Scenario,
    running: Drive,
    c: Collector,
    /// The input still to write, a step at a time ([`steps`]).
    steps: VecDeque<(Vec<u8>, Vec<Value>)>,
    /// A scenario without a turn: the control requests sent whose answer
    /// it awaits before stdin closes.
    awaited: Option<Vec<Value>>,
    /// When stdin was closed: the process has the exit grace from then.
    closed_at: Option<Instant>,
    /// Start-up's end, when the gate closes stdin.
    gate_at: Instant,
    /// The gate closes stdin when start-up passes only while the producer
    /// has written nothing at all: a slow stream that has begun is left
    /// be, and a cold start within the start-up time is not a held stream.
    gate_armed: bool,
    /// The stream's deadline, from its first byte once it has come.
    deadline: Instant,
    timeout: Duration,
    /// Whether the first byte came.
    begun: bool,
    exited: bool,
}

impl<'a> Stdio<'a> {
    /// Writes the input (all of it, or paced, up to its first control
    /// request), and sets the gate and the deadline.
    fn start(
        profile: &'a Profile,
        scenario: &'a Scenario,
        running: Drive,
        c: Collector,
        started: Instant,
        limits: Limits,
    ) -> Stdio<'a> {
        let Limits { timeout, startup } = limits;
        // Start-up has its own time until the first byte; the stream then
        // has the timeout from its first byte, so a slow start does not eat
        // it. With stdin open, the gate closes stdin when start-up passes
        // with not a byte written, and the stream then has the timeout to
        // come.
        let deadline = started
            + startup
            + if profile.stdin_open {
                timeout
            } else {
                Duration::ZERO
            };
        // The input goes at once, or, paced, up to each control request in
        // turn: the next once every request sent is answered.
        let mut steps = steps(scenario);
        let (input, first_ids) = steps.pop_front().unwrap_or_default();
        let mut run = Stdio {
            profile,
            scenario,
            running,
            c,
            steps,
            // A scenario without a turn: stdin closes once every control
            // request it sent is answered (at once if none awaits an
            // answer).
            awaited: (!scenario.turn).then_some(first_ids),
            closed_at: None,
            gate_at: started + startup,
            gate_armed: profile.stdin_open,
            deadline,
            timeout,
            begun: false,
            exited: false,
        };
        if !input.is_empty() {
            run.send(input);
        }
        run.c.obs.gate = Some(if profile.stdin_open {
            Gate::Passed
        } else {
            run.running.close_stdin();
            Gate::NotUsed
        });
        if run.awaited.as_ref().is_some_and(Vec::is_empty) {
            run.running.close_stdin();
            run.closed_at = Some(Instant::now());
        }
        // The exit grace grows with the producer's start-up (its first
        // byte).
        run.c.obs.exit_grace = EXIT_GRACE;
        run
    }

    /// Writes `bytes` to the process's stdin, and records them sent.
    fn send(&mut self, bytes: Vec<u8>) {
        self.c.obs.sent.push(Sent {
            at_ms: ms(&self.running),
            bytes: Bytes::new(&bytes),
        });
        self.running.write(vec![Write {
            pause: Duration::ZERO,
            bytes,
        }]);
    }

    /// One turn of the loop: what the process sends next, or the deadline,
    /// the exit grace or the gate coming due. `false`: the run is over.
    fn turn(&mut self) -> bool {
        if self.exited && self.c.obs.stdout_closed {
            return false;
        }
        let now = Instant::now();
        let mut wake = self.deadline;
        if let Some(t) = self.closed_at {
            wake = wake.min(t + self.c.obs.exit_grace);
        }
        if self.gate_armed && !self.running.stdin_closed() {
            wake = wake.min(self.gate_at);
        }
        if now >= wake {
            return self.due(now);
        }
        let msg = self.running.next(wake);
        // A flood's last read, cut at the cap, is taken before it stops.
        let flood = self.running.take_flood();
        match msg {
            Some(Msg::Stdout(bytes)) => self.stdout(&bytes),
            Some(Msg::StdoutClosed) => self.c.obs.stdout_closed = true,
            Some(Msg::Exited(status)) => {
                self.exited = true;
                self.c.obs.status = Some(status);
                self.c.obs.exit = Some(describe_exit(status));
            }
            Some(Msg::Wrote | Msg::WriteFailed(_)) | None => {}
        }
        if let Some(flood) = flood {
            self.c.obs.flood = Some(flood.message);
            return false;
        }
        true
    }

    /// The deadline, the exit grace or the gate came due at `now`.
    /// `false`: the run is over.
    fn due(&mut self, now: Instant) -> bool {
        if now >= self.deadline {
            self.c.obs.timed_out = true;
            return false;
        }
        if self
            .closed_at
            .is_some_and(|t| now >= t + self.c.obs.exit_grace)
        {
            self.c.obs.lingered = true;
            return false;
        }
        // The gate: start-up over, stdin open, and not a byte yet.
        self.gate_armed = false;
        self.running.close_stdin();
        self.closed_at = Some(now);
        self.c.obs.gate = Some(Gate::NeverEnded);
        true
    }

    /// One read of stdout: the stream has begun, and each record it
    /// completes is answered.
    fn stdout(&mut self, bytes: &[u8]) {
        if self.closed_at.is_none() {
            self.gate_armed = false;
        }
        if !self.begun {
            self.begun = true;
            self.deadline = Instant::now() + self.timeout;
            self.c.obs.exit_grace = EXIT_GRACE.max(2 * self.running.elapsed());
        }
        let at = ms(&self.running);
        // The drive stops a flood before the collector sees it.
        let new = self.c.push(bytes, at);
        for i in new {
            self.record(i);
        }
    }

    /// Record `i` came: it may answer an awaited control request (the
    /// next step of the input then goes, or stdin closes), be a control
    /// request to answer, or end the stream.
    fn record(&mut self, i: usize) {
        if let Some(left) = self.awaited.as_mut()
            && let Some(answered) = self.profile.reply_id(&self.c.obs.records[i].value)
            && let Some(at) = left.iter().position(|id| id == answered)
        {
            left.remove(at);
            if left.is_empty()
                && !self.running.stdin_closed()
                && let Some((input, ids)) = self.steps.pop_front()
            {
                self.send(input);
                if let Some(left) = self.awaited.as_mut() {
                    left.extend(ids);
                }
            }
            if self.awaited.as_ref().is_some_and(Vec::is_empty) && !self.running.stdin_closed() {
                self.running.close_stdin();
                self.closed_at.get_or_insert_with(Instant::now);
            }
        }
        self.answer_control(i);
        if self.c.obs.end_index == Some(i) {
            // The consumer has its stream: stdin is done with.
            if self.c.obs.gate == Some(Gate::NeverEnded) {
                self.c.obs.gate = Some(Gate::Held);
            }
            if !self.running.stdin_closed() {
                self.running.close_stdin();
            }
            // From here the process has the exit grace to end.
            self.closed_at.get_or_insert_with(Instant::now);
        }
    }

    /// Answers record `i` if it is a control request, as the scenario
    /// says (not once stdin is closed).
    fn answer_control(&mut self, i: usize) {
        let profile = self.profile;
        let request_id = profile.control.as_ref().and_then(|control| {
            let value = &self.c.obs.records[i].value;
            (value.get(&profile.type_field).and_then(Value::as_str)
                == Some(control.request.as_str()))
            .then(|| value.get(&control.id).map(Value::to_string))
        });
        let Some(id) = request_id else { return };
        let answer = match (&self.scenario.answer, id) {
            (Some(answer), Some(id)) if !self.running.stdin_closed() => {
                profile.control_answer(&id, answer)
            }
            _ => None,
        };
        self.c.obs.controls.push((i, answer.is_some()));
        if let Some(line) = answer {
            self.send((line + "\n").into_bytes());
        }
    }

    /// The observation, once the run is over: the stream's tail framed,
    /// a process that outstayed killed, its stderr kept.
    fn finish(mut self, started: Instant) -> Observation {
        let at = ms(&self.running);
        self.c.finish(at);
        let c = &mut self.c;
        if c.obs.gate == Some(Gate::NeverEnded) && c.obs.end_index.is_some() {
            c.obs.gate = Some(Gate::Held);
        }
        if c.obs.timed_out || c.obs.lingered || c.obs.error.is_some() {
            self.running.kill();
        }
        c.obs.stderr = String::from_utf8_lossy(&self.running.stderr_tail()).into_owned();
        c.obs.duration = started.elapsed();
        self.c.obs
    }
}

fn observe_http(
    profile: &Profile,
    scenario: &Scenario,
    url: &str,
    timeout: Duration,
    budget: &Budget,
) -> Observation {
    let started = Instant::now();
    let deadline = started + timeout;
    let mut obs = Observation::default();
    let url = match Url::parse(url) {
        Ok(u) => u,
        Err(e) => {
            obs.error = Some(e);
            return obs;
        }
    };
    let body = scenario
        .body
        .clone()
        .or_else(|| scenario.input.first().cloned())
        .unwrap_or_else(|| "{}".to_owned());
    obs.sent.push(Sent {
        at_ms: 0,
        bytes: Bytes::new(body.as_bytes()),
    });
    let mut head: Option<http::Head> = None;
    let collector: std::cell::RefCell<Option<Collector>> = std::cell::RefCell::new(None);
    let mut raw = Vec::new();
    let posted = drive::post(
        &url,
        body.as_bytes(),
        deadline,
        budget,
        &mut |h| {
            let seq = h
                .header("content-type")
                .is_some_and(|t| t.to_ascii_lowercase().starts_with("application/json-seq"));
            *collector.borrow_mut() = Some(Collector::new(
                profile,
                if seq { Mode::JsonSeq } else { Mode::Lines },
            ));
            head = Some(h.clone());
        },
        &mut |piece, at| {
            raw.extend_from_slice(piece);
            if let Some(c) = collector.borrow_mut().as_mut() {
                c.push(piece, at.as_millis() as u64);
            }
        },
    );
    let posted = match posted {
        Ok(posted) => posted,
        Err(e) => {
            obs.error = Some(e);
            obs.duration = started.elapsed();
            return obs;
        }
    };
    let (end, pieces) = (posted.end, posted.pieces);
    let sent = std::mem::take(&mut obs.sent);
    if let Some(c) = collector.borrow_mut().as_mut() {
        c.finish(started.elapsed().as_millis() as u64);
        obs = std::mem::take(&mut c.obs);
    }
    obs.sent = sent;
    obs.timed_out = end == BodyEnd::Timeout;
    obs.flood = posted.flood;
    obs.gate = Some(Gate::NotUsed);
    // The bad request is sent only to an endpoint that answers at all.
    let bad = profile
        .bad_request
        .as_ref()
        .filter(|_| head.is_some())
        .map(|bad| {
            let mut status = None;
            let mut bytes = Vec::new();
            http::post(
                &url,
                bad.as_bytes(),
                Instant::now() + timeout,
                &mut |h| status = Some((h.status, h.header("content-type").map(str::to_owned))),
                &mut |b, _| {
                    // The start of an error body is enough to judge it.
                    bytes.extend_from_slice(b);
                    bytes.len() < 64 * 1024
                },
            )
            .and_then(|_| {
                let (s, t) = status.ok_or("no response")?;
                Ok((s, t, bytes))
            })
        });
    if let Some(h) = head {
        obs.http = Some(HttpSeen {
            status: h.status,
            status_line: h.status_line.clone(),
            content_type: h.header("content-type").map(str::to_owned),
            framing: h.framing,
            end,
            pieces,
            body: raw,
            bad,
        });
    } else {
        obs.timed_out = true;
        obs.no_head = true;
    }
    obs.duration = started.elapsed();
    obs
}
