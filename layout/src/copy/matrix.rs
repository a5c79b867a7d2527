//! `ldmatrix` (shared -> registers) and `stmatrix` (registers -> shared, sm_90+): a warp moves 1, 2 or 4 8x8
//! matrices of 16-bit elements (PTX ISA 9.7.14.5.15 `ldmatrix`, 9.7.14.5.16 `stmatrix`).
//!
//! The ISA's fragment: lane `l` holds, of matrix `i`, register `d_i` = elements `(l / 4, 2 * (l % 4) + j)` for
//! `j = 0, 1` (low half first), where row `r` of the matrix is the 16-byte row whose address lane `8i + r`
//! supplies; `.trans` gives lane `l` elements `(2 * (l % 4) + j, l / 4)` instead. Over a logical 8x8 tile whose
//! shared rows are its rows, the two fragments are the Axe layouts [`fragment`] `S[(8,4,2):(4@laneid,1@laneid,1)]`
//! (the mma.sync A and C fragments of [`crate::mma::atoms`] are tiles of it) and `S[(4,2,8):(1@laneid,1,4@laneid)]` (the B fragment is a tile of this one);
//! when the shared rows are the tile's columns the roles swap.
//!
//! The register layout must be a tile of one of the two ([`crate::mma::registers::match_registers`], tile-of),
//! its warps holding whole 8x8 tiles, and every 8-element row of every tile must be 16 contiguous, 16-byte aligned
//! bytes of shared memory after the swizzle (a swizzle that keeps 16-byte chunks whole passes, one that splits
//! them does not). Tiles of one warp are grouped four (then two, then one) at a time in register order.

use super::fit::Fitter;
use super::table::Table;
use super::vector::{fit_or_err, Threads};
use super::{Completion, CopyIssue, CopyKind, CopyStep, Operand, PerThread};
use crate::layout::Layout;
use crate::mma;
use crate::mma::registers::match_registers;
use crate::tile_layout::TileLayout;
use crate::Axis;
use std::collections::{BTreeMap, BTreeSet};

/// The fragment of one matrix over its logical 8x8 tile when shared rows are the tile's rows: plain (`trans`
/// false) `S[(8,4,2):(4@laneid,1@laneid,1)]`, transposed `S[(4,2,8):(1@laneid,1,4@laneid)]` (the B fragment is a tile of this one); the register axis
/// `m` counts 16-bit slots (2 per 32-bit register).
pub fn fragment(trans: bool) -> TileLayout {
    let lane = Axis::named("laneid").unwrap_or(Axis::M);
    let it = |e, s, a| crate::Iter { extent: e, stride: s, axis: a };
    let shard = if trans {
        vec![it(4, 1, lane), it(2, 1, Axis::M), it(8, 4, lane)]
    } else {
        vec![it(8, 4, lane), it(4, 1, lane), it(2, 1, Axis::M)]
    };
    TileLayout::new(shard, vec![], BTreeMap::new()).unwrap_or_default()
}

/// Per warp (its first thread): `(register base, tile)` of each 8x8 tile it holds.
type PerWarp = BTreeMap<i64, Vec<(i64, (i64, i64))>>;

/// The register side's shape as `[rows, cols]` (leading dimensions folded into rows).
fn as_matrix(shape: &[i64]) -> Option<[i64; 2]> {
    let (&cols, lead) = shape.split_last()?;
    let rows: i64 = lead.iter().product();
    (rows % 8 == 0 && cols % 8 == 0 && rows > 0 && cols > 0).then_some([rows, cols])
}

/// The start (address before the swizzle) of memory row `a` of tile `(i, j)`, or `None` if a row is not 16
/// contiguous aligned bytes. `along_cols`: memory rows are the tile's rows (else its columns).
fn row_start(mem: &(Vec<i64>, Vec<i64>), cols: i64, tile: (i64, i64), a: i64, along_cols: bool) -> Option<i64> {
    let (pre, post) = mem;
    let flat = |q: i64| {
        let (r, c) = if along_cols { (8 * tile.0 + a, 8 * tile.1 + q) } else { (8 * tile.0 + q, 8 * tile.1 + a) };
        (r * cols + c) as usize
    };
    let base = *post.get(flat(0))?;
    if base.rem_euclid(8) != 0 || (1..8).any(|q| post.get(flat(q)) != Some(&(base + q))) {
        return None;
    }
    pre.get(flat(0)).copied()
}

/// `ldmatrix` (`load`) or `stmatrix` for a register side `reg` over `shape` and a shared table, or `None` when
/// the layouts do not allow it (the caller falls back to `ld`/`st`).
pub(crate) fn matrix_step(
    reg: &Layout,
    shape: &[i64],
    mem: &Table,
    load: bool,
    esize: i64,
    ctx: &Threads<'_>,
) -> Option<CopyStep> {
    let Table::Mem { pre, post, swizzle } = mem else { return None };
    if esize != 2 {
        return None;
    }
    let [rows, cols] = as_matrix(shape)?;
    let mem = (pre.clone(), post.clone());
    let shape2 = [rows, cols];
    for frag_trans in [false, true] {
        let atom = fragment(frag_trans);
        let op = mma::Operand { layout: reg, shape: &shape2, mem: crate::hw::Memory::Reg };
        let Ok(tiles) = match_registers(mma::Role::A, &op, &atom, [8, 8], "ldmatrix") else { continue };
        // One orientation for every tile.
        let grid = tiles.grid;
        let coords: Vec<(i64, i64)> = (0..grid[0]).flat_map(|i| (0..grid[1]).map(move |j| (i, j))).collect();
        let along_cols = if coords.iter().all(|&t| (0..8).all(|a| row_start(&mem, cols, t, a, true).is_some())) {
            true
        } else if coords.iter().all(|&t| (0..8).all(|a| row_start(&mem, cols, t, a, false).is_some())) {
            false
        } else {
            continue;
        };
        let trans = frag_trans == along_cols;
        // Per warp: its tiles in register order.
        let mut per_warp: PerWarp = BTreeMap::new();
        for &(i, j) in &coords {
            let holders = tiles.at(i, j);
            if !load && holders.len() != 1 {
                return None;
            }
            for &(tb, rb) in holders {
                per_warp.entry(tb).or_default().push((rb, (i, j)));
            }
        }
        for v in per_warp.values_mut() {
            v.sort_unstable();
        }
        let mut regs_of = per_warp.values().map(|v| v.iter().map(|(r, _)| *r).collect::<Vec<i64>>());
        let first = regs_of.next()?;
        if regs_of.any(|r| r != first) {
            return None;
        }
        let warps: Vec<i64> = per_warp.keys().copied().collect();
        let all: BTreeSet<i64> = warps.iter().flat_map(|&tb| tb..tb + 32).collect();
        let threads = ctx.set(&all, "issue the matrix instructions").ok()?;
        for count in [4usize, 2, 1] {
            if first.len() % count != 0 {
                continue;
            }
            if let Some(issues) = group(&per_warp, &warps, count, &mem, cols, along_cols, load, ctx) {
                let name = if load { "ldmatrix" } else { "stmatrix" };
                let t = if trans { ".trans" } else { "" };
                let kind = if load {
                    CopyKind::Ldmatrix { count: count as u8, trans }
                } else {
                    CopyKind::Stmatrix { count: count as u8, trans }
                };
                return Some(CopyStep {
                    kind,
                    instruction: format!("{name}.sync.aligned.m8n8.x{count}{t}.shared.b16"),
                    vector_bytes: 4 * count as i64,
                    threads,
                    issues,
                    src_swizzle: if load { *swizzle } else { None },
                    dst_swizzle: if load { None } else { *swizzle },
                    completion: Completion::None,
                });
            }
        }
    }
    None
}

/// The issues of `count` matrices each: registers from the first warp (all warps agree), row addresses as a
/// formula over the lanes that supply them (lane `8i + r`: row `r` of matrix `i`).
#[allow(clippy::too_many_arguments)]
fn group(
    per_warp: &PerWarp,
    warps: &[i64],
    count: usize,
    mem: &(Vec<i64>, Vec<i64>),
    cols: i64,
    along_cols: bool,
    load: bool,
    ctx: &Threads<'_>,
) -> Option<Vec<CopyIssue>> {
    let lanes: Vec<i64> = warps.iter().flat_map(|&tb| (0..8 * count as i64).map(move |l| tb + l)).collect();
    let fitter: Fitter = ctx.fitter(&lanes);
    let n = per_warp.values().next()?.len();
    let mut issues = Vec::with_capacity(n / count);
    for g in 0..n / count {
        let mut values = Vec::with_capacity(lanes.len());
        for tb in warps {
            let tiles = &per_warp.get(tb)?[g * count..(g + 1) * count];
            for l in 0..8 * count {
                values.push(row_start(mem, cols, tiles[l / 8].1, (l % 8) as i64, along_cols)?);
            }
        }
        let addr: PerThread = fit_or_err(&fitter, &values, "a matrix row address").ok()?;
        let first = &per_warp.get(warps.first()?)?[g * count..(g + 1) * count];
        let regs = Operand::Regs(first.iter().flat_map(|(rb, _)| [*rb, rb + 1]).collect());
        let m = Operand::Mem(addr);
        let (src, dst) = if load { (m, regs) } else { (regs, m) };
        issues.push(CopyIssue { src, dst, only: None });
    }
    Some(issues)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mma::atoms::{mma_sync_a, mma_sync_b, mma_sync_c};
    use crate::tile_of::outer_of;

    /// ldmatrix feeds mma.sync: A (k16, k8) and C are tiles of the plain fragment, B of the transposed one, so a
    /// register operand laid out for mma.sync matches by tile-of.
    #[test]
    fn mma_sync_fragments_are_tiles_of_the_ldmatrix_fragment() {
        let plain = Layout::Tile(fragment(false));
        let trans = Layout::Tile(fragment(true));
        for (atom, shape, inner) in [
            (mma_sync_a(16).unwrap(), [16, 16], &plain),
            (mma_sync_a(8).unwrap(), [16, 8], &plain),
            (mma_sync_c().unwrap(), [16, 8], &plain),
            (mma_sync_b(16).unwrap(), [16, 8], &trans),
            (mma_sync_b(8).unwrap(), [8, 8], &trans),
        ] {
            let outer = outer_of(&Layout::Tile(atom.clone()), inner, &shape, &[8, 8]);
            assert!(outer.is_ok(), "{atom} over {shape:?}: {outer:?}");
        }
        assert!(outer_of(&Layout::Tile(mma_sync_b(16).unwrap()), &plain, &[16, 8], &[8, 8]).is_err());
    }
}
