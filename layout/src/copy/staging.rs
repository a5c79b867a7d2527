//! Register-to-register copies through shared memory: the source threads store into a staging buffer, a barrier,
//! the destination threads load. The buffer's layout is chosen among candidates built with the algebra, by the
//! fewest bank conflicts ([`conflict_ways`]) over both steps, then the fewest instructions:
//! - the row-major layout of the copy's shape;
//! - each register layout with its thread axes turned into memory strides (`s@laneid` becomes `s*P` on `m`,
//!   `P` the layout's register span; warp axes `32*s*P`), so each thread's registers are one contiguous run and
//!   its own step moves the widest vectors;
//! - each of those composed with the XOR swizzles `Swizzle(M, B, S)` (`2^M` elements up to 16 bytes, `B` 1..3,
//!   `S` from `max(B, 3)` to 5), which spread rows that fall in one bank over several.
//!
//! Bank conflicts follow the shared-memory rule of 32 banks of 4 bytes: a warp's access of `b` bytes per thread
//! is served in `max(1, 32 * b / 128)` phases of consecutive lanes, and a phase takes as many wavefronts as the
//! most distinct 4-byte words any bank holds among its addresses (a word read twice is one).

use super::table::{evaluate, Table};
use super::vector::{reg_mem_step, Entry, Threads};
use super::{Completion, CopyError, CopyStep, Mem, Operand, Side, Space, Staging, ThreadSet};
use crate::axis::{Axis, ExecScope};
use crate::iter::Iter;
use crate::layout::{ComposeLayout, Layout};
use crate::swizzle::Swizzle;
use crate::tile_layout::TileLayout;
use std::collections::{BTreeMap, BTreeSet};

/// The worst number of wavefronts of one warp's access over a step (1: conflict-free).
pub fn conflict_ways(step: &CopyStep, esize: i64, scope_threads: i64) -> i64 {
    let mut worst = 1;
    for issue in &step.issues {
        let (mem, swizzle) = match (&issue.src, &issue.dst) {
            (Operand::Mem(m), _) => (m, step.src_swizzle),
            (_, Operand::Mem(m)) => (m, step.dst_swizzle),
            _ => continue,
        };
        let set: &ThreadSet = issue.only.as_ref().unwrap_or(&step.threads);
        let vb = step.vector_bytes;
        let lanes_per_phase = if vb <= 4 { 32 } else { 32 * 4 / vb };
        let mut phases: BTreeMap<(i64, i64), BTreeMap<i64, BTreeSet<i64>>> = BTreeMap::new();
        for t in (0..scope_threads).filter(|&t| step.threads.contains(t) && set.contains(t)) {
            let a = swizzle.map_or(mem.at(t), |s| s.apply(mem.at(t))) * esize;
            let phase = (t / 32, (t % 32) / lanes_per_phase);
            let banks = phases.entry(phase).or_default();
            for w in a.div_euclid(4)..=(a + vb - 1).div_euclid(4) {
                banks.entry(w.rem_euclid(32)).or_default().insert(w);
            }
        }
        for banks in phases.values() {
            worst = worst.max(banks.values().map(|w| w.len() as i64).max().unwrap_or(1));
        }
    }
    worst
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

/// The candidate staging layouts, in preference order (see the module documentation).
fn candidates(shape: &[i64], src: &Layout, dst: &Layout, scope: ExecScope, esize: i64) -> Vec<Layout> {
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
    let mut out: Vec<Layout> = bases.iter().cloned().map(Layout::Tile).collect();
    let max_m = (16 / esize).max(1).ilog2();
    for base in &bases {
        for m in 0..=max_m {
            for b in 1..=3u32 {
                for s in b.max(3)..=5u32 {
                    if let Ok(sw) = Swizzle::new(m, b, s) {
                        if let Ok(c) = ComposeLayout::new(sw, base.clone()) {
                            out.push(Layout::Compose(c));
                        }
                    }
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

/// The best staged plan: `(staging, store step, load step)`.
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
    let mut best: Option<(Score, Staging, CopyStep, CopyStep)> = None;
    let mut first_err = None;
    for (idx, layout) in candidates(shape, src_layout, dst_layout, scope, esize).into_iter().enumerate() {
        let side = Side { layout: &layout, shape, mem: Mem::Shared };
        let Ok(table) = evaluate(&side, scope, "staging") else { continue };
        if super::table::check_injective(&table, "staging").is_err() {
            continue;
        }
        let store = reg_mem_step(&entries(src, &table, false), esize, Space::Shared, false, layout.swizzle(), ctx);
        let load = reg_mem_step(&entries(dst, &table, true), esize, Space::Shared, true, layout.swizzle(), ctx);
        let (mut store, load) = match (store, load) {
            (Ok(s), Ok(l)) => (s, l),
            (Err(e), _) | (_, Err(e)) => {
                first_err.get_or_insert(e);
                continue;
            }
        };
        store.completion = Completion::Barrier { threads: barrier };
        let ways = [conflict_ways(&store, esize, ctx.limit), conflict_ways(&load, esize, ctx.limit)];
        let score = (ways[0].max(ways[1]), store.issues.len() + load.issues.len(), idx);
        if best.as_ref().is_none_or(|b| score < b.0) {
            let Table::Mem { post, .. } = &table else { continue };
            let span = post.iter().copied().max().unwrap_or(0) + 1;
            let staging =
                Staging { layout: layout.clone(), bytes: span * esize, alignment_bytes: 16, conflict_ways: ways };
            best = Some((score, staging, store, load));
        }
        if best.as_ref().is_some_and(|b| b.0 .0 == 1 && idx >= 2) {
            break;
        }
    }
    match best {
        Some((_, staging, store, load)) => Ok((staging, store, load)),
        None => Err(first_err.unwrap_or_else(|| {
            super::table::err(super::CopyRule::ThreadMap, "no staging layout gives per-thread formulas")
        })),
    }
}
