//! Reading a TMA copy out of the IR into the TMA planner's request, and its answer (paper section 3.4): the part of
//! `--lower-tma` that decides, shared by the ownership rule (`crate::ownership`: does TMA take this copy?), the
//! barrier protocol (`crate::barrier_check`: how many bytes does this load deliver?) and the pass driver.
//!
//! [`plan`] checks the op (scope, operands, memories, dtype, the completion barrier, where the storage comes from),
//! traces both tensors through their `axe.slice` chains to their roots ([`trace`]) and asks `axe_layout::tma` for
//! the plan: `plan_offsets` for fixed-size tensors (run-time slice offsets with the multiples the IR shows,
//! `crate::ir::multiple`), `plan_multicast` for a shared tile replicated over the cluster's CTAs, `plan_extents`
//! for run-time-sized `row_major` views (extents that are kernel arguments, with the launch's preconditions).
//! A refusal is a [`Refusal`]: the [`Rule`] it breaks and the message, with the numbers. Nothing here changes IR.

pub(crate) mod trace;

use axe_dialect::types::LayoutSpec;
use axe_dialect::{access, types::parse_i64_array, AxeOp, OpKind};
use axe_layout::hw::Memory;
use axe_layout::{
    hw::expr::{Cmp, Expr, Precondition},
    tma::{
        plan_extents, plan_multicast, plan_offsets, Cluster, Direction, DynamicOffset, ElemType, Extent, ExtentRequest,
        TmaOptions, TmaPlan, TmaRequest,
    },
    ExecScope,
};
use melior::ir::{operation::OperationLike, OperationRef, Value};
use trace::{trace, Backing, RootRegion};

/// The rule a refused copy breaks, for the callers that act on it (the message says it to the user).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rule {
    /// The op: its scope, thread subset, operands, memories, dtype or completion barrier.
    Op,
    /// The global tensor is not a view of a kernel argument.
    GlobalStorage,
    /// The shared tensor is not an `axe.alloc` (a view, or an alloc another pass lowered first): the copy is still
    /// TMA's, refused here, rather than a `cp.async` whose choice would depend on the order passes run in.
    SharedStorage,
    /// The planner (`axe_layout::tma`) or this lowering's limits on its plan.
    Plan,
}

/// Why TMA does not take a copy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Refusal {
    /// The rule.
    pub(crate) rule: Rule,
    /// What the user reads: `tma: <stage or rule>: ...` with the numbers.
    pub(crate) message: String,
}

impl Refusal {
    fn op(message: String) -> Refusal {
        Refusal { rule: Rule::Op, message }
    }

    fn plan(message: String) -> Refusal {
        Refusal { rule: Rule::Plan, message }
    }
}

/// One copy the planner accepted, with where its tensors live.
pub(crate) struct PlannedCopy<'c, 'a> {
    /// The `axe.copy` or `axe.copy_async`.
    pub(crate) op: AxeOp<'c, 'a>,
    /// The planner's answer.
    pub(crate) plan: TmaPlan,
    /// The global side: the kernel and the argument index of its storage.
    pub(crate) global: (OperationRef<'c, 'a>, usize),
    /// The shared side: the `axe.alloc`.
    pub(crate) shared: AxeOp<'c, 'a>,
    /// An `axe.mbarrier_arrive_expect_tx` announces this load's bytes: it does not arrive on its barrier itself.
    pub(crate) announced: bool,
    /// The run-time offsets of the global region, in the order of the plan's `DynamicOffset`s.
    pub(crate) offsets: Vec<Value<'c, 'a>>,
    /// The run-time offsets of the shared region (a ring's stage), in the order of the plan's shared offsets.
    pub(crate) shared_offsets: Vec<Value<'c, 'a>>,
    /// For a run-time-sized global tensor (`row_major`): `globalDim` and `globalStrides` as expressions of
    /// the kernel's arguments (`arg5 * 2`); the plan's own dims and strides are a stand-in instance's.
    pub(crate) runtime: Option<RuntimeFields>,
    /// A multicast load (the shared alloc replicated over the cluster's CTA axes): its mask and issuers.
    pub(crate) multicast: Option<Multicast>,
}

/// The cluster part of a multicast load (`axe_layout::tma::plan_multicast`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Multicast {
    /// `ctaMask`: bit `r` for every receiving CTA of `%cluster_ctarank` r.
    pub(crate) mask: u16,
    /// Per issue of the plan: the `%cluster_ctarank` that issues it.
    pub(crate) issuer: Vec<u32>,
}

/// The descriptor fields of a run-time-sized tensor that the host computes from kernel arguments at launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RuntimeFields {
    /// `globalDim`, innermost first.
    pub(crate) global_dims: Vec<Expr>,
    /// `globalStrides` in bytes.
    pub(crate) global_strides_bytes: Vec<Expr>,
    /// What the launch must guarantee for the map to be valid and the plan to hold (`arg5 % 16 == 0`, the
    /// driver's `globalDim <= 2^32` and stride `< 2^40` limits on the expressions).
    pub(crate) preconditions: Vec<Precondition>,
}

/// True when TMA takes a copy with this answer (what `ownership::owner` asks on chips with TMA): planned, or
/// refused only for its shared storage (rule [`Rule::SharedStorage`]).
pub(crate) fn takes(answer: &Result<PlannedCopy, Refusal>) -> bool {
    match answer {
        Ok(_) => true,
        Err(refusal) => refusal.rule == Rule::SharedStorage,
    }
}

/// [`takes`] of [`plan`]`(op)`.
pub(crate) fn accepts(op: AxeOp) -> bool {
    takes(&plan(op))
}

/// Plans one copy: scope, memory scopes, dtype, the two traced regions, then `axe_layout::tma::plan`.
pub(crate) fn plan<'c, 'a>(op: AxeOp<'c, 'a>) -> Result<PlannedCopy<'c, 'a>, Refusal> {
    let name = op.kind().name();
    match op.scope() {
        // Cluster scope: a multicast load (checked against the shared layout in `plan_regions`).
        Some(Ok(ExecScope::Cta | ExecScope::Cluster)) => {}
        // Warp scope: an asynchronous load the executing warp issues (a producer warp; `ownership` gives TMA no
        // other warp-scope copy).
        Some(Ok(ExecScope::Warp)) if op.kind() == OpKind::CopyAsync => {}
        Some(Ok(other)) => return Err(Refusal::op(format!("tma: {name} must run at cta scope, got {}", other.name()))),
        Some(Err(e)) => return Err(Refusal::op(format!("tma: {e}"))),
        None => return Err(Refusal::op(format!("tma: {name} must have a scope"))),
    }
    // A thread subset: only a store by a range of the CTA's warps (a role's epilogue, issued by its first warp).
    if let Some(threads) = op.threads() {
        let threads = threads.map_err(|e| Refusal::op(format!("tma: {e}")))?;
        let range = threads.axis == "warpid" || threads.axis == "wgid";
        let store = op.tensor("source").is_some_and(|t| t.mem == Memory::Shared)
            && op.tensor("dest").is_some_and(|t| t.mem == Memory::Global);
        if !(range && store && matches!(op.scope(), Some(Ok(ExecScope::Cta)))) {
            return Err(Refusal::op(format!(
                "tma: {name} on a thread subset is a store at cta scope by a range of warps (warpid, wgid), got {}[{}:{}]",
                threads.axis, threads.begin, threads.end
            )));
        }
    }
    let (Some(source), Some(dest)) = (op.operand(0), op.operand(1)) else {
        return Err(Refusal::op(format!("tma: {name} must have source and dest tensors")));
    };
    let (source, dest) = (trace(op, source).map_err(Refusal::op)?, trace(op, dest).map_err(Refusal::op)?);
    let (global, shared, direction) = match (source.tensor.mem, dest.tensor.mem) {
        (Memory::Global, Memory::Shared) => (source, dest, Direction::G2S),
        (Memory::Shared, Memory::Global) => (dest, source, Direction::S2G),
        (from, to) => {
            return Err(Refusal::op(format!(
                "tma: {name} must copy between global and shared memory, got {from} to {to}"
            )))
        }
    };
    if global.tensor.dtype != shared.tensor.dtype {
        return Err(Refusal::op(format!(
            "tma: dtype: {name} source and dest dtypes must agree, got {} and {}",
            global.tensor.dtype, shared.tensor.dtype
        )));
    }
    let dtype = global.tensor.dtype.number().ok_or_else(|| {
        Refusal::op(format!("tma: dtype: TMA copies 1, 2, 4 or 8-byte numbers, got {}", global.tensor.dtype))
    })?;
    let (plan, runtime, multicast) = if global.tensor.layout == LayoutSpec::RowMajor {
        let (plan, fields) = plan_runtime(op, &global, &shared, dtype, direction).map_err(Refusal::plan)?;
        (plan, Some(fields), None)
    } else {
        let (plan, multicast) = plan_regions(op, &global, &shared, dtype, direction).map_err(Refusal::plan)?;
        (plan, None, multicast)
    };
    // The planner may pad swizzled box rows narrower than the span (the hardware does, boxDim[0] * elemsize <= span);
    // nvgpu's tensormap descriptor type accepts only rows of exactly the span, so such plans are not lowered here.
    let desc = &plan.desc;
    let row_bytes = i64::from(desc.box_dims.first().copied().unwrap_or(0)) * desc.data_type.bytes();
    if desc.swizzle != axe_layout::SwizzleMode::None && row_bytes != desc.swizzle.bytes() {
        return Err(Refusal::plan(format!(
            "tma: inner-box-bytes rule: the plan's box rows are {row_bytes} bytes, padded by the hardware to the {} \
             swizzle span of {} bytes; nvgpu's tensormap descriptor accepts only rows of exactly the span, so this \
             lowering does not emit it (axe-layout tma-plan shows the plan)",
            desc.swizzle.name(),
            desc.swizzle.bytes()
        )));
    }
    if let Some(barrier) = op.operand(2) {
        let from_alloc = access::defining_op(barrier)
            .and_then(AxeOp::new)
            .is_some_and(|alloc| alloc.kind() == OpKind::MbarrierAlloc);
        if !from_alloc {
            return Err(Refusal::op("tma: the completion barrier must come from axe.mbarrier_alloc".to_string()));
        }
    }
    let kernel_arg = match global.backing {
        Backing::KernelArgument(kernel, index) => (kernel, index),
        _ => {
            let message = "tma: global tensor must be a view of a gpu.func kernel argument".to_string();
            return Err(Refusal { rule: Rule::GlobalStorage, message });
        }
    };
    let Backing::Alloc(alloc) = shared.backing else {
        let message = "tma: shared tensor must come from axe.alloc (views of shared memrefs are not supported)";
        return Err(Refusal { rule: Rule::SharedStorage, message: message.to_string() });
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
    plan(op).ok().map(|copy| copy.plan.total_bytes())
}

/// The planner's call on the two traced regions, with both sides' run-time offsets and their multiples; a shared
/// layout over the cluster's CTA axes is a multicast load (`plan_multicast`, the cluster shape from the kernel's
/// `known_cluster_size`).
fn plan_regions(
    op: AxeOp,
    global: &RootRegion,
    shared: &RootRegion,
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
fn dynamic_offsets(traced: &RootRegion) -> Vec<DynamicOffset> {
    traced
        .dynamic
        .iter()
        .map(|&(dim, value)| DynamicOffset { dim, multiple: crate::ir::multiple::known_multiple(value) })
        .collect()
}

/// Plans a copy of a run-time-sized global tensor (`row_major` view with extent operands) with
/// `axe_layout::tma::plan_extents`: every extent must be a kernel argument or an expression of them
/// ([`crate::ir::kernel::argument_expression`]: the host encodes the map at launch),
/// and the view's `multiples` are what the planner may assume (docs/dialect.md, "Run-time sizes").
fn plan_runtime(
    op: AxeOp,
    global: &RootRegion,
    shared: &RootRegion,
    dtype: ElemType,
    direction: Direction,
) -> Result<(TmaPlan, RuntimeFields), String> {
    let view = global.root;
    let shape = &global.tensor.shape;
    let multiples = match view.attribute_text("multiples") {
        Some(text) => parse_i64_array(&text).map_err(|e| format!("tma: view multiples {e}"))?,
        None => vec![1; shape.len()],
    };
    // Per tensor dimension: the planner's extent and the extent as the launch knows it (a number or `arg<i>`).
    let (mut extents, mut dims, mut preconditions, mut operand) = (Vec::new(), Vec::new(), Vec::new(), 1);
    for (d, &extent) in shape.iter().enumerate() {
        let multiple = multiples.get(d).copied().unwrap_or(1);
        if extent != axe_dialect::ops::DYNAMIC {
            extents.push(Extent { value: Some(extent), multiple });
            dims.push(Expr::Int(extent));
            continue;
        }
        let value = view.operand(operand).ok_or("tma: the view lacks an extent operand")?;
        operand += 1;
        let Some(dim) = crate::ir::kernel::argument_expression(op.operation(), value) else {
            return Err(format!(
                "tma: dynamic-extent rule: the run-time extent of dimension {d} must be a kernel argument or an \
                 expression of them the launch can evaluate (+, *, ceildiv; the host encodes the tensor map from it \
                 at launch)"
            ));
        };
        extents.push(Extent { value: None, multiple });
        preconditions.push(Precondition::new(dim.clone(), Cmp::Ge, Expr::Int(1)));
        if multiple > 1 {
            preconditions.push(Precondition::new(dim.clone().modulo(Expr::Int(multiple)), Cmp::Eq, Expr::Int(0)));
        }
        dims.push(dim);
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
        let named: Vec<String> = dims.iter().enumerate().map(|(d, dim)| format!("d{d} = {dim}")).collect();
        format!("{e} ({})", named.join(", "))
    })?;
    let exprs = |fields: &[axe_layout::tma::ExtentExpr]| -> Vec<Expr> {
        fields.iter().map(|f| f.expr(|d| dims[d].clone())).collect()
    };
    let (global_dims, global_strides_bytes) = (exprs(&planned.global_dims), exprs(&planned.global_strides_bytes));
    // cuTensorMapEncodeTiled's magnitude rules, which only the launch can check.
    let at_most = |fields: &[Expr], cmp: Cmp, limit: i64| -> Vec<Precondition> {
        let run_time = fields.iter().filter(|f| !f.args().is_empty());
        run_time.map(|f| Precondition::new(f.clone(), cmp, Expr::Int(limit))).collect()
    };
    preconditions.extend(at_most(&global_dims, Cmp::Le, 1 << 32));
    preconditions.extend(at_most(&global_strides_bytes, Cmp::Lt, 1 << 40));
    let fields = RuntimeFields { global_dims, global_strides_bytes, preconditions };
    Ok((planned.plan, fields))
}
