//! `axe-layout tile-of TILED (--inner L --inner-shape S | --outer L --outer-shape S) --tiled-shape S`:
//! recover the other factor of a tiling (paper App. D).

use crate::cli::{
    admit, admit_operand, layout_arg, layout_output, op_failed, shape_opt, tile_arg, Args, CliError, Command,
};
use axe_layout::tile_of::{inner_of, outer_of, without_unit_iters};
use axe_layout::Layout;

/// The `tile-of` subcommand.
pub const COMMAND: Command = Command {
    name: "tile-of",
    usage: "tile-of TILED --tiled-shape S (--inner L --inner-shape S | --outer L --outer-shape S) [--json]",
    about: "given a tiled layout and one factor, find the other (tile(inner, outer) == TILED), or say why not",
    help: "with --inner: prints the outer layout B with tile(INNER, B) == TILED;\n\
           with --outer: prints the inner layout A with tile(A, OUTER) == TILED\n\
           (without the unit iters of the factor's unit dimensions; a bare swizzle TILED or INNER admits any shape).\n\
           --json: {\"layout\": \"<text>\"}\n",
    positional: &["TILED"],
    values: &["inner", "outer", "tiled-shape", "inner-shape", "outer-shape"],
    switches: &[],
    run,
};

fn run(args: &Args) -> Result<String, CliError> {
    let tiled = layout_arg("TILED", args.arg(0))?;
    let tiled_shape = shape_opt(args, "tiled-shape")?;
    // A bare swizzle admits any shape, TILED too: `Swizzle(3,2,3)` over 64x32 is the swizzle over S[2048:1].
    admit_operand("--tiled-shape", &tiled, &tiled_shape)?;
    match (args.value("inner"), args.value("outer")) {
        (Some(text), None) => {
            let inner = layout_arg("--inner", text)?;
            let inner_shape = shape_opt(args, "inner-shape")?;
            admit_operand("--inner-shape", &inner, &inner_shape)?;
            let outer = outer_of(&tiled, &inner, &tiled_shape, &inner_shape).map_err(op_failed("tile-of"))?;
            layout_output(args, &without_unit_iters(&Layout::Tile(outer)))
        }
        (None, Some(text)) => {
            let outer = tile_arg("--outer", text)?;
            let outer_shape = shape_opt(args, "outer-shape")?;
            admit("--outer-shape", &Layout::Tile(outer.clone()), &outer_shape)?;
            let inner = inner_of(&tiled, &outer, &tiled_shape, &outer_shape).map_err(op_failed("tile-of"))?;
            layout_output(args, &without_unit_iters(&inner))
        }
        _ => Err(CliError::Usage("tile-of needs exactly one of --inner and --outer".into())),
    }
}
