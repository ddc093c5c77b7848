//! One scenario against a client: spawn it with the peer's argv in place of
//! `{server}`, wait for the peer to connect, play the scenario's script on
//! what the client writes, read what its adapter reports, and hand all of
//! it to the graders.
//!
//! | wait | how long | ends in |
//! |---|---|---|
//! | the client starting its server (the peer connecting) | `--startup-timeout` (10 s) from the spawn | TIMEOUT, or CRASH if the client exited |
//! | the series: every step reported, the adapter exited | `--timeout` (20 s for this role) from the connection | TIMEOUT (`client.ends`), both process groups killed |
//! | what the peer had still to say once the adapter exited | 200 ms (Claude: 2 s for the CLI to see its stdin end) | the scenario is graded |
//! | the adapter's stdout, held open by a descendant after it exited | 1 s | the scenario is graded on what it reported |
//!
//! The peer is the client's descendant: it carries the client's mark
//! (`crate::reap`) or, when the client cleared its environment, lies in
//! its process tree, and is killed with it when the scenario ends.

use std::{
    collections::HashMap,
    ffi::OsString,
    path::Path,
    process::ExitStatus,
    time::{Duration, Instant},
};

use crate::capture::{Arrival, Capture, Framing};
use rpcspec_framer::{Event, ProblemKind};

use super::{
    Limits, Scenario,
    agent::Agent,
    canary::Canary,
    grade::{self, Observed, Outcome, ServerEnd},
    peer::{FromPeer, Link, Listener, ToPeer},
    script::{Log, Server},
    twist::Twist,
};
use crate::{
    budget::Budget,
    drive::{Drive, Meter, Readiness},
    report::{Bytes, CaseResult, Evidence, Halt, Received, Sent, Verdict},
    target::{Msg, Target, describe_exit},
};

/// The environment variable holding the server's argv as a JSON array of
/// strings, for clients that read their server from a config.
pub const SERVER_ENV: &str = "RPCSPEC_SERVER";

/// The argument replaced by the server's argv.
pub const PLACEHOLDER: &str = "{server}";

/// How long the peer's last reports are waited for once the adapter
/// exited.
const PEER_GRACE: Duration = Duration::from_millis(200);

/// How long a CLI that lingers ([`super::agent::AgentCli::lingers`]) is given to see its
/// stdin end once the SDK's adapter exited, before it counts as left
/// running.
const CLI_GRACE: Duration = Duration::from_secs(2);

/// How long the adapter's stdout may stay open after it exited (held by
/// a descendant) before the scenario ends anyway.
const STDOUT_GRACE: Duration = Duration::from_secs(1);

/// How often the case thread looks at the peer while it waits on the
/// client.
const POLL: Duration = Duration::from_millis(2);

/// The client's argv with the server's in place of `{server}`: an
/// argument that is `{server}` becomes the server's arguments; one that
/// holds it among other text (`sh -c "… {server}"`) gets the server's
/// command line, quoted for a POSIX shell.
pub fn client_argv(client: &[OsString], server: &[OsString]) -> Vec<OsString> {
    let mut out = Vec::new();
    for arg in client {
        if arg == PLACEHOLDER {
            out.extend(server.iter().cloned());
        } else if let Some(text) = arg.to_str().filter(|t| t.contains(PLACEHOLDER)) {
            let line: Vec<String> = server
                .iter()
                .map(|a| shell_quote(&a.to_string_lossy()))
                .collect();
            out.push(text.replace(PLACEHOLDER, &line.join(" ")).into());
        } else {
            out.push(arg.clone());
        }
    }
    out
}

/// `text` quoted for a POSIX shell (left bare when it needs no quotes).
fn shell_quote(text: &str) -> String {
    if !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/-_.=:,+@".contains(&b))
    {
        return text.to_owned();
    }
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The scripted peer: a JSON-RPC server (with MCP's and LSP's), or the
/// dialect's scripted CLI.
enum Script<'a> {
    Rpc(Box<Server<'a>>),
    Cli(Box<dyn Agent + 'a>),
}

impl Script<'_> {
    fn on_line(&mut self, line: &[u8], at: Duration) -> Vec<ToPeer> {
        match self {
            Script::Rpc(s) => s.on_line(line, at),
            Script::Cli(c) => c.on_line(line, at),
        }
    }

    fn on_eof(&mut self, at: Duration) -> Vec<ToPeer> {
        match self {
            Script::Rpc(s) => s.on_eof(at),
            Script::Cli(c) => c.on_eof(at),
        }
    }

    fn next_due(&self) -> Option<Duration> {
        match self {
            Script::Rpc(s) => s.next_due(),
            Script::Cli(c) => c.next_due(),
        }
    }

    fn on_tick(&mut self, at: Duration) -> Vec<ToPeer> {
        match self {
            Script::Rpc(s) => s.on_tick(at),
            Script::Cli(c) => c.on_tick(at),
        }
    }
}

/// What the run saw, beside the script's own record.
struct Seen {
    reports: Vec<Vec<u8>>,
    report_problems: Vec<String>,
    client_lines: Vec<Vec<u8>>,
    client_problems: Vec<(ProblemKind, u64, u64)>,
    sent: Vec<Sent>,
    received: Vec<Received>,
    evidence: Vec<Evidence>,
}

/// Runs `sc` against `client`, whose server is `peer` (`rpcspec peer`),
/// both sides framed as `framing` says.
pub fn run_scenario(
    sc: &Scenario,
    framing: &Framing,
    client: &Target,
    peer: &Path,
    limits: Limits,
    budget: &Budget,
    readiness: &Readiness,
) -> CaseResult {
    let started = Instant::now();
    let mut result = CaseResult::new(
        sc.meta.id.clone(),
        "stdio".to_owned(),
        sc.meta.title.clone(),
        sc.meta.section.clone(),
    );
    if let Some(halt) = readiness.halted() {
        halt.apply(&mut result);
        return result;
    }
    let (listener, mut drive, mut script, mut canary) =
        match start(sc, framing, client, peer, budget, started) {
            Ok(started) => started,
            Err(e) => {
                result.evidence.push(*e);
                result.settle();
                return result;
            }
        };
    let lingers = sc.protocol.play().cli.is_some_and(|c| c.lingers);
    let mut play = Play::new(framing, limits, budget, started, lingers);
    play.run(&listener, &mut drive, &mut script, &mut canary);
    let canary_seen = canary.as_mut().map(|c| (c.count, c.finish()));
    let connected = play.link.is_some();
    if connected {
        readiness.heard();
    } else if play.timed_out && play.exit.is_none() {
        // A client that starts no server on its first runs starts none.
        readiness.unheard(Halt {
            verdict: Verdict::Timeout,
            message: format!(
                "the client did not start its server within {:?} (--startup-timeout): is `{{server}}` \
                 among its arguments, or does it read ${SERVER_ENV}? does it need a subcommand to \
                 start a session?",
                limits.startup
            ),
        });
    }
    if connected && listener.accept().is_some() {
        play.seen.evidence.push(Evidence::note(
            Verdict::Pass,
            "the client started its server more than once: only the first one was scripted".into(),
        ));
    }
    if play.timed_out {
        drive.kill();
    }
    let stderr = drive.stderr_tail();
    drop(play.link.take());
    drop(drive);
    let Play {
        mut seen,
        exit,
        timed_out,
        peer_eof,
        peer_gone,
        ..
    } = play;
    result.exit = exit.map(describe_exit);
    result.stderr = String::from_utf8_lossy(&stderr).into_owned();
    let none = Log::default();
    let (log, agent) = match &script {
        Script::Rpc(s) => (&s.log, None),
        Script::Cli(c) => (&none, Some(&**c)),
    };
    let session =
        |o: &Observed<'_>, outcomes: &HashMap<&'static str, Outcome>, out: &mut Vec<Evidence>| {
            if let Some(agent) = agent {
                agent.grade(o, outcomes, out);
            }
        };
    let observed = Observed {
        scenario: sc,
        framing,
        log,
        connected,
        timed_out,
        exit: exit.map(|s| (s.code(), describe_exit(s))),
        limits,
        reports: &seen.reports,
        report_problems: &seen.report_problems,
        client_lines: &seen.client_lines,
        client_problems: &seen.client_problems,
        canary: canary_seen.as_ref().map(|(n, hits)| (*n, &hits[..])),
        server_end: match (peer_eof, peer_gone) {
            (true, _) => ServerEnd::InputClosed,
            (false, true) => ServerEnd::Killed,
            (false, false) => ServerEnd::Running,
        },
    };
    result.evidence = grade::grade(&observed, agent.map(|_| &session as &grade::Session<'_>));
    result.evidence.append(&mut seen.evidence);
    result.sent = seen.sent;
    result.received = seen.received;
    result.duration = started.elapsed();
    result.settle();
    result.fit(budget);
    result
}

/// Everything a scenario needs before it plays: the peer's socket, the
/// client started with its server's argv (the peer, or a launcher standing
/// for the dialect's CLI), the script, and the canary of a twist that
/// needs one.
fn start<'s>(
    sc: &'s Scenario,
    framing: &Framing,
    client: &Target,
    peer: &Path,
    budget: &Budget,
    started: Instant,
) -> Result<(Listener, Drive, Script<'s>, Option<Canary>), Box<Evidence>> {
    let listener = Listener::new().map_err(|e| {
        Box::new(Evidence::note(
            Verdict::Error,
            format!("cannot make the peer's socket: {e}"),
        ))
    })?;
    let mut server: Vec<OsString> = vec![
        peer.as_os_str().to_owned(),
        "peer".into(),
        "--connect".into(),
        listener.path().into_os_string(),
    ];
    // An SDK starts its CLI from one path: a launcher stands for it.
    let cli = sc.protocol.play().cli;
    if let Some(c) = cli {
        let path = listener.path().with_file_name(c.command);
        let text = (c.launcher)(peer, &listener.path());
        crate::target::write_executable(&path, text.as_bytes()).map_err(|e| {
            Box::new(Evidence::note(
                Verdict::Error,
                format!("cannot write the CLI's launcher {}: {e}", path.display()),
            ))
        })?;
        server = vec![path.into_os_string()];
    }
    let server_json = serde_json::to_string(
        &server
            .iter()
            .map(|a| a.to_string_lossy())
            .collect::<Vec<_>>(),
    )
    .expect("strings serialize");
    let target = Target {
        argv: client_argv(&client.argv, &server),
    };
    let drive =
        Drive::spawn_with(&target, &[(SERVER_ENV, &server_json)], budget).map_err(|e| *e)?;
    let mut script = match cli {
        Some(c) => Script::Cli((c.script)(sc)),
        None => Script::Rpc(Box::new(Server::new(sc, started, framing))),
    };
    // A `$ref` to a listener on the loopback address: a fetch is a hit.
    let mut canary = None;
    if sc.twist == Some(Twist::NetworkRef)
        && let Script::Rpc(server) = &mut script
    {
        let c = Canary::bind().map_err(|e| {
            Box::new(Evidence::note(
                Verdict::Error,
                format!("cannot listen on the loopback address for the canary: {e}"),
            ))
        })?;
        server.set_canary(c.url());
        canary = Some(c);
    }
    Ok((listener, drive, script, canary))
}

/// A scenario as it plays: what was seen, and how each side ended.
struct Play<'b> {
    limits: Limits,
    budget: &'b Budget,
    /// The dialect's CLI lingers ([`super::agent::AgentCli::lingers`]).
    lingers: bool,
    seen: Seen,
    /// The bytes of each write kept for the report.
    kept: usize,
    reports: Capture,
    from_client: Capture,
    client_meter: Meter,
    /// The peer, once the client started it.
    link: Option<Link>,
    deadline: Instant,
    exit: Option<ExitStatus>,
    closed: bool,
    timed_out: bool,
    peer_gone: bool,
    peer_eof: bool,
    ended_at: Option<Instant>,
    exited_at: Option<Instant>,
}

impl<'b> Play<'b> {
    fn new(
        framing: &Framing,
        limits: Limits,
        budget: &'b Budget,
        started: Instant,
        lingers: bool,
    ) -> Play<'b> {
        Play {
            limits,
            budget,
            lingers,
            seen: Seen {
                reports: Vec::new(),
                report_problems: Vec::new(),
                client_lines: Vec::new(),
                client_problems: Vec::new(),
                sent: Vec::new(),
                received: Vec::new(),
                evidence: Vec::new(),
            },
            kept: budget.kept_bytes(),
            reports: Capture::new(Framing::ndjson()),
            from_client: Capture::new(framing.clone()),
            client_meter: Meter::new(budget),
            link: None,
            deadline: started + limits.startup,
            exit: None,
            closed: false,
            timed_out: false,
            peer_gone: false,
            peer_eof: false,
            ended_at: None,
            exited_at: None,
        }
    }

    /// Plays until the adapter and the peer have both ended, or the
    /// deadline passes (from the spawn to the peer's connection, then from
    /// there to the adapter's exit).
    fn run(
        &mut self,
        listener: &Listener,
        drive: &mut Drive,
        script: &mut Script<'_>,
        canary: &mut Option<Canary>,
    ) {
        loop {
            let now = Instant::now();
            if self.link.is_none()
                && let Some(l) = listener.accept()
            {
                self.link = Some(l);
                self.deadline = now + self.limits.timeout;
            }
            self.relay(drive, script);
            if self.ended(now) {
                break;
            }
            if let Some(c) = canary {
                c.poll();
            }
            if now >= self.deadline {
                self.timed_out = true;
                break;
            }
            self.adapter(drive, (now + POLL).min(self.deadline));
        }
    }

    /// Hands the script what the peer relayed and what fell due, and the
    /// peer the script's orders.
    fn relay(&mut self, drive: &mut Drive, script: &mut Script<'_>) {
        let Some(link) = self.link.take() else {
            return;
        };
        while let Some(ev) = link.try_next() {
            let at = drive.elapsed();
            let orders = self.on_peer(ev, at, drive, script);
            send(&link, orders, at, self.kept, &mut self.seen.sent);
        }
        let at = drive.elapsed();
        if script.next_due().is_some_and(|due| due <= at) {
            let orders = script.on_tick(at);
            send(&link, orders, at, self.kept, &mut self.seen.sent);
        }
        self.link = Some(link);
    }

    /// The script's orders for one event of the peer's.
    fn on_peer(
        &mut self,
        ev: FromPeer,
        at: Duration,
        drive: &mut Drive,
        script: &mut Script<'_>,
    ) -> Vec<ToPeer> {
        let kept = self.kept;
        match ev {
            FromPeer::Hello(_) => Vec::new(),
            FromPeer::Args(args) => match script {
                Script::Cli(c) => c.on_args(args, at),
                Script::Rpc(_) => Vec::new(),
            },
            FromPeer::Input(mut bytes) => {
                let cap = self.client_meter.take(&mut bytes);
                let mut orders = Vec::new();
                if let Script::Cli(c) = script {
                    c.on_input(&bytes);
                }
                let seen = &mut self.seen;
                self.from_client.push(&bytes, at, |a| {
                    on_client_event(a, kept, seen, script, &mut orders)
                });
                if let Some(cap) = cap {
                    self.seen.evidence.push(Evidence::flood(
                        format!("the client wrote more than {cap} to its server; stopped"),
                        self.budget,
                    ));
                    drive.kill();
                }
                orders
            }
            FromPeer::Eof => {
                self.peer_eof = !self.peer_gone;
                let mut orders = Vec::new();
                let seen = &mut self.seen;
                self.from_client
                    .finish(at, |a| on_client_event(a, kept, seen, script, &mut orders));
                orders.extend(script.on_eof(at));
                orders
            }
            FromPeer::Exiting(_) => {
                if let Script::Cli(c) = script {
                    c.on_exiting(at);
                }
                Vec::new()
            }
            FromPeer::Gone => {
                self.peer_gone = true;
                Vec::new()
            }
        }
    }

    /// Whether the scenario is over at `now`: the adapter exited, its
    /// stdout ended (or a descendant held it past [`STDOUT_GRACE`]), and
    /// the peer is gone or its grace has passed.
    fn ended(&mut self, now: Instant) -> bool {
        // A descendant may hold the adapter's stdout open after it exited:
        // what it reported by then is what counts.
        let stdout_done = self.closed
            || self
                .exited_at
                .is_some_and(|at: Instant| now >= at + STDOUT_GRACE);
        if !stdout_done || self.exit.is_none() {
            return false;
        }
        let end = *self.ended_at.get_or_insert(now);
        let grace = if self.lingers && !self.peer_eof {
            CLI_GRACE
        } else {
            PEER_GRACE
        };
        self.peer_gone || self.link.is_none() || now >= end + grace
    }

    /// Takes what the adapter did until `wait`: a report line, the end of
    /// its stdout, its exit.
    fn adapter(&mut self, drive: &mut Drive, wait: Instant) {
        let seen = &mut self.seen;
        match drive.next(wait) {
            Some(Msg::Stdout(bytes)) => {
                self.reports
                    .push(&bytes, drive.elapsed(), |a| on_report(a.event, seen));
            }
            Some(Msg::StdoutClosed) => {
                self.closed = true;
                self.reports
                    .finish(drive.elapsed(), |a| on_report(a.event, seen));
            }
            Some(Msg::Exited(status)) => {
                self.exit = Some(status);
                self.exited_at = Some(Instant::now());
            }
            Some(_) | None => {}
        }
        if let Some(flood) = drive.take_flood() {
            self.seen.evidence.push(flood);
        }
    }
}

/// Hands the script's orders to the peer, keeping each write for the
/// report.
fn send(link: &Link, orders: Vec<ToPeer>, at: Duration, kept: usize, sent: &mut Vec<Sent>) {
    for order in orders {
        if let ToPeer::Write(bytes) = &order {
            sent.push(Sent {
                at_ms: at.as_millis() as u64,
                bytes: Bytes::head(bytes, kept),
            });
        }
        link.send(order);
    }
}

fn on_client_event(
    arrival: Arrival<'_>,
    kept: usize,
    seen: &mut Seen,
    script: &mut Script<'_>,
    orders: &mut Vec<ToPeer>,
) {
    if !arrival.bytes().is_empty() || matches!(arrival.event, Event::Line(_)) {
        seen.received.push(arrival.received(kept));
    }
    let at = arrival.at;
    match arrival.event {
        Event::Line(line) => {
            orders.extend(script.on_line(&line.bytes, at));
            seen.client_lines.push(line.bytes.into_owned());
        }
        Event::Problem(p) => {
            seen.client_problems.push((p.kind, p.number, p.offset));
        }
    }
}

fn on_report(e: Event<'_>, seen: &mut Seen) {
    match e {
        Event::Line(line) => seen.reports.push(line.bytes.into_owned()),
        Event::Problem(p) if matches!(p.kind, ProblemKind::Blank | ProblemKind::Bom) => {}
        Event::Problem(p) => seen.report_problems.push(format!(
            "line {} of its stdout (byte {}): {}",
            p.number, p.offset, p.kind
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_replaces_its_placeholder_alone_or_inside_a_shell_line() {
        let server: Vec<OsString> = vec![
            "/bin/rpcspec".into(),
            "peer".into(),
            "--connect".into(),
            "/tmp/a b/s".into(),
        ];
        let argv = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(
            client_argv(&argv(&["python3", "a.py", "{server}", "-v"]), &server),
            argv(&[
                "python3",
                "a.py",
                "/bin/rpcspec",
                "peer",
                "--connect",
                "/tmp/a b/s",
                "-v"
            ])
        );
        assert_eq!(
            client_argv(&argv(&["sh", "-c", "exec node c.js {server}"]), &server),
            argv(&[
                "sh",
                "-c",
                "exec node c.js /bin/rpcspec peer --connect '/tmp/a b/s'"
            ])
        );
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }
}
