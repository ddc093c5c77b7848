//! The dialects, in one list: every name `--dialect` (and `check --rpc`)
//! takes, what each is, which roles take it, its framing, the matcher's
//! pairing rules and who sends each method. Every list of dialects a user
//! reads (`--help`, unknown-name errors, target files, manifests) is made
//! from [`DIALECTS`]; an engine asks a [`Descriptor`], never a name.
//!
//! To add a dialect: a [`Descriptor`] here, its folder beside the others
//! (ARCHITECTURE.md, "Add a dialect").

use std::fmt::Write as _;

use rpcspec_matcher::{Dialect, Rule};

use crate::{
    capture::Framing,
    server::serve::{EXAMPLES, Reference},
};

pub mod acp;
pub mod checking;
pub mod claude;
pub mod codex;
pub mod codex_exec;
pub mod directions;
pub mod lsp;
pub mod mcp;
pub mod playing;
pub mod serving;

pub use checking::Checking;
pub use directions::{Directions, Sender};
pub use playing::{Answers, Peer, Playing};
pub use serving::{Batches, Call, Serving, Unreadable};

/// Which commands and roles take a dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Roles {
    /// `run --role server`, `list`, `fuzz`, target files and `check --rpc`:
    /// its messages are judged by the matcher.
    pub server: bool,
    /// `run --role client`: rpcspec scripts the peer of a client of it.
    pub client: bool,
    /// `serve --role server`: a reference server of it.
    pub reference: bool,
}

/// How a dialect's peers frame their messages by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framed {
    /// One JSON text per line.
    Ndjson,
    /// `Content-Length` headers (LSP's base protocol).
    ContentLength,
}

impl Framed {
    /// Its name on the command line and in case files: `content-length`.
    pub fn name(self) -> &'static str {
        match self {
            Framed::Ndjson => "ndjson",
            Framed::ContentLength => "content-length",
        }
    }

    /// The framing, with its defaults.
    pub fn framing(self) -> Framing {
        match self {
            Framed::Ndjson => Framing::ndjson(),
            Framed::ContentLength => Framing::content_length(),
        }
    }

    /// What its messages are, in a sentence: "… are NDJSON".
    pub fn described(self) -> &'static str {
        match self {
            Framed::Ndjson => "NDJSON",
            Framed::ContentLength => "in Content-Length framing",
        }
    }
}

/// Everything an engine asks of a dialect.
#[derive(Debug)]
pub struct Descriptor {
    /// Its name on the command line: `mcp`.
    pub name: &'static str,
    /// One line on what it is, for `--help`.
    pub about: &'static str,
    /// The matcher's pairing rules; `None` for a stream that is not
    /// JSON-RPC of any sort (Codex's `exec --json`), which only the client
    /// role reads.
    pub matcher: Option<fn() -> Dialect>,
    /// Its revisions, each a name of its own (`mcp@2025-11-25`).
    pub revisions: &'static [&'static str],
    /// How its peers frame messages.
    pub framing: Framed,
    /// Which roles take it.
    pub roles: Roles,
    /// Who sends each method, as the protocol's own schema or meta-model
    /// says; `None` where none is shipped.
    pub directions: Option<fn() -> &'static Directions>,
    /// What `check` does in it beyond pairing.
    pub check: Checking,
    /// What the server role does in it.
    pub serve: Serving,
    /// What the client role does in it; `None` where the role does not
    /// take it.
    pub play: Option<Playing>,
    /// Its own rules (`rule_table!`), listed by `rpcspec rules` after the
    /// engines', and where each is checked; `None`: its rules are the
    /// engines'.
    pub rules: Option<OwnRules>,
}

/// A dialect's own rules, and where each is checked.
#[derive(Debug, Clone, Copy)]
pub struct OwnRules {
    /// Its table.
    pub table: fn() -> &'static [&'static Rule],
    /// Where a rule of the table is checked, in words.
    pub checked_on: fn(&Rule) -> &'static str,
}

/// What the server role asks of a plain JSON-RPC target that never
/// answered: whether it is one of the dialects that need naming.
const JSONRPC_SERVING: Serving = Serving {
    startup_hint: "is it reading stdin? is it an MCP server, which needs `--dialect mcp`, the \
                   Codex app-server (`--dialect codex`), or a language server (`--dialect lsp`)? \
                   does it flush stdout after each reply, or hold its replies until it exits?",
    // The JSON-RPC 2.0 §7 examples, unless the run is `--without` them.
    calls: &[
        Call {
            method: "get_data",
            params: None,
            reply: r#""result": ["hello", 5]"#,
            needs: Some("get_data"),
        },
        Call {
            method: "subtract",
            params: Some("[42, 23]"),
            reply: r#""result": 19"#,
            needs: Some("subtract"),
        },
        Call {
            method: "subtract",
            params: Some(r#"{"minuend": 42, "subtrahend": 23}"#),
            reply: r#""result": 19"#,
            needs: Some("subtract"),
        },
    ],
    reference: Some(EXAMPLES),
    ..Serving::PLAIN
};

const BOTH: Roles = Roles {
    server: true,
    client: true,
    reference: true,
};

/// Every dialect, in the order `--help` lists them.
pub static DIALECTS: &[Descriptor] = &[
    Descriptor {
        name: "jsonrpc2",
        about: "JSON-RPC 2.0 as specified (the default)",
        matcher: Some(|| Dialect::Jsonrpc2),
        revisions: &[],
        framing: Framed::Ndjson,
        roles: BOTH,
        directions: None,
        check: Checking::PLAIN,
        serve: JSONRPC_SERVING,
        play: Some(Playing::PLAIN),
        rules: None,
    },
    Descriptor {
        name: "lenient",
        about: "JSON-RPC 2.0 without the \"jsonrpc\" member",
        matcher: Some(|| Dialect::Lenient),
        revisions: &[],
        framing: Framed::Ndjson,
        roles: Roles {
            client: false,
            ..BOTH
        },
        directions: None,
        check: Checking::PLAIN,
        serve: Serving {
            version_optional: true,
            reference: Some(Reference {
                reads: || Dialect::Lenient,
                version: false,
                ..EXAMPLES
            }),
            ..JSONRPC_SERVING
        },
        play: None,
        rules: None,
    },
    Descriptor {
        name: "codex",
        about: "the Codex app-server: lenient, after its initialize handshake",
        matcher: Some(|| Dialect::Lenient),
        revisions: &[],
        framing: Framed::Ndjson,
        roles: BOTH,
        directions: None,
        check: Checking::PLAIN,
        serve: Serving {
            silent_to_unreadable: true,
            // Needs no login: "account": null when there is none (checked
            // against @openai/codex 0.171.0; `params` is required).
            calls: &[Call {
                method: "account/read",
                params: Some("{}"),
                reply: r#""result": "$object""#,
                needs: None,
            }],
            unknown_stands_in: false,
            own_methods: Some("the app-server's methods are its own"),
            batches: Batches::Absent(
                "the app-server protocol has no batches (codex-rs/app-server-protocol, jsonrpc_lite.rs: a message is one request, notification or response)",
            ),
            unreadable: Some(Unreadable {
                id_absent: false,
                why_silence: "no reply to an unreadable request: the app-server's errors carry a string or integer `id` (jsonrpc_lite.rs `RequestId`), so it has no way to write JSON-RPC 2.0's `\"id\": null` (§5.1, §7)",
            }),
            version_optional: true,
            reference: Some(codex::REFERENCE),
            ..Serving::PLAIN
        },
        play: Some(codex::PLAYING),
        rules: None,
    },
    Descriptor {
        name: "codex-exec",
        about: "the Codex CLI's `exec --json` event stream, read by a decoder",
        matcher: None,
        revisions: &[],
        framing: Framed::Ndjson,
        roles: Roles {
            server: false,
            client: true,
            reference: false,
        },
        directions: None,
        check: Checking::PLAIN,
        serve: Serving::PLAIN,
        play: Some(codex_exec::PLAYING),
        rules: None,
    },
    Descriptor {
        name: "mcp",
        about: "the Model Context Protocol, every revision the peer speaks",
        matcher: Some(|| Dialect::Mcp),
        revisions: mcp::Revision::NAMES,
        framing: Framed::Ndjson,
        roles: BOTH,
        directions: Some(mcp::directions),
        check: mcp::CHECKING,
        serve: mcp::SERVING,
        play: Some(mcp::PLAYING),
        rules: Some(mcp::rules::OWN),
    },
    Descriptor {
        name: "lsp",
        about: "the Language Server Protocol, in Content-Length framing",
        matcher: Some(|| Dialect::Jsonrpc2),
        revisions: &[],
        framing: Framed::ContentLength,
        roles: BOTH,
        directions: Some(lsp::directions),
        check: lsp::CHECKING,
        serve: lsp::SERVING,
        play: Some(lsp::PLAYING),
        rules: Some(lsp::OWN),
    },
    Descriptor {
        name: "acp",
        about: "the Agent Client Protocol: an editor and a coding agent, both asking",
        matcher: Some(|| Dialect::Jsonrpc2),
        revisions: &[],
        framing: Framed::Ndjson,
        roles: BOTH,
        directions: Some(acp::directions),
        check: acp::CHECKING,
        serve: acp::SERVING,
        play: Some(acp::played::PLAYING),
        rules: Some(acp::OWN),
    },
    Descriptor {
        name: "claude",
        about: "Claude Code's stream-json and its control protocol",
        matcher: Some(|| Dialect::Claude),
        revisions: &[],
        framing: Framed::Ndjson,
        roles: Roles {
            reference: false,
            ..BOTH
        },
        directions: None,
        check: Checking {
            lanes: ("SDK (host)", "Claude Code"),
            control: true,
            ends: &["result"],
            ..Checking::PLAIN
        },
        serve: Serving {
            probe: None,
            unknown_stands_in: false,
            ..Serving::PLAIN
        },
        play: Some(claude::PLAYING),
        rules: None,
    },
    Descriptor {
        name: "events",
        about: "an event stream (start … token … done), paired with nothing",
        matcher: Some(|| Dialect::Events(Default::default())),
        revisions: &[],
        framing: Framed::Ndjson,
        roles: Roles {
            server: true,
            client: false,
            reference: false,
        },
        directions: None,
        check: Checking {
            lanes: ("reader", "producer"),
            ends: &["done", "error"],
            ..Checking::PLAIN
        },
        serve: Serving {
            probe: None,
            unknown_stands_in: false,
            ..Serving::PLAIN
        },
        play: None,
        rules: None,
    },
];

impl Descriptor {
    /// The framing its peers speak by default.
    pub fn framing(&self) -> Framing {
        self.framing.framing()
    }

    /// Its names as a user writes them: `mcp`, `mcp@REVISION`.
    fn names(&self) -> impl Iterator<Item = String> {
        let pinned = (!self.revisions.is_empty()).then(|| format!("{}@REVISION", self.name));
        std::iter::once(self.name.to_owned()).chain(pinned)
    }
}

/// The descriptor of `name` (`mcp`, or `mcp@2025-11-25` with a revision it
/// has), and the revision named, if one was.
pub fn find(name: &str) -> Option<(&'static Descriptor, Option<&'static str>)> {
    let (base, revision) = match name.split_once('@') {
        Some((base, revision)) => (base, Some(revision)),
        None => (name, None),
    };
    let d = DIALECTS.iter().find(|d| d.name == base)?;
    match revision {
        None => Some((d, None)),
        Some(r) => d.revisions.iter().find(|&&k| k == r).map(|&k| (d, Some(k))),
    }
}

/// The dialect named `name` as the matcher judges it, and the name of its
/// handshake (the dialect's own name, its revision left off): what the
/// server role, `fuzz`, `list` and `check` take. `None` for a name no
/// dialect has, and for one whose messages the matcher does not judge
/// (`codex-exec`).
pub fn dialect_named(name: &str) -> Option<(Dialect, String)> {
    let (d, _) = find(name).filter(|(d, _)| d.roles.server)?;
    Some((d.matcher?(), d.name.to_owned()))
}

/// The framing a dialect's peers speak, by its (handshake's) name; NDJSON
/// for a name no dialect has.
pub fn framing_of(name: &str) -> Framing {
    find(name).map_or_else(Framing::ndjson, |(d, _)| d.framing())
}

/// Every name, comma-separated: `jsonrpc2, lenient, …, mcp, mcp@REVISION,
/// …`.
pub fn names() -> String {
    DIALECTS
        .iter()
        .flat_map(Descriptor::names)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The names a role takes (`server`, `client` or `reference`, by
/// `takes`), comma-separated.
pub fn names_taken(takes: fn(&Roles) -> bool) -> String {
    DIALECTS
        .iter()
        .filter(|d| takes(&d.roles))
        .flat_map(Descriptor::names)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `unknown dialect `NAME` (known: …)`, or, for a dialect that another
/// role takes, which role that is.
pub fn unknown(name: &str, takes: fn(&Roles) -> bool, what: &str) -> String {
    match find(name) {
        Some((d, _)) if !takes(&d.roles) => format!(
            "{what} takes no `{name}` (it is for {}); it takes: {}",
            roles_of(d),
            names_taken(takes)
        ),
        _ => format!("unknown dialect `{name}` (known: {})", names()),
    }
}

/// Where a dialect is taken, as commands: `run --role client, serve
/// --role client`.
fn roles_of(d: &Descriptor) -> String {
    let r = d.roles;
    let mut on = Vec::new();
    if r.server {
        on.push("run --role server, check");
    }
    if r.client {
        on.push("run --role client, serve --role client");
    }
    if r.reference {
        on.push("serve --role server");
    }
    on.join(", ")
}

/// The dialects, one per line, for a `--help`: each name, what it is, and
/// where a command takes it (`takes`).
pub fn help(lead: &str, takes: fn(&Roles) -> bool) -> String {
    let mut out = format!("{lead}\n");
    for d in DIALECTS {
        let names = d.names().collect::<Vec<_>>().join(", ");
        let _ = write!(out, "\n  {names}: {}", d.about);
        if !d.revisions.is_empty() {
            let _ = write!(out, " (revisions {})", d.revisions.join(", "));
        }
        if !takes(&d.roles) {
            let _ = write!(out, " [for {}]", roles_of(d));
        }
    }
    out
}

#[cfg(test)]
mod tests;
