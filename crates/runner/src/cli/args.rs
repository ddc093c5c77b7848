//! The command line of the `rpcspec` binary (part of `main.rs`, not of
//! the library): every subcommand's arguments, as clap reads them.

use std::{ffi::OsString, path::PathBuf, time::Duration};

use clap::{Parser, Subcommand, ValueEnum};
use rpcspec::{budget::Budget, check};

use crate::{duration_upto, fail};

/// Conformance tests for JSON-RPC 2.0 and its dialects, over NDJSON lines
/// or Content-Length headers.
#[derive(Parser)]
#[command(
    name = "rpcspec",
    version,
    about,
    after_help = EXIT_CODES
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The exit codes (`rpcspec::exit`), in every command's `--help`.
pub(crate) const EXIT_CODES: &str = "Exit codes: 0 nothing failed; 1 something failed; 2 bad usage, case file or baseline; 3 the target cannot be started (a missing program, one that may not be executed, a missing #! interpreter) or check's input cannot be opened; 4 no case matched the filters";

#[derive(Subcommand)]
// Parsed once per process: the size of its largest variant costs nothing.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Command {
    /// Run the cases against a target (default: the built-in reference server).
    Run(RunArgs),
    /// List the cases: id, title, spec section, what each requires.
    List(ListArgs),
    /// Show the rules of every role: id, level, section, the sentence each
    /// checks, and which cases check it.
    Rules(RulesArgs),
    /// Serve a reference implementation on stdin/stdout: the JSON-RPC 2.0
    /// server, an event-stream producer or an NDJSON decoder.
    Serve(ServeArgs),
    /// Validate a captured stream, NDJSON or Content-Length framed (a file,
    /// or - for stdin).
    Check(CheckArgs),
    /// Fuzz a target with generated and mutated inputs; findings become case files.
    Fuzz(FuzzArgs),
    /// Run the suite against every target of a manifest (or merge JSON
    /// reports) into one results matrix: Markdown, HTML or JSON.
    Matrix(rpcspec::matrix::MatrixArgs),
    /// The client role's scripted server: a relay a client under test
    /// spawns, started by `rpcspec run --role client` in place of `{server}`.
    #[command(hide = true)]
    Peer(PeerArgs),
}

#[derive(clap::Args)]
pub(crate) struct PeerArgs {
    /// The runner's socket.
    #[arg(long, value_name = "SOCKET")]
    pub(crate) connect: PathBuf,
    /// What the client passed its server (an SDK's flags to the CLI it
    /// spawns): reported to the runner.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub(crate) args: Vec<String>,
}

/// What the target is, and so which cases apply.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, ValueEnum)]
pub(crate) enum Role {
    /// A JSON-RPC server: reads requests, writes replies.
    #[default]
    Server,
    /// Writes an event stream (`start` … `done`) for the input it is given.
    Producer,
    /// Reads an NDJSON stream and reports each record it decodes.
    Decoder,
    /// A JSON-RPC client over stdio: it spawns the server it is given
    /// (`{server}` in its arguments) and reports what its library returned.
    Client,
}

impl Role {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Role::Server => "server",
            Role::Producer => "producer",
            Role::Decoder => "decoder",
            Role::Client => "client",
        }
    }
}

#[derive(clap::Args)]
pub(crate) struct ServeArgs {
    /// Which reference implementation to serve.
    #[arg(long, value_enum, default_value_t = Role::Server)]
    pub(crate) role: Role,
    /// The producer's profile (with `--role producer`).
    #[arg(long, value_name = "NAME", default_value = "events")]
    pub(crate) profile: String,
    // The reference MCP server speaks every revision: `initialize` for
    // 2025-06-18 and 2025-11-25, per-request `_meta` for 2026-07-28; tools
    // echo, add, fail, slow, log, roots; five resources, two a page; the
    // prompt greet.
    #[arg(
        long,
        value_name = "NAME",
        default_value = "jsonrpc2",
        help = short_help("The reference's dialect (with --role server or client):", |r| r.reference || r.client),
        long_help = rpcspec::dialects::help(
            "The reference's dialect: with --role server, a reference server (jsonrpc2 serves the §7 example methods; mcp every revision, mcp@REVISION one); with --role client, a reference client of it.",
            |r| r.reference && r.client,
        )
    )]
    pub(crate) dialect: String,
    /// How the reference server (`--role server`) or client (`--role
    /// client`) frames messages: `ndjson` or `content-length` (default: the
    /// dialect's).
    #[arg(long, value_enum, value_name = "NAME")]
    pub(crate) framing: Option<StreamFraming>,
    /// With `--profile claude`: `stdio` makes the reference ask its host
    /// for permission to use a tool with a `control_request`, as Claude
    /// Code's flag of that name does.
    #[arg(long, value_name = "TOOL", value_parser = ["stdio"])]
    pub(crate) permission_prompt_tool: Option<String>,
    /// With `--dialect mcp`: `conformance` serves the official MCP
    /// conformance suite's fixtures too (`test_simple_text`,
    /// `test://static-text`, `test_prompt_with_arguments`…), for `run
    /// --fixtures conformance`.
    #[arg(long, value_name = "SET", value_parser = ["conformance"])]
    pub(crate) fixtures: Option<String>,
    /// With `--role client`: the server to spawn, and its arguments.
    #[arg(
        value_name = "SERVER",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub(crate) server: Vec<OsString>,
}

#[derive(clap::Args)]
#[command(after_help = EXIT_CODES)]
pub(crate) struct FuzzArgs {
    /// Stop after this long: `300`, `300s`, `5m`, `2h` (at most 30 days).
    #[arg(long, value_name = "DURATION", default_value = "60", value_parser = duration_upto(30.0 * 86400.0))]
    pub(crate) time: Duration,
    /// Stop after this many executions, if sooner.
    #[arg(long, value_name = "N")]
    pub(crate) executions: Option<u64>,
    /// Seed of the input generator (default: the corpus's, else from the
    /// clock; printed).
    #[arg(long, value_name = "N")]
    pub(crate) seed: Option<u64>,
    /// Dialect the target's messages are judged in.
    #[arg(long, default_value = "jsonrpc2", value_name = "NAME")]
    pub(crate) dialect: String,
    /// How the inputs are framed: `ndjson` or `content-length` (the LSP
    /// base protocol, where one input in five ends with a damaged frame).
    /// Default: the dialect's (`lsp`: content-length; every other: ndjson).
    #[arg(long, value_enum, value_name = "NAME")]
    pub(crate) framing: Option<StreamFraming>,
    /// Deadline per execution: `5`, `5s`, `500ms` (at most an hour).
    #[arg(long, value_name = "DURATION", default_value = "5", value_parser = duration_upto(3600.0))]
    pub(crate) timeout: Duration,
    /// What one (case, plan) may read from the target and keep: `64MiB`,
    /// `512MiB`, `1GiB` (4 MiB to 4 GiB). A case reads a quarter of it and
    /// a line per 8 KiB of it before it stops the target with a FAIL
    /// (`process.output-flood`); its result keeps 1/1024 of it.
    #[arg(long, value_name = "SIZE", default_value = "64MiB", value_parser = Budget::parse)]
    pub(crate) budget: Budget,
    /// Folder for the case files of findings.
    #[arg(long, value_name = "DIR", default_value = "rpcspec-fuzz-findings")]
    pub(crate) out: PathBuf,
    /// Keep a corpus in DIR across runs (created if missing): inputs that
    /// showed a behaviour not seen before are kept and mutated, findings
    /// already known are not written again, and a run continues where the
    /// last one stopped (its seed and execution number). docs/fuzzing.md.
    #[arg(long, value_name = "DIR")]
    pub(crate) corpus: Option<PathBuf>,
    /// The most inputs the corpus keeps, 1 to 100000 (each at most 64
    /// KiB); once full, new behaviour is counted, not kept.
    #[arg(long, value_name = "N", default_value_t = rpcspec::fuzz::DEFAULT_MAX_INPUTS,
          value_parser = corpus_max)]
    pub(crate) corpus_max: usize,
    /// Executions run in parallel, each on target processes of its own, 1
    /// to 256. With one, a run is the same inputs in the same order every
    /// time.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub(crate) jobs: u16,
    /// A new target process for every execution, instead of one kept per
    /// job for as many executions as it answers (every finding is confirmed
    /// on a new process either way).
    #[arg(long)]
    pub(crate) fresh: bool,
    /// With `--dialect mcp`: a tool the fuzzer may call, with arguments
    /// drawn from its `inputSchema` (repeat it; `'*'`: every tool the
    /// server lists). A tool can act on the world: name only those safe
    /// to call with any arguments. Default: none (calls name a tool that
    /// does not exist).
    #[arg(long = "tool", value_name = "NAME")]
    pub(crate) tools: Vec<String>,
    /// The target command and its arguments, run without a shell.
    #[arg(last = true, value_name = "CMD", required = true)]
    pub(crate) target: Vec<OsString>,
}

#[derive(clap::Args)]
#[command(after_help = EXIT_CODES)]
pub(crate) struct RunArgs {
    /// What the target is: a JSON-RPC server, an event-stream producer or an
    /// NDJSON decoder.
    #[arg(long, value_enum, default_value_t = Role::Server)]
    pub(crate) role: Role,
    /// The event-stream profile a producer is judged by (`events`, `claude`,
    /// or the path of a profile file).
    #[arg(long, value_name = "NAME|FILE", default_value = "events")]
    pub(crate) profile: String,
    /// Test a streaming HTTP endpoint instead of a command (role producer).
    #[arg(long, value_name = "URL", conflicts_with = "target")]
    pub(crate) url: Option<String>,
    /// Run only the cases whose id matches (glob; repeatable).
    #[arg(long = "filter", value_name = "GLOB")]
    pub(crate) filters: Vec<String>,
    /// Load cases from this directory instead of the shipped ones.
    #[arg(long, value_name = "DIR")]
    pub(crate) cases: Option<PathBuf>,
    /// Deadline per case: `5`, `2.5`, `5s`, `500ms` (at most an hour;
    /// default 5 s, or the target file's). Server role: it runs from the
    /// last write the target took, at most 10 times it from the case's
    /// start, so rpcspec's own pacing of its writes is not counted.
    #[arg(long, value_name = "DURATION", value_parser = duration_upto(3600.0))]
    pub(crate) timeout: Option<Duration>,
    /// The most a new target process may take to show it is reading (to
    /// answer its first barrier or its handshake): `10`, `30s` (at most an
    /// hour; default 10 s, or the target file's `startup_timeout`). Case
    /// deadlines start after it. Server role; for a producer, the time its
    /// first byte may take (a cold start within it is not a held-back
    /// stream).
    #[arg(long, value_name = "DURATION", value_parser = duration_upto(3600.0))]
    pub(crate) startup_timeout: Option<Duration>,
    /// What one (case, plan) may read from the target and keep: `64MiB`,
    /// `512MiB`, `1GiB` (4 MiB to 4 GiB). A case reads a quarter of it and
    /// a line per 8 KiB of it before it stops the target with a FAIL
    /// (`process.output-flood`); its result keeps 1/1024 of it. Default
    /// 64 MiB, or the target file's `budget`.
    #[arg(long, value_name = "SIZE", value_parser = Budget::parse)]
    pub(crate) budget: Option<Budget>,
    /// A new target process for every (case, plan), instead of one kept per
    /// job for every case that can share it: server role, and decoder
    /// adapters that take streams over named pipes.
    #[arg(long)]
    pub(crate) fresh: bool,
    /// A target file (TOML): the command, dialect, features it lacks,
    /// timeout, handshake and a call known to succeed, in one place; see
    /// README.md, "Target files". Options given here win over the file's.
    #[arg(long = "target", value_name = "FILE")]
    pub(crate) target_file: Option<PathBuf>,
    /// What the target file adds to the run.
    #[arg(skip)]
    pub(crate) loaded: Option<Box<rpcspec::target_file::TargetFile>>,
    /// Cases run in parallel, 1 to 256 (default: twice the number of cores
    /// for a server or a client, whose cases mostly wait on it; the number
    /// of cores for a producer or decoder).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    pub(crate) jobs: Option<u16>,
    /// Write plans to use, comma-separated (default: all a case allows); for
    /// a producer, the profile scenarios to run.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub(crate) plans: Vec<String>,
    /// SHOULD-level findings (NON-STRICT) fail the run.
    #[arg(long)]
    pub(crate) strict: bool,
    #[arg(
        long,
        value_name = "NAME",
        help = short_help("The dialect the target speaks (default: jsonrpc2, or the target file's):", |r| r.server || r.client),
        long_help = rpcspec::dialects::help(
            "The dialect the target speaks, and its messages are judged in (default: jsonrpc2, or the target file's).",
            |r| r.server && r.client,
        )
    )]
    pub(crate) dialect: Option<String>,
    /// `conformance`: the MCP server implements the official conformance
    /// suite's fixtures (`test_simple_text`, `test://static-text`,
    /// `test_prompt_with_arguments`…): the `mcp/fixtures/…` checks call
    /// them by name (docs/mcp-conformance.md).
    #[arg(long, value_name = "SET", value_parser = ["conformance"])]
    pub(crate) fixtures: Option<String>,
    /// Features the target lacks, comma-separated or repeated: cases
    /// requiring one are SKIPPED (`rpcspec list` shows what each requires).
    #[arg(long = "without", value_name = "FEATURE", value_delimiter = ',')]
    pub(crate) without: Vec<String>,
    /// How messages are framed both ways (server role): `ndjson`, one per
    /// line, or `content-length`, `Content-Length: N` headers and N bytes
    /// (the LSP base protocol). Default: the dialect's (`lsp`:
    /// content-length; every other: ndjson).
    #[arg(long, value_enum, value_name = "NAME")]
    pub(crate) framing: Option<StreamFraming>,
    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub(crate) format: Format,
    /// Write the report to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,
    /// Known failures that do not fail the run (and fail it once they pass).
    #[arg(long, value_name = "FILE")]
    pub(crate) baseline: Option<PathBuf>,
    /// Write the failures of this run as a baseline to FILE.
    #[arg(long, value_name = "FILE")]
    pub(crate) write_baseline: Option<PathBuf>,
    /// Also write the JUnit XML report to FILE, whatever `--format` is (CI:
    /// `--format github --junit rpcspec.xml` annotates and feeds a test-report view in one run).
    #[arg(long, value_name = "FILE")]
    pub(crate) junit: Option<PathBuf>,
    /// Show passing results too.
    #[arg(long, short)]
    pub(crate) verbose: bool,
    /// The target command and its arguments, run without a shell.
    #[arg(last = true, value_name = "CMD")]
    pub(crate) target: Vec<OsString>,
}

impl RunArgs {
    /// The dialect's name: `--dialect`, else the target file's, else
    /// `jsonrpc2`.
    pub(crate) fn dialect(&self) -> &str {
        self.dialect.as_deref().unwrap_or("jsonrpc2")
    }

    /// The budget per (case, plan): `--budget`, else the target file's,
    /// else 64 MiB.
    pub(crate) fn budget(&self) -> Budget {
        self.budget.unwrap_or_default()
    }

    /// The deadline per case: `--timeout`, else the target file's, else 5 s.
    pub(crate) fn timeout(&self) -> Duration {
        self.timeout.unwrap_or(Duration::from_secs(5))
    }

    /// Takes in the target file, if one is given: its values fill what the
    /// command line left unsaid, and its `without` adds to `--without`.
    pub(crate) fn load_target_file(&mut self) -> Result<(), u8> {
        let Some(path) = &self.target_file else {
            return Ok(());
        };
        let file = rpcspec::target_file::load(path)
            .map_err(|e| fail(&format!("target file error: {e}")))?;
        match (self.target.is_empty(), file.command.is_empty()) {
            (true, false) => self.target = file.command.clone(),
            (false, true) => {}
            (false, false) => {
                return Err(fail(
                    "give the target either after `--` or as `command` in the --target file, not both",
                ));
            }
            (true, true) => {
                return Err(fail(&format!(
                    "{} has no `command`: give it there, or the command after `--`",
                    path.display()
                )));
            }
        }
        if self.dialect.is_none() {
            self.dialect = file.dialect.clone();
        }
        if self.timeout.is_none() {
            self.timeout = file.timeout;
        }
        if self.startup_timeout.is_none() {
            self.startup_timeout = file.startup_timeout;
        }
        if self.budget.is_none() {
            self.budget = file.budget;
        }
        for feature in &file.without {
            if !self.without.contains(feature) {
                self.without.push(feature.clone());
            }
        }
        self.loaded = Some(Box::new(file));
        Ok(())
    }
}

#[derive(clap::Args)]
pub(crate) struct ListArgs {
    /// Whose cases: the JSON-RPC server's, the producer's or the decoder's.
    #[arg(long, value_enum, default_value_t = Role::Server)]
    pub(crate) role: Role,
    /// The producer profile whose scenarios are listed as plans.
    #[arg(long, value_name = "NAME|FILE", default_value = "events")]
    pub(crate) profile: String,
    #[arg(
        long,
        value_name = "NAME",
        help = short_help("The cases of this dialect (mcp: the MCP checks too, with their rules):", |r| r.server || r.client),
        long_help = rpcspec::dialects::help(
            "The cases of this dialect; mcp (or mcp@REVISION) lists the MCP checks too, with the rules each grades, their levels, revisions and sections.",
            |r| r.server && r.client,
        )
    )]
    pub(crate) dialect: Option<String>,
    /// Only the cases whose id matches (glob; repeatable).
    #[arg(long = "filter", value_name = "GLOB")]
    pub(crate) filters: Vec<String>,
    /// Load cases from this directory instead of the shipped ones.
    #[arg(long, value_name = "DIR")]
    pub(crate) cases: Option<PathBuf>,
    /// `human` or `json` (one object per line).
    #[arg(long, value_enum, default_value_t = TextFormat::Human)]
    pub(crate) format: TextFormat,
}

#[derive(clap::Args)]
pub(crate) struct RulesArgs {
    /// A rule id, or a glob (`framing.*`, `*utf8*`); all rules without.
    #[arg(value_name = "ID|GLOB")]
    pub(crate) pattern: Option<String>,
    /// `human` or `json` (one object per line).
    #[arg(long, value_enum, default_value_t = TextFormat::Human)]
    pub(crate) format: TextFormat,
}

#[derive(clap::Args)]
#[command(after_help = EXIT_CODES)]
pub(crate) struct CheckArgs {
    /// The stream to check; `-` or nothing reads stdin.
    pub(crate) file: Option<PathBuf>,
    #[arg(
        long,
        value_name = "DIALECT",
        conflicts_with = "framing_only",
        help = short_help("Also check every message and the pairing, in this dialect:", |r| r.server),
        long_help = rpcspec::dialects::help(
            "Also check every message and the pairing, in this dialect; where it ships who sends each method (mcp, lsp), an unmarked stream's senders are read from that.",
            |r| r.server,
        )
    )]
    pub(crate) rpc: Option<String>,
    /// Whose messages the stream holds: `both` (lines marked `-->` client
    /// to server and `<--` server to client; unmarked, each sender is read
    /// from the dialect's method directions, where it ships them (mcp,
    /// lsp), and from pairing, else guessed: a message with a method the
    /// client's, a reply the server's), or one side's only, `client` or
    /// `server` (a server's stdout): then only that side's requests are
    /// paired.
    #[arg(long, value_enum, default_value_t = CheckFrom::Both)]
    pub(crate) from: CheckFrom,
    /// Each message on a line of its own: its line, sender, what it is in
    /// the dialect and what answers it ("answered by line 14"), with the
    /// findings about it beneath (implies `--rpc jsonrpc2` if no `--rpc`).
    #[arg(long, conflicts_with = "framing_only")]
    pub(crate) annotate: bool,
    /// The client's stream, checked together with the server's
    /// (`--server`), each captured on its own (`tee` on each side of a
    /// pipe): read in an order that could have happened, each reply after
    /// its request; each finding names its file.
    #[arg(long, value_name = "FILE", requires = "server", conflicts_with_all = ["file", "from"])]
    pub(crate) client: Option<PathBuf>,
    /// The server's stream, checked together with the client's
    /// (`--client`).
    #[arg(long, value_name = "FILE", requires = "client", conflicts_with_all = ["file", "from"])]
    pub(crate) server: Option<PathBuf>,
    /// Check the framing only (UTF-8, line endings, blank lines), not that
    /// each line is one JSON text.
    #[arg(long)]
    pub(crate) framing_only: bool,
    /// The stream is RFC 7464 `application/json-seq`: records start with
    /// the RS byte (0x1E), and a record may span lines.
    #[arg(long)]
    pub(crate) seq: bool,
    /// How messages are framed: `ndjson` (one per line; the default) or
    /// `content-length` (`Content-Length: N` headers, then N bytes: the LSP
    /// base protocol; the default with `--rpc lsp`).
    #[arg(long, value_enum, conflicts_with = "seq")]
    pub(crate) framing: Option<StreamFraming>,
    /// Show at most N findings of each rule (the rest are counted in the
    /// summary); 0 shows all.
    #[arg(long, value_name = "N", default_value_t = check::PER_RULE)]
    pub(crate) max_per_rule: u64,
    /// With --rpc: pair replies with the latest N requests of each side; a
    /// request older than that still unanswered is reported.
    #[arg(long, value_name = "N", default_value_t = check::WINDOW as u64,
          value_parser = clap::value_parser!(u64).range(1..=1 << 24))]
    pub(crate) window: u64,
    /// `human` (`line:offset: rule: message`), `json` (NDJSON) or `html`
    /// (the session as a sequence diagram, one self-contained page; implies
    /// `--annotate`).
    #[arg(long, value_enum, default_value_t = CheckFormat::Human)]
    pub(crate) format: CheckFormat,
}

/// The formats of `check`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CheckFormat {
    /// `line:offset: rule: message`, and with `--annotate` a line per message.
    Human,
    /// NDJSON: a record per finding (and note), then the summary.
    Json,
    /// The session as a sequence diagram: one self-contained page.
    Html,
}

/// Whose messages a checked stream holds.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CheckFrom {
    /// Both sides (marked, or guessed).
    Both,
    /// The client's only.
    Client,
    /// The server's only.
    Server,
}

/// How messages are cut out of a stream.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum StreamFraming {
    /// One JSON text per line.
    Ndjson,
    /// `Content-Length` headers (the LSP base protocol).
    ContentLength,
}

impl StreamFraming {
    /// The framing, with its defaults.
    pub(crate) fn framing(self) -> rpcspec::capture::Framing {
        match self {
            StreamFraming::Ndjson => rpcspec::capture::Framing::ndjson(),
            StreamFraming::ContentLength => rpcspec::capture::Framing::content_length(),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    Human,
    Json,
    Junit,
    /// GitHub Actions annotations, and the Markdown summary appended to
    /// `$GITHUB_STEP_SUMMARY` when it is set.
    Github,
    /// A Markdown summary (for a pull-request comment).
    Markdown,
    /// One self-contained HTML page (no scripts), the matrix's renderer:
    /// a cell per case, each that did not pass opening to its evidence.
    Html,
}

/// The formats of `list` and `check`: JUnit is a report of a run only.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum TextFormat {
    Human,
    Json,
}

/// `--corpus-max`: 1 to [`rpcspec::fuzz::MAX_INPUTS`].
fn corpus_max(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if (1..=rpcspec::fuzz::MAX_INPUTS).contains(&n) => Ok(n),
        _ => Err(format!(
            "{text} is not in 1..={}",
            rpcspec::fuzz::MAX_INPUTS
        )),
    }
}

/// A `--dialect` option's short help: `lead` and the names it takes.
fn short_help(lead: &str, takes: fn(&rpcspec::dialects::Roles) -> bool) -> String {
    format!("{lead} {}", rpcspec::dialects::names_taken(takes))
}
