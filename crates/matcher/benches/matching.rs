//! Checking a message must cost less than parsing it into a `Value`: the
//! matcher (`classify` with every rule, then `Session` pairing) against
//! per-line `serde_json::Value` parsing and per-line full validation, on the
//! rpc workload, in the same criterion group.
//!
//! Run with `cargo bench -p rpcspec-matcher`; `cargo xtask bench` turns the
//! medians into the ratios of BENCHMARKS.md. `RPCSPEC_BENCH_MIB` sets the
//! workload size (default 64 MiB).

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput};
use rpcspec_matcher::{Dialect, Direction, Session, classify};
use serde::de::IgnoredAny;
use serde_json::Value;

// The framer's bench owns the workload generator, so both judge the same bytes.
#[path = "../../framer/benches/support/workloads.rs"]
mod workloads;

fn benches(c: &mut Criterion) {
    let (buf, sides) = workloads::rpc(workloads::size());
    let lines: Vec<&str> = workloads::lines(&buf)
        .into_iter()
        .map(|l| std::str::from_utf8(l).expect("the workload is UTF-8"))
        .collect();
    assert_eq!(lines.len(), sides.len());
    let fed: Vec<(Direction, &str)> = sides
        .iter()
        .zip(&lines)
        .map(|(side, &line)| {
            let from = match side {
                workloads::Side::Client => Direction::ClientToServer,
                workloads::Side::Server => Direction::ServerToClient,
            };
            (from, line)
        })
        .collect();
    // The workload is conforming traffic: a finding means a broken generator.
    let mut session = Session::new(Dialect::Jsonrpc2);
    for &(from, line) in &fed {
        let c = session.feed(from, line);
        assert!(c.findings.is_empty(), "{line}: {:?}", c.findings);
    }
    assert!(session.close().is_empty());
    // `cargo xtask bench` reads this line for lines/s.
    println!("workload matching-rpc {} {}", buf.len(), lines.len());

    let mut g = c.benchmark_group("matching-rpc");
    // Long iterations that allocate: 20 samples steady the medians.
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .throughput(Throughput::Bytes(buf.len() as u64));

    g.bench_function("value-per-line", |b| {
        b.iter(|| {
            black_box(&lines)
                .iter()
                .filter(|l| serde_json::from_slice::<Value>(l.as_bytes()).is_ok())
                .count()
        })
    });
    // The lines are already `&str`: only the syntax is left to check.
    g.bench_function("syntax-per-line", |b| {
        b.iter(|| {
            black_box(&lines)
                .iter()
                .filter(|l| serde_json::from_str::<IgnoredAny>(l).is_ok())
                .count()
        })
    });
    g.bench_function("classify", |b| {
        let dialect = Dialect::Jsonrpc2;
        b.iter(|| {
            black_box(&lines)
                .iter()
                .map(|l| classify(l, &dialect).findings.len())
                .sum::<usize>()
        })
    });
    g.bench_function("session", |b| {
        b.iter(|| {
            let mut session = Session::new(Dialect::Jsonrpc2);
            let mut findings = 0;
            for &(from, line) in black_box(&fed) {
                findings += session.feed(from, line).findings.len();
            }
            findings + session.close().len()
        })
    });
    g.finish();
}

criterion::criterion_group!(matching, benches);
criterion::criterion_main!(matching);
