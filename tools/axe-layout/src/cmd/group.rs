//! `axe-layout group L --shape S [--json]`: split/fuse shard iters into one block per dimension (paper App. B).

use crate::cli::{admit, layout_arg, layout_output, op_failed, shape_opt, to_json, Args, CliError, Command};
use axe_layout::group::group;
use serde::Serialize;

/// The `group` subcommand.
pub const COMMAND: Command = Command {
    name: "group",
    usage: "group LAYOUT --shape S [--json]",
    about: "regroup the shard so consecutive blocks of iters multiply to the shape's dimensions",
    help: "prints the grouped layout's text (a swizzle is kept).\n\
           --json: {\"layout\": \"<text>\", \"seps\": [0, ..., n]}: dimension i owns shard iters seps[i]..seps[i+1]\n",
    positional: &["LAYOUT"],
    values: &["shape"],
    switches: &[],
    run,
};

#[derive(Serialize)]
struct GroupJson {
    layout: String,
    seps: Vec<usize>,
}

fn run(args: &Args) -> Result<String, CliError> {
    let layout = layout_arg("LAYOUT", args.arg(0))?;
    let shape = shape_opt(args, "shape")?;
    admit("--shape", &layout, &shape)?;
    let g = group(layout.tile(), &shape).map_err(op_failed("group"))?;
    let result = layout.with_tile(g.layout).map_err(op_failed("group"))?;
    if args.json() {
        return to_json(&GroupJson { layout: result.to_string(), seps: g.seps });
    }
    layout_output(args, &result)
}
