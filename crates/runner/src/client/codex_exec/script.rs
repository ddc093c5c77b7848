//! The scripted `codex exec --experimental-json`, sans-IO: the SDK's
//! arguments and stdin in, orders for the peer out, time given by the
//! caller. Like Codex, it reads its prompt to the end of stdin (or takes
//! it from its arguments), then plays the scenario's [`Act`]s at
//! once: the peer carries them out in order, waiting for the SDK to read
//! each write. What it did and saw is its [`Log`], all a grader reads of
//! it.

use std::time::Duration;

use super::{Act, PROMPT};
use crate::client::{
    Scenario,
    peer::ToPeer,
    writes::{records, stderr_text},
};

/// The most bytes of stdin kept: a prompt is short.
const PROMPT_MAX: usize = 64 << 10;

/// A line the CLI wrote to stdout.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    /// Its bytes, without the line end.
    pub bytes: Vec<u8>,
    /// Whether a line end followed it.
    pub end: bool,
}

/// Why the CLI began to play.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Began {
    /// Its stdin ended: the prompt was read.
    Eof,
    /// One of its arguments was the prompt.
    Argument,
}

/// What the scripted CLI did and saw.
#[derive(Debug, Default)]
pub struct Log {
    /// The arguments the SDK started it with.
    pub args: Vec<String>,
    /// The first bytes of its stdin.
    pub prompt: Vec<u8>,
    /// How many bytes came on its stdin.
    pub input: usize,
    /// When its stdin ended.
    pub eof: Option<Duration>,
    /// When and why it began to play.
    pub began: Option<(Duration, Began)>,
    /// The lines it wrote, in order.
    pub lines: Vec<Written>,
    /// Whether it closed its stdout before it exited.
    pub closed: bool,
    /// The status it exited with.
    pub exit: Option<i32>,
    /// Bytes it wrote on stderr.
    pub stderr: usize,
    /// When it carried out the scenario's exit, every write before it
    /// done. `None`: it never got there (its writes unread, or it was
    /// killed first).
    pub exited: Option<Duration>,
}

/// The scripted CLI of one scenario.
pub struct Exec<'a> {
    sc: &'a Scenario,
    /// What it did and saw.
    pub log: Log,
}

impl<'a> Exec<'a> {
    /// The CLI for `sc`, which must be a codex-exec scenario.
    pub fn new(sc: &'a Scenario) -> Exec<'a> {
        Exec {
            sc,
            log: Log::default(),
        }
    }

    /// Its arguments: the prompt among them starts the play.
    pub fn on_args(&mut self, args: Vec<String>, at: Duration) -> Vec<ToPeer> {
        let prompted = args.iter().any(|a| a.trim_end() == PROMPT);
        self.log.args = args;
        if prompted {
            return self.play(at, Began::Argument);
        }
        Vec::new()
    }

    /// It carried out the scenario's exit.
    pub fn on_exiting(&mut self, at: Duration) {
        self.log.exited.get_or_insert(at);
    }

    /// Bytes on its stdin: the prompt.
    pub fn on_input(&mut self, bytes: &[u8]) {
        self.log.input += bytes.len();
        let room = PROMPT_MAX.saturating_sub(self.log.prompt.len());
        self.log.prompt.extend(&bytes[..bytes.len().min(room)]);
    }

    /// Its stdin ended: the prompt is whole, and the play begins.
    pub fn on_eof(&mut self, at: Duration) -> Vec<ToPeer> {
        self.log.eof = Some(at);
        self.play(at, Began::Eof)
    }

    /// Every act, as orders for the peer (once).
    fn play(&mut self, at: Duration, why: Began) -> Vec<ToPeer> {
        if self.log.began.is_some() {
            return Vec::new();
        }
        self.log.began = Some((at, why));
        let acts = self.sc.codex_exec.as_deref().unwrap_or_default();
        let mut out = Vec::new();
        let mut lines = Vec::new();
        for act in acts {
            match act {
                Act::Line { bytes, end: true } => {
                    self.log.lines.push(Written {
                        bytes: bytes.clone(),
                        end: true,
                    });
                    lines.push(bytes.clone());
                }
                Act::Line { bytes, end: false } => {
                    out.extend(records(self.sc, std::mem::take(&mut lines)));
                    self.log.lines.push(Written {
                        bytes: bytes.clone(),
                        end: false,
                    });
                    out.push(ToPeer::Write(bytes.clone()));
                }
                other => {
                    out.extend(records(self.sc, std::mem::take(&mut lines)));
                    match other {
                        Act::Stderr { bytes, one_line } => {
                            self.log.stderr += bytes;
                            let mut text = stderr_text(*bytes);
                            if *one_line {
                                text.iter_mut().for_each(|b| {
                                    if *b == b'\n' {
                                        *b = b' ';
                                    }
                                });
                                if let Some(last) = text.last_mut() {
                                    *last = b'\n';
                                }
                            }
                            out.push(ToPeer::Stderr(text));
                        }
                        Act::Sleep(d) => out.push(ToPeer::Pause(*d)),
                        Act::Close => {
                            self.log.closed = true;
                            out.push(ToPeer::CloseStdout);
                        }
                        Act::Exit(code) => {
                            self.log.exit = Some(*code);
                            out.push(ToPeer::Exit(*code));
                            // Nothing after an exit happens.
                            return out;
                        }
                        Act::Line { .. } => unreachable!("lines are matched above"),
                    }
                }
            }
        }
        out.extend(records(self.sc, lines));
        out
    }
}

impl crate::client::agent::Agent for Exec<'_> {
    fn on_args(&mut self, args: Vec<String>, at: Duration) -> Vec<ToPeer> {
        Exec::on_args(self, args, at)
    }

    fn on_input(&mut self, bytes: &[u8]) {
        Exec::on_input(self, bytes);
    }

    /// Its stdin is a prompt, read whole at its end.
    fn on_line(&mut self, _line: &[u8], _at: Duration) -> Vec<ToPeer> {
        Vec::new()
    }

    fn on_eof(&mut self, at: Duration) -> Vec<ToPeer> {
        Exec::on_eof(self, at)
    }

    fn on_exiting(&mut self, at: Duration) {
        Exec::on_exiting(self, at);
    }

    fn next_due(&self) -> Option<Duration> {
        None
    }

    fn on_tick(&mut self, _at: Duration) -> Vec<ToPeer> {
        Vec::new()
    }

    fn grade(
        &self,
        o: &crate::client::grade::Observed<'_>,
        outcomes: &std::collections::HashMap<&'static str, crate::client::grade::Outcome>,
        out: &mut Vec<crate::report::Evidence>,
    ) {
        crate::client::grade::exec_session(o, &self.log, outcomes, out);
    }
}
