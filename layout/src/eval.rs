//! The forward map, prepared once and evaluated many times (paper Definition 2.3, "induced map").
//!
//! `L(x) = { D(x) + O + r | r in R }`, then the swizzle on `m` for a ComposeLayout. [`Evaluator`] fixes the axis
//! order, the per-iter axis slots and the deduplicated replica offsets up front, so evaluating one index costs a
//! digit split (a mask and a shift for a power-of-two extent, which every hardware layout has) and one vector add
//! per replica point, with no maps or sorting on the way. The point `D(x) + O` is a sum of per-iter
//! contributions `digit * stride` on the iter's axis slot; digits above the highest non-zero one add nothing and
//! are skipped. Without a swizzle the points come out sorted and distinct (the replica offsets are), so only a
//! swizzle, which may reorder or merge points, sorts them.
//!
//! Preparing is total on every checked layout: the replica offsets are enumerated axis by axis
//! ([`crate::points`]), so a long stride-0 iter costs nothing, and a replica with more than
//! [`MAX_REPLICA_OFFSETS`] distinct offsets is refused with an error before their product is built.

use crate::axis::Axis;
use crate::error::{LayoutError, Result};
use crate::iter::Iter;
use crate::layout::Layout;
use crate::points::axis_points;
use crate::swizzle::Swizzle;
use crate::tile_layout::{Coord, TileLayout};

/// The most distinct replica offsets an [`Evaluator`] prepares, so one index maps to at most this many points
/// (a broadcast over every thread of 64 CTAs of 1024 threads fits).
pub const MAX_REPLICA_OFFSETS: i64 = 1 << 16;

/// A layout's forward map, ready to evaluate.
#[derive(Clone, Debug)]
pub struct Evaluator {
    /// Every axis the layout uses, sorted by name: the order of the values in each point.
    axes: Vec<Axis>,
    /// Per shard iter, innermost first: (extent, stride, slot in `axes`).
    digits: Vec<(i64, i64, usize)>,
    /// O as a vector over `axes`.
    offset: Vec<i64>,
    /// The distinct replica offsets r in R, sorted, as vectors over `axes`.
    replicas: Vec<Vec<i64>>,
    /// The swizzle and the slot of `m`, for a ComposeLayout that has an `m` axis.
    swizzle: Option<(Swizzle, usize)>,
    size: i64,
    /// A coordinate over `axes`, every value 0: cloned and filled for each point [`Evaluator::eval_flat`] returns
    /// (cheaper than building a map from pairs).
    zero: Coord,
}

/// The axes an evaluator keeps the base point of on the stack; a layout on more axes uses the heap.
const INLINE_AXES: usize = 8;

impl Evaluator {
    /// Prepares the forward map of `layout`, or refuses a replica with more than [`MAX_REPLICA_OFFSETS`] distinct
    /// offsets (the count and the limit in the message); their product is built only after that check.
    pub fn new(layout: &Layout) -> Result<Evaluator> {
        Evaluator::prepare(layout.tile(), layout.swizzle())
    }

    /// Prepares the forward map of a plain tile layout (see [`Evaluator::new`]).
    pub fn for_tile(tile: &TileLayout) -> Result<Evaluator> {
        Evaluator::prepare(tile, None)
    }

    fn prepare(tile: &TileLayout, swizzle: Option<Swizzle>) -> Result<Evaluator> {
        let axes = tile.axes();
        let slot = |a: Axis| axes.binary_search(&a).unwrap_or_default();
        let digits = tile.shard().iter().rev().map(|it| (it.extent, it.stride, slot(it.axis))).collect();
        let mut offset = vec![0; axes.len()];
        for (a, v) in tile.offset() {
            offset[slot(*a)] += v;
        }
        let replicas = replica_offsets(tile.replica(), &axes)?;
        // Without an `m` axis every address is 0, which every swizzle fixes.
        let swizzle = swizzle.and_then(|s| Some((s, axes.binary_search(&Axis::M).ok()?)));
        let zero = axes.iter().map(|&a| (a, 0)).collect();
        Ok(Evaluator { axes, digits, offset, replicas, swizzle, size: tile.size(), zero })
    }

    /// The axes of every point, in the order of [`Evaluator::values`].
    pub fn axes(&self) -> &[Axis] {
        &self.axes
    }

    /// The number of distinct replica offsets: how many points one index maps to, at most (a swizzle may merge
    /// some), so a caller can bound its output before evaluating.
    pub fn replica_len(&self) -> usize {
        self.replicas.len()
    }

    /// L(flat) as value vectors over [`Evaluator::axes`]: sorted, duplicates collapsed.
    pub fn values(&self, flat: i64) -> Result<Vec<Vec<i64>>> {
        self.with_base(flat, |base| {
            let point = |r: &Vec<i64>| r.iter().zip(base).enumerate().map(|(k, (r, b))| self.value(k, r + b)).collect();
            self.sorted(self.replicas.iter().map(point).collect())
        })
    }

    /// L(flat) as coordinates, each listing every axis of the layout (zero where nothing moves it).
    pub fn eval_flat(&self, flat: i64) -> Result<Vec<Coord>> {
        self.with_base(flat, |base| {
            let point = |r: &Vec<i64>| {
                let mut point = self.zero.clone();
                for (k, (v, (r, b))) in point.values_mut().zip(r.iter().zip(base)).enumerate() {
                    *v = self.value(k, r + b);
                }
                point
            };
            self.sorted(self.replicas.iter().map(point).collect())
        })
    }

    /// L(flat) written into `out` (its contents replaced) as consecutive value vectors over [`Evaluator::axes`],
    /// sorted, duplicates collapsed; returns how many points there are. Once `out` has room this allocates
    /// nothing (except to sort the points of a swizzled layout with replicas): the form for evaluating many
    /// indices in a hot loop.
    pub fn values_into(&self, flat: i64, out: &mut Vec<i64>) -> Result<usize> {
        self.with_base(flat, |base| {
            out.clear();
            for r in &self.replicas {
                out.extend(r.iter().zip(base).enumerate().map(|(k, (r, b))| self.value(k, r + b)));
            }
            match self.swizzle {
                // A swizzle keeps `m` among the axes, so the rows are not empty.
                Some(_) if self.replicas.len() > 1 => {
                    let rows = self.sorted(out.chunks(self.axes.len().max(1)).map(<[i64]>::to_vec).collect());
                    *out = rows.concat();
                    rows.len()
                }
                _ => self.replicas.len(),
            }
        })
    }

    /// The value of a point on the axis in slot `k`: swizzled on `m` for a ComposeLayout.
    fn value(&self, k: usize, v: i64) -> i64 {
        match self.swizzle {
            Some((swizzle, m)) if m == k => swizzle.apply(v),
            _ => v,
        }
    }

    /// The points of one index, sorted and distinct: they already are without a swizzle (the replica offsets
    /// are); a swizzle may reorder them and merge some.
    fn sorted<P: Ord>(&self, mut points: Vec<P>) -> Vec<P> {
        if self.swizzle.is_some() && points.len() > 1 {
            points.sort();
            points.dedup();
        }
        points
    }

    /// Runs `then` on `D(flat) + O` as values over [`Evaluator::axes`], after checking `flat` is in range.
    fn with_base<T>(&self, flat: i64, then: impl FnOnce(&[i64]) -> T) -> Result<T> {
        if flat < 0 || flat >= self.size {
            return Err(LayoutError::new(format!("index {flat} is outside the layout's size {}", self.size)));
        }
        let n = self.axes.len();
        let (mut inline, mut heap) = ([0i64; INLINE_AXES], Vec::new());
        let base: &mut [i64] = if n <= INLINE_AXES {
            &mut inline[..n]
        } else {
            heap.resize(n, 0);
            &mut heap
        };
        base.copy_from_slice(&self.offset);
        let mut rest = flat;
        for &(extent, stride, k) in &self.digits {
            if rest == 0 {
                break;
            }
            let (digit, next) = if extent & (extent - 1) == 0 {
                (rest & (extent - 1), rest >> extent.trailing_zeros())
            } else {
                (rest % extent, rest / extent)
            };
            base[k] += digit * stride;
            rest = next;
        }
        Ok(then(base))
    }
}

/// The distinct replica offsets r in R as vectors over `axes`, sorted: the product of the per-axis point sets
/// ([`axis_points`]), built only once their sizes multiply to at most [`MAX_REPLICA_OFFSETS`].
fn replica_offsets(replica: &[Iter], axes: &[Axis]) -> Result<Vec<Vec<i64>>> {
    let mut per_axis = Vec::new();
    let moving = |axis: Axis| replica.iter().any(|i| i.axis == axis && i.extent > 1 && i.stride != 0);
    for (k, &axis) in axes.iter().enumerate().filter(|(_, a)| moving(**a)) {
        let points = axis_points(replica, axis, 0)?;
        if points.len() > 1 {
            per_axis.push((k, points));
        }
    }
    let count = per_axis.iter().try_fold(1i64, |acc, (_, p)| acc.checked_mul(p.len() as i64));
    if count.is_none_or(|c| c > MAX_REPLICA_OFFSETS) {
        let sizes: Vec<String> = per_axis.iter().map(|(k, p)| format!("{} on {}", p.len(), axes[*k])).collect();
        return Err(LayoutError::new(format!(
            "the replica has {} distinct offsets ({}), more than the {MAX_REPLICA_OFFSETS} an evaluator prepares",
            count.map_or("over 2^63".to_owned(), |c| c.to_string()),
            sizes.join(", ")
        )));
    }
    let mut offsets = vec![vec![0; axes.len()]];
    for (k, points) in per_axis {
        offsets = offsets
            .iter()
            .flat_map(|r| {
                points.iter().map(move |&v| {
                    let mut q = r.clone();
                    q[k] = v;
                    q
                })
            })
            .collect();
    }
    Ok(offsets)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn evaluator(text: &str) -> Evaluator {
        crate::notation::parse_layout(text).unwrap().evaluator().unwrap()
    }

    /// `Swizzle(0,1,1)` XORs address bit 1 into bit 0, so the replica points `m = 2, 3` of index 1 swap to
    /// `3, 2` and come back sorted; every form agrees.
    #[test]
    fn swizzled_replica_points_are_sorted_in_every_form() {
        let e = evaluator("Swizzle(0,1,1) o S[2:2] + R[2:1]");
        assert_eq!(e.values(1).unwrap(), vec![vec![2], vec![3]]);
        let mut flat = vec![7; 5];
        assert_eq!(e.values_into(1, &mut flat).unwrap(), 2);
        assert_eq!(flat, vec![2, 3]);
        let m = |v: i64| Coord::from([(Axis::M, v)]);
        assert_eq!(e.eval_flat(1).unwrap(), vec![m(2), m(3)]);
        assert_eq!(e.eval_flat(0).unwrap(), vec![m(0), m(1)]);
    }

    /// `S[(3,4):(1@laneid,1)] + R[2:8@laneid] + 5@warpid` at index 7 = digits (1, 3): the base point is
    /// `laneid 1, m 3, warpid 5`, the replica adds 0 or 8 on `laneid`; a non-power-of-two extent splits by
    /// division.
    #[test]
    fn values_into_lists_points_over_the_sorted_axes() {
        let e = evaluator("S[(3,4):(1@laneid,1)] + R[2:8@laneid] + 5@warpid");
        assert_eq!(e.axes().iter().map(|a| a.name()).collect::<Vec<_>>(), ["laneid", "m", "warpid"]);
        let mut flat = Vec::new();
        assert_eq!(e.values_into(7, &mut flat).unwrap(), 2);
        assert_eq!(flat, vec![1, 3, 5, 9, 3, 5]);
        assert!(e.values_into(12, &mut flat).unwrap_err().message.contains("outside the layout's size 12"));
    }
}
