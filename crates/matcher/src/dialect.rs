//! Dialects: which rules apply and how replies pair, as data.

use std::{fmt, str::FromStr};

use crate::UnknownName;

/// The protocol a stream speaks. Selects the rules [`classify`](crate::classify)
/// checks and how a [`Session`](crate::Session) pairs replies.
///
/// `#[non_exhaustive]`: more products speak JSON-RPC over lines with rules
/// of their own. A dialect is named by [`Dialect::name`] (its `Display`)
/// and parsed back with `FromStr`:
///
/// ```
/// use rpcspec_matcher::Dialect;
/// assert_eq!("mcp".parse::<Dialect>(), Ok(Dialect::Mcp));
/// assert_eq!(Dialect::Mcp.to_string(), "mcp");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
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
    /// Every dialect's [name](Dialect::name), in the order of the variants.
    pub const NAMES: &'static [&'static str] = &["jsonrpc2", "lenient", "mcp", "claude", "events"];

    /// Whether replies pair with requests at all: not in an event stream,
    /// whose records need no reply.
    pub fn pairs(&self) -> bool {
        !matches!(self, Dialect::Events(_))
    }

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

    pub(crate) fn type_field(&self) -> &str {
        match self {
            Dialect::Events(cfg) => &cfg.type_field,
            _ => "type",
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The dialect with this [name](Dialect::name), exactly as written (lower
/// case); `events` gets the default [`EventsConfig`].
impl FromStr for Dialect {
    type Err = UnknownName;

    fn from_str(name: &str) -> Result<Dialect, UnknownName> {
        Ok(match name {
            "jsonrpc2" => Dialect::Jsonrpc2,
            "lenient" => Dialect::Lenient,
            "mcp" => Dialect::Mcp,
            "claude" => Dialect::Claude,
            "events" => Dialect::Events(EventsConfig::default()),
            _ => return Err(UnknownName::new("dialect", name, Dialect::NAMES)),
        })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_back() {
        let all = [
            Dialect::Jsonrpc2,
            Dialect::Lenient,
            Dialect::Mcp,
            Dialect::Claude,
            Dialect::Events(EventsConfig::default()),
        ];
        let names: Vec<_> = all.iter().map(Dialect::name).collect();
        assert_eq!(names, Dialect::NAMES);
        for dialect in all {
            assert_eq!(dialect.to_string().parse::<Dialect>(), Ok(dialect));
        }
    }

    #[test]
    fn an_unknown_name_lists_the_known_ones() {
        let e = "MCP".parse::<Dialect>().unwrap_err();
        assert_eq!(e.name(), "MCP");
        assert_eq!(e.known(), Dialect::NAMES);
        assert_eq!(
            e.to_string(),
            "unknown dialect `MCP` (known: jsonrpc2, lenient, mcp, claude, events)"
        );
        assert_eq!(
            "a\nb".parse::<Dialect>().unwrap_err().to_string(),
            "unknown dialect `a\\nb` (known: jsonrpc2, lenient, mcp, claude, events)"
        );
    }
}
