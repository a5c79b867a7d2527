//! `lower-tile-loops`: `axe.tile_loop` to an `scf.for` over the CTA's tiles and the grouped order's index
//! arithmetic (issue 25).
//!
//! The numbering is [`axe_dialect::tile_loop::grouped`]'s; this pass writes it. At the op:
//!
//! ```mlir
//! %r = axe.tile_loop (%m0, %n0) in (%m, %n) : i32 tile [128, 256] group 8 iter_args(%s = %s0) -> (i32) { body }
//! // becomes
//! %rows = ceildiv(%m, 128)   %cols = ceildiv(%n, 256)   %tiles = %rows * %cols
//! %r = scf.for %t = %bx to %tiles step %grid_x iter_args(%s = %s0) -> (i32) {
//!   %per_group = %cols * 8           %first = %t / %per_group * 8
//!   %height = min(%rows - %first, 8) %within = %t % %per_group
//!   %m0 = (%first + %within % %height) * 128   %n0 = %within / %height * 256
//!   body
//! }
//! ```
//!
//! With `group 1` the tile is `(%t / %cols, %t % %cols)`. The loop walks a 1-D grid (`gpu.block_id x`,
//! `gpu.grid_dim x`), so a kernel whose launch record says a grid with more than one dimension is refused. Run it
//! first with `--lower-roles`: the TMA and tensor-core lowerings then see the tile's coordinates as multiples of
//! the tile (`arith.muli` by a constant), as they need for their offsets.

use crate::{
    glue::{external_pass_creating, PassId},
    glue::{PassInfo, PassKind},
    ir::build::{Builder, Dim},
    ir::each_op::lower_each,
    ir::ty::Ty,
};
use axe_dialect::{
    access,
    kernel::launch_grid,
    ops::enclosing_function,
    tile_loop::{self, TileLoop, EXTENTS},
    OpKind,
};
use melior::{
    ir::{
        block::BlockLike, operation::OperationLike, r#type::TypeLike, Block, OperationRef, Region, RegionLike, Value,
        ValueLike,
    },
    IrRewriter,
};

/// `--lower-tile-loops` as `axe-opt` lists it: flag, summary, description, constructor (the registry's entry).
pub const PASS: PassInfo = PassInfo {
    flag: "lower-tile-loops",
    summary: "Lower axe.tile_loop to an scf.for over the CTA's tiles in grouped order",
    description: "Input: a verified module. Each axe.tile_loop becomes an scf.for from gpu.block_id x to the\n\
tile count in steps of gpu.grid_dim x (persistent CTAs), its body preceded by the grouped order's arithmetic\n\
that gives the tile's first row and column; axe.yield becomes scf.yield. Kernels whose launch record has a\n\
grid of more than one dimension are refused. Run it first: the other lowerings then see plain scf.for.",
    kind: PassKind::Rust(create),
};

static ID: PassId = PassId::new();

/// Lowers every `axe.tile_loop` under `root`: the number lowered, or the number of errors reported at their ops.
pub fn lower_tile_loops(root: OperationRef) -> Result<usize, usize> {
    lower_each(root, OpKind::TileLoop, PASS.flag, |op| lower_one(op).map_err(|message| vec![(op, message)]))
}

/// One `axe.tile_loop`, checked and written.
fn lower_one(op: OperationRef) -> Result<(), String> {
    let shape = tile_loop::check(op).map_err(|errors| errors.join("; "))?;
    if let Some(grid) = enclosing_function(op).and_then(launch_grid) {
        if grid.iter().skip(1).any(|extent| extent.trim() != "1") {
            return Err(format!(
                "a tile loop walks a 1-D grid (gpu.block_id x, gpu.grid_dim x), but the launch record's grid is [{}]",
                grid.join(", ")
            ));
        }
    }
    write(op, shape)
}

/// Writes the loop `shape` describes in place of `op`.
fn write<'c, 'a>(op: OperationRef<'c, 'a>, shape: TileLoop) -> Result<(), String> {
    let internal = |what: &str| format!("internal: {what}");
    let b = Builder::before(op)?;
    let extent = |i: usize| -> Result<Value<'c, 'a>, String> {
        let value = access::operand(op, i).ok_or_else(|| internal("tile loop extent"))?;
        if value.r#type().is_index() {
            Ok(value)
        } else {
            b.index_castui(value, Ty::Index)
        }
    };
    let ceildiv = |value: Value<'c, 'a>, size: i64| b.divui(b.addi(value, b.index(size - 1)?)?, b.index(size)?);
    let [tile_rows, tile_cols] = shape.tile;
    let rows = ceildiv(extent(0)?, tile_rows)?;
    let cols = ceildiv(extent(1)?, tile_cols)?;
    let tiles = b.muli(rows, cols)?;
    let first_tile = b.block_id(Dim::X)?;
    let ctas = b.grid_dim(Dim::X)?;
    let inits: Vec<Value> = op.operands().skip(EXTENTS).collect();
    let carried: Vec<_> = inits.iter().map(|v| (v.r#type(), op.location())).collect();
    let index = b.resolve(Ty::Index)?;
    let region = Region::new();
    let arguments: Vec<_> = std::iter::once((index, op.location())).chain(carried.iter().copied()).collect();
    region.append_block(Block::new(&arguments));
    let bounds: Vec<Value> = [first_tile, tiles, ctas].into_iter().chain(inits.iter().copied()).collect();
    let results: Vec<_> = carried.iter().map(|(ty, _)| *ty).collect();
    let for_op = b.op_with_regions("scf.for", &bounds, &results, &[], vec![region])?;
    let block = access::entry_block(for_op).ok_or_else(|| internal("scf.for has no block"))?;
    let loop_args: Vec<Value> = access::arguments(block).map(Value::from).collect();
    let inner = Builder::at_start(for_op, block, op.location());
    let (row, col) = grouped(&inner, loop_args[0], rows, cols, shape.group)?;
    let m0 = inner.muli(row, inner.index(tile_rows)?)?;
    let n0 = inner.muli(col, inner.index(tile_cols)?)?;
    // The body moves in, its arguments replaced by the tile's coordinates and the loop's carried values; its
    // axe.yield becomes the loop's scf.yield.
    inner.r#yield(&[])?;
    let anchor = block.terminator().ok_or_else(|| internal("scf.yield missing"))?;
    let body = access::entry_block(op).ok_or_else(|| internal("tile loop has no body"))?;
    let axe_yield = body.terminator().ok_or_else(|| internal("axe.yield missing"))?;
    let values: Vec<Value> = [m0, n0].into_iter().chain(loop_args[1..].iter().copied()).collect();
    let rewriter = IrRewriter::from_op(op);
    let base = rewriter.as_rewriter_base();
    base.inline_block_before(body, anchor, &values);
    let yielded: Vec<Value> = axe_yield.operands().collect();
    Builder::before(axe_yield)?.r#yield(&yielded)?;
    base.erase_op(axe_yield);
    base.erase_op(anchor);
    let replacements: Vec<Value> = for_op.results().map(Value::from).collect();
    base.replace_op_with_values(op, &replacements);
    Ok(())
}

/// Tile `t`'s (row, column) in grouped order over `rows x cols` tiles, `group` tile rows a group: the index
/// arithmetic of [`tile_loop::grouped`].
fn grouped<'c, 'a>(
    b: &Builder<'c, 'a>,
    t: Value<'c, 'a>,
    rows: Value<'c, 'a>,
    cols: Value<'c, 'a>,
    group: i64,
) -> Result<(Value<'c, 'a>, Value<'c, 'a>), String> {
    if group == 1 {
        return Ok((b.divui(t, cols)?, b.remui(t, cols)?));
    }
    let group_rows = b.index(group)?;
    let per_group = b.muli(cols, group_rows)?;
    let first = b.muli(b.divui(t, per_group)?, group_rows)?;
    let height = b.minui(b.subi(rows, first)?, group_rows)?;
    let within = b.remui(t, per_group)?;
    Ok((b.addi(first, b.remui(within, height)?)?, b.divui(within, height)?))
}

/// The melior pass behind `--lower-tile-loops`.
pub fn create() -> melior::pass::Pass {
    external_pass_creating(&ID, "AxeLowerTileLoops", &PASS, &["scf", "arith", "gpu"], |operation| {
        lower_tile_loops(operation).is_ok()
    })
}
