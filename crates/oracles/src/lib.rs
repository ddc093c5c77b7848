//! The invariants rpcspec's fuzz targets check, one function per target.
//!
//! Each function takes the fuzzer's raw bytes, decodes whatever structure it
//! needs with [`arbitrary::Unstructured`], and panics when an invariant
//! breaks. The cargo-fuzz targets in `fuzz/` are one-line wrappers around
//! them, and `tests/corpus.rs` replays every file of `corpus/<target>/`
//! through the same function, so a stable-only machine runs every seed and
//! every regression on `cargo test`.

#![warn(missing_docs)]

use std::path::Path;

use arbitrary::{Result, Unstructured};
use rpcspec_framer::{BlankLines, Bom, Config, DEFAULT_MAX_LINE_LEN, Event, Framer, Mode};
use rpcspec_matcher::{Classified, Dialect, Direction, EventsConfig, Session, classify};
use serde_json::{Map, Number, Value, json};

mod headers;

pub use headers::{headers_chunks, headers_roundtrip};

#[path = "../../framer/tests/support/naive.rs"]
#[allow(dead_code)]
mod naive;

/// A target's check: panics when an invariant breaks.
pub type Check = fn(&[u8]);

/// Every target: its name (the fuzz target and the corpus folder) and its
/// check.
pub const TARGETS: &[(&str, Check)] = &[
    ("framer_chunks", framer_chunks),
    ("framer_oracle", framer_oracle),
    ("framer_roundtrip", framer_roundtrip),
    ("framer_syntax", framer_syntax),
    ("headers_chunks", headers_chunks),
    ("headers_roundtrip", headers_roundtrip),
    ("matcher_classify", matcher_classify),
    ("matcher_session", matcher_session),
    ("case_loader", case_loader),
];

/// An arbitrary framer configuration, with small limits likely.
fn config(u: &mut Unstructured<'_>) -> Result<Config> {
    let max_line_len = match u.int_in_range(0..=3)? {
        0 => DEFAULT_MAX_LINE_LEN,
        1 => u.int_in_range(0..=16)?,
        2 => u.int_in_range(0..=256)?,
        _ => u.int_in_range(0..=65_536)?,
    };
    Ok(Config::default()
        .with_mode(if u.arbitrary()? {
            Mode::JsonSeq
        } else {
            Mode::Lines
        })
        .with_max_line_len(max_line_len)
        .with_strip_cr(u.arbitrary()?)
        .with_blank_lines(if u.arbitrary()? {
            BlankLines::Report
        } else {
            BlankLines::Skip
        })
        .with_bom(if u.arbitrary()? {
            Bom::Report
        } else {
            Bom::Strip
        })
        .with_check_utf8(u.arbitrary()?))
}

/// An arbitrary chunking: 1 to 8 sizes of 1 to 64 bytes, used in turn.
fn chunk_sizes(u: &mut Unstructured<'_>) -> Result<Vec<usize>> {
    (0..u.int_in_range(1..=8).unwrap_or(1))
        .map(|_| u.int_in_range(1usize..=64))
        .collect()
}

/// `stream` cut into chunks of `sizes`, in turn, until it is used up.
fn cut<'s>(stream: &'s [u8], sizes: &'s [usize]) -> impl Iterator<Item = &'s [u8]> {
    let mut rest = stream;
    sizes.iter().cycle().map_while(move |&size| {
        if rest.is_empty() {
            return None;
        }
        let (chunk, tail) = rest.split_at(size.min(rest.len()));
        rest = tail;
        Some(chunk)
    })
}

/// Owned events of `stream` framed in one chunk.
fn frame_whole(config: &Config, stream: &[u8]) -> Vec<Event<'static>> {
    rpcspec_framer::frame(config, stream)
}

/// `framer_chunks`: arbitrary bytes, chunking and configuration. The events
/// equal those of the same bytes pushed in one chunk, and the framer's
/// buffer never exceeds `max_line_len` (so never `max_line_len` plus one
/// chunk either).
pub fn framer_chunks(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(config) = config(&mut u) else { return };
    let Ok(sizes) = chunk_sizes(&mut u) else {
        return;
    };
    let stream = u.take_rest();
    let mut framer = Framer::new(config.clone());
    let mut events = Vec::new();
    for chunk in cut(stream, &sizes) {
        framer.push(chunk, |e| events.push(e.into_owned()));
        assert!(
            framer.buffer_capacity() <= config.max_line_len(),
            "buffer {} over max_line_len {}",
            framer.buffer_capacity(),
            config.max_line_len()
        );
    }
    framer.finish(|e| events.push(e.into_owned()));
    assert_eq!(events, frame_whole(&config, stream), "chunks {sizes:?}");
}

/// `framer_oracle`: differential. The framer and the naive reference
/// (split the whole stream on the delimiter, then apply the policies) give
/// the same events for arbitrary bytes and configuration.
pub fn framer_oracle(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(config) = config(&mut u) else { return };
    let stream = u.take_rest();
    assert_eq!(frame_whole(&config, stream), naive::frame(&config, stream));
}

/// `framer_syntax`: differential. The framer's JSON syntax checker says a
/// text is one JSON value exactly when serde_json does (below serde_json's
/// depth limit), and fed in two pieces cut anywhere it fails at the same
/// offset, or passes, as in one piece; an error's offset lies within the text.
pub fn framer_syntax(data: &[u8]) {
    use rpcspec_framer::syntax::{self, Syntax};
    let Some((&cut, text)) = data.split_first() else {
        return;
    };
    let whole = syntax::check(text);
    if let Err(e) = &whole {
        assert!(
            e.offset() <= text.len() as u64,
            "offset {e:?} beyond {}",
            text.len()
        );
    }
    let at = usize::from(cut) * text.len() / 255;
    let mut s = Syntax::new();
    let pieces = s
        .feed(&text[..at])
        .and_then(|()| s.feed(&text[at..]))
        .and_then(|()| s.finish());
    let key = |r: &std::result::Result<(), syntax::SyntaxError>| {
        r.as_ref()
            .map_err(|e| (e.offset(), e.is_incomplete()))
            .copied()
    };
    assert_eq!(key(&pieces), key(&whole), "cut at {at}");
    // serde_json reads UTF-8 only and stops at 128 levels.
    let opens = text.iter().filter(|&&b| b == b'[' || b == b'{').count();
    if std::str::from_utf8(text).is_ok() && opens < 100 {
        let serde = serde_json::from_slice::<serde::de::IgnoredAny>(text).is_ok();
        assert_eq!(
            whole.is_ok(),
            serde,
            "{:?}: {whole:?}",
            String::from_utf8_lossy(text)
        );
    }
}

/// An arbitrary JSON value: strings with newlines, separators and control
/// characters; numbers that survive a text round trip exactly.
fn json_value(u: &mut Unstructured<'_>, depth: u32) -> Result<Value> {
    let pick = if depth == 0 {
        u.int_in_range(0..=4)?
    } else {
        u.int_in_range(0..=6)?
    };
    Ok(match pick {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => Value::from(u.arbitrary::<i64>()?),
        3 => Number::from_f64(f64::from(u.arbitrary::<i32>()?) / 1024.0)
            .map_or(Value::Null, Value::Number),
        4 => Value::String(u.arbitrary()?),
        5 => Value::Array(
            (0..u.int_in_range(0..=4)?)
                .map(|_| json_value(u, depth - 1))
                .collect::<Result<_>>()?,
        ),
        _ => {
            let mut map = Map::new();
            for _ in 0..u.int_in_range(0..=4)? {
                map.insert(u.arbitrary()?, json_value(u, depth - 1)?);
            }
            Value::Object(map)
        }
    })
}

/// `framer_roundtrip`: arbitrary JSON values written with the framer's
/// encoder and framed back (under arbitrary chunking) give the same values,
/// one line each.
pub fn framer_roundtrip(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(values) = (0..u.int_in_range(0..=8).unwrap_or(0))
        .map(|_| json_value(&mut u, 4))
        .collect::<Result<Vec<Value>>>()
    else {
        return;
    };
    let chunk = u.int_in_range(1usize..=32).unwrap_or(7);
    let mut stream = Vec::new();
    for v in &values {
        rpcspec_framer::encode(v, &mut stream).expect("a Value always serialises");
    }
    let mut framer = Framer::new(Config::default());
    let mut back = Vec::new();
    let mut sink = |e: Event<'_>| match e {
        Event::Line(line) => back.push(line.parse_value().expect("the encoder writes JSON")),
        Event::Problem(p) => panic!("the encoder's output has a framing problem: {p}"),
    };
    for piece in stream.chunks(chunk) {
        framer.push(piece, &mut sink);
    }
    framer.finish(&mut sink);
    assert_eq!(back, values);
}

fn dialects() -> [Dialect; 5] {
    [
        Dialect::Jsonrpc2,
        Dialect::Lenient,
        Dialect::Mcp,
        Dialect::Claude,
        Dialect::Events(EventsConfig::default()),
    ]
}

/// An arbitrary message of the shapes the rules are about: every member
/// may be missing, of the right type, or of a wrong one.
fn message(u: &mut Unstructured<'_>, depth: u32) -> Result<Value> {
    if depth > 0 && u.ratio(1, 8)? {
        return (0..u.int_in_range(0..=4)?)
            .map(|_| message(u, depth - 1))
            .collect::<Result<Vec<_>>>()
            .map(Value::Array);
    }
    let mut m = Map::new();
    let mut member = |u: &mut Unstructured<'_>, name: &str, choices: &[Value]| -> Result<()> {
        let i = u.choose_index(choices.len() + 2)?;
        if let Some(v) = choices.get(i) {
            m.insert(name.to_owned(), v.clone());
        } else if i == choices.len() {
            m.insert(name.to_owned(), json_value(u, 2)?);
        }
        Ok(())
    };
    member(u, "jsonrpc", &[json!("2.0"), json!("1.0"), json!(2.0)])?;
    member(u, "method", &[json!("subtract"), json!("rpc.x"), json!(1)])?;
    member(
        u,
        "params",
        &[json!([1, 2]), json!({"a": 1}), json!(null), json!("x")],
    )?;
    member(
        u,
        "id",
        &[
            json!(1),
            json!("1"),
            json!(null),
            json!(1.5),
            json!([]),
            json!(u64::MAX),
            json!(-0.0),
        ],
    )?;
    member(u, "result", &[json!(null), json!(19)])?;
    member(
        u,
        "error",
        &[
            json!({"code": -32601, "message": "x"}),
            json!({"code": -32600.0, "message": "x"}),
            json!({"code": "-32600", "message": 1}),
            json!("oops"),
        ],
    )?;
    member(
        u,
        "type",
        &[
            json!("control_request"),
            json!("control_response"),
            json!("done"),
        ],
    )?;
    member(u, "request_id", &[json!("r1"), json!(7)])?;
    member(u, "request", &[json!({"subtype": "initialize"}), json!(3)])?;
    member(
        u,
        "response",
        &[
            json!({"subtype": "success", "request_id": "r1"}),
            json!({"subtype": "error", "request_id": "r1", "error": "no"}),
        ],
    )?;
    Ok(Value::Object(m))
}

/// Serialises with object members in reverse order and spaces around every
/// token: the same value, other text.
fn respelled(v: &Value) -> String {
    match v {
        Value::Array(a) => format!(
            "[ {} ]",
            a.iter().map(respelled).collect::<Vec<_>>().join(" , ")
        ),
        Value::Object(m) => format!(
            "{{ {} }}",
            m.iter()
                .rev()
                .map(|(k, v)| format!("{} : {}", Value::String(k.clone()), respelled(v)))
                .collect::<Vec<_>>()
                .join(" , ")
        ),
        other => other.to_string(),
    }
}

/// `matcher_classify`: arbitrary bytes and arbitrary structured messages.
/// Classification never panics and is deterministic, and a structured
/// message classifies the same whatever its whitespace and member order.
pub fn matcher_classify(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let structured = u.arbitrary::<bool>().unwrap_or(false);
    if !structured {
        let text = String::from_utf8_lossy(u.take_rest());
        for d in dialects() {
            assert_eq!(classify(&text, &d), classify(&text, &d), "deterministic");
        }
        return;
    }
    let Ok(value) = message(&mut u, 2) else {
        return;
    };
    let compact = value.to_string();
    let pretty = serde_json::to_string_pretty(&value).expect("a Value serialises");
    let spaced = respelled(&value);
    for d in dialects() {
        let expected: Classified = classify(&compact, &d);
        assert_eq!(
            classify(&pretty, &d),
            expected,
            "pretty-printed, {}: {compact}",
            d.name()
        );
        assert_eq!(
            classify(&spaced, &d),
            expected,
            "respelled, {}: {compact}",
            d.name()
        );
    }
}

/// One message the client sends in a session scenario.
struct Sent {
    text: String,
    /// The replies owed: (id text, is part of a batch).
    owed: Vec<String>,
    batch: bool,
}

/// The requests and notifications of a session scenario, each request
/// with a fresh id, a number or a string.
struct Requests {
    /// `"jsonrpc":"2.0",`, or nothing for the lenient dialect.
    version: &'static str,
    next_id: u32,
}

impl Requests {
    fn fresh_id(&mut self, u: &mut Unstructured<'_>) -> Result<String> {
        self.next_id += 1;
        let next_id = self.next_id;
        Ok(if u.arbitrary()? {
            format!("\"r{next_id}\"")
        } else {
            next_id.to_string()
        })
    }

    /// One member: its text, and the id it is owed a reply by (none for
    /// a notification).
    fn request(&mut self, u: &mut Unstructured<'_>) -> Result<(String, Option<String>)> {
        let version = self.version;
        if u.ratio(1, 4)? {
            return Ok((
                format!("{{{version}\"method\":\"note\",\"params\":[1]}}"),
                None,
            ));
        }
        let id = self.fresh_id(u)?;
        Ok((
            format!("{{{version}\"method\":\"sum\",\"params\":[1],\"id\":{id}}}"),
            Some(id),
        ))
    }

    /// What the client sends: 1 to 12 messages, a quarter of them
    /// batches; `None` when the data runs out.
    fn sent(&mut self, u: &mut Unstructured<'_>) -> Option<Vec<Sent>> {
        let mut sent: Vec<Sent> = Vec::new();
        let n = u.int_in_range(1..=12).ok()?;
        for _ in 0..n {
            let batch = u.ratio(1, 4).ok()?;
            if batch {
                let members = (0..u.int_in_range(1..=4).unwrap_or(1))
                    .map(|_| self.request(u))
                    .collect::<Result<Vec<_>>>()
                    .ok()?;
                sent.push(Sent {
                    text: format!(
                        "[{}]",
                        members
                            .iter()
                            .map(|(t, _)| t.as_str())
                            .collect::<Vec<_>>()
                            .join(",")
                    ),
                    owed: members.into_iter().filter_map(|(_, id)| id).collect(),
                    batch: true,
                });
            } else {
                let (text, id) = self.request(u).ok()?;
                sent.push(Sent {
                    text,
                    owed: id.into_iter().collect(),
                    batch: false,
                });
            }
        }
        Some(sent)
    }
}

/// The conversation: after each client message, the server answers some
/// of what it owes, in an arbitrary order, and the rest at the end. With
/// it, the positions of the single replies in it.
fn interleave(
    u: &mut Unstructured<'_>,
    sent: &[Sent],
    version: &str,
) -> (Vec<(Direction, String)>, Vec<usize>) {
    let reply = |id: &str| format!("{{{version}\"result\":1,\"id\":{id}}}");
    let mut script: Vec<(Direction, String)> = Vec::new();
    let mut owed: Vec<String> = Vec::new();
    let mut singles: Vec<usize> = Vec::new();
    for s in sent {
        script.push((Direction::ClientToServer, s.text.clone()));
        if s.batch {
            if !s.owed.is_empty() {
                let mut members: Vec<String> = s.owed.iter().map(|id| reply(id)).collect();
                shuffle(u, &mut members);
                owed.push(format!("[{}]", members.join(",")));
            }
        } else {
            owed.extend(s.owed.iter().map(|id| reply(id)));
        }
        while !owed.is_empty() && u.arbitrary::<bool>().unwrap_or(true) {
            let i = u.choose_index(owed.len()).unwrap_or(0);
            let r = owed.swap_remove(i);
            if !r.starts_with('[') {
                singles.push(script.len());
            }
            script.push((Direction::ServerToClient, r));
        }
    }
    shuffle(u, &mut owed);
    for r in owed {
        if !r.starts_with('[') {
            singles.push(script.len());
        }
        script.push((Direction::ServerToClient, r));
    }
    (script, singles)
}

/// Drops the first single reply, sends it twice, or leaves the script
/// whole; the findings that must follow.
fn mutate(
    u: &mut Unstructured<'_>,
    script: &mut Vec<(Direction, String)>,
    singles: &[usize],
) -> Vec<&'static str> {
    let mutation = u.int_in_range(0..=2).unwrap_or(0);
    let mut expected: Vec<&str> = Vec::new();
    if let Some(&at) = singles.first() {
        match mutation {
            1 => {
                script.remove(at);
                expected.push("session.unanswered");
            }
            2 => {
                let again = script[at].clone();
                script.push(again);
                expected.push("session.duplicate-reply");
            }
            _ => {}
        }
    }
    expected
}

/// `matcher_session`: arbitrary conversations in which the server answers
/// every request exactly once (single replies in any order, batch replies
/// as arrays in any member order) give no finding at all and leave nothing
/// outstanding; dropping one single reply gives exactly one
/// `session.unanswered`, and sending one twice exactly one
/// `session.duplicate-reply`.
pub fn matcher_session(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let lenient = u.arbitrary::<bool>().unwrap_or(false);
    let dialect = if lenient {
        Dialect::Lenient
    } else {
        Dialect::Jsonrpc2
    };
    let version = if lenient { "" } else { "\"jsonrpc\":\"2.0\"," };
    let mut requests = Requests {
        version,
        next_id: 0,
    };
    let Some(sent) = requests.sent(&mut u) else {
        return;
    };
    let (mut script, singles) = interleave(&mut u, &sent, version);
    let expected = mutate(&mut u, &mut script, &singles);
    let mut session = Session::new(dialect);
    let mut found: Vec<&'static str> = Vec::new();
    for (from, text) in &script {
        found.extend(session.feed(*from, text).findings.iter().map(|f| f.rule.id));
    }
    if expected.is_empty() {
        assert_eq!(
            session.outstanding(Direction::ClientToServer),
            0,
            "{script:?}"
        );
    }
    found.extend(session.close().iter().map(|f| f.rule.id));
    assert_eq!(found, expected, "{script:?}");
}

fn shuffle<T>(u: &mut Unstructured<'_>, items: &mut [T]) {
    for i in (1..items.len()).rev() {
        let j = u.int_in_range(0..=i).unwrap_or(i);
        items.swap(i, j);
    }
}

/// `case_loader`: arbitrary bytes as a case file. Loading gives cases or an
/// error that names a line and column inside the file; it never panics.
pub fn case_loader(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    match rpcspec::cases::load_str(Path::new("fuzz/input.toml"), &text) {
        Ok(cases) => {
            for case in cases {
                assert!(case.meta.id.starts_with("fuzz/input/"), "{}", case.meta.id);
                assert!(!case.steps.is_empty());
            }
        }
        Err(e) => {
            let lines = text.lines().count() + 1;
            assert!(
                (1..=lines).contains(&e.location.line) && e.location.column >= 1,
                "error outside the file: {e}"
            );
            assert!(!e.message.is_empty());
        }
    }
}
