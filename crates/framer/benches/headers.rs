//! Content-Length framing (`HeaderFramer`), judged in the same group against
//! the NDJSON framer on the same messages as lines (the bar: no dearer per
//! byte) and a naive `BufRead` reader of the base protocol (header lines by
//! `read_line`, the body by `read_exact`), which is what most language
//! server clients do.
//!
//! Run with `cargo bench -p rpcspec-framer --bench headers`.
//! `RPCSPEC_BENCH_MIB` sets the workload size (default 64 MiB).

use std::hint::black_box;
use std::io::{BufRead, Read};
use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput};
use rpcspec_framer::headers::encode_message;
use rpcspec_framer::{Config, Event, Framer, HeaderConfig, HeaderFramer};

#[path = "support/workloads.rs"]
mod workloads;

const CHUNK: usize = 64 << 10;

/// The same messages as Content-Length frames.
fn as_frames(ndjson: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(ndjson.len() + ndjson.len() / 8);
    for line in workloads::lines(ndjson) {
        out.extend(encode_message(line));
    }
    out
}

fn headers(buf: &[u8], chunk: usize) -> usize {
    let mut framer = HeaderFramer::new(HeaderConfig::default());
    let mut n = 0;
    let mut sink = |e: Event<'_>| {
        if let Event::Line(l) = e {
            n += l.bytes.len();
        }
    };
    for c in buf.chunks(chunk) {
        framer.push(c, &mut sink);
    }
    framer.finish(&mut sink);
    n
}

fn ndjson(buf: &[u8], chunk: usize) -> usize {
    let mut framer = Framer::new(Config::default());
    let mut n = 0;
    let mut sink = |e: Event<'_>| {
        if let Event::Line(l) = e {
            n += l.bytes.len();
        }
    };
    for c in buf.chunks(chunk) {
        framer.push(c, &mut sink);
    }
    framer.finish(&mut sink);
    n
}

/// The naive reader: header lines until the empty one, `Content-Length`
/// parsed, the body read whole and checked as UTF-8.
fn bufread(buf: &[u8]) -> usize {
    let mut reader = std::io::BufReader::with_capacity(CHUNK, buf);
    let (mut n, mut line, mut body) = (0, String::new(), Vec::new());
    loop {
        let mut len = None;
        loop {
            line.clear();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return n;
            }
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                len = value.trim().parse::<usize>().ok();
            }
        }
        body.resize(len.unwrap_or(0), 0);
        if reader.read_exact(&mut body).is_err() || std::str::from_utf8(&body).is_err() {
            return n;
        }
        n += body.len();
    }
}

fn workload(c: &mut Criterion, name: &str, lines: &[u8]) {
    let frames = as_frames(lines);
    let count = workloads::lines(lines).len();
    let events = rpcspec_framer::headers::frame_headers(HeaderConfig::default(), &frames);
    assert_eq!(events.len(), count, "{name}");
    assert!(events.iter().all(|e| matches!(e, Event::Line(_))), "{name}");
    assert_eq!(headers(&frames, 7), bufread(&frames), "{name}");
    assert_eq!(headers(&frames, CHUNK), ndjson(lines, CHUNK), "{name}");
    let mut g = c.benchmark_group(name);
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    g.throughput(Throughput::Bytes(lines.len() as u64));
    g.bench_function("ndjson-framer-64k-utf8", |b| {
        b.iter(|| ndjson(black_box(lines), CHUNK))
    });
    g.bench_function("ndjson-framer-7b-utf8", |b| {
        b.iter(|| ndjson(black_box(lines), 7))
    });
    g.throughput(Throughput::Bytes(frames.len() as u64));
    g.bench_function("headers-framer-64k-utf8", |b| {
        b.iter(|| headers(black_box(&frames), CHUNK))
    });
    g.bench_function("headers-framer-7b-utf8", |b| {
        b.iter(|| headers(black_box(&frames), 7))
    });
    g.bench_function("bufread-headers", |b| {
        b.iter(|| bufread(black_box(&frames)))
    });
    g.finish();
}

fn benches(c: &mut Criterion) {
    let size = workloads::size();
    workload(c, "headers-tokens", &workloads::tokens(size));
    workload(c, "headers-rpc", &workloads::rpc(size).0);
    workload(c, "headers-large", &workloads::large(size));
}

criterion::criterion_group!(headers_framing, benches);
criterion::criterion_main!(headers_framing);
