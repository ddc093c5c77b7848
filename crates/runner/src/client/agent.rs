//! A scripted agent CLI behind an SDK or a host (Claude Code, `codex
//! exec`, the Codex app-server): the peer a dialect's scenarios play when
//! the client starts a command, not a server. The run loop hands it what
//! the peer relays and carries out its orders; sans-IO, times since the
//! client's spawn. What it logged is graded by the dialect, once the
//! scenario has ended.

use std::{collections::HashMap, path::Path, time::Duration};

use super::{
    Scenario,
    grade::{Observed, Outcome},
    peer::ToPeer,
};
use crate::report::Evidence;

/// A scripted CLI, one scenario's.
pub trait Agent {
    /// Its arguments, as the launcher relayed them.
    fn on_args(&mut self, args: Vec<String>, at: Duration) -> Vec<ToPeer>;

    /// Bytes on its stdin, before they are read as lines (a prompt).
    fn on_input(&mut self, _bytes: &[u8]) {}

    /// One line the client wrote (without its end).
    fn on_line(&mut self, line: &[u8], at: Duration) -> Vec<ToPeer>;

    /// Its stdin ended.
    fn on_eof(&mut self, at: Duration) -> Vec<ToPeer>;

    /// The peer carried out the scenario's exit.
    fn on_exiting(&mut self, _at: Duration) {}

    /// When [`Agent::on_tick`] has something to do.
    fn next_due(&self) -> Option<Duration>;

    /// What falls due by `at`.
    fn on_tick(&mut self, at: Duration) -> Vec<ToPeer>;

    /// Its session's evidence, beside the client role's own (the
    /// adapter's reports, how it ended, the messages' shapes).
    fn grade(
        &self,
        o: &Observed<'_>,
        outcomes: &HashMap<&'static str, Outcome>,
        out: &mut Vec<Evidence>,
    );
}

/// How the client role plays a dialect's CLI.
#[derive(Debug, Clone, Copy)]
pub struct AgentCli {
    /// The name the SDK starts it by (`claude`): its launcher's file name.
    pub command: &'static str,
    /// The launcher standing for it, given the `rpcspec` executable and
    /// the peer's socket: a script that runs `rpcspec peer`.
    pub launcher: fn(peer: &Path, socket: &Path) -> String,
    /// Its script of one scenario.
    pub script: for<'a> fn(&'a Scenario) -> Box<dyn Agent + 'a>,
    /// Whether, once the client's adapter exited, the run waits longer
    /// for the CLI's stdin to end (an SDK closes it as it exits: a CLI
    /// left running is a finding).
    pub lingers: bool,
}
