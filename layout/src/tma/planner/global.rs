//! Step 3, the global side: every non-unit iter of the grouped global layout is a candidate descriptor dimension,
//! the region is read as a box of each dimension's digits (a straddling region cut into chunks), and each run-time
//! offset becomes a term on its dimension's outermost digit.

use super::super::{Direction, DynamicOffset, TmaRequest};
use super::{gcd, rule, shared::plain_iters, stage, Dim, GIter, Term, TmaError, TmaRule, TmaStage, Wrap};
use crate::axis::Axis;
use crate::canonicalize::canonicalize;
use crate::group::{group, Grouped};
use crate::iter::Iter;
use crate::layout::Layout;
use crate::notation::shape_text;

/// What the global side gives the planner.
pub(super) struct GlobalSide {
    /// The candidate descriptor dimensions.
    pub(super) dims: Vec<Dim>,
    /// The region's box iters in copy order.
    pub(super) g_iters: Vec<GIter>,
    /// The layout's offset on `m`, in elements.
    pub(super) offset: i64,
    /// The run-time offsets' terms.
    pub(super) terms: Vec<Term>,
    /// The straddling regions' chunkings.
    pub(super) wraps: Vec<Wrap>,
}

/// One global dimension's region read as digits of its layout's iters.
struct Digits {
    /// The non-unit digits, innermost first: the candidate dimension, the positions boxed, and the extent product
    /// of the digits inside it (the coordinate step of a run-time offset on it).
    per_dim: Vec<(Dim, i64, i64)>,
    /// A straddling region: (index into `per_dim` of the pivot, chunk, chunks).
    straddle: Option<(usize, i64, i64)>,
}

/// The global side: descriptor dimensions (every non-unit iter of the global layout grouped by its shape), the
/// region's box iters in copy order, the layout's offset on `m`, and the run-time offsets' terms (each on its
/// dimension's outermost digit, refused unless it moves that digit alone).
pub(super) fn global_side(req: &TmaRequest<'_>, dynamic: &[DynamicOffset]) -> Result<GlobalSide, TmaError> {
    check_plain(req)?;
    // No slice of the global layout is needed: the region is read digit by digit below (a straddling region, which
    // no single slice expresses, is cut into chunks there).
    let grouped = grouped(req)?;
    let layout = &grouped.layout;
    let offset = layout.offset().get(&Axis::M).copied().unwrap_or(0);
    let mut side = GlobalSide { dims: Vec::new(), g_iters: Vec::new(), offset, terms: Vec::new(), wraps: Vec::new() };
    for (d, &region) in req.global_region.iter().enumerate() {
        let block = layout.shard().get(grouped.seps[d]..grouped.seps[d + 1]).unwrap_or(&[]);
        let digits = read_digits(req, d, region, block)?;
        let terms = dynamic_terms(d, region, dynamic, &digits, side.dims.len())?;
        side.terms.extend(terms);
        push_dimension(&mut side, digits);
    }
    if req.direction == Direction::S2G {
        check_store_injective(&side.dims, &side.g_iters, &side.wraps)?;
    }
    Ok(side)
}

/// The global layout is unswizzled (a tensor map addresses global memory linearly) and plain on `m`.
fn check_plain(req: &TmaRequest<'_>) -> Result<(), TmaError> {
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
    Ok(())
}

/// The canonical global layout grouped by the global shape, one block of iters per dimension.
fn grouped(req: &TmaRequest<'_>) -> Result<Grouped, TmaError> {
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
    if grouped.seps.len() != req.global_shape.len() + 1 {
        return Err(stage(
            TmaStage::GlobalShape,
            format!("grouping returned {} blocks", grouped.seps.len().saturating_sub(1)),
        ));
    }
    Ok(grouped)
}

/// Global dimension `d`'s region `b:end` as a box of its iters' digits, innermost first: inner digits in full from
/// 0, one pivot digit with a partial range, outer digits fixed; a region straddling the pivot's boundary is cut into
/// chunks of `gcd(start digit, length, extent)` positions.
fn read_digits(req: &TmaRequest<'_>, d: usize, (b, end): (i64, i64), block: &[Iter]) -> Result<Digits, TmaError> {
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
        if it.stride == 0 && w > 1 && req.direction == Direction::S2G {
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
            format!(
                "global dimension {d}: the region {b}:{end} leaves {rem} positions uncovered by the layout's digits"
            ),
        ));
    }
    Ok(Digits { per_dim, straddle })
}

/// The run-time offsets of global dimension `d` as terms on its outermost digit (candidate dimension `first`, the
/// first pushed), refused on a straddling region or unless each moves whole steps of that digit.
fn dynamic_terms(
    d: usize,
    (b, end): (i64, i64),
    dynamic: &[DynamicOffset],
    digits: &Digits,
    first: usize,
) -> Result<Vec<Term>, TmaError> {
    if let Some(k) = dynamic.iter().position(|o| o.dim == d).filter(|_| digits.straddle.is_some()) {
        return Err(rule(
            TmaRule::DynamicOffset,
            format!(
                "global dimension {d}: the region {b}:{end} straddles a digit boundary of the layout (one box \
                 per chunk, coordinates from a mixed-radix walk), which a run-time offset {k} would move off \
                 its chunks; only a static region is planned"
            ),
        ));
    }
    let mut terms = Vec::new();
    for (k, offset) in dynamic.iter().enumerate().filter(|(_, o)| o.dim == d) {
        // The outermost digit is pushed first: it becomes candidate dimension `first`.
        let Some(&(outer, _, step)) = digits.per_dim.last() else {
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
        terms.push(Term { dim: first, offset: k, divisor: step, multiple: offset.multiple });
    }
    Ok(terms)
}

/// Appends one dimension's digits as candidate dimensions (outermost first) and box iters in copy order, with a
/// straddling region's chunk index walking slowest within the dimension's region.
fn push_dimension(side: &mut GlobalSide, digits: Digits) {
    let Digits { per_dim, straddle } = digits;
    let first = side.dims.len();
    let n = per_dim.len();
    // per_dim[j] (innermost first) becomes candidate dimension first + n - 1 - j.
    let wrap = straddle.map(|(pivot, chunk, count)| {
        let chain: Vec<(usize, i64)> = (pivot..n).map(|j| (first + n - 1 - j, per_dim[j].0.global_dim)).collect();
        let mut base = 0i64;
        for j in (pivot..n).rev() {
            base = base * per_dim[j].0.global_dim + per_dim[j].0.start;
        }
        side.wraps.push(Wrap { dims: chain, base, chunk });
        (first + n - 1 - pivot, count, side.wraps.len() - 1)
    });
    for (dim, w, _) in per_dim.into_iter().rev() {
        let idx = side.dims.len();
        side.dims.push(dim);
        if let Some((pivot, count, w_idx)) = wrap.filter(|&(p, _, _)| p == idx) {
            // The chunk index walks slowest within this dimension's region.
            side.g_iters.push(GIter { extent: count, dim: pivot, step: 1, wrap: Some(w_idx) });
        }
        if w > 1 {
            side.g_iters.push(GIter { extent: w, dim: idx, step: 1, wrap: None });
        }
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
