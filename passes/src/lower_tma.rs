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
//! multiple comes from the IR (`crate::ir::multiple`: constants, `scf.for` steps, `muli`/`addi`/`shli`), the
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
//! axe.copy_async cta %g to %s, %bar : !global to !smem_swizzled, !axe.mbarrier
//! // becomes
//! scf.if %leader {
//!   nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %c16384 : !barrier
//!   %box = memref.view %smem[%c0][] : memref<16384xi8, 3> to memref<128x64xf16, 3>
//!   nvgpu.tma.async.load %desc[%c0, %c0], %bar[%c0] to %box : !desc, !barrier -> memref<128x64xf16, 3>
//! }
//! ```

mod descriptor;
mod emit;
mod host;

use crate::{
    barrier_check,
    glue::{external_pass_creating, PassId},
    glue::{PassInfo, PassKind},
    lowering::Run,
    ownership::{self, Owner},
    request::tma::{self as request, PlannedCopy, Refusal},
};
use axe_dialect::access::{self, OpKey};
use melior::ir::OperationRef;
use std::collections::HashMap;

/// `--lower-tma` as `axe-opt` lists it: flag, summary, description, constructor (the registry's entry).
pub const PASS: PassInfo = PassInfo {
    flag: "lower-tma",
    summary: "Lower CTA-scope global<->shared copies to TMA descriptors and cp.async.bulk.tensor",
    description: "Input: a verified module whose kernels copy between global tensors (views of kernel\n\
arguments) and shared allocs. Each copy is planned by axe-layout's TMA planner; a refusal is an error\n\
at the copy naming the stage or rule. Output: axe.tma_descriptor on the host at each launch, nvgpu\n\
mbarrier and TMA ops in the kernel. Runs after --axe-slice, before --lower-to-nvvm.",
    kind: PassKind::Rust(create),
};

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

/// Lowers every TMA copy under `root`; on refusal reports each at its op and returns how many were refused.
pub fn lower_tma(root: OperationRef) -> Result<LowerTmaStats, usize> {
    let mut run = Run::begin(root, "tma", CREATES)?;
    // Only the copies the shared ownership rule gives to TMA; the rest are --lower-copy's or --lower-mma's. The
    // rule's question (does TMA take it?) plans the copy; that answer is the one lowered: one plan per copy.
    let mut copies = run.plan(|op| {
        let mut answer: Option<Result<PlannedCopy, Refusal>> = None;
        let owner = ownership::owner_with(op, &mut |op| request::takes(answer.insert(request::plan(op))));
        (owner == Some(Owner::Tma)).then(|| answer.unwrap_or_else(|| request::plan(op)).map_err(|r| r.message))
    });
    // The barrier protocol, with each planned load's bytes (a refused copy's bytes are unknown).
    let bytes: HashMap<OpKey, u64> =
        copies.iter().map(|copy| (access::key(copy.op.operation()), copy.plan.total_bytes())).collect();
    match barrier_check::check(root, &|op| bytes.get(&access::key(op.operation())).copied()) {
        Ok(protocol) => {
            for copy in &mut copies {
                copy.announced = protocol.is_announced(copy.op.operation());
            }
        }
        Err(errors) => run.refuse(errors),
    }
    if !run.failed() {
        run.refuse(emit::check_descriptors_agree(&copies));
    }
    run.rewrite(|ops| emit::rewrite(root, ops, &copies))
}

/// The melior pass behind `--lower-tma`.
pub fn create() -> melior::pass::Pass {
    external_pass_creating(&ID, "LowerTma", &PASS, CREATES, |operation| lower_tma(operation).is_ok())
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
        assert_eq!(printed.matches("= axe.tma_descriptor %").count(), 2, "{printed}");
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
