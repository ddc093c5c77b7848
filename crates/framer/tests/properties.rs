//! Random streams, random chunkings, random configurations: the framer's
//! events never depend on the chunking and always equal the naive oracle's.

mod support;

use proptest::prelude::*;
use rpcspec_framer::frame;
use support::strategies::{byte, config, stream_and_cuts};
use support::{frame_split, naive};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(support::cases()))]

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
