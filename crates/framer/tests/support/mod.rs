//! Helpers shared by the framer's tests: one way to call the framer, one way
//! to render events, the configurations every fixture is framed under.

#![allow(dead_code)]

pub mod naive;
pub mod strategies;

use rpcspec_framer::{BlankLines, Bom, Config, Event, Framer, Mode};

/// How many cases each property runs: 2000, or `RPCSPEC_PROPTEST_CASES`
/// (`cargo xtask package` runs the tests from the package with fewer: it
/// checks that they run there, the workspace's run checks them in depth).
pub fn cases() -> u32 {
    std::env::var("RPCSPEC_PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2000)
}

/// Frames `input` split before each offset in `cuts` (ascending).
pub fn frame_split(config: &Config, input: &[u8], cuts: &[usize]) -> Vec<Event<'static>> {
    let mut chunks = Vec::new();
    let mut prev = 0;
    for &cut in cuts {
        chunks.push(&input[prev..cut]);
        prev = cut;
    }
    chunks.push(&input[prev..]);
    frame_chunks(config, &chunks)
}

/// Frames the chunks in order, checking the memory bound after each push.
pub fn frame_chunks(config: &Config, chunks: &[&[u8]]) -> Vec<Event<'static>> {
    let mut framer = Framer::new(config.clone());
    let mut events = Vec::new();
    for chunk in chunks {
        framer.push(chunk, |e| events.push(e.into_owned()));
        assert!(
            framer.buffer_capacity() <= config.max_line_len(),
            "carry buffer capacity {} over max_line_len {}",
            framer.buffer_capacity(),
            config.max_line_len()
        );
    }
    framer.finish(|e| events.push(e.into_owned()));
    events
}

/// One event per line, bytes escaped: the form snapshots are kept in.
pub fn render(events: &[Event<'_>]) -> String {
    let mut out = String::new();
    for event in events {
        let line = match event {
            Event::Line(l) => format!(
                "line {:>2} @{:<3} {:?} \"{}\"",
                l.number,
                l.offset,
                l.ending,
                l.bytes.escape_ascii()
            ),
            Event::Problem(p) => format!(
                "PROB {:>2} @{:<3} {:?} \"{}\"",
                p.number,
                p.offset,
                p.kind,
                p.bytes.escape_ascii()
            ),
        };
        out.push_str(&line);
        out.push('\n');
    }
    if out.is_empty() {
        out.push_str("(no events)\n");
    }
    out
}

/// The configurations every fixture is framed under, by name.
pub fn configs(mode: Mode) -> Vec<(&'static str, Config)> {
    let base = Config::default().with_mode(mode);
    vec![
        ("default", base.clone()),
        (
            "strict",
            base.clone()
                .with_blank_lines(BlankLines::Report)
                .with_strip_cr(false)
                .with_max_line_len(24),
        ),
        (
            "lenient",
            base.clone().with_bom(Bom::Strip).with_check_utf8(false),
        ),
        ("limit-8", base.clone().with_max_line_len(8)),
    ]
}

/// The mode a fixture is framed in, from its extension.
pub fn mode_of(name: &str) -> Mode {
    if name.ends_with(".json-seq") {
        Mode::JsonSeq
    } else {
        Mode::Lines
    }
}
