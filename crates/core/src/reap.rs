//! No descendant of a target survives its case.
//!
//! A target is spawned in its own process group, and killing the group
//! takes `sh -c` wrappers and their children. A descendant that leaves the
//! group (`setsid()`, `setpgid(0, 0)`, a double-fork daemon) escapes that
//! kill, so on Linux, when a target's case ends ([`end`]):
//!
//! * its whole process tree is killed: every process whose chain of parents
//!   (`/proc/PID/stat`) leads to it, whatever its group or session;
//! * so is every process that carries its mark, the environment variable
//!   [`MARK`] it was spawned with (`/proc/PID/environ`): a daemon whose
//!   parent died is no longer in the tree, but it inherited the mark;
//! * `rpcspec run`, `fuzz` and `check` are child subreapers
//!   ([`become_subreaper`], `PR_SET_CHILD_SUBREAPER`), so such an orphan is
//!   handed to rpcspec rather than to init, and rpcspec reaps what it
//!   killed: no zombie of it stays behind.
//!
//! What escapes: a descendant that clears its environment *and* whose
//! parent died, and every escaped descendant outside Linux (there only the
//! process group is killed). ARCHITECTURE.md says so.

use std::{
    collections::{BTreeMap, BTreeSet},
    sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering},
};

/// The environment variable that marks a target and what it starts.
pub const MARK: &str = "RPCSPEC_TARGET";

/// A new mark for a target about to be spawned, unique on this machine.
pub fn mark() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::SeqCst);
    format!("{}-{n}", std::process::id())
}

/// Makes this process a child subreaper (Linux); `false` where it cannot
/// be one, and then orphans go to init, which reaps them once killed.
pub fn become_subreaper() -> bool {
    #[cfg(target_os = "linux")]
    {
        let me = rustix::process::getpid();
        return rustix::process::set_child_subreaper(Some(me)).is_ok();
    }
    #[allow(unreachable_code)]
    false
}

/// Records that a target got `pid`: Linux hands out pids in increasing
/// order until they wrap around at `pid_max`, so as long as they have not
/// wrapped, a process with a smaller pid than a target's started before it
/// and is none of its descendants. A wrap shows as a target whose pid is
/// under half the last one's (targets spawned at once may be recorded a
/// little out of order).
pub fn spawned(pid: i32) {
    static LAST: AtomicI32 = AtomicI32::new(0);
    if LAST.swap(pid, Ordering::SeqCst) / 2 > pid {
        WRAPPED.store(true, Ordering::SeqCst);
    }
}

/// Pids have wrapped around since the first target: every process is read.
static WRAPPED: AtomicBool = AtomicBool::new(false);

/// Ends the target `root`, spawned with `mark`: kills it, everything below
/// it and everything that carries its mark, and reaps what of that was
/// handed to this process. (`root` itself is reaped by whoever spawned it.)
pub fn end(root: i32, mark: &str) {
    let me = std::process::id() as i32;
    let from = if WRAPPED.load(Ordering::SeqCst) {
        0
    } else {
        root
    };
    let mut killed = BTreeSet::new();
    let mut first: Option<BTreeMap<i32, i32>> = None;
    // A process may fork while its tree is killed: a second look catches
    // what the first missed, when the first found more than the root.
    for _ in 0..2 {
        let parents = parents(from);
        first.get_or_insert_with(|| parents.clone());
        let mut doomed = vec![root];
        doomed.extend(
            parents
                .keys()
                .filter(|&&pid| pid != me && pid != root)
                .filter(|&&pid| marked(pid).as_deref() == Some(mark)),
        );
        let fresh: Vec<i32> = descendants(&parents, &doomed)
            .into_iter()
            .filter(|p| *p != me && !killed.contains(p))
            .collect();
        for &pid in &fresh {
            kill(pid);
            killed.insert(pid);
        }
        if fresh.iter().all(|&p| p == root) {
            break;
        }
    }
    // What was killed below the root is handed to this process once its
    // own parent has died (a wrapper's child, killed with it): it is reaped
    // then, here or, if its parent is still dying, at a later `end`, so
    // that none stays a zombie until rpcspec exits. Each is known by its
    // pid and start time, so that a pid used again is never waited for.
    // A child already dead when the tree was read (the process group was
    // killed first) is this process's already, in the root's group.
    let orphans = first
        .unwrap_or_default()
        .into_iter()
        .filter(|&(pid, parent)| parent == me && pid != root)
        .filter_map(|(pid, _)| Some((pid, stat_of(pid).filter(|s| s.group == root)?.start)));
    let mut pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    pending.extend(
        killed
            .iter()
            .filter(|&&p| p != root)
            .filter_map(|&p| Some((p, stat_of(p)?.start)))
            .chain(orphans),
    );
    let mut dying = killed;
    dying.extend(pending.iter().map(|&(p, _)| p));
    pending.retain(|&(pid, start)| !reap(pid, start, me, &dying));
}

/// Killed processes not reaped yet: pid and start time.
static PENDING: std::sync::Mutex<BTreeSet<(i32, u64)>> = std::sync::Mutex::new(BTreeSet::new());

/// The mark in the environment of `pid`, if it has one.
fn marked(pid: i32) -> Option<String> {
    let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    let prefix = format!("{MARK}=");
    environ
        .split(|b| *b == 0)
        .find_map(|v| v.strip_prefix(prefix.as_bytes()))
        .map(|m| String::from_utf8_lossy(m).into_owned())
}

/// The parent of each live process whose pid is `from` or more, from
/// `/proc` (none elsewhere).
fn parents(from: i32) -> BTreeMap<i32, i32> {
    let mut map = BTreeMap::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return map;
    };
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        if pid < from {
            continue;
        }
        if let Some(parent) = std::fs::read_to_string(entry.path().join("stat"))
            .ok()
            .and_then(|stat| parent_in_stat(&stat))
        {
            map.insert(pid, parent);
        }
    }
    map
}

/// The parent pid in a `/proc/PID/stat` line: the second field after the
/// command, which is in parentheses and may hold any byte.
fn parent_in_stat(stat: &str) -> Option<i32> {
    fields(stat)?.nth(1)?.parse().ok()
}

/// The fields of a `/proc/PID/stat` line after the command: the state
/// (field 3) first.
fn fields(stat: &str) -> Option<std::str::SplitWhitespace<'_>> {
    Some(stat[stat.rfind(')')? + 1..].split_whitespace())
}

/// What `/proc/PID/stat` says of `pid`, zombie or not: its parent, its
/// process group and when it started (fields 4, 5 and 22; clock ticks
/// since boot).
struct Stat {
    parent: i32,
    group: i32,
    start: u64,
}

fn stat_of(pid: i32) -> Option<Stat> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let f: Vec<&str> = fields(&stat)?.collect();
    Some(Stat {
        parent: f.get(1)?.parse().ok()?,
        group: f.get(2)?.parse().ok()?,
        start: f.get(19)?.parse().ok()?,
    })
}

/// `roots` and everything below them in `parents`.
fn descendants(parents: &BTreeMap<i32, i32>, roots: &[i32]) -> Vec<i32> {
    let mut children: BTreeMap<i32, Vec<i32>> = BTreeMap::new();
    for (&pid, &parent) in parents {
        children.entry(parent).or_default().push(pid);
    }
    let mut found = Vec::new();
    let mut todo = roots.to_vec();
    let mut seen = BTreeSet::new();
    while let Some(pid) = todo.pop() {
        if !seen.insert(pid) {
            continue;
        }
        found.push(pid);
        todo.extend(children.get(&pid).into_iter().flatten());
    }
    found
}

fn kill(pid: i32) {
    if let Some(pid) = rustix::process::Pid::from_raw(pid) {
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
    }
}

/// Whether the killed `pid` (started at `start`) is done with: reaped
/// here now that it is this process's child (`me`, a subreaper, gets it
/// when its parent dies), gone, someone else's to reap, or a pid now used
/// by another process. One look, no wait: while it or its parent (among
/// the `dying`) is still dying, it is left for a later call.
fn reap(pid: i32, start: u64, me: i32, dying: &BTreeSet<i32>) -> bool {
    let Some(p) = rustix::process::Pid::from_raw(pid) else {
        return true;
    };
    // Gone, or its pid is another process's now.
    let Some(now) = stat_of(pid).filter(|s| s.start == start) else {
        return true;
    };
    if now.parent == me {
        !matches!(
            rustix::process::waitpid(Some(p), rustix::process::WaitOptions::NOHANG),
            Ok(None)
        )
    } else {
        !dying.contains(&now.parent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parent_is_read_past_a_command_with_spaces_and_parentheses() {
        let stat = "4242 (a (b) c) S 17 4242 4242 0 -1";
        assert_eq!(parent_in_stat(stat), Some(17));
        assert_eq!(parent_in_stat("garbage"), None);
    }

    #[test]
    fn processes_are_read_from_a_pid_on() {
        let me = std::process::id() as i32;
        assert_eq!(
            parents(me).get(&me),
            Some(&(std::os::unix::process::parent_id() as i32))
        );
        assert!(!parents(me + 1).contains_key(&me));
    }

    #[test]
    fn a_tree_is_everything_below_its_roots() {
        let parents = BTreeMap::from([(2, 1), (3, 2), (4, 3), (5, 1), (6, 9)]);
        let mut tree = descendants(&parents, &[2]);
        tree.sort();
        assert_eq!(tree, [2, 3, 4]);
        let mut two = descendants(&parents, &[2, 5]);
        two.sort();
        assert_eq!(two, [2, 3, 4, 5]);
    }
}
