//! Process-level targets: `axe-opt`, `axe-translate` and `axe-layout` run as child processes under limits.
//!
//! Each child runs with `RLIMIT_AS` (address space), `RLIMIT_CPU` and no core dumps (set in `pre_exec`), in its
//! own process group, under a wall-clock timeout after which the group is killed. A run fails on any signal
//! (abort, segfault, the kernel's kill for CPU time), on the timeout, on a Rust panic message, and on any exit
//! code other than 0 or 1 (`axe-layout` may exit 2 only for a command line the generator marked malformed), and
//! on exit code 1 without a diagnostic on stderr. Exit 0 counts as planned, 1 (or the allowed 2) as refused;
//! an `axe-layout serve` command line (a server, never run) counts as refused.
//!
//! An input is a header of `arg WORD` lines (the command line, one word per line, so words may hold spaces),
//! optionally `via file` (the content goes to a temporary file named by `%INPUT` in the arguments or appended
//! as the last one; otherwise it is the child's stdin) and `malformed yes`, then a `====` line and the content.
//!
//! Inputs: generated IR ([`crate::gen_ir`]) and lit tests and examples mutated by token and line edits
//! ([`crate::mutate::mutate_seed`]), with pass flags drawn from the pass list that `axe-opt --help` prints; for
//! `axe-translate`, the lowered output of the example and of
//! generated TMA kernels (produced once with `axe-opt --lower-tma --lower-to-nvvm`), mutated, with every
//! `--emit`, `--chip` and `-O` choice; for `axe-layout`, every subcommand with generated layouts, shapes,
//! regions and options, plus mutated RUN-line command lines from `test/Layout`.

use crate::driver::{self, Kind, Limits, Rng, Target};
use crate::gen_layout::{self, Knobs};
use crate::{gen_ir, mutate, seeds};
use axe_layout::notation::parse_layout;
use axe_layout::Layout;
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Where the tools are and the limits their runs get.
#[derive(Clone, Debug)]
pub struct ToolConfig {
    /// The folder holding `axe-opt`, `axe-translate` and `axe-layout`.
    pub dir: PathBuf,
    /// Wall-clock timeout of one run.
    pub timeout: Duration,
    /// `RLIMIT_AS` of a child, in bytes.
    pub memory: u64,
}

impl Default for ToolConfig {
    fn default() -> Self {
        ToolConfig { dir: seeds::root().join("target/debug"), timeout: Duration::from_secs(20), memory: 4 << 30 }
    }
}

static CONFIG: Mutex<Option<ToolConfig>> = Mutex::new(None);

/// Sets the tool folder and limits (before the first run).
pub fn configure(config: ToolConfig) {
    *CONFIG.lock().unwrap_or_else(|e| e.into_inner()) = Some(config);
}

/// The configuration in force.
pub fn config() -> ToolConfig {
    CONFIG.lock().unwrap_or_else(|e| e.into_inner()).clone().unwrap_or_default()
}

fn limits() -> Limits {
    let t = config().timeout;
    Limits {
        time_bound: t + Duration::from_secs(10),
        hang_after: t * 3 + Duration::from_secs(30),
        memory_bound: 256 << 20,
    }
}

/// The process targets.
pub fn targets() -> Vec<Target> {
    let t = |name, about, weight, generate, check| Target {
        name,
        about,
        kind: Kind::Process,
        weight,
        generate,
        check,
        limits: limits(),
    };
    vec![
        t(
            "proc-axe-layout",
            "axe-layout: every subcommand, generated and mutated command lines",
            3,
            gen_layout_cli,
            check_layout_cli,
        ),
        t("proc-axe-opt", "axe-opt: generated IR and mutated lit tests under pass flags", 4, gen_opt, check_opt),
        t(
            "proc-axe-translate",
            "axe-translate: lowered and mutated modules, every emit/chip/-O",
            4,
            gen_translate,
            check_translate,
        ),
    ]
}

// ----- inputs -------------------------------------------------------------------------------------------------

/// A decoded process input.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ProcInput {
    /// The command line after the program name.
    pub args: Vec<String>,
    /// Pass the content as a file (named by `%INPUT`, else appended) instead of stdin.
    pub via_file: bool,
    /// The command line may be malformed: exit code 2 is allowed (axe-layout).
    pub malformed: bool,
    /// The content.
    pub content: String,
}

impl ProcInput {
    /// Encodes the input as text (see the module documentation).
    pub fn encode(&self) -> String {
        let mut out = String::new();
        for a in &self.args {
            out.push_str("arg ");
            out.push_str(&a.replace('\n', " "));
            out.push('\n');
        }
        if self.via_file {
            out.push_str("via file\n");
        }
        if self.malformed {
            out.push_str("malformed yes\n");
        }
        out.push_str("====\n");
        out.push_str(&self.content);
        out
    }

    /// Decodes an input; text without a `====` line is all content.
    pub fn decode(text: &str) -> ProcInput {
        let Some((head, content)) =
            text.split_once("\n====\n").or_else(|| text.strip_prefix("====\n").map(|c| ("", c)))
        else {
            return ProcInput { content: text.to_string(), ..ProcInput::default() };
        };
        let mut input = ProcInput { content: content.to_string(), ..ProcInput::default() };
        for line in head.lines() {
            if let Some(a) = line.strip_prefix("arg ") {
                input.args.push(a.to_string());
            } else if line == "via file" {
                input.via_file = true;
            } else if line == "malformed yes" {
                input.malformed = true;
            }
        }
        input
    }
}

// ----- running ------------------------------------------------------------------------------------------------

/// The result of one child run.
#[derive(Debug)]
pub struct Outcome {
    /// The exit code, if it exited.
    pub code: Option<i32>,
    /// The signal that ended it, if any.
    pub signal: Option<i32>,
    /// Killed by the wall-clock timeout.
    pub timed_out: bool,
    /// The first 64 KiB of stderr.
    pub stderr: String,
    /// The first 64 KiB of stdout.
    pub stdout: String,
    /// Wall-clock time.
    pub time: Duration,
}

fn read_capped(mut r: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut buf = [0u8; 8192];
        while let Ok(n) = r.read(&mut buf) {
            if n == 0 {
                break;
            }
            if kept.len() < 64 << 10 {
                kept.extend_from_slice(&buf[..n.min((64 << 10) - kept.len())]);
            }
        }
        String::from_utf8_lossy(&kept).into_owned()
    })
}

fn temp_path() -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("axe-fuzz-{}-{n}.mlir", std::process::id()))
}

/// The working directory of every child: generated command lines may name any output path (`-o --cse`), and
/// those files belong in a scratch folder, not in the checkout the harness runs from.
fn scratch_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("axe-fuzz-cwd-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        dir
    })
}

/// Runs `tool` (a file name in the tool folder) on `input` under the configured limits, in its own scratch directory.
pub fn run_tool(tool: &str, input: &ProcInput) -> Result<Outcome, String> {
    let cfg = config();
    let program = std::path::absolute(cfg.dir.join(tool)).map_err(|e| format!("cannot locate {tool}: {e}"))?;
    let file = input.via_file.then(temp_path);
    let mut args: Vec<String> = input.args.iter().map(|a| a.replace('\0', "")).collect();
    if let Some(f) = &file {
        std::fs::write(f, &input.content).map_err(|e| format!("cannot write {}: {e}", f.display()))?;
        let path = f.display().to_string();
        if args.iter().any(|a| a.contains("%INPUT")) {
            args = args.iter().map(|a| a.replace("%INPUT", &path)).collect();
        } else {
            args.push(path);
        }
    }
    let (memory, cpu) = (cfg.memory, cfg.timeout.as_secs() + 5);
    let mut cmd = Command::new(&program);
    cmd.args(&args).current_dir(scratch_dir()).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.env("RUST_BACKTRACE", "0");
    // SAFETY: only async-signal-safe calls (setrlimit, setpgid) between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let set = |res, value: u64| {
                let lim = libc::rlimit { rlim_cur: value, rlim_max: value };
                libc::setrlimit(res, &lim)
            };
            set(libc::RLIMIT_AS, memory);
            set(libc::RLIMIT_CPU, cpu);
            set(libc::RLIMIT_CORE, 0);
            libc::setpgid(0, 0);
            Ok(())
        });
    }
    let start = Instant::now();
    let mut child = cmd.spawn().map_err(|e| format!("cannot start {}: {e}", program.display()))?;
    let pid = child.id() as i32;
    let (out, err) = (child.stdout.take().map(read_capped), child.stderr.take().map(read_capped));
    let writer = child.stdin.take().map(|mut stdin| {
        let content = if input.via_file { String::new() } else { input.content.clone() };
        std::thread::spawn(move || {
            let _ = stdin.write_all(content.as_bytes());
        })
    });
    let (tx, rx) = mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let (status, timed_out) = match rx.recv_timeout(cfg.timeout) {
        Ok(s) => (s, false),
        Err(_) => {
            // SAFETY: kill(2) on the child's process group (it called setpgid(0, 0)).
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
            (rx.recv().unwrap_or_else(|_| Err(std::io::Error::other("lost the child"))), true)
        }
    };
    let time = start.elapsed();
    let _ = waiter.join();
    if let Some(w) = writer {
        let _ = w.join();
    }
    // A grandchild could keep the pipes open; the group was killed on timeout, so these end.
    let stdout = out.and_then(|h| h.join().ok()).unwrap_or_default();
    let stderr = err.and_then(|h| h.join().ok()).unwrap_or_default();
    if let Some(f) = &file {
        let _ = std::fs::remove_file(f);
    }
    let status = status.map_err(|e| format!("cannot wait for {tool}: {e}"))?;
    Ok(Outcome { code: status.code(), signal: status.signal(), timed_out, stderr, stdout, time })
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGABRT => "SIGABRT",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGTRAP => "SIGTRAP",
        _ => "signal",
    }
}

/// Runs `tool` and turns a bad ending into `Err` with the command line and the end of stderr; exit code 0 is
/// planned, a refusal (exit code 1 with a diagnostic, or 2 where allowed) refused.
pub fn check_tool(tool: &str, text: &str, allow_usage_error: bool) -> Result<driver::Outcome, String> {
    let input = ProcInput::decode(text);
    let mut o = run_tool(tool, &input)?;
    if o.timed_out {
        // The bound is wall-clock time, which a loaded machine stretches (a 15 ms run was once stalled past 20 s
        // under a parallel build); a real hang or a CPU hog (RLIMIT_CPU) ends the same way twice.
        o = run_tool(tool, &input)?;
    }
    let tail = |s: &str| {
        let start = s.len().saturating_sub(1500);
        let start = (start..s.len()).find(|&i| s.is_char_boundary(i)).unwrap_or(s.len());
        s[start..].to_string()
    };
    let what = if o.timed_out {
        format!("timed out after {:.1} s", o.time.as_secs_f64())
    } else if let Some(sig) = o.signal {
        format!("killed by signal {sig} ({})", signal_name(sig))
    } else {
        match o.code {
            Some(0 | 1) if o.stderr.contains("panicked at") => "panicked (exit code 0/1)".to_string(),
            Some(0) => return Ok(driver::Outcome::Planned),
            Some(1) if o.stderr.trim().is_empty() => "refused (exit code 1) without a diagnostic".to_string(),
            Some(1) => return Ok(driver::Outcome::Refused),
            Some(2) if allow_usage_error && input.malformed => return Ok(driver::Outcome::Refused),
            Some(c) => format!("exit code {c}"),
            None => "ended without an exit code".to_string(),
        }
    };
    // The panic location (or LLVM's first error line) makes the first line, which groups failures by cause.
    let cause = o
        .stderr
        .lines()
        .find(|l| l.contains("panicked at ") || l.starts_with("LLVM ERROR") || l.contains("Assertion"))
        .map(|l| format!(": {}", l.find("panicked at ").map_or(l, |at| &l[at..]).trim()))
        .unwrap_or_default();
    Err(format!("{tool} {what}{cause}\n  args: {:?}\n  stderr: {}", input.args, tail(&o.stderr)))
}

// ----- axe-layout ------------------------------------------------------------------------------------------------

fn declared_axis_args(rng: &mut Rng, args: &mut Vec<String>) {
    if rng.random_range(0..4) != 0 {
        for (name, kind) in gen_layout::DECLARED {
            if rng.random_bool(0.5) {
                args.push(format!("--axis={name}={kind}"));
            } else {
                args.extend(["--axis".to_string(), format!("{name}={kind}")]);
            }
        }
    }
}

fn one_line(l: String) -> String {
    l.replace('\n', " ")
}

fn opt(args: &mut Vec<String>, rng: &mut Rng, name: &str, value: String) {
    if rng.random_bool(0.3) {
        args.push(format!("--{name}={value}"));
    } else {
        args.push(format!("--{name}"));
        args.push(value);
    }
}

/// The `axe-layout` subcommands the generator writes command lines for (`serve` is a server, not run).
const LAYOUT_SUBCOMMANDS: &[&str] = &[
    "eval",
    "show",
    "canon",
    "group",
    "tile",
    "tile-of",
    "slice",
    "direct-sum",
    "span",
    "tma-plan",
    "from-placements",
    "collective-plan",
];

/// A well-formed `axe-layout` command line (and stdin content when a layout argument is `-`): the declared
/// axes, a subcommand, its arguments (one helper per family of subcommands), sometimes `--json`.
fn layout_command(rng: &mut Rng) -> (Vec<String>, String) {
    let mut args = Vec::new();
    declared_axis_args(rng, &mut args);
    let mut stdin = String::new();
    let cmd = *LAYOUT_SUBCOMMANDS.choose(rng).unwrap_or(&"eval");
    args.push(cmd.to_string());
    if rng.random_range(0..40) == 0 {
        args.push("--help".into());
        return (args, stdin);
    }
    match cmd {
        "eval" | "show" | "canon" | "span" | "group" | "slice" => one_layout_args(rng, cmd, &mut args, &mut stdin),
        "tile" | "direct-sum" => two_layout_args(rng, cmd, &mut args, &mut stdin),
        "tile-of" => tile_of_args(rng, &mut args, &mut stdin),
        "from-placements" | "collective-plan" => placement_args(rng, cmd, &mut args),
        _ => tma_plan_args(rng, &mut args),
    }
    if rng.random_bool(0.4) {
        args.push("--json".into());
    }
    (args, stdin)
}

/// A layout argument on one line (wild one time in four) and its parse.
fn layout_arg(rng: &mut Rng, k: Knobs) -> (String, Option<Layout>) {
    let text = if rng.random_range(0..4) == 0 { gen_layout::wild_layout(rng) } else { gen_layout::tame_layout(rng, k) };
    let parsed = parse_layout(&text).ok();
    (one_line(text), parsed)
}

/// Pushes a positional layout argument, or (one time in ten, once per command line) `-` with the text as stdin.
fn positional(rng: &mut Rng, args: &mut Vec<String>, stdin: &mut String, text: String) {
    if stdin.is_empty() && rng.random_range(0..10) == 0 {
        *stdin = text;
        args.push("-".into());
    } else {
        args.push(text);
    }
}

/// `eval`, `show`, `canon`, `span`, `group`, `slice`: one layout and the options of `cmd`.
fn one_layout_args(rng: &mut Rng, cmd: &str, args: &mut Vec<String>, stdin: &mut String) {
    let (text, l) = layout_arg(rng, Knobs::GENERAL);
    positional(rng, args, stdin, text);
    let shape = gen_layout::shape_for(rng, l.as_ref());
    match cmd {
        "eval" => {
            if rng.random_bool(0.6) {
                opt(args, rng, "shape", gen_layout::list_text(&shape));
            }
            if rng.random_bool(0.4) {
                let at = gen_layout::list_text(&gen_layout::coord_for(rng, &shape));
                opt(args, rng, "at", at);
            }
        }
        "show" => {
            if rng.random_bool(0.6) {
                let s: Vec<i64> = shape.iter().take(2).copied().collect();
                opt(args, rng, "shape", gen_layout::list_text(&s));
            }
            if rng.random_bool(0.3) {
                let width = gen_layout::wild_number(rng);
                opt(args, rng, "width", width);
            }
        }
        "span" if rng.random_bool(0.5) => {
            let a = if rng.random_range(0..5) == 0 { "foo" } else { gen_layout::AXES.choose(rng).unwrap_or(&"m") };
            opt(args, rng, "axis", a.to_string());
        }
        "group" => opt(args, rng, "shape", gen_layout::list_text(&shape)),
        "slice" => {
            opt(args, rng, "shape", gen_layout::list_text(&shape));
            let region = gen_layout::region_text(&gen_layout::region_for(rng, &shape));
            opt(args, rng, "region", region);
        }
        _ => {}
    }
}

/// `tile`, `direct-sum`: two layouts and their shapes.
fn two_layout_args(rng: &mut Rng, cmd: &str, args: &mut Vec<String>, stdin: &mut String) {
    let (a, la) = layout_arg(rng, Knobs::SMALL);
    let (b, lb) = layout_arg(rng, Knobs::SMALL);
    positional(rng, args, stdin, a);
    positional(rng, args, stdin, b);
    let (s1, s2) = (gen_layout::shape_for(rng, la.as_ref()), gen_layout::shape_for(rng, lb.as_ref()));
    let (n1, n2) = if cmd == "tile" { ("inner-shape", "outer-shape") } else { ("left-shape", "right-shape") };
    opt(args, rng, n1, gen_layout::list_text(&s1));
    opt(args, rng, n2, gen_layout::list_text(&s2));
}

/// `tile-of`: a tiled layout and its shape, and the inner or the outer factor with its shape.
fn tile_of_args(rng: &mut Rng, args: &mut Vec<String>, stdin: &mut String) {
    let (t, lt) = layout_arg(rng, Knobs::GENERAL);
    positional(rng, args, stdin, t);
    let ts = gen_layout::shape_for(rng, lt.as_ref());
    opt(args, rng, "tiled-shape", gen_layout::list_text(&ts));
    let (f, lf) = layout_arg(rng, Knobs::SMALL);
    let fs = gen_layout::shape_for(rng, lf.as_ref());
    let side = if rng.random_bool(0.5) { "inner" } else { "outer" };
    opt(args, rng, side, f);
    opt(args, rng, &format!("{side}-shape"), gen_layout::list_text(&fs));
}

/// `from-placements`, `collective-plan`: a mesh of 1-3 dimensions, a shape, and DTensor placements per mesh
/// dimension (sometimes one too many or an odd one): the planners refuse by rule or plan, never crash.
fn placement_args(rng: &mut Rng, cmd: &str, args: &mut Vec<String>) {
    let dims = rng.random_range(1..=3usize);
    let mesh: Vec<i64> = (0..dims).map(|_| *[1, 2, 3, 4, 8].choose(rng).unwrap_or(&2)).collect();
    let rank = rng.random_range(1..=3usize);
    let shape: Vec<i64> = (0..rank).map(|_| *[1, 2, 5, 8, 12, 64].choose(rng).unwrap_or(&8)).collect();
    let placements = |rng: &mut Rng| {
        let count = if rng.random_range(0..10) == 0 { dims + 1 } else { dims };
        (0..count)
            .map(|_| match rng.random_range(0..5) {
                0 | 1 => format!("Shard({})", rng.random_range(0..=rank)),
                2 => "Replicate()".to_string(),
                3 => ["Partial(sum)", "Partial(max)"].choose(rng).unwrap_or(&"Partial()").to_string(),
                _ => ["Shard(-1)", "Shard()", "Bogus()", ""].choose(rng).unwrap_or(&"").to_string(),
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    opt(args, rng, "mesh", gen_layout::list_text(&mesh));
    opt(args, rng, "shape", gen_layout::list_text(&shape));
    if cmd == "from-placements" {
        let p = placements(rng);
        opt(args, rng, "placements", p);
    } else {
        let (src, dst) = (placements(rng), placements(rng));
        opt(args, rng, "src-placements", src);
        opt(args, rng, "dst-placements", dst);
        if rng.random_bool(0.3) {
            let op = ["sum", "max", "min"].choose(rng).unwrap_or(&"sum").to_string();
            opt(args, rng, "reduce", op);
        }
    }
}

/// `tma-plan`: a generated request, its fields as flags in a random order.
fn tma_plan_args(rng: &mut Rng, args: &mut Vec<String>) {
    let req = gen_layout::tma_request(rng);
    let mut pairs: Vec<(String, String)> = Vec::new();
    for line in req.lines() {
        if let Some((k, v)) = line.split_once(": ") {
            let name = match k {
                "global_shape" => "global-shape",
                "global_region" => "global-region",
                "shared_shape" => "shared-shape",
                "shared_region" => "shared-region",
                "l2" => "l2-promotion",
                "oob" => "oob-fill",
                other => other,
            };
            if name == "oob-fill" && v == "none" {
                continue;
            }
            pairs.push((name.to_string(), v.to_string()));
        }
    }
    for i in (1..pairs.len()).rev() {
        pairs.swap(i, rng.random_range(0..=i));
    }
    for (k, v) in pairs {
        opt(args, rng, &k, one_line(v));
    }
}

fn gen_layout_cli(rng: &mut Rng) -> String {
    let regressions = seeds::regressions("proc-axe-layout");
    if !regressions.is_empty() && rng.random_range(0..40) == 0 {
        return regressions.choose(rng).map(|s| s.to_string()).unwrap_or_default();
    }
    let corpus = &seeds::corpus().layout_commands;
    if !corpus.is_empty() && rng.random_range(0..10) < 3 {
        let mut args = corpus.choose(rng).cloned().unwrap_or_default();
        args.retain(|a| !a.contains('%'));
        let mut stdin = String::new();
        for _ in 0..rng.random_range(1..=3) {
            let i = rng.random_range(0..args.len().max(1));
            match rng.random_range(0..6) {
                0 if i < args.len() => args[i] = one_line(gen_layout::layout(rng)),
                1 if i < args.len() => args[i] = one_line(mutate::mutate(rng, &args[i], &[])),
                2 if i < args.len() => {
                    args.remove(i);
                }
                3 if i < args.len() => {
                    let a = args[i].clone();
                    args.insert(i, a);
                }
                4 => args.insert(
                    i.min(args.len()),
                    ["--json", "--", "-", "--help", "--bogus", "--shape"].choose(rng).unwrap_or(&"--json").to_string(),
                ),
                _ => stdin = one_line(gen_layout::layout(rng)),
            }
        }
        return ProcInput { args, via_file: false, malformed: true, content: stdin }.encode();
    }
    let (args, stdin) = layout_command(rng);
    ProcInput { args, via_file: false, malformed: false, content: stdin }.encode()
}

fn check_layout_cli(text: &str) -> Result<driver::Outcome, String> {
    // `serve` runs until it is stopped: a server, not a one-shot command (its page and API are tested in
    // test/Browser and by the explorer's unit tests).
    if ProcInput::decode(text).args.iter().any(|a| a == "serve") {
        return Ok(driver::Outcome::Refused);
    }
    check_tool("axe-layout", text, true)
}

// ----- axe-opt -------------------------------------------------------------------------------------------------

/// The pass flags `axe-opt --help` lists (read once; a fixed list if the tool cannot be run).
pub fn pass_flags() -> &'static [String] {
    static FLAGS: OnceLock<Vec<String>> = OnceLock::new();
    FLAGS.get_or_init(|| {
        let help = ProcInput { args: vec!["--help".into()], ..ProcInput::default() };
        let from_help: Vec<String> = run_tool("axe-opt", &help)
            .map(|o| {
                o.stdout
                    .split("PASSES")
                    .nth(1)
                    .unwrap_or("")
                    .lines()
                    .filter_map(|l| l.split_whitespace().next())
                    .filter(|w| w.starts_with("--"))
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        if from_help.is_empty() {
            [
                "--axe-canonicalize",
                "--axe-slice",
                "--lower-tma",
                "--axe-verify",
                "--axe-strip-annotations",
                "--lower-to-nvvm",
            ]
            .map(String::from)
            .to_vec()
        } else {
            from_help
        }
    })
}

fn opt_flags(rng: &mut Rng, content: &str) -> Vec<String> {
    let mut args = Vec::new();
    let passes = pass_flags();
    for _ in 0..rng.random_range(0..=4) {
        let flag = match rng.random_range(0..12) {
            0 => "--canonicalize".to_string(),
            1 => "--cse".to_string(),
            2 => format!(
                "--pass-pipeline={}",
                [
                    "builtin.module(canonicalize,cse)",
                    "builtin.module(gpu.module(convert-scf-to-cf))",
                    "builtin.module(",
                    "canonicalize",
                    "builtin.module(no-such-pass)"
                ]
                .choose(rng)
                .unwrap_or(&"canonicalize")
            ),
            3 if rng.random_range(0..4) == 0 => {
                ["--no-such-pass", "--axe-canonicalize=x", "-o", "--split-input-file=1"]
                    .choose(rng)
                    .unwrap_or(&"--x")
                    .to_string()
            }
            _ => passes.choose(rng).cloned().unwrap_or_else(|| "--axe-verify".into()),
        };
        args.push(flag);
    }
    if content.contains("// -----") && rng.random_bool(0.8) || rng.random_range(0..10) == 0 {
        args.push("--split-input-file".into());
    }
    if content.contains("expected-") && rng.random_bool(0.6) {
        args.push("--verify-diagnostics".into());
    }
    for extra in ["--no-verify", "--mlir-print-op-generic", "--mlir-print-debuginfo", "--allow-unregistered-dialect"] {
        if rng.random_range(0..12) == 0 {
            args.push(extra.into());
        }
    }
    for i in (1..args.len()).rev() {
        args.swap(i, rng.random_range(0..=i));
    }
    args
}

fn gen_opt(rng: &mut Rng) -> String {
    let regressions = seeds::regressions("proc-axe-opt");
    if !regressions.is_empty() && rng.random_range(0..40) == 0 {
        return regressions.choose(rng).map(|s| s.to_string()).unwrap_or_default();
    }
    let corpus = &seeds::corpus().mlir;
    let content = if corpus.is_empty() || rng.random_bool(0.5) {
        gen_ir::module(rng)
    } else {
        let texts: Vec<&str> = corpus.iter().map(|(_, t)| t.as_str()).collect();
        let base = texts.choose(rng).copied().unwrap_or("");
        if rng.random_range(0..10) == 0 {
            base.to_string()
        } else {
            mutate::mutate_seed(rng, base, &texts)
        }
    };
    let args = opt_flags(rng, &content);
    ProcInput { args, via_file: rng.random_bool(0.3), malformed: false, content }.encode()
}

fn check_opt(text: &str) -> Result<driver::Outcome, String> {
    check_tool("axe-opt", text, false)
}

// ----- axe-translate ---------------------------------------------------------------------------------------------

/// Lowered modules to translate: the example and 12 generated TMA kernels through `--lower-tma --lower-to-nvvm`
/// (the ones that lower), plus the `test/Target` inputs. Computed once; deterministic.
pub fn lowered_seeds() -> &'static [String] {
    static LOWERED: OnceLock<Vec<String>> = OnceLock::new();
    LOWERED.get_or_init(|| {
        let corpus = &seeds::corpus().mlir;
        let mut inputs: Vec<String> =
            corpus.iter().filter(|(p, _)| p.starts_with("examples/")).map(|(_, t)| t.clone()).collect();
        let mut rng = Rng::seed_from_u64(0xa7e);
        inputs.extend((0..12).map(|_| gen_ir::tma_kernel(&mut rng)));
        let mut out: Vec<String> = inputs
            .iter()
            .filter_map(|content| {
                let input = ProcInput {
                    args: vec!["--lower-tma".into(), "--lower-to-nvvm".into()],
                    content: content.clone(),
                    ..ProcInput::default()
                };
                run_tool("axe-opt", &input).ok().filter(|o| o.code == Some(0)).map(|o| o.stdout)
            })
            .collect();
        out.extend(corpus.iter().filter(|(p, _)| p.starts_with("test/Target/")).map(|(_, t)| t.clone()));
        out
    })
}

fn gen_translate(rng: &mut Rng) -> String {
    let regressions = seeds::regressions("proc-axe-translate");
    if !regressions.is_empty() && rng.random_range(0..40) == 0 {
        return regressions.choose(rng).map(|s| s.to_string()).unwrap_or_default();
    }
    let lowered = lowered_seeds();
    let texts: Vec<&str> = lowered.iter().map(String::as_str).collect();
    let content = match (texts.choose(rng), rng.random_range(0..10)) {
        (Some(base), 0..=1) => base.to_string(),
        (Some(base), 2..=8) => mutate::mutate_seed(rng, base, &texts),
        _ => gen_ir::module(rng),
    };
    let mut args = Vec::new();
    args.push(format!("--emit={}", ["ptx", "ptx", "llvm", "launch", "bogus"].choose(rng).unwrap_or(&"ptx")));
    if rng.random_bool(0.8) {
        args.push(format!(
            "--chip={}",
            ["sm_80", "sm_90a", "sm_90a", "sm_100a", "sm_75"].choose(rng).unwrap_or(&"sm_90a")
        ));
    }
    if rng.random_bool(0.4) {
        args.push(["-O0", "-O1", "-O2", "-O3"].choose(rng).unwrap_or(&"-O2").to_string());
    }
    if rng.random_range(0..8) == 0 {
        args.push(format!(
            "--gpu-module={}",
            ["kernels", "k", "first", "second", "@kernels", ""].choose(rng).unwrap_or(&"k")
        ));
    }
    ProcInput { args, via_file: rng.random_bool(0.3), malformed: false, content }.encode()
}

fn check_translate(text: &str) -> Result<driver::Outcome, String> {
    check_tool("axe-translate", text, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_round_trip_through_their_text() {
        let input = ProcInput {
            args: vec!["eval".into(), "S[(8,4):(4@laneid, 1)]".into()],
            via_file: true,
            malformed: true,
            content: "module {}\n====\nmore".into(),
        };
        assert_eq!(ProcInput::decode(&input.encode()), input);
        assert_eq!(ProcInput::decode("plain text").content, "plain text");
    }
}
