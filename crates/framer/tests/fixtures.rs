//! Every fixture in `tests/fixtures/`: its events snapshotted, and the same
//! events under every chunking and from the naive oracle.

mod support;

use std::{fs, path::PathBuf};

use rpcspec_framer::frame;
use support::{configs, frame_chunks, frame_split, mode_of, naive, render};

fn fixtures() -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut all: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, fs::read(&path).unwrap())
        })
        .collect();
    all.sort();
    assert!(all.len() >= 15, "fixtures missing from {}", dir.display());
    all
}

#[test]
fn snapshots() {
    for (name, bytes) in fixtures() {
        let mut text = String::new();
        for (config_name, config) in configs(mode_of(&name)) {
            text.push_str(&format!("== {config_name}\n"));
            text.push_str(&render(&frame(&config, &bytes)));
        }
        insta::assert_snapshot!(name, text);
    }
}

#[test]
fn every_single_split_gives_the_same_events() {
    for (name, bytes) in fixtures() {
        for (config_name, config) in configs(mode_of(&name)) {
            let whole = frame(&config, &bytes);
            for cut in 0..=bytes.len() {
                let split = frame_split(&config, &bytes, &[cut]);
                assert_eq!(split, whole, "{name} ({config_name}) split at {cut}");
            }
        }
    }
}

#[test]
fn every_pair_of_splits_gives_the_same_events() {
    for (name, bytes) in fixtures().into_iter().filter(|(_, b)| b.len() <= 128) {
        for (config_name, config) in configs(mode_of(&name)) {
            let whole = frame(&config, &bytes);
            for a in 0..=bytes.len() {
                for b in a..=bytes.len() {
                    let split = frame_split(&config, &bytes, &[a, b]);
                    assert_eq!(split, whole, "{name} ({config_name}) split at {a} and {b}");
                }
            }
        }
    }
}

#[test]
fn one_byte_chunks_give_the_same_events() {
    for (name, bytes) in fixtures() {
        for (config_name, config) in configs(mode_of(&name)) {
            let chunks: Vec<&[u8]> = bytes.chunks(1).collect();
            assert_eq!(
                frame_chunks(&config, &chunks),
                frame(&config, &bytes),
                "{name} ({config_name})"
            );
        }
    }
}

#[test]
fn the_naive_oracle_agrees() {
    for (name, bytes) in fixtures() {
        for (config_name, config) in configs(mode_of(&name)) {
            assert_eq!(
                frame(&config, &bytes),
                naive::frame(&config, &bytes),
                "{name} ({config_name})"
            );
        }
    }
}
