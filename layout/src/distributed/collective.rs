//! The collective planner: what a copy between two distributed layouts of one tensor moves, rank by rank
//! (paper section 3.2: a copy whose source or destination is distributed "might involve an all-gather or
//! broadcast under the hood"; section 4.2: reduce-scatter).
//!
//! # What a plan says
//!
//! Each rank's local buffers are the source and destination tiles on `m` (elements, from 0 to the layout's span
//! on `m`). For every destination place (rank, offset) of every logical element, the planner picks the source
//! place it is copied from: the holder that agrees with the destination rank on the most mesh coordinates (so a
//! replica on the same rank is a local copy and a gather stays within its mesh row), then the nearest in ring
//! order `(holder - rank) mod ranks`, then the lowest offset. With a reduction (the source carries Partial
//! markers), it picks one holder per combination of the partial axes' coordinates and the destination is the
//! `op` of their values.
//!
//! A plan lists, per rank, the [`Step`]s that rank initiates, in order:
//! - copies are one-sided puts by the holder (`put`, or `copy` when holder and destination are one rank): each
//!   destination element is written exactly once;
//! - reductions are gets by the destination rank: its first contribution overwrites (`get`, or `copy` from its
//!   own source buffer), every other accumulates (`get-reduce`, or local `reduce`); a rank runs all its
//!   overwriting steps before its accumulating ones.
//!
//! Within those, steps go by ring distance to the peer (`(peer - rank) mod ranks`: self, then the next rank, ...),
//! the order that spreads a collective's traffic over the links. Every step reads the peers' *source* buffers,
//! which no step writes, so ranks may run their steps concurrently.
//!
//! A step's elements are [`Slice`]s: `count` repetitions of `len` elements that are consecutive in the row-major
//! logical order and in both buffers, the repetitions `logical_stride`, `src_stride`, `dst_stride` apart.
//!
//! # Classification
//!
//! When both layouts are placements ([`Distribution::of_layout`]), the mesh axes whose placement changes name the
//! collective: Shard -> Replicate all-gather, Partial -> Shard reduce-scatter, Partial -> Replicate all-reduce,
//! Shard(d) -> Shard(e) all-to-all, Replicate -> Shard a local slice; one kind over all changed axes is that
//! collective, mixed kinds are point-to-point. The kind is kept only if every transfer stays within the groups of
//! the changed axes (ranks agreeing on every other axis). Otherwise: a source on one rank and a destination
//! holding the whole tensor on every rank is a broadcast from that root; a reduction into one rank is a reduce;
//! anything else is point-to-point (which is always a correct description of the steps).
//!
//! # Refusals
//!
//! `<rule> rule: ...`, with [`RULES`] listing them: `shape` (logical shapes differ), `axis` (an axis other than
//! `m` or a mesh axis), `device-range` (a device coordinate outside the mesh), `buffer` (an offset outside
//! `0..span`), `src-alias` / `dst-alias` (one place holds two logical elements), `partial` (a Partial marker on
//! an axis the source does not replicate over, or mixed ops), `dst-partial` (a destination holds values, not
//! pending sums), `size` (more than [`MAX_PLACES`] places to enumerate, or rows to list).
//!
//! # Two paths, one answer
//!
//! Between two placement layouts each rank holds one box of the tensor, so [`plan`] intersects boxes and lists
//! rows (work proportional to the rows moved); any other pair goes through [`plan_enumerated`], which evaluates
//! both layouts element by element. Where both apply they give the same plan (the tests compare them).

use super::mesh::Mesh;
use super::placement::{DistLayout, Distribution, ReduceOp};
use crate::axis::Axis;
use crate::error::{LayoutError, Result};
use crate::eval::Evaluator;
use crate::notation::shape_text;
use crate::tile_layout::{flatten, unflatten};
use std::collections::{BTreeMap, HashMap};

/// Every rule the planner may refuse by (the first word of the message).
pub const RULES: &[&str] =
    &["shape", "axis", "device-range", "buffer", "src-alias", "dst-alias", "partial", "dst-partial", "size"];

/// The most places (logical elements times replicas, both sides) a plan enumerates.
pub const MAX_PLACES: i64 = 1 << 20;

fn refuse<T>(rule: &str, message: String) -> Result<T> {
    Err(LayoutError::new(format!("{rule} rule: {message}")))
}

/// What collective a plan is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CollectiveKind {
    /// No rank needs another's data (equal layouts, or a replica sliced locally).
    Local,
    /// Shard -> Replicate on the changed axes.
    AllGather,
    /// Partial -> Shard.
    ReduceScatter,
    /// Partial -> Replicate.
    AllReduce,
    /// The whole tensor from one root rank to every rank.
    Broadcast,
    /// Partial values reduced into one root rank.
    Reduce,
    /// Shard(d) -> Shard(e).
    AllToAll,
    /// Anything else: puts and gets per peer.
    PointToPoint,
}

impl CollectiveKind {
    /// `local`, `all-gather`, `reduce-scatter`, `all-reduce`, `broadcast`, `reduce`, `all-to-all`,
    /// `point-to-point`.
    pub fn name(self) -> &'static str {
        match self {
            CollectiveKind::Local => "local",
            CollectiveKind::AllGather => "all-gather",
            CollectiveKind::ReduceScatter => "reduce-scatter",
            CollectiveKind::AllReduce => "all-reduce",
            CollectiveKind::Broadcast => "broadcast",
            CollectiveKind::Reduce => "reduce",
            CollectiveKind::AllToAll => "all-to-all",
            CollectiveKind::PointToPoint => "point-to-point",
        }
    }
}

/// What a step does (see the module docs for who initiates it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StepOp {
    /// Local: own source buffer -> own destination buffer, overwriting.
    Copy,
    /// Local: own source buffer reduced into own destination buffer.
    Reduce,
    /// Initiated by the source rank: own source buffer -> the peer's destination buffer, overwriting.
    Put,
    /// Initiated by the destination rank: the peer's source buffer -> own destination buffer, overwriting.
    Get,
    /// Initiated by the destination rank: the peer's source buffer reduced into own destination buffer.
    GetReduce,
}

impl StepOp {
    /// `copy`, `reduce`, `put`, `get`, `get-reduce`.
    pub fn name(self) -> &'static str {
        match self {
            StepOp::Copy => "copy",
            StepOp::Reduce => "reduce",
            StepOp::Put => "put",
            StepOp::Get => "get",
            StepOp::GetReduce => "get-reduce",
        }
    }

    /// Whether the step accumulates into the destination (rather than overwriting it).
    pub fn accumulates(self) -> bool {
        matches!(self, StepOp::Reduce | StepOp::GetReduce)
    }
}

/// `count` repetitions of `len` consecutive elements: repetition `c`, element `j` is logical flat index
/// `flatten(logical) + c * logical_stride + j` (row-major over the tensor's shape), source offset
/// `src_offset + c * src_stride + j`, destination offset `dst_offset + c * dst_stride + j`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slice {
    /// The logical coordinate of the first element.
    pub logical: Vec<i64>,
    /// Flat logical distance between repetitions.
    pub logical_stride: i64,
    /// Offset of the first element in the source rank's buffer.
    pub src_offset: i64,
    /// Offset of the first element in the destination rank's buffer.
    pub dst_offset: i64,
    /// Elements per repetition.
    pub len: i64,
    /// Repetitions (at least 1).
    pub count: i64,
    /// Source distance between repetitions.
    pub src_stride: i64,
    /// Destination distance between repetitions.
    pub dst_stride: i64,
}

/// One transfer a rank initiates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// What it does.
    pub op: StepOp,
    /// The rank whose source buffer is read.
    pub src_rank: i64,
    /// The rank whose destination buffer is written.
    pub dst_rank: i64,
    /// Elements moved (sum of `len * count`).
    pub elements: i64,
    /// The elements.
    pub slices: Vec<Slice>,
}

/// The steps one rank initiates, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankPlan {
    /// The rank (row-major over the mesh).
    pub rank: i64,
    /// Its mesh coordinate.
    pub coord: Vec<i64>,
    /// Its steps, in order.
    pub steps: Vec<Step>,
}

/// A mesh axis whose placement changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AxisChange {
    /// The device axis.
    pub axis: Axis,
    /// Its mesh name.
    pub name: String,
    /// The source placement (`Shard(0)`).
    pub from: String,
    /// The destination placement.
    pub to: String,
}

/// A collective plan (module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CollectivePlan {
    /// Which collective.
    pub kind: CollectiveKind,
    /// The reduction, when the source is Partial.
    pub reduce: Option<ReduceOp>,
    /// The source's partial axes.
    pub partial_axes: Vec<Axis>,
    /// The mesh axes whose placement changes (empty when a side is not placements).
    pub changes: Vec<AxisChange>,
    /// The root of a broadcast or reduce.
    pub root: Option<i64>,
    /// Elements of every rank's source buffer.
    pub src_elements: i64,
    /// Elements of every rank's destination buffer.
    pub dst_elements: i64,
    /// Per rank, in rank order.
    pub ranks: Vec<RankPlan>,
}

/// Every place of every logical element of one side: `places[f]` = (rank, offset) pairs, sorted.
struct Places {
    places: Vec<Vec<(i64, i64)>>,
}

fn places_of(mesh: &Mesh, dist: &DistLayout, role: &str, alias_rule: &str) -> Result<Places> {
    let eval = Evaluator::new(&dist.layout).map_err(|e| LayoutError::new(format!("size rule: {}", e.message)))?;
    let slots: Vec<Option<usize>> = eval.axes().iter().map(|&a| mesh.index_of(a)).collect();
    let m_slot = eval.axes().iter().position(|&a| a == Axis::M);
    for (k, a) in eval.axes().iter().enumerate() {
        if slots[k].is_none() && Some(k) != m_slot {
            return refuse("axis", format!("{role} layout uses axis {a}, neither m nor a mesh axis ({})", mesh.text()));
        }
    }
    let span = dist.local_elements();
    let count = crate::arith::product(dist.shape.iter().copied(), "the element count")?;
    let width = eval.axes().len().max(1);
    let mut out = Vec::with_capacity(count as usize);
    let mut owner: HashMap<(i64, i64), i64> = HashMap::new();
    let mut buf = Vec::new();
    let mut coord = vec![0i64; mesh.axes().len()];
    for f in 0..count {
        let x = unflatten(&dist.shape, f);
        let pf = flatten(&dist.padded, &x)?;
        let n = eval.values_into(pf, &mut buf)?;
        let mut places = Vec::with_capacity(n);
        for point in buf.chunks(width).take(n) {
            coord.iter_mut().for_each(|c| *c = 0);
            for (k, &v) in point.iter().enumerate() {
                if let Some(i) = slots[k] {
                    coord[i] = v;
                }
            }
            let Some(rank) = mesh.rank_of(&coord) else {
                return refuse(
                    "device-range",
                    format!(
                        "{role} layout puts element {} on mesh coordinate {}, outside the mesh {}",
                        shape_text(&x),
                        shape_text(&coord),
                        mesh.text()
                    ),
                );
            };
            let off = m_slot.map_or(0, |k| point[k]);
            if off < 0 || off >= span {
                return refuse(
                    "buffer",
                    format!(
                        "{role} layout puts element {} at m = {off}, outside the local buffer 0..{span}",
                        shape_text(&x)
                    ),
                );
            }
            if let Some(prev) = owner.insert((rank, off), f) {
                if prev != f {
                    return refuse(
                        alias_rule,
                        format!(
                            "{role} rank {rank} offset {off} holds both element {} and element {}",
                            shape_text(&unflatten(&dist.shape, prev)),
                            shape_text(&x)
                        ),
                    );
                }
            }
            places.push((rank, off));
        }
        places.sort_unstable();
        places.dedup();
        out.push(places);
    }
    Ok(Places { places: out })
}

/// A step's identity and order: (initiator, phase (overwrite 0, accumulate 1), ring distance from the
/// initiator to the peer, source rank, destination rank, op).
type Key = (i64, u8, i64, i64, i64, StepOp);

/// Elements consecutive in the logical order and both buffers: (flat, source offset, destination offset, len).
type Run = (i64, i64, i64, i64);

/// The key of holder `h`'s contribution to destination rank `r` (`first`: the first of the element's
/// contributions in ring order); see the module docs for who initiates what.
fn step_key(reducing: bool, first: bool, h: i64, r: i64, n: i64) -> Key {
    let ring = |from: i64, to: i64| (to - from).rem_euclid(n);
    match (reducing, first, h == r) {
        (false, _, true) => (r, 0, 0, h, r, StepOp::Copy),
        (false, _, false) => (h, 0, ring(h, r), h, r, StepOp::Put),
        (true, true, true) => (r, 0, 0, h, r, StepOp::Copy),
        (true, true, false) => (r, 0, ring(r, h), h, r, StepOp::Get),
        (true, false, true) => (r, 1, 0, h, r, StepOp::Reduce),
        (true, false, false) => (r, 1, ring(r, h), h, r, StepOp::GetReduce),
    }
}

/// The checks both planning paths share: equal shapes, no Partial destination, one reduction op, Partial axes
/// the source replicates over. Returns the op and the partial axes' mesh positions.
fn check(mesh: &Mesh, src: &DistLayout, dst: &DistLayout) -> Result<(Option<ReduceOp>, Vec<usize>)> {
    if src.shape != dst.shape {
        return refuse(
            "shape",
            format!("source shape {} and destination shape {} differ", shape_text(&src.shape), shape_text(&dst.shape)),
        );
    }
    if let Some((a, op)) = dst.partial.first() {
        return refuse(
            "dst-partial",
            format!("the destination is marked Partial({}) on {a}; a copy's destination holds values", op.name()),
        );
    }
    let reduce = match src.partial.first() {
        None => None,
        Some(&(_, op)) => {
            if let Some((a, other)) = src.partial.iter().find(|(_, o)| *o != op) {
                return refuse(
                    "partial",
                    format!(
                        "mixed reductions: {} and {} (on {a}); one plan reduces with one op",
                        op.name(),
                        other.name()
                    ),
                );
            }
            Some(op)
        }
    };
    let mut partial_idx = Vec::new();
    for &(a, _) in &src.partial {
        let tile = src.layout.tile();
        let Some(i) = mesh.index_of(a) else {
            return refuse("partial", format!("partial axis {a} is not a mesh axis ({})", mesh.text()));
        };
        let replicated = tile.replica().iter().any(|it| it.axis == a && it.extent > 1)
            && !tile.shard().iter().any(|it| it.axis == a && it.extent > 1);
        if !replicated && mesh.axes()[i].extent > 1 {
            return refuse(
                "partial",
                format!("partial axis {a}: the source is not replicated over it, so its ranks hold different elements"),
            );
        }
        if partial_idx.contains(&i) {
            return refuse("partial", format!("partial axis {a} is marked twice"));
        }
        partial_idx.push(i);
    }
    Ok((reduce, partial_idx))
}

/// Plans the copy `dst = src` (or `dst = op over partial ranks of src`) between two distributed layouts of one
/// tensor on `mesh` (module docs). When both layouts are placements, the plan is computed from their blocks
/// (work proportional to the rows moved, not the elements); otherwise by [`plan_enumerated`]. Both give the
/// same plan where both apply (`tests/collective_model.rs` compares them).
pub fn plan(mesh: &Mesh, src: &DistLayout, dst: &DistLayout) -> Result<CollectivePlan> {
    let (reduce, partial_idx) = check(mesh, src, dst)?;
    if !src.shape.is_empty() {
        if let (Ok(ds), Ok(dd)) = (Distribution::of_layout(mesh, src), Distribution::of_layout(mesh, dst)) {
            return plan_blocks(mesh, src, dst, &ds, &dd, reduce, &partial_idx);
        }
    }
    plan_enumerated(mesh, src, dst)
}

/// The plan of any two layouts, by evaluating both on every logical element (at most [`MAX_PLACES`] places):
/// the reference for [`plan`].
pub fn plan_enumerated(mesh: &Mesh, src: &DistLayout, dst: &DistLayout) -> Result<CollectivePlan> {
    let (reduce, partial_idx) = check(mesh, src, dst)?;
    let count = crate::arith::product(src.shape.iter().copied(), "the element count")
        .map_err(|e| LayoutError::new(format!("size rule: {}", e.message)))?;
    let reps = src.layout.tile().replica_count().saturating_add(dst.layout.tile().replica_count());
    if count.saturating_mul(reps) > MAX_PLACES {
        return refuse(
            "size",
            format!("{count} elements times {reps} replicas is more than the {MAX_PLACES} places a plan enumerates"),
        );
    }
    let sp = places_of(mesh, src, "source", "src-alias")?;
    let dp = places_of(mesh, dst, "destination", "dst-alias")?;
    let n = mesh.ranks();
    let coords: Vec<Vec<i64>> = (0..n).map(|r| mesh.coord(r)).collect();
    let ring = |from: i64, to: i64| (to - from).rem_euclid(n);

    let mut steps: BTreeMap<Key, Vec<Run>> = BTreeMap::new();
    // (partial key, preference score, holder rank, holder offset) per partial group.
    type Candidate = (Vec<i64>, (usize, i64, i64), i64, i64);
    let mut chosen: Vec<Candidate> = Vec::new();
    for f in 0..count as usize {
        let holders = &sp.places[f];
        for &(r, doff) in &dp.places[f] {
            // One holder per partial group: key = coordinates on the partial axes.
            chosen.clear();
            for &(h, soff) in holders {
                let key: Vec<i64> = partial_idx.iter().map(|&i| coords[h as usize][i]).collect();
                let agree = coords[h as usize].iter().zip(&coords[r as usize]).filter(|(a, b)| a == b).count();
                let score = (usize::MAX - agree, ring(r, h), soff);
                match chosen.iter_mut().find(|c| c.0 == key) {
                    Some(c) if score < c.1 => *c = (key, score, h, soff),
                    Some(_) => {}
                    None => chosen.push((key, score, h, soff)),
                }
            }
            chosen.sort_by_key(|&(_, _, h, soff)| (ring(r, h), soff));
            for (k, &(_, _, h, soff)) in chosen.iter().enumerate() {
                let key = step_key(reduce.is_some(), k == 0, h, r, n);
                steps.entry(key).or_default().push((f as i64, soff, doff, 1));
            }
        }
    }
    let ranks = assemble(mesh, &src.shape, steps);
    let (kind, changes, root) = match (Distribution::of_layout(mesh, src), Distribution::of_layout(mesh, dst)) {
        (Ok(ds), Ok(dd)) => {
            let (kind, changes) = classify_placements(mesh, &ds, &dd, &ranks);
            (kind, changes, None)
        }
        _ => classify_other(mesh, &sp, &dp, &ranks, reduce.is_some()),
    };
    Ok(CollectivePlan {
        kind,
        reduce,
        partial_axes: src.partial.iter().map(|(a, _)| *a).collect(),
        changes,
        root,
        src_elements: src.local_elements(),
        dst_elements: dst.local_elements(),
        ranks,
    })
}

/// Per rank, its steps in key order, each step's runs sorted and compressed into slices.
fn assemble(mesh: &Mesh, shape: &[i64], steps: BTreeMap<Key, Vec<Run>>) -> Vec<RankPlan> {
    let mut ranks: Vec<RankPlan> =
        (0..mesh.ranks()).map(|r| RankPlan { rank: r, coord: mesh.coord(r), steps: Vec::new() }).collect();
    for ((init, _, _, s, d, op), mut runs) in steps {
        runs.sort_unstable_by_key(|&(f, _, doff, _)| (f, doff));
        let elements = runs.iter().map(|r| r.3).sum();
        let slices = compress(shape, &runs);
        if let Some(rank) = ranks.get_mut(init as usize) {
            rank.steps.push(Step { op, src_rank: s, dst_rank: d, elements, slices });
        }
    }
    ranks
}

/// One side's blocks: per dimension the local extent, the local row-major stride and the mesh dimensions that
/// split it (outer first).
struct Blocks<'a> {
    local: Vec<i64>,
    stride: Vec<i64>,
    dims: &'a [Vec<usize>],
}

impl<'a> Blocks<'a> {
    fn new(mesh: &Mesh, d: &DistLayout, dist: &'a Distribution) -> Blocks<'a> {
        let local: Vec<i64> = dist
            .dims
            .iter()
            .zip(&d.padded)
            .map(|(ms, p)| p / ms.iter().map(|&i| mesh.axes()[i].extent).product::<i64>())
            .collect();
        let mut stride = vec![1; local.len()];
        for k in (0..local.len().saturating_sub(1)).rev() {
            stride[k] = stride[k + 1] * local[k + 1];
        }
        Blocks { local, stride, dims: &dist.dims }
    }

    /// The block of dimension `d` that the rank at `coord` holds.
    fn block(&self, mesh: &Mesh, coord: &[i64], d: usize) -> i64 {
        self.dims[d].iter().fold(0, |b, &i| b * mesh.axes()[i].extent + coord[i])
    }

    /// Sets the coordinates of the mesh dimensions splitting `d` so that the rank holds block `b`.
    fn place(&self, mesh: &Mesh, coord: &mut [i64], d: usize, mut b: i64) {
        for &i in self.dims[d].iter().rev() {
            coord[i] = b % mesh.axes()[i].extent;
            b /= mesh.axes()[i].extent;
        }
    }
}

/// Every combination of `ranges` (half-open), last fastest.
fn combinations(ranges: &[(i64, i64)]) -> Vec<Vec<i64>> {
    let mut out = vec![Vec::new()];
    for &(lo, hi) in ranges {
        out = out.into_iter().flat_map(|p| (lo..hi).map(move |v| [p.clone(), vec![v]].concat())).collect();
    }
    out
}

/// [`plan`] for two placement layouts: each rank holds one box of the tensor (its blocks, cut at the logical
/// extent), so the holder of every element of a source box is that box's rank with the free (replicated) mesh
/// coordinates of the destination rank, as [`plan_enumerated`] chooses, and the runs are the rows of the
/// intersections of boxes.
fn plan_blocks(
    mesh: &Mesh,
    src: &DistLayout,
    dst: &DistLayout,
    ds: &Distribution,
    dd: &Distribution,
    reduce: Option<ReduceOp>,
    partial_idx: &[usize],
) -> Result<CollectivePlan> {
    let (sb, db) = (Blocks::new(mesh, src, ds), Blocks::new(mesh, dst, dd));
    let shape = &src.shape;
    let rank = shape.len();
    let n = mesh.ranks();
    let ring = |from: i64, to: i64| (to - from).rem_euclid(n);
    let groups = combinations(&partial_idx.iter().map(|&i| (0, mesh.axes()[i].extent)).collect::<Vec<_>>());
    let mut steps: BTreeMap<Key, Vec<Run>> = BTreeMap::new();
    let mut rows = 0i64;
    for r in 0..n {
        let rc = mesh.coord(r);
        let lo: Vec<i64> = (0..rank).map(|d| db.block(mesh, &rc, d) * db.local[d]).collect();
        let hi: Vec<i64> = (0..rank).map(|d| (lo[d] + db.local[d]).min(shape[d])).collect();
        if (0..rank).any(|d| lo[d] >= hi[d]) {
            continue;
        }
        let blocks: Vec<(i64, i64)> = (0..rank).map(|d| (lo[d] / sb.local[d], (hi[d] - 1) / sb.local[d] + 1)).collect();
        for b in combinations(&blocks) {
            let mut hc = rc.clone();
            for (d, &bd) in b.iter().enumerate() {
                sb.place(mesh, &mut hc, d, bd);
            }
            let mut holders: Vec<i64> = groups
                .iter()
                .filter_map(|g| {
                    let mut c = hc.clone();
                    for (k, &i) in partial_idx.iter().enumerate() {
                        c[i] = g[k];
                    }
                    mesh.rank_of(&c)
                })
                .collect();
            holders.sort_by_key(|&h| ring(r, h));
            let ilo: Vec<i64> = (0..rank).map(|d| lo[d].max(b[d] * sb.local[d])).collect();
            let ihi: Vec<i64> = (0..rank).map(|d| hi[d].min((b[d] + 1) * sb.local[d])).collect();
            let outer: Vec<(i64, i64)> = (0..rank - 1).map(|d| (ilo[d], ihi[d])).collect();
            let row_count: i64 = outer.iter().map(|(a, z)| z - a).product();
            rows = rows.saturating_add(row_count.saturating_mul(holders.len() as i64));
            if rows > MAX_PLACES {
                return refuse(
                    "size",
                    format!("more than {MAX_PLACES} rows to move; the plan would list each (split the copy)"),
                );
            }
            let len = ihi[rank - 1] - ilo[rank - 1];
            for x in combinations(&outer) {
                let x: Vec<i64> = x.into_iter().chain([ilo[rank - 1]]).collect();
                let f = x.iter().zip(shape).fold(0, |acc, (c, e)| acc * e + c);
                let soff: i64 = (0..rank).map(|d| (x[d] - b[d] * sb.local[d]) * sb.stride[d]).sum();
                let doff: i64 = (0..rank).map(|d| (x[d] - lo[d]) * db.stride[d]).sum();
                for (k, &h) in holders.iter().enumerate() {
                    steps.entry(step_key(reduce.is_some(), k == 0, h, r, n)).or_default().push((f, soff, doff, len));
                }
            }
        }
    }
    let ranks = assemble(mesh, shape, steps);
    let (kind, changes) = classify_placements(mesh, ds, dd, &ranks);
    Ok(CollectivePlan {
        kind,
        reduce,
        partial_axes: src.partial.iter().map(|(a, _)| *a).collect(),
        changes,
        root: None,
        src_elements: src.local_elements(),
        dst_elements: dst.local_elements(),
        ranks,
    })
}

/// Runs of consecutive (flat, src, dst), then repetitions of equal runs at constant distances.
fn compress(shape: &[i64], pieces: &[Run]) -> Vec<Slice> {
    let mut runs: Vec<Run> = Vec::new();
    for &(f, s, d, n) in pieces {
        match runs.last_mut() {
            Some((rf, rs, rd, len)) if *rf + *len == f && *rs + *len == s && *rd + *len == d => *len += n,
            _ => runs.push((f, s, d, n)),
        }
    }
    // Each slice with the flat index of its first element.
    let mut slices: Vec<(i64, Slice)> = Vec::new();
    for (f, s, d, len) in runs {
        if let Some((lf, last)) = slices.last_mut() {
            if last.len == len {
                let (df, dsrc, ddst) = (f - *lf, s - last.src_offset, d - last.dst_offset);
                if last.count == 1 && df > 0 {
                    (last.count, last.logical_stride, last.src_stride, last.dst_stride) = (2, df, dsrc, ddst);
                    continue;
                }
                let c = last.count;
                if c > 1 && df == last.logical_stride * c && dsrc == last.src_stride * c && ddst == last.dst_stride * c
                {
                    last.count += 1;
                    continue;
                }
            }
        }
        let logical = unflatten(shape, f);
        slices.push((
            f,
            Slice {
                logical,
                logical_stride: 0,
                src_offset: s,
                dst_offset: d,
                len,
                count: 1,
                src_stride: 0,
                dst_stride: 0,
            },
        ));
    }
    slices.into_iter().map(|(_, s)| s).collect()
}

fn placement_name(dist: &Distribution, i: usize) -> String {
    if let Some(op) = dist.partial[i] {
        return format!("Partial({})", op.name());
    }
    match dist.dims.iter().position(|ms| ms.contains(&i)) {
        Some(d) => format!("Shard({d})"),
        None => "Replicate()".into(),
    }
}

/// The collective named by the mesh axes whose placement changes (module docs), kept only if every transfer
/// stays within the groups of the changed axes.
fn classify_placements(
    mesh: &Mesh,
    ds: &Distribution,
    dd: &Distribution,
    ranks: &[RankPlan],
) -> (CollectiveKind, Vec<AxisChange>) {
    let mut changes = Vec::new();
    let mut kinds = Vec::new();
    for (i, a) in mesh.axes().iter().enumerate() {
        let (from, to) = (placement_name(ds, i), placement_name(dd, i));
        if from == to {
            continue;
        }
        kinds.push(match (from.as_bytes()[0], to.as_bytes()[0]) {
            (b'S', b'R') => CollectiveKind::AllGather,
            (b'P', b'S') => CollectiveKind::ReduceScatter,
            (b'P', b'R') => CollectiveKind::AllReduce,
            (b'S', b'S') => CollectiveKind::AllToAll,
            (b'R', b'S') => CollectiveKind::Local,
            _ => CollectiveKind::PointToPoint,
        });
        changes.push(AxisChange { axis: a.axis, name: a.name.clone(), from, to });
    }
    let changed: Vec<usize> =
        (0..mesh.axes().len()).filter(|&i| changes.iter().any(|c| c.axis == mesh.axes()[i].axis)).collect();
    kinds.retain(|k| *k != CollectiveKind::Local);
    kinds.sort_by_key(|k| k.name());
    kinds.dedup();
    let mut kind = match kinds.as_slice() {
        [] if changes.is_empty() && ds != dd => CollectiveKind::PointToPoint,
        [] => CollectiveKind::Local,
        [one] => *one,
        _ => CollectiveKind::PointToPoint,
    };
    let mut peer_steps = ranks.iter().flat_map(|r| &r.steps).filter(|s| s.src_rank != s.dst_rank).peekable();
    let any_peer = peer_steps.peek().is_some();
    let within_groups = peer_steps.all(|s| {
        let (a, b) = (mesh.coord(s.src_rank), mesh.coord(s.dst_rank));
        (0..a.len()).all(|i| changed.contains(&i) || a[i] == b[i])
    });
    if (kind == CollectiveKind::Local && any_peer) || !within_groups {
        kind = CollectiveKind::PointToPoint;
    }
    (kind, changes)
}

/// Layouts that are not both placements: local, broadcast (a source on one root, every rank holding the whole
/// tensor), reduce (into one root), or point-to-point.
fn classify_other(
    mesh: &Mesh,
    sp: &Places,
    dp: &Places,
    ranks: &[RankPlan],
    reducing: bool,
) -> (CollectiveKind, Vec<AxisChange>, Option<i64>) {
    if ranks.iter().flat_map(|r| &r.steps).all(|s| s.src_rank == s.dst_rank) {
        return (CollectiveKind::Local, Vec::new(), None);
    }
    let one_rank = |places: &Places| {
        let first = places.places.first().and_then(|p| p.first()).map(|p| p.0)?;
        places.places.iter().flatten().all(|p| p.0 == first).then_some(first)
    };
    if !reducing {
        if let Some(root) = one_rank(sp) {
            let everywhere = dp.places.iter().all(|p| {
                let mut rs: Vec<i64> = p.iter().map(|x| x.0).collect();
                rs.dedup();
                rs.len() as i64 == mesh.ranks()
            });
            if everywhere && mesh.ranks() > 1 {
                return (CollectiveKind::Broadcast, Vec::new(), Some(root));
            }
        }
    } else if let Some(root) = one_rank(dp) {
        return (CollectiveKind::Reduce, Vec::new(), Some(root));
    }
    (CollectiveKind::PointToPoint, Vec::new(), None)
}
