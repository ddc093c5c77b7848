//! Framing throughput, judged against baselines measured in the same group:
//! the physical limit (memchr), what people use today (`BufRead::read_until`,
//! tokio-util's `LinesCodec`, serde_json's `StreamDeserializer`) and the cost
//! of parsing the lines (per-line `Value`, per-line full validation).
//!
//! Run with `cargo bench -p rpcspec-framer`; `cargo xtask bench` turns the
//! medians into the ratios of BENCHMARKS.md. `RPCSPEC_BENCH_MIB` sets the
//! workload size (default 64 MiB).

use std::hint::black_box;
use std::io::BufRead;
use std::time::Duration;

use bytes::BytesMut;
use criterion::{BenchmarkGroup, Criterion, SamplingMode, Throughput, measurement::WallTime};
use rpcspec_framer::{Config, Event, Framer};
use serde::de::IgnoredAny;
use serde_json::Value;
use tokio_util::codec::{Decoder, LinesCodec};

#[path = "support/workloads.rs"]
mod workloads;

const CHUNK: usize = 64 << 10;

/// The "limit framer": the least a zero-copy line splitter can do, one
/// memchr pass handing out borrowed slices. No carry, no policies.
fn limit_framer(buf: &[u8], mut sink: impl FnMut(&[u8])) {
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', buf) {
        sink(&buf[start..end]);
        start = end + 1;
    }
    if start < buf.len() {
        sink(&buf[start..]);
    }
}

/// The limit framer when the bytes come in chunks: a line cut by a chunk
/// boundary must be copied, as any push-based framer must. No policies.
fn limit_framer_chunked(buf: &[u8], chunk: usize, mut sink: impl FnMut(&[u8])) {
    let mut carry = Vec::new();
    for c in buf.chunks(chunk) {
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', c) {
            if carry.is_empty() {
                sink(&c[start..end]);
            } else {
                carry.extend_from_slice(&c[..end]);
                sink(&carry);
                carry.clear();
            }
            start = end + 1;
        }
        carry.extend_from_slice(&c[start..]);
    }
    if !carry.is_empty() {
        sink(&carry);
    }
}

/// Pushes `buf` in `chunk`-byte chunks and calls `on_line` per line.
fn framer(config: &Config, buf: &[u8], chunk: usize, mut on_line: impl FnMut(&[u8])) {
    let mut framer = Framer::new(config.clone());
    let mut sink = |e: Event<'_>| {
        if let Event::Line(line) = e {
            on_line(&line.bytes);
        }
    };
    for c in buf.chunks(chunk) {
        framer.push(c, &mut sink);
    }
    framer.finish(&mut sink);
}

/// Full validation of one line: UTF-8 everywhere (serde_json does not check
/// it inside strings it ignores) and JSON syntax.
fn validate(line: &[u8]) -> bool {
    std::str::from_utf8(line).is_ok_and(|s| serde_json::from_str::<IgnoredAny>(s).is_ok())
}

fn value(line: &[u8]) -> bool {
    serde_json::from_slice::<Value>(line).is_ok()
}

fn group<'c>(c: &'c mut Criterion, name: &str, bytes: usize) -> BenchmarkGroup<'c, WallTime> {
    let mut g = c.benchmark_group(name);
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .throughput(Throughput::Bytes(bytes as u64));
    g
}

fn workload(c: &mut Criterion, name: &str, buf: &[u8]) {
    let lines = workloads::lines(buf);
    let off = Config::default().with_check_utf8(false);
    let on = Config::default();
    // The workloads are clean NDJSON: the framer finds every line and
    // nothing else, and every line is one JSON value.
    let events = rpcspec_framer::frame(&on, buf);
    assert_eq!(events.len(), lines.len(), "{name}");
    assert!(events.iter().all(|e| matches!(e, Event::Line(_))), "{name}");
    assert!(lines.iter().all(|l| validate(l)), "{name}");
    drop(events);
    // `cargo xtask bench` reads this line for lines/s.
    println!("workload {name} {} {}", buf.len(), lines.len());
    let mut g = group(c, name, buf.len());

    // The physical limit.
    g.bench_function("memchr-count", |b| {
        b.iter(|| memchr::memchr_iter(b'\n', black_box(buf)).count())
    });
    g.bench_function("limit-framer", |b| {
        b.iter(|| {
            let mut n = 0;
            limit_framer(black_box(buf), |l| n += l.len());
            n
        })
    });
    g.bench_function("limit-framer-64k", |b| {
        b.iter(|| {
            let mut n = 0;
            limit_framer_chunked(black_box(buf), CHUNK, |l| n += l.len());
            n
        })
    });
    g.bench_function("limit-framer+from_utf8", |b| {
        b.iter(|| {
            let mut n = 0;
            limit_framer(black_box(buf), |l| {
                n += std::str::from_utf8(l).is_ok() as usize
            });
            n
        })
    });
    g.bench_function("limit-framer+simdutf8", |b| {
        b.iter(|| {
            let mut n = 0;
            limit_framer(black_box(buf), |l| {
                n += simdutf8::basic::from_utf8(l).is_ok() as usize
            });
            n
        })
    });

    // What people use today.
    g.bench_function("read_until", |b| {
        b.iter(|| {
            let mut r = black_box(buf);
            let mut line = Vec::new();
            let mut n = 0;
            while r.read_until(b'\n', &mut line).unwrap() > 0 {
                n += line.len();
                line.clear();
            }
            n
        })
    });
    g.bench_function("lines-codec", |b| {
        b.iter(|| {
            let mut codec = LinesCodec::new();
            let mut bytes = BytesMut::with_capacity(2 * CHUNK);
            let mut n = 0;
            for chunk in black_box(buf).chunks(CHUNK) {
                bytes.extend_from_slice(chunk);
                while let Some(line) = codec.decode(&mut bytes).unwrap() {
                    n += line.len();
                }
            }
            while let Some(line) = codec.decode_eof(&mut bytes).unwrap() {
                n += line.len();
            }
            n
        })
    });
    // The framer.
    g.bench_function("framer-64k", |b| {
        b.iter(|| {
            let mut n = 0;
            framer(&off, black_box(buf), CHUNK, |l| n += l.len());
            n
        })
    });
    g.bench_function("framer-64k-utf8", |b| {
        b.iter(|| {
            let mut n = 0;
            framer(&on, black_box(buf), CHUNK, |l| n += l.len());
            n
        })
    });
    g.bench_function("limit-framer-7b", |b| {
        b.iter(|| {
            let mut n = 0;
            limit_framer_chunked(black_box(buf), 7, |l| n += l.len());
            n
        })
    });
    g.bench_function("framer-7b", |b| {
        b.iter(|| {
            let mut n = 0;
            framer(&off, black_box(buf), 7, |l| n += l.len());
            n
        })
    });
    g.bench_function("framer-7b-utf8", |b| {
        b.iter(|| {
            let mut n = 0;
            framer(&on, black_box(buf), 7, |l| n += l.len());
            n
        })
    });

    // Parse costs, on lines split beforehand, and behind the framer. They
    // allocate and run long: more samples steady their medians.
    g.sample_size(20);
    g.bench_function("stream-deserializer", |b| {
        b.iter(|| {
            serde_json::Deserializer::from_slice(black_box(buf))
                .into_iter::<Value>()
                .filter(Result::is_ok)
                .count()
        })
    });
    g.bench_function("value-per-line", |b| {
        b.iter(|| black_box(&lines).iter().filter(|l| value(l)).count())
    });
    g.bench_function("validate-per-line", |b| {
        b.iter(|| black_box(&lines).iter().filter(|l| validate(l)).count())
    });
    g.bench_function("framer-64k+value", |b| {
        b.iter(|| {
            let mut n = 0;
            framer(&off, black_box(buf), CHUNK, |l| n += value(l) as usize);
            n
        })
    });
    // The framer checks UTF-8, so serde_json only has the syntax left.
    g.bench_function("framer-64k-utf8+syntax", |b| {
        b.iter(|| {
            let mut n = 0;
            framer(&on, black_box(buf), CHUNK, |l| {
                n += serde_json::from_slice::<IgnoredAny>(l).is_ok() as usize
            });
            n
        })
    });
    g.finish();
}

/// One-byte pushes on one line of 1 MiB and one of 8 MiB: the cost per byte
/// must not grow with the length of the line, so the carried tail is never
/// rescanned (a rescan would make the 8 MiB line cost 8 times as much per
/// byte).
fn linear(c: &mut Criterion) {
    let mib = if workloads::smoke() { 1 << 16 } else { 1 << 20 };
    let mut g = group(c, "framing-linear", 0);
    g.sample_size(20).measurement_time(Duration::from_secs(4));
    for (name, len) in [("1b-1mib", mib), ("1b-8mib", 8 * mib)] {
        let line = workloads::one_line(len);
        let config = Config::default();
        let mut lines = 0;
        framer(&config, &line, 1, |_| lines += 1);
        assert_eq!(lines, 1);
        g.throughput(Throughput::Bytes(line.len() as u64));
        g.bench_function(name, |b| {
            b.iter(|| {
                let mut n = 0;
                framer(&config, black_box(&line), 1, |l| n += l.len());
                n
            })
        });
    }
    g.finish();
}

fn benches(c: &mut Criterion) {
    let size = workloads::size();
    workload(c, "framing-tokens", &workloads::tokens(size));
    workload(c, "framing-rpc", &workloads::rpc(size).0);
    workload(c, "framing-large", &workloads::large(size));
    linear(c);
}

criterion::criterion_group!(framing, benches);
criterion::criterion_main!(framing);
