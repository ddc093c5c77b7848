//! The report model: one result per (case, plan), with its evidence. Every
//! renderer (human, JSON, JUnit) reads this and nothing else.

use std::{fmt, str::FromStr, time::Duration};

use rpcspec_matcher::UnknownName;
use serde::Serialize;

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

/// Why a result is not a plain pass.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Evidence {
    /// The verdict this piece of evidence alone earns.
    pub verdict: Verdict,
    /// The rule broken, when one applies: its id, level, section, statement.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<RuleRef>,
    /// What happened, in one line.
    pub message: String,
    /// The 1-based step of the case it concerns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<usize>,
    /// What the case expected (patterns), if this is about a step's answer.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub expected: Vec<String>,
    /// What came back for that step.
    #[serde(skip_serializing_if = "Vec::is_empty")]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sent {
    /// Milliseconds since the target started.
    pub at_ms: u64,
    /// The bytes, as text when they are UTF-8 (see [`Bytes`]).
    pub bytes: Bytes,
}

/// One line the target wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Received {
    /// Milliseconds since the target started.
    pub at_ms: u64,
    /// 1-based line number on the target's stdout.
    pub line: u64,
    /// Byte offset of the line on the target's stdout.
    pub offset: u64,
    /// The line.
    pub bytes: Bytes,
}

/// Bytes in a report: `{"text": …}` when valid UTF-8, else
/// `{"base64": …}`, so nothing is lost or mangled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Bytes {
    /// Valid UTF-8.
    Text(String),
    /// Anything else, base64 (standard alphabet, padded).
    Base64(String),
}

impl Bytes {
    /// Wraps `bytes`.
    pub fn new(bytes: &[u8]) -> Bytes {
        match std::str::from_utf8(bytes) {
            Ok(s) => Bytes::Text(s.to_owned()),
            Err(_) => Bytes::Base64(base64(bytes)),
        }
    }

    /// Wraps `bytes`, or when they are over `max`, a head and a tail of
    /// about `max` bytes in all with the length and hash of the whole
    /// between them ([`kept`]): what a report keeps of a line, so that one
    /// huge line costs a report `max` bytes, not its length. Bytes that are
    /// not UTF-8 are then escaped as text.
    pub fn head(bytes: &[u8], max: usize) -> Bytes {
        if bytes.len() <= max {
            return Bytes::new(bytes);
        }
        let (head, tail) = ends(bytes, max);
        match (std::str::from_utf8(head), std::str::from_utf8(tail)) {
            (Ok(h), Ok(t)) => Bytes::Text(kept(h, t, bytes)),
            _ => Bytes::Text(kept(
                &head.escape_ascii().to_string(),
                &tail.escape_ascii().to_string(),
                bytes,
            )),
        }
    }

    /// For people: the text, or the bytes with non-ASCII escaped.
    pub fn display(&self, raw: &[u8]) -> String {
        match self {
            Bytes::Text(s) => s.clone(),
            Bytes::Base64(_) => raw.escape_ascii().to_string(),
        }
    }
}

/// Fewest characters a cut leaves out: a shorter tail is shown whole,
/// since "… (3 more characters)" costs as much as the characters.
pub const LEAST_CUT: usize = 40;

/// `text` for one line of a report: whole up to `max` characters (and up
/// to [`LEAST_CUT`] more), else its first `max` characters and how many
/// bytes were left out.
pub fn head_of(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) if text[cut..].chars().nth(LEAST_CUT - 1).is_some() => {
            format!("{}… ({} more bytes)", &text[..cut], text.len() - cut)
        }
        _ => text.to_owned(),
    }
}

/// Cuts `text` to a head and a tail of about `max` bytes in all (at
/// character boundaries), with its length and hash between them, as
/// [`Bytes::head`] does.
pub fn clip(text: &mut String, max: usize) {
    if text.len() <= max {
        return;
    }
    // Clipped before: keep its note (the length and hash of the whole),
    // and cut its head and tail further.
    if let Some((start, end)) = kept_note(text) {
        let (head, tail) = (&text[..start], &text[end..]);
        let mut h = (max - max / 4).min(head.len());
        while !head.is_char_boundary(h) {
            h -= 1;
        }
        let mut t = tail.len().saturating_sub(max / 4);
        while !tail.is_char_boundary(t) {
            t += 1;
        }
        *text = format!("{}{}{}", &head[..h], &text[start..end], &tail[t..]);
        return;
    }
    let (head, tail) = ends(text.as_bytes(), max);
    let (mut h, mut t) = (head.len(), text.len() - tail.len());
    while !text.is_char_boundary(h) {
        h -= 1;
    }
    while !text.is_char_boundary(t) {
        t += 1;
    }
    *text = kept(&text[..h], &text[t..], text.as_bytes());
}

/// The first three quarters and the last quarter of `max` bytes of `all`,
/// each cut back to whole UTF-8 characters where `all` is text there.
fn ends(all: &[u8], max: usize) -> (&[u8], &[u8]) {
    let (mut h, mut t) = (max - max / 4, all.len() - max / 4);
    // A UTF-8 character is at most 4 bytes: step off a partial one.
    for _ in 0..3 {
        if h > 0 && (all[h] & 0xC0) == 0x80 {
            h -= 1;
        }
        if t < all.len() && (all[t] & 0xC0) == 0x80 {
            t += 1;
        }
    }
    (&all[..h], &all[t..])
}

/// `head`, what is left out of `all` (its length and FNV-1a hash), `tail`.
fn kept(head: &str, tail: &str, all: &[u8]) -> String {
    format!(
        "{head}… ({} bytes in all, fnv1a {:016x}) …{tail}",
        all.len(),
        crate::budget::fnv1a(all)
    )
}

/// Where the note [`kept`] put in `text` starts and ends, if it has one.
fn kept_note(text: &str) -> Option<(usize, usize)> {
    let mid = text.find(" bytes in all, fnv1a ")?;
    let start = text[..mid].rfind("… (")?;
    let end = mid + text[mid..].find(") …")? + ") …".len();
    Some((start, end))
}

/// Keeps the first and the last `n / 2` of `items`; returns how many
/// were dropped between them, if any.
fn keep_ends<T>(items: &mut Vec<T>, n: usize) -> Option<usize> {
    if items.len() <= n {
        return None;
    }
    let dropped = items.len() - n;
    let first = n - n / 2;
    items.drain(first..first + dropped);
    items.shrink_to_fit();
    Some(dropped)
}

/// [`Bytes::head`] of bytes already kept: text is clipped, base64 cut to
/// whole groups of its first `max` bytes.
fn fit_bytes(b: &mut Bytes, max: usize) {
    match b {
        Bytes::Text(t) => clip(t, max),
        Bytes::Base64(t) if t.len() > max => {
            t.truncate(max / 4 * 4);
            t.shrink_to_fit();
        }
        Bytes::Base64(_) => {}
    }
}

/// Standard base64 with padding; small enough not to need a crate.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
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
