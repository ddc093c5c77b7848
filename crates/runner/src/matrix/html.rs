//! The matrix as one self-contained HTML page: inline CSS, no scripts, no
//! fonts or images to fetch, readable without JavaScript. Every cell shows
//! colour, symbol and word; a cell that did not pass is a `<details>` whose
//! body is the evidence of each plan (sent, received, rule, section,
//! message). Cells carry `data-verdict="FAIL"` (etc.; `NOT-RUN` for none)
//! so tests can count them in the DOM. The table scrolls inside its own box
//! with a sticky header row and case column, so it works at 1280 px and on
//! a phone.

use std::fmt::Write as _;

use super::{ALL_VERDICTS, Cell, Column, Matrix, PlanEvidence, Row, clip, meaning, symbol};
use crate::report::Verdict;

/// Most characters of one sent or received line shown; the JSON matrix has
/// everything.
const SHOWN: usize = 400;
/// Most received lines shown per plan.
const SHOWN_LINES: usize = 30;

const STYLE: &str = r#"
:root { --line: #d0d7de; --muted: #57606a; --head: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 100%; padding: 1rem; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: #1f2328; background: #fff; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; }
h2 { font-size: 1.15rem; margin: 1.5rem 0 .5rem; }
p.meta { color: var(--muted); margin: 0 0 1rem; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12px; }
.legend { display: flex; flex-wrap: wrap; gap: .35rem .75rem; padding: 0; margin: 0; list-style: none; }
.legend li { display: flex; align-items: baseline; gap: .35rem; }
.legend .v { padding: 0 .4rem; border-radius: 3px; white-space: nowrap; font-weight: 600; }
.legend small { color: var(--muted); }
.scroll { overflow: auto; width: fit-content; max-width: 100%; border: 1px solid var(--line); border-radius: 6px; }
.results { max-height: calc(100vh - 2rem); }
table { border-collapse: separate; border-spacing: 0; }
th, td { border-right: 1px solid var(--line); border-bottom: 1px solid var(--line); padding: .3rem .5rem; text-align: left; vertical-align: top; }
thead th { position: sticky; top: 0; z-index: 2; background: var(--head); white-space: nowrap; }
thead th small, .case small { display: block; font-weight: normal; color: var(--muted); }
table.summary th, table.summary td { white-space: nowrap; }
table.summary td.notes { white-space: normal; min-width: 20rem; }
table.summary td.n { text-align: right; font-variant-numeric: tabular-nums; }
table.summary td.n.zero { color: #aab; }
.case { position: sticky; left: 0; z-index: 1; background: #fff; min-width: 15rem; max-width: 22rem; font-weight: normal; }
.case code { font-weight: 600; font-size: 13px; overflow-wrap: anywhere; }
thead th.case { z-index: 3; background: var(--head); }
tr.area th { background: #eef1f4; padding: .45rem .5rem; font-size: 13px; }
tr.area th span { position: sticky; left: .5rem; }
td.v { min-width: 7.5rem; white-space: nowrap; font-weight: 600; }
td.v summary { cursor: pointer; }
td.v summary small { font-weight: normal; }
td.v[open], td.v details[open] { white-space: normal; }
.v-pass { background: #dafbe1; color: #116329; }
.v-non-strict { background: #fff8c5; color: #7d4e00; }
.v-skipped { background: #f3f4f6; color: #57606a; }
.v-fail { background: #ffebe9; color: #a40e26; }
.v-timeout { background: #fff1e5; color: #953800; }
.v-crash { background: #fbefff; color: #8250df; }
.v-error { background: #424a53; color: #fff; }
.v-none { background: #fff; color: #8c959f; font-weight: normal; }
.ev { width: min(42rem, 80vw); font-weight: normal; color: #1f2328; background: #fff; border: 1px solid var(--line); border-radius: 4px; padding: .5rem; margin-top: .35rem; }
.ev h4 { margin: .5rem 0 .25rem; font-size: 13px; }
.ev h4:first-child, .ev p:first-child { margin-top: 0; }
.ev ul { margin: .25rem 0; padding-left: 1.1rem; }
.ev dl { margin: .25rem 0; }
.ev dt { font-weight: 600; color: var(--muted); margin-top: .25rem; }
.ev dd { margin: 0 0 0 .75rem; }
.ev pre { margin: 0; padding: .3rem .4rem; background: var(--head); border-radius: 3px; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 20rem; overflow: auto; }
.rule { color: var(--muted); }
footer { margin-top: 1.5rem; color: var(--muted); font-size: 12px; }
@media (max-width: 600px) {
  body { padding: .5rem; font-size: 13px; }
  .case { min-width: 8.5rem; max-width: 10rem; }
  .case small { display: none; }
  td.v { min-width: 6.5rem; }
  table.summary td.notes { min-width: 14rem; }
  .legend { gap: .3rem .4rem; }
  .legend small { display: none; }
}
"#;

/// Renders the page.
pub fn render(m: &Matrix) -> String {
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str("<title>rpcspec conformance matrix</title>\n<style>");
    out.push_str(STYLE);
    if m.single_run {
        out.push_str(crate::check::diagram::STYLE);
    }
    out.push_str("</style>\n</head>\n<body>\n");
    if m.single_run {
        let _ = writeln!(
            out,
            "<h1>Conformance report</h1>\n<p class=\"meta\">Generated {} by <code>rpcspec run</code>: {} cases against one target. Open a cell that did not pass for its evidence.</p>",
            esc(&m.generated),
            m.rows.len()
        );
    } else {
        let _ = writeln!(
            out,
            "<h1>Conformance matrix</h1>\n<p class=\"meta\">Generated {} by <code>rpcspec matrix</code>: {} cases × {} targets. Open a cell that did not pass for its evidence.</p>",
            esc(&m.generated),
            m.rows.len(),
            m.targets.len()
        );
    }
    legend(&mut out);
    summary(&mut out, m);
    out.push_str("<h2>Results</h2>\n<div class=\"scroll results\">\n<table class=\"matrix\">\n<thead><tr><th class=\"case\" scope=\"col\">case</th>");
    for t in &m.targets {
        let _ = write!(
            out,
            "<th scope=\"col\" title=\"{}\">{}<small>{}</small></th>",
            esc(&t.command),
            esc(&t.name),
            esc(&t.version)
        );
    }
    out.push_str("</tr></thead>\n");
    // Each row's number: its cells' diagrams' ids start with it.
    let mut number = 0;
    for (area, rows) in m.areas() {
        let _ = writeln!(
            out,
            "<tbody>\n<tr class=\"area\"><th colspan=\"{}\"><span>{}</span></th></tr>",
            m.targets.len() + 1,
            esc(area)
        );
        for row in rows {
            row_html(&mut out, m, row, number);
            number += 1;
        }
        out.push_str("</tbody>\n");
    }
    out.push_str("</table>\n</div>\n");
    let _ = writeln!(
        out,
        "<footer>rpcspec {} · every cell is the worst verdict of the case's plans against that target (SKIPPED only when every plan was); <code>k/n</code>: plans not passing of those run.</footer>",
        env!("CARGO_PKG_VERSION")
    );
    out.push_str("</body>\n</html>\n");
    out
}

fn class(verdict: Option<Verdict>) -> String {
    match verdict {
        None => "v-none".to_owned(),
        Some(v) => format!("v-{}", v.as_str().to_lowercase()),
    }
}

fn legend(out: &mut String) {
    out.push_str("<h2>Legend</h2>\n<ul class=\"legend\">\n");
    for v in ALL_VERDICTS.into_iter().map(Some).chain([None]) {
        let word = v.map_or("not run", Verdict::as_str);
        let meaning = esc(meaning(v));
        let _ = writeln!(
            out,
            "<li title=\"{meaning}\"><span class=\"v {}\">{} {word}</span><small>{meaning}</small></li>",
            class(v),
            symbol(v),
        );
    }
    out.push_str("</ul>\n");
}

fn summary(out: &mut String, m: &Matrix) {
    out.push_str("<h2>Targets</h2>\n<div class=\"scroll\">\n<table class=\"summary\">\n<thead><tr><th scope=\"col\">target</th>");
    let verdicts: Vec<Option<Verdict>> = ALL_VERDICTS.into_iter().map(Some).chain([None]).collect();
    for v in &verdicts {
        let _ = write!(
            out,
            "<th scope=\"col\" class=\"{}\" title=\"{}\">{}</th>",
            class(*v),
            v.map_or("not run", Verdict::as_str),
            symbol(*v)
        );
    }
    out.push_str("<th scope=\"col\">version</th><th scope=\"col\">role</th><th scope=\"col\">command and notes</th></tr></thead>\n<tbody>\n");
    for t in &m.targets {
        target_row(out, t, &verdicts);
    }
    out.push_str("</tbody>\n</table>\n</div>\n");
}

fn target_row(out: &mut String, t: &Column, verdicts: &[Option<Verdict>]) {
    let role = if t.dialect.is_empty() {
        t.role.clone()
    } else {
        format!("{} ({})", t.role, t.dialect)
    };
    let _ = write!(out, "<tr><th scope=\"row\">{}</th>", esc(&t.name));
    for v in verdicts {
        let n = t.cells.get(*v);
        let zero = if n == 0 { " zero" } else { "" };
        let _ = write!(out, "<td class=\"n{zero}\">{n}</td>");
    }
    let _ = write!(
        out,
        "<td>{}</td><td>{}</td><td class=\"notes\">",
        esc(&t.version),
        esc(&role)
    );
    if !t.command.is_empty() {
        let _ = write!(out, "<code>{}</code>", esc(&t.command));
    }
    if !t.notes.is_empty() {
        let _ = write!(out, "<br>{}", esc(&t.notes));
    }
    if let Some(e) = &t.error {
        let _ = write!(out, "<br><strong>no report:</strong> {}", esc(e));
    }
    out.push_str("</td></tr>\n");
}

fn row_html(out: &mut String, m: &Matrix, row: &Row, number: usize) {
    let _ = write!(
        out,
        "<tr><th scope=\"row\" class=\"case\" title=\"{}\"><code>{}</code><small>{}</small></th>",
        esc(&row.id),
        esc(row.name()),
        esc(&row.title)
    );
    for (k, (t, cell)) in m.targets.iter().zip(&row.cells).enumerate() {
        match cell {
            None => {
                let _ = write!(
                    out,
                    "<td class=\"v v-none\" data-verdict=\"NOT-RUN\">{} not run</td>",
                    symbol(None)
                );
            }
            Some(cell) => {
                // Unique on the page: ids that differ only in punctuation
                // slug alike.
                let ids = format!("c{number}-{k}-{}", slug(&row.id));
                cell_html(out, (t, row, cell), m.single_run.then_some(&ids));
            }
        }
    }
    out.push_str("</tr>\n");
}

/// A cell; with `draw`, each plan's transcript drawn as a sequence
/// diagram, its element ids starting with `draw`.
fn cell_html(out: &mut String, (t, row, cell): (&Column, &Row, &Cell), draw: Option<&str>) {
    let v = cell.verdict;
    let label = format!("{} {}", symbol(Some(v)), v.as_str());
    let ratio = cell
        .ratio()
        .map_or(String::new(), |r| format!(" <small>{r}</small>"));
    let _ = write!(
        out,
        "<td class=\"v {}\" data-verdict=\"{}\">",
        class(Some(v)),
        v.as_str()
    );
    if v == Verdict::Pass {
        let _ = write!(out, "{label}{ratio}</td>");
        return;
    }
    let _ = write!(
        out,
        "<details><summary>{label}{ratio}</summary><div class=\"ev\"><p><strong>{}</strong> × <code>{}</code><br>{} <span class=\"rule\">({})</span></p>",
        esc(&t.name),
        esc(&row.id),
        esc(&row.title),
        esc(&row.section)
    );
    if cell.plans.len() > 1 {
        let plans: Vec<String> = cell
            .plans
            .iter()
            .map(|p| {
                format!(
                    "{} {} {}",
                    esc(&p.plan),
                    symbol(Some(p.verdict)),
                    p.verdict.as_str()
                )
            })
            .collect();
        let _ = write!(out, "<p>plans: {}</p>", plans.join(" · "));
    }
    for (k, group) in same_evidence(&cell.evidence).into_iter().enumerate() {
        let drawn =
            draw.and_then(|ids| super::drawn::transcript(t, group[0], &format!("{ids}-{k}-")));
        plan_html(out, &group, drawn);
    }
    out.push_str("</div></details></td>");
}

/// The plans in groups that differ only in timing and in where the writes
/// were cut: the same verdict, evidence, bytes sent and lines received.
fn same_evidence(plans: &[PlanEvidence]) -> Vec<Vec<&PlanEvidence>> {
    let key = |p: &PlanEvidence| {
        let sent: String = p.sent.iter().map(|s| s.bytes.show()).collect();
        let received: Vec<String> = p.received.iter().map(|r| r.bytes.show()).collect();
        (
            p.verdict,
            p.evidence.clone(),
            sent,
            received,
            p.exit.clone(),
            p.stderr.clone(),
        )
    };
    let mut groups: Vec<(_, Vec<&PlanEvidence>)> = Vec::new();
    for p in plans {
        let k = key(p);
        match groups.iter_mut().find(|(g, _)| *g == k) {
            Some((_, members)) => members.push(p),
            None => groups.push((k, vec![p])),
        }
    }
    groups.into_iter().map(|(_, members)| members).collect()
}

/// `text` as an element id's part: letters and digits kept, the rest `_`.
fn slug(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// One group of plans with the same evidence; the writes shown are the
/// first plan's, and `drawn` their transcript as a sequence diagram (its
/// HTML and how many messages it has).
fn plan_html(out: &mut String, group: &[&PlanEvidence], drawn: Option<(String, u64)>) {
    let p = group[0];
    let names: Vec<&str> = group.iter().map(|p| p.plan.as_str()).collect();
    if !p.plan.is_empty() {
        let _ = write!(
            out,
            "<h4>{} {}: {} {}</h4>",
            if group.len() > 1 { "plans" } else { "plan" },
            esc(&names.join(", ")),
            symbol(Some(p.verdict)),
            p.verdict.as_str()
        );
    }
    if !p.evidence.is_empty() {
        out.push_str("<ul>");
        for e in &p.evidence {
            let step = e.step.map_or(String::new(), |k| format!("step {k}: "));
            let _ = write!(
                out,
                "<li><strong>{}</strong> {}{}",
                e.verdict.as_str(),
                step,
                esc(&e.message)
            );
            if let Some(r) = &e.rule {
                let _ = write!(
                    out,
                    "<br><span class=\"rule\">rule <code>{}</code> [{}] ({}): {}</span>",
                    esc(&r.id),
                    esc(&r.level),
                    esc(&r.section),
                    esc(&r.statement)
                );
            }
            if !e.expected.is_empty() || !e.actual.is_empty() {
                out.push_str("<dl>");
                lines(out, "expected", e.expected.iter().map(|x| clip(x, SHOWN)));
                lines(out, "actual", e.actual.iter().map(|x| clip(x, SHOWN)));
                out.push_str("</dl>");
            }
            out.push_str("</li>");
        }
        out.push_str("</ul>");
    }
    if let Some((diagram, messages)) = drawn {
        let _ = write!(
            out,
            "<details class=\"seq\"><summary>the transcript drawn: {messages} messages, who sent what and what answers it</summary>{diagram}</details>"
        );
    }
    out.push_str("<dl>");
    let sent = if group.len() > 1 {
        format!(
            "sent ({} writes in plan {}; the others cut the same bytes elsewhere)",
            p.sent.len(),
            p.plan
        )
    } else {
        format!("sent ({} writes)", p.sent.len())
    };
    lines(
        out,
        &sent,
        p.sent.iter().map(|s| clip(&s.bytes.show(), SHOWN)),
    );
    let mut received: Vec<String> = p
        .received
        .iter()
        .take(SHOWN_LINES)
        .map(|r| format!("{:>3}: {}", r.line, clip(&r.bytes.show(), SHOWN)))
        .collect();
    if p.received.len() > SHOWN_LINES {
        received.push(format!(
            "… {} more lines (all of them in --format json)",
            p.received.len() - SHOWN_LINES
        ));
    }
    lines(
        out,
        &format!("received ({} lines)", p.received.len()),
        received.into_iter(),
    );
    if let Some(exit) = &p.exit {
        let _ = write!(out, "<dt>target</dt><dd>{}</dd>", esc(exit));
    }
    let stderr = p.stderr.trim_end();
    if !stderr.is_empty() {
        lines(out, "stderr", std::iter::once(clip(stderr, 4 * SHOWN)));
    }
    out.push_str("</dl>");
}

/// A `<dt>` and a `<pre>` of lines; nothing when there are none.
fn lines(out: &mut String, title: &str, items: impl Iterator<Item = String>) {
    let items: Vec<String> = items.map(|s| esc(&s)).collect();
    if items.is_empty() {
        return;
    }
    let _ = write!(
        out,
        // The newline after `<pre>` is dropped by the parser, so text
        // that starts with one keeps it.
        "<dt>{}</dt><dd><pre>\n{}</pre></dd>",
        esc(title),
        items.join("\n")
    );
}

/// Escapes text for HTML content and attribute values.
pub use crate::render::esc;
