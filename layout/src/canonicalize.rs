//! Canonicalization (paper App. A) and equivalence of layouts.
//!
//! The shard is normalized by D0 and D1 (App. A.1), the replica and offset by C0, C1 and C2, each to a fixpoint:
//!
//! - **D0** drops extent-1 shard iters; if that empties a non-empty shard, one iter `(1, 1, a)` stays, `a` the
//!   axis of the first original iter (as TIRx does), so a size-1 layout keeps a shard.
//! - **D1** fuses adjacent same-axis iters `(e1, s1), (e2, s2)` with `s1 == e2 * s2` into `(e1 * e2, s2)` (Lemma
//!   B.1 read backwards; stride 0 and negative strides fuse by the same rule). One left-to-right pass reaches the
//!   fixpoint: a fused iter fuses with its left neighbour exactly when its first part did.
//! - zero offsets are dropped.
//! - **C0** drops replica iters that add only the zero vector: extent 1, and also stride 0 (`L(x)` is a set, so
//!   `R[e:0]` duplicates points and nothing else).
//! - **C1** makes a negative replica stride positive and moves `(e - 1) * s` into the offset of its axis.
//! - **C2** absorbs two replica iters `(e, s)`, `(e', k*s)` on one axis with `1 <= k <= e` into
//!   `(e + k*(e' - 1), s)`: their position sets `{i*s + j*k*s}` form one contiguous run of multiples of `s`.
//! - the replica is sorted by (axis name, stride, extent): deterministic, never by hash.
//!
//! **Gap condition** (GC, App. A.1 and Lemma A.9, "cumulative separation"): on every axis, listing the saturated
//! replica iters by increasing stride `s_1 < s_2 < ...` with extents `e_j`, each stride exceeds the total reach of
//! the smaller ones: `s_{k+1} > sum_{j <= k} (e_j - 1) * s_j`. Two iters with equal strides violate it. The
//! paper's GC inequality is lost in extraction; Lemma A.9 derives exactly this inequality from it "by induction",
//! which fits a per-neighbour GC such as `s_{k+1} >= e_k * s_k`. We check the cumulative form itself: it is the
//! weaker of the two and is what Lemmas A.10/A.11 use (unique replica digits); the property tests confirm
//! uniqueness under it on small spaces by enumeration.
//!
//! **Uniqueness** (Theorem A.2): when both canonical forms satisfy GC, two layouts have the same induced map iff
//! their canonical forms agree *up to structure the map cannot see*: the axis of a stride-0 shard iter, and the
//! lone unit iter of a size-1 shard (`S[1:1@laneid]` vs `S[]`). Canonicalization keeps those (they record
//! intent, e.g. which thread axis a broadcast spans); [`map_key`] erases them for comparisons. Points are
//! compared with zero entries dropped: an axis absent from a point is at 0 (see [`crate::tile_layout::Coord`]).
//!
//! **Deciding equivalence without GC** ([`same_tile_map`]): `L(x) = D(x) + F` with `F = O + R`, and F is the
//! product of one set per axis, so two tile layouts have the same map iff their shard maps agree and their
//! per-axis sets `O[a] + R|a` agree. Only an axis whose replicas violate GC is enumerated, on its own
//! ([`crate::points`]); the product of all replica extents never is.

use crate::axis::Axis;
use crate::error::{LayoutError, Result};
use crate::eval::Evaluator;
use crate::iter::Iter;
use crate::layout::{ComposeLayout, Layout};
use crate::points::axis_points;
use crate::tile_layout::TileLayout;
use std::collections::{BTreeMap, BTreeSet};

/// A canonical layout and whether the paper's gap condition holds for it (then the form is unique).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Canonical {
    /// The canonical layout, with the same induced map as the input.
    pub layout: Layout,
    /// True when the gap condition (Lemma A.9, cumulative separation of replica strides) holds.
    pub gap_condition: bool,
}

/// Canonicalizes `layout` (App. A.1): D0, D1, zero offsets dropped, C0, C1, C2, sorted replica; a
/// ComposeLayout canonicalizes its tile and keeps the swizzle (its `gap_condition` is the tile's).
///
/// Equation: the result has the same induced map as `layout` (Proposition A.1). In the one case where C1 would
/// push an offset beyond the supported magnitude 2^48, the input is returned unchanged with `gap_condition` false.
pub fn canonicalize(layout: &Layout) -> Canonical {
    let (tile, gap_condition) = canonicalize_tile(layout.tile());
    let layout = match layout {
        Layout::Tile(_) => Layout::Tile(tile),
        Layout::Compose(c) => ComposeLayout::new(c.swizzle(), tile).map_or_else(|_| layout.clone(), Layout::Compose),
    };
    Canonical { layout, gap_condition }
}

/// Canonicalizes a tile layout (App. A.1) and reports the gap condition (Lemma A.9) of the result.
pub fn canonicalize_tile(tile: &TileLayout) -> (TileLayout, bool) {
    let mut offset: BTreeMap<Axis, i64> = tile.offset().clone();
    let replica = normalize_replica(tile.replica(), &mut offset);
    offset.retain(|_, v| *v != 0);
    match TileLayout::new(normalize_shard(tile.shard()), replica, offset) {
        Ok(t) => {
            let gc = gap_condition(t.replica());
            (t, gc)
        }
        Err(_) => (tile.clone(), false),
    }
}

impl Layout {
    /// The canonical form of this layout (App. A.1; see [`canonicalize`]).
    pub fn canonical(&self) -> Layout {
        canonicalize(self).layout
    }
}

impl TileLayout {
    /// The canonical form of this tile layout (App. A.1; see [`canonicalize_tile`]).
    pub fn canonical(&self) -> TileLayout {
        canonicalize_tile(self).0
    }
}

/// D0 then D1 on a shard (App. A.1; Theorem A.8 says the result is unique for the map `x -> D(x)`), in one pass.
///
/// D0 drops extent-1 iters, keeping `(1, 1, a)` (axis of the first iter) if the shard would become empty; D1
/// fuses what is left.
pub fn normalize_shard(shard: &[Iter]) -> Vec<Iter> {
    let kept = fuse_adjacent(shard.iter().filter(|i| i.extent != 1).copied());
    match shard.first() {
        Some(first) if kept.is_empty() => vec![Iter { extent: 1, stride: 1, axis: first.axis }],
        _ => kept,
    }
}

/// D1: fuse `(e1, s1), (e2, s2)` on one axis with `s1 == e2 * s2` into `(e1 * e2, s2)`, left to right.
fn fuse_adjacent(shard: impl IntoIterator<Item = Iter>) -> Vec<Iter> {
    let shard = shard.into_iter();
    let mut out: Vec<Iter> = Vec::with_capacity(shard.size_hint().1.unwrap_or(0));
    for it in shard {
        match out.last_mut() {
            Some(prev) if fuses(prev, &it) => {
                prev.extent *= it.extent;
                prev.stride = it.stride;
            }
            _ => out.push(it),
        }
    }
    out
}

fn fuses(prev: &Iter, next: &Iter) -> bool {
    prev.axis == next.axis
        && next.extent.checked_mul(next.stride) == Some(prev.stride)
        && prev.extent.checked_mul(next.extent).is_some()
}

/// C0, C1, C2 to a fixpoint, then the deterministic sort; C1 moves reach into `offset`.
fn normalize_replica(replica: &[Iter], offset: &mut BTreeMap<Axis, i64>) -> Vec<Iter> {
    let mut out = Vec::with_capacity(replica.len());
    for it in replica.iter().filter(|i| i.extent != 1 && i.stride != 0) {
        if it.stride < 0 {
            *offset.entry(it.axis).or_insert(0) += (it.extent - 1) * it.stride;
        }
        out.push(Iter { stride: it.stride.abs(), ..*it });
    }
    absorb_multiples(out)
}

/// C2 to a fixpoint: repeatedly merge the first absorbable pair in the sorted order.
fn absorb_multiples(mut replica: Vec<Iter>) -> Vec<Iter> {
    loop {
        replica.sort_by_key(replica_order);
        let Some((i, j)) = absorbable_pair(&replica) else { return replica };
        let (fine, coarse) = (replica[i], replica[j]);
        let k = coarse.stride / fine.stride;
        replica[i] = Iter { extent: fine.extent + k * (coarse.extent - 1), ..fine };
        replica.remove(j);
    }
}

/// The deterministic replica order of the canonical form (App. A.1, "sort R"): by axis name, then stride, then
/// extent; never by hash.
pub fn replica_order(it: &Iter) -> (Axis, i64, i64) {
    (it.axis, it.stride, it.extent)
}

fn absorbable_pair(replica: &[Iter]) -> Option<(usize, usize)> {
    let n = replica.len();
    (0..n).flat_map(|i| (0..n).map(move |j| (i, j))).find(|&(i, j)| i != j && absorbs(&replica[i], &replica[j]))
}

/// C2's side condition: same axis, `coarse.stride == k * fine.stride` with `1 <= k <= fine.extent`.
fn absorbs(fine: &Iter, coarse: &Iter) -> bool {
    fine.axis == coarse.axis
        && fine.stride > 0
        && coarse.stride % fine.stride == 0
        && (1..=fine.extent).contains(&(coarse.stride / fine.stride))
}

/// The gap condition (App. A.1, Lemma A.9) on a sign-normalized replica: on every axis, sorted by stride, each
/// stride exceeds `sum (e_j - 1) * s_j` over the iters with smaller (or equal) position in that order.
pub fn gap_condition(replica: &[Iter]) -> bool {
    if !replica.is_sorted_by_key(replica_order) {
        let mut sorted = replica.to_vec();
        sorted.sort_by_key(replica_order);
        return gap_condition(&sorted);
    }
    // Sorted by axis first, so each axis's iters are consecutive: the reach restarts at each new axis.
    let mut reach: Option<(Axis, i128)> = None;
    replica.iter().all(|it| {
        let below = match reach {
            Some((axis, r)) if axis == it.axis => r,
            _ => 0,
        };
        reach = Some((it.axis, below + (i128::from(it.extent) - 1) * i128::from(it.stride)));
        it.stride > 0 && i128::from(it.stride) > below
    })
}

/// The canonical form of `tile` with the structure its induced map cannot see erased: stride-0 shard iters move
/// to axis `m` (then D1 again) and the lone unit iter of a size-1 shard is dropped (`S[1:1@laneid]` and `S[]`
/// have the same map). Under GC, two tile layouts have the
/// same induced map iff their `map_key`s are equal (Theorem A.2, Theorem A.14).
pub fn map_key(tile: &TileLayout) -> TileLayout {
    let (canon, _) = canonicalize_tile(tile);
    let (shard, replica, offset) = canon.clone().into_parts();
    TileLayout::new(shard_key(&shard), replica, offset).unwrap_or(canon)
}

/// The shard part of [`map_key`]: D0, D1, unit iters dropped, stride-0 iters moved to `m`, D1 again. Two shards
/// have the same map `x -> D(x)` iff their keys are equal (Theorem A.8: the map's first run fixes the fastest
/// iter, the rest is the map of the others).
fn shard_key(shard: &[Iter]) -> Vec<Iter> {
    fuse_adjacent(normalize_shard(shard).into_iter().filter(|i| i.extent != 1).map(zero_stride_to_m))
}

/// `(e, 0, a) -> (e, 0, m)`; any other iter is kept.
fn zero_stride_to_m(it: Iter) -> Iter {
    match it.stride {
        0 => Iter { axis: Axis::M, ..it },
        _ => it,
    }
}

/// The most points (`size * (distinct replica offsets of a + those of b)`) [`equivalent`] enumerates: 2^22.
pub const ENUMERATION_LIMIT: i64 = 1 << 22;

/// Whether `a` and `b` have the same induced map over `shape` (both must admit it).
///
/// Decided by canonical forms when they are equal (Proposition A.1); for two plain tile layouts by comparing
/// shard maps and per-axis replica sets ([`same_tile_map`]), which never enumerates the product of the replica
/// extents; otherwise (a swizzle, or a per-axis set too large to list) exactly, by enumerating every index and
/// comparing point sets (zero entries dropped). That enumeration is refused with an error beyond
/// [`ENUMERATION_LIMIT`] points, or when a replica has more distinct offsets than an [`crate::Evaluator`]
/// prepares.
pub fn equivalent(a: &Layout, b: &Layout, shape: &[i64]) -> Result<bool> {
    a.admits(shape)?;
    b.admits(shape)?;
    let (ca, cb) = (canonicalize(a), canonicalize(b));
    if ca.layout == cb.layout {
        return Ok(true);
    }
    if let (Layout::Tile(ta), Layout::Tile(tb)) = (&ca.layout, &cb.layout) {
        if let Ok(same) = same_tile_map(ta, tb) {
            return Ok(same);
        }
    }
    equivalent_by_enumeration(a, b)
}

/// Whether two tile layouts of one size have the same induced map, without enumerating their replica product.
///
/// With `F = O + R`, `L(x) = D(x) + F`. At `x = 0` the shard adds nothing, so equal maps need `F_a == F_b`; then
/// `D_a(x) + F == D_b(x) + F` (translates of one finite set) needs `D_a(x) == D_b(x)`. So the maps agree iff the
/// shard maps agree (equal shard keys, as in [`map_key`]) and `F_a == F_b`, and F is the product of its per-axis
/// sets `O[axis] + R|axis`, compared axis by axis (structurally, or by [`axis_points`]). Fails only when an
/// axis's points are too many to list.
pub fn same_tile_map(a: &TileLayout, b: &TileLayout) -> Result<bool> {
    if shard_key(a.shard()) != shard_key(b.shard()) {
        return Ok(false);
    }
    let axes: BTreeSet<Axis> =
        [a, b].iter().flat_map(|t| t.replica().iter().map(|i| i.axis).chain(t.offset().keys().copied())).collect();
    for axis in axes {
        if !same_axis_points(a, b, axis)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Whether `O_a[axis] + R_a|axis == O_b[axis] + R_b|axis`: equal offsets and iters give equal sets; two lists
/// in normal form (positive strides, no C2 pair) that satisfy the gap condition determine their sets (Theorem
/// A.2 on one axis, min point 0), so different ones differ; anything else is enumerated
/// ([`crate::points::axis_points`], bounded).
fn same_axis_points(a: &TileLayout, b: &TileLayout, axis: Axis) -> Result<bool> {
    let offset = |t: &TileLayout| t.offset().get(&axis).copied().unwrap_or(0);
    let moving = |t: &TileLayout| {
        let mut iters: Vec<Iter> =
            t.replica().iter().filter(|i| i.axis == axis && i.extent > 1 && i.stride != 0).copied().collect();
        iters.sort_by_key(replica_order);
        iters
    };
    let (ia, ib) = (moving(a), moving(b));
    if offset(a) == offset(b) && ia == ib {
        return Ok(true);
    }
    let unique =
        |iters: &[Iter]| iters.iter().all(|i| i.stride > 0) && absorbable_pair(iters).is_none() && gap_condition(iters);
    if unique(&ia) && unique(&ib) {
        return Ok(false);
    }
    Ok(axis_points(a.replica(), axis, offset(a))? == axis_points(b.replica(), axis, offset(b))?)
}

/// Compares the point sets of every flat index (both layouts have the same size).
fn equivalent_by_enumeration(a: &Layout, b: &Layout) -> Result<bool> {
    let (ea, eb) = (a.evaluator()?, b.evaluator()?);
    let replicas = (ea.replica_len() + eb.replica_len()) as i64;
    if a.size().checked_mul(replicas).is_none_or(|p| p > ENUMERATION_LIMIT) {
        return Err(LayoutError::new(format!(
            "equivalence by enumeration is limited to 2^22 points, layouts of size {} with {} and {} distinct \
             replica offsets exceed it",
            a.size(),
            ea.replica_len(),
            eb.replica_len()
        )));
    }
    for flat in 0..a.size() {
        if point_set(&ea, flat)? != point_set(&eb, flat)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// L(flat) with zero entries dropped, sorted and deduplicated.
fn point_set(evaluator: &Evaluator, flat: i64) -> Result<Vec<Vec<(Axis, i64)>>> {
    let axes = evaluator.axes();
    let mut out: Vec<Vec<(Axis, i64)>> = evaluator
        .values(flat)?
        .into_iter()
        .map(|p| axes.iter().copied().zip(p).filter(|(_, v)| *v != 0).collect())
        .collect();
    out.sort();
    out.dedup();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::swizzle::Swizzle;

    fn tl(text: &str) -> TileLayout {
        text.parse().unwrap()
    }

    fn canon(text: &str) -> (TileLayout, bool) {
        canonicalize_tile(&tl(text))
    }

    /// The worked examples of TIRx's canonicalizer (reference-tirx.md, "Canonicalize").
    #[test]
    fn shard_rules_d0_d1() {
        assert_eq!(canon("S[(1,1):(5@laneid,3)]").0, tl("S[1:1@laneid]"));
        assert_eq!(canon("S[(4,1,4):(0,7,0)]").0, tl("S[16:0]"));
        assert_eq!(canon("S[(8,4):(-4,-1)]").0, tl("S[32:-1]"));
        assert_eq!(canon("S[(4,8):(1,4)]").0, tl("S[(4,8):(1,4)]"));
        assert_eq!(canon("S[(2,4,2):(8@laneid,2@laneid,1)]").0, tl("S[(8,2):(2@laneid,1)]"));
        assert_eq!(canon("S[] + 0@warpid + 3").0, tl("S[] + 3"));
    }

    #[test]
    fn replica_rules_c0_c1_c2_and_order() {
        assert_eq!(canon("S[2:1] + R[(1,3):(5,0)]").0, tl("S[2:1]"));
        assert_eq!(canon("S[2:1] + R[4:-2@laneid]").0, tl("S[2:1] + R[4:2@laneid] - 6@laneid"));
        assert_eq!(canon("S[2:1] + R[(2,2):(2,1)]").0, tl("S[2:1] + R[4:1]"));
        assert_eq!(canon("S[2:1] + R[(2,2):(1,1)]").0, tl("S[2:1] + R[3:1]"));
        assert_eq!(canon("S[2:1] + R[(3,3,2):(1,3,9)]").0, tl("S[2:1] + R[18:1]"));
        assert_eq!(canon("S[2:1] + R[(2,2):(8@warpid,1)]").0, tl("S[2:1] + R[(2,2):(1,8@warpid)]"));
    }

    #[test]
    fn gap_condition_is_cumulative_separation() {
        assert!(canon("S[2:1] + R[(2,2):(1,4)]").1);
        assert!(canon("S[2:1] + R[(2,2):(2,3)]").1, "3 > (2-1)*2");
        assert!(!canon("S[2:1] + R[(3,2):(2,3)]").1, "3 <= (3-1)*2");
        assert!(!canon("S[2:1] + R[(2,2,2):(1,3,4)]").1, "4 <= 1 + 3");
        assert!(canon("S[2:1] + R[(2,2):(1,1@laneid)]").1, "axes are separate");
    }

    #[test]
    fn idempotent_on_examples() {
        for text in ["S[(8,4):(-4,-1)] + R[(2,3):(-1,2)] + 5@warpid", "S[(2,1,3):(0,4@laneid,0)] + R[2:0]"] {
            let once = tl(text).canonical();
            assert_eq!(once.canonical(), once);
        }
    }

    #[test]
    fn compose_canonicalizes_its_tile() {
        let sw = Swizzle::new(3, 3, 3).unwrap();
        let c: Layout = ComposeLayout::new(sw, tl("S[(8,64):(64,1)] + 0")).unwrap().into();
        assert_eq!(c.canonical(), ComposeLayout::bare(sw).into());
    }

    #[test]
    fn equivalence() {
        let l = |t: &str| -> Layout { tl(t).into() };
        assert!(equivalent(&l("S[(2,2):(2,1)]"), &l("S[4:1]"), &[2, 2]).unwrap());
        assert!(equivalent(&l("S[2:0@laneid]"), &l("S[2:0]"), &[2]).unwrap());
        assert!(!equivalent(&l("S[4:1]"), &l("S[4:2]"), &[4]).unwrap());
        assert!(equivalent(&l("S[2:1] + R[(3,2):(2,3)]"), &l("S[2:1] + R[(2,3):(3,2)]"), &[2]).unwrap());
        let sw = Swizzle::new(3, 3, 3).unwrap();
        let small: Layout = ComposeLayout::new(sw, tl("S[8:1]")).unwrap().into();
        assert!(equivalent(&small, &l("S[8:1]"), &[8]).unwrap(), "the first row is not swizzled");
        assert!(!equivalent(&ComposeLayout::bare(sw).into(), &l("S[512:1]"), &[512]).unwrap());
        let big: Layout = ComposeLayout::new(sw, tl("S[8388608:1]")).unwrap().into();
        let err = equivalent(&big, &l("S[8388608:1]"), &[8388608]).unwrap_err();
        assert!(err.message.contains("2^22"), "{err}");
        assert!(equivalent(&l("S[4:1]"), &l("S[4:1]"), &[3]).is_err());
    }
}
