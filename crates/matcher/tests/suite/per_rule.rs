//! One case per rule: a message or conversation that breaks that rule and no
//! other. A rule added to `RULES` without a case here fails `every_rule_has_a_case`.

use std::collections::BTreeSet;

use rpcspec_matcher::{Dialect, RULES};

use crate::{findings, render};

/// (rule id, dialect, message or script)
const CASES: &[(&str, &str, &str)] = &[
    ("json.parse", "jsonrpc2", r#"{"jsonrpc":"2.0","method":"a""#),
    ("message.object", "jsonrpc2", r#""hello""#),
    ("message.kind", "jsonrpc2", r#"{"jsonrpc":"2.0"}"#),
    (
        "message.duplicate-member",
        "jsonrpc2",
        r#"{"jsonrpc":"2.0","method":"a","method":"b","id":1}"#,
    ),
    (
        "message.jsonrpc-version",
        "jsonrpc2",
        r#"{"jsonrpc":"1.0","method":"a","id":1}"#,
    ),
    (
        "request.method-type",
        "jsonrpc2",
        r#"{"jsonrpc":"2.0","method":1,"id":1}"#,
    ),
    (
        "request.method-reserved",
        "jsonrpc2",
        r#"{"jsonrpc":"2.0","method":"rpc.discover","id":1}"#,
    ),
    (
        "request.params-type",
        "jsonrpc2",
        r#"{"jsonrpc":"2.0","method":"a","params":null,"id":1}"#,
    ),
    (
        "request.id-type",
        "jsonrpc2",
        r#"{"jsonrpc":"2.0","method":"a","id":true}"#,
    ),
    (
        "request.other-members",
        "jsonrpc2",
        r#"{"jsonrpc":"2.0","method":"a","ID":1}"#,
    ),
    (
        "request.id-null",
        "jsonrpc2",
        r#"{"jsonrpc":"2.0","method":"a","id":null}"#,
    ),
    (
        "request.id-fractional",
        "jsonrpc2",
        r#"{"jsonrpc":"2.0","method":"a","id":1.5}"#,
    ),
    (
        "response.result-xor-error",
        "jsonrpc2",
        r#"{"jsonrpc":"2.0","result":1,"error":{"code":1,"message":"x"},"id":1}"#,
    ),
    (
        "response.id-missing",
        "jsonrpc2",
        r#"{"jsonrpc":"2.0","result":1}"#,
    ),
    (
        "response.id-type",
        "jsonrpc2",
        r#"{"jsonrpc":"2.0","result":1,"id":{}}"#,
    ),
    (
        "error.object",
        "jsonrpc2",
        r#"{"jsonrpc":"2.0","error":"boom","id":1}"#,
    ),
    (
        "error.code-integer",
        "jsonrpc2",
        r#"{"jsonrpc":"2.0","error":{"code":-32600.0,"message":"x"},"id":1}"#,
    ),
    (
        "error.message-string",
        "jsonrpc2",
        r#"{"jsonrpc":"2.0","error":{"code":1},"id":1}"#,
    ),
    (
        "error.code-reserved",
        "jsonrpc2",
        r#"{"jsonrpc":"2.0","error":{"code":-32768,"message":"x"},"id":1}"#,
    ),
    ("batch.empty", "jsonrpc2", "[]"),
    (
        "session.unknown-id",
        "jsonrpc2",
        r#"< {"jsonrpc":"2.0","result":1,"id":7}"#,
    ),
    (
        "session.duplicate-reply",
        "jsonrpc2",
        r#"> {"jsonrpc":"2.0","method":"a","id":1}
           < {"jsonrpc":"2.0","result":1,"id":1}
           < {"jsonrpc":"2.0","result":1,"id":1}"#,
    ),
    (
        "session.id-type-changed",
        "jsonrpc2",
        r#"> {"jsonrpc":"2.0","method":"a","id":"1"}
           < {"jsonrpc":"2.0","result":1,"id":1}"#,
    ),
    (
        "session.id-number-text",
        "jsonrpc2",
        r#"> {"jsonrpc":"2.0","method":"a","id":1}
           < {"jsonrpc":"2.0","result":1,"id":1.0}"#,
    ),
    (
        "session.id-string-text",
        "jsonrpc2",
        r#"> {"jsonrpc":"2.0","method":"a","id":"A"}
           < {"jsonrpc":"2.0","result":1,"id":"\u0041"}"#,
    ),
    (
        "session.reply-in-kind",
        "jsonrpc2",
        r#"> {"method":"a","id":1}
           < {"error":{"code":-32600,"message":"Invalid Request"},"id":1}"#,
    ),
    (
        "session.reply-to-notification",
        "jsonrpc2",
        r#"> {"jsonrpc":"2.0","method":"a"}
           < {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":null}"#,
    ),
    (
        "limit.refused",
        "jsonrpc2",
        r#"> {"jsonrpc":"2.0","method":"a","params":[18446744073709551616],"id":1}
           < {"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#,
    ),
    (
        "session.unanswered",
        "jsonrpc2",
        r#"> {"jsonrpc":"2.0","method":"a","id":1}"#,
    ),
    (
        "session.id-reused",
        "jsonrpc2",
        r#"> {"jsonrpc":"2.0","method":"a","id":1}
           > {"jsonrpc":"2.0","method":"b","id":1}
           < {"jsonrpc":"2.0","result":1,"id":1}
           < {"jsonrpc":"2.0","result":2,"id":1}"#,
    ),
    (
        "session.batch-reply-array",
        "jsonrpc2",
        r#"> [{"jsonrpc":"2.0","method":"a","id":1}]
           < {"jsonrpc":"2.0","result":1,"id":1}"#,
    ),
    (
        "session.batch-reply-missing",
        "jsonrpc2",
        r#"> [{"jsonrpc":"2.0","method":"a","id":1},{"jsonrpc":"2.0","method":"a","id":2}]
           < [{"jsonrpc":"2.0","result":1,"id":1}]"#,
    ),
    (
        "session.single-reply-object",
        "jsonrpc2",
        r#"> {"jsonrpc":"2.0","method":"a","id":1}
           < [{"jsonrpc":"2.0","result":1,"id":1}]"#,
    ),
    (
        "session.error-code-meaning",
        "jsonrpc2",
        r#"> {"jsonrpc":"2.0","method":"a","id":1}
           < {"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":1}"#,
    ),
    (
        "mcp.id-type",
        "mcp",
        r#"{"jsonrpc":"2.0","method":"a","id":1e2}"#,
    ),
    (
        "mcp.id-reused",
        "mcp",
        r#"> {"jsonrpc":"2.0","method":"a","id":1}
           < {"jsonrpc":"2.0","result":{},"id":1}
           > {"jsonrpc":"2.0","method":"b","id":1}
           < {"jsonrpc":"2.0","result":{},"id":1}"#,
    ),
    (
        "mcp.batch",
        "mcp",
        r#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#,
    ),
    ("claude.type", "claude", r#"{"subtype":"init"}"#),
    (
        "claude.control-request",
        "claude",
        r#"{"type":"control_request","request_id":"r1","request":{}}"#,
    ),
    (
        "claude.control-response",
        "claude",
        r#"{"type":"control_response","response":{"subtype":"ok","request_id":"r1"}}"#,
    ),
    (
        "claude.control-cancel",
        "claude",
        r#"{"type":"control_cancel_request"}"#,
    ),
    (
        "claude.reply-after-cancel",
        "claude",
        r#"< {"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool"}}
           < {"type":"control_cancel_request","request_id":"r1"}
           > {"type":"control_response","response":{"subtype":"success","request_id":"r1","response":{}}}"#,
    ),
    ("events.type", "events", r#"{"kind":"token"}"#),
    (
        "events.start",
        "events",
        r#"< {"type":"token","text":"hi"}
           < {"type":"done"}"#,
    ),
    (
        "events.after-end",
        "events",
        r#"< {"type":"start"}
           < {"type":"done"}
           < {"type":"token"}"#,
    ),
    (
        "events.interrupted",
        "events",
        r#"< {"type":"start"}
           < {"type":"token","text":"hi"}"#,
    ),
];

/// Rules no case can break alone, and the rule their case breaks too: a
/// reply in kind answers a request that has no `jsonrpc`.
const BESIDES: &[(&str, &str)] = &[("session.reply-in-kind", "message.jsonrpc-version")];

#[test]
fn each_case_breaks_exactly_its_rule() {
    let mut failures = String::new();
    for &(rule, dialect, text) in CASES {
        let dialect: Dialect = dialect.parse().expect("known dialect");
        let found = findings(&dialect, text);
        let got: BTreeSet<&str> = found.iter().map(|f| f.rule.id).collect();
        let mut want = BTreeSet::from([rule]);
        want.extend(BESIDES.iter().filter(|b| b.0 == rule).map(|b| b.1));
        if got != want {
            failures += &format!("{rule}: {text}\n{}", render(&found));
        }
    }
    assert!(
        failures.is_empty(),
        "cases that do not break exactly their rule:\n{failures}"
    );
}

#[test]
fn every_rule_has_a_case() {
    let cased: BTreeSet<&str> = CASES.iter().map(|c| c.0).collect();
    let missing: Vec<&str> = RULES
        .iter()
        .map(|r| r.id)
        .filter(|id| !cased.contains(id))
        .collect();
    assert!(
        missing.is_empty(),
        "rules without a case in per_rule.rs: {missing:?}"
    );
    let unknown: Vec<&str> = cased
        .iter()
        .copied()
        .filter(|id| RULES.iter().all(|r| r.id != *id))
        .collect();
    assert!(
        unknown.is_empty(),
        "cases for rules that do not exist: {unknown:?}"
    );
}

#[test]
fn rule_ids_are_unique_and_well_formed() {
    let mut seen = BTreeSet::new();
    for rule in RULES {
        assert!(seen.insert(rule.id), "duplicate rule id {}", rule.id);
        let (group, name) = rule.id.split_once('.').expect("group.name");
        let ok = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_lowercase() || b == b'-');
        assert!(ok(group) && ok(name), "malformed rule id {}", rule.id);
        assert!(
            !rule.statement.ends_with('.'),
            "statement ends with a period: {}",
            rule.id
        );
    }
}
