//! `lower-collectives`: lower an `axe.copy` between distributed global tensors to device-initiated NVSHMEM calls
//! (paper section 3.2: "a copy might involve an all-gather or broadcast under the hood, implemented by NVSHMEM
//! primitives"; docs/distributed.md).
//!
//! **Which copies.** Every `axe.copy` the shared ownership rule gives this pass (`crate::ownership`: a copy
//! between two global tensors whose layouts name a device axis). The pass reads the module's mesh (`axe.mesh`,
//! `axe_dialect::mesh`), both tensors' layouts and shapes, asks `axe_layout::distributed::collective::plan`, and
//! translates the plan; it derives no layout fact: which rank sends which slice to which peer, at which source and
//! destination offsets, how many elements, and in which order, are the plan's.
//!
//! **What it emits**, before the copy, which it erases (all ops located at the copy):
//! - `%pe = llvm.call @nvshmem_my_pe()` (the NVSHMEM functions are declared as external `llvm.func`s), the calling rank (the mesh's row-major rank is the PE number in
//!   `NVSHMEM_TEAM_WORLD`), and an `scf.index_switch` on it with one case per rank of the mesh; the default case
//!   (a PE outside the mesh) is `llvm.intr.trap`;
//! - in rank `r`'s case, per step of the plan (its order: the local copy, then peers by ring distance), per slice
//!   and repetition `c < count`: `llvm.call @nvshmemx_putmem_nbi_block(dst + (dst_offset + c * dst_stride) * B,
//!   src + (src_offset + c * src_stride) * B, len * B, peer)` with `B` the element's bytes and `peer` the step's
//!   destination rank (a local `copy` step is a put to the rank itself); a slice repeated more than once is an
//!   `scf.for` over `c`. `nvshmemx_putmem_nbi_block` is called by every thread of the CTA with the same arguments
//!   (NVSHMEM's `_block` convention), so the copy's scope is `cta`, and everything the copy becomes runs under an
//!   `scf.if` on `block_id == (0, 0, 0)`: one CTA per PE (another would repeat the puts and double a reduction);
//! - after the switch, `nvshmem_quiet()` (this PE's puts are complete and visible) and
//!   `nvshmemx_barrier_all_block()` (every PE's puts into this PE's buffer are complete: the destination may be
//!   read after it).
//!
//! **Symmetric buffers.** A put writes the peer's buffer at the address the local buffer has in the symmetric
//! heap, so the destination of a plan with puts must be declared symmetric: a pointer kernel argument (`!llvm.ptr` or
//! `!llvm.ptr<1>`, what `nvshmem_malloc` returns; a memref would expand into several PTX parameters) with the
//! argument attribute `{axe.symmetric}`, viewed by `axe.view`; so must the source of a plan with gets (peers read
//! it). Other sources may be pointers or memrefs. The pass records what each rank must allocate with
//! `nvshmem_malloc` as the kernel attribute `axe.symmetric = [{arg = i, bytes = n, local_shapes = [array<i64:
//! ...>, ...]}]` (the argument's index in the kernel's signature; the plan's buffer size in bytes, the largest over
//! the copies using it; each rank's DTensor local shape, row-major over the mesh, when the buffer's layout is a
//! placement and every copy using it agrees, so a runtime can check the DTensor it is handed, absent otherwise);
//! it survives `--lower-to-nvvm`, and `axe-translate --emit=launch` prints it as the kernel's `symmetric` list.
//!
//! **Reductions.** `reduce = "sum" | "max"` on the copy: the source is Partial along its device replicas; the
//! plan's gets become `nvshmemx_getmem_block`, its copy / reduce / get-reduce steps CTA-strided element loops
//! (`nvshmem_uint{16,32,64}_g` for a peer's element), a `gpu.barrier` after each step, a
//! `nvshmemx_barrier_all_block` before the switch (docs/distributed.md, "Reductions").
//!
//! **Refusals**, at the copy, before anything changes (`collectives: <rule> rule: ...`): `mesh` (no or a
//! malformed `axe.mesh`), `scope` (not `cta`, or a `threads` subset), the planner's own rules (`collectives:
//! dst-alias rule: ...`, docs/distributed.md lists them), `reduce` (an op other than sum and max, or a source with no
//! device replica), `symmetric` (a put destination or get source not a symmetric pointer), `buffer` (a side that
//! is not a view of a kernel argument), `dtype` (an element type whose size, or whose reduction, is not known).
//!
//! ```mlir
//! axe.copy cta %in to %out : !shard to !replicated
//! // becomes, on rank 1 of an all-gather of 4 ranks (8 floats each)
//! llvm.call @nvshmemx_putmem_nbi_block(%dst_plus_32, %src, %c32, %c1) : (!llvm.ptr, !llvm.ptr, i64, i32) -> ()
//! llvm.call @nvshmemx_putmem_nbi_block(%dst_plus_32, %src, %c32, %c2) ...  // then peers 3 and 0
//! ```

mod emit;
#[cfg(test)]
mod model_tests;

use crate::glue::{external_pass_creating, PassId};
use crate::glue::{PassInfo, PassKind};
use crate::lowering::Run;
use crate::ownership::{self, Owner};
use axe_dialect::{access, mesh::enclosing_mesh, AxeOp, Element, TensorType};
use axe_layout::hw::ElemType;
use axe_layout::{
    distributed::{
        collective::{plan, CollectiveKind, CollectivePlan, StepOp},
        mesh::Mesh,
        placement::{DistLayout, Distribution, ReduceOp},
    },
    Axis, ExecScope,
};
use melior::ir::{
    attribute::{ArrayAttribute, DictionaryAttribute, StringAttribute},
    operation::OperationLike,
    OperationRef, Value, ValueLike,
};

/// `--lower-collectives` as `axe-opt` lists it: flag, summary, description, constructor (the registry's entry).
pub const PASS: PassInfo = PassInfo {
    flag: "lower-collectives",
    summary: "Lower axe.copy between distributed global tensors to NVSHMEM puts/gets (and reductions) planned from the layouts",
    description: "Input: a verified module declaring axe.mesh. Each axe.copy between global tensors\n\
whose layouts name device axes is planned by axe-layout's collective planner and becomes, per rank (an\n\
scf.index_switch on nvshmem_my_pe), nvshmemx_putmem_nbi_block calls, then nvshmem_quiet and\n\
nvshmemx_barrier_all_block; reduce = \"sum\"|\"max\" reduces a Partial source with gets. Put destinations and\n\
get sources must be pointer arguments marked {axe.symmetric}; the kernel records axe.symmetric = [{arg,\n\
bytes}]. Runs before --lower-to-nvvm.",
    kind: PassKind::Rust(create),
};

static ID: PassId = PassId::new();

/// The dialects whose ops the lowering builds.
const CREATES: &[&str] = &["arith", "llvm", "memref", "scf"];

/// The argument attribute that declares a kernel argument a symmetric-heap buffer.
pub const SYMMETRIC_ARGUMENT: &str = "axe.symmetric";
/// The kernel attribute listing what each rank allocates on the symmetric heap: `[{arg = i, bytes = n}]`.
pub const SYMMETRIC_ATTRIBUTE: &str = "axe.symmetric";

/// What one run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LowerCollectivesStats {
    /// Copies lowered.
    pub copies: usize,
    /// Slices of the plans' steps lowered (a call or an element loop each; repetitions count once).
    pub calls: usize,
}

/// One side of a planned copy: the kernel argument the tensor views.
pub(crate) struct Buffer<'c, 'a> {
    /// The argument (an `!llvm.ptr`, `!llvm.ptr<1>` or memref).
    pub(crate) value: Value<'c, 'a>,
    /// Its index in the kernel's signature.
    pub(crate) index: usize,
    /// Whether it carries `{axe.symmetric}`.
    pub(crate) symmetric: bool,
    /// Whether it is a pointer (one PTX parameter, so `axe.symmetric`'s index names it after lowering).
    pub(crate) pointer: bool,
}

/// One copy the planner accepted.
pub(crate) struct PlannedCollective<'c, 'a> {
    pub(crate) op: AxeOp<'c, 'a>,
    pub(crate) plan: CollectivePlan,
    /// Element size in bytes.
    pub(crate) bytes: i64,
    /// The element type, as MLIR prints it.
    pub(crate) dtype: String,
    /// Source, destination.
    pub(crate) sides: [Buffer<'c, 'a>; 2],
    /// The kernel (`gpu.func` or `func.func`) holding the copy.
    pub(crate) kernel: OperationRef<'c, 'a>,
    /// Lower the all-reduce with `multimem.ld_reduce` / `multimem.st` over NVLink multicast (`multimem`).
    pub(crate) multimem: bool,
    /// Source, destination: each rank's DTensor local shape (row-major over the mesh) when the side's layout is
    /// a placement (`Distribution::of_layout`), for the launch record's run-time checks.
    pub(crate) local_shapes: [Option<Vec<Vec<i64>>>; 2],
}

/// Lowers every copy `--lower-collectives` owns under `root`; on refusal reports each at its op and returns how
/// many were refused.
pub fn lower_collectives(root: OperationRef) -> Result<LowerCollectivesStats, usize> {
    let mut run = Run::begin(root, "collectives", CREATES)?;
    let planned = run.plan(|op| (ownership::owner(op) == Some(Owner::Collectives)).then(|| plan_collective(op)));
    run.rewrite(|_| emit::rewrite(root, &planned))
}

/// Plans one copy: mesh, scope, both sides' buffers, the planner, then what this pass lowers of the plan.
fn plan_collective<'c, 'a>(op: AxeOp<'c, 'a>) -> Result<PlannedCollective<'c, 'a>, String> {
    let operation = op.operation();
    let mesh: Mesh = match enclosing_mesh(operation) {
        Some(Ok(mesh)) => mesh,
        Some(Err(e)) => return Err(format!("collectives: mesh rule: {e}")),
        None => {
            return Err("collectives: mesh rule: a collective copy (layouts on device axes, or reduce) needs the \
                        module's axe.mesh, and none is declared"
                .to_string())
        }
    };
    match op.scope() {
        Some(Ok(ExecScope::Cta)) if op.threads().is_none() => {}
        Some(Ok(scope)) if op.threads().is_none() => {
            return Err(format!(
                "collectives: scope rule: a collective copy runs at cta scope (every thread of the one CTA calls \
                 the _block NVSHMEM functions), got {scope}"
            ))
        }
        _ => return Err("collectives: scope rule: a collective copy runs at cta scope without a threads subset".into()),
    }
    let (Some(src), Some(dst)) = (op.tensor("source"), op.tensor("dest")) else {
        return Err("collectives: internal: copy tensors do not read".to_string());
    };
    let bytes = src
        .dtype
        .number()
        .map(ElemType::bytes)
        .ok_or_else(|| format!("collectives: dtype rule: the size of element type {} is not known", src.dtype))?;
    let reduce = reduce_of(op)?;
    let mut source_layout = dist(&src, "source")?;
    if let Some(op) = reduce {
        // Partial over every mesh axis the source replicates over (`axe-layout collective-plan --reduce`'s default).
        let mut axes: Vec<Axis> =
            source_layout.layout.tile().replica().iter().map(|i| i.axis).filter(|a| a.is_device()).collect();
        axes.dedup();
        if axes.is_empty() {
            return Err(format!(
                "collectives: reduce rule: a {} reduction needs a source replicated over a device axis (its partial \
                 values), but the source layout {} has no device replica",
                op.name(),
                source_layout.layout
            ));
        }
        source_layout.partial = axes.into_iter().map(|a| (a, op)).collect();
        if arithmetic(&src.dtype.to_string()).is_none() {
            return Err(format!(
                "collectives: dtype rule: a {} reduction of {} elements is not lowered (f64, f32, f16, bf16, i64, i32)",
                op.name(),
                src.dtype
            ));
        }
    }
    let dest_layout = dist(&dst, "destination")?;
    let plan = plan(&mesh, &source_layout, &dest_layout).map_err(|e| format!("collectives: {}", e.message))?;
    let local_shapes = [&source_layout, &dest_layout]
        .map(|d| Distribution::of_layout(&mesh, d).ok().map(|read| read.local_shapes(&mesh, &d.shape)));
    let kernel = axe_dialect::ops::enclosing_function(operation)
        .ok_or("collectives: buffer rule: the copy is not inside a kernel")?;
    let source = buffer(op.operand(0), kernel, "source")?;
    let dest = buffer(op.operand(1), kernel, "destination")?;
    let steps = || plan.ranks.iter().flat_map(|r| &r.steps);
    let puts = steps().any(|s| s.op == StepOp::Put);
    let gets = steps().any(|s| matches!(s.op, StepOp::Get | StepOp::GetReduce));
    for (needed, side, buffer, how) in [
        (puts, "destination", &dest, "writes peers' destination buffers with puts"),
        (gets, "source", &source, "reads peers' source buffers with gets"),
    ] {
        if needed && !(buffer.pointer && buffer.symmetric) {
            return Err(format!(
                "collectives: symmetric rule: the {} {how}; the {side} (kernel argument {}) must be a pointer to \
                 the symmetric heap (!llvm.ptr or !llvm.ptr<1> from nvshmem_malloc) marked {{{SYMMETRIC_ARGUMENT}}}",
                plan.kind.name(),
                buffer.index
            ));
        }
    }
    let multimem = operation.has_attribute(MULTIMEM_ATTRIBUTE);
    if multimem {
        check_multimem(op, &plan, &mesh, &src.dtype, [&source, &dest])?;
    }
    Ok(PlannedCollective {
        op,
        plan,
        bytes,
        dtype: src.dtype.to_string(),
        sides: [source, dest],
        kernel,
        multimem,
        local_shapes,
    })
}

/// The `reduce = "sum" | "max"` attribute of the copy: the source's values along its device replicas are partial.
fn reduce_of(op: AxeOp) -> Result<Option<ReduceOp>, String> {
    let Ok(attribute) = op.operation().attribute("reduce") else { return Ok(None) };
    let name = StringAttribute::try_from(attribute).map(|s| s.value().to_string()).unwrap_or_default();
    ReduceOp::from_name(&name)
        .map(Some)
        .ok_or_else(|| format!("collectives: reduce rule: reduce must be \"sum\" or \"max\", got {attribute}"))
}

/// The unit attribute on an all-reduce `axe.copy` that asks for NVLink multicast (`multimem`) instead of gets.
pub const MULTIMEM_ATTRIBUTE: &str = "multimem";

/// What the `multimem` lowering needs (rule `multimem`): a sum all-reduce of f32 over every rank of the mesh (the
/// multicast team is `NVSHMEM_TEAM_WORLD`), sm_90 or later, symmetric pointers on both sides, and a plan in which
/// every step of every rank moves the same slices (so `dst[e] = sum over ranks of src[e]` at the plan's offsets,
/// which one `multimem.ld_reduce` per element computes).
fn check_multimem(
    op: AxeOp,
    plan: &CollectivePlan,
    mesh: &Mesh,
    dtype: &Element,
    sides: [&Buffer; 2],
) -> Result<(), String> {
    let refuse = |why: String| Err(format!("collectives: multimem rule: {why}"));
    if plan.kind != CollectiveKind::AllReduce || plan.reduce != Some(ReduceOp::Sum) {
        return refuse(format!("multimem lowers a sum all-reduce, got a {} plan", plan.kind.name()));
    }
    if let Some(axis) = mesh.axes().iter().find(|a| a.extent > 1 && !plan.partial_axes.contains(&a.axis)) {
        return refuse(format!(
            "the multicast group is every PE (NVSHMEM_TEAM_WORLD), but the reduction is not over mesh axis {}",
            axis.name
        ));
    }
    if !dtype.is(ElemType::F32) {
        return refuse(format!("multimem.ld_reduce .add is lowered for f32, got {dtype}"));
    }
    if let Some(name) = crate::ir::target::target_name(op.operation()) {
        if !matches!(name.as_str(), "sm_90a" | "sm_90" | "sm_100a") {
            return refuse(format!("multimem needs sm_90 or later, the target is {name}"));
        }
    }
    for (side, buffer) in ["source", "destination"].iter().zip(sides) {
        if !(buffer.pointer && buffer.symmetric) {
            return refuse(format!(
                "the {side} (kernel argument {}) must be a symmetric pointer marked {{{SYMMETRIC_ARGUMENT}}}: \
                 multimem addresses every PE's copy of it",
                buffer.index
            ));
        }
    }
    let slices = |r: usize| plan.ranks.get(r).into_iter().flat_map(|rank| rank.steps.iter().map(|s| &s.slices));
    let first = slices(0).next();
    if first.is_none() || (0..plan.ranks.len()).flat_map(slices).any(|s| Some(s) != first) {
        return refuse("the plan's steps do not all move the same slices".to_string());
    }
    Ok(())
}

/// How elements of `dtype` are combined: `Some(true)` float, `Some(false)` integer, `None` not lowered.
pub(crate) fn arithmetic(dtype: &str) -> Option<bool> {
    match dtype {
        "f64" | "f32" | "f16" | "bf16" => Some(true),
        "i64" | "i32" => Some(false),
        _ => None,
    }
}

/// The distributed layout of one side (padded shape = shape: the tensor type's shape is what the layout admits).
fn dist(tensor: &TensorType, side: &str) -> Result<DistLayout, String> {
    let layout = match tensor.layout.parse() {
        Some(Ok(layout)) => layout,
        _ => return Err(format!("collectives: layout rule: the {side} layout is not known")),
    };
    DistLayout::new(layout, tensor.shape.clone(), tensor.shape.clone(), Vec::new())
        .map_err(|e| format!("collectives: {side}: {}", e.message))
}

/// The kernel argument an `axe.view` operand views, and whether it is declared symmetric.
fn buffer<'c, 'a>(
    value: Option<Value<'c, 'a>>,
    kernel: OperationRef<'c, 'a>,
    side: &str,
) -> Result<Buffer<'c, 'a>, String> {
    let refuse = || {
        format!(
            "collectives: buffer rule: the {side} must be an axe.view of a kernel argument (a global !llvm.ptr or \
             memref)"
        )
    };
    let view = value.and_then(access::defining_op).ok_or_else(refuse)?;
    if view.name().as_string_ref().as_str() != Ok("axe.view") {
        return Err(refuse());
    }
    let viewed = access::operand(view, 0).ok_or_else(refuse)?;
    let argument = access::as_argument(viewed).ok_or_else(refuse)?;
    let entry = access::entry_block(kernel).ok_or_else(refuse)?;
    if argument.owner() != entry {
        return Err(refuse());
    }
    let index = argument.argument_number();
    let ty = viewed.r#type().to_string();
    if !(ty.starts_with("memref<") || ty == "!llvm.ptr" || ty == "!llvm.ptr<1>") {
        return Err(format!(
            "collectives: buffer rule: the {side} views kernel argument {index} of type {ty}; expected a memref, \
             !llvm.ptr or !llvm.ptr<1>"
        ));
    }
    let symmetric = kernel
        .attribute("arg_attrs")
        .ok()
        .and_then(|a| ArrayAttribute::try_from(a).ok())
        .and_then(|array| (index < array.len()).then(|| array.element(index).ok()).flatten())
        .and_then(|a| DictionaryAttribute::try_from(a).ok())
        .is_some_and(|d| d.element_by_name(SYMMETRIC_ARGUMENT).is_some());
    Ok(Buffer { value: viewed, index, symmetric, pointer: ty.starts_with("!llvm.ptr") })
}

/// The pass for the pass manager.
pub fn create() -> melior::pass::Pass {
    external_pass_creating(&ID, "LowerCollectives", &PASS, CREATES, |op| lower_collectives(op).is_ok())
}
