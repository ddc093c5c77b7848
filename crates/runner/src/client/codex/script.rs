//! The scripted Codex app-server, sans-IO: the host's lines in, orders for
//! the peer out, time given by the caller. It answers `initialize` (and
//! "Not initialized" before it, "Already initialized" after it),
//! `thread/start` and `turn/start` with the shapes of Codex 0.171.0's
//! schema (`codex app-server generate-json-schema`), plays the turn with
//! the scenario's requests of its own, each waited on at most
//! [`ASK_WAIT`], and exits when its stdin ends. What it did and saw is its
//! [`Log`], all a grader reads of it.

use std::collections::VecDeque;
use std::time::Duration;

use serde_json::{Value, json};

use super::{ASK_WAIT, Ending, Ids, REPLY, THREAD, TURN, USER_AGENT};
use crate::client::{Scenario, peer::ToPeer, writes::records};

/// A request of the host's, and how the server answered it.
#[derive(Debug, Clone)]
pub struct HostRequest {
    /// Its method.
    pub method: String,
    /// Its id.
    pub id: Value,
    /// Its params.
    pub params: Value,
    /// Which line of the host's it was (from 1).
    pub line: usize,
    /// The server's answer: `Ok(result)` or `Err(message)`.
    pub answer: Result<Value, String>,
}

/// A request of the server's, and the host's responses to it.
#[derive(Debug, Clone)]
pub struct Asked {
    /// Its id, as written.
    pub id: Value,
    /// Its method.
    pub method: String,
    /// When it was written.
    pub at: Duration,
    /// Each response (the whole object) that carried its id, and when.
    pub responses: Vec<(Duration, Value)>,
}

/// What the turn came to.
#[derive(Debug, Clone, Default)]
pub struct Turn {
    /// When `turn/start` came.
    pub asked: Duration,
    /// Its input's text, as the host sent it.
    pub input: String,
    /// `turn/completed`'s status once written (`None`: the server exited
    /// first, or never got that far).
    pub status: Option<&'static str>,
    /// When it ended.
    pub done: Option<Duration>,
}

/// What the scripted app-server did and saw.
#[derive(Debug, Default)]
pub struct Log {
    /// The arguments the host started it with.
    pub args: Vec<String>,
    /// The host's requests, in order.
    pub requests: Vec<HostRequest>,
    /// The host's notifications: the line (from 1) and method of each.
    pub notifications: Vec<(usize, String)>,
    /// The server's requests.
    pub asks: Vec<Asked>,
    /// Responses that answered none of them: their id, as JSON text.
    pub stray: Vec<String>,
    /// Lines the host wrote, JSON or not.
    pub lines: usize,
    /// The turns, in order.
    pub turns: Vec<Turn>,
    /// When its stdin ended.
    pub eof: Option<Duration>,
    /// Whether it exited on the scenario's word.
    pub exited: bool,
}

impl Log {
    /// The server's answer to the host's first request of `method`.
    pub fn answer(&self, method: &str) -> Option<&Result<Value, String>> {
        self.requests
            .iter()
            .find(|r| r.method == method)
            .map(|r| &r.answer)
    }
}

/// The most turns it plays, and host requests it answers, in one session.
const MAX_TURNS: usize = 16;
const MAX_REQUESTS: usize = 1024;

/// The scripted app-server of one scenario.
pub struct AppServer<'a> {
    sc: &'a Scenario,
    /// What it did and saw.
    pub log: Log,
    /// The turn's requests still to write.
    pending: VecDeque<String>,
    /// The requests the turn waits on (indexes into `log.asks`), until
    /// this time.
    blocked: Option<(Duration, Vec<usize>)>,
    /// Whether a turn is playing.
    playing: bool,
}

impl<'a> AppServer<'a> {
    /// The server for `sc`, which must be a Codex host scenario.
    pub fn new(sc: &'a Scenario) -> AppServer<'a> {
        AppServer {
            sc,
            log: Log::default(),
            pending: VecDeque::new(),
            blocked: None,
            playing: false,
        }
    }

    fn play(&self) -> super::Play {
        self.sc.codex.clone().unwrap_or_default()
    }

    /// A line the host wrote.
    pub fn on_line(&mut self, line: &[u8], now: Duration) -> Vec<ToPeer> {
        self.log.lines += 1;
        let n = self.log.lines;
        let Ok(Value::Object(o)) = serde_json::from_slice::<Value>(line) else {
            return Vec::new();
        };
        let method = o.get("method").and_then(Value::as_str).map(str::to_owned);
        let mut out = Vec::new();
        match (method, o.get("id")) {
            (Some(method), Some(id)) => {
                if self.log.requests.len() >= MAX_REQUESTS {
                    return out;
                }
                let params = o.get("params").cloned().unwrap_or(Value::Null);
                let answer = self.answer(&method, &params);
                self.log.requests.push(HostRequest {
                    method: method.clone(),
                    id: id.clone(),
                    params: params.clone(),
                    line: n,
                    answer: answer.clone(),
                });
                let reply = match &answer {
                    Ok(result) => json!({"id": id, "result": result}),
                    Err(message) => {
                        json!({"id": id, "error": {"code": -32600, "message": message}})
                    }
                };
                let mut lines = vec![reply];
                if answer.is_ok() && method == "thread/start" {
                    lines.push(json!({"method": "thread/started", "params": {"thread": thread()}}));
                }
                out.extend(self.write(lines));
                if answer.is_ok() && method == "turn/start" {
                    let input = text_of(&params);
                    self.start_turn(input, now, &mut out);
                }
            }
            (Some(method), None) => self.log.notifications.push((n, method)),
            (None, Some(id)) if o.contains_key("result") || o.contains_key("error") => {
                let response = Value::Object(o.clone());
                match self.log.asks.iter().position(|a| &a.id == id) {
                    Some(i) => {
                        self.log.asks[i].responses.push((now, response));
                        self.answered(i, now, &mut out);
                    }
                    None => self.log.stray.push(id.to_string()),
                }
            }
            _ => {}
        }
        out
    }

    /// The server's answer to a request of the host's: `Ok(result)` or
    /// `Err(message)` (code -32600, as Codex's).
    fn answer(&self, method: &str, params: &Value) -> Result<Value, String> {
        let initialized = self
            .log
            .requests
            .iter()
            .any(|r| r.method == "initialize" && r.answer.is_ok());
        match method {
            "initialize" if initialized => Err("Already initialized".into()),
            "initialize" => Ok(json!({
                "userAgent": USER_AGENT,
                "codexHome": "/tmp/rpcspec-codex-home",
                "platformFamily": "unix",
                "platformOs": "linux",
            })),
            _ if !initialized => Err("Not initialized".into()),
            "thread/start" => Ok(json!({
                "thread": thread(),
                "model": "rpcspec-model",
                "modelProvider": "openai",
                "cwd": "/",
                "approvalPolicy": "on-request",
                "approvalsReviewer": "user",
                "sandbox": {"type": "readOnly"},
            })),
            "turn/start" if self.playing => Err("a turn is already running".into()),
            "turn/start" if self.log.turns.len() >= MAX_TURNS => Err("too many turns".into()),
            "turn/start" if params.get("threadId").and_then(Value::as_str) != Some(THREAD) => {
                Err(format!(
                    "thread not found: {}",
                    params.get("threadId").unwrap_or(&Value::Null)
                ))
            }
            "turn/start" => Ok(json!({"turn": turn("inProgress")})),
            "turn/interrupt" => Ok(json!({})),
            other => Err(format!("Invalid request: unknown variant `{other}`")),
        }
    }

    /// Begins a turn: `turn/started`, the scenario's notifications, then
    /// its requests.
    fn start_turn(&mut self, input: String, now: Duration, out: &mut Vec<ToPeer>) {
        self.playing = true;
        self.log.turns.push(Turn {
            asked: now,
            input,
            ..Turn::default()
        });
        let play = self.play();
        let mut lines = vec![
            json!({"method": "turn/started", "params": {"threadId": THREAD, "turn": turn("inProgress")}}),
        ];
        lines.extend(
            play.notes
                .iter()
                .filter_map(|n| serde_json::from_str(n).ok()),
        );
        out.extend(self.write(lines));
        self.pending = play.asks.iter().cloned().collect();
        self.ask(play.together, now, out);
    }

    /// Writes the next request (all of them, `together`), or ends the turn
    /// when none is left.
    fn ask(&mut self, together: bool, now: Duration, out: &mut Vec<ToPeer>) {
        let mut lines = Vec::new();
        let mut waiting = Vec::new();
        while let Some(text) = self.pending.pop_front() {
            let mut request: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
            let n = self.log.asks.len();
            let id = match self.play().ids {
                Ids::Integer => json!(n),
                Ids::String => json!(format!("rpcspec-{n}")),
            };
            if let Some(o) = request.as_object_mut() {
                o.insert("id".into(), id.clone());
            }
            let method = request["method"].as_str().unwrap_or_default().to_owned();
            self.log.asks.push(Asked {
                id,
                method,
                at: now,
                responses: Vec::new(),
            });
            waiting.push(n);
            lines.push(request);
            if !together {
                break;
            }
        }
        out.extend(self.write(lines));
        if waiting.is_empty() {
            self.end_turn(now, out);
        } else {
            self.blocked = Some((now + ASK_WAIT, waiting));
        }
    }

    /// A response to request `i` came.
    fn answered(&mut self, i: usize, now: Duration, out: &mut Vec<ToPeer>) {
        let Some((_, waiting)) = &mut self.blocked else {
            return;
        };
        waiting.retain(|&w| w != i);
        if waiting.is_empty() {
            self.blocked = None;
            let together = self.play().together;
            self.ask(together, now, out);
        }
    }

    /// Ends the turn as the scenario says.
    fn end_turn(&mut self, now: Duration, out: &mut Vec<ToPeer>) {
        self.playing = false;
        let ending = self.play().ending;
        if ending == Ending::Exit {
            self.log.exited = true;
            out.push(ToPeer::Exit(1));
            return;
        }
        let item = json!({"type": "agentMessage", "id": "rpcspec-message", "text": REPLY});
        let at = json!({"threadId": THREAD, "turnId": TURN});
        let with = |mut v: Value, key: &str, value: Value| {
            v[key] = value;
            v
        };
        let status = match ending {
            Ending::Failed => "failed",
            _ => "completed",
        };
        let mut done = turn(status);
        if ending == Ending::Failed {
            done["error"] = json!({"message": "rpcspec: the turn failed"});
        }
        let lines = vec![
            json!({"method": "item/started", "params": with(with(at.clone(), "item", json!({"type": "agentMessage", "id": "rpcspec-message", "text": ""})), "startedAtMs", json!(0))}),
            json!({"method": "item/agentMessage/delta", "params": with(with(at.clone(), "itemId", json!("rpcspec-message")), "delta", json!(REPLY))}),
            json!({"method": "item/completed", "params": with(with(at, "item", item), "completedAtMs", json!(0))}),
            json!({"method": "turn/completed", "params": {"threadId": THREAD, "turn": done}}),
        ];
        out.extend(self.write(lines));
        if let Some(t) = self.log.turns.last_mut() {
            t.status = Some(status);
            t.done = Some(now);
        }
    }

    /// Its stdin ended: it exits, as Codex does.
    pub fn on_eof(&mut self, now: Duration) -> Vec<ToPeer> {
        self.log.eof = Some(now);
        self.blocked = None;
        self.pending.clear();
        vec![ToPeer::Exit(0)]
    }

    /// When the turn next goes on without an answer.
    pub fn next_due(&self) -> Option<Duration> {
        self.blocked.as_ref().map(|(at, _)| *at)
    }

    /// Time passed: a request unanswered after [`ASK_WAIT`] is given up.
    pub fn on_tick(&mut self, now: Duration) -> Vec<ToPeer> {
        let mut out = Vec::new();
        if self.blocked.as_ref().is_some_and(|(at, _)| now >= *at) {
            self.blocked = None;
            let together = self.play().together;
            self.ask(together, now, &mut out);
        }
        out
    }

    /// `messages` as the scenario writes lines.
    fn write(&self, messages: Vec<Value>) -> Vec<ToPeer> {
        records(
            self.sc,
            messages
                .iter()
                .map(|m| m.to_string().into_bytes())
                .collect(),
        )
    }
}

/// The thread of `thread/start` and `thread/started`.
fn thread() -> Value {
    json!({
        "id": THREAD, "sessionId": THREAD, "preview": "", "ephemeral": true,
        "projectId": null, "modelProvider": "openai", "createdAt": 0, "updatedAt": 0,
        "status": {"type": "idle"}, "cwd": "/", "cliVersion": "0.171.0",
        "source": "appServer", "turns": [],
    })
}

/// The turn, with `status`.
fn turn(status: &str) -> Value {
    json!({"id": TURN, "items": [], "status": status})
}

/// The text of a `turn/start`'s input: its text items, joined.
fn text_of(params: &Value) -> String {
    let items = params.get("input").and_then(Value::as_array);
    let texts: Vec<&str> = items
        .into_iter()
        .flatten()
        .filter_map(|i| i.get("text").and_then(Value::as_str))
        .collect();
    if texts.is_empty() {
        // Some hosts send the input as a plain string.
        return params
            .get("input")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
    }
    texts.join("\n")
}

impl crate::client::agent::Agent for AppServer<'_> {
    fn on_args(&mut self, args: Vec<String>, _at: Duration) -> Vec<ToPeer> {
        self.log.args = args;
        Vec::new()
    }

    fn on_line(&mut self, line: &[u8], at: Duration) -> Vec<ToPeer> {
        AppServer::on_line(self, line, at)
    }

    fn on_eof(&mut self, at: Duration) -> Vec<ToPeer> {
        AppServer::on_eof(self, at)
    }

    fn next_due(&self) -> Option<Duration> {
        AppServer::next_due(self)
    }

    fn on_tick(&mut self, at: Duration) -> Vec<ToPeer> {
        AppServer::on_tick(self, at)
    }

    fn grade(
        &self,
        o: &crate::client::grade::Observed<'_>,
        outcomes: &std::collections::HashMap<&'static str, crate::client::grade::Outcome>,
        out: &mut Vec<crate::report::Evidence>,
    ) {
        crate::client::grade::host_session(o, &self.log, outcomes, out);
    }
}
