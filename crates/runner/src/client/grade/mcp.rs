//! The MCP session's graders: the lifecycle as the client ran it, and
//! every message it wrote against its revision's schema.

use std::collections::HashMap;

use serde_json::Value;

use super::{
    ASK_ID, Body, Evidence, FINDINGS_PER_RULE, Observed, Outcome, ServerEnd, Stop, Verdict, rules,
    same_id, short,
};
use crate::dialects::mcp::{Revision, schema};

/// The MCP session as the client ran it: its opening, `initialized`,
/// the version it accepted, its answers to the server's requests, the
/// call it gave up on, how it ended, and every message against the
/// negotiated revision's schema.
pub(crate) fn mcp_session(
    o: &Observed<'_>,
    outcomes: &HashMap<&'static str, Outcome>,
    out: &mut Vec<Evidence>,
) {
    let messages: Vec<Value> = o
        .client_lines
        .iter()
        .filter_map(|l| serde_json::from_slice(l).ok())
        .collect();
    let known = opening(o, &messages, out);
    asks(o, out);
    skipped(o, out);
    cancel(o, &messages, outcomes, out);
    shutdown(o, out);
    // Every message against the negotiated revision's schema.
    let revision = known.or_else(|| {
        messages
            .iter()
            .find_map(|m| versioned(m)?.parse::<Revision>().ok())
    });
    if let Some(revision) = revision {
        schema_of(o, &messages, revision, out);
    }
}

/// A message's method, if it has one.
fn method(m: &Value) -> Option<String> {
    m.get("method").and_then(Value::as_str).map(str::to_owned)
}

/// Whether a message is a request.
fn is_request(m: &Value) -> bool {
    m.get("id").is_some() && method(m).is_some()
}

/// The protocol version a 2026-07-28 request carries in its `_meta`.
fn versioned(m: &Value) -> Option<String> {
    m.get("params")
        .and_then(crate::client::twist::version_of)
        .map(str::to_owned)
}

/// The opening: the first request, the version the server answered with
/// and whether the client took it, `notifications/initialized` before any
/// other request. The revision the server answered with, if it is one.
fn opening(o: &Observed<'_>, messages: &[Value], out: &mut Vec<Evidence>) -> Option<Revision> {
    if let Some(first) = messages.iter().find(|m| is_request(m)) {
        let name = method(first).unwrap_or_default();
        if name != "initialize" && name != "server/discover" && versioned(first).is_none() {
            out.push(Evidence::broke(
                &rules::CLIENT_MCP_INITIALIZE_FIRST,
                format!("the client's first request is `{name}`, before any `initialize`"),
            ));
        }
    }
    let initialize = o.log.answers.iter().find(|a| a.method == "initialize");
    let answered = initialize.and_then(|a| a.given()).and_then(|b| match b {
        Body::Result(raw) => serde_json::from_slice::<Value>(raw).ok(),
        Body::Error(_) => None,
    });
    let version = answered
        .as_ref()
        .and_then(|r| r.get("protocolVersion"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let known = version.as_deref().and_then(|v| v.parse::<Revision>().ok());
    let Some(init) = initialize.filter(|_| answered.is_some()) else {
        return known;
    };
    let at = messages
        .iter()
        .position(|m| is_request(m) && m.get("id").is_some_and(|id| same_id(id, &init.id)))
        .unwrap_or(0);
    let after = &messages[at + 1..];
    let initialized = after
        .iter()
        .position(|m| method(m).as_deref() == Some("notifications/initialized"));
    let early: Vec<String> = after[..initialized.unwrap_or(after.len())]
        .iter()
        .filter(|m| is_request(m))
        .filter_map(method)
        .filter(|m| m != "ping")
        .collect();
    if known.is_none() {
        // A version no revision has: the client should have left.
        let went_on: Vec<String> = after
            .iter()
            .filter(|m| is_request(m) || method(m).as_deref() == Some("notifications/initialized"))
            .filter_map(method)
            .collect();
        if !went_on.is_empty() {
            out.push(Evidence::broke(
                &rules::CLIENT_MCP_VERSION,
                format!(
                    "the server answered `initialize` with protocol version {}, which no MCP revision has; the client went on: {}",
                    version.as_deref().unwrap_or("(none)"),
                    went_on.join(", ")
                ),
            ));
        }
    } else if initialized.is_none() && !early.is_empty() {
        out.push(Evidence::broke(
            &rules::CLIENT_MCP_INITIALIZED,
            format!(
                "the client never sent `notifications/initialized`, and made requests: {}",
                early.join(", ")
            ),
        ));
    } else if !early.is_empty() {
        out.push(Evidence::broke(
            &rules::CLIENT_MCP_OPERATION_ORDER,
            format!(
                "requests before `notifications/initialized`: {}",
                early.join(", ")
            ),
        ));
    }
    known
}

/// The client's answers to the server's requests.
fn asks(o: &Observed<'_>, out: &mut Vec<Evidence>) {
    for ask in &o.log.asks {
        let ok = ask
            .answer
            .as_ref()
            .is_some_and(|a| a.get("result").is_some_and(Value::is_object));
        if !ok {
            let what = match &ask.answer {
                Some(a) => format!("was answered with {}", short(a)),
                None => format!("got no answer within {:?}", crate::client::ASK_WAIT),
            };
            out.push(Evidence::broke(
                &rules::CLIENT_MCP_SERVER_REQUEST,
                format!("the server's `{}` (id {ASK_ID}) {what}", ask.method),
            ));
        }
    }
}

/// What the scenario could not test in the session the client opened.
fn skipped(o: &Observed<'_>, out: &mut Vec<Evidence>) {
    let initialize = o.log.answers.iter().find(|a| a.method == "initialize");
    if let Some(version) = &o.scenario.version
        && initialize.is_none()
        && o.log
            .answers
            .iter()
            .any(|a| a.method == "server/discover" || a.params.pointer("/_meta").is_some())
    {
        out.push(Evidence::note(
            Verdict::Skipped,
            format!(
                "the client opened a 2026-07-28 session (no `initialize`), whose result this scenario rewrites to protocol version {version}: nothing to test"
            ),
        ));
    }
    if let Some(asked) = &o.scenario.ask
        && o.log.asks.is_empty()
    {
        let why = if initialize.is_none() {
            "the session was a 2026-07-28 one, whose servers send no requests over stdio"
        } else if asked == "roots/list" {
            "the client did not declare `roots`"
        } else if asked == "elicitation/create" {
            "the client did not declare `elicitation`"
        } else {
            "the client made no tool call to answer after it"
        };
        out.push(Evidence::note(
            Verdict::Skipped,
            format!("the server never sent `{asked}`: {why}"),
        ));
    }
}

/// The call given up on: the client cancels it.
fn cancel(
    o: &Observed<'_>,
    messages: &[Value],
    outcomes: &HashMap<&'static str, Outcome>,
    out: &mut Vec<Evidence>,
) {
    let slow = o.log.answers.iter().find(|a| {
        a.method == "tools/call" && a.params.get("name").and_then(Value::as_str) == Some("slow")
    });
    let Some(slow) = slow else {
        return;
    };
    if slow.given().is_some()
        || !matches!(
            outcomes.get("slow"),
            Some(Outcome::Failed(_) | Outcome::Error(_))
        )
    {
        return;
    }
    let cancelled = messages.iter().any(|m| {
        method(m).as_deref() == Some("notifications/cancelled")
            && m.pointer("/params/requestId")
                .is_some_and(|id| same_id(id, &slow.id))
    });
    if !cancelled {
        out.push(Evidence::broke(
            &rules::CLIENT_MCP_CANCEL,
            format!(
                "the client gave up on `slow` (id {}) but sent no `notifications/cancelled` for it",
                slow.id
            ),
        ));
    }
}

/// The end: a client that is done closes its server's input first.
fn shutdown(o: &Observed<'_>, out: &mut Vec<Evidence>) {
    let stopped = o.log.stop.is_some_and(|(_, s)| s != Stop::Exited(0));
    if stopped || o.timed_out || !matches!(o.exit, Some((Some(0), _))) {
        return;
    }
    let why = match o.server_end {
        ServerEnd::InputClosed => None,
        ServerEnd::Killed => Some(
            "the server ended with its stdin still open: the client killed it instead of closing its input first",
        ),
        ServerEnd::Running => {
            Some("the client exited with its server still running and its stdin open")
        }
    };
    if let Some(why) = why {
        out.push(Evidence::broke(&rules::CLIENT_MCP_SHUTDOWN, why.into()));
    }
}

/// Every message the client wrote against `revision`'s schema.
fn schema_of(o: &Observed<'_>, messages: &[Value], revision: Revision, out: &mut Vec<Evidence>) {
    let ask_method = o.log.asks.first().map(|a| a.method.as_str());
    let mut found = 0;
    for (n, m) in messages.iter().enumerate() {
        let name = method(m);
        let role = match &name {
            Some(name) => schema::Role::Call(name),
            None if m.get("id").is_some_and(|id| same_id(id, ASK_ID)) => {
                schema::Role::Reply(ask_method)
            }
            None => schema::Role::Reply(None),
        };
        for e in schema::validate(revision, m, role) {
            found += 1;
            if found <= FINDINGS_PER_RULE {
                out.push(Evidence::broke(
                    &crate::dialects::mcp::rules::MCP_SCHEMA,
                    format!(
                        "message {} the client wrote, against MCP {revision}'s schema: {e}",
                        n + 1
                    ),
                ));
            }
        }
    }
    if found > FINDINGS_PER_RULE {
        out.push(Evidence::broke(
            &crate::dialects::mcp::rules::MCP_SCHEMA,
            format!(
                "{} more schema findings in the client's messages not listed",
                found - FINDINGS_PER_RULE
            ),
        ));
    }
}
