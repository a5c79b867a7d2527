//! Property tests of canonicalization (paper App. A): the canonical form keeps the induced map, is idempotent
//! and normal, and under the gap condition decides equivalence (Theorem A.2).

mod common;

use axe_layout::canonicalize::{canonicalize, canonicalize_tile, equivalent, map_key};
use axe_layout::{Iter, Layout, TileLayout};
use common::*;
use proptest::prelude::*;
use std::collections::BTreeMap;

/// The layout is in normal form: D0, D1, no zero offsets, C0, C1, C2 all done and the replica sorted.
fn assert_normal(t: &TileLayout) -> Result<(), TestCaseError> {
    let d = t.shard();
    prop_assert!(d.len() == 1 || d.iter().all(|i| i.extent > 1), "D0 left a unit iter: {t}");
    for w in d.windows(2) {
        prop_assert!(!(w[0].axis == w[1].axis && w[0].stride == w[1].extent * w[1].stride), "D1 pair left: {t}");
    }
    prop_assert!(t.offset().values().all(|v| *v != 0), "zero offset left: {t}");
    let r = t.replica();
    prop_assert!(r.iter().all(|i| i.extent > 1 && i.stride > 0), "C0/C1 left an iter: {t}");
    for (i, a) in r.iter().enumerate() {
        for b in &r[i + 1..] {
            let absorbable = |f: &Iter, c: &Iter| {
                f.axis == c.axis && c.stride % f.stride == 0 && (1..=f.extent).contains(&(c.stride / f.stride))
            };
            prop_assert!(!absorbable(a, b) && !absorbable(b, a), "C2 pair left: {t}");
        }
    }
    let keys: Vec<_> = r.iter().map(|i| (i.axis, i.stride, i.extent)).collect();
    prop_assert!(keys.windows(2).all(|w| w[0] <= w[1]), "replica not sorted: {t}");
    Ok(())
}

/// GC, written from the definition: per axis, by increasing stride, each stride beats the reach below it.
fn ref_gap_condition(t: &TileLayout) -> bool {
    let mut by_axis: BTreeMap<&str, Vec<(i64, i64)>> = BTreeMap::new();
    for it in t.replica() {
        by_axis.entry(it.axis.name()).or_default().push((it.stride, it.extent));
    }
    by_axis.values_mut().all(|v| {
        v.sort();
        let mut reach = 0;
        v.iter().all(|&(s, e)| {
            let ok = s > reach;
            reach += (e - 1) * s;
            ok
        })
    })
}

/// A random semantics-preserving rewrite of `t` driven by `seeds`: split shard and replica iters, insert unit
/// iters and zero offsets, negate replica strides (moving the reach into the offset), add stride-0 replica
/// iters, rotate the replica order.
fn rewrite(t: &TileLayout, seeds: &[u32]) -> TileLayout {
    let (mut shard, mut replica, mut offset) = t.clone().into_parts();
    let pick = |k: usize, n: usize| seeds[k % seeds.len()] as usize % n.max(1);
    if let Some(i) = (!shard.is_empty()).then(|| pick(0, shard.len())) {
        let it = shard[i];
        if let Some(&f) = prime_factors(it.extent).first().filter(|&&f| f < it.extent) {
            let (outer, inner) = (it.extent / f, f);
            shard
                .splice(i..=i, [Iter { extent: outer, stride: it.stride * inner, ..it }, Iter { extent: inner, ..it }]);
        }
    }
    if seeds[1].is_multiple_of(2) {
        let axis = shard.get(pick(2, shard.len())).map_or(axe_layout::Axis::M, |i| i.axis);
        shard.insert(pick(3, shard.len() + 1), Iter::new(1, seeds[4] as i64 % 7 - 3, axis).unwrap());
    }
    if let Some(i) = (!replica.is_empty()).then(|| pick(5, replica.len())) {
        let it = replica[i];
        if seeds[6].is_multiple_of(2) {
            *offset.entry(it.axis).or_insert(0) += (it.extent - 1) * it.stride;
            replica[i].stride = -it.stride;
        } else if let Some(&f) = prime_factors(it.extent).first().filter(|&&f| f < it.extent) {
            let (outer, inner) = (it.extent / f, f);
            replica
                .splice(i..=i, [Iter { extent: outer, stride: it.stride * inner, ..it }, Iter { extent: inner, ..it }]);
        }
    }
    if seeds[7].is_multiple_of(3) {
        let axis = t.axes().first().copied().unwrap_or(axe_layout::Axis::M);
        replica.push(Iter::new(2 + seeds[8] as i64 % 3, 0, axis).unwrap());
        offset.entry(axis).or_insert(0);
    }
    let rot = pick(9, replica.len());
    replica.rotate_left(rot);
    TileLayout::new(shard, replica, offset).unwrap()
}

fn enum_equivalent(a: &Layout, b: &Layout) -> bool {
    ref_map(a) == ref_map(b)
}

/// One axis, shards of size <= 2, up to three replica iters with |stride| <= 5.
const REPLICAS: Params =
    Params { max_size: 2, max_shard: 1, max_replica: 3, max_stride: 5, axes: &["m"], max_offset: 3 };

/// Under GC on both sides, equal map keys <=> equal maps; `equivalent` always agrees with enumeration.
fn gc_decides_equivalence(a: TileLayout, b: TileLayout) -> Result<(), TestCaseError> {
    let b = if b.size() == a.size() { b } else { resized(&b, a.size()) };
    let (la, lb) = (Layout::Tile(a.clone()), Layout::Tile(b.clone()));
    let same = enum_equivalent(&la, &lb);
    prop_assert_eq!(equivalent(&la, &lb, &[a.size()]).unwrap(), same, "{} vs {}", a, b);
    if canonicalize_tile(&a).1 && canonicalize_tile(&b).1 {
        prop_assert_eq!(map_key(&a) == map_key(&b), same, "{} vs {}", a, b);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    /// Proposition A.1: canonicalize(L)(x) == L(x) for every x; the form is normal and idempotent, and the GC
    /// flag matches the definition.
    #[test]
    fn canonical_form_keeps_the_map(l in layout(Params::sized(64))) {
        let c = canonicalize(&l);
        prop_assert_eq!(ref_map(&c.layout), ref_map(&l), "{} -> {}", l, c.layout);
        prop_assert_eq!(canonicalize(&c.layout), c.clone(), "not idempotent: {}", l);
        prop_assert_eq!(c.layout.swizzle(), l.swizzle());
        assert_normal(c.layout.tile())?;
        prop_assert_eq!(c.gap_condition, ref_gap_condition(c.layout.tile()));
    }

    /// Semantics-preserving rewrites do not change the map, `equivalent` sees it, and under GC the canonical
    /// forms agree up to silent axis labels (Theorem A.2).
    #[test]
    fn rewrites_have_the_same_canonical_form(t in tile_layout(Params::sized(64)), s in seeds()) {
        let r = rewrite(&t, &s);
        let (lt, lr) = (Layout::Tile(t.clone()), Layout::Tile(r.clone()));
        prop_assert!(enum_equivalent(&lt, &lr), "bad rewrite {} -> {}", t, r);
        prop_assert!(equivalent(&lt, &lr, &[t.size()]).unwrap(), "{} vs {}", t, r);
        if canonicalize_tile(&t).1 {
            prop_assert_eq!(map_key(&t), map_key(&r), "{} vs {}", t, r);
        }
    }

    /// Theorem A.2 on a tiny space where distinct layouts often share a map: if both satisfy GC, the maps are
    /// equal iff the map keys are; and `equivalent` always agrees with enumeration.
    #[test]
    fn gap_condition_decides_equivalence(a in tile_layout(Params::tiny()), b in tile_layout(Params::tiny())) {
        gc_decides_equivalence(a, b)?;
    }

    /// Theorem A.2 for replica sets alone: one axis, small shards, up to three replica iters with strides up to 5,
    /// so that GC-satisfying replica sets with non-multiple strides (e.g. `R[(2,2):(2,3)]`) meet often.
    #[test]
    fn gap_condition_decides_replica_sets(a in tile_layout(REPLICAS), b in tile_layout(REPLICAS)) {
        gc_decides_equivalence(a, b)?;
    }

    /// `equivalent` agrees with enumeration on general layouts, swizzled ones included.
    #[test]
    fn equivalent_agrees_with_enumeration(a in layout(Params::sized(16)), b in layout(Params::sized(16))) {
        let b = if b.size() == a.size() { b } else { resized_layout(&b, a.size()) };
        prop_assert_eq!(equivalent(&a, &b, &[a.size()]).unwrap(), enum_equivalent(&a, &b), "{} vs {}", a, b);
    }
}
