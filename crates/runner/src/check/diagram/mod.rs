//! A session drawn as a sequence diagram (`check --format html`, and a
//! failing case's transcript in `run --format html`): a lane per side, an
//! arrow per message in stream order, drawn by its kind (a request solid,
//! a reply dashed, a notification thin, an event dotted, an error reply,
//! a finding or a request never answered in red), each request joined to
//! its reply (or its cancel) by a bracket in the gutter and by links both
//! ways, each message opening to its JSON. HTML and CSS only: no scripts.
//!
//! The page is a CSS grid with a row per message and a column per bracket
//! track; a bracket is a grid item spanning its request's row to its
//! reply's, so it stays joined to both whatever opens between them.
//!
//! Bounded at every size: runs of like events (tokens) and notifications
//! (progress, logs) fold into one row,
//! at most [`MAX_ROWS`] rows are kept, the diagram's markup stops at the
//! byte budget it is given, and each message's JSON is cut to share what
//! is left of it. Pure: notes in, HTML out.

use std::collections::HashMap;
use std::fmt::Write as _;

mod style;

use super::{Finding, Note, Pairing, Text};
use crate::render::{esc, esc_text};
pub use style::STYLE;
use style::{LEGEND, PAGE_STYLE};

/// Rows kept, at most (more than a page holds); the notes past them are
/// counted, not drawn.
pub const MAX_ROWS: usize = 15_000;
/// Bytes a page may have, at most.
pub const PAGE: usize = 2_000_000;
/// Like events in a row folded into one, from this many on.
const FOLD: u64 = 3;
/// Bracket tracks in the gutter: a pair that finds none free is joined by
/// its links only.
const TRACKS: usize = 8;
/// Bytes of a message's JSON shown, at most.
const JSON_MOST: usize = 2048;
/// Bytes of JSON a message with findings shows, at least.
const JSON_FLAGGED: usize = 400;
/// Findings about no message in particular a page lists, at most.
pub const LOOSE: usize = 100;
/// Bytes of a message's id, method or name shown, at most.
const DETAIL: usize = 200;
/// Below this many bytes a message's JSON is not shown at all.
const JSON_LEAST: usize = 40;

/// One row: a message, or a run of like events folded into one.
struct Row {
    note: Note,
    /// When it was sent, in milliseconds, where the capture says.
    at_ms: Option<u64>,
    /// What its number column says, if not its line.
    label: Option<String>,
    /// Folded: how many, and the last one's.
    run: Option<Run>,
}

/// A run of like messages folded into one row: how many, and the last.
struct Run {
    count: u64,
    last_line: u64,
    last_text: Option<Text>,
    last_label: Option<String>,
}

/// How a diagram is bounded, in the words its readers see.
#[derive(Debug, Clone, Copy)]
pub struct Bound<'a> {
    /// Its size, at most, in bytes.
    pub bytes: usize,
    /// What is kept small: "a page is kept under 2 MB".
    pub limit: &'a str,
    /// Where what is not drawn is found: "`--annotate` lists every one".
    pub rest: &'a str,
}

/// The bound of a page of its own ([`Diagram::page`]).
pub const PAGE_BOUND: Bound<'static> = Bound {
    bytes: PAGE,
    limit: "a page is kept under 2 MB",
    rest: "<code>--annotate</code> lists every one",
};

/// The diagram, built note by note ([`Diagram::push`]).
pub struct Diagram {
    /// The lanes' names: the client's side, the server's.
    lanes: (String, String),
    rows: Vec<Row>,
    /// The row of each message drawn alone, by (stream, line).
    at: HashMap<(Option<&'static str>, u64), usize>,
    /// Notes given, drawn or not.
    notes: u64,
    /// Notes past [`MAX_ROWS`], not drawn.
    dropped: u64,
    /// Before every element id: one page may hold several diagrams.
    prefix: String,
}

impl Diagram {
    /// An empty diagram with lanes named `client` and `server` (`SDK`
    /// and `Claude Code`, say).
    pub fn new(client: &str, server: &str) -> Self {
        Diagram {
            lanes: (client.to_owned(), server.to_owned()),
            rows: Vec::new(),
            at: HashMap::new(),
            notes: 0,
            dropped: 0,
            prefix: String::new(),
        }
    }

    /// Its element ids start with `prefix`.
    pub fn with_ids(mut self, prefix: &str) -> Self {
        prefix.clone_into(&mut self.prefix);
        self
    }

    /// The next note of the stream, sent at `at_ms` if the capture says.
    pub fn push(&mut self, note: Note, at_ms: Option<u64>) {
        self.push_as(note, at_ms, None);
    }

    /// [`push`](Self::push), its number column saying `label` instead of
    /// its line (a transcript's message numbered as in its own stream).
    pub fn push_as(&mut self, mut note: Note, at_ms: Option<u64>, label: Option<String>) {
        self.notes += 1;
        if self.dropped > 0 {
            // Past the rows kept: a run may not reach over what was left out.
            self.dropped += 1;
            return;
        }
        // Kept no longer than a page of this many rows could show of it.
        let keep = (PAGE / (self.rows.len() + 1)).clamp(JSON_LEAST, JSON_MOST);
        let keep = if note.findings.is_empty() {
            keep
        } else {
            keep.max(JSON_FLAGGED)
        };
        note.text = note.text.map(|t| t.cut(keep));
        if note.detail.len() > DETAIL {
            note.detail = Text::new(&note.detail, DETAIL).to_string();
        }
        if foldable(&note) {
            if let Some(last) = self.rows.last_mut()
                && alike(&last.note, &note)
                && let Some(run) = &mut last.run
            {
                run.count += 1;
                (run.last_line, run.last_text, run.last_label) = (note.line, note.text, label);
                return;
            }
            let alone = self
                .rows
                .iter()
                .rev()
                .take_while(|r| r.run.is_none() && alike(&r.note, &note))
                .count();
            if alone as u64 + 1 >= FOLD {
                let first = self.rows.len() - alone;
                for r in self.rows.drain(first + 1..) {
                    self.at.remove(&(r.note.stream, r.note.line));
                }
                self.rows[first].run = Some(Run {
                    count: alone as u64 + 1,
                    last_line: note.line,
                    last_text: note.text,
                    last_label: label,
                });
                return;
            }
        }
        if self.rows.len() >= MAX_ROWS {
            self.dropped += 1;
            return;
        }
        self.at.insert((note.stream, note.line), self.rows.len());
        self.rows.push(Row {
            note,
            at_ms,
            label,
            run: None,
        });
    }

    /// Notes given so far.
    pub fn notes(&self) -> u64 {
        self.notes
    }

    /// The diagram onto `out`, within `bound`.
    pub fn render(&self, out: &mut String, bound: Bound<'_>) {
        let (bars, unjoined) = self.bars();
        let mut brackets = String::new();
        for bar in &bars {
            // Row `i` is on grid line `i + 2`: the tests read the rows a
            // bracket joins from its grid area.
            let _ = write!(
                brackets,
                "<b class={} style=grid-area:{}/{}/{}></b>",
                bar.class,
                bar.from + 2,
                bar.track + 2,
                bar.to + 2,
            );
        }
        // Room kept for the brackets and the lines around the rows.
        let room = bound.bytes.saturating_sub(brackets.len() + 1500);
        let mut shown = self.json_room(room);
        let mut drawn = self.fit(shown, room);
        // Every row drawn with less of its JSON, rather than fewer rows.
        while drawn < self.rows.len() && shown > 0 {
            shown = Some(shown * 3 / 4)
                .filter(|&s| s >= JSON_LEAST)
                .unwrap_or(0);
            drawn = self.fit(shown, room);
        }
        let tracks = bars.iter().map(|b| b.track + 1).max().unwrap_or(0);
        if shown == 0 && self.rows.iter().any(|r| r.note.text.is_some()) {
            let _ = writeln!(
                out,
                "<p class=\"meta\">Too many messages to show their JSON ({}): rows with findings open to theirs, the rest are found by their line.</p>",
                bound.limit
            );
        } else if self
            .rows
            .iter()
            .any(|r| (r.note.text.as_ref()).is_some_and(|t| t.head.len() + t.left_out > shown))
        {
            // Cut for the bound, or only at the most a row ever shows.
            let why = if shown < JSON_MOST {
                format!(" ({})", bound.limit)
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "<p class=\"meta\">Each row opens to the first {shown} bytes of its message{why}.</p>"
            );
        }
        let _ = writeln!(
            out,
            "<div class=sq style=\"grid-template-columns:minmax(0,1fr){};--t:{}px\"><div class=hd><span>{}</span><span>{}</span></div>",
            if tracks > 0 {
                format!(" repeat({tracks},12px)")
            } else {
                String::new()
            },
            tracks * 12,
            esc(&self.lanes.0),
            esc(&self.lanes.1)
        );
        for (i, row) in self.rows.iter().enumerate().take(drawn) {
            self.row(out, i, row, shown, drawn);
        }
        let left = (self.rows.len() - drawn) as u64 + self.dropped;
        if left > 0 {
            let _ = writeln!(
                out,
                "<p class=more>… {left} more messages not drawn: {} ({})</p>",
                bound.limit, bound.rest
            );
        }
        if drawn == self.rows.len() {
            out.push_str(&brackets);
        } else {
            // The brackets of the rows drawn: those ending before the cut.
            let kept = bars.iter().take_while(|b| b.from < drawn).count();
            let ends = brackets.match_indices("</b>").map(|(i, _)| i + 4);
            let mut end = 0;
            for (bar, e) in bars.iter().zip(ends).take(kept) {
                if bar.to < drawn {
                    out.push_str(&brackets[end..e]);
                }
                end = e;
            }
        }
        out.push_str("</div>\n");
        if unjoined > 0 {
            let _ = writeln!(
                out,
                "<p class=\"meta\">{unjoined} pairs had no free bracket track (more than {TRACKS} open at once): their links still join them.</p>"
            );
        }
    }

    /// Bytes of JSON each row may show: what `room` leaves after the rows'
    /// markup (measured: the rows drawn with one byte of their JSON),
    /// shared out (a run shows two); 0 if that is too little to be worth
    /// showing.
    fn json_room(&self, room: usize) -> usize {
        let mut markup = String::new();
        let all = self.rows.len();
        for (i, row) in self.rows.iter().enumerate() {
            self.row(&mut markup, i, row, 1, all);
        }
        let texts: usize = self
            .rows
            .iter()
            .filter(|r| r.note.text.is_some())
            .map(|r| if r.run.is_some() { 2 } else { 1 })
            .sum();
        // An `&lt;` or two more.
        let each = (room.saturating_sub(markup.len()) / texts.max(1)).saturating_sub(8);
        if each < JSON_LEAST {
            0
        } else {
            each.min(JSON_MOST)
        }
    }

    /// How many rows fit in `room` with `shown` bytes of JSON each: each
    /// measured as drawn, not estimated.
    fn fit(&self, shown: usize, room: usize) -> usize {
        let (mut used, mut scratch) = (0, String::new());
        let all = self.rows.len();
        for (i, row) in self.rows.iter().enumerate() {
            scratch.clear();
            self.row(&mut scratch, i, row, shown, all);
            used += scratch.len();
            if used > room {
                return i;
            }
        }
        all
    }

    /// The row of the message at `line` of the stream its pairing names
    /// from a message of `stream` (of two streams, a reply's request is in
    /// the other one, a cancel's in its own).
    fn row_of(&self, stream: Option<&'static str>, line: u64, across: bool) -> Option<usize> {
        let stream = match stream {
            Some("client") if across => Some("server"),
            Some(_) if across => Some("client"),
            s => s,
        };
        self.at.get(&(stream, line)).copied()
    }

    /// The brackets, each in the first track free from its request's row
    /// to its reply's; and how many pairs found none.
    fn bars(&self) -> (Vec<Bar>, usize) {
        let mut free_from = [0usize; TRACKS];
        let (mut bars, mut unjoined) = (Vec::new(), 0);
        for (i, row) in self.rows.iter().enumerate() {
            let (lines, across, class) = match &row.note.pairing {
                Pairing::AnsweredBy { lines } => (lines.clone(), true, "rp"),
                Pairing::CancelledAt { line } => (vec![*line], false, "cn"),
                _ => continue,
            };
            let class = if class == "cn" { "\"p cn\"" } else { "p" };
            let Some(to) = lines
                .iter()
                .filter_map(|&l| self.row_of(row.note.stream, l, across))
                .filter(|&r| r > i)
                .max()
            else {
                continue;
            };
            match free_from.iter().position(|&f| f <= i) {
                Some(track) => {
                    free_from[track] = to + 1;
                    bars.push(Bar {
                        from: i,
                        to,
                        track,
                        class,
                    });
                }
                None => unjoined += 1,
            }
        }
        (bars, unjoined)
    }

    /// Row `i`, its message's JSON cut to `shown` characters (none at 0,
    /// but for a message with findings). Its face (class `h`: the number,
    /// the arrow and what it says) is the row itself where there is
    /// nothing to open, the summary of a `<details>` where its JSON opens,
    /// and a part of the summary where findings follow it.
    fn row(&self, out: &mut String, i: usize, row: &Row, shown: usize, drawn: usize) {
        let n = &row.note;
        let dir = match n.from {
            Some("client") => "c",
            Some(_) => "s",
            None => "x",
        };
        let mut class = format!("q {dir} {}", kind_class(n));
        let flagged = !n.findings.is_empty();
        if flagged {
            class.push_str(" f");
        }
        if matches!(
            n.pairing,
            Pairing::NeverAnswered | Pairing::NotYet | Pairing::Awaiting
        ) {
            class.push_str(" u");
        }
        if row.run.is_some() {
            class.push_str(" r");
        }
        let room = if flagged {
            shown.max(JSON_FLAGGED)
        } else {
            shown
        };
        let json = n.text.as_ref().filter(|_| room > 0);
        let number = row.label.clone().unwrap_or_else(|| n.line.to_string());
        let mut face = format!(" data-n=\"{}\"", esc(&number));
        match (n.stream, row.at_ms) {
            (Some(s), Some(ms)) => write!(face, " title=\"{s} line {}, at {ms} ms\"", n.line),
            (Some(s), None) => write!(face, " title=\"{s} line {}\"", n.line),
            (None, Some(ms)) => write!(face, " title=\"at {ms} ms\""),
            (None, None) => Ok(()),
        }
        .expect("a String takes every write");
        let id = format!("{}m{i}", self.prefix);
        match (flagged, json) {
            (false, None) => {
                let _ = write!(out, "<p id={id} class=\"{class} h\"{face}>");
            }
            (false, Some(_)) => {
                let _ = write!(
                    out,
                    "<details id={id} class=\"{class}\"><summary class=h{face}>"
                );
            }
            (true, _) => {
                let _ = write!(
                    out,
                    "<details id={id} class=\"{class}\"><summary><span class=h{face}>"
                );
            }
        }
        self.face(out, row, drawn);
        match (flagged, json) {
            (false, None) => {
                out.push_str("</p>\n");
                return;
            }
            (false, Some(_)) => out.push_str("</summary>"),
            (true, _) => {
                out.push_str("</span>");
                for f in &n.findings {
                    let _ = write!(
                        out,
                        "<span class=fs><b>{}</b> {}</span>",
                        esc(&f.rule.id),
                        esc(&f.message)
                    );
                }
                out.push_str("</summary>");
            }
        }
        let cut = |t: &Text| esc_text(&t.cut(room).to_string());
        match (json, &row.run) {
            (Some(text), Some(run)) => {
                let last = run.last_text.as_ref().map_or(String::new(), cut);
                let _ = write!(out, "<pre>{}\n…\n{last}</pre>", cut(text));
            }
            (Some(text), None) => {
                let _ = write!(out, "<pre>{}</pre>", cut(text));
            }
            (None, _) => {}
        }
        out.push_str("</details>\n");
    }

    /// What a row's face says: the message's kind and detail, and what
    /// pairs with it (a run: how many, and their lines).
    fn face(&self, out: &mut String, row: &Row, drawn: usize) {
        let n = &row.note;
        match &row.run {
            Some(run) => {
                let _ = write!(
                    out,
                    "{} <b>{}</b> × {} <em>",
                    n.kind,
                    esc(&n.detail),
                    run.count
                );
                // Numbered as the number column numbers them.
                match (&row.label, &run.last_label) {
                    (None, _) => {
                        let _ = write!(out, "lines {}–{}, ", n.line, run.last_line);
                    }
                    (Some(first), Some(last)) if !first.is_empty() && !last.is_empty() => {
                        let _ = write!(out, "{}–{}, ", esc(first), esc(last));
                    }
                    _ => {}
                }
                out.push_str("folded</em>");
            }
            None => {
                out.push_str(n.kind);
                if !n.detail.is_empty() {
                    let _ = write!(out, " <b>{}</b>", esc(&n.detail));
                }
                let (lines, across) = match &n.pairing {
                    Pairing::AnsweredBy { lines } | Pairing::Answers { lines } => {
                        (&lines[..], true)
                    }
                    Pairing::CancelledAt { line } | Pairing::Cancels { line } => {
                        (std::slice::from_ref(line), false)
                    }
                    _ => (&[][..], false),
                };
                let rows: Vec<Option<usize>> = lines
                    .iter()
                    .map(|&l| self.row_of(n.stream, l, across))
                    .collect();
                let rows: Vec<Option<usize>> =
                    rows.into_iter().map(|r| r.filter(|&r| r < drawn)).collect();
                self.pairing(out, row, lines, &rows);
            }
        }
    }

    /// What pairs with the row, its lines linked to their rows.
    fn pairing(&self, out: &mut String, row: &Row, lines: &[u64], rows: &[Option<usize>]) {
        let n = &row.note;
        let what = match &n.pairing {
            Pairing::AnsweredBy { .. } => "answered by",
            Pairing::Answers { .. } => "answers",
            Pairing::CancelledAt { .. } => "cancelled at",
            Pairing::Cancels { .. } => "cancels",
            Pairing::NotAMessage => return,
            p => {
                let _ = write!(out, " <em>{p}</em>");
                return;
            }
        };
        let _ = write!(out, " <em>{what} ");
        for (k, (line, r)) in lines.iter().zip(rows).enumerate() {
            if k > 0 {
                out.push_str(", ");
            }
            match r {
                Some(r) => {
                    // As the row's number column says it; a row with none
                    // (rpcspec's own, in a case's transcript) by where it is.
                    let label = match self.rows[*r].label.as_deref() {
                        None => line.to_string(),
                        Some("") if *r < self.at.get(&(n.stream, n.line)).copied().unwrap_or(0) => {
                            "↑".into()
                        }
                        Some("") => "↓".into(),
                        Some(l) => esc(l),
                    };
                    let _ = write!(out, "<a href=#{}m{r}>{label}</a>", self.prefix);
                }
                None => {
                    let _ = write!(out, "{line}");
                }
            }
        }
        // The time a request waited, where the capture says when.
        if let (Pairing::AnsweredBy { .. }, Some(start), Some(Some(r))) =
            (&n.pairing, row.at_ms, rows.last())
            && let Some(end) = self.rows[*r].at_ms
        {
            let _ = write!(out, " after {} ms", end.saturating_sub(start));
        }
        out.push_str("</em>");
    }

    /// The whole page: `title`, a line on what it shows, the findings
    /// about no message in particular (`loose`, and how many more there
    /// were), the legend and the diagram; under [`PAGE`] bytes.
    pub fn page(&self, title: &str, meta: &str, (loose, more): (&[Finding], u64)) -> String {
        let mut out = String::with_capacity(64 * 1024);
        out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
        out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
        let _ = write!(
            out,
            "<title>{}</title>\n<style>{PAGE_STYLE}{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n<p class=\"meta\">{}</p>\n",
            esc(title),
            esc(title),
            esc(meta)
        );
        out.push_str(LEGEND);
        let mut findings = String::new();
        for f in loose.iter().take(LOOSE) {
            let _ = write!(
                findings,
                "<li><b>{}</b> {}: {}</li>",
                esc(&f.rule.id),
                if f.line == 0 {
                    "the whole stream".to_string()
                } else {
                    format!("line {}", f.line)
                },
                esc(&f.message)
            );
        }
        let more = more + loose.len().saturating_sub(LOOSE) as u64;
        if more > 0 {
            let _ = write!(findings, "<li>and {more} more</li>");
        }
        if !findings.is_empty() {
            let _ = write!(
                out,
                "<h2>Findings about the stream</h2>\n<ul class=\"loose\">{findings}</ul>\n"
            );
        }
        let bytes = PAGE.saturating_sub(out.len() + 200);
        self.render(
            &mut out,
            Bound {
                bytes,
                ..PAGE_BOUND
            },
        );
        out.push_str("<footer>rpcspec: each row opens to its message; a bracket on the right joins a request to its reply.</footer>\n</body>\n</html>\n");
        out
    }
}

/// A bracket joining row `from` to row `to` in gutter track `track`.
struct Bar {
    from: usize,
    to: usize,
    track: usize,
    class: &'static str,
}

/// An event or a notification with no finding: one of a run (tokens,
/// progress, log lines).
fn foldable(n: &Note) -> bool {
    matches!(n.kind, "event" | "notification")
        && n.findings.is_empty()
        && n.pairing == Pairing::NeedsNoAnswer
}

/// Two of one run: the same kind, sender, stream and name.
fn alike(a: &Note, b: &Note) -> bool {
    foldable(a)
        && a.kind == b.kind
        && a.from == b.from
        && a.stream == b.stream
        && a.detail == b.detail
}

/// The CSS class of a message's kind: how its arrow is drawn.
fn kind_class(n: &Note) -> &'static str {
    match n.kind {
        "request" | "control request" => "rq",
        "notification" => "nt",
        "reply" | "control response" => "rp",
        "error reply" | "control error" => "er",
        "cancel" | "control cancel" => "cn",
        "event" => "ev",
        "end record" => "en",
        "batch" => match n.pairing {
            Pairing::Answers { .. } | Pairing::AnswersNothing | Pairing::RequestNotInStream => "rp",
            _ => "rq",
        },
        _ => "bd",
    }
}

#[cfg(test)]
mod tests;
