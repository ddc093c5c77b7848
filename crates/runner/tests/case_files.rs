//! The case file loader on broken files (every error names the file, line
//! and column, and says what is wrong), and tidy rules over the shipped
//! cases in `spec-cases/`.

use std::{
    collections::BTreeSet,
    fmt::Write as _,
    fs,
    path::{Path, PathBuf},
    process::Command,
};

use rpcspec::cases::{self, LoadError};

/// The path every broken input is loaded as; ids become `group/broken/<name>`.
const FILE: &str = "group/broken.toml";

fn load_error(text: &str) -> LoadError {
    match cases::load_str(Path::new(FILE), text) {
        Ok(cases) => panic!(
            "expected an error, loaded {} case(s) from:\n{text}",
            cases.len()
        ),
        Err(e) => e,
    }
}

/// A broken file: what it shows, the file itself, the 1-based line the
/// error must point at (the bad key or value, else the header of the
/// `[[case]]` or `[[case.step]]` at fault), and words the message must
/// contain.
struct Broken {
    what: &'static str,
    text: &'static str,
    line: usize,
    says: &'static str,
}

const BROKEN: &[Broken] = &[
    Broken {
        what: "invalid TOML",
        text: r#"# a comment
[[case]]
name = "x"
title = "t
"#,
        line: 4,
        says: "string",
    },
    Broken {
        what: "unknown field in a case",
        text: r#"[[case]]
name = "x"
title = "t"
section = "s"
tittle = "typo"

[[case.step]]
send = '{}'
expect_none = true
"#,
        line: 5,
        says: "tittle",
    },
    Broken {
        what: "unknown field in a step",
        text: r#"[[case]]
name = "x"
title = "t"
section = "s"

[[case.step]]
send = '{}'
expect_nothing = true
"#,
        line: 8,
        says: "expect_nothing",
    },
    Broken {
        what: "missing title",
        text: r#"[[case]]
name = "x"
section = "s"

[[case.step]]
send = '{}'
expect_none = true
"#,
        line: 1,
        says: "title",
    },
    Broken {
        what: "a step without any expectation",
        text: r#"[[case]]
name = "x"
title = "t"
section = "s"

[[case.step]]
send = '{}'
"#,
        line: 6,
        says: "expect",
    },
    Broken {
        what: "`expect` that is not JSON",
        text: r#"[[case]]
name = "x"
title = "t"
section = "s"

[[case.step]]
send = '{}'
expect = '{"id": 1,}'
"#,
        line: 6,
        says: "not JSON",
    },
    Broken {
        what: "both `expect` and `expect_none`",
        text: r#"[[case]]
name = "x"
title = "t"
section = "s"

[[case.step]]
send = '{}'
expect = '{"id": 1}'
expect_none = true
"#,
        line: 6,
        says: "only one of",
    },
    Broken {
        what: "duplicate case name",
        text: r#"[[case]]
name = "x"
title = "t"
section = "s"

[[case.step]]
send = '{}'
expect_none = true

[[case]]
name = "x"
title = "t2"
section = "s"

[[case.step]]
send = '{}'
expect_none = true
"#,
        line: 11,
        says: "duplicate case name `x`",
    },
    Broken {
        what: "bad case name (upper case)",
        text: r#"[[case]]
name = "Upper"
title = "t"
section = "s"

[[case.step]]
send = '{}'
expect_none = true
"#,
        line: 2,
        says: "`Upper` must be lower-case",
    },
    Broken {
        what: "unknown plan",
        text: r#"[[case]]
name = "x"
title = "t"
section = "s"
plans = ["whole", "sideways"]

[[case.step]]
send = '{}'
expect_none = true
"#,
        line: 5,
        says: "unknown write plan `sideways`",
    },
    Broken {
        what: "unknown framing",
        text: r#"[[case]]
name = "x"
title = "t"
section = "s"
framing = "lines"

[[case.step]]
send = '{}'
expect_none = true
"#,
        line: 5,
        says: "unknown framing `lines` (known: ndjson, content-length)",
    },
    Broken {
        what: "a rule the registry does not have",
        text: r#"[[case]]
name = "x"
title = "t"
section = "s"
rule = "lsp.nope"

[[case.step]]
send = '{}'
expect_none = true
"#,
        line: 5,
        says: "unknown rule `lsp.nope` (`rpcspec rules` lists them)",
    },
    Broken {
        what: "a step after an expected exit",
        text: r#"[[case]]
name = "x"
title = "t"
section = "s"

[[case.step]]
send = '{"jsonrpc": "2.0", "method": "exit"}'
expect_exit = 0
expect_none = true

[[case.step]]
send = '{}'
expect_none = true
"#,
        line: 11,
        says: "no step can follow one with `close = true` or `expect_exit`",
    },
    Broken {
        what: "a case of an unknown dialect",
        text: r#"[[case]]
name = "x"
title = "t"
section = "s"
dialect = "lps"

[[case.step]]
send = '{}'
expect_none = true
"#,
        line: 5,
        says: "unknown dialect `lps`",
    },
    Broken {
        what: "unknown level",
        text: r#"[[case]]
name = "x"
title = "t"
section = "s"
level = "MAY"

[[case.step]]
send = '{}'
expect_none = true
"#,
        line: 5,
        says: "level `MAY`",
    },
    Broken {
        what: "a step after a `close = true` step",
        text: r#"[[case]]
name = "x"
title = "t"
section = "s"

[[case.step]]
send = '{}'
close = true
expect_none = true

[[case.step]]
send = '{}'
expect_none = true
"#,
        line: 11,
        says: "close = true",
    },
    Broken {
        what: "`raw = false` line containing a newline",
        text: r#"[[case]]
name = "x"
title = "t"
section = "s"

[[case.step]]
send = "{}\n{}"
expect_none = true
"#,
        line: 6,
        says: "newline",
    },
    Broken {
        what: "`unescape = true` with a bad `\\x` escape",
        text: r#"[[case]]
name = "x"
title = "t"
section = "s"

[[case.step]]
unescape = true
send = '{"a": "\xZZ"}'
expect_none = true
"#,
        line: 6,
        says: "two hex digits",
    },
    Broken {
        what: "a case without steps",
        text: r#"[[case]]
name = "x"
title = "t"
section = "s"
"#,
        line: 1,
        says: "no [[case.step]]",
    },
    Broken {
        what: "`repeat = 0`",
        text: r#"[[case]]
name = "x"
title = "t"
section = "s"

[[case.step]]
send = '{}'
repeat = 0
expect_none = true
"#,
        line: 6,
        says: "`repeat` must be 1 to 1000, not 0",
    },
    // It was materialised at load: "memory allocation failed", an abort.
    Broken {
        what: "`repeat` past the limit",
        text: r#"[[case]]
name = "x"
title = "t"
section = "s"

[[case.step]]
send = '{}'
repeat = 4294967295
expect_none = true
"#,
        line: 6,
        says: "`repeat` must be 1 to 1000, not 4294967295",
    },
    Broken {
        what: "`send` times `repeat` past the limit",
        text: r#"[[case]]
name = "x"
title = "t"
section = "s"

[[case.step]]
send = ['{}', '{}']
repeat = 600
expect_none = true
"#,
        line: 6,
        says: "a step sends at most 1000 messages",
    },
    // `\x+F` was the byte 0x0F: `from_str_radix` takes a sign.
    Broken {
        what: "`\\x` with a sign",
        text: r#"[[case]]
name = "x"
title = "t"
section = "s"

[[case.step]]
send = '\x+F'
raw = true
unescape = true
expect_none = true
"#,
        line: 6,
        says: "not followed by two hex digits",
    },
    Broken {
        what: "a kept value no earlier step keeps",
        text: r#"[[case]]
name = "x"
title = "t"
section = "s"

[[case.step]]
send = '{"jsonrpc":"2.0","id":1,"method":"new"}'
keep = { session = "/result/sessionId" }
expect_any = true

[[case.step]]
send = '{"jsonrpc":"2.0","id":2,"method":"use","params":{"s":"$kept:sesion"}}'
expect_any = true
"#,
        line: 11,
        says: "no earlier step of the case keeps `sesion`",
    },
    Broken {
        what: "a kept value's pointer that is no JSON Pointer",
        text: r#"[[case]]
name = "x"
title = "t"
section = "s"

[[case.step]]
send = '{"jsonrpc":"2.0","id":1,"method":"new"}'
keep = { session = "result.sessionId" }
expect_any = true
"#,
        line: 6,
        says: "a JSON Pointer into the reply",
    },
];

#[test]
fn broken_case_files_name_file_line_column_and_what_is_wrong() {
    let mut snapshot = String::new();
    for b in BROKEN {
        let e = load_error(b.text);
        let shown = e.to_string();
        assert_eq!(e.location.file, PathBuf::from(FILE), "{}: {shown}", b.what);
        assert_eq!(e.location.line, b.line, "{}: {shown}", b.what);
        assert!(e.location.column >= 1, "{}: {shown}", b.what);
        assert!(
            shown.starts_with(&format!(
                "{FILE}:{}:{}: ",
                e.location.line, e.location.column
            )),
            "{}: {shown}",
            b.what
        );
        assert!(
            e.message.contains(b.says),
            "{}: message should say {:?}: {shown}",
            b.what,
            b.says
        );
        assert!(
            !e.message.ends_with('.') && !e.message.contains('\n'),
            "{}: one line, no final period: {shown:?}",
            b.what
        );
        let _ = writeln!(
            snapshot,
            "=== {}\n{}\n→ {shown}\n",
            b.what,
            b.text.trim_end()
        );
    }
    insta::assert_snapshot!(snapshot);
}

#[test]
fn a_good_file_loads_with_ids_and_locations() {
    let text = r#"# comment
[[case]]
name = "first"
title = "t1"
section = "s1"

[[case.step]]
send = '{"jsonrpc": "2.0", "method": "m", "id": 1}'
expect = '{"jsonrpc": "2.0", "result": "$any", "id": 1}'

[[case]]
name = "second"
title = "t2"
section = "s2"
level = "SHOULD"
plans = ["whole"]
requires = ["m"]

[[case.step]]
send = '{"jsonrpc": "2.0", "method": "m"}'
expect_none = true
"#;
    let loaded = cases::load_str(Path::new("dir/file.toml"), text).expect("loads");
    let ids: Vec<&str> = loaded.iter().map(|c| c.meta.id.as_str()).collect();
    assert_eq!(ids, ["dir/file/first", "dir/file/second"]);
    assert_eq!(loaded[1].meta.requires, ["m"]);
    assert_eq!(loaded[1].plans.len(), 1);
    assert_eq!(loaded[0].plans.len(), 5, "no `plans`: every plan");
    assert!(loaded[0].meta.source.line <= 3 && loaded[1].meta.source.line >= 10);
}

// Tidy rules over the shipped cases.

fn spec_cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../spec-cases")
}

fn shipped_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in fs::read_dir(dir).expect("spec-cases is readable") {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|x| x == "toml") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(&spec_cases_dir(), &mut files);
    files.sort();
    assert!(!files.is_empty(), "no case files under spec-cases/");
    files
}

#[test]
fn every_shipped_case_loads_with_a_unique_id_title_and_section() {
    let all = cases::builtin().unwrap_or_else(|e| panic!("a shipped case file is broken: {e}"));
    assert!(!all.is_empty());
    let mut ids = BTreeSet::new();
    for c in &all {
        assert!(ids.insert(c.meta.id.as_str()), "duplicate id {}", c.meta.id);
        assert!(
            !c.meta.title.trim().is_empty(),
            "{}: empty title",
            c.meta.id
        );
        assert!(
            !c.meta.section.trim().is_empty(),
            "{}: empty section",
            c.meta.id
        );
        assert!(!c.steps.is_empty(), "{}: no steps", c.meta.id);
        assert!(!c.plans.is_empty(), "{}: no plans", c.meta.id);
    }
    // The embedded suite is the directory as it is now (build.rs reruns
    // when a file changes).
    let from_disk = cases::load_dir(&spec_cases_dir()).expect("spec-cases/ loads");
    let disk_ids: Vec<&str> = from_disk.iter().map(|c| c.meta.id.as_str()).collect();
    let builtin_ids: Vec<&str> = all.iter().map(|c| c.meta.id.as_str()).collect();
    assert_eq!(builtin_ids, disk_ids);
}

#[test]
fn every_case_file_and_every_case_opens_with_a_comment() {
    let mut problems = Vec::new();
    for path in shipped_files() {
        let text = fs::read_to_string(&path).expect("readable");
        let rel = path
            .strip_prefix(spec_cases_dir())
            .unwrap_or(&path)
            .display()
            .to_string();
        if !text.starts_with('#') {
            problems.push(format!("{rel}: the file does not begin with a comment"));
        }
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if line.trim() == "[[case]]" {
                let before = i.checked_sub(1).map(|j| lines[j].trim_start());
                if !before.is_some_and(|l| l.starts_with('#')) {
                    problems.push(format!(
                        "{rel}:{}: `[[case]]` without a comment line just above it",
                        i + 1
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// Preambles: a dialect's handshake, declared as `[[preamble]]` in a case
// file, opens every case run in that dialect.

#[test]
fn a_preamble_loads_and_the_shipped_mcp_handshake_is_there() {
    let text = r#"# comment
[[preamble]]
dialect = "mcp"
title = "handshake"
section = "MCP lifecycle"

[[preamble.step]]
send = '{"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {}}'
expect = '{"jsonrpc": "2.0", "result": "$object", "id": "init"}'

[[preamble.step]]
send = '{"jsonrpc": "2.0", "method": "notifications/initialized"}'
expect_none = true
"#;
    let file = Path::new("dir/preambles.toml");
    assert!(cases::load_str(file, text).expect("loads").is_empty());
    let preambles = cases::load_preambles(file, text).expect("loads");
    assert_eq!(preambles.len(), 1);
    assert_eq!(preambles[0].dialect, "mcp");
    assert_eq!(preambles[0].steps.len(), 2);
    assert_eq!(preambles[0].source.line, 2);

    let shipped = cases::builtin_preambles().expect("the shipped preambles load");
    // One per dialect with a handshake, each a dialect of the registry.
    let dialects: BTreeSet<&str> = shipped.iter().map(|p| p.dialect.as_str()).collect();
    assert_eq!(dialects.len(), shipped.len(), "one preamble per dialect");
    assert!(dialects.contains("mcp"), "{dialects:?}");
    for d in &dialects {
        assert!(rpcspec::dialects::dialect_named(d).is_some(), "{d}");
    }
    let from_disk = cases::preambles_dir(&spec_cases_dir()).expect("spec-cases/ loads");
    assert_eq!(from_disk.len(), shipped.len());
}

#[test]
fn a_broken_preamble_names_its_line() {
    for (text, line, says) in [
        (
            "[[preamble]]\ndialect = \"mccp\"\ntitle = \"t\"\nsection = \"s\"\n\n[[preamble.step]]\nsend = '{}'\nexpect_none = true\n",
            2,
            "unknown dialect `mccp`",
        ),
        (
            "[[preamble]]\ndialect = \"mcp\"\ntitle = \"t\"\nsection = \"s\"\n\n[[preamble.step]]\nsend = '{}'\nclose = true\nexpect_none = true\n",
            6,
            "cannot close stdin",
        ),
        (
            "[[preamble]]\ndialect = \"mcp\"\ntitle = \"t\"\nsection = \"s\"\n",
            1,
            "no [[preamble.step]]",
        ),
        (
            "[[preamble]]\ndialect = \"mcp\"\ntitle = \"t\"\nsection = \"s\"\n\n[[preamble.step]]\nsend = '{}'\nkeep = { x = \"/result\" }\nexpect_none = true\n",
            6,
            "keeps no value",
        ),
    ] {
        let e = match cases::load_str(Path::new(FILE), text) {
            Ok(_) => panic!("expected an error from:\n{text}"),
            Err(e) => e,
        };
        assert_eq!(e.location.line, line, "{e}");
        assert!(e.message.contains(says), "{e}");
    }
}

/// The reference server does not speak MCP: in the `mcp` dialect the
/// handshake opens the case and its `initialize` gets -32601, which fails
/// the case as a preamble step, while the case's own step still passes.
#[test]
fn the_preamble_opens_every_case_in_its_dialect() {
    use rpcspec::{exec::RunOptions, plan::Plan, report::Verdict, run_suite, target::Target};
    let case = cases::builtin()
        .unwrap()
        .into_iter()
        .find(|c| c.meta.id == "jsonrpc/examples/method-not-found")
        .expect("shipped");
    let target = Target {
        argv: vec![env!("CARGO_BIN_EXE_rpcspec").into(), "serve".into()],
    };
    let mcp = RunOptions {
        dialect: rpcspec_matcher::Dialect::Mcp,
        ..RunOptions::default()
    };
    let results = run_suite(
        std::slice::from_ref(&case),
        &[Plan::Whole],
        &target,
        &mcp,
        1,
        &|_, _| {},
    );
    let r = &results[0];
    assert_eq!(r.verdict, Verdict::Fail, "{r:#?}");
    let sent = match &r.sent[0].bytes {
        rpcspec::report::Bytes::Text(text) => text.clone(),
        other => panic!("the handshake is text: {other:?}"),
    };
    assert!(
        sent.contains("\"initialize\""),
        "the handshake goes first: {sent}"
    );
    let preamble: Vec<&str> = r
        .evidence
        .iter()
        .filter(|e| e.message.starts_with("preamble step 1:"))
        .map(|e| e.message.as_str())
        .collect();
    assert_eq!(preamble.len(), 1, "{:#?}", r.evidence);
    assert!(
        r.evidence.iter().all(|e| e.step.is_none()),
        "the case's own step passed: {:#?}",
        r.evidence
    );

    // Without a preamble for its dialect a case runs as written.
    let plain = RunOptions::default();
    let results = run_suite(&[case], &[Plan::Whole], &target, &plain, 1, &|_, _| {});
    assert_eq!(results[0].verdict, Verdict::Pass, "{:#?}", results[0]);
}

/// Steps per case are bounded like `repeat`: what a case costs to load and
/// grade grows with them (30 000 steps took 61 s to load, quadratically).
#[test]
fn a_case_of_too_many_steps_is_refused_where_it_starts() {
    let mut text = String::from("# many\n[[case]]\nname = \"x\"\ntitle = \"t\"\nsection = \"s\"\n");
    for _ in 0..1001 {
        text.push_str("[[case.step]]\nsend = '{}'\nexpect_none = true\n");
    }
    let e = load_error(&text);
    assert_eq!(e.location.line, 2, "{e}");
    assert!(e.message.contains("has 1001 steps; at most 1000"), "{e}");
}

/// A FIFO named like a case file blocked the load forever; a case file
/// that is not UTF-8 was reported at `0:0`. Now the first is refused and
/// the second names the line and column of its first bad byte.
#[test]
fn only_regular_utf8_files_are_read_as_cases() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("x.toml");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let e = cases::load_dir(dir.path()).unwrap_err();
    let shown = e.to_string();
    assert!(
        shown.starts_with("x.toml:") && shown.ends_with(": not a regular file"),
        "{shown}"
    );
    std::fs::remove_file(&fifo).unwrap();
    std::fs::write(&fifo, b"# ok\n[[case]]\nname = \"\xff\"\n").unwrap();
    let e = cases::load_dir(dir.path()).unwrap_err();
    assert_eq!(e.to_string(), "x.toml:3:9: not UTF-8");
}

/// A step's `keep` takes a value from its reply, and a later step's
/// `"$kept:NAME"` is that value's JSON text; where the reply lacks it, the
/// steps that need it are not sent and the case is SKIPPED, saying which.
#[test]
fn a_kept_value_is_sent_by_a_later_step_or_the_case_is_skipped() {
    use rpcspec::{exec::RunOptions, plan::Plan, report::Verdict, run_suite, target::Target};
    let text = r#"[[case]]
name = "kept"
title = "t"
section = "s"

[[case.step]]
send = '{"jsonrpc": "2.0", "id": 1, "method": "subtract", "params": [42, 23]}'
expect = '{"jsonrpc": "2.0", "result": 19, "id": 1}'
keep = { n = "/result" }

[[case.step]]
send = '{"jsonrpc": "2.0", "id": 2, "method": "subtract", "params": ["$kept:n", 9]}'
expect = '{"jsonrpc": "2.0", "result": 10, "id": 2}'

[[case]]
name = "missing"
title = "t"
section = "s"

[[case.step]]
send = '{"jsonrpc": "2.0", "id": 1, "method": "subtract", "params": [42, 23]}'
expect = '{"jsonrpc": "2.0", "result": 19, "id": 1}'
keep = { n = "/result/none" }

[[case.step]]
send = '{"jsonrpc": "2.0", "id": 2, "method": "subtract", "params": ["$kept:n", 9]}'
expect = '{"jsonrpc": "2.0", "result": 10, "id": 2}'
"#;
    let cases = cases::load_str(Path::new(FILE), text).unwrap();
    let target = Target {
        argv: vec![env!("CARGO_BIN_EXE_rpcspec").into(), "serve".into()],
    };
    let results = run_suite(
        &cases,
        &[Plan::Whole],
        &target,
        &RunOptions::default(),
        1,
        &|_, _| {},
    );
    let kept = &results[0];
    assert_eq!(kept.verdict, Verdict::Pass, "{kept:#?}");
    let sent: String = kept
        .sent
        .iter()
        .filter_map(|s| match &s.bytes {
            rpcspec::report::Bytes::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    assert!(sent.contains(r#""params": [19, 9]"#), "{sent}");
    let missing = &results[1];
    assert_eq!(missing.verdict, Verdict::Skipped, "{missing:#?}");
    assert!(
        missing.evidence.iter().any(|e| e
            .message
            .contains("step 2 needs `n`, which no reply to step 1 gave")),
        "{:#?}",
        missing.evidence
    );
}
