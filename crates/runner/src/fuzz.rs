//! `rpcspec fuzz`: generated and mutated inputs against any executable.
//!
//! Each execution is a short conversation: a few steps of lines drawn from
//! the shipped cases (often mutated) and from structure-aware generators
//! (broken JSON, deep nesting, huge strings and numbers, invalid UTF-8, odd
//! ids and member types, batches of every shape), sent under a random write
//! plan to a fresh target process. It is graded exactly as a case with
//! `expect_any = true`: framing and message rules on everything the target
//! writes, every request answered once, no reply to notifications, no
//! crash, no hang. A finding is minimised (fewest steps, fewest lines) and
//! written as a case file that `rpcspec run --cases DIR` replays.
//!
//! Same seed, same inputs: generation uses its own PRNG, seeded per
//! execution from the run seed and the execution number.

use std::{
    fmt::Write as _,
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use rpcspec_matcher::{Dialect, Id, IdMatch, Kind, classify};

use crate::{
    cases::{Case, Expect, Location, Send, Step},
    exec::{RunOptions, run_case},
    plan::Plan,
    report::{CaseResult, Verdict},
    target::Target,
};

/// How to fuzz.
#[derive(Debug, Clone)]
pub struct FuzzOptions {
    /// The run seed.
    pub seed: u64,
    /// Stop after this long.
    pub time: Duration,
    /// Stop after this many executions (if sooner).
    pub max_executions: Option<u64>,
    /// How each execution is run (deadline, dialect).
    pub run: RunOptions,
    /// Where finding case files are written (created when needed).
    pub out: PathBuf,
}

/// One finding, minimised.
#[derive(Debug, Clone)]
pub struct FuzzFinding {
    /// What kind of failure: the first failing rule id, or the verdict.
    pub signature: String,
    /// The shape of the input that showed it ([`shape`]): with the
    /// signature, the finding's root cause, found once per run.
    pub shape: &'static str,
    /// The execution that found it (0-based).
    pub execution: u64,
    /// The result of the minimised input.
    pub result: CaseResult,
    /// The case file written for it.
    pub file: PathBuf,
}

/// What a fuzzing run did.
#[derive(Debug, Clone, Default)]
pub struct FuzzReport {
    /// Executions run (minimisation not counted).
    pub executions: u64,
    /// Distinct findings, in the order found.
    pub findings: Vec<FuzzFinding>,
    /// Wall time.
    pub elapsed: Duration,
}

/// xorshift64*: small, fast, and the same everywhere.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator for execution `n` of the run seeded `seed`.
    pub fn new(seed: u64, n: u64) -> Rng {
        // SplitMix64 of the pair, so neighbouring executions differ.
        let mut z = seed
            ^ n.wrapping_mul(0x9E37_79B9_7F4A_7C15)
                .wrapping_add(0x2545_F491_4F6C_DD1D);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Rng((z ^ (z >> 31)) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (`n` > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability `1/n`.
    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// The lines the shipped cases send: the seed pool for mutation.
pub fn seed_lines(cases: &[Case]) -> Vec<Vec<u8>> {
    let mut lines = Vec::new();
    for case in cases {
        for step in &case.steps {
            match &step.send {
                Send::Lines(ls) => lines.extend(ls.iter().cloned()),
                Send::Raw(chunks) => {
                    let all = chunks.concat();
                    lines.extend(
                        all.split(|&b| b == b'\n')
                            .filter(|l| !l.is_empty())
                            .map(<[u8]>::to_vec),
                    );
                }
            }
        }
    }
    lines.sort();
    lines.dedup();
    lines
}

const METHODS: &[&str] = &[
    "subtract",
    "sum",
    "get_data",
    "update",
    "notify_hello",
    "foobar",
    "rpc.discover",
    "",
];

fn id(rng: &mut Rng, n: usize) -> String {
    match rng.below(12) {
        0 => "null".into(),
        1 => "1.5".into(),
        2 => "18446744073709551616".into(),
        3 => "-9007199254740993".into(),
        4 => "[]".into(),
        5 => "{}".into(),
        6 => "true".into(),
        7 => "\"\"".into(),
        8 => format!("\"\\u00{:02x}{n}\"", 0x41 + rng.below(26)),
        9 | 10 => format!("\"f{n}\""),
        _ => n.to_string(),
    }
}

fn params(rng: &mut Rng) -> Option<String> {
    Some(match rng.below(9) {
        0 => return None,
        1 => "null".into(),
        2 => "\"bar\"".into(),
        3 => "42".into(),
        4 => format!("[{}, {}]", rng.below(100), rng.below(100)),
        5 => "{\"minuend\": 42, \"subtrahend\": 23}".into(),
        6 => format!("[{}]", "9".repeat(1 + rng.below(400))),
        7 => format!("[\"{}\"]", "x".repeat(rng.below(100_000))),
        _ => "[]".into(),
    })
}

/// A JSON-RPC-shaped message: every member may be missing or wrong.
fn message(rng: &mut Rng, n: usize, depth: usize) -> String {
    match rng.below(16) {
        0 if depth == 0 => {
            let members: Vec<String> = (0..rng.below(6))
                .map(|i| message(rng, n * 10 + i, depth + 1))
                .collect();
            format!("[{}]", members.join(","))
        }
        1 => {
            let deep = 1 + rng.below(3000);
            format!("{}{}", "[".repeat(deep), "]".repeat(deep))
        }
        2 => rng
            .pick(&["1", "\"x\"", "null", "true", "[]", "{}", "[1,2,3]"])
            .to_string(),
        _ => {
            let mut members = Vec::new();
            match rng.below(8) {
                0 => {}
                1 => members.push("\"jsonrpc\": 2.0".to_owned()),
                2 => members.push("\"jsonrpc\": \"1.0\"".to_owned()),
                _ => members.push("\"jsonrpc\": \"2.0\"".to_owned()),
            }
            match rng.below(10) {
                0 => {}
                1 => members.push("\"method\": 1".to_owned()),
                _ => members.push(format!("\"method\": \"{}\"", rng.pick(METHODS))),
            }
            if let Some(p) = params(rng) {
                members.push(format!("\"params\": {p}"));
            }
            if !rng.one_in(3) {
                members.push(format!("\"id\": {}", id(rng, n)));
            }
            if rng.one_in(8) {
                let i = rng.below(members.len().max(1));
                let dup = members.get(i).cloned().unwrap_or_default();
                members.push(dup);
            }
            let turn = rng.below(members.len() + 1).min(members.len());
            members.rotate_left(turn);
            format!("{{{}}}", members.join(", "))
        }
    }
}

/// Damages bytes the way transports and bad writers do.
fn mutate(rng: &mut Rng, line: &mut Vec<u8>) {
    const BYTES: &[u8] = b"\n\r\"{}[],:\\\x00\xFF\xC3\xE2\x1E 0";
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(line.len() + 1);
        match rng.below(6) {
            0 if !line.is_empty() => {
                let i = at.min(line.len() - 1);
                line[i] = *rng.pick(BYTES);
            }
            1 => line.insert(at, *rng.pick(BYTES)),
            2 if !line.is_empty() => {
                let end = (at + 1 + rng.below(8)).min(line.len());
                line.drain(at.min(line.len() - 1)..end);
            }
            3 => line.truncate(at),
            4 => {
                let piece = line[at..].to_vec();
                line.extend_from_slice(&piece);
            }
            _ => line.splice(at..at, "\u{2028}".bytes()).for_each(drop),
        }
    }
}

/// A generated conversation: steps of terminated lines, and a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scenario {
    /// Each step's lines, each with its terminator.
    pub steps: Vec<Vec<Vec<u8>>>,
    /// How the bytes are written.
    pub plan: Plan,
}

/// The scenario of execution `n` of the run seeded `seed`.
///
/// Two requests in flight with the same id make every pairing ambiguous:
/// that is the client's fault (§4: the id establishes the context), and no
/// server can be judged by it. So a step never carries two requests with
/// the same id; a draw that does is replaced by the next one.
pub fn scenario(seed: u64, n: u64, seeds: &[Vec<u8>]) -> Scenario {
    for attempt in 0..32 {
        let s = draw(seed, n.wrapping_mul(32).wrapping_add(attempt), seeds);
        if !s.steps.iter().any(|lines| reuses_an_id(lines)) {
            return s;
        }
    }
    Scenario {
        steps: vec![vec![
            b"{\"jsonrpc\": \"2.0\", \"method\": \"foobar\", \"id\": 1}\n".to_vec(),
        ]],
        plan: Plan::Whole,
    }
}

/// Whether two messages of a step carry the same request id.
fn reuses_an_id(lines: &[Vec<u8>]) -> bool {
    fn ids(kind: &Kind, out: &mut Vec<Id>) {
        match kind {
            Kind::Request { id, .. } | Kind::Invalid { id: Some(id), .. } => out.push(id.clone()),
            Kind::Batch(members) => members.iter().for_each(|m| ids(m, out)),
            _ => {}
        }
    }
    let mut seen = Vec::new();
    for line in lines {
        let text = String::from_utf8_lossy(line);
        ids(
            &classify(text.trim_end(), &Dialect::Jsonrpc2).kind,
            &mut seen,
        );
    }
    seen.iter()
        .enumerate()
        .any(|(i, a)| seen[..i].iter().any(|b| a.compare(b) != IdMatch::Different))
}

fn draw(seed: u64, n: u64, seeds: &[Vec<u8>]) -> Scenario {
    let mut rng = Rng::new(seed, n);
    let mut steps = Vec::new();
    let mut count = 0;
    for _ in 0..1 + rng.below(4) {
        let mut lines = Vec::new();
        for _ in 0..1 + rng.below(3) {
            count += 1;
            let mut line = if !seeds.is_empty() && rng.one_in(2) {
                rng.pick(seeds).clone()
            } else {
                message(&mut rng, count, 0).into_bytes()
            };
            if rng.one_in(3) {
                mutate(&mut rng, &mut line);
            }
            // A line of nothing but whitespace is not a message: what a
            // server answers to one is its own business.
            line.retain(|&b| b != b'\n');
            if line.iter().all(|b| b" \t\r".contains(b)) {
                continue;
            }
            line.extend_from_slice(if rng.one_in(6) { b"\r\n" } else { b"\n" });
            lines.push(line);
        }
        if !lines.is_empty() {
            steps.push(lines);
        }
    }
    if steps.is_empty() {
        steps.push(vec![
            b"{\"jsonrpc\": \"2.0\", \"method\": \"foobar\", \"id\": 1}\n".to_vec(),
        ]);
    }
    let plan = *rng.pick(&[
        Plan::Whole,
        Plan::Whole,
        Plan::Split,
        Plan::Bytewise,
        Plan::Coalesced,
    ]);
    Scenario { steps, plan }
}

/// The scenario as a case with open-ended steps.
pub fn as_case(name: &str, scenario: &Scenario) -> Case {
    let steps = scenario
        .steps
        .iter()
        .map(|lines| Step {
            send: Send::Raw(lines.clone()),
            close: false,
            expect: Expect::Any,
            alternatives: Vec::new(),
            source: Location {
                file: PathBuf::from("fuzz"),
                line: 0,
                column: 0,
            },
        })
        .collect();
    Case {
        id: format!("fuzz/{name}"),
        title: "generated by rpcspec fuzz".into(),
        section: "rpcspec fuzz".into(),
        level: rpcspec_matcher::Level::Must,
        requires: Vec::new(),
        plans: vec![scenario.plan],
        allow: Vec::new(),
        not_in: Vec::new(),
        or_unknown_method: false,
        fresh: true,
        steps,
        source: Location {
            file: PathBuf::from("fuzz"),
            line: 0,
            column: 0,
        },
    }
}

/// The shape of a scenario's input, for grouping findings by root cause:
/// the first that applies of `beyond-limit` (a message past a parser limit:
/// see `rpcspec_matcher::limits`), `not-json` (a line that does not parse),
/// `batch`, and `messages`.
pub fn shape(scenario: &Scenario) -> &'static str {
    let classified: Vec<_> = scenario
        .steps
        .iter()
        .flatten()
        .map(|line| {
            let text = String::from_utf8_lossy(line);
            classify(text.trim_end(), &Dialect::Jsonrpc2)
        })
        .collect();
    if classified.iter().any(|c| c.limit.is_some()) {
        "beyond-limit"
    } else if classified.iter().any(|c| c.breaks("json.parse")) {
        "not-json"
    } else if classified.iter().any(|c| matches!(c.kind, Kind::Batch(_))) {
        "batch"
    } else {
        "messages"
    }
}

/// What kind of failure a result is, for deduplication and minimisation.
pub fn signature(result: &CaseResult) -> Option<String> {
    if !matches!(
        result.verdict,
        Verdict::Fail | Verdict::Timeout | Verdict::Crash
    ) {
        return None;
    }
    let worst = result
        .evidence
        .iter()
        .filter(|e| e.verdict == result.verdict)
        .find(|_| true)?;
    Some(match &worst.rule {
        Some(rule) => rule.id.clone(),
        None => result.verdict.as_str().to_lowercase(),
    })
}

fn run_scenario(scenario: &Scenario, target: &Target, opts: &RunOptions) -> CaseResult {
    run_case(&as_case("input", scenario), scenario.plan, target, opts)
}

/// Shrinks a failing scenario while it fails with the same signature:
/// fewer steps, then fewer lines, then plan `whole`. Bounded.
pub fn minimise(
    mut scenario: Scenario,
    signature: &str,
    target: &Target,
    opts: &RunOptions,
) -> (Scenario, CaseResult) {
    let mut best = run_scenario(&scenario, target, opts);
    let mut budget = 64;
    let mut still_fails = |candidate: &Scenario, best: &mut CaseResult| -> bool {
        if budget == 0 {
            return false;
        }
        budget -= 1;
        let result = run_scenario(candidate, target, opts);
        let same = crate::fuzz::signature(&result).as_deref() == Some(signature);
        if same {
            *best = result;
        }
        same
    };
    let mut i = 0;
    while i < scenario.steps.len() && scenario.steps.len() > 1 {
        let mut candidate = scenario.clone();
        candidate.steps.remove(i);
        if still_fails(&candidate, &mut best) {
            scenario = candidate;
        } else {
            i += 1;
        }
    }
    for step in 0..scenario.steps.len() {
        let mut j = 0;
        while j < scenario.steps[step].len() && scenario.steps[step].len() > 1 {
            let mut candidate = scenario.clone();
            candidate.steps[step].remove(j);
            if still_fails(&candidate, &mut best) {
                scenario = candidate;
            } else {
                j += 1;
            }
        }
    }
    // Long runs of one byte (huge strings and numbers) down to 8.
    let collapsed = Scenario {
        steps: scenario
            .steps
            .iter()
            .map(|lines| lines.iter().map(|l| collapse_runs(l, 8)).collect())
            .collect(),
        plan: scenario.plan,
    };
    if collapsed != scenario && still_fails(&collapsed, &mut best) {
        scenario = collapsed;
    }
    if scenario.plan != Plan::Whole {
        let candidate = Scenario {
            plan: Plan::Whole,
            ..scenario.clone()
        };
        if still_fails(&candidate, &mut best) {
            scenario = candidate;
        }
    }
    (scenario, best)
}

/// `bytes` with every run of one byte longer than `max` cut to `max`.
fn collapse_runs(bytes: &[u8], max: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut run = 0;
    for (i, &b) in bytes.iter().enumerate() {
        run = if i > 0 && bytes[i - 1] == b {
            run + 1
        } else {
            1
        };
        if run <= max {
            out.push(b);
        }
    }
    out
}

/// Bytes as a TOML literal string for `unescape = true`: printable ASCII
/// as is, everything else (and `'` and `\`) as `\xNN`.
fn escaped(bytes: &[u8]) -> String {
    let mut out = String::from("'");
    for &b in bytes {
        if (0x20..0x7F).contains(&b) && b != b'\'' && b != b'\\' {
            out.push(b as char);
        } else {
            let _ = write!(out, "\\x{b:02X}");
        }
    }
    out.push('\'');
    out
}

/// The case file for a finding.
pub fn case_file(name: &str, scenario: &Scenario, result: &CaseResult, origin: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Found by {origin}.");
    for e in result
        .evidence
        .iter()
        .filter(|e| e.verdict == result.verdict)
        .take(3)
    {
        let rule = e
            .rule
            .as_ref()
            .map(|r| format!("{} ", r.id))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "# {}: {rule}{}",
            result.verdict.as_str(),
            e.message.replace('\n', " ")
        );
    }
    let _ = writeln!(
        out,
        "# Replay: rpcspec run --cases DIR --filter '*/{name}' -- TARGET"
    );
    let _ = writeln!(out, "[[case]]");
    let _ = writeln!(out, "name = \"{name}\"");
    let _ = writeln!(
        out,
        "title = \"fuzz finding: {}\"",
        signature(result).unwrap_or_default()
    );
    let _ = writeln!(out, "section = \"rpcspec fuzz\"");
    let _ = writeln!(out, "plans = [\"{}\"]", scenario.plan.name());
    for lines in &scenario.steps {
        let _ = writeln!(out, "\n[[case.step]]");
        let sends: Vec<String> = lines.iter().map(|l| escaped(l)).collect();
        let _ = writeln!(out, "send = [{}]", sends.join(", "));
        let _ = writeln!(out, "raw = true\nunescape = true\nexpect_any = true");
    }
    out
}

/// Runs the fuzzer. `progress` gets (executions, findings) now and then.
pub fn fuzz(
    target: &Target,
    seeds: &[Vec<u8>],
    opts: &FuzzOptions,
    progress: &mut dyn FnMut(u64, usize, Duration),
) -> std::io::Result<FuzzReport> {
    let started = Instant::now();
    let mut report = FuzzReport::default();
    let mut last = Instant::now();
    while started.elapsed() < opts.time
        && opts
            .max_executions
            .is_none_or(|max| report.executions < max)
    {
        let n = report.executions;
        report.executions += 1;
        let scenario = scenario(opts.seed, n, seeds);
        let result = run_scenario(&scenario, target, &opts.run);
        if let Some(sig) = signature(&result)
            && !report
                .findings
                .iter()
                .any(|f| f.signature == sig && f.shape == shape(&scenario))
        {
            let cause = shape(&scenario);
            let (small, result) = minimise(scenario, &sig, target, &opts.run);
            let name = format!("seed-{}-{n}", opts.seed);
            let origin = format!(
                "`rpcspec fuzz --seed {}` (execution {n}) against `{}`",
                opts.seed,
                target.display()
            );
            std::fs::create_dir_all(&opts.out)?;
            let file = opts.out.join(format!("{name}.toml"));
            std::fs::write(&file, case_file(&name, &small, &result, &origin))?;
            report.findings.push(FuzzFinding {
                signature: sig,
                shape: cause,
                execution: n,
                result,
                file,
            });
        }
        if last.elapsed() >= Duration::from_millis(500) {
            progress(report.executions, report.findings.len(), started.elapsed());
            last = Instant::now();
        }
    }
    report.elapsed = started.elapsed();
    progress(report.executions, report.findings.len(), report.elapsed);
    Ok(report)
}

/// The default folder for findings.
pub fn default_out() -> &'static Path {
    Path::new("rpcspec-fuzz-findings")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_scenarios() {
        let seeds =
            vec![b"{\"jsonrpc\":\"2.0\",\"method\":\"sum\",\"params\":[1],\"id\":1}".to_vec()];
        for n in 0..50 {
            assert_eq!(scenario(7, n, &seeds), scenario(7, n, &seeds));
        }
        assert_ne!(scenario(7, 1, &seeds), scenario(8, 1, &seeds));
    }

    #[test]
    fn runs_collapse() {
        assert_eq!(
            collapse_runs(b"[\"xxxxxxxxxxxx\", 9999999999]", 3),
            b"[\"xxx\", 999]"
        );
    }

    #[test]
    fn case_files_escape_what_toml_literals_cannot_hold() {
        assert_eq!(escaped(b"{'a\\'}\xFF\n"), r"'{\x27a\x5C\x27}\xFF\x0A'");
    }
}
