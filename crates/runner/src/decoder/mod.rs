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
    io::{Read, Write},
    path::Path,
    time::Duration,
};

use rpcspec_framer::read::read_chunk;
use rpcspec_matcher::Level;
use serde::Deserialize;
use toml::Spanned;

mod grade;
mod reference;
mod role;
mod rules;
mod run;
mod session;
#[cfg(test)]
mod tests;

// What the files of decoder/ take from one another through this module.
pub use grade::is_terminal;
use grade::{
    Item, Records, contract_record, evidence, expected, grade, replace_lone_surrogates, show_bytes,
};
pub use reference::{offered_pipes, serve, serve_pipes};
pub use role::Decoders;
use rules::{
    BLANK, BOM, CONTRACT, CRLF, Choice, END, EXTRA, INVALID, LENGTH, PLAIN, RECORD, Rule, TAIL,
    UTF8,
};
#[cfg(test)]
use run::*;
pub use run::{PIPES_ENV, PIPES_HELLO, run_case};
pub use session::{Session, run_case_in};

use crate::{
    budget::Budget,
    casefile::{self, Listing, LoadError, Meta},
    drive::{Drive, KILL_GRACE},
    plan::{Cut, SPLIT_PAUSE, Write as PlanWrite, cut},
    report::{Bytes, CaseResult, Evidence, Received, RuleRef, Sent, Verdict},
    shipped,
    target::{Msg, Running, Target, describe_exit},
    unescape::stream_text,
};

/// Streams up to this many bytes are also split in two at every offset.
pub const SPLIT_EVERY_MAX: usize = 80;
/// Streams up to this many bytes are also written a byte per write.
pub const BYTEWISE_MAX: usize = 1024;
/// Lines longer than this are over the most common hidden limit (Python
/// asyncio's `StreamReader`, Go's `bufio.Scanner`): rejecting them is
/// NON-STRICT, not a failure.
pub const LONG_LINE: usize = 64 * 1024;
/// Bytes of one write or line kept in a report.
pub(super) const SHOWN_BYTES: usize = 1024;
/// Most received lines a result keeps.
pub(super) const MAX_RECEIVED: usize = 2000;
/// Most mismatches reported one by one.
pub(super) const MAX_MISMATCHES: usize = 12;

/// One decoder case: a byte stream, graded by the reference framer's
/// reading of it.
#[derive(Debug, Clone)]
pub struct DecoderCase {
    /// What the case says of itself (`decoder/<file>/<name>`, …); a
    /// decoder case requires nothing.
    pub meta: Meta,
    /// The exact bytes of the stream.
    pub stream: Vec<u8>,
    /// Where each line (and the unterminated tail) ends: the `whole` plan
    /// writes one line per write.
    pub ends: Vec<usize>,
    /// Plan families the case is limited to (`None`: every one that fits).
    pub only: Option<Vec<String>>,
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
        let mut lines = Vec::with_capacity(ends.len() + 1);
        let mut start = 0;
        for &end in ends {
            lines.push(stream[start..end].to_vec());
            start = end;
        }
        if start < stream.len() {
            lines.push(stream[start..].to_vec());
        }
        let (how, pause) = match *self {
            DecoderPlan::Whole => (Cut::Whole, Duration::ZERO),
            DecoderPlan::Coalesced => (Cut::Together, Duration::ZERO),
            DecoderPlan::Bytewise => (Cut::Bytewise { max: usize::MAX }, Duration::ZERO),
            DecoderPlan::Split(k) => (Cut::Before(k), SPLIT_PAUSE),
            // Paused on short streams, where the pauses cost little.
            DecoderPlan::Chunked(n) if stream.len() <= BYTEWISE_MAX => {
                (Cut::Chunks(n), SPLIT_PAUSE)
            }
            DecoderPlan::Chunked(n) => (Cut::Chunks(n), Duration::ZERO),
        };
        cut(&lines, how, pause)
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
        self.meta.listing(names)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileDef {
    #[serde(default)]
    case: Vec<Spanned<CaseDef>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CaseDef {
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
    for (rel, text) in shipped::builtin_files(Some("decoder")) {
        cases.extend(load_str(rel, text)?);
    }
    Ok(cases)
}

/// The decoder cases under `root/decoder/`.
pub fn load_dir(root: &Path) -> Result<Vec<DecoderCase>, LoadError> {
    let mut cases = Vec::new();
    for (rel, text) in casefile::read_tree(root, Some("decoder"))? {
        cases.extend(load_str(&rel, &text)?);
    }
    Ok(cases)
}

/// Loads the decoder cases of one file, given its path relative to the
/// cases root (which makes the ids) and its text.
pub fn load_str(file: &Path, text: &str) -> Result<Vec<DecoderCase>, LoadError> {
    let at =
        |span: std::ops::Range<usize>, message: String| LoadError::at(file, text, span, message);
    let def: FileDef = casefile::parse_toml(file, text)?;
    let prefix = casefile::id_prefix(file);
    let lines = casefile::Lines::new(text);
    let mut cases: Vec<DecoderCase> = Vec::new();
    let mut seen = casefile::SeenIds::new();
    for spanned in def.case {
        let case_span = spanned.span();
        let def = spanned.into_inner();
        let name_span = def.name.span();
        let name = def.name.into_inner();
        let line = lines.locate(file, case_span.start).line;
        let id =
            casefile::case_id(&prefix, &name, line, &mut seen).map_err(|e| at(name_span, e))?;
        let level = match &def.level {
            None => Level::Must,
            Some(l) => casefile::parse_level(l.as_ref()).map_err(|e| at(l.span(), e))?,
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
            meta: Meta {
                id,
                title: def.title,
                section: def.section,
                level,
                requires: Vec::new(),
                source: lines.locate(file, case_span.start),
            },
            stream,
            ends,
            only,
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
