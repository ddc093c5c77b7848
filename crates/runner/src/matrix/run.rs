//! Running a manifest: this executable once per target, in parallel, each
//! printing a JSON report that [`parse_report`] reads; the `rpcspec
//! matrix` command itself; and one run's own report as a matrix
//! ([`of_report`], `rpcspec run --format html`).

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};

use super::{
    Counts, Error, Format, Input, Manifest, Matrix, MatrixArgs, Run, TargetSpec, exit, html,
    load_manifest, md, merge, parse_report,
};

/// What every run of a matrix shares.
#[derive(Debug, Clone, Default)]
pub struct RunSettings {
    /// `--timeout`, passed on.
    pub timeout: Option<f64>,
    /// `--filter`s, passed on.
    pub filters: Vec<String>,
}

/// The `rpcspec run` arguments for `spec` (after `rpcspec`), with `exe`
/// standing for `{rpcspec}` and relative program paths resolved against
/// `dir`.
pub fn run_argv(
    exe: &Path,
    dir: &Path,
    spec: &TargetSpec,
    settings: &RunSettings,
) -> Vec<OsString> {
    let mut argv: Vec<OsString> = ["run", "--format", "json", "--role", spec.role.as_str()]
        .map(OsString::from)
        .to_vec();
    match spec.role.as_str() {
        "server" | "client" => {
            argv.extend(["--dialect".into(), spec.dialect.clone().into()]);
            if let Some(f) = &spec.framing {
                argv.extend(["--framing".into(), f.into()]);
            }
        }
        "producer" => {
            if let Some(p) = &spec.profile {
                argv.extend(["--profile".into(), p.into()]);
            }
        }
        _ => {}
    }
    for f in &spec.without {
        argv.extend(["--without".into(), f.into()]);
    }
    if let Some(file) = &spec.target_file {
        argv.extend([
            "--target".into(),
            absolute(&dir.join(file)).into_os_string(),
        ]);
    }
    if let Some(t) = settings.timeout {
        argv.extend(["--timeout".into(), t.to_string().into()]);
    }
    for f in &settings.filters {
        argv.extend(["--filter".into(), f.into()]);
    }
    argv.push("--".into());
    for (i, arg) in spec.command.iter().enumerate() {
        let arg = if arg == "{rpcspec}" {
            exe.as_os_str().to_owned()
        } else if i == 0 && arg.contains('/') && Path::new(arg).is_relative() {
            absolute(&dir.join(arg)).into_os_string()
        } else {
            arg.into()
        };
        argv.push(arg);
    }
    argv
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Runs `rpcspec run` (this executable, `exe`) for one target, in `dir`,
/// and parses its report. `Err` says why there is no report.
pub fn run_target(
    exe: &Path,
    dir: &Path,
    spec: &TargetSpec,
    settings: &RunSettings,
) -> Result<Run, String> {
    let output = Command::new(exe)
        .args(run_argv(exe, dir, spec, settings))
        .current_dir(dir)
        .envs(&spec.env)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run `{}`: {e}", exe.display()))?;
    let code = output.status.code();
    if code == Some(i32::from(exit::NO_CASES)) {
        return Err("no case matched the filters".to_owned());
    }
    if !matches!(code, Some(0 | 1)) {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let stderr = stderr.trim();
        return Err(format!(
            "`rpcspec run` {}{}{stderr}",
            match code {
                Some(c) => format!("exited with {c}"),
                None => "was killed".to_owned(),
            },
            if stderr.is_empty() { "" } else { ": " }
        ));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    parse_report(Path::new("<stdout>"), &text).map_err(|e| format!("unreadable report: {e}"))
}

/// Today as `YYYY-MM-DD` (UTC), or the day of `SOURCE_DATE_EPOCH` when set,
/// so a matrix can be reproduced byte for byte.
pub fn today() -> String {
    let secs = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        });
    let (year, month, day) = crate::render::civil_date(secs);
    format!("{year:04}-{month:02}-{day:02}")
}

/// Runs `rpcspec matrix`; returns the exit code: 0 when the matrix was
/// written (failing cells are its content, not an error of the command),
/// 2 for a bad manifest, report or argument.
pub fn command(args: MatrixArgs) -> u8 {
    match build(&args) {
        Ok(matrix) => {
            let text = match args.format {
                Format::Md => md::render(&matrix),
                Format::Html => html::render(&matrix),
                Format::Json => {
                    serde_json::to_string_pretty(&matrix).expect("the matrix serialises") + "\n"
                }
            };
            let written = match &args.output {
                Some(path) => fs::write(path, &text).map_err(|error| Error::Io {
                    path: path.clone(),
                    error,
                }),
                None => {
                    use std::io::Write;
                    match std::io::stdout().write_all(text.as_bytes()) {
                        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Error::Io {
                            path: "<stdout>".into(),
                            error: e,
                        }),
                        _ => Ok(()),
                    }
                }
            };
            match written {
                Ok(()) => exit::OK,
                Err(e) => usage(&e.to_string()),
            }
        }
        Err(code) => code,
    }
}

fn usage(message: &str) -> u8 {
    eprintln!("rpcspec matrix: {message}");
    exit::USAGE
}

fn build(args: &MatrixArgs) -> Result<Matrix, u8> {
    if let Some(t) = args.timeout
        && !(t.is_finite() && t > 0.0)
    {
        return Err(usage("--timeout must be a positive number of seconds"));
    }
    if args.jobs == 0 {
        return Err(usage("--jobs must be at least 1"));
    }
    crate::compile_filters(&args.filters).map_err(|e| usage(&e))?;
    let mut manifest = match &args.manifest {
        Some(path) => Some(load_manifest(path).map_err(|e| usage(&e.to_string()))?),
        None => None,
    };
    if !args.only.is_empty() {
        let Some(m) = manifest.as_mut().filter(|_| args.merge.is_empty()) else {
            return Err(usage(
                "--only picks targets of a MANIFEST to run: not with --merge",
            ));
        };
        if let Some(name) = args
            .only
            .iter()
            .find(|n| !m.targets.iter().any(|t| &t.name == *n))
        {
            let names: Vec<&str> = m.targets.iter().map(|t| t.name.as_str()).collect();
            return Err(usage(&format!(
                "--only {name}: the manifest has no such target (it has {})",
                names.join(", ")
            )));
        }
        m.targets.retain(|t| args.only.contains(&t.name));
    }
    let inputs = if args.merge.is_empty() {
        let manifest = manifest.expect("clap requires MANIFEST without --merge");
        run_manifest(&manifest, args)?
    } else {
        merge_files(manifest.as_ref(), &args.merge)?
    };
    Ok(merge(&today(), &inputs))
}

fn run_manifest(manifest: &Manifest, args: &MatrixArgs) -> Result<Vec<Input>, u8> {
    let exe = std::env::current_exe()
        .map_err(|e| usage(&format!("cannot find the rpcspec executable: {e}")))?;
    let settings = RunSettings {
        timeout: args.timeout,
        filters: args.filters.clone(),
    };
    let total = manifest.targets.len();
    let runs = crate::run_parallel(&manifest.targets, args.jobs, &|_, _| {}, |spec| {
        let started = std::time::Instant::now();
        let run = run_target(&exe, &manifest.dir, spec, &settings);
        let took = started.elapsed().as_secs_f64();
        match &run {
            Ok(r) => {
                let mut c = Counts::default();
                r.results.iter().for_each(|x| c.add(Some(x.verdict)));
                let unrun = c.skipped + c.not_applicable;
                eprintln!(
                    "rpcspec matrix: {}: {} results in {took:.1} s, {} pass, {} not passing, {} not run (skipped or N/A)",
                    spec.name,
                    r.results.len(),
                    c.pass,
                    r.results.len() - c.pass - unrun,
                    unrun
                );
            }
            Err(e) => eprintln!("rpcspec matrix: {}: no report: {e}", spec.name),
        }
        run
    });
    debug_assert_eq!(runs.len(), total);
    Ok(manifest
        .targets
        .iter()
        .zip(runs)
        .map(|(spec, run)| Input {
            name: spec.name.clone(),
            version: spec.version.clone(),
            notes: spec.notes.clone(),
            role: spec.role.clone(),
            run,
        })
        .collect())
}

/// The `--merge` inputs: with a manifest, one per manifest target in its
/// order (matched by file stem; a target without a file gets an error
/// column); without, one per file in the order given.
fn merge_files(manifest: Option<&Manifest>, files: &[PathBuf]) -> Result<Vec<Input>, u8> {
    let mut parsed: Vec<(String, Run)> = Vec::new();
    for file in files {
        let text = fs::read_to_string(file).map_err(|error| {
            usage(
                &Error::Io {
                    path: file.clone(),
                    error,
                }
                .to_string(),
            )
        })?;
        let run = parse_report(file, &text).map_err(|e| usage(&e.to_string()))?;
        let stem = file
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        if parsed.iter().any(|(n, _)| *n == stem) {
            return Err(usage(&format!(
                "{}: a second report named `{stem}` (the file stem names the column)",
                file.display()
            )));
        }
        parsed.push((stem, run));
    }
    let Some(manifest) = manifest else {
        return Ok(parsed
            .into_iter()
            .map(|(name, run)| Input {
                name,
                version: String::new(),
                notes: String::new(),
                role: run.role.clone(),
                run: Ok(run),
            })
            .collect());
    };
    if let Some((stem, _)) = parsed
        .iter()
        .find(|(n, _)| !manifest.targets.iter().any(|t| t.name == *n))
    {
        return Err(usage(&format!(
            "report `{stem}` names no target of the manifest"
        )));
    }
    Ok(manifest
        .targets
        .iter()
        .map(|spec| Input {
            name: spec.name.clone(),
            version: spec.version.clone(),
            notes: spec.notes.clone(),
            role: spec.role.clone(),
            run: parsed
                .iter()
                .find(|(n, _)| *n == spec.name)
                .map(|(_, r)| r.clone())
                .ok_or_else(|| format!("no report given for `{}`", spec.name)),
        })
        .collect())
}

/// At most `max` characters of `text`, saying how many bytes were left
/// out ([`crate::report::head_of`]).
pub(crate) fn clip(text: &str, max: usize) -> String {
    crate::report::head_of(text, max)
}

/// One run as a matrix of one column (`rpcspec run --format html`): its
/// JSON report read back, so a single run and a manifest's runs are one
/// model under one renderer.
pub fn of_report(report: &crate::report::Report) -> Matrix {
    let json = crate::render::json(report);
    let run = parse_report(Path::new("this run"), &json)
        .map_err(|e| format!("the run's own report does not read back: {e}"));
    let input = Input {
        name: report.target.clone(),
        version: String::new(),
        notes: String::new(),
        role: report.role.clone(),
        run,
    };
    Matrix {
        single_run: true,
        ..merge(&today(), &[input])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::parse_manifest;

    #[test]
    fn a_target_s_framing_is_passed_on_to_run() {
        let text = "[[target]]\nname = \"a\"\ncommand = [\"x\", \"{server}\"]\nrole = \"client\"\nframing = \"content-length\"\n\n[[target]]\nname = \"b\"\ncommand = [\"y\"]\n";
        let m = parse_manifest(Path::new("m.toml"), text).unwrap();
        let argv = |i: usize| -> Vec<String> {
            run_argv(
                Path::new("/rpcspec"),
                Path::new("."),
                &m.targets[i],
                &RunSettings::default(),
            )
            .into_iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
        };
        let a = argv(0);
        let at = a.iter().position(|x| x == "--framing").expect("--framing");
        assert_eq!(a[at + 1], "content-length");
        assert!(at < a.iter().position(|x| x == "--").unwrap(), "{a:?}");
        assert!(!argv(1).contains(&"--framing".to_owned()));
    }
}
