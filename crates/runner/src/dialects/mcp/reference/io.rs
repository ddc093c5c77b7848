//! The reference MCP server's loop over stdin and stdout.

use std::io::{self, Read, Write};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use rpcspec_framer::read::read_chunk;
use rpcspec_framer::{Config, Event, Framer, ProblemKind};

use super::Server;

/// What the reader thread read.
enum Input {
    Line(String),
    Unreadable,
}

/// Frames `input` into lines and hands each to `each`. Returns when the
/// input ends (or cannot be read) or `each` says stop (`false`).
fn read_lines(mut input: impl Read, mut each: impl FnMut(Input) -> bool) {
    let mut framer = Framer::new(Config::default());
    let mut buf = vec![0; 64 * 1024];
    let mut pending = Vec::new();
    let take = |event: Event<'_>, pending: &mut Vec<Input>| {
        let input = match &event {
            Event::Line(line) => match line.as_str() {
                Ok(text) => Input::Line(text.to_owned()),
                Err(_) => Input::Unreadable,
            },
            Event::Problem(p) => match p.kind {
                // A last line without its newline is still answered.
                ProblemKind::Truncated => match std::str::from_utf8(&p.bytes) {
                    Ok(text) => Input::Line(text.to_owned()),
                    Err(_) => Input::Unreadable,
                },
                ProblemKind::InvalidUtf8 { .. } | ProblemKind::Overlong { .. } => Input::Unreadable,
                _ => return,
            },
        };
        pending.push(input);
    };
    loop {
        let n = match read_chunk(&mut input, &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        framer.push(&buf[..n], |e| take(e, &mut pending));
        for input in pending.drain(..) {
            if !each(input) {
                return;
            }
        }
    }
    framer.finish(|e| take(e, &mut pending));
    for input in pending {
        if !each(input) {
            return;
        }
    }
}

/// Serves `input` until it ends: a thread reads and frames it, this one
/// answers each line and, between lines, waits for the next line or the
/// next moment a pending call has something to say, whichever comes
/// first (no polling). Every message is written and flushed as made. At
/// the end of input pending calls are abandoned and it returns, unless
/// the server is the `lingers` mutant.
pub fn serve(
    mut server: Server,
    input: impl Read + Send + 'static,
    mut output: impl Write,
) -> io::Result<()> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || read_lines(input, |input| tx.send(input).is_ok()));
    loop {
        let got = match server.next_due() {
            Some(due) => match rx.recv_timeout(due.saturating_duration_since(Instant::now())) {
                Ok(input) => Some(input),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => break,
            },
            None => match rx.recv() {
                Ok(input) => Some(input),
                Err(_) => break,
            },
        };
        let now = Instant::now();
        let mut lines = match got {
            Some(Input::Line(line)) => server.on_line(&line, now),
            Some(Input::Unreadable) => server.on_unreadable(),
            None => Vec::new(),
        };
        lines.extend(server.on_tick(now));
        write(&mut output, &lines)?;
    }
    server.on_eof();
    if server.lingers() {
        loop {
            thread::sleep(Duration::from_secs(3600));
        }
    }
    Ok(())
}

/// [`serve`] for input that cannot move to a thread of its own: pending
/// calls only advance when a line arrives, and are finished (slept for)
/// at the end of input. For tests and library callers; `rpcspec serve`
/// uses [`serve`].
pub fn serve_blocking(
    mut server: Server,
    input: impl Read,
    mut output: impl Write,
) -> io::Result<()> {
    let mut result = Ok(());
    read_lines(input, |input| {
        let now = Instant::now();
        let mut lines = match input {
            Input::Line(line) => server.on_line(&line, now),
            Input::Unreadable => server.on_unreadable(),
        };
        lines.extend(server.on_tick(now));
        result = write(&mut output, &lines);
        result.is_ok()
    });
    result?;
    while let Some(due) = server.next_due() {
        thread::sleep(due.saturating_duration_since(Instant::now()));
        let lines = server.on_tick(Instant::now());
        write(&mut output, &lines)?;
    }
    Ok(())
}

fn write(output: &mut impl Write, lines: &[String]) -> io::Result<()> {
    for line in lines {
        output.write_all(line.as_bytes())?;
        output.write_all(b"\n")?;
        output.flush()?;
    }
    Ok(())
}
