//! Bounded enumeration of replica point sets.
//!
//! A replica R is a multiset of iters, each on one axis, so its point set is the Cartesian product of one set per
//! axis: on axis `a`, the sums `sum_j d_j * s_j` (`0 <= d_j < e_j`) over the iters on `a`. Operations that need
//! R's points ([`crate::Evaluator`], equivalence, tile-of) enumerate these per-axis sets here, never the product of
//! all replica extents: a stride-0 iter adds nothing however long it is, and overlapping iters (`R[(4,4):(1,1)]`)
//! give fewer points than combinations.
//!
//! Every enumeration is bounded before it allocates: at most [`MAX_POINTS`] distinct points are kept and at most
//! [`MAX_STEPS`] elementary steps are taken per iter; beyond either the caller gets a [`LayoutError`] with the
//! numbers.

use crate::arith::{add, mul};
use crate::axis::Axis;
use crate::error::{LayoutError, Result};
use crate::iter::Iter;

/// The most distinct points one per-axis enumeration keeps (an evaluator bounds their product separately,
/// [`crate::eval::MAX_REPLICA_OFFSETS`]).
pub const MAX_POINTS: i64 = 1 << 20;

/// The most elementary steps (copied points, or cells of a range) one iter of an enumeration may take.
pub const MAX_STEPS: i64 = 1 << 22;

/// The distinct points of `offset + R` on `axis`, sorted: `offset + sum_j d_j * s_j` over every digit choice
/// `0 <= d_j < e_j` of the iters of `replica` on `axis` (iters on other axes are ignored).
///
/// Iters are added by increasing `|stride|`, each either by copying the points found so far `e` times or, when
/// that would take more than [`MAX_STEPS`] steps, by sliding a window over the range the points span. Fails when
/// neither fits in [`MAX_STEPS`] or when more than [`MAX_POINTS`] distinct points appear.
pub fn axis_points(replica: &[Iter], axis: Axis, offset: i64) -> Result<Vec<i64>> {
    let on_axis: Vec<&Iter> = replica.iter().filter(|i| i.axis == axis && i.extent > 1 && i.stride != 0).collect();
    for it in &on_axis {
        Iter::new(it.extent, it.stride, it.axis)?; // iters built by hand are checked here too
    }
    // A negative stride walks down from 0: the same set as |stride|, shifted by -(e-1)*|stride|.
    let low = on_axis
        .iter()
        .try_fold(offset, |acc, i| add(acc, mul(i.extent - 1, i.stride.min(0), "a reach")?, "a low point"))?;
    let mut iters: Vec<(i64, i64)> = on_axis.iter().map(|i| (i.stride.unsigned_abs() as i64, i.extent)).collect();
    iters.sort_unstable();
    let mut points = vec![0i64];
    let mut width = 0i64;
    for (stride, extent) in iters {
        width = add(width, mul(extent - 1, stride, "a replica reach")?, "the replica width")?;
        let copies = (points.len() as i64).saturating_mul(extent);
        points = if copies <= MAX_STEPS {
            spread_by_copies(&points, stride, extent)
        } else if width < MAX_STEPS {
            spread_over_range(&points, stride, extent, width)
        } else {
            return Err(LayoutError::new(format!(
                "enumerating the replica points on {axis} needs more than {MAX_STEPS} steps: {} points times extent \
                 {extent}, over a range of {}",
                points.len(),
                width.saturating_add(1)
            )));
        };
        if points.len() as i64 > MAX_POINTS {
            return Err(LayoutError::new(format!(
                "the replica has at least {} distinct points on {axis}, more than the {MAX_POINTS} enumerated",
                points.len()
            )));
        }
    }
    points.iter().map(|p| add(*p, low, "a replica point")).collect()
}

/// `points + {0, s, .., (e-1)s}` by copying: sorted and deduplicated.
fn spread_by_copies(points: &[i64], stride: i64, extent: i64) -> Vec<i64> {
    let mut out: Vec<i64> = (0..extent).flat_map(|d| points.iter().map(move |p| p + d * stride)).collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// `points + {0, s, .., (e-1)s}` over the range `0..=width`: a cell is in the sum when one of the `e` cells at
/// multiples of `s` below it (itself included) holds a point. One pass, remembering per residue class mod `s` the
/// last point seen.
fn spread_over_range(points: &[i64], stride: i64, extent: i64, width: i64) -> Vec<i64> {
    let mut present = vec![false; width as usize + 1];
    for &p in points {
        present[p as usize] = true;
    }
    let mut last_seen: Vec<Option<i64>> = vec![None; stride.min(width + 1) as usize];
    let mut out = Vec::new();
    for x in 0..=width {
        let class = &mut last_seen[(x % stride) as usize];
        if present[x as usize] {
            *class = Some(x);
        }
        if class.is_some_and(|p| x - p < extent * stride) {
            out.push(x);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(extent: i64, stride: i64) -> Iter {
        Iter::m(extent, stride).unwrap()
    }

    #[test]
    fn sums_per_axis_with_offset_and_negative_strides() {
        let laneid = Axis::named("laneid").unwrap();
        let r = [m(2, 4), Iter::new(3, 1, laneid).unwrap(), m(3, -1), m(5, 0)];
        assert_eq!(axis_points(&r, Axis::M, 10).unwrap(), vec![8, 9, 10, 12, 13, 14]);
        assert_eq!(axis_points(&r, laneid, 0).unwrap(), vec![0, 1, 2]);
        assert_eq!(axis_points(&r, Axis::named("warpid").unwrap(), -3).unwrap(), vec![-3]);
    }

    /// Copying and sliding a window give the same sets.
    #[test]
    fn both_spreads_agree() {
        for (points, stride, extent) in [(vec![0, 1, 5], 2, 3), (vec![0, 3], 3, 4), (vec![0, 2, 7, 9], 5, 2)] {
            let width = points.last().unwrap() + (extent - 1) * stride;
            assert_eq!(
                spread_by_copies(&points, stride, extent),
                spread_over_range(&points, stride, extent, width),
                "{points:?} + {extent}:{stride}"
            );
        }
    }

    #[test]
    fn overlapping_iters_count_distinct_points() {
        assert_eq!(axis_points(&[m(1 << 12, 1), m(1 << 12, 1)], Axis::M, 0).unwrap().len(), (1 << 13) - 1);
        let err = axis_points(&[m(1 << 20, 1), m(1 << 20, 1)], Axis::M, 0).unwrap_err().message;
        assert!(err.contains("at least 2097151 distinct points on m"), "{err}");
    }
}
