//! `FramerCodec` (feature `tokio-util`) gives, for every way the bytes
//! arrive in its buffer, the events the sync framer gives for the whole
//! stream, and keeps no more than `max_line_len` of a line.

#![cfg(feature = "tokio-util")]

mod support;

use bytes::BytesMut;
use proptest::prelude::*;
use rpcspec_framer::{Config, Event, FramerCodec, ProblemKind, frame};
use support::strategies::{config, stream_and_cuts};
use tokio_util::codec::Decoder;

/// Feeds `input` to a codec the way `FramedRead` does: each piece (split
/// before each offset in `cuts`) appended to the buffer, `decode` called
/// until it has nothing, then `decode_eof` until it has nothing. Checks
/// after every call that the buffer was consumed and the framer's carry is
/// within the limit.
fn decode_split(config: &Config, input: &[u8], cuts: &[usize]) -> Vec<Event<'static>> {
    let mut codec = FramerCodec::new(config.clone());
    let mut buf = BytesMut::new();
    let mut items = Vec::new();
    let mut prev = 0;
    let check = |codec: &FramerCodec, buf: &BytesMut| {
        assert!(buf.is_empty(), "{} bytes left in the buffer", buf.len());
        assert!(codec.framer().buffer_capacity() <= config.max_line_len());
    };
    for &cut in cuts.iter().chain([&input.len()]) {
        buf.extend_from_slice(&input[prev..cut]);
        prev = cut;
        while let Some(item) = codec.decode(&mut buf).unwrap() {
            items.push(item);
        }
        check(&codec, &buf);
    }
    while let Some(item) = codec.decode_eof(&mut buf).unwrap() {
        items.push(item);
    }
    check(&codec, &buf);
    items
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(support::cases()))]

    #[test]
    fn chunking_never_changes_the_items((bytes, cuts) in stream_and_cuts(), config in config()) {
        prop_assert_eq!(decode_split(&config, &bytes, &cuts), frame(&config, &bytes));
    }
}

#[test]
fn every_split_of_a_small_stream_gives_the_sync_events() {
    let input = b"\xEF\xBB\xBF{\"a\":1}\r\n\n\xFF\n{\"b\":\"\xC3\xA9\"}\n{\"cut";
    let config = Config::default();
    for cut in 0..=input.len() {
        assert_eq!(decode_split(&config, input, &[cut]), frame(&config, input));
    }
}

/// A line of 1 MiB against a limit of 64 bytes, arriving in 4 KiB reads:
/// the buffer never holds more than one read, the framer nothing of the
/// line, and the next line is delivered.
#[test]
fn an_overlong_line_is_not_kept() {
    const READ: usize = 4096;
    let mut input = vec![b'x'; 1 << 20];
    input.extend_from_slice(b"\n{}\n");
    let mut codec = FramerCodec::new(Config::default().with_max_line_len(64));
    let mut buf = BytesMut::with_capacity(READ);
    let mut items = Vec::new();
    for read in input.chunks(READ) {
        buf.extend_from_slice(read);
        while let Some(item) = codec.decode(&mut buf).unwrap() {
            items.push(item);
        }
        assert!(buf.is_empty());
        assert!(buf.capacity() <= READ, "buffer grew to {}", buf.capacity());
        assert!(codec.framer().buffer_capacity() <= 64);
    }
    assert_eq!(codec.decode_eof(&mut buf).unwrap(), None);
    let [Event::Problem(overlong), Event::Line(next)] = &items[..] else {
        panic!("{items:?}");
    };
    assert_eq!(
        overlong.kind,
        ProblemKind::Overlong {
            len: 1 << 20,
            limit: 64,
            terminated: true,
        }
    );
    assert_eq!((next.number, next.offset), (2, (1 << 20) + 1));
    assert_eq!(next.as_str(), Ok("{}"));
}

/// After `decode_eof` has given the end of one stream, the codec frames a
/// new one from line 1 and offset 0, as `Framer::finish` leaves the framer.
#[test]
fn decode_eof_ends_the_stream_and_resets() {
    let mut codec = FramerCodec::default();
    let mut buf = BytesMut::from(&b"1\n2"[..]);
    let mut items = Vec::new();
    while let Some(item) = codec.decode_eof(&mut buf).unwrap() {
        items.push(item);
    }
    assert_eq!(items, frame(&Config::default(), b"1\n2"));
    buf.extend_from_slice(b"3\n");
    let Some(Event::Line(line)) = codec.decode(&mut buf).unwrap() else {
        panic!("no line");
    };
    assert_eq!((line.number, line.offset), (1, 0));
}
