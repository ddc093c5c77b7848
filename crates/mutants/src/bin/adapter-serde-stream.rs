//! A real decoder under the decoder contract: serde_json's
//! `StreamDeserializer` over stdin, as `Deserializer::from_reader(stdin)
//! .into_iter::<Value>()` is commonly used to read NDJSON. It reads values
//! back to back with any whitespace between them; after an error it stops
//! (the iterator would return the same error forever, serde_json #70).
//!
//! `rpcspec run --role decoder -- adapter-serde-stream`

use std::io::{self, Write};

use serde_json::{Value, json};

fn main() -> io::Result<()> {
    let mut out = io::stdout().lock();
    let mut terminal = false;
    for item in serde_json::Deserializer::from_reader(io::stdin().lock()).into_iter::<Value>() {
        match item {
            Ok(v) => {
                terminal = matches!(
                    v.get("type").and_then(Value::as_str),
                    Some("done" | "error")
                );
                writeln!(out, "{}", json!({ "value": v }))?;
            }
            Err(e) => {
                writeln!(out, "{}", json!({ "error": e.to_string() }))?;
                break;
            }
        }
    }
    let end = if terminal { "complete" } else { "interrupted" };
    writeln!(out, "{}", json!({ "end": end }))
}
