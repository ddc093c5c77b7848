//! The scripted server a client under test spawns: `rpcspec peer --connect
//! SOCKET`, a relay. It connects to the runner over a Unix socket, sends
//! it every byte the client writes to its stdin, and writes to its stdout
//! exactly the writes the runner sends, one `write` each, so the runner
//! decides every chunk boundary, pause, close and exit while the client
//! sees a child process like any server.
//!
//! Frames, both ways: a tag byte, a 4-byte big-endian length, the payload.
//!
//! | from | tag | payload | meaning |
//! |---|---|---|---|
//! | peer | `H` | its pid, decimal | connected |
//! | peer | `A` | a JSON array of strings | the arguments it was given after `--connect SOCKET` |
//! | peer | `I` | bytes | the client wrote these to the peer's stdin |
//! | peer | `E` | — | the peer's stdin reached its end (the client closed it) |
//! | peer | `Q` | exit status, decimal | it carries out an `X` now: every order before it was carried out |
//! | runner | `W` | bytes | write these to stdout in one write |
//! | runner | `P` | milliseconds, decimal | wait until the client has read stdout ([`Drains`]), then pause |
//! | runner | `S` | bytes | write these to stderr (blocking, as a process does, while the client does not read it) |
//! | runner | `C` | — | close stdout (stdin stays open) |
//! | runner | `X` | exit status, decimal | exit now |
//!
//! The peer exits with status 0 when the runner closes the socket, and
//! with 70 when it cannot reach the runner: the scenario is over either
//! way.

use std::{
    fs::File,
    io::{self, Read, Write},
    os::{
        fd::AsFd,
        unix::net::{UnixListener, UnixStream},
    },
    path::{Path, PathBuf},
    sync::mpsc::{self, Receiver, Sender},
    thread,
    time::Duration,
};

/// The longest a frame may be: a write of the scenario's (its longest line
/// is 16 MiB of `$pad`) or a read of the client's (64 KiB).
const MAX_FRAME: usize = 32 << 20;

/// Writes one frame.
fn frame(to: &mut impl Write, tag: u8, payload: &[u8]) -> io::Result<()> {
    let len = u32::try_from(payload.len())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "frame over 4 GiB"))?;
    let mut head = [0u8; 5];
    head[0] = tag;
    head[1..].copy_from_slice(&len.to_be_bytes());
    to.write_all(&head)?;
    to.write_all(payload)?;
    to.flush()
}

/// Reads one frame; `None` at a clean end of the stream.
fn read_frame(from: &mut impl Read) -> io::Result<Option<(u8, Vec<u8>)>> {
    let mut head = [0u8; 5];
    match from.read_exact(&mut head) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
    if len > MAX_FRAME {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a frame of {len} bytes (at most {MAX_FRAME})"),
        ));
    }
    let mut payload = vec![0; len];
    from.read_exact(&mut payload)?;
    Ok(Some((head[0], payload)))
}

/// The peer process: `rpcspec peer --connect SOCKET [ARGS...]`. Returns
/// its exit status.
pub fn serve(socket: &Path, args: &[String]) -> i32 {
    let Ok(mut stream) = UnixStream::connect(socket) else {
        eprintln!(
            "rpcspec peer: cannot connect to the runner at {}: the scenario is over",
            socket.display()
        );
        return 70;
    };
    let args = serde_json::to_vec(args).expect("strings serialize");
    if frame(&mut stream, b'H', std::process::id().to_string().as_bytes()).is_err()
        || frame(&mut stream, b'A', &args).is_err()
    {
        return 70;
    }
    // Stdin to the runner, on a thread of its own.
    if let Ok(mut up) = stream.try_clone() {
        thread::spawn(move || {
            let mut stdin = io::stdin().lock();
            let mut buf = vec![0; 64 * 1024];
            loop {
                match stdin.read(&mut buf) {
                    Ok(0) | Err(_) => {
                        let _ = frame(&mut up, b'E', &[]);
                        return;
                    }
                    Ok(n) => {
                        if frame(&mut up, b'I', &buf[..n]).is_err() {
                            return;
                        }
                    }
                }
            }
        });
    }
    // Unbuffered: each order is one write(2), as the scenario cut it.
    let Ok(mut stdout) = rustix::io::dup(io::stdout().as_fd()).map(|fd| Some(File::from(fd)))
    else {
        return 70;
    };
    let mut drains = Drains::default();
    loop {
        let (tag, payload) = match read_frame(&mut stream) {
            Ok(Some(f)) => f,
            Ok(None) | Err(_) => return 0,
        };
        let text = || String::from_utf8_lossy(&payload).into_owned();
        match tag {
            b'W' => {
                if let Some(out) = &mut stdout {
                    // A client that closed its end gets nothing more.
                    let _ = out.write_all(&payload);
                }
            }
            b'P' => {
                if let Some(out) = &stdout {
                    drains.drain(out.as_fd());
                }
                thread::sleep(Duration::from_millis(text().parse().unwrap_or(0)));
            }
            b'S' => {
                let _ = io::stderr().write_all(&payload);
            }
            b'C' => {
                // Both descriptors of the pipe go: the copy, and fd 1
                // (pointed at /dev/null), so the client reads its end.
                stdout = None;
                if let Ok(null) = File::options().write(true).open("/dev/null") {
                    let _ = rustix::stdio::dup2_stdout(&null);
                }
            }
            b'X' => {
                drop(stdout);
                // The runner learns the scenario's exit happened (not a
                // kill): everything before it was written.
                let code: i32 = text().parse().unwrap_or(1);
                let _ = frame(&mut stream, b'Q', code.to_string().as_bytes());
                std::process::exit(code);
            }
            _ => {}
        }
    }
}

/// The peer's waits for the client to read its stdout before a pause
/// (a line, a byte, a piece: each read alone): each as long as the client
/// takes, up to core's `DRAIN_MAX` (a loaded machine may keep a client
/// from reading for longer than a moment: two replies then came in one
/// read, by chance). Once a client let one run out, the next do not wait
/// on it until it has read everything again: a client that stopped
/// reading gets the rest without a wait a write.
#[derive(Debug, Default)]
struct Drains {
    stalled: bool,
}

impl Drains {
    fn drain(&mut self, fd: std::os::fd::BorrowedFd<'_>) {
        let unread = || rustix::io::ioctl_fionread(fd).is_ok_and(|n| n > 0);
        if self.stalled && unread() {
            return;
        }
        self.stalled = !crate::target::drain(fd);
    }
}

/// What the peer reports to the runner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FromPeer {
    /// It connected; its pid.
    Hello(u32),
    /// The arguments it was given.
    Args(Vec<String>),
    /// The client wrote these bytes to the peer's stdin.
    Input(Vec<u8>),
    /// The peer's stdin ended.
    Eof,
    /// It carried out the scenario's exit, with this status (every order
    /// before it was carried out).
    Exiting(i32),
    /// The connection ended: the peer exited or was killed.
    Gone,
}

/// What the runner tells the peer to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToPeer {
    /// Write these bytes to stdout, in one write.
    Write(Vec<u8>),
    /// Wait for the client to read, then pause this long.
    Pause(Duration),
    /// Write these bytes to stderr.
    Stderr(Vec<u8>),
    /// Close stdout.
    CloseStdout,
    /// Exit with this status.
    Exit(i32),
}

/// The launcher an SDK starts as its CLI (`--dialect claude`,
/// `codex-exec`, `codex`: an SDK takes one path): `-v`, `-V` and
/// `--version` answered
/// with `version` when given, anything else handed to the peer (`peer`
/// is the rpcspec executable, `socket` the runner's), `who` named in its
/// comment.
pub fn launcher(peer: &Path, socket: &Path, who: &str, version: Option<&str>) -> String {
    let quote = |p: &Path| format!("'{}'", p.to_string_lossy().replace('\'', r"'\''"));
    let version = version.map_or_else(String::new, |v| {
        format!("case \"$1\" in -v|-V|--version) echo '{v}'; exit 0;; esac\n")
    });
    format!(
        "#!/bin/sh\n\
         # rpcspec plays {who}: this stands for the CLI the SDK starts.\n\
         {version}exec {} peer --connect {} -- \"$@\"\n",
        quote(peer),
        quote(socket)
    )
}

/// The runner's end: a socket in a private folder, waiting for the peer.
pub struct Listener {
    dir: PathBuf,
    listener: UnixListener,
}

impl Listener {
    /// A new socket in a new folder of the temporary directory (readable
    /// by this user only).
    pub fn new() -> io::Result<Listener> {
        use std::os::unix::fs::DirBuilderExt;
        use std::sync::atomic::{AtomicU64, Ordering};
        static N: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "rpcspec-peer-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::DirBuilder::new().mode(0o700).create(&dir)?;
        let listener = UnixListener::bind(dir.join("s"))?;
        listener.set_nonblocking(true)?;
        Ok(Listener { dir, listener })
    }

    /// The socket's path, for `--connect`.
    pub fn path(&self) -> PathBuf {
        self.dir.join("s")
    }

    /// The peer's connection, if one is waiting.
    pub fn accept(&self) -> Option<Link> {
        let (stream, _) = self.listener.accept().ok()?;
        stream.set_nonblocking(false).ok()?;
        Link::new(stream).ok()
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// One connected peer: what it reports arrives on a channel, what it is
/// told goes through a writer thread, so the case thread never blocks on
/// a peer (or a client) that stopped reading.
pub struct Link {
    events: Receiver<FromPeer>,
    orders: Option<Sender<ToPeer>>,
    stream: UnixStream,
}

impl Link {
    fn new(stream: UnixStream) -> io::Result<Link> {
        let (tx, events) = mpsc::sync_channel(16);
        let mut down = stream.try_clone()?;
        thread::spawn(move || {
            loop {
                let msg = match read_frame(&mut down) {
                    Ok(Some((b'H', p))) => {
                        FromPeer::Hello(String::from_utf8_lossy(&p).parse().unwrap_or_default())
                    }
                    Ok(Some((b'A', p))) => {
                        FromPeer::Args(serde_json::from_slice(&p).unwrap_or_default())
                    }
                    Ok(Some((b'I', p))) => FromPeer::Input(p),
                    Ok(Some((b'E', _))) => FromPeer::Eof,
                    Ok(Some((b'Q', p))) => {
                        FromPeer::Exiting(String::from_utf8_lossy(&p).parse().unwrap_or(1))
                    }
                    Ok(Some(_)) => continue,
                    Ok(None) | Err(_) => {
                        let _ = tx.send(FromPeer::Gone);
                        return;
                    }
                };
                if tx.send(msg).is_err() {
                    return;
                }
            }
        });
        let (orders, rx) = mpsc::channel::<ToPeer>();
        let mut up = stream.try_clone()?;
        thread::spawn(move || {
            for order in rx {
                let sent = match order {
                    ToPeer::Write(bytes) => frame(&mut up, b'W', &bytes),
                    ToPeer::Pause(d) => frame(&mut up, b'P', d.as_millis().to_string().as_bytes()),
                    ToPeer::Stderr(bytes) => frame(&mut up, b'S', &bytes),
                    ToPeer::CloseStdout => frame(&mut up, b'C', &[]),
                    ToPeer::Exit(code) => frame(&mut up, b'X', code.to_string().as_bytes()),
                };
                if sent.is_err() {
                    return;
                }
            }
        });
        Ok(Link {
            events,
            orders: Some(orders),
            stream,
        })
    }

    /// Queues an order.
    pub fn send(&self, order: ToPeer) {
        if let Some(o) = &self.orders {
            let _ = o.send(order);
        }
    }

    /// What the peer reported, if anything is waiting.
    pub fn try_next(&self) -> Option<FromPeer> {
        self.events.try_recv().ok()
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        self.orders = None;
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_refuse_what_is_too_long() {
        let mut buf = Vec::new();
        frame(&mut buf, b'W', b"{\"id\":1}\n").unwrap();
        frame(&mut buf, b'E', b"").unwrap();
        let mut r = &buf[..];
        assert_eq!(
            read_frame(&mut r).unwrap(),
            Some((b'W', b"{\"id\":1}\n".to_vec()))
        );
        assert_eq!(read_frame(&mut r).unwrap(), Some((b'E', Vec::new())));
        assert_eq!(read_frame(&mut r).unwrap(), None);
        let huge = [b'W', 0xFF, 0xFF, 0xFF, 0xFF];
        assert!(read_frame(&mut &huge[..]).is_err());
    }
}
