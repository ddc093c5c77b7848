//! The Content-Length framer's invariants (`HeaderFramer`).

use arbitrary::{Result, Unstructured};
use rpcspec_framer::headers::{encode_message, frame_headers};
use rpcspec_framer::{Event, HeaderConfig, HeaderFramer, ProblemKind};

use crate::{chunk_sizes, cut};

/// An arbitrary configuration, with small bounds likely.
fn config(u: &mut Unstructured<'_>) -> Result<HeaderConfig> {
    let config = HeaderConfig::default().with_check_utf8(u.arbitrary()?);
    Ok(match u.int_in_range(0..=2)? {
        0 => config,
        _ => config
            .with_max_body(u.int_in_range(0..=64)?)
            .with_max_header(u.int_in_range(0..=128)?),
    })
}

/// `headers_chunks`: arbitrary bytes, chunking and bounds. The events equal
/// those of the same bytes in one chunk, and no event keeps more than the
/// larger bound.
pub fn headers_chunks(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(config) = config(&mut u) else { return };
    let Ok(sizes) = chunk_sizes(&mut u) else {
        return;
    };
    let stream = u.take_rest();
    let mut framer = HeaderFramer::new(config.clone());
    let mut events = Vec::new();
    for chunk in cut(stream, &sizes) {
        framer.push(chunk, |e| events.push(e.into_owned()));
    }
    framer.finish(|e| events.push(e.into_owned()));
    let whole = frame_headers(config.clone(), stream);
    assert_eq!(events, whole, "chunks {sizes:?}");
    let bound = config.max_body().max(config.max_header());
    for event in &whole {
        let kept = match event {
            Event::Line(l) => l.bytes.len(),
            Event::Problem(p) => p.bytes.len(),
        };
        assert!(kept <= bound, "{event:?} keeps {kept} bytes, over {bound}");
    }
}

/// `headers_roundtrip`: arbitrary UTF-8 bodies, each written as
/// `Content-Length: N\r\n\r\n` and the body, some behind stray lines: the
/// bodies come back, in order, each exactly, and the stray bytes are
/// reported as between messages.
pub fn headers_roundtrip(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(bodies) = u.arbitrary::<Vec<(String, bool)>>() else {
        return;
    };
    let mut stream = Vec::new();
    for (body, stray) in &bodies {
        if *stray {
            stream.extend(b"a log line\n");
        }
        stream.extend(encode_message(body.as_bytes()));
    }
    let events = frame_headers(HeaderConfig::default(), &stream);
    let mut got = Vec::new();
    let mut strays = 0;
    for event in &events {
        match event {
            Event::Line(l) => got.push(l.as_str().expect("a body is UTF-8").to_owned()),
            Event::Problem(p) if p.kind == (ProblemKind::Between { len: 11 }) => strays += 1,
            Event::Problem(p) => panic!("{p}"),
        }
    }
    let want: Vec<&str> = bodies.iter().map(|(b, _)| b.as_str()).collect();
    assert_eq!(got, want);
    assert_eq!(strays, bodies.iter().filter(|(_, s)| *s).count());
}
