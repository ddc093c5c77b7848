//! The canary of `twist = "network-ref"`: a TCP listener on the loopback
//! address whose URL a tool's input schema names in a `$ref`. A client
//! that fetches it dereferenced a network `$ref` (MCP 2026-07-28
//! basic/index, "`$ref` Resolution"). Nothing leaves the machine: the
//! listener is bound to 127.0.0.1 and answers every connection with a 404.
//!
//! Bounded: each of the first [`HITS_KEPT`] connections is read for at
//! most [`READ_WAIT`] and [`READ_CAP`] bytes, its request line kept; the
//! rest are only counted.

use std::{
    io::{self, Read, Write},
    net::{TcpListener, TcpStream},
    time::Duration,
};

use super::twist::CANARY_PATH;

/// How long a connection is waited on for its request line.
const READ_WAIT: Duration = Duration::from_millis(200);

/// The most bytes read of a connection.
const READ_CAP: u64 = 2048;

/// The most request lines kept.
pub const HITS_KEPT: usize = 8;

/// The listener, and what reached it.
pub struct Canary {
    listener: TcpListener,
    /// The first line of each connection's request (at most
    /// [`HITS_KEPT`]).
    pub hits: Vec<String>,
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
            hits: Vec::new(),
            count: 0,
        })
    }

    /// The URL the `$ref` names.
    pub fn url(&self) -> String {
        let port = self.listener.local_addr().map_or(0, |a| a.port());
        format!("http://127.0.0.1:{port}{CANARY_PATH}")
    }

    /// Takes every connection waiting, without blocking on a new one.
    pub fn poll(&mut self) {
        while let Ok((stream, _)) = self.listener.accept() {
            self.count += 1;
            // Past the kept ones, a connection is counted and closed
            // unread: a flood costs no waiting.
            if self.hits.len() < HITS_KEPT {
                self.hits.push(first_line(stream));
            }
        }
    }
}

/// The first line of what `stream` sends within [`READ_WAIT`], answered
/// with a 404.
fn first_line(mut stream: TcpStream) -> String {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(READ_WAIT));
    let mut buf = Vec::new();
    let _ = (&mut stream).take(READ_CAP).read_to_end(&mut buf);
    let _ = stream.write_all(b"HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n");
    let text = String::from_utf8_lossy(&buf);
    let line = text.lines().next().unwrap_or_default().trim();
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
        assert_eq!(canary.hits, vec![format!("GET {CANARY_PATH} HTTP/1.1")]);
    }
}
