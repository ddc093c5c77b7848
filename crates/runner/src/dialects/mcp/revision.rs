//! The MCP revisions rpcspec knows, as data: what each one's lifecycle is
//! and which official JSON Schema describes its messages.

use std::{fmt, str::FromStr};

use rpcspec_matcher::UnknownName;

/// A revision of the Model Context Protocol.
///
/// `Ord` follows time: a later revision is greater.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Revision {
    /// 2025-06-18: the `initialize` handshake; no JSON-RPC batches.
    V2025_06_18,
    /// 2025-11-25: as 2025-06-18, with tasks, URL elicitation, icons; an
    /// error to an unreadable request omits `id`.
    V2025_11_25,
    /// 2026-07-28: stateless. No `initialize`, `ping` or
    /// `logging/setLevel`; every request carries its protocol version and
    /// client capabilities in `_meta`; `server/discover` advertises the
    /// server's versions; every result has a `resultType`.
    V2026_07_28,
}

impl Revision {
    /// Every revision, oldest first.
    pub const ALL: &[Revision] = &[
        Revision::V2025_06_18,
        Revision::V2025_11_25,
        Revision::V2026_07_28,
    ];

    /// The newest revision: what `--dialect mcp` offers first.
    pub const NEWEST: Revision = Revision::V2026_07_28;

    /// The newest revision that opens with `initialize`.
    pub const NEWEST_LEGACY: Revision = Revision::V2025_11_25;

    /// Every revision's name, oldest first.
    pub const NAMES: &[&str] = &["2025-06-18", "2025-11-25", "2026-07-28"];

    /// The revision's name, its date: `2025-11-25`.
    pub fn as_str(self) -> &'static str {
        match self {
            Revision::V2025_06_18 => "2025-06-18",
            Revision::V2025_11_25 => "2025-11-25",
            Revision::V2026_07_28 => "2026-07-28",
        }
    }

    /// Whether sessions open with `initialize` and `notifications/initialized`
    /// (the "legacy" era, in 2026-07-28's words); else every request
    /// carries its version in `_meta` and `server/discover` exists.
    pub fn has_initialize(self) -> bool {
        self < Revision::V2026_07_28
    }

    /// Whether `ping` exists (removed in 2026-07-28).
    pub fn has_ping(self) -> bool {
        self < Revision::V2026_07_28
    }

    /// Whether `logging/setLevel` exists (removed in 2026-07-28: the level
    /// travels in each request's `_meta`).
    pub fn has_set_level(self) -> bool {
        self < Revision::V2026_07_28
    }

    /// Whether servers may send requests of their own (`roots/list`,
    /// `sampling/createMessage`, `elicitation/create`); 2026-07-28 replaced
    /// them with `InputRequiredResult` ("The server MUST NOT write JSON-RPC
    /// requests to stdout").
    pub fn server_requests(self) -> bool {
        self < Revision::V2026_07_28
    }

    /// The error code of `resources/read` for a URI the server does not
    /// have: -32002 up to 2025-11-25 (server/resources, "Error Handling"),
    /// -32602 from 2026-07-28 (changelog, minor change 6).
    pub fn resource_not_found(self) -> i64 {
        if self < Revision::V2026_07_28 {
            -32002
        } else {
            -32602
        }
    }

    /// The revision's official JSON Schema, as published
    /// (`schemas/mcp/README.md` says where from).
    pub fn schema_text(self) -> &'static str {
        match self {
            Revision::V2025_06_18 => include_str!("../../../schemas/mcp/2025-06-18/schema.json"),
            Revision::V2025_11_25 => include_str!("../../../schemas/mcp/2025-11-25/schema.json"),
            Revision::V2026_07_28 => include_str!("../../../schemas/mcp/2026-07-28/schema.json"),
        }
    }

    /// The section prefix findings of this revision cite:
    /// `MCP 2025-11-25`.
    pub fn cite(self, section: &str) -> String {
        format!("MCP {} {section}", self.as_str())
    }
}

impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Revision {
    type Err = UnknownName;

    fn from_str(name: &str) -> Result<Revision, UnknownName> {
        Revision::ALL
            .iter()
            .copied()
            .find(|r| r.as_str() == name)
            .ok_or_else(|| UnknownName::new("MCP revision", name, Revision::NAMES))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_order_is_time() {
        for (i, r) in Revision::ALL.iter().enumerate() {
            assert_eq!(r.as_str(), Revision::NAMES[i]);
            assert_eq!(r.to_string().parse::<Revision>().unwrap(), *r);
        }
        assert!(Revision::ALL.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(Revision::NEWEST, *Revision::ALL.last().unwrap());
        let e = "2024-11-05".parse::<Revision>().unwrap_err().to_string();
        assert!(e.contains("2025-06-18") && e.contains("2024-11-05"), "{e}");
    }

    #[test]
    fn each_schema_is_its_revision_s() {
        for r in Revision::ALL {
            let schema: serde_json::Value = serde_json::from_str(r.schema_text()).unwrap();
            let defs = schema
                .get("$defs")
                .or_else(|| schema.get("definitions"))
                .unwrap();
            assert_eq!(
                defs.get("InitializeRequest").is_some(),
                r.has_initialize(),
                "{r}"
            );
            assert_eq!(defs.get("PingRequest").is_some(), r.has_ping(), "{r}");
            assert_eq!(
                defs.get("DiscoverRequest").is_some(),
                !r.has_initialize(),
                "{r}"
            );
        }
    }
}
