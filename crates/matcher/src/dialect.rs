//! Dialects: which rules apply and how replies pair, as data.

/// The protocol a stream speaks. Selects the rules [`classify`](crate::classify)
/// checks and how a [`Session`](crate::Session) pairs replies.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Dialect {
    /// JSON-RPC 2.0 exactly as specified.
    #[default]
    Jsonrpc2,
    /// JSON-RPC 2.0 with `"jsonrpc"` optional, as Codex's app-server writes
    /// it. A `jsonrpc` member that is present must still be `"2.0"`.
    Lenient,
    /// JSON-RPC 2.0 with the Model Context Protocol's stricter rules (from
    /// revision 2025-06-18 on): ids are strings or integers and never null, a
    /// sender never reuses an id, there are no batches, and an error response
    /// omits `id` when the request's id could not be read.
    Mcp,
    /// Claude Code's stream-json control protocol: `control_request` is
    /// paired with `control_response` by `request_id` (top level in the
    /// request, inside `response` in the reply), `control_cancel_request`
    /// withdraws a request, and every other `type` is an event.
    Claude,
    /// A plain event stream: nothing is paired, only the lifecycle of the
    /// records the server sends is checked.
    Events(EventsConfig),
}

impl Dialect {
    /// The dialect's name: `jsonrpc2`, `lenient`, `mcp`, `claude` or `events`.
    pub fn name(&self) -> &'static str {
        match self {
            Dialect::Jsonrpc2 => "jsonrpc2",
            Dialect::Lenient => "lenient",
            Dialect::Mcp => "mcp",
            Dialect::Claude => "claude",
            Dialect::Events(_) => "events",
        }
    }

    /// The dialect with this [name](Dialect::name); `events` gets the default
    /// [`EventsConfig`].
    pub fn from_name(name: &str) -> Option<Dialect> {
        Some(match name {
            "jsonrpc2" => Dialect::Jsonrpc2,
            "lenient" => Dialect::Lenient,
            "mcp" => Dialect::Mcp,
            "claude" => Dialect::Claude,
            "events" => Dialect::Events(EventsConfig::default()),
            _ => return None,
        })
    }

    pub(crate) fn type_field(&self) -> &str {
        match self {
            Dialect::Events(cfg) => &cfg.type_field,
            _ => "type",
        }
    }
}

/// The lifecycle of an [`Events`](Dialect::Events) stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventsConfig {
    /// The member naming a record's type. Default `type`.
    pub type_field: String,
    /// The type the first record must have, if any. Default `start`.
    pub start: Option<String>,
    /// The types that end the stream; nothing may follow one, and a stream
    /// that closes without one was interrupted. Default `done` and `error`.
    pub end: Vec<String>,
}

impl Default for EventsConfig {
    fn default() -> Self {
        EventsConfig {
            type_field: "type".into(),
            start: Some("start".into()),
            end: vec!["done".into(), "error".into()],
        }
    }
}
