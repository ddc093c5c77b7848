//! A [`tokio_util::codec::Decoder`] over the framer (feature `tokio-util`),
//! for async servers that read with `FramedRead`.
//!
//! The decoder is the same sans-IO [`Framer`] behind tokio-util's trait: it
//! owns no reader and starts no task. Each item is an owned [`Event`], the
//! one the sync framer gives for the same bytes, so framing problems are
//! items with their byte offsets, never errors: an over-long line, bad
//! UTF-8 or a blank line costs that line, and the stream goes on.

use std::{collections::VecDeque, io};

use bytes::BytesMut;
use tokio_util::codec::Decoder;

use crate::{Config, Event, Framer};

/// Frames a byte stream into owned [`Event`]s, as [`Framer`] does, for
/// tokio-util's `FramedRead`.
///
/// * **Chunk independence.** The items are the events [`frame`](crate::frame)
///   returns for the whole stream, however the bytes arrive in the buffer.
/// * **Bounded memory.** [`Decoder::decode`] consumes every byte it is
///   given (the buffer is cleared, its capacity kept for the next read), so
///   the only record bytes held between reads are the framer's carry, at
///   most [`Config::max_line_len`]. A longer line is counted and skipped,
///   then reported as [`ProblemKind::Overlong`](crate::ProblemKind::Overlong).
/// * **Problems are items.** The error type is [`io::Error`] only because
///   the trait needs one; this decoder never returns an error.
/// * **End of stream.** [`Decoder::decode_eof`] gives what
///   [`Framer::finish`] does: a line cut off by the end of the stream is
///   [`ProblemKind::Truncated`](crate::ProblemKind::Truncated). After its
///   last item the decoder is ready for a new stream.
///
/// ```
/// use bytes::BytesMut;
/// use rpcspec_framer::{Config, Event, FramerCodec, ProblemKind};
/// use tokio_util::codec::Decoder;
///
/// let mut codec = FramerCodec::new(Config::default());
/// let mut buf = BytesMut::from(&b"{\"a\":1}\n\xFF\n{\"b\""[..]);
/// let Some(Event::Line(line)) = codec.decode(&mut buf).unwrap() else { panic!() };
/// assert_eq!(line.as_str().unwrap(), "{\"a\":1}");
/// let Some(Event::Problem(bad)) = codec.decode(&mut buf).unwrap() else { panic!() };
/// assert_eq!((bad.number, bad.offset), (2, 8));
/// assert_eq!(codec.decode(&mut buf).unwrap(), None);
/// let Some(Event::Problem(tail)) = codec.decode_eof(&mut buf).unwrap() else { panic!() };
/// assert_eq!(tail.kind, ProblemKind::Truncated);
/// assert_eq!(codec.decode_eof(&mut buf).unwrap(), None);
/// ```
#[derive(Debug, Clone)]
pub struct FramerCodec {
    framer: Framer,
    /// Events framed but not yet returned: one push can complete many.
    queue: VecDeque<Event<'static>>,
    /// Whether `decode_eof` has called `finish` for the current stream.
    finished: bool,
}

impl FramerCodec {
    /// A decoder for a new stream.
    pub fn new(config: Config) -> FramerCodec {
        FramerCodec {
            framer: Framer::new(config),
            queue: VecDeque::new(),
            finished: false,
        }
    }

    /// The framer underneath, for its position and buffer capacity.
    pub fn framer(&self) -> &Framer {
        &self.framer
    }
}

impl Default for FramerCodec {
    fn default() -> Self {
        FramerCodec::new(Config::default())
    }
}

impl Decoder for FramerCodec {
    type Item = Event<'static>;
    type Error = io::Error;

    fn decode(&mut self, src: &mut BytesMut) -> io::Result<Option<Event<'static>>> {
        if self.queue.is_empty() && !src.is_empty() {
            let queue = &mut self.queue;
            self.framer.push(src, |e| queue.push_back(e.into_owned()));
            src.clear();
            self.finished = false;
        }
        Ok(self.queue.pop_front())
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> io::Result<Option<Event<'static>>> {
        if let Some(event) = self.decode(src)? {
            return Ok(Some(event));
        }
        if !self.finished {
            self.finished = true;
            let queue = &mut self.queue;
            self.framer.finish(|e| queue.push_back(e.into_owned()));
        }
        let next = self.queue.pop_front();
        if next.is_none() {
            // Ready for a new stream, should the reader yield more.
            self.finished = false;
        }
        Ok(next)
    }
}
