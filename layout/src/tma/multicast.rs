//! Cluster multicast TMA loads (PTX ISA, `cp.async.bulk.tensor`, `.multicast::cluster`): a load whose shared
//! destination carries a replica (or an offset) over the cluster's CTA axes `cbx`, `cby`, `cbz` puts the same tile
//! into the shared memory of several CTAs of the cluster.
//!
//! The ISA: "the optional modifier `.multicast::cluster` allows copying of data from global memory to shared memory
//! of multiple CTAs in the cluster. Operand `ctaMask` specifies the destination CTAs in the cluster such that each
//! bit position in the 16-bit `ctaMask` operand corresponds to the `%cluster_ctarank` of the destination CTA. The
//! source data is multicast to the same CTA-relative offset as `dstMem` in the shared memory of each destination
//! CTA. The mbarrier signal is also multicast to the same CTA-relative offset as `mbar`." `%cluster_ctarank` is the
//! CTA's linear rank in the cluster, `x + y * nx + z * nx * ny` for `%cluster_ctaid = (x, y, z)` and
//! `%cluster_nctaid = (nx, ny, nz)`.
//!
//! [`plan_multicast`] reads the CTA set off the shared layout (every point of its replica and offset on the CTA
//! axes; the shard must be on `m` alone, else the CTAs would hold different data), plans the copy of one CTA's tile
//! with [`super::plan_offsets`] (the layout without its CTA replica), and says who issues what:
//! - [`MulticastForm::Split`] (as CUTLASS does): the boxes are divided evenly among the receiving CTAs, each issuing
//!   its share with the whole mask, so the global reads are spread over the cluster. When the issue count is not a
//!   multiple of the CTA count, the slowest box dimension with a box extent above 1 is cut into as many parts
//!   (each part a contiguous slice of the dense box, so its shared offset is `part * box_bytes / k`), provided the
//!   parts stay legal (a swizzled innermost row stays the span, a part of the innermost dimension stays a multiple
//!   of 16 bytes, every destination 128-byte aligned).
//! - [`MulticastForm::Single`]: otherwise one CTA, the lowest rank of the set, issues every box with the mask.
//!
//! Either way every receiving CTA gets every box: each CTA's mbarrier expects [`super::TmaPlan::total_bytes`].
//! Refusals (`multicast` rule): a store (multicast exists for loads only), a shard over a CTA axis, a CTA outside
//! the cluster, a cluster of more than 16 CTAs (`ctaMask` has 16 bits).

use super::{plan_offsets, validate, DynamicOffset, TmaError, TmaIssue, TmaPlan, TmaRequest, TmaRule};
use crate::axis::{Axis, AxisKind, ExecScope};
use crate::layout::{ComposeLayout, Layout};
use crate::swizzle::SwizzleMode;
use crate::tile_layout::TileLayout;
use std::collections::{BTreeMap, BTreeSet};

/// The most CTAs a multicast reaches: `ctaMask` is 16 bits (and 16 is the largest, non-portable, cluster size).
pub const MAX_CLUSTER_CTAS: i64 = 16;

/// A thread-block cluster's shape: CTAs along x, y and z (`%cluster_nctaid`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cluster {
    /// `(nx, ny, nz)`, each at least 1.
    pub dims: [i64; 3],
}

impl Cluster {
    /// `%cluster_ctarank` of the CTA at `(x, y, z)`: `x + y * nx + z * nx * ny`.
    pub fn rank(&self, at: [i64; 3]) -> i64 {
        at[0] + at[1] * self.dims[0] + at[2] * self.dims[0] * self.dims[1]
    }
}

/// Who issues the boxes of a multicast load.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MulticastForm {
    /// One CTA (the lowest rank of the set) issues every box with the whole mask.
    Single,
    /// The boxes are divided evenly among the receiving CTAs; each issues its share with the whole mask.
    Split,
}

impl MulticastForm {
    /// `single` or `split`.
    pub fn name(self) -> &'static str {
        match self {
            MulticastForm::Single => "single",
            MulticastForm::Split => "split",
        }
    }
}

/// A multicast load: the plan of one CTA's tile (shared offsets CTA-relative, the same in every CTA), the mask and
/// who issues each box.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MulticastPlan {
    /// Descriptor and issues; every issue goes to every CTA of the mask, and each CTA's mbarrier expects
    /// `plan.total_bytes()`.
    pub plan: TmaPlan,
    /// `ctaMask`: bit `r` set for every receiving CTA of rank `r`.
    pub cta_mask: u16,
    /// The receiving CTAs' ranks, increasing.
    pub ctas: Vec<u32>,
    /// Per issue of `plan.issues`: the `%cluster_ctarank` of the CTA that issues it.
    pub issuer: Vec<u32>,
    /// Which way the boxes were given out.
    pub form: MulticastForm,
}

fn refuse(message: impl Into<String>) -> TmaError {
    TmaError::rule(TmaRule::Multicast, message)
}

/// True for the axes that index CTAs within a cluster (`cbx`, `cby`, `cbz`).
fn is_cluster_cta(a: Axis) -> bool {
    matches!(a.kind(), AxisKind::Thread { unit: ExecScope::Cta, within: ExecScope::Cluster })
}

/// Which of x, y, z a cluster CTA axis indexes (`cbx`, `cby`, `cbz`), or `None` for a declared axis of the same kind
/// whose direction is unknown.
fn direction(a: Axis) -> Option<usize> {
    match a.name() {
        "cbx" => Some(0),
        "cby" => Some(1),
        "cbz" => Some(2),
        _ => None,
    }
}

/// Plans a multicast load (see the module documentation). `dynamic` and `shared` are the run-time offsets of
/// [`plan_offsets`]. A shared layout with no CTA axis is refused: it is [`super::plan`]'s copy.
pub fn plan_multicast(
    req: &TmaRequest<'_>,
    dynamic: &[DynamicOffset],
    shared: &[DynamicOffset],
    cluster: Cluster,
) -> Result<MulticastPlan, TmaError> {
    if let Some(d) = cluster.dims.iter().find(|&&d| d < 1) {
        return Err(refuse(format!("a cluster dimension is {d}; every one must be at least 1")));
    }
    let size = cluster.dims.iter().try_fold(1i64, |acc, &d| acc.checked_mul(d)).unwrap_or(i64::MAX);
    if size > MAX_CLUSTER_CTAS {
        return Err(refuse(format!(
            "the cluster {:?} has {size} CTAs; ctaMask has 16 bits, so at most {MAX_CLUSTER_CTAS} CTAs",
            cluster.dims
        )));
    }
    if req.direction == super::Direction::S2G {
        return Err(refuse(
            "the shared tile is replicated over the cluster's CTAs, but .multicast::cluster exists only for loads \
             (global to shared); a store reads one CTA's shared memory",
        ));
    }
    let tile = req.shared.tile();
    if let Some(it) = tile.shard().iter().find(|i| is_cluster_cta(i.axis) && i.extent > 1) {
        return Err(refuse(format!(
            "the shared layout's shard has the iter {}:{}@{}: the CTAs would hold different elements; multicast puts \
             the same tile in every CTA of the mask (a replica over the CTA axes)",
            it.extent, it.stride, it.axis
        )));
    }
    // The CTA points: every combination of the replica iters on CTA axes, plus the offsets on them.
    let mut points: Vec<[i64; 3]> = vec![[0; 3]];
    for (axis, &v) in tile.offset().iter().filter(|(a, _)| is_cluster_cta(**a)) {
        let d = direction(*axis).ok_or_else(|| refuse(format!("axis '{axis}' is not one of cbx, cby, cbz")))?;
        points[0][d] += v;
    }
    for it in tile.replica().iter().filter(|i| is_cluster_cta(i.axis)) {
        let d = direction(it.axis).ok_or_else(|| refuse(format!("axis '{}' is not one of cbx, cby, cbz", it.axis)))?;
        points = points
            .iter()
            .flat_map(|p| {
                (0..it.extent).map(move |k| {
                    let mut q = *p;
                    q[d] += k * it.stride;
                    q
                })
            })
            .collect();
    }
    let mut ctas = BTreeSet::new();
    for p in &points {
        if (0..3).any(|d| p[d] < 0 || p[d] >= cluster.dims[d]) {
            return Err(refuse(format!(
                "the shared layout places the tile in the CTA at (cbx, cby, cbz) = ({}, {}, {}), outside the cluster \
                 {:?}",
                p[0], p[1], p[2], cluster.dims
            )));
        }
        ctas.insert(cluster.rank(*p) as u32);
    }
    let has_cta_axis = tile.replica().iter().chain(tile.shard()).any(|i| is_cluster_cta(i.axis))
        || tile.offset().keys().any(|a| is_cluster_cta(*a));
    if !has_cta_axis {
        return Err(refuse("the shared layout names no cluster CTA axis (cbx, cby, cbz): it is a plain TMA load"));
    }
    let ctas: Vec<u32> = ctas.into_iter().collect();
    let cta_mask = ctas.iter().fold(0u16, |m, &r| m | (1u16 << r));

    // One CTA's tile: the layout without its CTA replica and offset.
    let local = strip_cta_axes(req.shared).map_err(|e| refuse(e.to_string()))?;
    let local_req = TmaRequest { shared: &local, ..req.clone() };
    let plan = plan_offsets(&local_req, dynamic, shared)?;
    let k = ctas.len();
    let n = plan.issues.len();
    if k > 1 && n % k == 0 {
        let share = n / k;
        let issuer = (0..n).map(|i| ctas[i / share]).collect();
        return Ok(MulticastPlan { plan, cta_mask, ctas, issuer, form: MulticastForm::Split });
    }
    if k > 1 {
        if let Some(split) = split_boxes(&plan, k as i64) {
            let issuer = (0..split.issues.len()).map(|i| ctas[i % k]).collect();
            return Ok(MulticastPlan { plan: split, cta_mask, ctas, issuer, form: MulticastForm::Split });
        }
    }
    let issuer = vec![ctas[0]; n];
    Ok(MulticastPlan { plan, cta_mask, ctas, issuer, form: MulticastForm::Single })
}

/// The layout with the replica iters and offsets on the cluster's CTA axes removed (the swizzle kept).
fn strip_cta_axes(layout: &Layout) -> Result<Layout, crate::LayoutError> {
    let tile = layout.tile();
    let replica = tile.replica().iter().filter(|i| !is_cluster_cta(i.axis)).copied().collect();
    let offset: BTreeMap<Axis, i64> =
        tile.offset().iter().filter(|(a, _)| !is_cluster_cta(**a)).map(|(a, v)| (*a, *v)).collect();
    let local = TileLayout::new(tile.shard().to_vec(), replica, offset)?;
    Ok(match layout {
        Layout::Tile(_) => Layout::Tile(local),
        Layout::Compose(c) => Layout::Compose(ComposeLayout::new(c.swizzle(), local)?),
    })
}

/// Every box cut into `k` parts along its slowest dimension with a box extent above 1: part `j` of an issue starts
/// `j * box/k` further along that dimension and `j * box_bytes/k` bytes further in shared memory (the dense box
/// holds its slowest dimension outermost). `None` when the cut would break a rule: the extent not a multiple of
/// `k`, a swizzled innermost row cut below the span, an unswizzled innermost part not a multiple of 16 bytes, a
/// part's destination off the 128-byte alignment, or the descriptor no longer valid.
fn split_boxes(plan: &TmaPlan, k: i64) -> Option<TmaPlan> {
    let desc = &plan.desc;
    let t = desc.box_dims.iter().rposition(|&b| b > 1)?;
    let b = i64::from(desc.box_dims[t]);
    if b % k != 0 {
        return None;
    }
    let part = b / k;
    let esize = desc.data_type.bytes();
    if t == 0 && (desc.swizzle != SwizzleMode::None || (part * esize) % 16 != 0) {
        return None;
    }
    let part_bytes = plan.box_bytes as i64 / k;
    if part_bytes % super::planner::SMEM_ALIGN_BYTES != 0 {
        return None;
    }
    let mut split = plan.clone();
    split.desc.box_dims[t] = u32::try_from(part).ok()?;
    validate(&split.desc, plan.global_offset_bytes).ok()?;
    split.box_bytes = split.desc.box_bytes();
    split.issues = plan
        .issues
        .iter()
        .flat_map(|issue| {
            (0..k).map(move |j| {
                let mut coordinates = issue.coordinates.clone();
                coordinates[t] += j * part;
                TmaIssue { coordinates, smem_offset_bytes: issue.smem_offset_bytes + j * part_bytes }
            })
        })
        .collect();
    if split.issues.iter().any(|i| i.coordinates.iter().any(|&c| i32::try_from(c).is_err())) {
        return None;
    }
    Some(split)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_rank_is_x_fastest() {
        let c = Cluster { dims: [4, 2, 2] };
        assert_eq!(c.rank([0, 0, 0]), 0);
        assert_eq!(c.rank([3, 0, 0]), 3);
        assert_eq!(c.rank([1, 1, 0]), 5);
        assert_eq!(c.rank([2, 1, 1]), 2 + 4 + 8);
    }

    #[test]
    fn only_the_cluster_cta_axes_count() {
        assert!(is_cluster_cta(Axis::named("cbx").unwrap()));
        assert!(is_cluster_cta(Axis::named("cbz").unwrap()));
        assert!(!is_cluster_cta(Axis::named("bx").unwrap()));
        assert!(!is_cluster_cta(Axis::named("warpid").unwrap()));
        assert!(!is_cluster_cta(Axis::M));
    }
}
