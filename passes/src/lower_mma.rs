//! `lower-mma`: lower `axe.gemm` to tensor-core instructions (paper section 3.4), through upstream NVVM ops.
//!
//! For each `axe.gemm(a, b, c)` the pass reads the three tensors' layouts, shapes and memories, the chip from the
//! nearest `axe.target = "sm_.."` string attribute on an enclosing op (the `gpu.module` or the module), asks
//! `axe_layout::mma::plan` for the family, the instruction and the issues, and translates the plan into IR. It
//! derives no layout fact itself: the registers of every fragment, the matrix descriptors, the instruction
//! descriptor, the tensor-memory addresses and columns, the issuing warps and the shared-memory alignment are the
//! planner's. A refusal is an error at the gemm (the planner's `mma: <rule> rule: ...`, or the pass's own
//! `mma: <rule>: ...` with the numbers), and the pass fails before changing anything. The chip is an attribute,
//! not a pass option, so that one module says what it is compiled for (`axe-translate --chip` must agree) and
//! `--lower-mma` stays a plain registry flag; without it the gemm is refused.
//!
//! Storage:
//! - a register tensor is, per thread, a `memref<Nxdtype, #gpu.address_space<private>>` (N = the layout's span on
//!   the register axis `m`): an `axe.alloc` in registers becomes a `memref.alloca`, and an `axe.view` of such a
//!   private memref uses it directly (so code after the gemm can read the accumulators); register `i` is element
//!   `i`. LLVM promotes the constant-indexed allocas to registers;
//! - a shared tensor is an `axe.alloc` (it becomes a `memref.global` aligned to the plan's
//!   `shared_base_alignment_bytes`, as `--lower-tma` does) or a view of a workgroup `memref.get_global`, or of
//!   a `memref.view` of one at byte 0 (what `--lower-tma` leaves of the allocs it lowered); the global's
//!   alignment is raised to the plan's. A view of a tensor is followed to its source's storage. A descriptor is
//!   the plan's constant plus the encoded base address `(address >> 4) & 0x3FFF` computed at run time
//!   (`memref.extract_aligned_pointer_as_index`). A shared A or B may be an `axe.slice` with run-time offsets of
//!   a tensor with a layout (a ring's stage, `[%stage * 64, 0]`): the planner gets the ring's layout sliced at the
//!   static part and the offsets' known multiples (`axe_layout::mma::plan_moving`), states each operand's start
//!   terms `bytes * (offset / divisor)` or refuses (`dynamic-start` rule), and the pass adds the terms to the
//!   ring's address before encoding it;
//! - a tensor-memory `axe.alloc` (at the kernel's top level) becomes a shared `i32` slot, `tcgen05.alloc` of a
//!   power of two of columns (at least 32, covering the columns the plans reach in it: `tmem_reach`, and its
//!   layout's span, TCol counting element-sized slots) and `relinquish_alloc_permit` by warp 0,
//!   `tcgen05.fence::before_thread_sync`, a CTA barrier and `fence::after_thread_sync`, and the address loaded
//!   from the slot; before every return, `fence::before_thread_sync`, a CTA barrier and `tcgen05.dealloc` by
//!   warp 0 (`crate::storage`). The allocations this pass makes in one kernel must fit the 512 columns together
//!   (`mma: tmem-columns: ...` at the alloc that goes over), or a `tcgen05.alloc` would wait forever.
//!
//! Emitted per family:
//! - `mma.sync` (all registers): per issue, `memref.load` of the plan's registers, f16/bf16 pairs packed into
//!   `vector<2xf16>` (bf16: bitcast to `i32`), `nvvm.mma.sync` with `row`/`col` layouts, the shape and the
//!   PTX types explicit (its verifier reads them; only the custom parser infers them), and the
//!   accumulators stored back; issues of the warp starting at thread `t` run under `tid.x / 32 == t / 32` when
//!   the gemm's scope holds more than one warp;
//! - `wgmma` (B shared, C registers, sm_90a): per issuing warpgroup, `nvvm.wgmma.fence.aligned`, one
//!   `nvvm.wgmma.mma_async` per issue (accumulators as an LLVM struct, f16 ones as `vector<2xf16>` fields, layouts
//!   from each descriptor's major-ness), `nvvm.wgmma.commit.group.sync.aligned` and `wait.group.sync.aligned 0`
//!   (the registers are final when the op returns). With A in registers the NVVM op has no form, so that
//!   instruction is an `llvm.inline_asm` of the PTX `wgmma.mma_async` (accumulators tied in/out, A as four
//!   `.b32` registers of 16-bit pairs, B's descriptor, `imm-trans-b` from B's major-ness): the one place the
//!   pass writes PTX text. Several warpgroups that issue the same instructions on shared descriptors a fixed
//!   step apart (a cta-scope gemm whose C splits rows over `wgid`) run one code path, warpgroup `g = tid / 128`
//!   adding `g` steps to the A and B bases, not one guarded copy each;
//! - `tcgen05` (C in tensor memory, sm_100a): on one thread (warp 0's `elect.sync` lane), one `nvvm.tcgen05.mma`
//!   per issue (D address = the allocation plus `lane << 16 | column`, the plan's idesc and kind; A in shared memory is a descriptor, A in
//!   tensor memory an `!llvm.ptr<6>` address, its allocation plus the plan's `lane << 16 | column`: the PTX
//!   `[a-tmem]` form. A and C in tensor memory are planned as one allocation when they are the same storage, views
//!   of one alloc (their columns must not overlap), else as two) and `nvvm.tcgen05.commit` to a kernel
//!   mbarrier; every thread waits on the barrier's phase (a per-thread parity local, flipped after each wait) and
//!   runs `tcgen05.fence::after_thread_sync`. An `axe.copy` at cta scope from a tensor-memory accumulator (the
//!   M=128 data path, f32) to a register tensor of layout `S[(4,32,N):(1@warpid,1@laneid,1)]` (row `r` in lane
//!   `r`, column `j` in register `j`: the `32x32b` shape) becomes, on threads 0..127 (warp `w` reads lanes
//!   `32w..32w+32`), `nvvm.tcgen05.ld` of N columns and `tcgen05.wait::ld`; `--lower-tma` leaves such copies.
//! - `axe.fill` of a register tensor stores the value into each register; a fill of a tensor-memory accumulator
//!   must be zero and makes the next gemm's first instruction of each tile overwrite (`enable-input-d` false).
//!
//! Not done: wgmma with 8-bit A in registers, `ldmatrix`
//! (register operands hold whatever the user's code put in the registers; no copy into registers is lowered
//! here), tensor-memory loads other than `32x32b` at cta scope, operands that are static slices
//! or function arguments, `threads` subsets, kernels whose blocks are not one-dimensional (issuing warps are
//! told apart by `thread_id x`), tensor-memory allocs below the kernel's top level. No proxy fence is emitted:
//! shared operands written by threads (not TMA) need `fence.proxy.async` and a barrier before the gemm.
//!
//! Invariants needed: the module verifies; tensors are `axe.alloc`s or views of memrefs in the function of the
//! gemm. Ensured: no lowered gemm, fill or copy, and no alloc they used, is left (an alloc with other uses becomes
//! an `axe.view` of its new storage); the output is deterministic (IR order, counters per run).
//!
//! ```mlir
//! axe.gemm warp %a, %b, %acc : !a, !b, !acc
//! // becomes (m16n8k16, f16 -> f32)
//! %a0 = memref.load %ra[%c0] : memref<8xf16, #gpu.address_space<private>>   // ... a1..a7, b0..b3, c0..c3
//! %d = nvvm.mma.sync A[%p0, %p1, %p2, %p3] B[%q0, %q1] C[%c0, %c1, %c2, %c3] {layoutA = #nvvm.mma_layout<row>,
//!        layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>, ...}
//!        : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
//! ```

mod emit;

use crate::{
    glue::{external_pass_creating, PassId},
    glue::{PassInfo, PassKind},
    lowering::Run,
    ownership::{self, Owner},
    request::tmem_load,
    storage::{self, shared_global, Source, Traced},
};
use axe_dialect::{access, AxeOp, OpKind};
use axe_layout::{
    mma::{
        plan_moving, plan_with, Access, Chip, ElemType, Family, GemmRequest, Memory, MmaPlan, Operand, OperandMove,
        Role, TmemAllocations,
    },
    ExecScope,
};
use melior::ir::{operation::OperationLike, OperationRef, Value};

/// `--lower-mma` as `axe-opt` lists it: flag, summary, description, constructor (the registry's entry).
pub const PASS: PassInfo = PassInfo {
    flag: "lower-mma",
    summary: "Lower axe.gemm to mma.sync, wgmma or tcgen05 NVVM ops planned from the layouts",
    description: "Input: a verified module whose gemms take register, shared and tensor-memory tensors\n\
(axe.alloc, or views of private/workgroup memrefs) and whose gpu.module or module has axe.target =\n\
\"sm_80\" | \"sm_90a\" | \"sm_100a\". Each gemm is planned by axe-layout's MMA planner; a refusal is an error at\n\
the gemm naming the rule. Output: nvvm.mma.sync / wgmma / tcgen05 ops, register allocas, aligned shared\n\
globals, tensor-memory alloc/dealloc. Runs after --lower-tma, before --lower-to-nvvm.",
    kind: PassKind::Rust(create),
};

static ID: PassId = PassId::new();

/// The dialects whose ops the lowering builds.
const CREATES: &[&str] = &["arith", "gpu", "llvm", "memref", "nvvm", "scf"];

/// What one run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LowerMmaStats {
    /// Gemms lowered.
    pub gemms: usize,
    /// Tensor-core instructions emitted (one per planned issue).
    pub instructions: usize,
    /// Fills lowered.
    pub fills: usize,
    /// Tensor-memory loads (`axe.copy` tmem -> registers) lowered.
    pub tmem_loads: usize,
}

/// One gemm the planner accepted.
pub(crate) struct PlannedGemm<'c, 'a> {
    pub(crate) op: AxeOp<'c, 'a>,
    pub(crate) plan: MmaPlan,
    pub(crate) scope: ExecScope,
    pub(crate) dtype: ElemType,
    pub(crate) acc: ElemType,
    /// A, B, C.
    pub(crate) operands: [Traced<'c, 'a>; 3],
    /// The run-time offsets of ring stages, in the order of the plan's `StartTerm` offsets.
    pub(crate) offsets: Vec<Value<'c, 'a>>,
}

/// A shared operand that is a run-time slice of a ring: the ring traced to its storage, the operand as the ring
/// sliced at the static part of the offsets, and the dynamic offsets (ring dimension, value).
struct Ring<'c, 'a> {
    ring: Traced<'c, 'a>,
    operand: Traced<'c, 'a>,
    dynamic: Vec<(usize, Value<'c, 'a>)>,
}

/// When `value` is an `axe.slice` with run-time offsets of a tensor with a layout (a ring of stages), the ring and
/// the operand at offsets 0 (the ring's layout sliced there: what the planner matches); `None` for anything else.
fn trace_ring<'c, 'a>(role: &str, value: Value<'c, 'a>) -> Result<Option<Ring<'c, 'a>>, String> {
    let Some(slice) = access::defining_op(value).and_then(AxeOp::new).filter(|op| op.kind() == OpKind::Slice) else {
        return Ok(None);
    };
    let region = slice.slice_region().map_err(|e| format!("mma: operand {role}: {e}"))?;
    if region.offsets.iter().all(Option::is_some) {
        return Ok(None);
    }
    let source = slice.operand(0).ok_or_else(|| format!("mma: operand {role}: slice has no source"))?;
    let ring = trace(role, source)?;
    let tensor = axe_dialect::ops::tensor_of(value)?.ok_or_else(|| format!("mma: operand {role} is not a tensor"))?;
    let offsets = crate::storage::slice_offsets(&slice, &region).map_err(|e| format!("mma: operand {role}: {e}"))?;
    let mut begin = Vec::with_capacity(offsets.len());
    let mut dynamic = Vec::new();
    for (d, offset) in offsets.into_iter().enumerate() {
        match offset {
            crate::storage::Int::Static(c) => begin.push(c),
            crate::storage::Int::Value(v) => {
                begin.push(0);
                dynamic.push((d, v));
            }
        }
    }
    let bounds: Vec<(i64, i64)> = begin.iter().zip(&region.sizes).map(|(&b, &n)| (b, b + n)).collect();
    let layout = axe_layout::slice::slice(&ring.layout, &ring.tensor.shape, &bounds)
        .map_err(|e| format!("mma: operand {role}: the ring's layout sliced at its static offsets: {e}"))?;
    let operand = Traced { tensor, layout, source: ring.source };
    Ok(Some(Ring { ring, operand, dynamic }))
}

/// Lowers every `axe.gemm` under `root`; on refusal reports each at its op and returns how many were refused.
pub fn lower_mma(root: OperationRef) -> Result<LowerMmaStats, usize> {
    let mut run = Run::begin(root, "mma", CREATES)?;
    let gemms = run.plan(|op| (op.kind() == OpKind::Gemm).then(|| plan_gemm(op)));
    run.plan(|op| (op.kind() == OpKind::Fill).then(|| check_fill(op)));
    let loads = run.plan(|op| (ownership::owner(op) == Some(Owner::Mma)).then(|| tmem_load::plan(op)));
    run.rewrite(|ops| emit::rewrite(root, ops, &gemms, &loads))
}

/// The chip named by the nearest `axe.target` on `op` or an op enclosing it.
fn target(op: OperationRef) -> Result<Chip, String> {
    crate::ir::target::chip(op, "mma", "axe.gemm")
}

/// Traces the tensor operand `value` (role `role`) to an `axe.alloc` or an `axe.view` of a memref (no slices).
fn trace<'c, 'a>(role: &str, value: Value<'c, 'a>) -> Result<Traced<'c, 'a>, String> {
    storage::trace("mma", role, value, false)
}

/// Plans one gemm: target, scope, operands, dtypes, `axe_layout::mma::plan`, then what this pass lowers.
fn plan_gemm<'c, 'a>(op: AxeOp<'c, 'a>) -> Result<PlannedGemm<'c, 'a>, String> {
    let chip = target(op.operation())?;
    let scope = match op.scope() {
        Some(Ok(scope)) => scope,
        Some(Err(e)) => return Err(format!("mma: {e}")),
        None => return Err("mma: axe.gemm must have a scope".to_string()),
    };
    if op.threads().is_some() {
        return Err("mma: scope: axe.gemm with a thread subset is not supported, give the gemm its own scope".into());
    }
    let value = |i: usize, role: &str| op.operand(i).ok_or_else(|| format!("mma: axe.gemm has no operand {role}"));
    let rings = [trace_ring("a", value(0, "a")?)?, trace_ring("b", value(1, "b")?)?];
    let operand = |i: usize, role: &str| match rings.get(i).and_then(Option::as_ref) {
        Some(ring) => Ok(ring.operand.clone()),
        None => value(i, role).and_then(|v| trace(role, v)),
    };
    let operands = [operand(0, "a")?, operand(1, "b")?, operand(2, "c")?];
    let [a, b, c] = &operands;
    for (role, traced) in [("a", a), ("b", b)] {
        if let (Memory::Shared, Source::Memref(memref)) = (traced.tensor.mem, traced.source) {
            if shared_global(memref).is_none() {
                return Err(format!(
                    "mma: storage: the workgroup memref under operand {role} must come from memref.get_global, so \
                     that its alignment can be raised to the planner's"
                ));
            }
        }
    }
    let dtype_of = |t: &Traced| {
        t.tensor.dtype.number().filter(|t| t.is_mma_operand()).ok_or_else(|| {
            format!("mma: dtype: tensor cores take f16, bf16, f8E4M3FN, f8E5M2 and f32, got {}", t.tensor.dtype)
        })
    };
    let (dtype, acc) = (dtype_of(a)?, dtype_of(c)?);
    let mem = |t: &Traced| match t.tensor.mem {
        Memory::Global => {
            Err("mma: memory: gemm operands live in registers, shared or tensor memory, got global".to_string())
        }
        other => Ok(other),
    };
    let request = GemmRequest {
        chip,
        dtype,
        acc_dtype: acc,
        a: Operand { layout: &a.layout, shape: &a.tensor.shape, mem: mem(a)? },
        b: Operand { layout: &b.layout, shape: &b.tensor.shape, mem: mem(b)? },
        c: Operand { layout: &c.layout, shape: &c.tensor.shape, mem: mem(c)? },
    };
    // A and C in tensor memory share columns only when they are the same storage (views of one alloc); apart,
    // each is its own tcgen05.alloc.
    let allocations = match (a.tensor.mem, c.tensor.mem) {
        (Memory::Tmem, Memory::Tmem) if a.source.key() != c.source.key() => TmemAllocations::Separate,
        _ => TmemAllocations::Shared,
    };
    let mut moves = Vec::new();
    let mut offsets = Vec::new();
    for (role, ring) in [(Role::A, &rings[0]), (Role::B, &rings[1])] {
        for &(dim, v) in ring.iter().flat_map(|r| &r.dynamic) {
            let ring = &ring.as_ref().ok_or("mma: internal: a ring offset without a ring")?.ring;
            let multiple = crate::ir::multiple::known_multiple(v);
            moves.push(OperandMove { role, ring: &ring.layout, ring_shape: &ring.tensor.shape, dim, multiple });
            offsets.push(v);
        }
    }
    let plan = if moves.is_empty() {
        plan_with(&request, allocations).map_err(|e| e.to_string())?
    } else {
        plan_moving(&request, &moves).map_err(|e| e.to_string())?
    };
    for traced in [a, c] {
        if let (Memory::Tmem, Source::Alloc(alloc)) = (traced.tensor.mem, traced.source) {
            storage::check_tmem_alloc("mma", alloc)?;
        }
    }
    check_lowerable(&plan, scope, dtype)?;
    Ok(PlannedGemm { op, plan, scope, dtype, acc, operands, offsets })
}

/// What the plan needs of the gemm's scope, and the plans this pass does not lower yet.
fn check_lowerable(plan: &MmaPlan, scope: ExecScope, dtype: ElemType) -> Result<(), String> {
    let family = plan.family.name();
    let (unit, allowed): (i64, &[ExecScope]) = match plan.family {
        Family::MmaSync => (32, &[ExecScope::Warp, ExecScope::Warpgroup, ExecScope::Cta]),
        Family::Wgmma => (128, &[ExecScope::Warpgroup, ExecScope::Cta]),
        Family::Tcgen05 => (1, &[ExecScope::Cta]),
    };
    if !allowed.contains(&scope) {
        let names: Vec<&str> = allowed.iter().map(|s| s.name()).collect();
        return Err(format!("mma: scope: {family} runs at {} scope, got {}", names.join(" or "), scope.name()));
    }
    let last = plan.issues.iter().map(|i| i.thread_base).max().unwrap_or(0);
    if let Some(threads) = scope.fixed_threads() {
        if last + unit > threads {
            return Err(format!(
                "mma: scope: the plan issues from threads {last}..{}, but a {} scope has {threads} threads",
                last + unit,
                scope.name()
            ));
        }
    }
    let a_in_registers = plan.issues.iter().any(|i| matches!(i.a, Access::Regs(_)));
    if plan.family == Family::Wgmma && a_in_registers && dtype.bits() != 16 {
        let dtype = dtype.ptx();
        return Err(format!(
            "mma: lowering: wgmma with {dtype} A in registers is not lowered (16-bit A fragments only); put A in \
             shared memory"
        ));
    }
    Ok(())
}

/// A fill this pass lowers: a register tensor it can reach, or a tensor-memory tensor set to zero.
fn check_fill(op: AxeOp) -> Result<(), String> {
    let Some(dest) = op.tensor("dest") else { return Ok(()) };
    match dest.mem {
        Memory::Reg => op.operand(0).map(|v| trace("dest", v).map(drop)).unwrap_or(Ok(())),
        Memory::Tmem => {
            let value = op.operand(1).and_then(access::defining_op);
            let text = value.and_then(|v| v.attribute("value").ok()).map(|a| a.to_string());
            let number = text.as_deref().and_then(|t| t.split(':').next()).map(str::trim);
            if number.and_then(|n| n.parse::<f64>().ok()).is_some_and(|v| v == 0.0) {
                return Ok(());
            }
            Err(format!(
                "mma: fill: a tensor-memory accumulator can only be zeroed (the first tcgen05.mma overwrites it), \
                 got {}",
                text.unwrap_or_else(|| "a value that is not a constant".to_string())
            ))
        }
        _ => Ok(()),
    }
}

/// The melior pass behind `--lower-mma`.
pub fn create() -> melior::pass::Pass {
    external_pass_creating(&ID, "LowerMma", &PASS, CREATES, |operation| lower_mma(operation).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SYNC: &str = include_str!("../../examples/mma_sync.mlir");
    const WGMMA: &str = include_str!("../../examples/mma_wgmma.mlir");
    const TCGEN05: &str = include_str!("../../examples/mma_tcgen05.mlir");

    /// Runs `--lower-tma` (when `tma`) and the pass on `source`: the result, the printed module, the messages.
    fn check(source: &str, tma: bool) -> (Result<LowerMmaStats, usize>, String, Vec<String>) {
        crate::testing::run_pass(source, |module| {
            if tma {
                crate::lower_tma::lower_tma(module).expect("tma lowers");
            }
            lower_mma(module)
        })
    }

    #[test]
    fn lowers_each_example_deterministically() {
        let (result, printed, _) = check(SYNC, false);
        assert_eq!(result, Ok(LowerMmaStats { gemms: 1, instructions: 4, fills: 3, tmem_loads: 0 }));
        assert_eq!(printed.matches("nvvm.mma.sync").count(), 4, "{printed}");
        assert_eq!(crate::testing::axe_ops(&printed), Vec::<String>::new(), "{printed}");
        assert_eq!(check(SYNC, false).1, printed);

        let (result, printed, _) = check(WGMMA, true);
        assert_eq!(result, Ok(LowerMmaStats { gemms: 1, instructions: 4, fills: 1, tmem_loads: 0 }));
        assert_eq!(printed.matches("nvvm.wgmma.mma_async").count(), 4, "{printed}");
        assert_eq!(printed.matches("nvvm.wgmma.wait.group.sync.aligned").count(), 1, "{printed}");
        assert_eq!(check(WGMMA, true).1, printed);

        let (result, printed, _) = check(TCGEN05, true);
        assert_eq!(result, Ok(LowerMmaStats { gemms: 1, instructions: 1, fills: 1, tmem_loads: 1 }));
        for op in ["nvvm.tcgen05.alloc", "nvvm.tcgen05.mma", "nvvm.tcgen05.commit", "nvvm.tcgen05.ld"] {
            assert_eq!(printed.matches(op).count(), 1, "{op}: {printed}");
        }
        assert_eq!(printed.matches("nvvm.tcgen05.dealloc").count(), 1, "{printed}");
        assert_eq!(check(TCGEN05, true).1, printed);
    }

    #[test]
    fn a_refusal_changes_nothing_and_names_the_rule() {
        let source = SYNC.replace("axe.target = \"sm_80\"", "axe.target = \"sm_70\"");
        let (result, printed, messages) = check(&source, false);
        assert_eq!(result, Err(1));
        assert!(messages.iter().all(|m| m.starts_with("mma: target: unknown chip \"sm_70\"")), "{messages:?}");
        assert!(
            crate::testing::axe_ops(&printed).iter().any(|n| n == "axe.gemm") && !printed.contains("nvvm."),
            "{printed}"
        );
    }
}
