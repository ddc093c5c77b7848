//! The inputs: a seeded generator of conversations, and mutations of the
//! corpus's. Pure: no I/O, the same scenario for the same seed, execution
//! number and corpus.

use rpcspec_matcher::{Dialect, Id, IdMatch, Kind, classify};

use crate::{
    cases::{Case, Send},
    plan::Plan,
};

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
    scenario_with(seed, n, seeds, &[])
}

/// The scenario of execution `n` of the run seeded `seed`, given the
/// corpus's inputs as they are when it is drawn: two times in three a
/// mutation of one of them, else a generated one. With an
/// empty corpus, [`scenario`]'s input.
pub fn scenario_with(seed: u64, n: u64, seeds: &[Vec<u8>], corpus: &[Scenario]) -> Scenario {
    for attempt in 0..32 {
        let k = n.wrapping_mul(32).wrapping_add(attempt);
        let mut rng = Rng::new(seed ^ CORPUS_SALT, k);
        let s = if corpus.is_empty() || rng.one_in(3) {
            draw(seed, k, seeds)
        } else {
            match mutant(&mut rng, corpus, seeds) {
                Some(s) => s,
                None => continue,
            }
        };
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

/// Whether two messages of a step carry the same request id, or one
/// carries the id `null` while another awaits an error whose id is `null`
/// (it has no id that can be read): replies to both then carry `null`,
/// and nothing tells which is which. JSON-RPC 2.0 §4 discourages a `null`
/// id for that very reason.
fn reuses_an_id(lines: &[Vec<u8>]) -> bool {
    fn ids(kind: &Kind, out: &mut Vec<Id>, anonymous: &mut usize) {
        match kind {
            Kind::Request { id, .. } | Kind::Invalid { id: Some(id), .. } => out.push(id.clone()),
            Kind::Invalid { id: None, .. } => *anonymous += 1,
            Kind::Batch(members) => members.iter().for_each(|m| ids(m, out, anonymous)),
            _ => {}
        }
    }
    let mut seen = Vec::new();
    let mut anonymous = 0;
    for line in lines {
        let text = String::from_utf8_lossy(line);
        ids(
            &classify(text.trim_end(), &Dialect::Jsonrpc2).kind,
            &mut seen,
            &mut anonymous,
        );
    }
    (anonymous > 0 && seen.iter().any(|id| id.raw() == "null"))
        || seen
            .iter()
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

/// `bytes` with every run of one byte longer than `max` cut to `max`.
pub(super) fn collapse_runs(bytes: &[u8], max: usize) -> Vec<u8> {
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

/// Mixed into the seed for the choice between the corpus and the
/// generator, so that the generator's own draws stay those of [`scenario`].
const CORPUS_SALT: u64 = 0x6375_7270_7573_0001;

/// The plans a mutation chooses from (`crlf` is `whole` for raw steps,
/// which keep their own line endings).
const PLANS: &[Plan] = &[Plan::Whole, Plan::Split, Plan::Bytewise, Plan::Coalesced];

/// The most steps, and lines in a step, a mutation of a corpus input may
/// have: what the generator draws is at most 4 steps of 3 lines, and
/// inputs that grow with every generation would make executions slower.
pub const MAX_MUTANT_STEPS: usize = 8;
/// See [`MAX_MUTANT_STEPS`].
pub const MAX_MUTANT_LINES: usize = 8;
/// The most bytes a mutation of a corpus input may send.
pub const MAX_MUTANT_BYTES: usize = 64 << 10;

/// A corpus input, changed one to three times: a line damaged, a line
/// inserted (generated or a shipped case's), dropped or duplicated, a step
/// taken from another input or swapped, the plan changed. `None` when the
/// result is empty or over the caps.
fn mutant(rng: &mut Rng, corpus: &[Scenario], seeds: &[Vec<u8>]) -> Option<Scenario> {
    let mut s = rng.pick(corpus).clone();
    for _ in 0..1 + rng.below(3) {
        if s.steps.is_empty() {
            return None;
        }
        let step = rng.below(s.steps.len());
        let n = s.steps[step].len();
        match rng.below(8) {
            0 | 1 if n > 0 => {
                let i = rng.below(n);
                let old = &s.steps[step][i];
                let crlf = old.ends_with(b"\r\n");
                let mut line: Vec<u8> = old.iter().copied().filter(|&b| b != b'\n').collect();
                mutate(rng, &mut line);
                line.retain(|&b| b != b'\n');
                line.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
                s.steps[step][i] = line;
            }
            2 => {
                let mut line = if !seeds.is_empty() && rng.one_in(2) {
                    rng.pick(seeds).clone()
                } else {
                    {
                        let n = 100 + rng.below(900);
                        message(rng, n, 0).into_bytes()
                    }
                };
                line.retain(|&b| b != b'\n');
                line.push(b'\n');
                let at = rng.below(n + 1);
                s.steps[step].insert(at, line);
            }
            3 if n > 0 => {
                s.steps[step].remove(rng.below(n));
            }
            4 if n > 0 => {
                let i = rng.below(n);
                let copy = s.steps[step][i].clone();
                s.steps[step].insert(i, copy);
            }
            5 => {
                let other = rng.pick(corpus);
                if !other.steps.is_empty() {
                    s.steps[step] = rng.pick(&other.steps).clone();
                }
            }
            6 if s.steps.len() > 1 => {
                let other = rng.below(s.steps.len());
                s.steps.swap(step, other);
            }
            _ => s.plan = *rng.pick(PLANS),
        }
    }
    for lines in &mut s.steps {
        lines.retain(|l| !l.iter().all(|b| b" \t\r\n".contains(b)));
    }
    s.steps.retain(|lines| !lines.is_empty());
    let bytes: usize = s.steps.iter().flatten().map(Vec::len).sum();
    (!s.steps.is_empty()
        && s.steps.len() <= MAX_MUTANT_STEPS
        && s.steps.iter().all(|l| l.len() <= MAX_MUTANT_LINES)
        && bytes <= MAX_MUTANT_BYTES)
        .then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A step whose replies could not be told apart is never drawn: two
    /// requests with one id, or a `null` id beside a message that gets an
    /// error with id `null` (found against the reference server as
    /// `session.batch-reply-missing`: a batch with a `null` id request and
    /// a batch of invalid requests, their replies paired the wrong way).
    #[test]
    fn ambiguous_steps_are_found() {
        let step = |lines: &[&str]| {
            let lines: Vec<Vec<u8>> = lines
                .iter()
                .map(|l| format!("{l}\n").into_bytes())
                .collect();
            reuses_an_id(&lines)
        };
        let null = r#"[{"jsonrpc": "2.0", "method": "foobar", "id": null}]"#;
        let one = r#"{"jsonrpc": "2.0", "method": "foobar", "id": 1}"#;
        assert!(step(&[one, one]));
        assert!(step(&[
            one,
            r#"{"jsonrpc": "2.0", "method": "x", "id": 1.0}"#
        ]));
        assert!(step(&[null, r#"[{"jsonrpc": "2.0", "method": 1}]"#]));
        assert!(step(&[null, "{oops"]));
        assert!(!step(&[null, one]));
        assert!(!step(&[one, "{oops", "{oops", "[]"]));
    }
}
