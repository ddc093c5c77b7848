//! `cargo xtask fuzz` and `cargo xtask fuzz-regress`.

use std::{
    fs,
    path::{Path, PathBuf},
    process::{Command, ExitCode, Stdio},
    time::Instant,
};

const FUZZ_USAGE: &str = "\
usage: cargo xtask fuzz [TARGET] [--time SECS] [--jobs N] [--asan] [--dev]

Runs one fuzz target, or all of them in turn, for SECS seconds each
(default 60), N at a time (default 1). Stable, no sanitizer, unless --asan: then the nightly
toolchain with AddressSanitizer. --dev builds without optimisation: a
third of the build time, a fraction of the executions (CI's smoke, whose
build `cargo xtask cflite-build` reuses). Seeds come from corpus/TARGET (read only);
new inputs go to fuzz/corpus/TARGET, crashes to fuzz/artifacts/TARGET.
";

/// The fuzz targets: the files of `fuzz/fuzz_targets/`.
pub fn targets(root: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(root.join("fuzz/fuzz_targets"))
        .map(|dir| {
            dir.filter_map(|e| e.ok())
                .filter_map(|e| {
                    let path = e.path();
                    if path.extension()? != "rs" {
                        return None;
                    }
                    Some(path.file_stem()?.to_string_lossy().into_owned())
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

fn has_cargo_fuzz() -> bool {
    Command::new("cargo")
        .args(["fuzz", "--version"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn has_nightly() -> bool {
    Command::new("rustup")
        .args(["run", "nightly", "rustc", "--version"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

pub fn fuzz(root: &Path, args: &[String]) -> ExitCode {
    let mut time = 60u64;
    let mut asan = false;
    let mut dev = false;
    let mut jobs = 1usize;
    let mut only = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--time" => match it.next().and_then(|t| t.parse().ok()) {
                Some(t) => time = t,
                None => return usage("--time needs a number of seconds"),
            },
            "--jobs" => match it.next().and_then(|t| t.parse().ok()) {
                Some(n) => jobs = n,
                None => return usage("--jobs needs a number"),
            },
            "--asan" => asan = true,
            "--dev" => dev = true,
            "-h" | "--help" => {
                print!("{FUZZ_USAGE}");
                return ExitCode::SUCCESS;
            }
            name if !name.starts_with('-') && only.is_none() => only = Some(name.to_owned()),
            other => return usage(&format!("unexpected argument `{other}`")),
        }
    }
    let all = targets(root);
    let chosen: Vec<String> = match only {
        Some(name) if all.contains(&name) => vec![name],
        Some(name) => {
            return usage(&format!(
                "no fuzz target `{name}` (targets: {})",
                all.join(", ")
            ));
        }
        None => all,
    };
    if !has_cargo_fuzz() {
        eprintln!("xtask fuzz: cargo-fuzz is not installed: cargo install cargo-fuzz --locked");
        return ExitCode::FAILURE;
    }
    if asan && !has_nightly() {
        eprintln!(
            "xtask fuzz: --asan needs the nightly toolchain, which is not installed \
             (rustup toolchain install nightly); run without --asan for stable, no sanitizer"
        );
        return ExitCode::FAILURE;
    }
    let how = Fuzz {
        root,
        time,
        asan,
        dev,
    };
    let mut summary = Vec::new();
    // `jobs` targets at once: each fuzzer keeps one core busy.
    for group in chosen.chunks(jobs.max(1)) {
        let results: Vec<Result<String, String>> = std::thread::scope(|s| {
            let runs: Vec<_> = group
                .iter()
                .map(|target| s.spawn(|| how.run(target)))
                .collect();
            runs.into_iter()
                .map(|r| {
                    r.join()
                        .unwrap_or_else(|_| Err("a fuzz run panicked".into()))
                })
                .collect()
        });
        let mut failed = false;
        for result in results {
            match result {
                Ok(line) => {
                    eprintln!("    {line}");
                    summary.push(line);
                }
                Err(e) => {
                    eprintln!("{e}");
                    failed = true;
                }
            }
        }
        if failed {
            return ExitCode::FAILURE;
        }
    }
    eprintln!("==> fuzz summary\n    {}", summary.join("\n    "));
    ExitCode::SUCCESS
}

/// How `cargo xtask fuzz` runs each target.
struct Fuzz<'a> {
    root: &'a Path,
    time: u64,
    asan: bool,
    dev: bool,
}

impl Fuzz<'_> {
    /// Fuzzes `target` for the time given: its summary line, or what to
    /// print when it failed.
    fn run(&self, target: &str) -> Result<String, String> {
        let (root, time) = (self.root, self.time);
        let work = root.join("fuzz/corpus").join(target);
        fs::create_dir_all(&work)
            .map_err(|e| format!("xtask fuzz: cannot create {}: {e}", work.display()))?;
        let seeds = root.join("corpus").join(target);
        let mut cmd = Command::new("cargo");
        if self.asan {
            // A separate target dir: cargo caches a failed `-Z` probe made
            // on stable in target/.rustc_info.json.
            cmd.args([
                "+nightly",
                "fuzz",
                "run",
                "--target-dir",
                "fuzz/target-nightly",
            ]);
        } else {
            cmd.args(["fuzz", "run", "-s", "none"]);
        }
        if self.dev {
            cmd.arg("--dev");
        }
        cmd.arg(target)
            .arg(&work)
            .arg(&seeds)
            .arg("--")
            .arg(format!("-max_total_time={time}"))
            .arg("-print_final_stats=1")
            .current_dir(root)
            .stderr(Stdio::piped());
        eprintln!(
            "==> fuzz {target} for {time}s ({})",
            if self.asan {
                "nightly, AddressSanitizer"
            } else {
                "stable, no sanitizer"
            }
        );
        let started = Instant::now();
        let output = cmd
            .output()
            .map_err(|e| format!("xtask fuzz: cannot run cargo fuzz: {e}"))?;
        let log = String::from_utf8_lossy(&output.stderr);
        let runs = stat(&log, "stat::number_of_executed_units:");
        let secs = started.elapsed().as_secs_f64();
        if !output.status.success() {
            return Err(format!(
                "{log}\nxtask fuzz: {target} found a failing input (see fuzz/artifacts/{target}/); \
                 keep it with: cargo xtask fuzz-regress {target} <artifact> <name>"
            ));
        }
        Ok(format!(
            "{target:<18} {runs:>10} runs in {secs:>5.0}s, {:>8.0} exec/s, no failure",
            runs as f64 / (time as f64).max(1.0)
        ))
    }
}

fn stat(log: &str, key: &str) -> u64 {
    log.lines()
        .filter_map(|l| l.trim().strip_prefix(key))
        .filter_map(|v| v.trim().parse().ok())
        .next_back()
        .unwrap_or(0)
}

fn usage(message: &str) -> ExitCode {
    eprintln!("xtask fuzz: {message}\n\n{FUZZ_USAGE}");
    ExitCode::from(2)
}

/// Minimises a crash and keeps it as `corpus/TARGET/regress-NAME`.
pub fn regress(root: &Path, args: &[String]) -> ExitCode {
    let [target, artifact, name] = args else {
        eprintln!("usage: cargo xtask fuzz-regress TARGET ARTIFACT NAME");
        return ExitCode::from(2);
    };
    if !targets(root).contains(target) {
        eprintln!("xtask fuzz-regress: no fuzz target `{target}`");
        return ExitCode::from(2);
    }
    let artifact = PathBuf::from(artifact);
    let status = Command::new("cargo")
        .args(["fuzz", "tmin", "-s", "none", target])
        .arg(&artifact)
        .args(["--", "-runs=5000"])
        .current_dir(root)
        .status();
    if !status.is_ok_and(|s| s.success()) {
        eprintln!("xtask fuzz-regress: cargo fuzz tmin failed");
        return ExitCode::FAILURE;
    }
    // tmin writes minimized-from-<hash> beside the artifacts.
    let dir = root.join("fuzz/artifacts").join(target);
    let newest = fs::read_dir(&dir).ok().and_then(|d| {
        d.filter_map(|e| e.ok())
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with("minimized-from-")
            })
            .max_by_key(|e| e.metadata().and_then(|m| m.modified()).ok())
    });
    let Some(min) = newest else {
        eprintln!(
            "xtask fuzz-regress: no minimized input in {}",
            dir.display()
        );
        return ExitCode::FAILURE;
    };
    let dest = root
        .join("corpus")
        .join(target)
        .join(format!("regress-{name}"));
    if let Err(e) = fs::copy(min.path(), &dest) {
        eprintln!("xtask fuzz-regress: cannot copy to {}: {e}", dest.display());
        return ExitCode::FAILURE;
    }
    eprintln!(
        "kept {}\nnow add (\"{target}/regress-{name}\", \"<root cause>\") to REGRESSIONS in \
         crates/oracles/tests/corpus.rs; `cargo test -p rpcspec-oracles` replays it",
        dest.display()
    );
    ExitCode::SUCCESS
}
