//! The TMA planner: slice, match the swizzle atom, co-group, search the largest box, emit the issues (see the
//! parent module's documentation for the algorithm and the alignment decisions).
//!
//! One submodule per stage of the parent's algorithm, in the order [`plan_offsets`] runs them:
//! `shared.rs` (step 2, the shared side and the atom), `global.rs` (step 3, the global side's candidate
//! dimensions, box iters and run-time terms), `co_group.rs` (step 4), `search.rs` (steps 5 and 7, the prefix
//! search and promotion), `build.rs` (step 8, the descriptor of one boxed prefix) and `issues.rs` (step 6, the
//! issue loop and the run-time coordinate terms).

mod build;
mod co_group;
mod global;
mod issues;
mod search;
mod shared;

use super::{
    CoordinateTerm, DynamicOffset, ElemType, OobFill, SharedTerm, TensorMapDataType, TensorMapDesc, TmaError, TmaIssue,
    TmaPlan, TmaRequest, TmaRule, TmaStage,
};
use crate::notation::shape_text;
use crate::slice::slice;
use crate::swizzle::SwizzleMode;

/// The most TMA instructions one copy may expand to.
pub const MAX_ISSUES: i64 = 1 << 16;

/// Every issue's shared-memory destination must be aligned to this many bytes (CUDA Programming Guide, TMA
/// swizzle table: 128 bytes in every mode).
pub const SMEM_ALIGN_BYTES: i64 = 128;

/// A candidate descriptor dimension of the global tensor: one non-unit iter of the grouped global layout.
#[derive(Clone, Copy, Debug)]
struct Dim {
    /// Extent (the descriptor's `globalDim`).
    global_dim: i64,
    /// Stride in elements.
    stride: i64,
    /// The region's start coordinate along it.
    start: i64,
}

/// One iter of the global region's box, in copy order.
#[derive(Clone, Copy, Debug)]
struct GIter {
    extent: i64,
    dim: usize,
    step: i64,
    /// A chunk index of a straddling region (index into the problem's wraps): `step` counts chunks.
    wrap: Option<usize>,
}

/// A global region that straddles a digit boundary (rows 32..96 of 64-row panels): cut into `count` chunks of
/// `chunk` positions of its pivot digit, each inside one digit range, so one box covers a chunk and the issue loop
/// walks the chunks. Chunk `k` starts at position `base + k * chunk` of the mixed-radix number over `dims`, whose
/// digits are the coordinates (not an affine function of `k`: the pivot wraps into the outer digits).
#[derive(Clone, Debug)]
struct Wrap {
    /// The candidate dimensions of the pivot digit and the digits outside it, innermost first, with their extents.
    dims: Vec<(usize, i64)>,
    /// The region's start in units of the pivot digit.
    base: i64,
    /// Pivot positions per chunk.
    chunk: i64,
}

/// One iter of the common refinement of the global box and the shared region.
#[derive(Clone, Copy, Debug)]
struct Joint {
    extent: i64,
    /// Shared stride in elements.
    sstride: i64,
    /// The descriptor dimension it moves along.
    dim: usize,
    /// Coordinate step along `dim` per digit (chunks of the wrap, for a chunk index).
    step: i64,
    /// A chunk index of a straddling region (index into the problem's wraps).
    wrap: Option<usize>,
}

/// A run-time offset's term on one candidate dimension: its coordinate grows by `value / divisor`.
#[derive(Clone, Copy, Debug)]
struct Term {
    /// The candidate dimension (index into `Problem::dims`).
    dim: usize,
    /// Index into the request's dynamic offsets.
    offset: usize,
    divisor: i64,
    /// The offset's known multiple (a multiple of `divisor`).
    multiple: i64,
}

/// The copy in some element unit (the natural one or a promoted one).
#[derive(Clone, Debug)]
struct Problem {
    esize: i64,
    dtype: TensorMapDataType,
    dims: Vec<Dim>,
    joints: Vec<Joint>,
    /// Shared start of the region, in elements.
    sbase: i64,
    /// The run-time offsets' terms.
    terms: Vec<Term>,
    /// The straddling regions' chunkings.
    wraps: Vec<Wrap>,
}

struct Candidate {
    /// Bytes the descriptor's global address moves past the layout's offset (a re-viewed run starting mid-row).
    shift_bytes: i64,
    desc: TensorMapDesc,
    issues: Vec<TmaIssue>,
    dynamic: Vec<CoordinateTerm>,
    box_bytes: i64,
}

fn stage(s: TmaStage, message: impl Into<String>) -> TmaError {
    TmaError::stage(s, message)
}

fn rule(r: TmaRule, message: impl Into<String>) -> TmaError {
    TmaError::rule(r, message)
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

/// Plans one TMA copy: the descriptor fields and one issue per box (see the module documentation).
///
/// Errors name the failing [`TmaStage`] or [`TmaRule`] with the numbers, e.g.
/// `tma: shared-chain stage: the smallest shared stride of the region is 2, not 1`.
pub fn plan(req: &TmaRequest<'_>) -> Result<TmaPlan, TmaError> {
    plan_dynamic(req, &[])
}

/// Plans one TMA copy whose global region is `req.global_region` shifted at run time by the `dynamic` offsets:
/// the plan of the static region, plus [`TmaPlan::dynamic`], the terms each issue's coordinates gain from the
/// offsets' values (see "Run-time offsets" in the module documentation). With no offsets it is [`plan`].
pub fn plan_dynamic(req: &TmaRequest<'_>, dynamic: &[DynamicOffset]) -> Result<TmaPlan, TmaError> {
    plan_offsets(req, dynamic, &[])
}

/// Plans one TMA copy whose global region moves by the `global` offsets and whose shared region moves by the
/// `shared` offsets at run time (a stage of a shared ring indexed by a loop variable): [`plan_dynamic`]'s plan
/// plus [`TmaPlan::shared_dynamic`], the byte terms every issue's shared offset gains (see "Run-time shared
/// offsets" in the module documentation). With no shared offsets it is [`plan_dynamic`].
pub fn plan_offsets(
    req: &TmaRequest<'_>,
    dynamic: &[DynamicOffset],
    shared: &[DynamicOffset],
) -> Result<TmaPlan, TmaError> {
    check_input(req)?;
    check_offsets(req, dynamic, shared)?;
    let mode = shared::shared_mode(req)?;
    let (base, g_offset) = problem(req, dynamic, mode)?;
    let global_offset_bytes = global_offset_bytes(req, g_offset)?;
    let best = best_candidate(req, &base, mode, global_offset_bytes)?;
    let shared_base_alignment_bytes = match mode {
        SwizzleMode::None => SMEM_ALIGN_BYTES,
        m => 8 * m.bytes(),
    };
    let shared_dynamic = shared_terms(req, shared, mode, shared_base_alignment_bytes)?;
    Ok(TmaPlan {
        desc: best.desc,
        issues: best.issues,
        dynamic: best.dynamic,
        shared_dynamic,
        direction: req.direction,
        elem: req.dtype,
        global_offset_bytes: (global_offset_bytes + best.shift_bytes) as u64,
        box_bytes: best.box_bytes as u64,
        shared_base_alignment_bytes: shared_base_alignment_bytes as u64,
    })
}

/// The run-time offsets' dimensions exist on their side and their known multiples are positive.
fn check_offsets(req: &TmaRequest<'_>, dynamic: &[DynamicOffset], shared: &[DynamicOffset]) -> Result<(), TmaError> {
    for (side, offsets, rank) in
        [("global", dynamic, req.global_shape.len()), ("shared", shared, req.shared_shape.len())]
    {
        for (k, offset) in offsets.iter().enumerate() {
            if offset.dim >= rank || offset.multiple < 1 {
                return Err(stage(
                    TmaStage::Input,
                    format!(
                        "{side} dynamic offset {k} is along dimension {} with multiple {}; needs a dimension below \
                         {rank} and a multiple of at least 1",
                        offset.dim, offset.multiple,
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Steps 1 to 4: the copy in its natural element unit (the shared side sliced and matched to the atom, the global
/// side read into candidate dimensions, both co-grouped), plus the global layout's offset on `m` in elements.
fn problem(req: &TmaRequest<'_>, dynamic: &[DynamicOffset], mode: SwizzleMode) -> Result<(Problem, i64), TmaError> {
    let sliced = slice(req.shared, req.shared_shape, req.shared_region)
        .map_err(|e| stage(TmaStage::SharedSlice, e.to_string()))?;
    let (s_iters, s_base) = shared::plain_iters(sliced.tile(), TmaStage::SharedLayout, "shared")?;
    shared::check_atom(req, &sliced, mode)?;
    let global = global::global_side(req, dynamic)?;
    let joints = co_group::co_group(&global.g_iters, &s_iters)?;
    let base = Problem {
        esize: req.dtype.bytes(),
        dtype: req.dtype.tensor_map_type(),
        dims: global.dims,
        joints,
        sbase: s_base,
        terms: global.terms,
        wraps: global.wraps,
    };
    Ok((base, global.offset))
}

/// The global layout's offset in bytes, refused when it points before the tensor's base (`globalAddress`).
fn global_offset_bytes(req: &TmaRequest<'_>, g_offset: i64) -> Result<i64, TmaError> {
    let global_offset_bytes = g_offset * req.dtype.bytes();
    if global_offset_bytes < 0 {
        return Err(rule(
            TmaRule::GlobalAddress,
            format!(
                "the global layout's offset is {global_offset_bytes} bytes, before the tensor's base; \
                 globalAddress cannot point below it"
            ),
        ));
    }
    Ok(global_offset_bytes)
}

/// Step 7: the best box over the natural element type and its promotions (the largest box; among equal boxes the
/// lower rank, then the natural type), or the natural type's refusal when none plans.
fn best_candidate(
    req: &TmaRequest<'_>,
    base: &Problem,
    mode: SwizzleMode,
    global_offset_bytes: i64,
) -> Result<Candidate, TmaError> {
    let region_elems: i64 = req.shared_region.iter().map(|(b, e)| e - b).product();
    let mut factors = vec![1i64];
    if req.dtype != ElemType::TF32 && req.options.oob_fill == OobFill::None {
        factors.extend([2, 4, 8].into_iter().filter(|f| req.dtype.bytes() * f <= 8));
    }
    let mut best: Option<Candidate> = None;
    let mut natural_err: Option<TmaError> = None;
    for f in factors {
        let prob = if f == 1 {
            base.clone()
        } else {
            match search::promote(base, f) {
                Some(p) => p,
                None => continue,
            }
        };
        match search::search(&prob, mode, req, global_offset_bytes, region_elems) {
            Ok(c) => {
                // The largest box; among equal boxes the lower rank (a re-viewed row costs a dimension), then the
                // natural type (tried first).
                if best
                    .as_ref()
                    .is_none_or(|b| (c.box_bytes, -i64::from(c.desc.rank)) > (b.box_bytes, -i64::from(b.desc.rank)))
                {
                    best = Some(c);
                }
            }
            Err(e) => {
                if f == 1 {
                    natural_err = Some(e);
                }
            }
        }
    }
    best.ok_or_else(|| natural_err.unwrap_or_else(|| stage(TmaStage::Box, "no legal box")))
}

/// The run-time shared offsets' byte terms: each moves the outermost digit of its shared dimension alone (a
/// multiple of `P`, the product of the extents below that digit), by `stride * elemsize` bytes per `P` elements,
/// and every value it can take must move the boxes by whole swizzle periods (`alignment`: 1024/512/256 bytes, 128
/// unswizzled), else the `shared-offset` rule refuses it.
fn shared_terms(
    req: &TmaRequest<'_>,
    shared: &[DynamicOffset],
    mode: SwizzleMode,
    alignment: i64,
) -> Result<Vec<SharedTerm>, TmaError> {
    if shared.is_empty() {
        return Ok(Vec::new());
    }
    let esize = req.dtype.bytes();
    let mut terms = Vec::new();
    for (k, offset) in shared.iter().enumerate() {
        let d = offset.dim;
        let crate::stage::DigitStep { divisor: step, stride, .. } =
            crate::stage::digit_step(req.shared, req.shared_shape, d, offset.multiple)
                .map_err(|e| rule(TmaRule::SharedOffset, format!("shared offset {k}: {e}")))?;
        let bytes = stride.saturating_mul(esize);
        let moved = bytes.saturating_mul(offset.multiple / step);
        if moved % alignment != 0 {
            let what = match mode {
                SwizzleMode::None => "the 128-byte TMA shared alignment".to_string(),
                m => format!("the {alignment}-byte period of the {} swizzle (it acts on absolute addresses)", m.name()),
            };
            return Err(rule(
                TmaRule::SharedOffset,
                format!(
                    "shared dimension {d} moves by a run-time offset known to be a multiple of {}, {bytes} bytes per \
                     step of {step} elements: the boxes would move by multiples of {moved} bytes, not of {what}",
                    offset.multiple
                ),
            ));
        }
        terms.push(SharedTerm { offset: k, divisor: step, bytes });
    }
    Ok(terms)
}

/// Ranks, region bounds and element counts.
fn check_input(req: &TmaRequest<'_>) -> Result<(), TmaError> {
    for (what, shape, region) in
        [("global", req.global_shape, req.global_region), ("shared", req.shared_shape, req.shared_region)]
    {
        if shape.is_empty() {
            return Err(stage(TmaStage::Input, format!("the {what} shape is empty")));
        }
        if shape.len() != region.len() {
            return Err(stage(
                TmaStage::Input,
                format!(
                    "the {what} region has {} dimensions but the shape {} has {}",
                    region.len(),
                    shape_text(shape),
                    shape.len()
                ),
            ));
        }
        for (d, (&e, &(b, end))) in shape.iter().zip(region).enumerate() {
            if e < 1 || b < 0 || b >= end || end > e {
                return Err(stage(
                    TmaStage::Input,
                    format!("{what} region dimension {d} is {b}:{end}, must satisfy 0 <= begin < end <= {e}"),
                ));
            }
        }
    }
    let count = |region: &[(i64, i64)]| region.iter().try_fold(1i64, |acc, (b, e)| acc.checked_mul(e - b));
    let (g, s) = (count(req.global_region), count(req.shared_region));
    if g.is_none() || g != s {
        return Err(stage(
            TmaStage::RegionShape,
            format!(
                "the global region holds {} elements but the shared region holds {}",
                g.map_or("too many".to_string(), |v| v.to_string()),
                s.map_or("too many".to_string(), |v| v.to_string())
            ),
        ));
    }
    Ok(())
}
