//! Property tests for slice (paper App. E): `L'(y) == L(y + begin)` for every `y` of the region, checked with the
//! independent reference evaluator of `common`, on random layouts (mixed axes, zero/negative strides, replicas,
//! offsets, swizzles), random shapes and random regions.

mod common;

use axe_layout::slice::slice;
use axe_layout::{Iter, Layout, TileLayout};
use common::*;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use std::collections::BTreeMap;

/// A region inside `shape` chosen by seeds: `begin` anywhere, `end` anywhere after it.
fn region_of(shape: &[i64], seeds: &[u32]) -> Vec<(i64, i64)> {
    shape
        .iter()
        .enumerate()
        .map(|(d, &e)| {
            let b = seeds[(2 * d) % seeds.len()] as i64 % e;
            (b, b + 1 + seeds[(2 * d + 1) % seeds.len()] as i64 % (e - b))
        })
        .collect()
}

/// A shape for `l`: groupable three times in four, otherwise any factorization of its size.
fn shape_of(l: &Layout, seeds: &[u32]) -> Vec<i64> {
    let rank = rank_of(seeds[0], 3);
    if seeds[1].is_multiple_of(4) {
        any_shape(l.size(), rank, &seeds[2..])
    } else {
        groupable_shape(l.tile(), rank, &seeds[2..])
    }
}

/// Every `y` of the region (or `samples` seeded ones when given): `s(y) == l(y + begin)` by the reference.
fn check(
    l: &Layout,
    shape: &[i64],
    region: &[(i64, i64)],
    s: &Layout,
    samples: Option<&[u32]>,
) -> Result<(), TestCaseError> {
    let ext: Vec<i64> = region.iter().map(|(b, e)| e - b).collect();
    let n: i64 = ext.iter().product();
    prop_assert_eq!(s.size(), n, "sliced size");
    let ys: Vec<i64> = match samples {
        Some(seeds) => seeds.iter().map(|&k| k as i64 % n).chain([0, n - 1]).collect(),
        None => (0..n).collect(),
    };
    let (rs, rl) = (Ref::new(s), Ref::new(l));
    for y in ys {
        let local = coord_of(&ext, y);
        let x: Vec<i64> = local.iter().zip(region).map(|(l, (b, _))| l + b).collect();
        prop_assert_eq!(rs.eval(y), rl.eval(flat_of(shape, &x)), "at {:?} of region {:?}", local, region);
    }
    Ok(())
}

fn whole(shape: &[i64]) -> Vec<(i64, i64)> {
    shape.iter().map(|&e| (0, e)).collect()
}

/// A single row: one index in every dimension but the last, the whole last dimension.
fn row(shape: &[i64], seeds: &[u32]) -> Vec<(i64, i64)> {
    let last = shape.len() - 1;
    shape
        .iter()
        .enumerate()
        .map(|(d, &e)| {
            if d == last {
                (0, e)
            } else {
                let b = seeds[d] as i64 % e;
                (b, b + 1)
            }
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    /// Random regions: when slice succeeds the result reproduces the region; a refusal says why.
    #[test]
    fn slice_reproduces_random_regions(l in layout(Params::sized(256)), seeds in seeds()) {
        let shape = shape_of(&l, &seeds);
        let region = region_of(&shape, &seeds[4..]);
        match slice(&l, &shape, &region) {
            Ok(s) => check(&l, &shape, &region, &s, None)?,
            Err(e) => prop_assert!(
                e.message.starts_with("dimension ") || e.message.contains("group"),
                "unexplained refusal: {}", e.message
            ),
        }
    }

    /// Whole-extent, single-element and single-row regions always succeed on a groupable shape.
    #[test]
    fn whole_rows_and_points_always_slice(l in layout(Params::sized(256)), seeds in seeds()) {
        let shape = groupable_shape(l.tile(), rank_of(seeds[0], 3), &seeds[2..]);
        let point: Vec<(i64, i64)> = region_of(&shape, &seeds[4..]).iter().map(|&(b, _)| (b, b + 1)).collect();
        for region in [whole(&shape), point, row(&shape, &seeds[6..])] {
            let s = slice(&l, &shape, &region).map_err(|e| TestCaseError::fail(format!("{region:?}: {e}")))?;
            check(&l, &shape, &region, &s, None)?;
        }
    }
}

fn big_block() -> impl Strategy<Value = TileLayout> {
    let iter = (prop::sample::select(vec![2i64, 3, 4, 6, 8, 16, 24, 64, 100, 128]), -300i64..300, 0usize..3);
    prop::collection::vec(iter, 2..=5).prop_map(|specs| {
        let axes = ["m", "laneid", "TCol"];
        let shard =
            specs.into_iter().map(|(e, s, a)| Iter::new(e, s, axe_layout::Axis::named(axes[a]).unwrap()).unwrap());
        TileLayout::new(shard.collect(), vec![], BTreeMap::new()).unwrap()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3_000))]

    /// Large blocks (beyond the exact search): the paper's forms alone, checked on sampled points.
    #[test]
    fn large_regions_use_the_lemmas(t in big_block(), seeds in seeds()) {
        let l = Layout::Tile(t);
        let shape = groupable_shape(l.tile(), rank_of(seeds[0], 2), &seeds[2..]);
        for region in [region_of(&shape, &seeds[4..]), row(&shape, &seeds[6..]), whole(&shape)] {
            if let Ok(s) = slice(&l, &shape, &region) {
                check(&l, &shape, &region, &s, Some(&seeds))?;
            }
        }
    }
}

/// Random regions succeed for a meaningful fraction of random layouts (the exact search makes this "whenever a
/// layout exists" for small regions); prints the rate.
#[test]
fn random_regions_succeed_often() {
    let mut runner = TestRunner::deterministic();
    let strategy = (layout(Params::sized(256)), seeds());
    let (mut ok, total) = (0, 4000);
    for _ in 0..total {
        let (l, seeds) = strategy.new_tree(&mut runner).unwrap().current();
        let shape = shape_of(&l, &seeds);
        ok += slice(&l, &shape, &region_of(&shape, &seeds[4..])).is_ok() as i32;
    }
    println!("random regions sliced: {ok}/{total}");
    assert!(ok * 4 > total, "only {ok} of {total} random regions sliced");
}
