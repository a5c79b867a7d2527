//! Property tests of tiling (paper App. C): `tile(A, B)(X) == span(A) (.) B(x_outer) + A(x_inner)` for every
//! index, checked by enumeration against the reference evaluator, the equation `--help` and the Python docstring
//! state. For a swizzled A, `A(x_inner)` is swizzled alone (issue 22 item 8): `tile` either meets that or refuses by
//! the swizzle period rule, whose condition (some value of B on `m` times `span(A, m)` off the period) the test
//! checks independently.

mod common;

use axe_layout::group::group;
use axe_layout::tile::tile;
use axe_layout::{Layout, TileLayout};
use common::*;
use proptest::prelude::*;
use std::collections::BTreeSet;

/// The tile the inner contributes (semantics: a bare swizzle whose period differs from the shape's size is the
/// identity over the shape under that swizzle).
fn inner_base(inner: &Layout, inner_shape: &[i64]) -> TileLayout {
    let size: i64 = inner_shape.iter().product();
    match inner {
        Layout::Compose(c) if c.is_bare() && c.tile().size() != size => TileLayout::row_major(&[size]).unwrap(),
        _ => inner.tile().clone(),
    }
}

/// Checks the defining equation of tiling at every index of the tiled shape.
fn check_tile(
    t: &Layout,
    inner: &Layout,
    outer: &TileLayout,
    inner_shape: &[i64],
    outer_shape: &[i64],
) -> Result<(), TestCaseError> {
    let base = Layout::Tile(inner_base(inner, inner_shape));
    let outer = Layout::Tile(outer.clone());
    let span = ref_spans(base.tile());
    let shape: Vec<i64> = outer_shape.iter().zip(inner_shape).map(|(o, i)| o * i).collect();
    prop_assert_eq!(t.swizzle(), inner.swizzle());
    prop_assert!(group(t.tile(), &shape).is_ok(), "{} is not grouped by {:?}", t, shape);
    let (rt, rb, ra) = (Ref::new(t), Ref::new(&outer), Ref::new(&base));
    for flat in 0..shape.iter().product() {
        let x = coord_of(&shape, flat);
        let xo: Vec<i64> = x.iter().zip(inner_shape).map(|(c, i)| c / i).collect();
        let xi: Vec<i64> = x.iter().zip(inner_shape).map(|(c, i)| c % i).collect();
        let bs = rb.eval(flat_of(outer_shape, &xo));
        let as_ = ra.eval(flat_of(inner_shape, &xi));
        let expected: BTreeSet<Point> = bs
            .iter()
            .flat_map(|b| as_.iter().map(|a| add(&hadamard(&span, b), &finish(inner.swizzle(), *a))))
            .collect();
        prop_assert_eq!(rt.eval(flat), expected, "at {:?}: {} from {} and {}", x, t, inner, outer);
    }
    Ok(())
}

/// An inner layout (tile or swizzled), an outer on any axes and one on `m` only (used under a swizzle), seeds. Under
/// a swizzle, the outer's strides and offset on `m` are multiplied by the swizzle's period half of the time (so the
/// swizzle period rule holds and the equation is checked), and left as drawn otherwise (mostly refused).
fn operands() -> impl Strategy<Value = (Layout, TileLayout, Vec<u32>)> {
    let p = Params { max_replica: 1, ..Params::sized(8) };
    (layout(p), tile_layout(Params { max_replica: 1, ..Params::sized(8) }), tile_layout(Params::memory(8)), seeds())
        .prop_map(|(inner, any, mem, s)| {
            let outer = match inner.swizzle() {
                Some(sw) if s[11] % 2 == 0 => scaled_on_m(&mem, sw.period()),
                Some(_) => mem,
                None => any,
            };
            (inner, outer, s)
        })
}

/// Under a swizzle, a refusal must be the swizzle period rule, and its condition must hold: some value of `outer` on
/// `m` (by the reference evaluator), times `span(inner, m)`, is not a multiple of the period.
fn check_period_refusal(
    message: &str,
    inner: &Layout,
    outer: &TileLayout,
    inner_shape: &[i64],
) -> Result<(), TestCaseError> {
    let sw = inner.swizzle().ok_or_else(|| TestCaseError::fail(format!("unswizzled inner refused: {message}")))?;
    prop_assert!(message.starts_with("cannot tile: swizzle period rule:"), "{}", message);
    let span = ref_spans(&inner_base(inner, inner_shape))[0];
    let off = ref_map(&Layout::Tile(outer.clone())).iter().flatten().any(|b| (b[0] * span) % sw.period() != 0);
    prop_assert!(off, "{} refused, but every move of {} is whole periods of {}", message, outer, sw);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    /// Theorem C.2 on shapes both layouts group by (a bare swizzle sometimes gets a shape of another size).
    #[test]
    fn tile_satisfies_its_equation((inner, outer, s) in operands()) {
        let rank = rank_of(s[0], 3);
        let bare = matches!(&inner, Layout::Compose(c) if c.is_bare());
        let inner_shape = if bare && s[1] % 2 == 0 {
            any_shape(1 + s[2] as i64 % 16, rank, &s[3..])
        } else {
            groupable_shape(inner.tile(), rank, &s[1..])
        };
        let outer_shape = groupable_shape(&outer, rank, &s[4..]);
        match tile(&inner, &outer, &inner_shape, &outer_shape) {
            Ok(t) => check_tile(&t, &inner, &outer, &inner_shape, &outer_shape)?,
            Err(e) => check_period_refusal(&e.message, &inner, &outer, &inner_shape)
                .map_err(|f| TestCaseError::fail(format!("{inner} x {outer} by {inner_shape:?}, {outer_shape:?}: {f}")))?,
        }
    }

    /// Any shapes: tile either satisfies the equation or explains why it cannot group.
    #[test]
    fn tile_on_any_shapes_is_exact_or_refused((inner, outer, s) in operands()) {
        let rank = rank_of(s[0], 3);
        let inner_shape = any_shape(inner.size(), rank, &s[1..]);
        let outer_shape = any_shape(outer.size(), rank, &s[4..]);
        match tile(&inner, &outer, &inner_shape, &outer_shape) {
            Ok(t) => check_tile(&t, &inner, &outer, &inner_shape, &outer_shape)?,
            Err(e) if e.message.starts_with("cannot tile: cannot group by shape") => {}
            Err(e) => check_period_refusal(&e.message, &inner, &outer, &inner_shape)?,
        }
    }

    /// Ranks must agree.
    #[test]
    fn tile_refuses_rank_mismatch((inner, outer, _s) in operands()) {
        let e = tile(&inner, &outer, &[inner.size()], &[outer.size(), 1]).unwrap_err();
        prop_assert!(e.message.contains("equal rank"), "{}", e);
    }
}
