//! A small HTTP/1.1 client for streaming endpoints: one POST, the response
//! read as it arrives, chunk by chunk, with the time of each read. No
//! crate: the point is to see the body exactly as the server framed it
//! (chunk boundaries, `Content-Length` or read-until-close), which client
//! libraries hide. `http://` only; loopback in the tests, any host for
//! users.

use std::{
    io::{self, BufRead, BufReader, Read, Write},
    net::{TcpStream, ToSocketAddrs},
    time::{Duration, Instant},
};

/// A parsed `http://host[:port]/path` URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url {
    /// Host name or address, as written.
    pub host: String,
    /// Port (80 when not written).
    pub port: u16,
    /// Path and query, `/` when empty.
    pub path: String,
}

impl Url {
    /// Parses an `http://` URL; the error says what is wrong.
    pub fn parse(url: &str) -> Result<Url, String> {
        let rest = url.strip_prefix("http://").ok_or_else(|| {
            format!("`{url}`: only http:// URLs are supported (put a TLS proxy in front)")
        })?;
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
            // An IPv6 literal: `[::1]` or `[::1]:8080`.
            let (host, after) = rest
                .split_once(']')
                .ok_or_else(|| format!("`{url}`: unclosed `[` in the host"))?;
            let port = match after {
                "" => 80,
                p => p
                    .strip_prefix(':')
                    .and_then(|p| p.parse::<u16>().ok())
                    .ok_or_else(|| format!("`{url}`: bad port `{after}`"))?,
            };
            (host, port)
        } else {
            match authority.rsplit_once(':') {
                Some((h, p)) => (
                    h,
                    p.parse::<u16>()
                        .map_err(|_| format!("`{url}`: bad port `{p}`"))?,
                ),
                None => (authority, 80),
            }
        };
        if host.is_empty() {
            return Err(format!("`{url}`: no host"));
        }
        Ok(Url {
            host: host.to_owned(),
            port,
            path: path.to_owned(),
        })
    }
}

/// How the body was delimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyFraming {
    /// `Transfer-Encoding: chunked`.
    Chunked,
    /// `Content-Length`: the whole body sized before it was sent.
    Length(u64),
    /// Read until the server closed the connection.
    Close,
}

/// The head of a response.
#[derive(Debug, Clone)]
pub struct Head {
    /// The status code.
    pub status: u16,
    /// The status line, as received.
    pub status_line: String,
    /// Header (lower-case name, value), in order.
    pub headers: Vec<(String, String)>,
    /// How the body is delimited.
    pub framing: BodyFraming,
}

impl Head {
    /// The first header called `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// How a body ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyEnd {
    /// As its framing says: the last chunk, the full length, or the close.
    Complete,
    /// The connection closed (or failed) before the framing said the body
    /// was complete.
    Cut(String),
    /// The deadline passed.
    Timeout,
    /// The caller stopped reading (`on_body` returned false).
    Stopped,
}

/// Sends `POST url` with a JSON `body`, then hands the response's head to
/// `on_head` and each piece of body to `on_body` as it arrives (a chunk of
/// a chunked body, or the bytes of one read otherwise), with the time since
/// the request was sent; `on_body` returns false to stop reading.
/// Informational (1xx) heads are skipped. Everything is bounded by
/// `deadline` but the name lookup, which the system resolver bounds.
pub fn post(
    url: &Url,
    body: &[u8],
    deadline: Instant,
    on_head: &mut dyn FnMut(&Head),
    on_body: &mut dyn FnMut(&[u8], Duration) -> bool,
) -> Result<BodyEnd, String> {
    let remaining = || deadline.saturating_duration_since(Instant::now());
    let addr = (url.host.as_str(), url.port)
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {}: {e}", url.host))?
        .next()
        .ok_or_else(|| format!("{} has no address", url.host))?;
    let stream = TcpStream::connect_timeout(&addr, remaining().max(Duration::from_millis(1)))
        .map_err(|e| format!("cannot connect to {}:{}: {e}", url.host, url.port))?;
    let _ = stream.set_nodelay(true);
    let _ = stream.set_write_timeout(Some(remaining().max(Duration::from_millis(1))));
    let mut writer = stream
        .try_clone()
        .map_err(|e| format!("socket clone: {e}"))?;
    let request = format!(
        "POST {} HTTP/1.1\r\nHost: {}:{}\r\nContent-Type: application/json\r\n\
         Accept: application/x-ndjson, application/jsonl, application/json-seq, application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\nUser-Agent: rpcspec\r\n\r\n",
        url.path,
        if url.host.contains(':') {
            format!("[{}]", url.host)
        } else {
            url.host.clone()
        },
        url.port,
        body.len()
    );
    writer
        .write_all(request.as_bytes())
        .and_then(|()| writer.write_all(body))
        .and_then(|()| writer.flush())
        .map_err(|e| format!("cannot send the request: {e}"))?;
    let sent = Instant::now();
    let mut reader = Deadlined {
        inner: BufReader::new(stream),
        deadline,
    };
    let head = loop {
        match read_head(&mut reader) {
            // 100 Continue, 103 Early Hints: the real head follows.
            Ok(h) if (100..200).contains(&h.status) && h.status != 101 => continue,
            Ok(h) => break h,
            Err(e) if e.kind() == io::ErrorKind::TimedOut => return Ok(BodyEnd::Timeout),
            Err(e) => return Err(format!("bad response head: {e}")),
        }
    };
    on_head(&head);
    let mut stopped = false;
    let mut take = |b: &[u8]| {
        stopped = !on_body(b, sent.elapsed());
        !stopped
    };
    let result = match head.framing {
        BodyFraming::Chunked => read_chunked(&mut reader, &mut take),
        BodyFraming::Length(n) => read_sized(&mut reader, Some(n), &mut take),
        BodyFraming::Close => read_sized(&mut reader, None, &mut take),
    };
    Ok(match result {
        _ if stopped => BodyEnd::Stopped,
        Ok(()) => BodyEnd::Complete,
        Err(e) if e.kind() == io::ErrorKind::TimedOut => BodyEnd::Timeout,
        Err(e) => BodyEnd::Cut(e.to_string()),
    })
}

/// A reader whose every read waits at most until the deadline.
struct Deadlined {
    inner: BufReader<TcpStream>,
    deadline: Instant,
}

impl Deadlined {
    fn arm(&self) -> io::Result<()> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(io::ErrorKind::TimedOut, "deadline passed"));
        }
        self.inner.get_ref().set_read_timeout(Some(left))
    }
}

fn timed_out(e: io::Error) -> io::Error {
    match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => {
            io::Error::new(io::ErrorKind::TimedOut, "deadline passed")
        }
        _ => e,
    }
}

impl Read for Deadlined {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.arm()?;
        self.inner.read(buf).map_err(timed_out)
    }
}

impl BufRead for Deadlined {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.arm()?;
        self.inner.fill_buf().map_err(timed_out)
    }
    fn consume(&mut self, n: usize) {
        self.inner.consume(n);
    }
}

/// Longest status or header line accepted.
const MAX_HEAD_LINE: usize = 16 * 1024;

fn read_line(r: &mut impl BufRead) -> io::Result<String> {
    let mut line = Vec::new();
    r.take(MAX_HEAD_LINE as u64 + 2)
        .read_until(b'\n', &mut line)?;
    if line.last() != Some(&b'\n') {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            if line.len() > MAX_HEAD_LINE {
                "a head line over 16 KiB".to_owned()
            } else {
                "the connection closed inside the head".to_owned()
            },
        ));
    }
    line.pop();
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    String::from_utf8(line)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "a head line is not UTF-8"))
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

fn read_head(r: &mut impl BufRead) -> io::Result<Head> {
    let status_line = read_line(r)?;
    let mut parts = status_line.splitn(3, ' ');
    let version = parts.next().unwrap_or_default();
    let status = parts
        .next()
        .and_then(|s| s.parse::<u16>().ok())
        .filter(|_| version.starts_with("HTTP/1."))
        .ok_or_else(|| invalid(format!("not an HTTP/1.x status line: {status_line:?}")))?;
    let mut headers = Vec::new();
    loop {
        let line = read_line(r)?;
        if line.is_empty() {
            break;
        }
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| invalid(format!("not a header: {line:?}")))?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        if headers.len() > 200 {
            return Err(invalid("over 200 headers".to_owned()));
        }
    }
    let find = |n: &str| {
        headers
            .iter()
            .find(|(name, _)| name == n)
            .map(|(_, v)| v.as_str())
    };
    let framing =
        if find("transfer-encoding").is_some_and(|v| v.to_ascii_lowercase().contains("chunked")) {
            BodyFraming::Chunked
        } else if let Some(n) = find("content-length") {
            BodyFraming::Length(
                n.parse()
                    .map_err(|_| invalid(format!("bad Content-Length {n:?}")))?,
            )
        } else {
            BodyFraming::Close
        };
    Ok(Head {
        status,
        status_line,
        headers,
        framing,
    })
}

/// Largest chunk accepted (a chunk size line is the server's claim).
const MAX_CHUNK: u64 = 64 << 20;

/// Reads a chunked body, handing each chunk to `on_body` until it returns
/// false.
fn read_chunked(r: &mut impl BufRead, on_body: &mut dyn FnMut(&[u8]) -> bool) -> io::Result<()> {
    loop {
        let line = read_line(r)?;
        let size = line.split(';').next().unwrap_or_default().trim();
        let size = u64::from_str_radix(size, 16)
            .map_err(|_| invalid(format!("bad chunk size line {line:?}")))?;
        if size > MAX_CHUNK {
            return Err(invalid(format!("a chunk of {size} bytes (limit 64 MiB)")));
        }
        if size == 0 {
            // Trailers, then the blank line.
            while !read_line(r)?.is_empty() {}
            return Ok(());
        }
        let mut chunk = vec![0; size as usize];
        r.read_exact(&mut chunk).map_err(|e| {
            if e.kind() == io::ErrorKind::UnexpectedEof {
                invalid("the connection closed inside a chunk".to_owned())
            } else {
                e
            }
        })?;
        if !on_body(&chunk) {
            return Ok(());
        }
        if !read_line(r)?.is_empty() {
            return Err(invalid("a chunk is not followed by CRLF".to_owned()));
        }
    }
}

fn read_sized(
    r: &mut impl BufRead,
    length: Option<u64>,
    on_body: &mut dyn FnMut(&[u8]) -> bool,
) -> io::Result<()> {
    let mut left = length;
    let mut buf = vec![0; 64 * 1024];
    loop {
        if left == Some(0) {
            return Ok(());
        }
        let want = left.map_or(buf.len(), |l| l.min(buf.len() as u64) as usize);
        let n = r.read(&mut buf[..want])?;
        if n == 0 {
            return match left {
                None => Ok(()),
                Some(l) => Err(invalid(format!(
                    "the connection closed {l} bytes before Content-Length"
                ))),
            };
        }
        if !on_body(&buf[..n]) {
            return Ok(());
        }
        if let Some(l) = &mut left {
            *l -= n as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        assert_eq!(
            Url::parse("http://127.0.0.1:8080/v1/stream?x=1"),
            Ok(Url {
                host: "127.0.0.1".into(),
                port: 8080,
                path: "/v1/stream?x=1".into()
            })
        );
        assert_eq!(Url::parse("http://example.com").map(|u| u.port), Ok(80));
        assert!(Url::parse("https://example.com").is_err());
        assert!(Url::parse("http://h:99999/").is_err());
        assert!(Url::parse("http:///x").is_err());
        let v6 = Url::parse("http://[::1]:8080/s").unwrap();
        assert_eq!((v6.host.as_str(), v6.port), ("::1", 8080));
        assert_eq!(Url::parse("http://[::1]/").unwrap().port, 80);
        assert!(Url::parse("http://[::1/").is_err());
    }

    #[test]
    fn chunked_bodies_keep_their_chunks() {
        let wire = b"5\r\nhello\r\n1;ext=1\r\n!\r\n0\r\nX-Trailer: 1\r\n\r\n";
        let mut chunks = Vec::new();
        read_chunked(&mut &wire[..], &mut |c| {
            chunks.push(c.to_vec());
            true
        })
        .unwrap();
        assert_eq!(chunks, [b"hello".to_vec(), b"!".to_vec()]);
        let cut = b"5\r\nhel";
        assert!(read_chunked(&mut &cut[..], &mut |_| true).is_err());
        let mut seen = 0;
        read_chunked(&mut &wire[..], &mut |_| {
            seen += 1;
            false
        })
        .unwrap();
        assert_eq!(seen, 1, "a false from on_body stops the reading");
    }

    #[test]
    fn heads() {
        let wire = b"HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n";
        let head = read_head(&mut &wire[..]).unwrap();
        assert_eq!(head.status, 200);
        assert_eq!(head.framing, BodyFraming::Chunked);
        assert_eq!(head.header("content-type"), Some("application/x-ndjson"));
        assert!(read_head(&mut &b"SSH-2.0\r\n\r\n"[..]).is_err());
        let sized = b"HTTP/1.0 400 Bad Request\r\nContent-Length: 2\r\n\r\n{}";
        assert_eq!(
            read_head(&mut &sized[..]).unwrap().framing,
            BodyFraming::Length(2)
        );
    }
}
