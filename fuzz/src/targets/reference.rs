//! An independent reference evaluator for the layout targets, written from semantics.md rather than from the
//! crate (as `layout/tests/common` is): split the row-major flat index over the shard extents (last iter
//! fastest), add digit times stride per axis, add the offset, add every replica combination, then apply the
//! swizzle to `m`. Arithmetic is in `i128`, so the reference itself cannot overflow on the magnitudes the crate
//! admits; points drop zero entries (an axis a point does not mention is at 0).

use axe_layout::{Layout, Swizzle, TileLayout};
use std::collections::{BTreeMap, BTreeSet};

/// A point: axis name to value, zero entries dropped.
pub type Point = BTreeMap<&'static str, i128>;

/// The most elements whose every index a check enumerates; larger layouts are sampled.
pub const ENUMERATE: i64 = 1 << 12;

/// The most replica points a reference evaluation expands.
pub const MAX_REPLICAS: i64 = 1 << 8;

fn clean(mut p: Point) -> Point {
    p.retain(|_, v| *v != 0);
    p
}

/// `a + b`, axis by axis.
pub fn add(a: &Point, b: &Point) -> Point {
    let mut out = a.clone();
    for (k, v) in b {
        *out.entry(k).or_insert(0) += v;
    }
    clean(out)
}

/// `scale (.) a`, axis by axis (axes missing from `scale` scale by 1).
pub fn hadamard(scale: &Point, a: &Point) -> Point {
    clean(a.iter().map(|(k, v)| (*k, v * scale.get(k).copied().unwrap_or(1))).collect())
}

/// The swizzle on an address, by the formula of semantics.md: `q = a >> M`, XOR bits `[S, S+B)` of `q` into
/// bits `[0, B)`, then `(f(q) << M) + (a mod 2^M)` (arithmetic shifts, as for any integer address).
pub fn swizzle(sw: Swizzle, a: i128) -> i128 {
    let (m, b, s) = (sw.per_element, sw.swizzle_len, sw.atom_len);
    let q = a >> m;
    let mask = ((1i128 << b) - 1) << s;
    let f = q ^ ((q & mask) >> s);
    (f << m) + (a & ((1i128 << m) - 1))
}

/// A layout prepared for reference evaluation.
#[derive(Clone, Debug)]
pub struct Ref {
    shard: Vec<(i128, i128, &'static str)>,
    offset: Point,
    replicas: Vec<Point>,
    swizzle: Option<Swizzle>,
    /// The number of logical elements.
    pub size: i64,
}

impl Ref {
    /// Prepares `layout`, or `None` when it has more than [`MAX_REPLICAS`] replica points.
    pub fn new(layout: &Layout) -> Option<Ref> {
        Ref::with_swizzle(layout.tile(), layout.swizzle())
    }

    /// Prepares a tile layout with an optional swizzle.
    pub fn with_swizzle(tile: &TileLayout, swizzle: Option<Swizzle>) -> Option<Ref> {
        let count = tile.replica().iter().try_fold(1i64, |acc, it| acc.checked_mul(it.extent))?;
        if count > MAX_REPLICAS {
            return None;
        }
        let mut replicas = vec![Point::new()];
        for it in tile.replica() {
            replicas = replicas
                .iter()
                .flat_map(|p| {
                    (0..it.extent).map(move |d| add(p, &Point::from([(it.axis.name(), d as i128 * it.stride as i128)])))
                })
                .collect();
        }
        let offset = clean(tile.offset().iter().map(|(a, v)| (a.name(), *v as i128)).collect());
        let shard = tile.shard().iter().map(|i| (i.extent as i128, i.stride as i128, i.axis.name())).collect();
        Some(Ref { shard, offset, replicas, swizzle, size: tile.size() })
    }

    /// D(flat) + O.
    pub fn base(&self, flat: i64) -> Point {
        let mut p = self.offset.clone();
        let mut rest = flat as i128;
        for &(e, s, a) in self.shard.iter().rev() {
            *p.entry(a).or_insert(0) += (rest % e) * s;
            rest /= e;
        }
        clean(p)
    }

    /// L(flat) = { swz(D(flat) + O + r) | r in R }.
    pub fn eval(&self, flat: i64) -> BTreeSet<Point> {
        let base = self.base(flat);
        self.replicas.iter().map(|r| finish(self.swizzle, add(&base, r))).collect()
    }

    /// Every replica point (before any swizzle).
    pub fn replica_points(&self) -> &[Point] {
        &self.replicas
    }
}

/// Applies the swizzle (if any) to `m`.
pub fn finish(sw: Option<Swizzle>, mut p: Point) -> Point {
    if let Some(sw) = sw {
        let m = p.get("m").copied().unwrap_or(0);
        p.insert("m", swizzle(sw, m));
    }
    clean(p)
}

/// The crate's evaluation of one index as a set of points (zero entries dropped), or its error text.
pub fn crate_eval(layout: &Layout, flat: i64) -> Result<BTreeSet<Point>, String> {
    let coords = layout.eval_flat(flat).map_err(|e| e.to_string())?;
    Ok(coords.into_iter().map(|c| clean(c.into_iter().map(|(a, v)| (a.name(), v as i128)).collect())).collect())
}

/// span(L, a) = 1 + sum over shard and replica iters on `a` of (e-1)*|s|, plus O(a), per axis L mentions.
pub fn spans(tile: &TileLayout) -> Point {
    let mut span: Point = BTreeMap::new();
    for it in tile.shard().iter().chain(tile.replica()) {
        *span.entry(it.axis.name()).or_insert(1) += (it.extent as i128 - 1) * (it.stride as i128).abs();
    }
    for (a, v) in tile.offset() {
        *span.entry(a.name()).or_insert(1) += *v as i128;
    }
    span
}

/// Row-major coordinate of `flat` in `shape`.
pub fn coord_of(shape: &[i64], mut flat: i64) -> Vec<i64> {
    let mut x = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        x[d] = flat % shape[d];
        flat /= shape[d];
    }
    x
}

/// Row-major flat index of `x` in `shape`.
pub fn flat_of(shape: &[i64], x: &[i64]) -> i64 {
    shape.iter().zip(x).fold(0, |acc, (e, c)| acc * e + c)
}

/// The flat indices a check visits for a layout of `size` elements: all of them up to [`ENUMERATE`], else the
/// first and last and a fixed spread between.
pub fn indices(size: i64) -> Vec<i64> {
    if size <= ENUMERATE {
        return (0..size).collect();
    }
    let mut out: Vec<i64> = (0..64).map(|k| (size / 64).saturating_mul(k) + k % 7).filter(|f| *f < size).collect();
    out.extend([0, 1, size - 2, size - 1]);
    out.sort_unstable();
    out.dedup();
    out
}
