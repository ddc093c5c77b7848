//! jsonrpc-core's `IoHandler` over stdio NDJSON, with the methods of the
//! JSON-RPC 2.0 specification's examples (as `rpcspec serve` has them).
//! Each line goes to `handle_request_sync` as it is (decoded lossily: the API
//! takes `&str`); its answer, if any, is written with `\n` and flushed.

use std::io::{BufRead, Write};

use jsonrpc_core::{Error, IoHandler, Params, Value};

fn numbers(params: Params) -> Result<Vec<Value>, Error> {
    match params {
        Params::Array(v) => Ok(v),
        _ => Err(Error::invalid_params("expected an array")),
    }
}

fn arithmetic(
    a: &Value,
    b: &Value,
    int: fn(i64, i64) -> Option<i64>,
    float: fn(f64, f64) -> f64,
) -> Result<Value, Error> {
    let bad = || Error::invalid_params("expected numbers");
    if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
        if let Some(r) = int(x, y) {
            return Ok(Value::from(r));
        }
    }
    let (x, y) = (a.as_f64().ok_or_else(bad)?, b.as_f64().ok_or_else(bad)?);
    Ok(Value::from(float(x, y)))
}

fn main() {
    let mut io = IoHandler::new();
    io.add_sync_method("subtract", |params: Params| {
        let (minuend, subtrahend) = match &params {
            Params::Array(p) if p.len() == 2 => (p[0].clone(), p[1].clone()),
            Params::Map(p) if p.len() == 2 => (
                p.get("minuend")
                    .cloned()
                    .ok_or_else(|| Error::invalid_params("minuend"))?,
                p.get("subtrahend")
                    .cloned()
                    .ok_or_else(|| Error::invalid_params("subtrahend"))?,
            ),
            _ => return Err(Error::invalid_params("expected two numbers")),
        };
        arithmetic(&minuend, &subtrahend, i64::checked_sub, |a, b| a - b)
    });
    io.add_sync_method("sum", |params: Params| {
        numbers(params)?
            .iter()
            .try_fold(Value::from(0), |acc, term| {
                arithmetic(&acc, term, i64::checked_add, |a, b| a + b)
            })
    });
    io.add_sync_method("get_data", |_| Ok(serde_json::json!(["hello", 5])));
    for name in ["update", "notify_hello", "notify_sum"] {
        io.add_sync_method(name, |_| Ok(Value::Null));
    }

    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    let mut input = stdin.lock();
    let mut line = Vec::new();
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        // The handler takes `&str`: a line that is not UTF-8 is handed over
        // with its bad bytes replaced (U+FFFD), the closest a caller can get.
        let request = String::from_utf8_lossy(&line);
        if let Some(answer) = io.handle_request_sync(&request) {
            let _ = stdout.write_all(answer.as_bytes());
            let _ = stdout.write_all(b"\n");
            let _ = stdout.flush();
        }
    }
}
