//! Grading an adapter's records against the reference framer's reading of
//! the stream: the expected slots, an edit-distance alignment of what was
//! said against them, and the evidence under the rules of `rules.rs`.
//! Pure: no process, no clock.

use rpcspec_framer::{BlankLines, Bom, Config, Event, ProblemKind};
use serde_json::Value;

use super::{
    BLANK, BOM, CONTRACT, CRLF, Choice, END, EXTRA, Evidence, INVALID, LENGTH, LONG_LINE,
    MAX_MISMATCHES, PLAIN, RECORD, Rule, RuleRef, TAIL, UTF8, Verdict,
};

/// One record of the stream, as the reference framer reads it, and what a
/// decoder may say about it.
pub(super) struct Slot {
    /// 1-based line in the stream.
    pub(super) line: u64,
    /// Stream offset of the record.
    pub(super) offset: u64,
    /// The record, shown escaped (cut if long).
    pub(super) shown: String,
    /// The value it holds, and the grade of delivering it.
    pub(super) value: Option<(Value, Choice)>,
    /// The grade of rejecting it.
    pub(super) error: Option<Choice>,
    /// The grade of saying nothing about it.
    pub(super) skip: Option<Choice>,
    /// What is broken when the decoder's answer fits none of the above.
    pub(super) rule: &'static Rule,
    /// A blank line: whether it ended in `\r\n`.
    pub(super) blank_crlf: Option<bool>,
}

/// A line of the stream as reports show it (the human report's one
/// escaping style: text as it is, control characters and bytes that are
/// not UTF-8 escaped), its first 80 bytes.
pub(super) fn show_bytes(bytes: &[u8]) -> String {
    let shown = &bytes[..bytes.len().min(80)];
    let mut s = crate::render::bytes_text(&crate::report::Bytes::new(shown));
    if shown.len() < bytes.len() {
        s.push_str(&format!("… ({} bytes)", bytes.len()));
    }
    s
}

pub(super) fn show_json(v: &Value) -> String {
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
pub(super) fn expected(stream: &[u8]) -> Vec<Slot> {
    let config = Config::default()
        .with_blank_lines(BlankLines::Report)
        .with_bom(Bom::Report);
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
pub(super) enum Said {
    Value(Value),
    Error(Value),
    End(Value),
}

impl Said {
    pub(super) fn show(&self) -> String {
        match self {
            Said::Value(v) => format!("{{\"value\":{}}}", show_json(v)),
            Said::Error(e) => format!("{{\"error\":{}}}", show_json(e)),
            Said::End(e) => format!("{{\"end\":{}}}", show_json(e)),
        }
    }
}

/// One contract record from the adapter, with its stdout line.
pub(super) struct Item {
    pub(super) said: Said,
    pub(super) line: u64,
}

/// The adapter's contract records, kept within bounds however many it
/// writes: the first `keep` before its first end record (the rest only
/// counted, since a flood is not worth aligning one by one), that end
/// record, and the first [`MAX_MISMATCHES`] after it (the rest counted).
pub(super) struct Records {
    pub(super) keep: usize,
    pub(super) before: Vec<Item>,
    pub(super) before_count: usize,
    pub(super) end: Option<Item>,
    pub(super) after: Vec<Item>,
    pub(super) after_count: usize,
}

impl Records {
    /// Room for `keep` records before the end: grading a stream of N
    /// records looks at no more than `4 * N + 64`.
    pub(super) fn new(keep: usize) -> Records {
        Records {
            keep,
            before: Vec::new(),
            before_count: 0,
            end: None,
            after: Vec::new(),
            after_count: 0,
        }
    }

    pub(super) fn push(&mut self, item: Item) {
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
pub(super) fn json_eq(a: &Value, b: &Value) -> bool {
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
    pub(super) fn accepts(&self, said: &Said) -> Option<(Choice, bool)> {
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

    pub(super) fn expectation(&self) -> String {
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

    pub(super) fn at(&self) -> String {
        format!("line {} (byte {}) `{}`", self.line, self.offset, self.shown)
    }
}

/// How a slot was resolved.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Took {
    Value,
    Error,
    Skip,
    Missing,
}

pub(super) fn evidence(verdict: Verdict, rule: &'static Rule, message: String) -> Evidence {
    Evidence {
        verdict,
        rule: Some(RuleRef::from_rule(rule)),
        message,
        step: None,
        expected: Vec::new(),
        actual: Vec::new(),
    }
}

/// One step of the alignment of slots with the adapter's records.
#[derive(Clone, Copy)]
pub(super) enum Op {
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
pub(super) const MISS: u32 = 1000;

pub(super) fn cost(choice: Choice, said: &Said) -> u32 {
    10 * u32::from(choice.rule.is_some()) + u32::from(!matches!(said, Said::Value(_)))
}

/// The cheapest alignment of `slots` with `records` (an edit distance:
/// records answer slots in order; optional slots may go unanswered).
pub(super) fn align(slots: &[Slot], records: &[Item]) -> Vec<Op> {
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
pub(super) fn grade(slots: &[Slot], all: &Records) -> Vec<Evidence> {
    let records = &all.before[..];
    let ops = align(slots, records);
    let (mut out, took, mismatches) = follow(slots, records, &ops);
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
    grade_end(slots, &took, all, &mut out);
    out
}

/// Follows the alignment `ops`: the findings of tolerated choices, how
/// each slot was resolved, and the mismatches (a missing record next to
/// an extra one is one).
fn follow(
    slots: &[Slot],
    records: &[Item],
    ops: &[Op],
) -> (Vec<Evidence>, Vec<Took>, Vec<Evidence>) {
    let mut out = Vec::new();
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
                // A missing record next to an extra one: one mismatch.
                if let Some(&Op::Extra(j)) = ops.get(k + 1) {
                    mismatches.push(answered_wrongly(&slots[i], &records[j]));
                    k += 2;
                    continue;
                }
                let slot = &slots[i];
                let mut e = evidence(
                    Verdict::Fail,
                    slot.rule,
                    format!("{}: the decoder said nothing about it", slot.at()),
                );
                e.expected = vec![slot.expectation()];
                mismatches.push(e);
            }
            Op::Extra(j) => {
                let next = ops[k + 1..].iter().find_map(|op| match op {
                    Op::Match(i, ..) | Op::Skip(i, _) | Op::Missing(i) => Some(&slots[*i]),
                    Op::Extra(_) => None,
                });
                mismatches.push(extra_record(&records[j], next));
            }
        }
        k += 1;
    }
    (out, took, mismatches)
}

/// The mismatch of a slot answered by the wrong record.
fn answered_wrongly(slot: &Slot, record: &Item) -> Evidence {
    let mut e = evidence(
        Verdict::Fail,
        slot.rule,
        format!(
            "{}: stdout line {} answers it wrongly",
            slot.at(),
            record.line
        ),
    );
    e.expected = vec![slot.expectation()];
    e.actual = vec![record.said.show()];
    e
}

/// The mismatch of a record that answers no slot, placed before the slot
/// `next` (`None`: after the last).
fn extra_record(item: &Item, next: Option<&Slot>) -> Evidence {
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
    e
}

/// Grades the end record: there is one, it says whether the stream is
/// complete (its last delivered value terminal) or interrupted, and no
/// record follows it.
fn grade_end(slots: &[Slot], took: &[Took], all: &Records, out: &mut Vec<Evidence>) {
    let mut last_value: Option<&Value> = None;
    for (slot, t) in slots.iter().zip(took) {
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
pub(super) fn blank_leak(slots: &[Slot], took: &[Took]) -> Option<String> {
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
pub(super) fn replace_lone_surrogates(text: &str) -> Option<String> {
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
pub(super) fn contract_record(text: &str) -> Result<Said, String> {
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
