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
use super::{CopyError, CopyKind, CopyPlan, CopyRequest, CopyRule, Memory, PerThread};
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
        if !matches!(mem, Memory::Global | Memory::Shared) {
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

/// A global side that is a `rows x cols` region of a row-major tensor whose row stride `W` (its column count) is
/// a run-time value (layout `row_major` with run-time extents), at a run-time row and column offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RuntimeRows {
    /// The side.
    pub side: CopySide,
    /// What `W` is known to be a multiple of (the view's `multiples`; the extent itself when static).
    pub stride_multiple: i64,
    /// What the region's column offset is known to be a multiple of.
    pub col_multiple: i64,
}

/// Where one issue's access starts in the region, per thread: row and column (each a [`PerThread`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RegionCoord {
    /// Row in the region.
    pub row: PerThread,
    /// Column in the region.
    pub col: PerThread,
}

/// The coordinates of a [`RuntimeRows`] side: per issue of the plan's step, in issue order. The element an
/// access starts at is `(row0 + row(t), col0 + col(t))` of the root, at `(row0 + row(t)) * W + col0 + col(t)`
/// elements from its base; the access is in bounds when `row0 + row(t) < rows extent` and `col0 + col(t) < W`
/// (a vector never straddles the edge: `W` is a multiple of its elements). The step's own `Mem` formulas for
/// that side address the placeholder layout `S[(R,C):(stride,1)]` the plan was made on.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SideCoords {
    /// The side.
    pub side: CopySide,
    /// The placeholder row stride the step's formulas of this side use.
    pub placeholder_stride: i64,
    /// Per issue.
    pub issues: Vec<RegionCoord>,
}

/// The placeholder row stride for a region of `cols` columns: a power of two of at least `2 * cols` and 16, so
/// that every vector's alignment and contiguity in the placeholder is its column's.
pub fn placeholder_stride(cols: i64) -> i64 {
    let mut w = 16i64;
    while w < 2 * cols.max(1) {
        w *= 2;
    }
    w
}

/// Splits a formula of the placeholder row stride `w` into row and column formulas (each coefficient `a * w + b`
/// with `|b| <= w / 2`); `None` unless every thread in `threads` lands at a column in `0..cols`.
fn split(f: &PerThread, w: i64, cols: i64, threads: &[i64]) -> Option<RegionCoord> {
    let part = |c: i64| {
        let a = (c + w / 2).div_euclid(w);
        (a, c - a * w)
    };
    let (r0, c0) = part(f.base);
    let mut row = PerThread::constant(r0);
    let mut col = PerThread::constant(c0);
    for term in &f.terms {
        let (a, b) = part(term.coef);
        if a != 0 {
            row.terms.push(super::ThreadTerm { coef: a, ..*term });
        }
        if b != 0 {
            col.terms.push(super::ThreadTerm { coef: b, ..*term });
        }
    }
    let exact = threads.iter().all(|&t| {
        let (r, c) = (row.at(t), col.at(t));
        (0..cols).contains(&c) && r >= 0 && r * w + c == f.at(t)
    });
    exact.then_some(RegionCoord { row, col })
}

/// [`plan_moving`] with sides that are regions of row-major tensors of run-time row stride (`rows`): each such
/// side of the request must be global and 2-D; its layout is replaced by the placeholder `S[(R,C):(stride,1)]`
/// ([`placeholder_stride`]), and the plan's [`CopyPlan::coords`] states each issue's row and column per thread.
/// Refused (`dynamic-offset` rule) when the run-time stride's or the column offset's known multiple would break
/// the plan's vectors, and (`thread-map` rule) when an address does not split into a row and a column.
pub fn plan_runtime(
    req: &CopyRequest<'_>,
    moves: &[CopyMove<'_>],
    rows: &[RuntimeRows],
) -> Result<CopyPlan, CopyError> {
    let mut owned: Vec<(CopySide, Layout, i64)> = Vec::new();
    for r in rows {
        let side = match r.side {
            CopySide::Src => &req.src,
            CopySide::Dst => &req.dst,
        };
        let &[_, cols] = side.shape else {
            return Err(err(
                CopyRule::DynamicOffset,
                format!(
                    "the {} has run-time extents and must be a 2-D region, got rank {}",
                    r.side.name(),
                    side.shape.len()
                ),
            ));
        };
        if side.mem != Memory::Global {
            return Err(err(
                CopyRule::DynamicOffset,
                format!("only global tensors have run-time extents, the {} is in {}", r.side.name(), side.mem),
            ));
        }
        if moves.iter().any(|m| m.side == r.side) {
            return Err(err(
                CopyRule::Input,
                format!("the {} moves by its coordinates, not by address terms", r.side.name()),
            ));
        }
        let w = placeholder_stride(cols);
        let text = format!("S[({},{cols}):({w},1)]", side.shape[0]);
        let layout = crate::notation::parse_layout(&text).map_err(|e| err(CopyRule::Input, e.to_string()))?;
        owned.push((r.side, layout, w));
    }
    let mut request = *req;
    for (side, layout, _) in &owned {
        match side {
            CopySide::Src => request.src.layout = layout,
            CopySide::Dst => request.dst.layout = layout,
        }
    }
    let mut plan = plan_moving(&request, moves)?;
    let esize = req.dtype.bytes();
    for (r, (_, _, w)) in rows.iter().zip(&owned) {
        let side = r.side.name();
        let (step, which) = match r.side {
            CopySide::Src => (plan.steps.first(), 0),
            CopySide::Dst => (plan.steps.last(), 1),
        };
        let Some(step) = step else { return Err(err(CopyRule::Input, "a plan without steps")) };
        let vector = step.vector_bytes;
        for (what, multiple) in [("row stride", r.stride_multiple), ("column offset", r.col_multiple)] {
            if multiple < 1 || (multiple * esize) % vector != 0 {
                return Err(err(
                    CopyRule::DynamicOffset,
                    format!(
                        "the {side}'s run-time {what} is known to be a multiple of {multiple} elements ({} bytes), \
                         not of the {vector}-byte vectors of {}: state a larger multiple",
                        multiple.saturating_mul(esize),
                        step.instruction
                    ),
                ));
            }
        }
        let cols = match r.side {
            CopySide::Src => req.src.shape[1],
            CopySide::Dst => req.dst.shape[1],
        };
        let mut issues = Vec::new();
        for (i, issue) in step.issues.iter().enumerate() {
            let operand = if which == 0 { &issue.src } else { &issue.dst };
            let super::Operand::Mem(f) = operand else {
                return Err(err(CopyRule::Input, format!("the {side} of issue {i} is not a memory operand")));
            };
            let threads: Vec<i64> = (0..plan.scope_threads)
                .filter(|&t| step.threads.contains(t) && issue.only.as_ref().is_none_or(|o| o.contains(t)))
                .collect();
            let coord = split(f, *w, cols, &threads).ok_or_else(|| {
                err(CopyRule::ThreadMap, format!("issue {i}'s {side} addresses do not split into a row and a column"))
            })?;
            issues.push(coord);
        }
        plan.coords.push(SideCoords { side: r.side, placeholder_stride: *w, issues });
    }
    Ok(plan)
}
