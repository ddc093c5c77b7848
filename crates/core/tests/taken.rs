//! `Running::taken`: when the target last took a write. A case deadline
//! runs from it (the server role's `exec/wait.rs`), so a write after a
//! pause the target did not read up to must not count: a target that
//! never reads would otherwise get more time with every paused write.

use std::{
    ffi::OsString,
    time::{Duration, Instant},
};

use rpcspec_core::{
    plan::Write,
    target::{Msg, Running, Target},
};

fn spawn(script: &str) -> Running {
    let argv: Vec<OsString> = ["sh", "-c", script].iter().map(OsString::from).collect();
    Running::spawn(&Target { argv }).expect("sh starts")
}

/// Two writes, the second after a pause (the writer first waits for the
/// target to read what is in its pipe, at most `DRAIN_MAX`).
fn two_writes() -> Vec<Write> {
    vec![
        Write {
            pause: Duration::ZERO,
            bytes: b"first\n".to_vec(),
        },
        Write {
            pause: Duration::from_millis(5),
            bytes: b"second\n".to_vec(),
        },
    ]
}

/// Waits for the writer to report the end of the writes.
fn until_written(running: &Running) {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        match running.next(until) {
            Some(Msg::Wrote) => return,
            Some(Msg::WriteFailed(e)) => panic!("the write failed: {e}"),
            Some(_) => {}
            None => panic!("the writes did not end within 10 s"),
        }
    }
}

#[test]
fn a_target_that_reads_took_its_last_write() {
    let mut running = spawn("cat >/dev/null");
    assert_eq!(running.taken(), None, "nothing was written yet");
    let before = Instant::now();
    running.write(two_writes());
    until_written(&running);
    let taken = running.taken().expect("cat read both writes");
    assert!(taken >= before, "{taken:?} is before the writes");
    running.kill();
}

#[test]
fn a_write_after_a_pause_the_target_did_not_read_up_to_is_not_taken() {
    // It never reads: the first write sits in the pipe, and the pause
    // before the second waits for it in vain.
    let mut running = spawn("sleep 30");
    running.write(two_writes());
    until_written(&running);
    let first = running.taken().expect("the pipe took the first write");
    // The second came after the writer waited for the target in vain: it
    // is not counted, so the time is still the first write's.
    assert!(
        first + Duration::from_secs(1) < Instant::now(),
        "the second write came without waiting on the target"
    );
    assert_eq!(running.taken(), Some(first));
    running.kill();
}
