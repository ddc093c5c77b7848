//! `cargo xtask package`: the published crates, built and run from their
//! `.crate` files alone.
//!
//! 1. `cargo package` the publishable crates (framer, matcher, core, rpcspec) into
//!    `target/package/`, and check that the `rpcspec` package lists the case
//!    files it embeds (`spec-cases/…`).
//! 2. Unpack each `.crate` into a fresh folder outside the workspace, with a
//!    `.cargo/config.toml` whose `[patch.crates-io]` points the packaged
//!    `rpcspec` at the unpacked framer, matcher and core: what a registry would
//!    serve, nothing from the checkout.
//! 3. `cargo install --path` the unpacked `rpcspec` (debug, for time: the
//!    release profile changes codegen, not what is packaged) and run every
//!    role's default suite (the client role's in JSON-RPC and MCP too)
//!    from that folder, where no `spec-cases/` exists:
//!    at least [`MIN_SERVER_RESULTS`] results for the server role, every one
//!    a PASS; for the producer and decoder roles nothing but PASS and the
//!    SKIPPED of what needs an opt-in (and, for `--dialect mcp`, the N/A
//!    of what the revision has not); exit status 0 for each role.
//!
//! 4. Run the framer's and the matcher's own tests in their unpacked
//!    packages (all features): what they need travels with them.
//!
//! `--build-only` stops after building (steps 1 to 3, and the tests of step
//! 4, built, not run): `cargo xtask ci` runs it in the background while the
//! tests run, and the package step finds the builds done.
//!
//! `--publish-dry-run` runs `cargo publish --dry-run` for the four crates
//! instead (it needs the registry's index, and verifies each in release).

use std::{
    collections::BTreeMap,
    env, fs,
    path::{Path, PathBuf},
    process::{Command, ExitCode},
};

/// The crates users install or embed, in dependency order.
const PUBLISHED: &[&str] = &[
    "rpcspec-framer",
    "rpcspec-matcher",
    "rpcspec-core",
    "rpcspec",
];

/// The server role's default run had 252 results when this check was
/// written; a package that lost a case file falls below it.
const MIN_SERVER_RESULTS: u64 = 252;

const PACKAGE_USAGE: &str = "\
usage: cargo xtask package [--build-only] [--publish-dry-run] [--keep]

Packages rpcspec-framer, rpcspec-matcher, rpcspec-core and rpcspec, installs rpcspec from
the unpacked .crate files alone (outside the workspace), and runs every
role's default suite with it: all PASS, the server role at least 252 results.
--build-only       package, unpack and build (rpcspec, the libraries' tests), run nothing
--publish-dry-run  `cargo publish --dry-run` the four crates instead
--keep             keep the temporary folder and say where it is
";

pub fn package(root: &Path, args: &[String]) -> ExitCode {
    let (mut keep, mut build_only) = (false, false);
    for arg in args {
        match arg.as_str() {
            "--publish-dry-run" => return publish_dry_run(root),
            "--keep" => keep = true,
            "--build-only" => build_only = true,
            "-h" | "--help" => {
                print!("{PACKAGE_USAGE}");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("xtask package: unexpected argument `{other}`\n\n{PACKAGE_USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    match check(root, keep, build_only) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask package: {e}");
            ExitCode::FAILURE
        }
    }
}

fn publish_dry_run(root: &Path) -> ExitCode {
    let mut cmd = Command::new("cargo");
    cmd.args(["publish", "--dry-run", "--allow-dirty"]);
    for name in PUBLISHED {
        cmd.args(["-p", name]);
    }
    match run(cmd.current_dir(root)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask package: {e}");
            ExitCode::FAILURE
        }
    }
}

fn check(root: &Path, keep: bool, build_only: bool) -> Result<(), String> {
    let version = workspace_version(root)?;
    let mut cmd = Command::new("cargo");
    // `--no-verify`: step 3 builds the unpacked crates, as a user would.
    cmd.args(["package", "--no-verify", "--allow-dirty"]);
    for name in PUBLISHED {
        cmd.args(["-p", name]);
    }
    run(cmd.current_dir(root))?;

    let work = temp_dir()?;
    let result = install_and_run(root, &work, &version, build_only);
    if keep || result.is_err() {
        eprintln!(
            "xtask package: the unpacked crates are in {}",
            work.display()
        );
    } else {
        let _ = fs::remove_dir_all(&work);
    }
    result
}

fn install_and_run(
    root: &Path,
    work: &Path,
    version: &str,
    build_only: bool,
) -> Result<(), String> {
    let runner = unpack(root, work, version)?;
    let rpcspec = install(root, work, &runner)?;
    test_libraries(root, work, version, build_only)?;
    if build_only {
        return Ok(());
    }
    for (role, args) in RUNS {
        run_role(&rpcspec, work, role, args)?;
    }
    Ok(())
}

/// Unpacks the packaged crates into `work`, each patched in for its
/// crates.io name; the rpcspec package's folder, which must carry the
/// case files.
fn unpack(root: &Path, work: &Path, version: &str) -> Result<PathBuf, String> {
    let packages = root.join("target/package");
    let mut patch = String::from("[patch.crates-io]\n");
    for name in PUBLISHED {
        let file = packages.join(format!("{name}-{version}.crate"));
        run(Command::new("tar")
            .arg("-xzf")
            .arg(&file)
            .arg("-C")
            .arg(work))?;
        patch.push_str(&format!("{name} = {{ path = \"{name}-{version}\" }}\n"));
    }
    let runner = work.join(format!("rpcspec-{version}"));
    let cases = list_files(&runner.join("spec-cases"));
    if !cases.iter().any(|f| f.ends_with(".toml")) {
        return Err(format!(
            "the rpcspec package has no case file under spec-cases/ ({} files there)",
            cases.len()
        ));
    }
    eprintln!(
        "    the rpcspec package carries {} files under spec-cases/",
        cases.len()
    );
    fs::create_dir_all(work.join(".cargo")).map_err(|e| e.to_string())?;
    fs::write(work.join(".cargo/config.toml"), patch).map_err(|e| e.to_string())?;
    Ok(runner)
}

/// Installs the unpacked rpcspec under `work`; the binary's path.
fn install(root: &Path, work: &Path, runner: &Path) -> Result<PathBuf, String> {
    let bin_root = work.join("install");
    // The build is cached in the workspace's target folder between local
    // runs; CI builds it once.
    // No debug info: the packaged crates carry no profile of their own,
    // and full debug info would make this build and its links the slowest
    // part of the step.
    run(Command::new("cargo")
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .args(["install", "--debug", "--quiet", "--path"])
        .arg(runner)
        .arg("--root")
        .arg(&bin_root)
        .arg("--target-dir")
        .arg(root.join("target/package-install"))
        .current_dir(work))?;
    Ok(bin_root.join("bin/rpcspec"))
}

/// The libraries' own tests, from their packages: nothing they need is
/// left behind in the checkout. With `build_only`, only built.
fn test_libraries(root: &Path, work: &Path, version: &str, build_only: bool) -> Result<(), String> {
    for name in &PUBLISHED[..2] {
        // The properties at 100 cases each: here they prove the tests run
        // from the package; `cargo test` runs them 2000 times.
        let mut test = Command::new("cargo");
        test.env("CARGO_PROFILE_DEV_DEBUG", "false")
            .env("RPCSPEC_PROPTEST_CASES", "100")
            .args(["test", "--quiet", "--all-features", "--target-dir"])
            .arg(root.join("target/package-install"))
            .current_dir(work.join(format!("{name}-{version}")));
        if build_only {
            test.arg("--no-run");
        }
        run(&mut test)?;
    }
    Ok(())
}

/// The runs of the installed binary: a role, and its arguments.
const RUNS: &[(&str, &[&str])] = &[
    ("server", &["run", "--format", "json"]),
    (
        "producer",
        &["run", "--role", "producer", "--format", "json"],
    ),
    ("decoder", &["run", "--role", "decoder", "--format", "json"]),
    // The MCP checks, with the vendored schemas inside the package.
    ("mcp", &["run", "--dialect", "mcp", "--format", "json"]),
    // The client role: the installed binary is its own peer.
    ("client", &["run", "--role", "client", "--format", "json"]),
    (
        "mcp client",
        &[
            "run",
            "--role",
            "client",
            "--dialect",
            "mcp",
            "--format",
            "json",
        ],
    ),
];

/// Runs the installed rpcspec in `role` with `args`: it must pass.
fn run_role(rpcspec: &Path, work: &Path, role: &str, args: &[&str]) -> Result<(), String> {
    let out = Command::new(rpcspec)
        .args(args)
        .current_dir(work)
        .output()
        .map_err(|e| format!("cannot start {}: {e}", rpcspec.display()))?;
    let report = String::from_utf8_lossy(&out.stdout);
    let verdicts = count(&report)?;
    let results: u64 = verdicts.values().sum();
    let passed = verdicts.get("PASS").copied().unwrap_or(0);
    eprintln!("    installed rpcspec, {role} role: {results} results, {verdicts:?}");
    // The server role passes everything; the stream roles' defaults
    // skip what needs an opt-in (the producer's control requests).
    let wrong = verdicts
        .keys()
        .any(|v| !matches!(v.as_str(), "PASS" | "SKIPPED" | "N/A"));
    if !out.status.success() || wrong || passed == 0 || (role == "server" && passed != results) {
        return Err(format!(
            "the installed rpcspec's {role} run did not pass ({}): {verdicts:?}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    if role == "server" && results < MIN_SERVER_RESULTS {
        return Err(format!(
            "the installed rpcspec's server run has {results} results, fewer than \
             {MIN_SERVER_RESULTS}: case files are missing from the package"
        ));
    }
    Ok(())
}

/// How many results of an NDJSON report have each verdict.
fn count(report: &str) -> Result<BTreeMap<String, u64>, String> {
    let mut verdicts = BTreeMap::new();
    for line in report.lines() {
        let event: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("report line {line:?}: {e}"))?;
        if event["type"] == "result" {
            let verdict = event["data"]["verdict"].as_str().unwrap_or("?").to_owned();
            *verdicts.entry(verdict).or_insert(0) += 1;
        }
    }
    Ok(verdicts)
}

fn list_files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(list_files(&path));
        } else {
            out.push(path.to_string_lossy().into_owned());
        }
    }
    out
}

/// The workspace's `version`, which every published crate inherits.
fn workspace_version(root: &Path) -> Result<String, String> {
    let text = fs::read_to_string(root.join("Cargo.toml")).map_err(|e| e.to_string())?;
    text.lines()
        .find_map(|l| l.strip_prefix("version = \""))
        .and_then(|rest| rest.strip_suffix('"'))
        .map(str::to_owned)
        .ok_or_else(|| "no `version = \"…\"` in the workspace's Cargo.toml".to_owned())
}

/// A new folder under the system's temporary folder: outside the
/// workspace, so nothing of the checkout is found by walking up. Always the
/// same one: the builds cached in `target/package-install` bake the
/// crates' paths in (`CARGO_MANIFEST_DIR` in the framer's tests), so a
/// folder of another name would run tests that look for their fixtures in
/// a folder long gone. One check at a time.
fn temp_dir() -> Result<PathBuf, String> {
    let dir = env::temp_dir().join("rpcspec-package-check");
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir)
}

fn run(cmd: &mut Command) -> Result<(), String> {
    let line = format!("{cmd:?}");
    eprintln!("    $ {line}");
    match cmd.status() {
        Ok(s) if s.success() => Ok(()),
        Ok(s) => Err(format!("{line} failed ({s})")),
        Err(e) => Err(format!("cannot start {line}: {e}")),
    }
}
