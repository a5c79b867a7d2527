//! Deciding whether a layout is a tile and recovering the missing factor (paper App. D).
//!
//! `tile(A, B)` over the interleaved domain is `T(x_o * I + x_i) = span(A) (.) B(x_o) + A(x_i)`
//! (semantics.md, "tile"). Grouping T's shard by the interleaved shape `[o_0, i_0, o_1, i_1, ...]` splits it into
//! one outer and one inner block per dimension: the inner blocks are A's shard, the outer blocks are B's shard
//! scaled axis-wise by `span(A)` (Theorem D.1). Offsets and replicas are handled per axis as point sets
//! (App. D.4): on each axis `a`, `O_T + R_T = (O_A + R_A) + span_a * (O_B + R_B)` (Minkowski sum), solved by
//! Minkowski division and read back as an offset plus at most one replica iter.
//!
//! Every answer is verified by re-tiling with [`crate::tile::tile`] and comparing induced maps; a candidate that
//! does not reproduce T is refused with "not a tile".
//!
//! **Bounds.** The point sets are the per-axis ones of [`crate::points`], at most [`SET_LIMIT`] points each, so a
//! Minkowski division takes at most `SET_LIMIT^2` membership tests; the search for an open inner span stops after
//! [`MAX_STEPS`] steps and says how many candidates it tried; refusals list at most
//! [`crate::error::MESSAGE_ITEMS`] points of a set and its size. The verification compares maps axis by axis
//! ([`crate::canonicalize::equivalent`]), never over the product of the replica extents.

use crate::arith::{mul, product};
use crate::axis::Axis;
use crate::error::{points_text, LayoutError, Result};
use crate::group::group;
use crate::iter::Iter;
use crate::layout::{ComposeLayout, Layout};
use crate::points::MAX_STEPS;
use crate::tile_layout::TileLayout;
use std::collections::{BTreeMap, BTreeSet};

/// Largest per-axis replica point set (distinct points) the Minkowski division enumerates.
pub const SET_LIMIT: i64 = 1 << 12;

/// How many replica sign choices [`inner_axis`] tries at most (`2^12`, one per subset of its first 12 iters).
const SIGN_CHOICES: i64 = 1 << 12;

/// Paper App. D (Theorem D.1, D.4): given tiled T and inner A, finds outer B with `tile(A, B) == T` as induced maps
/// over `tiled_shape` (with `outer_shape = tiled_shape / inner_shape`). B's offset is T's minus A's, divided by
/// A's span per axis. ComposeLayouts need identical swizzles and act on their tiles.
pub fn outer_of(tiled: &Layout, inner: &Layout, tiled_shape: &[i64], inner_shape: &[i64]) -> Result<TileLayout> {
    same_swizzle(tiled, inner)?;
    let outer_shape = quotient(tiled_shape, inner_shape)?;
    let t = tile_of_layout(tiled, tiled_shape)?;
    let a = tile_of_layout(inner, inner_shape)?;
    let blocks = interleaved_blocks(&t, &outer_shape, inner_shape)?;
    let spans = spans(&a);
    let mut shard = Vec::new();
    for (d, (outer_block, _)) in blocks.iter().enumerate() {
        for it in outer_block {
            shard.push(descale(it, &spans, d)?);
        }
    }
    let inner_layout = inner.with_tile(a.clone())?;
    let check = |(replica, offset)| {
        let outer = TileLayout::new(shard.clone(), replica, offset)?;
        verify(tiled, &inner_layout, &outer, inner_shape, &outer_shape, tiled_shape).map(|_| outer)
    };
    structural_outer(&t, &a, &spans).and_then(check).or_else(|_| outer_points(&t, &a, &spans).and_then(check))
}

/// App. D.4 structurally: T's replica iters minus A's (as a multiset), divided by the span; B's offset is
/// `(O_T - O_A) / span`. Exact for T as `tile` builds it; canonicalized T's fall back to the point sets.
fn structural_outer(
    t: &TileLayout,
    a: &TileLayout,
    spans: &BTreeMap<Axis, i64>,
) -> Result<(Vec<Iter>, BTreeMap<Axis, i64>)> {
    let rest = multiset_minus(t.replica(), a.replica())?;
    let replica = rest.iter().map(|it| descale(it, spans, 0)).collect::<Result<Vec<Iter>>>()?;
    let mut offset = BTreeMap::new();
    for axis in t.offset().keys().chain(a.offset().keys()) {
        let d = t.offset().get(axis).copied().unwrap_or(0) - a.offset().get(axis).copied().unwrap_or(0);
        let o = *unscale(&BTreeSet::from([d]), span_of(spans, *axis), *axis)?.first().unwrap_or(&0);
        offset.insert(*axis, o);
    }
    Ok((replica, offset))
}

/// The span on an axis where only B's offset `b0` moves: `span = 1 + reach(A) + O_T - span*b0`, so
/// `span = (1 + reach(A) + O_T) / (1 + b0)`, A's reach being its shard's and its replica's on the axis (when
/// `b0 == -1` every span solves it if any does; `period` is taken: 1, or on `m` under a swizzle the swizzle's
/// period, the smallest span with which B moves the swizzled A by whole periods, as `tile` requires).
fn offset_span(t: &TileLayout, replica: &[Iter], shard: &[Iter], axis: Axis, b0: i64, period: i64) -> Result<i64> {
    let reach: i64 = shard.iter().chain(replica).filter(|i| i.axis == axis).map(Iter::reach).sum();
    let num = 1 + reach + t.offset().get(&axis).copied().unwrap_or(0);
    match 1 + b0 {
        0 if num == 0 => Ok(period),
        0 => Err(not_a_tile(format!("on {axis} no span solves span*0 = {num}"))),
        den if num % den == 0 => Ok(num / den),
        den => Err(not_a_tile(format!("on {axis} no integer span solves span*{den} = {num}"))),
    }
}

/// `whole` minus every iter of `part` (each must occur, ignoring unit iters).
fn multiset_minus(whole: &[Iter], part: &[Iter]) -> Result<Vec<Iter>> {
    let mut rest: Vec<Iter> = whole.iter().filter(|i| i.extent > 1).copied().collect();
    for it in part.iter().filter(|i| i.extent > 1) {
        let k =
            rest.iter().position(|r| r == it).ok_or_else(|| not_a_tile(format!("replica iter {it:?} is missing")))?;
        rest.remove(k);
    }
    Ok(rest)
}

/// Paper App. D, the other factor: given tiled T and outer B, finds inner A with `tile(A, B) == T`. A's shard is
/// T's inner blocks; `span(A)` is read off the ratio of T's outer blocks to B's (or, on axes where B's shard does
/// not move, from A's own extent); A's offset and replica follow by Minkowski division. A ComposeLayout T gives a
/// ComposeLayout A with the same swizzle.
pub fn inner_of(tiled: &Layout, outer: &TileLayout, tiled_shape: &[i64], outer_shape: &[i64]) -> Result<Layout> {
    let inner_shape = quotient(tiled_shape, outer_shape)?;
    let t = tile_of_layout(tiled, tiled_shape)?;
    outer.admits(outer_shape)?;
    let blocks = interleaved_blocks(&t, outer_shape, &inner_shape)?;
    let g =
        group(outer, outer_shape).map_err(|e| not_a_tile(format!("the outer layout does not group: {}", e.message)))?;
    let b_blocks: Vec<Vec<Iter>> = (0..g.rank()).map(|d| g.block(d).to_vec()).collect();
    let shard: Vec<Iter> = blocks.iter().flat_map(|(_, inner)| inner.iter().copied()).collect();
    let spans = shard_spans(&blocks, &b_blocks)?;
    let period = tiled.swizzle().map_or(1, |sw| sw.period());
    let check = |(replica, offset)| {
        let a = TileLayout::new(shard.clone(), replica, offset)?;
        let inner = match tiled {
            Layout::Tile(_) => Layout::Tile(a),
            Layout::Compose(c) => Layout::Compose(ComposeLayout::new(c.swizzle(), a).map_err(not_a_tile)?),
        };
        verify(tiled, &inner, outer, &inner_shape, outer_shape, tiled_shape).map(|_| inner)
    };
    let mut last = Err(not_a_tile("no candidate"));
    for spans in replica_span_choices(&t, outer, &spans) {
        last = structural_inner(&t, outer, &shard, &spans, period).and_then(check);
        if last.is_ok() {
            return last;
        }
    }
    inner_points(&t, outer, &shard, &spans).and_then(check).or_else(|e| last.map_err(|_| e))
}

/// Most span combinations the structural try explores.
const MAX_CHOICES: usize = 64;

/// Span maps to try structurally: `spans` extended, on each axis where only B's replica moves, by every ratio
/// of a T replica iter to B's first replica iter on that axis (same extent, divisible stride).
fn replica_span_choices(t: &TileLayout, b: &TileLayout, spans: &BTreeMap<Axis, i64>) -> Vec<BTreeMap<Axis, i64>> {
    let mut choices = vec![spans.clone()];
    let mut seen = BTreeSet::new();
    for it in b.replica().iter().filter(|i| i.extent > 1 && i.stride != 0 && !spans.contains_key(&i.axis)) {
        if !seen.insert(it.axis) {
            continue;
        }
        let ratios: BTreeSet<i64> = t
            .replica()
            .iter()
            .filter(|r| r.extent == it.extent && r.axis == it.axis && r.stride % it.stride == 0)
            .map(|r| r.stride / it.stride)
            .collect();
        choices = choices
            .iter()
            .flat_map(|c| ratios.iter().map(move |&q| c.iter().map(|(a, v)| (*a, *v)).chain([(it.axis, q)]).collect()))
            .take(MAX_CHOICES)
            .collect();
    }
    choices
}

/// The structural first try for A: T's replica minus B's scaled by the span (read off a matching T iter where
/// the shard did not fix it), A's offset `O_T - span * O_B`. `period` is the tiled layout's swizzle period (1
/// without a swizzle), for [`offset_span`].
fn structural_inner(
    t: &TileLayout,
    b: &TileLayout,
    shard: &[Iter],
    spans: &BTreeMap<Axis, i64>,
    period: i64,
) -> Result<(Vec<Iter>, BTreeMap<Axis, i64>)> {
    let mut spans = spans.clone();
    let mut rest: Vec<Iter> = t.replica().iter().filter(|i| i.extent > 1).copied().collect();
    for it in b.replica().iter().filter(|i| i.extent > 1) {
        let fits = |r: &Iter, sigma: i64| {
            r.extent == it.extent && r.axis == it.axis && Some(r.stride) == it.stride.checked_mul(sigma)
        };
        let k = match spans.get(&it.axis) {
            Some(&sigma) => rest.iter().position(|r| fits(r, sigma)),
            None => rest.iter().position(|r| {
                let divides = if it.stride == 0 { r.stride == 0 } else { r.stride % it.stride == 0 };
                r.extent == it.extent && r.axis == it.axis && divides
            }),
        }
        .ok_or_else(|| not_a_tile(format!("no scaled copy of the outer replica iter {it:?}")))?;
        if it.stride != 0 {
            spans.entry(it.axis).or_insert(rest[k].stride / it.stride);
        }
        rest.remove(k);
    }
    let mut offset = t.offset().clone();
    for (axis, &b0) in b.offset() {
        let sigma = match spans.get(axis) {
            Some(&sigma) => sigma,
            None => offset_span(t, &rest, shard, *axis, b0, if *axis == Axis::M { period } else { 1 })?,
        };
        let o = offset.entry(*axis).or_insert(0);
        *o = o.checked_sub(mul(b0, sigma, "a scaled outer offset")?).ok_or_else(|| not_a_tile("offset overflow"))?;
    }
    Ok((rest, offset))
}

/// An answer of [`outer_of`] or [`inner_of`] as the tools print it: its extent-1 shard iters dropped (canonical
/// rule D0; one kept if none would remain), the unit iters that grouping by the factor's shape adds for its unit
/// dimensions (the outer of 8 copies over `[8, 1]` prints as `S[8:1]`, as the reference's test expects, not
/// `S[(8,1):(1,1)]`). The induced map is unchanged; nothing else is canonicalized.
pub fn without_unit_iters(layout: &Layout) -> Layout {
    let t = layout.tile();
    let mut shard: Vec<Iter> = t.shard().iter().filter(|i| i.extent > 1).copied().collect();
    if shard.is_empty() {
        shard.extend(t.shard().first().copied());
    }
    TileLayout::new(shard, t.replica().to_vec(), t.offset().clone())
        .and_then(|tile| layout.with_tile(tile))
        .unwrap_or_else(|_| layout.clone())
}

fn not_a_tile(why: impl std::fmt::Display) -> LayoutError {
    LayoutError::new(format!("not a tile: {why}"))
}

/// Both plain, or both ComposeLayouts with the same swizzle.
fn same_swizzle(tiled: &Layout, inner: &Layout) -> Result<()> {
    match (tiled.swizzle(), inner.swizzle()) {
        (None, None) => Ok(()),
        (Some(x), Some(y)) if x == y => Ok(()),
        (x, y) => Err(not_a_tile(format!(
            "tiled and inner layouts need the same swizzle, got {} and {}",
            x.map_or("none".to_string(), |s| s.to_string()),
            y.map_or("none".to_string(), |s| s.to_string())
        ))),
    }
}

/// `big / small` per dimension, requiring equal ranks and exact division (App. D.1).
fn quotient(big: &[i64], small: &[i64]) -> Result<Vec<i64>> {
    if big.len() != small.len() {
        return Err(not_a_tile(format!("shape ranks differ: {} and {}", big.len(), small.len())));
    }
    big.iter()
        .zip(small)
        .enumerate()
        .map(|(d, (&b, &s))| {
            if s >= 1 && b >= 1 && b % s == 0 {
                Ok(b / s)
            } else {
                Err(not_a_tile(format!("dimension {d}: extent {s} does not divide {b}")))
            }
        })
        .collect()
}

/// The tile a layout acts through over `shape` (a bare swizzle whose period differs reads as the identity tile
/// over `shape`, as in TIRx), checked to admit `shape`.
fn tile_of_layout(layout: &Layout, shape: &[i64]) -> Result<TileLayout> {
    let tile = crate::tile::tile_under_swizzle(layout, shape)?;
    tile.admits(shape)?;
    Ok(tile)
}

/// T's shard grouped by `[o_0, i_0, o_1, i_1, ...]`: the (outer, inner) block of each dimension.
fn interleaved_blocks(t: &TileLayout, outer: &[i64], inner: &[i64]) -> Result<Vec<(Vec<Iter>, Vec<Iter>)>> {
    let shape: Vec<i64> = outer.iter().zip(inner).flat_map(|(&o, &i)| [o, i]).collect();
    let g = group(t, &shape).map_err(|e| not_a_tile(format!("the tiled layout does not group: {}", e.message)))?;
    Ok((0..outer.len()).map(|d| (g.block(2 * d).to_vec(), g.block(2 * d + 1).to_vec())).collect())
}

/// span(A, a) for every axis A mentions (an axis A does not mention has span 1: unscaled).
fn spans(a: &TileLayout) -> BTreeMap<Axis, i64> {
    a.axes().into_iter().map(|axis| (axis, a.span_on(axis))).collect()
}

fn span_of(spans: &BTreeMap<Axis, i64>, axis: Axis) -> i64 {
    spans.get(&axis).copied().unwrap_or(1)
}

/// An outer iter of T divided by A's span on its axis (Theorem D.1's DivSpanScale).
fn descale(it: &Iter, spans: &BTreeMap<Axis, i64>, dim: usize) -> Result<Iter> {
    let sigma = span_of(spans, it.axis);
    let stride = match (sigma, it.stride) {
        _ if it.extent == 1 => it.stride,
        (_, 0) => 0,
        (0, _) => {
            return Err(not_a_tile(format!(
                "dimension {dim}: outer iter ({},{}@{}) moves but the inner span on {} is 0",
                it.extent, it.stride, it.axis, it.axis
            )))
        }
        (s, t) if t % s == 0 => t / s,
        (s, t) => {
            return Err(not_a_tile(format!(
                "dimension {dim}: outer iter ({},{t}@{}) is not a multiple of the inner span {s} on {}",
                it.extent, it.axis, it.axis
            )))
        }
    };
    Iter::new(it.extent, stride, it.axis)
}

/// The points `O[a] + R` on one axis, sorted and deduplicated ([`crate::points::axis_points`]), at most
/// [`SET_LIMIT`] of them.
fn axis_points(l: &TileLayout, axis: Axis) -> Result<BTreeSet<i64>> {
    let offset = l.offset().get(&axis).copied().unwrap_or(0);
    let points = crate::points::axis_points(l.replica(), axis, offset).map_err(not_a_tile)?;
    if points.len() as i64 > SET_LIMIT {
        return Err(not_a_tile(format!(
            "{} replica points on {axis} exceed the {SET_LIMIT} this check enumerates",
            points.len()
        )));
    }
    Ok(points.into_iter().collect())
}

/// Minkowski division: the largest X with `X + known ⊆ total`; `Err` unless `X + known == total`. The lowest
/// point of a sum is the sum of the lowest points, so `min(total) - min(known)` must be in X: checked first, in
/// `|known|` steps, which turns most wrong divisors (the span search tries thousands) away cheaply.
fn minkowski_quotient(total: &BTreeSet<i64>, known: &BTreeSet<i64>, axis: Axis) -> Result<BTreeSet<i64>> {
    let not_a_sum = || {
        not_a_tile(format!(
            "on axis {axis} the tiled offset and replica points {} are not the sum of {} and another set",
            points_text(total),
            points_text(known)
        ))
    };
    if !lowest_fits(total, known) {
        return Err(not_a_sum());
    }
    // Past the check every `k - k0` is at most the width of `total`, so `t + (k - k0)` cannot overflow.
    let k0 = *known.first().unwrap_or(&0);
    let member = Membership::of(total);
    let steps: Vec<i64> = known.iter().map(|k| k - k0).collect();
    let starts: Vec<i64> = total.iter().copied().filter(|&t| steps.iter().all(|d| member.contains(t + d))).collect();
    // Every `start + step` lies in `total` by construction, so the sum is `total` iff it reaches all its points.
    if member.distinct_sums(&starts, &steps) != total.len() {
        return Err(not_a_sum());
    }
    starts.iter().map(|t| t.checked_sub(k0)).collect::<Option<BTreeSet<i64>>>().ok_or_else(not_a_sum)
}

/// Membership in a point set: a dense table over its range when that is at most [`MAX_STEPS`] wide (the Minkowski
/// division asks up to `|total| * |known|` times), else the set itself.
enum Membership<'a> {
    /// `cells[p - low]` for `p` in the set's range.
    Dense { low: i64, cells: Vec<bool> },
    /// A wide, sparse set.
    Sparse(&'a BTreeSet<i64>),
}

impl<'a> Membership<'a> {
    fn of(points: &'a BTreeSet<i64>) -> Membership<'a> {
        let (Some(&low), Some(&high)) = (points.first(), points.last()) else { return Membership::Sparse(points) };
        if high - low >= MAX_STEPS {
            return Membership::Sparse(points);
        }
        let mut cells = vec![false; (high - low + 1) as usize];
        points.iter().for_each(|p| cells[(p - low) as usize] = true);
        Membership::Dense { low, cells }
    }

    fn contains(&self, p: i64) -> bool {
        match self {
            Membership::Dense { low, cells } => {
                p.checked_sub(*low).and_then(|i| usize::try_from(i).ok()).is_some_and(|i| cells.get(i) == Some(&true))
            }
            Membership::Sparse(points) => points.contains(&p),
        }
    }

    /// How many distinct `a + b` there are for `a` in `starts` and `b` in `steps`, all of them in the set.
    fn distinct_sums(&self, starts: &[i64], steps: &[i64]) -> usize {
        let sums = starts.iter().flat_map(|a| steps.iter().map(move |b| a + b));
        match self {
            Membership::Dense { low, cells } => {
                let mut hit = vec![false; cells.len()];
                sums.filter(|p| !std::mem::replace(&mut hit[(p - low) as usize], true)).count()
            }
            Membership::Sparse(_) => sums.collect::<BTreeSet<i64>>().len(),
        }
    }
}

/// Whether `min(total) - min(known) + known` lies in `total`: necessary for `total = X + known`, since the lowest
/// point of a sum is the sum of the lowest points.
fn lowest_fits(total: &BTreeSet<i64>, known: &BTreeSet<i64>) -> bool {
    let (Some(&t0), Some(&k0)) = (total.first(), known.first()) else { return false };
    known.iter().all(|k| k.checked_sub(k0).and_then(|d| d.checked_add(t0)).is_some_and(|p| total.contains(&p)))
}

/// A point set read as an offset (its minimum) plus replica iters: greedily the longest progression of the
/// smallest gap that Minkowski-divides the rest, then the quotient likewise (`{0,1,4,5}` is `R[(2,2):(1,4)]`).
fn decompose(points: &BTreeSet<i64>, axis: Axis) -> Result<(i64, Vec<Iter>)> {
    let Some(&first) = points.first() else { return Err(not_a_tile(format!("no points on {axis}"))) };
    let mut rest: BTreeSet<i64> = points.iter().map(|p| p - first).collect();
    let mut iters = Vec::new();
    while rest.len() > 1 {
        let (it, quotient) = peel_progression(&rest, axis).ok_or_else(|| {
            not_a_tile(format!("the recovered points {} on {axis} are not a sum of replica iters", points_text(points)))
        })?;
        iters.push(it);
        rest = quotient;
    }
    Ok((first, iters))
}

/// The longest `P = {0, g, .., (e-1)g}` (g = the smallest positive point) with `X = P + Q`; returns its iter and
/// the largest such Q, `{q : q + P in X}`. Windows of `e` steps of `g` cover a maximal run `x, x+g, ..` of X
/// exactly when the run is at least `e` long, so `e` is the shortest run: one pass, no trial divisions.
fn peel_progression(x: &BTreeSet<i64>, axis: Axis) -> Option<(Iter, BTreeSet<i64>)> {
    let g = *x.iter().find(|p| **p > 0)?;
    // run[p]: how many of p, p+g, p+2g, ... lie in X before the first gap.
    let mut run: BTreeMap<i64, i64> = BTreeMap::new();
    for &p in x.iter().rev() {
        let above = run.get(&(p + g)).copied().unwrap_or(0);
        run.insert(p, above + 1);
    }
    let e = run.iter().filter(|(p, _)| !x.contains(&(**p - g))).map(|(_, r)| *r).min()?;
    if e < 2 {
        return None;
    }
    let quotient = run.into_iter().filter(|(_, r)| *r >= e).map(|(p, _)| p).collect();
    Some((Iter::new(e, g, axis).ok()?, quotient))
}

/// Every axis of T's or the known factor's offset and replica.
fn point_axes(a: &TileLayout, b: &TileLayout) -> BTreeSet<Axis> {
    [a, b].iter().flat_map(|l| l.replica().iter().map(|i| i.axis).chain(l.offset().keys().copied())).collect()
}

/// B's replica and offset: per axis, `F_T = F_A + span * F_B` divided by `F_A`, then by the span.
fn outer_points(
    t: &TileLayout,
    a: &TileLayout,
    spans: &BTreeMap<Axis, i64>,
) -> Result<(Vec<Iter>, BTreeMap<Axis, i64>)> {
    let (mut replica, mut offset) = (Vec::new(), BTreeMap::new());
    for axis in point_axes(t, a) {
        let scaled = minkowski_quotient(&axis_points(t, axis)?, &axis_points(a, axis)?, axis)?;
        let sigma = span_of(spans, axis);
        let fb = unscale(&scaled, sigma, axis)?;
        push_points(&fb, axis, &mut replica, &mut offset)?;
    }
    Ok((replica, offset))
}

/// Divides every point by `sigma` exactly (a span of 0 leaves only the point 0).
fn unscale(points: &BTreeSet<i64>, sigma: i64, axis: Axis) -> Result<BTreeSet<i64>> {
    if sigma == 0 {
        return if points.iter().all(|p| *p == 0) {
            Ok(BTreeSet::from([0]))
        } else {
            Err(not_a_tile(format!("the inner span on {axis} is 0 but the outer part moves it")))
        };
    }
    points
        .iter()
        .map(|p| {
            if p % sigma == 0 {
                Ok(p / sigma)
            } else {
                Err(not_a_tile(format!(
                    "outer offset or replica point {p} on {axis} is not a multiple of the inner span {sigma}"
                )))
            }
        })
        .collect()
}

fn push_points(
    points: &BTreeSet<i64>,
    axis: Axis,
    replica: &mut Vec<Iter>,
    offset: &mut BTreeMap<Axis, i64>,
) -> Result<()> {
    let (o, iters) = decompose(points, axis)?;
    if o != 0 {
        offset.insert(axis, o);
    }
    replica.extend(iters);
    Ok(())
}

/// span(A) per axis from the shard: a unit step of B's iter `k` (stride `s` on axis `a`) moves T's outer block by
/// `span_a * s` on `a` alone, so `span_a` is that move divided by `s` (it must divide, and agree across iters).
fn shard_spans(blocks: &[(Vec<Iter>, Vec<Iter>)], b_blocks: &[Vec<Iter>]) -> Result<BTreeMap<Axis, i64>> {
    let mut spans = BTreeMap::new();
    for (d, ((t_outer, _), b)) in blocks.iter().zip(b_blocks).enumerate() {
        for (k, it) in b.iter().enumerate().filter(|(_, i)| i.extent > 1 && i.stride != 0) {
            let step = block_move(t_outer, product(b[k + 1..].iter().map(|i| i.extent), "a block index")?);
            let moved = step.get(&it.axis).copied().unwrap_or(0);
            let bad = |why: &str| {
                not_a_tile(format!(
                    "dimension {d}: a step of the outer iter ({},{}@{}) moves the tiled layout by {step:?}, {why}",
                    it.extent, it.stride, it.axis
                ))
            };
            if step.iter().any(|(a, v)| *a != it.axis && *v != 0) {
                return Err(bad("off its axis"));
            }
            if moved % it.stride != 0 {
                return Err(bad("not a multiple of its stride"));
            }
            if *spans.entry(it.axis).or_insert(moved / it.stride) != moved / it.stride {
                return Err(bad("a different scale than another outer iter on the axis"));
            }
        }
    }
    Ok(spans)
}

/// The point of a block at `idx` (row-major digits over its extents).
fn block_move(block: &[Iter], idx: i64) -> BTreeMap<Axis, i64> {
    let mut point = BTreeMap::new();
    let mut rest = idx;
    for it in block.iter().rev() {
        *point.entry(it.axis).or_insert(0) += (rest % it.extent) * it.stride;
        rest /= it.extent;
    }
    point
}

/// A's replica and offset, axis by axis (every axis of T's or B's points, and every axis whose span B's shard
/// fixed): `F_A = F_T / (span * F_B)` (Minkowski division), written as an offset plus replica iters whose signs
/// are chosen so that span(A) on the axis is the span used. Where B's shard does not fix the span and B has
/// points off 0, the spans up to [`SET_LIMIT`] in magnitude are tried.
fn inner_points(
    t: &TileLayout,
    b: &TileLayout,
    shard: &[Iter],
    spans: &BTreeMap<Axis, i64>,
) -> Result<(Vec<Iter>, BTreeMap<Axis, i64>)> {
    let (mut replica, mut offset) = (Vec::new(), BTreeMap::new());
    let axes: BTreeSet<Axis> = point_axes(t, b).into_iter().chain(spans.keys().copied()).collect();
    for axis in axes {
        let (ft, fb) = (axis_points(t, axis)?, axis_points(b, axis)?);
        let reach: i64 = shard.iter().filter(|i| i.axis == axis).map(Iter::reach).sum();
        let (o, iters) = match spans.get(&axis) {
            Some(&sigma) => inner_axis(&ft, &fb, sigma, reach, axis)?,
            None if fb.iter().all(|p| *p == 0) => decompose(&ft, axis)?,
            None => search_span(&ft, &fb, reach, axis)?,
        };
        if o != 0 {
            offset.insert(axis, o);
        }
        replica.extend(iters);
    }
    Ok((replica, offset))
}

/// A's points on an axis whose span B's shard leaves open: the first of [`span_candidates`] for which
/// [`inner_axis`] succeeds. A candidate whose lowest point does not divide costs `|F_B|` steps, any other
/// `|F_T| * |F_B|` plus the sign choice; the search stops with an error after [`MAX_STEPS`] steps.
fn search_span(ft: &BTreeSet<i64>, fb: &BTreeSet<i64>, reach: i64, axis: Axis) -> Result<(i64, Vec<Iter>)> {
    let candidates = span_candidates(ft, fb, reach, axis)?;
    let full_try = (ft.len() * fb.len()) as i64 + SIGN_CHOICES;
    let mut steps = 0i64;
    for (tried, &sigma) in candidates.iter().enumerate() {
        let scaled: BTreeSet<i64> = fb.iter().filter_map(|p| p.checked_mul(sigma)).collect();
        steps += fb.len() as i64;
        if scaled.len() < fb.len() || !lowest_fits(ft, &scaled) {
            continue;
        }
        steps += full_try;
        if steps > MAX_STEPS {
            return Err(not_a_tile(format!(
                "searching the inner span on {axis} stopped after {tried} of {} candidates ({MAX_STEPS} steps, \
                 {full_try} per candidate that fits at the lowest point)",
                candidates.len()
            )));
        }
        if let Ok(found) = inner_axis(ft, fb, sigma, reach, axis) {
            return Ok(found);
        }
    }
    Err(not_a_tile(format!("no inner span on {axis} makes {} a tile of {}", points_text(ft), points_text(fb))))
}

/// The spans worth trying on an axis B's shard leaves open. With B's points spread (`width(F_B) > 0`),
/// `|span| <= width(F_T) / width(F_B)`; with a single point `b0`, `F_A = F_T - span*b0` and
/// `span*(1 + b0) = 1 + shard reach + width(F_T) + min(F_T) + n` for `n` a sum of some replica reaches of `F_T`.
fn span_candidates(ft: &BTreeSet<i64>, fb: &BTreeSet<i64>, reach: i64, axis: Axis) -> Result<Vec<i64>> {
    let width = |s: &BTreeSet<i64>| s.last().copied().unwrap_or(0) - s.first().copied().unwrap_or(0);
    if width(fb) > 0 {
        let k = (width(ft) / width(fb)).min(SET_LIMIT);
        return Ok((-k..=k).collect());
    }
    let (low, iters) = decompose(ft, axis)?;
    let b0 = fb.first().copied().unwrap_or(0);
    let base = 1 + reach + iters.iter().map(Iter::reach).sum::<i64>() + low;
    let sums = (0u32..1 << iters.len().min(12))
        .map(|mask| iters.iter().enumerate().filter(|(k, _)| mask >> k & 1 == 1).map(|(_, i)| i.reach()).sum::<i64>());
    Ok(sums
        .filter_map(|n| if 1 + b0 != 0 && (base + n) % (1 + b0) == 0 { Some((base + n) / (1 + b0)) } else { None })
        .collect())
}

/// A's points on one axis for a given span `sigma`: `F_T / (sigma * F_B)`, then replica signs such that
/// `1 + shard reach + replica reach + offset == sigma` (negating an iter raises the offset by its reach).
fn inner_axis(ft: &BTreeSet<i64>, fb: &BTreeSet<i64>, sigma: i64, reach: i64, axis: Axis) -> Result<(i64, Vec<Iter>)> {
    let scaled = fb.iter().map(|p| mul(*p, sigma, "a scaled outer point")).collect::<Result<BTreeSet<i64>>>()?;
    let (low, iters) = decompose(&minkowski_quotient(ft, &scaled, axis)?, axis)?;
    let base = 1 + reach + iters.iter().map(Iter::reach).sum::<i64>() + low;
    let need = sigma - base;
    let chosen = (0u32..1 << iters.len().min(12))
        .find(|mask| {
            iters.iter().enumerate().filter(|(k, _)| mask >> k & 1 == 1).map(|(_, i)| i.reach()).sum::<i64>() == need
        })
        .ok_or_else(|| {
            not_a_tile(format!(
                "on {axis} the inner span must be {sigma}, but the inner points give {base} plus a choice of {iters:?}"
            ))
        })?;
    let signed =
        iters.iter().enumerate().map(|(k, i)| if chosen >> k & 1 == 1 { Iter { stride: -i.stride, ..*i } } else { *i });
    Ok((low + need, signed.collect()))
}

/// Re-tiles and compares induced maps with T (App. D's verification).
fn verify(
    tiled: &Layout,
    inner: &Layout,
    outer: &TileLayout,
    inner_shape: &[i64],
    outer_shape: &[i64],
    tiled_shape: &[i64],
) -> Result<()> {
    let again = crate::tile::tile(inner, outer, inner_shape, outer_shape)
        .map_err(|e| not_a_tile(format!("re-tiling the candidate failed: {}", e.message)))?;
    // A bare swizzle T over a shape of another size is the swizzle over the row-major tile of the shape.
    let tiled = tiled.with_tile(crate::tile::tile_under_swizzle(tiled, tiled_shape)?)?;
    if crate::canonicalize::equivalent(&tiled, &again, tiled_shape)? {
        Ok(())
    } else {
        Err(not_a_tile(format!("the candidate's tiling does not reproduce the tiled layout over {tiled_shape:?}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::swizzle::Swizzle;

    fn tl(text: &str) -> TileLayout {
        text.parse().unwrap()
    }

    /// The TIRx tile example: `S[(2,4):(1,2)]` tiled by `S[(8,8):(8,1)]` is `S[(8,2,32):(64,1,2)]` (span 8);
    /// both factors come back from the canonical tiled layout.
    #[test]
    fn recovers_both_factors_of_the_tirx_example() {
        let (inner, tiled) = (Layout::Tile(tl("S[(2,4):(1,2)]")), Layout::Tile(tl("S[(8,2,32):(64,1,2)]")));
        let outer = outer_of(&tiled, &inner, &[16, 32], &[2, 4]).unwrap();
        assert!(crate::canonicalize::equivalent(&outer.clone().into(), &tl("S[(8,8):(8,1)]").into(), &[8, 8]).unwrap());
        let found = inner_of(&tiled, &tl("S[(8,8):(8,1)]"), &[16, 32], &[8, 8]).unwrap();
        assert!(crate::canonicalize::equivalent(&found, &inner, &[2, 4]).unwrap());
    }

    /// Outer replica and offset are span-scaled by tile, so recovering them divides (semantics.md, "tile").
    #[test]
    fn outer_replica_and_offset_are_divided_by_the_span() {
        let inner: Layout = tl("S[4:1] + R[2:1@warpid]").into();
        let outer = tl("S[2:1@warpid] + R[2:1] + 1@warpid + 1");
        let t = crate::tile::tile(&inner, &outer, &[4], &[2]).unwrap();
        let found = outer_of(&t, &inner, &[8], &[4]).unwrap();
        assert!(crate::canonicalize::equivalent(&found.into(), &outer.clone().into(), &[2]).unwrap());
        let found = inner_of(&t, &outer, &[8], &[2]).unwrap();
        assert!(crate::canonicalize::equivalent(&found, &inner, &[4]).unwrap());
    }

    #[test]
    fn non_tiles_are_refused_with_a_reason() {
        let t: Layout = tl("S[(4,4):(1,4)]").into();
        let err = outer_of(&t, &tl("S[2:1]").into(), &[16], &[2]).unwrap_err().message;
        assert!(err.starts_with("not a tile"), "{err}");
        let err = outer_of(&t, &tl("S[3:1]").into(), &[16], &[3]).unwrap_err().message;
        assert!(err.contains("does not divide"), "{err}");
        let err = inner_of(&t, &tl("S[2:3]"), &[16], &[2]).unwrap_err().message;
        assert!(err.starts_with("not a tile"), "{err}");
    }

    /// ComposeLayouts need the same swizzle and act on their tiles; the recovered inner keeps T's swizzle.
    /// Issue 21 item 6, the reference implementation's own test: a bare Swizzle(3,2,3) (period 256) as the tiled
    /// layout over 64x32 is the swizzle over S[2048:1]; with the bare inner over 8x32 (its own S[256:1], span 256)
    /// the outer is the 8 copies 256 apart, S[8:1] over [8,1].
    #[test]
    fn a_bare_swizzle_tiled_over_another_size_has_an_outer() {
        let bare = Layout::Compose(ComposeLayout::bare(Swizzle::new(3, 2, 3).unwrap()));
        let outer = outer_of(&bare, &bare, &[64, 32], &[8, 32]).unwrap();
        assert_eq!(outer.canonical(), tl("S[8:1]"));
        let inner = inner_of(&bare, &tl("S[8:1]"), &[64, 32], &[8, 1]).unwrap();
        assert!(crate::canonicalize::equivalent(&inner, &bare, &[8, 32]).unwrap(), "{inner}");
    }

    #[test]
    fn swizzles_must_match() {
        let sw = Swizzle::new(3, 3, 3).unwrap();
        let atom: Layout = ComposeLayout::bare(sw).into();
        let t = crate::tile::tile(&atom, &tl("S[(2,2):(2,1)]"), &[8, 64], &[2, 2]).unwrap();
        let outer = outer_of(&t, &atom, &[16, 128], &[8, 64]).unwrap();
        assert!(crate::canonicalize::equivalent(&outer.into(), &tl("S[(2,2):(2,1)]").into(), &[2, 2]).unwrap());
        let inner = inner_of(&t, &tl("S[(2,2):(2,1)]"), &[16, 128], &[2, 2]).unwrap();
        assert_eq!(inner.swizzle(), Some(sw));
        let plain: Layout = tl("S[(8,64):(64,1)]").into();
        assert!(outer_of(&t, &plain, &[16, 128], &[8, 64]).unwrap_err().message.contains("same swizzle"));
    }
}
