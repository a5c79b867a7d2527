//! Direct sum on the interleaved domain (paper App. F).
//!
//! `direct_sum(A, B)` adds two layouts over the interleaved domain, without the span scaling of tiling: over
//! the shape `T_i = left_shape[i] * right_shape[i]`, with `X_i = x_A_i * right_shape[i] + x_B_i`,
//!
//! ```text
//! L(X) = L_A(x_A) + L_B(x_B)        (sets: every a in L_A, every b in L_B)
//! ```
//!
//! Construction: group A by `left_shape` and B by `right_shape` (App. B), emit per dimension A's block then B's
//! block; replica = B's replica ++ A's replica (the multiset union); offsets add. The result is not
//! canonicalized (it stays grouped by the interleaved shape); a ComposeLayout B keeps its swizzle,
//! `L = swz(A + B)`, with the bare-swizzle rule of [`crate::tile`]. That is the equation, `A(x_A) + swz(B(x_B))`,
//! exactly when every value A takes on `m` is a multiple of the swizzle's period (the swizzle permutes only the
//! address bits below it); otherwise no layout meets the equation and the sum is refused (the swizzle period rule
//! of [`crate::tile::check_whole_periods`]): `S[2:4]` (+) `Swizzle(2,1,2) o S[8:2]` would put index 14 at
//! `swz(4 + 12) = 20`, not `4 + swz(12) = 16`.

use crate::error::{LayoutError, Result};
use crate::layout::Layout;
use crate::tile::{check_whole_periods, interleave, tile_under_swizzle};
use crate::tile_layout::TileLayout;

/// direct_sum(A, B): `L(x_A * right_shape + x_B) = A(x_A) + B(x_B)` over shape `left_shape[i] * right_shape[i]`
/// (App. F).
///
/// Fails when the ranks differ, a shape is not admitted, either layout does not group by its shape (App. B), or
/// a swizzled B meets an A that is not on `m` or moves it by other than whole swizzle periods (the equation would
/// not hold, see the module documentation).
pub fn direct_sum(left: &TileLayout, right: &Layout, left_shape: &[i64], right_shape: &[i64]) -> Result<Layout> {
    let fail = |e: LayoutError| LayoutError::new(format!("cannot form the direct sum: {}", e.message));
    let base = tile_under_swizzle(right, right_shape)?;
    let sum = interleave(left, &base, left_shape, right_shape, &|_| 1).map_err(fail)?;
    if let Some(sw) = right.swizzle() {
        check_whole_periods(sw, left, 1, "left layout").map_err(fail)?;
    }
    right.with_tile(sum)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tl(text: &str) -> TileLayout {
        text.parse().unwrap()
    }

    /// App. F / TIRx: `S[(2,2):(8,2)]` (+) `S[(2,2):(4,1)]` over [2,2] x [2,2] is `S[16:1]` once canonicalized.
    #[test]
    fn paper_example_fuses_to_identity() {
        let sum = direct_sum(&tl("S[(2,2):(8,2)]"), &tl("S[(2,2):(4,1)]").into(), &[2, 2], &[2, 2]).unwrap();
        assert_eq!(sum.tile(), &tl("S[(2,2,2,2):(8,4,2,1)]"));
        assert_eq!(sum.canonical(), tl("S[16:1]").into());
    }

    /// The scale-factor layout of block-scaled MMA: an atom with replica, summed with an outer on TCol.
    #[test]
    fn replica_is_the_union_and_offsets_add() {
        let atom: Layout = tl("S[(32,4):(1@TLane,1@TCol)] + R[4:32@TLane]").into();
        let outer = tl("S[2:4@TCol] + 1@TCol");
        let sum = direct_sum(&outer, &atom, &[2, 1], &[32, 4]).unwrap();
        assert_eq!(sum.tile(), &tl("S[(2,32,1,4):(4@TCol,1@TLane,1@TCol,1@TCol)] + R[4:32@TLane] + 1@TCol"));
    }

    /// Issue 22 item 8: index 14 = (x_A 1, x_B 6) would be swz(4 + 12) = 20 (bit 4, a row bit of Swizzle(2,1,2),
    /// flips bit 2), but the equation says 4 + swz(12) = 16: refused. Moved by whole periods of 32, it holds.
    #[test]
    fn a_swizzled_right_moved_by_part_of_a_period_is_refused() {
        let right: Layout = "Swizzle(2,1,2) o S[8:2]".parse::<Layout>().unwrap();
        let err = direct_sum(&tl("S[2:4]"), &right, &[2], &[8]).unwrap_err();
        assert_eq!(
            err.message,
            "cannot form the direct sum: swizzle period rule: the left layout's stride 4 on m moves the swizzled \
             layout by 4 elements, not a multiple of Swizzle(2,1,2)'s period 32, so the swizzle would not commute \
             with the move (swizzle(s + a) != s + swizzle(a))"
        );
        let sum = direct_sum(&tl("S[2:32]"), &right, &[2], &[8]).unwrap();
        assert_eq!(sum.eval_flat(14).unwrap(), Layout::Tile(tl("S[1:1] + 44")).eval_flat(0).unwrap());
    }

    #[test]
    fn rank_mismatch_is_an_error() {
        let err = direct_sum(&tl("S[2:1]"), &tl("S[2:1]").into(), &[2], &[1, 2]).unwrap_err();
        assert!(err.message.starts_with("cannot form the direct sum: shapes must have equal rank"), "{err}");
    }
}
