//! `axe-layout tile INNER OUTER --inner-shape S --outer-shape S`: the tiled layout (paper App. C).

use crate::cli::{
    admit, admit_operand, layout_arg, layout_output, op_failed, shape_opt, tile_arg, Args, CliError, Command,
};
use axe_layout::tile::tile;
use axe_layout::Layout;

/// The `tile` subcommand.
pub const COMMAND: Command = Command {
    name: "tile",
    usage: "tile INNER OUTER --inner-shape S --outer-shape S [--json]",
    about: "tile an inner layout by an outer one: L(x_o * inner_shape + x_i) = span(inner) . OUTER(x_o) + INNER(x_i)",
    help: "prints the tiled layout over the shape outer_shape[i] * inner_shape[i] (a swizzle on INNER is kept;\n\
           OUTER must not have one; a bare swizzle INNER over a shape of another size than its period is the\n\
           swizzle over the row-major tile of the shape). With a swizzled INNER the equation holds with INNER's\n\
           own swizzle only when every value of OUTER on m, times span(INNER), is a multiple of the swizzle's\n\
           period 2^(M+B+S); anything else is refused (swizzle period rule).\n--json: {\"layout\": \"<text>\"}\n",
    positional: &["INNER", "OUTER"],
    values: &["inner-shape", "outer-shape"],
    switches: &[],
    run,
};

fn run(args: &Args) -> Result<String, CliError> {
    let inner = layout_arg("INNER", args.arg(0))?;
    let outer = tile_arg("OUTER", args.arg(1))?;
    let inner_shape = shape_opt(args, "inner-shape")?;
    let outer_shape = shape_opt(args, "outer-shape")?;
    // A bare swizzle admits any shape: tile reads it as the swizzle over the row-major tile of the shape.
    admit_operand("--inner-shape", &inner, &inner_shape)?;
    admit("--outer-shape", &Layout::Tile(outer.clone()), &outer_shape)?;
    let result = tile(&inner, &outer, &inner_shape, &outer_shape).map_err(op_failed("tile"))?;
    layout_output(args, &result)
}
