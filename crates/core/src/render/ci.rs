//! The CI renderers: GitHub Actions workflow commands (`--format github`:
//! an `::error` or `::warning` annotation per case that did not pass) and
//! a Markdown summary (`--format markdown`, and the job summary the GitHub
//! format writes to `$GITHUB_STEP_SUMMARY`).

use std::{collections::BTreeMap, fmt::Write as _};

use crate::report::{CaseResult, Report, Verdict};

/// One case that did not pass, as the CI renderers show it: the worst
/// verdict, the plans that got it, its first finding and that finding's
/// rule (or the case's level and section).
struct Failing<'a> {
    verdict: Verdict,
    id: &'a str,
    title: &'a str,
    plans: Vec<&'a str>,
    of: usize,
    finding: String,
    rule: String,
}

/// The cases that did not pass (baselined ones left out), in report order.
fn failing(report: &Report) -> Vec<Failing<'_>> {
    let mut out: Vec<Failing<'_>> = Vec::new();
    for results in report.results.chunk_by(|a, b| a.id == b.id) {
        let first = &results[0];
        let bad: Vec<&CaseResult> = results
            .iter()
            .filter(|r| !r.baselined && r.verdict.ran() && r.verdict != Verdict::Pass)
            .collect();
        let Some(worst) = bad.iter().map(|r| r.verdict).max() else {
            continue;
        };
        let r = bad
            .iter()
            .find(|r| r.verdict == worst)
            .expect("the worst is one of them");
        let e = r
            .evidence
            .iter()
            .find(|e| e.verdict == worst)
            .or(r.evidence.first());
        let rule = e.map_or_else(|| r.section.clone(), |e| super::rule_of(r, e));
        let mut finding = e.map_or_else(String::new, |e| match e.step {
            Some(k) => format!("step {k}: {}", e.message),
            None => e.message.clone(),
        });
        if finding.chars().count() > 300 {
            finding = finding.chars().take(300).collect::<String>() + "…";
        }
        out.push(Failing {
            verdict: worst,
            id: &first.id,
            title: &first.title,
            plans: bad
                .iter()
                .filter(|b| b.verdict == worst)
                .map(|b| b.plan.as_str())
                .collect(),
            of: results.len(),
            finding,
            rule,
        });
    }
    out
}

/// `whole, split` or `every plan` when all of them.
fn plans_text(f: &Failing<'_>) -> String {
    if f.plans.len() == f.of && f.of > 1 {
        "every plan".to_owned()
    } else {
        f.plans.join(", ")
    }
}

/// Escapes a workflow command's message (`%`, CR, LF).
fn command_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a workflow command's property value (also `:` and `,`).
fn command_property(text: &str) -> String {
    command_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// GitHub Actions workflow commands: `::error title=…::…` for each case
/// that failed (FAIL, TIMEOUT, CRASH, ERROR; NON-STRICT too with
/// `--strict`), `::warning` for each NON-STRICT one, then the closing
/// line.
pub fn github(report: &Report) -> String {
    let mut out = String::new();
    for f in failing(report) {
        let level = if f.verdict == Verdict::NonStrict && !report.strict {
            "warning"
        } else {
            "error"
        };
        let title = format!("{} {} ({})", f.verdict.as_str(), f.id, plans_text(&f));
        let message = format!("{}: {}\n{}\n{}", f.title, f.finding, f.rule, report.target);
        let _ = writeln!(
            out,
            "::{level} title={}::{}",
            command_property(&title),
            command_data(&message)
        );
    }
    let _ = writeln!(out, "{}", report.summary().closing_line());
    out
}

/// A Markdown cell: one line, `|` escaped.
fn cell(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace(['\n', '\r'], " ")
}

/// The run as Markdown, for a job summary or a pull-request comment: the
/// closing counts, a table by area, and a table of the cases that did not
/// pass with their first finding and its rule.
pub fn markdown(report: &Report) -> String {
    let s = report.summary();
    let mut out = format!(
        "## rpcspec: `{}` ({}{})\n\n**{}**\n\n",
        cell(&report.target),
        match report.role.as_str() {
            "producer" => format!("producer, {} profile", report.dialect),
            "decoder" => "decoder".to_owned(),
            _ => format!("{} dialect", report.dialect),
        },
        if report.strict { ", strict" } else { "" },
        s.closing_line()
    );
    const COLUMNS: [Verdict; 8] = [
        Verdict::Pass,
        Verdict::NonStrict,
        Verdict::Fail,
        Verdict::Timeout,
        Verdict::Crash,
        Verdict::Error,
        Verdict::Skipped,
        Verdict::NotApplicable,
    ];
    let mut areas: BTreeMap<&str, [usize; COLUMNS.len()]> = BTreeMap::new();
    for r in &report.results {
        let area = crate::report::area_of(&r.id);
        let i = COLUMNS
            .iter()
            .position(|v| *v == r.verdict)
            .expect("every verdict has a column");
        areas.entry(area).or_default()[i] += 1;
    }
    out.push_str("| area | PASS | NON-STRICT | FAIL | TIMEOUT | CRASH | ERROR | SKIPPED | N/A |\n");
    out.push_str("|---|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    for (area, counts) in &areas {
        let cells: Vec<String> = counts.iter().map(usize::to_string).collect();
        let _ = writeln!(out, "| `{}` | {} |", cell(area), cells.join(" | "));
    }
    let failing = failing(report);
    if !failing.is_empty() {
        out.push_str("\n### Cases that did not pass\n\n");
        out.push_str("| verdict | case | plans | first finding | rule |\n|---|---|---|---|---|\n");
        for f in &failing {
            let _ = writeln!(
                out,
                "| {} | `{}` {} | {} | {} | {} |",
                f.verdict.as_str(),
                cell(f.id),
                cell(f.title),
                cell(&plans_text(f)),
                cell(&f.finding),
                cell(&f.rule)
            );
        }
    }
    if s.baselined > 0 || s.stale > 0 {
        let _ = writeln!(
            out,
            "\n{} baselined, {} stale baseline entries.",
            s.baselined, s.stale
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Evidence, RuleRef};

    fn result(id: &str, plan: &str, verdict: Verdict) -> CaseResult {
        let mut r = CaseResult::new(id.into(), plan.into(), "a title".into(), "§1, §2".into());
        r.evidence.push(Evidence {
            rule: (verdict == Verdict::NonStrict)
                .then(|| RuleRef::from_rule(&crate::rules::FRAMING_BOM)),
            ..Evidence::note(verdict, "it went: wrong, 100%\nreally".into())
        });
        r.settle();
        r
    }

    fn report(strict: bool) -> Report {
        Report {
            target: "srv".into(),
            role: "server".into(),
            dialect: "jsonrpc2".into(),
            strict,
            results: vec![
                result("a/x", "whole", Verdict::Fail),
                result("a/x", "split", Verdict::Fail),
                result("a/y", "whole", Verdict::NonStrict),
                result("a/z", "whole", Verdict::Pass),
            ],
            stale: Vec::new(),
            duration: std::time::Duration::ZERO,
            halt: None,
        }
    }

    #[test]
    fn a_failure_is_an_error_and_a_non_strict_result_a_warning() {
        assert_eq!(
            github(&report(false)),
            "::error title=FAIL a/x (every plan)::a title: it went: wrong, 100%25%0Areally%0Acase [MUST] §1, §2%0Asrv\n\
             ::warning title=NON-STRICT a/y (whole)::a title: it went: wrong, 100%25%0Areally%0Aframing.bom [SHOULD] RFC 8259 §8.1; NDJSON 1.0 §3.2%0Asrv\n\
             1 passed, 1 non-strict, 2 failed, 0 timeout, 0 crash, 0 skipped\n"
        );
        assert!(github(&report(true)).contains("::error title=NON-STRICT a/y"));
    }

    #[test]
    fn properties_escape_colons_and_commas() {
        assert_eq!(command_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
        assert_eq!(cell("a|b\nc"), "a\\|b c");
    }
}
