//! Property tests for tile-of (paper App. D): for `T = tile(A, B)`, `outer_of(T, A)` and `inner_of(T, B)` must
//! succeed, and every answer (also on random non-tiles) must satisfy the defining equation
//! `T(x_o * I + x_i) = span(A) (.) B(x_o) + A(x_i)`, checked with the independent reference evaluator of `common`.

mod common;

use axe_layout::tile::tile;
use axe_layout::tile_of::{inner_of, outer_of};
use axe_layout::{Layout, TileLayout};
use common::*;
use proptest::prelude::*;
use std::collections::BTreeSet;

/// The reference tiling map: `{ span(A) (.) b + a }` for every interleaved index, A's swizzle applied to `a` (the
/// documented equation; `tile` refuses a swizzled A that B would move by part of a swizzle period).
fn check_tiling(t: &Layout, a: &Layout, b: &TileLayout, inner: &[i64], outer: &[i64]) -> Result<(), TestCaseError> {
    let tiled: Vec<i64> = inner.iter().zip(outer).map(|(i, o)| i * o).collect();
    let span = ref_spans(a.tile());
    let (ra, rb, rt) = (Ref::tile(a.tile()), Ref::tile(b), Ref::new(t));
    let (qa, qb) = (ref_replicas(a.tile()), ref_replicas(b));
    for flat in 0..tiled.iter().product::<i64>() {
        let x = coord_of(&tiled, flat);
        let xo: Vec<i64> = x.iter().zip(inner).map(|(x, i)| x / i).collect();
        let xi: Vec<i64> = x.iter().zip(inner).map(|(x, i)| x % i).collect();
        let (pa, pb) = (ra.base(flat_of(inner, &xi)), rb.base(flat_of(outer, &xo)));
        let want: BTreeSet<Point> = qb
            .iter()
            .flat_map(|r| {
                let scaled = hadamard(&span, &add(&pb, r));
                qa.iter().map(move |q| add(&scaled, &finish(a.swizzle(), add(&pa, q))))
            })
            .collect();
        prop_assert_eq!(rt.eval(flat), want, "at {:?}", x);
    }
    Ok(())
}

/// Factors of size <= 16 with one replica iter each, so a tiled map has at most 256 elements and 16 points each.
const SMALL: Params = Params { max_replica: 1, ..Params::sized(16) };

/// Per-dimension inner/outer shapes of one rank for `a` and `b`.
fn shapes(a: &Layout, b: &TileLayout, seeds: &[u32]) -> (Vec<i64>, Vec<i64>) {
    let rank = rank_of(seeds[0], 3);
    (groupable_shape(a.tile(), rank, &seeds[1..]), groupable_shape(b, rank, &seeds[5..]))
}

fn mul(x: &[i64], y: &[i64]) -> Vec<i64> {
    x.iter().zip(y).map(|(a, b)| a * b).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    /// `outer_of(tile(A, B), A)` succeeds and re-tiles to the same map.
    #[test]
    fn outer_of_recovers_a_tile(a in layout(SMALL), b in tile_layout(SMALL), seeds in seeds()) {
        let (inner, outer) = shapes(&a, &b, &seeds);
        let Ok(t) = tile(&a, &b, &inner, &outer) else { return Ok(()) }; // a swizzled A with B off `m`
        let found = outer_of(&t, &a, &mul(&inner, &outer), &inner)
            .map_err(|e| TestCaseError::fail(format!("outer_of refused a tile: {e}")))?;
        check_tiling(&t, &a, &found, &inner, &outer)?;
    }

    /// `inner_of(tile(A, B), B)` succeeds and re-tiles to the same map.
    #[test]
    fn inner_of_recovers_a_tile(a in layout(SMALL), b in tile_layout(SMALL), seeds in seeds()) {
        let (inner, outer) = shapes(&a, &b, &seeds);
        let Ok(t) = tile(&a, &b, &inner, &outer) else { return Ok(()) };
        let found = inner_of(&t, &b, &mul(&inner, &outer), &outer)
            .map_err(|e| TestCaseError::fail(format!("inner_of refused a tile: {e}")))?;
        check_tiling(&t, &found, &b, &inner, &outer)?;
    }

    /// Random layouts that are mostly not tiles: an answer, when given, satisfies the equation; a refusal is
    /// "not a tile" with a reason.
    #[test]
    fn non_tiles_are_refused_or_verified(
        t in layout(Params::sized(64)),
        a in layout(Params::sized(8)),
        b in tile_layout(Params::sized(8)),
        seeds in seeds(),
    ) {
        let tiled = groupable_shape(t.tile(), rank_of(seeds[0], 2), &seeds[1..]);
        let part: Vec<i64> = tiled.iter().enumerate().map(|(d, &e)| {
            let divs: Vec<i64> = (1..=e).filter(|k| e % k == 0).collect();
            divs[seeds[6 + d] as usize % divs.len()]
        }).collect();
        let other: Vec<i64> = tiled.iter().zip(&part).map(|(t, p)| t / p).collect();
        let a = resized_layout(&a, part.iter().product());
        match outer_of(&t, &a, &tiled, &part) {
            Ok(found) => check_tiling(&t, &a, &found, &part, &other)?,
            Err(e) => prop_assert!(e.message.starts_with("not a tile") || e.message.contains("shape"), "{}", e.message),
        }
        let b = resized(&b, part.iter().product());
        match inner_of(&t, &b, &tiled, &part) {
            Ok(found) => check_tiling(&t, &found, &b, &other, &part)?,
            Err(e) => prop_assert!(e.message.starts_with("not a tile") || e.message.contains("shape"), "{}", e.message),
        }
    }
}
