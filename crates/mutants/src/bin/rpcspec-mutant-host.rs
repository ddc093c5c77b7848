//! `rpcspec-mutant-host NAME CODEX...`: the reference host of the Codex
//! app-server (`rpcspec serve --role client --dialect codex`) with one
//! realistic bug, run against the `codex` at CODEX (in `rpcspec run --role
//! client --dialect codex`, `{server}`). `reference` has none. Each bug
//! breaks one rule of `docs/agents.md`; the scenarios of
//! `spec-cases/client/codex/` must catch every one
//! (`tests/host_self_test.rs`).
//!
//! | NAME | the bug | the rule it breaks |
//! |---|---|---|
//! | `no-initialized` | never sends `initialized` | `codex.host-lifecycle` (README, Initialization) |
//! | `initialized-late` | sends `thread/start` before `initialized` | `codex.host-lifecycle` |
//! | `ignores-unknown` | leaves a request of an unknown method unanswered | `codex.host-request`: JSON-RPC 2.0 §4 |
//! | `result-for-unknown` | answers an unknown method with `{}` | `codex.host-unknown-method` (SHOULD: §5.1) |
//! | `accepts-all` | accepts the file change its handler declined | `codex.host-approval` |
//! | `wrong-id` | answers with an id of its own | `codex.host-request` |
//! | `answers-twice` | answers each request twice | `codex.host-request` |
//! | `needs-jsonrpc` | reads only messages with `"jsonrpc"`, which the app-server leaves out | `codex.host-result`, `client.ends` |
//! | `integer-ids-only` | ignores requests whose id is a string | `codex.host-request` |
//! | `no-turn-timeout` | waits for `turn/completed` for ever | `client.ends` |

use std::{ffi::OsString, process::ExitCode};

use rpcspec::client::reference::{HostQuirk, run_codex_host};

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let name = args.next().map(|a| a.to_string_lossy().into_owned());
    let Some(quirk) = name.as_deref().and_then(HostQuirk::named) else {
        let names: Vec<&str> = HostQuirk::ALL.iter().map(|(n, _)| *n).collect();
        eprintln!(
            "usage: rpcspec-mutant-host NAME CODEX...  (NAME: {})",
            names.join(", ")
        );
        return ExitCode::from(2);
    };
    let codex: Vec<OsString> = args.collect();
    match run_codex_host(&codex, quirk, &mut std::io::stdout().lock()) {
        Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        Err(e) => {
            eprintln!("rpcspec-mutant-host: {e}");
            ExitCode::from(1)
        }
    }
}
