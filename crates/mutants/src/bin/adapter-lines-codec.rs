//! A real decoder under the decoder contract: tokio-util's `LinesCodec`
//! (sans-IO, so driven here by blocking reads) with `serde_json::from_str`
//! per line, as `FramedRead::new(stdin, LinesCodec::new())` reads NDJSON.
//! Like `FramedRead` since tokio-util 0.6.9, the first codec error (invalid
//! UTF-8) ends the stream; a line that is not JSON is the application's
//! error and reading goes on.
//!
//! `rpcspec run --role decoder -- adapter-lines-codec`

use std::io::{self, Read, Write};

use bytes::BytesMut;
use serde_json::{Value, json};
use tokio_util::codec::{Decoder, LinesCodec};

fn main() -> io::Result<()> {
    let mut out = io::stdout().lock();
    let mut codec = LinesCodec::new();
    let mut buf = BytesMut::new();
    let mut chunk = vec![0; 8 * 1024];
    let mut stdin = io::stdin().lock();
    let mut terminal = false;
    let mut eof = false;
    loop {
        let line = if eof {
            codec.decode_eof(&mut buf)
        } else {
            codec.decode(&mut buf)
        };
        match line {
            Ok(Some(line)) => match serde_json::from_str::<Value>(&line) {
                Ok(v) => {
                    terminal = matches!(
                        v.get("type").and_then(Value::as_str),
                        Some("done" | "error")
                    );
                    writeln!(out, "{}", json!({ "value": v }))?;
                }
                Err(e) => writeln!(out, "{}", json!({ "error": e.to_string() }))?,
            },
            Ok(None) if eof => break,
            Ok(None) => match stdin.read(&mut chunk)? {
                0 => eof = true,
                n => buf.extend_from_slice(&chunk[..n]),
            },
            Err(e) => {
                writeln!(out, "{}", json!({ "error": e.to_string() }))?;
                break;
            }
        }
    }
    let end = if terminal { "complete" } else { "interrupted" };
    writeln!(out, "{}", json!({ "end": end }))
}
