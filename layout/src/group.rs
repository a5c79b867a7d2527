//! Grouping a layout by a shape (paper App. B).
//!
//! `group(L, shape)` splits and fuses shard iters, never reordering them, so that consecutive blocks of iters
//! multiply to the dims of `shape`. Splitting `(e, s)` into `(e/r, s*r), (r, s)` (Lemma B.1) and fusing
//! (Corollary B.2) keep the induced map, so the grouped layout has the same map over `shape`; replica and offset
//! are untouched.
//!
//! **The shard is normalized first** (D0 and D1 of App. A): fused iters can always be split where unfused ones
//! can, never the other way round (`S[(2,3):(3,1)]` groups by `[3,2]` only as `S[6:1]`), so normalizing makes
//! the greedy algorithm below complete, and the result is the grouping with the fewest iters (App. B.1). The
//! caller's unit iters therefore do not survive; every unit dim of `shape` gets a fresh unit iter `(1, 1, a)`, `a`
//! the axis of the iter being split there (`m` when the shard is empty).
//!
//! **Greedy algorithm** (App. B.3, TIRx `Group`): walk the iters outermost first with the running product `acc`
//! of the current block; for an iter of extent `e` and the block's missing factor `need = dim / acc`: if
//! `need | e` the iter's outer part `(need, s * e/need)` closes the block and the rest `(e/need, s)` continues;
//! if `e | need` the whole iter joins the block; otherwise no grouping exists (a block boundary would have to fall
//! strictly inside the iter at a non-divisor), and the error names the dimension and the numbers.

use crate::arith::mul;
use crate::axis::Axis;
use crate::canonicalize::normalize_shard;
use crate::error::{LayoutError, Result};
use crate::iter::Iter;
use crate::notation::shape_text;
use crate::tile_layout::{check_iter_counts, TileLayout};

/// A layout whose shard is split into consecutive blocks, one per dimension of the shape it was grouped by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grouped {
    /// The regrouped layout (same induced map over the shape).
    pub layout: TileLayout,
    /// Block boundaries: dimension `i` owns shard iters `seps[i]..seps[i+1]`; `seps.len() == rank + 1`.
    pub seps: Vec<usize>,
}

impl Grouped {
    /// The shard iters of dimension `i` (App. B: the block whose extents multiply to `shape[i]`).
    pub fn block(&self, i: usize) -> &[Iter] {
        block_of(self.layout.shard(), &self.seps, i)
    }

    /// The number of dimensions grouped.
    pub fn rank(&self) -> usize {
        self.seps.len().saturating_sub(1)
    }
}

/// Just the shard of a layout grouped by a shape, as [`group`] computes it: grouping leaves replica and offset
/// untouched, so tiling and slicing take them from the layout itself instead of copying them into a [`Grouped`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupedShard {
    /// The regrouped shard iters, outermost first.
    pub shard: Vec<Iter>,
    /// Block boundaries, as in [`Grouped::seps`].
    pub seps: Vec<usize>,
}

impl GroupedShard {
    /// The shard iters of dimension `i`, as [`Grouped::block`].
    pub fn block(&self, i: usize) -> &[Iter] {
        block_of(&self.shard, &self.seps, i)
    }

    /// The number of dimensions grouped.
    pub fn rank(&self) -> usize {
        self.seps.len().saturating_sub(1)
    }
}

fn block_of<'a>(shard: &'a [Iter], seps: &[usize], i: usize) -> &'a [Iter] {
    match (seps.get(i), seps.get(i + 1)) {
        (Some(&a), Some(&b)) => shard.get(a..b).unwrap_or_default(),
        _ => &[],
    }
}

/// Splits and fuses shard iters, in order, so consecutive blocks multiply to the dims of `shape` (App. B.3).
///
/// Fails if `shape` is not admitted (element count differs from size(L)) or if no order-preserving grouping
/// exists; the message names the dimension and the extents that do not divide.
pub fn group(layout: &TileLayout, shape: &[i64]) -> Result<Grouped> {
    let GroupedShard { shard, seps } = group_shard(layout, shape)?;
    Ok(Grouped { layout: TileLayout::new(shard, layout.replica().to_vec(), layout.offset().clone())?, seps })
}

/// The shard part of [`group`], with the same errors: the regrouped shard and its block boundaries. Splitting
/// keeps every iter valid and the total reach, so of [`TileLayout::new`]'s checks only the iter count can fail
/// on the regrouped shard; it is checked here.
pub fn group_shard(layout: &TileLayout, shape: &[i64]) -> Result<GroupedShard> {
    let context = |e: LayoutError| LayoutError::new(format!("cannot group by shape {}: {}", shape_text(shape), e));
    layout.admits(shape).map_err(context)?;
    let iters = normalize_shard(layout.shard());
    let mut seps = Vec::with_capacity(shape.len() + 1);
    seps.push(0);
    let mut g = Grouper { shape, dim: 0, acc: 1, out: Vec::with_capacity(iters.len() + shape.len()), seps };
    for it in &iters {
        g.take(it).map_err(context)?;
    }
    g.close_unit_dims(iters.last().map_or(Axis::M, |i| i.axis)).map_err(context)?;
    if g.dim != shape.len() {
        return Err(context(LayoutError::new(format!("dimension {} is left without iters", g.dim))));
    }
    check_iter_counts(g.out.len(), layout.replica().len())?;
    Ok(GroupedShard { shard: g.out, seps: g.seps })
}

/// The state of the greedy walk: the current dimension and the product of its block so far.
struct Grouper<'a> {
    shape: &'a [i64],
    dim: usize,
    acc: i64,
    out: Vec<Iter>,
    seps: Vec<usize>,
}

impl Grouper<'_> {
    /// Consumes one normalized iter, closing every block it completes.
    fn take(&mut self, it: &Iter) -> Result<()> {
        let mut extent = it.extent;
        loop {
            self.close_unit_dims(it.axis)?;
            if extent == 1 {
                return Ok(());
            }
            let Some(&dim_extent) = self.shape.get(self.dim) else {
                return Err(LayoutError::new(format!("iter {it} is left over after the last dimension")));
            };
            let need = dim_extent / self.acc;
            if extent % need == 0 {
                let rest = extent / need;
                self.out.push(Iter::new(need, mul(it.stride, rest, "a split stride")?, it.axis)?);
                self.close();
                extent = rest;
            } else if need % extent == 0 {
                self.out.push(Iter { extent, ..*it });
                self.acc *= extent;
                return Ok(());
            } else {
                return Err(LayoutError::new(format!(
                    "dimension {} (extent {dim_extent}) needs a factor {need} but the next iter {it} offers {extent} \
                     (neither divides the other)",
                    self.dim
                )));
            }
        }
    }

    /// Emits a unit iter for each unit dim that starts here.
    fn close_unit_dims(&mut self, axis: Axis) -> Result<()> {
        while self.acc == 1 && self.shape.get(self.dim) == Some(&1) {
            self.out.push(Iter::new(1, 1, axis)?);
            self.close();
        }
        Ok(())
    }

    fn close(&mut self) {
        self.acc = 1;
        self.dim += 1;
        self.seps.push(self.out.len());
    }
}

/// A layout grouped by several shapes at once: one refined shard, and block boundaries for each shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupedMany {
    /// The refined layout (same induced map); grouped by every shape.
    pub layout: TileLayout,
    /// `seps[j]` are the block boundaries of `shapes[j]`, as in [`Grouped::seps`].
    pub seps: Vec<Vec<usize>>,
}

/// Groups `layout` by the common refinement of `shapes` (App. B, TIRx `GroupMany`): the merged list of every
/// shape's cumulative products (a repeated product, from unit dims, kept as often as the shape repeating it most)
/// must be a divisibility chain; the layout is grouped by the ratios of that chain, and each shape's boundaries
/// are looked up in it. Useful when one layout must be cut by, e.g., a buffer shape and a copy box at once.
pub fn group_many(layout: &TileLayout, shapes: &[&[i64]]) -> Result<GroupedMany> {
    let chains: Vec<Vec<i64>> = shapes.iter().map(|s| cumulative(s)).collect::<Result<_>>()?;
    let merged = merge_chains(&chains);
    let refined = ratios(&merged).map_err(|e| {
        let texts: Vec<String> = shapes.iter().map(|s| shape_text(s)).collect();
        LayoutError::new(format!("cannot group by shapes {} at once: {}", texts.join(" and "), e))
    })?;
    for s in shapes {
        layout.admits(s)?;
    }
    let grouped = group(layout, &refined)?;
    let seps = chains.iter().map(|c| seps_in(c, &merged, &grouped.seps)).collect();
    Ok(GroupedMany { layout: grouped.layout, seps })
}

/// The cumulative products `d0, d0*d1, ...` of a shape.
fn cumulative(shape: &[i64]) -> Result<Vec<i64>> {
    let mut acc = 1i64;
    shape
        .iter()
        .map(|&d| {
            if d < 1 {
                return Err(LayoutError::new(format!("shape dimensions must be at least 1, got {d}")));
            }
            acc = mul(acc, d, "a shape's cumulative product")?;
            Ok(acc)
        })
        .collect()
}

/// The sorted union of the chains, each value repeated as often as the chain repeating it most.
fn merge_chains(chains: &[Vec<i64>]) -> Vec<i64> {
    let mut values: Vec<i64> = chains.iter().flatten().copied().collect();
    values.sort();
    values.dedup();
    values
        .into_iter()
        .flat_map(|v| {
            let times = chains.iter().map(|c| c.iter().filter(|&&x| x == v).count()).max().unwrap_or(0);
            std::iter::repeat_n(v, times)
        })
        .collect()
}

/// The shape whose cumulative products are `chain`; each value must divide the next.
fn ratios(chain: &[i64]) -> Result<Vec<i64>> {
    let mut prev = 1i64;
    chain
        .iter()
        .map(|&v| {
            if v % prev != 0 {
                return Err(LayoutError::new(format!(
                    "incompatible cumulative boundaries: {prev} does not divide {v}"
                )));
            }
            let r = v / prev;
            prev = v;
            Ok(r)
        })
        .collect()
}

/// The separators of one shape: its `t`-th boundary of value `v` is the `t`-th `v` of the merged chain, and its
/// last boundary is the end of the shard (unit iters of other shapes' trailing unit dims join its last block).
fn seps_in(chain: &[i64], merged: &[i64], refined_seps: &[usize]) -> Vec<usize> {
    let end = refined_seps.last().copied().unwrap_or(0);
    let mut seps = vec![0];
    for (k, &v) in chain.iter().enumerate() {
        let t = chain[..k].iter().filter(|&&x| x == v).count();
        let first = merged.iter().position(|&x| x == v).unwrap_or(0);
        let sep = if k + 1 == chain.len() { end } else { refined_seps.get(first + t + 1).copied().unwrap_or(end) };
        seps.push(sep);
    }
    seps
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tl(text: &str) -> TileLayout {
        text.parse().unwrap()
    }

    #[test]
    fn tirx_examples() {
        let g = group(&tl("S[(4,2):(2,1)]"), &[2, 4]).unwrap();
        assert_eq!(g.layout, tl("S[(2,4):(4,1)]"));
        assert_eq!(g.seps, vec![0, 1, 2]);
        let g = group(&tl("S[(2,3):(3,1)]"), &[3, 2]).unwrap();
        assert_eq!(g.layout, tl("S[(3,2):(2,1)]"));
        let err = group(&tl("S[(2,3):(1,2)]"), &[3, 2]).unwrap_err();
        assert!(err.message.contains("dimension 0"), "{err}");
    }

    #[test]
    fn unit_dims_get_unit_iters() {
        let g = group(&tl("S[8:1@laneid] + R[2:1@warpid] + 3"), &[1, 2, 1, 4, 1]).unwrap();
        assert_eq!(g.layout, tl("S[(1,2,1,4,1):(1@laneid,4@laneid,1@laneid,1@laneid,1@laneid)] + R[2:1@warpid] + 3"));
        assert_eq!(g.seps, vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(g.block(3), &[Iter::new(4, 1, Axis::named("laneid").unwrap()).unwrap()]);
        let g = group(&tl("S[]"), &[1, 1]).unwrap();
        assert_eq!((g.layout, g.seps), (tl("S[(1,1):(1,1)]"), vec![0, 1, 2]));
    }

    #[test]
    fn size_mismatch_is_an_error() {
        let err = group(&tl("S[8:1]"), &[3, 3]).unwrap_err();
        assert!(err.message.starts_with("cannot group by shape [3,3]"), "{err}");
    }

    #[test]
    fn group_many_refines() {
        let g = group_many(&tl("S[(4,6):(1,4)]"), &[&[4, 6], &[2, 12]]).unwrap();
        assert_eq!(g.layout, tl("S[(2,2,6):(2,1,4)]"));
        assert_eq!(g.seps, vec![vec![0, 2, 3], vec![0, 1, 3]]);
        assert!(group_many(&tl("S[6:1]"), &[&[2, 3], &[3, 2]]).unwrap_err().message.contains("incompatible"));
        let g = group_many(&tl("S[4:1]"), &[&[1, 4], &[4, 1]]).unwrap();
        assert_eq!(g.seps, vec![vec![0, 1, 3], vec![0, 2, 3]]);
    }
}
