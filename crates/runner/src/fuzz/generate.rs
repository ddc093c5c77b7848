//! The inputs: a seeded generator of conversations, and mutations of the
//! corpus's. Pure: no I/O, the same scenario for the same seed, execution
//! number and corpus.

use rpcspec_matcher::{Dialect, Id, IdMatch, Kind, classify};

use crate::{
    capture::Framing,
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

    pub(super) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (`n` > 0).
    pub(super) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability `1/n`.
    pub(super) fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    pub(super) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// The lines the shipped cases of the dialect `handshake` send (those of
/// every dialect, and its own): the seed pool for mutation (no
/// Content-Length header line among them). Another dialect's methods would
/// only be unknown ones here.
pub fn seed_lines(cases: &[Case], handshake: &str) -> Vec<Vec<u8>> {
    let mut lines = Vec::new();
    for case in cases
        .iter()
        .filter(|c| c.dialect.as_deref().is_none_or(|d| d == handshake))
    {
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
    // A Content-Length case's header lines are not messages: in that
    // framing they would read as damaged frames.
    lines.retain(|l| !super::is_frame(l));
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
        // Characters of two, three and four bytes, for the write plans
        // to cut inside.
        2 => rng
            .pick(&["\"bar\"", "[\"b\u{e9}r \u{65e5}\u{1f600}\"]"])
            .to_string(),
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
    /// Each step's lines, each with its terminator, but for the input's
    /// last line, which may have none ([`in_framing`]).
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
pub(super) fn reuses_an_id(lines: &[Vec<u8>]) -> bool {
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

/// One NDJSON input in this many ends without its last newline. Such an
/// input needs a process of its own (its stdin is closed to end the line),
/// which costs as much as a few dozen inputs on a kept process.
pub(super) const UNTERMINATED: usize = 1024;

/// Mixed into the seed for the damaged frames of Content-Length framing,
/// so that the lines drawn stay those of [`scenario_with`].
const FRAME_SALT: u64 = 0x6672_616d_6573_0001;

/// The input of execution `n` in `framing`: in Content-Length framing, one
/// time in five a last step holding one damaged frame ([`damaged_frame`])
/// of a notification. In NDJSON, one time in [`UNTERMINATED`] the input's
/// last line without its terminator, stdin closed after it: writers MUST
/// end each line, and what a reader does with an unterminated tail is open
/// (read, or dropped at EOF; the session owes it nothing,
/// `Session::feed_unterminated`).
pub fn in_framing(mut scenario: Scenario, seed: u64, n: u64, framing: &Framing) -> Scenario {
    let mut rng = Rng::new(seed ^ FRAME_SALT, n);
    if matches!(framing, Framing::Ndjson(_))
        && rng.one_in(UNTERMINATED)
        && let Some(last) = scenario.steps.last_mut().and_then(|s| s.last_mut())
    {
        while last.last().is_some_and(|b| matches!(b, b'\n' | b'\r')) {
            last.pop();
        }
        return scenario;
    }
    if matches!(framing, Framing::ContentLength(_))
        && rng.one_in(5)
        && scenario.steps.len() < MAX_MUTANT_STEPS
        && !scenario.steps.iter().flatten().any(|l| super::is_frame(l))
    {
        // A valid notification (its params structured or absent): whether
        // a reader takes the frame's body or not, it owes no reply, and one
        // error with id null is its right.
        let method = rng.pick(METHODS).to_owned();
        let structured = params(&mut rng).filter(|p| p.starts_with(['[', '{']));
        let body = match structured {
            Some(p) => format!(r#"{{"jsonrpc": "2.0", "method": "{method}", "params": {p}}}"#),
            None => format!(r#"{{"jsonrpc": "2.0", "method": "{method}"}}"#),
        };
        scenario
            .steps
            .push(vec![damaged_frame(&mut rng, body.as_bytes())]);
    }
    scenario
}

/// The input in the dialect whose handshake is `handshake`: in LSP,
/// without the lines that carry an id LSP has no room for (`null`, a
/// fraction, a number wider than 32 bits: "id: integer | string", LSP
/// 3.17), which the `lsp` suite leaves N/A as well; what a language server
/// does with one is not for rpcspec to grade. Ids of the wrong type stay:
/// they make a request invalid in LSP as in JSON-RPC.
///
/// In a dialect without batches ([`crate::exec::no_batches`]: MCP, Codex's
/// app-server), without lines that open an array with members, however
/// deep or broken, as the suite leaves its batch cases N/A there: a server
/// answers one member by member or with one -32600 for the whole array,
/// and rpcspec cannot grade either without knowing which it means.
pub fn in_dialect(mut scenario: Scenario, handshake: &str) -> Scenario {
    let serving = crate::dialects::find(handshake).map(|(d, _)| &d.serve);
    if serving.and_then(crate::exec::no_batches).is_some() {
        let batch = |line: &Vec<u8>| {
            let mut bytes = line.iter().filter(|b| !b" \t\r\n".contains(b));
            bytes.next() == Some(&b'[') && bytes.next().is_some_and(|&b| b != b']')
        };
        for lines in &mut scenario.steps {
            lines.retain(|l| !batch(l));
        }
        return non_empty(scenario);
    }
    let Some(id_fits) = serving.and_then(|s| s.id_fits) else {
        return scenario;
    };
    let no_room = |line: &Vec<u8>| {
        let Ok(value) = serde_json::from_slice::<serde_json::Value>(line) else {
            return false;
        };
        let wrong = |m: &serde_json::Value| {
            m.get("id")
                .is_some_and(|id| (id.is_number() || id.is_null()) && !id_fits(id))
        };
        match &value {
            serde_json::Value::Array(members) => members.iter().any(wrong),
            one => wrong(one),
        }
    };
    for lines in &mut scenario.steps {
        lines.retain(|l| !no_room(l));
    }
    non_empty(scenario)
}

/// `scenario` without empty steps, and with one request if it has none.
fn non_empty(mut scenario: Scenario) -> Scenario {
    scenario.steps.retain(|lines| !lines.is_empty());
    if scenario.steps.is_empty() {
        scenario.steps.push(vec![
            b"{\"jsonrpc\": \"2.0\", \"method\": \"foobar\", \"id\": 1}\n".to_vec(),
        ]);
    }
    scenario
}

/// `body` in a Content-Length frame that lies or is malformed: a length
/// one too many or too few, past any memory, negative or not a number; no
/// blank line after the header, or `\n` for `\r\n`; no `Content-Length`,
/// two of them, a header line without `:`, a charset that is not UTF-8.
/// After one, no reader can know where the next message starts.
pub fn damaged_frame(rng: &mut Rng, body: &[u8]) -> Vec<u8> {
    let n = body.len();
    let header = match rng.below(12) {
        0 => format!("Content-Length: {}\r\n\r\n", n + 1),
        1 => format!("Content-Length: {}\r\n\r\n", n.saturating_sub(1)),
        2 => "Content-Length: 99999999999999999999\r\n\r\n".to_owned(),
        3 => "Content-Length: 1099511627776\r\n\r\n".to_owned(),
        4 => "Content-Length: -1\r\n\r\n".to_owned(),
        5 => format!("Content-Length: {n}.0\r\n\r\n"),
        6 => format!("Content-Length: {n}\r\n"),
        7 => format!("Content-Length: {n}\n\n"),
        8 => "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n".to_owned(),
        9 => format!("Content-Length: {n}\r\nContent-Length: {}\r\n\r\n", n + 5),
        10 => format!("Content-Length: {n}\r\nrpcspec\r\n\r\n"),
        _ => format!(
            "Content-Length: {n}\r\nContent-Type: application/vscode-jsonrpc; charset=utf-16\r\n\r\n"
        ),
    };
    [header.as_bytes(), body].concat()
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

    /// In NDJSON some inputs end with a line without its terminator, and
    /// only the last line: every other line keeps its `\n`.
    #[test]
    fn some_ndjson_inputs_end_without_a_newline() {
        let framing = Framing::ndjson();
        let mut cut = 0;
        for n in 0..16000 {
            let drawn = in_framing(scenario(5, n, &[]), 5, n, &framing);
            let lines: Vec<&Vec<u8>> = drawn.steps.iter().flatten().collect();
            let (last, before) = lines.split_last().expect("a line");
            assert!(before.iter().all(|l| l.ends_with(b"\n")), "{n}");
            if !last.ends_with(b"\n") {
                assert!(!last.ends_with(b"\r"), "{n}: {last:?}");
                cut += 1;
            }
        }
        assert!(
            (5..40).contains(&cut),
            "{cut} of 16000 end without a newline"
        );
    }

    /// In Content-Length framing a line is a message the run frames, and
    /// a damaged frame is sent as it is, ends the input and closes stdin;
    /// every kind of damage is one no well-framed message has.
    #[test]
    fn damaged_frames_end_the_input_in_content_length_framing() {
        let framing = Framing::content_length();
        let body = br#"{"jsonrpc": "2.0", "method": "x", "id": 1}"#;
        let mut kinds = std::collections::BTreeSet::new();
        for n in 0..400 {
            let frame = damaged_frame(&mut Rng::new(3, n), body);
            assert!(super::super::is_frame(&frame), "{frame:?}");
            assert_ne!(frame, framing.encode(body));
            kinds.insert(frame);
        }
        assert_eq!(kinds.len(), 12, "every kind of damage is drawn");
        let frame = damaged_frame(&mut Rng::new(3, 0), body);
        let line = [&body[..], b"\r\n"].concat();
        let scenario = Scenario {
            steps: vec![
                vec![line.clone()],
                vec![line.clone(), frame.clone(), line.clone()],
                vec![line.clone()],
            ],
            plan: Plan::Split,
        };
        let case = super::super::as_case("x", &scenario, &framing);
        assert_eq!(case.framing.as_deref(), Some("content-length"));
        assert_eq!(case.steps.len(), 2, "nothing follows a damaged frame");
        assert_eq!(case.steps[0].send, Send::Lines(vec![body.to_vec()]));
        assert!(!case.steps[0].close);
        assert_eq!(
            case.steps[1].send,
            Send::Raw(vec![framing.encode(body), frame])
        );
        assert!(case.steps[1].close);
        // A body holding a newline (a corpus file's) goes framed, raw: a
        // case file's lines hold none.
        let two = Scenario {
            steps: vec![vec![b"[1,\n2]\n".to_vec()]],
            plan: Plan::Whole,
        };
        let case = super::super::as_case("x", &two, &framing);
        assert_eq!(
            case.steps[0].send,
            Send::Raw(vec![framing.encode(b"[1,\n2]")])
        );
        assert!(!case.steps[0].close);
        // In LSP, ids LSP has no room for are not sent; other ids are.
        let ids = Scenario {
            steps: vec![
                vec![
                    b"{\"id\": 2147483648}\n".to_vec(),
                    b"[{\"id\": 1.5}]\n".to_vec(),
                ],
                vec![
                    b"{\"id\": null}\n".to_vec(),
                    b"{\"id\": -2147483648}\n".to_vec(),
                ],
                vec![b"{\"id\": []}\n".to_vec(), b"{\"id\": \"x\"}\n".to_vec()],
            ],
            plan: Plan::Whole,
        };
        let kept = in_dialect(ids.clone(), "lsp");
        assert_eq!(kept.steps, [&ids.steps[1][1..], &ids.steps[2][..]]);
        assert_eq!(in_dialect(ids.clone(), "jsonrpc2"), ids);
        // In MCP, no batch, not even a deep or broken one: `[]` stays
        // (invalid everywhere).
        let mcp = in_dialect(ids.clone(), "mcp");
        assert_eq!(mcp.steps[0], ids.steps[0][..1]);
        assert_eq!(mcp.steps[1..], ids.steps[1..]);
        let arrays = Scenario {
            steps: vec![vec![
                b"[1]\n".to_vec(),
                b"[ ]\r\n".to_vec(),
                b"[[[[1]]]]\n".to_vec(),
                b" [{\"id\": 1\n".to_vec(),
                b"{\"id\": [1]}\n".to_vec(),
            ]],
            plan: Plan::Whole,
        };
        assert_eq!(
            in_dialect(arrays.clone(), "codex"),
            in_dialect(arrays.clone(), "mcp")
        );
        let kept = in_dialect(arrays.clone(), "mcp");
        assert_eq!(
            kept.steps[0],
            [arrays.steps[0][1].clone(), arrays.steps[0][4].clone()]
        );
        // In NDJSON the same input is its lines, as they are.
        let ndjson = super::super::as_case("x", &scenario, &Framing::ndjson());
        assert_eq!(ndjson.steps.len(), 3);
        assert_eq!(ndjson.steps[0].send, Send::Raw(vec![line]));
        // One input in five grows a damaged frame, in Content-Length only.
        let grown = (0..500)
            .filter(|&n| {
                let s = in_framing(scenario_with(9, n, &[], &[]), 9, n, &framing);
                s.steps.iter().flatten().any(|l| super::super::is_frame(l))
            })
            .count();
        assert!((50..150).contains(&grown), "{grown} of 500");
        let s = scenario_with(9, 4, &[], &[]);
        assert_eq!(in_framing(s.clone(), 9, 4, &Framing::ndjson()), s);
    }

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
