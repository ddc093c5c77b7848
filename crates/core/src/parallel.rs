//! The one way every role runs its work: `jobs` threads taking items in
//! order from a shared counter, results back in the order of the work.

use std::{
    sync::{
        Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    thread,
};

/// Runs `run` on every item of `work`, `jobs` at a time, and returns the
/// results in the order of `work`. `progress` is called after each result
/// with the count done and the total. Every role's runner uses this.
pub fn run_parallel<T: Sync, R: Send>(
    work: &[T],
    jobs: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
    run: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    run_parallel_with(work, jobs, progress, || (), |(), item| run(item))
}

/// [`run_parallel`] with a state per job: `init` makes it when the job
/// starts, `run` gets it with every item, and it is dropped when the job
/// ends.
pub fn run_parallel_with<T: Sync, R: Send, S>(
    work: &[T],
    jobs: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
    init: impl Fn() -> S + Sync,
    run: impl Fn(&mut S, &T) -> R + Sync,
) -> Vec<R> {
    run_parallel_jobs(work, jobs, progress, init, run, |_| None)
}

/// [`run_parallel_with`], where each job's state is handed to `finish`
/// when the job ends (the server role closes its kept process there): its
/// results, when it gives any, follow those of `work`, in no set order.
pub fn run_parallel_jobs<T: Sync, R: Send, S>(
    work: &[T],
    jobs: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
    init: impl Fn() -> S + Sync,
    run: impl Fn(&mut S, &T) -> R + Sync,
    finish: impl Fn(S) -> Option<R> + Sync,
) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> =
        Mutex::new(std::iter::repeat_with(|| None).take(work.len()).collect());
    let finished: Mutex<Vec<R>> = Mutex::new(Vec::new());
    thread::scope(|s| {
        for _ in 0..jobs.clamp(1, work.len().max(1)) {
            s.spawn(|| {
                let mut state = init();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = work.get(i) else {
                        break;
                    };
                    let result = run(&mut state, item);
                    results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(result);
                    progress(done.fetch_add(1, Ordering::Relaxed) + 1, work.len());
                }
                if let Some(r) = finish(state) {
                    finished.lock().unwrap_or_else(|e| e.into_inner()).push(r);
                }
            });
        }
    });
    let mut all: Vec<R> = results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| r.expect("every job ran"))
        .collect();
    all.extend(finished.into_inner().unwrap_or_else(|e| e.into_inner()));
    all
}
