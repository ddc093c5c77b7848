//! One test per policy and guarantee, each written so that it fails when the
//! policy is broken. `check` frames the input in one chunk and in 1-byte
//! chunks and compares the rendering with the expectation.

mod support;

use rpcspec_framer::{
    BlankLines, Bom, Config, Event, Framer, Mode, ProblemKind, frame, read::Events,
};
use support::{frame_chunks, render};

#[track_caller]
fn check(config: Config, input: &[u8], expect: &str) {
    let whole = frame(&config, input);
    let bytewise: Vec<&[u8]> = input.chunks(1).collect();
    assert_eq!(
        frame_chunks(&config, &bytewise),
        whole,
        "1-byte chunks differ"
    );
    similar_asserts(render(&whole).trim_end(), expect.trim());
}

#[track_caller]
fn similar_asserts(actual: &str, expect: &str) {
    assert!(actual == expect, "framed:\n{actual}\nexpected:\n{expect}\n");
}

fn lines(config: &Config, input: &[u8]) -> Vec<String> {
    frame(config, input)
        .into_iter()
        .filter_map(|e| match e {
            Event::Line(l) => Some(String::from_utf8(l.bytes.into_owned()).unwrap()),
            Event::Problem(_) => None,
        })
        .collect()
}

#[test]
fn crlf_strips_one_cr_before_lf() {
    check(
        Config::default(),
        b"{}\r\n{}\r\r\n",
        r#"
line  1 @0   CrLf "{}"
line  2 @4   CrLf "{}\r"
"#,
    );
}

#[test]
fn crlf_kept_when_strip_cr_is_off() {
    check(
        Config::default().with_strip_cr(false),
        b"{}\r\n",
        r#"line  1 @0   CrLf "{}\r""#,
    );
}

#[test]
fn cr_and_lf_in_different_chunks() {
    let config = Config::default();
    let events = frame_chunks(&config, &[b"{}\r", b"\n[]\r", b"\n"]);
    assert_eq!(events, frame(&config, b"{}\r\n[]\r\n"));
    assert_eq!(lines(&config, b"{}\r\n[]\r\n"), ["{}", "[]"]);
}

#[test]
fn lone_cr_is_not_a_line_break() {
    assert_eq!(lines(&Config::default(), b"1\r2\n"), ["1\r2"]);
}

#[test]
fn unicode_line_separators_are_not_line_breaks() {
    // U+2028, U+2029 and NEL are legal unescaped inside JSON strings.
    let input = "[\"a\u{2028}b\u{2029}c\u{85}d\u{b}e\u{c}\"]\n";
    assert_eq!(
        lines(&Config::default(), input.as_bytes()),
        [input.trim_end()]
    );
}

#[test]
fn blank_lines_skipped_by_default_but_counted() {
    check(Config::default(), b"\n \t\n1\n", r#"line  3 @4   Lf "1""#);
}

#[test]
fn blank_lines_reported_on_request() {
    check(
        Config::default().with_blank_lines(BlankLines::Report),
        b"\n \t\r\n1\n",
        r#"
PROB  1 @0   Blank ""
PROB  2 @1   Blank " \t"
line  3 @5   Lf "1"
"#,
    );
}

#[test]
fn bom_reported_by_default_and_the_line_still_delivered() {
    check(
        Config::default(),
        b"\xEF\xBB\xBF{}\n",
        r#"
PROB  1 @0   Bom ""
line  1 @3   Lf "{}"
"#,
    );
}

#[test]
fn bom_stripped_on_request() {
    check(
        Config::default().with_bom(Bom::Strip),
        b"\xEF\xBB\xBF{}\n",
        r#"line  1 @3   Lf "{}""#,
    );
}

#[test]
fn bom_after_the_start_is_content() {
    check(
        Config::default().with_check_utf8(false),
        b"{}\n\xEF\xBB\xBF{}\n",
        r#"
line  1 @0   Lf "{}"
line  2 @3   Lf "\xef\xbb\xbf{}"
"#,
    );
}

#[test]
fn invalid_utf8_fails_that_line_only() {
    check(
        Config::default(),
        b"1\n\"\xC3\x28\"\n2\n",
        r#"
line  1 @0   Lf "1"
PROB  2 @2   InvalidUtf8 { valid_up_to: 1 } "\"\xc3(\""
line  3 @7   Lf "2"
"#,
    );
}

#[test]
fn invalid_utf8_passed_through_when_unchecked() {
    assert_eq!(
        frame(&Config::default().with_check_utf8(false), b"\xFF\n").len(),
        1,
        "one line, no problem"
    );
    assert!(matches!(
        &frame(&Config::default().with_check_utf8(false), b"\xFF\n")[0],
        Event::Line(l) if l.bytes.as_ref() == b"\xFF"
    ));
}

#[test]
fn a_character_split_across_chunks_comes_out_whole() {
    let config = Config::default();
    let input = "\"😀é漢\"\n".as_bytes();
    for cut in 0..input.len() {
        let events = support::frame_split(&config, input, &[cut]);
        assert!(
            matches!(&events[..], [Event::Line(l)] if l.as_str() == Ok("\"😀é漢\"")),
            "split at {cut}: {events:?}"
        );
    }
}

#[test]
fn max_line_len_allows_exactly_the_limit() {
    check(
        Config::default().with_max_line_len(4),
        b"1234\n12345\n1\n",
        r#"
line  1 @0   Lf "1234"
PROB  2 @5   Overlong { len: 5, limit: 4, terminated: true } ""
line  3 @11  Lf "1"
"#,
    );
}

#[test]
fn max_line_len_counts_the_cr() {
    check(
        Config::default().with_max_line_len(4),
        b"1234\r\n",
        r#"PROB  1 @0   Overlong { len: 5, limit: 4, terminated: true } """#,
    );
}

#[test]
fn overlong_inside_one_chunk_is_still_reported() {
    let mut framer = Framer::new(Config::default().with_max_line_len(2));
    let mut kinds = Vec::new();
    framer.push(b"12345\n", |e| {
        if let Event::Problem(p) = e {
            kinds.push(p.kind);
        }
    });
    assert_eq!(
        kinds,
        [ProblemKind::Overlong {
            len: 5,
            limit: 2,
            terminated: true
        }]
    );
}

/// 256 MiB without a newline, framed in 64 KiB chunks with a 1 MiB limit:
/// the carry buffer stays within the limit the whole time, the line is
/// reported once with its full length, and the next line is delivered.
#[test]
fn memory_stays_bounded_on_a_line_that_never_ends() {
    const LIMIT: usize = 1 << 20;
    const CHUNK: usize = 64 << 10;
    const TOTAL: usize = 256 << 20;
    let mut framer = Framer::new(Config::default().with_max_line_len(LIMIT));
    let chunk = vec![b'x'; CHUNK];
    let mut events = Vec::new();
    let mut peak = 0;
    for _ in 0..TOTAL / CHUNK {
        framer.push(&chunk, |e| events.push(e.into_owned()));
        peak = peak.max(framer.buffer_capacity());
        assert!(framer.buffer_capacity() <= LIMIT + CHUNK);
    }
    assert!(events.is_empty(), "nothing is complete yet: {events:?}");
    framer.push(b"\n{}\n", |e| events.push(e.into_owned()));
    framer.finish(|e| events.push(e.into_owned()));
    assert!(peak <= LIMIT, "peak carry capacity {peak}");
    similar_asserts(
        render(&events).trim_end(),
        r#"
PROB  1 @0   Overlong { len: 268435456, limit: 1048576, terminated: true } ""
line  2 @268435457 Lf "{}"
"#
        .trim(),
    );
}

#[test]
fn unterminated_tail_is_reported_with_its_bytes() {
    check(
        Config::default(),
        b"{}\n{\"a\":",
        r#"
line  1 @0   Lf "{}"
PROB  2 @3   Truncated "{\"a\":"
"#,
    );
}

#[test]
fn clean_streams_report_nothing_extra() {
    for input in [&b""[..], b"\n", b"{}\n", b"  \n"] {
        let events = frame(&Config::default(), input);
        assert!(
            events.iter().all(|e| matches!(e, Event::Line(_))),
            "{:?}: {events:?}",
            input.escape_ascii().to_string()
        );
    }
}

#[test]
fn one_bad_line_costs_one_line() {
    let config = Config::default().with_max_line_len(8);
    let input = b"1\n\xFF\n2\n123456789\n3\n\xEF\xBB\xBF\n4\n";
    assert_eq!(lines(&config, input), ["1", "2", "3", "\u{feff}", "4"]);
}

#[test]
fn json_seq_records() {
    check(
        Config::default().with_mode(Mode::JsonSeq),
        b"\x1E1\n\x1E\x1E[\n2\n]\n\x1E{\"cut\"\x1E3\n\x1E\"tail",
        r#"
line  1 @1   Lf "1"
line  2 @5   Lf "[\n2\n]"
PROB  3 @12  RecordCut "{\"cut\""
line  4 @19  Lf "3"
PROB  5 @22  Truncated "\"tail"
"#,
    );
}

#[test]
fn json_seq_bytes_before_the_first_separator() {
    check(
        Config::default().with_mode(Mode::JsonSeq),
        b"junk\x1E1\n",
        r#"
PROB  1 @0   OutsideRecord "junk"
line  2 @5   Lf "1"
"#,
    );
}

#[test]
fn finish_resets_for_a_new_stream() {
    let mut framer = Framer::new(Config::default());
    let mut events = Vec::new();
    framer.push(b"1\n2", |e| events.push(e.into_owned()));
    framer.finish(|e| events.push(e.into_owned()));
    framer.push(b"3\n", |e| events.push(e.into_owned()));
    framer.finish(|e| events.push(e.into_owned()));
    similar_asserts(
        render(&events).trim_end(),
        r#"
line  1 @0   Lf "1"
PROB  2 @2   Truncated "2"
line  1 @0   Lf "3"
"#
        .trim(),
    );
}

#[test]
fn problems_display_with_position_and_escaped_bytes() {
    let events = frame(&Config::default(), b"{}\n\"\xFF\"\n");
    let Event::Problem(p) = &events[1] else {
        panic!("{events:?}")
    };
    assert_eq!(
        p.to_string(),
        r#"line 2 (byte 3): invalid utf-8 after 1 valid bytes: "\"\xff\"""#
    );
    let long = [b'a'; 100];
    let Event::Problem(p) = &frame(&Config::default(), &long)[0] else {
        panic!()
    };
    assert!(p.to_string().ends_with("\" (and 36 more bytes)"), "{p}");
}

/// A reader that hands out one byte per read, then fails.
struct Trickle<'a>(&'a [u8]);

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self.0.split_first() {
            Some((&b, rest)) => {
                buf[0] = b;
                self.0 = rest;
                Ok(1)
            }
            None => Err(std::io::Error::other("pipe broke")),
        }
    }
}

#[test]
fn read_adapter_yields_owned_events_then_the_error() {
    let results: Vec<_> = Events::new(Trickle(b"1\n\xFF\n2"), Config::default()).collect();
    assert_eq!(results.len(), 3, "{results:?}");
    assert!(matches!(&results[0], Ok(Event::Line(l)) if l.bytes.as_ref() == b"1"));
    assert!(matches!(&results[1], Ok(Event::Problem(p)) if p.number == 2));
    assert_eq!(results[2].as_ref().unwrap_err().to_string(), "pipe broke");
}

#[test]
fn read_adapter_finishes_at_eof() {
    let events: Vec<_> = Events::new(&b"1\n2"[..], Config::default())
        .map(Result::unwrap)
        .collect();
    assert_eq!(events, frame(&Config::default(), b"1\n2"));
}
