//! The forward map, prepared once and evaluated many times (paper Definition 2.3, "induced map").
//!
//! `L(x) = { D(x) + O + r | r in R }`, then the swizzle on `m` for a ComposeLayout. [`Evaluator`] fixes the axis
//! order, the per-iter axis slots and the deduplicated replica offsets up front, so evaluating one index costs a
//! digit split and one vector add per replica point, with no maps or sorting on the way.
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
}

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
        Ok(Evaluator { axes, digits, offset, replicas, swizzle, size: tile.size() })
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
        if flat < 0 || flat >= self.size {
            return Err(LayoutError::new(format!("index {flat} is outside the layout's size {}", self.size)));
        }
        let mut base = self.offset.clone();
        let mut rest = flat;
        for &(extent, stride, k) in &self.digits {
            base[k] += (rest % extent) * stride;
            rest /= extent;
        }
        let mut points: Vec<Vec<i64>> =
            self.replicas.iter().map(|r| r.iter().zip(&base).map(|(a, b)| a + b).collect()).collect();
        if let Some((swizzle, m)) = self.swizzle {
            for p in &mut points {
                p[m] = swizzle.apply(p[m]);
            }
            points.sort();
            points.dedup();
        }
        Ok(points)
    }

    /// L(flat) as coordinates, each listing every axis of the layout (zero where nothing moves it).
    pub fn eval_flat(&self, flat: i64) -> Result<Vec<Coord>> {
        Ok(self.values(flat)?.into_iter().map(|p| self.axes.iter().copied().zip(p).collect()).collect())
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
