//! The scripted server, sans-IO: lines from the client in, orders for the
//! peer out ([`ToPeer`]: writes, pauses, a close, an exit), time given by
//! the caller. What it answered to each request is kept ([`Answer`]) for
//! the graders.
//!
//! Its methods, whatever the scenario: `subtract` (`[a, b]` or
//! `{"minuend", "subtrahend"}`), `echo` (`[x]` → `x`), `fail` (an error,
//! code -32000), and -32601 for anything else. Replies to `echo` are held
//! until three are waiting, or [`HOLD_WAIT`] has passed since the last one
//! came, so that concurrent calls can be answered in any order; a client
//! that calls one at a time waits [`HOLD_WAIT`] a call.
//!
//! In MCP (`client/mcp/`) the answers are the reference MCP server's
//! (`crate::dialects::mcp::reference`, every revision): the script passes each
//! line to it and plays the scenario on its replies (held, reordered,
//! cut, replaced) as on its own; what else it writes (progress, logs)
//! goes out at once. The `echo` tool's calls are the ones held.

use std::time::{Duration, Instant};

use serde_json::Value;

pub use super::answers::{Answer, Body};
use super::{ASK_WAIT, Decoy, Order, Scenario, answers, peer::ToPeer, twist, writes};
use crate::capture::Framing;

/// How long held `echo` replies wait for more concurrent calls.
pub const HOLD_WAIT: Duration = Duration::from_millis(300);

/// How many held `echo` replies are released at once.
pub const HOLD_COUNT: usize = 3;

/// The id of the requests the server makes (`ask`).
pub const ASK_ID: &str = "\"rpcspec-ask-1\"";

/// The result of a decoy reply.
pub const DECOY_RESULT: &str = "\"rpcspec decoy: the reply to no request of yours\"";

/// An id no client uses, for [`Decoy::UnknownId`].
pub const UNKNOWN_ID: &str = "987654321";

/// A request the server made, and the client's answer.
#[derive(Debug, Clone)]
pub struct Ask {
    /// Its method.
    pub method: String,
    /// The client's answer, when one came.
    pub answer: Option<Value>,
}

/// Why the server stopped answering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// It exited with this status.
    Exited(i32),
    /// It closed its stdout.
    Closed,
}

/// What the scripted server did and saw: all a grader reads of it.
#[derive(Debug, Default)]
pub struct Log {
    /// Every request, in arrival order.
    pub answers: Vec<Answer>,
    /// The requests the server made.
    pub asks: Vec<Ask>,
    /// Ids of answers to requests nobody made (not the ask's id, not
    /// null).
    pub stray_answers: Vec<String>,
    /// Errors with id null the client wrote: its answers to lines it
    /// could not read.
    pub null_errors: usize,
    /// Ids the client sent again while a request with that id was in
    /// flight.
    pub reused: Vec<String>,
    /// Most `echo` requests held at once: the client's concurrency.
    pub max_held: usize,
    /// Decoys with a retyped id written.
    pub retyped: usize,
    /// When and why it stopped.
    pub stop: Option<(Duration, Stop)>,
    /// When its stdin ended.
    pub eof: Option<Duration>,
    /// Messages the client wrote (each line or message, JSON or not).
    pub messages: usize,
    /// How many of them had come when the `initialize` reply went out.
    pub initialize_replied: Option<usize>,
    /// Ids (as JSON text) of the waiting requests a cancel notification
    /// answered (LSP's `$/cancelRequest`, ACP's `session/cancel`).
    pub cancelled: Vec<String>,
}

/// The scripted server of one scenario.
pub struct Server<'a> {
    sc: &'a Scenario,
    /// What it did and saw, for the graders.
    pub log: Log,
    held: Vec<usize>,
    /// MCP: answers the reference just replied to, to be routed.
    pending: Vec<usize>,
    last_held: Duration,
    delayed: Vec<(Duration, usize)>,
    /// Replies queued until the client answers the ask, and its deadline.
    waiting: Option<(Duration, Vec<usize>)>,
    /// The reference server behind the script, if the dialect has one,
    /// and the instant the script's times count from.
    backend: Option<(Box<dyn Backend>, Instant)>,
    /// Messages go behind Content-Length headers, not on lines.
    content_length: bool,
    /// LSP: `shutdown` has come; every request after it is refused.
    shut_down: bool,
    /// MCP: the canary's URL, for [`twist::Twist::NetworkRef`].
    canary: Option<String>,
    /// The time of the event being played (given by the caller).
    now: Duration,
}

/// A reference server behind the script (MCP's): it answers what the
/// script hands it, and the script routes its replies as the scenario
/// says. Sans-IO; its times are instants.
pub trait Backend {
    /// What it writes for one line of the client's.
    fn on_line(&mut self, line: &str, at: Instant) -> Vec<String>;

    /// What it writes for a line that is not text.
    fn on_unreadable(&mut self) -> Vec<String>;

    /// What falls due by `at`.
    fn on_tick(&mut self, at: Instant) -> Vec<String>;

    /// The client closed its input.
    fn on_eof(&mut self);

    /// When [`Backend::on_tick`] has something to do.
    fn next_due(&self) -> Option<Instant>;
}

impl<'a> Server<'a> {
    /// The scripted server of `sc` in `framing`, nothing received yet; its
    /// times are durations since `epoch` (the MCP reference counts in
    /// instants).
    pub fn new(sc: &'a Scenario, epoch: Instant, framing: &Framing) -> Server<'a> {
        let backend = sc.protocol.play().backend.map(|b| (b(), epoch));
        Server {
            backend,
            sc,
            log: Log::default(),
            held: Vec::new(),
            pending: Vec::new(),
            last_held: Duration::ZERO,
            delayed: Vec::new(),
            waiting: None,
            content_length: matches!(framing, Framing::ContentLength(_)),
            shut_down: false,
            canary: None,
            now: Duration::ZERO,
        }
    }

    /// One line from the client (without its terminator), at `now`.
    pub fn on_line(&mut self, line: &[u8], now: Duration) -> Vec<ToPeer> {
        self.now = now;
        let mut out = Vec::new();
        self.log.messages += 1;
        if self
            .log
            .stop
            .is_some_and(|(_, s)| matches!(s, Stop::Exited(_)))
        {
            return out;
        }
        let Ok(value) = serde_json::from_slice::<Value>(line) else {
            return out;
        };
        match value {
            // MCP has no batches: the reference refuses them.
            Value::Array(_) if self.backend.is_some() => {
                let lines = self.backend(line, now);
                self.emit(lines, &mut out);
            }
            Value::Array(members) => self.batch(members, &mut out),
            Value::Object(ref o) if o.get("method").is_some_and(Value::is_string) => {
                let method = o["method"].as_str().unwrap_or_default().to_owned();
                let params = o.get("params").cloned().unwrap_or(Value::Null);
                match o.get("id") {
                    Some(id) => self.request(line, method, params, id.to_string(), now, &mut out),
                    None if self.lifecycle(&method, &params, now, &mut out) => {}
                    None => {
                        let lines = self.backend(line, now);
                        self.emit(lines, &mut out);
                        self.notification(&mut out);
                    }
                }
            }
            Value::Object(o) => {
                let id = o.get("id").map(Value::to_string).unwrap_or_default();
                if id != ASK_ID && self.backend.is_some() {
                    // The reference's own requests (the `roots` tool's).
                    let lines = self.backend(line, now);
                    self.emit(lines, &mut out);
                    return out;
                }
                if id == ASK_ID && !self.log.asks.is_empty() {
                    let ask = self.log.asks.last_mut().expect("not empty");
                    if ask.answer.is_none() {
                        ask.answer = Some(Value::Object(o));
                        if let Some((_, queued)) = self.waiting.take() {
                            let lines = queued
                                .into_iter()
                                .flat_map(|i| self.reply_lines(i))
                                .collect();
                            self.emit(lines, &mut out);
                        }
                    }
                } else if id == "null" && o.contains_key("error") {
                    // An error for a line the client could not read (JSON-RPC
                    // 2.0 §5: "If there was an error in detecting the id …
                    // it MUST be Null"): a peer playing both roles answers so.
                    self.log.null_errors += 1;
                } else {
                    self.log.stray_answers.push(id);
                }
            }
            _ => {}
        }
        out
    }

    /// The client closed the server's stdin, at `now`: the server exits.
    pub fn on_eof(&mut self, now: Duration) -> Vec<ToPeer> {
        self.now = now;
        self.log.eof.get_or_insert(now);
        if let Some((backend, _)) = &mut self.backend {
            backend.on_eof();
        }
        match self.log.stop {
            Some((_, Stop::Exited(_))) => Vec::new(),
            _ => {
                self.log.stop = Some((now, Stop::Exited(0)));
                vec![ToPeer::Exit(0)]
            }
        }
    }

    /// When [`Server::on_tick`] has something to do.
    pub fn next_due(&self) -> Option<Duration> {
        let held = (!self.held.is_empty()).then_some(self.last_held + HOLD_WAIT);
        let delayed = self.delayed.iter().map(|(at, _)| *at).min();
        let waiting = self.waiting.as_ref().map(|(at, _)| *at);
        let backend = self
            .backend
            .as_ref()
            .and_then(|(b, epoch)| Some(b.next_due()?.saturating_duration_since(*epoch)));
        [held, delayed, waiting, backend]
            .into_iter()
            .flatten()
            .min()
    }

    /// MCP: what the reference server writes for `line` (or, with an empty
    /// line, what falls due by `now`), its replies to requests the script
    /// awaits taken out (into `pending`, to be routed as the scenario says).
    fn backend(&mut self, line: &[u8], now: Duration) -> Vec<Vec<u8>> {
        let Some((backend, epoch)) = &mut self.backend else {
            return Vec::new();
        };
        let at = *epoch + now;
        let written = if line.is_empty() {
            backend.on_tick(at)
        } else {
            match std::str::from_utf8(line) {
                Ok(text) => backend.on_line(text, at),
                Err(_) => backend.on_unreadable(),
            }
        };
        let mut lines = Vec::new();
        for w in written {
            if let Some((id, body)) = reply_of(&w)
                && let Some(i) = self
                    .log
                    .answers
                    .iter()
                    .position(|a| a.id == id && a.awaiting)
            {
                let body = self.shaped(i, body);
                self.log.answers[i].body = body;
                self.log.answers[i].awaiting = false;
                self.pending.push(i);
                continue;
            }
            lines.push(w.into_bytes());
        }
        lines
    }

    /// The body the scenario makes of answer `i`'s reply `body`: its
    /// `result` or `version` in place.
    fn shaped(&self, i: usize, body: Body) -> Body {
        let a = &self.log.answers[i];
        if let Some((_, value)) = self
            .sc
            .result
            .as_ref()
            .filter(|(c, _)| c.matches(&a.method, &a.params))
        {
            // 2026-07-28 basic/index: "The `result` MUST include a
            // `resultType` field".
            if modern(&a.params)
                && let Ok(Value::Object(mut o)) = serde_json::from_slice::<Value>(value)
                && !o.contains_key("resultType")
            {
                o.insert("resultType".into(), Value::from("complete"));
                return Body::Result(Value::Object(o).to_string().into_bytes());
            }
            return Body::Result(value.clone());
        }
        let body = match (self.sc.twist, body) {
            (Some(t), Body::Result(raw)) => {
                let mut v: Value = serde_json::from_slice(&raw).unwrap_or_default();
                twist::reshape(t, self.canary.as_deref(), &a.method, &mut v);
                Body::Result(v.to_string().into_bytes())
            }
            (_, body) => body,
        };
        match (&self.sc.version, a.method.as_str(), body) {
            (Some(version), "initialize", Body::Result(raw)) => {
                let mut v: Value = serde_json::from_slice(&raw).unwrap_or_default();
                if let Some(o) = v.as_object_mut() {
                    o.insert("protocolVersion".into(), Value::from(version.as_str()));
                }
                Body::Result(v.to_string().into_bytes())
            }
            (_, _, body) => body,
        }
    }

    /// Gives [`twist::Twist::NetworkRef`]'s tool the canary's URL.
    pub fn set_canary(&mut self, url: String) {
        self.canary = Some(url);
    }

    /// Writes what has fallen due by `now`.
    pub fn on_tick(&mut self, now: Duration) -> Vec<ToPeer> {
        self.now = now;
        let mut out = Vec::new();
        if self.log.stop.is_some() {
            return out;
        }
        let backend_due = self
            .backend
            .as_ref()
            .and_then(|(b, epoch)| b.next_due().map(|d| d <= *epoch + now));
        if backend_due == Some(true) {
            let lines = self.backend(b"", now);
            self.emit(lines, &mut out);
            for i in std::mem::take(&mut self.pending) {
                self.route(i, now, &mut out);
            }
        }
        if !self.held.is_empty() && now >= self.last_held + HOLD_WAIT {
            self.release_held(&mut out);
        }
        let (due, later): (Vec<_>, Vec<_>) = self.delayed.drain(..).partition(|(at, _)| *at <= now);
        self.delayed = later;
        for (_, i) in due {
            self.reply(i, &mut out);
        }
        if self.waiting.as_ref().is_some_and(|(at, _)| *at <= now) {
            let (_, queued) = self.waiting.take().expect("checked");
            let lines = queued
                .into_iter()
                .flat_map(|i| self.reply_lines(i))
                .collect();
            self.emit(lines, &mut out);
        }
        out
    }

    /// The dialect's lifecycle notifications ([`crate::dialects::Answers`]):
    /// the one that ends the server (status 0 after its shutdown request,
    /// else 1), and the one that cancels a request still waiting, answered
    /// at once with the dialect's error. Whether it was one of those.
    fn lifecycle(
        &mut self,
        method: &str,
        params: &Value,
        now: Duration,
        out: &mut Vec<ToPeer>,
    ) -> bool {
        let Some(answers) = self.sc.protocol.play().answers else {
            return false;
        };
        if answers.shutdown.is_some_and(|(_, end)| end == method) {
            if self.log.stop.is_none() {
                let code = if self.shut_down { 0 } else { 1 };
                self.log.stop = Some((now, Stop::Exited(code)));
                out.push(ToPeer::Exit(code));
            }
            return true;
        }
        let mut cancelled = false;
        let mut n = 0;
        while n < self.delayed.len() {
            let i = self.delayed[n].1;
            match (answers.cancels)(method, params, &self.log.answers[i]) {
                Some(body) => {
                    self.delayed.remove(n);
                    self.log.cancelled.push(self.log.answers[i].id.clone());
                    self.log.answers[i].body = body;
                    self.reply(i, out);
                    cancelled = true;
                }
                None => n += 1,
            }
        }
        cancelled
    }

    fn notification(&mut self, out: &mut Vec<ToPeer>) {
        if self.log.stop.is_none() && !self.sc.on_notification.is_empty() {
            let lines = self.sc.on_notification.clone();
            self.emit(lines, out);
        }
    }

    fn request(
        &mut self,
        line: &[u8],
        method: String,
        params: Value,
        id: String,
        now: Duration,
        out: &mut Vec<ToPeer>,
    ) {
        if self
            .log
            .answers
            .iter()
            .any(|a| a.id == id && a.sent.is_none() && !a.replaced)
        {
            self.log.reused.push(id.clone());
        }
        let i = self.record(method, params, id, false);
        if self.log.stop.is_some() {
            return;
        }
        if let Some(own) = self.sc.protocol.play().answers {
            let a = &self.log.answers[i];
            let lines = (own.on_request)(&a.method, &a.params);
            self.emit(lines, out);
        }
        if self.backend.is_some() {
            let a = &self.log.answers[i];
            // A reply of the twist's own: the reference never sees the
            // request.
            if let Some(body) = self
                .sc
                .twist
                .and_then(|t| twist::scripted(t, &self.log.answers[..i], &a.method, &a.params))
            {
                self.log.answers[i].body = body;
                self.reply(i, out);
                return;
            }
            self.log.answers[i].awaiting = true;
            let a = &self.log.answers[i];
            // Exits and closes come before the reference sees the call.
            let stops = self
                .sc
                .exit
                .as_ref()
                .is_some_and(|(c, _)| c.matches(&a.method, &a.params))
                || self
                    .sc
                    .close
                    .as_ref()
                    .is_some_and(|c| c.matches(&a.method, &a.params));
            if !stops {
                let lines = self.backend(line, now);
                self.emit(lines, out);
                if !std::mem::take(&mut self.pending).contains(&i) {
                    // Answered later (`slow`), through `on_tick`.
                    return;
                }
            }
        }
        self.route(i, now, out);
    }

    /// Answers request `i` as the scenario says: an exit, a close, held,
    /// delayed, after the ask, or at once.
    fn route(&mut self, i: usize, now: Duration, out: &mut Vec<ToPeer>) {
        if self.log.stop.is_some() {
            return;
        }
        let a = &self.log.answers[i];
        if let Some((_, code)) = self
            .sc
            .exit
            .as_ref()
            .filter(|(c, _)| c.matches(&a.method, &a.params))
        {
            self.log.stop = Some((now, Stop::Exited(*code)));
            out.push(ToPeer::Exit(*code));
            return;
        }
        if self
            .sc
            .close
            .as_ref()
            .is_some_and(|c| c.matches(&a.method, &a.params))
        {
            self.log.stop = Some((now, Stop::Closed));
            out.push(ToPeer::CloseStdout);
            return;
        }
        let held = (self.sc.protocol.play().held)(&a.method, &a.params);
        if held {
            self.held.push(i);
            self.last_held = now;
            self.log.max_held = self.log.max_held.max(self.held.len());
            if self.held.len() >= HOLD_COUNT {
                self.release_held(out);
            }
            return;
        }
        if let Some((_, d)) = self
            .sc
            .delay
            .as_ref()
            .filter(|(c, _)| c.matches(&a.method, &a.params))
        {
            self.delayed.push((now + *d, i));
            return;
        }
        let own = self.sc.protocol.play().answers;
        let delay = own.and_then(|own| (own.delay)(&a.method, &a.params));
        let asks = self.sc.ask.clone().filter(|method| {
            self.log.asks.is_empty()
                && self
                    .sc
                    .ask_on
                    .as_ref()
                    .is_none_or(|c| c.matches(&a.method, &a.params))
                && self.may_ask(i, method)
        });
        if let Some(method) = asks {
            self.log.asks.push(Ask {
                method: method.clone(),
                answer: None,
            });
            let params = self
                .sc
                .ask_params
                .as_deref()
                .map(|p| format!(r#","params":{}"#, String::from_utf8_lossy(p)))
                .unwrap_or_default();
            let line = format!(
                r#"{{"jsonrpc":"2.0","id":{ASK_ID},"method":{}{params}}}"#,
                Value::from(method)
            );
            self.emit(vec![line.into_bytes()], out);
            match delay {
                // A slow call: answered in its time (or at its cancel).
                Some(d) => self.delayed.push((now + d, i)),
                None => self.waiting = Some((now + ASK_WAIT, vec![i])),
            }
            return;
        }
        if let Some(d) = delay {
            self.delayed.push((now + d, i));
            return;
        }
        self.reply(i, out);
    }

    /// Whether the scenario's request goes out before answer `i`: as the
    /// dialect's `may_ask` says, given the client's `initialize`; without
    /// one, before the first reply.
    fn may_ask(&self, i: usize, method: &str) -> bool {
        let Some(may_ask) = self.sc.protocol.play().may_ask else {
            return true;
        };
        let init = self.log.answers.iter().find(|a| a.method == "initialize");
        let call = self.log.answers[i].method.as_str();
        may_ask(
            init.map(|a| &a.params),
            call,
            method,
            self.sc.ask_if.as_deref(),
        )
    }

    fn batch(&mut self, members: Vec<Value>, out: &mut Vec<ToPeer>) {
        if self.log.stop.is_some() {
            return;
        }
        let mut replies = Vec::new();
        let mut notified = false;
        if members.is_empty() {
            let line = br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}"#;
            self.emit(vec![line.to_vec()], out);
            return;
        }
        for m in members {
            match m {
                Value::Object(o) if o.get("method").is_some_and(Value::is_string) => {
                    let method = o["method"].as_str().unwrap_or_default().to_owned();
                    let params = o.get("params").cloned().unwrap_or(Value::Null);
                    match o.get("id") {
                        Some(id) => replies.push(self.record(method, params, id.to_string(), true)),
                        None => notified = true,
                    }
                }
                _ => {}
            }
        }
        if self.sc.order == Order::Reverse {
            replies.reverse();
        }
        let mut lines = self.sc.before.clone();
        if !replies.is_empty() {
            let mut line = b"[".to_vec();
            for (n, &i) in replies.iter().enumerate() {
                if n > 0 {
                    line.push(b',');
                }
                line.extend(self.encode(&self.log.answers[i].id, &self.log.answers[i].body));
                self.log.answers[i].sent = Some(self.now);
            }
            line.push(b']');
            lines.push(line);
        }
        if notified {
            lines.extend(self.sc.on_notification.iter().cloned());
        }
        self.emit(lines, out);
    }

    fn record(&mut self, method: String, params: Value, id: String, batch: bool) -> usize {
        let body = match self.backend {
            // The reference's reply, once it comes.
            Some(_) => Body::error(-32603, "no reply yet"),
            None => self.body(&method, &params),
        };
        let own = self.sc.protocol.play().answers;
        self.shut_down |= own.is_some_and(|own| own.shutdown.is_some_and(|(m, _)| m == method));
        self.log.answers.push(Answer {
            method,
            params,
            id,
            body,
            sent: None,
            replaced: false,
            batch,
            awaiting: false,
            asked: self.now,
        });
        self.log.answers.len() - 1
    }

    /// What the server replies to `method` with `params`: the scenario's
    /// `result`, else the series' answer ([`answers`]).
    fn body(&self, method: &str, params: &Value) -> Body {
        if let Some((_, value)) = self
            .sc
            .result
            .as_ref()
            .filter(|(c, _)| c.matches(method, params))
        {
            return Body::Result(value.clone());
        }
        match self.sc.protocol.play().answers {
            Some(a) => (a.body)(method, params, self.shut_down),
            None => answers::jsonrpc(method, params, self.sc.error.as_deref()),
        }
    }

    fn release_held(&mut self, out: &mut Vec<ToPeer>) {
        let mut held = std::mem::take(&mut self.held);
        if self.sc.order == Order::Reverse {
            held.reverse();
        }
        let lines = held.into_iter().flat_map(|i| self.reply_lines(i)).collect();
        self.emit(lines, out);
    }

    fn reply(&mut self, i: usize, out: &mut Vec<ToPeer>) {
        if let Some((_, queued)) = &mut self.waiting {
            queued.push(i);
            return;
        }
        let lines = self.reply_lines(i);
        self.emit(lines, out);
    }

    /// The lines answering request `i`, its decoys and the scenario's
    /// `before` lines included; marks it answered.
    fn reply_lines(&mut self, i: usize) -> Vec<Vec<u8>> {
        let a = &self.log.answers[i];
        // A 2026-07-28 server sends no log a request did not ask for
        // (server/utilities/logging: "MUST NOT emit notifications/message
        // for a request that does not include" a log level).
        let own = self.sc.protocol.play().answers;
        let mut lines = if modern(&a.params) || own.is_some_and(|own| !(own.before)(&a.method)) {
            Vec::new()
        } else {
            self.sc.before.clone()
        };
        if let Some((_, template)) = self
            .sc
            .replace
            .as_ref()
            .filter(|(c, _)| c.matches(&a.method, &a.params))
        {
            lines.push(writes::replace_var(template, b"$id", a.id.as_bytes()));
            self.log.answers[i].replaced = true;
            return lines;
        }
        if a.method == "initialize" && self.log.initialize_replied.is_none() {
            self.log.initialize_replied = Some(self.log.messages);
        }
        let line = self.encode(&a.id, &a.body);
        let decoy = Body::Result(DECOY_RESULT.as_bytes().to_vec());
        match self.sc.decoy {
            Some(Decoy::UnknownId) => lines.push(self.encode(UNKNOWN_ID, &decoy)),
            Some(Decoy::RetypedId) => {
                if let Some(other) = answers::retype(&a.id) {
                    lines.push(self.encode(&other, &decoy));
                    self.log.retyped += 1;
                }
            }
            _ => {}
        }
        lines.push(line.clone());
        if self.sc.decoy == Some(Decoy::Duplicate) {
            lines.push(line);
        }
        self.log.answers[i].sent = Some(self.now);
        lines
    }

    /// A reply as one line (no terminator), with the scenario's whitespace
    /// after each `,` between members.
    fn encode(&self, id: &str, body: &Body) -> Vec<u8> {
        let ws: &[u8] = self.sc.whitespace.as_deref().unwrap_or_default();
        let mut line = br#"{"jsonrpc":"2.0","#.to_vec();
        line.extend(ws);
        line.extend(b"\"id\":");
        line.extend(id.as_bytes());
        line.push(b',');
        line.extend(ws);
        let (key, value) = match body {
            Body::Result(v) => (&b"\"result\":"[..], v),
            Body::Error(v) => (&b"\"error\":"[..], v),
        };
        line.extend(key);
        line.extend(value);
        line.push(b'}');
        line
    }

    /// Frames `messages` and cuts them into orders as the scenario writes.
    fn emit(&self, messages: Vec<Vec<u8>>, out: &mut Vec<ToPeer>) {
        if messages.is_empty() {
            return;
        }
        let framed = writes::frame(self.sc, self.content_length, messages);
        out.extend(writes::orders(self.sc.writes, &framed));
    }
}

/// Whether a request with `params` is a 2026-07-28 one: its `_meta`
/// carries its protocol version.
fn modern(params: &Value) -> bool {
    twist::version_of(params).is_some()
}

/// The id (as JSON text) and body of `line` if it is a reply.
fn reply_of(line: &str) -> Option<(String, Body)> {
    let v: Value = serde_json::from_str(line).ok()?;
    let o = v.as_object()?;
    if o.contains_key("method") {
        return None;
    }
    let id = o.get("id")?.to_string();
    match (o.get("result"), o.get("error")) {
        (Some(r), None) => Some((id, Body::Result(r.to_string().into_bytes()))),
        (None, Some(e)) => Some((id, Body::Error(e.to_string().into_bytes()))),
        _ => None,
    }
}
