//! `TileLayout` = (D, R, O): an ordered shard, a replica multiset and a per-axis offset (paper Definition 2.2).

use crate::arith::{add, bounded, mul, product, MAX_ITERS, MAX_MAGNITUDE};
use crate::axis::Axis;
use crate::error::{LayoutError, Result};
use crate::iter::Iter;
use std::collections::BTreeMap;

/// A point on the hardware axes: one value per axis. Axes missing from the map are at 0.
pub type Coord = BTreeMap<Axis, i64>;

/// A layout L = (D, R, O): `L(x) = { D(x) + O + r | r in R }`.
///
/// Invariants (checked by [`TileLayout::new`]): at most [`MAX_ITERS`] iters in each list, every iter valid, offsets
/// and the total reach within [`MAX_MAGNITUDE`], so evaluating the layout never overflows.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct TileLayout {
    shard: Vec<Iter>,
    replica: Vec<Iter>,
    offset: BTreeMap<Axis, i64>,
}

impl TileLayout {
    /// A checked layout from its three parts.
    pub fn new(shard: Vec<Iter>, replica: Vec<Iter>, offset: BTreeMap<Axis, i64>) -> Result<TileLayout> {
        check_iter_counts(shard.len(), replica.len())?;
        for it in shard.iter().chain(&replica) {
            Iter::new(it.extent, it.stride, it.axis)?;
        }
        if let Some((axis, value)) = offset.iter().find(|(_, v)| v.unsigned_abs() > MAX_MAGNITUDE as u64) {
            bounded(*value, &format!("offset on {axis}"))?;
        }
        product(shard.iter().map(|i| i.extent), "the layout size")?;
        product(replica.iter().map(|i| i.extent), "the replica count")?;
        let reach = shard.iter().chain(&replica).try_fold(0i64, |acc, it| add(acc, it.reach(), "reach"))?;
        if reach > MAX_MAGNITUDE {
            return Err(LayoutError::new(format!("total reach {reach} exceeds the supported magnitude 2^48")));
        }
        Ok(TileLayout { shard, replica, offset })
    }

    /// The row-major layout of `shape` on `m` (`S[(a,b,c)]`).
    pub fn row_major(shape: &[i64]) -> Result<TileLayout> {
        let mut shard = Vec::with_capacity(shape.len());
        let mut stride = 1i64;
        for &e in shape.iter().rev() {
            shard.push(Iter::m(e, stride)?);
            stride = mul(stride, e.max(1), "row-major strides")?;
        }
        shard.reverse();
        TileLayout::new(shard, vec![], BTreeMap::new())
    }

    /// D: the ordered shard iters, outermost first.
    pub fn shard(&self) -> &[Iter] {
        &self.shard
    }

    /// R: the replica iters.
    pub fn replica(&self) -> &[Iter] {
        &self.replica
    }

    /// O: the offset per axis (zero entries may be present until canonicalization).
    pub fn offset(&self) -> &BTreeMap<Axis, i64> {
        &self.offset
    }

    /// Splits the layout into its parts.
    pub fn into_parts(self) -> (Vec<Iter>, Vec<Iter>, BTreeMap<Axis, i64>) {
        (self.shard, self.replica, self.offset)
    }

    /// size(L): the product of the shard extents, i.e. how many logical elements the layout maps.
    pub fn size(&self) -> i64 {
        self.shard.iter().map(|i| i.extent).product()
    }

    /// The number of coordinates each element maps to before duplicates collapse: the product of replica extents.
    pub fn replica_count(&self) -> i64 {
        self.replica.iter().map(|i| i.extent).product()
    }

    /// `span(L, a) = 1 + sum over shard and replica iters on a of (e-1)*|s| + O[a]` (semantics.md, "Operations").
    pub fn span_on(&self, axis: Axis) -> i64 {
        self.span_where(|a| a == axis)
    }

    /// span over the memory axes.
    pub fn span_memory(&self) -> i64 {
        self.span_where(|a| a.is_memory())
    }

    fn span_where(&self, pick: impl Fn(Axis) -> bool) -> i64 {
        let iters: i64 = self.shard.iter().chain(&self.replica).filter(|i| pick(i.axis)).map(Iter::reach).sum();
        let offsets: i64 = self.offset.iter().filter(|(a, _)| pick(**a)).map(|(_, v)| *v).sum();
        1 + iters + offsets
    }

    /// Every axis the layout mentions (shard, replica or offset), sorted by name.
    pub fn axes(&self) -> Vec<Axis> {
        let mut axes: Vec<Axis> =
            self.shard.iter().chain(&self.replica).map(|i| i.axis).chain(self.offset.keys().copied()).collect();
        axes.sort();
        axes.dedup();
        axes
    }

    /// Checks that `shape` is admitted: its element count equals size(L).
    pub fn admits(&self, shape: &[i64]) -> Result<()> {
        if let Some(bad) = shape.iter().find(|&&e| e < 1) {
            return Err(LayoutError::new(format!("shape dimensions must be at least 1, got {bad}")));
        }
        let count = product(shape.iter().copied(), "the shape's element count")?;
        if count != self.size() {
            return Err(LayoutError::new(format!(
                "shape {} has {count} elements but the layout maps {}",
                crate::notation::shape_text(shape),
                self.size()
            )));
        }
        Ok(())
    }

    /// D(x) + O for the row-major flat index `flat` (replica not applied). `flat` must be in `0..size`.
    pub fn base_point(&self, flat: i64) -> Coord {
        let mut point = self.offset.clone();
        let mut rest = flat;
        for it in self.shard.iter().rev() {
            let digit = rest % it.extent;
            rest /= it.extent;
            *point.entry(it.axis).or_insert(0) += digit * it.stride;
        }
        point
    }

    /// Every replica offset r in R, one per combination of replica digits (duplicates kept), or an error when
    /// there are more than [`crate::eval::MAX_REPLICA_OFFSETS`] combinations (checked before allocating). The
    /// distinct offsets, axis by axis, come from [`crate::points::axis_points`] without a limit on combinations.
    pub fn replica_points(&self) -> Result<Vec<Coord>> {
        let count = self.replica_count();
        if count > crate::eval::MAX_REPLICA_OFFSETS {
            return Err(LayoutError::new(format!(
                "the replica has {count} combinations, more than the {} listed",
                crate::eval::MAX_REPLICA_OFFSETS
            )));
        }
        let mut points = vec![Coord::new()];
        for it in &self.replica {
            let mut next = Vec::with_capacity(points.len() * it.extent as usize);
            for p in &points {
                for d in 0..it.extent {
                    let mut q = p.clone();
                    *q.entry(it.axis).or_insert(0) += d * it.stride;
                    next.push(q);
                }
            }
            points = next;
        }
        Ok(points)
    }

    /// L(flat) = { D(flat) + O + r | r in R }: sorted, duplicates collapsed, each point listing every axis of
    /// [`TileLayout::axes`] (zero where nothing moves it). See [`crate::Evaluator`] for evaluating many indices.
    pub fn eval_flat(&self, flat: i64) -> Result<Vec<Coord>> {
        crate::eval::Evaluator::for_tile(self)?.eval_flat(flat)
    }
}

/// The bound [`TileLayout::new`] puts on the number of shard and replica iters ([`MAX_ITERS`] each), for code
/// that builds a shard before the layout around it.
pub(crate) fn check_iter_counts(shard: usize, replica: usize) -> Result<()> {
    if shard > MAX_ITERS || replica > MAX_ITERS {
        return Err(LayoutError::new(format!(
            "a layout may have at most {MAX_ITERS} shard and {MAX_ITERS} replica iters, got {shard} and {replica}"
        )));
    }
    Ok(())
}

/// Row-major flat index of `x` in `shape`, checking bounds.
pub fn flatten(shape: &[i64], x: &[i64]) -> Result<i64> {
    if shape.len() != x.len() {
        return Err(LayoutError::new(format!(
            "coordinate has {} components but the shape has {} dimensions",
            x.len(),
            shape.len()
        )));
    }
    let mut flat = 0i64;
    for (d, (&e, &c)) in shape.iter().zip(x).enumerate() {
        if c < 0 || c >= e {
            return Err(LayoutError::new(format!("coordinate {c} is out of range 0..{e} in dimension {d}")));
        }
        flat = add(mul(flat, e, "a flat index")?, c, "a flat index")?;
    }
    Ok(flat)
}

/// The row-major coordinate of flat index `flat` in `shape` (a dimension below 1 holds only 0).
pub fn unflatten(shape: &[i64], mut flat: i64) -> Vec<i64> {
    let mut x = vec![0; shape.len()];
    for (d, &e) in shape.iter().enumerate().rev().filter(|(_, e)| **e >= 1) {
        x[d] = flat % e;
        flat /= e;
    }
    x
}
