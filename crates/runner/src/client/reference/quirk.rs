//! The reference client's bugs: each [`Quirk`] is one realistic client
//! bug, which `rpcspec-mutant-client NAME` runs.

use super::by_name;

/// One realistic client bug, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quirk {
    /// The reference: no bug.
    None,
    /// Pairs each reply with the oldest call in flight, whatever its id.
    ArrivalOrder,
    /// Parses each read from the server as one message.
    ReadIsMessage,
    /// Splits each read at `\n` and drops a line that arrives in two reads.
    DropsSplitLine,
    /// Matches ids by their text without quotes: `7` answers `"7"`.
    RetypedIdMatches,
    /// Never answers a request from the server.
    IgnoresServerRequests,
    /// Waits for replies without a timeout and ignores the server's end.
    HangsOnExit,
    /// Gives the concurrent calls one id.
    ReusesId,
    /// Exits when a reply's id matches no call in flight.
    CrashesOnUnknownId,
    /// Ends a line at `\r` too.
    CrIsLineEnd,
    /// Sends notifications with an id.
    NotificationWithId,
    /// Leaves `"jsonrpc": "2.0"` out of its messages.
    NoJsonrpc,
    /// Drops the `data` of an error.
    DropsErrorData,
    /// Drops lines over 64 KiB (asyncio's default `StreamReader` limit).
    LineLimit,
    /// Ends a line at U+2028, U+2029 and NEL too (Python's `splitlines`).
    Splitlines,
    /// MCP: makes its first request before `notifications/initialized`.
    RequestsBeforeInitialized,
    /// MCP: gives up on a call without cancelling it.
    NoCancel,
    /// MCP: kills its server at the end instead of closing its stdin.
    KillsServer,
    /// MCP: goes on with whatever version the server answers.
    AcceptsAnyVersion,
    /// Content-Length: reads a body of that many characters, not bytes.
    LengthInCharacters,
    /// Content-Length: knows the header only as `Content-Length`, byte for
    /// byte.
    CaseSensitiveHeader,
    /// Content-Length: takes a header block whose first field is not
    /// `Content-Length` for no message.
    LengthFirst,
    /// Content-Length: drops a message whose `Content-Type` charset is not
    /// `utf-8` as written (`utf8` included).
    StrictCharset,
    /// LSP: never sends `initialized`.
    NoInitialized,
    /// LSP: sends `initialized` right after `initialize`, before its
    /// result.
    EagerInitialized,
    /// LSP: ends the session by closing the server's stdin, without
    /// `shutdown` and `exit`.
    NoShutdown,
    /// LSP: makes a request after `shutdown`.
    RequestAfterShutdown,
    /// LSP: answers a `$/` request with a result.
    AnswersDollarRequests,
    /// LSP: leaves `rootUri` out of its initialize params (the meta-model
    /// has it `DocumentUri | null`, not optional).
    NoRootUri,
    /// MCP: answers a form with each field's default as text (`"30"`,
    /// `"true"`), as a form made only of text inputs would.
    DefaultsAsText,
    /// MCP 2026-07-28: trims the `requestState` it echoes.
    AltersRequestState,
    /// MCP 2026-07-28: retries with the id of the request it retries.
    RetrySameId,
    /// MCP 2026-07-28: sends an empty `requestState` on a retry when it
    /// was given none.
    InventsRequestState,
    /// MCP 2026-07-28: sends the retry's `inputResponses` and
    /// `requestState` on every request after it too.
    LeaksInputResponses,
    /// MCP 2026-07-28: fails a result without `resultType`.
    RequiresResultType,
    /// MCP 2026-07-28: leaves `clientInfo` out of `_meta`.
    NoClientInfo,
    /// MCP 2026-07-28: gives up on -32022.
    NoVersionRetry,
    /// MCP 2026-07-28: fetches the network `$ref`s of tools' schemas.
    FetchesRef,
}

impl Quirk {
    /// Every quirk by name, the reference (`reference`) first.
    pub const ALL: [(&'static str, Quirk); 38] = [
        ("reference", Quirk::None),
        ("arrival-order", Quirk::ArrivalOrder),
        ("read-is-message", Quirk::ReadIsMessage),
        ("drops-split-line", Quirk::DropsSplitLine),
        ("retyped-id-matches", Quirk::RetypedIdMatches),
        ("ignores-server-requests", Quirk::IgnoresServerRequests),
        ("hangs-on-exit", Quirk::HangsOnExit),
        ("reuses-id", Quirk::ReusesId),
        ("crashes-on-unknown-id", Quirk::CrashesOnUnknownId),
        ("cr-is-line-end", Quirk::CrIsLineEnd),
        ("notification-with-id", Quirk::NotificationWithId),
        ("no-jsonrpc", Quirk::NoJsonrpc),
        ("drops-error-data", Quirk::DropsErrorData),
        ("line-limit", Quirk::LineLimit),
        ("splitlines", Quirk::Splitlines),
        (
            "requests-before-initialized",
            Quirk::RequestsBeforeInitialized,
        ),
        ("no-cancel", Quirk::NoCancel),
        ("kills-server", Quirk::KillsServer),
        ("accepts-any-version", Quirk::AcceptsAnyVersion),
        ("length-in-characters", Quirk::LengthInCharacters),
        ("case-sensitive-header", Quirk::CaseSensitiveHeader),
        ("length-first", Quirk::LengthFirst),
        ("strict-charset", Quirk::StrictCharset),
        ("no-initialized", Quirk::NoInitialized),
        ("eager-initialized", Quirk::EagerInitialized),
        ("no-shutdown", Quirk::NoShutdown),
        ("request-after-shutdown", Quirk::RequestAfterShutdown),
        ("answers-dollar-requests", Quirk::AnswersDollarRequests),
        ("no-root-uri", Quirk::NoRootUri),
        ("defaults-as-text", Quirk::DefaultsAsText),
        ("alters-request-state", Quirk::AltersRequestState),
        ("retry-same-id", Quirk::RetrySameId),
        ("invents-request-state", Quirk::InventsRequestState),
        ("leaks-input-responses", Quirk::LeaksInputResponses),
        ("requires-result-type", Quirk::RequiresResultType),
        ("no-client-info", Quirk::NoClientInfo),
        ("no-version-retry", Quirk::NoVersionRetry),
        ("fetches-ref", Quirk::FetchesRef),
    ];

    /// Whether the quirk is a bug of Content-Length framing (the others,
    /// but for [`Quirk::ReadIsMessage`], are NDJSON's or above framing).
    pub fn content_length(self) -> bool {
        matches!(
            self,
            Quirk::LengthInCharacters
                | Quirk::CaseSensitiveHeader
                | Quirk::LengthFirst
                | Quirk::StrictCharset
        )
    }

    /// Whether the quirk is a bug of an MCP 2026-07-28 client
    /// ([`super::run_mcp_modern`]).
    pub fn modern(self) -> bool {
        matches!(
            self,
            Quirk::AltersRequestState
                | Quirk::RetrySameId
                | Quirk::InventsRequestState
                | Quirk::LeaksInputResponses
                | Quirk::RequiresResultType
                | Quirk::NoClientInfo
                | Quirk::NoVersionRetry
                | Quirk::FetchesRef
        )
    }

    /// The quirk called `name`.
    pub fn named(name: &str) -> Option<Quirk> {
        by_name(&Quirk::ALL, name)
    }
}
