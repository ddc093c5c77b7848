//! Project automation: `cargo xtask <command>`.
//!
//! Plain `std::process::Command`, no shell scripts, so the same steps run the
//! same way on every machine. `cargo xtask ci` is the one command CI runs.

mod bench;
mod cflite;
mod fuzz;
mod matrix;
mod package;

use std::{
    env,
    path::{Path, PathBuf},
    process::{Command, ExitCode},
    time::Instant,
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
    Step {
        name: "test",
        program: "cargo",
        args: &["test", "--workspace"],
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
        // case_loader), and a third as long.
        args: &["xtask", "fuzz", "--time", "5", "--dev"],
    },
    // After the fuzz smoke step, whose build of fuzz/ it reuses.
    Step {
        name: "cflite build",
        program: "cargo",
        args: &["xtask", "cflite-build"],
    },
];

const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  ci      run every check CI runs (fmt, clippy, tests, bench smoke, package, fuzz smoke,
          cflite build),
          stopping at the first failure
  rules   regenerate docs/rules.md from the rule registry (every role) and docs/mcp.md
  fuzz [TARGET] [--time SECS] [--asan] [--dev]
          run the cargo-fuzz targets (all, 60 s each by default)
  bench [--mib N] [--runs N] [--reuse]
          criterion benches, whole run and memory: the bars of BENCHMARKS.md
  fuzz-regress TARGET ARTIFACT NAME
          minimise a crash and keep it as corpus/TARGET/regress-NAME
  cflite-build [--keep]
          run .clusterfuzzlite/build.sh locally (stable, no sanitizer) and check $OUT:
          every fuzz target, its seed corpus zip, each binary run once on its corpus
  package [--publish-dry-run] [--keep]
          package the published crates, install rpcspec from its .crate alone and run
          every role's default suite with it (all PASS); or `cargo publish --dry-run` them
  matrix [--install] [--decoders|--clients] [--format md|html|json] [--output FILE]
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
        Some("fuzz-regress") => fuzz::regress(&root, &args[1..]),
        Some("matrix") => matrix::matrix(&root, &args[1..]),
        Some("cflite-build") => cflite::cflite_build(&root, &args[1..]),
        Some("package") => package::package(&root, &args[1..]),
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
    for (i, step) in CI_STEPS.iter().enumerate() {
        let line = format!("{} {}", step.program, step.args.join(" "));
        eprintln!("==> [{}/{}] {}: {line}", i + 1, CI_STEPS.len(), step.name);
        let step_started = Instant::now();
        let status = Command::new(step.program)
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

/// Rewrites `docs/rules.md` by running the test that checks it, in write mode.
fn rules(root: &Path) -> ExitCode {
    let status = Command::new("cargo")
        .args(["test", "-p", "rpcspec", "--test", "rules"])
        .env("UPDATE_RULES", "1")
        .current_dir(root)
        .status();
    match status {
        Ok(s) if s.success() => {
            eprintln!("xtask rules: wrote docs/rules.md and docs/mcp.md");
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
