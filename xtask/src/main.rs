//! Project automation: `cargo xtask <command>`.
//!
//! Plain `std::process::Command`, no shell scripts, so the same steps run the
//! same way on every machine. `cargo xtask ci` is the one command CI runs.

mod bench;
mod cflite;
mod fuzz;
mod matrix;
mod package;
mod test;

use std::{
    env, fs,
    path::{Path, PathBuf},
    process::{Child, Command, ExitCode, Stdio},
    time::{Instant, SystemTime},
};

/// One step of `cargo xtask ci`: a name for the log and the command to run.
struct Step {
    name: &'static str,
    program: &'static str,
    args: &'static [&'static str],
}

/// The steps of `cargo xtask ci`, in order. A new check is one more entry.
const CI_STEPS: &[Step] = &[
    Step {
        name: "fmt",
        program: "cargo",
        args: &["fmt", "--all", "--check"],
    },
    Step {
        name: "clippy",
        program: "cargo",
        args: &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    },
    // `cargo test --workspace`, three test binaries at a time (`test.rs`).
    Step {
        name: "test",
        program: "xtask",
        args: &["test"],
    },
    // Criterion runs each bench once, on 1 MiB workloads, when it is not
    // given `--bench`: the benches compile and run, in the test profile the
    // step before has built (the whole workspace, so that its dependencies
    // are built with the same features and not again). Timing is `cargo
    // xtask bench`'s job, not CI's.
    Step {
        name: "bench smoke",
        program: "cargo",
        args: &["test", "--workspace", "--benches"],
    },
    // The published crates from their .crate files alone: the cases travel
    // inside `rpcspec`, and the installed binary passes its default suites.
    Step {
        name: "package",
        program: "cargo",
        args: &["xtask", "package"],
    },
    Step {
        name: "fuzz smoke",
        program: "cargo",
        // Unoptimised: the build is most of this step (rpcspec whole, for
        // case_loader), and a third as long. Two at a time: one core each.
        args: &["xtask", "fuzz", "--time", "5", "--dev", "--jobs", "2"],
    },
    // After the fuzz smoke step, whose build of fuzz/ it reuses.
    Step {
        name: "cflite build",
        program: "cargo",
        args: &["xtask", "cflite-build"],
    },
];

/// A build a later step needs, started in the background when `ci` starts,
/// at the lowest CPU priority: it takes the cores the steps before leave
/// idle (the test step spends most of its time waiting on targets'
/// deadlines, not computing), and the step named `before` waits for it, then
/// finds its build done. `program` "xtask" is this executable: `cargo xtask`
/// would wait on the lock the running steps hold.
struct Prebuild {
    step: Step,
    before: &'static str,
}

const PREBUILDS: &[Prebuild] = &[
    Prebuild {
        step: Step {
            name: "package build",
            program: "xtask",
            args: &["package", "--build-only"],
        },
        before: "package",
    },
    Prebuild {
        step: Step {
            name: "fuzz build",
            program: "cargo",
            // The flags of the fuzz smoke's `cargo fuzz run` (`xtask fuzz --dev`).
            args: &["fuzz", "build", "-s", "none", "--dev"],
        },
        before: "fuzz smoke",
    },
];

const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  ci      run every check CI runs (fmt, clippy, tests, bench smoke, package, fuzz smoke,
          cflite build),
          stopping at the first failure
  test    the workspace's tests (`cargo test --workspace`), three test binaries at a time,
          never two that keep a core busy
  rules   regenerate docs/rules.md from the rule registry (every role) and docs/mcp.md
  fuzz [TARGET] [--time SECS] [--jobs N] [--asan] [--dev]
          run the cargo-fuzz targets (all, 60 s each by default, N at a time)
  bench [--mib N] [--runs N] [--reuse]
          criterion benches, whole run and memory: the bars of BENCHMARKS.md
  bench --real [--runs N] [--busy] [--only NAME] [--lists DIR]
          one full default run of each real implementation of the 20 s bar, timed,
          its verdicts compared across runs (after `matrix --install`)
  fuzz-bench [--seconds N] [--runs N]
          `rpcspec fuzz` with processes kept against a process per execution, two
          servers, one job: executions per second and their ratio (BENCHMARKS.md)
  fuzz-matrix [--minutes N] [--parallel N] [--only NAME]... [--out DIR]
          `rpcspec fuzz` campaigns against the matrix's real servers (after
          `matrix --install`), N minutes each: the table of docs/fuzzing.md
  fuzz-regress TARGET ARTIFACT NAME
          minimise a crash and keep it as corpus/TARGET/regress-NAME
  cflite-build [--keep]
          run .clusterfuzzlite/build.sh locally (stable, no sanitizer) and check $OUT:
          every fuzz target, its seed corpus zip, each binary run once on its corpus
  package [--publish-dry-run] [--keep]
          package the published crates, install rpcspec from its .crate alone and run
          every role's default suite with it (all PASS); or `cargo publish --dry-run` them
  matrix [--install] [--decoders|--clients|--lsp] [--format md|html|json] [--output FILE]
          install the pinned third-party implementations, or run them all (docs/matrix-results.md);
          --decoders: the real NDJSON decoders (docs/decoders.md)
";

fn main() -> ExitCode {
    let args: Vec<String> = env::args().skip(1).collect();
    let root = workspace_root();
    match args.first().map(String::as_str) {
        Some("ci") => ci(&root),
        Some("rules") => rules(&root),
        Some("fuzz") => fuzz::fuzz(&root, &args[1..]),
        Some("bench") => bench::bench(&root, &args[1..]),
        Some("fuzz-bench") => bench::fuzz_bench(&root, &args[1..]),
        Some("fuzz-matrix") => bench::fuzz_matrix(&root, &args[1..]),
        Some("fuzz-regress") => fuzz::regress(&root, &args[1..]),
        Some("matrix") => matrix::matrix(&root, &args[1..]),
        Some("cflite-build") => cflite::cflite_build(&root, &args[1..]),
        Some("package") => package::package(&root, &args[1..]),
        Some("test") => test::test(&root),
        Some("help" | "--help" | "-h") => {
            print!("{USAGE}");
            ExitCode::SUCCESS
        }
        Some(other) => {
            eprintln!("xtask: unknown command `{other}`\n\n{USAGE}");
            ExitCode::from(2)
        }
        None => {
            eprint!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn ci(root: &Path) -> ExitCode {
    let started = Instant::now();
    let mut background: Vec<Background> = PREBUILDS
        .iter()
        .filter_map(|p| Background::start(root, p))
        .collect();
    for (i, step) in CI_STEPS.iter().enumerate() {
        let line = format!("{} {}", step.program, step.args.join(" "));
        eprintln!("==> [{}/{}] {}: {line}", i + 1, CI_STEPS.len(), step.name);
        let step_started = Instant::now();
        for build in background.iter_mut().filter(|b| b.before == step.name) {
            build.wait();
        }
        let program = match step.program {
            "xtask" => env::current_exe().unwrap_or_else(|_| "xtask".into()),
            other => PathBuf::from(other),
        };
        let status = Command::new(program)
            .args(step.args)
            .current_dir(root)
            .status();
        match status {
            Ok(s) if s.success() => {
                eprintln!("    {} ok ({:.1?})", step.name, step_started.elapsed());
            }
            Ok(s) => {
                eprintln!("xtask ci: step `{}` failed ({s})", step.name);
                return ExitCode::FAILURE;
            }
            Err(e) => {
                eprintln!(
                    "xtask ci: step `{}` could not start `{}`: {e}",
                    step.name, step.program
                );
                return ExitCode::FAILURE;
            }
        }
    }
    eprintln!("==> ci passed in {:.1?}", started.elapsed());
    ExitCode::SUCCESS
}

/// A [`Prebuild`] running, its output in `target/xtask-ci/NAME.log`. It
/// stays in `ci`'s process group, so Ctrl-C stops it with `ci`; a `ci` that
/// stops at a failed step stops it and every process under it.
struct Background {
    name: &'static str,
    before: &'static str,
    child: Option<Child>,
    log: PathBuf,
    began: SystemTime,
}

impl Background {
    /// Starts `prebuild` under `nice -n 19`; `None` (the step builds in the
    /// foreground as it always could) if it cannot be started.
    fn start(root: &Path, prebuild: &Prebuild) -> Option<Background> {
        let step = &prebuild.step;
        let program = match step.program {
            "xtask" => env::current_exe().ok()?,
            other => PathBuf::from(other),
        };
        let dir = root.join("target/xtask-ci");
        fs::create_dir_all(&dir).ok()?;
        let log = dir.join(format!("{}.log", step.name.replace(' ', "-")));
        let began = SystemTime::now();
        let out = fs::File::create(&log).ok()?;
        let err = out.try_clone().ok()?;
        let child = Command::new("nice")
            .args(["-n", "19"])
            .arg(program)
            .args(step.args)
            .current_dir(root)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .ok()?;
        eprintln!(
            "==> started in the background, at the lowest priority: {} ({} {}), for step `{}`",
            step.name,
            step.program,
            step.args.join(" "),
            prebuild.before
        );
        Some(Background {
            name: step.name,
            before: prebuild.before,
            child: Some(child),
            log,
            began,
        })
    }

    /// Waits for the build to end and shows its output. A build that failed
    /// only costs time: the step runs it again in the foreground, and fails
    /// with its own message if it fails again.
    fn wait(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        let waited = Instant::now();
        let status = child.wait();
        eprint!("{}", fs::read_to_string(&self.log).unwrap_or_default());
        let ended = match status {
            Ok(s) if s.success() => "ended".to_owned(),
            Ok(s) => format!("failed ({s}; the step builds again)"),
            Err(e) => format!("could not be waited for ({e}; the step builds again)"),
        };
        // When it ended, as near as the last write to its log tells.
        let took = fs::metadata(&self.log)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|at| at.duration_since(self.began).ok())
            .map_or_else(|| "?".to_owned(), |d| format!("{:.1?}", d));
        eprintln!(
            "    {} (background, log {}) {ended}, {took} after it started; waited {:.1?} for it",
            self.name,
            self.log.display(),
            waited.elapsed()
        );
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            // The compilers under cargo first, then cargo, then the child.
            let mut tree = descendants(child.id());
            tree.reverse();
            tree.push(child.id());
            for pid in tree {
                let _ = Command::new("kill")
                    .args(["-TERM", &pid.to_string()])
                    .stderr(Stdio::null())
                    .status();
            }
            let _ = child.wait();
        }
    }
}

/// Every process under `pid`, parents before children, from `/proc` (none
/// where there is no `/proc`: then only the child itself is stopped).
fn descendants(pid: u32) -> Vec<u32> {
    let mut parent_of = Vec::new();
    for entry in fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(p) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        // `pid (comm) state ppid …`; comm may hold spaces and parentheses.
        let Ok(stat) = fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u32>().ok());
        if let Some(ppid) = ppid {
            parent_of.push((p, ppid));
        }
    }
    let mut tree = vec![pid];
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        tree.extend(
            parent_of
                .iter()
                .filter(|(_, pp)| *pp == parent)
                .map(|(p, _)| *p),
        );
        i += 1;
    }
    tree.remove(0);
    tree
}

/// Rewrites `docs/rules.md` by running the test that checks it, in write mode.
fn rules(root: &Path) -> ExitCode {
    let status = Command::new("cargo")
        .args([
            "test",
            "-p",
            "rpcspec",
            "--test",
            "rules",
            "--test",
            "mcp_conformance",
        ])
        .env("UPDATE_RULES", "1")
        .current_dir(root)
        .status();
    match status {
        Ok(s) if s.success() => {
            eprintln!("xtask rules: wrote docs/rules.md, docs/mcp.md and docs/mcp-conformance.md");
            ExitCode::SUCCESS
        }
        Ok(s) => {
            eprintln!("xtask rules: `cargo test` failed ({s})");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("xtask rules: could not start `cargo`: {e}");
            ExitCode::FAILURE
        }
    }
}

fn workspace_root() -> PathBuf {
    // xtask lives one level below the workspace root.
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask has a parent directory")
        .to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A background build that is dropped stops with everything under it.
    #[test]
    fn dropping_a_background_build_stops_its_whole_tree() {
        let child = Command::new("sh")
            .args(["-c", "sleep 60 & sleep 60 & wait"])
            .spawn()
            .expect("sh runs");
        let pid = child.id();
        let mut under = Vec::new();
        for _ in 0..100 {
            under = descendants(pid);
            if under.len() == 2 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert_eq!(under.len(), 2, "the two sleeps under sh: {under:?}");
        drop(Background {
            name: "test",
            before: "none",
            child: Some(child),
            log: PathBuf::new(),
            began: SystemTime::now(),
        });
        // Each gone, or a zombie its parent (now gone too) left to init,
        // within a few seconds of the signal.
        let state = |p: u32| {
            let stat = fs::read_to_string(format!("/proc/{p}/stat")).unwrap_or_default();
            stat.rsplit_once(')')
                .map_or(String::new(), |(_, r)| r.trim_start().to_owned())
        };
        for p in under {
            let mut now = state(p);
            for _ in 0..200 {
                if now.is_empty() || now.starts_with('Z') {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
                now = state(p);
            }
            assert!(
                now.is_empty() || now.starts_with('Z'),
                "{p} lives on: {now}"
            );
        }
    }
}
