//! `rpcspec check` as a streaming validator: every line that is not one JSON
//! text is found, a pretty-printed value is one finding, and memory stays
//! bounded whatever the length of the stream (streams generated on the fly,
//! never written to disk).

mod support;

use std::{
    io::{Read, Write},
    process::{Command, Stdio},
    thread,
    time::Duration,
};

use assert_cmd::Command as AssertCommand;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_rpcspec");

fn rpcspec() -> AssertCommand {
    let mut cmd = AssertCommand::new(BIN);
    cmd.env("NO_COLOR", "1").timeout(Duration::from_secs(120));
    cmd
}

fn stdout_of(args: &[&str], input: &[u8]) -> (i32, String) {
    let out = rpcspec().args(args).write_stdin(input).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
    )
}

/// The rule ids of the findings in a human report, in order: lines
/// `line:offset: rule: message`, or `file:line:offset: …` of two streams.
fn rule_ids(out: &str) -> Vec<&str> {
    out.lines()
        .filter(|l| {
            let place = l.split(": ").next().unwrap_or("");
            let mut parts = place.rsplitn(3, ':');
            parts.next().is_some_and(|p| p.parse::<u64>().is_ok())
                && parts.next().is_some_and(|p| p.parse::<u64>().is_ok())
        })
        .filter_map(|l| l.split(": ").nth(1))
        .collect()
}

#[test]
fn a_line_that_is_not_json_is_a_json_parse_finding() {
    let (code, out) = stdout_of(&["check", "-"], b"[1 true]\n");
    assert_eq!(code, 1, "{out}");
    assert!(
        out.starts_with(
            "1:0: json.parse: expected `,` or `]` after an array element, found `t` (byte 3 of the line)\n"
        ),
        "{out}"
    );
    // --framing-only is the old behaviour: the line is framed well.
    let (code, out) = stdout_of(&["check", "--framing-only", "-"], b"[1 true]\n");
    assert_eq!(
        (code, out.as_str()),
        (0, "0 findings in 1 line (9 bytes)\n")
    );
}

/// Texts every JSON parser must reject, one class of error each, with the
/// byte offset in the line where the checker must stop.
const INVALID: &[(&str, &str)] = &[
    ("[1,]", "trailing comma in an array"),
    ("{\"a\":1,}", "trailing comma in an object"),
    ("[,1]", "leading comma"),
    ("[1,,2]", "double comma"),
    ("{\"a\" 1}", "missing colon"),
    ("{\"a\":}", "missing value"),
    ("{a:1}", "unquoted key"),
    ("{1:1}", "number as key"),
    ("{'a':1}", "single quotes"),
    ("[\"\\x\"]", "invalid escape"),
    ("[\"\\u12\"]", "short unicode escape"),
    ("[\"\\u12G4\"]", "non-hex unicode escape"),
    ("[\"\\\"]", "escaped closing quote, unterminated"),
    ("[\"a\tb\"]", "raw tab in a string"),
    ("[\"a\u{1}b\"]", "raw control character"),
    ("[\"a\u{0}b\"]", "raw NUL in a string"),
    ("[1]\u{0}", "NUL after the value"),
    ("[012]", "leading zero"),
    ("[-01]", "negative leading zero"),
    ("[1.]", "no digit after the point"),
    ("[.5]", "no digit before the point"),
    ("[1e]", "empty exponent"),
    ("[1e+]", "signed empty exponent"),
    ("[+1]", "leading plus"),
    ("[-]", "lone minus"),
    ("[0x10]", "hex number"),
    ("[NaN]", "NaN"),
    ("[Infinity]", "Infinity"),
    ("[-Infinity]", "negative Infinity"),
    ("[tru]", "truncated literal"),
    ("[True]", "capitalised literal"),
    ("[nul]", "truncated null"),
    ("[undefined]", "undefined"),
    ("[1 2]", "missing comma"),
    ("{\"a\":1 \"b\":2}", "missing comma between members"),
    ("[1]]", "extra close"),
    ("[[1]", "unclosed nested array"),
    ("{\"a\":[1}", "mismatched close"),
    ("[1}", "object close for an array"),
    ("{\"a\":1", "truncated object"),
    ("[\"abc", "truncated string"),
    ("{}{}", "two values"),
    ("{\"a\":1} x", "trailing garbage"),
    ("1 2", "two scalars"),
    ("[1]//comment", "comment"),
    ("/* c */ [1]", "leading comment"),
    ("[\u{a0}1]", "non-breaking space as whitespace"),
    ("[\u{2028}]", "line separator as whitespace"),
    ("\u{c}[1]", "form feed as whitespace"),
    ("[1,2,]", "trailing comma after several"),
    ("abc", "bare word"),
    ("'a'", "single-quoted string"),
    ("]", "lone close"),
    (":", "lone colon"),
    ("\"a\":1", "member outside an object"),
];

/// Edge texts every JSON parser must accept.
const VALID: &[&str] = &[
    "0",
    "-0",
    "-0.0e-0",
    "1E+2",
    "123456789012345678901234567890",
    "1e400",
    "\"\"",
    "\"\\u0000\\\"\\\\\\/\\b\\f\\n\\r\\t\"",
    "\"\\ud83d\\ude00 é 中 😀\"",
    "\"\u{2028}\u{2029}\u{85}\"",
    "[]",
    "{}",
    " \t [ 1 , { \"a\" : [ ] } ] \t ",
    "{\"\":\"\",\"a\":{\"a\":{\"a\":[true,false,null]}}}",
    "{\"a\":1,\"a\":2}",
    "true",
    "null",
];

#[test]
fn every_class_of_invalid_json_is_found_and_every_valid_edge_passes() {
    let mut stream = String::new();
    for (text, _) in INVALID {
        stream.push_str(text);
        stream.push('\n');
    }
    let (code, out) = stdout_of(&["check", "--format", "json", "-"], stream.as_bytes());
    assert_eq!(code, 1);
    let findings: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["type"] == "finding")
        .collect();
    for (i, (text, what)) in INVALID.iter().enumerate() {
        let line = i as u64 + 1;
        let found: Vec<&Value> = findings
            .iter()
            .filter(|f| f["data"]["line"] == line)
            .collect();
        assert_eq!(found.len(), 1, "{what}: {text:?} gave {found:?}");
        assert_eq!(
            found[0]["data"]["rule"]["id"], "json.parse",
            "{what}: {text:?} gave {found:?}"
        );
    }
    assert_eq!(findings.len(), INVALID.len(), "{out}");

    let mut stream = String::new();
    for text in VALID {
        stream.push_str(text);
        stream.push('\n');
    }
    // A 5000-deep array is valid JSON: depth is a reader's limit, not a rule.
    stream.push_str(&"[".repeat(5000));
    stream.push_str(&"]".repeat(5000));
    stream.push('\n');
    let (code, out) = stdout_of(&["check", "-"], stream.as_bytes());
    assert_eq!((code, rule_ids(&out)), (0, vec![]), "{out}");
    assert!(out.starts_with("0 findings in "), "{out}");
}

#[test]
fn a_pretty_printed_value_is_one_finding_with_advice() {
    let value = serde_json::json!({"jsonrpc": "2.0", "result": {"tools": [{"name": "a"}, {"name": "b"}]}, "id": 1});
    let pretty = serde_json::to_string_pretty(&value).unwrap();
    let lines = pretty.lines().count();
    let mut stream = String::new();
    for _ in 0..3 {
        stream.push_str(&pretty);
        stream.push('\n');
    }
    // The last value of a pretty-printed file often lacks its newline.
    stream.pop();
    let (code, out) = stdout_of(&["check", "-"], stream.as_bytes());
    assert_eq!(code, 1);
    let multi: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("framing.multi-line"))
        .collect();
    assert_eq!(multi.len(), 4, "{out}"); // three findings and the summary
    assert!(
        multi[0].starts_with(&format!(
            "1:0: framing.multi-line: lines 1–{lines} are one JSON value"
        )),
        "{out}"
    );
    assert!(!out.contains("json.parse"), "{out}");
    assert!(
        out.contains("hint: 3 values are spread over several lines"),
        "{out}"
    );
    assert!(out.contains("framing.unterminated"), "{out}");

    // Lines that only look like the start of a value are judged one by one.
    let (code, out) = stdout_of(&["check", "-"], b"{\"a\":\n1,\n{\"b\":2}\n");
    assert_eq!(code, 1);
    assert_eq!(rule_ids(&out), ["json.parse", "json.parse"], "{out}");
    assert!(out.starts_with("1:0: json.parse"), "{out}");
    assert!(out.contains("\n2:6: json.parse"), "{out}");
    assert!(!out.contains("\n3:"), "{out}");
}

#[test]
fn findings_beyond_the_cap_are_counted_not_printed() {
    let (code, out) = stdout_of(
        &["check", "--max-per-rule", "3", "-"],
        &b"x\n\n".repeat(1000),
    );
    assert_eq!(code, 1);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 6 + 2, "{out}");
    assert_eq!(
        lines[6],
        "2000 findings in 2000 lines (3000 bytes): json.parse 1000, framing.blank-line 1000"
    );
    assert_eq!(
        lines[7],
        "1994 findings not shown: at most 3 of each rule are (--max-per-rule N; 0 shows all)"
    );
    let (_, out) = stdout_of(
        &["check", "--format", "json", "--max-per-rule", "0", "-"],
        &b"x\n".repeat(500),
    );
    let last: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "summary");
    assert_eq!(last["data"]["findings"], 500);
    assert_eq!(last["data"]["not_shown"], 0);
    assert_eq!(out.lines().count(), 501);
}

#[test]
fn json_seq_records_are_checked_as_json() {
    let stream = b"\x1e{\"a\":\n  1}\n\x1e[1 true]\n\x1e\"ok\"\n";
    let (code, out) = stdout_of(&["check", "--seq", "-"], stream);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.starts_with("2:13: json.parse: expected `,` or `]`"),
        "{out}"
    );
    assert_eq!(out.lines().count(), 2, "{out}");
}

#[test]
fn rpc_pairs_a_pretty_printed_reply_and_reports_json_parse_once() {
    let stream = b"{\"jsonrpc\":\"2.0\",\"method\":\"a\",\"id\":1}\n{\n  \"jsonrpc\": \"2.0\",\n  \"result\": 1,\n  \"id\": 1\n}\n{\"jsonrpc\":\"2.0\",\"method\":\"b\",\"id\":2\n{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32700,\"message\":\"Parse error\"},\"id\":null}\n";
    let (code, out) = stdout_of(&["check", "--rpc", "jsonrpc2", "-"], stream);
    assert_eq!(code, 1);
    // The reply to id 1 pairs although it spans five lines, the unparseable
    // request is one json.parse, and its -32700 answers it.
    assert_eq!(
        rule_ids(&out),
        ["framing.multi-line", "json.parse"],
        "{out}"
    );
    assert!(out.contains("2 findings in 8 lines"), "{out}");
}

/// `--framing content-length`: each body is judged as one JSON text (a
/// pretty-printed body is fine), and each departure from the LSP base
/// protocol is a finding of its own rule, at its byte offset.
#[test]
fn content_length_framing_is_checked_message_by_message() {
    let mut stream = Vec::new();
    stream.extend(b"Content-Length: 15\r\n\r\n{\n  \"id\": 1\n}\n ");
    stream.extend(b"[log] ready\n");
    stream.extend(b"Content-Length: 2\r\nContent-Type: text/plain; charset=latin1\r\n\r\n{}");
    stream.extend(b"Content-Length: 4\r\n\r\n[1 2");
    stream.extend(b"content-length: 9\r\n\r\n{}");
    let (code, out) = stdout_of(&["check", "--framing", "content-length", "-"], &stream);
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        rule_ids(&out),
        [
            "framing.between-messages",
            "framing.charset",
            "json.parse",
            "framing.content-cut"
        ],
        "{out}"
    );
    assert!(out.starts_with("2:37: framing.between-messages: "), "{out}");
    // Four messages: the stray line and the charset notice are none.
    assert!(out.contains(" in 4 messages ("), "{out}");
    // The same messages, well framed, pass.
    let good = b"Content-Length: 7\r\n\r\n{\"a\":1}Content-Length: 2\r\n\r\n[]";
    let (code, out) = stdout_of(&["check", "--framing", "content-length", "-"], good);
    assert_eq!(
        (code, out.as_str()),
        (0, "0 findings in 2 messages (51 bytes)\n")
    );
    // Read as lines, the same bytes are not NDJSON.
    let (code, _) = stdout_of(&["check", "-"], good);
    assert_eq!(code, 1);
}

#[test]
fn a_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = rpcspec().arg("check").arg(dir.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is a directory"));
}

/// Runs `rpcspec check ARGS` on `total` bytes that `fill` writes into each
/// block, and returns its peak RSS in KiB (VmHWM, read while it still runs:
/// after the last byte is written, before stdin closes) and its stdout.
fn peak_rss(args: &[&str], total: u64, mut fill: impl FnMut(&mut Vec<u8>) + Send) -> (u64, String) {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut stdout = child.stdout.take().unwrap();
    let reader = thread::spawn(move || {
        let mut s = String::new();
        stdout.read_to_string(&mut s).unwrap();
        s
    });
    let hwm = || support::vm_hwm_kib(pid);
    let mut stdin = child.stdin.take().unwrap();
    let mut block = Vec::with_capacity(1 << 20);
    let mut written = 0u64;
    let mut peak = 0;
    while written < total {
        block.clear();
        fill(&mut block);
        stdin.write_all(&block).unwrap();
        written += block.len() as u64;
        peak = peak.max(hwm());
    }
    // Let it take in what the pipe still holds, then read the peak.
    thread::sleep(Duration::from_millis(200));
    peak = peak.max(hwm());
    drop(stdin);
    assert!(child.wait().unwrap().code().is_some());
    (peak, reader.join().unwrap())
}

const BOUND_KIB: u64 = 64 * 1024;

#[test]
fn rpc_memory_stays_bounded_on_a_conversation_of_hundreds_of_megabytes() {
    let mut id = 0u64;
    let (peak, out) = peak_rss(&["check", "--rpc", "jsonrpc2", "-"], 256 << 20, |b| {
        while b.len() < (1 << 20) - 512 {
            id += 1;
            write!(
                b,
                "{{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"text\":\"hello {id}\"}}}},\"id\":{id}}}\n\
                 {{\"jsonrpc\":\"2.0\",\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"hello {id}\"}}]}},\"id\":{id}}}\n"
            )
            .unwrap();
        }
    });
    assert!(
        out.starts_with("0 findings in ") && out.lines().count() == 1,
        "a clean conversation has no finding: {out}"
    );
    assert!(peak > 0, "no VmHWM read");
    assert!(
        peak < BOUND_KIB,
        "peak RSS {peak} KiB on 256 MiB of conversation"
    );
}

#[test]
fn memory_stays_bounded_on_ten_million_blank_lines_and_on_random_bytes() {
    let (peak, out) = peak_rss(&["check", "-"], 10_000_000, |b| b.resize(1 << 20, b'\n'));
    assert!(peak < BOUND_KIB, "peak RSS {peak} KiB on 10 M blank lines");
    assert!(
        out.contains("framing.blank-line 10485760"),
        "{}",
        &out[out.len().saturating_sub(500)..]
    );
    assert_eq!(out.lines().count(), 100 + 2);

    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let (peak, out) = peak_rss(&["check", "--rpc", "jsonrpc2", "-"], 64 << 20, |b| {
        while b.len() < 1 << 20 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            b.extend_from_slice(&x.to_le_bytes());
        }
    });
    assert!(
        peak < BOUND_KIB,
        "peak RSS {peak} KiB on 64 MiB of random bytes"
    );
    assert!(
        out.contains("framing.utf8"),
        "{}",
        &out[out.len().saturating_sub(500)..]
    );
}

/// A real MCP conversation (server-everything, captured by
/// `fixtures/check/capture-mcp.py`): the server sends `roots/list` with id
/// 0, as the client's `initialize` was, and the client cancels its request
/// 9, which then gets no reply.
const TRANSCRIPT: &str = include_str!("fixtures/check/mcp-everything.transcript");

/// One side of [`TRANSCRIPT`], unmarked: `-->` for the client's, `<--` for
/// the server's; `None` keeps every line, unmarked.
fn side(mark: Option<&str>) -> String {
    TRANSCRIPT
        .lines()
        .filter(|l| !l.starts_with("//"))
        .filter(|l| mark.is_none_or(|m| l.starts_with(m)))
        .map(|l| format!("{}\n", &l[4..]))
        .collect()
}

#[test]
fn a_marked_transcript_pairs_each_side_and_honours_mcp_cancellation() {
    let (code, out) = stdout_of(&["check", "--rpc", "mcp", "-"], TRANSCRIPT.as_bytes());
    assert_eq!((code, rule_ids(&out)), (0, vec![]), "{out}");
    // A clean stream says what it checked.
    assert_eq!(
        out,
        format!(
            "0 findings in 22 lines, 20 messages (6 requests, 5 replies, 5 paired; senders as marked) ({} bytes)\n",
            TRANSCRIPT.len()
        )
    );
    // Without the cancel, request 9 is unanswered, and the finding is at
    // its line, not the stream's end.
    let uncancelled: String = TRANSCRIPT
        .lines()
        .filter(|l| !l.contains("notifications/cancelled"))
        .map(|l| format!("{l}\n"))
        .collect();
    let (code, out) = stdout_of(&["check", "--rpc", "mcp", "-"], uncancelled.as_bytes());
    assert_eq!(code, 1);
    let line = uncancelled
        .lines()
        .position(|l| l.contains(r#""id":9"#))
        .unwrap()
        + 1;
    let found: Vec<&str> = out
        .lines()
        .filter(|l| l.contains(": session.unanswered: "))
        .collect();
    assert_eq!(found.len(), 1, "{out}");
    assert!(found[0].starts_with(&format!("{line}:")), "{out}");
    assert!(found[0].contains("request id 9"), "{out}");
}

#[test]
fn one_side_of_a_conversation_is_checked_without_the_other() {
    for (mark, from, counts) in [
        ("<--", "server", "1 request, 4 replies"),
        ("-->", "client", "5 requests, 1 reply"),
    ] {
        let stream = side(Some(mark));
        let (code, out) = stdout_of(
            &["check", "--rpc", "mcp", "--from", from, "-"],
            stream.as_bytes(),
        );
        assert_eq!((code, rule_ids(&out)), (0, vec![]), "{from}: {out}");
        assert!(
            out.contains(&format!("({counts}, 0 paired; all the {from}'s)")),
            "{from}: {out}"
        );
    }
    // Told nothing, the server's stdout is read as a conversation: its
    // replies answer nothing in it.
    let (code, out) = stdout_of(
        &["check", "--rpc", "mcp", "-"],
        side(Some("<--")).as_bytes(),
    );
    assert_eq!(code, 1);
    assert!(rule_ids(&out).contains(&"session.unknown-id"), "{out}");
    assert!(out.contains("senders guessed: mark the lines"), "{out}");
}

#[test]
fn a_transcript_line_without_its_mark_is_a_finding() {
    let unmarked_one = TRANSCRIPT.replacen(
        "--> {\"jsonrpc\":\"2.0\",\"id\":1,",
        "{\"jsonrpc\":\"2.0\",\"id\":1,",
        1,
    );
    let (code, out) = stdout_of(&["check", "--rpc", "mcp", "-"], unmarked_one.as_bytes());
    assert_eq!(code, 1);
    assert_eq!(rule_ids(&out), ["transcript.mark"], "{out}");
}

/// The sender of each note of `--annotate --format json`, in order.
fn senders_of(out: &str) -> Vec<String> {
    out.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["type"] == "note")
        .map(|v| v["data"]["from"].as_str().unwrap_or("?").to_owned())
        .collect()
}

/// A stream whose first line is unmarked is no transcript: each sender is
/// read from MCP's schema (`roots/list` is the server's, so its id 0 is no
/// reuse of the client's `initialize` id) and from pairing (the client's
/// reply to it, the server's progress on the client's token, the client's
/// cancel of its own request). Only `ping`, which either side sends, is
/// left ambiguous, and nothing found about it is reported.
#[test]
fn an_unmarked_mcp_conversation_is_read_as_its_marked_transcript() {
    let (code, out) = stdout_of(&["check", "--rpc", "mcp", "-"], side(None).as_bytes());
    assert_eq!((code, rule_ids(&out)), (0, vec![]), "{out}");
    assert!(
        out.contains("5 paired; senders from the protocol's method directions and pairing, but 1 message either side may send"),
        "{out}"
    );
    let annotate = [
        "check",
        "--rpc",
        "mcp",
        "--annotate",
        "--format",
        "json",
        "-",
    ];
    let (_, marked) = stdout_of(&annotate, TRANSCRIPT.as_bytes());
    let (code, unmarked) = stdout_of(&annotate, side(None).as_bytes());
    assert_eq!(code, 0, "{unmarked}");
    let truth = senders_of(&marked);
    assert_eq!(truth.len(), 20, "{marked}");
    assert!(truth.iter().filter(|s| *s == "server").count() > 8);
    assert_eq!(senders_of(&unmarked), truth);
    // The server's `roots/list` with the id of the client's pending
    // `tools/list` (1): the client's reply fits `roots/list`'s result only.
    let clash = TRANSCRIPT
        .replace(
            r#""method":"roots/list","jsonrpc":"2.0","id":0"#,
            r#""method":"roots/list","jsonrpc":"2.0","id":1"#,
        )
        .replace(
            r#"--> {"jsonrpc":"2.0","id":0,"result":{"roots""#,
            r#"--> {"jsonrpc":"2.0","id":1,"result":{"roots""#,
        );
    let mut lines: Vec<&str> = clash.lines().filter(|l| !l.starts_with("//")).collect();
    // tools/list (id 1) sent before the server's roots/list (id 1).
    let list = lines.iter().position(|l| l.contains("tools/list")).unwrap();
    let roots = lines.iter().position(|l| l.contains("roots/list")).unwrap();
    let moved = lines.remove(list);
    lines.insert(roots, moved);
    let marked: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let unmarked: String = lines.iter().map(|l| format!("{}\n", &l[4..])).collect();
    let (code, out) = stdout_of(&annotate, marked.as_bytes());
    assert_eq!(code, 0, "{out}");
    let truth = senders_of(&out);
    let (code, out) = stdout_of(&annotate, unmarked.as_bytes());
    assert_eq!((code, senders_of(&out)), (0, truth), "{out}");
    // A ping with an id the client used already: either side's ping, so
    // whether an id was reused is a guess, and not reported.
    let reused = |t: &str| {
        t.replace(r#""id":3,"method":"ping""#, r#""id":2,"method":"ping""#)
            .replace(
                r#"{"result":{},"jsonrpc":"2.0","id":3}"#,
                r#"{"result":{},"jsonrpc":"2.0","id":2}"#,
            )
    };
    let (code, out) = stdout_of(
        &["check", "--rpc", "mcp", "-"],
        reused(&side(None)).as_bytes(),
    );
    assert_eq!((code, rule_ids(&out)), (0, vec![]), "{out}");
    assert!(
        out.contains("\n1 finding withheld: it depends on who sent a message either side may send"),
        "{out}"
    );
    // Marked, the same ping is the client's, and reuses its id.
    let (code, out) = stdout_of(
        &["check", "--rpc", "mcp", "-"],
        reused(TRANSCRIPT).as_bytes(),
    );
    assert_eq!((code, rule_ids(&out)), (1, vec!["mcp.id-reused"]), "{out}");
}

/// A real LSP session with pyright 1.1.390, both sides in one unmarked
/// stream as they happened (`capture-lsp.py`'s PREFIX.both): the server's
/// `workspace/configuration` requests are the server's (LSP's meta-model
/// says so), its third has the id of the client's pending `hover`, and the
/// client's reply to it fits `workspace/configuration`'s result, not
/// `hover`'s. Each sender is the one the client's own capture
/// (`pyright.both.client.bin`, the same session) gives.
#[test]
fn an_unmarked_lsp_session_gives_each_message_its_true_sender() {
    let both: &[u8] = include_bytes!("fixtures/check/pyright.both.bin");
    let client: &[u8] = include_bytes!("fixtures/check/pyright.both.client.bin");
    // Each frame of `both` is the client's if it is the client's next.
    let mut truth = Vec::new();
    let (mut at, mut mine) = (0, 0);
    while at < both.len() {
        let end = both[at..]
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .unwrap()
            + at;
        let head = std::str::from_utf8(&both[at..end]).unwrap();
        let n: usize = head.rsplit(' ').next().unwrap().parse().unwrap();
        let frame = &both[at..end + 4 + n];
        if client[mine..].starts_with(frame) {
            mine += frame.len();
            truth.push("client".to_owned());
        } else {
            truth.push("server".to_owned());
        }
        at += frame.len();
    }
    assert_eq!(
        mine,
        client.len(),
        "the client's capture is in the stream whole"
    );
    assert!(truth.iter().filter(|s| *s == "client").count() >= 9);
    let (code, out) = stdout_of(&["check", "--rpc", "lsp", "-"], both);
    assert_eq!((code, rule_ids(&out)), (0, vec![]), "{out}");
    assert!(
        out.contains("senders from the protocol's method directions and pairing)"),
        "{out}"
    );
    let (code, out) = stdout_of(
        &[
            "check",
            "--rpc",
            "lsp",
            "--annotate",
            "--format",
            "json",
            "-",
        ],
        both,
    );
    assert_eq!((code, senders_of(&out)), (0, truth), "{out}");
}

#[test]
fn mcp_progress_must_increase_and_stop_once_its_request_is_answered() {
    let call = r#"--> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":"p"}}}"#;
    let progress = |n: u32| {
        format!(
            r#"<-- {{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"p","progress":{n}}}}}"#
        )
    };
    let reply = r#"<-- {"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#;
    let stream = [call.to_owned(), progress(1), progress(2), reply.to_owned()].join("\n") + "\n";
    let (code, out) = stdout_of(&["check", "--rpc", "mcp", "-"], stream.as_bytes());
    assert_eq!((code, rule_ids(&out)), (0, vec![]), "{out}");
    let stream = [
        call.to_owned(),
        progress(2),
        progress(2),
        reply.to_owned(),
        progress(3),
    ]
    .join("\n")
        + "\n";
    let (code, out) = stdout_of(&["check", "--rpc", "mcp", "-"], stream.as_bytes());
    assert_eq!(code, 1);
    assert_eq!(
        rule_ids(&out),
        ["mcp.progress.increasing", "mcp.progress.after-completion"],
        "{out}"
    );
    assert!(out.starts_with("3:"), "at the second progress line: {out}");
}

#[test]
fn a_malformed_reply_is_one_finding_not_a_cascade() {
    // Read as the request's own reply, marked or not: not an unknown id, a
    // request left unanswered, and a reused id besides.
    let stream = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n\
                  {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":{\"code\":1,\"message\":\"x\"}}\n";
    for dialect in ["jsonrpc2", "mcp"] {
        let (code, out) = stdout_of(&["check", "--rpc", dialect, "-"], stream.as_bytes());
        assert_eq!(
            (code, rule_ids(&out)),
            (1, vec!["response.result-xor-error"]),
            "{dialect}: {out}"
        );
    }
}

/// A real LSP session with pyright 1.1.390 (`fixtures/check/capture-lsp.py`),
/// each side's bytes in its own file: `--rpc lsp` reads Content-Length
/// framing and checks every message against LSP's meta-model.
#[test]
fn each_side_of_a_real_lsp_session_fits_the_meta_model_and_a_wrong_enum_is_found() {
    let server: &[u8] = include_bytes!("fixtures/check/pyright.server.bin");
    let client: &[u8] = include_bytes!("fixtures/check/pyright.client.bin");
    for (from, stream) in [("server", server), ("client", client)] {
        let (code, out) = stdout_of(&["check", "--rpc", "lsp", "--from", from, "-"], stream);
        assert_eq!((code, rule_ids(&out)), (0, vec![]), "{from}: {out}");
        assert!(out.starts_with("0 findings in "), "{from}: {out}");
    }
    // The same length, so the framing holds: a severity LSP does not have.
    let text = String::from_utf8(server.to_vec()).unwrap();
    assert!(text.contains(r#""severity":1"#));
    let wrong = text.replacen(r#""severity":1"#, r#""severity":9"#, 1);
    let (code, out) = stdout_of(
        &["check", "--rpc", "lsp", "--from", "server", "-"],
        wrong.as_bytes(),
    );
    assert_eq!((code, rule_ids(&out)), (1, vec!["lsp.shape"]), "{out}");
    assert!(
        out.contains("`textDocument/publishDiagnostics` params (PublishDiagnosticsParams) at /params/diagnostics/0/severity: expected DiagnosticSeverity (1 Error, 2 Warning, 3 Information, 4 Hint), got 9"),
        "{out}"
    );
}

#[test]
fn a_one_sided_stream_reports_nothing_unanswered_even_past_its_window() {
    let requests: String = (1..=5)
        .map(|n| format!("{{\"jsonrpc\":\"2.0\",\"id\":{n},\"method\":\"m\"}}\n"))
        .collect();
    let (code, out) = stdout_of(
        &[
            "check", "--rpc", "jsonrpc2", "--from", "client", "--window", "2", "-",
        ],
        requests.as_bytes(),
    );
    assert_eq!((code, rule_ids(&out)), (0, vec![]), "{out}");
}

#[test]
fn what_is_left_unanswered_is_placed_at_its_own_line() {
    // A batch and an unparseable request, both left unanswered, each at
    // its line (a client's replies to nothing between them).
    let stream = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}\n\
                  {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1}\n\
                  [{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"b\"}]\n\
                  {\"jsonrpc\":\"2.0\",\"id\":3,\n";
    let (code, out) = stdout_of(&["check", "--rpc", "jsonrpc2", "-"], stream.as_bytes());
    assert_eq!(code, 1);
    let unanswered: Vec<&str> = out
        .lines()
        .filter(|l| l.contains(": session.unanswered: "))
        .map(|l| l.split(':').next().unwrap())
        .collect();
    assert_eq!(unanswered, ["3", "4"], "{out}");
    // In a transcript, a JSON error's byte counts from after the mark.
    let (_, out) = stdout_of(&["check", "-"], b"--> [1 true]\n");
    assert!(out.starts_with("1:4: json.parse: "), "{out}");
    assert!(out.contains("(byte 3 of the message)"), "{out}");
}

/// `check --client C --server S`, each stream written to a file of its own:
/// the exit code and the report.
fn two_streams(args: &[&str], client: &[u8], server: &[u8]) -> (i32, String, [String; 2]) {
    let dir = tempfile::tempdir().unwrap();
    let paths = ["client.ndjson", "server.ndjson"].map(|f| dir.path().join(f));
    std::fs::write(&paths[0], client).unwrap();
    std::fs::write(&paths[1], server).unwrap();
    let names = paths.map(|p| p.display().to_string());
    let mut argv = vec!["check", "--client", &names[0], "--server", &names[1]];
    argv.extend_from_slice(args);
    let (code, out) = stdout_of(&argv, b"");
    (code, out, names)
}

#[test]
fn two_streams_of_a_real_session_pair_as_its_marked_transcript_does() {
    let (client, server) = (side(Some("-->")), side(Some("<--")));
    let (code, out, _) = two_streams(&["--rpc", "mcp"], client.as_bytes(), server.as_bytes());
    assert_eq!((code, rule_ids(&out)), (0, vec![]), "{out}");
    assert!(
        out.contains("(6 requests, 5 replies, 5 paired; each side's own stream)"),
        "{out}"
    );
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/check");
    let (code, out) = stdout_of(
        &[
            "check",
            "--rpc",
            "lsp",
            "--client",
            &format!("{fixtures}/pyright.client.bin"),
            "--server",
            &format!("{fixtures}/pyright.server.bin"),
        ],
        b"",
    );
    assert_eq!((code, rule_ids(&out)), (0, vec![]), "{out}");
    assert!(out.contains("(7 requests, 7 replies, 7 paired; "), "{out}");
}

#[test]
fn a_finding_in_one_of_two_streams_names_its_file_and_line() {
    let (client, server) = (side(Some("-->")), side(Some("<--")));
    let uncancelled: String = client
        .lines()
        .filter(|l| !l.contains("notifications/cancelled"))
        .map(|l| format!("{l}\n"))
        .collect();
    let line = uncancelled
        .lines()
        .position(|l| l.contains(r#""id":9"#))
        .unwrap()
        + 1;
    let (code, out, names) =
        two_streams(&["--rpc", "mcp"], uncancelled.as_bytes(), server.as_bytes());
    assert_eq!(
        (code, rule_ids(&out)),
        (1, vec!["session.unanswered"]),
        "{out}"
    );
    assert!(out.starts_with(&format!("{}:{line}:", names[0])), "{out}");
    // A reply to an id the client never used, in the server's file.
    let at = server
        .lines()
        .position(|l| l.ends_with(r#""id":2}"#))
        .unwrap()
        + 1;
    let stray = server.replace(r#""id":2}"#, r#""id":99}"#);
    let (code, out, names) = two_streams(&["--rpc", "mcp"], client.as_bytes(), stray.as_bytes());
    assert_eq!(code, 1);
    let found: Vec<&str> = out
        .lines()
        .filter(|l| l.contains(": session.unknown-id: "))
        .collect();
    assert_eq!(found.len(), 1, "{out}");
    assert!(
        found[0].starts_with(&format!("{}:{at}:", names[1])),
        "{out}"
    );
    // No json.parse finding counts bytes after a mark no line has.
    let (_, out, _) = two_streams(&[], b"{}\nnot json\n", b"");
    assert!(out.contains("(byte 1 of the line)"), "{out}");
}

#[test]
fn a_reply_waits_for_its_request_but_not_forever() {
    let request = |id: u32| format!("{{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"id\":{id}}}\n");
    let reply = |id: u32| format!("{{\"jsonrpc\":\"2.0\",\"result\":0,\"id\":{id}}}\n");
    let note = "{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n";
    // The reply is the server's first line; its request the client's third.
    let client = format!("{note}{note}{}", request(1));
    let (code, out, _) = two_streams(
        &["--rpc", "jsonrpc2"],
        client.as_bytes(),
        reply(1).as_bytes(),
    );
    assert_eq!((code, rule_ids(&out)), (0, vec![]), "{out}");
    // A reply to nothing waits half a window of the client's messages, then
    // is read: the replies behind it still pair within the window.
    let client: String = (1..=20).map(request).collect();
    let server: String = std::iter::once(99).chain(1..=20).map(reply).collect();
    let (code, out, _) = two_streams(
        &["--rpc", "jsonrpc2", "--window", "10"],
        client.as_bytes(),
        server.as_bytes(),
    );
    assert_eq!(
        (code, rule_ids(&out)),
        (1, vec!["session.unknown-id"]),
        "{out}"
    );
    // An id-null error waits for the message it answers; the request after
    // it is then read before its reply.
    let client = format!("{{bad\n{}", reply(7));
    let server = format!(
        "{{\"jsonrpc\":\"2.0\",\"error\":{{\"code\":-32700,\"message\":\"x\"}},\"id\":null}}\n{}",
        request(7)
    );
    let (code, out, _) = two_streams(&["--rpc", "jsonrpc2"], client.as_bytes(), server.as_bytes());
    assert_eq!((code, rule_ids(&out)), (1, vec!["json.parse"]), "{out}");
}

#[test]
fn annotate_gives_each_message_a_line_with_its_pairing() {
    let (code, out) = stdout_of(
        &["check", "--rpc", "mcp", "--annotate", "-"],
        TRANSCRIPT.as_bytes(),
    );
    assert_eq!(code, 0, "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 21, "{out}");
    assert_eq!(
        lines[0],
        "    3  -->  request       id 0 initialize                    answered by line 4"
    );
    assert_eq!(
        lines[12],
        "   15  -->  request       id 9 tools/call                    cancelled at line 17"
    );
    // Without --rpc, JSON-RPC 2.0; a finding sits under its message.
    let (code, out) = stdout_of(
        &["check", "--annotate", "-"],
        b"{\"jsonrpc\":\"2.0\",\"method\":\"a\",\"id\":1}\n",
    );
    assert_eq!(code, 1);
    assert!(out.starts_with("    1  -->  request       id 1 a                             never answered\n        session.unanswered: "), "{out}");
}

#[test]
fn an_unmarked_event_stream_is_the_producers() {
    let stream =
        b"{\"type\":\"start\"}\n{\"type\":\"token\",\"text\":\"a\"}\n{\"type\":\"done\"}\n";
    let (code, out) = stdout_of(&["check", "--rpc", "events", "-"], stream);
    assert_eq!((code, rule_ids(&out)), (0, vec![]), "{out}");
    assert!(out.contains("all the server's"), "not guessed: {out}");
    let cut = &stream[..stream.len() - 16];
    let (code, out) = stdout_of(&["check", "--rpc", "events", "-"], cut);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("events.interrupted"), "{out}");
}

/// A real ACP session (`fixtures/check/acp-python-sdk.transcript`, an
/// echo agent on the official Python SDK, captured by `capture-acp.py`):
/// the handshake, a session, a turn with its update, an extension method
/// refused with -32601, a cancel. Marked, it checks clean; unmarked, every
/// sender is read from ACP's `meta.json` and from pairing as the marks
/// give it, but the extension method's request, which either side may
/// send (`_…`); and the diagram draws the client's and the agent's lanes
/// the same either way.
#[test]
fn a_real_acp_session_is_read_with_its_directions() {
    let transcript = include_str!("fixtures/check/acp-python-sdk.transcript");
    let unmarked: String = transcript
        .lines()
        .filter(|l| !l.starts_with("//"))
        .map(|l| format!("{}\n", &l[4..]))
        .collect();
    let (code, out) = stdout_of(&["check", "--rpc", "acp", "-"], transcript.as_bytes());
    assert_eq!((code, rule_ids(&out)), (0, vec![]), "{out}");
    assert!(out.contains("4 paired; senders as marked"), "{out}");
    let (code, out) = stdout_of(&["check", "--rpc", "acp", "-"], unmarked.as_bytes());
    assert_eq!((code, rule_ids(&out)), (0, vec![]), "{out}");
    assert!(
        out.contains("senders from the protocol's method directions and pairing, but 1 message either side may send"),
        "{out}"
    );
    let annotate = [
        "check",
        "--rpc",
        "acp",
        "--annotate",
        "--format",
        "json",
        "-",
    ];
    let (_, marked) = stdout_of(&annotate, transcript.as_bytes());
    let truth = senders_of(&marked);
    assert_eq!(truth.len(), 10, "{marked}");
    assert_eq!(truth.iter().filter(|s| *s == "server").count(), 5);
    let (_, inferred) = stdout_of(&annotate, unmarked.as_bytes());
    assert_eq!(senders_of(&inferred), truth);
    let html = ["check", "--rpc", "acp", "--format", "html", "-"];
    let (_, drawn) = stdout_of(&html, transcript.as_bytes());
    let (_, drawn_unmarked) = stdout_of(&html, unmarked.as_bytes());
    assert!(drawn.contains("<span>client</span><span>agent</span>"));
    let lanes = |page: &str| {
        (
            page.matches("class=\"q c ").count(),
            page.matches("class=\"q s ").count(),
        )
    };
    assert_eq!(lanes(&drawn), (5, 5), "{drawn}");
    assert_eq!(lanes(&drawn_unmarked), lanes(&drawn));
    // The turn's reply given an id no request had: the session finds it.
    let wrong = transcript.replace(
        r#"<-- {"jsonrpc":"2.0","id":2,"#,
        r#"<-- {"jsonrpc":"2.0","id":7,"#,
    );
    let (code, out) = stdout_of(&["check", "--rpc", "acp", "-"], wrong.as_bytes());
    assert_eq!(code, 1, "{out}");
    assert!(rule_ids(&out).contains(&"session.unknown-id"), "{out}");
}
