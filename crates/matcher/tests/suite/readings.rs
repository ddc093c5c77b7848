//! Where the spec reads two ways: the session takes either reading
//! (the crate docs' "Readings of the specification").

use rpcspec_matcher::{Dialect, Direction::*, Kind, Session};

use crate::{findings, ids};

fn rules(dialect: &Dialect, script: &str) -> Vec<&'static str> {
    ids(&findings(dialect, script))
}

/// An id-null -32600, as the built-in server refuses an invalid message.
const REFUSAL: &str =
    r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}"#;

/// The `session.` rules a JSON-RPC 2.0 script breaks: none, where every
/// reply goes where a correct reader sends it.
fn session_rules<S: std::borrow::Borrow<str>>(script: &[S]) -> Vec<&'static str> {
    let mut got = rules(&Dialect::Jsonrpc2, &script.join("\n"));
    got.retain(|r| r.starts_with("session."));
    got
}

/// The readings the spec allows both ways are no MUST finding either way:
/// each of these may be refused with an id-null error or go unanswered,
/// and is answered at most once.
#[test]
fn what_reads_both_as_a_notification_and_as_invalid_may_go_unanswered() {
    let refusal = r#"< {"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid"},"id":null}"#;
    for (message, findings) in [
        (
            r#"> {"jsonrpc":"1.0","method":"a"}"#,
            &["message.jsonrpc-version"][..],
        ),
        (r#"> {"method":"a"}"#, &["message.jsonrpc-version"]),
        (
            r#"> {"jsonrpc":"2.0","method":"a","params":42}"#,
            &["request.params-type"],
        ),
        (
            r#"> {"jsonrpc":"2.0","method":1}"#,
            &["request.method-type"],
        ),
        (
            r#"> {"jsonrpc":"2.0","method":"rpc.a"}"#,
            &["request.method-reserved"],
        ),
        (
            r#"> {"jsonrpc":"2.0","method":"a","method":"b"}"#,
            &["message.duplicate-member"],
        ),
    ] {
        assert_eq!(rules(&Dialect::Jsonrpc2, message), findings, "{message}");
        let refused = [message, refusal].join("\n");
        assert_eq!(rules(&Dialect::Jsonrpc2, &refused), findings, "{message}");
        let twice = [message, refusal, refusal].join("\n");
        let got = rules(&Dialect::Jsonrpc2, &twice);
        assert_eq!(got.len(), findings.len() + 1, "{message}: {got:?}");
    }
    // An id member that is no id is no notification: it is owed its error.
    let unreadable = r#"> {"jsonrpc":"2.0","method":"a","id":[1]}"#;
    let got = rules(&Dialect::Jsonrpc2, unreadable);
    assert_eq!(got, ["request.id-type", "session.unanswered"]);
}

#[test]
fn a_request_without_jsonrpc_may_be_answered_in_kind() {
    for reply in [
        r#"< {"error":{"code":-32600,"message":"Unsupported version"},"id":1}"#,
        r#"< {"result":1,"id":1}"#,
    ] {
        let script = [r#"> {"method":"a","id":1}"#, reply].join("\n");
        let got = rules(&Dialect::Jsonrpc2, &script);
        assert!(got.contains(&"session.reply-in-kind"), "{reply}: {got:?}");
        assert_eq!(
            got.iter()
                .filter(|r| **r == "message.jsonrpc-version")
                .count(),
            1,
            "only the request's: {got:?}"
        );
    }
    // A 2.0 request's reply has it.
    let script = [
        r#"> {"jsonrpc":"2.0","method":"a","id":1}"#,
        r#"< {"result":1,"id":1}"#,
    ];
    let got = rules(&Dialect::Jsonrpc2, &script.join("\n"));
    assert_eq!(got, ["message.jsonrpc-version"]);
}

#[test]
fn an_id_beyond_64_bits_may_come_back_as_a_double_prints_it() {
    let request = r#"> {"jsonrpc":"2.0","method":"a","id":18446744073709551616}"#;
    for echoed in ["18446744073709552000", "1.8446744073709552e+19"] {
        let reply = format!(r#"< {{"jsonrpc":"2.0","result":1,"id":{echoed}}}"#);
        let got = rules(&Dialect::Jsonrpc2, &[request, &reply].join("\n"));
        assert_eq!(got, ["session.id-number-text"], "{echoed}");
    }
    // Within 64 bits a double's rounding is a changed id.
    let request = r#"> {"jsonrpc":"2.0","method":"a","id":-9007199254740993}"#;
    let reply = r#"< {"jsonrpc":"2.0","result":1,"id":-9007199254740992}"#;
    let got = rules(&Dialect::Jsonrpc2, &[request, reply].join("\n"));
    assert_eq!(got, ["session.unknown-id", "session.unanswered"]);
}

#[test]
fn a_line_that_is_not_utf8_may_be_read_with_replacement_characters() {
    let lossy = "{\"jsonrpc\":\"2.0\",\"method\":\"a\u{FFFD}\",\"id\":1}";
    let parse = r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#;
    let answer = r#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"No"},"id":1}"#;
    let ids_of = |f: &[rpcspec_matcher::Finding]| ids(f);
    for (reply, findings) in [
        (parse, &[][..]),
        (answer, &["session.error-code-meaning"][..]),
    ] {
        let mut s = Session::new(Dialect::Jsonrpc2);
        let c = s.feed_invalid_utf8(ClientToServer, lossy);
        assert_eq!(ids_of(&c.findings), ["json.parse"]);
        assert_eq!(s.outstanding(ClientToServer), 1);
        assert_eq!(ids_of(&s.feed(ServerToClient, reply).findings), findings);
        assert_eq!(s.outstanding(ClientToServer), 0);
        assert_eq!(s.close(), [], "{reply}");
    }
    let mut s = Session::new(Dialect::Jsonrpc2);
    s.feed_invalid_utf8(ClientToServer, lossy);
    assert_eq!(ids_of(&s.close()), ["session.unanswered"]);
    // Read as a notification, it is owed nothing, and may get a -32700.
    let note = "{\"jsonrpc\":\"2.0\",\"method\":\"a\u{FFFD}\"}";
    let mut s = Session::new(Dialect::Jsonrpc2);
    s.feed_invalid_utf8(ClientToServer, note);
    assert_eq!(s.outstanding(ClientToServer), 0);
    assert_eq!(s.close(), []);
    let mut s = Session::new(Dialect::Jsonrpc2);
    s.feed_invalid_utf8(ClientToServer, note);
    assert_eq!(s.feed(ServerToClient, parse).findings, []);
}

#[test]
fn silent_to_unreadable_owes_nothing_to_what_has_no_readable_id() {
    let parse = r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#;
    for strict in [true, false] {
        let session = Session::new(Dialect::Lenient);
        let mut s = if strict {
            session
        } else {
            session.silent_to_unreadable()
        };
        s.feed(ClientToServer, r#"{"method":"a","id":1"#);
        s.feed(ClientToServer, r#"{"method":"a","id":{}}"#);
        assert_eq!(s.outstanding(ClientToServer), if strict { 2 } else { 0 });
        assert_eq!(s.feed(ServerToClient, parse).findings, []);
        assert_eq!(s.close().len(), usize::from(strict), "{strict}");
    }
}

#[test]
fn an_unterminated_tail_may_be_answered_or_dropped() {
    let reply = r#"{"jsonrpc":"2.0","result":1,"id":1}"#;
    for answered in [true, false] {
        let mut s = Session::new(Dialect::Jsonrpc2);
        s.feed(ClientToServer, r#"{"jsonrpc":"2.0","method":"a","id":2}"#);
        let c = s.feed_unterminated(ClientToServer, r#"{"jsonrpc":"2.0","method":"a","id":1}"#);
        assert!(matches!(c.kind, Kind::Request { .. }));
        // The terminated request is still owed its reply.
        assert_eq!(s.outstanding(ClientToServer), 1);
        if answered {
            assert_eq!(s.feed(ServerToClient, reply).findings, []);
        }
        let left = s.close();
        assert_eq!(ids(&left), ["session.unanswered"], "{answered}");
        assert!(left[0].detail.contains("id 2"), "{}", left[0].detail);
    }
    // Answered twice, it is a duplicate as any request.
    let mut s = Session::new(Dialect::Jsonrpc2);
    s.feed_unterminated(ClientToServer, r#"{"jsonrpc":"2.0","method":"a","id":1}"#);
    s.feed(ServerToClient, reply);
    assert_eq!(
        ids(&s.feed(ServerToClient, reply).findings),
        ["session.duplicate-reply"]
    );
    // An invalid tail may draw its error, or nothing.
    let mut s = Session::new(Dialect::Jsonrpc2);
    s.feed_unterminated(ClientToServer, r#"{"jsonrpc":"2.0","method":"a","#);
    assert_eq!(s.outstanding(ClientToServer), 0);
    assert_eq!(s.close(), []);
}

#[test]
fn a_request_of_a_reserved_method_may_be_refused_as_invalid() {
    let request = r#"> {"jsonrpc":"2.0","method":"rpc.discover","id":"\u00503"}"#;
    let reserved = ["request.method-reserved"];
    for reply in [
        r#"< {"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}"#,
        r#"< {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"P3"}"#,
        r#"< {"jsonrpc":"2.0","result":{},"id":"\u00503"}"#,
    ] {
        let got = rules(&Dialect::Jsonrpc2, &[request, reply].join("\n"));
        let got: Vec<_> = got
            .into_iter()
            .filter(|r| *r != "session.id-string-text")
            .collect();
        assert_eq!(got, reserved, "{reply}");
    }
    // Still owed a reply, and only one.
    let got = rules(&Dialect::Jsonrpc2, request);
    assert_eq!(got, ["request.method-reserved", "session.unanswered"]);
    let null =
        r#"< {"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}"#;
    let by_id = r#"< {"jsonrpc":"2.0","result":{},"id":"P3"}"#;
    let got = rules(&Dialect::Jsonrpc2, &[request, null, by_id].join("\n"));
    assert!(got.contains(&"session.duplicate-reply"), "{got:?}");
}

#[test]
fn a_batch_that_is_not_utf8_may_be_answered_as_read_with_replacement_characters() {
    let lossy = "[{\"jsonrpc\":\"2.0\",\"method\":\"a\u{FFFD}\",\"id\":1},{\"jsonrpc\":\"2.0\",\"method\":\"n\"}]";
    let parse = r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#;
    let array = r#"[{"jsonrpc":"2.0","error":{"code":-32601,"message":"No"},"id":1}]"#;
    for (reply, findings) in [
        (Some(parse), &[][..]),
        (Some(array), &[][..]),
        (None, &["session.unanswered"][..]),
    ] {
        let mut s = Session::new(Dialect::Jsonrpc2);
        s.feed_invalid_utf8(ClientToServer, lossy);
        assert_eq!(s.outstanding(ClientToServer), 1);
        let mut got = Vec::new();
        if let Some(reply) = reply {
            got.extend(s.feed(ServerToClient, reply).findings);
            assert_eq!(s.outstanding(ClientToServer), 0, "{reply}");
        }
        got.extend(s.close());
        assert_eq!(ids(&got), findings, "{reply:?}");
    }
}

#[test]
fn a_notification_beyond_a_limit_may_be_refused_as_unparseable() {
    let huge = format!(
        r#"> {{"jsonrpc":"2.0","method":"n","params":[{}]}}"#,
        "9".repeat(400)
    );
    let refusal =
        r#"< {"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#;
    assert_eq!(rules(&Dialect::Jsonrpc2, &huge), [] as [&str; 0]);
    assert_eq!(
        rules(&Dialect::Jsonrpc2, &[&huge, refusal].join("\n")),
        [] as [&str; 0]
    );
    let twice = rules(&Dialect::Jsonrpc2, &[&huge, refusal, refusal].join("\n"));
    assert_eq!(twice, ["session.reply-to-notification"]);
    // Within the limits, a notification is not refused.
    let small = r#"> {"jsonrpc":"2.0","method":"n","params":[9]}"#;
    let got = rules(&Dialect::Jsonrpc2, &[small, refusal].join("\n"));
    assert_eq!(got, ["session.reply-to-notification"]);
}

/// An id-null error given to a notification that may draw it may have
/// answered an invalid request whose id could be read; the next one goes
/// to an invalid request that cannot have been answered yet.
#[test]
fn a_later_id_null_error_goes_to_what_cannot_have_been_answered() {
    let refusal = r#"< {"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid"},"id":null}"#;
    let script = [
        r#"> {"jsonrpc":"2.0","method":"update","params":null,"id":"f2"}"#,
        r#"> {"jsonrpc":"2.0","method":"rpc.discover","params":["x"]}"#,
        refusal,
        r#"> {"id":1,"method":"initialize"}"#,
        refusal,
    ];
    assert_eq!(
        rules(&Dialect::Jsonrpc2, &script.join("\n")),
        [
            "request.params-type",
            "request.method-reserved",
            "message.jsonrpc-version"
        ]
    );
}

/// A batch nested beyond a parser's limit may be refused with one -32700,
/// or answered with an array; an unparseable message sent after it awaits
/// exactly that -32700, and takes it first (replies come in any order).
#[test]
fn an_unparseable_message_takes_its_minus_32700_before_a_deep_batch() {
    let deep = format!("> {}{}", "[".repeat(300), "]".repeat(300));
    let script = [
        deep.as_str(),
        r#"> {"jsonrpc": "2.0", "method"#,
        r#"< {"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#,
        r#"< [{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}]"#,
    ];
    assert_eq!(
        rules(&Dialect::Jsonrpc2, &script.join("\n")),
        ["message.object", "json.parse"]
    );
}

/// Codex's `RequestId` is a string or an integer: with
/// `silent_to_unreadable`, an id `1.5` or `null` cannot be read either.
#[test]
fn silent_to_unreadable_reads_only_strings_and_integers() {
    for message in [
        r#"{"method":"a","id":1.5}"#,
        r#"{"method":"a","id":null}"#,
        r#"{"jsonrpc":"1.0","method":"","id":1.5}"#,
    ] {
        let mut s = Session::new(Dialect::Lenient).silent_to_unreadable();
        s.feed(ClientToServer, message);
        assert_eq!(s.outstanding(ClientToServer), 0, "{message}");
        assert_eq!(s.close(), [], "{message}");
    }
    // Yet a reader may read them and answer by that id, or refuse them,
    // once each.
    for (message, reply) in [
        (r#"{"method":"a","id":1.5}"#, r#"{"result":1,"id":1.5}"#),
        (
            r#"{"method":"a","id":1.5}"#,
            r#"{"error":{"code":-32600,"message":"x"},"id":null}"#,
        ),
        (
            r#"{"method":"a","id":null}"#,
            r#"{"error":{"code":-32601,"message":"x"},"id":null}"#,
        ),
        (
            r#"{"jsonrpc":2.0,"method":"a","id":1.5}"#,
            r#"{"error":{"code":-32600,"message":"x"},"id":1.5}"#,
        ),
    ] {
        let mut s = Session::new(Dialect::Lenient).silent_to_unreadable();
        s.feed(ClientToServer, message);
        assert_eq!(s.feed(ServerToClient, reply).findings, [], "{reply}");
        assert_eq!(s.close(), [], "{message}");
        let mut s = Session::new(Dialect::Lenient).silent_to_unreadable();
        s.feed(ClientToServer, message);
        s.feed(ServerToClient, reply);
        let again = s.feed(ServerToClient, reply).findings;
        assert!(!again.is_empty(), "{message} answered twice by {reply}");
    }
    // Found fuzzing the reference: `1.5` again, in an invalid request.
    let mut s = Session::new(Dialect::Lenient).silent_to_unreadable();
    let mut got = Vec::new();
    for (from, message) in [
        (ClientToServer, r#"{"method":"a","id":1.5}"#),
        (
            ServerToClient,
            r#"{"error":{"code":-32601,"message":"x"},"id":1.5}"#,
        ),
        (ClientToServer, r#"{"method":"","params":42,"id":1.5}"#),
        (
            ServerToClient,
            r#"{"error":{"code":-32600,"message":"x"},"id":1.5}"#,
        ),
    ] {
        got.extend(s.feed(from, message).findings);
    }
    got.extend(s.close());
    assert!(
        !got.iter().any(|f| f.rule.id.starts_with("session.")),
        "{got:?}"
    );
    let mut s = Session::new(Dialect::Lenient).silent_to_unreadable();
    s.feed(ClientToServer, r#"{"method":1,"id":""}"#);
    assert_eq!(ids(&s.close()), ["session.unanswered"]);
}

/// A notification that is not UTF-8 may draw a -32700; an invalid request
/// beyond a limit sent after it takes its -32600 by its id, not that -32700.
#[test]
fn a_minus_32700_goes_to_an_earlier_line_that_is_not_utf8_before_a_refusal() {
    let mut s = Session::new(Dialect::Jsonrpc2);
    s.feed_invalid_utf8(
        ClientToServer,
        "{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":[\"\u{FFFD}\"]}",
    );
    let deep = format!(
        r#"{{"jsonrpc":2.0,"method":1,"params":[{}],"id":-9007199254740993}}"#,
        "9".repeat(400)
    );
    s.feed(ClientToServer, &deep);
    let parse = r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#;
    let invalid = r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":-9007199254740993}"#;
    assert_eq!(s.feed(ServerToClient, parse).findings, []);
    assert_eq!(s.feed(ServerToClient, invalid).findings, []);
    assert_eq!(s.close(), []);
}

/// Two invalid messages may each draw an id-null error: the one whose id
/// cannot be read takes it, and the other its reply by its id.
#[test]
fn an_id_null_error_goes_where_no_reply_by_id_can_come() {
    for script in [
        [
            r#"> [{"jsonrpc":"1.0","method":"","params":"bar"}]"#,
            r#"> [{"method":1,"id":"","jsonrpc":"2.0"}]"#,
            r#"< [{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}]"#,
            r#"< [{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":""}]"#,
        ],
        [
            r#"> {"jsonrpc":"2.0","method":"a","id":79,,}"#,
            r#"> {"jsonrpc":"2.0","method":"rpc.discover","id":4}"#,
            r#"< {"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#,
            r#"< {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":4}"#,
        ],
    ] {
        assert_eq!(session_rules(&script), Vec::<&str>::new(), "{script:?}");
    }
}

/// A notification beyond a limit may draw a -32700, but a batch beyond a
/// limit sent after it, whose member awaits an id-null error, is refused
/// by it first.
#[test]
fn a_minus_32700_refuses_a_deep_batch_before_a_notification_that_may_draw_it() {
    let note = format!(
        r#"> {{"jsonrpc":"2.0","method":"n","params":[{}]}}"#,
        "9".repeat(400)
    );
    let deep = format!("> {}{}", "[".repeat(300), "]".repeat(300));
    let parse = r#"< {"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#;
    let got = rules(
        &Dialect::Jsonrpc2,
        &[note.as_str(), &deep, parse].join("\n"),
    );
    assert_eq!(got, ["message.object", "limit.refused"]);
}

/// Found fuzzing the built-in server: an id-null reply goes to what awaits
/// exactly it before what only may draw it, and an array to the batch it
/// answers whole.
#[test]
fn replies_go_where_they_answer_exactly() {
    let mut s = Session::new(Dialect::Jsonrpc2);
    s.feed_invalid_utf8(
        ClientToServer,
        "{\"jsonrpc\": \"2.0\", \"method\": \"p\", \"id\": \"\u{FFFD}\"}",
    );
    let mut got = Vec::new();
    for (d, m) in [
        (
            ClientToServer,
            r#"{"jsonrpc": "1.0", "method": "subtract"}"#,
        ),
        (
            ClientToServer,
            r#"{"jsonrpc": "2.1", "method": "p", "id": 2}"#,
        ),
        (
            ServerToClient,
            r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#,
        ),
        (
            ServerToClient,
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}"#,
        ),
        (
            ServerToClient,
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":2}"#,
        ),
    ] {
        got.extend(s.feed(d, m).findings);
    }
    got.extend(s.close());
    assert!(
        !ids(&got).iter().any(|r| r.starts_with("session.")),
        "{got:?}"
    );
    let script = [
        r#"> [{"method": "sum", "method": "sum"}]"#.to_owned(),
        "> [1,2,3]".to_owned(),
        format!("< [{REFUSAL}]"),
        format!("< [{REFUSAL},{REFUSAL},{REFUSAL}]"),
    ];
    assert_eq!(session_rules(&script), Vec::<&str>::new());
}

/// Found fuzzing the built-in server: an array of id-null errors goes to
/// the oldest batch it can answer whole, not to a later one that awaits
/// exactly as many; the later batch's own array then pairs by its ids.
#[test]
fn an_array_of_id_null_errors_goes_to_the_oldest_batch_it_fits() {
    let missing =
        r#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":31}"#;
    let script = [
        r#"> [{"params":[],"jsonrpc":"2.0"},{"jsonrpc":"1.0","method":""},{"jsonrpc":"2.0","method":"n"}]"#.to_owned(),
        r#"> [{"jsonrpc":"2.0","method":"n","params":42},{"jsonrpc":"2.0","method":"m","id":31,"jsonrpc":"2.0"},{"jsonrpc":"2.0","params":"bar"},{"method":"u","id":{}}]"#.to_owned(),
        format!("< [{REFUSAL},{REFUSAL}]"),
        format!("< [{REFUSAL},{missing},{REFUSAL},{REFUSAL}]"),
    ];
    assert_eq!(session_rules(&script), Vec::<&str>::new());
}

/// Found fuzzing the built-in server: an array of id-null errors alone
/// does not answer a batch whole that holds a request only its id can
/// answer; it goes to an older batch that may draw it.
#[test]
fn an_array_without_an_id_does_not_answer_a_batch_owed_that_id() {
    let f30 = r#"{"jsonrpc":"2.0","result":null,"id":"f30"}"#;
    // Nor one that holds an invalid request with an id it has not paired,
    // and another member the array's one id-null error may answer.
    let half = r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":1.5}"#;
    for script in [
        [
            r#"> [{"jsonrpc":2.0,"method":"sum"}]"#.to_owned(),
            r#"> [{"id":"f30","jsonrpc":"2.0","method":"update","params":[]},{"jsonrpc":"2.0","method":"foobar","id":{}}]"#.to_owned(),
            format!("< [{REFUSAL}]"),
            format!("< [{f30},{REFUSAL}]"),
        ],
        [
            r#"> [{"method":"","params":null,"jsonrpc":"2.0"}]"#.to_owned(),
            r#"> [{"params":[68,3],"id":1.5,"jsonrpc":"1.0","method":"foobar"},{}]"#.to_owned(),
            format!("< [{REFUSAL}]"),
            format!("< [{half},{REFUSAL}]"),
        ],
    ] {
        assert_eq!(session_rules(&script), Vec::<&str>::new(), "{script:?}");
    }
}

/// Found fuzzing the reference MCP server: a cancel of an invalid request
/// whose id could be read withdraws its id-null error too; a reply by its
/// id may still cross the cancel.
#[test]
fn a_cancelled_invalid_request_awaits_nothing() {
    use rpcspec_matcher::{Id, classify};
    for reply in [
        None,
        Some(r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request"}}"#),
    ] {
        let mut s = Session::new(Dialect::Mcp);
        let request = s.feed(
            ClientToServer,
            r#"{"id":7,"jsonrpc":"1.0","method":"tools/call","params":{}}"#,
        );
        assert_eq!(ids(&request.findings), ["message.jsonrpc-version"]);
        let text =
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#;
        let mut cancel = classify(text, &Dialect::Mcp);
        cancel.kind = Kind::Cancel {
            id: Id::parse("7").expect("an id"),
        };
        s.feed_classified(ClientToServer, cancel);
        assert_eq!(s.outstanding(ClientToServer), 0);
        if let Some(reply) = reply {
            let got = s.feed(ServerToClient, reply).findings;
            assert!(
                !got.iter()
                    .any(|f| f.rule.level == rpcspec_matcher::Level::Must),
                "{got:?}"
            );
        }
        assert_eq!(s.close(), [], "{reply:?}");
    }
}

/// Found fuzzing the built-in server: an array of id-null errors goes to
/// the oldest batch it can answer whole even when it only may draw them;
/// and if a later batch that awaits as many gets no array, the array may
/// have been that batch's.
#[test]
fn an_array_a_batch_only_may_draw_is_taken_back_by_one_left_awaiting_it() {
    let f41 = r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":"f41"}"#;
    let refusable =
        r#"> [{"jsonrpc":"2.0","method":1,"params":{}},{"jsonrpc":"1.0","method":1,"params":42}]"#;
    let awaiting = r#"> [{"method":1,"jsonrpc":"2.0"},{"method":1,"id":"f41","jsonrpc":"2.0"},{"jsonrpc":"1.0","method":"n","id":{}},{"jsonrpc":"2.0","method":"n"}]"#;
    for script in [
        // Both answered, in turn.
        vec![
            refusable.to_owned(),
            awaiting.to_owned(),
            format!("< [{REFUSAL},{REFUSAL}]"),
            format!("< [{REFUSAL},{f41},{REFUSAL}]"),
        ],
        // The first drew nothing; one array for the second.
        vec![
            r#"> [{"jsonrpc":"2.0","method":"n","params":42}]"#.to_owned(),
            r#"> [{"jsonrpc":"2.0","method":"n"},{"id":{}}]"#.to_owned(),
            format!("< [{REFUSAL}]"),
        ],
    ] {
        assert_eq!(session_rules(&script), Vec::<&str>::new(), "{script:?}");
    }
    // Still, a batch that awaits an error and got none is reported when no
    // such array came.
    let script = [
        r#"> [{"jsonrpc":"2.0","method":"n","params":42}]"#.to_owned(),
        r#"> [{"jsonrpc":"2.0","method":"n"},{"id":{}}]"#.to_owned(),
    ];
    let got = rules(&Dialect::Jsonrpc2, &script.join("\n"));
    assert!(got.contains(&"session.unanswered"), "{got:?}");
}

/// Found fuzzing the built-in server: a batch that is not UTF-8, refused
/// with -32700, is not answered whole by a later array that lacks the ids
/// its U+FFFD reading holds; nor is a deep batch passed over for one that
/// only may draw the array.
#[test]
fn an_array_goes_past_a_batch_whose_reading_it_does_not_answer() {
    let parse = r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#;
    let mut s = Session::new(Dialect::Jsonrpc2);
    let mut got = Vec::new();
    got.extend(
        s.feed_invalid_utf8(
            ClientToServer,
            "[{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"\u{FFFD}arams\":[7]},{\"jsonrpc\":\"2.0\",\"method\":\"p\",\"id\":1}]",
        )
        .findings,
    );
    got.extend(
        s.feed(ClientToServer, r#"[{"jsonrpc":"2.0","method":1,"id":5}]"#)
            .findings,
    );
    got.extend(s.feed(ServerToClient, parse).findings);
    got.extend(s.feed(ServerToClient, &format!("[{REFUSAL}]")).findings);
    got.extend(s.close());
    assert!(
        !got.iter().any(|f| f.rule.id.starts_with("session.")),
        "{got:?}"
    );

    let deep = format!("> [{}{}]", "[".repeat(200), "]".repeat(200));
    let script = [
        r#"> [{"jsonrpc":"2.0","method":"rpc.discover"}]"#.to_owned(),
        deep,
        r#"> {"jsonrpc":"1.0","params":[]}"#.to_owned(),
        format!("< [{REFUSAL}]"),
        format!("< {REFUSAL}"),
    ];
    assert_eq!(session_rules(&script), Vec::<&str>::new());
}

/// Every permutation of `0..n`, in lexicographic order.
fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for rest in permutations(n - 1) {
        for at in 0..=rest.len() {
            let mut p = rest.clone();
            p.insert(at, n - 1);
            out.push(p);
        }
    }
    out.sort();
    out
}

/// A server that answers its batches in any order, each with an array of
/// id-null errors only, is never misread: an array names no batch, so the
/// session pairs them over the whole conversation. Members that must get
/// an id-null -32600 (`R`, their id unreadable) and members that only may
/// draw one (`O`, a notification a strict reader refuses), in batches of
/// several sizes; a strict reader refuses every `O` and a lenient one
/// none (and sends nothing for a batch it answers with nothing, §6).
#[test]
fn batches_answered_in_any_order_with_id_null_errors_are_never_misread() {
    const R: &str = r#"{"foo":"boo"}"#;
    const O: &str = r#"{"jsonrpc":"2.0","method":"n","params":42}"#;
    let batches: [&[&str]; 4] = [&[R, O], &[R, R], &[O], &[R, R, O]];
    let mut misread = Vec::new();
    for strict in [true, false] {
        let answers: Vec<Option<String>> = batches
            .iter()
            .map(|members| {
                let n = members.iter().filter(|m| strict || **m == R).count();
                (n > 0).then(|| format!("< [{}]", vec![REFUSAL; n].join(",")))
            })
            .collect();
        for order in permutations(batches.len()) {
            let mut script: Vec<String> = batches
                .iter()
                .map(|members| format!("> [{}]", members.join(",")))
                .collect();
            script.extend(order.iter().filter_map(|&b| answers[b].clone()));
            let got = session_rules(&script);
            if !got.is_empty() {
                misread.push(format!(
                    "strict: {strict}, batches answered {order:?}: {got:?}"
                ));
            }
        }
    }
    assert!(misread.is_empty(), "{}", misread.join("\n"));

    // Still, three batches that each await an error and two arrays, in
    // either order, leave one unanswered.
    let script = |first: &str, second: &str| {
        let mut script: Vec<String> = batches
            .iter()
            .map(|members| format!("> [{}]", members.join(",")))
            .collect();
        script.push(format!("< [{first}]"));
        script.push(format!("< [{second}]"));
        script
    };
    let two = format!("{REFUSAL},{REFUSAL}");
    for (first, second) in [(REFUSAL, two.as_str()), (two.as_str(), REFUSAL)] {
        let got = session_rules(&script(first, second));
        assert!(got.contains(&"session.unanswered"), "{got:?}");
    }
}
