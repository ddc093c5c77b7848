//! The manifest: one `[[target]]` per column (the format is in the
//! [module docs](super)), parsed with `file:line:column` errors.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::{fmt, fs};

use serde::Deserialize;
use toml::Spanned;

use super::{Location, locate};

/// One `[[target]]` of a manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetSpec {
    /// The column's name.
    pub name: String,
    /// Free text.
    pub version: String,
    /// argv, `{rpcspec}` not yet replaced.
    pub command: Vec<String>,
    /// `server`, `producer` or `decoder`.
    pub role: String,
    /// The dialect (servers).
    pub dialect: String,
    /// The framing (servers and clients), when not the dialect's.
    pub framing: Option<String>,
    /// The profile (producers).
    pub profile: Option<String>,
    /// Features it lacks.
    pub without: Vec<String>,
    /// Added to the environment.
    pub env: BTreeMap<String, String>,
    /// A target file (relative to the manifest's folder) for what the
    /// command line cannot say: a server's `[mcp]` tool calls.
    pub target_file: Option<String>,
    /// Free text.
    pub notes: String,
}

/// A parsed manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    /// The directory targets run in (the manifest's).
    pub dir: PathBuf,
    /// The targets, in column order.
    pub targets: Vec<TargetSpec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestDef {
    #[serde(default)]
    target: Vec<Spanned<TargetDef>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TargetDef {
    name: Spanned<String>,
    #[serde(default)]
    version: String,
    command: Spanned<Vec<String>>,
    role: Option<Spanned<String>>,
    dialect: Option<Spanned<String>>,
    framing: Option<Spanned<String>>,
    profile: Option<String>,
    #[serde(default)]
    without: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    target_file: Option<Spanned<String>>,
    #[serde(default)]
    notes: String,
}

/// What `rpcspec matrix` cannot work with.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A manifest that does not parse or says something impossible.
    Manifest {
        /// Where.
        location: Location,
        /// What is wrong, lower case.
        message: String,
    },
    /// A JSON report that does not parse.
    Report {
        /// The file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A file that cannot be read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Manifest { location, message } => write!(f, "{location}: {message}"),
            Error::Report {
                file,
                line,
                message,
            } => write!(f, "{}:{line}: {message}", file.display()),
            Error::Io { path, error } => write!(f, "{}: {error}", path.display()),
        }
    }
}

impl std::error::Error for Error {}

const ROLES: [&str; 4] = ["server", "producer", "decoder", "client"];

/// Parses a manifest (see the [module docs](self)); `file` is used in
/// error locations and its directory becomes [`Manifest::dir`].
pub fn parse_manifest(file: &Path, text: &str) -> Result<Manifest, Error> {
    let at = |span: std::ops::Range<usize>, message: String| Error::Manifest {
        location: locate(file, text, span.start),
        message,
    };
    let def: ManifestDef =
        crate::casefile::parse_toml(file, text).map_err(|e| Error::Manifest {
            location: e.location,
            message: e.message,
        })?;
    if def.target.is_empty() {
        return Err(at(
            0..0,
            "no [[target]]: a manifest lists at least one target".to_owned(),
        ));
    }
    let mut targets: Vec<TargetSpec> = Vec::new();
    for t in def.target {
        let t = t.into_inner();
        let name = t.name.get_ref().trim();
        if name.is_empty() {
            return Err(at(t.name.span(), "`name` is empty".to_owned()));
        }
        if targets.iter().any(|o| o.name == name) {
            return Err(at(t.name.span(), format!("a second target named `{name}`")));
        }
        if t.command.get_ref().is_empty() {
            return Err(at(
                t.command.span(),
                "`command` is empty: give the program and its arguments".to_owned(),
            ));
        }
        let role = match &t.role {
            None => "server".to_owned(),
            Some(r) if ROLES.contains(&r.get_ref().as_str()) => r.get_ref().clone(),
            Some(r) => {
                return Err(at(
                    r.span(),
                    format!(
                        "unknown role `{}` (known: server, producer, decoder, client)",
                        r.get_ref()
                    ),
                ));
            }
        };
        let dialect = match &t.dialect {
            None => "jsonrpc2".to_owned(),
            Some(d) if crate::dialects::dialect_named(d.get_ref()).is_some() => d.get_ref().clone(),
            // The client role's own (`codex-exec`).
            Some(d)
                if role == "client"
                    && crate::dialects::find(d.get_ref()).is_some_and(|(d, _)| d.roles.client) =>
            {
                d.get_ref().clone()
            }
            Some(d) => {
                let why = crate::dialects::unknown(d.get_ref(), |r| r.server, "this role");
                return Err(at(d.span(), why));
            }
        };
        let framing = match &t.framing {
            None => None,
            Some(f) if !matches!(role.as_str(), "server" | "client") => {
                return Err(at(
                    f.span(),
                    "`framing` is how a server or a client frames messages: use it with role server or client".to_owned(),
                ));
            }
            Some(f) if crate::capture::Framing::named(f.get_ref()).is_some() => {
                Some(f.get_ref().clone())
            }
            Some(f) => {
                return Err(at(
                    f.span(),
                    format!(
                        "unknown framing `{}` (known: {})",
                        f.get_ref(),
                        crate::capture::Framing::NAMES.join(", ")
                    ),
                ));
            }
        };
        if let Some(f) = &t.target_file
            && role != "server"
        {
            return Err(at(
                f.span(),
                "`target_file` describes a server: use it with role server".to_owned(),
            ));
        }
        targets.push(TargetSpec {
            target_file: t.target_file.map(Spanned::into_inner),
            name: name.to_owned(),
            version: t.version,
            command: t.command.into_inner(),
            role,
            dialect,
            framing,
            profile: t.profile,
            without: t.without,
            env: t.env,
            notes: t.notes,
        });
    }
    let dir = file
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    Ok(Manifest { dir, targets })
}

/// Reads and parses a manifest file.
pub fn load_manifest(file: &Path) -> Result<Manifest, Error> {
    let text = fs::read_to_string(file).map_err(|error| Error::Io {
        path: file.to_path_buf(),
        error,
    })?;
    parse_manifest(file, &text)
}
