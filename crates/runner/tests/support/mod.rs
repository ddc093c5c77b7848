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
