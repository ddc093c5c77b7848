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

// Headless Chromium, for the HTML pages.

#[allow(dead_code)]
pub fn chromium() -> Option<std::path::PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join("chromium"))
            .find(|p| p.is_file())
    });
    on_path.or_else(|| {
        let fixed = std::path::PathBuf::from("/usr/bin/chromium");
        fixed.is_file().then_some(fixed)
    })
}

#[allow(dead_code)]
pub fn headless(chromium: &std::path::Path, profile: &std::path::Path) -> std::process::Command {
    let mut cmd = std::process::Command::new(chromium);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ])
    .arg(format!("--user-data-dir={}", profile.display()));
    cmd
}

/// Chromium, or `None` (and the test says it did not render) where it is
/// not installed; `RPCSPEC_REQUIRE_CHROMIUM=1` (CI) makes that a failure.
#[allow(dead_code)]
pub fn chromium_for(what: &str) -> Option<std::path::PathBuf> {
    let found = chromium();
    if found.is_none() {
        let required = std::env::var("RPCSPEC_REQUIRE_CHROMIUM").is_ok_and(|v| v == "1");
        assert!(
            !required,
            "chromium not installed but RPCSPEC_REQUIRE_CHROMIUM=1: install Debian's `chromium` package"
        );
        eprintln!("chromium not installed: {what} not rendered");
    }
    found
}

/// The DOM headless Chromium builds from `url`.
#[allow(dead_code)]
pub fn dump_dom(chromium: &std::path::Path, profile: &std::path::Path, url: &str) -> String {
    let dom = headless(chromium, profile)
        .arg("--dump-dom")
        .arg(url)
        .output()
        .unwrap();
    assert!(
        dom.status.success(),
        "{}",
        String::from_utf8_lossy(&dom.stderr)
    );
    String::from_utf8(dom.stdout).unwrap()
}

/// A screenshot of `url` at `size` (`1280,900`) into `png`; its bytes.
#[allow(dead_code)]
pub fn screenshot(
    chromium: &std::path::Path,
    profile: &std::path::Path,
    url: &str,
    png: &std::path::Path,
    size: &str,
) -> Vec<u8> {
    let _ = std::fs::remove_file(png);
    let shot = headless(chromium, profile)
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("--window-size={size}"))
        .arg(url)
        .output()
        .unwrap();
    assert!(
        shot.status.success(),
        "{}",
        String::from_utf8_lossy(&shot.stderr)
    );
    eprintln!("screenshot: {}", png.display());
    std::fs::read(png).unwrap()
}
