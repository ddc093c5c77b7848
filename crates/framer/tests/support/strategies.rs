//! The proptest strategies of the framer's property tests: streams of the
//! bytes that matter to framing, their chunkings, and every configuration.

use proptest::prelude::*;
use rpcspec_framer::{BlankLines, Bom, Config, Mode};

/// Bytes that matter to framing, weighted towards delimiters and the
/// pieces of multi-byte characters and byte order marks.
pub fn byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        4 => Just(b'\n'),
        2 => Just(b'\r'),
        2 => Just(0x1E),
        2 => Just(b' '),
        4 => Just(b'{'),
        4 => Just(b'a'),
        2 => prop::sample::select(vec![0xEF, 0xBB, 0xBF, 0xC3, 0xA9, 0xE2, 0x80, 0xA8, 0xFF]),
        1 => any::<u8>(),
    ]
}

pub fn config() -> impl Strategy<Value = Config> {
    (
        prop::bool::ANY,
        0usize..24,
        prop::bool::ANY,
        prop::bool::ANY,
        prop::bool::ANY,
        prop::bool::ANY,
    )
        .prop_map(|(seq, max, strip_cr, report_blank, strip_bom, utf8)| {
            Config::default()
                .with_mode(if seq { Mode::JsonSeq } else { Mode::Lines })
                .with_max_line_len(if max == 0 { 1 << 20 } else { max })
                .with_strip_cr(strip_cr)
                .with_blank_lines(if report_blank {
                    BlankLines::Report
                } else {
                    BlankLines::Skip
                })
                .with_bom(if strip_bom { Bom::Strip } else { Bom::Report })
                .with_check_utf8(utf8)
        })
}

pub fn stream_and_cuts() -> impl Strategy<Value = (Vec<u8>, Vec<usize>)> {
    prop::collection::vec(byte(), 0..200).prop_flat_map(|bytes| {
        let len = bytes.len();
        (Just(bytes), prop::collection::vec(0..=len, 0..12)).prop_map(|(bytes, mut cuts)| {
            cuts.sort_unstable();
            (bytes, cuts)
        })
    })
}
