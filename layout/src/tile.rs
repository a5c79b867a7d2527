//! Tiling (paper App. C).
//!
//! `tile(A, B)` lays copies of the inner layout A out according to the outer layout B. Over the shape
//! `T_i = O_i * I_i` (`O` = `outer_shape`, `I` = `inner_shape`), with the tiled coordinate
//! `X_i = x_outer_i * I_i + x_inner_i`:
//!
//! ```text
//! L_T(X) = span(A) (.) L_B(x_outer) + L_A(x_inner)      (Theorem C.2; sets: every b in L_B, every a in L_A)
//! ```
//!
//! `span(A)` is the vector of axis-wise spans (Lemma C.1, semantics.md): `span(A, a) = 1 + sum (e-1)*|s|` over
//! A's shard and replica iters on `a`, plus `O_A[a]`. **The scaled axes** are every axis A mentions (shard,
//! replica or offset); on any other axis the span is 1, so scaling it is the identity. This follows the paper's
//! equation rather than TIRx, which scales only axes of A's *shard* and only B's *shard*: here B's shard strides,
//! replica strides and offset are all scaled (App. C.3). Spans are used as computed, even when a negative offset
//! makes one zero or negative: the equation still holds.
//!
//! **Construction** (App. C.3): group B by `outer_shape` and A by `inner_shape` (App. B), then per dimension `i`
//! emit B's block `i` with scaled strides followed by A's block `i`; replica = A's replica ++ scaled B's replica;
//! offset = `span(A) (.) O_B + O_A`. The result is **not canonicalized**: its shard is grouped by the interleaved
//! shape `(O_0, I_0, O_1, I_1, ...)` and hence by `T` (Proposition C.3); call [`Layout::canonical`] for the
//! canonical form.
//!
//! **Swizzles**: a ComposeLayout inner tiles its tile and keeps the swizzle, `L_T = swz(span(A) (.) B + A)`;
//! B must then be on `m`. A bare swizzle whose period differs from `prod(inner_shape)` stands for the identity
//! `S[prod(inner_shape):1]` under the swizzle, as in TIRx.

use crate::arith::{add, mul};
use crate::axis::Axis;
use crate::error::{LayoutError, Result};
use crate::group::group_shard;
use crate::iter::Iter;
use crate::layout::Layout;
use crate::notation::shape_text;
use crate::tile_layout::TileLayout;
use std::borrow::Cow;
use std::collections::BTreeMap;

/// tile(inner, outer): the layout over shape `outer_shape[i] * inner_shape[i]` with
/// `L(x_outer * inner_shape + x_inner) = span(inner) (.) outer(x_outer) + inner(x_inner)` (App. C, Theorem C.2).
///
/// Fails when the ranks differ, a shape is not admitted, either layout does not group by its shape (App. B), or
/// a swizzled inner meets an outer that is not on `m`.
pub fn tile(inner: &Layout, outer: &TileLayout, inner_shape: &[i64], outer_shape: &[i64]) -> Result<Layout> {
    let base = acting_tile(inner, inner_shape)?;
    let tiled = tile_tile(&base, outer, inner_shape, outer_shape)?;
    inner.with_tile(tiled)
}

/// [`tile`] for plain tile layouts: App. C.3's construction with `span(inner)` as the scale.
pub fn tile_tile(
    inner: &TileLayout,
    outer: &TileLayout,
    inner_shape: &[i64],
    outer_shape: &[i64],
) -> Result<TileLayout> {
    // span(inner) on an axis it does not mention is 1, as in [`span_vector`].
    let scale = |a: Axis| inner.span_on(a);
    interleave(outer, inner, outer_shape, inner_shape, &scale)
        .map_err(|e| LayoutError::new(format!("cannot tile: {}", e.message)))
}

/// The axis-wise span of `layout` (Lemma C.1) on every axis it mentions; absent axes have span 1.
pub fn span_vector(layout: &TileLayout) -> BTreeMap<Axis, i64> {
    layout.axes().into_iter().map(|a| (a, layout.span_on(a))).collect()
}

/// The tile a ComposeLayout operand contributes: its own, or the identity over `shape` for a bare swizzle whose
/// period differs from the shape's size (TIRx `strip_swizzle_to_tile`).
pub fn tile_under_swizzle(layout: &Layout, shape: &[i64]) -> Result<TileLayout> {
    acting_tile(layout, shape).map(Cow::into_owned)
}

/// [`tile_under_swizzle`], borrowing the layout's own tile where it is the one.
pub(crate) fn acting_tile<'a>(layout: &'a Layout, shape: &[i64]) -> Result<Cow<'a, TileLayout>> {
    match layout {
        Layout::Compose(c) if c.is_bare() && Some(c.tile().size()) != shape_size(shape) => {
            let size = shape_size(shape)
                .ok_or_else(|| LayoutError::new(format!("shape {} has too many elements", shape_text(shape))))?;
            TileLayout::row_major(&[size]).map(Cow::Owned)
        }
        _ => Ok(Cow::Borrowed(layout.tile())),
    }
}

fn shape_size(shape: &[i64]) -> Option<i64> {
    shape.iter().try_fold(1i64, |acc, &d| acc.checked_mul(d))
}

/// Interleaves `left` grouped by `left_shape` with `right` grouped by `right_shape`, dimension by dimension
/// (left block first), scaling every stride and offset of `left` on axis `a` by `scale(a)`; replica is the
/// union and offsets add. With `scale = span(right)` this is tiling (App. C.3), with `scale = 1` the direct sum
/// (App. F).
pub fn interleave(
    left: &TileLayout,
    right: &TileLayout,
    left_shape: &[i64],
    right_shape: &[i64],
    scale: &dyn Fn(Axis) -> i64,
) -> Result<TileLayout> {
    if left_shape.len() != right_shape.len() {
        return Err(LayoutError::new(format!(
            "shapes must have equal rank, got {} (rank {}) and {} (rank {})",
            shape_text(left_shape),
            left_shape.len(),
            shape_text(right_shape),
            right_shape.len()
        )));
    }
    let (l, r) = (group_shard(left, left_shape)?, group_shard(right, right_shape)?);
    let mut shard = Vec::with_capacity(l.shard.len() + r.shard.len());
    for i in 0..l.rank() {
        for it in l.block(i) {
            shard.push(scaled(it, scale)?);
        }
        shard.extend_from_slice(r.block(i));
    }
    let mut replica = Vec::with_capacity(left.replica().len() + right.replica().len());
    replica.extend_from_slice(right.replica());
    for it in left.replica() {
        replica.push(scaled(it, scale)?);
    }
    TileLayout::new(shard, replica, summed_offsets(left, right, scale)?)
}

/// The iter with its stride multiplied by `scale(axis)`.
fn scaled(it: &Iter, scale: &dyn Fn(Axis) -> i64) -> Result<Iter> {
    Iter::new(it.extent, mul(it.stride, scale(it.axis), "a scaled stride")?, it.axis)
}

/// `scale (.) O_left + O_right`, axis by axis (grouping leaves offsets untouched, so they are the operands').
fn summed_offsets(left: &TileLayout, right: &TileLayout, scale: &dyn Fn(Axis) -> i64) -> Result<BTreeMap<Axis, i64>> {
    let mut offset = right.offset().clone();
    for (&a, &v) in left.offset() {
        let entry = offset.entry(a).or_insert(0);
        *entry = add(*entry, mul(v, scale(a), "a scaled offset")?, "a summed offset")?;
    }
    Ok(offset)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::ComposeLayout;
    use crate::swizzle::Swizzle;

    fn tl(text: &str) -> TileLayout {
        text.parse().unwrap()
    }

    #[test]
    fn tirx_example_interleaves_and_scales_by_the_inner_span() {
        let t = tile_tile(&tl("S[(2,4):(1,2)]"), &tl("S[(8,8):(8,1)]"), &[2, 4], &[8, 8]).unwrap();
        assert_eq!(t, tl("S[(8,2,8,4):(64,1,8,2)]"));
        assert_eq!(t.canonical(), tl("S[(8,2,32):(64,1,2)]"));
    }

    #[test]
    fn outer_replica_and_offset_are_scaled_too() {
        // Inner span on warpid is 2 (from its replica), on m 4 (shard 0..3, no offset).
        let inner = tl("S[4:1] + R[2:1@warpid]");
        let outer = tl("S[2:1@warpid] + R[2:1] + 1@warpid + 1");
        let t = tile_tile(&inner, &outer, &[4], &[2]).unwrap();
        assert_eq!(t, tl("S[(2,4):(2@warpid,1)] + R[(2,2):(1@warpid,4)] + 2@warpid + 4"));
    }

    #[test]
    fn thread_layouts_scale_per_axis() {
        let inner = tl("S[(8,4):(4@laneid,1@laneid)]");
        let outer = tl("S[(2,2):(1@warpid,1@laneid)]");
        let t = tile_tile(&inner, &outer, &[8, 4], &[2, 2]).unwrap();
        assert_eq!(t, tl("S[(2,8,2,4):(1@warpid,4@laneid,32@laneid,1@laneid)]"));
    }

    #[test]
    fn swizzle_is_kept_and_bare_swizzles_become_identities() {
        let sw = Swizzle::new(3, 3, 3).unwrap();
        let inner = Layout::Compose(ComposeLayout::bare(sw));
        let t = tile(&inner, &tl("S[(2,2):(2,1)]"), &[8, 64], &[2, 2]).unwrap();
        assert_eq!(t.swizzle(), Some(sw));
        assert_eq!(t.tile(), &tl("S[(2,8,2,64):(1024,64,512,1)]"));
        // Period 512 != 8*8: identity over 64 elements.
        let t = tile(&inner, &tl("S[2:1]"), &[8, 8], &[1, 2]).unwrap();
        assert_eq!(t.tile(), &tl("S[(1,8,2,8):(64,8,64,1)]"));
        assert!(tile(&inner, &tl("S[2:1@laneid]"), &[512], &[2]).is_err());
    }

    #[test]
    fn rank_mismatch_and_ungroupable_shapes_are_errors() {
        let err = tile_tile(&tl("S[4:1]"), &tl("S[2:1]"), &[4], &[1, 2]).unwrap_err();
        assert!(err.message.contains("equal rank"), "{err}");
        let err = tile_tile(&tl("S[(2,3):(1,2)]"), &tl("S[1:1]"), &[3, 2], &[1, 1]).unwrap_err();
        assert!(err.message.contains("dimension 0"), "{err}");
    }
}
