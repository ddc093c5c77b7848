//! The diagram from notes: runs folded, pairs linked and bracketed, pages
//! under their budget.

use std::io::Cursor;

use super::super::{Options, Out, check};
use super::*;

/// `stream` annotated in `dialect` and drawn.
fn drawn(stream: String, dialect: &str) -> Diagram {
    let (descriptor, _) = crate::dialects::find(dialect).expect("a dialect");
    let opts = Options {
        annotate: true,
        texts: true,
        ..Options::in_dialect(descriptor)
    };
    let mut d = Diagram::new("client", "server");
    let sink = |o: Out<'_>| {
        if let Out::Note(n) = o {
            d.push(n.clone(), None);
        }
        Ok(())
    };
    check(Cursor::new(stream.into_bytes()), &opts, sink).expect("reads from memory");
    d
}

fn html(d: &Diagram) -> String {
    let mut out = String::new();
    d.render(&mut out, PAGE_BOUND);
    out
}

/// The value of attribute `name` on each element that has it, quoted
/// or not.
fn attrs<'h>(html: &'h str, name: &str) -> Vec<&'h str> {
    let key = format!(" {name}=");
    html.split(&key)
        .skip(1)
        .map(|rest| match rest.strip_prefix('"') {
            Some(quoted) => &quoted[..quoted.find('"').expect("a closed attribute")],
            None => &rest[..rest.find([' ', '>']).expect("an ended attribute")],
        })
        .collect()
}

/// Each row: its id, its class, and the ids its links go to.
fn rows(html: &str) -> Vec<(&str, &str, Vec<&str>)> {
    html.split(" id=")
        .skip(1)
        .map(|row| {
            let end = row.find("</details>").or_else(|| row.find("</p>"));
            let row = &row[..end.expect("a closed row")];
            let id = &row[..row.find(' ').expect("a class after the id")];
            let class = attrs(row, "class")[0];
            let links = attrs(row, "href").iter().map(|h| &h[1..]).collect();
            (id, class, links)
        })
        .collect()
}

fn events(types: &[&str]) -> String {
    types
        .iter()
        .map(|t| format!("{{\"type\":\"{t}\"}}\n"))
        .collect()
}

#[test]
fn runs_of_like_events_fold_and_anything_else_breaks_them() {
    let mut types = vec!["start"];
    types.extend(["token"; 10]);
    types.extend(["tool", "tool"]);
    types.extend(["token"; 5]);
    types.push("done");
    let d = drawn(events(&types), "events");
    assert_eq!(d.notes(), 19);
    let page = html(&d);
    // start, 10 tokens, tool, tool, 5 tokens, done.
    assert_eq!(rows(&page).len(), 6, "{page}");
    assert!(
        page.contains("<b>token</b> × 10 <em>lines 2–11, folded</em>"),
        "{page}"
    );
    assert!(
        page.contains("<b>token</b> × 5 <em>lines 14–18, folded</em>"),
        "{page}"
    );
    // A run opens to its first record and its last.
    assert!(
        page.contains("<pre>{\"type\":\"token\"}\n…\n{\"type\":\"token\"}</pre>"),
        "{page}"
    );
    // Events with findings are drawn alone: tokens after `done`.
    let d = drawn(
        events(&[
            "start", "token", "token", "token", "done", "token", "token", "token",
        ]),
        "events",
    );
    let page = html(&d);
    let classes: Vec<&str> = rows(&page).iter().map(|r| r.1).collect();
    assert_eq!(
        classes,
        [
            "q s ev", "q s ev r", "q s en", "q s ev f", "q s ev f", "q s ev f"
        ],
        "{page}"
    );
}

#[test]
fn every_reply_links_to_its_request_and_a_bracket_joins_them() {
    let req = |id: u32| format!("--> {{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"m\"}}\n");
    let rep = |id: u32| format!("<-- {{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{id}}}\n");
    // Three in flight, answered last first; a fourth never.
    let stream = [req(1), req(2), req(3), req(4), rep(3), rep(2), rep(1)].concat();
    let page = html(&drawn(stream, "jsonrpc2"));
    let got = rows(&page);
    let links: Vec<(&str, Vec<&str>)> = got.iter().map(|r| (r.0, r.2.clone())).collect();
    assert_eq!(
        links,
        [
            ("m0", vec!["m6"]),
            ("m1", vec!["m5"]),
            ("m2", vec!["m4"]),
            ("m3", vec![]),
            ("m4", vec!["m2"]),
            ("m5", vec!["m1"]),
            ("m6", vec!["m0"]),
        ]
    );
    assert_eq!(got[3].1, "q c rq f u", "the unanswered one");
    assert!(page.contains("never answered"), "{page}");
    // Each in a track of its own: row `i` is on grid line `i + 2`.
    assert_eq!(
        attrs(&page, "style")[1..],
        ["grid-area:2/2/8", "grid-area:3/3/7", "grid-area:4/4/6"],
        "{page}"
    );
    // Ten open at once: eight tracks, two pairs joined by links only.
    let mut stream: String = (0..10).map(req).collect();
    stream.extend((0..10).map(rep));
    let page = html(&drawn(stream, "jsonrpc2"));
    assert_eq!(page.matches("<b class=p ").count(), TRACKS);
    assert_eq!(rows(&page).iter().filter(|r| !r.2.is_empty()).count(), 20);
    assert!(page.contains("2 pairs had no free bracket track"), "{page}");
}

#[test]
fn a_long_session_is_drawn_whole_under_the_page_budget() {
    let mcp = |n: usize| {
        let mut s = String::new();
        for id in 0..n / 2 {
            s.push_str(&format!("--> {{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"message\":\"hello, this is message {id}\"}}}}}}\n"));
            s.push_str(&format!("<-- {{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"Echo: hello, this is message {id}\"}}]}}}}\n"));
        }
        s
    };
    let d = drawn(mcp(10_000), "mcp");
    let page = d.page("t", "m", (&[], 0));
    assert!(page.len() < PAGE, "{} bytes", page.len());
    assert_eq!(rows(&page).len(), 10_000);
    assert!(!page.contains("more messages not drawn"));
    assert!(page.contains("Too many messages to show their JSON"));
    // Fewer: each opens to the head of its JSON, and says how much.
    let page = drawn(mcp(7_000), "mcp").page("t", "m", (&[], 0));
    assert!(page.len() < PAGE, "{} bytes", page.len());
    let json = "<pre>{\"jsonrpc\":\"2.0\",\"id\":";
    assert_eq!(page.matches(json).count(), 7_000);
    assert_eq!(page.matches("<summary class=h data-n=").count(), 7_000);
    assert!(page.contains("Each row opens to the first"));
    assert!(page.contains(" more bytes)</pre>"), "cut, and said");
    // Fewer still: each whole.
    let page = drawn(mcp(4_000), "mcp").page("t", "m", (&[], 0));
    assert_eq!(page.matches(json).count(), 4_000);
    assert!(!page.contains("more bytes)"), "whole");
    let page = drawn(mcp(100), "mcp").page("t", "m", (&[], 0));
    assert!(!page.contains("Each row opens to the first"));
    assert!(!page.contains("more bytes)"), "whole");
    // Past what a page holds, and fewer than the rows kept: cut at the
    // budget, and said.
    // Every request first, then every reply: the cut leaves the replies
    // of the requests drawn out.
    let long = |n: usize| {
        let id = |k: usize| format!("{k:08}-a-long-uuid-like-id-of-a-request-{k:08}");
        let mut s = String::new();
        for k in 0..n / 2 {
            let id = id(k);
            s.push_str(&format!(
                "--> {{\"jsonrpc\":\"2.0\",\"id\":\"{id}\",\"method\":\"tools/call\"}}\n"
            ));
        }
        for k in 0..n / 2 {
            let id = id(k);
            s.push_str(&format!(
                "<-- {{\"jsonrpc\":\"2.0\",\"id\":\"{id}\",\"result\":{{}}}}\n"
            ));
        }
        s
    };
    let page = drawn(long(12_000), "mcp").page("t", "m", (&[], 0));
    assert!(page.len() < PAGE, "{} bytes", page.len());
    let got = rows(&page);
    assert!(got.len() < 12_000, "{}", got.len());
    let said = format!("… {} more messages not drawn", 12_000 - got.len());
    assert!(page.contains(&said), "{said}");
    // No link to a row not drawn.
    let ids: std::collections::HashSet<&str> = got.iter().map(|r| r.0).collect();
    assert!(got.iter().flat_map(|r| r.2.iter()).all(|l| ids.contains(l)));
    // Past the rows kept: cut, and said.
    let d = drawn(mcp(40_000), "mcp");
    let page = d.page("t", "m", (&[], 0));
    assert!(page.len() < PAGE, "{} bytes", page.len());
    assert!(rows(&page).len() < 40_000);
    assert!(page.contains("more messages not drawn"), "said");
}

#[test]
fn a_cut_says_how_much_it_left_out_counting_earlier_cuts() {
    let text = "x".repeat(5000);
    let once = Text::new(&text, 4096);
    assert_eq!(
        once.cut(100).to_string(),
        format!("{}… (4900 more bytes)", "x".repeat(100))
    );
    assert_eq!(once.cut(4096), once);
    assert_eq!(Text::new("{\"a\":1}", 100).to_string(), "{\"a\":1}");
    // Whole characters: 1 byte is too few for `é`.
    assert_eq!(Text::new("ééé", 3).to_string(), "é… (4 more bytes)");
    assert_eq!(Text::new("ééé", 1).to_string(), "… (6 more bytes)");
}

#[test]
fn a_run_never_reaches_over_what_was_left_out() {
    let mut types = vec!["start"];
    for i in 0..MAX_ROWS - 3 {
        types.push(if i % 2 == 0 { "a" } else { "b" });
    }
    // The last two rows kept are tokens; then a record left out, and a
    // third token: not a run of three over the record between.
    types.extend(["token", "token", "tool", "token"]);
    let d = drawn(events(&types), "events");
    assert_eq!(d.notes(), types.len() as u64);
    let mut page = String::new();
    let bound = Bound {
        bytes: usize::MAX,
        ..PAGE_BOUND
    };
    d.render(&mut page, bound);
    let got = rows(&page);
    assert_eq!(got.len(), MAX_ROWS);
    assert_eq!(got[MAX_ROWS - 1].1, "q s ev", "a token alone");
    assert!(!page.contains("folded"), "no run");
    assert!(page.contains("… 2 more messages not drawn"), "said");
}
