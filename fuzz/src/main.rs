//! `axe-fuzz`: run the fuzz targets and print a table of runs, planned and refused inputs, and failures.
//!
//! ```text
//! axe-fuzz [--seconds S | --runs N] [--seed X] [--target NAME ...] [--jobs J] [--list]
//!          [--tools DIR] [--timeout S] [--crash-dir DIR] [--root DIR] [--memory-cap MIB] [--quiet]
//! axe-fuzz --target NAME --replay FILE ...          rerun saved inputs
//! axe-fuzz --target NAME --seed X --index I [--print]  regenerate and rerun one input
//! ```
//!
//! `--seconds` is wall-clock time for the whole run: the targets are spread over `--jobs` worker threads
//! (heaviest first on the least loaded) and each thread's time is split by weight, so all end together;
//! `--runs` is per target (with `--seconds` too, whichever ends first). A target name may end in `*`
//! to select every target with that prefix. Exit code 0 when nothing failed, 1 on any failure, 2 for a bad
//! command line; a hang exits with 3 and a fatal signal or the memory hard cap with the signal.

use axe_fuzz::driver::{self, Budget, Kind, RunConfig, Target};
use axe_fuzz::targets::{self, process};
use axe_fuzz::{alloc, gen_layout, seeds};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[global_allocator]
static ALLOC: alloc::CountingAlloc = alloc::CountingAlloc;

const USAGE: &str = "usage: axe-fuzz [--seconds S | --runs N] [--seed X] [--target NAME ...] [--jobs J] [--list]
                [--tools DIR] [--timeout S] [--crash-dir DIR] [--root DIR] [--memory-cap MIB] [--quiet]
       axe-fuzz --target NAME --replay FILE ...
       axe-fuzz --target NAME --seed X --index I [--print]";

#[derive(Debug)]
struct Options {
    seconds: Option<f64>,
    runs: Option<u64>,
    seed: u64,
    targets: Vec<String>,
    jobs: usize,
    list: bool,
    tools: Option<PathBuf>,
    timeout: Option<f64>,
    crash_dir: PathBuf,
    root: Option<PathBuf>,
    memory_cap_mib: u64,
    quiet: bool,
    replay: Vec<PathBuf>,
    index: Option<u64>,
    print: bool,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        seconds: None,
        runs: None,
        seed: 1,
        targets: Vec::new(),
        jobs: 1,
        list: false,
        tools: None,
        timeout: None,
        crash_dir: PathBuf::from("target/fuzz-crashes"),
        root: None,
        memory_cap_mib: 6144,
        quiet: false,
        replay: Vec::new(),
        index: None,
        print: false,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        let mut value = || inline.clone().or_else(|| it.next().cloned()).ok_or(format!("{name} needs a value"));
        let number = |v: String| v.parse::<f64>().map_err(|_| format!("{name}: not a number: {v}"));
        let integer = |v: String| v.parse::<u64>().map_err(|_| format!("{name}: not an integer: {v}"));
        match name {
            "--seconds" => o.seconds = Some(number(value()?)?),
            "--runs" => o.runs = Some(integer(value()?)?),
            "--seed" => o.seed = integer(value()?)?,
            "--target" => o.targets.push(value()?),
            "--jobs" => o.jobs = integer(value()?)?.max(1) as usize,
            "--list" => o.list = true,
            "--tools" => o.tools = Some(PathBuf::from(value()?)),
            "--timeout" => o.timeout = Some(number(value()?)?),
            "--crash-dir" => o.crash_dir = PathBuf::from(value()?),
            "--root" => o.root = Some(PathBuf::from(value()?)),
            "--memory-cap" => o.memory_cap_mib = integer(value()?)?,
            "--quiet" => o.quiet = true,
            "--replay" => o.replay.push(PathBuf::from(value()?)),
            "--index" => o.index = Some(integer(value()?)?),
            "--print" => o.print = true,
            "-h" | "--help" => return Err(String::new()),
            other if !o.replay.is_empty() && !other.starts_with('-') => o.replay.push(PathBuf::from(other)),
            other => return Err(format!("unknown argument '{other}'")),
        }
    }
    Ok(o)
}

/// The targets named by `patterns` (`NAME` or `PREFIX*`), all when none are given.
fn select(patterns: &[String]) -> Result<Vec<Target>, String> {
    let all = targets::all();
    if patterns.is_empty() {
        return Ok(all);
    }
    let mut out: Vec<Target> = Vec::new();
    for p in patterns {
        let matched: Vec<Target> = all
            .iter()
            .filter(|t| match p.strip_suffix('*') {
                Some(prefix) => t.name.starts_with(prefix),
                None => t.name == p,
            })
            .copied()
            .collect();
        if matched.is_empty() {
            return Err(format!("no target matches '{p}' (see --list)"));
        }
        for t in matched {
            if !out.iter().any(|o| o.name == t.name) {
                out.push(t);
            }
        }
    }
    Ok(out)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let o = match parse(&args) {
        Ok(o) => o,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("axe-fuzz: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(if e.is_empty() { 0 } else { 2 });
        }
    };
    if let Some(root) = &o.root {
        seeds::set_root(root);
    }
    let mut tools = process::ToolConfig::default();
    if let Some(dir) = &o.tools {
        tools.dir = dir.clone();
    }
    if let Some(t) = o.timeout {
        tools.timeout = Duration::from_secs_f64(t);
    }
    process::configure(tools.clone());
    if !alloc::installed() {
        eprintln!("axe-fuzz: warning: the counting allocator is not installed; memory bounds are off");
    }
    alloc::set_hard_cap((o.memory_cap_mib as usize) << 20);
    driver::install_signal_handlers();
    gen_layout::declare_axes();

    let selected = match select(&o.targets) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("axe-fuzz: {e}");
            return ExitCode::from(2);
        }
    };
    if o.list {
        for t in &selected {
            let kind = match t.kind {
                Kind::InProcess => "in-process",
                Kind::Process => "process",
            };
            println!("{:<24} {:<10} {}", t.name, kind, t.about);
        }
        return ExitCode::SUCCESS;
    }
    if !o.replay.is_empty() || o.index.is_some() {
        return reproduce(&o, &selected);
    }

    if selected.iter().any(|t| t.kind == Kind::Process) {
        for tool in ["axe-opt", "axe-translate", "axe-layout"] {
            if !tools.dir.join(tool).exists() {
                eprintln!(
                    "axe-fuzz: {} not found (build the tools, or pass --tools DIR)",
                    tools.dir.join(tool).display()
                );
                return ExitCode::from(2);
            }
        }
    }
    let seconds = o.seconds.or(if o.runs.is_none() { Some(60.0) } else { None });
    let work: Vec<(Target, Budget, usize)> = match seconds {
        Some(s) => driver::plan_lanes(&selected, s, o.runs, o.jobs),
        None => selected
            .iter()
            .enumerate()
            .map(|(i, t)| (*t, Budget { runs: o.runs, time: None }, i % o.jobs.max(1)))
            .collect(),
    };
    eprintln!(
        "axe-fuzz: seed {}, {} targets, {} job(s), {}; tools in {}",
        o.seed,
        work.len(),
        o.jobs,
        match (seconds, o.runs) {
            (Some(s), Some(r)) => format!("{r} runs or {s} s per target"),
            (Some(s), None) => format!("{s} s in all"),
            (None, Some(r)) => format!("{r} runs per target"),
            (None, None) => "no budget".into(),
        },
        tools.dir.display()
    );
    let config = RunConfig { seed: o.seed, crash_dir: Some(o.crash_dir.clone()), verbose: !o.quiet };
    let stats = driver::run_lanes(&work, &config);
    print!("{}", driver::table(&stats));
    let failures: u64 = stats.iter().map(|s| s.failures).sum();
    if failures > 0 {
        eprintln!("axe-fuzz: {failures} failing input(s); distinct ones are in {}", o.crash_dir.display());
        for s in &stats {
            for (f, path) in &s.saved {
                eprintln!("  {}: {:?}: {}", s.target, f.kind, f.message.lines().next().unwrap_or(""));
                eprintln!("    {}", driver::reproducer(s.target, f.index.map(|i| (o.seed, i)), path.as_deref()));
            }
        }
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// `--replay FILE...` or `--index I`: rerun inputs of one target and print what happens.
fn reproduce(o: &Options, selected: &[Target]) -> ExitCode {
    let [target] = selected else {
        eprintln!("axe-fuzz: --replay and --index need exactly one --target");
        return ExitCode::from(2);
    };
    let mut inputs: Vec<(String, Option<u64>, String)> = Vec::new();
    for path in &o.replay {
        match std::fs::read_to_string(path) {
            Ok(text) => inputs.push((path.display().to_string(), None, text)),
            Err(e) => {
                eprintln!("axe-fuzz: cannot read {}: {e}", path.display());
                return ExitCode::from(2);
            }
        }
    }
    if let Some(i) = o.index {
        match driver::generate(target, o.seed, i) {
            Ok(text) => inputs.push((format!("input #{i} of seed {}", o.seed), Some(i), text)),
            Err(e) => {
                eprintln!("axe-fuzz: the generator failed: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    let mut failed = false;
    for (name, index, text) in inputs {
        if o.print {
            println!("{text}");
        }
        match driver::run_input(target, &text, o.seed, index) {
            Ok(m) => eprintln!(
                "{name}: ok, {} ({:.3} ms, {} KiB peak)",
                match m.outcome {
                    driver::Outcome::Planned => "planned",
                    driver::Outcome::Refused => "refused",
                },
                m.time.as_secs_f64() * 1e3,
                m.memory / 1024
            ),
            Err(f) => {
                failed = true;
                eprintln!("{name}:\n{}", driver::describe(target.name, &f, o.seed, None));
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
