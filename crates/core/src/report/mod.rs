//! The report model: one result per (case, plan), with its evidence. Every
//! renderer (human, JSON, JUnit) reads this and nothing else.

use std::{fmt, str::FromStr, time::Duration};

use rpcspec_matcher::UnknownName;
use serde::{Deserialize, Serialize};

mod bytes;

pub use bytes::{Bytes, LEAST_CUT, base64, clip, head_of};
use bytes::{fit_bytes, keep_ends};

/// The verdict of one (case, plan), after Autobahn|Testsuite.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "SCREAMING-KEBAB-CASE")]
pub enum Verdict {
    /// Everything as the specification says.
    Pass,
    /// A SHOULD broken, or a tolerated alternative taken.
    NonStrict,
    /// The target lacks what the case requires.
    Skipped,
    /// The case cannot apply to the dialect (MCP has no batches, no
    /// `subtract`): its own count, neither a pass nor a skip.
    #[serde(rename = "N/A")]
    NotApplicable,
    /// A MUST broken.
    Fail,
    /// The target did not answer in time.
    Timeout,
    /// The target exited or died while the case ran.
    Crash,
    /// The case could not be run (the target could not be started).
    Error,
}

impl Verdict {
    /// Every verdict, in the report's order (PASS first).
    pub const ALL: [Verdict; 8] = [
        Verdict::Pass,
        Verdict::NonStrict,
        Verdict::Skipped,
        Verdict::NotApplicable,
        Verdict::Fail,
        Verdict::Timeout,
        Verdict::Crash,
        Verdict::Error,
    ];

    /// Every verdict [as printed](Verdict::as_str), in the order of
    /// [`Verdict::ALL`].
    pub const NAMES: &'static [&'static str] = &[
        "PASS",
        "NON-STRICT",
        "SKIPPED",
        "N/A",
        "FAIL",
        "TIMEOUT",
        "CRASH",
        "ERROR",
    ];

    /// As printed: `PASS`, `NON-STRICT`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::NonStrict => "NON-STRICT",
            Verdict::Skipped => "SKIPPED",
            Verdict::NotApplicable => "N/A",
            Verdict::Fail => "FAIL",
            Verdict::Timeout => "TIMEOUT",
            Verdict::Crash => "CRASH",
            Verdict::Error => "ERROR",
        }
    }

    /// Whether this verdict fails a run (with `strict`, NON-STRICT does too).
    pub fn fails(self, strict: bool) -> bool {
        match self {
            Verdict::Pass | Verdict::Skipped | Verdict::NotApplicable => false,
            Verdict::NonStrict => strict,
            Verdict::Fail | Verdict::Timeout | Verdict::Crash | Verdict::Error => true,
        }
    }

    /// Whether the case was run at all: not SKIPPED, not N/A.
    pub fn ran(self) -> bool {
        !matches!(self, Verdict::Skipped | Verdict::NotApplicable)
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The verdict [printed](Verdict::as_str) as `name`, exactly (`NON-STRICT`).
impl FromStr for Verdict {
    type Err = UnknownName;

    fn from_str(name: &str) -> Result<Verdict, UnknownName> {
        Verdict::ALL
            .into_iter()
            .find(|v| v.as_str() == name)
            .ok_or_else(|| UnknownName::new("verdict", name, Verdict::NAMES))
    }
}

/// Read back as printed ([`FromStr`]): a report is read by the matrix.
impl<'de> Deserialize<'de> for Verdict {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Verdict, D::Error> {
        let name = String::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

/// Most findings of one rule a result lists one by one, in every role;
/// the rest are counted in one more entry. A few say enough: a flood would
/// say it 500k times. (`rpcspec check`, which reads a whole transcript
/// rather than a case, has its own `--per-rule`.)
pub const FINDINGS_PER_RULE: usize = 5;

/// Why a result is not a plain pass.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// The verdict this piece of evidence alone earns.
    pub verdict: Verdict,
    /// The rule broken, when one applies: its id, level, section, statement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<RuleRef>,
    /// What happened, in one line.
    pub message: String,
    /// The 1-based step of the case it concerns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<usize>,
    /// What the case expected (patterns), if this is about a step's answer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expected: Vec<String>,
    /// What came back for that step.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actual: Vec<String>,
}

impl Evidence {
    /// The target wrote more than a case's `budget` lets it read: it was
    /// stopped (`process.output-flood`, FAIL). `why` says which cap.
    pub fn flood(why: String, budget: &crate::budget::Budget) -> Evidence {
        Evidence {
            rule: Some(RuleRef::from_rule(&crate::rules::PROCESS_OUTPUT_FLOOD)),
            ..Evidence::note(
                Verdict::Fail,
                format!(
                    "{why} (a case of the {budget} budget reads at most {} bytes and {} lines)",
                    budget.output(),
                    budget.lines()
                ),
            )
        }
    }

    /// Evidence for breaking `rule`: its verdict is the rule's level's.
    pub fn broke(rule: &'static rpcspec_matcher::Rule, message: String) -> Evidence {
        let rule = RuleRef::from_rule(rule);
        Evidence {
            verdict: rule.verdict(),
            rule: Some(rule),
            ..Evidence::note(Verdict::Pass, message)
        }
    }

    /// Evidence that names no rule: a timeout, a crash, a skip, a note.
    pub fn note(verdict: Verdict, message: String) -> Evidence {
        Evidence {
            verdict,
            rule: None,
            message,
            step: None,
            expected: Vec::new(),
            actual: Vec::new(),
        }
    }
}

/// A rule, as shown in a report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleRef {
    /// Stable id, such as `response.id-type` or `framing.utf8`.
    pub id: String,
    /// `MUST`, `SHOULD` or `INFO`.
    pub level: String,
    /// Where the rule comes from.
    pub section: String,
    /// The rule in one line.
    pub statement: String,
}

impl RuleRef {
    /// A rule of the registry ([`crate::rules`]): the only way to make one.
    pub fn from_rule(rule: &'static rpcspec_matcher::Rule) -> RuleRef {
        RuleRef {
            id: rule.id.to_owned(),
            level: rule.level.as_str().to_owned(),
            section: rule.section.to_owned(),
            statement: rule.statement.to_owned(),
        }
    }

    /// The framing rule a problem in a stream breaks
    /// ([`rules::framing`](crate::rules::framing)).
    pub fn framing(kind: rpcspec_framer::ProblemKind) -> RuleRef {
        RuleRef::from_rule(crate::rules::framing(kind))
    }

    /// The verdict breaking this rule earns.
    pub fn verdict(&self) -> Verdict {
        match self.level.as_str() {
            "MUST" => Verdict::Fail,
            "SHOULD" => Verdict::NonStrict,
            _ => Verdict::Pass,
        }
    }
}

/// One write the runner made, as sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sent {
    /// Milliseconds since the target started.
    #[serde(default)]
    pub at_ms: u64,
    /// The bytes, as text when they are UTF-8 (see [`Bytes`]).
    pub bytes: Bytes,
}

/// What a stream's records are called: lines in NDJSON, messages in
/// Content-Length framing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// A `\n`-terminated line.
    #[default]
    Line,
    /// A message behind a Content-Length header.
    Message,
}

impl Unit {
    /// The word for one record.
    pub fn noun(self) -> &'static str {
        match self {
            Unit::Line => "line",
            Unit::Message => "message",
        }
    }

    fn is_line(&self) -> bool {
        *self == Unit::Line
    }
}

/// One line (or message) the target wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Received {
    /// Milliseconds since the target started.
    #[serde(default)]
    pub at_ms: u64,
    /// 1-based number of the record on the target's stdout: its line, or
    /// its message in Content-Length framing ([`Received::unit`]).
    #[serde(default)]
    pub line: u64,
    /// Byte offset of the record on the target's stdout.
    #[serde(default)]
    pub offset: u64,
    /// The record's bytes (a message's body).
    pub bytes: Bytes,
    /// What `line` counts: lines, or messages (written only then).
    #[serde(default, skip_serializing_if = "Unit::is_line")]
    pub unit: Unit,
}

/// The result of one case under one plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CaseResult {
    /// The case id.
    pub id: String,
    /// The write plan.
    pub plan: String,
    /// The case's title.
    pub title: String,
    /// The specification section the case checks.
    pub section: String,
    /// The verdict: the worst of the evidence, or PASS.
    pub verdict: Verdict,
    /// Why it is not a pass (empty for a pass).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<Evidence>,
    /// Every write, with its chunk boundaries.
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
    /// How long the case took.
    #[serde(serialize_with = "millis")]
    pub duration: Duration,
    /// Whether a baseline lists this result as a known failure.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub baselined: bool,
    /// What of `sent` and `received` is the dialect's preamble (a
    /// handshake every case opens with), when the case has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prologue: Option<Prologue>,
    /// Where [`CaseResult::fit`] left writes and lines out: `(index, how
    /// many)`, the index being that of the first item kept after the gap.
    #[serde(skip_serializing_if = "Gaps::is_empty")]
    pub gaps: Gaps,
}

/// The writes and received lines a result does not keep.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Gaps {
    /// In `sent`: (index after the gap, writes left out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sent: Option<(usize, usize)>,
    /// In `received`: (index after the gap, lines left out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub received: Option<(usize, usize)>,
}

impl Gaps {
    fn is_empty(&self) -> bool {
        self.sent.is_none() && self.received.is_none()
    }
}

/// How the message of a finding in a preamble's step begins (`preamble
/// step 1: …`): the report then shows the preamble's traffic in full.
pub const PREAMBLE_STEP: &str = "preamble step";

/// The preamble's part of a result: its first `steps` steps, the first
/// `sent` writes and the first `received` lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Prologue {
    /// How many of the case's steps are the preamble's.
    pub steps: usize,
    /// How many writes of `sent` it made.
    pub sent: usize,
    /// How many lines of `received` came while it ran.
    pub received: usize,
}

impl CaseResult {
    /// Sets the verdict to the worst of the evidence, PASS when there is
    /// none: every role ends a result with this.
    pub fn settle(&mut self) {
        self.verdict = self
            .evidence
            .iter()
            .map(|e| e.verdict)
            .max()
            .unwrap_or(Verdict::Pass);
    }

    /// Cuts what this result keeps to what `budget` lets a result keep
    /// ([`Budget::report`](crate::budget::Budget::report)): the first and
    /// last of its received lines and writes ([`Budget::kept_lines`]
    /// each, the rest counted in a note), every line, write and evidence
    /// string to a head and a tail ([`Budget::kept_bytes`]), then smaller
    /// until the whole fits or 4 items of 128 bytes are left of each (a
    /// result then keeps a few KiB beyond its share, its fixed fields
    /// aside). Evidence with the result's own verdict is kept before the
    /// rest. The verdict never changes.
    ///
    /// [`Budget::kept_lines`]: crate::budget::Budget::kept_lines
    /// [`Budget::kept_bytes`]: crate::budget::Budget::kept_bytes
    pub fn fit(&mut self, budget: &crate::budget::Budget) {
        let (mut lines, mut each) = (budget.kept_lines(), budget.kept_bytes());
        // Smaller until it fits, measured before anything is cut: text is
        // clipped once, so its note gives the length of the whole.
        while self.kept(lines, each) > budget.report() && (each > 128 || lines > 4) {
            each = (each / 4).max(128);
            lines = (lines / 2).max(4);
        }
        let mut notes = Vec::new();
        let first = lines - lines / 2;
        if let Some(n) = keep_ends(&mut self.received, lines) {
            notes.push(format!("{n} lines received are not kept in the report"));
            self.gaps.received = Some((first, n));
        }
        if let Some(n) = keep_ends(&mut self.sent, lines) {
            notes.push(format!("{n} writes are not kept in the report"));
            self.gaps.sent = Some((first, n));
        }
        if self.evidence.len() > lines {
            let n = self.evidence.len() - lines;
            let verdict = self.verdict;
            // Stable: the result's own verdict first, then in order.
            self.evidence.sort_by_key(|e| e.verdict != verdict);
            self.evidence.truncate(lines);
            notes.push(format!(
                "{n} more pieces of evidence are not kept in the report"
            ));
        }
        for b in self.received.iter_mut().map(|r| &mut r.bytes) {
            fit_bytes(b, each);
        }
        for b in self.sent.iter_mut().map(|s| &mut s.bytes) {
            fit_bytes(b, each);
        }
        for e in &mut self.evidence {
            for list in [&mut e.expected, &mut e.actual] {
                if let Some(n) = keep_ends(list, lines) {
                    list.insert(lines - lines / 2, format!("… and {n} more"));
                }
            }
            clip(&mut e.message, each);
            for x in e.expected.iter_mut().chain(e.actual.iter_mut()) {
                clip(x, each);
            }
        }
        clip(&mut self.stderr, each);
        for note in notes {
            self.evidence.push(Evidence::note(Verdict::Pass, note));
        }
    }

    /// About how many bytes this result would keep with `lines` of each
    /// list and `each` bytes of each string.
    fn kept(&self, lines: usize, each: usize) -> usize {
        // With what an item costs in memory beside its text.
        let cut = |len: usize| len.min(each + 64) + 96;
        let bytes = |b: &Bytes| match b {
            Bytes::Text(t) | Bytes::Base64(t) => cut(t.len()),
        };
        let evidence = |e: &Evidence| {
            let list = |l: &[String]| l.iter().take(lines).map(|x| cut(x.len())).sum::<usize>();
            cut(e.message.len()) + list(&e.expected) + list(&e.actual)
        };
        // Of `n` items, whether the `i`th is among the first and last kept.
        let kept = |i: usize, n: usize| i < lines - lines / 2 || i + lines / 2 >= n;
        let (nr, ns) = (self.received.len(), self.sent.len());
        let received = self.received.iter().enumerate();
        let sent = self.sent.iter().enumerate();
        received
            .filter(|(i, _)| kept(*i, nr))
            .map(|(_, r)| bytes(&r.bytes))
            .sum::<usize>()
            + sent
                .filter(|(i, _)| kept(*i, ns))
                .map(|(_, s)| bytes(&s.bytes))
                .sum::<usize>()
            + self
                .evidence
                .iter()
                .take(lines)
                .map(evidence)
                .sum::<usize>()
            + cut(self.stderr.len())
    }

    /// A passing result with no evidence yet, to be filled in by a run.
    pub fn new(id: String, plan: String, title: String, section: String) -> CaseResult {
        CaseResult {
            id,
            plan,
            title,
            section,
            verdict: Verdict::Pass,
            evidence: Vec::new(),
            sent: Vec::new(),
            received: Vec::new(),
            stderr: String::new(),
            exit: None,
            duration: Duration::ZERO,
            baselined: false,
            prologue: None,
            gaps: Gaps::default(),
        }
    }
}

fn millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(d.as_millis() as u64)
}

/// Why a run stopped running its cases: every result that ran is counted
/// with this verdict and this evidence ([`Halt::apply`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Halt {
    /// TIMEOUT (the target answered nothing in time) or CRASH (it exited
    /// before answering anything).
    pub verdict: Verdict,
    /// What the target did, and what to look at.
    pub message: String,
}

impl Halt {
    /// The result of a case not run, or run in vain, because the run
    /// halted: what ran is counted with the halt's verdict, its evidence
    /// the halt's message; what did not (SKIPPED, N/A) stays.
    pub fn apply(&self, result: &mut CaseResult) {
        if result.verdict.ran() {
            result.evidence = vec![Evidence::note(self.verdict, self.message.clone())];
            result.settle();
        }
    }

    /// Whether `result` is one this halt [made](Halt::apply).
    pub fn made(&self, result: &CaseResult) -> bool {
        result.verdict == self.verdict
            && matches!(&result.evidence[..], [e] if e.message == self.message)
    }
}

/// A whole run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    /// The target, as argv joined by spaces (or the URL).
    pub target: String,
    /// What the target is: `server`, `producer` or `decoder`.
    pub role: String,
    /// The dialect the target's messages were judged in (for a producer,
    /// its profile).
    pub dialect: String,
    /// Whether SHOULD-level findings fail the run.
    pub strict: bool,
    /// Every result, in case order then plan order.
    pub results: Vec<CaseResult>,
    /// Baseline entries that now pass: stale, and failing the run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stale: Vec<String>,
    /// Wall time of the whole run.
    #[serde(serialize_with = "millis")]
    pub duration: Duration,
    /// Why the run stopped running cases, if it did: its target answered
    /// nothing, and every result that ran says so ([`Halt::apply`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub halt: Option<Halt>,
}

/// Counts per verdict.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// PASS.
    pub passed: usize,
    /// NON-STRICT.
    pub non_strict: usize,
    /// FAIL, TIMEOUT, CRASH and ERROR not covered by the baseline (and
    /// NON-STRICT with `strict`).
    pub failed: usize,
    /// Of `failed`, TIMEOUT.
    pub timeouts: usize,
    /// Of `failed`, CRASH.
    pub crashes: usize,
    /// Of `failed`, ERROR: the case could not be run.
    pub errors: usize,
    /// SKIPPED.
    pub skipped: usize,
    /// N/A: cases that cannot apply to the dialect.
    pub not_applicable: usize,
    /// Failures a baseline lists as known.
    pub baselined: usize,
    /// Stale baseline entries.
    pub stale: usize,
}

impl Summary {
    /// The closing line: `N passed, N non-strict, N failed, N timeout, N
    /// crash, N skipped`, each verdict counted apart (with `--strict`,
    /// NON-STRICT results are failed). `failed` counts FAIL and stale
    /// baseline entries; ERROR (a case that could not be run) and N/A
    /// (cases that cannot apply to the dialect) follow when there are any.
    /// Baselined failures are in none (the line before says how many).
    pub fn closing_line(&self) -> String {
        let fail = self.failed - self.timeouts - self.crashes - self.errors;
        let mut line = format!(
            "{} passed, {} non-strict, {} failed, {} timeout, {} crash, {} skipped",
            self.passed,
            self.non_strict,
            fail + self.stale,
            self.timeouts,
            self.crashes,
            self.skipped
        );
        if self.errors > 0 {
            line.push_str(&format!(", {} error", self.errors));
        }
        if self.not_applicable > 0 {
            line.push_str(&format!(", {} not applicable", self.not_applicable));
        }
        line
    }
}

impl Report {
    /// Counts per verdict, honouring `strict` and the baseline.
    pub fn summary(&self) -> Summary {
        let mut s = Summary {
            stale: self.stale.len(),
            ..Summary::default()
        };
        for r in &self.results {
            match r.verdict {
                _ if r.baselined => s.baselined += 1,
                Verdict::Pass => s.passed += 1,
                Verdict::Skipped => s.skipped += 1,
                Verdict::NotApplicable => s.not_applicable += 1,
                Verdict::NonStrict if !self.strict => s.non_strict += 1,
                v => {
                    s.failed += 1;
                    match v {
                        Verdict::Timeout => s.timeouts += 1,
                        Verdict::Crash => s.crashes += 1,
                        Verdict::Error => s.errors += 1,
                        _ => {}
                    }
                }
            }
        }
        s
    }

    /// How many cases the results are of (a case has a result per plan).
    pub fn cases(&self) -> usize {
        self.results.chunk_by(|a, b| a.id == b.id).count()
    }

    /// How many cases have a result that fails the run.
    pub fn failed_cases(&self) -> usize {
        self.results
            .chunk_by(|a, b| a.id == b.id)
            .filter(|rs| {
                rs.iter()
                    .any(|r| !r.baselined && r.verdict.fails(self.strict))
            })
            .count()
    }

    /// Whether the run failed: a failure outside the baseline, or a stale
    /// baseline entry.
    pub fn failed(&self) -> bool {
        let s = self.summary();
        s.failed > 0 || s.stale > 0
    }
}

/// The case id up to its last `/` (the whole id if it has none).
pub fn area_of(id: &str) -> &str {
    id.rsplit_once('/').map_or(id, |(a, _)| a)
}

#[cfg(test)]
mod tests;
