//! Step 2, the shared side: the shared layout's swizzle mode, its plain iters on `m`, and the match of the sliced
//! region to the mode's swizzle atom in memory order.

use super::super::TmaRequest;
use super::{stage, TmaError, TmaStage};
use crate::axis::Axis;
use crate::canonicalize::canonicalize;
use crate::layout::{ComposeLayout, Layout};
use crate::notation::shape_text;
use crate::swizzle::{Swizzle, SwizzleMode};
use crate::tile_layout::TileLayout;
use crate::tile_of::outer_of;
use std::collections::BTreeMap;

/// The swizzle mode of the shared layout, or a refusal when its swizzle is not CUDA's for the element size.
pub(super) fn shared_mode(req: &TmaRequest<'_>) -> Result<SwizzleMode, TmaError> {
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
pub(super) fn plain_iters(tile: &TileLayout, s: TmaStage, what: &str) -> Result<(Vec<(i64, i64)>, i64), TmaError> {
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
pub(super) fn check_atom(req: &TmaRequest<'_>, sliced: &Layout, mode: SwizzleMode) -> Result<(), TmaError> {
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
}
