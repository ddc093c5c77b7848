//! A streaming HTTP endpoint for the producer self-test, written by hand on
//! a `TcpListener` so every chunk boundary is exactly what the test says
//! (server crates re-buffer chunks and would hide them).
//!
//! `POST` a JSON body `{"prompt": "…"}`: the reference behaviour streams the
//! reference events (one record per chunk); a body without a prompt, or
//! with an empty one, is refused before the stream with 400 and a JSON
//! error body (`{"error": {"code": "INVALID_INPUT", …}}`). The other
//! behaviours are the bugs the producer checks must catch.

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::{TcpListener, TcpStream},
    thread,
    time::Duration,
};

use serde_json::{Value, json};

/// What the endpoint does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behaviour {
    /// Correct: chunked application/x-ndjson, a record per chunk.
    Reference,
    /// Correct, RFC 7464: application/json-seq, RS before each record.
    JsonSeq,
    /// The whole stream with a Content-Length.
    Buffered,
    /// Chunked, but every record in one chunk.
    OneChunk,
    /// The body ends (properly) without the done record.
    NoDone,
    /// The connection closes in the middle of a chunk.
    CutMidChunk,
    /// Served as text/plain.
    TextPlain,
    /// A request without a prompt is streamed as if it were empty.
    AcceptsBadRequest,
    /// Refusals are 400 with an HTML body.
    HtmlErrors,
    /// A bad request is answered 200, its body one error record.
    ErrorRecord200,
    /// Every request answered 500.
    ServerError,
    /// Reads the request and never answers.
    Silent,
}

/// A running fixture; its thread lives as long as the test process.
pub struct Fixture {
    port: u16,
}

impl Fixture {
    /// The endpoint's URL.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/v1/stream", self.port)
    }
}

/// Starts the fixture on a free loopback port.
pub fn start(behaviour: Behaviour) -> Fixture {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let port = listener.local_addr().expect("addr").port();
    thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            thread::spawn(move || {
                let _ = serve(conn, behaviour);
            });
        }
    });
    Fixture { port }
}

fn read_request(conn: &TcpStream) -> std::io::Result<Value> {
    let mut reader = BufReader::new(conn);
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    Ok(serde_json::from_slice(&body).unwrap_or(Value::Null))
}

fn head(
    conn: &mut TcpStream,
    status: &str,
    content_type: &str,
    extra: &str,
) -> std::io::Result<()> {
    write!(
        conn,
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\n{extra}Connection: close\r\n\r\n"
    )
}

fn chunk(conn: &mut TcpStream, bytes: &[u8]) -> std::io::Result<()> {
    write!(conn, "{:x}\r\n", bytes.len())?;
    conn.write_all(bytes)?;
    conn.write_all(b"\r\n")?;
    conn.flush()
}

fn refuse(conn: &mut TcpStream, status: &str, html: bool) -> std::io::Result<()> {
    let body = if html {
        b"<html><body><h1>Bad Request</h1></body></html>".to_vec()
    } else {
        serde_json::to_vec(&json!({"error": {"code": "INVALID_INPUT",
            "message": "prompt is required"}}))
        .expect("serialises")
    };
    let ty = if html {
        "text/html"
    } else {
        "application/json"
    };
    head(
        conn,
        status,
        ty,
        &format!("Content-Length: {}\r\n", body.len()),
    )?;
    conn.write_all(&body)?;
    conn.flush()
}

fn serve(mut conn: TcpStream, behaviour: Behaviour) -> std::io::Result<()> {
    use Behaviour as B;
    let request = read_request(&conn)?;
    let prompt = request.get("prompt").and_then(Value::as_str);
    if behaviour == B::Silent {
        // Holds the connection open past any deadline, answering nothing.
        thread::sleep(Duration::from_secs(30));
        return Ok(());
    }
    if behaviour == B::ServerError {
        return refuse(&mut conn, "500 Internal Server Error", false);
    }
    let prompt = match prompt {
        Some(p) if !p.trim().is_empty() => p.to_owned(),
        _ if behaviour == B::AcceptsBadRequest => String::new(),
        _ if behaviour == B::ErrorRecord200 => {
            head(&mut conn, "200 OK", "application/x-ndjson", "")?;
            conn.write_all(
                b"{\"type\": \"error\", \"data\": {\"code\": \"INVALID_INPUT\", \"message\": \"prompt is required\"}}\n",
            )?;
            return conn.flush();
        }
        _ => return refuse(&mut conn, "400 Bad Request", behaviour == B::HtmlErrors),
    };
    let input = json!({"prompt": prompt}).to_string();
    let mut records = rpcspec::producer::reference_records(Some(&input));
    if behaviour == B::NoDone {
        records.retain(|r| r["type"] != "done");
    }
    let lines: Vec<Vec<u8>> = records
        .iter()
        .map(|r| {
            let mut l = serde_json::to_vec(r).expect("serialises");
            l.push(b'\n');
            if behaviour == B::JsonSeq {
                l.insert(0, 0x1E);
            }
            l
        })
        .collect();
    let ty = match behaviour {
        B::JsonSeq => "application/json-seq",
        B::TextPlain => "text/plain",
        _ => "application/x-ndjson",
    };
    if behaviour == B::Buffered {
        let body = lines.concat();
        head(
            &mut conn,
            "200 OK",
            ty,
            &format!("Content-Length: {}\r\n", body.len()),
        )?;
        conn.write_all(&body)?;
        return conn.flush();
    }
    head(&mut conn, "200 OK", ty, "Transfer-Encoding: chunked\r\n")?;
    match behaviour {
        B::OneChunk => chunk(&mut conn, &lines.concat())?,
        B::CutMidChunk => {
            chunk(&mut conn, &lines[0])?;
            write!(conn, "{:x}\r\n", 100)?;
            conn.write_all(&lines[1][..lines[1].len().min(10)])?;
            conn.flush()?;
            return Ok(());
        }
        _ => {
            for (i, l) in lines.iter().enumerate() {
                if i > 0 {
                    thread::sleep(Duration::from_millis(1));
                }
                chunk(&mut conn, l)?;
            }
        }
    }
    conn.write_all(b"0\r\n\r\n")?;
    conn.flush()
}
