//! Helpers shared by the runner's integration tests.

/// The peak resident set size of the live process `pid`, in KiB (`VmHWM`
/// in `/proc/PID/status`); 0 once it is gone or where there is no /proc.
pub fn vm_hwm_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Runs `bin ARGS` and returns its peak RSS in KiB (sampled every 5 ms),
/// its exit code and its stdout; it is killed, and the test fails, if it
/// runs past two minutes. (Each test binary compiles this module and uses
/// a part of it.)
#[allow(dead_code)]
pub fn run_measured(bin: &str, args: &[&str]) -> (u64, Option<i32>, String) {
    use std::{
        process::{Command, Stdio},
        time::{Duration, Instant},
    };
    let mut child = Command::new(bin)
        .args(args)
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut out).unwrap();
        out
    });
    let pid = child.id();
    let until = Instant::now() + Duration::from_secs(120);
    let mut peak = 0;
    let status = loop {
        peak = peak.max(vm_hwm_kib(pid));
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > until {
            let _ = child.kill();
            panic!("{bin} {args:?} ran past two minutes");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    (peak, status.code(), reader.join().unwrap())
}

/// The arguments of a quick run in which every case times out (`cat`
/// echoes each request, so no reply ever comes): 13 cases under two plans,
/// half a second each.
#[allow(dead_code)]
pub const CAT_TIMES_OUT: &[&str] = &[
    "--timeout",
    "0.5",
    "--plans",
    "whole,split",
    "--filter",
    "jsonrpc/examples/*",
    "--filter",
    "framing/lines/two-values-on-one-line",
    "--",
    "cat",
];

/// A program rpcspec's start-up check lets through (a file with the exec
/// bit that begins as an ELF binary) but the kernel will not run: every
/// case against it is an ERROR ("Exec format error"), where a missing
/// program ends the run before any case.
#[allow(dead_code)]
pub fn unrunnable() -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("rpcspec-unrunnable");
    if !path.exists() {
        // Written under another name and renamed: tests run in parallel.
        let tmp = path.with_extension(format!("{}", std::process::id()));
        std::fs::write(&tmp, b"\x7fELF\x02\x01\x01not a program").expect("a temporary file");
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        std::fs::rename(&tmp, &path).expect("rename");
    }
    path
}
