//! The matrix as Markdown, for a README: a summary table of the targets,
//! then a table per area (cell: symbol, verdict, `not passing/run`, and a
//! note number), each followed by its notes: one line per cell that did not
//! pass, with the plans, the rule and the message.
//!
//! Everything a report says (names, ids, plans, messages) is untrusted
//! text: it is escaped ([`escape`]) or put in a code span that cannot be
//! closed early ([`code`]), and in a table `|` is always `\|`
//! ([`cell_code`]), so no report can break a table row or add markup.

use std::fmt::Write as _;

use super::{ALL_VERDICTS, Cell, Matrix, PlanEvidence, clip, symbol};
use crate::report::Verdict;

/// Most characters of a message in a note.
const NOTE: usize = 200;

/// Renders the matrix as GitHub-flavoured Markdown.
pub fn render(m: &Matrix) -> String {
    let mut out = String::new();
    out.push_str("## Conformance matrix\n\n");
    let _ = writeln!(
        out,
        "Generated {} by `rpcspec matrix`: {} cases × {} targets. {}; `k/n` = plans not passing of those run.\n",
        m.generated,
        m.rows.len(),
        m.targets.len(),
        legend()
    );
    // The summary: cells per verdict, per target.
    let verdicts: Vec<Option<Verdict>> = ALL_VERDICTS
        .into_iter()
        .map(Some)
        .chain([None])
        .filter(|v| m.count(*v) > 0 || *v == Some(Verdict::Pass))
        .collect();
    out.push_str("| target | version | role |");
    for v in &verdicts {
        let _ = write!(out, " {} |", symbol(*v));
    }
    out.push_str("\n|---|---|---|");
    out.push_str(&"---:|".repeat(verdicts.len()));
    out.push('\n');
    for t in &m.targets {
        let role = if t.dialect.is_empty() || !matches!(t.role.as_str(), "server" | "client") {
            t.role.clone()
        } else {
            format!("{} ({})", t.role, t.dialect)
        };
        let _ = write!(
            out,
            "| {} | {} | {} |",
            escape(&t.name),
            escape(&t.version),
            escape(&role)
        );
        for v in &verdicts {
            let _ = write!(out, " {} |", t.cells.get(*v));
        }
        out.push('\n');
    }
    let errors: Vec<_> = m.targets.iter().filter(|t| t.error.is_some()).collect();
    if !errors.is_empty() {
        out.push('\n');
        for t in errors {
            let _ = writeln!(
                out,
                "* **{}** has no report: {}",
                escape(&t.name),
                escape(&clip(t.error.as_deref().unwrap_or(""), NOTE))
            );
        }
    }
    let mut note = 0;
    for (area, rows) in m.areas() {
        let _ = write!(out, "\n### {}\n\n| case |", escape(area));
        for t in &m.targets {
            let _ = write!(out, " {} |", escape(&t.name));
        }
        out.push_str("\n|---|");
        out.push_str(&"---|".repeat(m.targets.len()));
        out.push('\n');
        let mut notes = String::new();
        for row in rows {
            let _ = write!(out, "| {} |", cell_code(row.name()));
            for (t, cell) in m.targets.iter().zip(&row.cells) {
                let Some(cell) = cell else {
                    let _ = write!(out, " {} |", symbol(None));
                    continue;
                };
                let _ = write!(
                    out,
                    " {} {}",
                    symbol(Some(cell.verdict)),
                    cell.verdict.as_str()
                );
                if !cell.verdict.ran() || t.error.is_some() {
                    // Why is the manifest's `without`, or said once above
                    // the tables: no ratio, no note.
                    out.push_str(" |");
                    continue;
                }
                if let Some(ratio) = cell.ratio() {
                    let _ = write!(out, " {ratio}");
                }
                if cell.verdict != Verdict::Pass {
                    note += 1;
                    let _ = write!(out, " [{note}]");
                    note_line(&mut notes, note, &t.name, &row.id, cell);
                }
                out.push_str(" |");
            }
            out.push('\n');
        }
        if !notes.is_empty() {
            out.push('\n');
            out.push_str(&notes);
        }
    }
    out
}

/// `✔ PASS · ~ NON-STRICT · …`.
pub fn legend() -> String {
    ALL_VERDICTS
        .into_iter()
        .map(|v| format!("{} {}", symbol(Some(v)), v.as_str()))
        .chain([format!("{} not run", symbol(None))])
        .collect::<Vec<_>>()
        .join(" · ")
}

/// Most plans named in a note; a longer list is cut (decoder cases run
/// under dozens of split plans).
const SHOWN_PLANS: usize = 6;

/// `[n] target · case id: VERDICT (plans): message (rule)`, one line per
/// distinct first finding among the cell's plans. Skipped plans are left
/// out: the cell's verdict comes from the plans that ran.
fn note_line(out: &mut String, n: usize, target: &str, id: &str, cell: &Cell) {
    let mut groups: Vec<(Verdict, String, Vec<&str>)> = Vec::new();
    for p in cell.evidence.iter().filter(|p| p.verdict.ran()) {
        let what = finding(p);
        match groups
            .iter_mut()
            .find(|(v, w, _)| *v == p.verdict && *w == what)
        {
            Some(g) => g.2.push(&p.plan),
            None => groups.push((p.verdict, what, vec![&p.plan])),
        }
    }
    let _ = write!(out, "{n}. **{}** · {}", escape(target), code(id));
    for (i, (verdict, what, plans)) in groups.iter().enumerate() {
        let plans: Vec<String> = plans
            .iter()
            .filter(|p| !p.is_empty())
            .map(|p| escape(p))
            .collect();
        let plans = if plans.is_empty() {
            String::new()
        } else if plans.len() > SHOWN_PLANS && plans.len() == cell.ran() {
            format!(" (all {} plans)", plans.len())
        } else if plans.len() > SHOWN_PLANS {
            format!(
                " ({}, and {} more)",
                plans[..SHOWN_PLANS - 1].join(", "),
                plans.len() - (SHOWN_PLANS - 1)
            )
        } else {
            format!(" ({})", plans.join(", "))
        };
        let sep = if i == 0 { ":" } else { ";" };
        let _ = write!(out, "{sep} {}{plans}: {what}", verdict.as_str());
    }
    out.push('\n');
}

/// The evidence that earned a plan its verdict, in one escaped line.
fn finding(p: &PlanEvidence) -> String {
    let Some(e) = p
        .evidence
        .iter()
        .find(|e| e.verdict == p.verdict)
        .or(p.evidence.first())
    else {
        return "no evidence recorded".to_owned();
    };
    let message = escape(&clip(&e.message, NOTE));
    match &e.rule {
        Some(rule) => format!("{message} ({}, {})", code(&rule.id), escape(&rule.section)),
        None => message,
    }
}

/// Escapes Markdown's punctuation (with `|` as `\|`, so a table cell holds
/// it) and keeps a cell on one line.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\r' | '\t' => out.push(' '),
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '#' | '$' | '&' | '~' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// `text` as an inline code span in a table cell: [`code`], with `|` as
/// `\|` (GFM takes that out of the cell before it reads the span). Text
/// with a backslash right before a `|` is [`escape`]d instead: renderers
/// disagree on whether `\\|` ends the cell.
pub fn cell_code(text: &str) -> String {
    if text.contains("\\|") {
        return escape(text);
    }
    code(text).replace('|', "\\|")
}

/// `text` as an inline code span (outside tables: there a `\|` would show
/// its backslash): fenced with more backticks than its longest run of them,
/// padded with a space when it starts or ends with a backtick or a space,
/// on one line. Blank text is [`escape`]d instead (a span of only spaces
/// keeps them all; an empty one is no span).
pub fn code(text: &str) -> String {
    let text: String = text
        .chars()
        .map(|c| {
            if matches!(c, '\n' | '\r' | '\t') {
                ' '
            } else {
                c
            }
        })
        .collect();
    if text.trim().is_empty() {
        return escape(&text);
    }
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with(['`', ' ']) || text.ends_with(['`', ' ']) {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::{PlanEvidence, PlanVerdict};

    fn cell(failed: usize, passed: usize) -> Cell {
        let name = |i: usize| format!("split@{i}");
        let plans = (0..failed + passed)
            .map(|i| PlanVerdict {
                plan: name(i),
                verdict: if i < failed {
                    Verdict::Fail
                } else {
                    Verdict::Pass
                },
            })
            .collect();
        let evidence = (0..failed)
            .map(|i| PlanEvidence {
                plan: name(i),
                verdict: Verdict::Fail,
                evidence: Vec::new(),
                sent: Vec::new(),
                received: Vec::new(),
                stderr: String::new(),
                exit: None,
            })
            .collect();
        Cell {
            verdict: Verdict::Fail,
            plans,
            evidence,
        }
    }

    fn note(c: &Cell) -> String {
        let mut out = String::new();
        note_line(&mut out, 1, "t", "a/b", c);
        out
    }

    #[test]
    fn notes_name_few_plans_and_count_many() {
        assert!(note(&cell(2, 1)).contains("FAIL (split@0, split@1):"));
        assert!(note(&cell(30, 0)).contains("FAIL (all 30 plans):"));
        let cut = note(&cell(30, 2));
        assert!(
            cut.contains("FAIL (split@0, split@1, split@2, split@3, split@4, and 25 more):"),
            "{cut}"
        );
    }
}
