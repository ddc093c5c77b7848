//! The benchmark workloads, generated deterministically (a fixed xorshift
//! seed, no files): the same bytes on every machine and every run.
//!
//! Shared by `crates/framer/benches/framing.rs` and, through `#[path]`,
//! `crates/matcher/benches/matching.rs`, so both judge the same traffic.

#![allow(dead_code)]

use std::fmt::Write;

/// Whether criterion only checks that each bench runs (`cargo test
/// --benches`, or `--test`): it measures only when given `--bench`.
pub fn smoke() -> bool {
    let args: Vec<String> = std::env::args().collect();
    !args.iter().any(|a| a == "--bench") || args.iter().any(|a| a == "--test")
}

/// Workload size in bytes: `RPCSPEC_BENCH_MIB` MiB (default 64); 1 MiB in a
/// smoke run.
pub fn size() -> usize {
    if smoke() {
        return 1 << 20;
    }
    let mib = std::env::var("RPCSPEC_BENCH_MIB")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
        .unwrap_or(64);
    mib << 20
}

/// xorshift64*: enough randomness for shaping test data, no dependency.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in `lo..hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo) as u64) as usize
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.range(0, items.len())]
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// Pieces of JSON string content, already escaped: ASCII, CJK, emoji, and
/// the escapes real producers write.
const PIECES: &[&str] = &[
    "the",
    " ",
    "token",
    "stream",
    ", ",
    "json",
    "rpc",
    ".",
    "fn",
    "0",
    "42",
    "世界",
    "你好",
    "日本語",
    "한국어",
    "😀",
    "🚀",
    "👍🏽",
    "\\n",
    "\\\"",
    "\\\\",
    "\\t",
    "\\u00e9",
    "\\u4e16",
    "\\ud83d\\ude00",
    "\\/",
];

fn content(rng: &mut Rng, out: &mut String, target: usize) {
    let start = out.len();
    while out.len() - start < target {
        let piece = *rng.pick(PIECES);
        out.push_str(piece);
    }
}

/// stream-json token events, about 48 bytes per line:
/// `{"type":"token","data":{"content":"…"}}`.
pub fn tokens(size: usize) -> Vec<u8> {
    let mut rng = Rng::new(0x746f_6b65_6e73);
    let mut out = String::with_capacity(size + 256);
    while out.len() < size {
        out.push_str(r#"{"type":"token","data":{"content":""#);
        let n = rng.range(2, 17);
        content(&mut rng, &mut out, n);
        out.push_str("\"}}\n");
    }
    out.into_bytes()
}

/// Which side sent a line of the rpc workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Client,
    Server,
}

const METHODS: &[&str] = &[
    "tools/call",
    "resources/read",
    "textDocument/completion",
    "workspace/symbol",
    "subtract",
    "sampling/createMessage",
];

fn id_text(rng: &mut Rng, n: u64) -> String {
    if rng.chance(50) {
        n.to_string()
    } else {
        format!("\"req-{n:06}\"")
    }
}

/// JSON-RPC 2.0 traffic, about 270 bytes per line: requests with named and
/// positional params and string and number ids, responses (results and
/// errors) answering earlier requests out of order, notifications. Up to 64
/// requests are outstanding at a time, as with a pipelining client; every
/// request is answered by the end. Returns the stream and who sent each line.
pub fn rpc(size: usize) -> (Vec<u8>, Vec<Side>) {
    let mut rng = Rng::new(0x7270_6321);
    let mut out = String::with_capacity(size + 1024);
    let mut sides = Vec::new();
    let mut pending: Vec<String> = Vec::new();
    let mut next_id = 1u64;
    while out.len() < size || !pending.is_empty() {
        let answer =
            !pending.is_empty() && (out.len() >= size || pending.len() >= 64 || rng.chance(40));
        if answer {
            let i = rng.range(0, pending.len());
            let id = pending.swap_remove(i);
            if rng.chance(85) {
                out.push_str(r#"{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":""#);
                let n = rng.range(80, 240);
                content(&mut rng, &mut out, n);
                write!(
                    out,
                    r#""}}],"isError":false,"elapsed":{}.{}}},"id":{id}}}"#,
                    rng.range(0, 900),
                    rng.range(0, 1000)
                )
                .unwrap();
            } else {
                let code = *rng.pick(&[-32602i64, -32601, -32603, -32000, 4001]);
                write!(
                    out,
                    r#"{{"jsonrpc":"2.0","error":{{"code":{code},"message":"#
                )
                .unwrap();
                out.push('"');
                let n = rng.range(40, 160);
                content(&mut rng, &mut out, n);
                write!(
                    out,
                    r#"","data":{{"retry":{},"hint":null}}}},"id":{id}}}"#,
                    rng.chance(50)
                )
                .unwrap();
            }
            sides.push(Side::Server);
        } else if rng.chance(15) {
            write!(
                out,
                r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"tok-{}","progress":{},"total":100,"message":""#,
                rng.range(0, 1000),
                rng.range(0, 100)
            )
            .unwrap();
            let n = rng.range(60, 180);
            content(&mut rng, &mut out, n);
            out.push_str("\"}}");
            sides.push(Side::Client);
        } else {
            let id = id_text(&mut rng, next_id);
            next_id += 1;
            let method = rng.pick(METHODS);
            write!(out, r#"{{"jsonrpc":"2.0","method":"{method}","params":"#).unwrap();
            if rng.chance(70) {
                out.push_str(r#"{"name":"search","arguments":{"query":""#);
                let n = rng.range(60, 200);
                content(&mut rng, &mut out, n);
                write!(
                    out,
                    r#"","limit":{},"offset":{},"exact":{}}},"_meta":{{"progressToken":{}}}}}"#,
                    rng.range(1, 100),
                    rng.range(0, 10_000),
                    rng.chance(50),
                    rng.range(0, 1000),
                )
                .unwrap();
            } else {
                out.push_str("[\"");
                let n = rng.range(60, 200);
                content(&mut rng, &mut out, n);
                write!(
                    out,
                    r#"",{},{}.5,[1,2,3],{{"deep":[true,false,null]}}]"#,
                    rng.range(0, 1 << 20),
                    rng.range(0, 100)
                )
                .unwrap();
            }
            write!(out, r#","id":{id}}}"#).unwrap();
            pending.push(id);
            sides.push(Side::Client);
        }
        out.push('\n');
    }
    (out.into_bytes(), sides)
}

fn base64(rng: &mut Rng, out: &mut String, len: usize) {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let start = out.len();
    while out.len() - start < len {
        let w = rng.next();
        for k in 0..10 {
            out.push(ALPHABET[((w >> (6 * k)) & 63) as usize] as char);
        }
    }
    out.push_str("==");
}

/// Large objects, 64 KiB to 1 MiB per line: nested arrays of numbers, a long
/// string with escapes and a base64 blob.
pub fn large(size: usize) -> Vec<u8> {
    let mut rng = Rng::new(0x006c_6172_6765);
    let mut out = String::with_capacity(size + (2 << 20));
    let mut n = 0;
    while out.len() < size {
        n += 1;
        let target = rng.range(64 << 10, 1 << 20);
        large_object(&mut rng, &mut out, n, target);
    }
    out.into_bytes()
}

/// One line of `len` bytes or a little more, in the style of [`large`].
pub fn one_line(len: usize) -> Vec<u8> {
    let mut rng = Rng::new(0x006f_6e65);
    let mut out = String::with_capacity(len + 64);
    large_object(&mut rng, &mut out, 1, len);
    out.into_bytes()
}

fn large_object(rng: &mut Rng, out: &mut String, n: usize, target: usize) {
    let start = out.len();
    write!(out, r#"{{"id":{n},"kind":"snapshot","matrix":["#).unwrap();
    let rows = target / 4096;
    for r in 0..rows {
        if r > 0 {
            out.push(',');
        }
        out.push('[');
        for c in 0..16 {
            if c > 0 {
                out.push(',');
            }
            write!(out, "{}.{}", rng.range(0, 100_000), rng.range(0, 1000)).unwrap();
        }
        out.push(']');
    }
    out.push_str(r#"],"text":""#);
    let left = target.saturating_sub(out.len() - start);
    content(rng, out, left / 2);
    out.push_str(r#"","blob":""#);
    let left = target.saturating_sub(out.len() - start);
    base64(rng, out, left);
    out.push_str("\"}\n");
}

/// The lines of a stream, without their `\n`.
pub fn lines(stream: &[u8]) -> Vec<&[u8]> {
    let mut lines = Vec::new();
    let mut start = 0;
    for end in memchr_positions(stream) {
        lines.push(&stream[start..end]);
        start = end + 1;
    }
    lines
}

fn memchr_positions(stream: &[u8]) -> impl Iterator<Item = usize> + '_ {
    stream
        .iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'\n')
        .map(|(i, _)| i)
}
