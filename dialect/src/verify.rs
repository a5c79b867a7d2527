//! The axe verifier: MLIR's structural checks plus axe's semantic checks.
//!
//! [`verify`] runs MLIR's verifier (operand counts and the IRDL constraints of `axe.irdl.mlir`); when that
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
//!   - [`Rule::RuntimeExtents`]: run-time extents (shape entries kDynamic) and `#axe.row_major` only on global
//!     `axe.view` results over a memref or pointer (and as the source of `axe.slice`, whose result has static
//!     sizes and stays `#axe.deferred`); a run-time shape has `#axe.row_major`, one extent operand per run-time
//!     dimension (none otherwise); `multiples` has one entry per dimension, each at least 1 and dividing a static
//!     extent (docs/dialect.md, "Run-time sizes").
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
//! the whole scope; layouts of `#axe.deferred` tensors (checked after `--axe-slice`); slices larger than
//! [`SLICE_CHECK_LIMIT`] elements.

use crate::{
    access, ffi, intern,
    ops::{walk_preorder, AxeOp, OpKind},
    types::{LayoutSpec, MemScope, TensorType, Threads},
};
use axe_layout::distributed::mesh::Mesh;
use axe_layout::{notation::shape_text, tile_layout::Coord, Axis, AxisKind, ExecScope, Layout};
use melior::ir::{
    attribute::{DictionaryAttribute, StringAttribute},
    operation::OperationLike,
    r#type::MemRefType,
    Location, Module, OperationRef, Type, Value, ValueLike,
};
use std::{collections::HashMap, fmt};

/// Largest slice (in elements) whose explicit layout is checked element by element.
pub const SLICE_CHECK_LIMIT: i64 = 1 << 16;

/// One semantic rule of the verifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// The tensor type reads (shape is `array<i64>`, parameters well formed).
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
    /// An `axe.axes` declaration names a new axis and a kind.
    AxisDeclared,
    /// Run-time extents and `#axe.row_major` only where lowerings can read them (global views, slice sources).
    RuntimeExtents,
    /// An `axe.mesh` declaration reads as a mesh of device axes.
    MeshDeclared,
    /// A layout's device iters lie on axes of the declared mesh, inside its extents.
    DeviceInMesh,
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
            Rule::AxisDeclared => "axis-declared",
            Rule::RuntimeExtents => "run-time-extents",
            Rule::MeshDeclared => "mesh-declared",
            Rule::DeviceInMesh => "device-in-mesh",
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
fn layout_fits_memory(layout: &Layout, mem: MemScope) -> Result<(), String> {
    if layout.swizzle().is_some() && matches!(mem, MemScope::Reg | MemScope::Tmem) {
        return Err(format!("swizzled layout needs a global or shared tensor, got a {mem} tensor"));
    }
    let (allowed, what): (fn(Axis) -> bool, &str) = match mem {
        MemScope::Global => (|a| a == Axis::M || a.is_device(), "the memory axis m (and device axes)"),
        // A cluster's CTA axes are allowed in a shared layout's replica and offset (checked below).
        MemScope::Shared => (|a| a == Axis::M || is_cluster_cta(a), "the memory axis m"),
        MemScope::Reg => (|a| a.is_thread() || matches!(a.name(), "m" | "reg"), "thread axes and m or reg"),
        MemScope::Tmem => (|a| matches!(a.name(), "TLane" | "TCol"), "TLane and TCol"),
    };
    if let Some(axis) = layout.axes().into_iter().find(|a| !allowed(*a)) {
        return Err(format!("layout of a {mem} tensor must use {what} only, got axis {axis}"));
    }
    match layout.tile().shard().iter().find(|i| mem == MemScope::Shared && is_cluster_cta(i.axis)) {
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

/// The first index where a slice result's layout disagrees with its source's layout over the region `bounds`
/// (SliceLayoutMatches), as the violation message; `None` when they agree or the check does not apply (a layout
/// that does not parse or admit its shape is reported by the type rules; slices over [`SLICE_CHECK_LIMIT`]
/// elements are not checked).
fn slice_layout_violation(source: &TensorType, result: &TensorType, bounds: &[(i64, i64)]) -> Option<String> {
    let (from, to) = (known_layout(source)?, known_layout(result)?);
    if result.element_count() > SLICE_CHECK_LIMIT
        || from.size() != source.element_count()
        || to.size() != result.element_count()
    {
        return None;
    }
    for flat in 0..result.element_count() {
        let y = axe_layout::tile_layout::unflatten(&result.shape, flat);
        let x: Vec<i64> = y.iter().zip(bounds).map(|(v, (b, _))| v + b).collect();
        let (got, want) = (from_eval(&to, &result.shape, &y).ok()?, from_eval(&from, &source.shape, &x).ok()?);
        if got != want {
            return Some(format!(
                "slice result layout is not the sliced layout: index {} maps to {} but the source maps index {} to {}",
                shape_text(&y),
                points_text(&got),
                shape_text(&x),
                points_text(&want)
            ));
        }
    }
    None
}

/// The tensor's layout when it is given and parses (errors are reported where the tensor is defined).
fn known_layout(tensor: &TensorType) -> Option<Layout> {
    tensor.layout.parse().and_then(Result::ok)
}

/// Checks the op rules of one axe op.
struct OpChecker<'c, 'a, 'o> {
    op: AxeOp<'c, 'a>,
    location: Location<'c>,
    out: &'o mut Vec<Violation<'c>>,
}

impl OpChecker<'_, '_, '_> {
    fn fail(&mut self, rule: Rule, message: String) {
        self.out.push(Violation { location: self.location, rule, message });
    }

    fn run(&mut self) {
        let tensors: Vec<_> = self.op.tensors();
        for tensor in &tensors {
            if let Err(e) = tensor {
                self.fail(Rule::TypeReads, format!("invalid tensor type of {e}"));
            }
        }
        self.check_scope();
        self.check_runtime_extents();
        match self.op.kind() {
            OpKind::View => self.check_view(),
            OpKind::Alloc => self.check_alloc(),
            OpKind::Slice => self.check_slice(),
            OpKind::Copy => self.check_copy(false),
            OpKind::CopyAsync => self.check_copy(true),
            OpKind::Gemm => self.check_gemm(),
            OpKind::Fill => self.check_fill(),
            OpKind::Cast | OpKind::Scale | OpKind::Add => self.check_elementwise(),
            OpKind::MbarrierInit => self.check_count("count"),
            OpKind::MbarrierArriveExpectTx => self.check_count("bytes"),
            _ => {}
        }
    }

    /// ScopeCoversLayout and ThreadsInScope.
    fn check_scope(&mut self) {
        let scope = match self.op.scope() {
            None => return,
            Some(Ok(scope)) => scope,
            Some(Err(e)) => return self.fail(Rule::ThreadsInScope, e),
        };
        for tensor in self.op.tensors().into_iter().filter_map(Result::ok) {
            let Some(layout) = known_layout(&tensor.tensor) else { continue };
            for axis in layout.axes() {
                if let AxisKind::Thread { unit, within } = axis.kind() {
                    if within > scope {
                        self.fail(
                            Rule::ScopeCoversLayout,
                            format!(
                                "op at {scope} scope cannot touch a layout over {axis} ({}): {axis} indexes \
                                 {unit}s within a {within}",
                                tensor.role
                            ),
                        );
                    }
                }
            }
        }
        if let Some(threads) = self.op.threads() {
            match threads.and_then(|t| threads_in_scope(&t, scope)) {
                Ok(()) => {}
                Err(e) => self.fail(Rule::ThreadsInScope, e),
            }
        }
    }

    /// RuntimeExtents for every tensor the op touches: only a view's result or a slice's source may have run-time
    /// extents or `#axe.row_major`.
    fn check_runtime_extents(&mut self) {
        let kind = self.op.kind();
        for used in self.op.tensors().into_iter().filter_map(Result::ok) {
            let t = &used.tensor;
            let runtime = t.has_runtime_extents();
            if !runtime && t.layout != LayoutSpec::RowMajor {
                continue;
            }
            let allowed = matches!((kind, used.role), (OpKind::View, "result") | (OpKind::Slice, "source"));
            if !allowed {
                let what = if runtime { "run-time extents" } else { "layout #axe.row_major" };
                self.fail(
                    Rule::RuntimeExtents,
                    format!(
                        "{} {} has {what}: only an axe.view result (and an axe.slice source) may, slice it to \
                         static sizes first",
                        kind.name(),
                        used.role
                    ),
                );
            } else if runtime && t.layout != LayoutSpec::RowMajor {
                self.fail(
                    Rule::RuntimeExtents,
                    format!(
                        "a tensor with run-time extents [{}] must have layout #axe.row_major, got {}",
                        t.shape
                            .iter()
                            .map(|&e| if e == crate::ops::DYNAMIC { "?".to_string() } else { e.to_string() })
                            .collect::<Vec<_>>()
                            .join(", "),
                        t.layout.attribute_text()
                    ),
                );
            } else if t.mem != MemScope::Global {
                self.fail(
                    Rule::RuntimeExtents,
                    format!("run-time extents and #axe.row_major are for global tensors, got {}", t.mem),
                );
            }
        }
    }

    /// RuntimeExtents of a view: extent operands, `multiples`, and a storage source.
    fn check_view_extents(&mut self, result: &TensorType, source_is_tensor: bool) {
        let runtime = result.shape.iter().filter(|&&e| e == crate::ops::DYNAMIC).count();
        let operands = self.op.operation().operand_count().saturating_sub(1);
        if runtime != operands {
            self.fail(
                Rule::RuntimeExtents,
                format!("view has {runtime} run-time extents but {operands} extent operands"),
            );
        }
        if (runtime > 0 || result.layout == LayoutSpec::RowMajor) && source_is_tensor {
            self.fail(
                Rule::RuntimeExtents,
                "a view with run-time extents or #axe.row_major must view a memref or pointer, not a tensor"
                    .to_string(),
            );
        }
        let Some(text) = self.op.attribute_text("multiples") else { return };
        let multiples = match crate::types::parse_i64_array(&text) {
            Ok(m) => m,
            Err(e) => return self.fail(Rule::RuntimeExtents, format!("view multiples {e}")),
        };
        if multiples.len() != result.shape.len() {
            return self.fail(
                Rule::RuntimeExtents,
                format!(
                    "view multiples must have one entry per dimension ({}), got {}",
                    result.shape.len(),
                    multiples.len()
                ),
            );
        }
        for (d, (&m, &extent)) in multiples.iter().zip(&result.shape).enumerate() {
            if m < 1 || (extent != crate::ops::DYNAMIC && extent % m != 0) {
                self.fail(
                    Rule::RuntimeExtents,
                    format!("view multiple of dimension {d} must be at least 1 and divide a static extent, got {m} for extent {}",
                        if extent == crate::ops::DYNAMIC { "?".to_string() } else { extent.to_string() }),
                );
            }
        }
    }

    fn check_view(&mut self) {
        let Some(result) = self.op.tensor("result") else { return };
        let Some(source) = self.op.operand(0) else { return };
        let storage = Storage::of(source.r#type());
        self.check_view_extents(&result, matches!(storage, Storage::Tensor(_)));
        let (mem, element, elements) = match &storage {
            Storage::Memref { mem, element, elements } => (*mem, Some(element.clone()), *elements),
            Storage::Pointer { mem } => (*mem, None, None),
            Storage::Tensor(t) => (Some(t.mem), Some(t.dtype.clone()), None),
            Storage::Other(text) => {
                return self.fail(
                    Rule::MemoryScopes,
                    format!("view source must be a memref, !llvm.ptr or !axe.tensor, got {text}"),
                )
            }
        };
        match mem {
            Some(mem) if mem != result.mem => self.fail(
                Rule::MemoryScopes,
                format!("view of {} storage must be a {mem} tensor, got {}", storage.describe(), result.mem),
            ),
            None => self.fail(
                Rule::MemoryScopes,
                format!("view source {} is in an address space axe does not know", storage.describe()),
            ),
            _ => {}
        }
        if let Some(element) = element {
            // A tf32 tensor is stored as f32 (the same 32 bits; MLIR's tf32 has no memory type of its own).
            let stored_as = |e: &str| e == result.dtype || (result.dtype == "tf32" && e == "f32");
            if !stored_as(&element) {
                self.fail(
                    Rule::DtypesAgree,
                    format!("view source element type {element} must equal the tensor dtype {}", result.dtype),
                );
            }
        }
        if let (Some(elements), Some(layout)) = (elements, known_layout(&result)) {
            // `reg` is the register axis m too (axe_layout::threads).
            let span = axe_layout::threads::register_span(&layout);
            if span > elements {
                self.fail(
                    Rule::ViewFitsStorage,
                    format!("view layout spans {span} elements of m, but the memref holds {elements}"),
                );
            }
        }
    }

    fn check_alloc(&mut self) {
        if let Some(result) = self.op.tensor("result") {
            if result.mem == MemScope::Global {
                self.fail(
                    Rule::MemoryScopes,
                    "alloc cannot allocate global memory: view a memref or pointer instead".to_string(),
                );
            }
        }
    }

    fn check_slice(&mut self) {
        let (Some(source), Some(result)) = (self.op.tensor("source"), self.op.tensor("result")) else { return };
        let region = match self.op.slice_region() {
            Ok(region) => region,
            Err(e) => return self.fail(Rule::RegionInBounds, e),
        };
        if region.offsets.len() != source.shape.len() || region.sizes.len() != source.shape.len() {
            return self.fail(
                Rule::RegionInBounds,
                format!(
                    "slice region rank must equal the source rank {}, got {} offsets and {} sizes",
                    source.shape.len(),
                    region.offsets.len(),
                    region.sizes.len()
                ),
            );
        }
        let dynamic = region.offsets.iter().filter(|o| o.is_none()).count();
        if dynamic != self.op.dynamic_offset_count() {
            self.fail(
                Rule::RegionInBounds,
                format!("slice has {dynamic} dynamic offsets but {} offset operands", self.op.dynamic_offset_count()),
            );
        }
        let mut in_bounds = true;
        for (d, ((offset, &size), &extent)) in region.offsets.iter().zip(&region.sizes).zip(&source.shape).enumerate() {
            let begin = offset.unwrap_or(0);
            // A run-time extent bounds nothing statically: past it, the lowering fills or clips (dialect.md).
            let past = extent != crate::ops::DYNAMIC && begin.saturating_add(size) > extent;
            if begin < 0 || size < 1 || past {
                in_bounds = false;
                let shown = offset.map_or("?".to_string(), |o| o.to_string());
                self.fail(
                    Rule::RegionInBounds,
                    format!(
                        "slice region of dimension {d} must lie in [0,{}), got offset {shown} size {size}",
                        if extent == crate::ops::DYNAMIC { "?".to_string() } else { extent.to_string() }
                    ),
                );
            }
        }
        if result.shape != region.sizes {
            in_bounds = false;
            self.fail(
                Rule::RegionInBounds,
                format!(
                    "slice result shape must equal the sizes {}, got {}",
                    shape_text(&region.sizes),
                    shape_text(&result.shape)
                ),
            );
        }
        if result.dtype != source.dtype || result.mem != source.mem {
            self.fail(
                Rule::DtypesAgree,
                format!(
                    "slice result must keep the source dtype and memory {} in {}, got {} in {}",
                    source.dtype, source.mem, result.dtype, result.mem
                ),
            );
        }
        if source.layout == LayoutSpec::RowMajor && result.layout != LayoutSpec::Deferred {
            self.fail(
                Rule::RuntimeExtents,
                format!(
                    "a slice of a #axe.row_major tensor has run-time strides: its layout must be #axe.deferred, got {}",
                    result.layout.attribute_text()
                ),
            );
        }
        if let (true, Some(bounds)) = (in_bounds, region.static_bounds()) {
            self.check_slice_layout(&source, &result, &bounds);
        }
    }

    /// SliceLayoutMatches (decided once per source, result and region: [`intern::slice_check`]).
    fn check_slice_layout(&mut self, source: &TensorType, result: &TensorType, bounds: &[(i64, i64)]) {
        let key = (source.clone(), result.clone(), bounds.to_vec());
        if let Some(message) = intern::slice_check(key, || slice_layout_violation(source, result, bounds)) {
            self.fail(Rule::SliceLayoutMatches, message);
        }
    }

    fn check_copy(&mut self, is_async: bool) {
        let (Some(source), Some(dest)) = (self.op.tensor("source"), self.op.tensor("dest")) else { return };
        let name = self.op.kind().name().trim_start_matches("axe.");
        if source.dtype != dest.dtype {
            self.fail(
                Rule::DtypesAgree,
                format!("{name} source and dest dtypes must agree, got {} and {}", source.dtype, dest.dtype),
            );
        }
        // The copy planner (--lower-copy, `axe-layout copy-plan`) applies this same rule.
        if let Err(message) = axe_layout::copy::shapes_agree(&source.shape, &dest.shape) {
            self.fail(Rule::ShapesAgree, format!("{name} {message}"));
        }
        if !is_async {
            return;
        }
        let has_barrier = self.op.operation().operand_count() > 2;
        match (source.mem, dest.mem, has_barrier) {
            // A load without a barrier is a cp.async group, completed by `cp.async.wait_group` (--lower-copy).
            (MemScope::Global, MemScope::Shared, _) | (MemScope::Shared, MemScope::Global, false) => {}
            (MemScope::Shared, MemScope::Global, true) => self.fail(
                Rule::MemoryScopes,
                "copy_async store to global memory completes through bulk groups and takes no barrier operand"
                    .to_string(),
            ),
            (from, to, _) => self.fail(
                Rule::MemoryScopes,
                format!("copy_async must copy global to shared or shared to global, got {from} to {to}"),
            ),
        }
    }

    fn check_gemm(&mut self) {
        let (Some(a), Some(b), Some(c)) = (self.op.tensor("a"), self.op.tensor("b"), self.op.tensor("c")) else {
            return;
        };
        if a.dtype != b.dtype {
            self.fail(Rule::DtypesAgree, format!("gemm a and b dtypes must agree, got {} and {}", a.dtype, b.dtype));
        }
        let ok = matches!((a.shape.as_slice(), b.shape.as_slice(), c.shape.as_slice()),
            ([m, k], [k2, n], [m2, n2]) if k == k2 && m == m2 && n == n2);
        if !ok {
            self.fail(
                Rule::ShapesAgree,
                format!(
                    "gemm shapes must be a [M,K], b [K,N], c [M,N], got {}, {}, {}",
                    shape_text(&a.shape),
                    shape_text(&b.shape),
                    shape_text(&c.shape)
                ),
            );
        }
        for (role, tensor, allowed, what) in [
            ("a", &a, &[MemScope::Shared, MemScope::Reg, MemScope::Tmem][..], "shared, reg or tmem"),
            ("b", &b, &[MemScope::Shared, MemScope::Reg], "shared or reg"),
            ("c", &c, &[MemScope::Reg, MemScope::Tmem], "reg or tmem"),
        ] {
            if !allowed.contains(&tensor.mem) {
                self.fail(Rule::MemoryScopes, format!("gemm {role} must be in {what}, got {}", tensor.mem));
            }
        }
    }

    fn check_fill(&mut self) {
        let (Some(dest), Some(value)) = (self.op.tensor("dest"), self.op.operand(1)) else { return };
        let value_type = value.r#type().to_string();
        // A tf32 tensor holds f32 bit patterns: it is filled with an f32 value.
        if value_type != dest.dtype && !(dest.dtype == "tf32" && value_type == "f32") {
            self.fail(
                Rule::DtypesAgree,
                format!("fill value type must equal the dest dtype {}, got {value_type}", dest.dtype),
            );
        }
    }

    /// An elementwise op: register tensors of one shape and one layout; the dtypes it converts or computes in.
    fn check_elementwise(&mut self) {
        let tensors: Vec<_> = self.op.tensors().into_iter().filter_map(Result::ok).collect();
        let names = self.op.kind().tensor_operand_names();
        if tensors.len() != names.len() {
            return;
        }
        let name = self.op.kind().name().trim_start_matches("axe.");
        if let Some(t) = tensors.iter().find(|t| t.tensor.mem != MemScope::Reg) {
            return self.fail(
                Rule::MemoryScopes,
                format!("{name} works on register tensors, got {} in {}", t.role, t.tensor.mem),
            );
        }
        let dest = &tensors[tensors.len() - 1];
        for t in &tensors[..tensors.len() - 1] {
            if t.tensor.shape != dest.tensor.shape {
                return self.fail(
                    Rule::ShapesAgree,
                    format!(
                        "{name} {} and dest shapes must agree, got {} and {}",
                        t.role,
                        shape_text(&t.tensor.shape),
                        shape_text(&dest.tensor.shape)
                    ),
                );
            }
        }
        self.check_elementwise_dtypes(name, &tensors);
        for t in &tensors[..tensors.len() - 1] {
            if let Some(message) = layouts_differ(&t.tensor, &dest.tensor) {
                self.fail(Rule::LayoutsAgree, format!("{name} {} and dest {message}", t.role));
            }
        }
    }

    /// DtypesAgree for cast (f32 -> f16 | bf16, f16 | bf16 -> f32) and for scale and add (one float dtype).
    fn check_elementwise_dtypes(&mut self, name: &str, tensors: &[crate::ops::TensorUse]) {
        let dtypes: Vec<&str> = tensors.iter().map(|t| t.tensor.dtype.as_str()).collect();
        if self.op.kind() == OpKind::Cast {
            if !matches!(dtypes.as_slice(), ["f32", "f16" | "bf16"] | ["f16" | "bf16", "f32"]) {
                self.fail(
                    Rule::DtypesAgree,
                    format!(
                        "cast converts f32 to f16 or bf16, or f16 or bf16 to f32, got {} to {}",
                        dtypes[0], dtypes[1]
                    ),
                );
            }
            return;
        }
        let first = dtypes[0];
        if !matches!(first, "f32" | "f16" | "bf16") || dtypes.iter().any(|d| *d != first) {
            self.fail(
                Rule::DtypesAgree,
                format!("{name} takes tensors of one dtype, f32, f16 or bf16, got {}", dtypes.join(", ")),
            );
        }
    }

    fn check_count(&mut self, name: &str) {
        match self.op.integer_attribute(name) {
            Some(Ok(v)) if v >= 1 => {}
            Some(Ok(v)) => self.fail(
                Rule::Counts,
                format!("{} {name} must be at least 1, got {v}", self.op.kind().name().trim_start_matches("axe.")),
            ),
            Some(Err(e)) => self.fail(Rule::Counts, e),
            None => {}
        }
    }
}

/// Why two tensors of one shape do not have the same layout map (LayoutsAgree), or `None` when they do (or a
/// layout does not parse or admit the shape: the type rules report that).
fn layouts_differ(a: &TensorType, b: &TensorType) -> Option<String> {
    let (LayoutSpec::Text(ta), LayoutSpec::Text(tb)) = (&a.layout, &b.layout) else { return None };
    if intern::canonical_text(ta).is_some_and(|c| Some(c) == intern::canonical_text(tb)) {
        return None;
    }
    let (la, lb) = (known_layout(a)?, known_layout(b)?);
    // Thread axes are one hardware: `32@tid` and `1@warpid` (and `reg` and `m`) are the same place, so the layouts
    // are compared in lanes and warps when both can be written so (axe_layout::threads).
    let in_warps = |l: &Layout| axe_layout::threads::to_hardware(l, axe_layout::threads::Grain::Warp).ok();
    if let (Some(ha), Some(hb)) = (in_warps(&la), in_warps(&lb)) {
        if matches!(axe_layout::canonicalize::equivalent(&ha, &hb, &a.shape), Ok(true)) {
            return None;
        }
    }
    match axe_layout::canonicalize::equivalent(&la, &lb, &a.shape) {
        Ok(true) => None,
        Ok(false) => {
            Some(format!("must have the same layout (each element in the same thread and register), got {la} and {lb}"))
        }
        Err(e) => Some(format!("layouts {la} and {lb} cannot be compared: {e}")),
    }
}

/// Known number of units a thread axis ranges over, when the hardware fixes it.
fn fixed_extent(axis: &str) -> Option<i64> {
    match axis {
        "laneid" => Some(32),
        "wid_in_wg" => Some(4),
        "tid_in_wg" => Some(128),
        _ => None,
    }
}

/// ThreadsInScope for one subset.
fn threads_in_scope(threads: &Threads, scope: ExecScope) -> Result<(), String> {
    let axis = Axis::named(&threads.axis).map_err(|e| format!("thread subset axis: {}", e.message))?;
    let AxisKind::Thread { unit, within } = axis.kind() else {
        return Err(format!("thread subset axis {axis} is not a thread axis"));
    };
    if unit >= scope || within > scope {
        return Err(format!(
            "thread subset must select units inside the {scope} scope, got {axis} ({unit}s within a {within})"
        ));
    }
    let (begin, end) = (threads.begin, threads.end);
    if begin < 0 || begin >= end {
        return Err(format!("thread subset range must satisfy 0 <= begin < end, got [{begin},{end})"));
    }
    if let Some(extent) = fixed_extent(axis.name()).filter(|&e| end > e) {
        return Err(format!("thread subset range [{begin},{end}) exceeds the {extent} values of {axis}"));
    }
    Ok(())
}

/// The storage behind a view's source.
enum Storage {
    Memref { mem: Option<MemScope>, element: String, elements: Option<i64> },
    Pointer { mem: Option<MemScope> },
    Tensor(TensorType),
    Other(String),
}

impl Storage {
    fn of(ty: Type) -> Storage {
        let text = ty.to_string();
        if let Ok(Some(tensor)) = intern::tensor_type(&text) {
            return Storage::Tensor(tensor);
        }
        if let Some(rest) = text.strip_prefix("!llvm.ptr") {
            let space = rest.trim_start_matches('<').trim_end_matches('>');
            let mem = match space {
                "" | "0" | "1" => Some(MemScope::Global),
                "3" | "7" => Some(MemScope::Shared),
                // A tensor-memory address (what --lower-mma and --lower-copy leave of a lowered tmem alloc).
                "6" => Some(MemScope::Tmem),
                _ => None,
            };
            return Storage::Pointer { mem };
        }
        if let Ok(memref) = MemRefType::try_from(ty) {
            use melior::ir::r#type::{DimSize, ShapedTypeLike};
            let mem = match memref.memory_space().map(|a| a.to_string()) {
                None => Some(MemScope::Global),
                Some(s) if s.starts_with("1 ") || s.starts_with("0 ") || s == "#gpu.address_space<global>" => {
                    Some(MemScope::Global)
                }
                Some(s) if s.starts_with("3 ") || s == "#gpu.address_space<workgroup>" => Some(MemScope::Shared),
                Some(s) if s == "#gpu.address_space<private>" => Some(MemScope::Reg),
                Some(_) => None,
            };
            let elements = (0..memref.rank()).try_fold(1i64, |acc, i| match memref.dim_size(i) {
                Ok(DimSize::Static(n)) => acc.checked_mul(i64::try_from(n).ok()?),
                _ => None,
            });
            return Storage::Memref { mem, element: memref.element().to_string(), elements };
        }
        Storage::Other(text)
    }

    fn describe(&self) -> String {
        match self {
            Storage::Memref { mem: Some(MemScope::Shared), .. } => "workgroup memref".to_string(),
            Storage::Memref { .. } => "memref".to_string(),
            Storage::Pointer { mem: Some(MemScope::Shared) } => "shared pointer".to_string(),
            Storage::Pointer { .. } => "pointer".to_string(),
            Storage::Tensor(t) => format!("{} tensor", t.mem),
            Storage::Other(text) => text.clone(),
        }
    }
}

/// L(x) as a sorted set of points with zero entries dropped.
fn from_eval(layout: &Layout, shape: &[i64], x: &[i64]) -> Result<Vec<Coord>, axe_layout::LayoutError> {
    let mut points: Vec<Coord> = layout
        .eval(shape, x)?
        .into_iter()
        .map(|mut p| {
            p.retain(|_, v| *v != 0);
            p
        })
        .collect();
    points.sort();
    points.dedup();
    Ok(points)
}

/// `{m:33}` / `{m:1, laneid:2}` text of a point set.
fn points_text(points: &[Coord]) -> String {
    let one = |p: &Coord| {
        let items: Vec<String> = p.iter().map(|(a, v)| format!("{a}:{v}")).collect();
        format!("{{{}}}", items.join(", "))
    };
    let all: Vec<String> = points.iter().map(one).collect();
    all.join(" ")
}
