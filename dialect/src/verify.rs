//! The axe verifier: MLIR's structural checks plus axe's semantic checks.
//!
//! [`verify`] runs MLIR's verifier (operand counts and the ODS constraints of `cpp/axe/Axe.td`); when that
//! passes, [`check`] walks the IR and collects every violation of the semantic rules below, and each one is
//! emitted as an error at the op's (or block argument's) location through the context's diagnostic handlers,
//! so `--verify-diagnostics` sees them like MLIR's own. All violations are reported, not just the first.
//!
//! Checked (one [`Rule`] each; docs/dialect.md gives the same list):
//! - **type rules**, once per tensor value, where it is defined (op result or block argument):
//!   - [`Rule::LayoutParses`]: the layout text parses with axe-layout;
//!   - [`Rule::LayoutAdmitsShape`]: the layout maps exactly as many elements as the shape has;
//!   - [`Rule::LayoutFitsMemory`]: global/shared layouts use the memory axis `m` only (global may also use
//!     device axes; shared may name a cluster's CTA axes `cbx`/`cby`/`cbz` in its replica and offset: the tile
//!     in several CTAs, a multicast destination); register layouts use thread axes plus `m`/`reg`; tensor
//!     memory uses `TLane`/`TCol`;
//!     swizzles only on global and shared tensors.
//! - **op rules**, at the op:
//!   - [`Rule::ScopeCoversLayout`]: every thread axis of a layout a collective op touches indexes units inside
//!     the op's scope (`within <= scope`): a warp-scope op cannot touch a layout over `warpid`;
//!   - [`Rule::ThreadsInScope`]: a `threads` subset names a thread axis whose units are smaller than the scope
//!     and that is local to it, with `0 <= begin < end <= extent` (extent known for `laneid`, `wid_in_wg`,
//!     `tid_in_wg`);
//!   - [`Rule::DtypesAgree`]: copy source/dest, gemm a/b, fill value, view source element, slice result;
//!   - [`Rule::ShapesAgree`]: copy shapes equal (`axe_layout::copy::shapes_agree`, the planner's rule too); gemm
//!     `[M,K] x [K,N] -> [M,N]`;
//!   - [`Rule::RegionInBounds`]: slice offsets/sizes have the source's rank, lie inside it, the result shape
//!     equals the sizes, and the dynamic offsets match the operands;
//!   - [`Rule::SliceLayoutMatches`]: a slice result's explicit layout maps every index `y` where the source
//!     maps `y + offset` (checked element by element up to [`SLICE_CHECK_LIMIT`] elements);
//!   - [`Rule::MemoryScopes`]: alloc is not global; copy_async is a global-to-shared load (with barrier) or a
//!     shared-to-global store (without); gemm a in shared, reg or tmem, b in shared or reg, c in reg or tmem; a
//!     view keeps its source's memory (workgroup memref/pointer: shared; private memref: reg, one per thread;
//!     `!llvm.ptr<6>`: tmem; otherwise global; tensor: same memory);
//!   - [`Rule::LayoutsAgree`]: cast, scale and add take register tensors (MemoryScopes) of one shape
//!     (ShapesAgree) whose layouts have the same map, so each thread works on its own registers; cast converts
//!     f32 to f16 or bf16 or back, scale and add take one dtype of f32, f16, bf16 (DtypesAgree);
//!   - [`Rule::ViewFitsStorage`]: a view of a static memref stays inside it (span on `m` <= element count);
//!   - [`Rule::Counts`]: mbarrier_init count and arrive_expect_tx bytes are at least 1;
//!   - [`Rule::BarrierIndex`]: an op on an `!axe.mbarrier<N>` array (N > 1) names one element `%bars[%i]` (an
//!     `axe.mbarrier_init` without an index initializes all N); a constant index lies in [0, N);
//!   - [`Rule::RuntimeExtents`]: run-time extents (shape entries kDynamic) and `row_major` only on global
//!     `axe.view` results over a memref or pointer (and as the source of `axe.slice`, whose result has static
//!     sizes and stays deferred); a run-time shape has `row_major`, one extent operand per run-time
//!     dimension (none otherwise); `multiples` has one entry per dimension, each at least 1 and dividing a static
//!     extent (docs/dialect.md, "Run-time sizes").
//! - **roles**: [`Rule::Roles`], at `axe.roles` or the role concerned: the rules of [`crate::roles`] (the kernel
//!   declares its block; roles hold disjoint warps of it; register budgets are multiples of 8 in [24, 256], one
//!   per warpgroup, and fit the register file).
//! - **tile-loop**: [`Rule::TileLoop`], at `axe.tile_loop`: the rules of [`crate::tile_loop`] (two positive tile
//!   sizes, a positive group; block arguments, results, initial values and `axe.yield` agree on the carried types).
//! - **mesh**: [`Rule::MeshDeclared`]: an `axe.mesh` dictionary (usually on the module, next to `axe.axes`:
//!   `axe.mesh = {gpuid_x = 2 : i64, gpuid_y = 4 : i64}`) names 1 to 3 device axes with extents at least 1 and at
//!   most 1024 ranks ([`crate::mesh`]); [`Rule::DeviceInMesh`], once per tensor value: every device axis a layout
//!   names is an axis of the nearest enclosing mesh (a layout over a device axis needs one), and every coordinate
//!   it reaches on it (offset plus its iters' reach) lies inside the mesh's extent.
//! - **declarations**, before anything else: [`Rule::AxisDeclared`]: an `axe.axes` dictionary on any op (usually
//!   the module: `module attributes {axe.axes = {sbuf = "memory", quad = "thread:thread:warp"}}`) declares
//!   axes beyond the built-in ones (kinds as `AxisKind::parse` reads them), so layouts may use them; a malformed
//!   entry, or a built-in name with another kind, is an error at that op. Declarations are process-wide, like
//!   MLIR's registered dialects: a later input split with `--split-input-file` sees them too.
//!
//! Not checked yet (TODO): dynamic slice offsets against bounds; barrier phases; that register layouts cover
//! the whole scope; layouts of deferred-layout tensors (checked after `--axe-slice`); slices larger than
//! [`SLICE_CHECK_LIMIT`] elements.

use crate::{
    access, ffi, intern,
    ops::{walk_preorder, AxeOp},
    types::{LayoutSpec, TensorType},
};
use axe_layout::distributed::mesh::Mesh;
use axe_layout::hw::Memory;
use axe_layout::{notation::shape_text, Axis, AxisKind, ExecScope, Layout};
use melior::ir::{
    attribute::{DictionaryAttribute, StringAttribute},
    operation::OperationLike,
    Location, Module, OperationRef, Value, ValueLike,
};
use std::{collections::HashMap, fmt};

mod ops;

use ops::OpChecker;

/// Largest slice (in elements) whose explicit layout is checked element by element.
pub const SLICE_CHECK_LIMIT: i64 = 1 << 16;

/// One semantic rule of the verifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// The tensor type reads (`!axe.tensor<128x64xf16, shared, LAYOUT>`: shape, element type, memory, layout).
    TypeReads,
    /// The layout text parses.
    LayoutParses,
    /// The layout admits the tensor's shape.
    LayoutAdmitsShape,
    /// The layout's axes fit the tensor's memory scope.
    LayoutFitsMemory,
    /// The op's scope covers the thread axes of the layouts it touches.
    ScopeCoversLayout,
    /// The op's scope attribute reads and its thread subset lies inside the scope.
    ThreadsInScope,
    /// Element types agree.
    DtypesAgree,
    /// Shapes agree.
    ShapesAgree,
    /// A slice region lies inside its source.
    RegionInBounds,
    /// A slice's explicit result layout is the sliced layout.
    SliceLayoutMatches,
    /// Operands live in the memory scopes the op needs.
    MemoryScopes,
    /// Elementwise operands have the same layout (the same element in the same thread and register).
    LayoutsAgree,
    /// A view stays inside its storage.
    ViewFitsStorage,
    /// Barrier counts are positive.
    Counts,
    /// An op on an array of barriers names one element (an init may name the whole array), inside the array.
    BarrierIndex,
    /// An `axe.axes` declaration names a new axis and a kind.
    AxisDeclared,
    /// Run-time extents and `row_major` only where lowerings can read them (global views, slice sources).
    RuntimeExtents,
    /// An `axe.mesh` declaration reads as a mesh of device axes.
    MeshDeclared,
    /// A layout's device iters lie on axes of the declared mesh, inside its extents.
    DeviceInMesh,
    /// Warp roles name disjoint warps of the block, with register budgets `setmaxnreg` can set.
    Roles,
    /// A tile loop has two positive tile sizes, a positive group, and agreeing carried types.
    TileLoop,
}

impl Rule {
    /// The rule's name in docs and tests (`layout-admits-shape`).
    pub fn name(self) -> &'static str {
        match self {
            Rule::TypeReads => "type-reads",
            Rule::LayoutParses => "layout-parses",
            Rule::LayoutAdmitsShape => "layout-admits-shape",
            Rule::LayoutFitsMemory => "layout-fits-memory",
            Rule::ScopeCoversLayout => "scope-covers-layout",
            Rule::ThreadsInScope => "threads-in-scope",
            Rule::DtypesAgree => "dtypes-agree",
            Rule::ShapesAgree => "shapes-agree",
            Rule::RegionInBounds => "region-in-bounds",
            Rule::SliceLayoutMatches => "slice-layout-matches",
            Rule::MemoryScopes => "memory-scopes",
            Rule::LayoutsAgree => "layouts-agree",
            Rule::ViewFitsStorage => "view-fits-storage",
            Rule::Counts => "counts",
            Rule::BarrierIndex => "barrier-index",
            Rule::AxisDeclared => "axis-declared",
            Rule::RuntimeExtents => "run-time-extents",
            Rule::MeshDeclared => "mesh-declared",
            Rule::DeviceInMesh => "device-in-mesh",
            Rule::Roles => "roles",
            Rule::TileLoop => "tile-loop",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One failed rule: where, which rule, and the message (lowercase, no period, rule then values).
#[derive(Clone, Debug)]
pub struct Violation<'c> {
    /// The op's or block argument's location.
    pub location: Location<'c>,
    /// The rule that failed.
    pub rule: Rule,
    /// What failed, with the values found.
    pub message: String,
}

/// Verifies `module`: MLIR's verifier, then every semantic rule; violations are emitted as errors on their
/// locations (into the context's diagnostic sink). Returns success.
pub fn verify(module: &Module) -> bool {
    verify_op(module.as_operation())
}

/// [`verify`] on any op (a pass's anchor).
pub fn verify_op(root: OperationRef) -> bool {
    if !root.verify() {
        return false;
    }
    let violations = check(root);
    for violation in &violations {
        ffi::emit_error(violation.location, &violation.message);
    }
    violations.is_empty()
}

/// Every semantic violation under `root` (root included), in IR order; emits nothing.
pub fn check<'c>(root: OperationRef<'c, '_>) -> Vec<Violation<'c>> {
    let mut out = Vec::new();
    walk_preorder(root, &mut |op| declare_axes(op, &mut out));
    // The mesh of the root's scope (the nearest declaration on it or above it), and each nested declaration's.
    let mut meshes: HashMap<access::OpKey, Option<Mesh>> = HashMap::new();
    walk_preorder(root, &mut |op| {
        if let Some(mesh) = crate::mesh::declared_mesh(op) {
            let mesh = mesh
                .map_err(|message| out.push(Violation { location: op.location(), rule: Rule::MeshDeclared, message }))
                .ok();
            meshes.insert(access::key(op), mesh);
        }
    });
    let outer = match root.parent_operation().and_then(crate::mesh::enclosing_mesh) {
        Some(Ok(mesh)) => Some(mesh),
        _ => None,
    };
    let mesh_of = |op: OperationRef| -> Option<&Mesh> {
        let mut current = Some(op);
        while let Some(o) = current {
            if let Some(mesh) = meshes.get(&access::key(o)) {
                return mesh.as_ref();
            }
            current = if access::key(o) == access::key(root) { None } else { o.parent_operation() };
        }
        outer.as_ref()
    };
    walk_preorder(root, &mut |op| {
        let mesh = if meshes.is_empty() && outer.is_none() { None } else { mesh_of(op) };
        check_block_arguments(op, mesh, &mut out);
        for result in op.results() {
            check_value_type(result.into(), op.location(), mesh, &mut out);
        }
        if let Some(axe) = AxeOp::new(op) {
            OpChecker { op: axe, location: op.location(), out: &mut out }.run();
        }
    });
    out
}

/// The attribute that declares axes: a dictionary from axis name to kind text.
pub const AXES_ATTRIBUTE: &str = "axe.axes";

/// Declares the axes of `op`'s `axe.axes` dictionary, if it has one (see [`Rule::AxisDeclared`]).
fn declare_axes<'c>(op: OperationRef<'c, '_>, out: &mut Vec<Violation<'c>>) {
    let Ok(attribute) = op.attribute(AXES_ATTRIBUTE) else { return };
    let mut fail = |message: String| out.push(Violation { location: op.location(), rule: Rule::AxisDeclared, message });
    let Ok(entries) = DictionaryAttribute::try_from(attribute) else {
        return fail(format!("{AXES_ATTRIBUTE} must be a dictionary of axis name to kind, got {attribute}"));
    };
    for (name, kind) in (0..entries.len()).filter_map(|i| entries.element(i).ok()) {
        let name = name.as_string_ref().as_str().unwrap_or_default().to_owned();
        let declared = StringAttribute::try_from(kind)
            .map_err(|_| format!("kind must be a string (memory, device or thread:UNIT:WITHIN), got {kind}"))
            .and_then(|kind| AxisKind::parse(kind.value()).map_err(|e| e.message))
            .and_then(|kind| Axis::declare(&name, kind).map_err(|e| e.message));
        if let Err(message) = declared {
            fail(format!("cannot declare axis '{name}': {message}"));
        }
    }
}

/// Type rules for the arguments of every block in `op`'s regions.
fn check_block_arguments<'c>(op: OperationRef<'c, '_>, mesh: Option<&Mesh>, out: &mut Vec<Violation<'c>>) {
    for argument in access::blocks(op).flat_map(access::arguments) {
        check_value_type(argument.into(), ffi::block_argument_location(argument), mesh, out);
    }
}

/// Type rules for one value (parse, admits, fits memory, device iters in the mesh); nothing for non-tensors.
fn check_value_type<'c>(
    value: Value<'c, '_>,
    location: Location<'c>,
    mesh: Option<&Mesh>,
    out: &mut Vec<Violation<'c>>,
) {
    let push = |out: &mut Vec<Violation<'c>>, rule, message| out.push(Violation { location, rule, message });
    let tensor = match intern::tensor_type_of(value.r#type()) {
        Ok(Some(tensor)) => tensor,
        Ok(None) => return,
        Err(e) => return push(out, Rule::TypeReads, format!("invalid tensor type: {e}")),
    };
    let layout = match tensor.layout.parse() {
        None => return,
        Some(Ok(layout)) => layout,
        Some(Err(e)) => {
            let LayoutSpec::Text(text) = &tensor.layout else { return };
            return push(out, Rule::LayoutParses, format!("layout \"{text}\" does not parse: {e}"));
        }
    };
    if tensor.element_count() != layout.size() {
        push(
            out,
            Rule::LayoutAdmitsShape,
            format!(
                "layout does not admit shape {}: layout maps {} elements, shape has {}",
                shape_text(&tensor.shape),
                layout.size(),
                tensor.element_count()
            ),
        );
    }
    if let Err(message) = layout_fits_memory(&layout, tensor.mem) {
        push(out, Rule::LayoutFitsMemory, message);
    }
    if let Some(message) = crate::mesh::device_violation(&layout, mesh) {
        push(out, Rule::DeviceInMesh, message);
    }
}

/// Which axes a memory scope's layouts may use.
fn layout_fits_memory(layout: &Layout, mem: Memory) -> Result<(), String> {
    if layout.swizzle().is_some() && !matches!(mem, Memory::Global | Memory::Shared) {
        return Err(format!("swizzled layout needs a global or shared tensor, got a {mem} tensor"));
    }
    let (allowed, what): (fn(Axis) -> bool, &str) = match mem {
        Memory::Global => (|a| a == Axis::M || a.is_device(), "the memory axis m (and device axes)"),
        // A cluster's CTA axes are allowed in a shared layout's replica and offset (checked below).
        Memory::Shared => (|a| a == Axis::M || is_cluster_cta(a), "the memory axis m"),
        Memory::Reg => (|a| a.is_thread() || matches!(a.name(), "m" | "reg"), "thread axes and m or reg"),
        Memory::Tmem => (|a| matches!(a.name(), "TLane" | "TCol"), "TLane and TCol"),
        Memory::Hbm => (|a| a == Axis::M, "the memory axis m"),
        Memory::Sbuf | Memory::Psum => (|a| matches!(a.name(), "P" | "F"), "the partition axis P and the free axis F"),
    };
    if let Some(axis) = layout.axes().into_iter().find(|a| !allowed(*a)) {
        return Err(format!("layout of a {mem} tensor must use {what} only, got axis {axis}"));
    }
    match layout.tile().shard().iter().find(|i| mem == Memory::Shared && is_cluster_cta(i.axis)) {
        Some(it) => Err(format!(
            "layout of a shared tensor may name {} only in a replica or offset (the same tile in several CTAs of \
             the cluster, a multicast destination), not in its shard",
            it.axis
        )),
        None => Ok(()),
    }
}

/// The axes that index CTAs within a cluster (`cbx`, `cby`, `cbz`).
fn is_cluster_cta(a: Axis) -> bool {
    matches!(a.kind(), AxisKind::Thread { unit: ExecScope::Cta, within: ExecScope::Cluster })
}

/// The tensor's layout when it is given and parses (errors are reported where the tensor is defined).
pub(super) fn known_layout(tensor: &TensorType) -> Option<Layout> {
    tensor.layout.parse().and_then(Result::ok)
}
