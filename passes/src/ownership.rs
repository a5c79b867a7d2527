//! Which pass lowers which copy: one rule, asked by `--lower-tma`, `--lower-mma` and `--lower-copy` alike, so
//! the passes run in any order and each `axe.copy` / `axe.copy_async` is lowered (or refused) by exactly one.
//!
//! The rule reads the op alone (its memories, scope, thread subset and the chip named by `axe.target`):
//! 1. **TMA** (`--lower-tma`): a copy at `cta` scope without a `threads` subset between a global and a shared
//!    tensor, or an `axe.copy_async` global -> shared on an mbarrier at `warp` scope (a producer warp's load, its
//!    elected lane issuing it), or a store shared -> global at `cta` scope by a range of its warps (`cta(wgid[0:2])`:
//!    a role's epilogue; the range's first warp's elected lane issues it), when the module names no chip (TMA is then assumed, as before chips were named), or when the chip
//!    has TMA (sm_90 and later) and the TMA planner accepts the copy (`request::tma::accepts`). On sm_80, and for
//!    layouts TMA cannot express on later chips, the copy is `--lower-copy`'s (`cp.async`, `ld`/`st`).
//! 2. **MMA** (`--lower-mma`): an `axe.copy` from tensor memory to registers that `--lower-mma`'s own read-back
//!    pattern accepts (`request::tmem_load::accepts`: the M=128 data path to one row per thread, `32x32b` at CTA
//!    scope, which it lowered before `--lower-copy` existed); the copy planner would choose the same instruction.
//! 0. **Collectives** (`--lower-collectives`), first: an `axe.copy` between two global tensors either of whose
//!    layouts names a device axis, or that carries `reduce` (a copy between distributed tensors: NVSHMEM,
//!    docs/distributed.md).
//! 3. **Copy** (`--lower-copy`): every other copy: registers, other tensor-memory loads and stores, thread and
//!    warp scopes, thread subsets, every `axe.copy_async` global -> shared without a barrier operand (a
//!    `cp.async` group, completed by `cp.async.wait_group`), and every other `axe.copy_async` TMA does not take
//!    (which it refuses: cp.async does not complete on an mbarrier).

use crate::{
    ir::target::target_name,
    request::{tma, tmem_load},
};
use axe_dialect::{AxeOp, OpKind};
use axe_layout::hw::Memory;
use axe_layout::{mma::Chip, ExecScope};
use melior::ir::operation::OperationLike;

/// The pass that lowers a copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Owner {
    /// `--lower-tma`.
    Tma,
    /// `--lower-mma`.
    Mma,
    /// `--lower-copy`.
    Copy,
    /// `--lower-collectives`.
    Collectives,
}

/// Who lowers `op`: `None` for ops that are not copies (see the module documentation for the rule).
pub(crate) fn owner(op: AxeOp) -> Option<Owner> {
    owner_with(op, &mut tma::accepts)
}

/// [`owner`], asking `tma_takes` whether TMA takes the copy (rule 1) when the rule needs to know: `--lower-tma`
/// passes a planner that keeps its answer, so the copy it lowers is planned once.
pub(crate) fn owner_with<'c, 'a>(op: AxeOp<'c, 'a>, tma_takes: &mut dyn FnMut(AxeOp<'c, 'a>) -> bool) -> Option<Owner> {
    if !matches!(op.kind(), OpKind::Copy | OpKind::CopyAsync) {
        return None;
    }
    let mem = |role: &str| op.tensor(role).map(|t| t.mem);
    let (source, dest) = (mem("source"), mem("dest"));
    if op.kind() == OpKind::Copy && (source, dest) == (Some(Memory::Global), Some(Memory::Global)) {
        let distributed = |role: &str| {
            op.tensor(role)
                .and_then(|t| t.layout.parse())
                .and_then(Result::ok)
                .is_some_and(|l| l.axes().into_iter().any(|a| a.is_device()))
        };
        // A `reduce` attribute asks for a collective too (refused there when nothing is distributed).
        if distributed("source") || distributed("dest") || op.operation().has_attribute("reduce") {
            return Some(Owner::Collectives);
        }
    }
    let read_back = op.kind() == OpKind::Copy && source == Some(Memory::Tmem) && dest == Some(Memory::Reg);
    if read_back && tmem_load::accepts(op) {
        return Some(Owner::Mma);
    }
    let between = matches!(
        (source, dest),
        (Some(Memory::Global), Some(Memory::Shared)) | (Some(Memory::Shared), Some(Memory::Global))
    );
    // A cluster-scope load is a multicast (the shared tile replicated over the cluster's CTAs): TMA's too.
    let whole_cta = matches!(op.scope(), Some(Ok(ExecScope::Cta | ExecScope::Cluster))) && op.threads().is_none();
    let cp_async_group = op.kind() == OpKind::CopyAsync
        && (source, dest) == (Some(Memory::Global), Some(Memory::Shared))
        && op.operand(2).is_none();
    // A warp-scope load completing on an mbarrier is a producer warp's TMA load (its elected lane issues it).
    let warp_load = matches!(op.scope(), Some(Ok(ExecScope::Warp)))
        && op.kind() == OpKind::CopyAsync
        && (source, dest) == (Some(Memory::Global), Some(Memory::Shared))
        && op.operand(2).is_some()
        && op.threads().is_none();
    // A store by a range of the CTA's warps (a role's epilogue): its first warp's elected lane issues it after a
    // named barrier of the range.
    let range_store = matches!(op.scope(), Some(Ok(ExecScope::Cta)))
        && (source, dest) == (Some(Memory::Shared), Some(Memory::Global))
        && op.threads().and_then(Result::ok).is_some_and(|t| t.axis == "warpid" || t.axis == "wgid");
    if !(between && (whole_cta || warp_load || range_store)) || cp_async_group {
        return Some(Owner::Copy);
    }
    let tma = match target_name(op.operation()).map(|name| Chip::from_name(&name)) {
        None => true,
        Some(Some(Chip::Sm80)) | Some(None) => false,
        Some(Some(_)) => tma_takes(op),
    };
    Some(if tma { Owner::Tma } else { Owner::Copy })
}
