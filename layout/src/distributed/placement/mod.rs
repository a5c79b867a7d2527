//! PyTorch DTensor placements and JAX PartitionSpecs as Axe layouts, and back (paper section 3.2, "Representing
//! Distributed Tensor"; the notation chapter's "Distributed Layout").
//!
//! # The layout of a distributed tensor
//!
//! Tensor dimension `d` sharded by mesh dimensions `i1, i2, ...` (outer first) becomes the shard iters
//! `k_i1:1@axis_i1, k_i2:1@axis_i2, ..., local_d:stride_d` (the device iters outermost, then the local extent
//! on `m`), the local tiles are row-major on `m` (`stride_d` = product of the later local extents), and every
//! mesh dimension that shards nothing is a replica iter `k_i:1@axis_i`. `Shard(0), Replicate()` of a 64x128
//! tensor on a 2x4 mesh is `S[(2,4096):(1@gpuid_x,1)] + R[4:1@gpuid_y]` (canonical: the local 32x128 rows fuse).
//!
//! DTensor shards one dimension by several mesh dimensions left to right (`Shard(0), Shard(0)`: mesh dimension
//! 0 outer); a PartitionSpec tuple names the order (`P(('y', 'x'))` puts `y` outer), which DTensor cannot say.
//!
//! # Partial
//!
//! A layout maps indices to places; a pending reduction is a property of the values held there, not of the
//! places. So `Partial(op)` on a mesh dimension is a replica iter over its axis (every rank along it holds a
//! full-size contribution at the same local places) plus a marker `(axis, op)` in [`DistLayout::partial`]:
//! the tensor is the `op` over the ranks of those axes. The collective planner reads the marker.
//!
//! # Uneven shards
//!
//! DTensor splits a dimension of extent `n` over `k` ranks with `torch.chunk`: chunks of `ceil(n/k)`, the last
//! ranks get fewer or none. That is a legal Axe layout over the padded extent `ceil(n/k) * k` of which the
//! tensor uses coordinates `< n`: the layout maps every logical coordinate to the same places as the torch.chunk
//! split, and the padding places hold nothing. [`DistLayout::padded`] is that shape. Under several mesh
//! dimensions DTensor chunks each chunk again ([`Distribution::rank_boxes`]); one layout splits a dimension into
//! blocks of one size in rank order, so the nested split is accepted exactly when it equals torch.chunk over all
//! of them (7 over 2x2 is 2, 2, 2, 1 = `chunk(7, 4)`; 6 over 2x2 is 2, 1, 2, 1: `uneven-nested`). JAX requires
//! divisibility (`jax-uneven`).
//!
//! # Local buffers
//!
//! A layout's offsets on `m` are the rank's local memory, and DTensor's `to_local()` is the contiguous tensor of
//! the rank's own shape. The padded local tile agrees with it on every logical element unless a short piece
//! (an uneven dimension's last non-empty chunk) lies inside a dimension of local extent > 1: `Shard(1)` of 3x10 on
//! 4 ranks is 3x3 on rank 0 but 3x1 on rank 3, whose row stride (1, not 3) depends on the rank, which one layout
//! cannot say (`local-strides`, with the numbers). [`LocalBuffers::Padded`] accepts it anyway with every rank's
//! buffer the padded tile (a runtime must then copy DTensor's local tensor into such a buffer);
//! [`Distribution::local_shapes`] lists each rank's own shape, for run-time checks.
//!
//! # Refusals
//!
//! Every error starts with `<rule> rule:`; [`RULES`] lists them. A mesh dimension of extent 1 holds no iter in a
//! canonical layout and reads back as `Replicate()`.
//!
//! # Where
//!
//! This file builds layouts from distributions ([`Distribution::layout`]) and holds the rules every direction
//! shares; `text.rs` parses and prints placements and PartitionSpecs; `read.rs` reads a layout back
//! ([`Distribution::of_layout`]).

mod read;
mod text;

pub use text::{
    parse_placements, parse_placements_for, parse_spec, placements_text, PartitionSpec, Placement, ReduceOp,
};

use super::mesh::Mesh;
use crate::axis::Axis;
use crate::error::{LayoutError, Result};
use crate::iter::Iter;
use crate::layout::Layout;
use crate::notation::shape_text;
use crate::tile_layout::TileLayout;
use std::collections::BTreeMap;

/// Every rule a placement conversion may refuse by (the first word of the message).
pub const RULES: &[&str] = &[
    "mesh",
    "placement",
    "spec",
    "shape",
    "uneven-nested",
    "local-strides",
    "swizzle",
    "offset",
    "axis",
    "padding",
    "group",
    "interleaved",
    "device-iter",
    "device-twice",
    "local-row-major",
    "replica",
    "unused-axis",
    "partial",
    "dtensor-order",
    "jax-partial",
    "jax-uneven",
];

fn shape_rule(e: LayoutError) -> LayoutError {
    LayoutError::new(format!("shape rule: {}", e.message))
}

fn refuse<T>(rule: &str, message: String) -> Result<T> {
    Err(LayoutError::new(format!("{rule} rule: {message}")))
}

/// torch.chunk's split of `n` elements over `k` ranks as DTensor pads it (`_split_tensor`): the lengths of the
/// pieces in rank order, chunks of `ceil(n/k)`, the last non-empty one short, the rest empty (10 over 4: 3, 3, 3,
/// 1; 10 over 8: 2, 2, 2, 2, 2, 0, 0, 0).
pub fn chunk_lengths(n: i64, k: i64) -> Vec<i64> {
    let chunk = n / k + i64::from(n % k != 0);
    (0..k).map(|r| n.saturating_sub(r.saturating_mul(chunk)).clamp(0, chunk)).collect()
}

/// `2, 1, 2, 1` (at most 16 numbers, then `...`).
fn list_text(v: &[i64]) -> String {
    let mut t = v.iter().take(16).map(i64::to_string).collect::<Vec<_>>().join(", ");
    if v.len() > 16 {
        t.push_str(", ...");
    }
    t
}

/// `3x1`.
fn tile_text(v: &[i64]) -> String {
    v.iter().map(i64::to_string).collect::<Vec<_>>().join("x")
}

/// The layout of a distributed tensor: an Axe layout over the padded shape, the logical shape (coordinates
/// below it are the tensor; the rest is torch.chunk padding), and the pending reductions (Partial markers).
#[derive(Clone, Debug, PartialEq)]
pub struct DistLayout {
    /// The Axe layout, over `padded`.
    pub layout: Layout,
    /// The tensor's shape.
    pub shape: Vec<i64>,
    /// The shape the layout admits: `shape` where the sharding is even, `ceil(n/k)*k` where a dimension is
    /// split unevenly.
    pub padded: Vec<i64>,
    /// Partial markers: the values along these device axes are contributions to an `op`.
    pub partial: Vec<(Axis, ReduceOp)>,
    /// What the local offsets on `m` mean: DTensor's `to_local()` (the default), or padded tiles.
    pub local: LocalBuffers,
}

/// What a rank's local buffer is, for an uneven split DTensor's own shapes disagree with (module docs, "Local
/// buffers").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LocalBuffers {
    /// DTensor's `to_local()`: the contiguous tensor of the rank's own local shape. A placement whose padded
    /// tile disagrees with it is refused (`local-strides`).
    #[default]
    ToLocal,
    /// Every rank's buffer is the padded local tile (`ceil` chunks), short ranks included; not DTensor's memory.
    Padded,
}

impl DistLayout {
    /// A checked distributed layout: `padded` has the rank of `shape`, no smaller dimension, and the layout
    /// admits it.
    pub fn new(
        layout: Layout,
        shape: Vec<i64>,
        padded: Vec<i64>,
        partial: Vec<(Axis, ReduceOp)>,
    ) -> Result<DistLayout> {
        if shape.len() != padded.len() || shape.iter().zip(&padded).any(|(s, p)| *s < 1 || p < s) {
            return refuse(
                "shape",
                format!("padded shape {} does not cover shape {}", shape_text(&padded), shape_text(&shape)),
            );
        }
        layout.admits(&padded).map_err(|e| LayoutError::new(format!("shape rule: {}", e.message)))?;
        Ok(DistLayout { layout, shape, padded, partial, local: LocalBuffers::ToLocal })
    }

    /// The local tile's extent (elements) on `m`: the layout's span on `m`.
    pub fn local_elements(&self) -> i64 {
        self.layout.tile().span_on(Axis::M)
    }
}

/// How a tensor is spread over a mesh, the common form of placements and specs: per tensor dimension the mesh
/// dimensions that split it (outer first), per mesh dimension its pending reduction if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Distribution {
    /// Per tensor dimension, the mesh dimensions (indices) that split it, outermost first.
    pub dims: Vec<Vec<usize>>,
    /// Per mesh dimension, `Some(op)` for a Partial one.
    pub partial: Vec<Option<ReduceOp>>,
}

impl Distribution {
    /// From DTensor placements (one per mesh dimension) for a tensor of `rank` dimensions.
    pub fn from_placements(mesh: &Mesh, rank: usize, placements: &[Placement]) -> Result<Distribution> {
        if placements.len() != mesh.axes().len() {
            return refuse(
                "placement",
                format!("{} placement(s) for a mesh of {} dimension(s)", placements.len(), mesh.axes().len()),
            );
        }
        let mut dims = vec![Vec::new(); rank];
        let mut partial = vec![None; placements.len()];
        for (i, p) in placements.iter().enumerate() {
            match *p {
                Placement::Shard(d) if d < rank => dims[d].push(i),
                Placement::Shard(d) => {
                    return refuse("placement", format!("Shard({d}) of a tensor of {rank} dimension(s)"))
                }
                Placement::Replicate => {}
                Placement::Partial(op) => partial[i] = Some(op),
            }
        }
        Ok(Distribution { dims, partial })
    }

    /// From a JAX PartitionSpec for a tensor of `rank` dimensions (mesh dimensions it does not name replicate).
    pub fn from_spec(mesh: &Mesh, rank: usize, spec: &PartitionSpec) -> Result<Distribution> {
        if spec.0.len() > rank {
            return refuse("spec", format!("{spec} has {} entries for a tensor of {rank} dimension(s)", spec.0.len()));
        }
        let mut used = vec![false; mesh.axes().len()];
        let mut dims = vec![Vec::new(); rank];
        for (d, names) in spec.0.iter().enumerate() {
            for n in names {
                let Some(i) = mesh.index_of_name(n) else {
                    return refuse("spec", format!("{spec} names '{n}', which is not a mesh axis ({})", mesh.text()));
                };
                if std::mem::replace(&mut used[i], true) {
                    return refuse("spec", format!("{spec} names mesh axis '{n}' twice"));
                }
                dims[d].push(i);
            }
        }
        Ok(Distribution { dims, partial: vec![None; mesh.axes().len()] })
    }

    /// The DTensor placements, or `dtensor-order` when a dimension is split by mesh dimensions out of mesh
    /// order (DTensor's `Shard(d), Shard(d)` goes left to right).
    pub fn placements(&self, mesh: &Mesh) -> Result<Vec<Placement>> {
        let mut out: Vec<Placement> =
            self.partial.iter().map(|p| p.map_or(Placement::Replicate, Placement::Partial)).collect();
        for (d, ms) in self.dims.iter().enumerate() {
            if ms.windows(2).any(|w| w[0] > w[1]) {
                let names: Vec<&str> = ms.iter().map(|&i| mesh.axes()[i].name.as_str()).collect();
                return refuse(
                    "dtensor-order",
                    format!(
                        "dimension {d} is split by {} (outer first); DTensor splits a dimension by mesh dimensions \
                         left to right",
                        names.join(" then ")
                    ),
                );
            }
            for &i in ms {
                out[i] = Placement::Shard(d);
            }
        }
        Ok(out)
    }

    /// The JAX PartitionSpec, or `jax-partial` / `jax-uneven` (JAX has no Partial and needs divisible
    /// dimensions; `shape` and `padded` say which are uneven).
    pub fn spec(&self, mesh: &Mesh, shape: &[i64], padded: &[i64]) -> Result<PartitionSpec> {
        if let Some(i) = self.partial.iter().position(Option::is_some) {
            return refuse(
                "jax-partial",
                format!("mesh axis {} holds partial values; a PartitionSpec has no Partial", mesh.axes()[i].name),
            );
        }
        if let Some(d) = (0..shape.len()).find(|&d| shape[d] != padded[d]) {
            let k: i64 = self.dims[d].iter().map(|&i| mesh.axes()[i].extent).product();
            return refuse(
                "jax-uneven",
                format!("dimension {d} of extent {} is not divisible by its {k} shards; JAX needs it to be", shape[d]),
            );
        }
        Ok(PartitionSpec(
            self.dims.iter().map(|ms| ms.iter().map(|&i| mesh.axes()[i].name.clone()).collect()).collect(),
        ))
    }

    /// DTensor's piece of every rank (row-major over the mesh): per tensor dimension its start and length, the
    /// torch.chunk split of each mesh dimension that shards it applied in turn, outer first (DTensor's
    /// `compute_local_shape_and_global_offset`; an empty piece has length 0). `shape` has the distribution's rank.
    pub fn rank_boxes(&self, mesh: &Mesh, shape: &[i64]) -> Vec<Vec<(i64, i64)>> {
        let pieces = self.pieces(mesh, shape);
        (0..mesh.ranks())
            .map(|rank| {
                let coord = mesh.coord(rank);
                self.dims
                    .iter()
                    .zip(&pieces)
                    .map(|(ms, p)| {
                        let at = ms.iter().fold(0, |acc, &i| acc * mesh.axes()[i].extent + coord[i]);
                        p[usize::try_from(at).unwrap_or_default()]
                    })
                    .collect()
            })
            .collect()
    }

    /// Each rank's local shape (row-major over the mesh): the shape of DTensor's `to_local()` there.
    pub fn local_shapes(&self, mesh: &Mesh, shape: &[i64]) -> Vec<Vec<i64>> {
        self.rank_boxes(mesh, shape).into_iter().map(|b| b.into_iter().map(|(_, len)| len).collect()).collect()
    }

    /// Per tensor dimension, DTensor's pieces (start, length) in the mixed-radix order of the coordinates of the
    /// mesh dimensions that split it.
    fn pieces(&self, mesh: &Mesh, shape: &[i64]) -> Vec<Vec<(i64, i64)>> {
        self.dims
            .iter()
            .zip(shape)
            .map(|(ms, &n)| {
                let mut pieces = vec![(0, n)];
                for &i in ms {
                    let k = mesh.axes()[i].extent;
                    pieces = pieces
                        .iter()
                        .flat_map(|&(start, len)| {
                            chunk_lengths(len, k).into_iter().scan(start, |at, l| {
                                let piece = (*at, l);
                                *at += l;
                                Some(piece)
                            })
                        })
                        .collect();
                }
                pieces
            })
            .collect()
    }

    /// `uneven-nested`: a dimension split by several mesh dimensions whose nested torch.chunk pieces are not one
    /// torch.chunk over all of them (a layout's blocks along a dimension have one size, in rank order).
    fn check_nested(&self, mesh: &Mesh, shape: &[i64]) -> Result<()> {
        for (d, (ms, pieces)) in self.dims.iter().zip(self.pieces(mesh, shape)).enumerate() {
            let k: i64 = ms.iter().map(|&i| mesh.axes()[i].extent).product();
            let lengths: Vec<i64> = pieces.iter().map(|p| p.1).collect();
            let flat = chunk_lengths(shape[d], k);
            if lengths != flat {
                let names: Vec<&str> = ms.iter().map(|&i| mesh.axes()[i].name.as_str()).collect();
                return refuse(
                    "uneven-nested",
                    format!(
                        "dimension {d} of extent {} is split by {} ({k} shards): DTensor chunks each chunk again, \
                         giving the ranks {} element(s) in rank order; one layout splits a dimension into blocks of \
                         one size in rank order, as torch.chunk({}, {k}) does: {}",
                        shape[d],
                        names.join(" then "),
                        list_text(&lengths),
                        shape[d],
                        list_text(&flat)
                    ),
                );
            }
        }
        Ok(())
    }

    /// `local-strides`: a short non-empty piece of dimension `f` inside a dimension `e < f` of local extent > 1
    /// gives rank-dependent row-major strides to DTensor's `to_local()` (module docs, "Local buffers").
    fn check_local(&self, mesh: &Mesh, shape: &[i64]) -> Result<()> {
        let pieces = self.pieces(mesh, shape);
        let full: Vec<i64> = pieces.iter().map(|p| p[0].1).collect();
        for f in 0..pieces.len() {
            let Some(j) = pieces[f].iter().position(|&(_, l)| l > 0 && l < full[f]) else { continue };
            let Some(e) = (0..f).find(|&e| full[e] > 1) else { continue };
            let mut coord = vec![0; mesh.axes().len()];
            let mut rest = i64::try_from(j).unwrap_or_default();
            for &i in self.dims[f].iter().rev() {
                coord[i] = rest % mesh.axes()[i].extent;
                rest /= mesh.axes()[i].extent;
            }
            let rank = mesh.rank_of(&coord).unwrap_or_default();
            let mut short = full.clone();
            short[f] = pieces[f][j].1;
            let stride = |s: &[i64]| s[e + 1..].iter().product::<i64>();
            return refuse(
                "local-strides",
                format!(
                    "dimension {f} of extent {} is split into pieces of {} with a short piece of {} (torch.chunk) \
                     inside dimension {e} of local extent {}: DTensor's to_local() is row-major in each rank's own \
                     shape, {} on rank 0 (dimension {e} stride {}) but {} on rank {rank} (stride {}), and one layout \
                     gives a local iter one stride on every rank; padded local buffers (--padded-local) would hold \
                     the {} tile on every rank",
                    shape[f],
                    full[f],
                    short[f],
                    full[e],
                    tile_text(&full),
                    stride(&full),
                    tile_text(&short),
                    stride(&short),
                    tile_text(&full)
                ),
            );
        }
        Ok(())
    }

    /// The layout of a tensor of `shape` distributed this way (see the module docs), its local buffers
    /// DTensor's `to_local()`.
    pub fn layout(&self, mesh: &Mesh, shape: &[i64]) -> Result<DistLayout> {
        self.layout_with(mesh, shape, LocalBuffers::ToLocal)
    }

    /// The layout of a tensor of `shape` distributed this way with the given local buffers.
    pub fn layout_with(&self, mesh: &Mesh, shape: &[i64], local_buffers: LocalBuffers) -> Result<DistLayout> {
        if shape.len() != self.dims.len() || shape.iter().any(|&e| e < 1) {
            return refuse("shape", format!("shape {} for {} dimension(s)", shape_text(shape), self.dims.len()));
        }
        self.check_nested(mesh, shape)?;
        if local_buffers == LocalBuffers::ToLocal {
            self.check_local(mesh, shape)?;
        }
        let mut padded = Vec::with_capacity(shape.len());
        let mut local = Vec::with_capacity(shape.len());
        for (d, ms) in self.dims.iter().enumerate() {
            let k: i64 = ms.iter().map(|&i| mesh.axes()[i].extent).product();
            let n = shape[d];
            let chunk = n / k + i64::from(n % k != 0);
            local.push(chunk);
            padded.push(crate::arith::mul(chunk, k, "the padded shape").map_err(shape_rule)?);
        }
        let mut shard = Vec::new();
        let mut stride = 1i64;
        let mut local_strides = vec![0; local.len()];
        for d in (0..local.len()).rev() {
            local_strides[d] = stride;
            stride = crate::arith::mul(stride, local[d], "the local tile").map_err(shape_rule)?;
        }
        for (d, ms) in self.dims.iter().enumerate() {
            for &i in ms {
                shard.push(Iter::new(mesh.axes()[i].extent, 1, mesh.axes()[i].axis).map_err(shape_rule)?);
            }
            shard.push(Iter::m(local[d], local_strides[d]).map_err(shape_rule)?);
        }
        let sharding: Vec<usize> = self.dims.iter().flatten().copied().collect();
        let replica = (0..mesh.axes().len())
            .filter(|i| !sharding.contains(i))
            .map(|i| Iter::new(mesh.axes()[i].extent, 1, mesh.axes()[i].axis))
            .collect::<Result<Vec<_>>>()
            .map_err(shape_rule)?;
        let tile = TileLayout::new(shard, replica, BTreeMap::new()).map_err(shape_rule)?.canonical();
        let partial =
            self.partial.iter().enumerate().filter_map(|(i, p)| p.map(|op| (mesh.axes()[i].axis, op))).collect();
        let mut dist = DistLayout::new(Layout::Tile(tile), shape.to_vec(), padded, partial)?;
        dist.local = local_buffers;
        Ok(dist)
    }

    /// [`Distribution::of_layout`], and the layout's local offsets are DTensor's `to_local()` unless its local
    /// buffers are [`LocalBuffers::Padded`] (`local-strides`).
    pub fn of_dtensor(mesh: &Mesh, dist: &DistLayout) -> Result<Distribution> {
        let read = Distribution::of_layout(mesh, dist)?;
        if dist.local == LocalBuffers::ToLocal {
            read.check_local(mesh, &dist.shape)?;
        }
        Ok(read)
    }
}

/// `from_placements(mesh, shape, placements)`: the layout of a DTensor (see the module docs).
pub fn from_placements(mesh: &Mesh, shape: &[i64], placements: &[Placement]) -> Result<DistLayout> {
    Distribution::from_placements(mesh, shape.len(), placements)?.layout(mesh, shape)
}

/// The layout of a JAX array sharded by `spec` (uneven dimensions refused by `jax-uneven`).
pub fn from_spec(mesh: &Mesh, shape: &[i64], spec: &PartitionSpec) -> Result<DistLayout> {
    let dist = Distribution::from_spec(mesh, shape.len(), spec)?;
    for (d, ms) in dist.dims.iter().enumerate() {
        let k: i64 = ms.iter().map(|&i| mesh.axes()[i].extent).product();
        if shape.get(d).is_some_and(|n| n % k != 0) {
            return refuse(
                "jax-uneven",
                format!("dimension {d} of extent {} is not divisible by its {k} shards; JAX needs it to be", shape[d]),
            );
        }
    }
    dist.layout(mesh, shape)
}

/// `from_placements` with the given local buffers ([`LocalBuffers::Padded`] accepts what `local-strides`
/// refuses).
pub fn from_placements_with(
    mesh: &Mesh,
    shape: &[i64],
    placements: &[Placement],
    local: LocalBuffers,
) -> Result<DistLayout> {
    Distribution::from_placements(mesh, shape.len(), placements)?.layout_with(mesh, shape, local)
}

/// `to_placements`: the DTensor placements of a distributed layout, or the rule it breaks. Unless the layout's
/// local buffers are [`LocalBuffers::Padded`], its local offsets must be DTensor's `to_local()` (`local-strides`).
pub fn to_placements(mesh: &Mesh, dist: &DistLayout) -> Result<Vec<Placement>> {
    Distribution::of_dtensor(mesh, dist)?.placements(mesh)
}

/// The JAX PartitionSpec of a distributed layout (every dimension listed), or the rule it breaks.
pub fn to_spec(mesh: &Mesh, dist: &DistLayout) -> Result<PartitionSpec> {
    Distribution::of_layout(mesh, dist)?.spec(mesh, &dist.shape, &dist.padded)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mesh(t: &str) -> Mesh {
        Mesh::parse(t).unwrap()
    }

    #[test]
    fn paper_examples() {
        // Paper Figure 2B on a 2x2 mesh: fully sharded 64x128, and shard + replica.
        let m = mesh("2,2");
        let full = from_placements(&m, &[64, 128], &[Placement::Shard(0), Placement::Shard(1)]).unwrap();
        assert_eq!(full.layout.to_string(), "S[(2,32,2,64):(1@gpuid_x,64,1@gpuid_y,1)]");
        let rep = from_placements(&m, &[64, 128], &[Placement::Shard(0), Placement::Replicate]).unwrap();
        assert_eq!(rep.layout.to_string(), "S[(2,4096):(1@gpuid_x,1)] + R[2:1@gpuid_y]");
        // The notation chapter: S[(2,4,8):(1@gpuid_y,8@m,1@m)] + R[2:1@gpuid_x] is Replicate(), Shard(0) of 8x8.
        let ch = Layout::Tile("S[(2,4,8):(1@gpuid_y,8,1)] + R[2:1@gpuid_x]".parse().unwrap());
        let d = DistLayout::new(ch, vec![8, 8], vec![8, 8], vec![]).unwrap();
        assert_eq!(to_placements(&m, &d).unwrap(), vec![Placement::Replicate, Placement::Shard(0)]);
    }

    #[test]
    fn uneven_is_torch_chunk() {
        let m = mesh("4");
        let d = from_placements(&m, &[10, 3], &[Placement::Shard(0)]).unwrap();
        assert_eq!(d.padded, vec![12, 3]);
        assert_eq!(d.layout.to_string(), "S[(4,9):(1@gpuid,1)]");
        assert_eq!(to_placements(&m, &d).unwrap(), vec![Placement::Shard(0)]);
        let e = to_spec(&m, &d).unwrap_err().message;
        assert!(e.starts_with("jax-uneven rule: dimension 0 of extent 10"), "{e}");
        // 10 over 2x4: chunk(10, 2) = 5, 5, each chunk(5, 4) = 2, 2, 1, 0; torch.chunk(10, 8) is 2, 2, 2, 2, 2, 0, 0, 0.
        let e = from_placements(&mesh("2,4"), &[10], &[Placement::Shard(0), Placement::Shard(0)]).unwrap_err();
        assert!(e.message.starts_with("uneven-nested rule:"), "{}", e.message);
        assert!(e.message.contains("2, 2, 1, 0, 2, 2, 1, 0"), "{}", e.message);
    }

    #[test]
    fn nested_chunks_equal_to_one_chunk_are_accepted() {
        let ss = [Placement::Shard(0), Placement::Shard(0)];
        // 7 over 2x2: chunk(7, 2) = 4, 3; chunk(4, 2) = 2, 2 and chunk(3, 2) = 2, 1: 2, 2, 2, 1 = chunk(7, 4).
        let d = from_placements(&mesh("2,2"), &[7], &ss).unwrap();
        assert_eq!((d.layout.to_string(), d.padded.clone()), ("S[(2,2,2):(1@gpuid_x,1@gpuid_y,1)]".into(), vec![8]));
        assert_eq!(to_placements(&mesh("2,2"), &d).unwrap(), ss.to_vec());
        // A mesh axis of extent 1: chunk(10, 1) then chunk(10, 4) = 3, 3, 3, 1; read back, the extent-1 axis
        // holds no iter (Replicate(), the same DTensor on a 1x4 mesh).
        let d = from_placements(&mesh("1,4"), &[10], &ss).unwrap();
        assert_eq!(d.layout.to_string(), "S[(4,3):(1@gpuid_y,1)]");
        assert_eq!(to_placements(&mesh("1,4"), &d).unwrap(), vec![Placement::Replicate, Placement::Shard(0)]);
        // 6 over 2x2: 3, 3, then 2, 1 each: 2, 1, 2, 1, not one block size.
        let e = from_placements(&mesh("2,2"), &[6], &ss).unwrap_err().message;
        assert!(e.starts_with("uneven-nested rule:") && e.contains("2, 1, 2, 1"), "{e}");
        let padded = DistLayout::new(
            Layout::Tile("S[(2,2,2):(1@gpuid_x,1@gpuid_y,1)]".parse().unwrap()),
            vec![6],
            vec![8],
            vec![],
        )
        .unwrap();
        let e = to_placements(&mesh("2,2"), &padded).unwrap_err().message;
        assert!(e.starts_with("uneven-nested rule:"), "{e}");
    }

    #[test]
    fn short_piece_inside_a_dimension_is_local_strides() {
        // Shard(1) of 3x10 on 4 ranks: rank 3 holds columns 9:10, DTensor's local 3x1 has row stride 1, the
        // padded 3x3 tile row stride 3.
        let m = mesh("4");
        let e = from_placements(&m, &[3, 10], &[Placement::Shard(1)]).unwrap_err().message;
        assert!(e.starts_with("local-strides rule:"), "{e}");
        assert!(e.contains("3x3 on rank 0 (dimension 0 stride 3) but 3x1 on rank 3 (stride 1)"), "{e}");
        let d = from_placements_with(&m, &[3, 10], &[Placement::Shard(1)], LocalBuffers::Padded).unwrap();
        assert_eq!((d.layout.to_string(), d.padded.clone()), ("S[(3,4,3):(3,1@gpuid,1)]".into(), vec![3, 12]));
        assert_eq!(to_placements(&m, &d).unwrap(), vec![Placement::Shard(1)]);
        let mut exact = d.clone();
        exact.local = LocalBuffers::ToLocal;
        assert!(to_placements(&m, &exact).unwrap_err().message.starts_with("local-strides rule:"));
        // 10 columns on 8 ranks are 2, 2, 2, 2, 2, 0, 0, 0: no short non-empty piece, every local tile 3x2.
        assert!(from_placements(&mesh("8"), &[3, 10], &[Placement::Shard(1)]).is_ok());
        // One row: the local extent before the short piece is 1, so no stride differs.
        assert!(from_placements(&m, &[1, 10], &[Placement::Shard(1)]).is_ok());
        let d = Distribution::from_placements(&m, 2, &[Placement::Shard(1)]).unwrap();
        assert_eq!(d.local_shapes(&m, &[3, 10]), vec![vec![3, 3], vec![3, 3], vec![3, 3], vec![3, 1]]);
    }

    #[test]
    fn parse_and_print() {
        let p = parse_placements("[Shard(0), Replicate(), Partial(), Partial(max)]").unwrap();
        assert_eq!(placements_text(&p), "Shard(0), Replicate(), Partial(sum), Partial(max)");
        let s = parse_spec("P(('x', \"y\"), None)").unwrap();
        assert_eq!(s.to_string(), "P(('x', 'y'), None)");
        assert_eq!(parse_spec("P()").unwrap().0.len(), 0);
        assert!(parse_placements("Shard(x)").unwrap_err().message.starts_with("placement rule:"));
        // What DTensor prints: repr's tuple, str's short forms, a negative dimension normalised by the rank.
        let p = parse_placements_for("(Shard(dim=0), Replicate())", 2).unwrap();
        assert_eq!(p, vec![Placement::Shard(0), Placement::Replicate]);
        let p = parse_placements_for("placements=(Shard(dim=-1), Partial(reduce_op='max'))", 3).unwrap();
        assert_eq!(p, vec![Placement::Shard(2), Placement::Partial(ReduceOp::Max)]);
        assert_eq!(
            parse_placements_for("[S(-2), R, P]", 2).unwrap(),
            parse_placements("Shard(0),Replicate(),Partial()").unwrap()
        );
        assert!(parse_placements_for("Shard(-3)", 2).unwrap_err().message.starts_with("placement rule:"));
        assert!(parse_placements("Shard(-1)").unwrap_err().message.starts_with("placement rule:"));
        assert!(parse_placements("(Shard(0)), (Replicate())").unwrap_err().message.starts_with("placement rule:"));
        assert!(parse_spec("P('x'").unwrap_err().message.starts_with("spec rule:"));
    }
}
