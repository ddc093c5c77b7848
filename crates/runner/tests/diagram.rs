//! `rpcspec check --format html`: a captured session drawn as a sequence
//! diagram, and checked in a real headless browser where it is installed
//! (CI installs it): every bracket joins its request's arrow to its
//! reply's, with rows opened between them too; every reply links to its
//! request, drawn the other way; a 10 000-message session is drawn whole
//! under 2 MB. The screenshots are kept in `target/tmp/diagram-screenshots/`.

use std::{fs, path::Path, process::Command};

mod support;

const MCP: &str = "tests/fixtures/check/mcp-everything.transcript";

/// `rpcspec check ARGS`: its exit code and the page it printed.
fn page(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rpcspec"))
        .arg("check")
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.is_empty(), "{stderr}");
    (out.status.code(), String::from_utf8(out.stdout).unwrap())
}

/// What the browser measures, written into the DOM by a script added to
/// a copy of the page (the page itself has none): each bracket whose ends
/// are more than 2 px from its rows' arrows, each reply whose link does
/// not go to a request drawn the other way, the rows, and the time it took
/// to parse and lay the page out.
const MEASURE: &str = r#"<script>
document.body.offsetHeight;
const ms = performance.now();
const bad = [];
const rows = [...document.querySelectorAll('.sq > .q')];
const face = (row) => row.matches('.h') ? row : row.querySelector('.h');
const arrow = (row) => face(row).getBoundingClientRect().top + 21;
for (const b of document.querySelectorAll('.sq > b.p')) {
  const from = rows[Number(b.style.gridRowStart) - 2], to = rows[Number(b.style.gridRowEnd) - 2];
  const r = b.getBoundingClientRect();
  if (!from || !to || Math.abs(r.top + 1 - arrow(from)) > 2 || Math.abs(r.bottom - 1 - arrow(to)) > 2) {
    bad.push('bracket ' + b.getAttribute('style') + ': ' + (r.top + 1) + '..' + (r.bottom - 1));
  }
}
let replies = 0;
for (const row of rows.filter((r) => r.matches('.rp, .er'))) {
  for (const a of face(row).querySelectorAll('a')) {
    replies += 1;
    const q = document.getElementById(a.getAttribute('href').slice(1));
    const other = q && q.classList.contains('c') !== row.classList.contains('c');
    if (!q || !q.classList.contains('rq') || !other) bad.push('reply ' + row.id + ' links ' + a.getAttribute('href'));
  }
}
document.body.dataset.bad = bad.length ? bad.join('; ') : 'none';
document.body.dataset.rows = rows.length;
document.body.dataset.replies = replies;
document.body.dataset.ms = Math.round(ms);
</script>"#;

/// The page with [`MEASURE`] added (and the rows in `open` opened), in
/// headless Chromium: `data-bad`, `data-rows`, `data-replies` and `data-ms`
/// of its body.
fn measured(chromium: &Path, html: &str, name: &str, open: &[usize]) -> [String; 4] {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("diagram-screenshots");
    fs::create_dir_all(&dir).unwrap();
    let mut html = html.replace("</body>", &format!("{MEASURE}</body>"));
    for i in open {
        let row = format!("<details id=m{i} ");
        assert!(html.contains(&row), "row {i} opens");
        html = html.replacen(&row, &format!("<details open id=m{i} "), 1);
    }
    let file = dir.join(format!("{name}.html"));
    fs::write(&file, html).unwrap();
    let profile = tempfile::tempdir().unwrap();
    let dom = support::dump_dom(
        chromium,
        profile.path(),
        &format!("file://{}", file.display()),
    );
    let body = &dom[dom.find("<body").expect("a body")..];
    let body = &body[..body.find('>').unwrap()];
    ["bad", "rows", "replies", "ms"].map(|k| {
        let key = format!("data-{k}=\"");
        let at = body
            .find(&key)
            .unwrap_or_else(|| panic!("no {key} in {body}"))
            + key.len();
        body[at..at + body[at..].find('"').unwrap()].to_string()
    })
}

#[test]
fn a_real_mcp_session_is_drawn_as_a_sequence_diagram() {
    let (code, html) = page(&["--rpc", "mcp", "--format", "html", MCP]);
    assert_eq!(code, Some(0));
    assert!(html.starts_with("<!DOCTYPE html>"), "{html}");
    assert!(
        !html.contains("<script") && !html.contains("src="),
        "self-contained"
    );
    assert!(
        html.contains("0 findings in 22 lines, 20 messages"),
        "the summary"
    );
    // A row per message, but the last three progress notifications in one;
    // a bracket per pair: five answered, one cancelled.
    assert_eq!(html.matches("<details id=m").count(), 18, "each opens");
    assert!(
        html.contains(
            "notification <b>notifications/progress</b> × 3 <em>lines 20–22, folded</em>"
        ),
        "{html}"
    );
    assert_eq!(html.matches("<b class=p ").count(), 5);
    assert_eq!(html.matches("<b class=\"p cn\" ").count(), 1);
    // The server's roots/list (line 8) answered by the client (line 9).
    assert!(html.contains("<details id=m5 class=\"q s rq\"><summary class=h data-n=\"8\">request <b>id 0 roots/list</b> <em>answered by <a href=#m6>9</a></em>"), "{html}");
    assert!(html.contains("cancelled at <a href=#m14>17</a>"), "{html}");

    let Some(chromium) = support::chromium_for("the sequence diagram") else {
        return;
    };
    // Closed, and with a request, a reply between and a cancel opened.
    for (name, open) in [("mcp", &[][..]), ("mcp-open", &[0, 5, 12, 14][..])] {
        let [bad, rows, replies, _] = measured(&chromium, &html, name, open);
        assert_eq!(bad, "none", "{name}");
        assert_eq!((rows.as_str(), replies.as_str()), ("18", "5"), "{name}");
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("diagram-screenshots");
    let profile = tempfile::tempdir().unwrap();
    let url = format!("file://{}", dir.join("mcp-open.html").display());
    for (name, size) in [("desktop", "1280,900"), ("phone", "390,844")] {
        let png = dir.join(format!("mcp-{name}.png"));
        let bytes = support::screenshot(&chromium, profile.path(), &url, &png, size);
        assert!(bytes.len() > 10_000, "{name}: a blank page");
    }
}

#[test]
fn ten_thousand_messages_are_drawn_whole_under_two_megabytes() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("10k.log");
    let mut text = String::new();
    for id in 0..5_000 {
        text.push_str(&format!("--> {{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"message\":\"message {id}\"}}}}}}\n"));
        text.push_str(&format!("<-- {{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"Echo: message {id}\"}}]}}}}\n"));
    }
    fs::write(&log, text).unwrap();
    let (code, html) = page(&["--rpc", "mcp", "--format", "html", log.to_str().unwrap()]);
    assert_eq!(code, Some(0));
    assert!(html.len() < 2_000_000, "{} bytes", html.len());
    assert_eq!(html.matches("<p id=m").count(), 10_000);
    let Some(chromium) = support::chromium_for("the 10 000-message diagram") else {
        return;
    };
    let [bad, rows, replies, ms] = measured(&chromium, &html, "10k", &[]);
    assert_eq!(
        (bad.as_str(), rows.as_str(), replies.as_str()),
        ("none", "10000", "5000")
    );
    // The time is recorded in BENCHMARKS.md, not asserted: a test is no
    // timer on a shared machine.
    eprintln!("10 000 messages: {} bytes, laid out in {ms} ms", html.len());
}

#[test]
fn framing_only_draws_nothing_and_says_so() {
    let out = Command::new(env!("CARGO_BIN_EXE_rpcspec"))
        .args(["check", "--format", "html", "--framing-only", MCP])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("cannot be given with --framing-only"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}
