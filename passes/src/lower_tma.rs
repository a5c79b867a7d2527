//! `lower-tma`: lower CTA-scope copies between global and shared tensors to TMA (paper section 3.4).
//!
//! For each `axe.copy_async` and `axe.copy` at `cta` scope whose tensors are a global region and a shared region
//! (either direction) and that the shared ownership rule gives to TMA (`crate::ownership`: no chip named, or a
//! chip with TMA and a copy this planner accepts; the others are `--lower-copy`'s), the pass reads both tensors'
//! root layouts, shapes and regions through their `axe.slice` chains (typed views of `axe-dialect`), asks
//! `axe_layout::tma::plan` for the descriptor and the issues, and translates the plan into IR. It derives no
//! layout fact itself: box, dtype promotion, strides, coordinates, byte offsets and counts are the planner's. A
//! refusal is an error at the copy naming the planner's stage or rule with the numbers, and the pass fails before
//! changing anything.
//!
//! Emitted (every descriptor field explicit in the IR):
//! - host, before each `gpu.launch_func` of the kernel: `axe.tma_descriptor` on the global memref with
//!   `data_type, rank, global_dims, global_strides_bytes, box_dims, element_strides, interleave, swizzle,
//!   l2_promotion, oob_fill, global_offset_bytes`; it replaces the launch operand, and the kernel argument becomes
//!   `!llvm.ptr` carrying the same fields as its `axe.tma_descriptor` attribute (the record that remains when the
//!   module has no launch), cast to `!nvgpu.tensormap.descriptor` inside the kernel (toolchain.md:
//!   descriptor-typed `gpu.func` arguments do not lower);
//! - device: `axe.alloc` in shared memory becomes a `memref.global` aligned to the planner's
//!   `shared_base_alignment_bytes`; `axe.mbarrier_*` become nvgpu mbarrier ops (init by one thread,
//!   warp 0's `elect.sync` lane, then `fence.mbarrier_init` and a CTA barrier so the async proxy and every thread see it); a load becomes, on one
//!   elected thread, `mbarrier.arrive.expect_tx` with the plan's total bytes (none when announced, see below) and
//!   one `nvgpu.tma.async.load` per
//!   issue (coordinates below, `memref.view` at the issue's byte offset); a store becomes
//!   `fence.proxy.async.shared::cta` and a CTA barrier (generic-proxy writes become visible to the TMA unit), then
//!   one `nvgpu.tma.async.store` per issue, `cp.async.bulk.commit_group` and `wait_group.read 0` (shared memory
//!   is reusable when the op returns). A synchronous `axe.copy` load gets its own barrier, initialized at kernel
//!   entry, with its phase in a local; a synchronous store waits for the writes and ends with a CTA barrier.
//!
//! Before anything is rewritten, the barrier protocol is checked (`crate::barrier_check`: init before use,
//! waits that can complete, expect_tx bytes against the plans); a load that an explicit
//! `axe.mbarrier_arrive_expect_tx` announces emits no `arrive.expect_tx` of its own.
//!
//! Run-time coordinates: an `axe.slice` offset on the global side that is an SSA value (a loop variable, a block
//! id times a tile) is a run-time offset of the region (a constant one folds into the static part). Its known
//! multiple comes from the IR (`lower_tma/multiple.rs`: constants, `scf.for` steps, `muli`/`addi`/`shli`), the
//! planner (`axe_layout::tma::plan_dynamic`) plans the region at offsets 0 and states each coordinate's run-time
//! terms `scale * (offset / divisor)`, or refuses an offset that would not move whole steps of one coordinate
//! (`dynamic-offset` rule, e.g. mid-panel in a tiled global layout); each coordinate is then the issue's constant
//! plus those terms as `arith.divsi`/`muli`/`addi` on the offsets, inside the leader's guard. Shared-side offsets
//! may move too (below).
//!
//! Run-time shared offsets: a shared slice offset that is an SSA value (a ring's stage, `k % N`) is planned by
//! `axe_layout::tma::plan_offsets`, which states each issue's shared byte offset as its constant plus terms
//! `bytes * (offset / divisor)` or refuses an offset that would move anything but whole stages on the swizzle
//! period (`shared-offset` rule); the `memref.view` of each box takes that sum as its byte offset (`arith` inside
//! the leader's guard). That the stage lies inside the ring is the kernel's run-time precondition.
//!
//! Cluster multicast: a load into an `axe.alloc` whose layout is replicated over the cluster's CTA axes
//! (`S[...] + R[2:1@cbx]`) is planned by `axe_layout::tma::plan_multicast` with the cluster shape of the kernel's
//! `known_cluster_size`; after a cluster barrier (`nvvm.cluster.arrive` / `wait`: every CTA's mbarrier is
//! initialized before another CTA's TMA signals it), each CTA's leader announces the whole tile's bytes on its own
//! barrier, and each issue is issued by the CTA the plan names (`%cluster_ctarank` compared) with the plan's
//! `multicast_mask`.
//!
//! Not done: thread subsets, shared tensors that are views of memrefs (only `axe.alloc`),
//! several different descriptors on one kernel argument, multicast stores (the hardware has none).
//!
//! Invariants needed: the module verifies (axe-opt verifies after parsing); global tensors are views of
//! `gpu.func` kernel arguments used only by the lowered copies. Ensured: no axe copy, mbarrier op or shared
//! alloc used by a copy is left; the output is deterministic (IR order, counters per run).
//!
//! ```mlir
//! "axe.copy_async"(%g, %s, %bar) {scope = #axe.exec<"cta">} : (!global, !smem_swizzled, !axe.mbarrier) -> ()
//! // becomes
//! scf.if %leader {
//!   nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %c16384 : !barrier
//!   %box = memref.view %smem[%c0][] : memref<16384xi8, 3> to memref<128x64xf16, 3>
//!   nvgpu.tma.async.load %desc[%c0, %c0], %bar[%c0] to %box : !desc, !barrier -> memref<128x64xf16, 3>
//! }
//! ```

pub(crate) mod build;
mod emit;
mod host;
pub(crate) mod multiple;
mod trace;

use crate::{
    barrier_check,
    glue::{external_pass_creating, PassId},
    ownership::{self, Owner},
};
use axe_dialect::{
    access::{self, OpKey},
    ffi,
    ops::walk_preorder,
    types::{parse_i64_array, LayoutSpec},
    AxeOp, MemScope, OpKind,
};
use axe_layout::{
    tma::{
        plan_extents, plan_multicast, plan_offsets, Cluster, Direction, DynamicOffset, ElemType, Extent, ExtentRequest,
        TmaOptions, TmaPlan, TmaRequest,
    },
    ExecScope,
};
use melior::ir::{operation::OperationLike, OperationRef, Value};
use std::collections::HashMap;
use trace::{trace, Storage, Traced};

/// The pass's flag.
pub const FLAG: &str = "lower-tma";
/// One-line summary for `--help`.
pub const SUMMARY: &str = "Lower CTA-scope global<->shared copies to TMA descriptors and cp.async.bulk.tensor";
/// Longer description.
pub const DESCRIPTION: &str = "Input: a verified module whose kernels copy between global tensors (views of kernel\n\
arguments) and shared allocs. Each copy is planned by axe-layout's TMA planner; a refusal is an error\n\
at the copy naming the stage or rule. Output: axe.tma_descriptor on the host at each launch, nvgpu\n\
mbarrier and TMA ops in the kernel. Runs after --axe-slice, before --lower-to-nvvm.";

static ID: PassId = PassId::new();

/// The dialects whose ops the lowering builds.
const CREATES: &[&str] = &["arith", "gpu", "llvm", "memref", "nvgpu", "nvvm", "scf"];

/// What one run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LowerTmaStats {
    /// Copies lowered.
    pub copies: usize,
    /// TMA instructions emitted (one per planned issue).
    pub issues: usize,
    /// Kernel arguments turned into descriptors.
    pub descriptors: usize,
}

/// One copy the planner accepted, with where its tensors live.
pub(crate) struct PlannedCopy<'c, 'a> {
    /// The `axe.copy` or `axe.copy_async`.
    op: AxeOp<'c, 'a>,
    /// The planner's answer.
    plan: TmaPlan,
    /// The global side: the kernel and the argument index of its storage.
    global: (OperationRef<'c, 'a>, usize),
    /// The shared side: the `axe.alloc`.
    shared: AxeOp<'c, 'a>,
    /// An `axe.mbarrier_arrive_expect_tx` announces this load's bytes: it does not arrive on its barrier itself.
    announced: bool,
    /// The run-time offsets of the global region, in the order of the plan's `DynamicOffset`s.
    offsets: Vec<Value<'c, 'a>>,
    /// The run-time offsets of the shared region (a ring's stage), in the order of the plan's shared offsets.
    shared_offsets: Vec<Value<'c, 'a>>,
    /// For a run-time-sized global tensor (`#axe.row_major`): `globalDim` and `globalStrides` as expressions of
    /// the kernel's arguments (`arg5 * 2`); the plan's own dims and strides are a stand-in instance's.
    runtime: Option<RuntimeFields>,
    /// A multicast load (the shared alloc replicated over the cluster's CTA axes): its mask and issuers.
    multicast: Option<Multicast>,
}

/// The cluster part of a multicast load (`axe_layout::tma::plan_multicast`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Multicast {
    /// `ctaMask`: bit `r` for every receiving CTA of `%cluster_ctarank` r.
    mask: u16,
    /// Per issue of the plan: the `%cluster_ctarank` that issues it.
    issuer: Vec<u32>,
}

/// The descriptor fields of a run-time-sized tensor that the host computes from kernel arguments at launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RuntimeFields {
    /// `globalDim`, innermost first.
    global_dims: Vec<String>,
    /// `globalStrides` in bytes.
    global_strides_bytes: Vec<String>,
    /// What the launch must guarantee for the map to be valid and the plan to hold (`arg5 % 16 == 0`, the
    /// driver's `globalDim <= 2^32` and stride `< 2^40` limits on the expressions).
    preconditions: Vec<String>,
}

/// Lowers every TMA copy under `root`; on refusal reports each at its op and returns how many were refused.
pub fn lower_tma(root: OperationRef) -> Result<LowerTmaStats, usize> {
    let missing = ffi::load_dialects(root, CREATES);
    if !missing.is_empty() {
        ffi::emit_error(root.location(), &format!("tma: internal: dialects {missing:?} are not registered"));
        return Err(1);
    }
    let mut ops = Vec::new();
    walk_preorder(root, &mut |op| ops.extend(AxeOp::new(op)));
    let (mut copies, mut failed) = (Vec::new(), 0);
    // Only the copies the shared ownership rule gives to TMA; the rest are --lower-copy's or --lower-mma's.
    for op in ops.iter().filter(|op| ownership::owner(**op) == Some(Owner::Tma)) {
        match plan_copy(*op) {
            Ok(copy) => copies.push(copy),
            Err(message) => {
                failed += 1;
                ffi::emit_error(op.operation().location(), &message);
            }
        }
    }
    // The barrier protocol, with each planned load's bytes (a refused copy's bytes are unknown).
    let bytes: HashMap<OpKey, u64> =
        copies.iter().map(|copy| (access::key(copy.op.operation()), copy.plan.total_bytes())).collect();
    match barrier_check::check(root, &|op| bytes.get(&access::key(op.operation())).copied()) {
        Ok(protocol) => {
            for copy in &mut copies {
                copy.announced = protocol.is_announced(copy.op.operation());
            }
        }
        Err(errors) => failed += errors,
    }
    if failed == 0 {
        failed += emit::check_descriptors_agree(&copies);
    }
    if failed > 0 {
        return Err(failed);
    }
    emit::rewrite(root, &ops, &copies).map_err(|(location, message)| {
        ffi::emit_error(location, &message);
        1
    })
}

/// The refusal of a shared tensor that is not an `axe.alloc` (a view, or an alloc another pass lowered first).
const SHARED_STORAGE: &str = "tma: shared tensor must come from axe.alloc (views of shared memrefs are not supported)";

/// True when TMA takes `op` (what `ownership::owner` asks on chips with TMA): [`plan_copy`] accepts it, or refuses
/// only its shared storage, which depends on the order the passes run in (the copy stays TMA's and is refused
/// here, rather than becoming a cp.async when another pass lowered the alloc first).
pub(crate) fn accepts(op: AxeOp) -> bool {
    match plan_copy(op) {
        Ok(_) => true,
        Err(message) => message == SHARED_STORAGE,
    }
}

/// Plans one copy: scope, memory scopes, dtype, the two traced regions, then `axe_layout::tma::plan`.
fn plan_copy<'c, 'a>(op: AxeOp<'c, 'a>) -> Result<PlannedCopy<'c, 'a>, String> {
    let name = op.kind().name();
    match op.scope() {
        // Cluster scope: a multicast load (checked against the shared layout in `plan_regions`).
        Some(Ok(ExecScope::Cta | ExecScope::Cluster)) => {}
        Some(Ok(other)) => return Err(format!("tma: {name} must run at cta scope, got {}", other.name())),
        Some(Err(e)) => return Err(format!("tma: {e}")),
        None => return Err(format!("tma: {name} must have a scope")),
    }
    if op.threads().is_some() {
        return Err(format!("tma: {name} with a thread subset is not supported, run it on the whole cta"));
    }
    let (Some(source), Some(dest)) = (op.operand(0), op.operand(1)) else {
        return Err(format!("tma: {name} must have source and dest tensors"));
    };
    let (source, dest) = (trace(op, source)?, trace(op, dest)?);
    let (global, shared, direction) = match (source.tensor.mem, dest.tensor.mem) {
        (MemScope::Global, MemScope::Shared) => (source, dest, Direction::G2S),
        (MemScope::Shared, MemScope::Global) => (dest, source, Direction::S2G),
        (from, to) => {
            return Err(format!("tma: {name} must copy between global and shared memory, got {from} to {to}"))
        }
    };
    if global.tensor.dtype != shared.tensor.dtype {
        return Err(format!(
            "tma: dtype: {name} source and dest dtypes must agree, got {} and {}",
            global.tensor.dtype, shared.tensor.dtype
        ));
    }
    let dtype = ElemType::from_name(&global.tensor.dtype)
        .ok_or_else(|| format!("tma: dtype: TMA copies 1, 2, 4 or 8-byte numbers, got {}", global.tensor.dtype))?;
    let (plan, runtime, multicast) = if global.tensor.layout == LayoutSpec::RowMajor {
        let (plan, fields) = plan_runtime(op, &global, &shared, dtype, direction)?;
        (plan, Some(fields), None)
    } else {
        let (plan, multicast) = plan_regions(op, &global, &shared, dtype, direction)?;
        (plan, None, multicast)
    };
    // The planner may pad swizzled box rows narrower than the span (the hardware does, boxDim[0] * elemsize <= span);
    // nvgpu's tensormap descriptor type accepts only rows of exactly the span, so such plans are not lowered here.
    let desc = &plan.desc;
    let row_bytes = i64::from(desc.box_dims.first().copied().unwrap_or(0)) * desc.data_type.bytes();
    if desc.swizzle != axe_layout::SwizzleMode::None && row_bytes != desc.swizzle.bytes() {
        return Err(format!(
            "tma: inner-box-bytes rule: the plan's box rows are {row_bytes} bytes, padded by the hardware to the {} \
             swizzle span of {} bytes; nvgpu's tensormap descriptor accepts only rows of exactly the span, so this \
             lowering does not emit it (axe-layout tma-plan shows the plan)",
            desc.swizzle.name(),
            desc.swizzle.bytes()
        ));
    }
    if let Some(barrier) = op.operand(2) {
        let from_alloc = access::defining_op(barrier)
            .and_then(AxeOp::new)
            .is_some_and(|alloc| alloc.kind() == OpKind::MbarrierAlloc);
        if !from_alloc {
            return Err("tma: the completion barrier must come from axe.mbarrier_alloc".to_string());
        }
    }
    let kernel_arg = match global.storage {
        Storage::KernelArgument(kernel, index) => (kernel, index),
        _ => return Err("tma: global tensor must be a view of a gpu.func kernel argument".to_string()),
    };
    let Storage::Alloc(alloc) = shared.storage else {
        return Err(SHARED_STORAGE.to_string());
    };
    let offsets = global.dynamic.iter().map(|&(_, value)| value).collect();
    let shared_offsets = shared.dynamic.iter().map(|&(_, value)| value).collect();
    Ok(PlannedCopy {
        op,
        plan,
        global: kernel_arg,
        shared: alloc,
        announced: false,
        offsets,
        shared_offsets,
        runtime,
        multicast,
    })
}

/// The bytes a TMA copy delivers (the plan's total), when the planner accepts it.
pub(crate) fn planned_bytes(op: AxeOp) -> Option<u64> {
    plan_copy(op).ok().map(|copy| copy.plan.total_bytes())
}

/// The planner's call on the two traced regions, with both sides' run-time offsets and their multiples; a shared
/// layout over the cluster's CTA axes is a multicast load (`plan_multicast`, the cluster shape from the kernel's
/// `known_cluster_size`).
fn plan_regions(
    op: AxeOp,
    global: &Traced,
    shared: &Traced,
    dtype: ElemType,
    direction: Direction,
) -> Result<(TmaPlan, Option<Multicast>), String> {
    let (dynamic, shared_dynamic) = (dynamic_offsets(global), dynamic_offsets(shared));
    let (global_layout, shared_layout) = (global.layout()?, shared.layout()?);
    let request = TmaRequest {
        global: &global_layout,
        global_shape: &global.tensor.shape,
        global_region: &global.region,
        shared: &shared_layout,
        shared_shape: &shared.tensor.shape,
        shared_region: &shared.region,
        dtype,
        direction,
        options: TmaOptions::default(),
    };
    let cluster_scope = matches!(op.scope(), Some(Ok(ExecScope::Cluster)));
    if !on_cluster_ctas(&shared_layout) {
        if cluster_scope {
            return Err(format!(
                "tma: {} at cluster scope must load into a shared tile replicated over the cluster's CTAs (a \
                 multicast); a copy into one CTA's shared memory runs at cta scope",
                op.kind().name()
            ));
        }
        return plan_offsets(&request, &dynamic, &shared_dynamic).map(|p| (p, None)).map_err(|e| e.to_string());
    }
    if !cluster_scope {
        return Err(format!(
            "tma: multicast rule: the shared tile is replicated over the cluster's CTAs, so {} must run at cluster \
             scope (every CTA of the cluster takes part)",
            op.kind().name()
        ));
    }
    let cluster = known_cluster_size(op)?;
    let m = plan_multicast(&request, &dynamic, &shared_dynamic, cluster).map_err(|e| e.to_string())?;
    Ok((m.plan, Some(Multicast { mask: m.cta_mask, issuer: m.issuer })))
}

/// True when a layout names a cluster's CTA axes (`cbx`, `cby`, `cbz`): the tile is held by several CTAs.
fn on_cluster_ctas(layout: &axe_layout::Layout) -> bool {
    let tile = layout.tile();
    let cta = |a: axe_layout::Axis| {
        matches!(a.kind(), axe_layout::AxisKind::Thread { unit: ExecScope::Cta, within: ExecScope::Cluster })
    };
    tile.shard().iter().chain(tile.replica()).any(|i| cta(i.axis)) || tile.offset().keys().any(|a| cta(*a))
}

/// The cluster shape of the kernel around `op`: its `known_cluster_size` (`array<i32: x, y, z>`).
fn known_cluster_size(op: AxeOp) -> Result<Cluster, String> {
    let missing = || {
        "tma: multicast rule: the shared tensor is replicated over the cluster's CTAs; the kernel needs \
         known_cluster_size = array<i32: x, y, z> to place them"
            .to_string()
    };
    let kernel = axe_dialect::ops::enclosing_function(op.operation()).ok_or_else(missing)?;
    let text = kernel.attribute("known_cluster_size").map_err(|_| missing())?.to_string();
    let inner = text.trim().strip_prefix("array<i32:").and_then(|t| t.strip_suffix('>')).ok_or_else(missing)?;
    let dims: Vec<i64> =
        inner.split(',').map(|d| d.trim().parse::<i64>()).collect::<Result<_, _>>().map_err(|_| missing())?;
    let [x, y, z] = dims[..] else {
        return Err(missing());
    };
    Ok(Cluster { dims: [x, y, z] })
}

/// The run-time offsets of a traced side, with the multiples the IR shows.
fn dynamic_offsets(traced: &Traced) -> Vec<DynamicOffset> {
    traced
        .dynamic
        .iter()
        .map(|&(dim, value)| DynamicOffset { dim, multiple: multiple::known_multiple(value) })
        .collect()
}

/// Plans a copy of a run-time-sized global tensor (`#axe.row_major` view with extent operands) with
/// `axe_layout::tma::plan_extents`: every extent must be a kernel argument (the host encodes the map at launch),
/// and the view's `multiples` are what the planner may assume (docs/dialect.md, "Run-time sizes").
fn plan_runtime(
    op: AxeOp,
    global: &Traced,
    shared: &Traced,
    dtype: ElemType,
    direction: Direction,
) -> Result<(TmaPlan, RuntimeFields), String> {
    let view = global.root;
    let shape = &global.tensor.shape;
    let multiples = match view.attribute_text("multiples") {
        Some(text) => parse_i64_array(&text).map_err(|e| format!("tma: view multiples {e}"))?,
        None => vec![1; shape.len()],
    };
    let (mut extents, mut names, mut preconditions, mut operand) = (Vec::new(), Vec::new(), Vec::new(), 1);
    for (d, &extent) in shape.iter().enumerate() {
        let multiple = multiples.get(d).copied().unwrap_or(1);
        if extent != axe_dialect::ops::DYNAMIC {
            extents.push(Extent { value: Some(extent), multiple });
            names.push(extent.to_string());
            continue;
        }
        let value = view.operand(operand).ok_or("tma: the view lacks an extent operand")?;
        operand += 1;
        let trace::Storage::KernelArgument(_, index) = trace::kernel_argument(op, value) else {
            return Err(format!(
                "tma: dynamic-extent rule: the run-time extent of dimension {d} must be a kernel argument (the host \
                 encodes the tensor map from it at launch)"
            ));
        };
        extents.push(Extent { value: None, multiple });
        names.push(format!("arg{index}"));
        preconditions.push(format!("arg{index} >= 1"));
        if multiple > 1 {
            preconditions.push(format!("arg{index} % {multiple} == 0"));
        }
    }
    let request = ExtentRequest {
        extents: &extents,
        global_region: &global.region,
        shared: &shared.layout()?,
        shared_shape: &shared.tensor.shape,
        shared_region: &shared.region,
        dtype,
        direction,
        options: TmaOptions::default(),
    };
    let planned = plan_extents(&request, &dynamic_offsets(global), &dynamic_offsets(shared)).map_err(|e| {
        let named: Vec<String> = names.iter().enumerate().map(|(d, name)| format!("d{d} = {name}")).collect();
        format!("{e} ({})", named.join(", "))
    })?;
    let text = |exprs: &[axe_layout::tma::ExtentExpr]| exprs.iter().map(|e| e.text(&names)).collect();
    let (global_dims, global_strides_bytes): (Vec<String>, Vec<String>) =
        (text(&planned.global_dims), text(&planned.global_strides_bytes));
    // cuTensorMapEncodeTiled's magnitude rules, which only the launch can check.
    preconditions.extend(global_dims.iter().filter(|d| d.contains("arg")).map(|d| format!("{d} <= 4294967296")));
    preconditions
        .extend(global_strides_bytes.iter().filter(|s| s.contains("arg")).map(|s| format!("{s} < 1099511627776")));
    let fields = RuntimeFields { global_dims, global_strides_bytes, preconditions };
    Ok((planned.plan, fields))
}

/// The melior pass behind `--lower-tma`.
pub fn create() -> melior::pass::Pass {
    external_pass_creating(&ID, "LowerTma", FLAG, SUMMARY, CREATES, |operation| lower_tma(operation).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = include_str!("../../examples/tma_copy.mlir");

    /// Runs the pass on `source`: its result, the printed module and the diagnostics.
    fn check(source: &str) -> (Result<LowerTmaStats, usize>, String, Vec<String>) {
        crate::testing::run_pass(source, lower_tma)
    }

    #[test]
    fn lowers_the_example_deterministically() {
        let (result, printed, _) = check(EXAMPLE);
        assert_eq!(result, Ok(LowerTmaStats { copies: 2, issues: 2, descriptors: 2 }));
        assert_eq!(printed.matches("\"axe.tma_descriptor\"").count(), 2, "{printed}");
        assert_eq!(printed.matches("nvgpu.tma.async.load").count(), 1, "{printed}");
        assert_eq!(printed.matches("nvgpu.tma.async.store").count(), 1, "{printed}");
        assert!(printed.contains("box_dims = array<i64: 64, 128>"), "{printed}");
        assert!(printed.contains("{alignment = 1024 : i64}"), "{printed}");
        assert!(!printed.contains("axe.copy") && !printed.contains("axe.mbarrier"), "{printed}");
        assert_eq!(check(EXAMPLE).1, printed);
    }

    #[test]
    fn a_refusal_changes_nothing_and_names_the_rule() {
        let source = EXAMPLE.replace("Swizzle(3,3,3) o S[(128,64):(64,1)]", "Swizzle(2,3,3) o S[(128,64):(64,1)]");
        let (result, printed, messages) = check(&source);
        assert_eq!(result, Err(2));
        assert!(messages.iter().all(|m| m.starts_with("tma: shared-swizzle stage:")), "{messages:?}");
        assert!(printed.contains("axe.copy_async") && !printed.contains("nvgpu"), "{printed}");
    }
}
