//! tile-of inverts tile on everything tile accepts (issue 12, item 6): whenever `T = tile(A, B)` succeeds,
//! `outer_of(T, A)` finds a `B'` and `inner_of(T, B)` an `A'` with `tile(A, B')` and `tile(A', B)` equal to `T` as
//! maps. Unlike `prop_tile_of.rs`, the inner layouts here include bare swizzles over shapes of any size (larger or
//! smaller than the swizzle's period), which `tile` reads as the swizzle over a row-major tile of the shape, and
//! swizzled inner layouts with outer layouts on `m`. Maps are compared with the independent reference evaluator of
//! `common` (every logical index, every point).

mod common;

use axe_layout::tile::tile;
use axe_layout::tile_of::{inner_of, outer_of};
use axe_layout::{ComposeLayout, Layout, Swizzle, TileLayout};
use common::*;
use proptest::prelude::*;

/// Both maps, index by index, by the reference evaluator.
fn same_map(got: &Layout, want: &Layout, what: &str) -> Result<(), TestCaseError> {
    let (g, w) = (Ref::new(got), Ref::new(want));
    prop_assert_eq!(g.size, w.size, "{}: sizes differ ({} vs {})", what, got, want);
    for flat in 0..w.size {
        prop_assert_eq!(g.eval(flat), w.eval(flat), "{}: {} and {} differ at flat index {}", what, got, want, flat);
    }
    Ok(())
}

/// An inner layout: a bare swizzle (any small one), a swizzled memory tile, or a plain tile on any axes.
fn inner_layout() -> impl Strategy<Value = Layout> + Clone {
    let small: Vec<Swizzle> = (0u32..=3)
        .flat_map(|m| (0u32..=3).flat_map(move |s| (0..=s).map(move |b| Swizzle::new(m, b, s).unwrap())))
        .collect();
    prop_oneof![
        2 => prop::sample::select(small).prop_map(|s| Layout::Compose(ComposeLayout::bare(s))),
        1 => compose_layout(32).prop_map(Layout::Compose),
        1 => tile_layout(Params { max_replica: 1, ..Params::sized(16) }).prop_map(Layout::Tile),
    ]
}

/// The inner shape: the tile's own groupable shape, or for a bare swizzle any shape of 1..=64 elements.
fn inner_shape(a: &Layout, rank: usize, size_seed: u32, seeds: &[u32]) -> Vec<i64> {
    match a {
        Layout::Compose(c) if c.is_bare() => any_shape(1 + i64::from(size_seed % 64), rank, seeds),
        _ => groupable_shape(a.tile(), rank, seeds),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    /// `outer_of(tile(A, B), A)` and `inner_of(tile(A, B), B)` succeed and re-tile to `tile(A, B)`'s map.
    #[test]
    fn tile_of_inverts_tile(
        a in inner_layout(),
        b_any in tile_layout(Params { max_replica: 1, ..Params::sized(8) }),
        b_mem in tile_layout(Params { max_replica: 1, ..Params::memory(8) }),
        seeds in seeds(),
    ) {
        // A swizzled inner needs an outer on m; pick the memory-only outer then.
        let b: TileLayout = if a.swizzle().is_some() { b_mem } else { b_any };
        let rank = rank_of(seeds[0], 3);
        let inner = inner_shape(&a, rank, seeds[11], &seeds[1..]);
        let outer = groupable_shape(&b, rank, &seeds[6..]);
        let Ok(t) = tile(&a, &b, &inner, &outer) else { return Ok(()) };
        let tiled: Vec<i64> = inner.iter().zip(&outer).map(|(i, o)| i * o).collect();

        let b2 = outer_of(&t, &a, &tiled, &inner)
            .map_err(|e| TestCaseError::fail(format!("outer_of refused tile({a}, {b}) = {t} over {tiled:?}: {e}")))?;
        let again = tile(&a, &b2, &inner, &outer)
            .map_err(|e| TestCaseError::fail(format!("tile(A, B') failed for B' = {b2}: {e}")))?;
        same_map(&again, &t, "tile(A, outer_of(T, A))")?;

        let a2 = inner_of(&t, &b, &tiled, &outer)
            .map_err(|e| TestCaseError::fail(format!("inner_of refused tile({a}, {b}) = {t} over {tiled:?}: {e}")))?;
        let again = tile(&a2, &b, &inner, &outer)
            .map_err(|e| TestCaseError::fail(format!("tile(A', B) failed for A' = {a2}: {e}")))?;
        same_map(&again, &t, "tile(inner_of(T, B), B)")?;
    }
}

/// The pairs of the issue: a bare `Swizzle(3,3,3)` (period 512) tiled over shapes of 1024 and 512 elements, read as
/// the swizzle over a row-major tile of the shape, and recovered by both directions of tile-of. Over 8x8 (64
/// elements, span 64) the outer would move the copies by 128 and 64 elements, part of a period, so no layout meets
/// tile's equation (issue 22 item 8) and tile refuses it by the swizzle period rule.
#[test]
fn bare_swizzles_over_other_sizes_invert() {
    let sw = Swizzle::new(3, 3, 3).unwrap();
    let a = Layout::Compose(ComposeLayout::bare(sw));
    let b: TileLayout = "S[(2,2):(2,1)]".parse().unwrap();
    let err = tile(&a, &b, &[8, 8], &[2, 2]).unwrap_err();
    assert!(
        err.message.starts_with("cannot tile: swizzle period rule: the outer's stride 2 on m times span 64"),
        "{err}"
    );
    for inner in [[16i64, 64], [8, 64]] {
        let tiled = [inner[0] * 2, inner[1] * 2];
        let t = tile(&a, &b, &inner, &[2, 2]).unwrap();
        // By hand: the acting tile is S[n:1] (n = 16*64, 8*8 or 8*64), span n; B's strides 2 and 1 become 2n and n,
        // interleaved with the row-major inner blocks.
        let n = inner[0] * inner[1];
        let want: TileLayout =
            format!("S[(2,{},2,{}):({},{},{},1)]", inner[0], inner[1], 2 * n, inner[1], n).parse().unwrap();
        assert_eq!(t.tile(), &want, "tile over {inner:?}");
        let b2 = outer_of(&t, &a, &tiled, &inner).unwrap();
        same_map(&tile(&a, &b2, &inner, &[2, 2]).unwrap(), &t, "outer_of").unwrap();
        let a2 = inner_of(&t, &b, &tiled, &[2, 2]).unwrap();
        same_map(&tile(&a2, &b, &inner, &[2, 2]).unwrap(), &t, "inner_of").unwrap();
    }
}
