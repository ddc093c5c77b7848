//! Two streams checked together: the client's and the server's, each
//! captured on its own (`tee` on each side of a pipe, a proxy's two logs),
//! with no clock in them. They are read in an order that could have
//! happened: each stream in its own order, and a reply never before the
//! request it answers. So the pairing is exact where a merged transcript
//! would have to be trusted, and a reply to a request its peer never sent
//! is still found (it waits at most [`PATIENCE`] of the other stream's
//! messages before it is read anyway).

use std::collections::VecDeque;
use std::io::{self, Read};
use std::time::Duration;

use rpcspec_framer::Event;
use rpcspec_matcher::{Direction, Id, Kind, classify};

use super::{Checker, Options, Out, Summary, ahead::Ahead};
use crate::capture::Capture;

/// How many messages of the other stream a reply waits for its request.
pub const PATIENCE: usize = 1024;

/// One of the two streams, read a chunk at a time.
struct Stream {
    from: Direction,
    input: Ahead,
    capture: Capture,
    /// Events read and not yet checked (at most one chunk's worth).
    queue: VecDeque<Event<'static>>,
    ended: bool,
    /// Lines held by the checker were flushed at the end.
    flushed: bool,
    bytes: u64,
    /// The head's reply id, if it is a reply with one: `None` until asked.
    head: Option<Option<Id>>,
    /// Messages of the other stream read while this head waited.
    waited: usize,
}

impl Stream {
    fn new(input: impl Read + Send + 'static, from: Direction, capture: Capture) -> Stream {
        Stream {
            from,
            input: Ahead::new(input),
            capture,
            queue: VecDeque::new(),
            ended: false,
            flushed: false,
            bytes: 0,
            head: None,
            waited: 0,
        }
    }

    /// Reads until an event is queued or the stream ends.
    fn fill(&mut self) -> io::Result<()> {
        while self.queue.is_empty() && !self.ended {
            let chunk = self.input.next()?;
            let queue = &mut self.queue;
            if chunk.is_empty() {
                self.capture
                    .finish(Duration::ZERO, |a| queue.push_back(a.event.into_owned()));
                self.ended = true;
            } else {
                self.bytes += chunk.len() as u64;
                self.capture.push(chunk, Duration::ZERO, |a| {
                    queue.push_back(a.event.into_owned())
                });
            }
        }
        Ok(())
    }

    /// The id of the reply at the head, if it is one whose request may be
    /// yet to come.
    fn head_reply(&mut self, checker_dialect: Option<&rpcspec_matcher::Dialect>) -> Option<&Id> {
        let dialect = checker_dialect?;
        if self.head.is_none() {
            let id = match self.queue.front() {
                Some(Event::Line(line)) => match line.as_str() {
                    Ok(text) => match classify(text, dialect).kind {
                        Kind::Success { id, .. } | Kind::Error { id: Some(id), .. } => Some(id),
                        Kind::Batch(members) => members.into_iter().find_map(|m| match m {
                            Kind::Success { id, .. } | Kind::Error { id: Some(id), .. } => Some(id),
                            _ => None,
                        }),
                        _ => None,
                    },
                    Err(_) => None,
                },
                _ => None,
            };
            self.head = Some(id);
        }
        self.head.as_ref().and_then(Option::as_ref)
    }
}

/// Checks the client's stream and the server's together: what [`check`]
/// (super::check) finds in a marked transcript of the same messages, each
/// finding naming its stream ([`Finding::stream`](super::Finding::stream)).
pub fn check_two(
    client: impl Read + Send + 'static,
    server: impl Read + Send + 'static,
    opts: &Options,
    sink: impl FnMut(Out<'_>) -> io::Result<()>,
) -> io::Result<Summary> {
    let mut checker = Checker::new(opts, sink);
    checker.two = true;
    let capture = Capture::new(checker.framing.clone());
    let mut streams = [
        Stream::new(client, Direction::ClientToServer, capture.clone()),
        Stream::new(server, Direction::ServerToClient, capture),
    ];
    // The stream whose lines the checker holds, and whose turn it is among
    // equals.
    let mut last = 0;
    let mut turn = 0;
    loop {
        for s in &mut streams {
            s.fill()?;
        }
        for s in &mut streams {
            if s.ended && s.queue.is_empty() && !s.flushed {
                checker.stream = Some(s.from);
                checker.flush();
                s.flushed = true;
            }
        }
        let Some(i) = choose(&checker, &mut streams, last, &mut turn) else {
            break;
        };
        let other = 1 - i;
        if streams[other].head.as_ref().is_some_and(Option::is_some) {
            streams[other].waited += 1;
        }
        let s = &mut streams[i];
        let event = s.queue.pop_front().expect("a stream chosen has an event");
        s.head = None;
        s.waited = 0;
        checker.stream = Some(s.from);
        checker.event(event);
        last = i;
        if let Some(e) = checker.failed.take() {
            return Err(e);
        }
    }
    let bytes = streams.iter().map(|s| s.bytes).sum();
    checker.finish(bytes)
}

/// The stream to read from next: the one whose lines are held as a
/// possible pretty-printed value; else a reply whose request was read (or
/// has waited long enough); else the other kinds in turn; else, both
/// heads being replies to requests not read, the client's.
fn choose<F: FnMut(Out<'_>) -> io::Result<()>>(
    checker: &Checker<'_, F>,
    streams: &mut [Stream; 2],
    last: usize,
    turn: &mut usize,
) -> Option<usize> {
    if checker.gather.holding() && !streams[last].queue.is_empty() {
        return Some(last);
    }
    let dialect = checker.session.as_ref().map(|s| s.dialect());
    let mut waiting = [false; 2];
    for i in [*turn, 1 - *turn] {
        if streams[i].queue.is_empty() {
            continue;
        }
        let asker = streams[1 - i].from;
        let patience = streams[i].waited >= PATIENCE.min(checker.opts.window / 2);
        let session = checker.session.as_ref();
        if let Some(id) = streams[i].head_reply(dialect) {
            if patience || session.is_some_and(|s| s.awaiting(asker, id).is_some()) {
                return Some(i);
            }
            waiting[i] = true;
        }
    }
    let other = [*turn, 1 - *turn]
        .into_iter()
        .find(|&i| !streams[i].queue.is_empty() && !waiting[i]);
    if let Some(i) = other {
        *turn = 1 - i;
        return Some(i);
    }
    (0..2).find(|&i| !streams[i].queue.is_empty())
}
