//! `lower-roles`: `axe.roles` to one `scf.if` per role on the warp index, and the warpgroups' register budgets to
//! `setmaxnreg` (issue 25).
//!
//! The plan is [`axe_dialect::roles::plan`]'s (the verifier's rules: disjoint warps of the block, budgets a
//! warpgroup's `setmaxnreg` can set and the register file can hold); this pass only writes it. At the op:
//!
//! ```mlir
//! axe.roles {
//!   axe.role wgid[0:2] regs 232 { consumers }
//!   axe.role warpid[8:9] regs 40 { producer }
//! }
//! // becomes (384 threads: 168 registers at entry)
//! %warp = arith.divui %tid, %c32 : index
//! %group = arith.divui %tid, %c128 : index
//! scf.if (%group == 2) { nvvm.setmaxregister decrease 40 }           // decreases first: they free registers
//! scf.if (%group < 2) { nvvm.setmaxregister increase 232 }           // that the increases wait for
//! scf.if (%warp < 8) { consumers } else { scf.if (8 <= %warp < 9) { producer } }
//! ```
//!
//! The roles nest as `else` branches rather than follow one another: they run concurrently, and a role that
//! waits for another (a consumer for the producer's load) must not wait at the end of a construct the other has
//! not entered. Each warpgroup that changes its budget runs one `setmaxnreg` with all its warps (the instruction is
//! `.sync.aligned` over the warpgroup), warps in no role included, before any role starts. The kernel gets
//! `nvvm.minctasm = 1` (`.minnctapersm 1`) so that ptxas knows the entry count the budgets are measured from;
//! without it ptxas ignores `setmaxnreg` (C7508). Budgets need sm_90a or sm_100a (`axe.target`).

use crate::{
    glue::{external_pass_creating, PassId},
    glue::{PassInfo, PassKind},
    ir::build::{Builder, Cmp},
    ir::each_op::lower_each,
    ir::target::chip,
};
use axe_dialect::{
    access, ffi,
    kernel::known_block,
    ops::enclosing_function,
    roles::{self, Plan},
    OpKind,
};
use axe_layout::hw::Chip;
use melior::{
    ir::{block::BlockLike, operation::OperationLike, Block, OperationRef, Region, RegionLike, Value},
    IrRewriter,
};
use std::ops::Range;

/// `--lower-roles` as `axe-opt` lists it: flag, summary, description, constructor (the registry's entry).
pub const PASS: PassInfo = PassInfo {
    flag: "lower-roles",
    summary: "Lower axe.roles to one scf.if per role on the warp index, and register budgets to setmaxnreg",
    description: "Input: a verified module. Each axe.roles becomes an else-chain of scf.if on the warp\n\
index (one branch per role, its region moved in), preceded by one nvvm.setmaxregister per warpgroup whose\n\
budget differs from the entry count (decreases first); the kernel gets nvvm.minctasm = 1. Run it first: the\n\
other lowerings then see plain scf.if regions.",
    kind: PassKind::Rust(create),
};

static ID: PassId = PassId::new();

/// Lowers every `axe.roles` under `root`: the number lowered, or the number of errors reported at their ops.
pub fn lower_roles(root: OperationRef) -> Result<usize, usize> {
    lower_each(root, OpKind::Roles, PASS.flag, lower_one)
}

/// One `axe.roles`, planned and written.
fn lower_one<'c, 'a>(op: OperationRef<'c, 'a>) -> Result<(), Vec<(OperationRef<'c, 'a>, String)>> {
    let plan = roles::plan(op)?;
    let fail = |message: String| vec![(op, message)];
    let func = enclosing_function(op).ok_or_else(|| fail("axe.roles outside a function".into()))?;
    if plan.sets_budgets() {
        let chip = chip(op, "lower-roles", "register budgets").map_err(&fail)?;
        if !matches!(chip, Chip::Sm90a | Chip::Sm100a) {
            return Err(fail(format!(
                "register budgets need setmaxnreg, which {} lacks (sm_90a, sm_100a)",
                chip.name()
            )));
        }
        let one = ffi::parse_attribute(op, "1 : i32").ok_or_else(|| fail("internal: i32 attribute".into()))?;
        ffi::set_attribute(func, "nvvm.minctasm", one);
    }
    write(op, &plan, &known_block(func)).map_err(fail)
}

/// Writes `plan` in place of `op`.
fn write<'c, 'a>(op: OperationRef<'c, 'a>, plan: &Plan<'c, 'a>, block: &[i64]) -> Result<(), String> {
    let b = Builder::before(op)?;
    let tid = b.linear_thread_id(block)?;
    let changes = plan.changes();
    if !changes.is_empty() {
        let group = b.divui(tid, b.index(roles::WARPGROUP_THREADS)?)?;
        let (decreases, increases): (Vec<_>, Vec<_>) = changes.into_iter().partition(|(_, regs)| *regs < plan.entry);
        for (groups, regs) in decreases.into_iter().chain(increases) {
            let action = if regs < plan.entry { "decrease" } else { "increase" };
            let inside = in_range(&b, group, groups)?;
            b.guarded(inside, |inner| {
                let attributes = [("action", format!("#nvvm<action {action}>")), ("regCount", format!("{regs} : i32"))];
                inner.op("nvvm.setmaxregister", &[], &[], &attributes).map(drop)
            })?;
        }
    }
    let warp = b.divui(tid, b.index(32)?)?;
    let mut at = b;
    let count = plan.roles.len();
    for (index, (role_op, role)) in plan.roles.iter().enumerate() {
        let inside = in_range(&at, warp, role.warps())?;
        let last = index + 1 == count;
        let regions = vec![branch(), if last { Region::new() } else { branch() }];
        let branch_op = at.op_with_regions("scf.if", &[inside], &[], &[], regions)?;
        let then_yield = yield_of(branch_op, 0)?;
        let body = access::entry_block(*role_op).ok_or("internal: axe.role has no block")?;
        let mut cursor = body.first_operation();
        while let Some(moved) = cursor {
            cursor = moved.next_in_block();
            ffi::move_before(moved, then_yield);
        }
        if !last {
            at = Builder::before(yield_of(branch_op, 1)?)?;
        }
    }
    IrRewriter::from_op(op).as_rewriter_base().erase_op(op);
    Ok(())
}

/// A region of one block holding only `scf.yield` (a branch of `scf.if`).
fn branch<'c>() -> Region<'c> {
    let region = Region::new();
    region.append_block(Block::new(&[]));
    region
}

/// The `scf.yield` a branch of `if_op` ends with, appended when it is missing.
fn yield_of<'c, 'a>(if_op: OperationRef<'c, 'a>, region: usize) -> Result<OperationRef<'c, 'a>, String> {
    let block = access::region(if_op, region).and_then(|r| r.first_block()).ok_or("internal: scf.if branch")?;
    Builder::at_start(if_op, block, if_op.location()).r#yield(&[])?;
    block.terminator().ok_or_else(|| "internal: scf.yield missing".to_string())
}

/// `range.start <= value < range.end` on an index value.
fn in_range<'c, 'a>(b: &Builder<'c, 'a>, value: Value<'c, 'a>, range: Range<i64>) -> Result<Value<'c, 'a>, String> {
    if range.start == 0 {
        return b.cmpi(Cmp::Ult, value, b.index(range.end)?);
    }
    let above = b.cmpi(Cmp::Uge, value, b.index(range.start)?)?;
    let below = b.cmpi(Cmp::Ult, value, b.index(range.end)?)?;
    b.andi(above, below)
}

/// The melior pass behind `--lower-roles`.
pub fn create() -> melior::pass::Pass {
    external_pass_creating(&ID, "AxeLowerRoles", &PASS, &["scf", "arith", "gpu", "nvvm"], |operation| {
        lower_roles(operation).is_ok()
    })
}
