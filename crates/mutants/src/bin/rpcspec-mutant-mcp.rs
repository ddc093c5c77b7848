//! `rpcspec-mutant-mcp NAME [REVISION] [--fixtures]`: the reference MCP
//! server (`rpcspec serve --dialect mcp`, every revision; with REVISION,
//! that one alone; with `--fixtures`, serving the official conformance
//! suite's fixtures too) with one realistic bug. `reference` has none. Each bug breaks
//! one sentence of the specification (`docs/specification/<rev>/…` of
//! modelcontextprotocol/modelcontextprotocol); the MCP checks must catch
//! every one.
//!
//! | NAME | the bug | the sentence it breaks |
//! |---|---|---|
//! | `stdout-log` | writes a log line to stdout before each answer | 2025-06-18 and 2025-11-25 basic/transports (stdio), 2026-07-28 basic/transports/stdio: "The server MUST NOT write anything to its `stdout` that is not a valid MCP message." |
//! | `echo-unknown-version` | answers `initialize` of a version it does not speak with that version | 2025-06-18/2025-11-25 basic/lifecycle (version negotiation): "If the server supports the requested protocol version, it MUST respond with the same version. Otherwise, the server MUST respond with another protocol version it supports." |
//! | `lingers` | keeps running after stdin closes | 2026-07-28 basic/transports/stdio (shutdown): "Servers SHOULD exit promptly when their standard input is closed or reads return end-of-file."; 2025-11-25 basic/lifecycle (shutdown, stdio): the client closes the input stream and waits for the server to exit |
//! | `sampling-undeclared` | `tools/call` of `echo` sends `sampling/createMessage` whatever the client declared | 2025-11-25 basic/lifecycle (operation): "Both parties MUST: … Only use capabilities that were successfully negotiated" |
//! | `input-schema-null` | `echo` has `"inputSchema": null` | 2025-11-25 server/tools (tool): "`inputSchema` … MUST be a valid JSON Schema object (not `null`)"; every schema's `Tool.inputSchema` is a required object |
//! | `endless-pagination` | the last page of `resources/list` has a `nextCursor` (back to page 2): the list never ends | server/utilities/pagination: "Servers SHOULD: Provide stable cursors"; `nextCursor`: "If present, there may be more results available" |
//! | `answers-cancelled` | still answers a cancelled `slow` call | 2025-11-25 basic/utilities/cancellation: "Receivers of cancellation notifications SHOULD: … Not send a response for the cancelled request"; 2026-07-28 basic/transports/stdio: servers "MUST NOT send any further messages for it" |
//! | `progress-backwards` | `notifications/progress` counts down | basic/utilities/progress (2026-07-28 basic/patterns/progress): "The `progress` value MUST increase with each notification, even if the total is unknown." |
//! | `tool-error-as-protocol-error` | the `fail` tool answers with a JSON-RPC error (-32603) | server/tools (error handling): tool execution errors are "Reported in tool results with `isError: true`"; schema `CallToolResult.isError`: "Any errors that originate from the tool SHOULD be reported inside the result object" |
//! | `reuses-server-id` | every `roots/list` it sends has the id `srv-1` | 2025-06-18/2025-11-25 basic/index (requests): "The request ID MUST NOT have been previously used by the requestor within the same session." |
//! | `requests-before-initialized` | sends `roots/list` right after answering `initialize` (to a client that declared `roots`) | 2025-06-18/2025-11-25 basic/lifecycle: "The server SHOULD NOT send requests other than pings and logging before receiving the `initialized` notification." |
//! | `drops-invalid` | says nothing to a line that is not JSON or not a request | JSON-RPC 2.0 §5: "When a rpc call is made, the Server MUST reply with a Response"; §5.1 -32700/-32600; MCP 2025-11-25 basic/index lets such an error omit `id` |
//! | `no-ping` | `ping` → -32601 | 2025-06-18/2025-11-25 basic/utilities/ping: "The receiver MUST respond promptly with an empty response" |
//! | `second-initialize-ok` | a second `initialize` succeeds | 2025-06-18/2025-11-25 basic/lifecycle: "The initialization phase MUST be the first interaction between client and server." (no sentence says how to refuse a second one: the reference answers -32600) |
//! | `invalid-cursor-ok` | an invalid cursor gets the first page | server/utilities/pagination (error handling): "Invalid cursors SHOULD result in an error with code -32602 (Invalid params)." |
//! | `wrong-resource-error` | `resources/read` of an unknown URI → a result with empty `contents` | 2026-07-28 server/resources (error handling): "Servers MUST NOT return an empty `contents` array for a non-existent resource."; 2025-11-25: "Resource not found: `-32002`" (SHOULD) |
//! | `duplicate-tool-names` | `tools/list` lists `echo` twice | 2025-11-25 and 2026-07-28 server/tools (tool names): "Tool names SHOULD be unique within a server."; 2025-06-18: "`name`: Unique identifier for the tool" |
//! | `no-result-type` | 2026-07-28 results have no `resultType` | 2026-07-28 basic/index (result responses): "The `result` MUST include a `resultType` field" |
//! | `discover-missing` | `server/discover` → -32601 | 2026-07-28 basic/versioning: "Servers MUST implement `server/discover`." |
//! | `embedded-newline` | pretty-prints its messages over several lines | basic/transports (stdio): "Messages are delimited by newlines, and MUST NOT contain embedded newlines." |
//! | `no-completion` | declares `completions` but answers `completion/complete` with -32601 | 2025-11-25 basic/lifecycle (capability negotiation): the `completions` capability "Supports argument autocompletion"; server/utilities/completion lists -32601 for a capability not supported |
//! | `speaks-2024` | no bug: answers `initialize` with 2024-11-05, a revision rpcspec does not check, which the lifecycle allows ("another protocol version it supports") | none: every check that needs the session is SKIPPED, none fails |
//! | `blob-not-base64` | its binary resource's `blob` is raw text, not base64 | schema `BlobResourceContents.blob`: "A base64-encoded string representing the binary data of the item." |
//! | `binary-unreadable` | lists a binary resource it then cannot read (-32603) | basic/lifecycle (capability negotiation): `resources` "Provides readable resources"; server/resources: clients read what `resources/list` lists |
//! | `contents-without-uri` | `resources/read` contents have no `uri` | schema `TextResourceContents`/`BlobResourceContents`: `uri` is required |
//! | `subscribe-missing` | declares `resources.subscribe` but answers `resources/subscribe` with -32601 | 2025-11-25 basic/lifecycle (capability negotiation): `subscribe` "Support for subscribing to individual resource updates" |
//! | `prompt-content-untyped` | `prompts/get` message content has no `type` | schema `PromptMessage.content` (`ContentBlock`: each has a required `type`) |
//! | `missing-argument-ok` | `prompts/get` of `greet` without its required `name` succeeds | server/prompts (error handling): "Missing required arguments: -32602 (Invalid params)" (SHOULD) |
//! | `fixture-image-no-mime` | with `--fixtures`: `test_image_content`'s image has no `mimeType` | the conformance suite's `tools-call-image` ("Image content missing mimeType"); schema `ImageContent.mimeType` is required |
//! | `fixture-audio-mp3` | with `--fixtures`: `test_audio_content` answers audio/mpeg | the conformance suite's `tools-call-audio` ("Expected mimeType 'audio/wav'") |
//! | `fixture-template-unfilled` | with `--fixtures`: `test://template/123/data` reads without the value 123 | the conformance suite's `resources-templates-read` ("Parameter substitution not reflected in content") |
//! | `mrtr-trusts-state` | with `--fixtures`, 2026-07-28: a `requestState` is not checked for integrity | SEP-2322 (the suite's `input-required-result-tampered-state`): "Servers MUST reject state that fails integrity verification" |
//! | `mrtr-same-state` | with `--fixtures`, 2026-07-28: the second round of `test_input_required_result_multi_round` gives the first round's `requestState` again | the suite's `input-required-result-multi-round` ("Expected new InputRequiredResult with different requestState") |
//! | `mrtr-ignores-capabilities` | with `--fixtures`, 2026-07-28: asks `elicitation/create` of a client that declared only sampling | 2026-07-28 basic/lifecycle: only negotiated capabilities are used; the suite's `input-required-result-capability-check` |
//! | `fixture-sampling-unasked` | with `--fixtures`: `test_sampling` answers without asking the client | the suite's `tools-call-sampling` ("Server did not request sampling from client") |
//! | `fixture-default-missing` | with `--fixtures`: the `age` property of `test_elicitation_sep1034_defaults` has no `default` | SEP-1034 (the suite's `elicitation-sep1034-defaults`: a default for every primitive type) |
//! | `fixture-titled-enum-as-enum` | with `--fixtures`: `titledSingle` of `test_elicitation_sep1330_enums` is a plain `enum` | SEP-1330 (the suite's `elicitation-sep1330-enums`: "Titled enum should use oneOf instead of enum array") |
//! | `not-found-without-uri` | the not-found error of `resources/read` has no `data.uri` | none, only an INFO: server/resources' example carries `data.uri`, and the conformance suite's `sep-2164-resource-not-found` warns |
//! | `exits-on-cancel` | exits (status 1) when a `notifications/cancelled` arrives, as rmcp 3.11 does in a 2026-07-28 session | basic/utilities/cancellation (2026-07-28 basic/patterns/cancellation): "Invalid cancellation notifications SHOULD be ignored"; a server that exits mid-session ends every later request (the checks after it run on a new process) |

use std::{io, process::ExitCode};

use rpcspec::dialects::mcp::{
    Revision,
    reference::{Quirk, Server, serve},
};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let fixtures = args.iter().any(|a| a == "--fixtures");
    let args: Vec<String> = args.into_iter().filter(|a| a != "--fixtures").collect();
    let names = || {
        let mut names: Vec<&str> = Quirk::ALL.iter().map(|(n, _)| *n).collect();
        names.insert(0, "reference");
        names.push("exits-on-cancel");
        names.join(", ")
    };
    let Some(name) = args.first() else {
        eprintln!(
            "usage: rpcspec-mutant-mcp NAME [REVISION] [--fixtures]; NAME is one of: {}",
            names()
        );
        return ExitCode::from(2);
    };
    let served: Vec<Revision> = match args.get(1).map(|r| r.parse::<Revision>()) {
        None => Revision::ALL.to_vec(),
        Some(Ok(revision)) => vec![revision],
        Some(Err(e)) => {
            eprintln!("rpcspec-mutant-mcp: {e}");
            return ExitCode::from(2);
        }
    };
    let server = Server::new(&served);
    let server = if fixtures {
        server.with_fixtures()
    } else {
        server
    };
    let server = match (name.as_str(), Quirk::named(name)) {
        ("reference", _) => server,
        ("exits-on-cancel", _) => {
            return match serve(server, ExitsOnCancel(io::stdin()), io::stdout()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(_) => ExitCode::FAILURE,
            };
        }
        (_, Some(quirk)) => server.with_quirk(quirk),
        (_, None) => {
            eprintln!(
                "rpcspec-mutant-mcp: no mutant `{name}`; there are: {}",
                names()
            );
            return ExitCode::from(2);
        }
    };
    match serve(server, io::stdin(), io::stdout()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rpcspec-mutant-mcp: {e}");
            ExitCode::FAILURE
        }
    }
}

/// stdin, read until a `notifications/cancelled` comes: then the process
/// exits with status 1 (the `exits-on-cancel` mutant, a bug outside the
/// server's state machine, in its transport).
struct ExitsOnCancel(io::Stdin);

impl io::Read for ExitsOnCancel {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.0.read(buf)?;
        if buf[..n]
            .windows(b"notifications/cancelled".len())
            .any(|w| w == b"notifications/cancelled")
        {
            eprintln!("rpcspec-mutant-mcp: unexpected notification, exiting");
            std::process::exit(1);
        }
        Ok(n)
    }
}
