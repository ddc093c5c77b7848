//! The Content-Length framer (`HeaderFramer`): each problem of the base
//! protocol on a stream of its own, and two properties: any chunking gives
//! the events of the whole stream, and well-formed messages, in every
//! spelling the base protocol allows and behind stray bytes, come out as
//! the generator that wrote them knows they must.

mod support;

use proptest::prelude::*;
use rpcspec_framer::headers::{encode_message, frame_headers};
use rpcspec_framer::{Ending, Event, HeaderConfig, HeaderFramer, Line, Problem, ProblemKind};
use support::render;

fn frame(stream: &[u8]) -> String {
    render(&frame_headers(HeaderConfig::default(), stream))
}

/// Frames `stream` cut before each offset of `cuts`.
fn frame_split(config: &HeaderConfig, stream: &[u8], cuts: &[usize]) -> Vec<Event<'static>> {
    let mut framer = HeaderFramer::new(config.clone());
    let mut events = Vec::new();
    let mut prev = 0;
    for &cut in cuts.iter().chain([&stream.len()]) {
        framer.push(&stream[prev..cut], |e| events.push(e.into_owned()));
        prev = cut;
    }
    framer.finish(|e| events.push(e.into_owned()));
    events
}

#[test]
fn a_message_is_its_body_numbered_and_located() {
    let mut stream = encode_message(br#"{"id":1}"#);
    stream.extend(encode_message("{\"é\":\"ü€\"}".as_bytes()));
    assert_eq!(
        frame(&stream),
        "line  1 @21  Length \"{\\\"id\\\":1}\"\n\
         line  2 @51  Length \"{\\\"\\xc3\\xa9\\\":\\\"\\xc3\\xbc\\xe2\\x82\\xac\\\"}\"\n"
    );
}

#[test]
fn header_names_in_any_case_unknown_headers_and_utf8_spelled_utf8_are_allowed() {
    let stream = b"content-LENGTH:2\r\nX-Trace: 7\r\n\
                   Content-Type: application/vscode-jsonrpc; charset=utf8\r\n\r\n{}";
    let events = frame_headers(HeaderConfig::default(), stream);
    assert!(
        matches!(&events[..], [Event::Line(l)] if &*l.bytes == b"{}"),
        "{events:?}"
    );
}

#[test]
fn each_problem_of_the_base_protocol_is_reported_where_it_is() {
    let cases: &[(&[u8], &str)] = &[
        (
            b"X: 1\r\n\r\n{}",
            "PROB  1 @0   MissingLength \"X: 1\\r\\n\"\nPROB  2 @8   Between { len: 2 } \"{}\"\n",
        ),
        (
            b"Content-Length: -2\r\n\r\n",
            "PROB  1 @0   BadLength \"Content-Length: -2\\r\\n\"\n",
        ),
        (
            b"Content-Length: 99999999999999999999\r\n\r\n",
            "PROB  1 @0   BadLength \"Content-Length: 99999999999999999999\\r\\n\"\n",
        ),
        (
            b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n",
            "PROB  1 @0   DuplicateLength { agree: false } \"Content-Length: 2\\r\\nContent-Length: 3\\r\\n\"\n",
        ),
        (
            b"Content-Length: 2\r\ncontent-length: 2\r\n\r\n{}",
            "PROB  1 @0   DuplicateLength { agree: true } \"Content-Length: 2\\r\\ncontent-length: 2\\r\\n\"\n\
             line  1 @40  Length \"{}\"\n",
        ),
        (
            b"Content-Length: 2\r\nnot a header\r\n\r\n{}",
            "PROB  1 @0   HeaderLine \"Content-Length: 2\\r\\nnot a header\\r\\n\"\nline  1 @35  Length \"{}\"\n",
        ),
        (
            b"Content-Length: 2\n\n{}",
            "PROB  1 @0   HeaderLf \"Content-Length: 2\\n\"\nline  1 @19  Length \"{}\"\n",
        ),
        (
            b"Content-Length: 2\r\nContent-Type: text/plain; charset=latin1\r\n\r\n{}",
            "PROB  1 @0   Charset \"Content-Length: 2\\r\\nContent-Type: text/plain; charset=latin1\\r\\n\"\n\
             line  1 @63  Length \"{}\"\n",
        ),
        (
            b"Content-Length: 5\r\n\r\n{}",
            "PROB  1 @21  Truncated \"{}\"\n",
        ),
        (
            b"Content-Length: 5\r\n",
            "PROB  1 @0   Truncated \"Content-Length: 5\\r\\n\"\n",
        ),
        (
            b"Content-Length: 2\r\n\r\n\xff}",
            "PROB  1 @21  InvalidUtf8 { valid_up_to: 0 } \"\\xff}\"\n",
        ),
        (
            b"log line\nContent-Length: 2\r\n\r\n{}\r\n",
            "PROB  1 @0   Between { len: 9 } \"log line\\n\"\n\
             line  1 @30  Length \"{}\"\n\
             PROB  2 @32  Between { len: 2 } \"\\r\\n\"\n",
        ),
        (
            b"{}Content-Length: 2\r\n\r\n{}",
            "PROB  1 @0   Between { len: 2 } \"{}\"\nline  1 @23  Length \"{}\"\n",
        ),
        (
            b"readyContent-Length: 2\r\n\r\n{}",
            "PROB  1 @0   Between { len: 5 } \"ready\"\nline  1 @26  Length \"{}\"\n",
        ),
        (
            b"error: bad content-length: x\nContent-Length: 2\r\n\r\n{}",
            "PROB  1 @0   Between { len: 29 } \"error: bad content-length: x\\n\"\nline  1 @50  Length \"{}\"\n",
        ),
        (
            b"X-Content-Length: 5\r\nContent-Length: 2\r\n\r\n{}",
            "line  1 @42  Length \"{}\"\n",
        ),
        (b"Content-Length: 0\r\n\r\n", "line  1 @21  Length \"\"\n"),
        (
            b"Content-Length: 2 \r\n\r\n{}",
            "line  1 @22  Length \"{}\"\n",
        ),
        (
            b"Content-Length: 2\r\r\n\r\n{}",
            "PROB  1 @0   BadLength \"Content-Length: 2\\r\\r\\n\"\nPROB  2 @22  Between { len: 2 } \"{}\"\n",
        ),
    ];
    for (stream, want) in cases {
        assert_eq!(frame(stream), *want, "{}", stream.escape_ascii());
    }
}

#[test]
fn bounds_hold_on_a_huge_body_and_an_endless_header() {
    let config = HeaderConfig::default().with_max_body(4).with_max_header(32);
    let events = frame_headers(config.clone(), b"Content-Length: 10\r\n\r\n0123456789{}");
    assert_eq!(
        render(&events),
        "PROB  1 @22  Overlong { len: 10, limit: 4, terminated: true } \"\"\n\
         PROB  2 @32  Between { len: 2 } \"{}\"\n"
    );
    let mut endless = b"Content-Length: 2\r\nX: ".to_vec();
    endless.extend(std::iter::repeat_n(b'a', 1000));
    endless.extend(b"\r\nContent-Length: 2\r\n\r\n{}");
    let events = frame_headers(config, &endless);
    assert_eq!(events.len(), 2, "{}", render(&events));
    assert!(matches!(
        &events[0],
        Event::Problem(Problem { kind: ProblemKind::HeaderOverlong { limit: 32 }, offset: 0, bytes, .. })
            if bytes.len() <= 32
    ));
    assert!(matches!(&events[1], Event::Line(l) if &*l.bytes == b"{}"));
    // A first header line over the bound is an over-long header too.
    let mut long = b"Content-Length: 2".to_vec();
    long.extend([b' '; 40]);
    long.extend(b"\r\n\r\n{}");
    let events = frame_headers(HeaderConfig::default().with_max_header(32), &long);
    assert!(
        matches!(
            &events[0],
            Event::Problem(Problem { kind: ProblemKind::HeaderOverlong { limit: 32 }, offset: 0, bytes, .. })
                if bytes.len() <= 32
        ),
        "{}",
        render(&events)
    );
    // No bound at all is a bound too.
    let config = HeaderConfig::default().with_max_header(usize::MAX);
    let events = frame_split(&config, &encode_message(b"[]"), &[3, 9]);
    assert!(matches!(&events[..], [Event::Line(l)] if &*l.bytes == b"[]"));
}

/// One message as a peer may write it: the header's spelling, extra
/// headers, stray bytes before it.
#[derive(Debug, Clone)]
struct Written {
    stray: Vec<u8>,
    name: String,
    extra: Option<String>,
    content_type: Option<&'static str>,
    body: String,
}

fn written() -> impl Strategy<Value = Written> {
    let stray = prop_oneof![
        3 => Just(Vec::new()),
        1 => Just(b"\r\n".to_vec()),
        1 => "[a-z {}:\"]{1,12}".prop_map(|s| format!("{s}\n").into_bytes()),
    ];
    let name = prop_oneof![
        Just("Content-Length".to_owned()),
        Just("content-length".to_owned()),
        Just("CONTENT-LENGTH".to_owned()),
    ];
    let extra = prop::option::of("X-[A-Za-z]{1,6}: [ -~]{0,10}");
    let content_type = prop::option::of(prop::sample::select(vec![
        "application/vscode-jsonrpc; charset=utf-8",
        "application/vscode-jsonrpc; charset=UTF8",
        "application/vscode-jsonrpc",
    ]));
    let body = "[a-z{}\":,é€😀 \n\r]{0,40}";
    (stray, name, extra, content_type, body).prop_map(|(stray, name, extra, content_type, body)| {
        Written {
            stray,
            name,
            extra,
            content_type,
            body,
        }
    })
}

/// The stream, and what must come out of it.
fn write(messages: &[Written]) -> (Vec<u8>, Vec<Event<'static>>) {
    let (mut stream, mut want) = (Vec::new(), Vec::new());
    for (i, m) in messages.iter().enumerate() {
        let number = i as u64 + 1;
        if !m.stray.is_empty() {
            let kind = ProblemKind::Between {
                len: m.stray.len() as u64,
            };
            want.push(Event::Problem(Problem {
                kind,
                number,
                offset: stream.len() as u64,
                bytes: m.stray.clone().into(),
            }));
            stream.extend(&m.stray);
        }
        let mut header = format!("{}: {}\r\n", m.name, m.body.len());
        if let Some(extra) = &m.extra {
            header = format!("{extra}\r\n{header}");
        }
        if let Some(t) = m.content_type {
            header.push_str(&format!("Content-Type: {t}\r\n"));
        }
        stream.extend(header.as_bytes());
        stream.extend(b"\r\n");
        want.push(Event::Line(Line {
            bytes: m.body.clone().into_bytes().into(),
            number,
            offset: stream.len() as u64,
            ending: Ending::Length,
        }));
        stream.extend(m.body.as_bytes());
    }
    (stream, want)
}

fn cuts(len: usize) -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0..=len, 0..16).prop_map(|mut cuts| {
        cuts.sort_unstable();
        cuts
    })
}

/// Bytes that matter to this framing: line ends, colons, digits, the
/// letters of its header, pieces of multi-byte characters.
fn byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        4 => Just(b'\n'),
        4 => Just(b'\r'),
        3 => Just(b':'),
        3 => prop::sample::select(b"0123".to_vec()),
        3 => prop::sample::select(b"Content-Length ".to_vec()),
        2 => prop::sample::select(vec![b'{', b'}', 0xC3, 0xA9, 0xFF]),
        1 => any::<u8>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(support::cases()))]

    #[test]
    fn well_formed_messages_come_out_as_written(
        (messages, cuts) in prop::collection::vec(written(), 0..6)
            .prop_flat_map(|m| { let len = write(&m).0.len(); (Just(m), cuts(len)) })
    ) {
        let (stream, want) = write(&messages);
        prop_assert_eq!(frame_split(&HeaderConfig::default(), &stream, &cuts), want);
    }

    #[test]
    fn chunking_never_changes_the_events(
        (stream, cuts) in prop::collection::vec(byte(), 0..200)
            .prop_flat_map(|s| { let len = s.len(); (Just(s), cuts(len)) }),
        max_body in 0usize..8,
        max_header in 4usize..40,
    ) {
        let config = HeaderConfig::default().with_max_body(max_body).with_max_header(max_header);
        let mut prefixed = b"Content-Length: 3\r\n\r\n".to_vec();
        prefixed.extend(&stream);
        for stream in [&stream, &prefixed] {
            let whole = frame_headers(config.clone(), stream);
            prop_assert_eq!(frame_split(&config, stream, &cuts), whole.clone());
            // Bounded: no event keeps more than the larger of the bounds.
            for event in &whole {
                let kept = match event {
                    Event::Line(l) => l.bytes.len(),
                    Event::Problem(p) => p.bytes.len(),
                };
                prop_assert!(kept <= max_body.max(max_header), "{:?}", event);
            }
        }
    }
}
