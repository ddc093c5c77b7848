//! The input of a check, read on a thread of its own while the last chunk
//! is checked: reading a file is a copy the kernel makes, on a fast check
//! a sixth of the work (`perf` on `cargo xtask bench`'s file). Two buffers go
//! back and forth, so nothing is allocated per chunk. A check that stops
//! early (its output closed) leaves the thread blocked in `read` at worst,
//! and the process ends anyway.

use std::io::{self, Read};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread;

use rpcspec_framer::read::read_chunk;

/// Bytes read at once while the input comes fast.
const CHUNK: usize = 2 << 20;

/// A read returning less than this ends a chunk: the input is not coming
/// fast, and what came is checked now.
const SHORT: usize = 32 << 10;

/// The input: the reader thread holds its lock for good, or, if no thread
/// could start, the check reads through it in turn.
type Shared = Arc<Mutex<Box<dyn Read + Send>>>;

pub(super) struct Ahead {
    way: Way,
    /// The chunk last handed out, and its length.
    current: Option<(Vec<u8>, usize)>,
    /// The end of the input was handed out.
    ended: bool,
}

enum Way {
    Thread {
        full: Receiver<io::Result<(Vec<u8>, usize)>>,
        empty: SyncSender<Vec<u8>>,
    },
    /// No thread could start: read in turn.
    Inline(Shared),
}

impl Ahead {
    pub(super) fn new(input: impl Read + Send + 'static) -> Ahead {
        let input: Shared = Arc::new(Mutex::new(Box::new(input)));
        let (full_tx, full) = sync_channel::<io::Result<(Vec<u8>, usize)>>(1);
        let (empty, empty_rx) = sync_channel::<Vec<u8>>(2);
        let ours = Arc::clone(&input);
        let reader = move || {
            let mut input = ours.lock().unwrap_or_else(|e| e.into_inner());
            while let Ok(mut buf) = empty_rx.recv() {
                let read = fill(&mut *input, &mut buf);
                let end = !matches!(read, Ok(n) if n > 0);
                if full_tx.send(read.map(|n| (buf, n))).is_err() || end {
                    return;
                }
            }
        };
        let way = match thread::Builder::new()
            .name("check-read".into())
            .spawn(reader)
        {
            Ok(_) => {
                for _ in 0..2 {
                    let _ = empty.send(vec![0; CHUNK]);
                }
                Way::Thread { full, empty }
            }
            Err(_) => Way::Inline(input),
        };
        Ahead {
            way,
            current: None,
            ended: false,
        }
    }

    /// The next chunk of the input: empty at its end.
    pub(super) fn next(&mut self) -> io::Result<&[u8]> {
        match &mut self.way {
            Way::Thread { full, empty } => {
                if let Some((buf, _)) = self.current.take() {
                    // The reader has ended if this fails: nothing to read into.
                    let _ = empty.send(buf);
                }
                match full.recv() {
                    Ok(Ok(chunk)) => self.current = Some(chunk),
                    Ok(Err(e)) => return Err(e),
                    // The reader sends the end (an empty chunk) before it
                    // stops: without it, it died.
                    Err(_) if !self.ended => {
                        return Err(io::Error::other("the reading thread stopped"));
                    }
                    Err(_) => return Ok(&[]),
                }
            }
            Way::Inline(input) => {
                let (mut buf, _) = self.current.take().unwrap_or((vec![0; CHUNK], 0));
                let mut input = input.lock().unwrap_or_else(|e| e.into_inner());
                let n = fill(&mut *input, &mut buf)?;
                self.current = Some((buf, n));
            }
        }
        let chunk = self.current.as_ref().map_or(&[][..], |(buf, n)| &buf[..*n]);
        self.ended |= chunk.is_empty();
        Ok(chunk)
    }
}

/// Reads into `buf`: more than once while reads come full, so a fast input
/// is taken in large chunks and a slow one is not waited on.
fn fill(mut input: &mut (impl Read + ?Sized), buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        let got = match read_chunk(&mut input, &mut buf[n..]) {
            Ok(got) => got,
            // What came before the error is checked first; the next read
            // meets the error again.
            Err(_) if n > 0 => break,
            Err(e) => return Err(e),
        };
        n += got;
        if got < SHORT {
            break;
        }
    }
    Ok(n)
}
