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
    cases::{self, Case},
    compile_filters,
    exec::RunOptions,
    exit,
    plan::{ALL_PLANS, Plan},
    render,
    report::Report,
    run_suite, selected, serve,
    target::Target,
};

use crate::{
    args::{Format, Role, RunArgs},
    emit, fail, filtered, handshake_of, load, mcp_cmd, startable,
};

/// The reference implementation of `role` (a server: of `dialect`, where
/// one exists), run from this executable.
fn reference_target(role: Role, profile: &str, dialect: &str) -> Result<Target, u8> {
    let exe = std::env::current_exe().map_err(|e| {
        fail(&format!(
            "cannot find the rpcspec executable for `serve`: {e}"
        ))
    })?;
    let mut argv: Vec<OsString> = vec![exe.into_os_string(), "serve".into()];
    if role != Role::Server {
        argv.extend(["--role".into(), role.name().into()]);
    }
    if role == Role::Client {
        if dialect == "mcp" {
            argv.extend(["--dialect".into(), "mcp".into()]);
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
    if role == Role::Server && dialect != "jsonrpc2" && serve::Flavor::named(dialect).is_some() {
        argv.extend(["--dialect".into(), dialect.into()]);
    }
    Ok(Target { argv })
}

/// The target named after `--`, or the reference implementation.
fn target_of(args: &RunArgs) -> Result<Target, u8> {
    if args.target.is_empty() {
        reference_target(args.role, &args.profile, args.dialect())
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

/// What a role's run hands back to be reported.
struct RoleRun {
    target: String,
    dialect: String,
    results: Vec<rpcspec::report::CaseResult>,
    /// Why the run stopped running cases, if it did.
    halt: Option<rpcspec::report::Halt>,
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
        Role::Server => run_server(&args, &progress),
        Role::Producer => run_producer(&args, &progress),
        Role::Decoder => run_decoder(&args, &progress),
        Role::Client => run_client(&args, &progress),
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

fn run_server(args: &RunArgs, progress: &(dyn Fn(usize, usize) + Sync)) -> Result<RoleRun, u8> {
    let (dialect_name, pinned) = mcp_cmd::mcp_pin(args.dialect())?;
    let is_mcp = dialect_name == "mcp";
    // In MCP the `mcp/…` checks run too: a filter may pick only them.
    let cases = if is_mcp {
        let all = match &args.cases {
            Some(dir) => cases::load_dir(dir),
            None => cases::builtin(),
        }
        .map_err(|e| fail(&format!("case file error: {e}")))?;
        let filters = compile_filters(&args.filters).map_err(|e| fail(&e))?;
        let cases: Vec<Case> = all
            .into_iter()
            .filter(|c| selected(&c.meta.id, &filters))
            .collect();
        let any_check = rpcspec::mcp::suite::CHECKS
            .iter()
            .any(|c| selected(c.id, &filters));
        if cases.is_empty() && !any_check {
            eprintln!("rpcspec: no case matched the filters");
            return Err(exit::NO_CASES);
        }
        cases
    } else {
        load(args.cases.as_ref(), &args.filters)?
    };
    let plans: Vec<Plan> = if args.plans.is_empty() {
        ALL_PLANS.to_vec()
    } else {
        let mut plans = Vec::new();
        for name in &args.plans {
            match name.parse::<Plan>() {
                Ok(p) => plans.push(p),
                Err(e) => return Err(fail(&e.to_string())),
            }
        }
        plans
    };
    let (dialect, handshake) = handshake_of(dialect_name)?;
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
    let target = target_of(args)?;
    let mut opts = RunOptions {
        timeout: args.timeout(),
        dialect: dialect.clone(),
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
    // The MCP checks beside the JSON-RPC cases: one session, a few seconds,
    // its start-up paid while the cases pay theirs.
    let filters = compile_filters(&args.filters).map_err(|e| fail(&e))?;
    let mcp_opts = rpcspec::mcp::suite::Options {
        pinned,
        startup: opts.startup,
        timeout: opts.timeout,
        budget: opts.budget,
        calls: args
            .loaded
            .as_ref()
            .map(|f| f.mcp.clone())
            .unwrap_or_default(),
        readiness: opts.readiness.clone(),
    };
    // A server's cases mostly wait on the target: twice as many jobs as
    // cores keep both busy.
    let jobs = args.jobs.map_or(2 * jobs_of(args), usize::from);
    let (mut results, outcome) = std::thread::scope(|scope| {
        let checks = is_mcp.then(|| {
            scope.spawn(|| {
                rpcspec::mcp::suite::run(&target, &mcp_opts, &|id| selected(id, &filters))
            })
        });
        let results = match pinned {
            // The JSON-RPC cases need MCP's `initialize` and `ping`.
            Some(r) if !r.has_initialize() => mcp_cmd::not_applicable(
                &cases,
                &plans,
                &format!(
                    "MCP {r} has no `initialize` and no `ping`, which the JSON-RPC cases open with and probe by: the `mcp/…` checks cover it"
                ),
            ),
            _ => run_suite(&cases, &plans, &target, &opts, jobs, progress),
        };
        let outcome = checks.map(|h| h.join().expect("the MCP checks do not panic"));
        (results, outcome)
    });
    let outcome = outcome.unwrap_or_default();
    if outcome.has_initialize == Some(false) && pinned.is_none() {
        results = mcp_cmd::not_applicable(
            &cases,
            &plans,
            "the server speaks MCP 2026-07-28 only (it answered `initialize` with no result): the JSON-RPC cases open with `initialize` and probe with `ping`, which that revision removed; the `mcp/…` checks cover it",
        );
    }
    results.extend(outcome.results);
    // A target that answered nothing: the MCP checks say so too.
    let halt = halted(&opts.readiness, &mut results);
    Ok(RoleRun {
        target: target.display(),
        dialect: match pinned {
            Some(r) => format!("{handshake}@{r}"),
            None => handshake,
        },
        results,
        halt,
    })
}

fn run_producer(args: &RunArgs, progress: &(dyn Fn(usize, usize) + Sync)) -> Result<RoleRun, u8> {
    use rpcspec::producer::{self, Profile, Source};
    let mut profile = Profile::named(&args.profile).map_err(|e| fail(&e))?;
    // A producer's plans are its profile's scenarios.
    if !args.plans.is_empty() {
        if let Some(unknown) = args
            .plans
            .iter()
            .find(|p| !profile.scenarios.iter().any(|s| &s.name == *p))
        {
            let known: Vec<&str> = profile.scenarios.iter().map(|s| s.name.as_str()).collect();
            return Err(fail(&format!(
                "unknown scenario `{unknown}` in --plans (profile `{}` has: {})",
                profile.name,
                known.join(", ")
            )));
        }
        profile.scenarios.retain(|s| args.plans.contains(&s.name));
    }
    let cases = producer::load(args.cases.as_deref(), &profile)
        .map_err(|e| fail(&format!("case file error: {e}")))?;
    let cases = filtered(cases, |c| &c.meta.id, &args.filters)?;
    let source = match &args.url {
        Some(url) => Source::Url(url.clone()),
        None => Source::Command(target_of(args)?),
    };
    let limits = producer::Limits {
        timeout: args.timeout(),
        startup: args
            .startup_timeout
            .unwrap_or(rpcspec::exec::DEFAULT_STARTUP),
    };
    let produced = producer::run(
        &cases,
        &profile,
        &source,
        limits,
        &args.budget(),
        jobs_of(args),
        progress,
    );
    Ok(RoleRun {
        target: source.display(),
        dialect: profile.name.clone(),
        results: produced.results,
        halt: produced.halt,
    })
}

fn run_decoder(args: &RunArgs, progress: &(dyn Fn(usize, usize) + Sync)) -> Result<RoleRun, u8> {
    use rpcspec::decoder;
    let cases = match &args.cases {
        Some(dir) => decoder::load_dir(dir),
        None => decoder::builtin(),
    }
    .map_err(|e| fail(&format!("case file error: {e}")))?;
    let cases = filtered(cases, |c| &c.meta.id, &args.filters)?;
    if let Some(unknown) = args
        .plans
        .iter()
        .find(|p| !decoder::PLAN_KINDS.contains(&p.as_str()))
    {
        return Err(fail(&format!(
            "unknown decoder plan `{unknown}` (known: {})",
            decoder::PLAN_KINDS.join(", ")
        )));
    }
    let target = target_of(args)?;
    let work: Vec<_> = cases
        .iter()
        .flat_map(|c| {
            c.plans()
                .into_iter()
                .filter(|p| args.plans.is_empty() || args.plans.iter().any(|n| n == p.kind()))
                .map(move |p| (c, p))
        })
        .collect();
    if work.is_empty() {
        eprintln!("rpcspec: no case runs under the plans given");
        return Err(exit::NO_CASES);
    }
    let (timeout, budget) = (args.timeout(), args.budget());
    let readiness = rpcspec::exec::Readiness::default();
    let mut results = rpcspec::run_parallel_with(
        &work,
        jobs_of(args),
        progress,
        || decoder::Session::new(args.fresh),
        |session, (case, plan)| {
            decoder::run_case_in(session, case, plan, &target, timeout, &budget, &readiness)
        },
    );
    Ok(RoleRun {
        target: target.display(),
        dialect: "ndjson".to_owned(),
        halt: halted(&readiness, &mut results),
        results,
    })
}

fn run_client(args: &RunArgs, progress: &(dyn Fn(usize, usize) + Sync)) -> Result<RoleRun, u8> {
    use rpcspec::client::{self, Protocol};
    let protocol = match args.dialect() {
        "jsonrpc2" => Protocol::JsonRpc,
        "mcp" => Protocol::Mcp,
        other => {
            return Err(fail(&format!(
                "the client role checks JSON-RPC 2.0 clients (`--dialect jsonrpc2`, the default) and MCP clients (`--dialect mcp`), not `{other}`"
            )));
        }
    };
    if !args.plans.is_empty() {
        return Err(fail(
            "the client role has no plans: each scenario scripts its own writes",
        ));
    }
    let scenarios = match &args.cases {
        Some(dir) => client::load_dir(dir),
        None => client::builtin(),
    }
    .map_err(|e| fail(&format!("case file error: {e}")))?;
    let scenarios: Vec<_> = scenarios
        .into_iter()
        .filter(|s| s.protocol == protocol)
        .collect();
    let scenarios = filtered(scenarios, |s| &s.meta.id, &args.filters)?;
    let target = target_of(args)?;
    let peer = std::env::current_exe().map_err(|e| {
        fail(&format!(
            "cannot find the rpcspec executable for the peer: {e}"
        ))
    })?;
    let limits = client::Limits {
        startup: args
            .startup_timeout
            .unwrap_or(rpcspec::exec::DEFAULT_STARTUP),
        timeout: args.timeout.unwrap_or(client::DEFAULT_TIMEOUT),
    };
    let budget = args.budget();
    let readiness = rpcspec::exec::Readiness::default();
    let mut results = rpcspec::run_parallel_with(
        &scenarios,
        jobs_of(args),
        progress,
        || (),
        |(), sc| client::run_scenario(sc, &target, &peer, limits, &budget, &readiness),
    );
    Ok(RoleRun {
        target: target.display(),
        dialect: args.dialect().to_owned(),
        halt: halted(&readiness, &mut results),
        results,
    })
}

/// Why the run halted, if it did, with every result that ran saying so.
fn halted(
    readiness: &rpcspec::exec::Readiness,
    results: &mut [rpcspec::report::CaseResult],
) -> Option<rpcspec::report::Halt> {
    let halt = readiness.halted()?.clone();
    results.iter_mut().for_each(|r| halt.apply(r));
    Some(halt)
}
