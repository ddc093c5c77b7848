//! Case files: the TOML format, its loader and the validated case model.
//!
//! `spec-cases/README.md` documents the format for people who write cases;
//! this module is its single implementation. A case file error always names
//! the file, line and column.

use std::{
    fmt,
    path::{Path, PathBuf},
};

use rpcspec_matcher::Level;
use serde::Deserialize;
use toml::Spanned;

mod defs;

pub(crate) use defs::PreambleDef;
use defs::*;

use crate::{
    pattern::Pattern,
    plan::{ALL_PLANS, Plan},
    unescape::unescape,
};

/// A validated case.
#[derive(Debug, Clone)]
pub struct Case {
    /// `<file path without .toml>/<name>`: the filter, the JUnit name, the
    /// snapshot name. Renaming a case is a breaking change.
    pub id: String,
    /// One line saying what the case checks.
    pub title: String,
    /// The specification section the case checks, such as `JSON-RPC 2.0 §7`.
    pub section: String,
    /// How binding the checked rule is: a broken MUST case fails, a broken
    /// SHOULD case is non-strict, an INFO case only informs.
    pub level: Level,
    /// What the target must support; a target without it skips the case.
    pub requires: Vec<String>,
    /// The write plans the case runs under.
    pub plans: Vec<Plan>,
    /// Matcher rule ids this case tolerates in the target's messages.
    pub allow: Vec<String>,
    /// Dialects the case cannot apply to, each with the passage that says
    /// why: it is SKIPPED there as not applicable.
    pub not_in: Vec<(String, String)>,
    /// With no success call known for the target, its `$call` may go to a
    /// method no server has, answered -32601 (see [`crate::probe`]).
    pub or_unknown_method: bool,
    /// Runs in a process of its own even where the other cases share one
    /// (`fresh = true`): it tests what a target does first, or leaves it in
    /// a state the next case must not inherit.
    pub fresh: bool,
    /// What to send and what to expect, in order.
    pub steps: Vec<Step>,
    /// Where the case is defined.
    pub source: Location,
}

impl Case {
    /// The case as `rpcspec list` shows it.
    pub fn listing(&self) -> Listing {
        Listing {
            id: self.id.clone(),
            title: self.title.clone(),
            section: self.section.clone(),
            level: self.level.as_str().to_owned(),
            requires: self.requires.clone(),
            plans: self.plans.iter().map(|p| p.name().to_owned()).collect(),
            file: self.source.file.clone(),
            line: self.source.line,
        }
    }

    /// The case with `f` applied to every pattern of every step's answers,
    /// the expected one and the alternatives.
    pub fn map_patterns(&self, f: impl Fn(&Pattern) -> Pattern) -> Case {
        let map = |e: &Expect| match e {
            Expect::Messages(ps) => Expect::Messages(ps.iter().map(&f).collect()),
            Expect::Batch(ps) => Expect::Batch(ps.iter().map(&f).collect()),
            other => other.clone(),
        };
        let mut case = self.clone();
        for step in &mut case.steps {
            step.expect = map(&step.expect);
            for alt in &mut step.alternatives {
                alt.expect = map(&alt.expect);
            }
        }
        case
    }
}

/// What `rpcspec list` shows of a case, whatever its role.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    /// The case id.
    pub id: String,
    /// One line saying what it checks.
    pub title: String,
    /// Where the rule is written.
    pub section: String,
    /// `MUST`, `SHOULD` or `INFO`.
    pub level: String,
    /// Features the target must have.
    pub requires: Vec<String>,
    /// The plans (write plans, or transports) it runs under.
    pub plans: Vec<String>,
    /// The case file, relative to the cases root.
    pub file: PathBuf,
    /// The line of the case in it.
    pub line: usize,
}

/// Steps every case opens with when the target is judged in one dialect:
/// a protocol's handshake (MCP's `initialize`, then
/// `notifications/initialized`), which its servers require before anything
/// else. Declared in a case file as `[[preamble]]`; its steps are graded
/// like a case's, at MUST, and reported as preamble steps.
#[derive(Debug, Clone)]
pub struct Preamble {
    /// The dialect it applies to (`mcp`).
    pub dialect: String,
    /// One line saying what it does.
    pub title: String,
    /// Where the handshake is specified.
    pub section: String,
    /// What to send and what to expect, before the case's own steps.
    pub steps: Vec<Step>,
    /// Where it is defined.
    pub source: Location,
}

impl Preamble {
    /// Makes every `initialize` request of the preamble offer `version`
    /// as its `protocolVersion` (`--dialect mcp@REVISION`).
    pub fn offer_version(&mut self, version: &str) {
        for step in &mut self.steps {
            let Send::Lines(lines) = &mut step.send else {
                continue;
            };
            for line in lines.iter_mut() {
                let Ok(mut value) = serde_json::from_slice::<serde_json::Value>(line) else {
                    continue;
                };
                if value.get("method").and_then(|m| m.as_str()) != Some("initialize") {
                    continue;
                }
                if let Some(params) = value.get_mut("params").and_then(|p| p.as_object_mut()) {
                    params.insert("protocolVersion".into(), version.into());
                    *line = value.to_string().into_bytes();
                }
            }
        }
    }
}

/// One exchange: bytes to send, then what must come back.
#[derive(Debug, Clone)]
pub struct Step {
    /// What to write.
    pub send: Send,
    /// Close the target's stdin after this step's bytes.
    pub close: bool,
    /// The specification's answer.
    pub expect: Expect,
    /// Other answers, graded differently.
    pub alternatives: Vec<Alternative>,
    /// Where the step is defined.
    pub source: Location,
}

/// The bytes of a step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Send {
    /// Whole lines, without terminators: the write plan chooses the line
    /// ending (`\n` or `\r\n`) and where writes are split.
    Lines(Vec<Vec<u8>>),
    /// Exact bytes, one write per element: no terminator is added and no
    /// plan changes them.
    Raw(Vec<Vec<u8>>),
}

/// What the target must answer to a step.
#[derive(Debug, Clone)]
pub enum Expect {
    /// These messages, in any order, and nothing else.
    Messages(Vec<Pattern>),
    /// One message: an array whose members match these, in any order.
    Batch(Vec<Pattern>),
    /// No message at all.
    Nothing,
    /// No particular answer: only the rules every case checks apply, plus
    /// one more for the whole case: every request gets its reply (what
    /// `rpcspec fuzz` writes for the inputs it generates).
    Any,
}

/// A tolerated answer other than the specification's.
#[derive(Debug, Clone)]
pub struct Alternative {
    /// The tolerated answer.
    pub expect: Expect,
    /// The verdict it earns.
    pub grade: Grade,
    /// Why it is tolerated (which passage of the spec allows the reading).
    pub why: String,
}

/// The verdict an alternative earns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Grade {
    /// An equally valid reading of the spec.
    Pass,
    /// A tolerated deviation.
    NonStrict,
}

/// A position in a case file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The file, as given to the loader (relative to the cases root).
    pub file: PathBuf,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file.display(), self.line, self.column)
    }
}

/// A case file that cannot be loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// Where.
    pub location: Location,
    /// What is wrong, lower case.
    pub message: String,
}

impl LoadError {
    /// The error `message` at the start of `span` in `file`, whose text is
    /// `text`.
    pub fn at(file: &Path, text: &str, span: std::ops::Range<usize>, message: String) -> LoadError {
        LoadError {
            location: locate(file, text, span.start),
            message,
        }
    }
}

/// Parses the TOML `text` of `file` as a `T`; a syntax or shape error says
/// file:line:column. Case files, decoder cases, target files and matrix
/// manifests all load through it.
pub fn parse_toml<T: serde::de::DeserializeOwned>(file: &Path, text: &str) -> Result<T, LoadError> {
    toml::from_str(text).map_err(|e| {
        LoadError::at(
            file,
            text,
            e.span().unwrap_or(0..0),
            e.message().trim_end().to_owned(),
        )
    })
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

impl std::error::Error for LoadError {}

/// Top-level folders of a cases root that belong to the other roles: the
/// `server` role (JSON-RPC cases) loads every file outside them.
pub const ROLE_DIRS: [&str; 4] = ["producer", "decoder", "profiles", "client"];

/// The role folder `rel` (a path relative to a cases root) lies in, if any.
pub fn role_dir(rel: &Path) -> Option<&'static str> {
    let first = rel.components().next()?.as_os_str().to_str()?;
    ROLE_DIRS.into_iter().find(|d| *d == first)
}

/// Every `*.toml` file under `root`, sorted by path, as (path relative to
/// `root`, text). `under` keeps the files of one role folder only; `None`
/// keeps the files outside every role folder (the server role's).
pub fn read_tree(root: &Path, under: Option<&str>) -> Result<Vec<(PathBuf, String)>, LoadError> {
    let cannot = |file: PathBuf, e: std::io::Error| LoadError {
        location: Location {
            file,
            line: 0,
            column: 0,
        },
        message: format!("cannot read: {e}"),
    };
    let mut files = Vec::new();
    collect_toml(root, root, &mut files).map_err(|(path, e)| cannot(path, e))?;
    files.retain(|rel| match under {
        None => role_dir(rel).is_none(),
        Some(dir) => rel.starts_with(dir),
    });
    files.sort();
    files
        .into_iter()
        .map(|rel| read_text(&root.join(&rel), &rel).map(|text| (rel, text)))
        .collect()
}

/// The text of the file at `path`, shown in errors as `shown`: only a
/// regular file is read (a FIFO or a device could block forever), and a
/// byte that is not UTF-8 is reported at its line and column.
pub fn read_text(path: &Path, shown: &Path) -> Result<String, LoadError> {
    let error = |message: String| LoadError::at(shown, "", 0..0, message);
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => {}
        Ok(_) => return Err(error("not a regular file".into())),
        Err(e) => return Err(error(format!("cannot read: {e}"))),
    }
    let bytes = std::fs::read(path).map_err(|e| error(format!("cannot read: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let text = String::from_utf8_lossy(&e.as_bytes()[..at]).into_owned();
        LoadError::at(shown, &text, at..at, "not UTF-8".into())
    })
}

/// The shipped files (`spec-cases/` at build time) of one role folder, or
/// with `None` those outside every role folder, as (relative path, text).
pub fn builtin_files(under: Option<&str>) -> Vec<(&'static Path, &'static str)> {
    BUILTIN
        .iter()
        .map(|&(rel, text)| (Path::new(rel), text))
        .filter(|(rel, _)| match under {
            None => role_dir(rel).is_none(),
            Some(dir) => rel.starts_with(dir),
        })
        .collect()
}

/// Loads the server role's cases: every `*.toml` file under `root` outside
/// the role folders (sorted by path), with ids relative to `root`.
pub fn load_dir(root: &Path) -> Result<Vec<Case>, LoadError> {
    let mut cases = Vec::new();
    for (rel, text) in read_tree(root, None)? {
        cases.extend(load_str(&rel, &text)?);
    }
    Ok(cases)
}

/// Deepest folder nesting read under a cases root: a symbolic link loop
/// ends here instead of recursing until the stack overflows.
const MAX_DEPTH: usize = 32;

fn collect_toml(
    root: &Path,
    dir: &Path,
    out: &mut Vec<PathBuf>,
) -> Result<(), (PathBuf, std::io::Error)> {
    if dir
        .strip_prefix(root)
        .map_or(0, |rel| rel.components().count())
        > MAX_DEPTH
    {
        return Err((
            dir.to_path_buf(),
            std::io::Error::other(format!(
                "folders nested over {MAX_DEPTH} deep (a symbolic link loop?)"
            )),
        ));
    }
    let entries = std::fs::read_dir(dir).map_err(|e| (dir.to_path_buf(), e))?;
    for entry in entries {
        let path = entry.map_err(|e| (dir.to_path_buf(), e))?.path();
        if path.is_dir() {
            collect_toml(root, &path, out)?;
        } else if path.extension().is_some_and(|x| x == "toml") {
            out.push(path.strip_prefix(root).unwrap_or(&path).to_path_buf());
        }
    }
    Ok(())
}

/// Loads the cases of one file, given its path relative to the cases root
/// (which makes the ids) and its text. Its preambles are checked too (see
/// [`load_preambles`]).
pub fn load_str(file: &Path, text: &str) -> Result<Vec<Case>, LoadError> {
    load_file(file, text).map(|(cases, _)| cases)
}

/// The `[[preamble]]`s of one case file.
pub fn load_preambles(file: &Path, text: &str) -> Result<Vec<Preamble>, LoadError> {
    load_file(file, text).map(|(_, preambles)| preambles)
}

/// The preambles of every server-role file under `root` (the files
/// [`load_dir`] loads), in path order.
pub fn preambles_dir(root: &Path) -> Result<Vec<Preamble>, LoadError> {
    let mut preambles = Vec::new();
    for (rel, text) in read_tree(root, None)? {
        preambles.extend(load_preambles(&rel, &text)?);
    }
    Ok(preambles)
}

/// The preambles shipped in `spec-cases/` (the MCP handshake).
pub fn builtin_preambles() -> Result<Vec<Preamble>, LoadError> {
    let mut preambles = Vec::new();
    for (path, text) in builtin_files(None) {
        preambles.extend(load_preambles(path, text)?);
    }
    Ok(preambles)
}

fn load_file(file: &Path, text: &str) -> Result<(Vec<Case>, Vec<Preamble>), LoadError> {
    let at =
        |span: std::ops::Range<usize>, message: String| LoadError::at(file, text, span, message);
    let def: FileDef = parse_toml(file, text)?;
    let prefix = id_prefix(file);
    let lines = Lines::new(text);
    let mut cases: Vec<Case> = Vec::new();
    let mut seen = SeenIds::new();
    for spanned in def.case {
        let case_span = spanned.span();
        let def = spanned.into_inner();
        let name_span = def.name.span();
        let name = def.name.into_inner();
        let line = lines.locate(file, case_span.start).line;
        let id = case_id(&prefix, &name, line, &mut seen).map_err(|e| at(name_span, e))?;
        let level = parse_level(def.level.as_ref()).map_err(|e| at(def.level.span(), e))?;
        let plans =
            match def.plans {
                None => ALL_PLANS.to_vec(),
                Some(list) => {
                    let span = list.span();
                    let mut plans = Vec::new();
                    for name in list.into_inner() {
                        plans.push(name.parse::<Plan>().map_err(|_| {
                            at(span.clone(), format!("unknown write plan `{name}`"))
                        })?);
                    }
                    plans
                }
            };
        if def.step.is_empty() {
            return Err(at(case_span, format!("case `{name}` has no [[case.step]]")));
        }
        if def.step.len() > MAX_STEPS {
            return Err(at(
                case_span,
                format!(
                    "case `{name}` has {} steps; at most {MAX_STEPS}",
                    def.step.len()
                ),
            ));
        }
        let mut steps: Vec<Step> = Vec::new();
        for step in def.step {
            let span = step.span();
            if steps.last().is_some_and(|s| s.close) {
                return Err(at(
                    span,
                    "no step can follow one with `close = true`".into(),
                ));
            }
            steps.push(step_from(step.into_inner()).map_err(|m| at(span.clone(), m))?);
            steps.last_mut().expect("just pushed").source = lines.locate(file, span.start);
        }
        let not_in_span = def.not_in.span();
        let not_in: Vec<(String, String)> = def.not_in.into_inner().into_iter().collect();
        if let Some((bad, _)) = not_in
            .iter()
            .find(|(d, _)| crate::exec::dialect_named(d).is_none())
        {
            return Err(at(
                not_in_span,
                format!("unknown dialect `{bad}` in not_in"),
            ));
        }
        cases.push(Case {
            id,
            title: def.title,
            section: def.section,
            level,
            requires: def.requires,
            plans,
            allow: def.allow,
            not_in,
            or_unknown_method: def.or_unknown_method,
            fresh: def.fresh,
            steps,
            source: lines.locate(file, case_span.start),
        });
    }
    let preambles = preambles_from(def.preamble, file, text)?;
    Ok((cases, preambles))
}

/// The preambles declared in `file` (whose text is `text`), checked: a
/// known dialect, one preamble per dialect, steps that state their answer
/// and do not close stdin.
pub(crate) fn preambles_from(
    defs: Vec<Spanned<PreambleDef>>,
    file: &Path,
    text: &str,
) -> Result<Vec<Preamble>, LoadError> {
    let at =
        |span: std::ops::Range<usize>, message: String| LoadError::at(file, text, span, message);
    let lines = Lines::new(text);
    let mut preambles: Vec<Preamble> = Vec::new();
    for spanned in defs {
        let span = spanned.span();
        let def = spanned.into_inner();
        let dialect_span = def.dialect.span();
        let dialect = def.dialect.into_inner();
        if crate::exec::dialect_named(&dialect).is_none() {
            return Err(at(dialect_span, format!("unknown dialect `{dialect}`")));
        }
        if preambles.iter().any(|p| p.dialect == dialect) {
            return Err(at(
                dialect_span,
                format!("a second preamble for dialect `{dialect}`"),
            ));
        }
        if def.step.is_empty() {
            return Err(at(span, "a preamble has no [[preamble.step]]".into()));
        }
        if def.step.len() > MAX_STEPS {
            return Err(at(
                span,
                format!(
                    "a preamble has {} steps; at most {MAX_STEPS}",
                    def.step.len()
                ),
            ));
        }
        let mut steps: Vec<Step> = Vec::new();
        for step in def.step {
            let span = step.span();
            let mut parsed = step_from(step.into_inner()).map_err(|m| at(span.clone(), m))?;
            if parsed.close {
                return Err(at(span, "a preamble step cannot close stdin".into()));
            }
            if matches!(parsed.expect, Expect::Any) {
                return Err(at(
                    span,
                    "a preamble step states its answer (`expect_any` is for cases)".into(),
                ));
            }
            parsed.source = lines.locate(file, span.start);
            steps.push(parsed);
        }
        preambles.push(Preamble {
            dialect,
            title: def.title,
            section: def.section,
            steps,
            source: lines.locate(file, span.start),
        });
    }
    Ok(preambles)
}

/// The id prefix of a case file: its path relative to the cases root,
/// without `.toml`, `/`-separated (`jsonrpc/examples`).
pub fn id_prefix(file: &Path) -> String {
    file.with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// The ids of a file's cases so far, each with its line.
pub type SeenIds = std::collections::HashMap<String, usize>;

/// The id of case `name` (at `line`) in the file with id prefix `prefix`,
/// recorded in `seen`, the ids of the cases before it: an error for a
/// malformed or repeated name.
pub fn case_id(
    prefix: &str,
    name: &str,
    line: usize,
    seen: &mut SeenIds,
) -> Result<String, String> {
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.')
    {
        return Err(format!(
            "case name `{name}` must be lower-case letters, digits, `-` and `.`"
        ));
    }
    let id = format!("{prefix}/{name}");
    match seen.get(&id) {
        Some(first) => Err(format!(
            "duplicate case name `{name}` (first at line {first})"
        )),
        None => {
            seen.insert(id.clone(), line);
            Ok(id)
        }
    }
}

/// A case's `level`: `MUST`, `SHOULD` or `INFO`.
pub fn parse_level(text: &str) -> Result<Level, String> {
    match text {
        "MUST" => Ok(Level::Must),
        "SHOULD" => Ok(Level::Should),
        "INFO" => Ok(Level::Info),
        other => Err(format!("level `{other}` is not one of MUST, SHOULD, INFO")),
    }
}

/// Most steps in one case, and most messages one step sends (`repeat`
/// included), and the largest `repeat`: what a case costs to load, send and
/// grade grows with them. The largest shipped case sends 100.
pub const MAX_STEPS: usize = 1000;
/// See [`MAX_STEPS`].
pub const MAX_SENDS: usize = 1000;
/// See [`MAX_STEPS`].
pub const MAX_REPEAT: u32 = 1000;

/// The line and column of byte `offset` of `text`, in `file`: one pass
/// over the text (a loader that locates many items uses [`Lines`]).
pub fn locate(file: &Path, text: &str, offset: usize) -> Location {
    Lines::new(text).locate(file, offset)
}

/// Where each line of a text starts, computed once, so that locating every
/// case and step of a file costs one pass over it, not one per item.
pub struct Lines {
    starts: Vec<usize>,
    len: usize,
}

impl Lines {
    /// The line starts of `text`.
    pub fn new(text: &str) -> Lines {
        Lines {
            starts: std::iter::once(0)
                .chain(text.match_indices('\n').map(|(i, _)| i + 1))
                .collect(),
            len: text.len(),
        }
    }

    /// The line and column of byte `offset` of the text, in `file`.
    pub fn locate(&self, file: &Path, offset: usize) -> Location {
        let offset = offset.min(self.len);
        let line = self.starts.partition_point(|&s| s <= offset);
        Location {
            file: file.to_path_buf(),
            line,
            column: offset - self.starts[line - 1] + 1,
        }
    }
}

/// Every feature the cases require, for validating `--without`.
pub fn features(cases: &[Case]) -> std::collections::BTreeSet<String> {
    cases
        .iter()
        .flat_map(|c| c.requires.iter().cloned())
        .collect()
}

/// The cases shipped with rpcspec (`spec-cases/` at build time), embedded so
/// an installed binary works anywhere.
pub fn builtin() -> Result<Vec<Case>, LoadError> {
    let mut cases = Vec::new();
    for (path, text) in builtin_files(None) {
        cases.extend(load_str(path, text)?);
    }
    Ok(cases)
}

include!(concat!(env!("OUT_DIR"), "/builtin_cases.rs"));

#[cfg(test)]
mod tests {
    use super::substitute;

    #[test]
    fn repeat_substitutes_n_but_not_markers() {
        assert_eq!(
            substitute(r#"{"id":$n,"result":"$number","x":"$n"}"#, 7),
            r#"{"id":7,"result":"$number","x":"7"}"#
        );
    }
}
