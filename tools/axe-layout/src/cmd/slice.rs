//! `axe-layout slice L --shape S --region B:E,...`: the layout of a rectangular region (paper App. E).

use crate::cli::{admit, layout_arg, layout_output, op_failed, region_opt, shape_opt, Args, CliError, Command};
use axe_layout::slice::slice;

/// The `slice` subcommand.
pub const COMMAND: Command = Command {
    name: "slice",
    usage: "slice LAYOUT --shape S --region B:E,... [--json]",
    about: "the layout L' over a region with L'(y) == L(y + begin), or the dimension and reason it fails",
    help: "--region: one half-open begin:end per dimension of --shape, e.g. 2:3,6:10.\n\
           prints the sliced layout's text (a swizzle is kept).\n--json: {\"layout\": \"<text>\"}\n",
    positional: &["LAYOUT"],
    values: &["shape", "region"],
    switches: &[],
    run,
};

fn run(args: &Args) -> Result<String, CliError> {
    let layout = layout_arg("LAYOUT", args.arg(0))?;
    let shape = shape_opt(args, "shape")?;
    let region = region_opt(args, "region")?;
    admit("--shape", &layout, &shape)?;
    if region.len() != shape.len() {
        return Err(CliError::Failed(format!(
            "--region has {} dimension(s) but --shape has {}",
            region.len(),
            shape.len()
        )));
    }
    if let Some((d, (_, end))) = region.iter().enumerate().find(|(d, (_, end))| *end > shape[*d]) {
        return Err(CliError::Failed(format!(
            "--region: dimension {d} ends at {end}, beyond the shape's extent {}",
            shape[d]
        )));
    }
    let result = slice(&layout, &shape, &region).map_err(op_failed("slice"))?;
    layout_output(args, &result)
}
