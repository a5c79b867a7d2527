//! Shared generators and an independent reference evaluator for the property tests.
//!
//! Generators (proptest strategies):
//! - [`tile_layout`] / [`layout`] with [`Params`]: mixed axes, zero and negative strides, runs of fusable iters,
//!   unit iters, replicas (including stride 0, negative, absorbable pairs) and offsets (including zeros);
//!   `layout` also yields ComposeLayouts (memory-only tile under a small swizzle, sometimes bare).
//! - shapes: [`any_shape`] (any ordered factorization of the size, with unit dims) and [`groupable_shape`]
//!   (cuts only where `group` can split), both driven by a vector of seeds from [`seeds`].
//!
//! Reference semantics ([`ref_eval`], [`ref_map`]): written from semantics.md, not from the crate: flatten
//! row-major, split the flat index over the shard extents (last iter fastest), add digit*stride per axis, add
//! the offset, add every replica combination, apply the swizzle bit by bit to `m`. Points are arrays with one
//! value per axis of `REF_AXES`, so an axis a layout does not mention is simply at 0.
#![allow(dead_code)]

use axe_layout::canonicalize::normalize_shard;
use axe_layout::{Axis, ComposeLayout, Iter, Layout, Swizzle, TileLayout};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

/// The axes the reference evaluator knows, in slot order (extend it when a test needs another axis).
pub const REF_AXES: [&str; SLOTS] =
    ["m", "laneid", "warpid", "wgid", "wid_in_wg", "tid_in_wg", "tid", "TLane", "TCol", "P", "F", "gpuid"];

/// The number of slots of a [`Point`].
pub const SLOTS: usize = 12;

/// A point: one value per axis of [`REF_AXES`], indexed by [`slot`]; an axis a layout does not use is at 0.
pub type Point = [i64; SLOTS];

/// The axes the generators draw from (memory, thread and tensor-memory axes).
pub const ALL_AXES: &[&str] = &["m", "laneid", "warpid", "TLane", "TCol", "wgid"];

/// Only the memory axis `m` (for tiles under a swizzle).
pub const M_ONLY: &[&str] = &["m"];

/// Knobs of the layout generators.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// Largest shard size (product of extents); extents that would exceed it become 1.
    pub max_size: i64,
    /// Most shard iters.
    pub max_shard: usize,
    /// Most replica iters.
    pub max_replica: usize,
    /// Largest |stride| of a freely drawn stride.
    pub max_stride: i64,
    /// Axis names to draw from (`m` is drawn more often when present).
    pub axes: &'static [&'static str],
    /// Largest |offset| per axis.
    pub max_offset: i64,
}

impl Params {
    /// Sizes up to 64, every axis, replicas and offsets.
    pub const fn general() -> Params {
        Params { max_size: 64, max_shard: 5, max_replica: 2, max_stride: 9, axes: ALL_AXES, max_offset: 8 }
    }

    /// Like `general` but with a custom size bound.
    pub const fn sized(max_size: i64) -> Params {
        Params { max_size, ..Params::general() }
    }

    /// Only axis `m`.
    pub const fn memory(max_size: i64) -> Params {
        Params { axes: M_ONLY, ..Params::sized(max_size) }
    }

    /// A tiny space (sizes <= 4, strides in -2..=2, two axes) where distinct layouts often share a map.
    pub const fn tiny() -> Params {
        Params { max_size: 4, max_shard: 3, max_replica: 2, max_stride: 2, axes: &["m", "laneid"], max_offset: 2 }
    }
}

fn axis_from(names: &'static [&'static str]) -> impl Strategy<Value = Axis> + Clone {
    prop_oneof![2 => Just(names[0]), 3 => prop::sample::select(names)].prop_map(|n| Axis::named(n).unwrap())
}

fn extent(max: i64) -> impl Strategy<Value = i64> + Clone {
    prop_oneof![1 => Just(1i64), 4 => 2i64..=4, 1 => 5i64..=8].prop_map(move |e| e.min(max.max(1)))
}

/// How a shard iter's stride is chosen relative to the iter to its right.
#[derive(Clone, Copy, Debug)]
enum StrideKind {
    Free,
    /// `s_i = e_{i+1} * s_{i+1}`: fuses with the next iter under D1.
    Compact,
    /// Compact, negated.
    NegCompact,
    Zero,
}

fn stride_kind() -> impl Strategy<Value = StrideKind> + Clone {
    prop_oneof![4 => Just(StrideKind::Free), 3 => Just(StrideKind::Compact), 1 => Just(StrideKind::NegCompact),
        1 => Just(StrideKind::Zero)]
}

type IterSpec = (i64, StrideKind, i64, bool, Axis);

fn build_shard(specs: &[IterSpec], max_size: i64) -> Vec<Iter> {
    let mut size = 1i64;
    let extents: Vec<i64> = specs
        .iter()
        .map(|s| {
            let e = if size * s.0 <= max_size { s.0 } else { 1 };
            size *= e;
            e
        })
        .collect();
    let mut out: Vec<Iter> = Vec::new();
    for (spec, &e) in specs.iter().zip(&extents).rev() {
        let next = out.last().copied();
        let axis = match (spec.3, next) {
            (true, Some(n)) => n.axis,
            _ => spec.4,
        };
        let compact = next.filter(|n| n.axis == axis).map(|n| n.extent * n.stride);
        let stride = match (spec.1, compact) {
            (StrideKind::Compact, Some(c)) => c,
            (StrideKind::NegCompact, Some(c)) => -c,
            (StrideKind::Zero, _) => 0,
            _ => spec.2,
        };
        out.push(Iter::new(e, stride, axis).unwrap());
    }
    out.reverse();
    out
}

/// A random tile layout within `p`.
pub fn tile_layout(p: Params) -> impl Strategy<Value = TileLayout> + Clone {
    let ax = axis_from(p.axes);
    let spec = (extent(8), stride_kind(), -p.max_stride..=p.max_stride, prop::bool::weighted(0.6), ax.clone());
    let shard = prop::collection::vec(spec, 0..=p.max_shard);
    let rep = (extent(4), -p.max_stride..=p.max_stride, ax.clone());
    let replica = prop::collection::vec(rep, 0..=p.max_replica);
    let offset = prop::collection::vec((ax, -p.max_offset..=p.max_offset), 0..=2);
    (shard, replica, offset).prop_map(move |(shard, replica, offset)| {
        let shard = build_shard(&shard, p.max_size);
        let replica = replica.into_iter().map(|(e, s, a)| Iter::new(e, s, a).unwrap()).collect();
        let mut offsets = BTreeMap::new();
        for (a, v) in offset {
            *offsets.entry(a).or_insert(0) += v;
        }
        TileLayout::new(shard, replica, offsets).unwrap()
    })
}

/// A small well-formed swizzle: `M <= 2`, `B <= 3`, `B <= S <= 3`.
pub fn swizzle() -> impl Strategy<Value = Swizzle> + Clone {
    (0u32..=2, 0u32..=3, 0u32..=3).prop_map(|(m, b, s)| Swizzle::new(m, b.min(s), s).unwrap())
}

/// A ComposeLayout: a memory-only tile (within `max_size`) under a small swizzle, bare one time in five.
pub fn compose_layout(max_size: i64) -> impl Strategy<Value = ComposeLayout> + Clone {
    let small: Vec<Swizzle> = (0u32..=2)
        .flat_map(|m| (0u32..=3).flat_map(move |s| (0..=s).map(move |b| Swizzle::new(m, b, s).unwrap())))
        .filter(|s| s.period() <= max_size.max(1))
        .collect();
    let bare = prop::sample::select(small);
    prop_oneof![
        4 => (swizzle(), tile_layout(Params::memory(max_size))).prop_map(|(s, t)| ComposeLayout::new(s, t).unwrap()),
        1 => bare.prop_map(ComposeLayout::bare),
    ]
}

/// A random layout: a tile layout within `p` three times in four, otherwise a ComposeLayout.
pub fn layout(p: Params) -> impl Strategy<Value = Layout> + Clone {
    prop_oneof![3 => tile_layout(p).prop_map(Layout::Tile), 1 => compose_layout(p.max_size).prop_map(Layout::Compose)]
}

/// Seeds that drive shape choices (kept as data so proptest can shrink them).
pub fn seeds() -> impl Strategy<Value = Vec<u32>> + Clone {
    prop::collection::vec(any::<u32>(), 12)
}

/// The prime factors of `n`, increasing.
pub fn prime_factors(mut n: i64) -> Vec<i64> {
    let mut out = Vec::new();
    let mut p = 2;
    while p * p <= n {
        while n % p == 0 {
            out.push(p);
            n /= p;
        }
        p += 1;
    }
    if n > 1 {
        out.push(n);
    }
    out
}

/// Cuts `factors` into `rank` consecutive (possibly empty) runs at seed-chosen places; the run products.
pub fn cut(factors: &[i64], rank: usize, seeds: &[u32]) -> Vec<i64> {
    let mut cuts: Vec<usize> =
        (0..rank.saturating_sub(1)).map(|k| seeds[k % seeds.len()] as usize % (factors.len() + 1)).collect();
    cuts.sort();
    let mut bounds = vec![0];
    bounds.extend(cuts);
    bounds.push(factors.len());
    bounds.windows(2).map(|w| factors[w[0]..w[1]].iter().product()).collect()
}

/// A rank between 1 and `max_rank` chosen by a seed.
pub fn rank_of(seed: u32, max_rank: usize) -> usize {
    1 + seed as usize % max_rank.max(1)
}

/// Any ordered factorization of `size` of the given rank (prime factors shuffled, then cut), unit dims included.
pub fn any_shape(size: i64, rank: usize, seeds: &[u32]) -> Vec<i64> {
    let mut f = prime_factors(size);
    for i in (1..f.len()).rev() {
        f.swap(i, seeds[(i + 3) % seeds.len()] as usize % (i + 1));
    }
    cut(&f, rank, &seeds[1..])
}

/// A shape of the given rank that `group` must accept: the prime factors of the normalized shard's extents, in
/// iter order, cut into consecutive runs.
pub fn groupable_shape(tile: &TileLayout, rank: usize, seeds: &[u32]) -> Vec<i64> {
    let f: Vec<i64> = normalize_shard(tile.shard()).iter().flat_map(|i| prime_factors(i.extent)).collect();
    cut(&f, rank, seeds)
}

/// The swizzle, bit by bit: for `i < B`, bit `i` of `q = a >> M` is XORed with bit `i + S`.
pub fn ref_swizzle(sw: Swizzle, a: i64) -> i64 {
    let (m, b, s) = (sw.per_element, sw.swizzle_len, sw.atom_len);
    let low = a & ((1 << m) - 1);
    let mut q = a >> m;
    for i in 0..b {
        q ^= ((q >> (i + s)) & 1) << i;
    }
    (q << m) | low
}

/// The slot of an axis in a [`Point`]: its position in [`REF_AXES`] (`m` is slot 0).
pub fn slot(axis: Axis) -> usize {
    REF_AXES.iter().position(|a| *a == axis.name()).expect("the reference evaluator knows the axes of REF_AXES only")
}

/// A layout prepared for reference evaluation: iters with their axis slots resolved, replica points listed.
#[derive(Clone, Debug)]
pub struct Ref {
    shard: Vec<(i64, i64, usize)>,
    offset: Point,
    replicas: Vec<Point>,
    swizzle: Option<Swizzle>,
    /// The number of logical elements (product of shard extents).
    pub size: i64,
}

impl Ref {
    /// Prepares `layout` (its swizzle, if any, is applied by [`Ref::eval`]).
    pub fn new(layout: &Layout) -> Ref {
        let tile = layout.tile();
        let mut offset = [0; SLOTS];
        for (a, v) in tile.offset() {
            offset[slot(*a)] += v;
        }
        let shard: Vec<(i64, i64, usize)> = tile.shard().iter().map(|i| (i.extent, i.stride, slot(i.axis))).collect();
        let size = shard.iter().map(|i| i.0).product();
        Ref { shard, offset, replicas: ref_replicas(tile), swizzle: layout.swizzle(), size }
    }

    /// Prepares a tile layout (no swizzle).
    pub fn tile(tile: &TileLayout) -> Ref {
        Ref::new(&Layout::Tile(tile.clone()))
    }

    /// D(flat) + O: split `flat` over the shard extents, last iter fastest.
    pub fn base(&self, flat: i64) -> Point {
        let mut p = self.offset;
        let mut rest = flat;
        for &(e, s, k) in self.shard.iter().rev() {
            p[k] += (rest % e) * s;
            rest /= e;
        }
        p
    }

    /// L(flat) = { swz(D(flat) + O + r) | r in R }.
    pub fn eval(&self, flat: i64) -> BTreeSet<Point> {
        let base = self.base(flat);
        self.replicas.iter().map(|r| finish(self.swizzle, add(&base, r))).collect()
    }

    /// L(flat) for every flat index.
    pub fn map(&self) -> Vec<BTreeSet<Point>> {
        (0..self.size).map(|f| self.eval(f)).collect()
    }
}

/// Every combination of replica offsets.
pub fn ref_replicas(tile: &TileLayout) -> Vec<Point> {
    let mut points = vec![[0; SLOTS]];
    for it in tile.replica() {
        let k = slot(it.axis);
        points = points
            .iter()
            .flat_map(|p| {
                (0..it.extent).map(move |d| {
                    let mut q = *p;
                    q[k] += d * it.stride;
                    q
                })
            })
            .collect();
    }
    points
}

/// `a + b`, axis by axis.
pub fn add(a: &Point, b: &Point) -> Point {
    let mut out = *a;
    for k in 0..SLOTS {
        out[k] += b[k];
    }
    out
}

/// `scale (.) a`, axis by axis.
pub fn hadamard(scale: &Point, a: &Point) -> Point {
    let mut out = *a;
    for k in 0..SLOTS {
        out[k] *= scale[k];
    }
    out
}

/// Applies the swizzle (if any) to `m`.
pub fn finish(sw: Option<Swizzle>, mut p: Point) -> Point {
    if let Some(sw) = sw {
        p[0] = ref_swizzle(sw, p[0]);
    }
    p
}

/// `t` with every stride and the offset on `m` multiplied by `k` (other axes as they are).
pub fn scaled_on_m(t: &TileLayout, k: i64) -> TileLayout {
    let on_m = |i: &Iter| Iter::new(i.extent, if i.axis == Axis::M { i.stride * k } else { i.stride }, i.axis).unwrap();
    let offset = t.offset().iter().map(|(&a, &v)| (a, if a == Axis::M { v * k } else { v })).collect();
    TileLayout::new(t.shard().iter().map(on_m).collect(), t.replica().iter().map(on_m).collect(), offset).unwrap()
}

/// D(flat) + O of a tile layout, by the definition (replica and swizzle not applied).
pub fn ref_base(tile: &TileLayout, flat: i64) -> Point {
    Ref::tile(tile).base(flat)
}

/// L(flat) by the definition (semantics.md "Forward map").
pub fn ref_eval(layout: &Layout, flat: i64) -> BTreeSet<Point> {
    Ref::new(layout).eval(flat)
}

/// L(flat) for every flat index of the layout.
pub fn ref_map(layout: &Layout) -> Vec<BTreeSet<Point>> {
    Ref::new(layout).map()
}

/// span(L, a) = 1 + sum over shard and replica iters on `a` of (e-1)*|s| + O[a], per slot (1 on unused axes).
pub fn ref_spans(tile: &TileLayout) -> Point {
    let mut span = [1; SLOTS];
    for it in tile.shard().iter().chain(tile.replica()) {
        span[slot(it.axis)] += (it.extent - 1) * it.stride.abs();
    }
    for (a, v) in tile.offset() {
        span[slot(*a)] += v;
    }
    span
}

/// Row-major flat index of `x` in `shape`.
pub fn flat_of(shape: &[i64], x: &[i64]) -> i64 {
    shape.iter().zip(x).fold(0, |acc, (e, c)| acc * e + c)
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

/// `t` with its shard extents replaced by the prime factors of `size` (strides and axes kept where there are
/// iters, `(p, 1, m)` iters added where there are not): a layout of the requested size that still looks like `t`.
pub fn resized(t: &TileLayout, size: i64) -> TileLayout {
    let f = prime_factors(size);
    let n = f.len().max(t.shard().len());
    let shard = (0..n)
        .map(|i| {
            let e = f.get(i).copied().unwrap_or(1);
            let (s, a) = t.shard().get(i).map_or((1, Axis::M), |it| (it.stride, it.axis));
            Iter::new(e, s, a).unwrap()
        })
        .collect();
    TileLayout::new(shard, t.replica().to_vec(), t.offset().clone()).unwrap()
}

/// [`resized`] for any layout (a swizzle is kept).
pub fn resized_layout(l: &Layout, size: i64) -> Layout {
    let t = resized(l.tile(), size);
    match l.swizzle() {
        Some(sw) => Layout::Compose(ComposeLayout::new(sw, t).unwrap()),
        None => Layout::Tile(t),
    }
}
