//! The forward map, prepared once and evaluated many times (paper Definition 2.3, "induced map").
//!
//! `L(x) = { D(x) + O + r | r in R }`, then the swizzle on `m` for a ComposeLayout. [`Evaluator`] fixes the axis
//! order, the per-iter axis slots and the deduplicated replica offsets up front, so evaluating one index costs a
//! digit split and one vector add per replica point, with no maps or sorting on the way.

use crate::axis::Axis;
use crate::error::{LayoutError, Result};
use crate::layout::Layout;
use crate::swizzle::Swizzle;
use crate::tile_layout::{Coord, TileLayout};

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
    /// The swizzle and the slot of `m`, for a ComposeLayout.
    swizzle: Option<(Swizzle, usize)>,
    size: i64,
}

impl Evaluator {
    /// Prepares the forward map of `layout`.
    pub fn new(layout: &Layout) -> Evaluator {
        Evaluator::prepare(layout.tile(), layout.swizzle())
    }

    /// Prepares the forward map of a plain tile layout.
    pub fn for_tile(tile: &TileLayout) -> Evaluator {
        Evaluator::prepare(tile, None)
    }

    fn prepare(tile: &TileLayout, swizzle: Option<Swizzle>) -> Evaluator {
        let axes = tile.axes();
        let slot = |a: Axis| axes.binary_search(&a).unwrap_or_default();
        let digits = tile.shard().iter().rev().map(|it| (it.extent, it.stride, slot(it.axis))).collect();
        let mut offset = vec![0; axes.len()];
        for (a, v) in tile.offset() {
            offset[slot(*a)] += v;
        }
        let mut replicas = vec![vec![0; axes.len()]];
        for it in tile.replica() {
            let k = slot(it.axis);
            replicas = replicas
                .iter()
                .flat_map(|r| {
                    (0..it.extent).map(move |d| {
                        let mut q = r.clone();
                        q[k] += d * it.stride;
                        q
                    })
                })
                .collect();
            replicas.sort();
            replicas.dedup();
        }
        let swizzle = swizzle.map(|s| (s, slot(Axis::M)));
        Evaluator { axes, digits, offset, replicas, swizzle, size: tile.size() }
    }

    /// The axes of every point, in the order of [`Evaluator::values`].
    pub fn axes(&self) -> &[Axis] {
        &self.axes
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
