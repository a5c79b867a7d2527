//! The device mesh a module declares (`axe.mesh`), and the check of a layout's device iters against it.
//!
//! A module that holds distributed tensors (layouts over device axes, paper section 2 and Figure 2B) declares its
//! mesh next to its axes:
//!
//! ```mlir
//! module attributes {axe.mesh = {gpuid_x = 2 : i64, gpuid_y = 4 : i64}} { ... }
//! ```
//!
//! Each entry is a device axis (the built-in `gpuid`, `gpuid_x`, `gpuid_y`, or one declared with kind `device`
//! in `axe.axes`) and its extent. MLIR keeps a dictionary's entries sorted by name, so the mesh's dimensions are
//! the entries in name order, outermost first (`gpuid_x` rows, `gpuid_y` columns), and a rank is the row-major
//! number of its coordinate: `axe_layout::distributed::Mesh`'s convention and NVSHMEM's PE numbering in
//! `NVSHMEM_TEAM_WORLD` (docs/distributed.md). The verifier ([`crate::verify`], rules `mesh-declared` and
//! `device-in-mesh`) and `--lower-collectives` read it through this module.

use axe_layout::{
    distributed::mesh::{Mesh, MeshAxis},
    Axis, Layout,
};
use melior::ir::{
    attribute::{DictionaryAttribute, IntegerAttribute},
    operation::OperationLike,
    Attribute, OperationRef,
};

/// The attribute that declares the mesh: a dictionary from device axis name to extent.
pub const MESH_ATTRIBUTE: &str = "axe.mesh";

/// The mesh declared on `op` itself: `None` without an `axe.mesh` attribute, an error (rule `mesh-declared`'s
/// message) when it is malformed.
pub fn declared_mesh(op: OperationRef) -> Option<Result<Mesh, String>> {
    op.attribute(MESH_ATTRIBUTE).ok().map(read_mesh)
}

/// The mesh declared on `op` or the nearest op enclosing it (`None` when none declares one).
pub fn enclosing_mesh(op: OperationRef) -> Option<Result<Mesh, String>> {
    let mut current = Some(op);
    while let Some(o) = current {
        if let Some(mesh) = declared_mesh(o) {
            return Some(mesh);
        }
        current = o.parent_operation();
    }
    None
}

/// Reads an `axe.mesh` dictionary into a checked [`Mesh`] (1 to 3 device axes, extents at least 1, at most
/// `MAX_RANKS` ranks).
fn read_mesh(attribute: Attribute) -> Result<Mesh, String> {
    let shape = "a dictionary of device axis name to extent, e.g. {gpuid_x = 2 : i64, gpuid_y = 4 : i64}";
    let entries = DictionaryAttribute::try_from(attribute)
        .map_err(|_| format!("{MESH_ATTRIBUTE} must be {shape}, got {attribute}"))?;
    let mut axes = Vec::new();
    for (name, value) in (0..entries.len()).filter_map(|i| entries.element(i).ok()) {
        let name = name.as_string_ref().as_str().unwrap_or_default().to_owned();
        let extent = IntegerAttribute::try_from(value)
            .map_err(|_| format!("{MESH_ATTRIBUTE} entry '{name}' must be an integer extent, got {value}"))?
            .value();
        let axis = Axis::named(&name).map_err(|e| format!("{MESH_ATTRIBUTE} entry '{name}': {}", e.message))?;
        if !axis.is_device() {
            return Err(format!("{MESH_ATTRIBUTE} entry '{name}' is not a device axis (its kind is {})", axis.kind()));
        }
        axes.push(MeshAxis { name, axis, extent });
    }
    Mesh::new(axes).map_err(|e| e.message)
}

/// Why `layout`'s device iters do not fit `mesh` (rule `device-in-mesh`), or `None` when they do: every device
/// axis it names (shard, replica or offset) is a mesh axis, and every coordinate it reaches on that axis lies in
/// `0..extent`.
pub fn device_violation(layout: &Layout, mesh: Option<&Mesh>) -> Option<String> {
    let tile = layout.tile();
    let devices: Vec<Axis> = layout.axes().into_iter().filter(|a| a.is_device()).collect();
    for axis in devices {
        let Some(mesh) = mesh else {
            return Some(format!(
                "layout uses device axis {axis} but the module declares no mesh ({MESH_ATTRIBUTE} = {{{axis} = N : \
                 i64}})"
            ));
        };
        let Some(index) = mesh.index_of(axis) else {
            return Some(format!("layout uses device axis {axis}, which is not an axis of the mesh {}", mesh.text()));
        };
        let extent = mesh.axes()[index].extent;
        let offset = tile.offset().get(&axis).copied().unwrap_or(0);
        let (mut low, mut high) = (offset, offset);
        for it in tile.shard().iter().chain(tile.replica()).filter(|i| i.axis == axis) {
            if it.stride < 0 {
                low = low.saturating_sub(it.reach());
            } else {
                high = high.saturating_add(it.reach());
            }
        }
        if low < 0 || high >= extent {
            return Some(format!(
                "layout reaches coordinates {low}..={high} of device axis {axis}, but the mesh has {extent} device(s) \
                 along it"
            ));
        }
    }
    None
}
