//! Baselines: known failures that do not fail a run, and that fail it as
//! stale once they pass, so a baseline cannot rot.
//!
//! The file holds one entry per line: a case id, optionally followed by a
//! write plan (`jsonrpc/examples/batch whole`); without a plan the entry
//! covers every plan. `#` starts a comment.

use std::fmt;

use crate::report::{CaseResult, Report};

/// A parsed baseline.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Baseline {
    entries: Vec<Entry>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    id: String,
    plan: Option<String>,
    line: usize,
}

/// A baseline file that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaselineError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for BaselineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl Baseline {
    /// Parses a baseline file.
    pub fn parse(text: &str) -> Result<Baseline, BaselineError> {
        let mut entries = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line_no = i + 1;
            let content = line.split('#').next().unwrap_or("").trim();
            if content.is_empty() {
                continue;
            }
            let mut words = content.split_whitespace();
            let id = words.next().expect("non-empty").to_owned();
            let plan = words.next().map(str::to_owned);
            if let Some(extra) = words.next() {
                return Err(BaselineError {
                    line: line_no,
                    message: format!("expected `CASE-ID [PLAN]`, found extra `{extra}`"),
                });
            }
            if let Some(p) = &plan
                && p.parse::<crate::plan::Plan>().is_err()
            {
                return Err(BaselineError {
                    line: line_no,
                    message: format!("unknown write plan `{p}`"),
                });
            }
            entries.push(Entry {
                id,
                plan,
                line: line_no,
            });
        }
        Ok(Baseline { entries })
    }

    /// A baseline listing every failing result of `report`.
    pub fn render_failures(report: &Report) -> String {
        let mut out = String::from("# rpcspec baseline: known failures (CASE-ID PLAN)\n");
        for r in report
            .results
            .iter()
            .filter(|r| r.verdict.fails(report.strict))
        {
            out.push_str(&format!("{} {}\n", r.id, r.plan));
        }
        out
    }

    fn covers(&self, r: &CaseResult) -> bool {
        self.entries
            .iter()
            .any(|e| e.id == r.id && e.plan.as_ref().is_none_or(|p| *p == r.plan))
    }

    /// Marks the failures the baseline knows and lists its stale entries:
    /// those whose results all pass now. Entries for cases that did not
    /// run (filtered out) are neither.
    pub fn apply(&self, report: &mut Report) {
        let strict = report.strict;
        for r in &mut report.results {
            r.baselined = r.verdict.fails(strict) && self.covers(r);
        }
        for e in &self.entries {
            let mut covered = report
                .results
                .iter()
                .filter(|r| r.id == e.id && e.plan.as_ref().is_none_or(|p| *p == r.plan))
                .peekable();
            if covered.peek().is_some() && covered.all(|r| !r.verdict.fails(strict)) {
                let what = match &e.plan {
                    Some(p) => format!("{} {p}", e.id),
                    None => e.id.clone(),
                };
                report.stale.push(format!(
                    "{what} (baseline line {}) passes now: remove it",
                    e.line
                ));
            }
        }
    }
}
