//! The matcher's test suite, one binary: spec examples, one case per rule,
//! snapshots of malformed messages, and session scenarios.

mod examples;
mod malformed;
mod per_rule;
mod readings;
mod session;

use rpcspec_matcher::{Dialect, Direction, Finding, Kind, Session, classify};

/// A message, or a conversation: lines starting with `> ` are sent client to
/// server, lines starting with `< ` server to client; other lines are ignored
/// (use them to comment). A conversation is closed at the end.
pub fn is_script(text: &str) -> bool {
    text.trim_start().starts_with("> ") || text.trim_start().starts_with("< ")
}

/// Every finding of a message (classified alone) or of a script (fed to a
/// session, then closed).
pub fn findings(dialect: &Dialect, text: &str) -> Vec<Finding> {
    if !is_script(text) {
        return classify(text, dialect).findings;
    }
    let mut session = Session::new(dialect.clone());
    let mut out = Vec::new();
    for line in text.lines().map(str::trim_start) {
        if let Some(msg) = line.strip_prefix("> ") {
            out.extend(session.feed(Direction::ClientToServer, msg).findings);
        } else if let Some(msg) = line.strip_prefix("< ") {
            out.extend(session.feed(Direction::ServerToClient, msg).findings);
        }
    }
    out.extend(session.close());
    out
}

/// The rule ids of `findings`, in order.
pub fn ids(findings: &[Finding]) -> Vec<&'static str> {
    findings.iter().map(|f| f.rule.id).collect()
}

/// One finding per line, as `Display` writes it; `(none)` for none.
pub fn render(findings: &[Finding]) -> String {
    if findings.is_empty() {
        return "  (none)\n".into();
    }
    findings.iter().map(|f| format!("  {f}\n")).collect()
}

/// A one-line summary of a classification, for table-driven tests.
pub fn summary(kind: &Kind) -> String {
    let opt =
        |id: &Option<rpcspec_matcher::Id>| id.as_ref().map_or("-".to_owned(), |i| i.to_string());
    match kind {
        Kind::Request { id, method } => format!("request {id} {method}"),
        Kind::Notification { method } => format!("notification {method}"),
        Kind::Success { id } => format!("success {id}"),
        Kind::Error { id, code } => {
            format!(
                "error {} {}",
                opt(id),
                code.map_or("-".to_owned(), |c| c.to_string())
            )
        }
        Kind::Cancel { id } => format!("cancel {id}"),
        Kind::Event { name } => format!("event {name}"),
        Kind::Batch(members) => {
            let members: Vec<String> = members.iter().map(summary).collect();
            format!("batch [{}]", members.join(", "))
        }
        Kind::Invalid { shape, id } => format!("invalid {shape:?} {}", opt(id)).to_lowercase(),
        other => format!("{other:?}"),
    }
}
