//! MCP over stdio in depth: the protocol's revisions as data, its official
//! JSON Schemas, and the reference server every MCP check must pass.

pub mod conformance;
pub mod conn;
pub mod grade;
pub mod reference;
pub mod revision;
pub mod rules;
pub mod schema;
pub mod suite;

pub use revision::Revision;

use rpcspec_matcher::{Classified, Id, Kind};

/// MCP's `notifications/cancelled` withdraws the request `params.requestId`
/// (MCP Cancellation: "The receiver SHOULD NOT send a response for the
/// cancelled request"): the session takes it as a cancel, so the request
/// is not reported unanswered. For `check` and the fuzzer's open-ended
/// grading.
pub fn cancel(text: &str, classified: &mut Classified) {
    if !matches!(&classified.kind, Kind::Notification { method } if &**method == "notifications/cancelled")
    {
        return;
    }
    let id = serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| v.pointer("/params/requestId").map(|id| id.to_string()))
        .and_then(|raw| Id::parse(&raw));
    if let Some(id) = id {
        classified.kind = Kind::Cancel { id };
    }
}
