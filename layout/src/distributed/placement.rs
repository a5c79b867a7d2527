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
//! split, and the padding places hold nothing. [`DistLayout::padded`] is that shape. Accepted only when one mesh
//! dimension shards the tensor dimension (`uneven-nested` otherwise: DTensor chunks the chunks again, and
//! `ceil` of a `ceil` is not one padded row-major split); JAX requires divisibility (`jax-uneven`).
//!
//! # Refusals
//!
//! Every error starts with `<rule> rule:`; [`RULES`] lists them. A mesh dimension of extent 1 holds no iter in a
//! canonical layout and reads back as `Replicate()`.

use super::mesh::Mesh;
use crate::axis::Axis;
use crate::error::{LayoutError, Result};
use crate::group::group;
use crate::iter::Iter;
use crate::layout::Layout;
use crate::notation::shape_text;
use crate::tile_layout::TileLayout;
use std::collections::BTreeMap;
use std::fmt;

/// Every rule a placement conversion may refuse by (the first word of the message).
pub const RULES: &[&str] = &[
    "mesh",
    "placement",
    "spec",
    "shape",
    "uneven-nested",
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

/// A reduction over device replicas.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ReduceOp {
    /// Sum (DTensor's default `Partial()`).
    Sum,
    /// Maximum.
    Max,
}

impl ReduceOp {
    /// `sum` or `max`.
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Max => "max",
        }
    }

    /// Parses `sum` or `max`.
    pub fn from_name(name: &str) -> Option<ReduceOp> {
        match name {
            "sum" => Some(ReduceOp::Sum),
            "max" => Some(ReduceOp::Max),
            _ => None,
        }
    }
}

/// One DTensor placement, per mesh dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Placement {
    /// `Shard(d)`: tensor dimension `d` is split over the mesh dimension (torch.chunk sizes).
    Shard(usize),
    /// `Replicate()`: every rank along the mesh dimension holds the same values.
    Replicate,
    /// `Partial(op)`: every rank holds a contribution; the tensor is their `op`.
    Partial(ReduceOp),
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Placement::Shard(d) => write!(f, "Shard({d})"),
            Placement::Replicate => f.write_str("Replicate()"),
            Placement::Partial(ReduceOp::Sum) => f.write_str("Partial(sum)"),
            Placement::Partial(op) => write!(f, "Partial({})", op.name()),
        }
    }
}

/// `Shard(0), Replicate()`: placements as DTensor prints them (without the brackets).
pub fn placements_text(placements: &[Placement]) -> String {
    placements.iter().map(Placement::to_string).collect::<Vec<_>>().join(", ")
}

/// Parses `Shard(0),Replicate()` (also `Partial()`, `Partial(sum)`, `Partial(max)`, optional `[...]`).
pub fn parse_placements(text: &str) -> Result<Vec<Placement>> {
    let body = text.trim();
    let body = body.strip_prefix('[').and_then(|b| b.strip_suffix(']')).unwrap_or(body);
    let mut out = Vec::new();
    for part in split_top(body).map_err(|m| LayoutError::new(format!("placement rule: '{text}': {m}")))? {
        let p = part.replace(' ', "");
        let arg = |name: &str| p.strip_prefix(name).and_then(|r| r.strip_prefix('(')).and_then(|r| r.strip_suffix(')'));
        let placement = if let Some(a) = arg("Shard") {
            let a = a.strip_prefix("dim=").unwrap_or(a);
            a.parse().ok().map(Placement::Shard)
        } else if arg("Replicate") == Some("") {
            Some(Placement::Replicate)
        } else if let Some(a) = arg("Partial") {
            let a = a.strip_prefix("reduce_op=").unwrap_or(a).trim_matches(|c| c == '\'' || c == '"');
            if a.is_empty() { Some(ReduceOp::Sum) } else { ReduceOp::from_name(a) }.map(Placement::Partial)
        } else {
            None
        };
        match placement {
            Some(pl) => out.push(pl),
            None => {
                return refuse(
                    "placement",
                    format!("'{part}' is not Shard(d), Replicate(), Partial(), Partial(sum) or Partial(max)"),
                )
            }
        }
    }
    Ok(out)
}

/// A JAX `PartitionSpec`: per tensor dimension, the mesh dimension names that split it, outer first (empty is
/// `None`). Trailing `None`s are implied, so specs compare after [`PartitionSpec::padded_to`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartitionSpec(pub Vec<Vec<String>>);

impl PartitionSpec {
    /// The spec with `None` entries appended up to `rank` dimensions.
    pub fn padded_to(&self, rank: usize) -> PartitionSpec {
        let mut dims = self.0.clone();
        dims.resize(rank.max(dims.len()), Vec::new());
        PartitionSpec(dims)
    }
}

impl fmt::Display for PartitionSpec {
    /// `P('x', None)`, `P(('x', 'y'), None)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let entry = |names: &Vec<String>| match names.as_slice() {
            [] => "None".to_owned(),
            [one] => format!("'{one}'"),
            many => format!("({})", many.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(", ")),
        };
        write!(f, "P({})", self.0.iter().map(entry).collect::<Vec<_>>().join(", "))
    }
}

/// Splits at commas outside parentheses; empty pieces are dropped only at the very end (`a,` is `a`).
fn split_top(text: &str) -> std::result::Result<Vec<String>, String> {
    let (mut parts, mut cur, mut depth) = (Vec::new(), String::new(), 0i32);
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return Err("unbalanced ')'".into());
        }
        if c == ',' && depth == 0 {
            parts.push(std::mem::take(&mut cur).trim().to_owned());
        } else {
            cur.push(c);
        }
    }
    if depth != 0 {
        return Err("unbalanced '('".into());
    }
    let last = cur.trim().to_owned();
    if !last.is_empty() || !parts.is_empty() {
        parts.push(last);
    }
    if parts.last().is_some_and(String::is_empty) {
        parts.pop();
    }
    if parts.iter().any(String::is_empty) {
        return Err("empty entry".into());
    }
    Ok(parts)
}

/// Parses `P('x', None)`, `PartitionSpec(('x','y'), None)`, `P()` (quotes `'` or `"`).
pub fn parse_spec(text: &str) -> Result<PartitionSpec> {
    let bad = |m: &str| LayoutError::new(format!("spec rule: '{text}': {m}"));
    let t = text.trim();
    let inner = t
        .strip_prefix("PartitionSpec(")
        .or_else(|| t.strip_prefix("P("))
        .and_then(|r| r.strip_suffix(')'))
        .ok_or_else(|| bad("expected P(...) or PartitionSpec(...)"))?;
    let name = |s: &str| -> Result<String> {
        let s = s.trim();
        let unq = s
            .strip_prefix('\'')
            .and_then(|r| r.strip_suffix('\''))
            .or_else(|| s.strip_prefix('"').and_then(|r| r.strip_suffix('"')))
            .ok_or_else(|| bad(&format!("'{s}' is not a quoted mesh axis name or None")))?;
        if unq.is_empty() || !unq.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(bad(&format!("'{unq}' is not a mesh axis name")));
        }
        Ok(unq.to_owned())
    };
    let mut dims = Vec::new();
    for entry in split_top(inner).map_err(|m| bad(&m))? {
        if entry == "None" {
            dims.push(Vec::new());
        } else if let Some(tuple) = entry.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
            dims.push(split_top(tuple).map_err(|m| bad(&m))?.iter().map(|s| name(s)).collect::<Result<Vec<_>>>()?);
        } else {
            dims.push(vec![name(&entry)?]);
        }
    }
    Ok(PartitionSpec(dims))
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
        Ok(DistLayout { layout, shape, padded, partial })
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

    /// The layout of a tensor of `shape` distributed this way (see the module docs).
    pub fn layout(&self, mesh: &Mesh, shape: &[i64]) -> Result<DistLayout> {
        if shape.len() != self.dims.len() || shape.iter().any(|&e| e < 1) {
            return refuse("shape", format!("shape {} for {} dimension(s)", shape_text(shape), self.dims.len()));
        }
        let mut padded = Vec::with_capacity(shape.len());
        let mut local = Vec::with_capacity(shape.len());
        for (d, ms) in self.dims.iter().enumerate() {
            let k: i64 = ms.iter().map(|&i| mesh.axes()[i].extent).product();
            let n = shape[d];
            if n % k != 0 && ms.len() > 1 {
                return refuse(
                    "uneven-nested",
                    format!(
                        "dimension {d} of extent {n} is split by {} mesh dimensions ({k} shards) unevenly; DTensor \
                         chunks each chunk again, which no padded row-major split matches",
                        ms.len()
                    ),
                );
            }
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
        DistLayout::new(Layout::Tile(tile), shape.to_vec(), padded, partial)
    }

    /// Reads the distribution of a layout: the inverse of [`Distribution::layout`], refusing by rule what no
    /// placement expresses.
    pub fn of_layout(mesh: &Mesh, dist: &DistLayout) -> Result<Distribution> {
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
                return refuse(
                    "axis",
                    format!("axis {a} is neither the memory axis m nor a mesh axis ({})", mesh.text()),
                );
            }
        }
        let g = group(tile, &dist.padded).map_err(|e| LayoutError::new(format!("group rule: {}", e.message)))?;
        let n = mesh.axes().len();
        let mut used = vec![false; n];
        let mut use_axis = |i: usize, it: &Iter, role: &str| -> Result<()> {
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
            if std::mem::replace(&mut used[i], true) {
                return refuse("device-twice", format!("device axis {} holds two iters", it.axis));
            }
            Ok(())
        };
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
                use_axis(i, it, "shard")?;
                ms.push(i);
            }
            dims.push(ms);
        }
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
        for it in tile.replica().iter().filter(|it| it.extent > 1) {
            match mesh.index_of(it.axis) {
                Some(i) => use_axis(i, it, "replica")?,
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
        for (i, a) in mesh.axes().iter().enumerate() {
            if !used[i] && a.extent > 1 {
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
        for (d, ms) in dims.iter().enumerate() {
            let (n, p) = (dist.shape[d], dist.padded[d]);
            let k: i64 = ms.iter().map(|&i| mesh.axes()[i].extent).product();
            let chunked = (n / k + i64::from(n % k != 0)).saturating_mul(k);
            if p != n && (ms.len() != 1 || p != chunked) {
                return refuse(
                    "padding",
                    format!(
                        "dimension {d}: padded extent {p} for extent {n} split {k} ways; torch.chunk pads to \
                         ceil({n}/{k})*{k} = {chunked}{}",
                        if ms.len() > 1 { " and only a dimension split by one mesh axis may be uneven" } else { "" }
                    ),
                );
            }
        }
        let mut partial = vec![None; n];
        for &(axis, op) in &dist.partial {
            let Some(i) = mesh.index_of(axis) else {
                return refuse("partial", format!("partial axis {axis} is not a mesh axis ({})", mesh.text()));
            };
            if dims.iter().flatten().any(|&j| j == i) || partial[i].is_some() {
                return refuse("partial", format!("partial axis {axis} shards the tensor or is marked twice"));
            }
            partial[i] = Some(op);
        }
        Ok(Distribution { dims, partial })
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

/// `to_placements`: the DTensor placements of a distributed layout, or the rule it breaks.
pub fn to_placements(mesh: &Mesh, dist: &DistLayout) -> Result<Vec<Placement>> {
    Distribution::of_layout(mesh, dist)?.placements(mesh)
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
        let e = from_placements(&mesh("2,4"), &[10], &[Placement::Shard(0), Placement::Shard(0)]).unwrap_err();
        assert!(e.message.starts_with("uneven-nested rule:"), "{}", e.message);
    }

    #[test]
    fn parse_and_print() {
        let p = parse_placements("[Shard(0), Replicate(), Partial(), Partial(max)]").unwrap();
        assert_eq!(placements_text(&p), "Shard(0), Replicate(), Partial(sum), Partial(max)");
        let s = parse_spec("P(('x', \"y\"), None)").unwrap();
        assert_eq!(s.to_string(), "P(('x', 'y'), None)");
        assert_eq!(parse_spec("P()").unwrap().0.len(), 0);
        assert!(parse_placements("Shard(x)").unwrap_err().message.starts_with("placement rule:"));
        assert!(parse_spec("P('x'").unwrap_err().message.starts_with("spec rule:"));
    }
}
