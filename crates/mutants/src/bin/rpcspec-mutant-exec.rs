//! `rpcspec-mutant-exec NAME CODEX...`: the reference decoder of Codex's
//! exec stream (`rpcspec serve --role client --dialect codex-exec`) with
//! one realistic bug, run against the `codex` at CODEX (in `rpcspec run
//! --role client --dialect codex-exec`, `{server}`). `reference` has
//! none. Each bug breaks one rule of `docs/agents.md`; the scenarios of
//! `spec-cases/client/codex-exec/` must catch every one
//! (`tests/exec_self_test.rs`).
//!
//! | NAME | the bug | the rule it breaks |
//! |---|---|---|
//! | `keeps-stdin-open` | never ends the CLI's stdin | `codex.exec-invoke`: `codex exec` reads its prompt to the end of stdin (exec.ts ends it) |
//! | `unread-stderr` | pipes the CLI's stderr and never reads it | `codex.exec-outcome`: the CLI blocks on a full pipe, and a whole turn times out |
//! | `splits-on-cr` | ends lines at `\r` too | RFC 8259 §2: `\r` is whitespace; `codex.exec-events` (SHOULD) |
//! | `read-is-line` | parses each read as one line | NDJSON 1.0 §3; `codex.exec-events`, `codex.exec-outcome` |
//! | `drops-after-noise` | skips a line that is no JSON and the line after it | `codex.exec-events` |
//! | `stops-at-unknown-type` | raises at an event type it does not know | `codex.exec-events` (SHOULD: forward compatibility) |
//! | `ignores-exit` | takes the turn for done whatever the exit status | `codex.exec-outcome`: exec.ts raises at a non-zero exit |
//! | `accepts-cut-turn` | takes a stream without `turn.completed` for a whole turn | `codex.exec-end` (SHOULD) |
//! | `drops-unterminated` | drops a last line without its line end | `codex.exec-events` (SHOULD: JSON Lines) |
//! | `repeats-items` | hands on each `item.completed` twice | `codex.exec-events` |

use std::{ffi::OsString, process::ExitCode};

use rpcspec::client::reference::{ExecQuirk, run_codex_exec};

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let name = args.next().map(|a| a.to_string_lossy().into_owned());
    let Some(quirk) = name.as_deref().and_then(ExecQuirk::named) else {
        let names: Vec<&str> = ExecQuirk::ALL.iter().map(|(n, _)| *n).collect();
        eprintln!(
            "usage: rpcspec-mutant-exec NAME CODEX...  (NAME: {})",
            names.join(", ")
        );
        return ExitCode::from(2);
    };
    let codex: Vec<OsString> = args.collect();
    match run_codex_exec(&codex, quirk, &mut std::io::stdout().lock()) {
        Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        Err(e) => {
            eprintln!("rpcspec-mutant-exec: {e}");
            ExitCode::from(1)
        }
    }
}
