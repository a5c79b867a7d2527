//! Property tests of tiling (paper App. C): `tile(A, B)(X) == span(A) (.) B(x_outer) + A(x_inner)` for every
//! index, checked by enumeration against the reference evaluator.

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
        let expected: BTreeSet<Point> =
            bs.iter().flat_map(|b| as_.iter().map(|a| finish(inner.swizzle(), add(&hadamard(&span, b), a)))).collect();
        prop_assert_eq!(rt.eval(flat), expected, "at {:?}: {} from {} and {}", x, t, inner, outer);
    }
    Ok(())
}

/// An inner layout (tile or swizzled), an outer on any axes and one on `m` only (used under a swizzle), seeds.
fn operands() -> impl Strategy<Value = (Layout, TileLayout, Vec<u32>)> {
    let p = Params { max_replica: 1, ..Params::sized(8) };
    (layout(p), tile_layout(Params { max_replica: 1, ..Params::sized(8) }), tile_layout(Params::memory(8)), seeds())
        .prop_map(|(inner, any, mem, s)| {
            let outer = if inner.swizzle().is_some() { mem } else { any };
            (inner, outer, s)
        })
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
        let t = tile(&inner, &outer, &inner_shape, &outer_shape)
            .map_err(|e| TestCaseError::fail(format!("{inner} x {outer} by {inner_shape:?}, {outer_shape:?}: {e}")))?;
        check_tile(&t, &inner, &outer, &inner_shape, &outer_shape)?;
    }

    /// Any shapes: tile either satisfies the equation or explains why it cannot group.
    #[test]
    fn tile_on_any_shapes_is_exact_or_refused((inner, outer, s) in operands()) {
        let rank = rank_of(s[0], 3);
        let inner_shape = any_shape(inner.size(), rank, &s[1..]);
        let outer_shape = any_shape(outer.size(), rank, &s[4..]);
        match tile(&inner, &outer, &inner_shape, &outer_shape) {
            Ok(t) => check_tile(&t, &inner, &outer, &inner_shape, &outer_shape)?,
            Err(e) => prop_assert!(e.message.starts_with("cannot tile: cannot group by shape"), "{}", e),
        }
    }

    /// Ranks must agree.
    #[test]
    fn tile_refuses_rank_mismatch((inner, outer, _s) in operands()) {
        let e = tile(&inner, &outer, &[inner.size()], &[outer.size(), 1]).unwrap_err();
        prop_assert!(e.message.contains("equal rank"), "{}", e);
    }
}
