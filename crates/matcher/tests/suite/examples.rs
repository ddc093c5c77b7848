//! Every example of JSON-RPC 2.0 §7: the request, its classification, the
//! expected reply, its classification; then the pair through a session gives
//! no finding, and replies that get it wrong give the expected findings.

use rpcspec_matcher::{Dialect, Direction::*, Kind, Session, classify};

use crate::{findings, ids, render, summary};

struct Example {
    name: &'static str,
    request: &'static str,
    request_kind: &'static str,
    request_rules: &'static [&'static str],
    /// `None`: nothing comes back.
    reply: Option<&'static str>,
    reply_kind: &'static str,
}

const EXAMPLES: &[Example] = &[
    Example {
        name: "1a positional parameters",
        request: r#"{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}"#,
        request_kind: "request 1 subtract",
        request_rules: &[],
        reply: Some(r#"{"jsonrpc": "2.0", "result": 19, "id": 1}"#),
        reply_kind: "success 1",
    },
    Example {
        name: "1b positional parameters",
        request: r#"{"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2}"#,
        request_kind: "request 2 subtract",
        request_rules: &[],
        reply: Some(r#"{"jsonrpc": "2.0", "result": -19, "id": 2}"#),
        reply_kind: "success 2",
    },
    Example {
        name: "2a named parameters",
        request: r#"{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}"#,
        request_kind: "request 3 subtract",
        request_rules: &[],
        reply: Some(r#"{"jsonrpc": "2.0", "result": 19, "id": 3}"#),
        reply_kind: "success 3",
    },
    Example {
        name: "2b named parameters",
        request: r#"{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 4}"#,
        request_kind: "request 4 subtract",
        request_rules: &[],
        reply: Some(r#"{"jsonrpc": "2.0", "result": 19, "id": 4}"#),
        reply_kind: "success 4",
    },
    Example {
        name: "3a notification",
        request: r#"{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}"#,
        request_kind: "notification update",
        request_rules: &[],
        reply: None,
        reply_kind: "",
    },
    Example {
        name: "3b notification",
        request: r#"{"jsonrpc": "2.0", "method": "foobar"}"#,
        request_kind: "notification foobar",
        request_rules: &[],
        reply: None,
        reply_kind: "",
    },
    Example {
        name: "4 non-existent method",
        request: r#"{"jsonrpc": "2.0", "method": "foobar", "id": "1"}"#,
        request_kind: r#"request "1" foobar"#,
        request_rules: &[],
        reply: Some(
            r#"{"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "1"}"#,
        ),
        reply_kind: r#"error "1" -32601"#,
    },
    Example {
        name: "5 invalid JSON",
        request: r#"{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]"#,
        request_kind: "invalid other -",
        request_rules: &["json.parse"],
        reply: Some(
            r#"{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}"#,
        ),
        reply_kind: "error null -32700",
    },
    Example {
        name: "6 invalid request object",
        request: r#"{"jsonrpc": "2.0", "method": 1, "params": "bar"}"#,
        request_kind: "invalid request -",
        request_rules: &["request.method-type", "request.params-type"],
        reply: Some(
            r#"{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}"#,
        ),
        reply_kind: "error null -32600",
    },
    Example {
        name: "7 batch, invalid JSON",
        request: r#"[ {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"}, {"jsonrpc": "2.0", "method" ]"#,
        request_kind: "invalid other -",
        request_rules: &["json.parse"],
        reply: Some(
            r#"{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}"#,
        ),
        reply_kind: "error null -32700",
    },
    Example {
        name: "8 empty array",
        request: "[]",
        request_kind: "invalid other -",
        request_rules: &["batch.empty"],
        reply: Some(
            r#"{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}"#,
        ),
        reply_kind: "error null -32600",
    },
    Example {
        name: "9 invalid batch, not empty",
        request: "[1]",
        request_kind: "batch [invalid other -]",
        request_rules: &["message.object"],
        reply: Some(
            r#"[ {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null} ]"#,
        ),
        reply_kind: "batch [error null -32600]",
    },
    Example {
        name: "10 invalid batch",
        request: "[1,2,3]",
        request_kind: "batch [invalid other -, invalid other -, invalid other -]",
        request_rules: &["message.object", "message.object", "message.object"],
        reply: Some(
            r#"[ {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}, {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}, {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null} ]"#,
        ),
        reply_kind: "batch [error null -32600, error null -32600, error null -32600]",
    },
    Example {
        name: "11 batch",
        request: r#"[ {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"}, {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}, {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"}, {"foo": "boo"}, {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"}, {"jsonrpc": "2.0", "method": "get_data", "id": "9"} ]"#,
        request_kind: r#"batch [request "1" sum, notification notify_hello, request "2" subtract, invalid other -, request "5" foo.get, request "9" get_data]"#,
        request_rules: &["message.jsonrpc-version", "message.kind"],
        reply: Some(
            r#"[ {"jsonrpc": "2.0", "result": 7, "id": "1"}, {"jsonrpc": "2.0", "result": 19, "id": "2"}, {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}, {"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "5"}, {"jsonrpc": "2.0", "result": ["hello", 5], "id": "9"} ]"#,
        ),
        reply_kind: r#"batch [success "1", success "2", error null -32600, error "5" -32601, success "9"]"#,
    },
    Example {
        name: "12 batch, all notifications",
        request: r#"[ {"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]}, {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]} ]"#,
        request_kind: "batch [notification notify_sum, notification notify_hello]",
        request_rules: &[],
        reply: None,
        reply_kind: "",
    },
];

#[test]
fn requests_classify_as_the_spec_says() {
    for ex in EXAMPLES {
        let c = classify(ex.request, &Dialect::Jsonrpc2);
        assert_eq!(summary(&c.kind), ex.request_kind, "{}", ex.name);
        assert_eq!(ids(&c.findings), ex.request_rules, "{}", ex.name);
    }
}

#[test]
fn replies_classify_as_the_spec_says() {
    for ex in EXAMPLES {
        let Some(reply) = ex.reply else { continue };
        let c = classify(reply, &Dialect::Jsonrpc2);
        assert_eq!(summary(&c.kind), ex.reply_kind, "{}", ex.name);
        assert_eq!(c.findings, [], "{}", ex.name);
    }
}

#[test]
fn each_pair_passes_a_session() {
    for ex in EXAMPLES {
        let mut session = Session::new(Dialect::Jsonrpc2);
        session.feed(ClientToServer, ex.request);
        if let Some(reply) = ex.reply {
            let c = session.feed(ServerToClient, reply);
            assert_eq!(c.findings, [], "{}", ex.name);
        }
        assert_eq!(session.close(), [], "{}", ex.name);
    }
}

#[test]
fn batch_replies_in_any_order_pass() {
    let ex = &EXAMPLES[13];
    let reply = classify(ex.reply.unwrap(), &Dialect::Jsonrpc2);
    let Kind::Batch(members) = reply.kind else {
        panic!("not a batch")
    };
    assert_eq!(members.len(), 5);
    // Rebuild the reply array in every rotation and reversed.
    let raw: Vec<&str> = split_members(ex.reply.unwrap());
    for shift in 0..raw.len() {
        for reverse in [false, true] {
            let mut order = raw.clone();
            order.rotate_left(shift);
            if reverse {
                order.reverse();
            }
            let mut session = Session::new(Dialect::Jsonrpc2);
            session.feed(ClientToServer, ex.request);
            let c = session.feed(ServerToClient, &format!("[{}]", order.join(",")));
            assert_eq!(c.findings, [], "{order:?}");
            assert_eq!(session.close(), []);
        }
    }
}

/// The members of a flat array of objects without nested arrays of objects.
fn split_members(text: &str) -> Vec<&str> {
    let members: Vec<&serde_json::value::RawValue> = serde_json::from_str(text).unwrap();
    members.into_iter().map(|m| m.get()).collect()
}

/// (example, request, wrong reply or replies, one per line)
const WRONG: &[(&str, &str, &str)] = &[
    (
        "1a id type swapped",
        EXAMPLES[0].request,
        r#"{"jsonrpc": "2.0", "result": 19, "id": "1"}"#,
    ),
    ("1a no reply", EXAMPLES[0].request, ""),
    (
        "3a reply to notification",
        EXAMPLES[4].request,
        r#"{"jsonrpc": "2.0", "result": null, "id": null}"#,
    ),
    (
        "4 id type swapped",
        EXAMPLES[6].request,
        r#"{"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": 1}"#,
    ),
    (
        "5 wrong code",
        EXAMPLES[7].request,
        r#"{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}"#,
    ),
    (
        "5 invented id",
        EXAMPLES[7].request,
        r#"{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": 0}"#,
    ),
    (
        "6 no reply (treated as a notification)",
        EXAMPLES[8].request,
        "",
    ),
    (
        "7 reply in an array",
        EXAMPLES[9].request,
        r#"[{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}]"#,
    ),
    ("8 empty array back", EXAMPLES[10].request, "[]"),
    (
        "8 reply in an array",
        EXAMPLES[10].request,
        r#"[{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}]"#,
    ),
    (
        "9 single object",
        EXAMPLES[11].request,
        r#"{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}"#,
    ),
    (
        "10 one member short",
        EXAMPLES[12].request,
        r#"[{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}, {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}]"#,
    ),
    (
        "11 notification answered, 9 missing",
        EXAMPLES[13].request,
        r#"[{"jsonrpc": "2.0", "result": 7, "id": "1"}, {"jsonrpc": "2.0", "result": 19, "id": "2"}, {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}, {"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": null}, {"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "5"}]"#,
    ),
    (
        "11 replies as separate lines",
        EXAMPLES[13].request,
        r#"{"jsonrpc": "2.0", "result": 7, "id": "1"}
{"jsonrpc": "2.0", "result": 19, "id": "2"}
{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}
{"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "5"}
{"jsonrpc": "2.0", "result": ["hello", 5], "id": "9"}"#,
    ),
    ("12 empty array back", EXAMPLES[14].request, "[]"),
    (
        "12 notifications answered",
        EXAMPLES[14].request,
        r#"[{"jsonrpc": "2.0", "result": null, "id": null}, {"jsonrpc": "2.0", "result": null, "id": null}]"#,
    ),
];

#[test]
fn wrong_replies_are_caught() {
    let mut report = String::new();
    for &(name, request, replies) in WRONG {
        let mut script = format!("> {request}\n");
        for reply in replies.lines() {
            script += &format!("< {reply}\n");
        }
        let found = findings(&Dialect::Jsonrpc2, &script);
        assert!(!found.is_empty(), "{name}: no finding");
        report += &format!("{name}\n{}", render(&found));
    }
    insta::assert_snapshot!("wrong_replies", report);
}
