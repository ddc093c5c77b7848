//! `rpcspec run`: the run of every role, and its report.

use std::{
    ffi::OsString,
    fs,
    io::{self, IsTerminal, Write},
    path::Path,
    time::{Duration, Instant},
};

use rpcspec::{
    baseline::Baseline,
    cases,
    client::Clients,
    decoder::Decoders,
    exec::RunOptions,
    exit,
    plan::{ALL_PLANS, Plan},
    producer::Producers,
    render,
    report::Report,
    role::{Ran, Refused, select},
    server::Servers,
    target::Target,
};

use crate::{
    args::{Format, Role, RunArgs, StreamFraming},
    emit, fail, handshake_of, mcp_cmd, startable,
};

/// The reference implementation of `role` (a server: of `dialect`, where
/// one exists, in `framing` when it is given), run from this executable.
fn reference_target(
    role: Role,
    profile: &str,
    dialect: &str,
    framing: Option<StreamFraming>,
) -> Result<Target, u8> {
    let exe = std::env::current_exe().map_err(|e| {
        fail(&format!(
            "cannot find the rpcspec executable for `serve`: {e}"
        ))
    })?;
    let mut argv: Vec<OsString> = vec![exe.into_os_string(), "serve".into()];
    if role != Role::Server {
        argv.extend(["--role".into(), role.name().into()]);
    }
    if matches!(role, Role::Server | Role::Client)
        && let Some(f) = framing
    {
        let name = f.framing().name();
        argv.extend(["--framing".into(), name.into()]);
    }
    // The default dialect's reference needs no flag.
    let found = rpcspec::dialects::find(dialect).filter(|_| dialect != "jsonrpc2");
    if role == Role::Client {
        if found.is_some_and(|(d, _)| d.play.is_some()) {
            argv.extend(["--dialect".into(), dialect.into()]);
        }
        argv.extend(["--".into(), rpcspec::client::run::PLACEHOLDER.into()]);
    }
    if role == Role::Producer {
        argv.extend(["--profile".into(), profile.into()]);
        // The Claude reference makes control requests only when asked to,
        // as Claude Code does.
        if profile == "claude" {
            argv.extend(["--permission-prompt-tool".into(), "stdio".into()]);
        }
    }
    if role == Role::Server && found.is_some_and(|(d, _)| d.serve.reference.is_some()) {
        argv.extend(["--dialect".into(), dialect.into()]);
    }
    Ok(Target { argv })
}

/// The target named after `--`, or the reference implementation.
fn target_of(args: &RunArgs) -> Result<Target, u8> {
    if args.target.is_empty() {
        reference_target(args.role, &args.profile, args.dialect(), args.framing)
    } else {
        startable(Target {
            argv: args.target.clone(),
        })
    }
}

fn jobs_of(args: &RunArgs) -> usize {
    args.jobs
        .map(usize::from)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
}

/// The cases of `role` that the arguments select, run against the
/// target: the one path of every role.
fn run_role<R: rpcspec::role::Role>(
    role: &R,
    args: &RunArgs,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Ran, u8> {
    let cases = select(role, args.cases.as_deref(), &args.filters).map_err(refused)?;
    let target = target_of(args)?;
    let jobs = args
        .jobs
        .map_or_else(|| role.default_jobs(jobs_of(args)), usize::from);
    role.run(&cases, &target, jobs, progress).map_err(refused)
}

/// Says why a role refused, and the exit code to end with.
pub(crate) fn refused(r: Refused) -> u8 {
    eprintln!("rpcspec: {}", r.message);
    r.code
}

pub(crate) fn run(mut args: RunArgs) -> u8 {
    if args.url.is_some() && args.role != Role::Producer {
        return fail("--url tests a streaming HTTP endpoint: use it with --role producer");
    }
    if args.target_file.is_some() && args.role != Role::Server {
        return fail("--target FILE describes a server: use it with --role server");
    }
    if let Err(code) = args.load_target_file() {
        return code;
    }
    let baseline = match &args.baseline {
        None => None,
        Some(path) => match fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|t| Baseline::parse(&t).map_err(|e| e.to_string()))
        {
            Ok(b) => Some(b),
            Err(e) => return fail(&format!("baseline {}: {e}", path.display())),
        },
    };
    // A progress bar on a terminal, once a run has taken a second; never
    // when stderr is piped or the report is for a machine.
    let show_progress = io::stderr().is_terminal() && args.format == Format::Human;
    let started = Instant::now();
    let progress = |done: usize, total: usize| {
        if !show_progress || started.elapsed() < Duration::from_secs(1) {
            return;
        }
        const WIDTH: usize = 30;
        let filled = (WIDTH * done).checked_div(total).unwrap_or(WIDTH);
        let line = format!(
            "[{}{}] {done}/{total}",
            "=".repeat(filled),
            " ".repeat(WIDTH - filled)
        );
        if done == total {
            eprint!("\r{:width$}\r", "", width = line.len());
        } else {
            eprint!("\r{line}");
        }
    };
    let ran = match args.role {
        Role::Server => servers(&args).and_then(|r| run_role(&r, &args, &progress)),
        Role::Producer => producers(&args).and_then(|r| run_role(&r, &args, &progress)),
        Role::Decoder => decoders(&args).and_then(|r| run_role(&r, &args, &progress)),
        Role::Client => clients(&args).and_then(|r| run_role(&r, &args, &progress)),
    };
    let ran = match ran {
        Ok(r) => r,
        Err(code) => return code,
    };
    let mut report = Report {
        target: ran.target,
        role: args.role.name().to_owned(),
        dialect: ran.dialect,
        strict: args.strict,
        results: ran.results,
        stale: Vec::new(),
        duration: started.elapsed(),
        halt: ran.halt,
    };
    if let Some(b) = &baseline {
        b.apply(&mut report);
    }
    if let Some(path) = &args.write_baseline
        && let Err(e) = fs::write(path, Baseline::render_failures(&report))
    {
        return fail(&format!("cannot write {}: {e}", path.display()));
    }
    if let Some(path) = &args.junit
        && let Err(e) = fs::write(path, render::junit(&report))
    {
        return fail(&format!("cannot write {}: {e}", path.display()));
    }
    let text = match args.format {
        Format::Human => render::human(&report, args.verbose),
        Format::Json => render::json(&report),
        Format::Junit => render::junit(&report),
        Format::Github => {
            // The job summary: appended, as every step of a job shares it.
            if let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY") {
                let appended = fs::OpenOptions::new()
                    .append(true)
                    .create(true)
                    .open(&path)
                    .and_then(|mut f| f.write_all(render::markdown(&report).as_bytes()));
                if let Err(e) = appended {
                    eprintln!(
                        "rpcspec: cannot write the job summary to {}: {e}",
                        Path::new(&path).display()
                    );
                }
            }
            render::github(&report)
        }
        Format::Markdown => render::markdown(&report),
        Format::Html => rpcspec::matrix::html::render(&rpcspec::matrix::of_report(&report)),
    };
    match &args.output {
        Some(path) => {
            if let Err(e) = fs::write(path, anstream::adapter::strip_str(&text).to_string()) {
                return fail(&format!("cannot write {}: {e}", path.display()));
            }
            eprintln!("{}", report.summary().closing_line());
        }
        None => emit(&text, args.format == Format::Human),
    }
    if report.failed() {
        exit::FAILED
    } else {
        exit::OK
    }
}

/// The server role the arguments describe: its plans, its dialect and
/// handshakes (a cases folder's and the target file's first), and in MCP
/// the checks' options.
fn servers(args: &RunArgs) -> Result<Servers, u8> {
    let (dialect_name, pinned) = mcp_cmd::mcp_pin(args.dialect())?;
    let (dialect, handshake) = handshake_of(dialect_name)?;
    let framing = match args.framing {
        Some(f) => f.framing(),
        None => rpcspec::dialects::framing_of(&handshake),
    };
    let plans: Vec<Plan> = if args.plans.is_empty() {
        ALL_PLANS
            .into_iter()
            .filter(|p| p.applies_to(&framing))
            .collect()
    } else {
        let mut plans = Vec::new();
        for name in &args.plans {
            match name.parse::<Plan>() {
                Ok(p) if !p.applies_to(&framing) => {
                    return Err(fail(&format!(
                        "the write plan `{p}` is NDJSON's line ending: it does not apply in {} framing",
                        framing.name()
                    )));
                }
                Ok(p) => plans.push(p),
                Err(e) => return Err(fail(&e.to_string())),
            }
        }
        plans
    };
    if !args.without.is_empty() {
        // Every feature any case names, filtered out or not.
        let own = match &args.cases {
            Some(dir) => cases::load_dir(dir).unwrap_or_default(),
            None => Vec::new(),
        };
        let mut features = cases::features(&cases::builtin().unwrap_or_default());
        features.extend(cases::features(&own));
        if let Some(bad) = args.without.iter().find(|f| !features.contains(*f)) {
            let known: Vec<&str> = features.iter().map(String::as_str).collect();
            return Err(fail(&format!(
                "unknown feature `{bad}` in --without (known: {})",
                known.join(", ")
            )));
        }
    }
    let mut opts = RunOptions {
        timeout: args.timeout(),
        dialect,
        framing,
        without: args.without.clone(),
        handshake: Some(handshake.clone()),
        call: args.loaded.as_ref().and_then(|f| f.call.clone()),
        startup: args
            .startup_timeout
            .unwrap_or(rpcspec::exec::DEFAULT_STARTUP),
        fresh: args.fresh,
        budget: args.budget(),
        ..RunOptions::default()
    };
    // A cases folder's own preambles come first (the first for a dialect
    // wins); the shipped ones still cover the dialects it does not.
    if let Some(dir) = &args.cases {
        let mut own =
            cases::preambles_dir(dir).map_err(|e| fail(&format!("case file error: {e}")))?;
        own.append(&mut opts.preambles);
        opts.preambles = own;
    }
    // The target file's handshakes win over both.
    if let Some(file) = &args.loaded {
        let mut own = file.preambles.clone();
        own.append(&mut opts.preambles);
        opts.preambles = own;
    }
    // A pinned legacy revision is the one the handshake offers.
    if let Some(revision) = pinned.filter(|r| r.has_initialize()) {
        for preamble in opts.preambles.iter_mut().filter(|p| p.dialect == "mcp") {
            preamble.offer_version(revision.as_str());
        }
    }
    let mcp = (dialect_name == "mcp").then(|| rpcspec::dialects::mcp::suite::Options {
        pinned,
        startup: opts.startup,
        timeout: opts.timeout,
        budget: opts.budget,
        calls: rpcspec::dialects::mcp::suite::ToolCalls {
            fixtures: args.fixtures.is_some(),
            ..args
                .loaded
                .as_ref()
                .map(|f| f.mcp.clone())
                .unwrap_or_default()
        },
        readiness: opts.readiness.clone(),
    });
    Ok(Servers {
        plans,
        opts,
        mcp,
        pinned,
        handshake,
        filters: args.filters.clone(),
    })
}

fn producers(args: &RunArgs) -> Result<Producers, u8> {
    let limits = rpcspec::producer::Limits {
        timeout: args.timeout(),
        startup: args
            .startup_timeout
            .unwrap_or(rpcspec::exec::DEFAULT_STARTUP),
    };
    Producers::new(
        &args.profile,
        &args.plans,
        args.url.clone(),
        limits,
        args.budget(),
    )
    .map_err(refused)
}

fn decoders(args: &RunArgs) -> Result<Decoders, u8> {
    Decoders::new(
        args.plans.clone(),
        args.timeout(),
        args.budget(),
        args.fresh,
    )
    .map_err(refused)
}

fn clients(args: &RunArgs) -> Result<Clients, u8> {
    let peer = std::env::current_exe().map_err(|e| {
        fail(&format!(
            "cannot find the rpcspec executable for the peer: {e}"
        ))
    })?;
    let limits = rpcspec::client::Limits {
        startup: args
            .startup_timeout
            .unwrap_or(rpcspec::exec::DEFAULT_STARTUP),
        timeout: args.timeout.unwrap_or(rpcspec::client::DEFAULT_TIMEOUT),
    };
    Clients::new(
        args.dialect(),
        args.framing.map(StreamFraming::framing),
        &args.plans,
        limits,
        args.budget(),
        peer,
    )
    .map_err(refused)
}
