//! A blocking adapter from [`std::io::Read`] to owned framing events, for
//! callers that have a reader rather than chunks. This module only drives a
//! reader it is given; the framer itself never does I/O.

use std::{collections::VecDeque, io};

use crate::{Config, Event, Framer};

/// Frames everything a reader yields. An iterator of owned events; a read
/// error is yielded once and ends the iteration, as does the end of input
/// (after the events of [`Framer::finish`]).
///
/// ```
/// use rpcspec_framer::{Config, Event, read::Events};
/// let input: &[u8] = b"{\"a\":1}\n\n{\"b\":2}\n";
/// let lines = Events::new(input, Config::default())
///     .filter(|e| matches!(e, Ok(Event::Line(_))))
///     .count();
/// assert_eq!(lines, 2);
/// ```
#[derive(Debug)]
pub struct Events<R> {
    reader: R,
    framer: Framer,
    queue: VecDeque<Event<'static>>,
    chunk: Box<[u8]>,
    done: bool,
}

/// Size of each read.
const CHUNK: usize = 64 * 1024;

/// One `read` into `buf`, retried while it is interrupted: how many bytes
/// came, 0 at the end of input. For callers that push chunks themselves
/// (to keep the framer's borrowed events) rather than use [`Events`].
pub fn read_chunk(reader: &mut impl io::Read, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match reader.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            other => return other,
        }
    }
}

impl<R: io::Read> Events<R> {
    /// Frames `reader` with `config`, reading 64 KiB at a time.
    pub fn new(reader: R, config: Config) -> Events<R> {
        Events {
            reader,
            framer: Framer::new(config),
            queue: VecDeque::new(),
            chunk: vec![0; CHUNK].into_boxed_slice(),
            done: false,
        }
    }

    /// Bytes read so far.
    pub fn position(&self) -> u64 {
        self.framer.position()
    }
}

impl<R: io::Read> Iterator for Events<R> {
    type Item = io::Result<Event<'static>>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(event) = self.queue.pop_front() {
                return Some(Ok(event));
            }
            if self.done {
                return None;
            }
            let queue = &mut self.queue;
            match read_chunk(&mut self.reader, &mut self.chunk) {
                Ok(0) => {
                    self.done = true;
                    self.framer.finish(|e| queue.push_back(e.into_owned()));
                }
                Ok(n) => self
                    .framer
                    .push(&self.chunk[..n], |e| queue.push_back(e.into_owned())),
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
    }
}
