//! The files `rpcspec fuzz` writes: finding case files, and the corpus
//! folder of `--corpus DIR` with its state.
//!
//! A corpus folder holds:
//!
//! * `input-<hash>.toml`, one per input: a case file in the format of
//!   `spec-cases/README.md` (one case, raw steps, `expect_any`), so
//!   `rpcspec run --cases DIR` replays the corpus. `<hash>` is the FNV-1a
//!   of the input's plan and bytes: the same input is never written twice,
//!   and corpora merge by copying files. Its comment line
//!   `# behaviour: WORDS` is the behaviour the input was kept for
//!   ([`super::behaviour()`]). Any other case file put there is an input
//!   too (each of its cases; a case without that line adds no known
//!   behaviour).
//! * `state.json` ([`State`]): the seed and the next execution number, and
//!   the findings known from earlier runs.
//! * `findings/`: a copy of each known finding's case file.
//!
//! Anything else in the folder is skipped with a warning. A file is
//! written whole under a temporary name and renamed: a run that is killed
//! leaves either the old file or the new one, never half of one.

use std::{
    collections::HashSet,
    fmt::{self, Write as _},
    io,
    path::{Path, PathBuf},
};

use serde::{Deserialize, Serialize};

use super::{Scenario, behaviour::features, signature};
use crate::{
    budget::fnv1a,
    capture::Framing,
    cases::{self, Case, LoadError, Location, Send},
    exec::RunOptions,
    report::CaseResult,
};

/// The largest corpus input file read or written: 64 KiB. A larger file in
/// the folder is skipped with a warning; an input whose file would be
/// larger is not kept (it is counted).
pub const MAX_FILE: u64 = 64 << 10;
/// The default of `--corpus-max`: how many inputs a corpus holds. Once it
/// is full, inputs with a new behaviour are counted, not kept.
pub const DEFAULT_MAX_INPUTS: usize = 1000;
/// The largest `--corpus-max`.
pub const MAX_INPUTS: usize = 100_000;
/// The most finding kinds a corpus remembers; beyond, new findings are
/// still written to `--out` but not remembered.
pub const MAX_KNOWN_FINDINGS: usize = 1024;
/// The largest `state.json` read: 1 MiB.
pub const MAX_STATE: u64 = 1 << 20;
/// The state file's name in a corpus folder.
pub const STATE_FILE: &str = "state.json";
/// The folder of known findings' case files in a corpus folder.
pub const FINDINGS_DIR: &str = "findings";

const BEHAVIOUR: &str = "# behaviour: ";
const STATE_VERSION: u32 = 1;

/// `DIR/state.json`: what a run leaves for the next one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// The format's version, 1.
    pub version: u32,
    /// The seed of the generator.
    pub seed: u64,
    /// The execution number the next run starts at.
    pub next_execution: u64,
    /// Executions over every run.
    pub executions: u64,
    /// Runs that used the corpus (a killed run included).
    pub runs: u64,
    /// The finding kinds known, in the order found.
    #[serde(default)]
    pub findings: Vec<KnownFinding>,
}

/// A kind of finding shown by an earlier run: not minimised or written
/// again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnownFinding {
    /// The failure ([`signature`]).
    pub signature: String,
    /// The input's shape ([`super::shape`]).
    pub shape: String,
    /// Its case file, relative to the corpus folder (`findings/NAME.toml`).
    pub file: String,
    /// The seed and execution that found it.
    pub seed: u64,
    /// See `seed`.
    pub execution: u64,
}

/// Why a fuzzing run could not start or go on.
#[derive(Debug)]
#[non_exhaustive]
pub enum FuzzError {
    /// A corpus file or the state file cannot be loaded: where, and why.
    Load(LoadError),
    /// A file cannot be written.
    Write {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        error: io::Error,
    },
}

impl fmt::Display for FuzzError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FuzzError::Load(e) => write!(f, "corpus: {e}"),
            FuzzError::Write { path, error } => {
                write!(f, "cannot write {}: {error}", path.display())
            }
        }
    }
}

impl std::error::Error for FuzzError {}

fn load_error(file: &Path, message: String) -> FuzzError {
    FuzzError::Load(LoadError {
        location: Location {
            file: file.to_path_buf(),
            line: 0,
            column: 0,
        },
        message,
    })
}

/// Whether `name` is the temporary name [`write_atomic`] gives a file:
/// `.NAME.tmp-PID`.
fn is_temporary(name: &str) -> bool {
    name.starts_with('.')
        && name
            .rsplit_once(".tmp-")
            .is_some_and(|(_, pid)| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
}

/// Writes `text` to `path` under a temporary name first, then renames it.
pub fn write_atomic(path: &Path, text: &str) -> Result<(), FuzzError> {
    let error = |error| FuzzError::Write {
        path: path.to_path_buf(),
        error,
    };
    let name = path
        .file_name()
        .map_or_else(Default::default, |n| n.to_string_lossy().into_owned());
    let tmp = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    std::fs::write(&tmp, text).map_err(error)?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        error(e)
    })
}

/// What became of an input offered to the corpus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Offer {
    /// Its behaviour was new: kept, in this file.
    Kept(PathBuf),
    /// Its behaviour was known.
    Known,
    /// Its behaviour was new, but the corpus is full.
    Full,
    /// Its behaviour was new, but its file would be over [`MAX_FILE`].
    TooBig,
}

/// A corpus folder, loaded.
#[derive(Debug)]
pub struct Corpus {
    /// The folder.
    pub dir: PathBuf,
    /// Its inputs.
    pub inputs: Vec<Scenario>,
    /// The most inputs it keeps.
    pub max_inputs: usize,
    /// Its state; `None` if it had no state file yet.
    pub state: Option<State>,
    /// What was skipped while loading, one sentence each.
    pub warnings: Vec<String>,
    /// Every word and pair of words of the behaviours its inputs showed.
    features: HashSet<String>,
    names: HashSet<String>,
}

impl Corpus {
    /// Loads the corpus in `dir` (created if missing), at most `max_inputs`
    /// inputs of it (the first by file name; the rest are counted in a
    /// warning). A case file that does not load, or a state file that does
    /// not parse, is an error naming its line and column.
    pub fn open(dir: &Path, max_inputs: usize) -> Result<Corpus, FuzzError> {
        match std::fs::metadata(dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(load_error(dir, "not a folder".into())),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                std::fs::create_dir_all(dir).map_err(|error| FuzzError::Write {
                    path: dir.to_path_buf(),
                    error,
                })?;
            }
            Err(e) => return Err(load_error(dir, format!("cannot read: {e}"))),
        }
        let mut corpus = Corpus {
            dir: dir.to_path_buf(),
            inputs: Vec::new(),
            max_inputs,
            state: None,
            warnings: Vec::new(),
            features: HashSet::new(),
            names: HashSet::new(),
        };
        let cannot = |e: io::Error| load_error(dir, format!("cannot read: {e}"));
        let mut entries = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(cannot)? {
            let path = entry.map_err(cannot)?.path();
            match path.file_name().and_then(|n| n.to_str()) {
                Some(name) => entries.push((name.to_owned(), path)),
                None => corpus.skip(&path, "its name is not UTF-8"),
            }
        }
        entries.sort();
        let mut beyond = 0;
        for (name, path) in entries {
            let meta = std::fs::metadata(&path).map_err(cannot)?;
            if name == STATE_FILE {
                corpus.state = Some(load_state(&path, meta.len())?);
            } else if meta.is_dir() {
                if name != FINDINGS_DIR {
                    corpus.skip(&path, "a folder");
                }
            } else if is_temporary(&name) {
                // Ours, from a run killed between writing and renaming.
                let _ = std::fs::remove_file(&path);
                corpus.skip(&path, "left by an interrupted run, removed");
            } else if !name.ends_with(".toml") || !meta.is_file() {
                corpus.skip(&path, "not a corpus input (a *.toml file)");
            } else if meta.len() > MAX_FILE {
                corpus.skip(&path, "over the 64 KiB a corpus input may have");
            } else if corpus.inputs.len() >= max_inputs {
                beyond += 1;
            } else {
                let text = cases::read_text(&path, &path).map_err(FuzzError::Load)?;
                let (inputs, behaviour) = parse_input(&path, &text)?;
                if let Some(b) = behaviour {
                    corpus.features.extend(features(&b));
                }
                corpus
                    .inputs
                    .extend(inputs.into_iter().take(max_inputs - corpus.inputs.len()));
                corpus.names.insert(name);
            }
        }
        if beyond > 0 {
            corpus.warnings.push(format!(
                "{}: {beyond} more inputs not loaded (the corpus holds at most {max_inputs}: --corpus-max)",
                dir.display()
            ));
        }
        Ok(corpus)
    }

    fn skip(&mut self, path: &Path, why: &str) {
        self.warnings
            .push(format!("{}: skipped: {why}", path.display()));
    }

    /// Keeps `scenario` if `behaviour` is new (a word or a pair of words
    /// that no input of the corpus showed), room and size allowing.
    pub fn offer(
        &mut self,
        scenario: &Scenario,
        behaviour: &str,
        origin: &str,
    ) -> Result<Offer, FuzzError> {
        let features = features(behaviour);
        if features.iter().all(|f| self.features.contains(f)) {
            return Ok(Offer::Known);
        }
        if self.inputs.len() >= self.max_inputs {
            return Ok(Offer::Full);
        }
        let name = format!("input-{:016x}", input_hash(scenario));
        let file = format!("{name}.toml");
        let path = self.dir.join(&file);
        if !self.names.contains(&file) {
            let mut text = format!("# Kept by {origin}: a behaviour not seen before.\n");
            let _ = writeln!(text, "{BEHAVIOUR}{behaviour}");
            text.push_str(&case_text(
                &name,
                "fuzz corpus input",
                scenario,
                &Framing::ndjson(),
            ));
            if text.len() as u64 > MAX_FILE {
                return Ok(Offer::TooBig);
            }
            write_atomic(&path, &text)?;
            self.names.insert(file);
            self.inputs.push(scenario.clone());
        }
        self.features.extend(features);
        Ok(Offer::Kept(path))
    }

    /// Remembers a new finding: its case file `text` is copied to
    /// `findings/NAME.toml`, and it goes into the state (saved). `false`
    /// when [`MAX_KNOWN_FINDINGS`] are known already.
    pub fn remember(&mut self, mut known: KnownFinding, text: &str) -> Result<bool, FuzzError> {
        let state = self.state.get_or_insert_with(State::default);
        if state.findings.len() >= MAX_KNOWN_FINDINGS {
            return Ok(false);
        }
        let dir = self.dir.join(FINDINGS_DIR);
        std::fs::create_dir_all(&dir).map_err(|error| FuzzError::Write {
            path: dir.clone(),
            error,
        })?;
        write_atomic(&dir.join(&known.file), text)?;
        known.file = format!("{FINDINGS_DIR}/{}", known.file);
        state.findings.push(known);
        self.save()?;
        Ok(true)
    }

    /// Replays each known finding's case file (`findings/NAME.toml`) with
    /// `replay`, which gives its signature, or `None` when there is no time
    /// left. A finding whose file no longer fails with its signature is
    /// fixed: it is forgotten (its file removed, the state saved), so that
    /// if it comes back it is a new finding, not a known one. One whose
    /// file cannot be read stays known, with a warning.
    pub fn recheck(
        &mut self,
        replay: &mut dyn FnMut(&Scenario) -> Option<Option<String>>,
        warnings: &mut Vec<String>,
    ) -> Result<Vec<KnownFinding>, FuzzError> {
        let Some(state) = self.state.as_mut() else {
            return Ok(Vec::new());
        };
        let mut fixed = Vec::new();
        let mut kept = Vec::new();
        for known in std::mem::take(&mut state.findings) {
            let path = self.dir.join(&known.file);
            let input = cases::read_text(&path, &path)
                .map_err(FuzzError::Load)
                .and_then(|text| parse_input(&path, &text))
                .map(|(inputs, _)| inputs.into_iter().next());
            let signature = match input {
                Ok(Some(input)) => replay(&input),
                Ok(None) => None,
                Err(e) => {
                    warnings.push(format!("a known finding cannot be replayed: {e}"));
                    None
                }
            };
            match signature {
                Some(now) if now.as_deref() != Some(known.signature.as_str()) => {
                    let _ = std::fs::remove_file(&path);
                    fixed.push(known);
                }
                _ => kept.push(known),
            }
        }
        state.findings = kept;
        if !fixed.is_empty() {
            self.save()?;
        }
        Ok(fixed)
    }

    /// Writes the state file.
    pub fn save(&self) -> Result<(), FuzzError> {
        let state = self.state.clone().unwrap_or_default();
        let mut text = serde_json::to_string_pretty(&state).unwrap_or_default();
        text.push('\n');
        write_atomic(&self.dir.join(STATE_FILE), &text)
    }
}

impl Default for State {
    fn default() -> State {
        State {
            version: STATE_VERSION,
            seed: 0,
            next_execution: 0,
            executions: 0,
            runs: 0,
            findings: Vec::new(),
        }
    }
}

fn load_state(path: &Path, len: u64) -> Result<State, FuzzError> {
    if len > MAX_STATE {
        return Err(load_error(
            path,
            "over the 1 MiB a state file may have".into(),
        ));
    }
    let text = cases::read_text(path, path).map_err(FuzzError::Load)?;
    let state: State = serde_json::from_str(&text).map_err(|e| {
        let message = e.to_string();
        let message = match message.find(" at line ") {
            Some(i) => message[..i].to_owned(),
            None => message,
        };
        FuzzError::Load(LoadError {
            location: Location {
                file: path.to_path_buf(),
                line: e.line(),
                column: e.column(),
            },
            message,
        })
    })?;
    if state.version != STATE_VERSION {
        return Err(load_error(
            path,
            format!(
                "state version {} (this rpcspec reads {STATE_VERSION})",
                state.version
            ),
        ));
    }
    Ok(state)
}

/// The inputs of a corpus file (each case's steps and first plan) and the
/// behaviour it names, if it does.
fn parse_input(path: &Path, text: &str) -> Result<(Vec<Scenario>, Option<String>), FuzzError> {
    let cases = cases::load_str(path, text).map_err(FuzzError::Load)?;
    let behaviour = text
        .lines()
        .take_while(|l| l.starts_with('#'))
        .find_map(|l| l.strip_prefix(BEHAVIOUR))
        .map(str::to_owned);
    Ok((cases.iter().filter_map(scenario_of).collect(), behaviour))
}

/// A case's steps as a scenario: raw steps keep their chunks, lines get a
/// `\n`; expectations and `close` are not part of an input.
fn scenario_of(case: &Case) -> Option<Scenario> {
    let steps: Vec<Vec<Vec<u8>>> = case
        .steps
        .iter()
        .map(|step| match &step.send {
            Send::Raw(chunks) => chunks.iter().filter(|c| !c.is_empty()).cloned().collect(),
            Send::Lines(lines) => lines
                .iter()
                .map(|l| [l.as_slice(), b"\n"].concat())
                .collect(),
        })
        .filter(|lines: &Vec<Vec<u8>>| !lines.is_empty())
        .collect();
    (!steps.is_empty()).then(|| Scenario {
        steps,
        plan: case
            .plans
            .first()
            .copied()
            .unwrap_or(crate::plan::Plan::Whole),
    })
}

/// FNV-1a of the plan and every line, each with its length.
fn input_hash(scenario: &Scenario) -> u64 {
    let mut bytes = scenario.plan.name().as_bytes().to_vec();
    for lines in &scenario.steps {
        bytes.extend_from_slice(b"\0step");
        for line in lines {
            bytes.extend_from_slice(&(line.len() as u64).to_le_bytes());
            bytes.extend_from_slice(line);
        }
    }
    fnv1a(&bytes)
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

/// The case file for a finding, as the run sent it (`opts`: its framing,
/// and the dialect its replay needs, unless `replay_dialect` names it).
pub fn case_file(
    name: &str,
    scenario: &Scenario,
    result: &CaseResult,
    origin: &str,
    opts: &RunOptions,
    replay_dialect: Option<&str>,
) -> String {
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
    let handshake = opts.handshake.as_deref().unwrap_or(opts.dialect.name());
    let mut args = String::new();
    if let Some(named) = replay_dialect.or(Some(handshake).filter(|h| *h != "jsonrpc2")) {
        let _ = write!(args, " --dialect {named}");
    }
    if crate::dialects::framing_of(handshake) != opts.framing {
        let _ = write!(args, " --framing {}", opts.framing.name());
    }
    let _ = writeln!(
        out,
        "# Replay: rpcspec run --cases DIR{args} --filter '*/{name}' -- TARGET"
    );
    let title = format!("fuzz finding: {}", signature(result).unwrap_or_default());
    out.push_str(&case_text(name, &title, scenario, &opts.framing));
    out
}

/// A scenario as a case file's `[[case]]`, any answer: its steps as
/// [`super::as_case`] makes them in `framing`. In NDJSON (a corpus input's
/// framing, whatever the run's) raw lines; in Content-Length framing lines
/// the run frames, or raw frames (the last closing stdin).
fn case_text(name: &str, title: &str, scenario: &Scenario, framing: &Framing) -> String {
    let case = super::as_case(name, scenario, framing);
    let mut out = String::new();
    let _ = writeln!(out, "[[case]]");
    let _ = writeln!(out, "name = \"{name}\"");
    let _ = writeln!(out, "title = \"{title}\"");
    let _ = writeln!(out, "section = \"rpcspec fuzz\"");
    if let Some(framing) = &case.framing {
        let _ = writeln!(out, "framing = \"{framing}\"");
    }
    let _ = writeln!(out, "plans = [\"{}\"]", scenario.plan.name());
    for step in &case.steps {
        let _ = writeln!(out, "\n[[case.step]]");
        let (Send::Lines(sends) | Send::Raw(sends)) = &step.send;
        let sends: Vec<String> = sends.iter().map(|l| escaped(l)).collect();
        let _ = writeln!(out, "send = [{}]", sends.join(", "));
        if matches!(step.send, Send::Raw(_)) {
            let _ = writeln!(out, "raw = true");
        }
        if step.close {
            let _ = writeln!(out, "close = true");
        }
        let _ = writeln!(out, "unescape = true\nexpect_any = true");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Plan;

    #[test]
    fn case_files_escape_what_toml_literals_cannot_hold() {
        assert_eq!(escaped(b"{'a\\'}\xFF\n"), r"'{\x27a\x5C\x27}\xFF\x0A'");
    }

    fn odd_input() -> Scenario {
        Scenario {
            steps: vec![
                vec![b"{\"a\": '\\\x00\xFF}\r\n".to_vec(), b"[1]\n".to_vec()],
                vec![b"\xE2\x80\xA8 no newline".to_vec()],
            ],
            plan: Plan::Split,
        }
    }

    /// A finding's replay names the dialect the run used: none for
    /// JSON-RPC 2.0, the handshake's otherwise, a pinned revision whole.
    #[test]
    fn the_replay_line_names_the_dialect_the_run_used() {
        let result = CaseResult::new("x".into(), "whole".into(), "x".into(), "x".into());
        let replay = |handshake: &str, pinned: Option<&str>| {
            let opts = RunOptions {
                handshake: Some(handshake.to_owned()),
                ..RunOptions::default()
            };
            let text = case_file("x", &odd_input(), &result, "a test", &opts, pinned);
            let line = text.lines().find(|l| l.starts_with("# Replay:"));
            line.expect("a replay line").to_owned()
        };
        let tail = "--filter '*/x' -- TARGET";
        assert_eq!(
            replay("jsonrpc2", None),
            format!("# Replay: rpcspec run --cases DIR {tail}")
        );
        assert_eq!(
            replay("mcp", None),
            format!("# Replay: rpcspec run --cases DIR --dialect mcp {tail}")
        );
        assert_eq!(
            replay("mcp", Some("mcp@2025-06-18")),
            format!("# Replay: rpcspec run --cases DIR --dialect mcp@2025-06-18 {tail}")
        );
    }

    /// An input comes back from its file byte for byte, with its plan and
    /// behaviour; a second offer of the same behaviour keeps nothing.
    #[test]
    fn an_input_round_trips_through_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut corpus = Corpus::open(dir.path(), 10).unwrap();
        let kept = corpus
            .offer(&odd_input(), "line:success verdict:PASS", "a test")
            .unwrap();
        let Offer::Kept(path) = kept else {
            panic!("{kept:?}")
        };
        assert_eq!(
            corpus
                .offer(&odd_input(), "line:success verdict:PASS", "a test")
                .unwrap(),
            Offer::Known
        );
        let again = Corpus::open(dir.path(), 10).unwrap();
        assert_eq!(again.inputs, vec![odd_input()]);
        assert!(again.features.contains("line:success verdict:PASS"));
        assert!(again.warnings.is_empty(), "{:?}", again.warnings);
        assert!(
            path.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("input-")
        );
    }

    /// A behaviour is new when one of its words or pairs of words is: the
    /// same words in fewer combinations are not.
    #[test]
    fn new_words_and_new_pairs_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let mut corpus = Corpus::open(dir.path(), 10).unwrap();
        let input = |n: u8| Scenario {
            steps: vec![vec![vec![b'1', n, b'\n']]],
            plan: Plan::Whole,
        };
        let mut offer = |n, b| corpus.offer(&input(n), b, "a test").unwrap();
        assert!(matches!(offer(0, "a b"), Offer::Kept(_)));
        assert!(matches!(offer(1, "b c"), Offer::Kept(_)));
        assert_eq!(offer(2, "a"), Offer::Known);
        assert_eq!(offer(3, "b"), Offer::Known);
        assert!(matches!(offer(4, "a c"), Offer::Kept(_)), "a new pair");
        assert_eq!(offer(5, "a b"), Offer::Known);
        assert_eq!(corpus.inputs.len(), 3);
    }

    #[test]
    fn a_bad_state_file_is_an_error_at_its_line() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(STATE_FILE),
            "{\n  \"version\": 1,\n  \"seed\": x\n}",
        )
        .unwrap();
        let e = Corpus::open(dir.path(), 10).unwrap_err().to_string();
        assert!(e.contains("state.json:3:"), "{e}");
    }
}
