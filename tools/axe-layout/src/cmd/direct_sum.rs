//! `axe-layout direct-sum LEFT RIGHT --left-shape S --right-shape S`: L(x_A, x_B) = A(x_A) + B(x_B) (App. F).

use crate::cli::{
    admit, admit_operand, layout_arg, layout_output, op_failed, shape_opt, tile_arg, Args, CliError, Command,
};
use axe_layout::direct_sum::direct_sum;
use axe_layout::Layout;

/// The `direct-sum` subcommand.
pub const COMMAND: Command = Command {
    name: "direct-sum",
    usage: "direct-sum LEFT RIGHT --left-shape S --right-shape S [--json]",
    about: "the direct sum over the interleaved domain: L(x_L * right_shape + x_R) = LEFT(x_L) + RIGHT(x_R)",
    help: "LEFT must not have a swizzle. A swizzled RIGHT keeps its swizzle: the equation then holds only when\n\
           every value of LEFT on m is a multiple of the swizzle's period 2^(M+B+S); anything else is refused\n\
           (swizzle period rule). A bare swizzle RIGHT over a shape of another size than its period is the\n\
           swizzle over the row-major tile of the shape. prints the result's text.\n\
           --json: {\"layout\": \"<text>\"}\n",
    positional: &["LEFT", "RIGHT"],
    values: &["left-shape", "right-shape"],
    switches: &[],
    run,
};

fn run(args: &Args) -> Result<String, CliError> {
    let left = tile_arg("LEFT", args.arg(0))?;
    let right = layout_arg("RIGHT", args.arg(1))?;
    let left_shape = shape_opt(args, "left-shape")?;
    let right_shape = shape_opt(args, "right-shape")?;
    admit("--left-shape", &Layout::Tile(left.clone()), &left_shape)?;
    admit_operand("--right-shape", &right, &right_shape)?;
    let result = direct_sum(&left, &right, &left_shape, &right_shape).map_err(op_failed("direct-sum"))?;
    layout_output(args, &result)
}
