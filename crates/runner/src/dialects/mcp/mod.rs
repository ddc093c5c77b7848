//! MCP over stdio in depth: the protocol's revisions as data, its official
//! JSON Schemas, and the reference server every MCP check must pass.

pub mod conformance;
pub mod conn;
pub mod grade;
pub mod played;
pub mod reference;
pub mod revision;
pub mod rules;
pub mod schema;
pub mod served;
pub mod suite;

pub use played::PLAYING;
pub use revision::Revision;

use std::sync::OnceLock;

use serde_json::Value;

use crate::dialects::{
    checking::{Checking, ProgressRules},
    directions::{Directions, Sender},
    serving::{Batches, Call, Serving, Unreadable},
};

/// What the server role does in MCP: a hint for a server that never
/// answered.
pub const SERVING: Serving = Serving {
    startup_hint: "is it an MCP server over stdio (some need an argument, such as `stdio`)? does \
                   it flush stdout after each message?",
    probe: Some(PING),
    calls: &[PING],
    unknown_stands_in: false,
    barrier: Some("ping"),
    own_methods: Some("MCP's methods are its own"),
    batches: Batches::Absent(
        "MCP 2025-06-18 removed JSON-RPC batching (changelog); no server must accept a batch",
    ),
    // An error to a request whose id could not be read omits `id`
    // (2025-11-25 schema: `JSONRPCErrorResponse.id?: RequestId`; a
    // `RequestId` is never null), where JSON-RPC 2.0 §5 writes `"id":
    // null`. The 2025-06-18 schema makes `id` required, so a server of that
    // revision has no schema-valid answer at all: silence is NON-STRICT.
    unreadable: Some(Unreadable {
        id_absent: true,
        why_silence: "no reply to an unreadable request: the MCP 2025-06-18 schema requires a non-null `id` on every error, so a server of that revision has no valid answer (JSON-RPC 2.0 §5.1 and §7 want one with id null, MCP 2025-11-25 one without id)",
    }),
    reference: Some(served::REFERENCE),
    ..Serving::PLAIN
};

/// `ping`, which every MCP server answers with an empty result (before
/// 2026-07-28, which removed it: the MCP suite checks that revision).
const PING: Call = Call {
    method: "ping",
    params: None,
    reply: r#""result": "$object""#,
    needs: None,
};

/// What `check` does in MCP beyond pairing: `notifications/cancelled`
/// withdraws its request (Cancellation: "The receiver SHOULD NOT send a
/// response for the cancelled request"; "Senders of the cancellation
/// notification SHOULD ignore any response to the request that arrives
/// afterward"), and progress on a token must grow and stop once its request
/// is answered (Progress: "The progress value MUST increase with each
/// notification"; "Progress notifications MUST stop after completion").
pub const CHECKING: Checking = Checking {
    withdraws: true,
    progress: Some(ProgressRules {
        value: "/params/progress",
        increasing: &rules::MCP_PROGRESS_INCREASING,
        after_completion: &rules::MCP_PROGRESS_AFTER_COMPLETION,
    }),
    ..Checking::PLAIN
};

/// Who sends each MCP method, from every revision's `schema.json`: the
/// members of its `ClientRequest` and `ClientNotification` unions are the
/// client's, of `ServerRequest` and `ServerNotification` the server's (a
/// method in both, `ping` say, either side's). `notifications/cancelled`
/// withdraws a request of its sender (`params.requestId`);
/// `notifications/progress` reports on the token a request of the other
/// side gave in `params._meta.progressToken`.
pub fn directions() -> &'static Directions {
    static TABLE: OnceLock<Directions> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = Directions::new(
            "MCP schema.json (the ClientRequest, ServerRequest, ClientNotification and ServerNotification unions of every revision)",
        );
        table.cancels = &[("notifications/cancelled", "/params/requestId")];
        table.progress = &[("notifications/progress", "/params/progressToken")];
        table.tokens_given = &["/params/_meta/progressToken"];
        table.reply_fits = Some(|method, reply| {
            Revision::ALL.iter().any(|&r| {
                schema::knows(r, method)
                    && schema::validate(r, reply, schema::Role::Reply(Some(method))).is_empty()
            })
        });
        for &revision in Revision::ALL {
            let unions = [
                ("ClientRequest", Sender::Client),
                ("ClientNotification", Sender::Client),
                ("ServerRequest", Sender::Server),
                ("ServerNotification", Sender::Server),
            ];
            for (union, sender) in unions {
                let Some(members) = schema::definition(revision, union)
                    .and_then(|u| u.get("anyOf"))
                    .and_then(Value::as_array)
                else {
                    continue;
                };
                for member in members {
                    let method = member
                        .get("$ref")
                        .and_then(Value::as_str)
                        .and_then(|r| schema::resolve(revision, r))
                        .and_then(|d| d.pointer("/properties/method/const"))
                        .and_then(Value::as_str);
                    if let Some(method) = method {
                        table.add(method, sender);
                    }
                }
            }
        }
        table
    })
}
