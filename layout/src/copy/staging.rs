//! Register-to-register copies through shared memory: the source threads store into a staging buffer, a barrier,
//! the destination threads load. The buffer's layout is chosen among candidates built with the algebra, by the
//! fewest bank conflicts ([`conflict_ways`]) over both steps, then the fewest instructions:
//! - the row-major layout of the copy's shape;
//! - each register layout with its thread axes turned into memory strides (`s@laneid` becomes `s*P` on `m`,
//!   `P` the layout's register span; warp axes `32*s*P`), so each thread's registers are one contiguous run and
//!   its own step moves the widest vectors;
//! - when none of those is conflict-free, each composed with the XOR swizzles `Swizzle(M, B, S)` (`2^M` elements
//!   the vector of either step on the unswizzled layout, so vectors stay whole; `B` 1..3, `S` from `max(B, 3)`
//!   to 5), which spread rows that fall in one bank over several.
//!
//! Bank conflicts follow the shared-memory rule of 32 banks of 4 bytes: a warp's access of `b` bytes per thread
//! is served in `max(1, 32 * b / 128)` phases of consecutive lanes, and a phase takes as many wavefronts as the
//! most distinct 4-byte words any bank holds among its addresses (a word read twice is one).

use super::table::{evaluate, Table};
use super::vector::{reg_mem_step, widest_reg_mem, Entry, Threads};
use super::{Completion, CopyError, CopyStep, Memory, Side, Space, Staging};
use crate::axis::{Axis, ExecScope};
use crate::iter::Iter;
use crate::layout::{ComposeLayout, Layout};
use crate::swizzle::Swizzle;
use crate::tile_layout::TileLayout;
use std::collections::{BTreeMap, BTreeSet};

/// The worst number of wavefronts of one warp's access over the instructions `chunks` (`(thread, first
/// register) -> address before the swizzle`, one instruction per first register) of `bytes` each.
fn conflict_ways(chunks: &BTreeMap<(i64, i64), i64>, bytes: i64, esize: i64, swizzle: Option<Swizzle>) -> i64 {
    let lanes_per_phase = if bytes <= 4 { 32 } else { 32 * 4 / bytes };
    // (first register, warp, phase) -> bank -> words.
    let mut phases: BTreeMap<(i64, i64, i64), BTreeMap<i64, BTreeSet<i64>>> = BTreeMap::new();
    for (&(t, r0), &pre) in chunks {
        let a = swizzle.map_or(pre, |s| s.apply(pre)) * esize;
        let banks = phases.entry((r0, t / 32, (t % 32) / lanes_per_phase)).or_default();
        for w in a.div_euclid(4)..=(a + bytes - 1).div_euclid(4) {
            banks.entry(w.rem_euclid(32)).or_default().insert(w);
        }
    }
    phases.values().flat_map(|banks| banks.values().map(|w| w.len() as i64)).max().unwrap_or(1)
}

/// `layout` with thread axes turned into strides on `m` (see the module documentation), replicas dropped.
fn thread_major(layout: &Layout, scope: ExecScope) -> Option<TileLayout> {
    let tile = layout.tile();
    let regs = tile.span_on(Axis::M).max(1);
    let mut shard = Vec::with_capacity(tile.shard().len());
    for it in tile.shard() {
        let stride = if it.axis == Axis::M {
            it.stride
        } else {
            let (per, _) = super::table::unit_threads(it.axis, scope).ok()?;
            it.stride.checked_mul(per)?.checked_mul(regs)?
        };
        shard.push(Iter::new(it.extent, stride, Axis::M).ok()?);
    }
    TileLayout::new(shard, vec![], BTreeMap::new()).ok()
}

/// Shifts a tile layout on `m` so its smallest address is 0.
fn from_zero(tile: TileLayout) -> Option<TileLayout> {
    let low: i64 = tile.shard().iter().map(|i| (i.extent - 1) * i.stride.min(0)).sum::<i64>()
        + tile.offset().get(&Axis::M).copied().unwrap_or(0);
    let (shard, _, _) = tile.into_parts();
    let offset = if low == 0 { BTreeMap::new() } else { BTreeMap::from([(Axis::M, -low)]) };
    TileLayout::new(shard, vec![], offset).ok()
}

/// The unswizzled candidates, in preference order (see the module documentation).
fn bases(shape: &[i64], src: &Layout, dst: &Layout, scope: ExecScope) -> Vec<TileLayout> {
    let mut bases: Vec<TileLayout> = Vec::new();
    for t in [TileLayout::row_major(shape).ok(), thread_major(src, scope), thread_major(dst, scope)]
        .into_iter()
        .flatten()
        .filter_map(from_zero)
    {
        if !bases.contains(&t) {
            bases.push(t);
        }
    }
    bases
}

/// The swizzled variants of `base` whose unit is `2^m` elements for each `m` of `units`.
fn swizzled(base: &TileLayout, units: &BTreeSet<u32>) -> Vec<Layout> {
    let mut out = Vec::new();
    for &m in units {
        for b in 1..=3u32 {
            for s in b.max(3)..=5u32 {
                if let Ok(c) = Swizzle::new(m, b, s).and_then(|sw| ComposeLayout::new(sw, base.clone())) {
                    out.push(Layout::Compose(c));
                }
            }
        }
    }
    out
}

/// Register entries of one side against a staging table: every holder (`all`) or the first holder of each
/// element.
fn entries(holders: &[Vec<(i64, i64)>], table: &Table, all: bool) -> Vec<Entry> {
    let Table::Mem { pre, post, .. } = table else { return Vec::new() };
    let mut out = Vec::new();
    for (k, hs) in holders.iter().enumerate() {
        let take = if all { hs.len() } else { hs.len().min(1) };
        for &(t, reg) in &hs[..take] {
            out.push(Entry { t, reg, pre: pre[k], addr: post[k] });
        }
    }
    out
}

/// Worst conflict degree, instructions, candidate index: smaller is better.
type Score = (i64, usize, usize);

/// The best staged plan: `(staging, store step, load step)`. Candidates are scored from their instructions'
/// addresses alone; the steps (with their per-thread formulas) are built for the winner only.
#[allow(clippy::too_many_arguments)]
pub(crate) fn staged(
    shape: &[i64],
    src_layout: &Layout,
    dst_layout: &Layout,
    src: &[Vec<(i64, i64)>],
    dst: &[Vec<(i64, i64)>],
    esize: i64,
    scope: ExecScope,
    barrier: Option<i64>,
    ctx: &Threads<'_>,
) -> Result<(Staging, CopyStep, CopyStep), CopyError> {
    let mut best: Option<(Score, Layout, Table, [i64; 2])> = None;
    let bases = bases(shape, src_layout, dst_layout, scope);
    // Each base as it is, then (unless one is conflict-free) swizzled at the vector units its two steps used.
    let mut units: Vec<BTreeSet<u32>> = Vec::new();
    let mut idx = 0usize;
    for round in 0..2 {
        for (bi, base) in bases.iter().enumerate() {
            let layouts = if round == 0 {
                vec![Layout::Tile(base.clone())]
            } else {
                swizzled(base, units.get(bi).unwrap_or(&BTreeSet::new()))
            };
            for layout in layouts {
                idx += 1;
                let side = Side { layout: &layout, shape, mem: Memory::Shared };
                let Ok(table) = evaluate(&side, scope, "staging") else {
                    units.extend((units.len()..=bi).map(|_| BTreeSet::new()));
                    continue;
                };
                if super::table::check_injective(&table, "staging").is_err() {
                    units.extend((units.len()..=bi).map(|_| BTreeSet::new()));
                    continue;
                }
                let (vs, store) = widest_reg_mem(&entries(src, &table, false), esize);
                let (vl, load) = widest_reg_mem(&entries(dst, &table, true), esize);
                if round == 0 {
                    units.extend((units.len()..=bi).map(|_| BTreeSet::new()));
                    units[bi] = BTreeSet::from([vs.ilog2(), vl.ilog2()]);
                }
                let ways = [
                    conflict_ways(&store, vs * esize, esize, layout.swizzle()),
                    conflict_ways(&load, vl * esize, esize, layout.swizzle()),
                ];
                let count = |c: &BTreeMap<(i64, i64), i64>| c.keys().map(|k| k.1).collect::<BTreeSet<i64>>().len();
                let score = (ways[0].max(ways[1]), count(&store) + count(&load), idx);
                if best.as_ref().is_none_or(|b| score < b.0) {
                    best = Some((score, layout, table, ways));
                }
            }
        }
        if best.as_ref().is_some_and(|b| b.0 .0 == 1) {
            break;
        }
    }
    let Some((_, layout, table, ways)) = best else {
        return Err(super::table::err(super::CopyRule::ThreadMap, "no staging layout holds every element once"));
    };
    let mut store = reg_mem_step(&entries(src, &table, false), esize, Space::Shared, false, layout.swizzle(), ctx)?;
    let load = reg_mem_step(&entries(dst, &table, true), esize, Space::Shared, true, layout.swizzle(), ctx)?;
    store.completion = Completion::Barrier { threads: barrier };
    let Table::Mem { post, .. } = &table else {
        return Err(super::table::err(super::CopyRule::Input, "staging is memory"));
    };
    let span = post.iter().copied().max().unwrap_or(0) + 1;
    let staging = Staging { layout, bytes: span * esize, alignment_bytes: 16, conflict_ways: ways };
    Ok((staging, store, load))
}
