//! Renderers of the one report model: human text (`human.rs`), JSON
//! (NDJSON events) and JUnit XML.
//!
//! # The JSON report
//!
//! One JSON object per line, each `{"type": …, "data": …}` (ripgrep's
//! `--json` shape), in this order:
//!
//! * `{"type":"start","data":{"target":…,"role":…,"dialect":…,"strict":…}}`
//! * one `{"type":"result","data":{…}}` per (case, plan): `id`, `plan`,
//!   `title`, `section`, `verdict` (`PASS`, `NON-STRICT`, `SKIPPED`, `FAIL`,
//!   `TIMEOUT`, `CRASH`, `ERROR`), `duration` (ms), and when not empty:
//!   `evidence` (each with `verdict`, `message`, and optionally `rule`
//!   `{id, level, section, statement}`, `step`, `expected`, `actual`),
//!   `sent` (`{at_ms, bytes}` per write, so chunk boundaries show),
//!   `received` (`{at_ms, line, offset, bytes}` per line), `stderr`, `exit`,
//!   `baselined`, `prologue` (`{steps, sent, received}`: the dialect
//!   preamble's part of the traffic), `gaps` (`{sent, received}`: where
//!   writes and lines were left out, `[index, count]`). Bytes are `{"text": …}` when UTF-8, else
//!   `{"base64": …}`.
//! * `{"type":"summary","data":{"passed","non_strict","failed","timeouts","crashes","errors","skipped","not_applicable","baselined","stale","duration","stale_entries"}}`
//!   (`failed` counts every failing result; `timeouts`, `crashes` and
//!   `errors` say how many of them were TIMEOUT, CRASH and ERROR)
//!
//! Fields are only ever added, never renamed or removed, within a major
//! version.

use std::{
    collections::BTreeMap,
    fmt::Write as _,
    time::{SystemTime, UNIX_EPOCH},
};

use anstyle::{AnsiColor, Style};
use serde_json::json;

use crate::report::{Bytes, CaseResult, Evidence, Report, Verdict};

mod ci;
mod human;
pub use ci::{github, markdown};
pub use human::bytes_text;
pub use human::human;

/// The bytes a standard base64 text (as [`crate::report::base64`] writes
/// it) stands for; characters outside the alphabet are skipped.
pub(crate) fn unbase64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let sextets: Vec<u8> = text.bytes().filter_map(value).collect();
    let mut out = Vec::with_capacity(sextets.len() * 3 / 4);
    for group in sextets.chunks(4) {
        let n = group
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &v)| n | u32::from(v) << (18 - 6 * i));
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..group.len().saturating_sub(1)]);
    }
    out
}

/// The rule a finding names, `id [LEVEL] section`; for a finding of the
/// case's own expectation the case's level and section (a TIMEOUT, CRASH
/// or ERROR, which judged no rule, just the section).
pub(crate) fn rule_of(r: &CaseResult, e: &Evidence) -> String {
    match &e.rule {
        Some(rule) => format!("{} [{}] {}", rule.id, rule.level, rule.section),
        None => match e.verdict {
            Verdict::Fail => format!("case [MUST] {}", r.section),
            Verdict::NonStrict => format!("case [SHOULD] {}", r.section),
            // A TIMEOUT, CRASH or ERROR judged no rule: the case's section.
            _ => format!("case {}", r.section),
        },
    }
}

fn style(verdict: Verdict) -> Style {
    let color = match verdict {
        Verdict::Pass => AnsiColor::Green,
        Verdict::NonStrict => AnsiColor::Yellow,
        Verdict::Skipped | Verdict::NotApplicable => AnsiColor::BrightBlack,
        _ => AnsiColor::Red,
    };
    Style::new().fg_color(Some(color.into())).bold()
}

/// Most characters of one sent or received line shown in human output and
/// JUnit text; the JSON report always has everything.
const SHOWN: usize = 400;

/// Bytes as the human report shows them ([`human::bytes_text`]: one
/// escaping style), clipped.
fn show(bytes: &Bytes) -> String {
    clip(&human::bytes_text(bytes))
}

/// At most [`SHOWN`] characters of `text`, saying how many bytes were
/// left out ([`crate::report::head_of`]).
fn clip(text: &str) -> String {
    crate::report::head_of(text, SHOWN)
}

/// One NDJSON event, `{"type": …, "data": …}`, with `type` first, without
/// its newline.
pub fn envelope(kind: &str, data: &impl serde::Serialize) -> String {
    let data = serde_json::to_string(data).expect("report data serialises");
    format!(
        "{{\"type\":{},\"data\":{data}}}",
        serde_json::Value::from(kind)
    )
}

/// The JSON report: NDJSON events (see the [module docs](self)).
pub fn json(report: &Report) -> String {
    let s = report.summary();
    let mut out = envelope(
        "start",
        &json!({"target": report.target, "role": report.role, "dialect": report.dialect, "strict": report.strict}),
    );
    // One string, not a list of lines joined: the report is held once.
    for r in &report.results {
        out.push('\n');
        out.push_str(&envelope("result", r));
    }
    out.push('\n');
    out.push_str(&envelope(
        "summary",
        &json!({
            // Each result in one count: they add up to `results`.
            "results": report.results.len(), "cases": report.cases(), "failed_cases": report.failed_cases(),
            "passed": s.passed, "non_strict": s.non_strict, "failed": s.failed - s.timeouts - s.crashes - s.errors,
            "timeouts": s.timeouts, "crashes": s.crashes, "errors": s.errors,
            "skipped": s.skipped, "not_applicable": s.not_applicable, "baselined": s.baselined, "stale": s.stale,
            "duration": report.duration.as_millis() as u64, "stale_entries": report.stale,
        }),
    ));
    out.push('\n');
    out
}

/// JUnit XML valid against the Ant schema CI systems read: one
/// `<testsuite>` per case file, one `<testcase>` per (case, plan) named
/// `<case id> [<plan>]`. FAIL and TIMEOUT are `<failure>`, CRASH and ERROR
/// `<error>`, SKIPPED `<skipped>`; NON-STRICT passes, noted in
/// `<system-out>`. Baselined failures are reported as passes, noted too.
pub fn junit(report: &Report) -> String {
    let timestamp = utc_timestamp(SystemTime::now());
    let mut groups: BTreeMap<&str, Vec<&CaseResult>> = BTreeMap::new();
    for r in &report.results {
        let group = r.id.rsplit_once('/').map_or(r.id.as_str(), |(g, _)| g);
        groups.entry(group).or_default().push(r);
    }
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
    for (i, (group, results)) in groups.iter().enumerate() {
        let count = |f: &dyn Fn(&CaseResult) -> bool| results.iter().filter(|r| f(r)).count();
        let failing = |r: &CaseResult| !r.baselined && r.verdict.fails(report.strict);
        let failures = count(&|r| {
            failing(r)
                && matches!(
                    r.verdict,
                    Verdict::Fail | Verdict::Timeout | Verdict::NonStrict
                )
        });
        let errors = count(&|r| failing(r) && matches!(r.verdict, Verdict::Crash | Verdict::Error));
        let skipped = count(&|r| !r.verdict.ran());
        let time: f64 = results.iter().map(|r| r.duration.as_secs_f64()).sum();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" package=\"rpcspec\" id=\"{i}\" timestamp=\"{timestamp}\" hostname=\"localhost\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"{time:.3}\">",
            xml(group),
            results.len()
        );
        let _ = writeln!(out, "    <properties>");
        let _ = writeln!(
            out,
            "      <property name=\"target\" value=\"{}\"/>",
            xml(&report.target)
        );
        let _ = writeln!(
            out,
            "      <property name=\"role\" value=\"{}\"/>",
            xml(&report.role)
        );
        let _ = writeln!(
            out,
            "      <property name=\"dialect\" value=\"{}\"/>",
            xml(&report.dialect)
        );
        let _ = writeln!(out, "    </properties>");
        let mut notes = String::new();
        for r in results {
            let _ = write!(
                out,
                "    <testcase name=\"{} [{}]\" classname=\"{}\" time=\"{:.3}\"",
                xml(&r.id),
                r.plan,
                xml(group),
                r.duration.as_secs_f64()
            );
            // The finding that gave the verdict, with its rule and section.
            let message = r
                .evidence
                .iter()
                .find(|e| e.verdict == r.verdict)
                .or(r.evidence.first())
                .map_or(String::new(), |e| {
                    if r.verdict.ran() {
                        format!("{} ({})", e.message, rule_of(r, e))
                    } else {
                        e.message.clone()
                    }
                });
            let body = evidence_text(r);
            let element = match r.verdict {
                _ if r.baselined => None,
                Verdict::Skipped | Verdict::NotApplicable => {
                    let _ = writeln!(
                        out,
                        ">\n      <skipped message=\"{}\"/>\n    </testcase>",
                        xml(&message)
                    );
                    continue;
                }
                Verdict::NonStrict if !report.strict => None,
                Verdict::Pass => None,
                Verdict::Crash | Verdict::Error => Some("error"),
                _ => Some("failure"),
            };
            match element {
                Some(el) => {
                    let _ = writeln!(
                        out,
                        ">\n      <{el} message=\"{}\" type=\"{}\">{}</{el}>\n    </testcase>",
                        xml(&message),
                        r.verdict.as_str(),
                        xml(&body)
                    );
                }
                None => {
                    out.push_str("/>\n");
                    if r.verdict != Verdict::Pass {
                        let why = if r.baselined { "baselined " } else { "" };
                        let _ = writeln!(
                            notes,
                            "{} [{}]: {why}{}\n{body}",
                            r.id,
                            r.plan,
                            r.verdict.as_str()
                        );
                    }
                }
            }
        }
        let _ = writeln!(out, "    <system-out>{}</system-out>", xml(&notes));
        out.push_str("    <system-err></system-err>\n  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// The rule, expected and actual lines of one piece of evidence.
fn evidence_details(out: &mut String, e: &Evidence, indent: &str) {
    if let Some(rule) = &e.rule {
        let _ = writeln!(
            out,
            "{indent}rule {} [{}] ({}): {}",
            rule.id, rule.level, rule.section, rule.statement
        );
    }
    for x in &e.expected {
        let _ = writeln!(out, "{indent}expected: {}", clip(x));
    }
    for a in &e.actual {
        let _ = writeln!(out, "{indent}actual:   {}", clip(a));
    }
}

fn evidence_text(r: &CaseResult) -> String {
    let mut text = String::new();
    for e in &r.evidence {
        let _ = writeln!(text, "{}: {}", e.verdict.as_str(), e.message);
        evidence_details(&mut text, e, "  ");
    }
    for s in &r.sent {
        let _ = writeln!(text, "  sent +{}ms: {}", s.at_ms, show(&s.bytes));
    }
    for g in &r.received {
        let _ = writeln!(
            text,
            "  received {} {} +{}ms: {}",
            g.unit.noun(),
            g.line,
            g.at_ms,
            show(&g.bytes)
        );
    }
    if let Some(exit) = &r.exit {
        let _ = writeln!(text, "  exit {exit}");
    }
    // The last lines of stderr: why a target failed, often.
    let stderr: Vec<&str> = r.stderr.trim_end().lines().collect();
    for line in &stderr[stderr.len().saturating_sub(5)..] {
        let _ = writeln!(text, "  stderr {}", clip(&human::shown(line)));
    }
    text
}

/// Escapes text for HTML content and attribute values.
pub fn esc(text: &str) -> String {
    html(text, true)
}

/// Escapes text for HTML content only (`&`, `<`, `>`): quotes stay as they
/// are, as JSON in a `<pre>` reads best.
pub fn esc_text(text: &str) -> String {
    html(text, false)
}

fn html(text: &str, quotes: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if quotes => out.push_str("&quot;"),
            '\'' if quotes => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Escapes text for XML attributes and content; drops the characters XML
/// 1.0 cannot hold at all (they are shown escaped by [`show`] already).
fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\t' | '\r' => out.push_str(&format!("&#{};", c as u32)),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// The UTC (year, month, day) of `secs` since the Unix epoch (Howard
/// Hinnant's civil-from-days).
pub fn civil_date(secs: u64) -> (i64, i64, i64) {
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// `YYYY-MM-DDTHH:MM:SS` in UTC, without a zone (as the schema wants).
fn utc_timestamp(now: SystemTime) -> String {
    let secs = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let rem = secs % 86_400;
    let (year, month, day) = civil_date(secs);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn timestamps_are_civil_utc() {
        let at = |s| utc_timestamp(UNIX_EPOCH + Duration::from_secs(s));
        assert_eq!(at(0), "1970-01-01T00:00:00");
        assert_eq!(at(951_782_400), "2000-02-29T00:00:00");
        assert_eq!(at(1_796_041_545), "2026-11-30T12:25:45");
    }

    #[test]
    fn base64_round_trips() {
        for bytes in [
            &b""[..],
            b"f",
            b"fo",
            b"foo",
            b"caf\xE9\n",
            b"\x00\xFF\x80abc",
        ] {
            assert_eq!(unbase64(&crate::report::base64(bytes)), bytes);
        }
    }

    #[test]
    fn xml_escapes_everything_it_must() {
        assert_eq!(
            xml("a<b>&\"'\n\u{1}"),
            "a&lt;b&gt;&amp;&quot;&apos;&#10;\\u{1}"
        );
    }
}
