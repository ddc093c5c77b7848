//! `rpcspec fuzz`: generated and mutated inputs against any executable.
//!
//! Each execution is a short conversation: a few steps of lines drawn from
//! the shipped cases (often mutated) and from structure-aware generators
//! (broken JSON, deep nesting, huge strings and numbers, invalid UTF-8, odd
//! ids and member types, batches of every shape), sent under a random write
//! plan to the target: each job keeps its process from one execution to
//! the next (`session.rs`, with `rpcspec run`'s guarantees: a finding is
//! confirmed on a new process), or starts one per execution with
//! `--fresh` ([`RunOptions::fresh`]). It is graded exactly as a case with
//! `expect_any = true`: framing and message rules on everything the target
//! writes, every request answered once, no reply to notifications, no
//! crash, no hang. A finding is minimised (fewest steps, fewest lines) and
//! written as a case file that `rpcspec run --cases DIR` replays.
//!
//! Same seed, same inputs: generation uses its own PRNG, seeded per
//! execution from the run seed and the execution number (and, with a
//! corpus, the corpus's inputs when the execution is drawn).
//!
//! **Findings** are kinds, a [`signature`] (the first failing rule, or the
//! verdict) and the input's [`shape`]: one kind is minimised and written
//! once per run, and with a corpus once for as long as it lasts: a kind
//! known from an earlier run is counted as known, not written again (and
//! does not fail the run). A run first replays each known finding's case
//! file; one that no longer fails so is fixed and forgotten, so that the
//! bug coming back is a new finding.
//!
//! **The corpus** (`--corpus DIR`, [`Corpus`]) keeps inputs that showed
//! new behaviour, for a black-box target the only coverage there is: the
//! [`behaviour`] of an execution is the set of what the target did (the
//! verdict, every rule broken, each kind of line it wrote with its error
//! codes, silence). An input is kept when its behaviour holds a word, or a
//! pair of words, that no input of the corpus showed (as a new edge is
//! new coverage). Two executions in three then mutate a corpus input (a line
//! damaged, inserted, dropped or duplicated, a step spliced from another
//! input, the plan changed), one in three is generated afresh. The corpus
//! holds at most `--corpus-max` inputs of at most 64 KiB
//! ([`MAX_FILE`]), mutations at most 8 steps of 8 lines and 64 KiB.
//! Its `state.json` holds the seed and the next execution number: a run
//! resumes where the last one stopped, saved after each new input and
//! finding, every 5 s and at the end, written whole and renamed.
//!
//! **Jobs** (`--jobs N`): N threads, each running executions on processes
//! of its own (kept from one execution to the next, at most
//! `session::PER_PROCESS` each), take execution numbers from one counter, so execution `n`
//! is the same input whichever thread runs it (as long as the corpus is
//! the same); a thread minimises what it found. With a corpus and more
//! than one job, what the corpus holds when an input is drawn depends on
//! timing.
//!
//! **Bounds.** No execution starts after `--time`; each has the case
//! deadlines of `exec/`, and a minimisation at most 64 executions, none
//! started later than `--time` or 30 s after its finding
//! ([`MINIMISE_GRACE`]), whichever is later. Memory: jobs × (`--budget`
//! plus the inputs a kept process ran, at most 16 MiB) plus the corpus (at
//! most `--corpus-max` × 64 KiB).

mod behaviour;
mod case;
mod corpus;
mod finding;
mod generate;
mod instance;
pub mod mcp;
mod session;
mod surface;

use std::{
    collections::{BTreeSet, HashMap, HashSet},
    path::{Path, PathBuf},
    sync::{
        Mutex, MutexGuard,
        atomic::{AtomicBool, AtomicU64, Ordering},
        mpsc,
    },
    time::{Duration, Instant},
};

pub use behaviour::{MAX_WORDS, behaviour};
use case::says;
pub use case::{as_case, is_frame};
pub use corpus::{
    Corpus, DEFAULT_MAX_INPUTS, FINDINGS_DIR, FuzzError, KnownFinding, MAX_FILE, MAX_INPUTS,
    MAX_KNOWN_FINDINGS, Offer, STATE_FILE, State, case_file,
};
pub use finding::{REPRODUCE_TRIES, minimise, shape, signature};
pub use generate::{
    MAX_MUTANT_BYTES, MAX_MUTANT_LINES, MAX_MUTANT_STEPS, Rng, Scenario, damaged_frame, in_dialect,
    in_framing, scenario, scenario_with, seed_lines,
};

use crate::{exec::RunOptions, report::CaseResult, target::Target};

/// How long a minimisation may go on after `--time`, counted from its
/// finding: a finding made late in a run is still made smaller.
pub const MINIMISE_GRACE: Duration = Duration::from_secs(30);

/// How often the state is saved while nothing new is found.
const SAVE_EVERY: Duration = Duration::from_secs(5);

/// How to fuzz.
#[derive(Debug, Clone)]
pub struct FuzzOptions {
    /// The run seed; `None`: the corpus's, else from the clock.
    pub seed: Option<u64>,
    /// Stop after this long.
    pub time: Duration,
    /// Stop after this many executions (if sooner).
    pub max_executions: Option<u64>,
    /// How each execution is run (deadline, dialect).
    pub run: RunOptions,
    /// Where finding case files are written (created when needed).
    pub out: PathBuf,
    /// Threads running executions, each on processes of its own (≥ 1).
    pub jobs: usize,
    /// The corpus folder, if any.
    pub corpus: Option<PathBuf>,
    /// The most inputs the corpus holds.
    pub corpus_max: usize,
    /// With `--dialect mcp`: the tools whose calls may be drawn.
    pub tools: mcp::Tools,
    /// The `--dialect` a finding's replay names when it says more than
    /// the run's dialect: a pinned MCP revision (`mcp@2025-06-18`).
    pub replay_dialect: Option<String>,
}

impl FuzzOptions {
    /// One job, no corpus, at most `max_executions` in `time`, findings to
    /// `out`.
    pub fn new(seed: u64, time: Duration, max_executions: Option<u64>, out: &Path) -> FuzzOptions {
        FuzzOptions {
            seed: Some(seed),
            time,
            max_executions,
            run: RunOptions::default(),
            out: out.to_path_buf(),
            jobs: 1,
            corpus: None,
            corpus_max: DEFAULT_MAX_INPUTS,
            tools: mcp::Tools::None,
            replay_dialect: None,
        }
    }
}

/// One finding, minimised.
#[derive(Debug, Clone)]
pub struct FuzzFinding {
    /// What kind of failure: the first failing rule id, or the verdict.
    pub signature: String,
    /// The shape of the input that showed it ([`shape`]): with the
    /// signature, the finding's root cause, found once per run.
    pub shape: &'static str,
    /// The execution that found it.
    pub execution: u64,
    /// The result of the minimised input.
    pub result: CaseResult,
    /// The case file written for it.
    pub file: PathBuf,
}

/// A finding kind known from an earlier run, seen again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownHit {
    /// Its signature, shape and case file, as remembered.
    pub known: KnownFinding,
    /// Executions of this run that showed it.
    pub executions: u64,
}

/// What a run did to its corpus.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CorpusSummary {
    /// The folder.
    pub dir: PathBuf,
    /// Inputs when the run began, and when it ended.
    pub before: usize,
    /// See `before`.
    pub after: usize,
    /// Its cap (`--corpus-max`).
    pub max: usize,
    /// Executions with a new behaviour not kept: the corpus was full.
    pub full: u64,
    /// Executions with a new behaviour not kept: over [`MAX_FILE`].
    pub too_big: u64,
}

/// What a fuzzing run did.
#[derive(Debug, Clone, Default)]
pub struct FuzzReport {
    /// The seed.
    pub seed: u64,
    /// The number of the run's first execution (0, or where the corpus's
    /// last run stopped).
    pub first_execution: u64,
    /// Executions run (minimisation not counted).
    pub executions: u64,
    /// New findings, in the order found.
    pub findings: Vec<FuzzFinding>,
    /// Failures that did not happen again when their input was run again
    /// ([`finding::REPRODUCE_TRIES`] times, with the replay's write
    /// plans): written as case files, not counted as findings (timing, a
    /// flaky target, or an earlier input's doing that the fresh process
    /// did not catch).
    pub flaky: Vec<FuzzFinding>,
    /// Known findings seen again, in the order they were first found.
    pub known: Vec<KnownHit>,
    /// Known findings whose case file no longer fails that way: forgotten,
    /// so that a finding of their kind is new again.
    pub fixed: Vec<KnownFinding>,
    /// The corpus, with `--corpus`.
    pub corpus: Option<CorpusSummary>,
    /// What loading skipped, one sentence each.
    pub warnings: Vec<String>,
    /// With `--dialect mcp`: what the server declared, and what the
    /// inputs drawn for it did.
    pub mcp: Option<mcp::McpReport>,
    /// Wall time.
    pub elapsed: Duration,
}

/// What [`fuzz`] tells its caller as it goes.
#[derive(Debug)]
#[non_exhaustive]
pub enum Progress<'a> {
    /// The corpus is loaded; executions begin.
    Started {
        /// The seed.
        seed: u64,
        /// The first execution's number.
        first_execution: u64,
        /// Inputs in the corpus, with one.
        corpus: Option<usize>,
        /// What loading skipped.
        warnings: &'a [String],
    },
    /// Twice a second, and at the end.
    Running {
        /// Executions so far.
        executions: u64,
        /// New findings so far.
        findings: usize,
        /// Since the run began.
        elapsed: Duration,
    },
}

/// The default folder for findings.
pub fn default_out() -> &'static Path {
    Path::new("rpcspec-fuzz-findings")
}

/// What the jobs share, behind one lock.
struct Shared {
    corpus: Option<Corpus>,
    /// Kinds found (or being minimised) in this run.
    found: HashSet<(String, &'static str)>,
    /// Kinds known from earlier runs: index into `known`.
    known_index: HashMap<(String, String), usize>,
    known: Vec<KnownHit>,
    findings: Vec<FuzzFinding>,
    flaky: Vec<FuzzFinding>,
    full: u64,
    too_big: u64,
    coverage: Option<mcp::Coverage>,
    error: Option<FuzzError>,
    /// Executions under way, by number.
    running: BTreeSet<u64>,
    /// One past the highest execution number begun.
    next: u64,
}

impl Shared {
    /// What the jobs share as a run begins: the findings the corpus knows
    /// of, none seen yet; execution numbers from `first`.
    fn new(corpus: Option<Corpus>, coverage: Option<mcp::Coverage>, first: u64) -> Shared {
        let known: Vec<KnownHit> = corpus
            .iter()
            .filter_map(|c| c.state.as_ref())
            .flat_map(|s| s.findings.iter().cloned())
            .map(|known| KnownHit {
                known,
                executions: 0,
            })
            .collect();
        let known_index = known
            .iter()
            .enumerate()
            .map(|(i, k)| ((k.known.signature.clone(), k.known.shape.clone()), i))
            .collect();
        Shared {
            corpus,
            found: HashSet::new(),
            known_index,
            known,
            findings: Vec::new(),
            flaky: Vec::new(),
            full: 0,
            too_big: 0,
            coverage,
            error: None,
            running: BTreeSet::new(),
            next: first,
        }
    }

    /// Where a next run starts: at the lowest execution under way (a run
    /// killed now has not finished it), else after the last begun.
    fn resume_at(&self) -> u64 {
        self.running.first().copied().unwrap_or(self.next)
    }
}

/// A run, as its jobs see it.
struct Run<'a> {
    target: &'a Target,
    /// How each execution runs: `opts.run`, and when processes are kept,
    /// with quick writes ([`RunOptions::quick_writes`]). Minimising uses
    /// `opts.run`, as a replay of the case file does.
    each: RunOptions,
    seeds: &'a [Vec<u8>],
    opts: &'a FuzzOptions,
    /// With `--dialect mcp`, what the server declared.
    surface: Option<&'a mcp::Surface>,
    seed: u64,
    first: u64,
    base_executions: u64,
    deadline: Instant,
    claimed: AtomicU64,
    done: AtomicU64,
    stop: AtomicBool,
    shared: Mutex<Shared>,
}

impl Run<'_> {
    fn lock(&self) -> MutexGuard<'_, Shared> {
        // A job that panicked leaves the data as it was between two steps.
        self.shared
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn origin(&self, n: u64) -> String {
        format!(
            "`rpcspec fuzz --seed {}` (execution {n}) against `{}`",
            self.seed,
            self.target.display()
        )
    }

    /// One job: executions until the time is up, the count is reached or
    /// another job failed.
    fn work(&self) {
        let mut session = session::Session::default();
        while !self.stop.load(Ordering::Relaxed) && Instant::now() < self.deadline {
            let i = self.claimed.fetch_add(1, Ordering::Relaxed);
            if self.opts.max_executions.is_some_and(|max| i >= max) {
                break;
            }
            let n = self.first + i;
            let (scenario, messages) = {
                let mut shared = self.lock();
                shared.running.insert(n);
                shared.next = shared.next.max(n + 1);
                match self.surface.filter(|_| mcp::drawn_here(self.seed, n)) {
                    Some(surface) => {
                        let (scenario, messages) = mcp::draw(self.seed, n, surface);
                        (scenario, Some(messages))
                    }
                    None => {
                        let inputs = shared.corpus.as_ref().map_or(&[][..], |c| &c.inputs[..]);
                        let drawn = scenario_with(self.seed, n, self.seeds, inputs);
                        let handshake = self.opts.run.handshake.as_deref().unwrap_or_default();
                        let drawn = generate::in_dialect(drawn, handshake);
                        let framing = &self.opts.run.framing;
                        (generate::in_framing(drawn, self.seed, n, framing), None)
                    }
                }
            };
            let ran = session.run(n, &scenario, self.target, &self.each);
            self.done.fetch_add(1, Ordering::Relaxed);
            if let (Some(messages), Some(surface)) = (&messages, self.surface) {
                let mut shared = self.lock();
                if let Some(coverage) = shared.coverage.as_mut() {
                    coverage.tally(surface.revision, messages, &ran.result);
                }
            }
            let mut outcome = self.after(n, scenario, &ran.result);
            for (n, scenario, result) in ran.again {
                outcome = outcome.and_then(|()| self.after(n, scenario, &result));
            }
            // Only now, with its input kept and its finding written: a run
            // killed before runs it again.
            let mut shared = self.lock();
            shared.running.remove(&n);
            if let Err(e) = outcome {
                shared.error.get_or_insert(e);
                self.stop.store(true, Ordering::Relaxed);
            }
        }
        let mut outcome = Ok(());
        for (n, scenario, result) in session.finish(self.target, &self.each) {
            outcome = outcome.and_then(|()| self.after(n, scenario, &result));
        }
        if let Err(e) = outcome {
            self.lock().error.get_or_insert(e);
        }
    }

    /// Offers the input to the corpus and handles a finding.
    fn after(&self, n: u64, scenario: Scenario, result: &CaseResult) -> Result<(), FuzzError> {
        let seen = self
            .opts
            .corpus
            .is_some()
            .then(|| behaviour(result, &self.opts.run.dialect));
        let mut shared = self.lock();
        let resume_at = shared.resume_at();
        if let (Some(corpus), Some(seen)) = (shared.corpus.as_mut(), seen) {
            match corpus.offer(&scenario, &seen, &self.origin(n))? {
                Offer::Kept(_) => {
                    self.update(corpus, resume_at);
                    corpus.save()?;
                }
                Offer::Full => shared.full += 1,
                Offer::TooBig => shared.too_big += 1,
                Offer::Known => {}
            }
        }
        let Some(sig) = signature(result) else {
            return Ok(());
        };
        let cause = shape(&scenario);
        if let Some(&i) = shared.known_index.get(&(sig.clone(), cause.to_owned())) {
            shared.known[i].executions += 1;
            return Ok(());
        }
        if !shared.found.insert((sig.clone(), cause)) {
            return Ok(());
        }
        drop(shared);
        let until = self.deadline.max(Instant::now() + MINIMISE_GRACE);
        let (small, result) = minimise(scenario, &sig, self.target, &self.opts.run, until);
        let reproduced = signature(&result).as_deref() == Some(sig.as_str());
        let name = format!("seed-{}-{n}", self.seed);
        let replay = self.opts.replay_dialect.as_deref();
        let text = case_file(
            &name,
            &small,
            &result,
            &self.origin(n),
            &self.opts.run,
            replay,
        );
        let file = self.opts.out.join(format!("{name}.toml"));
        std::fs::create_dir_all(&self.opts.out).map_err(|error| FuzzError::Write {
            path: self.opts.out.clone(),
            error,
        })?;
        corpus::write_atomic(&file, &text)?;
        let mut shared = self.lock();
        if !reproduced {
            // A later input may show the same kind for good (a failure that
            // here depended on what an earlier input left): it is tried
            // again, up to `REPRODUCE_TRIES` flaky ones per kind.
            let tries = shared
                .flaky
                .iter()
                .filter(|f| f.signature == sig && f.shape == cause)
                .count();
            if tries + 1 < REPRODUCE_TRIES {
                shared.found.remove(&(sig.clone(), cause));
            }
            shared.flaky.push(FuzzFinding {
                signature: sig,
                shape: cause,
                execution: n,
                result,
                file,
            });
            return Ok(());
        }
        let resume_at = shared.resume_at();
        if let Some(corpus) = shared.corpus.as_mut() {
            self.update(corpus, resume_at);
            let known = KnownFinding {
                signature: sig.clone(),
                shape: cause.to_owned(),
                file: format!("{name}.toml"),
                seed: self.seed,
                execution: n,
            };
            corpus.remember(known, &text)?;
        }
        shared.findings.push(FuzzFinding {
            signature: sig,
            shape: cause,
            execution: n,
            result,
            file,
        });
        Ok(())
    }

    /// The corpus's state as of now, the next run starting at
    /// `resume_at`: if this one is killed, the executions under way are
    /// run again (the same inputs; some after them may run twice), none
    /// is skipped.
    fn update(&self, corpus: &mut Corpus, resume_at: u64) {
        let done = self.done.load(Ordering::Relaxed);
        let state = corpus.state.get_or_insert_with(State::default);
        state.seed = self.seed;
        state.next_execution = resume_at;
        state.executions = self.base_executions + done;
    }

    /// Runs the jobs, each on a thread of its own, until all are done;
    /// meanwhile tells `progress` twice a second and saves the state every
    /// [`SAVE_EVERY`] (a save that fails stops the run).
    fn work_on_threads(&self, started: Instant, progress: &mut dyn FnMut(Progress<'_>)) {
        let jobs = self.opts.jobs.max(1);
        std::thread::scope(|scope| {
            let (done_tx, done_rx) = mpsc::channel::<()>();
            for _ in 0..jobs {
                let done_tx = done_tx.clone();
                scope.spawn(move || {
                    self.work();
                    let _ = done_tx.send(());
                });
            }
            drop(done_tx);
            let mut running = jobs;
            let mut saved = Instant::now();
            while running > 0 {
                match done_rx.recv_timeout(Duration::from_millis(500)) {
                    Ok(()) => running -= 1,
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                }
                let findings = self.lock().findings.len();
                progress(Progress::Running {
                    executions: self.done.load(Ordering::Relaxed),
                    findings,
                    elapsed: started.elapsed(),
                });
                if saved.elapsed() >= SAVE_EVERY {
                    saved = Instant::now();
                    if let Err(e) = self.save() {
                        self.lock().error.get_or_insert(e);
                        self.stop.store(true, Ordering::Relaxed);
                    }
                }
            }
        });
    }

    /// Saves the corpus's state.
    fn save(&self) -> Result<(), FuzzError> {
        let mut shared = self.lock();
        let resume_at = shared.resume_at();
        if let Some(corpus) = shared.corpus.as_mut() {
            self.update(corpus, resume_at);
            corpus.save()?;
        }
        Ok(())
    }
}

/// Runs the fuzzer. `progress` hears of the start and, twice a second, of
/// the executions and findings so far.
pub fn fuzz(
    target: &Target,
    seeds: &[Vec<u8>],
    opts: &FuzzOptions,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<FuzzReport, FuzzError> {
    let started = Instant::now();
    let mut corpus = match &opts.corpus {
        Some(dir) => Some(Corpus::open(dir, opts.corpus_max)?),
        None => None,
    };
    let mut warnings = corpus
        .as_mut()
        .map_or_else(Vec::new, |c| std::mem::take(&mut c.warnings));
    let surface = mcp_surface(target, opts, &mut warnings);
    let previous = corpus.as_ref().and_then(|c| c.state.clone());
    let (seed, first) = starting_point(previous.as_ref(), opts.seed, &mut warnings);
    progress(Progress::Started {
        seed,
        first_execution: first,
        corpus: corpus.as_ref().map(|c| c.inputs.len()),
        warnings: &warnings,
    });
    let deadline = started + opts.time;
    let fixed = match corpus.as_mut() {
        Some(corpus) => begin(corpus, (seed, first), deadline, target, opts, &mut warnings)?,
        None => Vec::new(),
    };
    let before = corpus.as_ref().map_or(0, |c| c.inputs.len());
    let base_executions = previous.as_ref().map_or(0, |s| s.executions);
    // A notification that ends a correct server (LSP's `exit`): an input
    // holding one could only find that it did.
    let ending = opts.run.descriptor().serve.ending;
    let seeds: Vec<Vec<u8>> = seeds
        .iter()
        .filter(|l| ending.is_none_or(|m| !says(l, m)))
        .cloned()
        .collect();
    let seeds = &seeds[..];
    let run = Run {
        target,
        each: RunOptions {
            quick_writes: !opts.run.fresh,
            ..opts.run.clone()
        },
        seeds,
        opts,
        surface: surface.as_ref(),
        seed,
        first,
        base_executions,
        deadline,
        claimed: AtomicU64::new(0),
        done: AtomicU64::new(0),
        stop: AtomicBool::new(false),
        shared: Mutex::new(Shared::new(
            corpus,
            surface.as_ref().map(mcp::Coverage::of),
            first,
        )),
    };
    run.work_on_threads(started, progress);
    run.save()?;
    let executions = run.done.load(Ordering::Relaxed);
    let shared = run
        .shared
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(e) = shared.error {
        return Err(e);
    }
    let elapsed = started.elapsed();
    progress(Progress::Running {
        executions,
        findings: shared.findings.len(),
        elapsed,
    });
    Ok(FuzzReport {
        seed,
        first_execution: first,
        executions,
        findings: shared.findings,
        flaky: shared.flaky,
        known: shared
            .known
            .into_iter()
            .filter(|k| k.executions > 0)
            .collect(),
        corpus: shared.corpus.map(|c| CorpusSummary {
            dir: c.dir,
            before,
            after: c.inputs.len(),
            max: c.max_inputs,
            full: shared.full,
            too_big: shared.too_big,
        }),
        fixed,
        warnings,
        mcp: surface
            .zip(shared.coverage)
            .map(|(surface, coverage)| mcp::McpReport { surface, coverage }),
        elapsed,
    })
}

/// Begins a run on `corpus`: its known findings are replayed until the
/// `deadline` (those that no longer fail are forgotten: returned), and the
/// run, from execution `first` of `seed`, is counted in its state, saved.
fn begin(
    corpus: &mut Corpus,
    (seed, first): (u64, u64),
    deadline: Instant,
    target: &Target,
    opts: &FuzzOptions,
    warnings: &mut Vec<String>,
) -> Result<Vec<KnownFinding>, FuzzError> {
    let mut replay = |input: &Scenario| {
        (Instant::now() < deadline)
            .then(|| signature(&finding::run_scenario(input, target, &opts.run)))
    };
    let fixed = corpus.recheck(&mut replay, warnings)?;
    // The run counts as one even if it is killed; its state says
    // where it starts.
    let state = corpus.state.get_or_insert_with(State::default);
    state.seed = seed;
    state.next_execution = first;
    state.runs += 1;
    corpus.save()?;
    Ok(fixed)
}

/// With `--dialect mcp` (and its handshake), what the server declares:
/// MCP inputs past the handshake need it. A server that cannot say is a
/// warning, and inputs stop at the handshake.
fn mcp_surface(
    target: &Target,
    opts: &FuzzOptions,
    warnings: &mut Vec<String>,
) -> Option<mcp::Surface> {
    if opts.run.dialect != rpcspec_matcher::Dialect::Mcp
        || opts.run.handshake.as_deref().is_some_and(|h| h != "mcp")
    {
        return None;
    }
    match mcp::discover(target, &opts.run, &opts.tools) {
        Ok(s) => Some(s),
        Err(why) => {
            warnings.push(format!(
                "no MCP inputs past the handshake: asking the server what it declares failed: {why}"
            ));
            None
        }
    }
}

/// The run's seed and first execution number: where the corpus's last run
/// stopped, unless `--seed` names another seed (then from 0).
fn starting_point(
    previous: Option<&State>,
    seed: Option<u64>,
    warnings: &mut Vec<String>,
) -> (u64, u64) {
    match (previous, seed) {
        (Some(state), None) => (state.seed, state.next_execution),
        (Some(state), Some(seed)) if seed == state.seed => (seed, state.next_execution),
        (Some(state), Some(seed)) => {
            warnings.push(format!(
                "--seed {seed} is not the corpus's seed {}: execution numbers start at 0",
                state.seed
            ));
            (seed, 0)
        }
        (None, seed) => (seed.unwrap_or_else(clock_seed), 0),
    }
}

/// A seed from the clock, for a run that names none.
fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
