//! `axe-layout`: a calculator and explorer for Axe layouts (no LLVM).
//!
//! Every subcommand is a module exposing a `COMMAND: cli::Command`; listing it in [`COMMANDS`] is all it takes
//! to add one (`mod foo;` + one table line). The subcommands and their JSON are a contract relied on by scripts
//! outside the project: see each command's `--help`.
//!
//! Exit codes: 0 success; 1 bad input (a layout, shape or region that does not parse, a shape the layout does
//! not admit) or a failed operation, with `axe-layout: error: ...` on stderr; 2 a malformed command line (unknown
//! subcommand or option, missing argument).

mod cli;
mod cmd;
mod copy_plan;
mod distributed;
mod explore;
mod mma_plan;
mod page;
mod serve;
mod tma_plan;
mod trn_matmul_plan;

use axe_layout::{Axis, AxisKind};
use cli::{Args, CliError, Command};
use std::io::Write;

/// Every subcommand, in the order `--help` lists them.
const COMMANDS: &[&Command] = &[
    &cmd::eval::COMMAND,
    &cmd::show::COMMAND,
    &cmd::canon::COMMAND,
    &cmd::group::COMMAND,
    &cmd::tile::COMMAND,
    &cmd::tile_of::COMMAND,
    &cmd::slice::COMMAND,
    &cmd::direct_sum::COMMAND,
    &cmd::span::COMMAND,
    &tma_plan::COMMAND,
    &mma_plan::COMMAND,
    &copy_plan::COMMAND,
    &trn_matmul_plan::COMMAND,
    &distributed::FROM_PLACEMENTS,
    &distributed::TO_PLACEMENTS,
    &distributed::COLLECTIVE_PLAN,
    &serve::COMMAND,
];

fn overview() -> String {
    let mut s = String::from(
        "axe-layout: evaluate, inspect and transform Axe layouts\n\n\
         usage: axe-layout [--axis NAME=KIND]... <command> [arguments] [--json]\n\
         \x20      axe-layout <command> --help\n\n\
         --axis NAME=KIND declares an axis beyond the built-in ones; KIND is memory, device or\n\
         thread:UNIT:WITHIN (e.g. --axis sbuf=memory, --axis lane4=thread:thread:warp)\n\ncommands:\n",
    );
    for c in COMMANDS {
        s.push_str(&format!("  {:<15} {}\n", c.name, c.about));
    }
    s.push_str(
        "\nLayouts are written in the Axe notation, e.g.\n  \
         'S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid'\n  \
         'Swizzle(3,3,3) o S[(8,64):(64,1)]'\n\
         A layout argument - is read from standard input.\n\
         Shapes are comma lists (8,16); regions are half-open begin:end per dimension (2:3,6:10).\n\n\
         exit codes: 0 ok; 1 bad input or failed operation (message on stderr); 2 malformed command line\n",
    );
    s
}

fn command_help(c: &Command) -> String {
    format!("usage: axe-layout {}\n\n{}\n\n{}", c.usage, c.about, c.help)
}

/// Declares the axes of every leading `--axis NAME=KIND` option and returns the arguments after them.
fn declare_axes(mut argv: &[String]) -> Result<&[String], CliError> {
    while let Some(first) = argv.first().filter(|a| a.starts_with("--axis")) {
        let (spec, rest) = match first.strip_prefix("--axis=") {
            Some(spec) => (spec, &argv[1..]),
            None if first == "--axis" => match argv.get(1) {
                Some(spec) => (spec.as_str(), &argv[2..]),
                None => return Err(CliError::Usage("option --axis needs NAME=KIND".into())),
            },
            None => break,
        };
        let (name, kind) = spec
            .split_once('=')
            .ok_or_else(|| CliError::Usage(format!("--axis {spec}: expected NAME=KIND (e.g. sbuf=memory)")))?;
        let kind = AxisKind::parse(kind).map_err(|e| CliError::Usage(format!("--axis {spec}: {}", e.message)))?;
        Axis::declare(name, kind).map_err(|e| CliError::Usage(format!("--axis {spec}: {}", e.message)))?;
        argv = rest;
    }
    Ok(argv)
}

fn run(argv: &[String]) -> Result<String, CliError> {
    let argv = declare_axes(argv)?;
    let Some(first) = argv.first() else {
        return Err(CliError::Usage("missing command (try 'axe-layout --help')".into()));
    };
    if first == "--help" || first == "-h" || first == "help" {
        return Ok(match argv.get(1).and_then(|n| COMMANDS.iter().find(|c| c.name == n)) {
            Some(c) => command_help(c),
            None => overview(),
        });
    }
    let Some(cmd) = COMMANDS.iter().find(|c| c.name == first) else {
        return Err(CliError::Usage(format!("unknown command '{first}' (try 'axe-layout --help')")));
    };
    let rest = &argv[1..];
    if rest.iter().take_while(|a| *a != "--").any(|a| a == "--help" || a == "-h") {
        return Ok(command_help(cmd));
    }
    let args = Args::parse(cmd, rest).map_err(|e| match e {
        CliError::Usage(m) => CliError::Usage(format!("{m}\nusage: axe-layout {}", cmd.usage)),
        other => other,
    })?;
    (cmd.run)(&args)
}

fn main() {
    let argv: Vec<String> = std::env::args_os().skip(1).map(|a| a.to_string_lossy().into_owned()).collect();
    match run(&argv) {
        Ok(out) => {
            // A closed pipe is not an error worth a panic.
            let _ = std::io::stdout().write_all(out.as_bytes());
        }
        Err(e) => {
            let msg = match &e {
                CliError::Usage(m) | CliError::Failed(m) => m,
            };
            let _ = writeln!(std::io::stderr(), "axe-layout: error: {msg}");
            std::process::exit(e.exit_code());
        }
    }
}
