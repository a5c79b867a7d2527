//! The layout notation's forward map and swizzle, transcribed from their definitions (docs/semantics.md,
//! "Objects" and "Forward map") for the hardware models, which must not compute where an element should land
//! with the crate's own evaluator (`Layout::eval*`) or swizzle (`Swizzle::apply`): a bug there would cancel out
//! on both sides. Only the layout's parts are read from the crate (its shard and replica iters, its offsets and
//! the swizzle's three parameters).

#![allow(dead_code)] // each test binary uses its part

use axe_layout::{Axis, Layout, Swizzle};
use std::collections::BTreeMap;

/// A point: a value per axis the layout names.
pub type Point = BTreeMap<Axis, i64>;

/// `Swizzle(M, B, S)` on address `a`: `q = a >> M`, `f(q) = q XOR ((q AND ((2^B - 1) << S)) >> S)`, the result
/// `(f(q) << M) + (a mod 2^M)`.
pub fn swizzle(sw: Swizzle, a: i64) -> i64 {
    let (m, b, s) = (sw.per_element, sw.swizzle_len, sw.atom_len);
    let q = a >> m;
    let f = q ^ ((q & (((1i64 << b) - 1) << s)) >> s);
    (f << m) + (a & ((1i64 << m) - 1))
}

/// `L(flat)` as a set of points: the flat index split over the shard extents row-major (first iter outermost),
/// `digit * stride` added on each iter's axis, the offsets added, then every combination of replica digits;
/// a ComposeLayout's swizzle applied to the `m` value of each point. Sorted, duplicates collapsed.
pub fn points(layout: &Layout, flat: i64) -> Vec<Point> {
    let tile = layout.tile();
    // Every axis the layout names is in every point (zero where nothing adds to it).
    let mut base: Point = tile.shard().iter().chain(tile.replica()).map(|it| (it.axis, 0)).collect();
    base.extend(tile.offset().keys().map(|a| (*a, 0)));
    let mut rest = flat;
    for it in tile.shard().iter().rev() {
        let digit = rest % it.extent;
        rest /= it.extent;
        *base.entry(it.axis).or_insert(0) += digit * it.stride;
    }
    assert_eq!(rest, 0, "flat index {flat} outside the layout's shard");
    for (axis, o) in tile.offset() {
        *base.entry(*axis).or_insert(0) += o;
    }
    let mut out = vec![base];
    for it in tile.replica() {
        out = out
            .into_iter()
            .flat_map(|p| {
                (0..it.extent).map(move |d| {
                    let mut q = p.clone();
                    *q.entry(it.axis).or_insert(0) += d * it.stride;
                    q
                })
            })
            .collect();
    }
    for p in out.iter_mut() {
        if let Some(sw) = layout.swizzle() {
            let m = p.get(&Axis::M).copied().unwrap_or(0);
            p.insert(Axis::M, swizzle(sw, m));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// `L(x)` for a coordinate `x` of `shape` (flattened row-major).
pub fn points_at(layout: &Layout, shape: &[i64], x: &[i64]) -> Vec<Point> {
    assert_eq!(shape.len(), x.len(), "coordinate rank");
    let flat = shape.iter().zip(x).fold(0, |acc, (s, v)| {
        assert!((0..*s).contains(v), "coordinate {x:?} outside {shape:?}");
        acc * s + v
    });
    points(layout, flat)
}
