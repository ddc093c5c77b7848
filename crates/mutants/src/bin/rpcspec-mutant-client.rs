//! `rpcspec-mutant-client NAME [--mcp | --mcp-modern | --lsp | --content-length]
//! SERVER...`: the reference client (`rpcspec serve --role client
//! [--dialect mcp|lsp | --framing content-length]`) with one realistic bug,
//! run against the server SERVER (in `rpcspec run --role client`,
//! `{server}`); with `--mcp`, the MCP series; with `--mcp-modern`, the
//! MCP series as a 2026-07-28 client; with `--lsp`, the LSP series
//! (the `LSP:` bugs are its lifecycle's); with `--content-length`, the
//! JSON-RPC series in Content-Length framing (the `Content-Length:` bugs
//! are that framing's, the line-ending ones NDJSON's).
//! `reference` has none. Each bug breaks one sentence; the scenarios of
//! `spec-cases/client/` must catch every one
//! (`tests/client_self_test.rs`).
//!
//! | NAME | the bug | the sentence it breaks |
//! |---|---|---|
//! | `arrival-order` | pairs each reply with the oldest call in flight | JSON-RPC 2.0 §5: the id "MUST be the same as the value of the id member in the Request Object"; §6: replies "MAY be returned in any order … The Client SHOULD match contexts based on the id member" |
//! | `read-is-message` | parses each read from the server as one message | NDJSON 1.0 §3: each JSON text is followed by `\n`; a read is no record |
//! | `drops-split-line` | drops a line that arrives in two reads | NDJSON 1.0 §3 (as above) |
//! | `retyped-id-matches` | takes `"7"` for the reply to id `7` | JSON-RPC 2.0 §5: the id "MUST be the same as the value of the id member in the Request Object" |
//! | `ignores-server-requests` | never answers a request from the server | JSON-RPC 2.0 §1: "one implementation may play both roles"; §5: a request is answered with a Response (SHOULD here: a pure client has no methods) |
//! | `hangs-on-exit` | waits for replies without a timeout and ignores the server's end | rpcspec client contract: every call ends; MCP stdio: the server exiting ends the session |
//! | `reuses-id` | gives the concurrent calls one id | JSON-RPC 2.0 §5 (the id correlates); the matcher's `session.id-reused` |
//! | `crashes-on-unknown-id` | exits when a reply matches no call in flight | JSON-RPC 2.0 §5 (a reply is matched by its id: one that matches none is no call's) |
//! | `cr-is-line-end` | ends lines at `\r` too | RFC 8259 §2: `\r` is whitespace inside a JSON text; NDJSON 1.0 §3: lines end at `\n` |
//! | `notification-with-id` | sends its notification with an id | JSON-RPC 2.0 §4.1: "A Notification is a Request object without an "id" member." |
//! | `no-jsonrpc` | leaves `"jsonrpc": "2.0"` out | JSON-RPC 2.0 §4: `jsonrpc` "MUST be exactly "2.0"" |
//! | `drops-error-data` | drops an error's `data` | JSON-RPC 2.0 §5.1: `data` holds "additional information about the error" (the caller must see it) |
//! | `line-limit` | drops lines over 64 KiB | NDJSON 1.0 sets no length limit (SHOULD: a documented limit is tolerated) |
//! | `splitlines` | ends lines at U+2028, U+2029 and NEL too (Python's `str.splitlines`) | RFC 8259 §7: those characters may stand raw in strings; NDJSON 1.0 §3: lines end at `\n` |
//! | `requests-before-initialized` | MCP: sends `tools/list` before `notifications/initialized` | MCP 2025-11-25 basic/lifecycle: `initialized` tells the server the client "is ready to begin normal operations" (SHOULD) |
//! | `no-cancel` | MCP: gives up on a call without `notifications/cancelled` | MCP 2025-11-25 basic/lifecycle (timeouts): "the sender SHOULD issue a cancellation notification for that request" |
//! | `kills-server` | MCP: kills its server instead of closing its stdin | MCP 2025-11-25 basic/lifecycle (shutdown, stdio): the client SHOULD first close "the input stream to the child process" |
//! | `accepts-any-version` | MCP: goes on with a protocol version it does not speak | MCP 2025-11-25 basic/lifecycle: "If the client does not support the version in the server's response, it SHOULD disconnect." |
//! | `length-in-characters` | Content-Length: reads a body of N characters, not N bytes | LSP 3.17 Base Protocol: "Content-Length: The length of the content part in bytes" (racket-langserver #76, on a server's side) |
//! | `case-sensitive-header` | Content-Length: knows only `Content-Length`, byte for byte | LSP 3.17 Base Protocol: header fields "conform to the HTTP semantic"; RFC 9110 §5.1: field names are case-insensitive (SHOULD) |
//! | `length-first` | Content-Length: reads the length only from the first header field | RFC 9110 §5.3: the order of differently named fields is not significant; LSP: `Content-Type` is a header field like any |
//! | `strict-charset` | Content-Length: drops a message whose charset is `utf8` | LSP 3.17 Base Protocol: "it is highly recommended that a client and a server treats the string utf8 as utf-8" (SHOULD) |
//! | `no-initialized` | LSP: never sends `initialized` | LSP 3.17 initialized: "The initialized notification is sent from the client to the server after the client received the result of the initialize request but before the client is sending any other request or notification" |
//! | `eager-initialized` | LSP: sends `initialized` before the initialize result | LSP 3.17 initialize: "Until the server has responded to the initialize request with an InitializeResult, the client must not send any additional requests or notifications" |
//! | `no-shutdown` | LSP: closes the server's stdin without `shutdown` and `exit` | LSP 3.17 shutdown/exit: the server is asked to shut down, then to exit (SHOULD) |
//! | `request-after-shutdown` | LSP: makes a request after `shutdown` | LSP 3.17 shutdown: "Clients must not send any notifications other than exit or requests to a server to which they have sent a shutdown request" |
//! | `answers-dollar-requests` | LSP: answers a `$/` request with a result | LSP 3.17 $ Notifications and Requests: "if a server or client receives a request starting with '$/' it must error the request with error code MethodNotFound" |
//! | `no-root-uri` | LSP: leaves `rootUri` out of its initialize params | LSP 3.17 initialize, InitializeParams: `rootUri: DocumentUri \| null` (not optional; the meta-model agrees) |
//! | `defaults-as-text` | MCP: answers a form with every default as text (`"30"`, `"true"`) | MCP 2025-11-25 client/elicitation: "Clients that support defaults SHOULD pre-populate form fields with these values" |
//! | `alters-request-state` | MCP 2026-07-28 (`--mcp-modern`): trims the `requestState` it echoes | MCP 2026-07-28 basic/patterns/mrtr: "the client MUST echo back the exact value of that field when retrying" |
//! | `retry-same-id` | MCP 2026-07-28: retries with the original request's id | basic/patterns/mrtr: "The JSON-RPC id MUST be different between the initial request and the retry" |
//! | `invents-request-state` | MCP 2026-07-28: sends `requestState: ""` when it was given none | basic/patterns/mrtr: "the client MUST NOT include one in the retry" |
//! | `leaks-input-responses` | MCP 2026-07-28: sends `inputResponses` and `requestState` on every later request | basic/patterns/mrtr: "They MUST NOT be used for any other request" |
//! | `requires-result-type` | MCP 2026-07-28: fails a result without `resultType` | basic/index: "clients MUST treat an absent resultType as \"complete\"" |
//! | `no-client-info` | MCP 2026-07-28: no `clientInfo` in `_meta` | basic/index: "Clients SHOULD include io.modelcontextprotocol/clientInfo on every request" |
//! | `no-version-retry` | MCP 2026-07-28: gives up on -32022 | basic/versioning: "The client SHOULD select a mutually supported version from the supported list and retry the request" |
//! | `fetches-ref` | MCP 2026-07-28: fetches the `http://` `$ref`s of tools' input schemas | basic/index, `$ref` Resolution: "Implementations MUST NOT automatically dereference $ref values that resolve to a network URI" |

use std::{ffi::OsString, io, process::ExitCode};

use rpcspec::{
    capture::Framing,
    client::reference::{Quirk, run, run_lsp, run_mcp, run_mcp_modern},
};

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let name = args.next().map(|a| a.to_string_lossy().into_owned());
    let Some(quirk) = name.as_deref().and_then(Quirk::named) else {
        let names: Vec<&str> = Quirk::ALL.iter().map(|(n, _)| *n).collect();
        eprintln!(
            "usage: rpcspec-mutant-client NAME [--mcp | --mcp-modern | --lsp | --content-length] SERVER...  (NAME: {})",
            names.join(", ")
        );
        return ExitCode::from(2);
    };
    let mut server: Vec<OsString> = args.collect();
    let mcp = server.first().is_some_and(|a| a == "--mcp");
    if mcp {
        server.remove(0);
    }
    let modern = server.first().is_some_and(|a| a == "--mcp-modern");
    if modern {
        server.remove(0);
    }
    let lsp = server.first().is_some_and(|a| a == "--lsp");
    if lsp {
        server.remove(0);
    }
    let content_length = server.first().is_some_and(|a| a == "--content-length");
    let framing = if content_length || lsp {
        if content_length {
            server.remove(0);
        }
        Framing::content_length()
    } else {
        Framing::ndjson()
    };
    let run = match (mcp, lsp) {
        _ if modern => run_mcp_modern,
        (true, _) => run_mcp,
        (_, true) => run_lsp,
        _ => run,
    };
    match run(&server, quirk, &framing, &mut io::stdout().lock()) {
        Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        Err(e) => {
            eprintln!("rpcspec-mutant-client: {e}");
            ExitCode::from(1)
        }
    }
}
