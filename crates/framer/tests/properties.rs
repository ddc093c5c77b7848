//! Random streams, random chunkings, random configurations: the framer's
//! events never depend on the chunking and always equal the naive oracle's.

mod support;

use proptest::prelude::*;
use rpcspec_framer::{BlankLines, Bom, Config, Mode, frame};
use support::{frame_split, naive};

/// Bytes that matter to framing, weighted towards delimiters and the
/// pieces of multi-byte characters and byte order marks.
fn byte() -> impl Strategy<Value = u8> {
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

fn config() -> impl Strategy<Value = Config> {
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
                .mode(if seq { Mode::JsonSeq } else { Mode::Lines })
                .max_line_len(if max == 0 { 1 << 20 } else { max })
                .strip_cr(strip_cr)
                .blank_lines(if report_blank {
                    BlankLines::Report
                } else {
                    BlankLines::Skip
                })
                .bom(if strip_bom { Bom::Strip } else { Bom::Report })
                .check_utf8(utf8)
        })
}

fn stream_and_cuts() -> impl Strategy<Value = (Vec<u8>, Vec<usize>)> {
    prop::collection::vec(byte(), 0..200).prop_flat_map(|bytes| {
        let len = bytes.len();
        (Just(bytes), prop::collection::vec(0..=len, 0..12)).prop_map(|(bytes, mut cuts)| {
            cuts.sort_unstable();
            (bytes, cuts)
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn chunking_never_changes_the_events((bytes, cuts) in stream_and_cuts(), config in config()) {
        prop_assert_eq!(frame_split(&config, &bytes, &cuts), frame(&config, &bytes));
    }

    #[test]
    fn the_framer_agrees_with_the_naive_oracle(
        bytes in prop::collection::vec(byte(), 0..200),
        config in config(),
    ) {
        prop_assert_eq!(frame(&config, &bytes), naive::frame(&config, &bytes));
    }
}
