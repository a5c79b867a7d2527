//! Copies whose memory side is a region moved at run time: a slice of a global tensor at a block's tile and a
//! loop's K step, a stage of a shared ring picked by the loop counter.
//!
//! [`plan_moving`] plans the copy at the region's static part (each run-time offset taken as 0: the caller's
//! request holds the root tensor's layout sliced there) and states, per run-time offset, an [`AddressTerm`]: every
//! memory address of that side moves by `elements * (value / divisor)` elements, the same in every thread and
//! issue. The term comes from the root tensor's layout (`crate::stage::digit_step`): an offset along a dimension
//! that is a known multiple of `P` (the product of the extents below the dimension's outermost digit) changes that
//! digit alone, so every element of the region moves by the digit's stride times `value / P`.
//!
//! The plan was checked at offset 0 only, so a run-time offset is accepted only when the moved region is
//! indistinguishable, for the plan, from the static one on a differently placed base (`dynamic-offset` rule):
//! - it moves the side by a multiple of the base alignment the plan assumes (its vector bytes for `ld`/`st`/
//!   `cp.async`, the 16-byte rows of `ldmatrix`/`stmatrix`), so every access stays aligned;
//! - on a swizzled side, by a multiple of the swizzle's period `2^(M+B+S)` elements, so that
//!   `swizzle(a + d) = swizzle(a) + d` for every address `a` (the low `M+B+S` bits, all the swizzle reads and
//!   writes, are unchanged): the run-time term is added after the swizzle, and the swizzled per-thread addresses
//!   do not depend on it (a loop can keep them). A ring of 128B-swizzled f16 stages moves by whole 1024-byte
//!   periods when a stage is a multiple of 8 rows of 64 elements.
//!
//! Registers and tensor memory do not move at run time. That the moved region lies inside the root tensor is
//! the caller's run-time precondition.

use super::table::err;
use super::{CopyError, CopyKind, CopyPlan, CopyRequest, CopyRule, Mem};
use crate::layout::Layout;

/// One side of a copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CopySide {
    /// The source.
    Src,
    /// The destination.
    Dst,
}

impl CopySide {
    /// `source` or `destination`.
    pub fn name(self) -> &'static str {
        match self {
            CopySide::Src => "source",
            CopySide::Dst => "destination",
        }
    }
}

/// A run-time offset of one side's region along one dimension of the root tensor the side is a slice of.
#[derive(Clone, Copy, Debug)]
pub struct CopyMove<'a> {
    /// The side that moves.
    pub side: CopySide,
    /// The root tensor's layout (the side's layout is this sliced at the static offsets).
    pub root: &'a Layout,
    /// The root tensor's shape.
    pub root_shape: &'a [i64],
    /// The root dimension the offset is along.
    pub dim: usize,
    /// What the offset is known to be a multiple of (at least 1), from the IR that computes it.
    pub multiple: i64,
}

/// A run-time term of one side's addresses: `elements * (value / divisor)` elements added to every memory address
/// of that side (after the swizzle), with `value` the run-time offset `offset` (an index into the moves).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AddressTerm {
    /// The side whose addresses move.
    pub side: CopySide,
    /// Which move (index into `plan_moving`'s `moves`) supplies the value.
    pub offset: usize,
    /// The value is divided by this (exactly: the value is a multiple of it).
    pub divisor: i64,
    /// Elements moved per unit of `value / divisor` (the moved digit's stride).
    pub elements: i64,
}

/// Plans `req` (its sides sliced at the static offsets) for a region that also moves by the run-time offsets
/// `moves`; the plan's [`CopyPlan::dynamic`] holds one [`AddressTerm`] per move. Refusals are the `dynamic-offset`
/// rule with the numbers (see the module documentation).
pub fn plan_moving(req: &CopyRequest<'_>, moves: &[CopyMove<'_>]) -> Result<CopyPlan, CopyError> {
    let mut plan = super::plan(req)?;
    let esize = req.dtype.bytes();
    for (k, mv) in moves.iter().enumerate() {
        let (mem, alignment, swizzle, kind) = match mv.side {
            CopySide::Src => (
                req.src.mem,
                plan.src_base_alignment_bytes,
                plan.steps.first().and_then(|s| s.src_swizzle),
                plan.steps.first().map(|s| s.kind),
            ),
            CopySide::Dst => (
                req.dst.mem,
                plan.dst_base_alignment_bytes,
                plan.steps.last().and_then(|s| s.dst_swizzle),
                plan.steps.last().map(|s| s.kind),
            ),
        };
        let side = mv.side.name();
        if !matches!(mem, Mem::Global | Mem::Shared) {
            return Err(err(
                CopyRule::DynamicOffset,
                format!(
                    "offset {k} moves the {side}, which is in {mem}: only global and shared regions move at run time"
                ),
            ));
        }
        let step = crate::stage::digit_step(mv.root, mv.root_shape, mv.dim, mv.multiple)
            .map_err(|e| err(CopyRule::DynamicOffset, format!("offset {k} of the {side}: {e}")))?;
        let moved = step.stride.checked_mul(mv.multiple / step.divisor).filter(|m| m.abs() < 1 << 40);
        let Some(moved) = moved else {
            return Err(err(CopyRule::Limit, format!("offset {k} of the {side} moves too far to plan")));
        };
        let bytes = moved * esize;
        let alignment = alignment.unwrap_or(esize).max(1);
        let what = match kind {
            Some(CopyKind::Ldmatrix { .. } | CopyKind::Stmatrix { .. }) => "16-byte matrix rows".to_string(),
            _ => format!("{alignment}-byte vectors"),
        };
        if bytes % alignment != 0 {
            return Err(err(
                CopyRule::DynamicOffset,
                format!(
                    "offset {k} moves the {side} along dimension {} by a multiple of {} elements ({bytes} bytes: a \
                     known multiple of {} over {} times stride {}), which breaks the alignment of its {what} \
                     ({alignment} bytes)",
                    mv.dim, moved, mv.multiple, step.divisor, step.stride
                ),
            ));
        }
        if let Some(s) = swizzle {
            let period = s.period();
            if moved % period != 0 {
                return Err(err(
                    CopyRule::DynamicOffset,
                    format!(
                        "offset {k} moves the {side} along dimension {} by a multiple of {moved} elements, not of \
                         the {period}-element period of its swizzle {s}: the swizzled addresses would change",
                        mv.dim
                    ),
                ));
            }
        }
        plan.dynamic.push(AddressTerm { side: mv.side, offset: k, divisor: step.divisor, elements: step.stride });
    }
    Ok(plan)
}
