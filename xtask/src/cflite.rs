//! `cargo xtask cflite-build`: `.clusterfuzzlite/build.sh` run here, the
//! way the ClusterFuzzLite image runs it, and its output checked.
//!
//! Docker images cannot be pulled on every machine, so this runs the script
//! itself with what the image would give it: `$SRC` holding the source as
//! `$SRC/rpcspec` (a link to this checkout, so the fuzz build is the one
//! `cargo xtask fuzz` caches), an empty `$OUT`, and the engine variables of
//! OSS-Fuzz's environment. `RPCSPEC_CFLITE_LOCAL=1` makes the script build
//! on stable without a sanitizer; everything else is the image's path.
//! Then, for every target of `fuzz/fuzz_targets/`:
//!
//! * `$OUT/<target>` exists, is executable, and its name is one
//!   ClusterFuzzLite accepts (`[A-Za-z0-9_-]`);
//! * `$OUT/<target>_seed_corpus.zip` holds exactly the files of
//!   `corpus/<target>/`;
//! * the binary runs its seed corpus once (`-runs=0` over the unzipped
//!   seeds: libFuzzer executes every input while it starts) and exits 0,
//!   having read as many seeds as the zip holds.

use std::{
    env, fs,
    path::Path,
    process::{Command, ExitCode},
};

const CFLITE_USAGE: &str = "\
usage: cargo xtask cflite-build [--keep]

Runs .clusterfuzzlite/build.sh with $SRC and $OUT in a temporary folder
(stable Rust, no sanitizer) and checks that every fuzz target and its seed
corpus zip landed in $OUT and that each binary runs its corpus once.
--keep   keep the temporary folder and say where it is
";

pub fn cflite_build(root: &Path, args: &[String]) -> ExitCode {
    let mut keep = false;
    for arg in args {
        match arg.as_str() {
            "--keep" => keep = true,
            "-h" | "--help" => {
                print!("{CFLITE_USAGE}");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("xtask cflite-build: unexpected argument `{other}`\n\n{CFLITE_USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let work = env::temp_dir().join(format!("rpcspec-cflite-{}", std::process::id()));
    let result = build_and_check(root, &work);
    if keep || result.is_err() {
        eprintln!(
            "xtask cflite-build: $SRC and $OUT are in {}",
            work.display()
        );
    } else {
        let _ = fs::remove_dir_all(&work);
    }
    match result {
        Ok(lines) => {
            eprintln!("==> cflite-build: $OUT\n    {}", lines.join("\n    "));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("xtask cflite-build: {e}");
            ExitCode::FAILURE
        }
    }
}

fn build_and_check(root: &Path, work: &Path) -> Result<Vec<String>, String> {
    let _ = fs::remove_dir_all(work);
    let src = work.join("src");
    let out = work.join("out");
    for dir in [&src, &out] {
        fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::os::unix::fs::symlink(root, src.join("rpcspec")).map_err(|e| e.to_string())?;
    let script = root.join(".clusterfuzzlite/build.sh");
    let status = Command::new("bash")
        .arg(&script)
        .env("SRC", &src)
        .env("OUT", &out)
        .env("WORK", work)
        .env("FUZZING_ENGINE", "libfuzzer")
        .env("FUZZING_LANGUAGE", "rust")
        .env("SANITIZER", "none")
        .env("ARCHITECTURE", env::consts::ARCH)
        .env("RPCSPEC_CFLITE_LOCAL", "1")
        .current_dir(&src)
        .status()
        .map_err(|e| format!("cannot run bash {}: {e}", script.display()))?;
    if !status.success() {
        return Err(format!("{} failed ({status})", script.display()));
    }

    let mut lines = Vec::new();
    let targets = crate::fuzz::targets(root);
    if targets.is_empty() {
        return Err("no fuzz target in fuzz/fuzz_targets/".to_owned());
    }
    for target in targets {
        if !target
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            return Err(format!(
                "fuzz target `{target}`: ClusterFuzzLite takes only [A-Za-z0-9_-] in names"
            ));
        }
        let binary = out.join(&target);
        let executable = fs::metadata(&binary).is_ok_and(|m| {
            use std::os::unix::fs::PermissionsExt;
            m.is_file() && m.permissions().mode() & 0o111 != 0
        });
        if !executable {
            return Err(format!("{} is missing or not executable", binary.display()));
        }
        let seeds: Vec<String> = file_names(&root.join("corpus").join(&target));
        if seeds.is_empty() {
            return Err(format!("corpus/{target}/ has no seed"));
        }
        let zip = out.join(format!("{target}_seed_corpus.zip"));
        let mut zipped = zip_entries(&zip)?;
        zipped.sort();
        if zipped != seeds {
            return Err(format!(
                "{} holds {zipped:?}, corpus/{target}/ has {seeds:?}",
                zip.display()
            ));
        }
        let unzipped = work.join("seeds").join(&target);
        fs::create_dir_all(&unzipped).map_err(|e| e.to_string())?;
        run_quiet(
            Command::new("unzip")
                .args(["-q", "-o"])
                .arg(&zip)
                .arg("-d")
                .arg(&unzipped),
        )?;
        let ran = Command::new(&binary)
            .arg("-runs=0")
            .arg(&unzipped)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
        let log = String::from_utf8_lossy(&ran.stderr);
        if !ran.status.success() {
            return Err(format!(
                "{target} failed on its seed corpus ({}):\n{log}",
                ran.status
            ));
        }
        // libFuzzer: "INFO: seed corpus: files: N min: …"
        let read = log
            .lines()
            .find_map(|l| l.split("seed corpus: files: ").nth(1))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse::<usize>().ok());
        if read != Some(seeds.len()) {
            return Err(format!(
                "{target} read {read:?} seeds of {}:\n{log}",
                seeds.len()
            ));
        }
        let size = fs::metadata(&binary).map(|m| m.len()).unwrap_or(0);
        lines.push(format!(
            "{target:<18} {:>6.1} MiB, {target}_seed_corpus.zip: {} seeds, each run once",
            size as f64 / (1024.0 * 1024.0),
            seeds.len()
        ));
    }
    Ok(lines)
}

fn file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter(|e| e.path().is_file())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// The names in a zip, as `unzip -Z1` lists them.
fn zip_entries(zip: &Path) -> Result<Vec<String>, String> {
    let out = Command::new("unzip")
        .arg("-Z1")
        .arg(zip)
        .output()
        .map_err(|e| format!("cannot run unzip: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{} is missing or not a zip: {}",
            zip.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect())
}

fn run_quiet(cmd: &mut Command) -> Result<(), String> {
    let line = format!("{cmd:?}");
    let out = cmd
        .output()
        .map_err(|e| format!("cannot start {line}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{line} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}
