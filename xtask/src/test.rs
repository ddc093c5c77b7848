//! `cargo xtask test`: the workspace's tests as `cargo test --workspace`
//! runs them, but three test binaries at a time. Most of the suite's time is
//! spent waiting on deadlines (a scripted peer's, a target that never
//! answers), not on the CPU, and `cargo test` runs its binaries one after
//! the other: 500 s of them took 376 s of CPU on 2 cores. Two binaries
//! that each keep a core busy ([`BUSY`]) never run together: with the
//! third lane, a busy one runs beside two that mostly wait. None runs
//! alone: a verdict that leaned on having the machine to itself was a
//! grader leaning on scheduling, and was fixed (the LSP catch table's
//! hundred requests written in pieces: a case deadline now runs from the
//! last write the target took, not from rpcspec's first).
//!
//! Each binary runs in its package's folder, as `cargo test` runs it, its
//! output held and printed whole once it ends; the doc tests run last.
//! Every binary has [`DEADLINE`]: one that passes it is killed and fails.

use std::{
    io::{BufRead, BufReader, Read},
    path::{Path, PathBuf},
    process::{Command, ExitCode, Stdio},
    sync::{Arc, Condvar, Mutex, mpsc},
    thread,
    time::{Duration, Instant},
};

/// How many binaries run at once: on 2 cores, a third lane fills what
/// the binaries waiting on deadlines leave idle (the whole suite passed
/// with two lanes and two busy loops beside it).
const LANES: usize = 3;

/// The longest one binary may take (the slowest takes under two minutes
/// on 2 cores).
const DEADLINE: Duration = Duration::from_secs(20 * 60);

/// How long a binary's output is read once it ended.
const PIPE_GRACE: Duration = Duration::from_secs(10);

/// The binaries that keep a core busy (CPU time at least their wall
/// time, measured on 2 cores): no two of them run at once.
const BUSY: &[&str] = &[
    "client_self_test",
    "self_test",
    "hostile",
    "decoder_self_test",
    "rpcspec",
    "check",
];

/// How long each of the slowest binaries takes on 2 cores, alone, in
/// seconds, so that the longest start first; any other counts as quick.
const EXPECTED: &[(&str, u32)] = &[
    ("client_self_test", 86),
    ("hostile", 60),
    ("lsp_self_test", 44),
    ("self_test", 42),
    ("sdk_self_test", 40),
    ("client_role", 43),
    ("decoder_self_test", 31),
    ("fuzz", 32),
    ("host_self_test", 23),
    ("mcp_self_test", 20),
    ("acp_self_test", 36),
    ("trust", 18),
    ("rpcspec", 14),
    ("check", 14),
    ("producer_self_test", 12),
    ("dialects", 11),
    ("cli", 11),
    ("matrix", 9),
];

/// One test binary `cargo test --no-run` built.
#[derive(Debug, Clone)]
struct Binary {
    /// Its target's name (`client_self_test`; a library's unit tests go by
    /// the crate's name).
    name: String,
    /// The executable.
    path: PathBuf,
    /// Its package's folder, where it runs.
    dir: PathBuf,
}

impl Binary {
    fn busy(&self) -> bool {
        BUSY.contains(&self.name.as_str())
    }

    fn expected(&self) -> u32 {
        EXPECTED
            .iter()
            .find(|(n, _)| *n == self.name)
            .map_or(0, |(_, s)| *s)
    }
}

/// `cargo xtask test`.
pub fn test(root: &Path) -> ExitCode {
    let started = Instant::now();
    let Some(binaries) = build(root) else {
        return ExitCode::FAILURE;
    };
    let mut failed = run_lanes(binaries, LANES);
    eprintln!("==> doc tests");
    let doc = Command::new("cargo")
        .args(["test", "--workspace", "--doc"])
        .current_dir(root)
        .status();
    if !doc.is_ok_and(|s| s.success()) {
        failed.push("doc tests".to_owned());
    }
    if failed.is_empty() {
        eprintln!("==> every test passed in {:.1?}", started.elapsed());
        ExitCode::SUCCESS
    } else {
        eprintln!("xtask test: failed: {}", failed.join(", "));
        ExitCode::FAILURE
    }
}

/// Builds every test binary of the workspace; `None` if the build failed.
fn build(root: &Path) -> Option<Vec<Binary>> {
    eprintln!("==> building the tests: cargo test --workspace --no-run");
    let mut child = Command::new("cargo")
        .args([
            "test",
            "--workspace",
            "--no-run",
            "--message-format=json-render-diagnostics",
        ])
        .current_dir(root)
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| eprintln!("xtask test: cannot start cargo: {e}"))
        .ok()?;
    let mut binaries = Vec::new();
    for line in BufReader::new(child.stdout.take().expect("piped")).lines() {
        let Ok(line) = line else { break };
        if let Some(b) = artifact(&line) {
            binaries.push(b);
        }
    }
    let status = child.wait().ok()?;
    if !status.success() {
        eprintln!("xtask test: the tests did not build ({status})");
        return None;
    }
    binaries.sort_by(|a, b| b.expected().cmp(&a.expected()).then(a.name.cmp(&b.name)));
    Some(binaries)
}

/// The test binary a line of cargo's JSON messages reports, if it does.
fn artifact(line: &str) -> Option<Binary> {
    let m: serde_json::Value = serde_json::from_str(line).ok()?;
    if m.get("reason")?.as_str()? != "compiler-artifact"
        || !m.pointer("/profile/test")?.as_bool()?
    {
        return None;
    }
    let path = PathBuf::from(m.get("executable")?.as_str()?);
    let dir = Path::new(m.get("manifest_path")?.as_str()?)
        .parent()?
        .to_path_buf();
    let name = m.pointer("/target/name")?.as_str()?.to_owned();
    Some(Binary { name, path, dir })
}

/// What the lanes share: the binaries still to run, how many busy ones
/// run now, and the names of those that failed.
#[derive(Debug, Default)]
struct Lanes {
    queue: Vec<Binary>,
    busy: usize,
    failed: Vec<String>,
}

impl Lanes {
    /// The next binary a lane may start: the longest, unless a busy one
    /// runs already (then the longest that is not busy); `None` when none
    /// may start now.
    fn next(&mut self) -> Option<Binary> {
        let at = self
            .queue
            .iter()
            .position(|b| self.busy == 0 || !b.busy())?;
        let b = self.queue.remove(at);
        self.busy += usize::from(b.busy());
        Some(b)
    }
}

/// Runs `binaries` (longest first), `lanes` at a time, no two busy ones
/// together; the names of those that failed.
fn run_lanes(binaries: Vec<Binary>, lanes: usize) -> Vec<String> {
    let shared = Arc::new((
        Mutex::new(Lanes {
            queue: binaries,
            ..Lanes::default()
        }),
        Condvar::new(),
    ));
    let workers: Vec<_> = (0..lanes)
        .map(|_| {
            let shared = shared.clone();
            thread::spawn(move || {
                let (state, changed) = &*shared;
                loop {
                    let b = {
                        let mut s = state.lock().expect("lanes");
                        loop {
                            if s.queue.is_empty() {
                                return;
                            }
                            if let Some(b) = s.next() {
                                break b;
                            }
                            s = changed.wait(s).expect("lanes");
                        }
                    };
                    let (ok, report) = run_one(&b);
                    let mut s = state.lock().expect("lanes");
                    // Printed whole, under the lock: one binary's at a time.
                    eprint!("{report}");
                    s.busy -= usize::from(b.busy());
                    if !ok {
                        s.failed.push(b.name.clone());
                    }
                    changed.notify_all();
                }
            })
        })
        .collect();
    for w in workers {
        w.join().expect("a lane does not panic");
    }
    let (state, _) = &*shared;
    std::mem::take(&mut state.lock().expect("lanes").failed)
}

/// Runs one binary to its end or [`DEADLINE`]: whether it passed, and what
/// to print of it.
fn run_one(b: &Binary) -> (bool, String) {
    let started = Instant::now();
    let mut report = format!("     Running {} ({})\n", b.name, b.path.display());
    let child = Command::new(&b.path)
        .current_dir(&b.dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            report.push_str(&format!("xtask test: cannot start it: {e}\n"));
            return (false, report);
        }
    };
    // A descendant that kept the binary's stdout or stderr open is not
    // waited for past a few seconds once the binary ended.
    let (tx, rx) = mpsc::channel();
    let pipes = [
        child
            .stdout
            .take()
            .map(|o| Box::new(o) as Box<dyn Read + Send>),
        child
            .stderr
            .take()
            .map(|e| Box::new(e) as Box<dyn Read + Send>),
    ];
    for (i, pipe) in pipes.into_iter().enumerate() {
        let tx = tx.clone();
        thread::spawn(move || {
            let mut text = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut text);
            }
            let _ = tx.send((i, text));
        });
    }
    drop(tx);
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if started.elapsed() > DEADLINE => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => thread::sleep(Duration::from_millis(50)),
            Err(_) => break None,
        }
    };
    let mut texts = [Vec::new(), Vec::new()];
    let until = Instant::now() + PIPE_GRACE;
    for _ in 0..2 {
        match rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
            Ok((i, text)) => texts[i] = text,
            Err(_) => {
                report.push_str("xtask test: its output was still open after it ended\n");
                break;
            }
        }
    }
    for text in texts {
        report.push_str(&String::from_utf8_lossy(&text));
    }
    let took = started.elapsed();
    let ok = status.is_some_and(|s| s.success());
    match status {
        Some(s) if !s.success() => {
            report.push_str(&format!("xtask test: {} failed ({s})\n", b.name))
        }
        None => report.push_str(&format!(
            "xtask test: {} passed its deadline of {DEADLINE:?}: killed\n",
            b.name
        )),
        _ => {}
    }
    report.push_str(&format!("     ({} took {took:.1?})\n", b.name));
    (ok, report)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binary(name: &str) -> Binary {
        Binary {
            name: name.to_owned(),
            path: PathBuf::from(name),
            dir: PathBuf::new(),
        }
    }

    #[test]
    fn two_busy_binaries_never_run_together() {
        let mut lanes = Lanes {
            queue: ["client_self_test", "self_test", "trust", "hostile", "cli"]
                .map(binary)
                .to_vec(),
            ..Lanes::default()
        };
        let first = lanes.next().expect("the longest");
        assert_eq!(first.name, "client_self_test");
        // A busy one runs: the next is the first that is not busy.
        assert_eq!(lanes.next().expect("a quiet one").name, "trust");
        assert_eq!(lanes.next().expect("a quiet one").name, "cli");
        assert!(lanes.next().is_none(), "only busy ones are left");
        lanes.busy -= 1;
        assert_eq!(lanes.next().expect("now").name, "self_test");
        assert!(lanes.next().is_none());
    }

    #[test]
    fn a_test_binary_is_read_from_cargo_s_message() {
        let line = r#"{"reason":"compiler-artifact","package_id":"x","manifest_path":"/w/crates/runner/Cargo.toml","target":{"kind":["test"],"name":"cli"},"profile":{"test":true},"executable":"/w/target/debug/deps/cli-0123"}"#;
        let b = artifact(line).expect("a test binary");
        assert_eq!(b.name, "cli");
        assert_eq!(b.dir, Path::new("/w/crates/runner"));
        assert_eq!(b.path, Path::new("/w/target/debug/deps/cli-0123"));
        let built = line.replace(r#""test":true"#, r#""test":false"#);
        assert!(artifact(&built).is_none(), "not a test build");
        assert!(artifact(r#"{"reason":"build-finished","success":true}"#).is_none());
    }
}
