//! The driver: runs a target for a number of inputs or seconds, deterministically from a seed, and reports.
//!
//! - **Inputs.** Input `i` of target `t` under seed `s` is generated from its own RNG, seeded by
//!   [`input_seed`]`(s, t, i)`, so any single input can be regenerated without running the ones before it
//!   (`axe-fuzz --target T --seed S --index I`), and workers can run targets in parallel without changing them.
//! - **Checks.** Each input runs under `catch_unwind`: a panic is a failure with its message and location, and
//!   so is an `Err` from the target (a broken property, or a process that died, hung or exited badly).
//! - **Time.** An input slower than the target's [`Limits::time_bound`] is a failure; one still running after
//!   [`Limits::hang_after`] is a hang: a watchdog thread prints it, saves it and exits the process with
//!   [`HANG_EXIT`] (a running thread cannot be stopped from outside).
//! - **Memory.** The counting allocator ([`crate::alloc`]) gives each input's allocation peak; one above
//!   [`Limits::memory_bound`] is a failure. Crossing the process-wide hard cap aborts through [`fatal`], which
//!   prints the input first; so do fatal signals (abort, segfault, bus error, illegal instruction).
//! - **Failures** are written to `<crash dir>/<target>/<hash>` (16 hex digits of the input's FNV-1a hash) with a
//!   reproducer command; at most [`MAX_SAVED`] distinct ones (by kind and panic location or first message
//!   line) are saved and printed per target, and a target stops after [`MAX_FAILURES`] failures.
//!
//! This module holds the types, the per-input seeding and the running (one input, one target, lanes of
//! worker threads); `panics.rs` turns panics into values, `watchdog.rs` keeps the input each worker runs and
//! reports hangs, `crash.rs` prints that input when the process dies (the hard cap, fatal signals), and
//! `report.rs` saves failures and formats what a run prints.

mod crash;
mod panics;
mod report;
mod watchdog;

pub use crash::{fatal, install_signal_handlers, raw_write};
pub use report::{describe, excerpt, reproducer, save_input, table};

use crate::alloc;
use panics::catching;
use rand::SeedableRng;
use report::row;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use watchdog::{my_slot, CRASH_DIR};

/// The generators' random number generator: a portable algorithm whose output `rand` guarantees across
/// platforms, so a seed means the same inputs everywhere.
pub type Rng = rand::rngs::Xoshiro256PlusPlus;

/// Exit code of a run stopped by the watchdog because an input hung.
pub const HANG_EXIT: i32 = 3;

/// Most distinct failures saved and printed per target.
pub const MAX_SAVED: usize = 20;

/// A target stops after this many failures (the rest of its budget would only repeat them).
pub const MAX_FAILURES: u64 = 1000;

/// Where a target runs its inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A function call in this process.
    InProcess,
    /// A child process (`axe-opt`, `axe-translate`, `axe-layout`), under its own limits.
    Process,
}

/// What a target's check made of an input that broke no property: the entry point accepted it or refused it.
/// Every target reports both counts, so a run shows how much of its budget reached past the front door (a
/// target that refuses nearly everything tests little beyond its refusals).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The entry point accepted the input: a plan, a parse, an answer; a tool exited 0.
    Planned,
    /// The entry point refused the input as its contract says (an error naming its rule where the target
    /// requires one; a tool's diagnostic and exit code 1, or 2 for a malformed command line), or the input did
    /// not reach it (a field that does not parse).
    Refused,
}

/// A target's check: runs one input; `Err` describes a failure (a broken property, a bad exit), `Ok` says
/// whether the input was planned or refused.
pub type Check = fn(&str) -> Result<Outcome, String>;

/// One fuzz target: a generator of inputs (text) and a check that runs one input.
#[derive(Clone, Copy)]
pub struct Target {
    /// The name used on the command line and in the crash directory.
    pub name: &'static str,
    /// One line: the entry point and the properties checked.
    pub about: &'static str,
    /// In-process or process-level.
    pub kind: Kind,
    /// Share of a time budget relative to other targets (process targets are slower per input).
    pub weight: u32,
    /// Produces one input from the RNG. Must be deterministic given the RNG (and the seed corpus).
    pub generate: fn(&mut Rng) -> String,
    /// Runs one input; `Err` describes a failure (a broken property, a bad exit), `Ok` its [`Outcome`].
    pub check: Check,
    /// The limits each input runs under.
    pub limits: Limits,
}

/// The bounds one input runs under.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// An input slower than this is a failure.
    pub time_bound: Duration,
    /// An input still running after this is a hang: the process reports it and exits with [`HANG_EXIT`].
    pub hang_after: Duration,
    /// An input whose allocation peak (in this process) grows by more than this many bytes is a failure.
    pub memory_bound: usize,
}

impl Limits {
    /// In-process defaults: 10 s per input (generous: debug builds on a loaded CI machine are slow, and the
    /// bound is there to catch runaway inputs, not to time normal ones), a hang after 120 s, 512 MiB of peak
    /// allocation growth.
    pub const IN_PROCESS: Limits =
        Limits { time_bound: Duration::from_secs(10), hang_after: Duration::from_secs(120), memory_bound: 512 << 20 };
}

/// How much of a target to run: stop at whichever bound comes first (at least one should be set).
#[derive(Clone, Copy, Debug, Default)]
pub struct Budget {
    /// Number of inputs.
    pub runs: Option<u64>,
    /// Wall-clock time.
    pub time: Option<Duration>,
}

/// What went wrong with one input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// The generator or the target panicked.
    Panic,
    /// The target returned `Err`: a broken property or a bad process exit.
    Check,
    /// The input took longer than the time bound.
    Slow,
    /// The input's allocation peak exceeded the memory bound.
    Memory,
}

/// One failing input.
#[derive(Clone, Debug)]
pub struct Failure {
    /// Its kind.
    pub kind: FailureKind,
    /// The panic message (with location), the target's error, or the measured time or memory.
    pub message: String,
    /// The input text.
    pub input: String,
    /// Its index under the run's seed (`None` for a replayed file).
    pub index: Option<u64>,
}

impl Failure {
    /// A key that groups failures with the same cause: the kind and the first line of the message.
    pub fn signature(&self) -> String {
        let first = self.message.lines().next().unwrap_or("");
        format!("{:?}: {}", self.kind, first.chars().take(200).collect::<String>())
    }
}

/// The counts of one target's run.
#[derive(Clone, Debug)]
pub struct Stats {
    /// The target's name.
    pub target: &'static str,
    /// Inputs run.
    pub runs: u64,
    /// Inputs the entry point accepted (`Ok(Outcome::Planned)` within the bounds).
    pub planned: u64,
    /// Inputs the entry point refused (`Ok(Outcome::Refused)` within the bounds).
    pub refused: u64,
    /// Inputs that failed (a slow or memory-hungry input counts here, not as planned or refused), so
    /// `planned + refused + failures == runs`.
    pub failures: u64,
    /// Wall-clock time of the whole run.
    pub elapsed: Duration,
    /// The slowest input.
    pub slowest: Duration,
    /// The largest allocation peak growth of one input, in bytes.
    pub max_memory: usize,
    /// Distinct failures (up to [`MAX_SAVED`]), with the file each was saved to.
    pub saved: Vec<(Failure, Option<PathBuf>)>,
}

/// Options shared by every target of a run.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// The run's seed.
    pub seed: u64,
    /// Where failing inputs are written (`<dir>/<target>/<hash>`); `None`: not written.
    pub crash_dir: Option<PathBuf>,
    /// Print each new distinct failure as it is found.
    pub verbose: bool,
}

/// FNV-1a, 64 bits: the crash file name and part of the per-input seed.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The RNG seed of input `index` of `target` under the run seed `seed`.
pub fn input_seed(seed: u64, target: &str, index: u64) -> u64 {
    splitmix(splitmix(seed ^ fnv1a(target.as_bytes())) ^ splitmix(index.wrapping_add(1)))
}

/// Input `index` of `target` under `seed` (the generator runs under `catch_unwind`; a panic is returned as `Err`).
pub fn generate(target: &Target, seed: u64, index: u64) -> Result<String, String> {
    let mut rng = Rng::seed_from_u64(input_seed(seed, target.name, index));
    let generate = target.generate;
    catching(|| generate(&mut rng))
}

// ----- running ------------------------------------------------------------------------------------------------

/// One input that did not fail: planned or refused, its time and allocation peak growth.
#[derive(Clone, Copy, Debug)]
pub struct Measured {
    /// Whether the entry point accepted or refused it.
    pub outcome: Outcome,
    /// Wall-clock time of the check.
    pub time: Duration,
    /// Allocation peak growth of the check, in bytes (0 when the counting allocator is not installed).
    pub memory: usize,
}

/// Runs one input through `target`'s check under its limits (no generation, no saving); `index` is the
/// input's index under `seed`, `None` for an input read from a file.
pub fn run_input(target: &Target, input: &str, seed: u64, index: Option<u64>) -> Result<Measured, Failure> {
    let slot = my_slot();
    slot.begin(target, seed, index.unwrap_or(u64::MAX), input);
    let base = alloc::reset_thread_peak();
    let start = Instant::now();
    let check = target.check;
    let result = catching(|| check(input));
    let time = start.elapsed();
    let memory = (alloc::thread_peak() - base).max(0) as usize;
    slot.end();
    let fail = |kind, message| Failure { kind, message, input: input.to_string(), index };
    match result {
        Err(panic) => Err(fail(FailureKind::Panic, panic)),
        Ok(Err(message)) => Err(fail(FailureKind::Check, message)),
        Ok(Ok(_)) if time > target.limits.time_bound => Err(fail(
            FailureKind::Slow,
            format!(
                "took {:.3} s, more than the bound of {:.3} s",
                time.as_secs_f64(),
                target.limits.time_bound.as_secs_f64()
            ),
        )),
        Ok(Ok(_)) if memory > target.limits.memory_bound => Err(fail(
            FailureKind::Memory,
            format!("allocated a peak of {memory} bytes, more than the bound of {}", target.limits.memory_bound),
        )),
        Ok(Ok(outcome)) => Ok(Measured { outcome, time, memory }),
    }
}

/// Runs `target` within `budget`: generate, check, count; saves and prints distinct failures.
pub fn run_target(target: &Target, budget: Budget, config: &RunConfig) -> Stats {
    install_signal_handlers();
    if let Some(dir) = &config.crash_dir {
        *CRASH_DIR.lock().unwrap_or_else(|e| e.into_inner()) = Some(dir.clone());
    }
    let mut stats = Stats {
        target: target.name,
        runs: 0,
        planned: 0,
        refused: 0,
        failures: 0,
        elapsed: Duration::ZERO,
        slowest: Duration::ZERO,
        max_memory: 0,
        saved: Vec::new(),
    };
    let mut seen = BTreeSet::new();
    let start = Instant::now();
    let spent = |n: u64| budget.runs.is_some_and(|r| n >= r) || budget.time.is_some_and(|t| start.elapsed() >= t);
    // The target's regression seeds (fuzz/seeds/<target>/) first, as they are.
    let regressions = crate::seeds::regressions(target.name);
    for text in &regressions {
        if spent(stats.runs) {
            break;
        }
        stats.runs += 1;
        let outcome = run_input(target, text, config.seed, None);
        if record(&mut stats, &mut seen, target, config, outcome) {
            break;
        }
    }
    for index in 0u64.. {
        if spent(stats.runs) || (budget.runs.is_none() && budget.time.is_none()) {
            break;
        }
        stats.runs += 1;
        let outcome = match generate(target, config.seed, index) {
            Ok(input) => run_input(target, &input, config.seed, Some(index)),
            Err(panic) => Err(Failure {
                kind: FailureKind::Panic,
                message: format!("in the generator: {panic}"),
                input: String::new(),
                index: Some(index),
            }),
        };
        if record(&mut stats, &mut seen, target, config, outcome) {
            break;
        }
    }
    stats.elapsed = start.elapsed();
    stats
}

/// Counts one outcome; saves and prints a new distinct failure. Returns true when the target should stop.
fn record(
    stats: &mut Stats,
    seen: &mut BTreeSet<String>,
    target: &Target,
    config: &RunConfig,
    outcome: Result<Measured, Failure>,
) -> bool {
    match outcome {
        Ok(m) => {
            match m.outcome {
                Outcome::Planned => stats.planned += 1,
                Outcome::Refused => stats.refused += 1,
            }
            stats.slowest = stats.slowest.max(m.time);
            stats.max_memory = stats.max_memory.max(m.memory);
            false
        }
        Err(failure) => {
            stats.failures += 1;
            if stats.saved.len() < MAX_SAVED && seen.insert(failure.signature()) {
                let path = config.crash_dir.as_ref().and_then(|d| save_input(d, target.name, &failure.input).ok());
                if config.verbose {
                    eprintln!("{}", describe(target.name, &failure, config.seed, path.as_deref()));
                }
                stats.saved.push((failure, path));
            }
            if stats.failures >= MAX_FAILURES {
                eprintln!("axe-fuzz: {}: stopping after {MAX_FAILURES} failures", target.name);
                return true;
            }
            false
        }
    }
}

/// Splits `seconds` of wall-clock time over `jobs` lanes: targets are placed heaviest first on the least
/// loaded lane (longest-processing-time scheduling), and each gets the share of its lane's time its weight asks
/// for, so every lane ends after `seconds`. Returns (target, budget, lane) in the order given.
pub fn plan_lanes(targets: &[Target], seconds: f64, runs: Option<u64>, jobs: usize) -> Vec<(Target, Budget, usize)> {
    let jobs = jobs.max(1).min(targets.len().max(1));
    let mut order: Vec<usize> = (0..targets.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(targets[i].weight));
    let mut load = vec![0u32; jobs];
    let mut lane = vec![0usize; targets.len()];
    for i in order {
        let l = (0..jobs).min_by_key(|&l| load[l]).unwrap_or(0);
        lane[i] = l;
        load[l] += targets[i].weight.max(1);
    }
    targets
        .iter()
        .zip(lane)
        .map(|(t, l)| {
            let share = f64::from(t.weight.max(1)) / f64::from(load[l].max(1));
            (*t, Budget { runs, time: Some(Duration::from_secs_f64(seconds * share)) }, l)
        })
        .collect()
}

/// Runs (target, budget, lane) triples: one worker thread (with a large stack) per lane runs its targets in
/// order. Returns the stats in the order given.
pub fn run_lanes(work: &[(Target, Budget, usize)], config: &RunConfig) -> Vec<Stats> {
    let lanes = work.iter().map(|w| w.2 + 1).max().unwrap_or(0);
    let results: Mutex<Vec<Option<Stats>>> = Mutex::new(vec![None; work.len()]);
    std::thread::scope(|scope| {
        for lane in 0..lanes {
            let results = &results;
            let spawned = std::thread::Builder::new()
                .name(format!("axe-fuzz-{lane}"))
                .stack_size(64 << 20)
                .spawn_scoped(scope, move || {
                    for (i, (target, budget, _)) in work.iter().enumerate().filter(|(_, w)| w.2 == lane) {
                        let stats = run_target(target, *budget, config);
                        if config.verbose {
                            // A long run shows each target's row as it ends, so an interrupted run still reports.
                            eprint!("axe-fuzz: done {}", row(&stats));
                        }
                        results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(stats);
                    }
                });
            if let Err(e) = spawned {
                eprintln!("axe-fuzz: cannot start worker {lane}: {e}");
            }
        }
    });
    results.into_inner().unwrap_or_else(|e| e.into_inner()).into_iter().flatten().collect()
}

/// Runs (target, budget) pairs on `jobs` worker threads, each taking the next pair when it is done.
pub fn run_all(work: &[(Target, Budget)], jobs: usize, config: &RunConfig) -> Vec<Stats> {
    let jobs = jobs.max(1);
    let laned: Vec<(Target, Budget, usize)> = work.iter().enumerate().map(|(i, (t, b))| (*t, *b, i % jobs)).collect();
    run_lanes(&laned, config)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    pub(super) fn config(dir: Option<PathBuf>) -> RunConfig {
        RunConfig { seed: 7, crash_dir: dir, verbose: false }
    }

    fn numbers(rng: &mut Rng) -> String {
        rng.random_range(0..1000u32).to_string()
    }

    pub(super) fn target(name: &'static str, check: Check, limits: Limits) -> Target {
        Target { name, about: "test", kind: Kind::InProcess, weight: 1, generate: numbers, check, limits }
    }

    pub(super) fn runs(n: u64) -> Budget {
        Budget { runs: Some(n), time: None }
    }

    #[test]
    fn a_panic_is_a_failure_saved_with_its_input() {
        let dir = std::env::temp_dir().join(format!("axe-fuzz-test-{}", std::process::id()));
        let t = target(
            "panics",
            |s| if s.ends_with('7') { panic!("boom on {s}") } else { Ok(Outcome::Planned) },
            Limits::IN_PROCESS,
        );
        let stats = run_target(&t, runs(300), &config(Some(dir.clone())));
        assert_eq!(stats.runs, 300);
        assert!(stats.failures > 0 && stats.failures < 300, "{} failures", stats.failures);
        let (failure, path) = &stats.saved[0];
        assert_eq!(failure.kind, FailureKind::Panic);
        assert!(failure.input.ends_with('7'), "{failure:?}");
        assert!(failure.message.contains(&format!("boom on {}", failure.input)), "{}", failure.message);
        assert!(failure.message.contains("driver.rs"), "the location is kept: {}", failure.message);
        let path = path.as_ref().expect("saved");
        assert_eq!(std::fs::read_to_string(path).expect("crash file"), failure.input);
        let index = failure.index.expect("generated input");
        assert_eq!(generate(&t, 7, index).as_deref(), Ok(failure.input.as_str()), "reproducible by index");
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn an_error_is_a_check_failure() {
        let t =
            target("errs", |s| if s == "5" { Err("five".into()) } else { Ok(Outcome::Planned) }, Limits::IN_PROCESS);
        let stats = run_target(&t, runs(3000), &config(None));
        assert!(stats.failures > 0);
        assert!(stats.saved.iter().all(|(f, _)| f.kind == FailureKind::Check && f.message == "five" && f.input == "5"));
    }

    #[test]
    fn allocating_past_the_bound_is_flagged() {
        assert!(alloc::installed(), "the tests install the counting allocator");
        let limits = Limits { memory_bound: 16 << 20, ..Limits::IN_PROCESS };
        let big = target(
            "allocates",
            |_| {
                let v = std::hint::black_box(vec![1u8; 64 << 20]);
                assert_eq!(v.len(), 64 << 20);
                Ok(Outcome::Planned)
            },
            limits,
        );
        let stats = run_target(&big, runs(2), &config(None));
        assert_eq!(stats.failures, 2);
        assert_eq!(stats.saved[0].0.kind, FailureKind::Memory, "{:?}", stats.saved[0].0);
        let small = target(
            "allocates-little",
            |s| {
                drop(std::hint::black_box(s.repeat(100)));
                Ok(Outcome::Planned)
            },
            limits,
        );
        let stats = run_target(&small, runs(50), &config(None));
        assert_eq!(stats.failures, 0);
        assert!(stats.max_memory > 0 && stats.max_memory < 16 << 20, "{}", stats.max_memory);
    }

    #[test]
    fn a_slow_input_is_flagged() {
        let limits = Limits { time_bound: Duration::from_millis(5), ..Limits::IN_PROCESS };
        let t = target(
            "sleeps",
            |_| {
                std::thread::sleep(Duration::from_millis(30));
                Ok(Outcome::Planned)
            },
            limits,
        );
        let stats = run_target(&t, runs(1), &config(None));
        assert_eq!(stats.saved[0].0.kind, FailureKind::Slow);
    }

    #[test]
    fn the_same_seed_gives_the_same_inputs() {
        let t = target("det", |_| Ok(Outcome::Planned), Limits::IN_PROCESS);
        let a: Vec<String> = (0..50).map(|i| generate(&t, 42, i).unwrap_or_default()).collect();
        let b: Vec<String> = (0..50).map(|i| generate(&t, 42, i).unwrap_or_default()).collect();
        let c: Vec<String> = (0..50).map(|i| generate(&t, 43, i).unwrap_or_default()).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        // Every real target too: generation depends on the seed and the index only.
        for t in crate::targets::layout::targets() {
            for i in 0..20 {
                assert_eq!(generate(&t, 9, i), generate(&t, 9, i), "{} input {i}", t.name);
            }
        }
    }

    #[test]
    fn lanes_end_together() {
        let mut heavy = target("heavy", |_| Ok(Outcome::Planned), Limits::IN_PROCESS);
        heavy.weight = 4;
        let light = target("light", |_| Ok(Outcome::Planned), Limits::IN_PROCESS);
        let plan = plan_lanes(&[light, heavy, light, heavy], 60.0, None, 2);
        let mut per_lane = [0.0f64; 2];
        for (_, budget, lane) in &plan {
            per_lane[*lane] += budget.time.map_or(0.0, |t| t.as_secs_f64());
        }
        assert!(per_lane.iter().all(|t| (t - 60.0).abs() < 1e-6), "{per_lane:?}");
    }

    /// Planned if the generated number is even, refused if odd, a failure if it ends in 7.
    fn parity(s: &str) -> Result<Outcome, String> {
        match s.parse::<u32>() {
            Ok(n) if n % 10 == 7 => Err("seven".into()),
            Ok(n) if n % 2 == 0 => Ok(Outcome::Planned),
            _ => Ok(Outcome::Refused),
        }
    }

    #[test]
    fn planned_refused_and_failures_add_up_to_the_runs() {
        let t = target("parity", parity, Limits::IN_PROCESS);
        let stats = run_target(&t, runs(400), &config(None));
        assert_eq!(stats.runs, 400);
        assert_eq!(stats.planned + stats.refused + stats.failures, stats.runs, "{stats:?}");
        // Counted independently from the same inputs: input i is regenerated by its index alone.
        let inputs: Vec<u32> = (0..400).map(|i| generate(&t, 7, i).unwrap_or_default().parse().unwrap_or(0)).collect();
        let count = |f: fn(u32) -> bool| inputs.iter().filter(|&&n| f(n)).count() as u64;
        assert_eq!(stats.failures, count(|n| n % 10 == 7));
        assert_eq!(stats.planned, count(|n| n % 2 == 0));
        assert_eq!(stats.refused, count(|n| n % 2 == 1 && n % 10 != 7));
        assert!(stats.planned > 0 && stats.refused > 0 && stats.failures > 0, "{stats:?}");
        // The same seed and run count give the same counts.
        let again = run_target(&t, runs(400), &config(None));
        assert_eq!((again.planned, again.refused, again.failures), (stats.planned, stats.refused, stats.failures));
    }

    #[test]
    fn a_target_that_only_refuses_reports_no_plan() {
        let t = target("refuses", |_| Ok(Outcome::Refused), Limits::IN_PROCESS);
        let stats = run_all(&[(t, runs(25))], 1, &config(None));
        assert_eq!((stats[0].runs, stats[0].planned, stats[0].refused, stats[0].failures), (25, 0, 25, 0));
        let text = table(&stats);
        let cols: Vec<&str> = text.lines().nth(1).unwrap_or("").split_whitespace().collect();
        assert_eq!(cols[..5], ["refuses", "25", "0", "25", "0"], "{text}");
    }

    #[test]
    fn a_slow_planned_input_is_a_failure_not_a_plan() {
        let limits = Limits { time_bound: Duration::from_millis(5), ..Limits::IN_PROCESS };
        let t = target(
            "slow-plans",
            |_| {
                std::thread::sleep(Duration::from_millis(20));
                Ok(Outcome::Planned)
            },
            limits,
        );
        let stats = run_target(&t, runs(2), &config(None));
        assert_eq!((stats.planned, stats.refused, stats.failures), (0, 0, 2));
    }
}
