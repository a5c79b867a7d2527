//! Reading a layout back into placements: [`Distribution::of_layout`], the inverse of [`Distribution::layout`],
//! refusing by rule what no placement expresses (each step below one group of rules).

use super::{refuse, DistLayout, Distribution, ReduceOp};
use crate::axis::Axis;
use crate::distributed::mesh::Mesh;
use crate::error::{LayoutError, Result};
use crate::group::group;
use crate::iter::Iter;
use crate::layout::Layout;
use crate::tile_layout::TileLayout;

/// Which mesh axes already hold an iter: each whole mesh axis holds at most one, as a shard or a replica.
struct AxisUse {
    used: Vec<bool>,
}

impl AxisUse {
    /// Records that mesh axis `i` holds `it` (a `role` iter: `shard` or `replica`), refusing an iter that is not
    /// the whole axis at one device per step (`device-iter`, `replica`) or an axis used twice (`device-twice`).
    fn take(&mut self, mesh: &Mesh, i: usize, it: &Iter, role: &str) -> Result<()> {
        let ext = mesh.axes()[i].extent;
        if it.stride != 1 || it.extent != ext {
            return refuse(
                if role == "shard" { "device-iter" } else { "replica" },
                format!(
                    "{role} iter {}:{}@{} is not {ext}:1@{}: placements use whole mesh axes, one device per step",
                    it.extent, it.stride, it.axis, it.axis
                ),
            );
        }
        if std::mem::replace(&mut self.used[i], true) {
            return refuse("device-twice", format!("device axis {} holds two iters", it.axis));
        }
        Ok(())
    }
}

impl Distribution {
    /// Reads the distribution of a layout: the inverse of [`Distribution::layout`], refusing by rule what no
    /// placement expresses. Its local tiles are the padded ones; [`Distribution::of_dtensor`] also checks that
    /// they are DTensor's own.
    pub fn of_layout(mesh: &Mesh, dist: &DistLayout) -> Result<Distribution> {
        let tile = plain_tile(mesh, dist)?;
        let mut axes = AxisUse { used: vec![false; mesh.axes().len()] };
        let (dims, memory) = sharding(mesh, dist, tile, &mut axes)?;
        check_row_major(&memory)?;
        replica_axes(mesh, tile, &mut axes)?;
        check_unused(mesh, &axes)?;
        check_padding(mesh, dist, &dims)?;
        let partial = partial_markers(mesh, dist, &dims)?;
        let read = Distribution { dims, partial };
        read.check_nested(mesh, &dist.shape)?;
        Ok(read)
    }
}

/// The layout's tile: unswizzled (`swizzle`), at offset 0 (`offset`), on `m` and mesh axes only (`axis`).
fn plain_tile<'a>(mesh: &Mesh, dist: &'a DistLayout) -> Result<&'a TileLayout> {
    let tile = match &dist.layout {
        Layout::Tile(t) => t,
        Layout::Compose(c) => {
            return refuse("swizzle", format!("{} swizzles the local tile; placements do not", c.swizzle()))
        }
    };
    if let Some((a, v)) = tile.offset().iter().find(|(_, v)| **v != 0) {
        return refuse("offset", format!("offset {v}@{a}: placements put every shard at offset 0 of its rank"));
    }
    for a in tile.axes() {
        if a != Axis::M && mesh.index_of(a).is_none() {
            return refuse("axis", format!("axis {a} is neither the memory axis m nor a mesh axis ({})", mesh.text()));
        }
    }
    Ok(tile)
}

/// Per tensor dimension the mesh axes that shard it (outer first), and the memory iters of all dimensions in
/// order: the tile grouped by the padded shape (`group`), each dimension's device iters outside its local ones
/// (`interleaved`).
fn sharding(
    mesh: &Mesh,
    dist: &DistLayout,
    tile: &TileLayout,
    axes: &mut AxisUse,
) -> Result<(Vec<Vec<usize>>, Vec<Iter>)> {
    let g = group(tile, &dist.padded).map_err(|e| LayoutError::new(format!("group rule: {}", e.message)))?;
    let mut dims = Vec::with_capacity(dist.shape.len());
    let mut memory: Vec<Iter> = Vec::new();
    for d in 0..dist.shape.len() {
        let mut ms = Vec::new();
        let mut seen_memory = false;
        for it in g.block(d).iter().filter(|it| it.extent > 1) {
            if it.axis == Axis::M {
                seen_memory = true;
                memory.push(*it);
                continue;
            }
            let i = mesh.index_of(it.axis).unwrap_or_default();
            if seen_memory {
                return refuse(
                    "interleaved",
                    format!(
                        "dimension {d}: device iter {}:{}@{} is inside a local iter (a cyclic split); placements \
                         split a dimension into contiguous blocks",
                        it.extent, it.stride, it.axis
                    ),
                );
            }
            axes.take(mesh, i, it, "shard")?;
            ms.push(i);
        }
        dims.push(ms);
    }
    Ok((dims, memory))
}

/// The memory iters, innermost last, are a row-major local tile (`local-row-major`).
fn check_row_major(memory: &[Iter]) -> Result<()> {
    let mut expect = 1i64;
    for it in memory.iter().rev() {
        if it.stride != expect {
            return refuse(
                "local-row-major",
                format!(
                    "memory iter {}:{} has stride {}, not {expect}: the local tiles are not row-major",
                    it.extent, it.stride, it.stride
                ),
            );
        }
        expect *= it.extent;
    }
    Ok(())
}

/// Every replica iter is a whole mesh axis (`replica`).
fn replica_axes(mesh: &Mesh, tile: &TileLayout, axes: &mut AxisUse) -> Result<()> {
    for it in tile.replica().iter().filter(|it| it.extent > 1) {
        match mesh.index_of(it.axis) {
            Some(i) => axes.take(mesh, i, it, "replica")?,
            None => {
                return refuse(
                    "replica",
                    format!(
                        "replica iter {}:{}@{} puts one element at several places of a rank",
                        it.extent, it.stride, it.axis
                    ),
                )
            }
        }
    }
    Ok(())
}

/// Every mesh axis of extent over 1 holds an iter (`unused-axis`).
fn check_unused(mesh: &Mesh, axes: &AxisUse) -> Result<()> {
    for (i, a) in mesh.axes().iter().enumerate() {
        if !axes.used[i] && a.extent > 1 {
            return refuse(
                "unused-axis",
                format!(
                    "mesh axis {} (extent {}) holds no iter: the tensor lives only at {} = 0, which no placement \
                     expresses",
                    a.name, a.extent, a.axis
                ),
            );
        }
    }
    Ok(())
}

/// Each padded extent is the tensor's or torch.chunk's `ceil(n/k)*k` (`padding`).
fn check_padding(mesh: &Mesh, dist: &DistLayout, dims: &[Vec<usize>]) -> Result<()> {
    for (d, ms) in dims.iter().enumerate() {
        let (n, p) = (dist.shape[d], dist.padded[d]);
        let k: i64 = ms.iter().map(|&i| mesh.axes()[i].extent).product();
        let chunked = (n / k + i64::from(n % k != 0)).saturating_mul(k);
        if p != n && p != chunked {
            return refuse(
                "padding",
                format!(
                    "dimension {d}: padded extent {p} for extent {n} split {k} ways; torch.chunk pads to \
                     ceil({n}/{k})*{k} = {chunked}"
                ),
            );
        }
    }
    Ok(())
}

/// Per mesh dimension its Partial marker: each on a mesh axis that shards nothing, at most once (`partial`).
fn partial_markers(mesh: &Mesh, dist: &DistLayout, dims: &[Vec<usize>]) -> Result<Vec<Option<ReduceOp>>> {
    let mut partial = vec![None; mesh.axes().len()];
    for &(axis, op) in &dist.partial {
        let Some(i) = mesh.index_of(axis) else {
            return refuse("partial", format!("partial axis {axis} is not a mesh axis ({})", mesh.text()));
        };
        if dims.iter().flatten().any(|&j| j == i) || partial[i].is_some() {
            return refuse("partial", format!("partial axis {axis} shards the tensor or is marked twice"));
        }
        partial[i] = Some(op);
    }
    Ok(partial)
}
