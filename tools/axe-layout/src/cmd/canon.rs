//! `axe-layout canon L [--json]`: the canonical form (paper App. A).

use crate::cli::{layout_arg, layout_output, to_json, Args, CliError, Command};
use axe_layout::canonicalize::canonicalize;
use serde::Serialize;

/// The `canon` subcommand.
pub const COMMAND: Command = Command {
    name: "canon",
    usage: "canon LAYOUT [--json]",
    about: "canonicalize a layout (same induced map, unique form when the gap condition holds)",
    help: "prints the canonical layout's text.\n\
           --json: {\"layout\": \"<canonical text>\", \"gap_condition\": true|false}\n",
    positional: &["LAYOUT"],
    values: &[],
    switches: &[],
    run,
};

#[derive(Serialize)]
struct CanonJson {
    layout: String,
    gap_condition: bool,
}

fn run(args: &Args) -> Result<String, CliError> {
    let layout = layout_arg("LAYOUT", args.arg(0))?;
    let c = canonicalize(&layout);
    if args.json() {
        return to_json(&CanonJson { layout: c.layout.to_string(), gap_condition: c.gap_condition });
    }
    layout_output(args, &c.layout)
}
