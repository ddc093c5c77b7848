use std::path::Path;

use crate::capture::Framing;

use super::{
    answers::retype,
    peer::ToPeer,
    script::{HOLD_WAIT, Server},
    *,
};

fn scenario(toml: &str) -> Scenario {
    let text = format!("[[scenario]]\nname = \"s\"\ntitle = \"t\"\nsection = \"x\"\n{toml}\n");
    load_str(Path::new("client/t.toml"), &text)
        .unwrap()
        .remove(0)
}

fn writes(orders: &[ToPeer]) -> Vec<String> {
    orders
        .iter()
        .filter_map(|o| match o {
            ToPeer::Write(b) => Some(String::from_utf8_lossy(b).into_owned()),
            _ => None,
        })
        .collect()
}

#[test]
fn the_shipped_scenarios_load_with_unique_ids() {
    let all = builtin().unwrap();
    assert!(all.len() >= 20, "{} scenarios", all.len());
    let mut ids: Vec<&str> = all.iter().map(|s| s.meta.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), all.len());
    assert!(all.iter().all(|s| s.meta.id.starts_with("client/")));
}

#[test]
fn every_client_dialect_is_taken_and_has_scenarios() {
    let all = builtin().unwrap();
    let taken = crate::dialects::DIALECTS.iter().filter(|d| d.roles.client);
    for name in taken.map(|d| d.name) {
        let role = Clients::new(
            name,
            None,
            &[],
            Limits {
                startup: std::time::Duration::from_secs(1),
                timeout: std::time::Duration::from_secs(1),
            },
            crate::budget::Budget::DEFAULT,
            "rpcspec".into(),
        )
        .unwrap_or_else(|e| panic!("`{name}` refused: {e:?}"));
        let protocol = role.protocol.expect("one protocol a dialect");
        assert!(
            all.iter().any(|s| s.protocol == protocol),
            "no scenario for `{name}`"
        );
    }
    assert!(
        Clients::new(
            "nope",
            None,
            &[],
            Limits {
                startup: std::time::Duration::ZERO,
                timeout: std::time::Duration::ZERO
            },
            crate::budget::Budget::DEFAULT,
            "rpcspec".into()
        )
        .is_err()
    );
}

#[test]
fn a_bad_scenario_is_an_error_at_its_line_and_column() {
    let text = "[[scenario]]\nname = \"s\"\ntitle = \"t\"\nsection = \"x\"\norder = \"sideways\"\n";
    let e = load_str(Path::new("client/t.toml"), text).unwrap_err();
    assert_eq!((e.location.line, e.location.column), (5, 9), "{e}");
    assert!(e.to_string().contains("sideways"), "{e}");
    let text = "[[scenario]]\nname = \"s\"\ntitle = \"t\"\nsection = \"x\"\nexit = { method = \"echo\", line = \"x\" }\n";
    let e = load_str(Path::new("client/t.toml"), text).unwrap_err();
    assert!(e.to_string().contains("`line` does not belong here"), "{e}");
    let text = "[[scenario]]\nname = \"s\"\ntitle = \"t\"\nsection = \"x\"\nunknown = 1\n";
    assert!(load_str(Path::new("client/t.toml"), text).is_err());
}

#[test]
fn the_script_answers_the_methods_and_pairs_by_the_request_id() {
    let sc = scenario("");
    let mut s = Server::new(&sc, std::time::Instant::now(), &Framing::ndjson());
    let t = Duration::ZERO;
    let out = s.on_line(
        br#"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":"a1"}"#,
        t,
    );
    assert_eq!(
        writes(&out),
        [r#"{"jsonrpc":"2.0","id":"a1","result":19}"#.to_owned() + "\n"]
    );
    let out = s.on_line(
        br#"{"jsonrpc":"2.0","method":"fail","params":{},"id":2}"#,
        t,
    );
    assert!(
        writes(&out)[0].contains(r#""error":{"code":-32000"#),
        "{out:?}"
    );
    let out = s.on_line(br#"{"jsonrpc":"2.0","method":"nope","id":3}"#, t);
    assert!(writes(&out)[0].contains("-32601"), "{out:?}");
    assert!(
        s.on_line(br#"{"jsonrpc":"2.0","method":"update"}"#, t)
            .is_empty()
    );
    assert_eq!(s.log.answers.len(), 3);
    assert!(s.log.answers.iter().all(|a| a.given().is_some()));
}

#[test]
fn echo_replies_are_held_for_three_then_released_in_the_scenarios_order() {
    let sc = scenario("order = \"reverse\"");
    let mut s = Server::new(&sc, std::time::Instant::now(), &Framing::ndjson());
    let t = Duration::from_millis(10);
    for (id, x) in [(1, "a"), (2, "b")] {
        let line = format!(r#"{{"jsonrpc":"2.0","method":"echo","params":["{x}"],"id":{id}}}"#);
        assert!(s.on_line(line.as_bytes(), t).is_empty());
    }
    assert_eq!(s.next_due(), Some(t + HOLD_WAIT));
    let out = s.on_line(
        br#"{"jsonrpc":"2.0","method":"echo","params":["c"],"id":3}"#,
        t,
    );
    let w = writes(&out);
    assert_eq!(w.len(), 3);
    assert!(
        w[0].contains(r#""id":3"#) && w[2].contains(r#""id":1"#),
        "{w:?}"
    );
    assert_eq!(s.log.max_held, 3);
    // One at a time: released after the hold.
    let out = s.on_line(
        br#"{"jsonrpc":"2.0","method":"echo","params":["x"],"id":4}"#,
        t,
    );
    assert!(out.is_empty());
    assert!(s.on_tick(t + HOLD_WAIT / 2).is_empty());
    assert_eq!(writes(&s.on_tick(t + HOLD_WAIT)).len(), 1);
}

#[test]
fn a_scenario_can_exit_close_replace_and_decoy() {
    let sc = scenario("exit = { method = \"echo\", params = [\"b\"], code = 3 }");
    let mut s = Server::new(&sc, std::time::Instant::now(), &Framing::ndjson());
    let out = s.on_line(
        br#"{"jsonrpc":"2.0","method":"echo","params":["b"],"id":1}"#,
        Duration::ZERO,
    );
    assert_eq!(out, [ToPeer::Exit(3)]);
    assert!(s.log.answers[0].given().is_none());

    let sc =
        scenario("replace = { method = \"subtract\", line = 'x $id y' }\ndecoy = \"retyped-id\"");
    let mut s = Server::new(&sc, std::time::Instant::now(), &Framing::ndjson());
    let out = s.on_line(
        br#"{"jsonrpc":"2.0","method":"subtract","params":[1,1],"id":7}"#,
        Duration::ZERO,
    );
    assert_eq!(writes(&out), ["x 7 y\n"]);
    assert!(s.log.answers[0].replaced && s.log.answers[0].given().is_none());
    let out = s.on_line(
        br#"{"jsonrpc":"2.0","method":"fail","id":8}"#,
        Duration::ZERO,
    );
    let w = writes(&out);
    assert!(
        w[0].contains(r#""id":"8""#) && w[1].contains(r#""id":8"#),
        "{w:?}"
    );
    assert_eq!(s.log.retyped, 1);
}

#[test]
fn ids_retype_only_when_the_other_type_exists() {
    assert_eq!(retype("7").as_deref(), Some("\"7\""));
    assert_eq!(retype("\"12\"").as_deref(), Some("12"));
    assert_eq!(retype("\"-3\"").as_deref(), Some("-3"));
    assert_eq!(retype("\"07\""), None);
    assert_eq!(retype("\"abc\""), None);
    assert_eq!(retype("1.5"), None);
}

#[test]
fn every_write_mode_delivers_the_same_bytes() {
    let line = br#"{"jsonrpc":"2.0","method":"subtract","params":[5,3],"id":1}"#;
    let mut seen = Vec::new();
    for w in ["line", "coalesced", "split", "bytewise"] {
        let sc = scenario(&format!("writes = \"{w}\"\nbefore = ['n']"));
        let mut s = Server::new(&sc, std::time::Instant::now(), &Framing::ndjson());
        let out = s.on_line(line, Duration::ZERO);
        seen.push((w, writes(&out).concat(), writes(&out).len()));
    }
    assert!(seen.iter().all(|(_, b, _)| *b == seen[0].1), "{seen:?}");
    let counts: Vec<usize> = seen.iter().map(|(_, _, n)| *n).collect();
    assert_eq!(counts[..3], [2, 1, 4]);
    let sc = scenario("before = ['n']");
    let out = Server::new(&sc, std::time::Instant::now(), &Framing::ndjson())
        .on_line(line, Duration::ZERO);
    assert_eq!(
        out[0],
        ToPeer::Pause(Duration::ZERO),
        "lines are drained apart"
    );
    assert_eq!(
        out[2],
        ToPeer::Pause(Duration::ZERO),
        "lines are drained apart"
    );
    assert_eq!(counts[3], seen[0].1.len());
}

/// The orders as the script wrote them before the cutter was shared
/// (core's `plan::cut`): the oracle it must match, order for order.
fn naive_orders(writes: Writes, lines: Vec<Vec<u8>>) -> Vec<ToPeer> {
    let mut out = Vec::new();
    match writes {
        Writes::Line => {
            for l in lines {
                out.push(ToPeer::Pause(Duration::ZERO));
                out.push(ToPeer::Write(l));
            }
        }
        Writes::Coalesced => out.push(ToPeer::Write(lines.concat())),
        Writes::Split => {
            for l in lines {
                let cut = l.len() / 2;
                out.push(ToPeer::Write(l[..cut].to_vec()));
                out.push(ToPeer::Pause(writes::SPLIT_PAUSE));
                out.push(ToPeer::Write(l[cut..].to_vec()));
            }
        }
        Writes::Bytewise => {
            for l in lines {
                let n = l.len().min(BYTEWISE_MAX);
                for b in &l[..n] {
                    out.push(ToPeer::Pause(Duration::ZERO));
                    out.push(ToPeer::Write(vec![*b]));
                }
                if n < l.len() {
                    out.push(ToPeer::Pause(Duration::ZERO));
                    out.push(ToPeer::Write(l[n..].to_vec()));
                }
            }
        }
        Writes::Chunks => {
            for c in lines.concat().chunks(super::CHUNK) {
                out.push(ToPeer::Pause(Duration::ZERO));
                out.push(ToPeer::Write(c.to_vec()));
            }
        }
        Writes::HeaderApart => panic!("not a cut of the shared cutter"),
    }
    out
}

#[test]
fn the_shared_cutter_writes_what_the_script_wrote() {
    // Lines of two bytes or more: a line the script writes is a message
    // and its ending (an empty first half was written before, and no
    // longer is).
    for n in 1..4 {
        for len in [2, 3, 255, 256, 257, 600] {
            let lines: Vec<Vec<u8>> = (0..n).map(|i| vec![b'a' + i as u8; len + i]).collect();
            for writes in [
                Writes::Line,
                Writes::Coalesced,
                Writes::Split,
                Writes::Bytewise,
                Writes::Chunks,
            ] {
                assert_eq!(
                    writes::orders(writes, &lines),
                    naive_orders(writes, lines.clone()),
                    "{writes:?} {n}x{len}"
                );
            }
        }
    }
}

#[test]
fn in_content_length_framing_each_message_goes_behind_its_header() {
    let sc = scenario(r#"framing = "content-length""#);
    let mut s = Server::new(&sc, std::time::Instant::now(), &Framing::content_length());
    let out = s.on_line(
        r#"{"jsonrpc":"2.0","method":"echo","params":["é"],"id":1}"#.as_bytes(),
        Duration::ZERO,
    );
    assert!(out.is_empty(), "echo is held: {out:?}");
    let out = s.on_tick(HOLD_WAIT);
    // 38 bytes: `é` is two.
    assert_eq!(
        writes(&out),
        ["Content-Length: 38\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"é\"}"]
    );
    let sc = scenario(
        "framing = \"content-length\"\nwrites = \"header-apart\"\nheader = 'content-length: $len\\x0D\\x0AX-A: $len\\x0D\\x0A\\x0D\\x0A'",
    );
    let mut s = Server::new(&sc, std::time::Instant::now(), &Framing::content_length());
    let out = s.on_line(
        br#"{"jsonrpc":"2.0","method":"subtract","params":[2,1],"id":1}"#,
        Duration::ZERO,
    );
    assert_eq!(
        out,
        [
            ToPeer::Pause(Duration::ZERO),
            ToPeer::Write(b"content-length: 35\r\nX-A: 35\r\n\r\n".to_vec()),
            ToPeer::Pause(writes::SPLIT_PAUSE),
            ToPeer::Write(br#"{"jsonrpc":"2.0","id":1,"result":1}"#.to_vec()),
        ]
    );
}

#[test]
fn knobs_of_one_framing_are_refused_in_another() {
    let load = |toml: &str| {
        let text = format!("[[scenario]]\nname = \"s\"\ntitle = \"t\"\nsection = \"x\"\n{toml}\n");
        load_str(Path::new("client/t.toml"), &text).map(|_| ())
    };
    for (toml, says) in [
        ("crlf = true", "needs `framing = \"ndjson\"`"),
        (
            "writes = \"header-apart\"",
            "needs `framing = \"content-length\"`",
        ),
        (
            "header = 'X: 1\\x0D\\x0A\\x0D\\x0A'",
            "needs `framing = \"content-length\"`",
        ),
        (
            "framing = \"content-length\"\nheader = 'Content-Length: $len\\x0D\\x0A'",
            "ends with",
        ),
        ("framing = \"lines\"", "not one of ndjson, content-length"),
    ] {
        let e = load(toml).unwrap_err();
        assert!(e.to_string().contains(says), "{toml}: {e}");
    }
    load("crlf = true\nframing = \"ndjson\"").unwrap();
}

/// A field only one dialect's scenarios take is refused in another's, the
/// error naming its dialect and pointing at it.
#[test]
fn a_field_of_another_dialect_is_refused_where_it_is() {
    let load = |file: &str, toml: &str| {
        let text = format!("[[scenario]]\nname = \"s\"\ntitle = \"t\"\nsection = \"x\"\n{toml}\n");
        load_str(Path::new(file), &text)
    };
    let e = load("client/t.toml", "version = \"2025-06-18\"")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`version` belongs to MCP scenarios (client/mcp/)"),
        "{e}"
    );
    let e = load("client/mcp/t.toml", "ask_if = \"/capabilities/x\"")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`ask_if` belongs to LSP scenarios (client/lsp/)"),
        "{e}"
    );
    assert!(
        e.contains(":5:"),
        "the error points at the field's line: {e}"
    );
    let e = load("client/lsp/t.toml", "twist = \"network-ref\"")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`twist` belongs to MCP scenarios (client/mcp/)"),
        "{e}"
    );
    // In their own dialect they load.
    assert!(load("client/mcp/t.toml", "version = \"2025-06-18\"").is_ok());
    assert!(load("client/lsp/t.toml", "ask_if = \"/capabilities/x\"").is_ok());
}
