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
    run_parallel_jobs(work, jobs, progress, |_, _| false, init, run, |_| None)
}

/// [`run_parallel_with`], where each job's state is handed to `finish`
/// when the job ends (the server role closes its kept process there): its
/// results, when it gives any, follow those of `work`, in no set order.
///
/// Neighbouring items that `together` pairs make a group (the server role:
/// the plans of one case), and a job that starts a group takes its items
/// in turn while it has any left, so they meet the same job state. Once no
/// group is left unstarted, an idle job takes the next item of a group
/// another job is still in, so a slow group does not hold the run up.
pub fn run_parallel_jobs<T: Sync, R: Send, S>(
    work: &[T],
    jobs: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
    together: impl Fn(&T, &T) -> bool,
    init: impl Fn() -> S + Sync,
    run: impl Fn(&mut S, &T) -> R + Sync,
    finish: impl Fn(S) -> Option<R> + Sync,
) -> Vec<R> {
    // Group g is work[starts[g]..starts[g + 1]]; next[g] its next item.
    let mut starts: Vec<usize> = (0..work.len())
        .filter(|&i| i == 0 || !together(&work[i - 1], &work[i]))
        .collect();
    starts.push(work.len());
    let groups = starts.len() - 1;
    let next: Vec<AtomicUsize> = starts[..groups]
        .iter()
        .map(|&s| AtomicUsize::new(s))
        .collect();
    let next_group = AtomicUsize::new(0);
    // The next item of group g, claimed for the caller, if it has one.
    let claim = |g: usize| {
        let i = next[g].fetch_add(1, Ordering::Relaxed);
        (i < starts[g + 1]).then_some(i)
    };
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> =
        Mutex::new(std::iter::repeat_with(|| None).take(work.len()).collect());
    let finished: Mutex<Vec<R>> = Mutex::new(Vec::new());
    thread::scope(|s| {
        for _ in 0..jobs.clamp(1, work.len().max(1)) {
            s.spawn(|| {
                let mut state = init();
                let mut current = None;
                loop {
                    let i = match current.and_then(claim) {
                        Some(i) => i,
                        None => {
                            let g = next_group.fetch_add(1, Ordering::Relaxed);
                            current = if g < groups {
                                Some(g)
                            } else {
                                // Help a group still under way, if any.
                                (0..groups)
                                    .find(|&g| next[g].load(Ordering::Relaxed) < starts[g + 1])
                            };
                            if current.is_none() {
                                break;
                            }
                            continue;
                        }
                    };
                    let result = run(&mut state, &work[i]);
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

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::run_parallel_jobs;

    /// Every item runs once, its result in its place, and one job takes
    /// the work in order, group after group.
    #[test]
    fn every_item_runs_once_and_one_job_keeps_the_order() {
        // Items are (group, index); groups of 1 to 7 items.
        let work: Vec<(usize, usize)> = (0..40)
            .flat_map(|g| (0..1 + g % 7).map(move |_| g))
            .enumerate()
            .map(|(i, g)| (g, i))
            .collect();
        for jobs in [1, 3, 8, 100] {
            let clock = AtomicUsize::new(0);
            let runs = AtomicUsize::new(0);
            let taken = run_parallel_jobs(
                &work,
                jobs,
                &|_, _| {},
                |a, b| a.0 == b.0,
                || (),
                |(), &(g, i)| {
                    runs.fetch_add(1, Ordering::Relaxed);
                    (g, i, clock.fetch_add(1, Ordering::Relaxed))
                },
                |()| None,
            );
            assert_eq!(runs.into_inner(), work.len(), "{jobs} jobs");
            assert_eq!(taken.len(), work.len());
            for (place, &(g, i, _)) in taken.iter().enumerate() {
                assert_eq!((g, i), work[place]);
            }
            if jobs == 1 {
                assert!(taken.iter().enumerate().all(|(n, t)| t.2 == n));
            }
        }
    }
}
