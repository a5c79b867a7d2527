//! `axe-opt`: the mlir-opt-style driver.
//!
//! Reads one buffer (a file or stdin), optionally splits it at a marker (`// -----`), and for each chunk: parses
//! it (the parser verifies the result), runs the requested passes, and prints the module. Diagnostics are printed
//! as `file:line:col: error: message` with the source line, or, under `--verify-diagnostics`, checked against
//! `expected-*` annotations. Exit code 0 on success, 1 on any failure; never a panic on bad input.
//!
//! The command line follows mlir-opt's rules (LLVM `cl`), so pipelines written for mlir-opt run unchanged:
//! - every pass, upstream or axe's, is a flag `--name` or `--name=options`, and passes run in command-line order;
//!   a pass anchored on another op than the module (`--convert-gpu-to-nvvm` on `gpu.module`) is nested under
//!   that op implicitly;
//! - `--pass-pipeline` takes an anchored pipeline (`builtin.module(...)`; axe's passes may be named in it) and
//!   cannot be combined with pass flags; given twice, the last one counts; a pipeline anchored on another op
//!   than the input's top-level op fails when run, as in mlir-opt;
//! - boolean options take `=true|false|1|0` (or none), `--split-input-file[=marker]` takes the split marker,
//!   `--verify-diagnostics[=all|only-expected]`, `--output-split-marker=<text>`.

use crate::{
    args::{Arg, Args},
    expectations,
    io::{drop_unless_exiting, read_input, tool_main, write_output, write_stderr, Input},
    split,
};
use anyhow::{bail, Result};
use axe_dialect::{create_context, ffi, parse_module, AxeContext, Diagnostic};
use axe_passes::REGISTRY;
use melior::{
    ir::operation::{OperationLike, OperationPrintingFlags},
    pass::PassManager,
};
use std::ffi::OsString;

/// One pass flag, in command-line order: `--name` or `--name=options`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The pass or pipeline name (an axe pass, an alias such as `lower-to-nvvm`, or an upstream pass).
    pub name: String,
    /// The pass options, as written after `=` (empty when none).
    pub options: String,
}

/// What `--verify-diagnostics` checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VerifyLevel {
    /// Every diagnostic must be expected and every expectation produced (`--verify-diagnostics[=all]`).
    All,
    /// Every expectation must be produced; other diagnostics are allowed (`=only-expected`).
    OnlyExpected,
}

/// Everything the command line asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Input path, `-` for stdin.
    pub input: String,
    /// Output path; stdout when `None`.
    pub output: Option<String>,
    /// Pass flags, in order.
    pub steps: Vec<Step>,
    /// `--pass-pipeline` (the last one given), anchored text such as `builtin.module(cse)`.
    pub pipeline: Option<String>,
    /// `--split-input-file[=marker]`: the marker chunks are split at.
    pub split_marker: Option<String>,
    /// `--output-split-marker`: the text written between output chunks (without its newline).
    pub output_split_marker: String,
    /// `--verify-diagnostics[=level]`.
    pub verify_diagnostics: Option<VerifyLevel>,
    /// `--verify-each` (default on; `--no-verify` or `--verify-each=false` clears it): verify after each pass.
    pub verify_each: bool,
    /// `--allow-unregistered-dialect`.
    pub allow_unregistered_dialect: bool,
    /// `--mlir-print-debuginfo`.
    pub print_debug_info: bool,
    /// `--mlir-print-op-generic`.
    pub print_generic: bool,
    /// `--mlir-print-local-scope`: print locations and attributes inline, not as aliases.
    pub print_local_scope: bool,
    /// `--mlir-elide-elementsattrs-if-larger=<n>`: elide elements attributes of more than `n` elements.
    pub elide_elements_larger: Option<usize>,
}

/// What `axe-opt` was asked to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Process the input.
    Run(Options),
    /// Print `--help`.
    Help,
    /// Print every pass with its description.
    HelpPasses,
    /// Print the names of every pass and pipeline axe-opt knows (`--list-passes`).
    ListPasses,
    /// Print the version.
    Version,
}

/// Entry point of the `axe-opt` binary.
pub fn main(args: impl IntoIterator<Item = OsString>) -> ! {
    tool_main("axe-opt", || parse_command(args), run)
}

/// The value of a boolean option as LLVM's `cl` reads it: none or empty is true, then `true`/`false`/`1`/`0`
/// (and their capitalized forms); anything else is an error worded as mlir-opt's.
fn boolean(name: &str, value: &Option<String>) -> Result<bool> {
    match value.as_deref() {
        None | Some("") | Some("true") | Some("TRUE") | Some("True") | Some("1") => Ok(true),
        Some("false") | Some("FALSE") | Some("False") | Some("0") => Ok(false),
        Some(other) => {
            bail!("for the {} option: '{other}' is invalid value for boolean argument! Try 0 or 1", dashes(name))
        }
    }
}

/// `name` with the dashes LLVM's `cl` prints before it (one for a one-letter option, two otherwise).
fn dashes(name: &str) -> String {
    if name.chars().count() == 1 {
        format!("-{name}")
    } else {
        format!("--{name}")
    }
}

/// Reads the command line. Words that are not driver options are pass flags (`--canonicalize`,
/// `--lower-tma`, `--convert-gpu-to-nvvm=index-bitwidth=32`), checked against the pass registry when the pass
/// manager is built.
pub fn parse_command(words: impl IntoIterator<Item = OsString>) -> Result<Command> {
    let mut args = Args::new(words)?;
    let mut options =
        Options { verify_each: true, output_split_marker: split::MARKER.to_string(), ..Options::default() };
    let mut input = None;
    while let Some(arg) = args.next_arg() {
        let (name, value) = match arg {
            Arg::Positional(word) => {
                if input.replace(word).is_some() {
                    bail!(
                        "Too many positional arguments specified!\n\
                         Can specify at most 1 positional arguments: See: axe-opt --help"
                    );
                }
                continue;
            }
            Arg::Flag { name, value } => (name, value),
        };
        match name.as_str() {
            "h" | "help" => return Ok(Command::Help),
            "help-passes" => return Ok(Command::HelpPasses),
            "list-passes" => return Ok(Command::ListPasses),
            "version" => return Ok(Command::Version),
            "o" => options.output = Some(args.value(&name, value).map_err(|_| requires_value(&name))?),
            // `-p` is mlir-opt's short name for `--pass-pipeline`.
            "p" | "pass-pipeline" => {
                options.pipeline = Some(args.value(&name, value).map_err(|_| requires_value(&name))?)
            }
            "split-input-file" => {
                options.split_marker = Some(match value {
                    Some(marker) if !marker.is_empty() => marker,
                    _ => split::MARKER.to_string(),
                })
            }
            "output-split-marker" => {
                options.output_split_marker = args.value(&name, value).map_err(|_| requires_value(&name))?
            }
            "verify-diagnostics" => {
                options.verify_diagnostics = Some(match value.as_deref() {
                    None | Some("") | Some("all") => VerifyLevel::All,
                    Some("only-expected") => VerifyLevel::OnlyExpected,
                    Some(other) => bail!("for the --verify-diagnostics option: Cannot find option named '{other}'!"),
                })
            }
            "no-verify" => options.verify_each = !boolean(&name, &value)?,
            "verify-each" => options.verify_each = boolean(&name, &value)?,
            "allow-unregistered-dialect" => options.allow_unregistered_dialect = boolean(&name, &value)?,
            "mlir-print-debuginfo" => options.print_debug_info = boolean(&name, &value)?,
            "mlir-print-op-generic" => options.print_generic = boolean(&name, &value)?,
            "mlir-print-local-scope" => options.print_local_scope = boolean(&name, &value)?,
            "mlir-elide-elementsattrs-if-larger" => {
                let text = args.value(&name, value).map_err(|_| requires_value(&name))?;
                let limit = text.parse().map_err(|_| {
                    anyhow::anyhow!("for the --{name} option: '{text}' value invalid for integer argument!")
                })?;
                options.elide_elements_larger = Some(limit);
            }
            // Contexts are single-threaded already (deterministic diagnostics), as this asks.
            "mlir-disable-threading" => {
                boolean(&name, &value)?;
            }
            _ => options.steps.push(Step { name, options: value.unwrap_or_default() }),
        }
    }
    options.input = input.unwrap_or_else(|| "-".to_string());
    Ok(Command::Run(options))
}

/// LLVM `cl`'s error for an option given without its value.
fn requires_value(name: &str) -> anyhow::Error {
    anyhow::anyhow!("for the {} option: requires a value!", dashes(name))
}

/// Runs a parsed command; `Ok(false)` means "failed, diagnostics printed".
pub fn run(command: Command) -> Result<bool> {
    let options = match command {
        Command::Run(options) => options,
        Command::Help => return write_output(None, help().as_bytes()).map(|()| true),
        Command::HelpPasses => return write_output(None, help_passes().as_bytes()).map(|()| true),
        Command::ListPasses => return write_output(None, list_passes().as_bytes()).map(|()| true),
        Command::Version => {
            let version = format!("axe-opt {}\n", env!("CARGO_PKG_VERSION"));
            return write_output(None, version.as_bytes()).map(|()| true);
        }
    };
    let context = create_context()?;
    context.context().set_allow_unregistered_dialects(options.allow_unregistered_dialect);
    // Command-line problems with the passes are reported before any input is read.
    if let Err(message) = build_pass_manager(&context, &options) {
        write_stderr(&message);
        return Ok(false);
    }
    let input = read_input(&options.input)?;
    let chunks = match &options.split_marker {
        Some(marker) => split::split_input_at(&input.text, marker),
        None => split::whole(&input.text),
    };
    let mut success = true;
    let mut outputs = Vec::new();
    for chunk in &chunks {
        let output = process_chunk(&context, &options, &chunk.text, &input.name);
        let diagnostics = context.diagnostics().take();
        let chunk_ok = match options.verify_diagnostics {
            Some(level) => report_verification(&input, &chunk.text, &diagnostics, level),
            None => {
                report(&input, &diagnostics);
                output.is_some()
            }
        };
        success &= chunk_ok;
        outputs.push(output.unwrap_or_default());
    }
    let text = outputs.join(&format!("{}\n", options.output_split_marker));
    let to_file = options.output.as_deref().is_some_and(|path| path != "-");
    if success || !to_file {
        write_output(options.output.as_deref(), text.as_bytes())?;
    }
    drop_unless_exiting(context);
    Ok(success)
}

/// Parses, transforms and prints one chunk; `None` when anything failed.
fn process_chunk(context: &AxeContext, options: &Options, text: &str, name: &str) -> Option<String> {
    let mut module = parse_module(context, text, name)?;
    // Parsing ran MLIR's verifier; the axe semantic rules run here, and after
    // every pass through `axe-verify` (unless --no-verify).
    if !axe_dialect::verify(&module) {
        return None;
    }
    if !options.steps.is_empty() || options.pipeline.is_some() {
        let manager = build_pass_manager(context, options).ok()?;
        manager.run(&mut module).ok()?;
    }
    let mut flags = OperationPrintingFlags::new();
    if options.print_debug_info {
        flags = flags.enable_debug_info(true, false);
    }
    if options.print_generic {
        flags = flags.print_generic_operation_form();
    }
    if options.print_local_scope {
        flags = flags.use_local_scope();
    }
    if let Some(limit) = options.elide_elements_larger {
        flags = flags.elide_large_elements_attributes(limit);
    }
    let printed = module.as_operation().to_string_with_flags(flags).ok();
    drop_unless_exiting(module);
    Some(printed? + "\n")
}

/// mlir-opt's error when `--pass-pipeline` is combined with pass flags.
const PIPELINE_WITH_FLAGS: &str = "'-pass-pipeline' option can't be used with individual pass options";

/// Builds the pass manager for `options`: the pass flags in order, each added by name with implicit nesting under
/// its anchor op, or the anchored `--pass-pipeline`; the axe verifier after each (unless `--no-verify`). On a
/// problem returns the text to print, worded and formatted as mlir-opt's (`<unknown>:0: error: ...` for pipeline
/// and pass-option errors, `axe-opt: Unknown command line argument ...` for a name that is no pass).
fn build_pass_manager<'c>(context: &'c AxeContext, options: &Options) -> Result<PassManager<'c>, String> {
    axe_passes::register_passes();
    let manager = ffi::module_pass_manager(context.context());
    manager.enable_verifier(options.verify_each);
    let verify = |manager: &PassManager| {
        if options.verify_each {
            // The axe verifier is registered under its flag; adding it cannot fail.
            let _ = ffi::add_pass_by_name(manager.as_operation_pass_manager(), axe_passes::verify::PASS.flag, "");
        }
    };
    let unknown_location = |message: &str| {
        let details: String = context.diagnostics().take().iter().map(|diagnostic| diagnostic.render(None)).collect();
        format!("<unknown>:0: error: {}\n{details}", message.trim_end())
    };
    if let Some(pipeline) = &options.pipeline {
        if !options.steps.is_empty() {
            return Err(unknown_location(PIPELINE_WITH_FLAGS));
        }
        ffi::set_anchored_pipeline(&manager, pipeline).map_err(|message| unknown_location(&message))?;
        // The axe verifier runs on modules: after a module pipeline (one on another op fails when run).
        if pipeline.trim_start().starts_with("builtin.module") {
            verify(&manager);
        }
        return Ok(manager);
    }
    for step in &options.steps {
        if let Err(message) = ffi::add_pass_by_name(manager.as_operation_pass_manager(), &step.name, &step.options) {
            if message == format!("'{}' does not refer to a registered pass or pass pipeline", step.name) {
                return Err(format!(
                    "axe-opt: Unknown command line argument '--{}'.  Try: 'axe-opt --help'\n",
                    step.name
                ));
            }
            return Err(unknown_location(&message));
        }
        verify(&manager);
    }
    Ok(manager)
}

/// Prints diagnostics mlir-opt style, with source lines from `input`.
fn report(input: &Input, diagnostics: &[Diagnostic]) {
    let text: String =
        diagnostics.iter().map(|diagnostic| diagnostic.render(Some((&input.name, &input.text)))).collect();
    write_stderr(&text);
}

/// Checks `diagnostics` against the chunk's annotations; prints mismatches. At [`VerifyLevel::OnlyExpected`]
/// diagnostics nothing expects are not failures.
fn report_verification(input: &Input, chunk: &str, diagnostics: &[Diagnostic], level: VerifyLevel) -> bool {
    let (expected, mut failures) = expectations::parse_expectations(&input.name, chunk);
    let mismatches = expectations::check(&input.name, &expected, diagnostics);
    failures.extend(
        mismatches
            .into_iter()
            .filter(|failure| level == VerifyLevel::All || !failure.message.starts_with(expectations::UNEXPECTED)),
    );
    report(input, &failures);
    failures.is_empty()
}

/// The `--help` text: options, then every axe pass with its summary.
pub fn help() -> String {
    let mut text = String::from(
        "OVERVIEW: axe-opt - the Axe MLIR driver (mlir-opt's command line)\n\n\
USAGE: axe-opt [options] [<input file> | -]\n\n\
OPTIONS:\n",
    );
    let options = [
        ("-o <file>", "Write the output to <file> (default: stdout)"),
        ("--pass-pipeline=<text>", "Run an anchored pipeline, e.g. 'builtin.module(canonicalize,cse)' (no pass flags)"),
        ("--<pass>[=<options>]", "Run a pass (nested under its anchor op), e.g. --cse, --convert-gpu-to-nvvm"),
        ("--split-input-file[=<marker>]", "Process each chunk between markers (default '// -----') on its own"),
        ("--output-split-marker=<text>", "Write <text> between output chunks (default '// -----')"),
        ("--verify-diagnostics[=<level>]", "Check diagnostics against expected-* annotations (all, only-expected)"),
        ("--verify-each[=<bool>]", "Verify after each pass (default true; --no-verify clears it)"),
        ("--allow-unregistered-dialect", "Accept ops of unregistered dialects"),
        ("--mlir-print-debuginfo", "Print locations in the output"),
        ("--mlir-print-op-generic", "Print every op in the generic form"),
        ("--mlir-print-local-scope", "Print locations and attributes inline (no aliases)"),
        ("--mlir-elide-elementsattrs-if-larger=<n>", "Elide elements attributes of more than <n> elements"),
        ("--mlir-disable-threading", "Accepted; axe-opt runs single-threaded anyway"),
        ("--list-passes", "List every pass and pipeline axe-opt can run, upstream ones included"),
        ("--help-passes", "Describe every axe pass in full"),
        ("-h, --help", "Show this help"),
        ("--version", "Show the version"),
    ];
    for (flag, summary) in options {
        text.push_str(&format!("  {flag:<32} {summary}\n"));
    }
    text.push_str("\nAXE PASSES (also nameable in --pass-pipeline; --list-passes lists the upstream ones):\n");
    for info in REGISTRY {
        text.push_str(&format!("  --{:<30} {}\n", info.flag, info.summary));
    }
    text
}

/// The `--list-passes` text: every pass and pipeline name axe-opt accepts, axe's then upstream's, one a line.
pub fn list_passes() -> String {
    let mut text = String::new();
    for info in REGISTRY {
        text.push_str(&format!("  --{}\n", info.flag));
    }
    for name in ffi::upstream_pass_names() {
        text.push_str(&format!("  --{name}\n"));
    }
    text
}

/// The `--help-passes` text: every pass with its full description.
pub fn help_passes() -> String {
    REGISTRY
        .iter()
        .map(|info| {
            let description: String = info.description.lines().map(|line| format!("    {line}\n")).collect();
            format!("--{}\n  {}\n{description}\n", info.flag, info.summary)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(words: &[&str]) -> Result<Command> {
        parse_command(words.iter().map(OsString::from))
    }

    fn run_options(words: &[&str]) -> Options {
        match command(words) {
            Ok(Command::Run(options)) => options,
            other => panic!("{words:?}: {other:?}"),
        }
    }

    fn step(name: &str, options: &str) -> Step {
        Step { name: name.into(), options: options.into() }
    }

    #[test]
    fn pass_flags_keep_command_line_order_with_their_options() {
        let options = run_options(&[
            "--axe-strip-annotations",
            "--canonicalize=max-iterations=2",
            "-cse",
            "--lower-to-nvvm",
            "-o",
            "out.mlir",
            "in.mlir",
        ]);
        assert_eq!(
            options.steps,
            vec![
                step("axe-strip-annotations", ""),
                step("canonicalize", "max-iterations=2"),
                step("cse", ""),
                step("lower-to-nvvm", ""),
            ]
        );
        assert_eq!(options.output.as_deref(), Some("out.mlir"));
        assert_eq!(options.input, "in.mlir");
        assert!(options.verify_each && options.pipeline.is_none());
    }

    #[test]
    fn the_last_pass_pipeline_counts() {
        let options = run_options(&["--pass-pipeline=builtin.module(cse)", "--pass-pipeline", "func.func(cse)"]);
        assert_eq!(options.pipeline.as_deref(), Some("func.func(cse)"));
        assert!(options.steps.is_empty());
    }

    #[test]
    fn options_take_values_as_llvm_cl_does() {
        // mlir-opt: the value of --split-input-file is the marker, empty meaning the default.
        assert_eq!(run_options(&["--split-input-file"]).split_marker.as_deref(), Some("// -----"));
        assert_eq!(run_options(&["--split-input-file="]).split_marker.as_deref(), Some("// -----"));
        assert_eq!(run_options(&["--split-input-file=1"]).split_marker.as_deref(), Some("1"));
        assert_eq!(run_options(&["--output-split-marker=// X"]).output_split_marker, "// X");
        // Boolean options: none, empty, true/false, 1/0.
        for (word, expected) in
            [("", true), ("=", true), ("=true", true), ("=1", true), ("=false", false), ("=0", false)]
        {
            let flag = format!("--allow-unregistered-dialect{word}");
            assert_eq!(run_options(&[flag.as_str()]).allow_unregistered_dialect, expected, "{flag}");
        }
        assert!(!run_options(&["--verify-each=false"]).verify_each);
        assert!(!run_options(&["--no-verify"]).verify_each);
        assert_eq!(run_options(&["--verify-diagnostics"]).verify_diagnostics, Some(VerifyLevel::All));
        assert_eq!(
            run_options(&["--verify-diagnostics=only-expected"]).verify_diagnostics,
            Some(VerifyLevel::OnlyExpected)
        );
    }

    #[test]
    fn bad_command_lines_are_errors_worded_as_mlir_opt_words_them() {
        let error = |words: &[&str]| command(words).map(|_| ()).unwrap_err().to_string();
        assert!(error(&["a.mlir", "b.mlir"]).starts_with("Too many positional arguments specified!"));
        assert_eq!(error(&["-o"]), "for the -o option: requires a value!");
        assert_eq!(
            error(&["--allow-unregistered-dialect=yes"]),
            "for the --allow-unregistered-dialect option: 'yes' is invalid value for boolean argument! Try 0 or 1"
        );
        assert_eq!(
            error(&["--verify-diagnostics=1"]),
            "for the --verify-diagnostics option: Cannot find option named '1'!"
        );
    }

    #[test]
    fn help_lists_every_pass() {
        let help = help();
        for info in REGISTRY {
            assert!(help.contains(&format!("--{}", info.flag)), "{}", info.flag);
            assert!(help.contains(info.summary));
        }
    }
}
