//! The TMA planner: slice, match the swizzle atom, co-group, search the largest box, emit the issues (see the
//! parent module's documentation for the algorithm and the alignment decisions).

use super::{
    validate, CoordinateTerm, DynamicOffset, ElemType, Interleave, OobFill, SharedTerm, TensorMapDataType,
    TensorMapDesc, TmaError, TmaIssue, TmaPlan, TmaRequest, TmaRule, TmaStage,
};
use crate::axis::Axis;
use crate::canonicalize::canonicalize;
use crate::group::group;
use crate::layout::{ComposeLayout, Layout};
use crate::notation::shape_text;
use crate::slice::slice;
use crate::swizzle::{Swizzle, SwizzleMode};
use crate::tile_layout::TileLayout;
use crate::tile_of::outer_of;
use std::collections::BTreeMap;

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
    let mode = shared_mode(req)?;
    let sliced = slice(req.shared, req.shared_shape, req.shared_region)
        .map_err(|e| stage(TmaStage::SharedSlice, e.to_string()))?;
    let (s_iters, s_base) = plain_iters(sliced.tile(), TmaStage::SharedLayout, "shared")?;
    check_atom(req, &sliced, mode)?;
    let (dims, g_iters, g_offset, terms, wraps) = global_side(req, dynamic)?;
    let joints = co_group(&g_iters, &s_iters)?;
    let base = Problem {
        esize: req.dtype.bytes(),
        dtype: req.dtype.tensor_map_type(),
        dims,
        joints,
        sbase: s_base,
        terms,
        wraps,
    };
    let region_elems: i64 = req.shared_region.iter().map(|(b, e)| e - b).product();
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
            match promote(&base, f) {
                Some(p) => p,
                None => continue,
            }
        };
        match search(&prob, mode, req, global_offset_bytes, region_elems) {
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
    let Some(best) = best else {
        return Err(natural_err.unwrap_or_else(|| stage(TmaStage::Box, "no legal box")));
    };
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

/// The swizzle mode of the shared layout, or a refusal when its swizzle is not CUDA's for the element size.
fn shared_mode(req: &TmaRequest<'_>) -> Result<SwizzleMode, TmaError> {
    let bits = (req.dtype.bytes() * 8) as u32;
    match req.shared.swizzle() {
        None => Ok(SwizzleMode::None),
        Some(sw) => sw.mode_for_dtype(bits).ok_or_else(|| {
            let expected: Vec<String> = [SwizzleMode::B32, SwizzleMode::B64, SwizzleMode::B128]
                .into_iter()
                .filter_map(|m| Swizzle::for_dtype(bits, m).ok().flatten().map(|s| format!("{s} ({})", m.name())))
                .collect();
            stage(
                TmaStage::SharedSwizzle,
                format!(
                    "{sw} is not a TMA swizzle for {}-bit elements (expected one of {})",
                    bits,
                    expected.join(", ")
                ),
            )
        }),
    }
}

/// The shard of a plain layout on `m` (no replica, no other axis), unit iters dropped and adjacent iters fused,
/// outermost first, plus its offset on `m`.
fn plain_iters(tile: &TileLayout, s: TmaStage, what: &str) -> Result<(Vec<(i64, i64)>, i64), TmaError> {
    let canon = canonicalize(&Layout::Tile(tile.clone())).layout;
    let tile = canon.tile();
    if !tile.replica().is_empty() {
        let cluster = tile.replica().iter().any(|i| {
            matches!(
                i.axis.kind(),
                crate::axis::AxisKind::Thread {
                    unit: crate::axis::ExecScope::Cta,
                    within: crate::axis::ExecScope::Cluster
                }
            )
        });
        let hint =
            if cluster { " (a replica over a cluster's CTA axes is a multicast load: plan_multicast)" } else { "" };
        return Err(stage(
            s,
            format!("the {what} layout has replica iters; a TMA copy needs one address per element{hint}"),
        ));
    }
    if let Some(a) = tile.axes().into_iter().find(|a| *a != Axis::M) {
        return Err(stage(
            s,
            format!("the {what} layout uses axis '{a}'; a TMA copy needs a layout on memory axis m only"),
        ));
    }
    let offset = tile.offset().get(&Axis::M).copied().unwrap_or(0);
    Ok((fuse(tile.shard().iter().map(|i| (i.extent, i.stride))), offset))
}

/// Drops unit iters and fuses `(e1,s1),(e2,s2)` with `s1 == e2*s2` (outermost first in and out).
fn fuse(iters: impl DoubleEndedIterator<Item = (i64, i64)>) -> Vec<(i64, i64)> {
    let mut out: Vec<(i64, i64)> = Vec::new();
    for (e, s) in iters.rev().filter(|(e, _)| *e > 1) {
        match out.last_mut() {
            Some(last) if last.0.checked_mul(last.1) == Some(s) => {
                last.0 *= e;
            }
            _ => out.push((e, s)),
        }
    }
    out.reverse();
    out
}

/// The mode's atom in memory order: one swizzle row `Swizzle o S[span/elem]` for the swizzled modes, one 16-byte
/// chunk `S[16/elem]` unswizzled; shaped `[1, .., 1, n]` to `rank` dimensions.
///
/// One row, not the 8 rows of a full swizzle period: the hardware swizzles absolute addresses, so a box of any whole
/// number of rows at any 128-byte aligned row start lands where the layout's swizzle (relative to the tensor's base,
/// aligned to the period) says; a consumer that needs whole periods (a wgmma descriptor) checks that itself.
fn atom(esize: i64, mode: SwizzleMode, rank: usize) -> Result<(Layout, Vec<i64>), crate::LayoutError> {
    let bits = (esize * 8) as u32;
    let row = match mode {
        SwizzleMode::None => 16 / esize,
        m => m.bytes() / esize,
    };
    let mut shape = vec![1; rank.max(1)];
    if let Some(last) = shape.last_mut() {
        *last = row;
    }
    let tile = TileLayout::row_major(&shape)?;
    let layout = match Swizzle::for_dtype(bits, mode)? {
        None => Layout::Tile(tile),
        Some(sw) => Layout::Compose(ComposeLayout::new(sw, tile)?),
    };
    Ok((layout, shape))
}

/// The sliced shared region in memory order: its shard iters on `m` sorted by stride (outermost first), unit iters
/// dropped and contiguous neighbours merged, so logical dimensions that are one contiguous run in memory (a
/// row-major `32x8` u8 tile: 256 bytes) are one iter, and the stride-1 iter is last whichever logical dimension it
/// belongs to (column-major and permuted layouts). `None` when a stride is not positive (the `shared-chain` stage
/// refuses those with its own message).
fn memory_order(sliced: &Layout) -> Option<Vec<(i64, i64)>> {
    let mut iters: Vec<(i64, i64)> =
        sliced.tile().shard().iter().filter(|i| i.extent > 1).map(|i| (i.extent, i.stride)).collect();
    if iters.iter().any(|&(_, s)| s <= 0) {
        return None;
    }
    iters.sort_by_key(|&(e, s)| (std::cmp::Reverse(s), e));
    let fused = fuse(iters.into_iter());
    Some(if fused.is_empty() { vec![(1, 1)] } else { fused })
}

/// Paper section 3.4 step 2, in memory order: the sliced shared region (offset removed), its iters sorted by stride
/// and contiguous runs merged ([`memory_order`]), must be a tile of the swizzle mode's atom ([`atom`]), checked with
/// [`crate::tile_of::outer_of`]. Matching in memory order rather than in the logical order makes the check
/// independent of which logical dimension is contiguous and of how a contiguous run is cut into dimensions; the
/// copy order (which element goes where) is kept by the co-grouping of step 4.
fn check_atom(req: &TmaRequest<'_>, sliced: &Layout, mode: SwizzleMode) -> Result<(), TmaError> {
    let fail = |e: String| stage(TmaStage::SharedAtom, e);
    let Some(mut view) = memory_order(sliced) else {
        return Ok(());
    };
    // A swizzled row narrower than the span (whole 16-byte chunks) is padded to the span by the hardware: the rest
    // of the region must then be whole rows, which the view with that row widened to the span checks.
    if let (Some(inner), SwizzleMode::B32 | SwizzleMode::B64 | SwizzleMode::B128) = (view.last().copied(), mode) {
        let (row, esize) = (mode.bytes() / req.dtype.bytes(), req.dtype.bytes());
        if inner.1 == 1
            && inner.0 < row
            && (inner.0 * esize) % 16 == 0
            && view.iter().rev().skip(1).all(|i| i.1 % row == 0)
        {
            let n = view.len();
            view[n - 1] = (row, 1);
            view = fuse(view.into_iter());
        }
    }
    let ext: Vec<i64> = view.iter().map(|&(e, _)| e).collect();
    let (atom, atom_shape) = atom(req.dtype.bytes(), mode, ext.len()).map_err(|e| fail(e.to_string()))?;
    let shard: Vec<crate::iter::Iter> = view
        .iter()
        .map(|&(e, s)| crate::iter::Iter::new(e, s, Axis::M))
        .collect::<Result<_, _>>()
        .map_err(|e| fail(e.to_string()))?;
    let shard_only = TileLayout::new(shard, vec![], BTreeMap::new()).map_err(|e| fail(e.to_string()))?;
    let tiled = sliced.with_tile(shard_only).map_err(|e| fail(e.to_string()))?;
    let why = match mode {
        SwizzleMode::None => "a TMA box is written densely, its rows a multiple of 16 bytes".to_string(),
        m => format!("with the {} swizzle a TMA box is written in rows of the {}-byte span", m.name(), m.bytes()),
    };
    // The row is matched on the tiles: the swizzles are the mode's on both sides (`shared_mode`), and the hardware
    // swizzles the absolute address, so what must hold is that the region's addresses are whole rows in memory
    // order, `swz(S[ext]) = swz(tile(row, outer))`; `tile` of the swizzled row itself would refuse outers that move
    // it by part of a swizzle period (its equation, `tile`'s swizzle period rule), which a row always is.
    outer_of(&Layout::Tile(tiled.tile().clone()), &Layout::Tile(atom.tile().clone()), &ext, &atom_shape)
        .map(|_| ())
        .map_err(|e| {
            fail(format!(
                "the shared region {} (in memory order {} of extents {}) is not a tile of the {} atom {} of shape {} \
             ({why}): {e}",
                sliced,
                tiled,
                shape_text(&ext),
                mode.name(),
                atom,
                shape_text(&atom_shape)
            ))
        })
}

/// The global side: descriptor dimensions (every non-unit iter of the global layout grouped by its shape), the
/// region's box iters in copy order, the layout's offset on `m`, and the run-time offsets' terms (each on its
/// dimension's outermost digit, refused unless it moves that digit alone).
#[allow(clippy::type_complexity)]
fn global_side(
    req: &TmaRequest<'_>,
    dynamic: &[DynamicOffset],
) -> Result<(Vec<Dim>, Vec<GIter>, i64, Vec<Term>, Vec<Wrap>), TmaError> {
    let tile = match req.global {
        Layout::Tile(t) => t,
        Layout::Compose(c) => {
            return Err(stage(
                TmaStage::GlobalLayout,
                format!(
                    "the global layout is swizzled ({}); a tensor map addresses global memory linearly",
                    c.swizzle()
                ),
            ))
        }
    };
    plain_iters(tile, TmaStage::GlobalLayout, "global")?;
    // No slice of the global layout is needed: the region is read digit by digit below (a straddling region, which
    // no single slice expresses, is cut into chunks there).
    let canon = canonicalize(req.global).layout;
    let grouped = group(canon.tile(), req.global_shape).map_err(|e| {
        stage(
            TmaStage::GlobalShape,
            format!(
                "the global layout {} does not group by the shape {}: {e}",
                req.global,
                shape_text(req.global_shape)
            ),
        )
    })?;
    let layout = &grouped.layout;
    let offset = layout.offset().get(&Axis::M).copied().unwrap_or(0);
    if grouped.seps.len() != req.global_shape.len() + 1 {
        return Err(stage(
            TmaStage::GlobalShape,
            format!("grouping returned {} blocks", grouped.seps.len().saturating_sub(1)),
        ));
    }
    let mut dims = Vec::new();
    let mut g_iters = Vec::new();
    let mut terms = Vec::new();
    let mut wraps = Vec::new();
    for (d, &(b, end)) in req.global_region.iter().enumerate() {
        let block = layout.shard().get(grouped.seps[d]..grouped.seps[d + 1]).unwrap_or(&[]);
        let mut rem = end - b;
        let mut inner = 1i64;
        let mut per_dim: Vec<(Dim, i64, i64)> = Vec::new();
        // A straddling region: (index into per_dim of the pivot, chunk, chunks).
        let mut straddle: Option<(usize, i64, i64)> = None;
        for (l, it) in block.iter().enumerate().rev() {
            if it.stride < 0 {
                return Err(stage(
                    TmaStage::GlobalLayout,
                    format!(
                        "global dimension {d} has an iter of stride {}; tensor map strides are non-negative",
                        it.stride
                    ),
                ));
            }
            let digit = (b / inner) % it.extent;
            let (w, start) = if rem == 1 {
                (1, digit)
            } else if digit == 0 && rem % it.extent == 0 {
                rem /= it.extent;
                (it.extent, 0)
            } else if digit + rem <= it.extent {
                let w = rem;
                rem = 1;
                (w, digit)
            } else if it.extent > 1 && b % inner == 0 {
                // The region straddles this digit's boundary: chunks of `c` positions, each inside one digit range
                // (c divides the start digit, the length and the extent), one box per chunk; the outer digits are
                // the chunks' coordinates.
                let c = gcd(gcd(digit, rem), it.extent);
                straddle = Some((per_dim.len(), c, rem / c));
                rem = 1;
                (c, digit)
            } else {
                return Err(stage(
                    TmaStage::Coordinate,
                    format!(
                        "global dimension {d}: the region {b}:{end} is not a box of the layout's digits: iter {l} \
                         (extent {}, stride {}) starts at digit {digit} with {rem} positions left to cover",
                        it.extent, it.stride
                    ),
                ));
            };
            if it.stride == 0 && w > 1 && req.direction == super::Direction::S2G {
                return Err(stage(
                    TmaStage::GlobalLayout,
                    format!("global dimension {d} broadcasts (stride 0) over {w} elements; a store would write one address {w} times"),
                ));
            }
            if it.extent > 1 {
                per_dim.push((Dim { global_dim: it.extent, stride: it.stride, start }, w, inner));
            }
            inner = inner.saturating_mul(it.extent);
        }
        if rem != 1 {
            return Err(stage(
                TmaStage::Coordinate,
                format!("global dimension {d}: the region {b}:{end} leaves {rem} positions uncovered by the layout's digits"),
            ));
        }
        if let Some(k) = dynamic.iter().position(|o| o.dim == d).filter(|_| straddle.is_some()) {
            return Err(rule(
                TmaRule::DynamicOffset,
                format!(
                    "global dimension {d}: the region {b}:{end} straddles a digit boundary of the layout (one box \
                     per chunk, coordinates from a mixed-radix walk), which a run-time offset {k} would move off \
                     its chunks; only a static region is planned"
                ),
            ));
        }
        for (k, offset) in dynamic.iter().enumerate().filter(|(_, o)| o.dim == d) {
            // The outermost digit is pushed first below: it becomes candidate dimension `dims.len()`.
            let Some(&(outer, _, step)) = per_dim.last() else {
                return Err(rule(
                    TmaRule::DynamicOffset,
                    format!("global dimension {d} has extent 1, so its run-time offset {k} can only be 0"),
                ));
            };
            if offset.multiple % step != 0 {
                return Err(rule(
                    TmaRule::DynamicOffset,
                    format!(
                        "global dimension {d} moves by a run-time offset known to be a multiple of {}, but the \
                         layout's outermost digit of that dimension (extent {}, stride {}) steps every {step} \
                         elements: the offset must be a multiple of {step} to move whole steps of one coordinate",
                        offset.multiple, outer.global_dim, outer.stride
                    ),
                ));
            }
            terms.push(Term { dim: dims.len(), offset: k, divisor: step, multiple: offset.multiple });
        }
        let first = dims.len();
        let n = per_dim.len();
        // per_dim[j] (innermost first) becomes candidate dimension first + n - 1 - j.
        let wrap = straddle.map(|(pivot, chunk, count)| {
            let chain: Vec<(usize, i64)> = (pivot..n).map(|j| (first + n - 1 - j, per_dim[j].0.global_dim)).collect();
            let mut base = 0i64;
            for j in (pivot..n).rev() {
                base = base * per_dim[j].0.global_dim + per_dim[j].0.start;
            }
            wraps.push(Wrap { dims: chain, base, chunk });
            (first + n - 1 - pivot, count, wraps.len() - 1)
        });
        for (dim, w, _) in per_dim.into_iter().rev() {
            let idx = dims.len();
            dims.push(dim);
            if let Some((pivot, count, w_idx)) = wrap.filter(|&(p, _, _)| p == idx) {
                // The chunk index walks slowest within this dimension's region.
                g_iters.push(GIter { extent: count, dim: pivot, step: 1, wrap: Some(w_idx) });
            }
            if w > 1 {
                g_iters.push(GIter { extent: w, dim: idx, step: 1, wrap: None });
            }
        }
    }
    if req.direction == super::Direction::S2G {
        check_store_injective(&dims, &g_iters, &wraps)?;
    }
    Ok((dims, g_iters, offset, terms, wraps))
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

/// A store writes each global address once: the region's iters, by global stride (in elements), must each step
/// past everything the smaller ones reach (a sufficient condition for injectivity; stride 0 is refused earlier).
///
/// A straddling region's digits count with their whole extents (a superset of what its chunks reach, so the
/// condition stays sufficient).
fn check_store_injective(dims: &[Dim], g_iters: &[GIter], wraps: &[Wrap]) -> Result<(), TmaError> {
    let wrapped = |t: usize| wraps.iter().any(|w| w.dims.iter().any(|&(d, _)| d == t));
    let mut iters: Vec<(i64, i64)> = g_iters
        .iter()
        .filter(|g| !wrapped(g.dim))
        .map(|g| (dims[g.dim].stride.saturating_mul(g.step), g.extent))
        .collect();
    iters.extend(wraps.iter().flat_map(|w| w.dims.iter().map(|&(t, e)| (dims[t].stride, e))));
    iters.sort_unstable();
    let mut reach = 0i64;
    for (stride, extent) in iters {
        if stride <= reach {
            return Err(stage(
                TmaStage::GlobalLayout,
                format!(
                    "the store's global region has an iter of stride {stride} (extent {extent}) that lands within the \
                     {reach} elements the smaller strides already reach: two elements would be written to one address"
                ),
            ));
        }
        reach = reach.saturating_add(stride.saturating_mul(extent - 1));
    }
    Ok(())
}

/// The common refinement of the global box iters and the shared iters (both outermost first, same product).
fn co_group(g: &[GIter], s: &[(i64, i64)]) -> Result<Vec<Joint>, TmaError> {
    let mut out = Vec::new();
    let (mut gi, mut si) = (g.len(), s.len());
    let mut cur_g: Option<GIter> = None;
    let mut cur_s: Option<(i64, i64)> = None;
    loop {
        if cur_g.is_none() && gi > 0 {
            gi -= 1;
            cur_g = Some(g[gi]);
        }
        if cur_s.is_none() && si > 0 {
            si -= 1;
            cur_s = Some(s[si]);
        }
        let (mut a, mut b) = match (cur_g, cur_s) {
            (Some(a), Some(b)) => (a, b),
            (None, None) => break,
            _ => {
                return Err(stage(
                    TmaStage::CoGroup,
                    "the global and shared regions enumerate different element counts",
                ))
            }
        };
        let m = a.extent.min(b.0);
        if a.extent % m != 0 || b.0 % m != 0 {
            return Err(stage(
                TmaStage::CoGroup,
                format!(
                    "the global iter of extent {} (coordinate step {}) and the shared iter {}:{} have no common \
                     refinement ({} and {} do not divide one another)",
                    a.extent, a.step, b.0, b.1, a.extent, b.0
                ),
            ));
        }
        out.push(Joint { extent: m, sstride: b.1, dim: a.dim, step: a.step, wrap: a.wrap });
        a.extent /= m;
        a.step *= m;
        b.0 /= m;
        b.1 *= m;
        cur_g = (a.extent > 1).then_some(a);
        cur_s = (b.0 > 1).then_some(b);
    }
    out.reverse();
    let mut strides: Vec<i64> = out.iter().map(|j| j.sstride).collect();
    if let Some(bad) = strides.iter().find(|&&s| s <= 0) {
        return Err(stage(
            TmaStage::SharedChain,
            format!(
                "the shared region has an iter of stride {bad}; a TMA box is written densely with positive strides"
            ),
        ));
    }
    strides.sort_unstable();
    if let Some(w) = strides.windows(2).find(|w| w[0] == w[1]) {
        return Err(stage(
            TmaStage::SharedChain,
            format!("two shared iters share the stride {}; the layout is not injective", w[0]),
        ));
    }
    Ok(out)
}

/// The copy re-expressed in elements `f` times larger (descriptor type `UINT{8f*esize}`), if the innermost
/// dimension allows it.
fn promote(p: &Problem, f: i64) -> Option<Problem> {
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
fn search(
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

/// One descriptor dimension after ordering (and merging).
#[derive(Clone, Debug)]
struct DescDim {
    global_dim: i64,
    stride: i64,
    start: i64,
    boxed: i64,
    /// The candidate dimensions it covers, innermost first.
    members: Vec<usize>,
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
fn build(
    prob: &Problem,
    joints: &[Joint],
    boxed: &[usize],
    mode: SwizzleMode,
    req: &TmaRequest<'_>,
    global_offset_bytes: i64,
    region_elems: i64,
) -> Result<Candidate, TmaError> {
    let dims = &prob.dims;
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
    let mut order = runs.clone();
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
    let mut ddims: Vec<DescDim> = order
        .iter()
        .map(|&t| DescDim {
            global_dim: dims[t].global_dim,
            stride: dims[t].stride,
            start: dims[t].start,
            boxed: box_of[t],
            members: vec![t],
        })
        .collect();
    // Coordinate scale of each candidate dimension inside its (possibly merged) descriptor dimension.
    let mut scale = vec![1i64; dims.len()];
    let has_issue_iter = |members: &[usize]| joints.iter().zip(&is_boxed).any(|(j, b)| !b && members.contains(&j.dim));
    // Contiguous logical dimensions merge before the inner-box rule is checked: while the innermost box row is too
    // narrow (not a multiple of 16 bytes, or narrower than the swizzle span), the innermost dimension, copied in
    // full from 0 with no issue loop or run-time offset on it, merges into the next one when that one's stride is
    // its extent (a row-major u8 32x8 tile: dimensions of 8 and 32 elements become one of 256).
    let narrow = |boxed: i64| match mode {
        SwizzleMode::None => (boxed * prob.esize) % 16 != 0,
        m => boxed * prob.esize < m.bytes(),
    };
    // Where the box chain jumps to the swizzle span (a padded row): the elements before it, which must be exactly
    // the innermost dimension's box (the hardware pads rows of dimension 0 only); nothing merges across it.
    let pad = boxed.windows(2).find_map(|w| {
        let (a, b) = (joints[w[0]], joints[w[1]]);
        (a.sstride.checked_mul(a.extent) != Some(b.sstride)).then(|| a.sstride * a.extent)
    });
    if let Some(run) = pad {
        if run != box_of[order[0]] || mode == SwizzleMode::None {
            return Err(stage(
                TmaStage::Box,
                format!(
                    "the box's shared rows are {run} elements padded to the swizzle span, but its innermost \
                     dimension boxes {} elements: the hardware pads rows of dimension 0 only",
                    box_of[order[0]]
                ),
            ));
        }
    }
    while pad.is_none() && ddims.len() > 1 && narrow(ddims[0].boxed) {
        let (a, b) = (&ddims[0], &ddims[1]);
        let mergeable = a.global_dim.checked_mul(a.stride) == Some(b.stride)
            && a.boxed == a.global_dim
            && a.start == 0
            && !has_issue_iter(&a.members)
            && !prob.terms.iter().any(|term| a.members.contains(&term.dim));
        if !mergeable {
            break;
        }
        let b = ddims.remove(1);
        merge_into(&mut ddims[0], b, &mut scale);
    }
    // A merged run wider than one legal box row is re-viewed as rows of `row` elements (step 8's re-view).
    let row = rows_of(&ddims[0], mode, prob.esize);
    let first = usize::from(row.is_some());
    while ddims.len() + first > 5 {
        let Some(k) = (first..ddims.len() - 1).find(|&k| {
            let (a, b) = (&ddims[k], &ddims[k + 1]);
            let contiguous = a.global_dim.checked_mul(a.stride) == Some(b.stride);
            let whole = a.boxed == a.global_dim
                && a.start == 0
                && !has_issue_iter(&a.members)
                && !prob.terms.iter().any(|term| a.members.contains(&term.dim));
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
        merge_into(&mut ddims[k], b, &mut scale);
    }
    let owner = |t: usize| ddims.iter().position(|d| d.members.contains(&t)).unwrap_or(0);
    let viewed = match row {
        Some((r, shift)) => split_row(&ddims, r, shift),
        None => ddims.clone(),
    };
    let as_u32 = |v: i64| u32::try_from(v).unwrap_or(u32::MAX);
    let desc = TensorMapDesc {
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
    };
    let shift_bytes = row.map_or(0, |(_, shift)| shift * prob.esize);
    validate(&desc, (global_offset_bytes + shift_bytes) as u64)?;
    let inner_bytes = viewed[0].boxed * prob.esize;
    // A narrower row is padded to the span by the hardware: legal when the box's next rows start at the span (the
    // chain's pad) or the box is a single row.
    let single_row = viewed.iter().skip(1).all(|d| d.boxed == 1);
    let padded_row = inner_bytes < mode.bytes() && inner_bytes % 16 == 0 && (pad.is_some() || single_row);
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
    let loops: Vec<Joint> = joints.iter().zip(&is_boxed).filter(|(_, b)| !**b).map(|(j, _)| *j).collect();
    let count = loops.iter().try_fold(1i64, |acc, j| acc.checked_mul(j.extent).filter(|&c| c <= MAX_ISSUES));
    let Some(count) = count else {
        return Err(stage(TmaStage::Box, format!("the box leaves more than {MAX_ISSUES} issues")));
    };
    let box_elems: i64 = viewed.iter().map(|d| d.boxed).product();
    if box_elems * count * prob.esize != region_elems * req.dtype.bytes() {
        return Err(rule(
            TmaRule::Payload,
            format!(
                "{count} boxes of {} bytes move {} bytes but the shared region holds {} bytes",
                box_elems * prob.esize,
                box_elems * count * prob.esize,
                region_elems * req.dtype.bytes()
            ),
        ));
    }
    let mut issues = Vec::with_capacity(count as usize);
    for idx in 0..count {
        let mut coords: Vec<i64> = ddims.iter().map(|d| d.start).collect();
        let mut smem = prob.sbase;
        let mut rest = idx;
        let mut chunks = vec![0i64; prob.wraps.len()];
        for j in loops.iter().rev() {
            let digit = rest % j.extent;
            rest /= j.extent;
            match j.wrap {
                Some(w) => chunks[w] += digit * j.step,
                None => coords[owner(j.dim)] += digit * j.step * scale[j.dim],
            }
            smem += digit * j.sstride;
        }
        // A straddling region's chunk: its start position's digits replace the start digits.
        for (wrap, &k) in prob.wraps.iter().zip(&chunks) {
            let mut position = wrap.base + k * wrap.chunk;
            for &(t, extent) in &wrap.dims {
                coords[owner(t)] += (position % extent - dims[t].start) * scale[t];
                position /= extent;
            }
        }
        let smem_bytes = smem * prob.esize;
        if smem_bytes % SMEM_ALIGN_BYTES != 0 {
            return Err(rule(
                TmaRule::SmemAlignment,
                format!("issue {idx} writes shared byte offset {smem_bytes}, must be a multiple of {SMEM_ALIGN_BYTES}"),
            ));
        }
        let coords = match row {
            Some((r, shift)) => row_coordinates(&coords, r, shift).ok_or_else(|| {
                stage(
                    TmaStage::Box,
                    format!(
                        "issue {idx} starts the merged contiguous run at element {}, not at a row of {r} from \
                         element {shift}",
                        coords[0]
                    ),
                )
            })?,
            None => coords,
        };
        if let Some(c) = coords.iter().find(|&&c| i32::try_from(c).is_err()) {
            return Err(rule(
                TmaRule::CoordinateRange,
                format!("issue {idx} has coordinate {c}, beyond signed 32 bits"),
            ));
        }
        issues.push(TmaIssue { coordinates: coords, smem_offset_bytes: smem_bytes });
    }
    let dynamic = prob
        .terms
        .iter()
        .map(|term| {
            let t = CoordinateTerm {
                offset: term.offset,
                dim: owner(term.dim),
                divisor: term.divisor,
                scale: scale[term.dim],
            };
            match row {
                Some((r, _)) => row_term(t, term.multiple, r).ok_or_else(|| {
                    stage(
                        TmaStage::Box,
                        format!(
                            "a run-time offset moves the merged contiguous run in steps of {} elements, not whole \
                             rows of {r}",
                            t.scale * (term.multiple / term.divisor.max(1))
                        ),
                    )
                }),
                None => Ok(t),
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Candidate { shift_bytes, box_bytes: box_elems * prob.esize, desc, issues, dynamic })
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

/// An issue's coordinates with the first (on the merged run) cut into rows of `row` from element `shift`:
/// `[0, (c - shift) / row, ..]`, or `None` unless the issue starts at a row (`(c - shift) % row == 0`: the box's
/// first dimension is the whole row).
fn row_coordinates(coords: &[i64], row: i64, shift: i64) -> Option<Vec<i64>> {
    let c = coords[0] - shift;
    (c % row == 0).then(|| [0, c / row].into_iter().chain(coords[1..].iter().copied()).collect())
}

/// A run-time term after the cut into rows of `row`: on a later dimension it moves one index on; on the merged run
/// (coordinate `+= (value / divisor) * scale`, `value` a multiple of `multiple`) it must move whole rows, and then
/// moves the row coordinate by `(value / (divisor * g)) * (scale * g / row)` with `g = row / gcd(scale, row)`.
fn row_term(t: CoordinateTerm, multiple: i64, row: i64) -> Option<CoordinateTerm> {
    if t.dim > 0 {
        return Some(CoordinateTerm { dim: t.dim + 1, ..t });
    }
    let g = row / gcd(t.scale, row);
    let steps = multiple / t.divisor.max(1);
    (steps % g == 0).then(|| CoordinateTerm { dim: 1, divisor: t.divisor * g, scale: t.scale * g / row, ..t })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_layout;

    /// The memory-order view of a layout's shard (by hand: iters by stride, outermost first, contiguous ones fused).
    fn view(text: &str) -> Option<Vec<(i64, i64)>> {
        memory_order(&parse_layout(text).unwrap())
    }

    #[test]
    fn memory_order_merges_contiguous_dimensions_and_puts_stride_one_last() {
        // Row-major u8 32x8: one run of 256.
        assert_eq!(view("S[(32,8):(8,1)]"), Some(vec![(256, 1)]));
        // Column-major 64x32 (rows contiguous): one run of 2048, whichever dimension is logical 0.
        assert_eq!(view("S[(64,32):(1,64)]"), Some(vec![(2048, 1)]));
        // Column panels with padding: (2:2560) outermost, then the panel (32 columns of 64 rows = 2048 contiguous).
        assert_eq!(view("S[(64,2,32):(1,2560,64)]"), Some(vec![(2, 2560), (2048, 1)]));
        // Rows of 4 with gaps stay apart.
        assert_eq!(view("S[(64,4):(8,1)]"), Some(vec![(64, 8), (4, 1)]));
        // A broadcast (stride 0) is left to the shared-chain stage.
        assert_eq!(view("S[(64,64):(0,1)]"), None);
    }

    #[test]
    fn the_atom_is_one_row_in_memory_order() {
        let (atom128, shape) = atom(2, SwizzleMode::B128, 2).unwrap();
        assert_eq!(shape, vec![1, 64]);
        assert_eq!(atom128.to_string(), "Swizzle(3,3,3) o S[(1,64):(64,1)]");
        let (plain, shape) = atom(1, SwizzleMode::None, 1).unwrap();
        assert_eq!((plain.to_string(), shape), ("S[16:1]".to_string(), vec![16]));
    }

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
