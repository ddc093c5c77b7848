//! `rpcspec-mutant-sdk NAME CLI...`: the reference SDK (`rpcspec serve
//! --role client --dialect claude`) with one realistic bug, run against
//! the Claude Code CLI at CLI (in `rpcspec run --role client --dialect
//! claude`, `{server}`). `reference` has none. Each bug breaks one rule of
//! `docs/agents.md`; the scenarios of `spec-cases/client/claude/` must
//! catch every one (`tests/sdk_self_test.rs`).
//!
//! | NAME | the bug | the rule it breaks |
//! |---|---|---|
//! | `answers-events` | answers every `assistant` record with a `control_response` | `control.unsolicited`: a requester ignores responses it awaits none of, and an event is no request (sdk.d.ts) |
//! | `answers-keep-alive` | answers `keep_alive` with a `control_response` | `control.unsolicited`: `keep_alive` "receivers must ignore it" (sdk.d.ts) |
//! | `wrong-request-id` | answers the CLI's requests with an id of its own | `control.answered-once`: a response carries its request's `request_id` (query.py) |
//! | `answers-twice` | answers each request twice | `control.answered-once` |
//! | `answers-cancel` | takes a `control_cancel_request` for a request and answers it too | `control.answered-once`: "there is no reply to the cancel itself" (sdk.d.ts); the cancel carries the request's id, so a reply to it is a second answer to the request |
//! | `ignores-can-use-tool` | never answers `can_use_tool` | `control.answered-once` |
//! | `allow-drops-input` | allows a tool without the input its callback gave | `claude.permission` |
//! | `mcp-wrong-id` | puts its own id in an `mcp_response` | `claude.mcp-message`; JSON-RPC 2.0 §5 |
//! | `success-on-unknown` | answers a subtype it does not serve with `success` | `control.unsupported` (SHOULD) |
//! | `ignores-error-response` | takes an `error` response for a success | `claude.sdk-result`: an error response raises with its text (query.py) |
//! | `no-initialize` | sends its first `user` message without `initialize`, and reports `connect` done | `claude.sdk-result` (a result for a request never sent); `claude.sdk-initialize` (SHOULD) |
//! | `no-initialize-timeout` | waits for `initialize` forever | `client.ends`: every step ends |
//! | `hangs-without-result` | waits for a turn's `result` forever, deaf to the stream's end | `client.ends` |
//! | `splits-on-cr` | ends lines at `\r` too | RFC 8259 §2: `\r` is whitespace; `claude.sdk-result` |
//! | `read-is-line` | parses each read as one line | NDJSON 1.0 §3; `claude.sdk-result` |
//! | `drops-after-noise` | drops the line after a line that is not JSON | `claude.sdk-result` (SHOULD: claude-agent-sdk-python #347) |
//! | `line-limit` | drops lines over 64 KiB | `claude.sdk-result` (SHOULD: NDJSON sets no limit) |
//! | `stops-at-unknown-type` | stops reading at a record type it does not know | `claude.sdk-result` (SHOULD: forward compatibility) |
//! | `unread-stderr` | pipes the CLI's stderr and never reads it | `claude.sdk-result` (SHOULD: the CLI blocks on a full pipe) |
//! | `leaves-cli` | exits with the CLI still running, its stdin held open by a child | `claude.sdk-close` (SHOULD: both SDKs close stdin, wait, then signal) |

use std::{ffi::OsString, process::ExitCode};

use rpcspec::client::reference::{SdkQuirk, run_claude};

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let name = args.next().map(|a| a.to_string_lossy().into_owned());
    let Some(quirk) = name.as_deref().and_then(SdkQuirk::named) else {
        let names: Vec<&str> = SdkQuirk::ALL.iter().map(|(n, _)| *n).collect();
        eprintln!(
            "usage: rpcspec-mutant-sdk NAME CLI...  (NAME: {})",
            names.join(", ")
        );
        return ExitCode::from(2);
    };
    let cli: Vec<OsString> = args.collect();
    match run_claude(&cli, quirk, &mut std::io::stdout().lock()) {
        Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        Err(e) => {
            eprintln!("rpcspec-mutant-sdk: {e}");
            ExitCode::from(1)
        }
    }
}
