//! Step 8, the descriptor of one boxed prefix: which joint iters the box takes, the descriptor dimensions in box
//! chain order, contiguous dimensions merged (a merged run wider than a box row re-viewed as rows), every
//! `cuTensorMapEncodeTiled` field and the rules the box must meet; the issues come from `issues.rs`.

use super::super::{validate, Interleave, TmaRequest};
use super::MAX_ISSUES;
use super::{issues, rule, stage, Candidate, Dim, Joint, Problem, TensorMapDesc, TmaError, TmaRule, TmaStage};
use crate::swizzle::SwizzleMode;

/// One descriptor dimension after ordering (and merging).
#[derive(Clone, Debug)]
pub(super) struct DescDim {
    pub(super) global_dim: i64,
    pub(super) stride: i64,
    pub(super) start: i64,
    pub(super) boxed: i64,
    /// The candidate dimensions it covers, innermost first.
    pub(super) members: Vec<usize>,
}

/// Which joint iters a boxed prefix takes.
struct BoxShape {
    /// The candidate dimensions the box chain visits, innermost first.
    runs: Vec<usize>,
    /// Each candidate dimension's box extent (1 where the box does not move along it).
    box_of: Vec<i64>,
    /// Whether each joint iter is in the box (the others are the issue loop).
    is_boxed: Vec<bool>,
}

/// The descriptor dimensions after ordering and merging, before a re-view into rows.
pub(super) struct Merged {
    pub(super) ddims: Vec<DescDim>,
    /// Coordinate scale of each candidate dimension inside its (possibly merged) descriptor dimension.
    pub(super) scale: Vec<i64>,
}

impl Merged {
    /// The descriptor dimension that candidate dimension `t` belongs to.
    pub(super) fn owner(&self, t: usize) -> usize {
        self.ddims.iter().position(|d| d.members.contains(&t)).unwrap_or(0)
    }
}

/// Merges descriptor dimension `b` into `a` (`a` copied in full from 0, `b`'s stride `a`'s extent): one dimension of
/// `a.global_dim * b.global_dim` elements whose coordinate is `a`'s plus `b`'s times `a.global_dim`.
fn merge_into(a: &mut DescDim, b: DescDim, scale: &mut [i64]) {
    for &t in &b.members {
        scale[t] *= a.global_dim;
    }
    a.start += b.start * a.global_dim;
    a.boxed *= b.boxed;
    a.global_dim *= b.global_dim;
    a.members.extend(b.members);
}

/// The descriptor and issues for one boxed prefix, or the rule it breaks.
pub(super) fn build(
    prob: &Problem,
    joints: &[Joint],
    boxed: &[usize],
    mode: SwizzleMode,
    req: &TmaRequest<'_>,
    global_offset_bytes: i64,
    region_elems: i64,
) -> Result<Candidate, TmaError> {
    let shape = box_shape(&prob.dims, joints, boxed)?;
    let order = descriptor_order(&prob.dims, &shape.runs)?;
    let pad = padded_run(joints, boxed, shape.box_of[order[0]], mode)?;
    let mut merged = Merged {
        ddims: order
            .iter()
            .map(|&t| DescDim {
                global_dim: prob.dims[t].global_dim,
                stride: prob.dims[t].stride,
                start: prob.dims[t].start,
                boxed: shape.box_of[t],
                members: vec![t],
            })
            .collect(),
        scale: vec![1i64; prob.dims.len()],
    };
    if pad.is_none() {
        merge_narrow(&mut merged, prob, joints, &shape.is_boxed, mode);
    }
    // A merged run wider than one legal box row is re-viewed as rows of `row` elements (step 8's re-view).
    let row = rows_of(&merged.ddims[0], mode, prob.esize);
    merge_to_rank(&mut merged, prob, joints, &shape.is_boxed, mode, usize::from(row.is_some()));
    let viewed = match row {
        Some((r, shift)) => split_row(&merged.ddims, r, shift),
        None => merged.ddims.clone(),
    };
    let desc = descriptor(prob, &viewed, mode, req);
    let shift_bytes = row.map_or(0, |(_, shift)| shift * prob.esize);
    validate(&desc, (global_offset_bytes + shift_bytes) as u64)?;
    check_inner_box(&viewed, mode, prob.esize, pad.is_some())?;
    let loops: Vec<Joint> = joints.iter().zip(&shape.is_boxed).filter(|(_, b)| !**b).map(|(j, _)| *j).collect();
    let count = issue_count(&loops)?;
    let box_elems: i64 = viewed.iter().map(|d| d.boxed).product();
    check_payload(box_elems, count, prob.esize, region_elems * req.dtype.bytes())?;
    let issues = issues::issues(prob, &merged, &loops, count, row)?;
    let dynamic = issues::coordinate_terms(prob, &merged, row)?;
    Ok(Candidate { shift_bytes, box_bytes: box_elems * prob.esize, desc, issues, dynamic })
}

/// The box of a prefix of joint iters: each candidate dimension's boxed iters must be consecutive in the chain and
/// its innermost digits (so the box covers a contiguous coordinate range), and no chunk of a straddling region.
fn box_shape(dims: &[Dim], joints: &[Joint], boxed: &[usize]) -> Result<BoxShape, TmaError> {
    let mut runs: Vec<usize> = Vec::new();
    let mut box_of = vec![1i64; dims.len()];
    let mut is_boxed = vec![false; joints.len()];
    for &i in boxed {
        let j = joints[i];
        if j.wrap.is_some() {
            return Err(stage(
                TmaStage::Box,
                format!(
                    "a box of {} iters would cross the digit boundary the region straddles (global dimension of \
                     stride {}): its chunks are issues",
                    boxed.len(),
                    dims[j.dim].stride
                ),
            ));
        }
        is_boxed[i] = true;
        if runs.last() != Some(&j.dim) {
            if runs.contains(&j.dim) {
                return Err(stage(
                    TmaStage::Box,
                    format!(
                        "a box of {} iters would visit the global dimension of stride {} twice in shared stride order",
                        boxed.len(),
                        dims[j.dim].stride
                    ),
                ));
            }
            runs.push(j.dim);
        }
        if j.step != box_of[j.dim] {
            return Err(stage(
                TmaStage::Box,
                format!(
                    "a box of {} iters would skip coordinates along the global dimension of stride {} (step {} after {} elements)",
                    boxed.len(),
                    dims[j.dim].stride,
                    j.step,
                    box_of[j.dim]
                ),
            ));
        }
        box_of[j.dim] *= j.extent;
    }
    Ok(BoxShape { runs, box_of, is_boxed })
}

/// The descriptor's dimension order: the box chain's dimensions (innermost first), then the coordinate-only ones by
/// stride; the innermost must be contiguous (`inner-stride`).
fn descriptor_order(dims: &[Dim], runs: &[usize]) -> Result<Vec<usize>, TmaError> {
    let mut order = runs.to_vec();
    let mut rest: Vec<usize> = (0..dims.len()).filter(|t| !runs.contains(t)).collect();
    rest.sort_by_key(|&t| (dims[t].stride, t));
    order.extend(rest);
    if dims[order[0]].stride != 1 {
        return Err(rule(
            TmaRule::InnerStride,
            format!(
                "the box's innermost dimension has global stride {} elements; dimension 0 of a tensor map is contiguous",
                dims[order[0]].stride
            ),
        ));
    }
    Ok(order)
}

/// Where the box chain jumps to the swizzle span (a padded row): the elements before it, which must be exactly the
/// innermost dimension's box `inner_box` (the hardware pads rows of dimension 0 only); nothing merges across it.
fn padded_run(joints: &[Joint], boxed: &[usize], inner_box: i64, mode: SwizzleMode) -> Result<Option<i64>, TmaError> {
    let pad = boxed.windows(2).find_map(|w| {
        let (a, b) = (joints[w[0]], joints[w[1]]);
        (a.sstride.checked_mul(a.extent) != Some(b.sstride)).then(|| a.sstride * a.extent)
    });
    if let Some(run) = pad {
        if run != inner_box || mode == SwizzleMode::None {
            return Err(stage(
                TmaStage::Box,
                format!(
                    "the box's shared rows are {run} elements padded to the swizzle span, but its innermost \
                     dimension boxes {inner_box} elements: the hardware pads rows of dimension 0 only"
                ),
            ));
        }
    }
    Ok(pad)
}

/// Whether descriptor dimension `a` is copied in full from 0 with no issue loop or run-time offset on it (what
/// merging it into the next dimension needs).
fn copied_whole(a: &DescDim, prob: &Problem, joints: &[Joint], is_boxed: &[bool]) -> bool {
    let has_issue_iter = joints.iter().zip(is_boxed).any(|(j, b)| !b && a.members.contains(&j.dim));
    a.boxed == a.global_dim
        && a.start == 0
        && !has_issue_iter
        && !prob.terms.iter().any(|term| a.members.contains(&term.dim))
}

/// Contiguous logical dimensions merge before the inner-box rule is checked: while the innermost box row is too
/// narrow (not a multiple of 16 bytes, or narrower than the swizzle span), the innermost dimension, copied in full
/// from 0 with no issue loop or run-time offset on it, merges into the next one when that one's stride is its
/// extent (a row-major u8 32x8 tile: dimensions of 8 and 32 elements become one of 256).
fn merge_narrow(merged: &mut Merged, prob: &Problem, joints: &[Joint], is_boxed: &[bool], mode: SwizzleMode) {
    let narrow = |boxed: i64| match mode {
        SwizzleMode::None => (boxed * prob.esize) % 16 != 0,
        m => boxed * prob.esize < m.bytes(),
    };
    let ddims = &mut merged.ddims;
    while ddims.len() > 1 && narrow(ddims[0].boxed) {
        let (a, b) = (&ddims[0], &ddims[1]);
        let mergeable = a.global_dim.checked_mul(a.stride) == Some(b.stride) && copied_whole(a, prob, joints, is_boxed);
        if !mergeable {
            break;
        }
        let b = ddims.remove(1);
        merge_into(&mut ddims[0], b, &mut merged.scale);
    }
}

/// While more than 5 dimensions remain (counting the `first` extra one a re-view into rows adds), adjacent
/// dimensions from `first` on merge where the box stays legal: one copied in full from 0 into the next, or two
/// coordinate-only ones.
fn merge_to_rank(
    merged: &mut Merged,
    prob: &Problem,
    joints: &[Joint],
    is_boxed: &[bool],
    mode: SwizzleMode,
    first: usize,
) {
    let ddims = &mut merged.ddims;
    while ddims.len() + first > 5 {
        let Some(k) = (first..ddims.len() - 1).find(|&k| {
            let (a, b) = (&ddims[k], &ddims[k + 1]);
            let contiguous = a.global_dim.checked_mul(a.stride) == Some(b.stride);
            let whole = copied_whole(a, prob, joints, is_boxed);
            // Two coordinate-only dimensions (box extent 1 in both) merge whatever their coordinates: the merged
            // coordinate `a + b * a.global_dim` addresses the same element, issue loops and run-time terms included.
            let coordinates = a.boxed == 1 && b.boxed == 1;
            // A merge keeps the box legal: at most 256 per dimension, and a swizzled innermost row stays the span.
            let legal = a.boxed.saturating_mul(b.boxed) <= 256 && (k > 0 || mode == SwizzleMode::None);
            contiguous && legal && (whole || coordinates)
        }) else {
            break;
        };
        let b = ddims.remove(k + 1);
        merge_into(&mut ddims[k], b, &mut merged.scale);
    }
}

/// The `cuTensorMapEncodeTiled` fields of the (re-viewed) descriptor dimensions.
fn descriptor(prob: &Problem, viewed: &[DescDim], mode: SwizzleMode, req: &TmaRequest<'_>) -> TensorMapDesc {
    let as_u32 = |v: i64| u32::try_from(v).unwrap_or(u32::MAX);
    TensorMapDesc {
        data_type: prob.dtype,
        rank: viewed.len() as u32,
        global_dims: viewed.iter().map(|d| d.global_dim as u64).collect(),
        global_strides_bytes: viewed.iter().skip(1).map(|d| (d.stride * prob.esize) as u64).collect(),
        box_dims: viewed.iter().map(|d| as_u32(d.boxed)).collect(),
        element_strides: vec![1; viewed.len()],
        interleave: Interleave::None,
        swizzle: mode,
        l2_promotion: req.options.l2_promotion,
        oob_fill: req.options.oob_fill,
    }
}

/// The `inner-box-bytes` rule under a swizzle: the inner box row is the span, or a narrower row of whole 16-byte
/// chunks that the hardware pads to the span, legal when the box's next rows start at the span (the chain's pad)
/// or the box is a single row.
fn check_inner_box(viewed: &[DescDim], mode: SwizzleMode, esize: i64, padded: bool) -> Result<(), TmaError> {
    let inner_bytes = viewed[0].boxed * esize;
    let single_row = viewed.iter().skip(1).all(|d| d.boxed == 1);
    let padded_row = inner_bytes < mode.bytes() && inner_bytes % 16 == 0 && (padded || single_row);
    if mode != SwizzleMode::None && inner_bytes != mode.bytes() && !padded_row {
        return Err(rule(
            TmaRule::InnerBoxBytes,
            format!(
                "inner box is {inner_bytes} bytes; with the {} swizzle it must be exactly {} bytes (the hardware pads \
                 narrower rows to the span)",
                mode.name(),
                mode.bytes()
            ),
        ));
    }
    Ok(())
}

/// The number of issues the loop over the unboxed joint iters makes, at most [`MAX_ISSUES`].
fn issue_count(loops: &[Joint]) -> Result<i64, TmaError> {
    let count = loops.iter().try_fold(1i64, |acc, j| acc.checked_mul(j.extent).filter(|&c| c <= MAX_ISSUES));
    count.ok_or_else(|| stage(TmaStage::Box, format!("the box leaves more than {MAX_ISSUES} issues")))
}

/// The `payload` rule: `count` boxes of `box_elems` elements of `esize` bytes move exactly the region's bytes.
fn check_payload(box_elems: i64, count: i64, esize: i64, region_bytes: i64) -> Result<(), TmaError> {
    if box_elems * count * esize != region_bytes {
        return Err(rule(
            TmaRule::Payload,
            format!(
                "{count} boxes of {} bytes move {} bytes but the shared region holds {} bytes",
                box_elems * esize,
                box_elems * count * esize,
                region_bytes
            ),
        ));
    }
    Ok(())
}

/// Step 8's re-view: `(row, shift)`, the row length (elements) into which a merged innermost dimension wider than
/// one legal box row is cut and the element the rows start at, or `None` when no cut is needed or possible.
/// Unswizzled, a box dimension holds at most 256 elements: the longest row of at most 256 elements, a multiple of
/// 16 bytes, that divides the box. Swizzled, every box row is exactly the span: rows of `span / esize` elements
/// when they divide the box. The rows start where the region does (`shift = start % row`, the descriptor's global
/// address moved by `shift` elements, which must stay 16-byte aligned). The merged run is contiguous in global
/// memory and in shared memory (it merged because dimension `k + 1`'s stride is dimension `k`'s extent, and the box
/// chain is dense), so `rows x (run / rows)` addresses the same bytes on both sides, and the box writes them
/// densely in the same order, each row swizzled by its absolute shared address as before (f16 1024x4 is one box of
/// 256x16, u8 64x8 under the 128B swizzle one of 128x4).
fn rows_of(d: &DescDim, mode: SwizzleMode, esize: i64) -> Option<(i64, i64)> {
    let wide = match mode {
        SwizzleMode::None => d.boxed > 256,
        m => d.boxed * esize > m.bytes(),
    };
    if d.members.len() < 2 || !wide || d.stride != 1 {
        return None;
    }
    let aligned = |r: i64| d.boxed % r == 0 && (r * esize) % 16 == 0 && ((d.start % r) * esize) % 16 == 0;
    let row = match mode {
        SwizzleMode::None => (1..=d.boxed.min(256)).rev().find(|&r| aligned(r))?,
        m => Some(m.bytes() / esize).filter(|&r| aligned(r))?,
    };
    Some((row, d.start % row))
}

/// The descriptor dimensions with the first (a merged contiguous run) cut into rows of `row` elements from element
/// `shift`, and as many whole rows as fit after it.
fn split_row(ddims: &[DescDim], row: i64, shift: i64) -> Vec<DescDim> {
    let d0 = &ddims[0];
    let inner = DescDim { global_dim: row, stride: d0.stride, start: 0, boxed: row, members: d0.members.clone() };
    let outer = DescDim {
        global_dim: (d0.global_dim - shift) / row,
        stride: d0.stride * row,
        start: (d0.start - shift) / row,
        boxed: d0.boxed / row,
        members: Vec::new(),
    };
    [inner, outer].into_iter().chain(ddims[1..].iter().cloned()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merging_scales_the_outer_coordinate() {
        // a: 8 elements from 0 (stride 1); b: 32 rows of stride 8 starting at row 3. Merged: 256 elements, start 24,
        // b's coordinate counted in units of 8.
        let mut a = DescDim { global_dim: 8, stride: 1, start: 0, boxed: 8, members: vec![0] };
        let b = DescDim { global_dim: 32, stride: 8, start: 3, boxed: 4, members: vec![1] };
        let mut scale = vec![1, 1];
        merge_into(&mut a, b, &mut scale);
        assert_eq!((a.global_dim, a.start, a.boxed, a.members.clone()), (256, 24, 32, vec![0, 1]));
        assert_eq!(scale, vec![1, 8]);
    }
}
