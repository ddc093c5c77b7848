//! The bugs of the MCP mutants (`rpcspec-mutant-mcp`), one at a time.

/// One realistic bug, for the MCP mutants (`rpcspec-mutant-mcp NAME`).
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quirk {
    StdoutLog,
    EchoUnknownVersion,
    Lingers,
    SamplingUndeclared,
    InputSchemaNull,
    EndlessPagination,
    AnswersCancelled,
    ProgressBackwards,
    ToolErrorAsProtocolError,
    ReusesServerId,
    RequestsBeforeInitialized,
    DropsInvalid,
    NoPing,
    SecondInitializeOk,
    InvalidCursorOk,
    WrongResourceError,
    DuplicateToolNames,
    NoResultType,
    DiscoverMissing,
    EmbeddedNewline,
    NoCompletion,
    Speaks2024,
    BlobNotBase64,
    BinaryUnreadable,
    ContentsWithoutUri,
    SubscribeMissing,
    PromptContentUntyped,
    MissingArgumentOk,
    FixtureImageNoMime,
    FixtureAudioMp3,
    FixtureTemplateUnfilled,
    MrtrTrustsState,
    MrtrSameState,
    MrtrIgnoresCapabilities,
    FixtureSamplingUnasked,
    FixtureDefaultMissing,
    FixtureTitledEnumAsEnum,
    NotFoundWithoutUri,
}

impl Quirk {
    /// Every quirk with its mutant's name.
    pub const ALL: &[(&str, Quirk)] = &[
        ("stdout-log", Quirk::StdoutLog),
        ("echo-unknown-version", Quirk::EchoUnknownVersion),
        ("lingers", Quirk::Lingers),
        ("sampling-undeclared", Quirk::SamplingUndeclared),
        ("input-schema-null", Quirk::InputSchemaNull),
        ("endless-pagination", Quirk::EndlessPagination),
        ("answers-cancelled", Quirk::AnswersCancelled),
        ("progress-backwards", Quirk::ProgressBackwards),
        (
            "tool-error-as-protocol-error",
            Quirk::ToolErrorAsProtocolError,
        ),
        ("reuses-server-id", Quirk::ReusesServerId),
        (
            "requests-before-initialized",
            Quirk::RequestsBeforeInitialized,
        ),
        ("drops-invalid", Quirk::DropsInvalid),
        ("no-ping", Quirk::NoPing),
        ("second-initialize-ok", Quirk::SecondInitializeOk),
        ("invalid-cursor-ok", Quirk::InvalidCursorOk),
        ("wrong-resource-error", Quirk::WrongResourceError),
        ("duplicate-tool-names", Quirk::DuplicateToolNames),
        ("no-result-type", Quirk::NoResultType),
        ("discover-missing", Quirk::DiscoverMissing),
        ("embedded-newline", Quirk::EmbeddedNewline),
        ("no-completion", Quirk::NoCompletion),
        ("speaks-2024", Quirk::Speaks2024),
        ("blob-not-base64", Quirk::BlobNotBase64),
        ("binary-unreadable", Quirk::BinaryUnreadable),
        ("contents-without-uri", Quirk::ContentsWithoutUri),
        ("subscribe-missing", Quirk::SubscribeMissing),
        ("prompt-content-untyped", Quirk::PromptContentUntyped),
        ("missing-argument-ok", Quirk::MissingArgumentOk),
        ("fixture-image-no-mime", Quirk::FixtureImageNoMime),
        ("fixture-audio-mp3", Quirk::FixtureAudioMp3),
        ("fixture-template-unfilled", Quirk::FixtureTemplateUnfilled),
        ("mrtr-trusts-state", Quirk::MrtrTrustsState),
        ("mrtr-same-state", Quirk::MrtrSameState),
        ("mrtr-ignores-capabilities", Quirk::MrtrIgnoresCapabilities),
        ("fixture-sampling-unasked", Quirk::FixtureSamplingUnasked),
        ("fixture-default-missing", Quirk::FixtureDefaultMissing),
        (
            "fixture-titled-enum-as-enum",
            Quirk::FixtureTitledEnumAsEnum,
        ),
        ("not-found-without-uri", Quirk::NotFoundWithoutUri),
    ];

    /// The quirk of the mutant called `name`.
    pub fn named(name: &str) -> Option<Quirk> {
        Quirk::ALL.iter().find(|(n, _)| *n == name).map(|(_, q)| *q)
    }
}
