//! Slicing a layout to a rectangular region (paper App. E).
//!
//! `slice(L, shape, region)` returns L' over the region's extents with `L'(y) == L(y + begin)` for every `y`.
//! The shard is normalized (D0/D1) and grouped by `shape` ([`crate::group::group`]); each dimension's block is then sliced on its own
//! (the shard map is a sum of per-dimension block maps), the start digits moving into the offset. Per block:
//!
//! 1. greedy peeling (App. E): from the fastest iter leftwards, take every iter whose start digit is 0 and whose
//!    extent divides the remaining length;
//! 2. no-wrap form (Lemma E.1): the pivot's digit plus the remaining length fits in its extent;
//! 3. symmetric one-wrap form (Lemma E.2): two equal chunks, the first ending exactly at the pivot's boundary.
//!    The step between the chunks is computed from the layout itself, so a carry that runs past the left
//!    neighbour is handled exactly (the lemma's capacity hypothesis is not needed), and the step may be on any
//!    one axis (the lemma asks both iters to share an axis);
//! 4. exact fallback: for a block of at most [`EXACT_SEARCH_LIMIT`] positions, a search over every mixed-radix
//!    factorisation finds an iter list whenever one exists (a layout over the block is exactly that).
//!
//! When a dimension fails, the error names it and the rule that failed with the numbers. Replica iters are kept
//! unchanged: the slice reproduces the base points `D(y + begin) + O` exactly, so the sets agree too. The result
//! is not canonicalized (unit iters are kept, as in the paper's worked example).

use crate::arith::{add, product};
use crate::axis::Axis;
use crate::error::{LayoutError, Result};
use crate::group::group_shard;
use crate::iter::Iter;
use crate::layout::Layout;
use crate::tile_layout::TileLayout;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};

/// Longest block (or whole region) the exact fallback enumerates.
pub const EXACT_SEARCH_LIMIT: i64 = 4096;

/// Paper App. E / Theorem E.3: a layout L' over the region extents with `L'(y) == L(y + begin)`;
/// `region[i] = (begin, end)` half-open, `0 <= begin < end <= shape[i]`.
///
/// A ComposeLayout slices its tile and keeps the swizzle (the slice's offset stays inside the swizzled address);
/// a bare swizzle whose period differs from the shape's size is read as the identity tile over `shape`.
pub fn slice(layout: &Layout, shape: &[i64], region: &[(i64, i64)]) -> Result<Layout> {
    validate_region(shape, region)?;
    let tile = match layout {
        Layout::Compose(c) if c.is_bare() && c.tile().size() != product(shape.iter().copied(), "shape")? => {
            Cow::Owned(TileLayout::row_major(shape)?)
        }
        _ => Cow::Borrowed(layout.tile()),
    };
    tile.admits(shape)?;
    layout.with_tile(slice_tile(&tile, shape, region)?)
}

/// Checks rank and `0 <= begin < end <= extent` for every dimension.
fn validate_region(shape: &[i64], region: &[(i64, i64)]) -> Result<()> {
    if shape.len() != region.len() {
        return Err(LayoutError::new(format!(
            "region rank must equal shape rank, got {} and {}",
            region.len(),
            shape.len()
        )));
    }
    for (d, (&e, &(b, end))) in shape.iter().zip(region).enumerate() {
        if b < 0 || b >= end || end > e {
            return Err(LayoutError::new(format!(
                "dimension {d}: region must satisfy 0 <= begin < end <= extent, got {b}:{end} of extent {e}"
            )));
        }
    }
    Ok(())
}

/// Slices the tile dimension by dimension; falls back to the whole-region search when the shard does not group.
fn slice_tile(tile: &TileLayout, shape: &[i64], region: &[(i64, i64)]) -> Result<TileLayout> {
    if region.iter().zip(shape).all(|(&(b, e), &n)| b == 0 && e == n) {
        return Ok(tile.clone());
    }
    let grouped = match group_shard(tile, shape) {
        Ok(g) => g,
        Err(why) => return whole_region(tile, shape, region).ok_or(why)?,
    };
    let mut iters = Vec::with_capacity(grouped.shard.len() + grouped.rank());
    let mut offset = tile.offset().clone();
    for (d, block) in (0..grouped.rank()).map(|d| (d, grouped.block(d))) {
        let (b, e) = region[d];
        if let Err(why) = slice_block(block, b, e - b, &mut iters) {
            let msg = format!("dimension {d}: region {b}:{e} of extent {}: {why}", shape[d]);
            return whole_region(tile, shape, region).ok_or(LayoutError::new(msg))?;
        }
        add_block_point(&mut offset, block, b)?;
    }
    TileLayout::new(iters, tile.replica().to_vec(), offset)
}

/// Adds [`block_point`]`(block, idx)` into the offset map without building it: axis by axis (in the order the
/// block first mentions them), the block's value on it, when not zero (so no zero entry appears).
fn add_block_point(offset: &mut BTreeMap<Axis, i64>, block: &[Iter], idx: i64) -> Result<()> {
    for (k, it) in block.iter().enumerate() {
        if block[..k].iter().any(|i| i.axis == it.axis) {
            continue;
        }
        let v = block_value(block, idx, it.axis);
        if v != 0 {
            let o = offset.entry(it.axis).or_insert(0);
            *o = add(*o, v, "the slice offset")?;
        }
    }
    Ok(())
}

/// D(idx) of one block alone on one axis (row-major digits over the block's extents).
fn block_value(block: &[Iter], idx: i64, axis: Axis) -> i64 {
    let (mut value, mut rest) = (0, idx);
    for it in block.iter().rev() {
        if it.axis == axis {
            value += (rest % it.extent) * it.stride;
        }
        rest /= it.extent;
    }
    value
}

/// The exact fallback over the whole region (row-major), for regions of at most [`EXACT_SEARCH_LIMIT`] elements.
/// `None` when the region is too large or no iter list reproduces it.
fn whole_region(tile: &TileLayout, shape: &[i64], region: &[(i64, i64)]) -> Option<Result<TileLayout>> {
    let extents: Vec<i64> = region.iter().map(|&(b, e)| e - b).collect();
    let n = product(extents.iter().copied(), "region size").ok()?;
    if n > EXACT_SEARCH_LIMIT {
        return None;
    }
    let flat_of = |y: i64| {
        let local = crate::tile_layout::unflatten(&extents, y);
        let x: Vec<i64> = local.iter().zip(region).map(|(l, (b, _))| l + b).collect();
        crate::tile_layout::flatten(shape, &x).unwrap_or(0)
    };
    let origin = tile.base_point(flat_of(0));
    let iters = exact_search(n, |y| diff(&tile.base_point(flat_of(y)), &origin))?;
    Some(TileLayout::new(iters, tile.replica().to_vec(), origin))
}

/// `a - b` per axis, zero entries dropped.
fn diff(a: &BTreeMap<Axis, i64>, b: &BTreeMap<Axis, i64>) -> BTreeMap<Axis, i64> {
    let mut out = a.clone();
    for (axis, v) in b {
        *out.entry(*axis).or_insert(0) -= v;
    }
    out.retain(|_, v| *v != 0);
    out
}

/// D(idx) of one block alone (row-major digits over the block's extents), zero entries dropped.
fn block_point(block: &[Iter], idx: i64) -> BTreeMap<Axis, i64> {
    let mut point = BTreeMap::new();
    let mut rest = idx;
    for it in block.iter().rev() {
        *point.entry(it.axis).or_insert(0) += (rest % it.extent) * it.stride;
        rest /= it.extent;
    }
    point.retain(|_, v| *v != 0);
    point
}

/// Slices one block to `[b, b+n)`, appending the iters of L' for this dimension to `out` (offset handled by the
/// caller), or the reason why neither Lemma E.1, Lemma E.2 nor the exact search applies (`out` then unchanged).
fn slice_block(block: &[Iter], b: i64, n: i64, out: &mut Vec<Iter>) -> std::result::Result<(), String> {
    let why = match paper_forms(block, b, n, out) {
        Ok(()) => return Ok(()),
        Err(why) => why,
    };
    if n > EXACT_SEARCH_LIMIT {
        return Err(format!("{why}; the region is too long ({n} > {EXACT_SEARCH_LIMIT}) for the exact search"));
    }
    let origin = block_point(block, b);
    let iters = exact_search(n, |y| diff(&block_point(block, b + y), &origin))
        .ok_or_else(|| format!("{why}, and no iter list reproduces the region"))?;
    out.extend(iters);
    Ok(())
}

/// Greedy peeling then Lemma E.1 (no wrap) or Lemma E.2 (symmetric one wrap), appending the iters to `out`;
/// `Err` says why neither applies (`out` then unchanged).
fn paper_forms(block: &[Iter], b: i64, n: i64, out: &mut Vec<Iter>) -> std::result::Result<(), String> {
    // `rest` is b with the digits of the iters peeled so far divided out: its remainder by the next iter's
    // extent is that iter's start digit.
    let (mut rem, mut peeled_size, mut k, mut rest) = (n, 1i64, block.len(), b);
    while k > 0 && rest % block[k - 1].extent == 0 && rem % block[k - 1].extent == 0 {
        rem /= block[k - 1].extent;
        peeled_size *= block[k - 1].extent;
        rest /= block[k - 1].extent;
        k -= 1;
    }
    let peeled = &block[k..];
    if k == 0 {
        out.extend_from_slice(peeled);
        return Ok(());
    }
    let p = block[k - 1];
    let dp = rest % p.extent;
    if dp + rem <= p.extent {
        out.push(Iter { extent: rem, stride: p.stride, axis: p.axis });
        out.extend_from_slice(peeled);
        return Ok(());
    }
    let head =
        || format!("{rem} steps from digit {dp} of iter ({},{}@{}) cross its extent", p.extent, p.stride, p.axis);
    if rem % 2 != 0 || dp + rem / 2 != p.extent {
        return Err(format!(
            "{} and are not two equal chunks split at its boundary (lemma e.2 needs an even count and digit + \
             half == extent, got {dp} + {rem}/2 vs {})",
            head(),
            p.extent
        ));
    }
    let c = rem / 2;
    let wrap = diff(&block_point(block, b + c * peeled_size), &block_point(block, b));
    let delta = single_axis(&wrap, p.axis).ok_or_else(|| {
        format!(
            "{}; the step between its two chunks moves on several axes ({}), not one iter",
            head(),
            coord_text(&wrap)
        )
    })?;
    out.extend_from_slice(&[delta, Iter { extent: c, stride: p.stride, axis: p.axis }]);
    out.extend_from_slice(peeled);
    Ok(())
}

/// An extent-2 iter for a step that moves along at most one axis (`fallback` when it does not move).
fn single_axis(step: &BTreeMap<Axis, i64>, fallback: Axis) -> Option<Iter> {
    step_iter(2, step, fallback)
}

/// An iter of `extent` with the given per-digit step, if the step is on at most one axis.
fn step_iter(extent: i64, step: &BTreeMap<Axis, i64>, fallback: Axis) -> Option<Iter> {
    let mut moving = step.iter().filter(|(_, v)| **v != 0);
    let (axis, stride) = match moving.next() {
        Some((a, v)) => (*a, *v),
        None => (fallback, 0),
    };
    if moving.next().is_some() {
        return None;
    }
    Iter::new(extent, stride, axis).ok()
}

fn coord_text(c: &BTreeMap<Axis, i64>) -> String {
    c.iter().map(|(a, v)| format!("{v}@{a}")).collect::<Vec<_>>().join(" + ")
}

/// The exact fallback: an iter list (outermost first) whose map over `[0, n)` is `point(y)` (with `point(0)` the
/// empty point), or `None` if none exists. Searches over the mixed-radix factorisations of `n` from the fastest
/// iter outwards: a state is the product `p` of the extents chosen so far (the remaining map is `y -> point(y*p)`);
/// failed states are remembered, so each divisor of `n` is explored once.
fn exact_search(n: i64, point: impl Fn(i64) -> BTreeMap<Axis, i64>) -> Option<Vec<Iter>> {
    let values: Vec<BTreeMap<Axis, i64>> = (0..n).map(point).collect();
    let fallback = values.iter().flat_map(|v| v.keys()).next().copied().unwrap_or(Axis::M);
    let mut failed = HashSet::new();
    let mut iters = search_from(&values, 1, fallback, &mut failed)?;
    if iters.is_empty() {
        iters.push(Iter { extent: 1, stride: 0, axis: fallback });
    }
    Some(iters)
}

fn search_from(
    values: &[BTreeMap<Axis, i64>],
    p: usize,
    fallback: Axis,
    failed: &mut HashSet<usize>,
) -> Option<Vec<Iter>> {
    let len = values.len() / p;
    if len == 1 {
        return Some(Vec::new());
    }
    if failed.contains(&p) {
        return None;
    }
    for d in (2..=len).rev().filter(|d| len.is_multiple_of(*d)) {
        let Some(it) = step_iter(d as i64, &values[p], fallback) else {
            break;
        };
        if is_run_of(values, p, d, it) {
            if let Some(mut outer) = search_from(values, p * d, fallback, failed) {
                outer.push(it);
                return Some(outer);
            }
        }
    }
    failed.insert(p);
    None
}

/// With `at(q) = values[q*p]`: whether `at(c*d + j) == at(c*d) + j*step` for every chunk `c` and `j < d`.
fn is_run_of(values: &[BTreeMap<Axis, i64>], p: usize, d: usize, it: Iter) -> bool {
    let at = |q: usize| &values[q * p];
    (0..values.len() / p / d).all(|q| {
        let base = at(q * d);
        (1..d).all(|j| {
            let mut want = base.clone();
            *want.entry(it.axis).or_insert(0) += j as i64 * it.stride;
            want.retain(|_, v| *v != 0);
            *at(q * d + j) == want
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(e: i64, s: i64) -> Iter {
        Iter::m(e, s).unwrap()
    }

    fn tile(shard: Vec<Iter>) -> Layout {
        Layout::Tile(TileLayout::new(shard, vec![], BTreeMap::new()).unwrap())
    }

    /// Checks `L'(y) == L(y + begin)` over the whole region.
    fn check(l: &Layout, shape: &[i64], region: &[(i64, i64)], s: &Layout) {
        let ext: Vec<i64> = region.iter().map(|(b, e)| e - b).collect();
        for flat in 0..s.size() {
            let y = crate::tile_layout::unflatten(&ext, flat);
            let x: Vec<i64> = y.iter().zip(region).map(|(y, (b, _))| y + b).collect();
            let strip = |v: Vec<crate::Coord>| -> Vec<Vec<(Axis, i64)>> {
                v.into_iter().map(|c| c.into_iter().filter(|(_, v)| *v != 0).collect()).collect()
            };
            assert_eq!(strip(s.eval(&ext, &y).unwrap()), strip(l.eval(shape, &x).unwrap()), "at {y:?}");
        }
    }

    /// The TIRx worked result `S[(1,2,2):(4,14,1)] + 26@m`: slicing `S[(8,4,4):(4,16,1)]` over (8,16) to rows 2:3,
    /// columns 6:10. Column 6 has digits (1,2) of (4,4):(16,1); four columns wrap once at the midpoint
    /// (Lemma E.2), the chunk step being 16 - 2*1 = 14; the offset is 2*4 + 1*16 + 2 = 26.
    #[test]
    fn worked_example_symmetric_one_wrap() {
        let l = tile(vec![m(8, 4), m(4, 16), m(4, 1)]);
        let s = slice(&l, &[8, 16], &[(2, 3), (6, 10)]).unwrap();
        let want = TileLayout::new(vec![m(1, 4), m(2, 14), m(2, 1)], vec![], BTreeMap::from([(Axis::M, 26)]));
        assert_eq!(s, Layout::Tile(want.unwrap()));
        check(&l, &[8, 16], &[(2, 3), (6, 10)], &s);
    }

    /// Lemma E.1: no wrap at the pivot, the start digits go to the offset.
    #[test]
    fn no_wrap_form() {
        let l = tile(vec![m(8, 4), m(4, 16), m(4, 1)]);
        let region = [(1, 5), (4, 7)];
        let s = slice(&l, &[8, 16], &region).unwrap();
        let want = TileLayout::new(vec![m(4, 4), m(3, 1)], vec![], BTreeMap::from([(Axis::M, 20)]));
        assert_eq!(s, Layout::Tile(want.unwrap()));
        check(&l, &[8, 16], &region, &s);
    }

    /// The wrap carries through the left neighbour at its last digit: the chunk step is computed from the layout
    /// (950), not from the lemma's `S_{p-1} - (E_p - c) S_p` (14, wrong here).
    #[test]
    fn one_wrap_with_a_carry_past_the_left_neighbour() {
        let l = tile(vec![m(2, 1000), m(4, 16), m(4, 1)]);
        let s = slice(&l, &[32], &[(14, 18)]).unwrap();
        let want = TileLayout::new(vec![m(2, 950), m(2, 1)], vec![], BTreeMap::from([(Axis::M, 50)]));
        assert_eq!(s, Layout::Tile(want.unwrap()));
        check(&l, &[32], &[(14, 18)], &s);
    }

    /// Neither lemma applies but a layout exists: `2,3,0,1,2,3,0,1` is `(2,2,2):(0,-2,1)` from 2.
    #[test]
    fn exact_search_beyond_the_lemmas() {
        let l = tile(vec![m(3, 0), m(4, 1)]);
        let s = slice(&l, &[12], &[(2, 10)]).unwrap();
        check(&l, &[12], &[(2, 10)], &s);
    }

    #[test]
    fn refusal_names_the_dimension_and_the_rule() {
        let l = tile(vec![m(2, 64), m(4, 16), m(4, 1)]);
        let err = slice(&l, &[2, 16], &[(0, 2), (3, 9)]).unwrap_err().message;
        assert!(err.starts_with("dimension 1: region 3:9 of extent 16"), "{err}");
        assert!(err.contains("(4,1@m)") && err.contains("no iter list"), "{err}");
        let big = tile(vec![m(2, 1 << 20), m(4096, 8), m(4, 1)]);
        let err = slice(&big, &[2, 16384], &[(0, 2), (3, 9000)]).unwrap_err().message;
        assert!(err.contains("too long"), "{err}");
    }

    #[test]
    fn region_is_validated() {
        let l = tile(vec![m(4, 4), m(4, 1)]);
        assert!(slice(&l, &[4, 4], &[(0, 1)]).unwrap_err().message.contains("rank"));
        assert!(slice(&l, &[4, 4], &[(0, 1), (2, 2)]).unwrap_err().message.contains("dimension 1"));
        assert!(slice(&l, &[4, 4], &[(0, 1), (2, 5)]).is_err());
        assert!(slice(&l, &[4, 5], &[(0, 1), (2, 3)]).is_err());
    }

    /// A shard that does not group by the shape still slices exactly through the whole-region search.
    #[test]
    fn ungroupable_shape_uses_the_whole_region_search() {
        let l = tile(vec![m(2, 5), m(3, 1)]);
        assert_eq!(slice(&l, &[3, 2], &[(0, 3), (0, 2)]).unwrap(), l);
        let s = slice(&l, &[3, 2], &[(1, 2), (0, 2)]).unwrap();
        check(&l, &[3, 2], &[(1, 2), (0, 2)], &s);
    }

    /// A ComposeLayout slices its tile and keeps the swizzle; a bare swizzle reads as the identity over the shape.
    #[test]
    fn compose_keeps_the_swizzle() {
        let sw = crate::Swizzle::new(3, 3, 3).unwrap();
        let c = Layout::Compose(ComposeLayoutT::new(sw, TileLayout::row_major(&[8, 64]).unwrap()).unwrap());
        let s = slice(&c, &[8, 64], &[(2, 6), (8, 24)]).unwrap();
        assert_eq!(s.swizzle(), Some(sw));
        check(&c, &[8, 64], &[(2, 6), (8, 24)], &s);
        let bare = Layout::Compose(ComposeLayoutT::bare(sw));
        let s = slice(&bare, &[16, 64], &[(4, 12), (0, 64)]).unwrap();
        assert_eq!(s.tile().offset().get(&Axis::M), Some(&256));
    }

    use crate::layout::ComposeLayout as ComposeLayoutT;
}
