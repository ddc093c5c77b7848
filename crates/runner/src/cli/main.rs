//! The `rpcspec` command.

use std::{
    ffi::OsString,
    io::{self, Write},
    path::PathBuf,
    process::ExitCode,
    time::Duration,
};

use clap::Parser;
use rpcspec::{
    budget::Budget, capture::Framing, casefile::Listing, client::Clients, compile_filters,
    decoder::Decoders, exec::RunOptions, exit, plan::ALL_PLANS, producer::Producers, role::select,
    selected, serve, server::Servers, target::Target,
};
use rpcspec_matcher::Dialect;

mod args;
mod check_cmd;
mod fuzz_cmd;
mod mcp_cmd;
mod rules_cmd;
mod run_cmd;

use args::{Cli, Command, ListArgs, Role, ServeArgs, TextFormat};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() {
                exit::USAGE
            } else {
                exit::OK
            });
        }
    };
    // What a target leaves behind is handed to rpcspec, to kill and reap
    // (rpcspec::reap). `matrix` runs `rpcspec run`, which does this itself.
    if matches!(
        cli.command,
        Command::Run(_) | Command::Check(_) | Command::Fuzz(_)
    ) {
        rpcspec::reap::become_subreaper();
    }
    let code = match cli.command {
        Command::Run(args) => run_cmd::run(args),
        Command::List(args) => list(args),
        Command::Rules(args) => rules_cmd::rules_cmd(args),
        Command::Serve(args) => serve_cmd(args),
        Command::Check(args) => check_cmd::check_cmd(args),
        Command::Fuzz(args) => fuzz_cmd::fuzz_cmd(args),
        Command::Matrix(args) => rpcspec::matrix::command(args),
        Command::Peer(args) => {
            u8::try_from(rpcspec::client::peer::serve(&args.connect, &args.args))
                .unwrap_or(exit::USAGE)
        }
    };
    ExitCode::from(code)
}

fn serve_cmd(args: ServeArgs) -> u8 {
    let (input, output) = (io::stdin().lock(), io::stdout().lock());
    let served = match args.role {
        Role::Server => {
            let Some((descriptor, revision, reference)) = rpcspec::dialects::find(&args.dialect)
                .and_then(|(d, revision)| Some((d, revision, d.serve.reference.as_ref()?)))
            else {
                return fail(&rpcspec::dialects::unknown(
                    &args.dialect,
                    |r| r.reference,
                    "`serve --role server`",
                ));
            };
            let own_framing = descriptor.framing();
            let framing = args
                .framing
                .map_or_else(|| own_framing.clone(), |f| f.framing());
            match reference.own {
                Some(_) if framing.name() != own_framing.name() => {
                    return fail(&format!(
                        "the reference server of `--dialect {}` speaks {} only",
                        descriptor.name,
                        own_framing.name()
                    ));
                }
                Some(own) => {
                    // It reads stdin on a thread of its own.
                    drop(input);
                    let mut output = output;
                    (own.stdio)(revision, args.fixtures.is_some(), &mut output)
                }
                None if args.fixtures.is_some() => {
                    return fail(
                        "--fixtures is for a reference server that has them (--dialect mcp)",
                    );
                }
                None => {
                    drop(input);
                    // A language server exits with the status its client's
                    // `exit` calls for.
                    match serve::serve_stdio(reference, revision, framing, output) {
                        Ok(Some(status)) => return u8::try_from(status).unwrap_or(1),
                        other => other.map(|_| ()),
                    }
                }
            }
        }
        Role::Decoder if rpcspec::decoder::offered_pipes() => {
            rpcspec::decoder::serve_pipes(input, output, |pipe, out| {
                rpcspec::decoder::serve(pipe, out)
            })
        }
        Role::Decoder => rpcspec::decoder::serve(input, output),
        Role::Client => {
            let framing = args.framing.map_or_else(Framing::ndjson, |f| f.framing());
            return serve_client(
                &args.server,
                &args.dialect,
                &framing,
                args.framing.is_some(),
            );
        }
        Role::Producer => match rpcspec::producer::Profile::named(&args.profile) {
            Ok(profile) => rpcspec::producer::serve(
                &profile,
                args.permission_prompt_tool.as_deref() == Some("stdio"),
                input,
                output,
            ),
            Err(e) => return fail(&e),
        },
    };
    match served {
        Ok(()) => exit::OK,
        // The peer went away: nothing left to answer.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => exit::OK,
        Err(e) => fail(&format!("serve: {e}")),
    }
}

/// The reference client against `server`, or the server `RPCSPEC_SERVER`
/// names (a JSON array of strings), in `framing`.
fn serve_client(
    server: &[OsString],
    dialect: &str,
    framing: &Framing,
    server_framing_given: bool,
) -> u8 {
    use rpcspec::client::SERVER_ENV;
    let mut argv = server.to_vec();
    if argv.is_empty()
        && let Some(json) = std::env::var_os(SERVER_ENV)
    {
        match serde_json::from_str::<Vec<String>>(&json.to_string_lossy()) {
            Ok(v) => argv = v.into_iter().map(OsString::from).collect(),
            Err(e) => {
                return fail(&format!(
                    "${SERVER_ENV} is not a JSON array of strings: {e}"
                ));
            }
        }
    }
    if argv.is_empty() {
        return fail(&format!(
            "serve --role client needs its server: `rpcspec serve --role client CMD ARGS...`, or ${SERVER_ENV}"
        ));
    }
    let Some((descriptor, revision, play)) = rpcspec::dialects::find(dialect)
        .and_then(|(d, revision)| Some((d, revision, d.play.as_ref()?)))
    else {
        return fail(&rpcspec::dialects::unknown(
            dialect,
            |r| r.client,
            "`serve --role client`",
        ));
    };
    let framing = match play.framing {
        Some((own, why)) if server_framing_given && framing.name() != own.name() => {
            return fail(&format!(
                "{why}: `--dialect {}` takes no `--framing {}`",
                descriptor.name,
                framing.name()
            ));
        }
        Some((own, _)) => own.framing(),
        None => framing.clone(),
    };
    match (play.reference)(&argv, &framing, revision, &mut io::stdout().lock()) {
        Ok(code) => u8::try_from(code).unwrap_or(1),
        Err(e) => fail(&format!("serve --role client --dialect {dialect}: {e}")),
    }
}

fn fail(message: &str) -> u8 {
    eprintln!("rpcspec: {message}");
    exit::USAGE
}

/// Writes to stdout; a closed stdout (`| head`) is not an error.
fn emit(text: &str, colour: bool) {
    let result = if colour {
        anstream::stdout().write_all(text.as_bytes())
    } else {
        let plain = anstream::adapter::strip_str(text).to_string();
        io::stdout().write_all(plain.as_bytes())
    };
    if let Err(e) = result
        && e.kind() != io::ErrorKind::BrokenPipe
    {
        eprintln!("rpcspec: cannot write to stdout: {e}");
    }
}

fn list(args: ListArgs) -> u8 {
    // The client role names its own protocols (`Clients::new`).
    if let Some(name) = args.dialect.as_ref().filter(|_| args.role != Role::Client) {
        match mcp_cmd::mcp_pin(name) {
            Ok((base, _)) if rpcspec::dialects::dialect_named(base).is_some() => {}
            Ok((base, _)) => {
                return fail(&rpcspec::dialects::unknown(base, |r| r.server, "`list`"));
            }
            Err(code) => return code,
        }
    }
    let mcp = args.role == Role::Server
        && args
            .dialect
            .as_deref()
            .is_some_and(|d| d == "mcp" || d.starts_with("mcp@"));
    let checks: Vec<&rpcspec::dialects::mcp::suite::Check> = if mcp {
        match compile_filters(&args.filters) {
            Ok(f) => rpcspec::dialects::mcp::suite::CHECKS
                .iter()
                .copied()
                .filter(|c| selected(c.id, &f))
                .collect(),
            Err(e) => return fail(&e),
        }
    } else {
        Vec::new()
    };
    let listings = match args.role {
        Role::Server => list_servers(&servers_listed(mcp), &args),
        Role::Producer => Producers::new(
            &args.profile,
            &[],
            None,
            rpcspec::producer::Limits {
                timeout: Duration::ZERO,
                startup: Duration::ZERO,
            },
            Budget::DEFAULT,
        )
        .map_err(run_cmd::refused)
        .and_then(|r| list_role(&r, &args)),
        Role::Decoder => list_role(&decoders_listed(), &args),
        Role::Client => match args.dialect.as_deref() {
            // One protocol's scenarios, as `run` would play them.
            Some(dialect) => {
                let all = clients_listed();
                Clients::new(dialect, None, &[], all.limits, all.budget, all.peer)
                    .map_err(run_cmd::refused)
                    .and_then(|r| list_role(&r, &args))
            }
            None => list_role(&clients_listed(), &args),
        },
    };
    let listings = match listings {
        Ok(l) => l,
        Err(code) => return code,
    };
    let mut out = String::new();
    for c in &listings {
        match args.format {
            TextFormat::Json => {
                let line = serde_json::json!({
                    "id": c.id, "title": c.title, "section": c.section,
                    "level": c.level, "requires": c.requires,
                    "plans": c.plans,
                    "file": c.file, "line": c.line,
                });
                out.push_str(&line.to_string());
            }
            TextFormat::Human => {
                let requires = if c.requires.is_empty() {
                    String::new()
                } else {
                    format!("  requires: {}", c.requires.join(", "))
                };
                out.push_str(&format!("{}  {}  ({}){requires}", c.id, c.title, c.section));
            }
        }
        out.push('\n');
    }
    mcp_cmd::list_checks(&checks, args.format, &mut out);
    emit(&out, false);
    exit::OK
}

/// The cases of `role` the arguments select, as `list` shows them.
/// The server cases selected, and with `--dialect`, only those that apply
/// in that dialect (in its own framing).
fn list_servers(role: &Servers, args: &ListArgs) -> Result<Vec<Listing>, u8> {
    use rpcspec::role::Role as _;
    let cases = select(role, args.cases.as_deref(), &args.filters).map_err(run_cmd::refused)?;
    let dialect = args
        .dialect
        .as_deref()
        .and_then(rpcspec::dialects::dialect_named);
    let applies = |c: &rpcspec::cases::Case| match &dialect {
        Some((_, handshake)) => {
            let framing = rpcspec::dialects::framing_of(handshake);
            rpcspec::exec::inapplicable(c, handshake, &framing).is_none()
        }
        None => true,
    };
    Ok(cases
        .iter()
        .filter(|c| applies(c))
        .map(|c| role.listing(c))
        .collect())
}

fn list_role<R: rpcspec::role::Role>(role: &R, args: &ListArgs) -> Result<Vec<Listing>, u8> {
    let cases = select(role, args.cases.as_deref(), &args.filters).map_err(run_cmd::refused)?;
    Ok(cases.iter().map(|c| role.listing(c)).collect())
}

// The roles as `list` needs them: which cases they have, not how they run.

fn servers_listed(mcp: bool) -> Servers {
    let opts = RunOptions::default();
    let checks = mcp.then(|| rpcspec::dialects::mcp::suite::Options {
        pinned: None,
        startup: opts.startup,
        timeout: opts.timeout,
        budget: opts.budget,
        calls: Default::default(),
        readiness: opts.readiness.clone(),
    });
    Servers {
        plans: ALL_PLANS.to_vec(),
        opts,
        mcp: checks,
        pinned: None,
        handshake: String::new(),
        filters: Vec::new(),
    }
}

fn decoders_listed() -> Decoders {
    Decoders {
        plans: Vec::new(),
        timeout: Duration::ZERO,
        budget: Budget::DEFAULT,
        fresh: false,
    }
}

fn clients_listed() -> Clients {
    Clients {
        protocol: None,
        framing: Framing::ndjson(),
        limits: rpcspec::client::Limits {
            startup: Duration::ZERO,
            timeout: Duration::ZERO,
        },
        budget: Budget::DEFAULT,
        peer: PathBuf::new(),
    }
}

/// The dialect named on the command line, or exit 2 with the known names.
fn dialect_of(name: &str) -> Result<Dialect, u8> {
    handshake_of(name).map(|(d, _)| d)
}

/// The dialect named on the command line and the name of its handshake.
fn handshake_of(name: &str) -> Result<(Dialect, String), u8> {
    rpcspec::dialects::dialect_named(name)
        .ok_or_else(|| fail(&rpcspec::dialects::unknown(name, |r| r.server, "this role")))
}

/// A clap parser for a duration option within (0, `max_secs`]: `5`, `2.5`,
/// `5s`, `500ms`, `5m`, `2h`.
fn duration_upto(max_secs: f64) -> impl Fn(&str) -> Result<Duration, String> + Clone {
    move |text: &str| rpcspec::target_file::duration(text, max_secs)
}

/// `target`, if it can be started; else one line saying why, and
/// [`exit::CANNOT_START`]: a program that is not there is not a server
/// that fails.
fn startable(target: Target) -> Result<Target, u8> {
    match target.preflight() {
        Ok(()) => Ok(target),
        Err(e) => {
            eprintln!("rpcspec: {e}");
            Err(exit::CANNOT_START)
        }
    }
}
