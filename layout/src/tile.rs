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
//! **Swizzles**: a ComposeLayout inner `swz o A` tiles its tile and keeps the swizzle, `L_T = swz(span(A) (.) B +
//! A)` (TIRx); B must then be on `m`. That is the equation above, `span(A) (.) B(x_o) + swz(A(x_i))`, exactly when
//! every value B takes on `m`, scaled by `span(A, m)`, is a multiple of the swizzle's period `P = 2^(M+B+S)`: the
//! swizzle only permutes the address bits below `P`, so `swz(s + a) = s + swz(a)` for every multiple `s` of `P`.
//! Otherwise the tiled address would be swizzled as a whole (its row bits reaching the inner's chunk bits) and no
//! layout meets the equation, so [`tile`] refuses it (the *swizzle period* rule, [`check_whole_periods`]). A bare
//! swizzle whose period differs from `prod(inner_shape)` stands for the identity `S[prod(inner_shape):1]` under the
//! swizzle, as in TIRx.

use crate::arith::{add, mul};
use crate::axis::Axis;
use crate::error::{LayoutError, Result};
use crate::group::group_shard;
use crate::iter::Iter;
use crate::layout::Layout;
use crate::notation::shape_text;
use crate::swizzle::Swizzle;
use crate::tile_layout::TileLayout;
use std::borrow::Cow;
use std::collections::BTreeMap;

/// tile(inner, outer): the layout over shape `outer_shape[i] * inner_shape[i]` with
/// `L(x_outer * inner_shape + x_inner) = span(inner) (.) outer(x_outer) + inner(x_inner)` (App. C, Theorem C.2).
///
/// Fails when the ranks differ, a shape is not admitted, either layout does not group by its shape (App. B), or
/// a swizzled inner meets an outer that is not on `m` or moves it by other than whole swizzle periods (the equation
/// would not hold, see the module documentation).
pub fn tile(inner: &Layout, outer: &TileLayout, inner_shape: &[i64], outer_shape: &[i64]) -> Result<Layout> {
    let base = acting_tile(inner, inner_shape)?;
    let tiled = tile_tile(&base, outer, inner_shape, outer_shape)?;
    if let Some(sw) = inner.swizzle() {
        check_whole_periods(sw, outer, base.span_on(Axis::M), "outer")
            .map_err(|e| LayoutError::new(format!("cannot tile: {}", e.message)))?;
    }
    inner.with_tile(tiled)
}

/// The swizzle period rule of [`tile`] and [`crate::direct_sum::direct_sum`]: every value `shift` takes on `m`,
/// times `scale`, is a multiple of the period of `swizzle`, so that `swizzle(scale * s + a) = scale * s +
/// swizzle(a)` and the swizzled operand keeps its own swizzle wherever the other operand moves it. A value set
/// `sum of digit * stride + offset` is all multiples of `P` exactly when every stride of an iter of extent above 1
/// and the offset are. `what` names `shift` in the message.
pub fn check_whole_periods(swizzle: Swizzle, shift: &TileLayout, scale: i64, what: &str) -> Result<()> {
    let period = i128::from(swizzle.period());
    let moves = shift.shard().iter().chain(shift.replica()).filter(|i| i.axis == Axis::M && i.extent > 1);
    let steps = moves.map(|i| ("stride", i.stride)).chain(shift.offset().get(&Axis::M).map(|&o| ("offset", o)));
    for (kind, value) in steps {
        let moved = i128::from(value) * i128::from(scale);
        if moved % period != 0 {
            return Err(LayoutError::new(format!(
                "swizzle period rule: the {what}'s {kind} {value} on m{} moves the swizzled layout by {moved} \
                 elements, not a multiple of {swizzle}'s period {period}, so the swizzle would not commute with the \
                 move (swizzle(s + a) != s + swizzle(a))",
                if scale == 1 { String::new() } else { format!(" times span {scale}") }
            )));
        }
    }
    Ok(())
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

/// The shape rule for the operands of [`tile`], [`crate::tile_of`] and [`crate::direct_sum`]: `layout` admits
/// `shape`, except that a bare swizzle admits any shape (it stands for the swizzle over `S[prod(shape):1]`, as in
/// TIRx). The CLI and the Python package check operands with this one rule, so both accept what the operations do.
pub fn admit_operand(layout: &Layout, shape: &[i64]) -> Result<()> {
    acting_tile(layout, shape)?.admits(shape)
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
        // Period 512 != 16*64: identity over 1024 elements, span 1024, the outer's strides scaled to 2048, 1024.
        let t = tile(&inner, &tl("S[2:1]"), &[16, 64], &[1, 2]).unwrap();
        assert_eq!(t.tile(), &tl("S[(1,16,2,64):(1024,64,1024,1)]"));
        assert!(tile(&inner, &tl("S[2:1@laneid]"), &[512], &[2]).is_err());
    }

    /// Period 512 != 8*8: identity over 64 elements, span 64. The outer moves the second copy by 64 elements, whose
    /// bit 6 is a row bit of Swizzle(3,3,3): swizzle(64 + 8) = 64 + 0 but 64 + swizzle(8) = 72, so no layout meets
    /// the equation and tile refuses, naming the move and the period.
    #[test]
    fn a_swizzled_inner_moved_by_part_of_a_period_is_refused() {
        let sw = Swizzle::new(3, 3, 3).unwrap();
        assert_eq!((sw.apply(72), 64 + sw.apply(8)), (64, 72));
        let inner = Layout::Compose(ComposeLayout::bare(sw));
        let err = tile(&inner, &tl("S[2:1]"), &[8, 8], &[1, 2]).unwrap_err();
        assert!(err.message.starts_with("cannot tile: swizzle period rule: the outer's stride 1 on m times span 64"));
        assert!(err.message.contains("by 64 elements, not a multiple of Swizzle(3,3,3)'s period 512"), "{err}");
        // An offset counts too: one period (span 512) offset by 1 * 512 is fine; one row (span 64) offset by 64 is not.
        let rows = Layout::Compose(ComposeLayout::new(sw, tl("S[(8,64):(64,1)]")).unwrap());
        let t = tile(&rows, &tl("S[2:1] + 1"), &[8, 64], &[2, 1]).unwrap();
        assert_eq!(t.tile().offset().get(&Axis::M), Some(&512));
        let half_row = Layout::Compose(ComposeLayout::new(sw, tl("S[(1,64):(64,1)]")).unwrap());
        let err = tile(&half_row, &tl("S[1:1] + 1"), &[1, 64], &[1, 1]).unwrap_err();
        assert!(
            err.message.contains("the outer's offset 1 on m times span 64 moves the swizzled layout by 64 "),
            "{err}"
        );
        let half = Layout::Compose(ComposeLayout::new(sw, tl("S[(4,64):(64,1)]")).unwrap());
        // Half a period (span 256): a stride of 2 moves by 512, a stride of 1 by 256.
        assert!(tile(&half, &tl("S[2:2]"), &[4, 64], &[2, 1]).is_ok());
        let err = tile(&half, &tl("S[2:1]"), &[4, 64], &[2, 1]).unwrap_err();
        assert!(
            err.message.contains("stride 1 on m times span 256 moves the swizzled layout by 256 elements"),
            "{err}"
        );
    }

    #[test]
    fn rank_mismatch_and_ungroupable_shapes_are_errors() {
        let err = tile_tile(&tl("S[4:1]"), &tl("S[2:1]"), &[4], &[1, 2]).unwrap_err();
        assert!(err.message.contains("equal rank"), "{err}");
        let err = tile_tile(&tl("S[(2,3):(1,2)]"), &tl("S[1:1]"), &[3, 2], &[1, 1]).unwrap_err();
        assert!(err.message.contains("dimension 0"), "{err}");
    }
}
