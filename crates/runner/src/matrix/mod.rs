//! `rpcspec matrix`: the suite against many targets, merged into one table.
//!
//! Cases are the rows (grouped by area: the case id up to its last `/`),
//! targets the columns, and each cell the worst verdict of that case's
//! plans against that target (see [`worst`]), with the evidence of every
//! plan that did not pass. Three renderers read the one [`Matrix`] model: Markdown ([`md`]),
//! a self-contained HTML page ([`html`]) and JSON (the model, serialised).
//!
//! The matrix is built from JSON reports (`rpcspec run --format json`)
//! only: running a manifest spawns this executable once per target and
//! parses what it prints, and `--merge` parses report files made elsewhere.
//! [`merge`] is pure: reports and a date in, a matrix out.
//!
//! # The manifest
//!
//! TOML, one `[[target]]` table per column, in column order:
//!
//! ```toml
//! [[target]]
//! name = "python-jsonrpc"          # required, unique: the column, and the
//!                                  # report file stem `--merge` matches
//! version = "4.1.0"                # free text, shown under the name
//! command = ["python3", "adapter.py"]  # required: argv, run without a shell
//! role = "server"                  # server (default), producer or decoder
//! dialect = "jsonrpc2"             # for servers and clients (default jsonrpc2)
//! framing = "content-length"       # servers and clients: ndjson or content-length (default: the dialect's)
//! profile = "events"               # for producers (default events)
//! without = ["batch"]              # features it lacks: those cases SKIP
//! env = { PYTHONPATH = "vendor/python" }  # added to the inherited environment
//! target_file = "targets/mine.toml"  # servers: a target file without `command` (its [mcp] calls)
//! notes = "stdio adapter around the library's dispatcher"
//! ```
//!
//! Every target runs with the manifest's directory as its working
//! directory, so relative arguments and environment values (`adapter.py`,
//! `PYTHONPATH = "vendor"`) mean paths next to the manifest. A relative
//! program path containing a `/` (`./bin/server`) is resolved against the
//! manifest's directory too; a bare name (`python3`) is looked up on
//! `PATH`. An argument that is exactly `{rpcspec}` is replaced by the path
//! of this executable, so `["{rpcspec}", "serve"]` is the reference column.
//!
//! A manifest that cannot be read or does not say the above is an error
//! naming `file:line:column`; unknown keys are errors too (typos must not
//! silently drop a setting).

mod drawn;
pub mod html;
mod manifest;
pub mod md;
mod parse;
mod run;

pub use manifest::{Error, Manifest, TargetSpec, load_manifest, parse_manifest};
pub use parse::{Run, RunResult, parse_report};
pub(crate) use run::clip;
pub use run::{RunSettings, command, of_report, run_argv, run_target, today};

use std::{collections::HashMap, path::PathBuf};

use serde::Serialize;

use crate::{
    casefile::{Location, locate},
    exit,
    report::Verdict,
};

/// `rpcspec matrix` arguments.
#[derive(clap::Args, Debug)]
pub struct MatrixArgs {
    /// The manifest of targets (TOML; see docs/matrix.md). With `--merge`
    /// it only names and orders the columns: nothing is run.
    #[arg(value_name = "MANIFEST", required_unless_present = "merge")]
    pub manifest: Option<PathBuf>,
    /// Merge these JSON reports (`rpcspec run --format json`) instead of
    /// running targets; each file's stem is its column's name.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub merge: Vec<PathBuf>,
    /// Targets run in parallel.
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub jobs: usize,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Md)]
    pub format: Format,
    /// Write the matrix to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Deadline per case, in seconds, passed to every run.
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// Run only the cases whose id matches (glob; repeatable), passed to
    /// every run.
    #[arg(long = "filter", value_name = "GLOB")]
    pub filters: Vec<String>,
    /// Run only the manifest's target of this name (repeatable): its
    /// column alone, as when one implementation is retested.
    #[arg(long = "only", value_name = "NAME")]
    pub only: Vec<String>,
}

/// The formats of `rpcspec matrix`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum Format {
    /// A table per area, for a README.
    Md,
    /// One self-contained page, evidence expandable per cell.
    Html,
    /// The model the other two are rendered from (docs/matrix.md).
    Json,
}

// ---------------------------------------------------------------------------
// The model

/// The merged results: see the [module docs](self).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Matrix {
    /// When it was made (a date, given to [`merge`]).
    pub generated: String,
    /// A single run's page (`rpcspec run --format html`), not a matrix of
    /// targets: the page says so.
    #[serde(skip)]
    pub single_run: bool,
    /// The columns, in manifest (or `--merge`) order.
    pub targets: Vec<Column>,
    /// The rows: areas in first-seen order, cases in report order within.
    pub rows: Vec<Row>,
}

/// One target.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Column {
    /// Its name in the manifest (or the report file's stem).
    pub name: String,
    /// Free text from the manifest.
    pub version: String,
    /// `server`, `producer` or `decoder`.
    pub role: String,
    /// The dialect (a producer's profile) its messages were judged in.
    pub dialect: String,
    /// The command the report names.
    pub command: String,
    /// Free text from the manifest.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub notes: String,
    /// Why there is no report for it (its cells are then ERROR).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Counts per (case, plan) result.
    pub results: Counts,
    /// Counts per cell (a case's worst verdict, see [`worst`]); `not_run`
    /// counts rows it has no result for.
    pub cells: Counts,
}

/// Counts per verdict.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// PASS.
    pub pass: usize,
    /// NON-STRICT.
    pub non_strict: usize,
    /// SKIPPED.
    pub skipped: usize,
    /// N/A.
    pub not_applicable: usize,
    /// FAIL.
    pub fail: usize,
    /// TIMEOUT.
    pub timeout: usize,
    /// CRASH.
    pub crash: usize,
    /// ERROR.
    pub error: usize,
    /// No result at all.
    pub not_run: usize,
}

impl Counts {
    fn add(&mut self, verdict: Option<Verdict>) {
        *match verdict {
            None => &mut self.not_run,
            Some(Verdict::Pass) => &mut self.pass,
            Some(Verdict::NonStrict) => &mut self.non_strict,
            Some(Verdict::Skipped) => &mut self.skipped,
            Some(Verdict::NotApplicable) => &mut self.not_applicable,
            Some(Verdict::Fail) => &mut self.fail,
            Some(Verdict::Timeout) => &mut self.timeout,
            Some(Verdict::Crash) => &mut self.crash,
            Some(Verdict::Error) => &mut self.error,
        } += 1;
    }

    /// The count of `verdict` (`None`: not run).
    pub fn get(&self, verdict: Option<Verdict>) -> usize {
        match verdict {
            None => self.not_run,
            Some(Verdict::Pass) => self.pass,
            Some(Verdict::NonStrict) => self.non_strict,
            Some(Verdict::Skipped) => self.skipped,
            Some(Verdict::NotApplicable) => self.not_applicable,
            Some(Verdict::Fail) => self.fail,
            Some(Verdict::Timeout) => self.timeout,
            Some(Verdict::Crash) => self.crash,
            Some(Verdict::Error) => self.error,
        }
    }
}

/// One case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Row {
    /// The case id up to its last `/`.
    pub area: String,
    /// The case id.
    pub id: String,
    /// The case's title.
    pub title: String,
    /// The specification section it checks.
    pub section: String,
    /// One per target, in column order; `null` where the target has no
    /// result for the case (not run).
    pub cells: Vec<Option<Cell>>,
}

impl Row {
    /// The id after the area.
    pub fn name(&self) -> &str {
        self.id
            .rsplit_once('/')
            .map_or(self.id.as_str(), |(_, n)| n)
    }
}

/// One (case, target).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cell {
    /// The worst verdict of the plans ([`worst`]): SKIPPED only when every
    /// plan was skipped.
    pub verdict: Verdict,
    /// Every plan's verdict, in report order.
    pub plans: Vec<PlanVerdict>,
    /// Each plan that did not pass, with why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<PlanEvidence>,
}

impl Cell {
    /// How many plans ran (were neither SKIPPED nor N/A).
    pub fn ran(&self) -> usize {
        self.plans.iter().filter(|p| p.verdict.ran()).count()
    }

    /// How many plans ran and did not pass.
    pub fn not_passed(&self) -> usize {
        self.plans
            .iter()
            .filter(|p| p.verdict.ran() && p.verdict != Verdict::Pass)
            .count()
    }

    /// `3/5` (plans not passing of the plans run: skipped plans count in
    /// neither) for a cell of several plans whose verdict is neither PASS
    /// nor SKIPPED, else nothing.
    pub fn ratio(&self) -> Option<String> {
        let counted = self.verdict.ran() && self.verdict != Verdict::Pass;
        (counted && self.plans.len() > 1).then(|| format!("{}/{}", self.not_passed(), self.ran()))
    }
}

/// How bad a verdict is, for a cell: [`Verdict`]'s own order except that
/// N/A and SKIPPED rank just above PASS (a check that does not apply to one
/// plan must not hide what another plan found).
pub fn severity(verdict: Verdict) -> u8 {
    match verdict {
        Verdict::Pass => 0,
        Verdict::NotApplicable => 1,
        Verdict::Skipped => 2,
        Verdict::NonStrict => 3,
        Verdict::Fail => 4,
        Verdict::Timeout => 5,
        Verdict::Crash => 6,
        Verdict::Error => 7,
    }
}

/// A cell's verdict from its plans' verdicts: SKIPPED or N/A only when no
/// plan ran, otherwise the worst ([`severity`]) of the plans that ran; `None` for no plans. For a producer the "plans" are scenarios, and
/// a check may not apply in one (SKIPPED) yet be NON-STRICT in another.
pub fn worst(verdicts: impl IntoIterator<Item = Verdict>) -> Option<Verdict> {
    let mut unrun: Option<Verdict> = None;
    let mut worst: Option<Verdict> = None;
    for v in verdicts {
        let slot = if v.ran() { &mut worst } else { &mut unrun };
        if slot.is_none_or(|w| severity(v) > severity(w)) {
            *slot = Some(v);
        }
    }
    worst.or(unrun)
}

/// A plan's verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlanVerdict {
    /// `whole`, `split`, `bytewise`, `coalesced`, `crlf`, ...
    pub plan: String,
    /// Its verdict.
    pub verdict: Verdict,
}

/// Why one plan of a cell did not pass: the report's result, less timings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlanEvidence {
    /// The plan (empty when the whole target could not be run).
    pub plan: String,
    /// Its verdict.
    pub verdict: Verdict,
    /// The report's evidence.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<Evidence>,
    /// Every write.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sent: Vec<Sent>,
    /// Every line the target wrote.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub received: Vec<Received>,
    /// The end of the target's stderr.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub stderr: String,
    /// How the target ended, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit: Option<String>,
}

/// The report's own model, read back from its JSON: the matrix reads the
/// type the runs wrote.
pub use crate::report::{Bytes, Evidence, Received, RuleRef as Rule, Sent};

/// Every verdict, in the report's order (PASS first): the order of legends
/// and summary columns. Cells rank them by [`severity`].
pub const ALL_VERDICTS: [Verdict; 8] = Verdict::ALL;

/// A verdict's symbol: readable in plain text, so colour is never the only
/// sign (`None`: not run).
pub fn symbol(verdict: Option<Verdict>) -> &'static str {
    match verdict {
        None => "—",
        Some(Verdict::Pass) => "✔",
        Some(Verdict::NonStrict) => "~",
        Some(Verdict::Skipped) => "⊘",
        Some(Verdict::NotApplicable) => "∅",
        Some(Verdict::Fail) => "✘",
        Some(Verdict::Timeout) => "◷",
        Some(Verdict::Crash) => "↯",
        Some(Verdict::Error) => "⚠",
    }
}

/// What each verdict means, for legends.
pub fn meaning(verdict: Option<Verdict>) -> &'static str {
    match verdict {
        None => "no result: the case was not run against this target",
        Some(Verdict::Pass) => "every plan as the specification says",
        Some(Verdict::NonStrict) => "a SHOULD broken, or a tolerated alternative taken",
        Some(Verdict::Skipped) => "the target lacks a feature the case requires",
        Some(Verdict::NotApplicable) => "the case cannot apply to the target's dialect",
        Some(Verdict::Fail) => "a MUST broken",
        Some(Verdict::Timeout) => "no answer before the case deadline",
        Some(Verdict::Crash) => "the target exited or died during the case",
        Some(Verdict::Error) => "the case could not be run",
    }
}

// ---------------------------------------------------------------------------
// Merging

/// One column to merge: what the manifest says of it, and its report (or
/// why there is none).
#[derive(Debug, Clone)]
pub struct Input {
    /// The column's name.
    pub name: String,
    /// Free text.
    pub version: String,
    /// Free text.
    pub notes: String,
    /// The role, for a target without a report (a report names its own).
    pub role: String,
    /// The report, or why there is none.
    pub run: Result<Run, String>,
}

/// Merges reports into a matrix. Pure: the same inputs give the same
/// matrix. A target without a report gets ERROR cells, carrying the reason,
/// on every row that another target of its role has (and "not run" on the
/// rest: a producer's failure says nothing about server cases).
pub fn merge(generated: &str, inputs: &[Input]) -> Matrix {
    let (mut rows, roles) = rows_of(inputs);
    let index: HashMap<String, usize> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| (r.id.clone(), i))
        .collect();
    let mut targets = Vec::new();
    for input in inputs {
        let (mut column, cells) = match &input.run {
            Ok(run) => run_column(input, run, &index),
            Err(why) => error_column(input, why, &rows, &roles),
        };
        for (row, cell) in rows.iter_mut().zip(cells) {
            column.cells.add(cell.as_ref().map(|c| c.verdict));
            row.cells.push(cell);
        }
        targets.push(column);
    }
    Matrix {
        generated: generated.to_owned(),
        single_run: false,
        targets,
        rows,
    }
}

/// The matrix's rows, without cells: every case of the reports, in
/// first-seen order kept grouped by area; and the roles whose reports
/// hold each (by case id).
fn rows_of(inputs: &[Input]) -> (Vec<Row>, HashMap<String, Vec<String>>) {
    let mut areas: Vec<String> = Vec::new();
    let mut by_area: HashMap<String, Vec<String>> = HashMap::new();
    let mut meta: HashMap<String, (String, String, Vec<String>)> = HashMap::new();
    for input in inputs {
        let Ok(run) = &input.run else { continue };
        for r in &run.results {
            let entry = meta.entry(r.id.clone()).or_insert_with(|| {
                let area = area_of(&r.id).to_owned();
                let ids = by_area.entry(area.clone()).or_insert_with(|| {
                    areas.push(area.clone());
                    Vec::new()
                });
                ids.push(r.id.clone());
                (r.title.clone(), r.section.clone(), Vec::new())
            });
            if !entry.2.contains(&run.role) {
                entry.2.push(run.role.clone());
            }
        }
    }
    let mut rows: Vec<Row> = Vec::new();
    for area in &areas {
        for id in &by_area[area] {
            let (title, section, _) = &meta[id];
            rows.push(Row {
                area: area.clone(),
                id: id.clone(),
                title: title.clone(),
                section: section.clone(),
                cells: Vec::with_capacity(inputs.len()),
            });
        }
    }
    let roles = meta
        .into_iter()
        .map(|(id, (_, _, roles))| (id, roles))
        .collect();
    (rows, roles)
}

/// The column of a target with a report, and its cells (by row, from
/// `index`): each the worst verdict of its plans, with the evidence of
/// each plan that did not pass.
fn run_column(
    input: &Input,
    run: &Run,
    index: &HashMap<String, usize>,
) -> (Column, Vec<Option<Cell>>) {
    let mut results = Counts::default();
    let mut cells: Vec<Option<Cell>> = vec![None; index.len()];
    for r in &run.results {
        results.add(Some(r.verdict));
        let cell = cells[index[&r.id]].get_or_insert_with(|| Cell {
            verdict: r.verdict,
            plans: Vec::new(),
            evidence: Vec::new(),
        });
        cell.plans.push(PlanVerdict {
            plan: r.plan.clone(),
            verdict: r.verdict,
        });
        if r.verdict != Verdict::Pass {
            cell.evidence.push(PlanEvidence {
                plan: r.plan.clone(),
                verdict: r.verdict,
                evidence: r.evidence.clone(),
                sent: r.sent.clone(),
                received: r.received.clone(),
                stderr: r.stderr.clone(),
                exit: r.exit.clone(),
            });
        }
    }
    for cell in cells.iter_mut().flatten() {
        // A cell is made with its first plan: never `None`.
        if let Some(v) = worst(cell.plans.iter().map(|p| p.verdict)) {
            cell.verdict = v;
        }
    }
    let column = Column {
        name: input.name.clone(),
        version: input.version.clone(),
        role: run.role.clone(),
        dialect: run.dialect.clone(),
        command: run.target.clone(),
        notes: input.notes.clone(),
        error: None,
        results,
        cells: Counts::default(),
    };
    (column, cells)
}

/// The column of a target without a report, and its cells: ERROR, with
/// `why`, on the rows its role's reports hold (`roles`, by case id).
fn error_column(
    input: &Input,
    why: &str,
    rows: &[Row],
    roles: &HashMap<String, Vec<String>>,
) -> (Column, Vec<Option<Cell>>) {
    let mut cells: Vec<Option<Cell>> = vec![None; rows.len()];
    for (row, cell) in rows.iter().zip(&mut cells) {
        if !roles[&row.id].contains(&input.role) {
            continue;
        }
        *cell = Some(Cell {
            verdict: Verdict::Error,
            plans: Vec::new(),
            evidence: vec![PlanEvidence {
                plan: String::new(),
                verdict: Verdict::Error,
                evidence: vec![Evidence {
                    verdict: Verdict::Error,
                    rule: None,
                    message: why.to_owned(),
                    step: None,
                    expected: Vec::new(),
                    actual: Vec::new(),
                }],
                sent: Vec::new(),
                received: Vec::new(),
                stderr: String::new(),
                exit: None,
            }],
        });
    }
    let column = Column {
        name: input.name.clone(),
        version: input.version.clone(),
        role: input.role.clone(),
        dialect: String::new(),
        command: String::new(),
        notes: input.notes.clone(),
        error: Some(why.to_owned()),
        results: Counts::default(),
        cells: Counts::default(),
    };
    (column, cells)
}

pub use rpcspec_core::report::area_of;

impl Matrix {
    /// The areas, in row order, each with its rows.
    pub fn areas(&self) -> Vec<(&str, &[Row])> {
        let mut out: Vec<(&str, &[Row])> = Vec::new();
        let mut start = 0;
        for i in 1..=self.rows.len() {
            if i == self.rows.len() || self.rows[i].area != self.rows[start].area {
                out.push((self.rows[start].area.as_str(), &self.rows[start..i]));
                start = i;
            }
        }
        out
    }

    /// How many cells have this worst verdict (`None`: not run).
    pub fn count(&self, verdict: Option<Verdict>) -> usize {
        self.targets.iter().map(|t| t.cells.get(verdict)).sum()
    }
}
