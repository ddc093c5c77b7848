//! The `decoder` role: the target reads an NDJSON stream.
//!
//! The target is a parser or client wrapped in a tiny adapter with a fixed
//! contract (`spec-cases/decoder/README.md`): it reads the stream on stdin
//! and writes, one JSON per line, `{"value": …}` for each record,
//! `{"error": "…"}` for each record it rejects, and at the end
//! `{"end": "complete"}` or `{"end": "interrupted"}` (the stream lacked its
//! terminal record, an object whose `type` is `done` or `error`).
//!
//! A case is a byte stream. The runner writes it under every plan that fits
//! its size (one write per line, one write, a byte per write, two writes
//! split at every offset of a short stream, fixed-size chunks), and grades
//! the adapter's output against the reference framer's reading of the same
//! bytes. Where NDJSON leaves a choice (blank lines, a byte order mark, an
//! unterminated last line, invalid UTF-8, a length limit) each documented
//! choice is graded PASS, NON-STRICT or INFO instead of FAIL.

use std::{
    borrow::Cow,
    io::{self, Read, Write},
    path::Path,
    time::{Duration, Instant},
};

use rpcspec_framer::read::read_chunk;
use rpcspec_framer::{BlankLines, Bom, Config, Event, Framer, ProblemKind};
use rpcspec_matcher::Level;
use serde::Deserialize;
use serde_json::Value;
use toml::Spanned;

use crate::{
    cases::{self, Listing, LoadError, Location},
    plan::{SPLIT_PAUSE, Write as PlanWrite},
    report::{Bytes, CaseResult, Evidence, Received, RuleRef, Sent, Verdict},
    target::{Msg, Running, Target, describe_exit},
    unescape::unescape,
};

/// Streams up to this many bytes are also split in two at every offset.
pub const SPLIT_EVERY_MAX: usize = 80;
/// Streams up to this many bytes are also written a byte per write.
pub const BYTEWISE_MAX: usize = 1024;
/// Lines longer than this are over the most common hidden limit (Python
/// asyncio's `StreamReader`, Go's `bufio.Scanner`): rejecting them is
/// NON-STRICT, not a failure.
pub const LONG_LINE: usize = 64 * 1024;
/// Most bytes an adapter may write in one case before it is stopped.
const OUTPUT_CAP: usize = 64 << 20;
/// Largest `$pad(N)`.
const MAX_PAD: usize = 16 << 20;
/// Bytes of one write or line kept in a report.
const SHOWN_BYTES: usize = 1024;
/// Most received lines a result keeps.
const MAX_RECEIVED: usize = 2000;
/// Most mismatches reported one by one.
const MAX_MISMATCHES: usize = 12;

/// One decoder case: a byte stream, graded by the reference framer's
/// reading of it.
#[derive(Debug, Clone)]
pub struct DecoderCase {
    /// `decoder/<file>/<name>`.
    pub id: String,
    /// One line saying what the case checks.
    pub title: String,
    /// Where the rule is written.
    pub section: String,
    /// A failed SHOULD case is NON-STRICT, a failed INFO case only informs.
    pub level: Level,
    /// The exact bytes of the stream.
    pub stream: Vec<u8>,
    /// Where each line (and the unterminated tail) ends: the `whole` plan
    /// writes one line per write.
    pub ends: Vec<usize>,
    /// Plan families the case is limited to (`None`: every one that fits).
    pub only: Option<Vec<String>>,
    /// Where the case is defined.
    pub source: Location,
}

/// One way of writing a decoder case's stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecoderPlan {
    /// One write per line.
    Whole,
    /// The whole stream in one write.
    Coalesced,
    /// One byte per write.
    Bytewise,
    /// Two writes, split before byte K, with [`SPLIT_PAUSE`] between them.
    Split(usize),
    /// Writes of N bytes (with [`SPLIT_PAUSE`] between them on short
    /// streams).
    Chunked(usize),
}

/// The plan families, in report order.
pub const PLAN_KINDS: [&str; 5] = ["whole", "coalesced", "bytewise", "split", "chunked"];

impl DecoderPlan {
    /// As in reports: `whole`, `bytewise`, `split@17`, ...
    pub fn name(&self) -> String {
        match self {
            DecoderPlan::Split(k) => format!("split@{k}"),
            DecoderPlan::Chunked(n) => format!("chunked@{n}"),
            other => other.kind().to_owned(),
        }
    }

    /// The family, as `--plans` selects it: `whole`, `bytewise`, `split`, ...
    pub fn kind(&self) -> &'static str {
        match self {
            DecoderPlan::Whole => "whole",
            DecoderPlan::Coalesced => "coalesced",
            DecoderPlan::Bytewise => "bytewise",
            DecoderPlan::Split(_) => "split",
            DecoderPlan::Chunked(_) => "chunked",
        }
    }

    /// The writes for `stream`, whose lines end at `ends`.
    pub fn writes(&self, stream: &[u8], ends: &[usize]) -> Vec<PlanWrite> {
        let now = |bytes: &[u8]| PlanWrite {
            pause: Duration::ZERO,
            bytes: bytes.to_vec(),
        };
        match *self {
            DecoderPlan::Whole => {
                let mut start = 0;
                let mut out = Vec::new();
                for &end in ends {
                    out.push(now(&stream[start..end]));
                    start = end;
                }
                out
            }
            DecoderPlan::Coalesced => vec![now(stream)],
            DecoderPlan::Bytewise => stream.chunks(1).map(now).collect(),
            DecoderPlan::Split(k) => {
                let k = k.min(stream.len());
                vec![
                    now(&stream[..k]),
                    PlanWrite {
                        pause: SPLIT_PAUSE,
                        bytes: stream[k..].to_vec(),
                    },
                ]
            }
            DecoderPlan::Chunked(n) => {
                let pause = if stream.len() <= BYTEWISE_MAX {
                    SPLIT_PAUSE
                } else {
                    Duration::ZERO
                };
                stream
                    .chunks(n.max(1))
                    .enumerate()
                    .map(|(i, c)| PlanWrite {
                        pause: if i == 0 { Duration::ZERO } else { pause },
                        bytes: c.to_vec(),
                    })
                    .collect()
            }
        }
    }
}

impl DecoderCase {
    /// The plans this case runs under: `whole`; `coalesced` when it has
    /// more than one line; `bytewise` up to [`BYTEWISE_MAX`] bytes;
    /// `split@K` for every K up to [`SPLIT_EVERY_MAX`] bytes, else
    /// `chunked@7` (short streams) or `chunked@4093` (long ones: odd sizes
    /// put the boundaries everywhere).
    pub fn plans(&self) -> Vec<DecoderPlan> {
        let n = self.stream.len();
        let mut plans = vec![DecoderPlan::Whole];
        if self.ends.len() > 1 {
            plans.push(DecoderPlan::Coalesced);
        }
        if (2..=BYTEWISE_MAX).contains(&n) {
            plans.push(DecoderPlan::Bytewise);
        }
        if n <= SPLIT_EVERY_MAX {
            plans.extend((1..n).map(DecoderPlan::Split));
        } else if n <= BYTEWISE_MAX {
            plans.push(DecoderPlan::Chunked(7));
        } else {
            plans.push(DecoderPlan::Chunked(4093));
        }
        if let Some(only) = &self.only {
            plans.retain(|p| only.iter().any(|k| k == p.kind()));
        }
        plans
    }

    /// As `rpcspec list` shows it: the split plans as one range.
    pub fn listing(&self) -> Listing {
        let plans = self.plans();
        let splits: Vec<usize> = plans
            .iter()
            .filter_map(|p| match p {
                DecoderPlan::Split(k) => Some(*k),
                _ => None,
            })
            .collect();
        let mut names: Vec<String> = plans
            .iter()
            .filter(|p| p.kind() != "split")
            .map(DecoderPlan::name)
            .collect();
        if let (Some(first), Some(last)) = (splits.first(), splits.last()) {
            names.push(format!("split@{first}..{last}"));
        }
        Listing {
            id: self.id.clone(),
            title: self.title.clone(),
            section: self.section.clone(),
            level: self.level.as_str().to_owned(),
            requires: Vec::new(),
            plans: names,
            file: self.source.file.clone(),
            line: self.source.line,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileDef {
    #[serde(default)]
    case: Vec<Spanned<CaseDef>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseDef {
    name: Spanned<String>,
    title: String,
    section: String,
    level: Option<Spanned<String>>,
    #[serde(default)]
    lines: Vec<Spanned<String>>,
    tail: Option<Spanned<String>>,
    plans: Option<Spanned<Vec<String>>>,
}

/// The shipped decoder cases (`spec-cases/decoder/`).
pub fn builtin() -> Result<Vec<DecoderCase>, LoadError> {
    let mut cases = Vec::new();
    for (rel, text) in crate::cases::builtin_files(Some("decoder")) {
        cases.extend(load_str(rel, text)?);
    }
    Ok(cases)
}

/// The decoder cases under `root/decoder/`.
pub fn load_dir(root: &Path) -> Result<Vec<DecoderCase>, LoadError> {
    let mut cases = Vec::new();
    for (rel, text) in crate::cases::read_tree(root, Some("decoder"))? {
        cases.extend(load_str(&rel, &text)?);
    }
    Ok(cases)
}

/// Loads the decoder cases of one file, given its path relative to the
/// cases root (which makes the ids) and its text.
pub fn load_str(file: &Path, text: &str) -> Result<Vec<DecoderCase>, LoadError> {
    let at =
        |span: std::ops::Range<usize>, message: String| LoadError::at(file, text, span, message);
    let def: FileDef = cases::parse_toml(file, text)?;
    let prefix = cases::id_prefix(file);
    let lines = cases::Lines::new(text);
    let mut cases: Vec<DecoderCase> = Vec::new();
    let mut seen = cases::SeenIds::new();
    for spanned in def.case {
        let case_span = spanned.span();
        let def = spanned.into_inner();
        let name_span = def.name.span();
        let name = def.name.into_inner();
        let line = lines.locate(file, case_span.start).line;
        let id = cases::case_id(&prefix, &name, line, &mut seen).map_err(|e| at(name_span, e))?;
        let level = match &def.level {
            None => Level::Must,
            Some(l) => cases::parse_level(l.as_ref()).map_err(|e| at(l.span(), e))?,
        };
        let only = match def.plans {
            None => None,
            Some(list) => {
                let span = list.span();
                let list = list.into_inner();
                if let Some(bad) = list.iter().find(|k| !PLAN_KINDS.contains(&k.as_str())) {
                    return Err(at(
                        span,
                        format!(
                            "unknown plan family `{bad}` (one of {})",
                            PLAN_KINDS.join(", ")
                        ),
                    ));
                }
                Some(list)
            }
        };
        let mut stream = Vec::new();
        let mut ends = Vec::new();
        for line in &def.lines {
            let bytes = stream_text(line.as_ref()).map_err(|m| at(line.span(), m))?;
            if bytes.contains(&b'\n') {
                return Err(at(
                    line.span(),
                    "a line contains `\\x0A`: give each line its own string".into(),
                ));
            }
            stream.extend_from_slice(&bytes);
            stream.push(b'\n');
            ends.push(stream.len());
        }
        if let Some(tail) = &def.tail {
            let bytes = stream_text(tail.as_ref()).map_err(|m| at(tail.span(), m))?;
            if bytes.is_empty() {
                return Err(at(tail.span(), "`tail` is empty: leave it out".into()));
            }
            stream.extend_from_slice(&bytes);
            ends.push(stream.len());
        }
        let case = DecoderCase {
            id,
            title: def.title,
            section: def.section,
            level,
            stream,
            ends,
            only,
            source: lines.locate(file, case_span.start),
        };
        if case.plans().is_empty() {
            return Err(at(
                case_span,
                format!("case `{name}` has no plan left: its `plans` fit none of its sizes"),
            ));
        }
        cases.push(case);
    }
    Ok(cases)
}

/// A string of a case's stream: `$pad(N)` becomes N bytes `x` (so lines
/// over 64 KiB and 1 MiB need not be stored), then `\xNN` becomes the byte
/// 0xNN.
fn stream_text(text: &str) -> Result<Vec<u8>, String> {
    const PAD: &str = "$pad(";
    let mut expanded = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(PAD) {
        expanded.push_str(&rest[..at]);
        let after = &rest[at + PAD.len()..];
        let close = after
            .find(')')
            .ok_or_else(|| "`$pad(` without its `)`".to_owned())?;
        let n: usize = after[..close]
            .parse()
            .map_err(|_| format!("`$pad({})`: not a byte count", &after[..close]))?;
        if n > MAX_PAD {
            return Err(format!("`$pad({n})` is over the limit of {MAX_PAD} bytes"));
        }
        if expanded.len() + n > MAX_PAD {
            return Err(format!("the string is over {MAX_PAD} bytes once padded"));
        }
        expanded.extend(std::iter::repeat_n('x', n));
        rest = &after[close + 1..];
    }
    expanded.push_str(rest);
    unescape(&expanded)
}

/// A rule of the decoder role, as shown in reports.
struct Rule {
    id: &'static str,
    level: &'static str,
    section: &'static str,
    statement: &'static str,
}

impl Rule {
    fn to_ref(&self) -> RuleRef {
        RuleRef {
            id: self.id.to_owned(),
            level: self.level.to_owned(),
            section: self.section.to_owned(),
            statement: self.statement.to_owned(),
        }
    }
}

const RECORD: Rule = Rule {
    id: "decoder.record",
    level: "MUST",
    section: "NDJSON 1.0 §3 (\"each JSON text … followed by the newline character\")",
    statement: "every line that holds one JSON text is delivered as that value, once, in order",
};
const INVALID: Rule = Rule {
    id: "decoder.invalid-record",
    level: "MUST",
    section: "NDJSON 1.0 §3.3 (\"SHOULD raise an error\"); rpcspec decoder contract",
    statement: "a line that is not exactly one JSON text is reported as an error, not dropped, merged or split",
};
const EXTRA: Rule = Rule {
    id: "decoder.extra-record",
    level: "MUST",
    section: "NDJSON 1.0 §3 (one JSON text per line)",
    statement: "every record reported is a line of the stream: none split off, merged or invented",
};
const CRLF: Rule = Rule {
    id: "decoder.crlf",
    level: "MUST",
    section: "NDJSON 1.0 §3.2 (\"MUST accept … \\n … as well as … \\r\\n\")",
    statement: "the \\r of \\r\\n is part of the line terminator, never of the record",
};
const BLANK: Rule = Rule {
    id: "decoder.blank-line",
    level: "INFO",
    section: "NDJSON 1.0 §3.3 (\"MAY silently ignore empty lines\"); JSON Lines (\"a blank line is not\" a value)",
    statement: "a blank line is skipped or rejected: both are documented choices",
};
const BOM: Rule = Rule {
    id: "decoder.bom",
    level: "SHOULD",
    section: "RFC 8259 §8.1 (parsers \"MAY ignore the presence of a byte order mark\")",
    statement: "a byte order mark opening the stream is ignored",
};
const UTF8: Rule = Rule {
    id: "decoder.utf8",
    level: "SHOULD",
    section: "NDJSON 1.0 §3.1 (\"MUST use the UTF8 encoding\"); RFC 8259 §8.1",
    statement: "a line that is not UTF-8 is rejected, not repaired with U+FFFD",
};
const LENGTH: Rule = Rule {
    id: "decoder.line-length",
    level: "SHOULD",
    section: "NDJSON 1.0 (no length limit); tokio-util LinesCodec docs on unbounded lines",
    statement: "a long line is delivered; a documented limit that rejects it is tolerated",
};
const TAIL: Rule = Rule {
    id: "decoder.unterminated",
    level: "MUST",
    section: "JSON Lines (the last terminator is \"strongly recommended but not required\"); ndjson-spec #24",
    statement: "bytes after the last \\n are delivered or reported, never dropped silently",
};
const END: Rule = Rule {
    id: "decoder.end",
    level: "MUST",
    section: "ndjson-spec #43 (no in-band end); rpcspec decoder contract",
    statement: "a stream is complete iff its last value is an object whose type is done or error",
};
const CONTRACT: Rule = Rule {
    id: "decoder.contract",
    level: "MUST",
    section: "spec-cases/decoder/README.md (the adapter contract)",
    statement: "the adapter writes one JSON object per line: value, error, then one end",
};

/// How one choice the specs leave open is graded.
#[derive(Clone, Copy)]
struct Choice {
    verdict: Verdict,
    /// The rule that names the choice, when it is not a plain pass.
    rule: Option<&'static Rule>,
}

const PLAIN: Choice = Choice {
    verdict: Verdict::Pass,
    rule: None,
};

/// One record of the stream, as the reference framer reads it, and what a
/// decoder may say about it.
struct Slot {
    /// 1-based line in the stream.
    line: u64,
    /// Stream offset of the record.
    offset: u64,
    /// The record, shown escaped (cut if long).
    shown: String,
    /// The value it holds, and the grade of delivering it.
    value: Option<(Value, Choice)>,
    /// The grade of rejecting it.
    error: Option<Choice>,
    /// The grade of saying nothing about it.
    skip: Option<Choice>,
    /// What is broken when the decoder's answer fits none of the above.
    rule: &'static Rule,
    /// A blank line: whether it ended in `\r\n`.
    blank_crlf: Option<bool>,
}

fn show_bytes(bytes: &[u8]) -> String {
    let shown = &bytes[..bytes.len().min(80)];
    let mut s = shown.escape_ascii().to_string();
    if shown.len() < bytes.len() {
        s.push_str(&format!("… ({} bytes)", bytes.len()));
    }
    s
}

fn show_json(v: &Value) -> String {
    // Line and paragraph separators look like spaces or line breaks.
    let s = v
        .to_string()
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
        .replace('\u{85}', "\\u0085");
    if s.len() <= 120 {
        return s;
    }
    let mut cut = 100;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}… ({} bytes)", &s[..cut], s.len())
}

/// Whether a value ends a stream: an object whose `type` is `done` or
/// `error`.
pub fn is_terminal(v: &Value) -> bool {
    matches!(
        v.get("type").and_then(Value::as_str),
        Some("done" | "error")
    )
}

/// The records of `stream` as the reference framer reads them (blank lines
/// and the byte order mark reported, 16 MiB limit), each with the answers a
/// decoder may give.
fn expected(stream: &[u8]) -> Vec<Slot> {
    let config = Config::default()
        .blank_lines(BlankLines::Report)
        .bom(Bom::Report);
    let mut slots = Vec::new();
    let mut bom = false;
    for event in rpcspec_framer::frame(&config, stream) {
        let mut slot = match event {
            Event::Problem(p) if p.kind == ProblemKind::Bom => {
                bom = true;
                continue;
            }
            Event::Line(line) => {
                let mut slot = Slot {
                    line: line.number,
                    offset: line.offset,
                    shown: show_bytes(&line.bytes),
                    value: None,
                    error: None,
                    skip: None,
                    rule: &RECORD,
                    blank_crlf: None,
                };
                match line.parse_value() {
                    Ok(v) => slot.value = Some((v, PLAIN)),
                    Err(_) => {
                        slot.error = Some(PLAIN);
                        slot.rule = &INVALID;
                    }
                }
                if line.bytes.len() > LONG_LINE && slot.error.is_none() {
                    slot.error = Some(Choice {
                        verdict: Verdict::NonStrict,
                        rule: Some(&LENGTH),
                    });
                }
                slot
            }
            Event::Problem(p) => {
                let mut slot = Slot {
                    line: p.number,
                    offset: p.offset,
                    shown: show_bytes(&p.bytes),
                    value: None,
                    error: Some(PLAIN),
                    skip: None,
                    rule: &INVALID,
                    blank_crlf: None,
                };
                match p.kind {
                    ProblemKind::Blank => {
                        // Only an empty line shows a leaked \r (a decoder
                        // may skip `\r\n` and `\n` yet reject `  \t`): the
                        // framer strips the \r of \r\n, so an empty line
                        // ends in \r\n if a \r is its first byte.
                        if p.bytes.is_empty() {
                            let at = stream.get(p.offset as usize);
                            slot.blank_crlf = Some(at == Some(&b'\r'));
                        }
                        slot.skip = Some(PLAIN);
                        slot.error = Some(Choice {
                            verdict: Verdict::Pass,
                            rule: Some(&BLANK),
                        });
                        slot.rule = &BLANK;
                    }
                    ProblemKind::InvalidUtf8 { .. } => {
                        slot.rule = &UTF8;
                        let lossy = String::from_utf8_lossy(&p.bytes);
                        if let Ok(v) = serde_json::from_str::<Value>(&lossy) {
                            let choice = Choice {
                                verdict: Verdict::NonStrict,
                                rule: Some(&UTF8),
                            };
                            slot.value = Some((v, choice));
                        }
                    }
                    ProblemKind::Truncated => {
                        slot.rule = &TAIL;
                        let text = std::str::from_utf8(&p.bytes);
                        if text.is_ok_and(|t| t.trim_matches([' ', '\t', '\r']).is_empty()) {
                            // Only whitespace after the last \n: nothing to lose.
                            slot.skip = Some(PLAIN);
                            slot.error = Some(Choice {
                                verdict: Verdict::Pass,
                                rule: Some(&BLANK),
                            });
                        } else if let Ok(v) = serde_json::from_slice::<Value>(&p.bytes) {
                            slot.value = Some((v, PLAIN));
                        }
                    }
                    _ => {}
                }
                slot
            }
        };
        // Rejecting the line after a byte order mark is NON-STRICT only
        // when the line is otherwise a plain value: a line the decoder must
        // (or may) reject anyway stays a plain rejection.
        if std::mem::take(&mut bom)
            && matches!(slot.value, Some((_, choice)) if choice.rule.is_none())
        {
            slot.error = Some(Choice {
                verdict: Verdict::NonStrict,
                rule: Some(&BOM),
            });
        }
        slots.push(slot);
    }
    slots
}

/// What the adapter said about one record.
#[derive(Debug, Clone, PartialEq)]
enum Said {
    Value(Value),
    Error(Value),
    End(Value),
}

impl Said {
    fn show(&self) -> String {
        match self {
            Said::Value(v) => format!("{{\"value\":{}}}", show_json(v)),
            Said::Error(e) => format!("{{\"error\":{}}}", show_json(e)),
            Said::End(e) => format!("{{\"end\":{}}}", show_json(e)),
        }
    }
}

/// One contract record from the adapter, with its stdout line.
struct Item {
    said: Said,
    line: u64,
}

/// The adapter's contract records, kept within bounds however many it
/// writes: the first `keep` before its first end record (the rest only
/// counted, since a flood is not worth aligning one by one), that end
/// record, and the first [`MAX_MISMATCHES`] after it (the rest counted).
struct Records {
    keep: usize,
    before: Vec<Item>,
    before_count: usize,
    end: Option<Item>,
    after: Vec<Item>,
    after_count: usize,
}

impl Records {
    /// Room for `keep` records before the end: grading a stream of N
    /// records looks at no more than `4 * N + 64`.
    fn new(keep: usize) -> Records {
        Records {
            keep,
            before: Vec::new(),
            before_count: 0,
            end: None,
            after: Vec::new(),
            after_count: 0,
        }
    }

    fn push(&mut self, item: Item) {
        if self.end.is_some() {
            self.after_count += 1;
            if self.after.len() < MAX_MISMATCHES {
                self.after.push(item);
            }
        } else if matches!(item.said, Said::End(_)) {
            self.end = Some(item);
        } else {
            self.before_count += 1;
            if self.before.len() < self.keep {
                self.before.push(item);
            }
        }
    }
}

/// Numbers compare by value (`1.0` is `1`), everything else exactly.
fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x == y
                || (x.as_f64().zip(y.as_f64())).is_some_and(|(x, y)| x == y)
                    && !(x.is_u64() && y.is_u64())
                    && !(x.is_i64() && y.is_i64())
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

impl Slot {
    fn accepts(&self, said: &Said) -> Option<(Choice, bool)> {
        match said {
            Said::Value(v) => self
                .value
                .as_ref()
                .filter(|(want, _)| json_eq(want, v))
                .map(|(_, c)| (*c, true)),
            Said::Error(_) => self.error.map(|c| (c, false)),
            Said::End(_) => None,
        }
    }

    fn expectation(&self) -> String {
        let mut options = Vec::new();
        if let Some((v, _)) = &self.value {
            options.push(format!("{{\"value\":{}}}", show_json(v)));
        }
        if self.error.is_some() {
            options.push("{\"error\":…}".to_owned());
        }
        if self.skip.is_some() {
            options.push("nothing".to_owned());
        }
        options.join(" or ")
    }

    fn at(&self) -> String {
        format!("line {} (byte {}) `{}`", self.line, self.offset, self.shown)
    }
}

/// How a slot was resolved.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Took {
    Value,
    Error,
    Skip,
    Missing,
}

fn evidence(verdict: Verdict, rule: &Rule, message: String) -> Evidence {
    Evidence {
        verdict,
        rule: Some(rule.to_ref()),
        message,
        step: None,
        expected: Vec::new(),
        actual: Vec::new(),
    }
}

/// One step of the alignment of slots with the adapter's records.
#[derive(Clone, Copy)]
enum Op {
    /// Slot i answered by record j, with this grade.
    Match(usize, usize, Choice),
    /// Slot i not answered, as allowed.
    Skip(usize, Choice),
    /// Slot i not answered, though it had to be.
    Missing(usize),
    /// Record j answers no slot.
    Extra(usize),
}

/// Cost of a record missing or extra. A tolerated choice costs 10, so the
/// plain reading wins ties, and an error record 1 more than a value, so a
/// stray error is not taken for the answer to an optional slot.
const MISS: u32 = 1000;

fn cost(choice: Choice, said: &Said) -> u32 {
    10 * u32::from(choice.rule.is_some()) + u32::from(!matches!(said, Said::Value(_)))
}

/// The cheapest alignment of `slots` with `records` (an edit distance:
/// records answer slots in order; optional slots may go unanswered).
fn align(slots: &[Slot], records: &[Item]) -> Vec<Op> {
    let (n, m) = (slots.len(), records.len());
    let width = m + 1;
    // best[i * width + j]: cost of aligning slots[i..] with records[j..].
    let mut best = vec![0u32; (n + 1) * width];
    for i in (0..=n).rev() {
        for j in (0..=m).rev() {
            if i == n && j == m {
                continue;
            }
            let mut c = u32::MAX;
            if i < n
                && j < m
                && let Some((choice, _)) = slots[i].accepts(&records[j].said)
            {
                c = c.min(cost(choice, &records[j].said) + best[(i + 1) * width + j + 1]);
            }
            if i < n {
                let skip = slots[i]
                    .skip
                    .map_or(MISS, |c| 10 * u32::from(c.rule.is_some()));
                c = c.min(skip + best[(i + 1) * width + j]);
            }
            if j < m {
                c = c.min(MISS + best[i * width + j + 1]);
            }
            best[i * width + j] = c;
        }
    }
    let mut ops = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        let here = best[i * width + j];
        if i < n
            && j < m
            && let Some((choice, _)) = slots[i].accepts(&records[j].said)
            && cost(choice, &records[j].said) + best[(i + 1) * width + j + 1] == here
        {
            ops.push(Op::Match(i, j, choice));
            i += 1;
            j += 1;
        } else if i < n
            && slots[i]
                .skip
                .map_or(MISS, |c| 10 * u32::from(c.rule.is_some()))
                + best[(i + 1) * width + j]
                == here
        {
            ops.push(match slots[i].skip {
                Some(choice) => Op::Skip(i, choice),
                None => Op::Missing(i),
            });
            i += 1;
        } else {
            ops.push(Op::Extra(j));
            j += 1;
        }
    }
    ops
}

/// Grades the adapter's records against the stream's slots.
fn grade(slots: &[Slot], all: &Records) -> Vec<Evidence> {
    let mut out = Vec::new();
    let records = &all.before[..];
    let ops = align(slots, records);
    let mut took = vec![Took::Missing; slots.len()];
    let mut mismatches = Vec::new();
    let mut k = 0;
    while k < ops.len() {
        match ops[k] {
            Op::Match(i, j, choice) => {
                let said = &records[j].said;
                took[i] = if matches!(said, Said::Value(_)) {
                    Took::Value
                } else {
                    Took::Error
                };
                if let Some(rule) = choice.rule {
                    let message = format!(
                        "{}: the decoder answered {} ({})",
                        slots[i].at(),
                        said.show(),
                        rule.statement
                    );
                    out.push(evidence(choice.verdict, rule, message));
                }
            }
            Op::Skip(i, choice) => {
                took[i] = Took::Skip;
                if let Some(rule) = choice.rule {
                    let message = format!("{}: skipped", slots[i].at());
                    out.push(evidence(choice.verdict, rule, message));
                }
            }
            Op::Missing(i) => {
                let slot = &slots[i];
                // A missing record next to an extra one: one mismatch.
                if let Some(&Op::Extra(j)) = ops.get(k + 1) {
                    let mut e = evidence(
                        Verdict::Fail,
                        slot.rule,
                        format!(
                            "{}: stdout line {} answers it wrongly",
                            slot.at(),
                            records[j].line
                        ),
                    );
                    e.expected = vec![slot.expectation()];
                    e.actual = vec![records[j].said.show()];
                    mismatches.push(e);
                    k += 2;
                    continue;
                }
                let mut e = evidence(
                    Verdict::Fail,
                    slot.rule,
                    format!("{}: the decoder said nothing about it", slot.at()),
                );
                e.expected = vec![slot.expectation()];
                mismatches.push(e);
            }
            Op::Extra(j) => {
                let item = &records[j];
                let next = ops[k + 1..].iter().find_map(|op| match op {
                    Op::Match(i, ..) | Op::Skip(i, _) | Op::Missing(i) => Some(&slots[*i]),
                    Op::Extra(_) => None,
                });
                let place = match next {
                    Some(slot) => format!("before {}", slot.at()),
                    None => "after the stream's last record".to_owned(),
                };
                let mut e = evidence(
                    Verdict::Fail,
                    &EXTRA,
                    format!(
                        "stdout line {}: a record the stream does not hold, {place}",
                        item.line
                    ),
                );
                e.actual = vec![item.said.show()];
                mismatches.push(e);
            }
        }
        k += 1;
    }
    let more = mismatches.len().saturating_sub(MAX_MISMATCHES);
    out.extend(mismatches.into_iter().take(MAX_MISMATCHES));
    if more > 0 {
        out.push(evidence(
            Verdict::Fail,
            &RECORD,
            format!("and {more} more mismatches"),
        ));
    }
    if records.len() < all.before_count {
        out.push(evidence(
            Verdict::Fail,
            &EXTRA,
            format!(
                "{} records for a stream of {} lines; the rest are not graded",
                all.before_count,
                slots.len()
            ),
        ));
    }

    // A decoder that keeps the \r of \r\n only shows it on a blank line:
    // `\r` alone is not JSON, while `\r` after a value is JSON whitespace.
    if let Some(message) = blank_leak(slots, &took) {
        out.push(evidence(Verdict::Fail, &CRLF, message));
    }

    // The end record.
    let mut last_value: Option<&Value> = None;
    for (slot, t) in slots.iter().zip(&took) {
        let delivered = match t {
            Took::Value => true,
            Took::Missing => slot.error.is_none(),
            _ => false,
        };
        if delivered && let Some((v, _)) = &slot.value {
            last_value = Some(v);
        }
    }
    let complete = last_value.is_some_and(is_terminal);
    let want = if complete { "complete" } else { "interrupted" };
    let why = match last_value {
        Some(v) if complete => format!("its last value {} is terminal", show_json(v)),
        Some(v) => format!("its last value {} is not done or error", show_json(v)),
        None => "it holds no value".to_owned(),
    };
    match &all.end {
        None => {
            let mut e = evidence(
                Verdict::Fail,
                &END,
                format!("no end record; the stream is {want}: {why}"),
            );
            e.expected = vec![format!("{{\"end\":\"{want}\"}}")];
            out.push(e);
        }
        Some(end) => {
            if end.said != Said::End(Value::String(want.to_owned())) {
                let mut e = evidence(
                    Verdict::Fail,
                    &END,
                    format!("stdout line {}: the stream is {want}: {why}", end.line),
                );
                e.expected = vec![format!("{{\"end\":\"{want}\"}}")];
                e.actual = vec![end.said.show()];
                out.push(e);
            }
            if let Some(after) = all.after.first() {
                let mut e = evidence(
                    Verdict::Fail,
                    &CONTRACT,
                    format!(
                        "stdout line {}: {} more record(s) after the end record",
                        after.line, all.after_count
                    ),
                );
                e.actual = all.after.iter().map(|i| i.said.show()).collect();
                out.push(e);
            }
        }
    }
    out
}

/// The finding when the decoder treats blank `\n` lines and blank `\r\n`
/// lines differently, one kind skipped and the other rejected.
///
/// Error records carry no line number, so which of several adjacent
/// optional lines an error answers is the alignment's guess. This asks
/// instead which policies fit the records: in each run of lines answered
/// by nothing or an error (between delivered values), the errors must be
/// the required ones, plus the empty lines of each kind the policy
/// rejects, plus up to one per other optional line (a whitespace-only line
/// may go either way). Only when no policy that treats both kinds alike
/// fits is it a leak; the message names which kind was skipped when the
/// records tell, and says only that they differ when they do not.
fn blank_leak(slots: &[Slot], took: &[Took]) -> Option<String> {
    /// One run: errors, required errors, empty `\n` lines, empty `\r\n`
    /// lines, other optional lines.
    #[derive(Default)]
    struct Run {
        errors: usize,
        required: usize,
        lf: usize,
        crlf: usize,
        free: usize,
    }
    let mut runs = vec![Run::default()];
    for (slot, t) in slots.iter().zip(took) {
        if !matches!(t, Took::Skip | Took::Error) {
            runs.push(Run::default());
            continue;
        }
        let run = runs.last_mut().expect("never empty");
        run.errors += usize::from(*t == Took::Error);
        match (slot.skip, slot.blank_crlf) {
            (None, _) => run.required += 1,
            (Some(_), Some(false)) => run.lf += 1,
            (Some(_), Some(true)) => run.crlf += 1,
            (Some(_), None) => run.free += 1,
        }
    }
    let fits = |reject_lf: bool, reject_crlf: bool| {
        runs.iter().all(|r| {
            let need =
                r.required + usize::from(reject_lf) * r.lf + usize::from(reject_crlf) * r.crlf;
            (need..=need + r.free).contains(&r.errors)
        })
    };
    if fits(false, false) || fits(true, true) {
        return None;
    }
    let first = |crlf: bool| slots.iter().find(|s| s.blank_crlf == Some(crlf));
    let (lf, crlf) = (first(false)?, first(true)?);
    let name = |s: &Slot| {
        let ending = if s.blank_crlf == Some(true) {
            "\\r\\n"
        } else {
            "\\n"
        };
        format!("blank line {} ({ending})", s.line)
    };
    let (a, b) = if lf.line < crlf.line {
        (lf, crlf)
    } else {
        (crlf, lf)
    };
    let what = match (fits(false, true), fits(true, false)) {
        (true, true) => format!(
            "{} and {} were treated differently: one skipped, one rejected",
            name(a),
            name(b)
        ),
        (lf_skipped, crlf_skipped) if lf_skipped || crlf_skipped => {
            let did = |s: &Slot| {
                if (s.blank_crlf == Some(false)) == lf_skipped {
                    "skipped"
                } else {
                    "rejected"
                }
            };
            format!("{} was {} and {} {}", name(a), did(a), name(b), did(b))
        }
        // No policy fits at all: not a matter of line endings.
        _ => return None,
    };
    Some(format!("{what}; the \\r of \\r\\n leaked into the record"))
}

/// `\uD800`-`\uDFFF` escapes that are not a high-low pair, replaced by
/// `\uFFFD`; `None` when there are none. Python's `surrogateescape` (its
/// stdin error handler under a C or UTF-8 locale) turns each invalid byte
/// into one, and `json.dumps` writes it: JSON's grammar allows it, but it
/// is no Unicode scalar value and serde_json rejects it.
fn replace_lone_surrogates(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let unit = |i: usize| -> Option<u16> {
        if b.get(i) == Some(&b'\\') && b.get(i + 1) == Some(&b'u') {
            u16::from_str_radix(text.get(i + 2..i + 6)?, 16).ok()
        } else {
            None
        }
    };
    let mut out = String::with_capacity(text.len());
    let (mut i, mut last, mut found) = (0, 0, false);
    while i < b.len() {
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'\\') {
            i += 2;
            continue;
        }
        match unit(i) {
            Some(0xD800..=0xDBFF) if matches!(unit(i + 6), Some(0xDC00..=0xDFFF)) => i += 12,
            Some(0xD800..=0xDFFF) => {
                out.push_str(&text[last..i]);
                out.push_str("\\ufffd");
                found = true;
                i += 6;
                last = i;
            }
            _ => i += 1,
        }
    }
    out.push_str(&text[last..]);
    found.then_some(out)
}

/// Reads one line of the adapter's output as a contract record.
fn contract_record(text: &str) -> Result<Said, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let Value::Object(mut map) = v else {
        return Err("not a JSON object".into());
    };
    if map.len() != 1 {
        return Err("not an object with exactly one member".into());
    }
    if let Some(v) = map.remove("value") {
        Ok(Said::Value(v))
    } else if let Some(e) = map.remove("error") {
        Ok(Said::Error(e))
    } else if let Some(e) = map.remove("end") {
        Ok(Said::End(e))
    } else {
        Err("its member is none of value, error, end".into())
    }
}

fn shown_bytes(bytes: &[u8]) -> Bytes {
    Bytes::head(bytes, SHOWN_BYTES)
}

/// How long each target took to start and exit on an empty stream.
static STARTUPS: std::sync::Mutex<Vec<(Target, Duration)>> = std::sync::Mutex::new(Vec::new());

/// How long to wait before the first write of a rechunking plan, so the
/// target is already blocked in `read` when the pieces arrive one by one:
/// half as long again as the target takes to start and exit on an empty
/// stream, measured once per target (a Rust binary a few milliseconds, a
/// Python or Node adapter a few hundred). Without it, a split written
/// while the target is still starting reaches it as a single read and
/// tests nothing.
fn startup(target: &Target, timeout: Duration) -> Duration {
    let mut known = STARTUPS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, d)) = known.iter().find(|(t, _)| t == target) {
        return *d;
    }
    let limit = timeout.min(Duration::from_secs(2));
    let measured = match Running::spawn(target) {
        Ok(mut running) => {
            running.close_stdin();
            let until = Instant::now() + limit;
            loop {
                match running.next(until) {
                    Some(Msg::Exited(_)) | None => break running.elapsed().min(limit),
                    Some(_) => {}
                }
            }
        }
        Err(_) => Duration::ZERO,
    };
    let pause = (measured + measured / 2).max(SPLIT_PAUSE);
    known.push((target.clone(), pause));
    pause
}

/// Runs one case under one plan against a decoder: writes the stream,
/// closes stdin, reads the adapter's output until it exits or the deadline
/// passes, and grades it.
pub fn run_case(
    case: &DecoderCase,
    plan: &DecoderPlan,
    target: &Target,
    timeout: Duration,
) -> CaseResult {
    let started = Instant::now();
    let mut result = CaseResult::new(
        case.id.clone(),
        plan.name(),
        case.title.clone(),
        case.section.clone(),
    );
    let note = Evidence::note;
    let mut running = match Running::spawn(target) {
        Ok(r) => r,
        Err(e) => {
            result.verdict = Verdict::Error;
            result.evidence.push(note(
                Verdict::Error,
                format!("cannot start `{}`: {e}", target.display()),
            ));
            return result;
        }
    };
    let mut writes = plan.writes(&case.stream, &case.ends);
    // Pieces written before the target reads arrive as one read. Before a
    // split's second piece the writer waits until the target has read the
    // first (`target.rs`, `drain`); byte-wise and unpaused chunks wait for
    // the target to have started instead.
    if writes.len() > 1
        && !matches!(plan.kind(), "whole" | "split")
        && let Some(first) = writes.first_mut()
    {
        first.pause = startup(target, timeout);
    }
    let mut at = Duration::ZERO;
    for w in &writes {
        at += w.pause;
        result.sent.push(Sent {
            at_ms: at.as_millis() as u64,
            bytes: shown_bytes(&w.bytes),
        });
    }
    // The timeout runs from when the last write is done (or due, if the
    // writes never report): the pauses, and the writer's waits for a
    // slow-starting target to read a split's first piece, are the
    // runner's, not the target's.
    let drains = writes.iter().filter(|w| !w.pause.is_zero()).count() as u32;
    let mut deadline = Instant::now() + at + timeout + crate::target::DRAIN_MAX * drains;
    let mut written = writes.is_empty();
    if !written {
        running.write(writes);
    }
    running.close_stdin();

    let slots = expected(&case.stream);
    let mut framer = Framer::new(Config::default().blank_lines(BlankLines::Report));
    let mut out = Output::new(4 * slots.len() + 64);
    let (mut stdout_closed, mut exit, mut output) = (false, None, 0usize);
    let mut timed_out = false;
    let mut grace: Option<Instant> = None;
    loop {
        if stdout_closed && exit.is_some() {
            break;
        }
        let until = grace.unwrap_or(deadline);
        let Some(msg) = running.next(until) else {
            if grace.is_some() || Instant::now() < until {
                // Collected what the kill left, or nothing more can come.
                break;
            }
            timed_out = true;
            let what = if !written {
                "read the whole stream".to_owned()
            } else {
                format!(
                    "{} (the stream was written and its stdin closed)",
                    if stdout_closed {
                        "exited"
                    } else {
                        "closed its stdout"
                    }
                )
            };
            result.evidence.push(note(
                Verdict::Timeout,
                format!(
                    "the decoder had not {what} {timeout:?} after the last write was due; killed"
                ),
            ));
            running.kill();
            grace = Some(Instant::now() + Duration::from_millis(500));
            continue;
        };
        let elapsed = running.elapsed();
        match msg {
            Msg::Stdout(bytes) => {
                output += bytes.len();
                if output > OUTPUT_CAP {
                    if !running.killed() {
                        result.evidence.push(evidence(
                            Verdict::Fail,
                            &CONTRACT,
                            format!("the decoder wrote more than {OUTPUT_CAP} bytes; stopped"),
                        ));
                        running.kill();
                        grace = Some(Instant::now() + Duration::from_millis(500));
                    }
                    continue;
                }
                framer.push(&bytes, |e| out.event(e, elapsed));
            }
            Msg::StdoutClosed => stdout_closed = true,
            Msg::Exited(status) => exit = Some(status),
            Msg::Wrote | Msg::WriteFailed(_) => {
                written = true;
                if grace.is_none() {
                    deadline = Instant::now() + timeout;
                }
            }
        }
    }
    let elapsed = running.elapsed();
    framer.finish(|e| out.event(e, elapsed));
    let (records, received, findings) = out.finish();
    result.received = received;
    result.evidence.extend(findings);

    if let Some(status) = exit {
        result.exit = Some(describe_exit(status));
        if !status.success() && !running.killed() && records.end.is_none() {
            result.evidence.push(note(
                Verdict::Crash,
                format!(
                    "the decoder ended ({}) without writing its end record",
                    describe_exit(status)
                ),
            ));
        }
    }
    if !timed_out || records.before_count > 0 || records.end.is_some() {
        result.evidence.extend(grade(&slots, &records));
    }
    result.stderr = String::from_utf8_lossy(&running.stderr_tail()).into_owned();
    drop(running);

    cap_by_level(case.level, &mut result.evidence);
    result.verdict = result
        .evidence
        .iter()
        .map(|e| e.verdict)
        .max()
        .unwrap_or(Verdict::Pass);
    result.duration = started.elapsed();
    result
}

/// A case's level caps the FAILs about its stream's records (SHOULD makes
/// them NON-STRICT, INFO a pass): the level says how firmly the specs ask
/// for the reading the case is about. A wrong or missing end record and
/// output that breaks the adapter contract are FAILs at every level: no
/// reading of the stream excuses them.
fn cap_by_level(level: Level, evidence: &mut [Evidence]) {
    for e in evidence {
        let about_records = e
            .rule
            .as_ref()
            .is_some_and(|r| r.id != END.id && r.id != CONTRACT.id);
        if e.verdict == Verdict::Fail && about_records {
            match level {
                Level::Must => {}
                Level::Should => e.verdict = Verdict::NonStrict,
                _ => e.verdict = Verdict::Pass,
            }
        }
    }
}

/// What an adapter's stdout says, read line by line as it arrives: its
/// contract records (within the bounds of [`Records`]), the first
/// [`MAX_RECEIVED`] lines for the report, and the findings about lines
/// that are not contract records or carry lone surrogates, the first
/// [`MAX_MISMATCHES`] of each kind one by one and the rest counted. An
/// adapter that loops printing `{}` thus costs bounded memory up to the
/// output cap.
struct Output {
    records: Records,
    received: Vec<Received>,
    findings: Vec<Evidence>,
    /// Lines that are not contract records: how many.
    not_records: usize,
    /// Lines with lone surrogates: how many.
    surrogates: usize,
}

impl Output {
    fn new(keep: usize) -> Output {
        Output {
            records: Records::new(keep),
            received: Vec::new(),
            findings: Vec::new(),
            not_records: 0,
            surrogates: 0,
        }
    }

    /// One event of the framer reading stdout, `at` after the start.
    fn event(&mut self, event: Event<'_>, at: Duration) {
        let (number, offset, bytes) = match &event {
            Event::Line(l) => (l.number, l.offset, l.bytes.as_ref()),
            Event::Problem(p) => (p.number, p.offset, p.bytes.as_ref()),
        };
        let bom = matches!(&event, Event::Problem(p) if p.kind == ProblemKind::Bom);
        if self.received.len() < MAX_RECEIVED && !bom {
            self.received.push(Received {
                at_ms: at.as_millis() as u64,
                line: number,
                offset,
                bytes: shown_bytes(bytes),
            });
        }
        let text = match &event {
            Event::Line(l) => Cow::Borrowed(l.as_str().unwrap_or_default()),
            Event::Problem(p) if p.kind == ProblemKind::Truncated => {
                // The record is still read: only its newline is missing.
                let e = evidence(
                    Verdict::NonStrict,
                    &CONTRACT,
                    format!("stdout line {number}: {}; read anyway", p.kind),
                );
                self.findings.push(e);
                String::from_utf8_lossy(&p.bytes)
            }
            Event::Problem(p) => {
                self.not_record(evidence(
                    Verdict::Fail,
                    &CONTRACT,
                    format!("stdout line {number}: {}", p.kind),
                ));
                return;
            }
        };
        let repaired = replace_lone_surrogates(&text);
        if repaired.is_some() {
            self.surrogates += 1;
            if self.surrogates <= MAX_MISMATCHES {
                self.findings.push(evidence(
                    Verdict::Fail,
                    &UTF8,
                    format!(
                        "stdout line {number} holds lone surrogates (such as Python's surrogateescape makes of invalid bytes): the decoder passed bytes that are not UTF-8 into a value (read here as U+FFFD)"
                    ),
                ));
            }
        }
        match contract_record(repaired.as_deref().unwrap_or(&text)) {
            Ok(said) => self.records.push(Item { said, line: number }),
            Err(why) => {
                let mut e = evidence(
                    Verdict::Fail,
                    &CONTRACT,
                    format!("stdout line {number} is not a contract record: {why}"),
                );
                e.actual = vec![show_bytes(text.as_bytes())];
                self.not_record(e);
            }
        }
    }

    fn not_record(&mut self, e: Evidence) {
        self.not_records += 1;
        if self.not_records <= MAX_MISMATCHES {
            self.findings.push(e);
        }
    }

    /// The records, the lines kept for the report, and the findings.
    fn finish(mut self) -> (Records, Vec<Received>, Vec<Evidence>) {
        if let Some(more) = self.not_records.checked_sub(MAX_MISMATCHES)
            && more > 0
        {
            self.findings.push(evidence(
                Verdict::Fail,
                &CONTRACT,
                format!("and {more} more stdout lines that are not contract records"),
            ));
        }
        if let Some(more) = self.surrogates.checked_sub(MAX_MISMATCHES)
            && more > 0
        {
            self.findings.push(evidence(
                Verdict::Fail,
                &UTF8,
                format!("and {more} more stdout lines with lone surrogates"),
            ));
        }
        (self.records, self.received, self.findings)
    }
}

/// The reference decoder (`rpcspec serve --role decoder`): the contract's
/// output for the stream on `input`, built on the reference framer.
///
/// Its choices, where NDJSON leaves one: blank and whitespace-only lines
/// are skipped (NDJSON's "MAY silently ignore"); one byte order mark at the
/// start is stripped (RFC 8259 §8.1's "MAY ignore"); the `\r` of `\r\n` is
/// stripped; a line is split on `\n` only; a line that is not UTF-8, not
/// exactly one JSON value, or over 16 MiB is an error record and decoding
/// goes on with the next line; bytes after the last `\n` are delivered as
/// a value when they are one, else reported as an error. Each read's
/// records are written and flushed before the next read.
pub fn serve(mut input: impl Read, output: impl Write) -> io::Result<()> {
    let mut out = io::BufWriter::new(output);
    let mut framer = Framer::new(Config::default().bom(Bom::Strip));
    let mut terminal = false;
    let mut buf = vec![0; 64 * 1024];
    let mut pending = Vec::new();
    loop {
        let n = read_chunk(&mut input, &mut buf)?;
        if n == 0 {
            break;
        }
        framer.push(&buf[..n], |e| record(e, &mut terminal, &mut pending));
        out.write_all(&pending)?;
        pending.clear();
        out.flush()?;
    }
    framer.finish(|e| record(e, &mut terminal, &mut pending));
    let end = if terminal { "complete" } else { "interrupted" };
    rpcspec_framer::encode(&serde_json::json!({ "end": end }), &mut pending)
        .map_err(io::Error::other)?;
    out.write_all(&pending)?;
    out.flush()
}

/// The contract record for one framing event, appended to `out`.
fn record(event: Event<'_>, terminal: &mut bool, out: &mut Vec<u8>) {
    let said = match event {
        Event::Line(line) => match line.parse_value() {
            Ok(v) => Ok(v),
            Err(e) => Err(e.to_string()),
        },
        Event::Problem(p) => match p.kind {
            ProblemKind::Bom | ProblemKind::Blank => return,
            ProblemKind::Truncated => {
                if p.bytes.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r')) {
                    return;
                }
                serde_json::from_slice::<Value>(&p.bytes).map_err(|e| {
                    format!(
                        "line {} (byte {}): stream ended inside a line that is not one json value: {e}",
                        p.number, p.offset
                    )
                })
            }
            _ => Err(p.to_string()),
        },
    };
    let rec = match said {
        Ok(v) => {
            *terminal = is_terminal(&v);
            serde_json::json!({ "value": v })
        }
        Err(message) => serde_json::json!({ "error": message }),
    };
    rpcspec_framer::encode(&rec, out).expect("a Value always serialises");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serve_str(stream: &[u8]) -> String {
        let mut out = Vec::new();
        serve(stream, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// The findings of grading `output` (the adapter's stdout) for
    /// `stream`, read as `run_case` reads it.
    fn findings(stream: &[u8], output: &str) -> Vec<Evidence> {
        let slots = expected(stream);
        let mut out = Output::new(4 * slots.len() + 64);
        let mut framer = Framer::new(Config::default().blank_lines(BlankLines::Report));
        framer.push(output.as_bytes(), |e| out.event(e, Duration::ZERO));
        framer.finish(|e| out.event(e, Duration::ZERO));
        let (records, _, mut findings) = out.finish();
        findings.extend(grade(&slots, &records));
        findings
    }

    fn verdicts(stream: &[u8], output: &str) -> Vec<(Verdict, String)> {
        findings(stream, output)
            .into_iter()
            .map(|e| (e.verdict, e.rule.map(|r| r.id).unwrap_or_default()))
            .collect()
    }

    fn case_of(stream: &[u8]) -> DecoderCase {
        DecoderCase {
            id: "decoder/t/x".into(),
            title: String::new(),
            section: String::new(),
            level: Level::Must,
            stream: stream.to_vec(),
            ends: vec![stream.len()],
            only: None,
            source: Location {
                file: "t.toml".into(),
                line: 1,
                column: 1,
            },
        }
    }

    fn sh(script: &str) -> Target {
        Target {
            argv: vec!["sh".into(), "-c".into(), script.into()],
        }
    }

    #[test]
    fn the_reference_output() {
        let stream = b"\xEF\xBB\xBF{\"a\":1}\r\n\n\r\n{}{}\n\xFF\n{\"type\":\"done\"}";
        insta::assert_snapshot!(serve_str(stream), @r#"
        {"value":{"a":1}}
        {"error":"line 4 (byte 17): not one json value: trailing characters"}
        {"error":"line 5 (byte 20): invalid utf-8 after 0 valid bytes: \"\\xff\""}
        {"value":{"type":"done"}}
        {"end":"complete"}
        "#);
    }

    #[test]
    fn the_reference_grades_itself_pass() {
        for stream in [
            &b"\xEF\xBB\xBF{\"a\":1}\r\n\n\r\n{}{}\n\xFF\n{\"type\":\"done\"}"[..],
            b"",
            b"\n\n",
            b"{\"a\":\"\xE2\x80\xA8\"}\n{\"a\":",
        ] {
            assert_eq!(verdicts(stream, &serve_str(stream)), [], "{stream:?}");
        }
    }

    #[test]
    fn choices_are_graded_not_failed() {
        let stream = b"\xEF\xBB\xBF{\"a\":1}\n\n\r\n{\"type\":\"done\"}\n";
        let out = "{\"error\":\"bom\"}\n{\"error\":\"blank\"}\n{\"error\":\"blank\"}\n{\"value\":{\"type\":\"done\"}}\n{\"end\":\"complete\"}\n";
        assert_eq!(
            verdicts(stream, out),
            [
                (Verdict::NonStrict, "decoder.bom".to_owned()),
                (Verdict::Pass, "decoder.blank-line".to_owned()),
                (Verdict::Pass, "decoder.blank-line".to_owned()),
            ]
        );
    }

    #[test]
    fn a_leaked_cr_shows_on_a_crlf_blank_line() {
        let stream = b"{\"a\":1}\r\n\n\r\n{\"type\":\"done\"}\r\n";
        let out = "{\"value\":{\"a\":1}}\n{\"error\":\"x\"}\n{\"value\":{\"type\":\"done\"}}\n{\"end\":\"complete\"}\n";
        let got = verdicts(stream, out);
        assert!(
            got.contains(&(Verdict::Fail, "decoder.crlf".to_owned())),
            "{got:?}"
        );
    }

    #[test]
    fn blank_lines_treated_differently_are_named_truly() {
        let stream = b"{\"a\":1}\n\n\r\n{\"type\":\"done\"}\n";
        let message = |out: &str| {
            findings(stream, out)
                .into_iter()
                .find(|e| e.rule.as_ref().is_some_and(|r| r.id == "decoder.crlf"))
                .map(|e| e.message)
                .unwrap_or_default()
        };
        // The leaks-cr mutant: skips line 2, rejects line 3. Nothing in its
        // output tells which blank line the error is about.
        let out = "{\"value\":{\"a\":1}}\n{\"error\":\"x\"}\n{\"value\":{\"type\":\"done\"}}\n{\"end\":\"complete\"}\n";
        assert_eq!(
            message(out),
            r"blank line 2 (\n) and blank line 3 (\r\n) were treated differently: one skipped, one rejected; the \r of \r\n leaked into the record"
        );
        // With a value between them, the order of the records tells.
        let stream = b"\r\n{\"a\":1}\n\n{\"type\":\"done\"}\n";
        let out = "{\"error\":\"x\"}\n{\"value\":{\"a\":1}}\n{\"value\":{\"type\":\"done\"}}\n{\"end\":\"complete\"}\n";
        let got = findings(stream, out);
        assert_eq!(
            got.iter().map(|e| e.message.as_str()).collect::<Vec<_>>(),
            [
                "line 1 (byte 0) ``: the decoder answered {\"error\":\"x\"} (a blank line is skipped or rejected: both are documented choices)",
                r"blank line 1 (\r\n) was rejected and blank line 3 (\n) skipped; the \r of \r\n leaked into the record",
            ]
        );
    }

    #[test]
    fn a_skipped_empty_line_and_a_rejected_whitespace_line_agree() {
        // Empty lines skipped, the whitespace-only one rejected: allowed,
        // whichever blank line the alignment gives the error to.
        let stream = b"\n\r\n  \t \n{\"type\":\"done\"}\n";
        let out = "{\"error\":\"x\"}\n{\"value\":{\"type\":\"done\"}}\n{\"end\":\"complete\"}\n";
        assert_eq!(
            verdicts(stream, out),
            [(Verdict::Pass, "decoder.blank-line".to_owned())]
        );
    }

    #[test]
    fn a_skipped_crlf_line_and_a_rejected_whitespace_line_agree() {
        // Skipping empty lines and rejecting whitespace-only ones are both
        // allowed; neither line shows a leaked \r.
        let stream = b"\n\r\n  \t \n  \t \r\n{\"type\":\"done\"}\n";
        let out = "{\"error\":\"x\"}\n{\"error\":\"x\"}\n{\"value\":{\"type\":\"done\"}}\n{\"end\":\"complete\"}\n";
        assert_eq!(
            verdicts(stream, out),
            [
                (Verdict::Pass, "decoder.blank-line".to_owned()),
                (Verdict::Pass, "decoder.blank-line".to_owned()),
            ]
        );
    }

    #[test]
    fn a_bad_line_after_a_bom_is_rejected_plainly() {
        let done = "{\"value\":{\"type\":\"done\"}}\n{\"end\":\"complete\"}\n";
        let out = format!("{{\"error\":\"x\"}}\n{done}");
        for stream in [
            &b"\xEF\xBB\xBF{\"a\":\n{\"type\":\"done\"}\n"[..],
            b"\xEF\xBB\xBF{\"t\":\"\xFF\"}\n{\"type\":\"done\"}\n",
        ] {
            assert_eq!(verdicts(stream, &out), [], "{stream:?}");
        }
        // A good line after it: rejecting is NON-STRICT.
        let stream = b"\xEF\xBB\xBF{\"a\":1}\n{\"type\":\"done\"}\n";
        assert_eq!(
            verdicts(stream, &out),
            [(Verdict::NonStrict, "decoder.bom".to_owned())]
        );
    }

    #[test]
    fn a_flood_of_output_is_kept_within_bounds() {
        let stream = b"{\"type\":\"done\"}\n";
        let mut out = String::new();
        for _ in 0..5000 {
            out.push_str("not json\n\n{\"value\":\"\\udcff\"}\n");
        }
        out.push_str("{\"end\":\"complete\"}\n");
        for _ in 0..5000 {
            out.push_str("{\"value\":{}}\n");
        }
        let slots = expected(stream);
        let mut reader = Output::new(4 * slots.len() + 64);
        let mut framer = Framer::new(Config::default().blank_lines(BlankLines::Report));
        framer.push(out.as_bytes(), |e| reader.event(e, Duration::ZERO));
        framer.finish(|e| reader.event(e, Duration::ZERO));
        let (records, received, findings) = reader.finish();
        assert_eq!(records.before.len(), 68);
        assert_eq!(records.before_count, 5000);
        assert_eq!(records.after.len(), MAX_MISMATCHES);
        assert_eq!(records.after_count, 5000);
        assert_eq!(received.len(), MAX_RECEIVED);
        assert_eq!(findings.len(), 2 * MAX_MISMATCHES + 2);
        let last: Vec<&str> = findings[2 * MAX_MISMATCHES..]
            .iter()
            .map(|e| e.message.as_str())
            .collect();
        assert_eq!(
            last,
            [
                "and 9988 more stdout lines that are not contract records",
                "and 4988 more stdout lines with lone surrogates"
            ]
        );
        let graded = grade(&slots, &records);
        assert_eq!(
            graded.last().unwrap().message,
            "stdout line 15002: 5000 more record(s) after the end record"
        );
        assert_eq!(graded.last().unwrap().actual.len(), MAX_MISMATCHES);
    }

    #[test]
    fn the_level_caps_record_findings_only() {
        let stream = b"{\"a\":\r1}\n{\"type\":\"done\"}\n";
        // Split on the \r, and the end record wrong.
        let out = "{\"error\":\"1\"}\n{\"error\":\"2\"}\n{\"value\":{\"type\":\"done\"}}\nnot json\n{\"end\":\"interrupted\"}\n";
        let mut found = findings(stream, out);
        cap_by_level(Level::Should, &mut found);
        let got: Vec<(Verdict, String)> = found
            .into_iter()
            .map(|e| (e.verdict, e.rule.map(|r| r.id).unwrap_or_default()))
            .collect();
        assert_eq!(
            got,
            [
                (Verdict::Fail, "decoder.contract".to_owned()),
                (Verdict::NonStrict, "decoder.record".to_owned()),
                (Verdict::NonStrict, "decoder.extra-record".to_owned()),
                (Verdict::Fail, "decoder.end".to_owned()),
            ]
        );
    }

    #[test]
    fn a_slow_start_does_not_use_up_the_timeout() {
        // Starts in 1 s, so the writer waits about that long for it to read
        // the split's first piece: longer than the timeout, which must not
        // count it.
        let target = sh(
            "sleep 1; cat >/dev/null; echo '{\"value\":{\"type\":\"done\"}}'; echo '{\"end\":\"complete\"}'",
        );
        let case = case_of(b"{\"type\":\"done\"}\n");
        let result = run_case(
            &case,
            &DecoderPlan::Split(3),
            &target,
            Duration::from_millis(800),
        );
        assert_eq!(result.verdict, Verdict::Pass, "{:?}", result.evidence);
        assert!(
            result.duration >= Duration::from_secs(1),
            "{:?}",
            result.duration
        );
    }

    #[test]
    fn a_timeout_says_what_the_decoder_had_not_done() {
        let message = |script: &str, stream: &[u8]| {
            let result = run_case(
                &case_of(stream),
                &DecoderPlan::Whole,
                &sh(script),
                Duration::from_millis(300),
            );
            assert_eq!(result.verdict, Verdict::Timeout);
            result.evidence[0].message.clone()
        };
        // More than a pipe holds, never read.
        assert_eq!(
            message("sleep 5", &[b'\n'; 1 << 20]),
            "the decoder had not read the whole stream 300ms after the last write was due; killed"
        );
        assert_eq!(
            message("cat >/dev/null; sleep 5", b"{}\n"),
            "the decoder had not closed its stdout (the stream was written and its stdin closed) 300ms after the last write was due; killed"
        );
    }

    #[test]
    fn dropped_split_and_wrong_end_fail() {
        let stream = b"{\"a\":\"x\xE2\x80\xA8y\"}\n{\"type\":\"text\"}\n{\"b\":";
        // Split on U+2028, tail dropped, end claims complete.
        let out = "{\"error\":\"1\"}\n{\"error\":\"2\"}\n{\"value\":{\"type\":\"text\"}}\n{\"end\":\"complete\"}\n";
        let got = verdicts(stream, out);
        assert_eq!(
            got,
            [
                (Verdict::Fail, "decoder.record".to_owned()),
                (Verdict::Fail, "decoder.extra-record".to_owned()),
                (Verdict::Fail, "decoder.unterminated".to_owned()),
                (Verdict::Fail, "decoder.end".to_owned()),
            ]
        );
    }

    #[test]
    fn lone_surrogates_are_found_and_pairs_kept() {
        assert_eq!(
            replace_lone_surrogates(r#"{"t":"\udcff","p":"\ud83d\ude00","e":"\\udcff"}"#).unwrap(),
            r#"{"t":"\ufffd","p":"\ud83d\ude00","e":"\\udcff"}"#
        );
        assert_eq!(replace_lone_surrogates(r#"{"t":"\u00e9"}"#), None);
    }

    #[test]
    fn numbers_compare_by_value() {
        assert!(json_eq(&serde_json::json!(1), &serde_json::json!(1.0)));
        assert!(!json_eq(&serde_json::json!(1), &serde_json::json!(2)));
        assert!(!json_eq(
            &serde_json::json!({"a": 1}),
            &serde_json::json!({"a": 1, "b": 2})
        ));
    }

    #[test]
    fn plans_fit_the_stream() {
        let case = |stream: &[u8]| DecoderCase {
            id: "decoder/t/x".into(),
            title: String::new(),
            section: String::new(),
            level: Level::Must,
            stream: stream.to_vec(),
            ends: vec![stream.len() / 2, stream.len()],
            only: None,
            source: Location {
                file: "t.toml".into(),
                line: 1,
                column: 1,
            },
        };
        let names = |c: &DecoderCase| c.plans().iter().map(DecoderPlan::name).collect::<Vec<_>>();
        assert_eq!(
            names(&case(b"abcd")),
            [
                "whole",
                "coalesced",
                "bytewise",
                "split@1",
                "split@2",
                "split@3"
            ]
        );
        assert_eq!(
            names(&case(&[b'x'; 2000])),
            ["whole", "coalesced", "chunked@4093"]
        );
        let split = DecoderPlan::Split(2).writes(b"abcd", &[4]);
        assert_eq!(split[0].bytes, b"ab");
        assert_eq!(split[1].pause, SPLIT_PAUSE);
        assert_eq!(case(b"abcd").listing().plans.last().unwrap(), "split@1..3");
    }

    #[test]
    fn case_files_load_with_pads_and_fail_with_positions() {
        let text = "[[case]]\nname = \"long\"\ntitle = \"t\"\nsection = \"s\"\nlines = ['\"$pad(5)\"', '\\x0D']\ntail = '{'\n";
        let cases = load_str(Path::new("decoder/t.toml"), text).unwrap();
        assert_eq!(cases[0].id, "decoder/t/long");
        assert_eq!(cases[0].stream, b"\"xxxxx\"\n\r\n{");
        assert_eq!(cases[0].ends, [8, 10, 11]);

        let err = |text: &str| {
            load_str(Path::new("decoder/t.toml"), text)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err("[[case]]\nname = \"x\"\ntitle = \"t\"\nsection = \"s\"\nlines = ['$pad(9']\n"),
            "decoder/t.toml:5:10: `$pad(` without its `)`"
        );
        assert_eq!(
            err("[[case]]\nname = \"x\"\ntitle = \"t\"\nsection = \"s\"\nlines = ['a\\x0Ab']\n"),
            "decoder/t.toml:5:10: a line contains `\\x0A`: give each line its own string"
        );
        assert!(
            err("[[case]]\nname = \"x\"\ntitle = \"t\"\nsection = \"s\"\nstream = 'a'\n")
                .starts_with("decoder/t.toml:5:1: unknown field `stream`")
        );
        assert!(
            err("[[case]]\nname = \"x\"\ntitle = \"t\"\nsection = \"s\"\nplans = ['crlf']\n")
                .starts_with("decoder/t.toml:5:9: unknown plan family `crlf`")
        );
    }
}
