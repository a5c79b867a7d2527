//! `axe-opt`: the mlir-opt-style driver.
//!
//! Reads one buffer (a file or stdin), optionally splits it at `// -----`, and
//! for each chunk: parses it (the parser verifies the result), runs the
//! requested passes in command-line order, and prints the module. Diagnostics
//! are printed as `file:line:col: error: message` with the source line, or,
//! under `--verify-diagnostics`, checked against `expected-*` annotations.
//! Exit code 0 on success, 1 on any failure; never a panic on bad input.

use crate::{
    args::{no_value, Arg, Args},
    expectations,
    io::{read_input, tool_main, write_output, write_stderr, Input},
    split,
};
use anyhow::{anyhow, bail, Result};
use axe_dialect::{create_context, ffi, parse_module, AxeContext, Diagnostic};
use axe_passes::{lookup, PassKind, REGISTRY};
use melior::{
    ir::operation::{OperationLike, OperationPrintingFlags},
    pass::PassManager,
};
use std::ffi::OsString;

/// One step of the pipeline, in command-line order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// A registry entry (`--axe-...` or a pipeline alias).
    Registered(&'static str),
    /// Textual pipeline elements run on `builtin.module` (`--pass-pipeline`).
    Pipeline(String),
    /// One upstream pass given as a flag (`--cse`), as a pipeline element.
    Upstream(String),
}

/// Everything the command line asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Input path, `-` for stdin.
    pub input: String,
    /// Output path; stdout when `None`.
    pub output: Option<String>,
    /// Passes and pipelines, in order.
    pub steps: Vec<Step>,
    /// `--split-input-file`.
    pub split_input_file: bool,
    /// `--verify-diagnostics`.
    pub verify_diagnostics: bool,
    /// `--no-verify` clears it: verify after each pass.
    pub verify_each: bool,
    /// `--allow-unregistered-dialect`.
    pub allow_unregistered_dialect: bool,
    /// `--mlir-print-debuginfo`.
    pub print_debug_info: bool,
    /// `--mlir-print-op-generic`.
    pub print_generic: bool,
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
    /// Print the version.
    Version,
}

/// Entry point of the `axe-opt` binary.
pub fn main(args: impl IntoIterator<Item = OsString>) -> ! {
    tool_main("axe-opt", || parse_command(args), run)
}

/// Reads the command line. Unknown `--flag[=options]` words are kept as
/// upstream pass names (`--canonicalize`, `--cse`) and checked later.
pub fn parse_command(words: impl IntoIterator<Item = OsString>) -> Result<Command> {
    let mut args = Args::new(words)?;
    let mut options = Options { verify_each: true, ..Options::default() };
    let mut input = None;
    while let Some(arg) = args.next_arg() {
        let (name, value) = match arg {
            Arg::Positional(word) => {
                if input.replace(word).is_some() {
                    bail!("more than one input file given");
                }
                continue;
            }
            Arg::Flag { name, value } => (name, value),
        };
        let flag_only = |options: &mut Options, set: fn(&mut Options)| no_value(&name, &value).map(|()| set(options));
        match name.as_str() {
            "h" | "help" => return Ok(Command::Help),
            "help-passes" => return Ok(Command::HelpPasses),
            "version" => return Ok(Command::Version),
            "o" => options.output = Some(args.value(&name, value)?),
            "pass-pipeline" => {
                let text = args.value(&name, value)?;
                options.steps.push(Step::Pipeline(pipeline_elements(&text)?));
            }
            "split-input-file" => flag_only(&mut options, |o| o.split_input_file = true)?,
            "verify-diagnostics" => flag_only(&mut options, |o| o.verify_diagnostics = true)?,
            "no-verify" => flag_only(&mut options, |o| o.verify_each = false)?,
            "allow-unregistered-dialect" => flag_only(&mut options, |o| o.allow_unregistered_dialect = true)?,
            "mlir-print-debuginfo" => flag_only(&mut options, |o| o.print_debug_info = true)?,
            "mlir-print-op-generic" => flag_only(&mut options, |o| o.print_generic = true)?,
            _ => match lookup(&name) {
                Some(info) => {
                    no_value(&name, &value)?;
                    options.steps.push(Step::Registered(info.flag));
                }
                None => options.steps.push(Step::Upstream(match value {
                    Some(pass_options) => format!("{name}{{{pass_options}}}"),
                    None => name,
                })),
            },
        }
    }
    options.input = input.unwrap_or_else(|| "-".to_string());
    Ok(Command::Run(options))
}

/// Strips the `builtin.module(...)` anchor from a `--pass-pipeline` value,
/// leaving elements for the module pass manager; text without that anchor is
/// taken as elements already.
pub fn pipeline_elements(text: &str) -> Result<String> {
    let text = text.trim();
    let Some(inner) = text.strip_prefix("builtin.module(") else {
        return Ok(text.to_string());
    };
    let mut depth = 1usize;
    for (index, c) in inner.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if depth == 0 {
            if index + 1 != inner.len() {
                bail!("unexpected text after 'builtin.module(...)' in pass pipeline '{text}'");
            }
            return Ok(inner[..index].to_string());
        }
    }
    bail!("unbalanced parentheses in pass pipeline '{text}'")
}

/// Runs a parsed command; `Ok(false)` means "failed, diagnostics printed".
pub fn run(command: Command) -> Result<bool> {
    let options = match command {
        Command::Run(options) => options,
        Command::Help => return write_output(None, help().as_bytes()).map(|()| true),
        Command::HelpPasses => return write_output(None, help_passes().as_bytes()).map(|()| true),
        Command::Version => {
            let version = format!("axe-opt {}\n", env!("CARGO_PKG_VERSION"));
            return write_output(None, version.as_bytes()).map(|()| true);
        }
    };
    let context = create_context()?;
    context.context().set_allow_unregistered_dialects(options.allow_unregistered_dialect);
    build_pass_manager(&context, &options)?;
    let input = read_input(&options.input)?;
    let chunks = if options.split_input_file { split::split_input(&input.text) } else { split::whole(&input.text) };
    let mut success = true;
    let mut outputs = Vec::new();
    for chunk in &chunks {
        let output = process_chunk(&context, &options, &chunk.text, &input.name);
        let diagnostics = context.diagnostics().take();
        let chunk_ok = if options.verify_diagnostics {
            report_verification(&input, &chunk.text, &diagnostics)
        } else {
            report(&input, &diagnostics);
            output.is_some()
        };
        success &= chunk_ok;
        outputs.push(output.unwrap_or_default());
    }
    let text = outputs.join(split::OUTPUT_MARKER);
    let to_file = options.output.as_deref().is_some_and(|path| path != "-");
    if success || !to_file {
        write_output(options.output.as_deref(), text.as_bytes())?;
    }
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
    if !options.steps.is_empty() {
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
    let printed = module.as_operation().to_string_with_flags(flags).ok()?;
    Some(printed + "\n")
}

/// Builds the pass manager for `options.steps`; an invalid pipeline or unknown
/// option is an error naming the offending text.
fn build_pass_manager<'c>(context: &'c AxeContext, options: &Options) -> Result<PassManager<'c>> {
    let manager = PassManager::new(context.context());
    manager.enable_verifier(options.verify_each);
    for step in &options.steps {
        let added = match step {
            Step::Registered(flag) => match lookup(flag).map(|info| info.kind) {
                Some(PassKind::Rust(create)) => {
                    manager.add_pass(create());
                    Ok(())
                }
                Some(PassKind::Pipeline(text)) => ffi::add_pipeline(manager.as_operation_pass_manager(), text),
                None => Err(format!("no pass registered as '{flag}'")),
            },
            Step::Pipeline(text) | Step::Upstream(text) => ffi::add_pipeline(manager.as_operation_pass_manager(), text),
        };
        if added.is_ok() && options.verify_each {
            manager.add_pass(axe_passes::verify::create());
        }
        if let Err(message) = added {
            let details: String =
                context.diagnostics().take().iter().map(|diagnostic| diagnostic.render(None)).collect();
            let what = match step {
                Step::Upstream(text) => {
                    let name = text.split('{').next().unwrap_or(text);
                    format!("unknown option or pass '--{name}'")
                }
                Step::Pipeline(text) => format!("invalid pass pipeline '{text}'"),
                Step::Registered(flag) => format!("cannot add '--{flag}'"),
            };
            return Err(anyhow!("{what}: {}\n{details}", message.trim_end()));
        }
    }
    Ok(manager)
}

/// Prints diagnostics mlir-opt style, with source lines from `input`.
fn report(input: &Input, diagnostics: &[Diagnostic]) {
    let text: String =
        diagnostics.iter().map(|diagnostic| diagnostic.render(Some((&input.name, &input.text)))).collect();
    write_stderr(&text);
}

/// Checks `diagnostics` against the chunk's annotations; prints mismatches.
fn report_verification(input: &Input, chunk: &str, diagnostics: &[Diagnostic]) -> bool {
    let (expected, mut failures) = expectations::parse_expectations(&input.name, chunk);
    failures.extend(expectations::check(&input.name, &expected, diagnostics));
    report(input, &failures);
    failures.is_empty()
}

/// The `--help` text: options, then every registered pass with its summary.
pub fn help() -> String {
    let mut text = String::from(
        "OVERVIEW: axe-opt - the Axe MLIR driver (mlir-opt style)\n\n\
USAGE: axe-opt [options] [<input file> | -]\n\n\
OPTIONS:\n",
    );
    let options = [
        ("-o <file>", "Write the output to <file> (default: stdout)"),
        ("--pass-pipeline=<text>", "Append a textual pipeline, e.g. 'builtin.module(canonicalize,cse)'"),
        ("--<upstream-pass>[=<opts>]", "Append one upstream module pass, e.g. --canonicalize, --cse"),
        ("--split-input-file", "Process each '// -----' chunk on its own; join outputs with '// -----'"),
        ("--verify-diagnostics", "Check diagnostics against expected-* annotations instead of printing"),
        ("--no-verify", "Do not verify after each pass (parsing always verifies)"),
        ("--allow-unregistered-dialect", "Accept ops of unregistered dialects"),
        ("--mlir-print-debuginfo", "Print locations in the output"),
        ("--mlir-print-op-generic", "Print every op in the generic form"),
        ("--help-passes", "Describe every pass in full"),
        ("-h, --help", "Show this help"),
        ("--version", "Show the version"),
    ];
    for (flag, summary) in options {
        text.push_str(&format!("  {flag:<30} {summary}\n"));
    }
    text.push_str("\nPASSES (run in command-line order, with --pass-pipeline and upstream passes):\n");
    for info in REGISTRY {
        text.push_str(&format!("  --{:<28} {}\n", info.flag, info.summary));
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

    #[test]
    fn steps_keep_command_line_order() {
        let Ok(Command::Run(options)) = command(&[
            "--axe-strip-annotations",
            "--pass-pipeline=builtin.module(canonicalize,gpu.module(cse))",
            "--cse",
            "--lower-to-nvvm",
            "-o",
            "out.mlir",
            "in.mlir",
        ]) else {
            panic!("parses")
        };
        assert_eq!(
            options.steps,
            vec![
                Step::Registered("axe-strip-annotations"),
                Step::Pipeline("canonicalize,gpu.module(cse)".into()),
                Step::Upstream("cse".into()),
                Step::Registered("lower-to-nvvm"),
            ]
        );
        assert_eq!(options.output.as_deref(), Some("out.mlir"));
        assert_eq!(options.input, "in.mlir");
        assert!(options.verify_each);
    }

    #[test]
    fn upstream_pass_options_become_braces() {
        let Ok(Command::Run(options)) = command(&["--canonicalize=max-iterations=2"]) else { panic!("parses") };
        assert_eq!(options.steps, vec![Step::Upstream("canonicalize{max-iterations=2}".into())]);
        assert_eq!(options.input, "-");
    }

    #[test]
    fn bad_command_lines_are_errors() {
        assert!(command(&["a.mlir", "b.mlir"]).is_err());
        assert!(command(&["--split-input-file=1"]).is_err());
        assert!(command(&["-o"]).is_err());
        assert!(command(&["--pass-pipeline=builtin.module(cse"]).is_err());
        assert!(command(&["--pass-pipeline=builtin.module(cse)x"]).is_err());
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
