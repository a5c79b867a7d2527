//! Property tests of the direct sum (paper App. F): `direct_sum(A, B)(X) == A(x_A) + B(x_B)` for every index,
//! checked by enumeration against the reference evaluator.

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
            pa.iter().flat_map(|p| pb.iter().map(|q| finish(right.swizzle(), add(p, q)))).collect();
        prop_assert_eq!(rs.eval(flat), expected, "at {:?}: {} from {} and {}", x, sum, left, right);
    }
    Ok(())
}

/// A right addend (tile or swizzled), a left one on any axes or on `m` only under a swizzle, seeds.
fn operands() -> impl Strategy<Value = (TileLayout, Layout, Vec<u32>)> {
    let p = Params { max_replica: 1, ..Params::sized(8) };
    (tile_layout(Params { max_replica: 1, ..Params::sized(8) }), tile_layout(Params::memory(8)), layout(p), seeds())
        .prop_map(|(any, mem, right, s)| (if right.swizzle().is_some() { mem } else { any }, right, s))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    /// App. F on shapes both addends group by.
    #[test]
    fn direct_sum_satisfies_its_equation((left, right, s) in operands()) {
        let rank = rank_of(s[0], 3);
        let left_shape = groupable_shape(&left, rank, &s[1..]);
        let right_shape = groupable_shape(right.tile(), rank, &s[4..]);
        let sum = direct_sum(&left, &right, &left_shape, &right_shape)
            .map_err(|e| TestCaseError::fail(format!("{left} + {right} by {left_shape:?}, {right_shape:?}: {e}")))?;
        check_sum(&sum, &left, &right, &left_shape, &right_shape)?;
    }

    /// Any shapes: the direct sum either satisfies the equation or explains why it cannot group.
    #[test]
    fn direct_sum_on_any_shapes_is_exact_or_refused((left, right, s) in operands()) {
        let rank = rank_of(s[0], 3);
        let left_shape = any_shape(left.size(), rank, &s[1..]);
        let right_shape = any_shape(right.size(), rank, &s[4..]);
        match direct_sum(&left, &right, &left_shape, &right_shape) {
            Ok(sum) => check_sum(&sum, &left, &right, &left_shape, &right_shape)?,
            Err(e) => prop_assert!(e.message.starts_with("cannot form the direct sum: cannot group"), "{}", e),
        }
    }
}
