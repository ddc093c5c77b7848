//! Snapshots of what the matcher says about malformed messages, beyond the
//! spec's examples.

use rpcspec_matcher::{Dialect, classify};

use crate::{render, summary};

fn report(dialect: &Dialect, messages: &[&str]) -> String {
    let mut out = String::new();
    for text in messages {
        let c = classify(text, dialect);
        out += &format!("{text}\n  => {}\n{}", summary(&c.kind), render(&c.findings));
    }
    out
}

#[test]
fn malformed_requests() {
    let messages = [
        r#"{"jsonrpc":"2.0","method":"a","id":[]}"#,
        r#"{"jsonrpc":"2.0","method":"a","id":{}}"#,
        r#"{"jsonrpc":"2.0","method":"a","id":true}"#,
        r#"{"jsonrpc":"2.0","method":"a","id":null}"#,
        r#"{"jsonrpc":"2.0","method":"a","id":1.0}"#,
        r#"{"jsonrpc":"2.0","method":"a","id":1e-3}"#,
        r#"{"jsonrpc":"2.0","method":"a","params":null,"id":1}"#,
        r#"{"jsonrpc":"2.0","method":"a","params":"bar"}"#,
        r#"{"jsonrpc":"2.0","method":"a","params":42,"id":1}"#,
        r#"{"jsonrpc":2.0,"method":"a","id":1}"#,
        r#"{"jsonrpc":"2.1","method":"a","id":1}"#,
        r#"{"jsonrpc":"1.0","method":"a","id":1}"#,
        r#"{"method":"a","id":1}"#,
        r#"{"jsonrpc":"\u0032.0","method":"a","id":1}"#,
        r#"{"jsonrpc":"2.0","method":null,"id":1}"#,
        r#"{"jsonrpc":"2.0","method":["a"]}"#,
        r#"{"jsonrpc":"2.0","method":"rpc.foo"}"#,
        r#"{"jsonrpc":"2.0","method":"a","id":1,"id":2}"#,
        r#"{"JSONRPC":"2.0","Method":"a","ID":1}"#,
        r#"{}"#,
        r#"{"foo":"boo"}"#,
        r#"{"jsonrpc":2,"method":1,"params":1,"id":[],"id":{}}"#,
        "",
        "   ",
        "null",
        "42",
        "1e400",
        r#"{"jsonrpc":"2.0","method":"a"} {"jsonrpc":"2.0","method":"b"}"#,
        r#"[[]]"#,
        r#"[{"jsonrpc":"2.0","method":"a","id":1},[],"x",{"jsonrpc":"2.0","method":1,"id":2}]"#,
    ];
    insta::assert_snapshot!("malformed_requests", report(&Dialect::Jsonrpc2, &messages));
}

#[test]
fn malformed_responses() {
    let messages = [
        r#"{"jsonrpc":"2.0","result":null,"id":1}"#,
        r#"{"jsonrpc":"2.0","error":{"code":"-32600","message":"Invalid Request"},"id":null}"#,
        r#"{"jsonrpc":"2.0","error":{"code":-32600.0,"message":"Invalid Request"},"id":null}"#,
        r#"{"jsonrpc":"2.0","error":{"code":-3.26e4,"message":"x"},"id":1}"#,
        r#"{"jsonrpc":"2.0","error":{"code":99999999999999999999,"message":"x"},"id":1}"#,
        r#"{"jsonrpc":"2.0","error":{"message":"x"},"id":1}"#,
        r#"{"jsonrpc":"2.0","error":{"code":-32601},"id":1}"#,
        r#"{"jsonrpc":"2.0","error":{"code":-32601,"message":null,"data":{}},"id":1}"#,
        r#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"a","code":-32602},"id":1}"#,
        r#"{"jsonrpc":"2.0","error":null,"id":1}"#,
        r#"{"jsonrpc":"2.0","error":[],"id":1}"#,
        r#"{"jsonrpc":"2.0","error":{"code":-32001,"message":"Server overloaded; retry later."},"id":1}"#,
        r#"{"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":1}"#,
        r#"{"jsonrpc":"2.0","error":{"code":-31999,"message":"app"},"id":1}"#,
        r#"{"jsonrpc":"2.0","result":1,"error":{"code":-32603,"message":"Internal error"},"id":1}"#,
        r#"{"jsonrpc":"2.0","id":1}"#,
        r#"{"jsonrpc":"2.0","result":1}"#,
        r#"{"jsonrpc":"2.0","result":1,"id":[1]}"#,
        r#"{"jsonrpc":"2.0","result":1,"id":false}"#,
        r#"{"result":1,"id":1}"#,
        r#"{"jsonrpc":"2.0","result":1,"id":18446744073709551616}"#,
        r#"[{"jsonrpc":"2.0","result":1,"id":1},{"jsonrpc":"2.0","id":2}]"#,
    ];
    insta::assert_snapshot!("malformed_responses", report(&Dialect::Jsonrpc2, &messages));
}

#[test]
fn dialects() {
    let mut out = String::new();
    let cases: &[(&str, &[&str])] = &[
        (
            "lenient",
            &[
                r#"{"method":"initialize","id":0,"params":{}}"#,
                r#"{"id":0,"result":{}}"#,
                r#"{"jsonrpc":"1.0","method":"a","id":1}"#,
                r#"{"method":"item/commandExecution/requestApproval","id":"s1","params":{}}"#,
            ],
        ),
        (
            "mcp",
            &[
                r#"{"jsonrpc":"2.0","method":"tools/list","id":"a1"}"#,
                r#"{"jsonrpc":"2.0","method":"tools/list","id":null}"#,
                r#"{"jsonrpc":"2.0","method":"tools/list","id":1.5}"#,
                r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}"#,
                r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#,
                r#"{"jsonrpc":"2.0","result":{}}"#,
                r#"[{"jsonrpc":"2.0","method":"ping","id":1}]"#,
            ],
        ),
        (
            "claude",
            &[
                r#"{"type":"control_request","request_id":"req_1_ab","request":{"subtype":"initialize"}}"#,
                r#"{"type":"control_response","response":{"subtype":"success","request_id":"req_1_ab","response":{}}}"#,
                r#"{"type":"control_response","response":{"subtype":"error","request_id":"req_1_ab","error":"boom"}}"#,
                r#"{"type":"control_cancel_request","request_id":"req_1_ab"}"#,
                r#"{"type":"assistant","message":{}}"#,
                r#"{"type":"control_request","request_id":7,"request":{"subtype":"interrupt"}}"#,
                r#"{"type":"control_response","response":{"request_id":"x"}}"#,
                r#"{"type":"control_response"}"#,
                r#"{"type":1}"#,
                r#"[{"type":"user"}]"#,
            ],
        ),
        (
            "events",
            &[
                r#"{"type":"token","text":"a"}"#,
                r#"{"type":null}"#,
                r#"{"text":"a"}"#,
                "[]",
            ],
        ),
    ];
    for (name, messages) in cases {
        out += &format!("## {name}\n");
        out += &report(&name.parse().unwrap(), messages);
    }
    insta::assert_snapshot!("dialects", out);
}
