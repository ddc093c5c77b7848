//! Driving a target process: spawn it in its own process group, write with a
//! writer thread, read stdout and stderr with a thread each, and hand
//! everything to the case thread over one channel, timestamped. Writes
//! without a pause, while the writer thread has nothing queued, are
//! written by the case thread itself, without blocking ([`Running::write`]):
//! a round trip then wakes one thread fewer.
//!
//! Nothing here waits without a deadline, and a kill takes the whole process
//! group, so `sh -c`, `npx` or `uv run` wrappers cannot keep a pipe open.
//! When a target is dropped, [`crate::reap::end`] also kills what left the
//! group (`setsid`, daemons). A descendant that survives anyway (outside
//! Linux) and keeps the pipes open leaves its reader threads waiting; the
//! case thread does not wait for them, so the run still finishes.

use std::{
    collections::VecDeque,
    ffi::OsString,
    fs::File,
    io::{self, Read, Write as _},
    os::{
        fd::AsFd,
        unix::{
            ffi::OsStrExt,
            process::{CommandExt, ExitStatusExt},
        },
    },
    path::{Path, PathBuf},
    process::{Child, ChildStdin, Command, ExitStatus, Stdio},
    sync::{
        Arc, Mutex, RwLock,
        atomic::{AtomicU64, AtomicUsize, Ordering},
        mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender},
    },
    thread,
    time::{Duration, Instant},
};

use crate::plan::{DRAIN, Write};

/// The program under test, as argv (never through a shell).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// argv[0] and the rest.
    pub argv: Vec<OsString>,
}

impl Target {
    /// How the target is shown in reports.
    pub fn display(&self) -> String {
        self.argv
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Why a target cannot start, found before it is run ([`Target::preflight`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CannotStart {
    /// The program as given.
    pub program: String,
    /// Why, in a few words, with a hint where one helps.
    pub why: String,
}

impl std::fmt::Display for CannotStart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot start `{}`: {}", self.program, self.why)
    }
}

impl Target {
    /// Whether the program can be started, looked up as the spawn would
    /// (a name without `/` on `$PATH`, like `execvp`), without starting it:
    /// it exists, is a file, may be executed, and a script's `#!`
    /// interpreter exists too (`/usr/bin/env NAME` looks NAME up). A
    /// target that passes may still fail at its spawn (an unknown binary
    /// format), which each role reports as ERROR.
    pub fn preflight(&self) -> Result<(), CannotStart> {
        let Some(program) = self.argv.first() else {
            return Err(CannotStart {
                program: String::new(),
                why: "no command given".to_owned(),
            });
        };
        let fail = |why: String| CannotStart {
            program: program.to_string_lossy().into_owned(),
            why,
        };
        let path = resolve(Path::new(program)).map_err(fail)?;
        interpreter(&path).map_err(|why| {
            fail(if path.as_os_str() == program {
                why
            } else {
                format!("{} ({why})", path.display())
            })
        })
    }
}

/// Where `program` is: itself when it names a path, else the first
/// executable file of that name on `$PATH`.
fn resolve(program: &Path) -> Result<PathBuf, String> {
    if program.as_os_str().is_empty() {
        return Err("an empty program name".to_owned());
    }
    if program.as_os_str().as_bytes().contains(&b'/') {
        return executable(program).map(|()| program.to_path_buf());
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut last = None;
    for dir in std::env::split_paths(&path) {
        let candidate = dir.join(program);
        match executable(&candidate) {
            Ok(()) => return Ok(candidate),
            // A file that is there but may not be run says more than the
            // folders without it.
            Err(why) if candidate.exists() => {
                last = Some(format!("{}: {why}", candidate.display()))
            }
            Err(_) => {}
        }
    }
    let name = program.to_string_lossy();
    let hint = match &*name {
        "npx" | "node" | "npm" => " (is Node.js installed?)",
        "python" | "python3" | "uv" | "uvx" | "pip" => {
            " (is Python installed, or is it in a virtualenv that is not active?)"
        }
        "cargo" => " (is Rust installed?)",
        _ => "",
    };
    Err(last.unwrap_or_else(|| format!("not found on $PATH{hint}")))
}

/// Whether `path` is a file this process may execute.
fn executable(path: &Path) -> Result<(), String> {
    let meta = std::fs::metadata(path).map_err(|e| io_why(&e))?;
    if meta.is_dir() {
        return Err("is a folder".to_owned());
    }
    let mode = rustix::fs::Access::EXEC_OK;
    rustix::fs::access(path, mode).map_err(|e| match io::Error::from(e) {
        e if e.kind() == io::ErrorKind::PermissionDenied => {
            "not executable (no exec permission: `chmod +x` it, or name its interpreter first)"
                .to_owned()
        }
        e => io_why(&e),
    })
}

/// An I/O error in a few words: `No such file or directory`, without the
/// `(os error 2)` std adds.
fn io_why(e: &io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(at) => text[..at].to_owned(),
        None => text,
    }
}

/// Whether a script's `#!` interpreter exists (a binary has none).
fn interpreter(path: &Path) -> Result<(), String> {
    let mut head = [0u8; 256];
    let n = File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .unwrap_or(0);
    let Some(line) = head[..n].strip_prefix(b"#!") else {
        return Ok(());
    };
    let line = line.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    let mut words = line.split_whitespace();
    let Some(program) = words.next() else {
        return Ok(());
    };
    let program = Path::new(program);
    executable(program).map_err(|why| format!("its interpreter {}: {why}", program.display()))?;
    // `#!/usr/bin/env NAME`: NAME on $PATH (`env -S` and options aside).
    if program.file_name().is_some_and(|n| n == "env")
        && let Some(name) = words.next().filter(|w| !w.starts_with('-'))
    {
        resolve(Path::new(name)).map_err(|why| format!("its interpreter `{name}`: {why}"))?;
    }
    Ok(())
}

/// Something that happened in or to the target.
#[derive(Debug)]
pub enum Msg {
    /// Bytes from the target's stdout.
    Stdout(Vec<u8>),
    /// The target closed stdout (or reading it failed).
    StdoutClosed,
    /// A batch of writes finished.
    Wrote,
    /// A write failed (typically EPIPE: the target closed its stdin).
    WriteFailed(String),
    /// The process exited.
    Exited(ExitStatus),
}

/// Where the writer thread is told what to do.
enum WriterCommand {
    /// The writes, and whether their end is reported ([`Msg::Wrote`]; a
    /// failure always is).
    Write(Vec<Write>, bool),
    /// Write the path to stdin, then the writes into the named pipe there
    /// once the target has opened it (within the duration), then close it.
    Stream(PathBuf, Vec<Write>, Duration),
    Close,
}

/// Most events queued for the case thread: with reads of at most 64 KiB,
/// 1 MiB of stdout in flight.
const EVENTS_IN_FLIGHT: usize = 16;

/// Most of stderr kept for the report: the last this many bytes.
const STDERR_TAIL: usize = 16 * 1024;

/// How long after a target's exit its stderr may take to end before the
/// exit is reported without the rest of it.
const STDERR_AFTER_EXIT: Duration = Duration::from_millis(100);

/// The target's stdin, shared by the writer thread and the case thread.
struct Stdin {
    /// The pipe, until it is closed; locked by whoever writes.
    pipe: Mutex<Option<ChildStdin>>,
    /// Commands sent to the writer thread and not yet carried out.
    queued: AtomicUsize,
    /// When the target last took a write ([`Running::taken`]): nanoseconds
    /// since `started`, plus one; 0 for never.
    taken: AtomicU64,
    started: Instant,
}

impl Stdin {
    /// The target took what was written so far.
    fn took(&self) {
        let at = self
            .started
            .elapsed()
            .as_nanos()
            .min(u128::from(u64::MAX - 1)) as u64;
        self.taken.fetch_max(at + 1, Ordering::AcqRel);
    }
}

/// Held for reading while a target is spawned, and for writing while a
/// file a target may execute is open for writing ([`write_executable`]): a
/// child forked in between would hold that file open until its own exec,
/// and whoever executes the file then fails with ETXTBSY ("Text file
/// busy"). A spawn returns once its child has exec'd.
static SPAWNING: RwLock<()> = RwLock::new(());

/// Creates `path` (it must not exist), executable by this user alone,
/// holding `text`; no target spawned meanwhile holds it open.
pub fn write_executable(path: &Path, text: &[u8]) -> io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let _alone = SPAWNING.write().unwrap_or_else(|e| e.into_inner());
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o700)
        .open(path)?;
    f.write_all(text)
}

/// A running target.
pub struct Running {
    pid: rustix::process::Pid,
    writer: Option<Sender<WriterCommand>>,
    stdin: Arc<Stdin>,
    events: Receiver<Msg>,
    /// What the case thread's own writes reported, handed out first.
    wrote: Mutex<VecDeque<Msg>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    started: Instant,
    killed: bool,
    /// The mark it and its descendants carry (see [`crate::reap`]).
    mark: String,
}

impl Running {
    /// Spawns `target` with piped stdio in a new process group.
    pub fn spawn(target: &Target) -> io::Result<Running> {
        Running::spawn_with(target, &[])
    }

    /// [`Running::spawn`], with `env` added to the target's environment.
    pub fn spawn_with(target: &Target, env: &[(&str, &str)]) -> io::Result<Running> {
        let (program, args) = target
            .argv
            .split_first()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "empty command"))?;
        let mark = crate::reap::mark();
        let spawning = SPAWNING.read().unwrap_or_else(|e| e.into_inner());
        let mut child: Child = Command::new(program)
            .args(args)
            .env(crate::reap::MARK, &mark)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()?;
        drop(spawning);
        let pid = rustix::process::Pid::from_child(&child);
        crate::reap::spawned(pid.as_raw_nonzero().get());
        let started = Instant::now();
        // Bounded: a target that writes faster than its case reads waits
        // for the case (its pipe fills), instead of rpcspec holding every
        // read in memory (a decoder case kept 24 GB of `yes` this way).
        let (tx, events) = mpsc::sync_channel(EVENTS_IN_FLIGHT);

        let stdin = Arc::new(Stdin {
            pipe: Mutex::new(child.stdin.take()),
            queued: AtomicUsize::new(0),
            taken: AtomicU64::new(0),
            started,
        });
        let (writer, commands) = mpsc::channel();
        let to_case = tx.clone();
        let shared = Arc::clone(&stdin);
        thread::spawn(move || write_loop(&shared, commands, to_case));

        let mut stdout = child.stdout.take().expect("piped");
        let to_case = tx.clone();
        thread::spawn(move || {
            let mut buf = vec![0; 64 * 1024];
            loop {
                match stdout.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if to_case.send(Msg::Stdout(buf[..n].to_vec())).is_err() {
                            return;
                        }
                    }
                }
            }
            let _ = to_case.send(Msg::StdoutClosed);
        });

        let mut stderr = child.stderr.take().expect("piped");
        let tail = Arc::new(Mutex::new(Vec::new()));
        let keep = Arc::clone(&tail);
        let (stderr_done, stderr_ended) = std::sync::mpsc::channel::<()>();
        thread::spawn(move || {
            // Dropped at the end of stderr: the exit is reported after it.
            let _done = stderr_done;
            let mut buf = vec![0; 16 * 1024];
            while let Ok(n) = stderr.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let mut tail = keep.lock().unwrap_or_else(|e| e.into_inner());
                tail.extend_from_slice(&buf[..n]);
                if tail.len() > STDERR_TAIL {
                    let cut = tail.len() - STDERR_TAIL;
                    tail.drain(..cut);
                }
            }
        });

        thread::spawn(move || {
            if let Ok(status) = child.wait() {
                // What it wrote to stderr before it exited (why it failed,
                // often) is in the tail before anyone hears of the exit;
                // a descendant holding stderr open delays it at most this.
                let _ = stderr_ended.recv_timeout(STDERR_AFTER_EXIT);
                let _ = tx.send(Msg::Exited(status));
            }
        });

        Ok(Running {
            pid,
            writer: Some(writer),
            stdin,
            events,
            wrote: Mutex::new(VecDeque::new()),
            stderr: tail,
            started,
            killed: false,
            mark,
        })
    }

    /// Time since the target was started.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// When the target last took a write: the pipe took it, after the
    /// target had read everything before it where the write was paused
    /// (one after a pause the target did not read up to is not counted).
    /// `None` if it never took one.
    pub fn taken(&self) -> Option<Instant> {
        match self.stdin.taken.load(Ordering::Acquire) {
            0 => None,
            n => Some(self.started + Duration::from_nanos(n - 1)),
        }
    }

    /// Writes, in order after every earlier write; [`Msg::Wrote`] or
    /// [`Msg::WriteFailed`] reports the end.
    ///
    /// Writes without a pause are written here at once when the writer
    /// thread has nothing queued, as far as the pipe takes them without
    /// blocking; the rest, and any write with a pause, go to the writer
    /// thread.
    pub fn write(&mut self, writes: Vec<Write>) {
        self.write_reporting(writes, true);
    }

    /// [`Running::write`], with only a failure reported
    /// ([`Msg::WriteFailed`]): for a caller that does not wait for the
    /// end, no wake-up for it.
    pub fn write_unreported(&mut self, writes: Vec<Write>) {
        self.write_reporting(writes, false);
    }

    fn write_reporting(&mut self, mut writes: Vec<Write>, report: bool) {
        if self.writer.is_none() {
            return;
        }
        if writes.iter().all(|w| w.pause.is_zero()) {
            match self.write_now(&mut writes) {
                Ok(true) => {
                    if report {
                        self.hand_out(Msg::Wrote);
                    }
                    return;
                }
                Ok(false) => {}
                Err(e) => {
                    self.hand_out(Msg::WriteFailed(e.to_string()));
                    return;
                }
            }
        }
        self.command(WriterCommand::Write(writes, report));
    }

    /// Writes from this thread what the pipe takes without blocking, if
    /// the writer thread has nothing queued; what is left stays in
    /// `writes`. Whether everything was written.
    fn write_now(&self, writes: &mut Vec<Write>) -> io::Result<bool> {
        use rustix::fs::OFlags;
        if self.stdin.queued.load(Ordering::Acquire) > 0 {
            return Ok(false);
        }
        let Ok(mut pipe) = self.stdin.pipe.try_lock() else {
            return Ok(false);
        };
        let Some(fd) = pipe.as_mut() else {
            return Ok(false);
        };
        // Non-blocking only while this thread writes: the writer thread,
        // which waits on a full pipe, cannot write while the lock is held.
        let flags = rustix::fs::fcntl_getfl(&*fd)?;
        rustix::fs::fcntl_setfl(&*fd, flags | OFlags::NONBLOCK)?;
        let mut done = 0;
        let mut result: io::Result<()> = Ok(());
        'all: for w in writes.iter_mut() {
            while !w.bytes.is_empty() {
                match rustix::io::write(&*fd, &w.bytes) {
                    Ok(n) => drop(w.bytes.drain(..n)),
                    Err(rustix::io::Errno::AGAIN) => break 'all,
                    Err(rustix::io::Errno::INTR) => {}
                    Err(e) => {
                        result = Err(e.into());
                        break 'all;
                    }
                }
            }
            done += 1;
        }
        rustix::fs::fcntl_setfl(&*fd, flags)?;
        result?;
        if done > 0 {
            self.stdin.took();
        }
        writes.drain(..done);
        Ok(writes.is_empty())
    }

    fn hand_out(&self, msg: Msg) {
        self.wrote
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push_back(msg);
    }

    fn command(&mut self, command: WriterCommand) {
        if let Some(w) = &self.writer {
            self.stdin.queued.fetch_add(1, Ordering::AcqRel);
            if w.send(command).is_err() {
                self.writer = None;
            }
        }
    }

    /// Writes `path` and a newline to stdin, waits (at most `open_within`)
    /// for the target to open the named pipe at `path`, writes `writes`
    /// into it and closes it: one stream of the decoder role's
    /// named-pipe sessions. [`Msg::Wrote`] or [`Msg::WriteFailed`] reports
    /// the end.
    pub fn write_stream(&mut self, path: &Path, writes: Vec<Write>, open_within: Duration) {
        self.command(WriterCommand::Stream(path.to_owned(), writes, open_within));
    }

    /// Closes the target's stdin once the queued writes are done.
    pub fn close_stdin(&mut self) {
        if let Some(w) = self.writer.take() {
            let _ = w.send(WriterCommand::Close);
        }
    }

    /// Whether stdin has been closed (or the writer is gone).
    pub fn stdin_closed(&self) -> bool {
        self.writer.is_none()
    }

    /// The next event, or `None` when `deadline` passes first.
    pub fn next(&self, deadline: Instant) -> Option<Msg> {
        if let Some(msg) = self
            .wrote
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop_front()
        {
            return Some(msg);
        }
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.events.recv_timeout(wait) {
            Ok(msg) => Some(msg),
            Err(RecvTimeoutError::Timeout) => None,
            // Every sender is gone: nothing more will ever come.
            Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Kills the target's whole process group.
    pub fn kill(&mut self) {
        if !self.killed {
            self.killed = true;
            let _ = rustix::process::kill_process_group(self.pid, rustix::process::Signal::KILL);
        }
    }

    /// Asks the target's whole process group to end (SIGTERM): the step
    /// between closing stdin and [`Running::kill`] in MCP's shutdown.
    pub fn terminate(&mut self) {
        if !self.killed {
            let _ = rustix::process::kill_process_group(self.pid, rustix::process::Signal::TERM);
        }
    }

    /// Whether [`Running::kill`] was called.
    pub fn killed(&self) -> bool {
        self.killed
    }

    /// Forgets the stderr kept so far (a new case begins on this process).
    pub fn clear_stderr(&self) {
        self.stderr
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }

    /// The last bytes the target wrote to stderr.
    ///
    /// Colour and other terminal escape sequences are left out (a logger
    /// that colours its output whatever the terminal): every report shows
    /// the text, never `\u{1b}[2m`.
    pub fn stderr_tail(&self) -> Vec<u8> {
        let tail = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        anstream::adapter::strip_bytes(&tail).into_vec()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // Never leave a target (or its children, or theirs) behind.
        self.kill();
        crate::reap::end(self.pid.as_raw_nonzero().get(), &self.mark);
    }
}

fn write_loop(stdin: &Stdin, commands: Receiver<WriterCommand>, to_case: SyncSender<Msg>) {
    for command in commands {
        let mut report = true;
        let mut pipe = stdin.pipe.lock().unwrap_or_else(|e| e.into_inner());
        let result = match (command, pipe.as_mut()) {
            (WriterCommand::Close, _) => {
                pipe.take();
                return;
            }
            (_, None) => return,
            (WriterCommand::Write(writes, reported), Some(fd)) => {
                report = reported;
                write_all(fd, writes, stdin)
            }
            (WriterCommand::Stream(path, writes, open_within), Some(fd)) => {
                let mut line = path.as_os_str().as_bytes().to_vec();
                line.push(b'\n');
                fd.write_all(&line)
                    .and_then(|()| fd.flush())
                    .and_then(|()| open_pipe(&path, open_within))
                    .and_then(|mut pipe| write_all(&mut pipe, writes, stdin))
            }
        };
        drop(pipe);
        stdin.queued.fetch_sub(1, Ordering::AcqRel);
        let msg = match result {
            Ok(()) if !report => continue,
            Ok(()) => Msg::Wrote,
            Err(e) => Msg::WriteFailed(e.to_string()),
        };
        if to_case.send(msg).is_err() {
            return;
        }
    }
}

/// Writes `writes` to `to`, pausing where they say; stops at the first
/// failure. Each write the target took is noted in `stdin`.
fn write_all(
    to: &mut (impl io::Write + AsFd),
    writes: Vec<Write>,
    stdin: &Stdin,
) -> io::Result<()> {
    for w in writes {
        let mut read_up = true;
        if !w.pause.is_zero() {
            // A pause marks a boundary the plan wants the target to see:
            // the bytes before it must be read on their own, not with the
            // next write.
            read_up = drain(&*to);
            if w.pause > DRAIN {
                thread::sleep(w.pause);
            }
        }
        to.write_all(&w.bytes)?;
        to.flush()?;
        if read_up {
            stdin.took();
        }
    }
    Ok(())
}

/// Opens the named pipe at `path` for writing once a reader has it open,
/// waiting at most `within` (opening a pipe without a reader would block
/// without a deadline, so it is opened non-blocking and retried).
fn open_pipe(path: &Path, within: Duration) -> io::Result<File> {
    use rustix::fs::{Mode, OFlags};
    let until = Instant::now() + within;
    loop {
        match rustix::fs::open(
            path,
            OFlags::WRONLY | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::empty(),
        ) {
            Ok(fd) => {
                // Blocking again: a full pipe makes the writer wait.
                rustix::fs::fcntl_setfl(&fd, OFlags::empty())?;
                return Ok(File::from(fd));
            }
            Err(rustix::io::Errno::NXIO) if Instant::now() < until => {
                thread::sleep(Duration::from_micros(500));
            }
            Err(rustix::io::Errno::NXIO) => {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!(
                        "the target did not open the named pipe {} within {within:?}",
                        path.display()
                    ),
                ));
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// The longest the writer waits for the target to read what is in its
/// stdin pipe before a paused write: more than an interpreter takes to
/// start.
pub const DRAIN_MAX: Duration = Duration::from_secs(2);

/// Waits until the target has read everything written to `pipe` so far
/// (the pipe holds nothing unread), at most [`DRAIN_MAX`]: a target that
/// does not read gets the next write anyway. Whether it read everything.
pub fn drain(pipe: impl AsFd) -> bool {
    let until = Instant::now() + DRAIN_MAX;
    // A target in its read loop takes the bytes within tens of
    // microseconds: look again at once a few times, then less often.
    let mut looks = 0u32;
    while rustix::io::ioctl_fionread(&pipe).is_ok_and(|n| n > 0) {
        if Instant::now() >= until {
            return false;
        }
        looks += 1;
        if looks <= 16 {
            thread::yield_now();
        } else {
            thread::sleep(Duration::from_micros(if looks <= 32 { 20 } else { 200 }));
        }
    }
    true
}

/// `exit status 3` or `killed by signal 9 (SIGKILL)`.
pub fn describe_exit(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit status {code}"),
        (None, Some(sig)) => format!("killed by signal {sig}{}", signal_name(sig)),
        (None, None) => status.to_string(),
    }
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        6 => " (SIGABRT)",
        9 => " (SIGKILL)",
        11 => " (SIGSEGV)",
        13 => " (SIGPIPE)",
        15 => " (SIGTERM)",
        _ => "",
    }
}
