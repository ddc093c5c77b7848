//! `rpcspec-mutant-editor NAME AGENT...`: the reference ACP client
//! (`rpcspec serve --role client --dialect acp`) with one realistic bug,
//! run against the agent AGENT (in `rpcspec run --role client --dialect
//! acp`, `{server}`). `reference` has none. NAME is one of the editor's own
//! bugs or one of the JSON-RPC client's (`rpcspec-mutant-client`'s
//! names); each breaks one sentence, and the scenarios of
//! `spec-cases/client/acp/` must catch every one (`tests/acp_self_test.rs`).
//!
//! | NAME | the bug | the sentence it breaks |
//! |---|---|---|
//! | `acp-permission-after-cancel` | answers a permission request with an option after it cancelled the turn | ACP v1 Prompt Turn, Cancellation: "The Client MUST respond to all pending `session/request_permission` requests with the `cancelled` outcome" |
//! | `acp-unoffered-option` | selects the option `allow`, which the request did not offer | ACP v1 Tool Calls: `optionId` is "The ID of the option the user selected" |
//! | `acp-relative-cwd` | opens its session with the cwd `.` | ACP v1 Session Setup, Working Directory: the `cwd` "MUST be an absolute path" |
//! | `acp-eager-session` | sends `session/new` with `initialize`, before its reply | ACP v1 Session Setup: "Before creating a session, Clients MUST first complete the initialization phase" |
//! | `acp-no-cancel` | never cancels the turn the contract cancels | rpcspec client contract (the `cancel` step); ACP v1 Prompt Turn, Cancellation |
//! | `acp-answers-extensions` | answers a custom request it does not know with `null` | ACP v1 Extensibility: "If the receiving end doesn't recognize the custom method name, it should respond with the standard \"Method not found\" error" (NON-STRICT) |
//! | `acp-version-string` | sends the protocol version as `"1"` | ACP v1 Initialization: the protocol version is an integer (schema `ProtocolVersion`) |

use std::{ffi::OsString, process::ExitCode};

use rpcspec::dialects::acp::client::{Bug, run};

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let name = args.next().map(|a| a.to_string_lossy().into_owned());
    let Some(bug) = name.as_deref().and_then(Bug::named) else {
        let names: Vec<&str> = Bug::OWN.iter().map(|(n, _)| *n).collect();
        eprintln!(
            "usage: rpcspec-mutant-editor NAME AGENT...  (NAME: reference, {}, or a JSON-RPC client's bug)",
            names.join(", ")
        );
        return ExitCode::from(2);
    };
    let agent: Vec<OsString> = args.collect();
    match run(&agent, bug, &mut std::io::stdout().lock()) {
        Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        Err(e) => {
            eprintln!("rpcspec-mutant-editor: {e}");
            ExitCode::from(1)
        }
    }
}
