//! Case files, whatever the role: where they are (a tree of `*.toml`, a
//! folder per role), how they are read (regular UTF-8 files only, TOML
//! with file:line:column errors), how a case is named and listed, and the
//! limits every loader keeps. Each role's loader adds its own shapes.

use std::{
    fmt,
    path::{Path, PathBuf},
};

use rpcspec_matcher::Level;

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

/// What every case says of itself, whatever its role: the one case
/// header. A role's case is this and its own steps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Meta {
    /// `<file path without .toml>/<name>`: the filter, the JUnit name, the
    /// snapshot name. Renaming a case is a breaking change.
    pub id: String,
    /// One line saying what the case checks.
    pub title: String,
    /// Where the rule it checks is written, such as `JSON-RPC 2.0 §7`.
    pub section: String,
    /// How binding the rule is: a broken MUST case fails, a broken SHOULD
    /// case is NON-STRICT, an INFO case only informs.
    pub level: Level,
    /// What the target must support; a target without it skips the case.
    pub requires: Vec<String>,
    /// Where the case is defined.
    pub source: Location,
}

impl Meta {
    /// The case as `rpcspec list` shows it, run under `plans`.
    pub fn listing(&self, plans: Vec<String>) -> Listing {
        Listing {
            id: self.id.clone(),
            title: self.title.clone(),
            section: self.section.clone(),
            level: self.level.as_str().to_owned(),
            requires: self.requires.clone(),
            plans,
            file: self.source.file.clone(),
            line: self.source.line,
        }
    }
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
