//! `rpcspec matrix`: merging real reports (the reference server's and
//! `cat`'s), manifests and their errors, the Markdown table, and the HTML
//! page in a real headless browser.

use std::{
    fs,
    path::{Path, PathBuf},
    process::Command as Std,
    sync::OnceLock,
};

mod support;

use assert_cmd::Command;
use serde_json::Value;

/// Three cases `cat` fails in three ways: FAIL on two plans, FAIL on five,
/// TIMEOUT on five.
const FILTERS: [&str; 3] = [
    "framing/lines/eof-flushes",
    "framing/lines/last-line-without-newline",
    "jsonrpc/ids/string",
];

fn rpcspec() -> Command {
    let mut cmd = Command::cargo_bin("rpcspec").expect("the rpcspec binary is built");
    cmd.env("SOURCE_DATE_EPOCH", "0");
    cmd
}

fn exe() -> PathBuf {
    assert_cmd::cargo::cargo_bin("rpcspec")
}

fn filter_args() -> Vec<String> {
    let mut args = vec!["--timeout".to_owned(), "2".to_owned()];
    for f in FILTERS {
        args.extend(["--filter".to_owned(), f.to_owned()]);
    }
    args
}

/// JSON reports of the reference server (`reference.json`) and of `cat`
/// (`cat.json`), made once by `rpcspec run --format json`.
fn reports() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("matrix-reports");
        fs::create_dir_all(&dir).unwrap();
        for (name, target) in [("reference", vec![]), ("cat", vec!["--", "cat"])] {
            let out = rpcspec()
                .args(["run", "--format", "json"])
                .args(filter_args())
                .args(target)
                .output()
                .unwrap();
            assert!(
                matches!(out.status.code(), Some(0 | 1)),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            fs::write(dir.join(format!("{name}.json")), out.stdout).unwrap();
        }
        dir
    })
}

fn merged(format: &str) -> String {
    let dir = reports();
    let out = rpcspec()
        .args(["matrix", "--format", format, "--merge"])
        .arg(dir.join("reference.json"))
        .arg(dir.join("cat.json"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn cell<'a>(m: &'a Value, id: &str, target: usize) -> &'a Value {
    let row = m["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("no row {id}"));
    &row["cells"][target]
}

#[test]
fn merging_two_reports_gives_a_cell_per_case_and_target() {
    let m: Value = serde_json::from_str(&merged("json")).unwrap();
    assert_eq!(m["generated"], "1970-01-01");
    let names: Vec<&str> = m["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["reference", "cat"]);
    let ids: Vec<&str> = m["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    // Report order, grouped by area.
    assert_eq!(
        ids,
        [
            "framing/lines/last-line-without-newline",
            "framing/lines/eof-flushes",
            "jsonrpc/ids/string"
        ]
    );
    assert_eq!(m["rows"][0]["area"], "framing/lines");
    for id in ids {
        let pass = cell(&m, id, 0);
        assert_eq!(pass["verdict"], "PASS", "{id}");
        assert!(pass.get("evidence").is_none(), "{id}");
    }
    // The worst verdict, every plan's verdict, and evidence per plan.
    let eof = cell(&m, "framing/lines/eof-flushes", 1);
    assert_eq!(eof["verdict"], "FAIL");
    assert_eq!(eof["plans"].as_array().unwrap().len(), 5);
    let evidence = eof["evidence"].as_array().unwrap();
    assert_eq!(evidence.len(), 5);
    assert_eq!(evidence[0]["plan"], "whole");
    assert!(!evidence[0]["sent"].as_array().unwrap().is_empty());
    let last = cell(&m, "framing/lines/last-line-without-newline", 1);
    assert_eq!(last["verdict"], "FAIL");
    let rule = &last["evidence"][0]["evidence"][0]["rule"];
    assert_eq!(rule["id"], "framing.unterminated");
    assert!(rule["section"].as_str().unwrap().contains("NDJSON"));
    assert_eq!(cell(&m, "jsonrpc/ids/string", 1)["verdict"], "TIMEOUT");
    // Summaries: cells and (case, plan) results.
    assert_eq!(m["targets"][0]["cells"]["pass"], 3);
    assert_eq!(m["targets"][1]["cells"]["fail"], 2);
    assert_eq!(m["targets"][1]["cells"]["timeout"], 1);
    assert_eq!(m["targets"][1]["results"]["fail"], 7);
}

#[test]
fn markdown_of_two_reports() {
    insta::assert_snapshot!("markdown_of_two_reports", merged("md"));
}

/// A manifest in a temporary directory: the reference server, `cat`, and
/// a program that does not exist.
fn manifest(dir: &Path) -> PathBuf {
    let path = dir.join("manifest.toml");
    let text = format!(
        r#"
[[target]]
name = "reference"
version = "built-in"
command = [{exe:?}, "serve"]
notes = "the reference server"

[[target]]
name = "cat"
version = "coreutils"
command = ["sh", "-c", "test \"$GREETING\" = hello && test -f here.txt && exec cat"]
env = {{ GREETING = "hello" }}

[[target]]
name = "missing"
command = ["no-such-program-rpcspec"]
"#,
        exe = exe().display().to_string()
    );
    fs::write(&path, text).unwrap();
    // The targets run in the manifest's directory: `cat` checks it.
    fs::write(dir.join("here.txt"), "").unwrap();
    path
}

#[test]
fn a_manifest_runs_every_target_with_its_env_and_directory() {
    let dir = tempfile::tempdir().unwrap();
    let path = manifest(dir.path());
    let out = rpcspec()
        .current_dir(std::env::temp_dir())
        .args(["matrix", "--jobs", "3", "--format", "md"])
        .arg(&path)
        .args(filter_args())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The same table as merging the reports, plus an ERROR column for the
    // target that cannot start.
    insta::assert_snapshot!(
        "markdown_of_a_manifest",
        String::from_utf8(out.stdout).unwrap()
    );
}

#[test]
fn merging_with_a_manifest_names_columns_and_flags_missing_reports() {
    let dir = tempfile::tempdir().unwrap();
    let path = manifest(dir.path());
    let out = rpcspec()
        .args(["matrix", "--format", "json"])
        .arg(&path)
        .arg("--merge")
        .arg(reports().join("cat.json"))
        .arg(reports().join("reference.json"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let m: Value = serde_json::from_slice(&out.stdout).unwrap();
    // Manifest order, versions from the manifest.
    assert_eq!(m["targets"][0]["name"], "reference");
    assert_eq!(m["targets"][0]["version"], "built-in");
    assert_eq!(m["targets"][1]["name"], "cat");
    let missing = &m["targets"][2];
    assert_eq!(missing["error"], "no report given for `missing`");
    assert_eq!(missing["cells"]["error"], 3);
    let c = cell(&m, "jsonrpc/ids/string", 2);
    assert_eq!(c["verdict"], "ERROR");
    assert_eq!(
        c["evidence"][0]["evidence"][0]["message"],
        "no report given for `missing`"
    );
}

#[test]
fn bad_manifests_name_file_line_and_column() {
    let cases: [(&str, &str); 10] = [
        ("", "manifest.toml:1:1: no [[target]]"),
        (
            "[[target]]\nname = \"a\"\ncommand = [\"x\"]\nframing = \"lines\"\n",
            "manifest.toml:4:11: unknown framing `lines` (known: ndjson, content-length)",
        ),
        (
            "[[target]]\nname = \"a\"\ncommand = [\"x\"]\nrole = \"decoder\"\nframing = \"ndjson\"\n",
            "manifest.toml:5:11: `framing` is how a server or a client frames messages",
        ),
        (
            "[[target]]\nname = \"a\"\n",
            "manifest.toml:1:1: missing field `command`",
        ),
        (
            "[[target]]\nname = \"a\"\ncommand = []\n",
            "manifest.toml:3:11: `command` is empty",
        ),
        (
            "[[target]]\nname = \"a\"\ncommand = [\"x\"]\nrole = \"tester\"\n",
            "manifest.toml:4:8: unknown role `tester` (known: server, producer, decoder, client)",
        ),
        (
            "[[target]]\nname = \"a\"\ncommand = [\"x\"]\ndialect = \"xml-rpc\"\n",
            "manifest.toml:4:11: unknown dialect `xml-rpc`",
        ),
        (
            "[[target]]\nname = \"a\"\ncommand = [\"x\"]\n\n[[target]]\nname = \"a\"\ncommand = [\"y\"]\n",
            "manifest.toml:6:8: a second target named `a`",
        ),
        (
            "[[target]]\nname = \"a\"\ncommand = [\"x\"]\ncomand = [\"y\"]\n",
            "manifest.toml:4:1: unknown field `comand`",
        ),
        (
            "[[target]]\nname = \"a\"\ncommand = [\"x\"\n",
            "manifest.toml:3:",
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("manifest.toml");
    for (text, expected) in cases {
        fs::write(&path, text).unwrap();
        let out = rpcspec().arg("matrix").arg(&path).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{text:?}: {stderr}");
        assert!(
            stderr.contains(expected),
            "{text:?}: expected {expected:?} in {stderr:?}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn bad_reports_and_arguments_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("broken.json");
    let start = r#"{"type":"start","data":{"target":"x","role":"server","dialect":"jsonrpc2","strict":false}}"#;
    let checks = [
        (
            format!("{start}\nnot json\n"),
            "broken.json:2: not a report event",
        ),
        (
            format!(
                "{start}\n{}\n",
                r#"{"type":"result","data":{"id":"a/b","plan":"whole","verdict":"MAYBE"}}"#
            ),
            "broken.json:2: bad result event: unknown verdict `MAYBE`",
        ),
        ("\n".to_owned(), "broken.json:1: no start event"),
    ];
    for (text, expected) in checks {
        fs::write(&report, &text).unwrap();
        let out = rpcspec()
            .args(["matrix", "--merge"])
            .arg(&report)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(expected),
            "expected {expected:?} in {stderr:?}"
        );
    }
    // Neither a manifest nor reports.
    rpcspec().arg("matrix").assert().code(2);
    // Two reports with one name.
    let out = rpcspec()
        .args(["matrix", "--merge"])
        .arg(reports().join("cat.json"))
        .arg(reports().join("cat.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("a second report named `cat`"));
}

#[test]
fn html_escapes_everything_and_fetches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("evil.json");
    let start = r#"{"type":"start","data":{"target":"<script>alert(1)</script>","role":"server","dialect":"jsonrpc2","strict":false}}"#;
    let result = r#"{"type":"result","data":{"id":"x/<b>y</b>","plan":"whole","title":"\"><img src=x onerror=alert(1)>","section":"s&s","verdict":"FAIL","evidence":[{"verdict":"FAIL","message":"<i>m</i>","rule":{"id":"r<","level":"MUST","section":"<s>","statement":"'q'"}}],"received":[{"at_ms":1,"line":1,"offset":0,"bytes":{"text":"</pre><script>x</script>"}}]}}"#;
    fs::write(&report, format!("{start}\n{result}\n")).unwrap();
    let out = rpcspec()
        .args(["matrix", "--format", "html", "--merge"])
        .arg(&report)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let html = String::from_utf8(out.stdout).unwrap();
    for bad in [
        "<script",
        "<img",
        "<b>",
        "<i>",
        "</pre><script",
        "http://",
        "https://",
        "url(",
    ] {
        assert!(!html.contains(bad), "{bad} in the page");
    }
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert_eq!(html.matches("data-verdict=\"FAIL\"").count(), 1);
}

/// `rpcspec matrix --merge FILE` of a report written to `dir/NAME.json`.
fn merge_report(dir: &Path, name: &str, text: &str, format: &str) -> std::process::Output {
    let report = dir.join(format!("{name}.json"));
    fs::write(&report, text).unwrap();
    rpcspec()
        .args(["matrix", "--format", format, "--merge"])
        .arg(&report)
        .output()
        .unwrap()
}

fn stdout_of(out: &std::process::Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// A result event (one line of a JSON report).
fn result_event(id: &str, plan: &str, verdict: &str, message: &str, rule: &str) -> String {
    let mut data = serde_json::json!({"id": id, "plan": plan, "verdict": verdict});
    if verdict != "PASS" {
        let mut e = serde_json::json!({"verdict": verdict, "message": message});
        if !rule.is_empty() {
            e["rule"] = serde_json::json!({
                "id": rule, "level": "SHOULD", "section": "§1", "statement": "s"
            });
        }
        data["evidence"] = serde_json::json!([e]);
    }
    serde_json::json!({"type": "result", "data": data}).to_string()
}

const PRODUCER_START: &str =
    r#"{"type":"start","data":{"target":"p","role":"producer","dialect":"events","strict":false}}"#;

/// For a producer the plans are scenarios, and a check may not apply in
/// one (SKIPPED) yet be NON-STRICT in another: the cell must show the
/// finding, not SKIPPED, and count only the plans that ran.
#[test]
fn a_cell_is_skipped_only_when_every_plan_was() {
    let dir = tempfile::tempdir().unwrap();
    let lines = [
        PRODUCER_START.to_owned(),
        result_event("events/ids/a", "one", "SKIPPED", "not applicable", ""),
        result_event(
            "events/ids/a",
            "two",
            "NON-STRICT",
            "id reused",
            "ids.fresh",
        ),
        result_event("events/ids/a", "three", "PASS", "", ""),
        result_event("events/ids/b", "one", "SKIPPED", "not applicable", ""),
        result_event("events/ids/b", "two", "SKIPPED", "not applicable", ""),
        result_event("events/ids/c", "one", "PASS", "", ""),
        result_event("events/ids/c", "two", "SKIPPED", "not applicable", ""),
        result_event("events/ids/d", "one", "SKIPPED", "not applicable", ""),
        result_event("events/ids/d", "two", "FAIL", "no id", "ids.present"),
    ];
    let text = lines.join("\n") + "\n";
    let m: Value =
        serde_json::from_str(&stdout_of(&merge_report(dir.path(), "p", &text, "json"))).unwrap();
    assert_eq!(cell(&m, "events/ids/a", 0)["verdict"], "NON-STRICT");
    assert_eq!(cell(&m, "events/ids/b", 0)["verdict"], "SKIPPED");
    assert_eq!(cell(&m, "events/ids/c", 0)["verdict"], "PASS");
    assert_eq!(cell(&m, "events/ids/d", 0)["verdict"], "FAIL");
    let cells = &m["targets"][0]["cells"];
    assert_eq!(
        [
            &cells["non_strict"],
            &cells["skipped"],
            &cells["pass"],
            &cells["fail"]
        ],
        [1, 1, 1, 1]
    );
    assert_eq!(m["targets"][0]["results"]["skipped"], 5);

    let md = stdout_of(&merge_report(dir.path(), "p", &text, "md"));
    let row = |name: &str| {
        md.lines()
            .find(|l| l.starts_with(&format!("| `{name}` |")))
            .unwrap_or_else(|| panic!("no row {name} in {md}"))
            .to_owned()
    };
    // `k/n`: plans not passing of those run (skipped ones count in neither).
    assert_eq!(row("a"), "| `a` | ~ NON-STRICT 1/2 [1] |");
    assert_eq!(row("b"), "| `b` | ⊘ SKIPPED |");
    assert_eq!(row("c"), "| `c` | ✔ PASS |");
    assert_eq!(row("d"), "| `d` | ✘ FAIL 1/1 [2] |");
    // The note has the finding, not the scenario it did not apply to.
    assert!(
        md.contains("1. **p** · `events/ids/a`: NON-STRICT (two): id reused (`ids.fresh`, §1)\n"),
        "{md}"
    );
    assert!(!md.contains("not applicable"), "{md}");
}

/// `cat a.json b.json > both.json` must not silently keep only b.
#[test]
fn a_second_report_in_one_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let first = fs::read_to_string(reports().join("reference.json")).unwrap();
    let second = fs::read_to_string(reports().join("cat.json")).unwrap();
    let out = merge_report(dir.path(), "both", &format!("{first}{second}"), "json");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let line = first.lines().count() + 1;
    assert!(
        stderr.contains(&format!(
            "both.json:{line}: a second report starts at line {line}: give each report as its own file"
        )),
        "{stderr}"
    );
}

/// The unescaped `|`s of a GFM table row: its cell boundaries. (A `\|` is
/// content; this report's ids hold no other backslash.)
fn boundaries(row: &str) -> usize {
    let mut n = 0;
    let mut escaped = false;
    for c in row.chars() {
        match c {
            '\\' => escaped = !escaped,
            '|' if !escaped => n += 1,
            _ => escaped = false,
        }
        if c != '\\' {
            escaped = false;
        }
    }
    n
}

/// Ids, plans and rules come from reports: a backtick or a `|` in one must
/// not end a code span or a table cell early.
#[test]
fn markdown_escapes_ids_plans_and_rules_from_reports() {
    let dir = tempfile::tempdir().unwrap();
    let start = r#"{"type":"start","data":{"target":"x|y","role":"server","dialect":"jsonrpc2","strict":false}}"#;
    let lines = [
        start.to_owned(),
        result_event("odd/a`b|c", "p|1", "FAIL", "m|n *x* &amp;", "r``|q"),
        result_event("odd/`edge", "whole", "FAIL", "m", "r"),
        result_event("odd/back\\|slash", "whole", "NON-STRICT", "m", ""),
        result_event("odd/", "whole", "PASS", "", ""),
    ];
    let md = stdout_of(&merge_report(
        dir.path(),
        "a|b`c",
        &(lines.join("\n") + "\n"),
        "md",
    ));
    // Every row of a table has as many cells as its header.
    let mut header = None;
    for line in md.lines() {
        if !line.starts_with('|') {
            header = None;
            continue;
        }
        let n = boundaries(line);
        assert_eq!(*header.get_or_insert(n), n, "{line:?} in\n{md}");
    }
    for expected in [
        // A fence longer than the id's backtick runs; `|` escaped in tables.
        "| ``a`b\\|c`` | ✘ FAIL [1] |",
        "| `` `edge `` | ✘ FAIL [2] |",
        // A backslash before `|` is escaped as text, not put in a span.
        "| back\\\\\\|slash | ~ NON-STRICT [3] |",
        "|  | ✔ PASS |",
        "| a\\|b\\`c |",
        // Outside tables a span keeps `|` as it is.
        "1. **a\\|b\\`c** · ``odd/a`b|c``: FAIL (p\\|1): m\\|n \\*x\\* \\&amp; (```r``|q```, §1)\n",
        "2. **a\\|b\\`c** · ``odd/`edge``: FAIL (whole): m (`r`, §1)\n",
        "3. **a\\|b\\`c** · `odd/back\\|slash`: NON-STRICT (whole): m\n",
    ] {
        assert!(md.contains(expected), "{expected:?} not in\n{md}");
    }
}

/// Reports that are not what `rpcspec run` writes are errors naming their
/// line, never panics.
#[test]
fn malformed_reports_are_errors_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    let start = r#"{"type":"start","data":{"target":"x","role":"server","dialect":"jsonrpc2"}}"#;
    let checks = [
        ("{\"type\":\"start\"}\n", "m.json:1: bad start event"),
        (
            "{\"type\":\"start\",\"data\":{\"role\":7}}\n",
            "m.json:1: bad start event",
        ),
        ("{\"type\":7}\n", "m.json:1: not a report event"),
        ("[]\n", "m.json:1: not a report event"),
        (
            "{\"type\":\"result\",\"data\":{\"id\":\"a\",\"plan\":\"p\",\"verdict\":\"PASS\"}}\n",
            "m.json:1: a result before the start event",
        ),
        (
            &*format!(
                "{start}\n{{\"type\":\"result\",\"data\":{{\"id\":\"a\",\"verdict\":\"PASS\"}}}}\n"
            ),
            "m.json:2: bad result event: missing field `plan`",
        ),
        (
            &*format!(
                "{start}\n{{\"type\":\"result\",\"data\":{{\"id\":\"a\",\"plan\":\"p\",\"verdict\":\"FAIL\",\"received\":[{{\"line\":-1,\"bytes\":{{\"text\":\"x\"}}}}]}}}}\n"
            ),
            "m.json:2: bad result event",
        ),
        (
            &*format!("{start}\n{}\n", "[".repeat(10_000)),
            "m.json:2: not a report event",
        ),
    ];
    for (text, expected) in checks {
        let out = merge_report(dir.path(), "m", text, "html");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{text:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{text:?}: {stderr}");
        assert!(
            stderr.contains(expected),
            "{text:?}: {expected:?} not in {stderr:?}"
        );
    }
}

/// The HTML page in a real browser: the DOM it builds has as many FAIL
/// (and TIMEOUT) cells as the JSON model, and it renders at 1280 px and at
/// phone width. The screenshots are kept in
/// `target/tmp/matrix-screenshots/` to be looked at.
#[test]
fn html_renders_in_headless_chromium() {
    let Some(chromium) = support::chromium_for("the matrix page") else {
        return;
    };
    let model: Value = serde_json::from_str(&merged("json")).unwrap();
    let html = merged("html");
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("matrix-screenshots");
    fs::create_dir_all(&out_dir).unwrap();
    let page = out_dir.join("matrix.html");
    fs::write(&page, &html).unwrap();
    let url = format!("file://{}", page.display());
    let profile = tempfile::tempdir().unwrap();

    let dom = support::dump_dom(&chromium, profile.path(), &url);
    let cells = |verdict: &str| -> usize {
        model["rows"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|r| r["cells"].as_array().unwrap())
            .filter(|c| c["verdict"] == verdict)
            .count()
    };
    for verdict in ["FAIL", "TIMEOUT", "PASS"] {
        assert_eq!(
            dom.matches(&format!("data-verdict=\"{verdict}\"")).count(),
            cells(verdict),
            "{verdict} cells in the DOM"
        );
    }
    assert_eq!(cells("FAIL"), 2);
    // Every non-pass cell opens to its evidence.
    assert_eq!(
        dom.matches("<details>").count(),
        cells("FAIL") + cells("TIMEOUT")
    );

    for (name, size) in [("desktop", "1280,900"), ("phone", "390,844")] {
        let png = out_dir.join(format!("{name}.png"));
        let bytes = support::screenshot(&chromium, profile.path(), &url, &png, size);
        assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "{name}: not a PNG");
        // A blank page compresses to a few hundred bytes.
        assert!(bytes.len() > 10_000, "{name}: {} bytes", bytes.len());
    }
}

/// One run as HTML (`rpcspec run --format html --output FILE`): the
/// matrix's renderer over that run alone, self-contained (no scripts, no
/// links out), one cell per case, each that did not pass a `<details>`
/// opening to its evidence; in headless Chromium too, where it is
/// installed (CI installs it), with the DOM checked and a screenshot kept.
#[test]
fn one_run_renders_as_html() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("run.html");
    let out = Std::new(env!("CARGO_BIN_EXE_rpcspec"))
        .args(["run", "--format", "html", "--output"])
        .arg(&page)
        .args(support::CAT_TIMES_OUT)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let html = fs::read_to_string(&page).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"), "{html}");
    assert!(html.contains("<h1>Conformance report</h1>"), "{html}");
    assert!(
        html.contains("by <code>rpcspec run</code>: 13 cases against one target"),
        "{html}"
    );
    assert!(
        !html.contains("<script") && !html.contains("src=\"http"),
        "self-contained"
    );
    // 13 cases, every one a TIMEOUT against `cat`: each opens to evidence.
    assert_eq!(html.matches("data-verdict=\"TIMEOUT\"").count(), 13);
    assert_eq!(html.matches("<details>").count(), 13);
    assert!(
        html.contains("the case deadline (500ms"),
        "the evidence is in the page"
    );
    // Each case's transcript drawn: rpcspec's requests, and `cat`'s echo
    // of them, drawn as requests from the server that nobody answers.
    assert_eq!(html.matches("<details class=\"seq\">").count(), 13);
    assert!(html.contains("<summary>the transcript drawn: "), "{html}");
    assert!(html.contains("class=\"q s rq u\""), "{html}");
    let Some(chromium) = support::chromium_for("the single-run page") else {
        return;
    };
    let profile = tempfile::tempdir().unwrap();
    let url = format!("file://{}", page.display());
    let dom = support::dump_dom(&chromium, profile.path(), &url);
    assert_eq!(dom.matches("data-verdict=\"TIMEOUT\"").count(), 13);
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("matrix-screenshots");
    fs::create_dir_all(&out_dir).unwrap();
    let png = out_dir.join("one-run.png");
    let bytes = support::screenshot(&chromium, profile.path(), &url, &png, "1280,900");
    assert!(bytes.len() > 10_000, "a blank page");
}
