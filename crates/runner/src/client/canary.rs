//! The canary of `twist = "network-ref"`: a TCP listener on the loopback
//! address whose URL a tool's input schema names in a `$ref`. A client
//! that fetches it dereferenced a network `$ref` (MCP 2026-07-28
//! basic/index, "`$ref` Resolution"). Nothing leaves the machine: the
//! listener is bound to 127.0.0.1 and answers every connection with a 404.
//!
//! Bounded: at most [`ACCEPTS_PER_POLL`] connections are taken a poll,
//! so a flood of them never holds up the run's loop; each of the first
//! [`HITS_KEPT`] is read on a thread of its own for its request line, at
//! most [`READ_WAIT`] and [`READ_CAP`] bytes; the rest are only counted.

use std::{
    io::{self, BufRead, BufReader, Read, Write},
    net::{TcpListener, TcpStream},
    sync::{Arc, Mutex},
    thread::{self, JoinHandle},
    time::Duration,
};

use super::twist::CANARY_PATH;

/// How long a connection is waited on for its request line.
const READ_WAIT: Duration = Duration::from_millis(200);

/// The most bytes read of a connection.
const READ_CAP: u64 = 2048;

/// The most request lines kept.
pub const HITS_KEPT: usize = 8;

/// The most connections taken in one [`Canary::poll`].
const ACCEPTS_PER_POLL: usize = 16;

/// The listener, and what reached it.
pub struct Canary {
    listener: TcpListener,
    lines: Arc<Mutex<Vec<String>>>,
    readers: Vec<JoinHandle<()>>,
    /// Every connection.
    pub count: usize,
}

impl Canary {
    /// A listener on an ephemeral port of 127.0.0.1.
    pub fn bind() -> io::Result<Canary> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        Ok(Canary {
            listener,
            lines: Arc::default(),
            readers: Vec::new(),
            count: 0,
        })
    }

    /// The URL the `$ref` names.
    pub fn url(&self) -> String {
        let port = self.listener.local_addr().map_or(0, |a| a.port());
        format!("http://127.0.0.1:{port}{CANARY_PATH}")
    }

    /// Takes the connections waiting (at most [`ACCEPTS_PER_POLL`]),
    /// without blocking.
    pub fn poll(&mut self) {
        for _ in 0..ACCEPTS_PER_POLL {
            let Ok((stream, _)) = self.listener.accept() else {
                return;
            };
            self.count += 1;
            // Past the kept ones, a connection is counted and closed unread.
            if self.readers.len() < HITS_KEPT {
                let lines = Arc::clone(&self.lines);
                self.readers.push(thread::spawn(move || {
                    let line = first_line(stream);
                    lines.lock().unwrap_or_else(|e| e.into_inner()).push(line);
                }));
            }
        }
    }

    /// The request lines read, once every reader has ended (each within
    /// [`READ_WAIT`]).
    pub fn finish(&mut self) -> Vec<String> {
        self.poll();
        for r in self.readers.drain(..) {
            let _ = r.join();
        }
        std::mem::take(&mut *self.lines.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// The first line of what `stream` sends within [`READ_WAIT`], answered
/// with a 404.
fn first_line(stream: TcpStream) -> String {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(READ_WAIT));
    let mut line = String::new();
    let mut reader = BufReader::new((&stream).take(READ_CAP));
    let _ = reader.read_line(&mut line);
    let _ = (&stream).write_all(b"HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n");
    let line = line.trim();
    if line.is_empty() {
        "(a connection that sent no request line)".to_owned()
    } else {
        line.chars().take(200).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fetch_of_the_url_is_a_hit_and_nothing_else_is() {
        let mut canary = Canary::bind().expect("bind");
        canary.poll();
        assert_eq!(canary.count, 0);
        let url = canary.url();
        let addr = url
            .strip_prefix("http://")
            .and_then(|r| r.split('/').next())
            .expect("host:port");
        let mut s = TcpStream::connect(addr).expect("connect");
        s.write_all(format!("GET {CANARY_PATH} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
            .expect("write");
        std::thread::sleep(Duration::from_millis(50));
        canary.poll();
        assert_eq!(canary.count, 1);
        assert_eq!(canary.finish(), vec![format!("GET {CANARY_PATH} HTTP/1.1")]);
    }
}
