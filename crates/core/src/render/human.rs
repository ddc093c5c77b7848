//! The human report, for a person fixing a target: one block per case
//! that did not pass, the plans that went wrong the same way on one line,
//! the first difference first, every finding with its rule, level and
//! section; the preamble's traffic once per run; then counts by area and
//! a closing line. `-v` lists every result, plan by plan, with all of its
//! traffic.
//!
//! One escaping style throughout: text is shown as it is (JSON as JSON),
//! control characters as `\n`, `\r`, `\t` or `\u{…}`, and bytes that are
//! not UTF-8 as `\xNN`. Chunk boundaries of a write plan are `¦` in one
//! line of text.

use std::{collections::BTreeMap, fmt::Write as _};

use super::style;
use crate::report::{Bytes, CaseResult, Evidence, PREAMBLE_STEP, Prologue, Report, Verdict};

/// Most received lines shown per block without `-v`.
const SHOWN_LINES: usize = 6;
/// Most received lines shown per result with `-v`.
const SHOWN_LINES_VERBOSE: usize = 30;
/// Most characters of one line of traffic shown.
const WIDTH: usize = 240;
/// Most lines of a JSON diff.
const DIFF_LINES: usize = 6;
/// Most findings shown per way a case went wrong, without `-v`.
const SHOWN_FINDINGS: usize = 3;
/// Most ways a case went wrong shown with their details, without `-v`;
/// the others get a line each.
const SHOWN_WAYS: usize = 2;

/// The human report of `report`; `verbose` lists every result.
pub fn human(report: &Report, verbose: bool) -> String {
    let mut out = String::new();
    preamble(&mut out, report);
    if let Some(halt) = &report.halt {
        halt_block(&mut out, report, halt);
    }
    // The results of one case are consecutive: case order, then plans.
    let cases = report.results.chunk_by(|a, b| a.id == b.id);
    let mut skipped: Vec<(&str, usize)> = Vec::new();
    // Consecutive cases that went wrong in exactly the same way (one run
    // graded by many checks, all cut short by one timeout) are one block,
    // naming the others: (their evidence, the ids after the first).
    let mut same: Option<(Vec<Signature<'_>>, Vec<&str>)> = None;
    for results in cases {
        if verbose {
            verbose_case(&mut out, results);
            continue;
        }
        for r in results.iter().filter(|r| r.verdict == Verdict::Skipped) {
            let why = r
                .evidence
                .first()
                .map_or("no reason given", |e| e.message.as_str());
            match skipped.iter_mut().find(|(w, _)| *w == why) {
                Some((_, n)) => *n += 1,
                None => skipped.push((why, 1)),
            }
        }
        // The halt's block stands for every result it made.
        if let Some(halt) = &report.halt
            && results.iter().all(|r| !r.verdict.ran() || halt.made(r))
        {
            continue;
        }
        let signature = signature(results);
        if let (Some((sig, ids)), Some(this)) = (&mut same, &signature)
            && sig == this
        {
            ids.push(&results[0].id);
            continue;
        }
        close_same(&mut out, same.take());
        if worst(results).is_some() {
            case_block(&mut out, results);
            same = signature.map(|sig| (sig, Vec::new()));
        }
    }
    close_same(&mut out, same.take());
    let s = style(Verdict::Skipped);
    for (why, n) in &skipped {
        let results = if *n == 1 { "result" } else { "results" };
        let _ = writeln!(out, "{s}SKIPPED{s:#}    {n} {results}: {why}");
    }
    if !skipped.is_empty() {
        let _ = writeln!(out, "           (-v lists them)");
    }
    summary(&mut out, report);
    out
}

/// The one block of a run that halted: why, how many results it counts,
/// and the traffic of the first process it heard nothing from.
fn halt_block(out: &mut String, report: &Report, halt: &crate::report::Halt) {
    let s = style(halt.verdict);
    let made: Vec<&CaseResult> = report.results.iter().filter(|r| halt.made(r)).collect();
    let _ = writeln!(
        out,
        "{s}{:<10}{s:#} the run halted: {}",
        halt.verdict.as_str(),
        halt.message
    );
    let results = if made.len() == 1 { "result" } else { "results" };
    let _ = writeln!(
        out,
        "  {} {results} counted {} for it",
        made.len(),
        halt.verdict.as_str()
    );
    if let Some(r) = made
        .iter()
        .find(|r| !r.sent.is_empty() || !r.stderr.is_empty())
    {
        let _ = writeln!(out, "  {} ({}):", r.id, r.plan);
        traffic(out, r, "    ", SHOWN_LINES);
    }
}

/// What a case's results were, plan by plan, for telling two cases that
/// went wrong the same way on the same input: plan, verdict, each
/// finding's verdict, rule and message, and what was sent.
type Signature<'a> = (
    &'a str,
    Verdict,
    Vec<(Verdict, Option<&'a str>, &'a str)>,
    &'a [crate::report::Sent],
);

fn signature(results: &[CaseResult]) -> Option<Vec<Signature<'_>>> {
    worst(results)?;
    Some(
        results
            .iter()
            .map(|r| {
                let evidence = r
                    .evidence
                    .iter()
                    .map(|e| {
                        (
                            e.verdict,
                            e.rule.as_ref().map(|x| x.id.as_str()),
                            e.message.as_str(),
                        )
                    })
                    .collect();
                (r.plan.as_str(), r.verdict, evidence, r.sent.as_slice())
            })
            .collect(),
    )
}

/// The line naming the cases that went wrong as the block above did.
fn close_same(out: &mut String, same: Option<(Vec<Signature<'_>>, Vec<&str>)>) {
    if let Some((_, ids)) = same
        && !ids.is_empty()
    {
        let cases = if ids.len() == 1 { "case" } else { "cases" };
        let _ = writeln!(
            out,
            "  the same for {} more {cases}: {}",
            ids.len(),
            ids.join(", ")
        );
    }
}

/// The worst verdict among `results` that is worth a block: not a pass,
/// a skip or N/A.
fn worst(results: &[CaseResult]) -> Option<Verdict> {
    results
        .iter()
        .map(|r| r.verdict)
        .filter(|v| v.ran() && *v != Verdict::Pass)
        .max()
}

/// What makes two plans' results "the same way": their verdict and every
/// piece of evidence.
fn sameness(r: &CaseResult) -> impl PartialEq + '_ {
    (
        r.verdict,
        r.baselined,
        r.evidence
            .iter()
            .map(|e| {
                (
                    e.verdict,
                    e.rule.as_ref().map(|r| r.id.as_str()),
                    e.message.as_str(),
                    &e.expected,
                    &e.actual,
                )
            })
            .collect::<Vec<_>>(),
    )
}

/// One case that did not pass: a header, then each way it went wrong with
/// the plans that went so; a FAIL, TIMEOUT, CRASH or ERROR also shows its
/// traffic (that of the first plan of the way).
fn case_block(out: &mut String, results: &[CaseResult]) {
    let Some(verdict) = worst(results) else {
        return;
    };
    let first = &results[0];
    let s = style(verdict);
    let _ = writeln!(
        out,
        "{s}{:<10}{s:#} {}  {}",
        verdict.as_str(),
        first.id,
        first.title
    );
    // The ways the plans went wrong, in plan order of first appearance.
    let mut ways: Vec<(Vec<&CaseResult>, &CaseResult)> = Vec::new();
    for r in results
        .iter()
        .filter(|r| worst(std::slice::from_ref(*r)).is_some())
    {
        match ways.iter_mut().find(|(_, w)| sameness(w) == sameness(r)) {
            Some((plans, _)) => plans.push(r),
            None => ways.push((vec![r], r)),
        }
    }
    let single = ways.len() == 1 && ways[0].0.len() == results.len();
    for (i, (plans, r)) in ways.iter().enumerate() {
        let names: Vec<&str> = plans.iter().map(|p| p.plan.as_str()).collect();
        // A decoder case has dozens of plans (`split@1` …): a few named.
        let mut label = if names.len() > 6 {
            format!(
                "{} plans ({}, … {})",
                names.len(),
                names[..4].join(", "),
                names[names.len() - 1]
            )
        } else {
            names.join(", ")
        };
        if single && results.len() > 1 {
            label = if names.len() > 6 {
                format!("every plan, all {}", names.len())
            } else {
                format!("every plan ({label})")
            };
        }
        if r.verdict != verdict {
            label = format!("{label} ({})", r.verdict.as_str());
        }
        if r.baselined {
            label.push_str(" (baselined)");
        }
        if i >= SHOWN_WAYS {
            let first = r.evidence.first().map_or("", |e| e.message.as_str());
            let _ = writeln!(out, "  {label}: {}", clip(&shown(first)));
            continue;
        }
        evidence_lines(out, r, &format!("  {label}: "), "    ", false);
        // NON-STRICT too: what the target did is the evidence of a SHOULD.
        if r.verdict.fails(true) {
            traffic(out, r, "    ", SHOWN_LINES);
        }
    }
}

/// Every result of a case, plan by plan, passes too (`-v`).
fn verbose_case(out: &mut String, results: &[CaseResult]) {
    for r in results {
        let s = style(r.verdict);
        let mark = if r.baselined { " (baselined)" } else { "" };
        let _ = writeln!(
            out,
            "{s}{:<10}{s:#} {} [{}]{mark}  {}",
            r.verdict.as_str(),
            r.id,
            r.plan,
            r.title
        );
        evidence_lines(out, r, "  ", "  ", true);
        // All of a case's traffic, a pass's too (what was not run has none).
        if r.verdict.ran() {
            traffic(out, r, "  ", SHOWN_LINES_VERBOSE);
        }
    }
}

/// The level a finding without a rule of its own has: the case's, as its
/// verdict says.
fn implied_level(verdict: Verdict) -> Option<&'static str> {
    match verdict {
        Verdict::Fail => Some("MUST"),
        Verdict::NonStrict => Some("SHOULD"),
        _ => None,
    }
}

/// Each piece of evidence: its message, the rule it breaks (id, level,
/// section; the case's level and section when it names no rule), and for
/// a failed step's answer the difference from what was expected (for a
/// NON-STRICT one too with `-v`). Steps that went wrong the same way are
/// one line (`steps 1, 2: …`).
///
/// The first message follows `lead` on its line; the rest are at `indent`.
fn evidence_lines(out: &mut String, r: &CaseResult, lead: &str, indent: &str, verbose: bool) {
    let mut shown_already: Vec<(Vec<usize>, &Evidence)> = Vec::new();
    let mut alike: BTreeMap<&str, usize> = BTreeMap::new();
    for e in &r.evidence {
        let same = |o: &&mut (Vec<usize>, &Evidence)| {
            let o = o.1;
            o.verdict == e.verdict
                && o.rule.as_ref().map(|r| &r.id) == e.rule.as_ref().map(|r| &r.id)
                && o.message == e.message
                && o.expected == e.expected
                && o.actual == e.actual
        };
        match (e.step, shown_already.iter_mut().find(same)) {
            (Some(k), Some((steps, _))) if !steps.is_empty() => steps.push(k),
            _ => {
                // Without -v, one finding of a rule stands for the rest.
                let rule = e.rule.as_ref().map(|r| r.id.as_str());
                let seen = |o: &&(Vec<usize>, &Evidence)| {
                    rule.is_some() && o.1.rule.as_ref().map(|r| r.id.as_str()) == rule
                };
                if !verbose && shown_already.iter().any(|o| seen(&o)) {
                    *alike.entry(rule.unwrap_or_default()).or_default() += 1;
                    continue;
                }
                shown_already.push((e.step.into_iter().collect(), e));
            }
        }
    }
    let hidden = if verbose {
        0
    } else {
        shown_already.len().saturating_sub(SHOWN_FINDINGS)
    };
    shown_already.truncate(shown_already.len() - hidden);
    for (i, (steps, e)) in shown_already.into_iter().enumerate() {
        let step = match steps.as_slice() {
            [] => String::new(),
            [k] => format!("step {k}: "),
            ks => format!(
                "steps {}: ",
                ks.iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let start = if i == 0 { lead } else { indent };
        let _ = writeln!(out, "{start}{step}{}", clip(&shown(&e.message)));
        // Under a lead, the details sit at `indent`; else under the message.
        let more = if lead == indent {
            format!("{indent}  ")
        } else {
            indent.to_owned()
        };
        match (&e.rule, implied_level(e.verdict)) {
            (Some(rule), _) => {
                let _ = writeln!(
                    out,
                    "{more}rule {} [{}] {}: {}",
                    rule.id, rule.level, rule.section, rule.statement
                );
            }
            (None, Some(level)) if !r.section.is_empty() => {
                let why = if e.verdict == Verdict::NonStrict {
                    ": the case checks a SHOULD (or a reading the passage leaves open), so not \
                     meeting it is NON-STRICT, not FAIL"
                } else {
                    ""
                };
                let _ = writeln!(out, "{more}case [{level}] {}{why}", r.section);
            }
            _ => {}
        }
        if verbose || e.verdict.fails(false) {
            difference(out, e, &more, verbose);
        }
        if let Some(n) = e.rule.as_ref().and_then(|r| alike.get(r.id.as_str())) {
            let id = &e.rule.as_ref().expect("has a rule").id;
            let _ = writeln!(
                out,
                "{more}… and {n} more {id} findings like it (-v lists them)"
            );
        }
    }
    if hidden > 0 {
        let _ = writeln!(out, "{indent}… {hidden} more findings (-v lists them)");
    }
}

/// Expected against actual: a member-by-member diff for one message
/// against one pattern, else the lists (a few of each without `-v`).
fn difference(out: &mut String, e: &Evidence, indent: &str, verbose: bool) {
    if let ([want], [got]) = (e.expected.as_slice(), e.actual.as_slice())
        && let Ok(pattern) = crate::pattern::Pattern::parse(want)
        && let Some(lines) = pattern.diff(got, DIFF_LINES, WIDTH / 2)
        && !lines.is_empty()
    {
        let _ = writeln!(out, "{indent}expected {}", clip(want));
        for line in lines {
            let _ = writeln!(out, "{indent}  {}", shown(&line));
        }
        return;
    }
    let max = if verbose { usize::MAX } else { 3 };
    for (what, list) in [("expected", &e.expected), ("actual  ", &e.actual)] {
        for x in list.iter().take(max) {
            let _ = writeln!(out, "{indent}{what} {}", clip(&shown(x)));
        }
        if list.len() > max {
            let _ = writeln!(out, "{indent}         … {} more", list.len() - max);
        }
    }
}

/// What was sent and received, and how the target ended; the preamble's
/// part is left out (it is shown once, at the top) unless the preamble
/// itself went wrong.
fn traffic(out: &mut String, r: &CaseResult, indent: &str, max_lines: usize) {
    let (sent_from, received_from) = match own_part(r) {
        Some(p) => (p.sent.min(r.sent.len()), p.received.min(r.received.len())),
        None => (0, 0),
    };
    let sent = &r.sent[sent_from..];
    if !sent.is_empty() {
        let writes: Vec<String> = sent.iter().map(|s| bytes_text(&s.bytes)).collect();
        let gap = r
            .gaps
            .sent
            .filter(|(at, _)| *at >= sent_from)
            .map(|(at, n)| (at - sent_from, n));
        let _ = writeln!(out, "{indent}sent     {}", writes_line(&writes, gap));
    }
    let received = &r.received[received_from..];
    let gap = r.gaps.received.filter(|(at, _)| *at >= received_from);
    for (i, got) in received.iter().take(max_lines).enumerate() {
        let head = if i == 0 { "received" } else { "        " };
        if let Some((at, n)) = gap
            && at - received_from == i
        {
            let _ = writeln!(
                out,
                "{indent}         … {n} {} left out of the report …",
                nouns(n, got.unit.noun())
            );
        }
        let _ = writeln!(
            out,
            "{indent}{head} {} {} +{}ms: {}",
            got.unit.noun(),
            got.line,
            got.at_ms,
            clip(&bytes_text(&got.bytes))
        );
    }
    if received.len() > max_lines {
        let _ = writeln!(
            out,
            "{indent}         … {} more {} (-v shows {SHOWN_LINES_VERBOSE}, --format json all)",
            received.len() - max_lines,
            nouns(received.len() - max_lines, received[0].unit.noun())
        );
    }
    if received.is_empty() && !sent.is_empty() {
        let after = if received_from > 0 {
            " after the preamble"
        } else {
            ""
        };
        let _ = writeln!(out, "{indent}received nothing{after}");
    }
    // An exit with status 0 once stdin closed says nothing.
    if let Some(exit) = r.exit.as_ref().filter(|e| *e != "exit status 0") {
        let _ = writeln!(out, "{indent}exit     {exit}");
    }
    let stderr = r.stderr.trim_end();
    if !stderr.is_empty() {
        let lines: Vec<&str> = stderr.lines().collect();
        let keep = if max_lines > SHOWN_LINES { 5 } else { 2 };
        let tail = &lines[lines.len().saturating_sub(keep)..];
        for (i, line) in tail.iter().enumerate() {
            let head = if i == 0 { "stderr  " } else { "        " };
            let _ = writeln!(out, "{indent}{head} {}", clip(&shown(line)));
        }
    }
}

/// The preamble part of `r`'s traffic, unless the preamble itself went
/// wrong (a finding in one of its steps): then it is shown in full.
fn own_part(r: &CaseResult) -> Option<Prologue> {
    let p = r.prologue?;
    let failed_in_preamble = r
        .evidence
        .iter()
        .any(|e| e.step.is_none() && e.message.starts_with(PREAMBLE_STEP));
    (!failed_in_preamble).then_some(p)
}

/// The preamble's traffic, once per run: from the first result that has
/// one.
fn preamble(out: &mut String, report: &Report) {
    let Some((r, p)) = report.results.iter().find_map(|r| Some((r, r.prologue?))) else {
        return;
    };
    let _ = writeln!(
        out,
        "preamble (every case of the `{}` dialect opens with it; shown once):",
        report.dialect
    );
    for s in &r.sent[..p.sent.min(r.sent.len())] {
        let _ = writeln!(out, "  sent     {}", clip(&bytes_text(&s.bytes)));
    }
    for got in &r.received[..p.received.min(r.received.len())] {
        let _ = writeln!(out, "  received {}", clip(&bytes_text(&got.bytes)));
    }
    out.push('\n');
}

/// Writes in one line: `365 writes, 364 of 1 byte: …` when most are
/// small pieces of one size (a plan that cuts the bytes evenly), else
/// their text with `¦` at each boundary.
///
/// `gap`: the writes the report does not keep, `(index, how many)`,
/// shown as one marker there and counted in.
fn writes_line(writes: &[String], gap: Option<(usize, usize)>) -> String {
    let left_out = gap.map_or(0, |(_, n)| n);
    let total = writes.len() + left_out;
    let join = |sep: &str| -> String {
        let mut parts: Vec<&str> = writes.iter().map(String::as_str).collect();
        let marker = format!("…({left_out} writes left out)…");
        if let Some((at, _)) = gap {
            parts.insert(at.min(parts.len()), &marker);
        }
        parts.join(sep)
    };
    let mut sizes: BTreeMap<usize, usize> = BTreeMap::new();
    for w in writes {
        *sizes.entry(w.len()).or_default() += 1;
    }
    let (size, count) = sizes
        .iter()
        .max_by_key(|(_, n)| **n)
        .map_or((0, 0), |(s, n)| (*s, *n));
    // Pieces of a line (a plan cutting it into bytes), not whole lines
    // that happen to be of one length.
    if count > 4 && size <= 16 && count * 5 >= writes.len() * 4 {
        let unit = if size == 1 { "byte" } else { "bytes" };
        let of = if count == total {
            format!("{count} writes of {size} {unit}")
        } else {
            format!("{total} writes, {count} of {size} {unit}")
        };
        return format!("{of}: {}", clip(&join("")));
    }
    let what = if total == 1 {
        String::new()
    } else {
        format!("{total} writes: ")
    };
    format!("{what}{}", clip(&join("¦")))
}

/// Bytes as text: UTF-8 shown as it is, control characters escaped, and
/// bytes that are not UTF-8 as `\xNN`.
pub fn bytes_text(bytes: &Bytes) -> String {
    match bytes {
        Bytes::Text(t) => shown(t),
        Bytes::Base64(b) => {
            let raw = super::unbase64(b);
            let mut out = String::new();
            for chunk in raw.utf8_chunks() {
                out.push_str(&shown(chunk.valid()));
                for byte in chunk.invalid() {
                    let _ = write!(out, "\\x{byte:02X}");
                }
            }
            out
        }
    }
}

/// `text` with control characters escaped (`\n`, `\r`, `\t`, `\u{…}`) and
/// everything else as it is.
pub(crate) fn shown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// At most [`WIDTH`] characters of `text` (a cut leaves out at least
/// [`LEAST_CUT`](crate::report::LEAST_CUT)), saying how many bytes were
/// left out.
fn clip(text: &str) -> String {
    crate::report::head_of(text, WIDTH)
}

/// Counts by area (a case file, or a producer check group), the run's
/// line, and the closing counts.
fn summary(out: &mut String, report: &Report) {
    let mut groups: BTreeMap<&str, BTreeMap<Verdict, usize>> = BTreeMap::new();
    for r in &report.results {
        let group = crate::report::area_of(&r.id);
        *groups
            .entry(group)
            .or_default()
            .entry(r.verdict)
            .or_default() += 1;
    }
    if !out.is_empty() {
        out.push('\n');
    }
    for (group, counts) in &groups {
        let cells: Vec<String> = counts
            .iter()
            .map(|(v, n)| {
                let s = style(*v);
                format!("{s}{n} {}{s:#}", v.as_str().to_lowercase())
            })
            .collect();
        let _ = writeln!(out, "{group:<28} {}", cells.join(", "));
    }
    for stale in &report.stale {
        let _ = writeln!(out, "stale baseline entry: {stale}");
    }
    let s = report.summary();
    let cases = report.cases();
    let _ = writeln!(
        out,
        "\n{} {} of {cases} {} against `{}` ({}{}) in {:.2}s; {} failed; {} baselined, {} stale",
        report.results.len(),
        if report.results.len() == 1 {
            "result"
        } else {
            "results"
        },
        if cases == 1 { "case" } else { "cases" },
        report.target,
        match report.role.as_str() {
            "producer" => format!("producer, {} profile", report.dialect),
            "decoder" => "decoder".to_owned(),
            _ => format!("{} dialect", report.dialect),
        },
        if report.strict { ", strict" } else { "" },
        report.duration.as_secs_f64(),
        match report.failed_cases() {
            1 => "1 case".to_owned(),
            n => format!("{n} cases"),
        },
        s.baselined,
        s.stale
    );
    let _ = writeln!(out, "{}", s.closing_line());
}

/// `noun` for `n` of them: `line`, `lines`.
fn nouns(n: usize, noun: &str) -> String {
    if n == 1 {
        noun.to_owned()
    } else {
        format!("{noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_of_one_takes_the_singular() {
        assert_eq!(nouns(1, "message"), "message");
        assert_eq!(nouns(2, "line"), "lines");
        assert_eq!(nouns(0, "line"), "lines");
    }

    #[test]
    fn one_escaping_style() {
        assert_eq!(
            shown("{\"a\": \"b\"}\r\n\u{1}\u{2028}é"),
            "{\"a\": \"b\"}\\r\\n\\u{1}\\u{2028}é"
        );
        let raw = Bytes::new(b"{\"x\": \"caf\xE9\"}\n");
        assert_eq!(bytes_text(&raw), "{\"x\": \"caf\\xE9\"}\\n");
    }

    #[test]
    fn cases_that_went_wrong_alike_on_one_input_are_one_block() {
        let result = |id: &str, sent: &[u8]| {
            let mut r = CaseResult::new(id.into(), "whole".into(), "t".into(), "§1".into());
            r.evidence.push(Evidence::note(
                Verdict::Timeout,
                "the deadline passed".into(),
            ));
            r.sent.push(crate::report::Sent {
                at_ms: 0,
                bytes: Bytes::new(sent),
            });
            r.settle();
            r
        };
        let plain = |text: String| anstream::adapter::strip_str(&text).to_string();
        let report = |results| Report {
            target: "t".into(),
            role: "producer".into(),
            dialect: "events".into(),
            strict: false,
            results,
            stale: Vec::new(),
            duration: std::time::Duration::ZERO,
            halt: None,
        };
        let alike = plain(human(
            &report(vec![result("a/x", b"in"), result("a/y", b"in")]),
            false,
        ));
        assert_eq!(alike.matches("TIMEOUT    a/").count(), 1, "{alike}");
        assert!(
            alike.contains("  the same for 1 more case: a/y\n"),
            "{alike}"
        );
        let apart = plain(human(
            &report(vec![result("a/x", b"in"), result("a/y", b"other")]),
            false,
        ));
        assert_eq!(apart.matches("TIMEOUT    a/").count(), 2, "{apart}");
        assert!(!apart.contains("the same for"), "{apart}");
    }

    #[test]
    fn writes_are_one_line() {
        let bytewise: Vec<String> = "{\"a\":1}".chars().map(String::from).collect();
        assert_eq!(
            writes_line(&bytewise, None),
            "7 writes of 1 byte: {\"a\":1}"
        );
        let mut barrier_first = vec!["{\"id\":0}\\n".to_owned()];
        barrier_first.extend(bytewise);
        assert_eq!(
            writes_line(&barrier_first, None),
            "8 writes, 7 of 1 byte: {\"id\":0}\\n{\"a\":1}"
        );
        let split = vec!["{\"a\"".to_owned(), ":1}\\n".to_owned()];
        assert_eq!(writes_line(&split, None), "2 writes: {\"a\"¦:1}\\n");
        assert_eq!(writes_line(&["x".to_owned()], None), "x");
        assert_eq!(
            writes_line(&split, Some((1, 3))),
            "5 writes: {\"a\"¦…(3 writes left out)…¦:1}\\n"
        );
    }
}
