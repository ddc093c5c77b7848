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
use rpcspec_matcher::{Direction, Id, IdKind, Kind, Shape, classify};

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
    /// What the head is: `None` until asked.
    head: Option<Head>,
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

    /// What the head is, as far as its order against the other stream
    /// goes: computed once per head.
    fn head(&mut self, dialect: Option<&rpcspec_matcher::Dialect>) -> &Head {
        if self.head.is_none() {
            let reply_id = |kind: Kind| match kind {
                Kind::Success { id }
                | Kind::Error { id: Some(id), .. }
                | Kind::Invalid {
                    shape: Shape::Response,
                    id: Some(id),
                } => Head::Reply(Some(id).filter(|id| id.kind() != IdKind::Null)),
                Kind::Error { id: None, .. } => Head::Reply(None),
                _ => Head::Other,
            };
            let head = match (self.queue.front(), dialect) {
                (Some(Event::Line(line)), Some(dialect)) => match line.as_str() {
                    Ok(text) => match classify(text, dialect).kind {
                        // A batch of replies waits for its first member's
                        // request.
                        Kind::Batch(members) => members
                            .into_iter()
                            .map(reply_id)
                            .find(|h| !matches!(h, Head::Other))
                            .unwrap_or(Head::Other),
                        kind => reply_id(kind),
                    },
                    Err(_) => Head::Other,
                },
                _ => Head::Other,
            };
            self.head = Some(head);
        }
        self.head.as_ref().expect("just set")
    }
}

/// A stream's next event, as far as its order goes.
enum Head {
    /// A reply with this id; `None`: with id null or none, which answers a
    /// message whose id could not be read.
    Reply(Option<Id>),
    /// Anything else: no order to keep against the other stream.
    Other,
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
        if matches!(streams[other].head, Some(Head::Reply(_))) {
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
    let session = checker.session.as_ref();
    let mut waiting = [false; 2];
    for i in [*turn, 1 - *turn] {
        if streams[i].queue.is_empty() {
            continue;
        }
        let asker = streams[1 - i].from;
        let patience = streams[i].waited >= PATIENCE.min(checker.opts.window / 2);
        // A reply waits until a request it could answer was read: its id
        // awaited, or, id null, anything of the asker's awaited.
        let ready = match (streams[i].head(dialect), session) {
            (Head::Other, _) => continue,
            (_, None) => true,
            (Head::Reply(Some(id)), Some(s)) => s.awaiting(asker, id).is_some(),
            (Head::Reply(None), Some(s)) => s.outstanding(asker) > 0,
        };
        if ready || patience {
            return Some(i);
        }
        waiting[i] = true;
    }
    // Then the rest in turn, so that neither stream runs far ahead.
    let other = [*turn, 1 - *turn]
        .into_iter()
        .find(|&i| !streams[i].queue.is_empty() && !waiting[i]);
    if let Some(i) = other {
        *turn = 1 - i;
        return Some(i);
    }
    (0..2).find(|&i| !streams[i].queue.is_empty())
}
