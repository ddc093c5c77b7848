//! `cargo xtask matrix`: the third-party implementations matrix.
//!
//! `--install` puts the pinned implementations of `xtask/matrix/` into
//! `xtask/matrix/.deps/` (ignored by git): the Python packages of
//! `requirements.txt` with pip, the Node packages of `package-lock.json`
//! with npm, and the Rust targets (the jsonrpc-core adapter, the rmcp
//! MCP server) with cargo. Without it, the
//! command builds rpcspec and runs `rpcspec matrix` on
//! `xtask/matrix/manifest.toml`. In Markdown (the default) the table goes
//! between the markers of `docs/matrix-results.md`, so `git diff` shows
//! whether a run reproduced the published table; `--output FILE` writes the
//! whole report to FILE instead. `--decoders` does the same for the real
//! NDJSON decoders of `xtask/matrix/decoders.toml` (standard libraries and
//! two adapters of `crates/mutants`: nothing to install), into
//! `docs/decoders.md`; `--clients` for the real client libraries of
//! `xtask/matrix/clients.toml` (`--role client`), into `docs/clients.md`;
//! `--lsp` for the language servers of `xtask/matrix/lsp.toml`, into
//! `docs/lsp.md`; `--agents` for the agent SDKs and CLIs of
//! `xtask/matrix/agents.toml` (Claude's SDKs against rpcspec playing
//! Claude Code, Claude Code against rpcspec playing its SDK, Codex's SDKs
//! against rpcspec playing `codex exec`, and the app-server's hosts against
//! rpcspec playing `codex app-server`), into `docs/agents.md`; `--acp`
//! for the ACP agents of `xtask/matrix/acp.toml`, into `docs/acp.md`.

use std::{
    fs,
    path::{Path, PathBuf},
    process::{Command, ExitCode},
};

const MATRIX_USAGE: &str = "\
usage: cargo xtask matrix --install
       cargo xtask matrix [--decoders|--clients|--lsp|--agents|--acp] [--format md|html|json] [--output FILE]

--install   pip, npm and cargo install the pinned implementations of
            xtask/matrix/ into xtask/matrix/.deps/ (needs python3, pip, node, npm)
otherwise   build rpcspec (release) and run `rpcspec matrix xtask/matrix/manifest.toml`;
            Markdown goes between the markers of docs/matrix-results.md unless
            --output names a file
--decoders  the real NDJSON decoders of xtask/matrix/decoders.toml instead, into
            docs/decoders.md (nothing to install)
--clients   the real JSON-RPC and MCP client libraries of xtask/matrix/clients.toml
            instead (rpcspec plays the server), into docs/clients.md (after --install)
--lsp       the language servers of xtask/matrix/lsp.toml (the lsp dialect), into
            docs/lsp.md (after --install)
--agents    the agent SDKs and CLIs of xtask/matrix/agents.toml (Claude's SDKs, rpcspec
            playing Claude Code; Claude Code, rpcspec playing its SDK; Codex's
            SDKs, rpcspec playing `codex exec`; the app-server's hosts, rpcspec
            playing `codex app-server`), into docs/agents.md (after --install)
--acp       the ACP agents of xtask/matrix/acp.toml (the acp dialect: agents as they
            ship, and echo agents on the official SDKs), into docs/acp.md (after --install)
";

/// Which matrix: its manifest, the page its table goes into, what to build
/// first, and how `rpcspec matrix` is run.
struct Which {
    manifest: &'static str,
    results: &'static str,
    build: &'static [&'static str],
    needs_install: bool,
    /// `--timeout` and `--jobs` for `rpcspec matrix`.
    timeout: &'static str,
    jobs: &'static str,
}

const SERVERS: Which = Which {
    manifest: "manifest.toml",
    results: "docs/matrix-results.md",
    build: &["build", "--release", "-p", "rpcspec"],
    needs_install: true,
    // The MCP SDK takes seconds to import on a busy machine: a generous
    // deadline keeps slow starts from reading as TIMEOUT. One target at a
    // time: on a small machine parallel targets starve each other and slow
    // exits read as NON-STRICT (exit-on-eof).
    timeout: "30",
    jobs: "1",
};

const DECODERS: Which = Which {
    manifest: "decoders.toml",
    results: "docs/decoders.md",
    build: &[
        "build",
        "--release",
        "-p",
        "rpcspec",
        "-p",
        "rpcspec-mutants",
    ],
    needs_install: false,
    // A decoder's deadline starts once its stream is written; the split
    // plans' pauses before it scale with the adapter's start-up.
    timeout: "10",
    jobs: "2",
};

const LSP: Which = Which {
    manifest: "lsp.toml",
    results: "docs/lsp.md",
    build: &["build", "--release", "-p", "rpcspec"],
    needs_install: true,
    // A case that leaves a server's reader out of step waits out its
    // deadline (a TIMEOUT): long enough for a cold Node start, short
    // enough that those cost seconds.
    timeout: "10",
    jobs: "1",
};

const CLIENTS: Which = Which {
    manifest: "clients.toml",
    results: "docs/clients.md",
    build: &["build", "--release", "-p", "rpcspec"],
    needs_install: true,
    // A client's scenario runs its whole series, a few calls of which
    // wait out their 3 s timeout; an interpreter's start is in it too.
    timeout: "30",
    jobs: "1",
};

const AGENTS: Which = Which {
    manifest: "agents.toml",
    results: "docs/agents.md",
    build: &["build", "--release", "-p", "rpcspec"],
    needs_install: true,
    // An SDK's scenario runs its whole series (seven steps of at most 3 s)
    // after an interpreter's start.
    timeout: "30",
    jobs: "1",
};

const ACP: Which = Which {
    manifest: "acp.toml",
    results: "docs/acp.md",
    build: &["build", "--release", "-p", "rpcspec"],
    needs_install: true,
    // A Node agent takes seconds to start on a busy machine; a case whose
    // request an agent never answers waits this out.
    timeout: "10",
    jobs: "1",
};

/// The published table lives between these two lines of its page.
const BEGIN: &str = "<!-- matrix:begin (cargo xtask matrix writes this part) -->";
const END: &str = "<!-- matrix:end -->";

pub fn matrix(root: &Path, args: &[String]) -> ExitCode {
    let mut install = false;
    let mut which = &SERVERS;
    let mut format = "md".to_owned();
    let mut output: Option<PathBuf> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--install" => install = true,
            "--decoders" => which = &DECODERS,
            "--clients" => which = &CLIENTS,
            "--lsp" => which = &LSP,
            "--agents" => which = &AGENTS,
            "--acp" => which = &ACP,
            "--format" => match it.next().map(String::as_str) {
                Some(f @ ("md" | "html" | "json")) => format = f.to_owned(),
                _ => return usage("--format takes md, html or json"),
            },
            "--output" => match it.next() {
                Some(f) => output = Some(PathBuf::from(f)),
                None => return usage("--output takes a file"),
            },
            "-h" | "--help" => {
                print!("{MATRIX_USAGE}");
                return ExitCode::SUCCESS;
            }
            other => return usage(&format!("unknown argument `{other}`")),
        }
    }
    let dir = root.join("xtask/matrix");
    if install {
        return match self::install(&dir) {
            Ok(()) => {
                eprintln!(
                    "xtask matrix: installed into {}",
                    dir.join(".deps").display()
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("xtask matrix: {e}");
                ExitCode::FAILURE
            }
        };
    }
    match run(root, &dir, which, &format, output.as_deref()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("xtask matrix: {e}");
            ExitCode::FAILURE
        }
    }
}

fn usage(problem: &str) -> ExitCode {
    eprint!("xtask matrix: {problem}\n\n{MATRIX_USAGE}");
    ExitCode::from(2)
}

/// Runs `program args` in `dir`, echoing the command line.
fn step(dir: &Path, program: &str, args: &[&str]) -> Result<(), String> {
    eprintln!("==> {program} {}", args.join(" "));
    let status = Command::new(program)
        .args(args)
        .current_dir(dir)
        .status()
        .map_err(|e| format!("cannot start `{program}`: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{program} {}` failed ({status})", args.join(" ")))
    }
}

fn install(dir: &Path) -> Result<(), String> {
    // Every package is pinned in requirements.txt, dependencies included:
    // --no-deps keeps pip from choosing anything else.
    step(
        dir,
        "python3",
        &[
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--upgrade",
            "--no-deps",
            "--target",
            ".deps/python",
            "-r",
            "requirements.txt",
        ],
    )?;
    // `npm install` beside a copy of the lock file installs the locked
    // versions. Not `npm ci`: it refuses a lock that lacks the other
    // platforms' optional packages (opencode's, qwen-code's), which a
    // registry that holds only this platform's never resolves.
    let node = dir.join(".deps/node");
    fs::create_dir_all(&node).map_err(|e| format!("cannot create {}: {e}", node.display()))?;
    for file in ["package.json", "package-lock.json"] {
        fs::copy(dir.join(file), node.join(file))
            .map_err(|e| format!("cannot copy {file} into {}: {e}", node.display()))?;
    }
    step(
        dir,
        "npm",
        &[
            "install",
            "--prefix",
            ".deps/node",
            "--ignore-scripts",
            "--no-audit",
            "--no-fund",
        ],
    )?;
    // The Codex app-server keeps its state under $HOME/.codex: the
    // manifest points HOME at this empty folder, not at yours.
    // Claude Code (agents.toml) likewise, under $HOME/.claude, and the ACP
    // agents (acp.toml) under theirs.
    for home in [".deps/codex-home", ".deps/claude-home", ".deps/acp-home"] {
        let home = dir.join(home);
        fs::create_dir_all(&home).map_err(|e| format!("cannot create {}: {e}", home.display()))?;
    }
    // The Rust targets are their own workspaces with committed lock files,
    // built into one target folder under .deps/.
    for manifest in RUST_TARGETS {
        step(
            dir,
            "cargo",
            &[
                "build",
                "--release",
                "--locked",
                "--manifest-path",
                manifest,
                "--target-dir",
                ".deps/cargo-target",
            ],
        )?;
    }
    Ok(())
}

/// The Rust targets of the matrix (manifests relative to xtask/matrix/):
/// jsonrpc-core behind an NDJSON loop, an MCP server on rmcp, and an ACP
/// client on agent-client-protocol.
const RUST_TARGETS: &[&str] = &[
    "rust-jsonrpc-core/Cargo.toml",
    "rust-rmcp/Cargo.toml",
    "rust-acp/Cargo.toml",
];

fn run(
    root: &Path,
    dir: &Path,
    which: &Which,
    format: &str,
    output: Option<&Path>,
) -> Result<ExitCode, String> {
    if which.needs_install && !dir.join(".deps").is_dir() {
        return Err("nothing installed yet: run `cargo xtask matrix --install` first".into());
    }
    step(root, "cargo", which.build)?;
    let rpcspec = root.join("target/release/rpcspec");
    let manifest = dir.join(which.manifest);
    eprintln!(
        "==> rpcspec matrix {} --format {format} --timeout {} --jobs {}",
        manifest.display(),
        which.timeout,
        which.jobs
    );
    let out = Command::new(&rpcspec)
        .arg("matrix")
        .arg(&manifest)
        .args(["--format", format])
        .args(["--timeout", which.timeout])
        .args(["--jobs", which.jobs])
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot start {}: {e}", rpcspec.display()))?;
    if !out.stderr.is_empty() {
        eprint!("{}", String::from_utf8_lossy(&out.stderr));
    }
    // rpcspec exits 1 when a target fails a case: the table is still the
    // result. Anything else is a broken run.
    if !matches!(out.status.code(), Some(0 | 1)) {
        return Err(format!("`rpcspec matrix` failed ({})", out.status));
    }
    let report = String::from_utf8(out.stdout).map_err(|_| "the report is not UTF-8")?;
    let (path, text) = match output {
        Some(path) => (root.join(path), report),
        None if format == "md" => {
            let path = root.join(which.results);
            let doc = fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            (path, splice(&doc, &report, which.results)?)
        }
        None => {
            print!("{report}");
            return Ok(ExitCode::SUCCESS);
        }
    };
    fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    eprintln!(
        "xtask matrix: wrote {} (`git diff` shows what changed since the published table)",
        path.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// `doc` with the part between [`BEGIN`] and [`END`] replaced by `table`.
fn splice(doc: &str, table: &str, page: &str) -> Result<String, String> {
    let missing = || format!("{page} lacks the lines `{BEGIN}` and `{END}`");
    let start = doc.find(BEGIN).ok_or_else(missing)? + BEGIN.len();
    let end = doc[start..].find(END).ok_or_else(missing)? + start;
    Ok(format!(
        "{}\n\n{}\n\n{}",
        &doc[..start],
        table.trim(),
        &doc[end..]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splice_replaces_only_the_marked_part() {
        let doc = format!("intro\n{BEGIN}\nold\n{END}\nafter\n");
        assert_eq!(
            splice(&doc, "| new |\n", "page.md").unwrap(),
            format!("intro\n{BEGIN}\n\n| new |\n\n{END}\nafter\n")
        );
        assert!(splice("no markers", "x", "page.md").is_err());
    }
}
