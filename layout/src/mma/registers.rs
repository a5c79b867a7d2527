//! Register operands: tile-of against the fragment atom (paper App. D) gives the outer layout over the grid of
//! instruction tiles; its warp iters say which warp (or warpgroup) holds each tile, its register iters where.
//!
//! With `T = tile(atom, outer)` the register of fragment element `i` of grid tile `x` in warp `w` is
//! `span(atom, m) * outer(x)[m] + i` (the atoms put element `i` at `m = i`), and `w` is read off the outer's
//! warp axes (`warpid`, `wid_in_wg`: 32 threads per unit, `wgid`: 128).
//!
//! The operand is matched on its hardware meaning, not its spelling: [`crate::threads::to_hardware`] first writes
//! its threads in the atom's digits (`laneid` + `warpid` for warp fragments, `laneid` + `wid_in_wg` + `wgid` for
//! warpgroup ones) and `reg` as `m`, so `32@tid` tiles like `1@warpid` and `32@tid_in_wg` like `1@wid_in_wg`;
//! what no iters of those digits can say is refused by the `thread-axes` rule.

use super::{MmaError, MmaRule, Operand, Role};
use crate::axis::{Axis, AxisKind, ExecScope};
use crate::layout::Layout;
use crate::threads::{to_hardware, Grain};
use crate::tile_layout::{unflatten, TileLayout};
use crate::tile_of::outer_of;
use std::collections::{BTreeMap, BTreeSet};

/// Where each instruction tile of one register operand lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegTiles {
    /// The grid of instruction tiles, `[rows, cols]` (the operand's shape divided by the atom's).
    pub grid: [i64; 2],
    /// Per tile, row-major over `grid`: every `(thread_base, register base)` holding it, sorted by thread.
    pub tiles: Vec<Vec<(i64, i64)>>,
    /// Fragment elements per thread (the atom's span on `m`).
    pub frag_len: i64,
}

impl RegTiles {
    /// The holders of tile `(r, c)`.
    pub fn at(&self, r: i64, c: i64) -> &[(i64, i64)] {
        self.tiles.get((r * self.grid[1] + c) as usize).map_or(&[], Vec::as_slice)
    }

    /// The registers (fragment order) of tile `(r, c)` in the warp or warpgroup starting at `thread_base`.
    pub fn regs(&self, r: i64, c: i64, thread_base: i64) -> Option<Vec<i64>> {
        let (_, base) = self.at(r, c).iter().find(|(t, _)| *t == thread_base)?;
        Some((0..self.frag_len).map(|i| base + i).collect())
    }
}

/// Threads per index of a warp-level thread axis (`warpid`, `wid_in_wg`: 32; `wgid`: 128), `None` otherwise.
pub fn threads_per_index(axis: Axis) -> Option<i64> {
    match axis.kind() {
        AxisKind::Thread { unit: ExecScope::Warp, .. } => Some(32),
        AxisKind::Thread { unit: ExecScope::Warpgroup, .. } => Some(128),
        _ => None,
    }
}

/// Matches a register operand to its fragment atom by tile-of and reads each grid tile's holders and registers.
///
/// Refusals: threads no iters of the atom's digits can write (`thread-axes` rule); (`fragment` rule) a swizzled
/// layout, a layout that is not a tile of the atom, an outer layout that
/// moves an axis other than `m` and warp axes the atom leaves free, a tile held twice in one warp.
pub fn match_registers(
    role: Role,
    op: &Operand<'_>,
    atom: &TileLayout,
    atom_shape: [i64; 2],
    inst: &str,
) -> Result<RegTiles, MmaError> {
    let fail = |msg: String| MmaError::new(MmaRule::Fragment, msg);
    let name = role.name();
    if op.layout.swizzle().is_some() {
        return Err(fail(format!("operand {name} is in registers but its layout has a swizzle")));
    }
    let warpgroup = Axis::named("wid_in_wg").ok();
    let grain = if atom.axes().into_iter().any(|a| Some(a) == warpgroup) { Grain::Warpgroup } else { Grain::Warp };
    let layout = to_hardware(op.layout, grain)
        .map_err(|e| MmaError::new(MmaRule::ThreadAxes, format!("operand {name}: {}", e.message)))?;
    let grid = [op.shape[0] / atom_shape[0], op.shape[1] / atom_shape[1]];
    let outer = outer_of(&layout, &Layout::Tile(atom.clone()), op.shape, &atom_shape).map_err(|e| {
        fail(format!("operand {name} is not a tile of the {inst} {name} fragment {atom} over {atom_shape:?}: {e}"))
    })?;
    let atom_axes = atom.axes();
    let moved = outer
        .shard()
        .iter()
        .chain(outer.replica())
        .filter(|i| i.extent > 1 && i.stride != 0)
        .map(|i| i.axis)
        .chain(outer.offset().iter().filter(|(_, v)| **v != 0).map(|(a, _)| *a));
    for a in moved {
        let free_warp_axis = threads_per_index(a).is_some() && !atom_axes.contains(&a);
        if a != Axis::M && !free_warp_axis {
            return Err(fail(format!(
                "operand {name}'s tiling of the {inst} fragment moves '{a}', but only warp axes the fragment \
                 leaves free and the register axis m may tile it (outer layout {outer})"
            )));
        }
    }
    let span_m = atom.span_on(Axis::M);
    let mut tiles = Vec::with_capacity((grid[0] * grid[1]) as usize);
    for flat in 0..grid[0] * grid[1] {
        let mut holders: BTreeMap<i64, BTreeSet<i64>> = BTreeMap::new();
        for point in outer.eval_flat(flat).map_err(|e| fail(e.message))? {
            let thread_base: i64 = point.iter().filter_map(|(a, v)| threads_per_index(*a).map(|t| t * v)).sum();
            let reg = point.get(&Axis::M).copied().unwrap_or(0) * span_m;
            holders.entry(thread_base).or_default().insert(reg);
        }
        let mut tile = Vec::with_capacity(holders.len());
        for (thread_base, regs) in holders {
            if regs.len() > 1 {
                let x = unflatten(&grid, flat);
                return Err(fail(format!(
                    "operand {name} keeps instruction tile {x:?} at several register bases {regs:?} in the warp \
                     starting at thread {thread_base}"
                )));
            }
            tile.extend(regs.into_iter().map(|r| (thread_base, r)));
        }
        tiles.push(tile);
    }
    Ok(RegTiles { grid, tiles, frag_len: span_m })
}
