//! Checks an NDJSON stream on stdin: prints every framing problem, and every
//! line that is not exactly one JSON value, as `line:offset: kind`, and exits
//! 1 if there was any.
//!
//! ```text
//! cargo run -p rpcspec-framer --example ndjson-check < events.ndjson
//! ```

use std::{
    io::{self, Write},
    process::ExitCode,
};

use rpcspec_framer::{Config, Event, read::Events};
use serde::de::IgnoredAny;

fn main() -> ExitCode {
    let stdin = io::stdin().lock();
    let mut out = io::stdout().lock();
    let (mut lines, mut problems) = (0u64, 0u64);
    for event in Events::new(stdin, Config::default()) {
        let report = match event {
            Ok(Event::Line(line)) => {
                lines += 1;
                match line.parse::<IgnoredAny>() {
                    Ok(_) => continue,
                    Err(e) => format!("{}:{}: not json: {}", e.number(), e.offset(), e.message()),
                }
            }
            Ok(Event::Problem(p)) => format!("{}:{}: {}", p.number, p.offset, p.kind),
            Err(e) => {
                eprintln!("ndjson-check: read error: {e}");
                return ExitCode::from(2);
            }
        };
        problems += 1;
        if writeln!(out, "{report}").is_err() {
            // A closed stdout (`| head`) is not an error.
            break;
        }
    }
    eprintln!("{lines} lines, {problems} problems");
    if problems == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
