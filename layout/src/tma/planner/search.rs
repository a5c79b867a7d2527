//! Steps 5 and 7, the box: the prefix search over the shared stride chain for the largest legal box of one
//! problem, and the problem re-expressed in a promoted element type.

use super::super::TmaRequest;
use super::{build::build, stage, Candidate, Dim, Joint, Problem, TensorMapDataType, TmaError, TmaStage};
use crate::swizzle::SwizzleMode;

/// dimension allows it.
pub(super) fn promote(p: &Problem, f: i64) -> Option<Problem> {
    let j1 = p.joints.iter().position(|j| j.sstride == 1)?;
    let t0 = p.joints[j1].dim;
    let d0 = p.dims[t0];
    let inner = p.joints[j1];
    // A straddling region's digits keep their element unit.
    if p.wraps.iter().any(|w| w.dims.iter().any(|&(t, _)| t == t0)) {
        return None;
    }
    if inner.step != 1
        || inner.extent % f != 0
        || d0.stride != 1
        || d0.global_dim % f != 0
        || d0.start % f != 0
        || p.sbase % f != 0
    {
        return None;
    }
    for (i, j) in p.joints.iter().enumerate() {
        if i != j1 && (j.sstride % f != 0 || (j.dim == t0 && j.step % f != 0)) {
            return None;
        }
    }
    if p.dims.iter().enumerate().any(|(t, d)| t != t0 && d.stride % f != 0) {
        return None;
    }
    // A run-time offset of the innermost dimension must move whole promoted elements.
    let mut terms = p.terms.clone();
    for term in terms.iter_mut().filter(|term| term.dim == t0) {
        term.divisor = term.divisor.checked_mul(f)?;
        if term.multiple % term.divisor != 0 {
            return None;
        }
    }
    let esize = p.esize * f;
    let dtype = TensorMapDataType::unsigned_of_bytes(esize)?;
    let dims = p
        .dims
        .iter()
        .enumerate()
        .map(|(t, d)| {
            if t == t0 {
                Dim { global_dim: d.global_dim / f, stride: 1, start: d.start / f }
            } else {
                Dim { stride: d.stride / f, ..*d }
            }
        })
        .collect();
    let joints = p
        .joints
        .iter()
        .enumerate()
        .map(|(i, j)| {
            if i == j1 {
                Joint { extent: j.extent / f, ..*j }
            } else if j.dim == t0 {
                Joint { sstride: j.sstride / f, step: j.step / f, ..*j }
            } else {
                Joint { sstride: j.sstride / f, ..*j }
            }
        })
        .filter(|j| j.extent > 1)
        .collect();
    Some(Problem { esize, dtype, dims, joints, sbase: p.sbase / f, terms, wraps: p.wraps.clone() })
}

/// Splits `j` into `(outer, inner)` with `inner.extent == d`.
fn split(j: Joint, d: i64) -> (Joint, Joint) {
    (
        Joint { extent: j.extent / d, sstride: j.sstride * d, dim: j.dim, step: j.step * d, wrap: j.wrap },
        Joint { extent: d, ..j },
    )
}

/// The largest legal box of one problem: the prefix search over the shared stride chain.
pub(super) fn search(
    prob: &Problem,
    mode: SwizzleMode,
    req: &TmaRequest<'_>,
    global_offset_bytes: i64,
    region_elems: i64,
) -> Result<Candidate, TmaError> {
    let mut joints = prob.joints.clone();
    if mode != SwizzleMode::None {
        let row = mode.bytes() / prob.esize;
        if let Some(i) = joints.iter().position(|j| j.sstride == 1) {
            let j = joints[i];
            if j.extent > row {
                if j.extent % row != 0 {
                    return Err(stage(
                        TmaStage::Box,
                        format!(
                            "the contiguous run of {} elements is not a multiple of the {} swizzle row ({row} elements)",
                            j.extent,
                            mode.name()
                        ),
                    ));
                }
                let (outer, inner) = split(j, row);
                joints.splice(i..=i, [outer, inner]);
            }
        }
    }
    while let Some(i) = joints.iter().position(|j| j.extent > 256 && largest_divisor(j.extent, 256) > 1) {
        let (outer, inner) = split(joints[i], largest_divisor(joints[i].extent, 256));
        joints.splice(i..=i, [outer, inner]);
    }
    let mut order: Vec<usize> = (0..joints.len()).collect();
    order.sort_by_key(|&i| joints[i].sstride);
    let Some(&first) = order.first() else {
        return Err(stage(TmaStage::SharedChain, "the region has a single element; there is no box to copy"));
    };
    if joints[first].sstride != 1 {
        return Err(stage(
            TmaStage::SharedChain,
            format!(
                "the smallest shared stride of the region is {}, not 1: a TMA box is written densely",
                joints[first].sstride
            ),
        ));
    }
    // The box chain: dense from stride 1, except that with a swizzle a run narrower than the span (whole 16-byte
    // chunks) may continue at the span (the hardware pads each box row to the span).
    let row = match mode {
        SwizzleMode::None => 0,
        m => m.bytes() / prob.esize,
    };
    let mut chain = 1;
    let mut padded = false;
    while chain < order.len() {
        let (a, b) = (joints[order[chain - 1]], joints[order[chain]]);
        let next = a.sstride.checked_mul(a.extent);
        if next != Some(b.sstride) {
            let run = next.unwrap_or(i64::MAX);
            if padded || row == 0 || run >= row || (run * prob.esize) % 16 != 0 || b.sstride != row {
                break;
            }
            padded = true;
        }
        chain += 1;
    }
    let mut last_err = None;
    for p in (1..=chain).rev() {
        match build(prob, &joints, &order[..p], mode, req, global_offset_bytes, region_elems) {
            Ok(c) => return Ok(c),
            Err(e) => last_err = Some(e),
        }
    }
    Err(last_err.unwrap_or_else(|| stage(TmaStage::Box, "no legal box")))
}

fn largest_divisor(e: i64, cap: i64) -> i64 {
    (1..=cap.min(e)).rev().find(|d| e % d == 0).unwrap_or(1)
}
