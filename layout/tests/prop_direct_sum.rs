//! Property tests of the direct sum (paper App. F): `direct_sum(A, B)(X) == A(x_A) + B(x_B)` for every index,
//! checked by enumeration against the reference evaluator, the equation `--help` and the Python docstring state.
//! For a swizzled B, `B(x_B)` is swizzled alone (issue 22 item 8): `direct_sum` either meets that or refuses by the
//! swizzle period rule, whose condition (some value of A on `m` off the period) the test checks independently.

mod common;

use axe_layout::direct_sum::direct_sum;
use axe_layout::{Layout, TileLayout};
use common::*;
use proptest::prelude::*;
use std::collections::BTreeSet;

/// The tile the right addend contributes (bare-swizzle rule as in tiling).
fn right_base(right: &Layout, right_shape: &[i64]) -> TileLayout {
    let size: i64 = right_shape.iter().product();
    match right {
        Layout::Compose(c) if c.is_bare() && c.tile().size() != size => TileLayout::row_major(&[size]).unwrap(),
        _ => right.tile().clone(),
    }
}

/// Checks the defining equation of the direct sum at every index of the interleaved shape.
fn check_sum(
    sum: &Layout,
    left: &TileLayout,
    right: &Layout,
    left_shape: &[i64],
    right_shape: &[i64],
) -> Result<(), TestCaseError> {
    let (a, b) = (Layout::Tile(left.clone()), Layout::Tile(right_base(right, right_shape)));
    let shape: Vec<i64> = left_shape.iter().zip(right_shape).map(|(l, r)| l * r).collect();
    prop_assert_eq!(sum.swizzle(), right.swizzle());
    let (rs, ra, rb) = (Ref::new(sum), Ref::new(&a), Ref::new(&b));
    for flat in 0..shape.iter().product() {
        let x = coord_of(&shape, flat);
        let xa: Vec<i64> = x.iter().zip(right_shape).map(|(c, r)| c / r).collect();
        let xb: Vec<i64> = x.iter().zip(right_shape).map(|(c, r)| c % r).collect();
        let pa = ra.eval(flat_of(left_shape, &xa));
        let pb = rb.eval(flat_of(right_shape, &xb));
        let expected: BTreeSet<Point> =
            pa.iter().flat_map(|p| pb.iter().map(|q| add(p, &finish(right.swizzle(), *q)))).collect();
        prop_assert_eq!(rs.eval(flat), expected, "at {:?}: {} from {} and {}", x, sum, left, right);
    }
    Ok(())
}

/// A right addend (tile or swizzled), a left one on any axes or on `m` only under a swizzle, seeds. Under a
/// swizzle, the left's strides and offset on `m` are multiplied by the swizzle's period half of the time (so the
/// swizzle period rule holds and the equation is checked), and left as drawn otherwise (mostly refused).
fn operands() -> impl Strategy<Value = (TileLayout, Layout, Vec<u32>)> {
    let p = Params { max_replica: 1, ..Params::sized(8) };
    (tile_layout(Params { max_replica: 1, ..Params::sized(8) }), tile_layout(Params::memory(8)), layout(p), seeds())
        .prop_map(|(any, mem, right, s)| {
            let left = match right.swizzle() {
                Some(sw) if s[11] % 2 == 0 => scaled_on_m(&mem, sw.period()),
                Some(_) => mem,
                None => any,
            };
            (left, right, s)
        })
}

/// Under a swizzle, a refusal must be the swizzle period rule, and its condition must hold: some value of `left` on
/// `m` (by the reference evaluator) is not a multiple of the period.
fn check_period_refusal(message: &str, left: &TileLayout, right: &Layout) -> Result<(), TestCaseError> {
    let sw = right.swizzle().ok_or_else(|| TestCaseError::fail(format!("unswizzled right refused: {message}")))?;
    prop_assert!(message.starts_with("cannot form the direct sum: swizzle period rule:"), "{}", message);
    let off = ref_map(&Layout::Tile(left.clone())).iter().flatten().any(|a| a[0] % sw.period() != 0);
    prop_assert!(off, "{} refused, but every value of {} is a whole number of periods of {}", message, left, sw);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    /// App. F on shapes both addends group by.
    #[test]
    fn direct_sum_satisfies_its_equation((left, right, s) in operands()) {
        let rank = rank_of(s[0], 3);
        let left_shape = groupable_shape(&left, rank, &s[1..]);
        let right_shape = groupable_shape(right.tile(), rank, &s[4..]);
        match direct_sum(&left, &right, &left_shape, &right_shape) {
            Ok(sum) => check_sum(&sum, &left, &right, &left_shape, &right_shape)?,
            Err(e) => check_period_refusal(&e.message, &left, &right)
                .map_err(|f| TestCaseError::fail(format!("{left} + {right} by {left_shape:?}, {right_shape:?}: {f}")))?,
        }
    }

    /// Any shapes: the direct sum either satisfies the equation or explains why it cannot group.
    #[test]
    fn direct_sum_on_any_shapes_is_exact_or_refused((left, right, s) in operands()) {
        let rank = rank_of(s[0], 3);
        let left_shape = any_shape(left.size(), rank, &s[1..]);
        let right_shape = any_shape(right.size(), rank, &s[4..]);
        match direct_sum(&left, &right, &left_shape, &right_shape) {
            Ok(sum) => check_sum(&sum, &left, &right, &left_shape, &right_shape)?,
            Err(e) if e.message.starts_with("cannot form the direct sum: cannot group") => {}
            Err(e) => check_period_refusal(&e.message, &left, &right)?,
        }
    }
}
