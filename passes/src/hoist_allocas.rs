//! `axe-hoist-allocas`: move fixed-size `llvm.alloca`s into their function's entry block.
//!
//! Register tensors are private memrefs (`memref.alloca`, lowered to `llvm.alloca` where the tensor's `axe.alloc`
//! was). LLVM promotes an alloca to registers (SROA, mem2reg) only when it is a static alloca of the entry block;
//! the lowerings put guarded code at a kernel's entry (mbarrier init, `tcgen05.alloc` by one warp), and
//! `convert-scf-to-cf` splits the entry block at each `scf.if`, so an alloca that follows such code lands in a
//! later block and the accumulators of a GEMM live in local memory (a 128x128 f32 tile: 512 bytes of stack per
//! thread, loaded and stored every K step). This pass runs after `--lower-to-nvvm`: every `llvm.alloca` outside
//! the entry block whose element count is an `llvm.mlir.constant` moves to the start of the entry block (its
//! constant, when defined outside the entry block, is cloned there first). Allocas keep their IR order. Dynamic
//! sizes are left where they are (an alloca in a loop with a run-time size is a different program).
//!
//! ```mlir
//! ^bb2:  %a = llvm.alloca %c128 x f32 : (i64) -> !llvm.ptr      // after an scf.if's split
//! // becomes, at the top of the entry block
//! %a = llvm.alloca %c128 x f32 : (i64) -> !llvm.ptr
//! ```

use crate::{
    glue::{external_pass, PassId},
    glue::{PassInfo, PassKind},
    ir::build::Builder,
};
use axe_dialect::{access, ffi, ops::walk_preorder};
use melior::ir::{block::BlockLike, operation::OperationLike, OperationRef, ValueLike};

/// `--axe-hoist-allocas` as `axe-opt` lists it: flag, summary, description, constructor (the registry's entry).
pub const PASS: PassInfo = PassInfo {
    flag: "axe-hoist-allocas",
    summary: "Move fixed-size llvm.alloca ops into the entry block (so LLVM keeps them in registers)",
    description: "Input: functions after --lower-to-nvvm. Every llvm.alloca outside its function's entry\n\
block whose size is an llvm.mlir.constant moves to the start of the entry block, in IR order, so that\n\
LLVM's SROA promotes it (register tensors behind guarded entry code otherwise live in local memory).",
    kind: PassKind::Rust(create),
};

static ID: PassId = PassId::new();

/// Hoists the allocas of every `llvm.func` under `root`; returns how many it moved.
pub fn hoist_allocas(root: OperationRef) -> usize {
    let mut functions = Vec::new();
    walk_preorder(root, &mut |op| {
        if op.name().as_string_ref().as_str() == Ok("llvm.func") {
            functions.push(op);
        }
    });
    functions.into_iter().map(hoist_in).sum()
}

/// One function: the allocas outside the entry block, moved before the entry block's first op in IR order.
fn hoist_in(func: OperationRef) -> usize {
    let Some(entry) = access::entry_block(func) else { return 0 };
    let Some(first) = entry.first_operation() else { return 0 };
    let mut allocas = Vec::new();
    walk_preorder(func, &mut |op| {
        if op.name().as_string_ref().as_str() == Ok("llvm.alloca") && op.block() != Some(entry) {
            allocas.push(op);
        }
    });
    let mut moved = 0;
    for alloca in allocas {
        let Some(size) = access::operand(alloca, 0) else { continue };
        let Some(constant) = access::defining_op(size) else { continue };
        if constant.name().as_string_ref().as_str() != Ok("llvm.mlir.constant") {
            continue;
        }
        // A copy of the constant before the entry block's first op, used by this alloca alone (the original may
        // be defined later in the entry block, or in another block).
        let (Some(value), Some(result)) = (constant.attribute("value").ok(), access::result(constant, 0)) else {
            continue;
        };
        let Ok(b) = Builder::before(first) else { continue };
        let attributes = [("value", value.to_string())];
        let Ok(copy) = b.value("llvm.mlir.constant", &[], result.r#type(), &attributes) else {
            continue;
        };
        ffi::set_operand(alloca, 0, copy);
        // Before the entry block's original first op: after every constant and alloca hoisted so far, so allocas
        // keep their IR order, and after the size it uses.
        ffi::move_before(alloca, first);
        moved += 1;
    }
    moved
}

/// The melior pass behind `--axe-hoist-allocas`.
pub fn create() -> melior::pass::Pass {
    external_pass(&ID, "AxeHoistAllocas", &PASS, |operation| {
        hoist_allocas(operation);
        true
    })
}
