//! What the emitter reads off the IR beyond single ops: which function arguments are read or written (inputs or
//! returned outputs), and whether a loop's iterations depend on each other (`nl.affine_range` or
//! `nl.sequential_range`).

use super::{key, op_name};
use crate::ir::multiple::known_multiple;
use axe_dialect::access;
use axe_dialect::ops::{AxeOp, OpKind};
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::{OperationRef, Value};
use std::collections::HashMap;

/// How a function uses an argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Access {
    /// Only read (copied from).
    Read,
    /// Only written (copied to).
    Write,
    /// Both.
    ReadWrite,
}

/// The arguments (by number) that copies read or write, through slices.
pub(super) fn written_arguments(function: OperationRef) -> HashMap<usize, Access> {
    let mut uses: HashMap<usize, Access> = HashMap::new();
    axe_dialect::ops::walk_preorder(function, &mut |op| {
        if AxeOp::new(op).is_none_or(|o| o.kind() != OpKind::Copy) {
            return;
        }
        for (index, access) in [(0, Access::Read), (1, Access::Write)] {
            if let Some(argument) = access::operand(op, index).and_then(root_argument) {
                let entry = uses.entry(argument).or_insert(access);
                if *entry != access {
                    *entry = Access::ReadWrite;
                }
            }
        }
    });
    uses
}

/// The function argument a value is (a slice of), by number.
pub(super) fn root_argument(value: Value) -> Option<usize> {
    let argument = access::as_argument(through_slices(value).0)?;
    let owner = argument.owner().parent_operation()?;
    (op_name(owner) == "func.func").then(|| argument.argument_number())
}

/// The tensor `value` is a region of: past every `axe.slice` up the chain, with the slices passed.
fn through_slices<'c, 'a>(value: Value<'c, 'a>) -> (Value<'c, 'a>, Vec<OperationRef<'c, 'a>>) {
    let (mut value, mut slices) = (value, Vec::new());
    while let Some(slice) =
        access::defining_op(value).filter(|d| AxeOp::new(*d).is_some_and(|o| o.kind() == OpKind::Slice))
    {
        let Some(source) = access::operand(slice, 0) else { break };
        slices.push(slice);
        value = source;
    }
    (value, slices)
}

/// True for `axe.gemm {accumulate = false}`: it writes c rather than accumulating into it.
pub(super) fn overwrites(op: OperationRef) -> bool {
    op.attribute("accumulate").is_ok_and(|a| a.to_string() == "false")
}

/// True when a loop's iterations depend on each other: some op inside writes a tile made outside it, other than a
/// gemm accumulating into PSUM (which NKI lets `affine_range` iterations do) or a write into a region that moves
/// with the loop by at least its own extent (each iteration its own region: `%v_all[%b * 128, 0] [128, 64]`) of a
/// tile the loop does not also read.
pub(super) fn carries_state(for_op: OperationRef) -> bool {
    let Some(iv) = access::entry_block(for_op).and_then(|b| access::argument(b, 0)) else { return true };
    let iv: Value = iv.into();
    let (mut carried, mut written_regions, mut read) = (false, Vec::new(), Vec::new());
    axe_dialect::ops::walk_preorder(for_op, &mut |op| {
        // A call writes the tiles its callee writes ([`written_parameters`]) and reads the others.
        if op_name(op) == "func.call" {
            let written = written_parameters(op);
            for i in 0..op.operand_count() {
                let Some((root, _)) = access::operand(op, i).and_then(|v| outside_root(for_op, v, iv)) else {
                    continue;
                };
                match written.get(i) {
                    Some(false) => read.push(root),
                    _ => carried = true,
                }
            }
            return;
        }
        // Slices and views name regions; the collective ops read and write them.
        let Some(axe) = AxeOp::new(op).filter(|o| o.kind().is_collective()) else { return };
        let overwrites = overwrites(op);
        for (i, name) in axe.kind().tensor_operand_names().iter().enumerate() {
            let Some((root, own_region)) = access::operand(op, i).and_then(|v| outside_root(for_op, v, iv)) else {
                continue;
            };
            match (*name, axe.kind()) {
                (_, OpKind::Gemm) if *name == "c" && overwrites => carried = true,
                (_, OpKind::Gemm) if *name == "c" => {}
                ("dest", _) if own_region => written_regions.push(root),
                ("dest", _) => carried = true,
                _ => read.push(root),
            }
        }
    });
    carried || written_regions.iter().any(|w| read.contains(w))
}

/// Which parameters of a call's callee its body writes (as a copy's, an elementwise op's or a fill's dest, or an
/// overwriting gemm's c, directly or through slices; a call inside it is taken to write all it is given).
/// Empty when the callee is not a function of the module: then the caller takes every argument as written.
pub(super) fn written_parameters(call: OperationRef) -> Vec<bool> {
    let callee = call.attribute("callee").map(|a| a.to_string()).unwrap_or_default();
    let symbol = format!("\"{}\"", callee.trim_start_matches('@'));
    let mut module = call.parent_operation();
    while let Some(op) = module.filter(|op| op_name(*op) != "builtin.module") {
        module = op.parent_operation();
    }
    let Some(function) = module.and_then(|m| {
        let body = access::entry_block(m)?;
        std::iter::successors(body.first_operation(), |op| op.next_in_block())
            .find(|op| op_name(*op) == "func.func" && op.attribute("sym_name").is_ok_and(|a| a.to_string() == symbol))
    }) else {
        return Vec::new();
    };
    let Some(entry) = access::entry_block(function) else { return Vec::new() };
    let parameters: Vec<usize> = access::arguments(entry).map(|a| key(a.into())).collect();
    let mut written = vec![false; parameters.len()];
    axe_dialect::ops::walk_preorder(function, &mut |op| {
        let targets: Vec<Value> = if op_name(op) == "func.call" {
            (0..op.operand_count()).filter_map(|i| access::operand(op, i)).collect()
        } else if let Some(axe) = AxeOp::new(op).filter(|o| o.kind().is_collective()) {
            let names = axe.kind().tensor_operand_names();
            let target = names.iter().position(|n| *n == "dest" || (*n == "c" && overwrites(op)));
            target.and_then(|i| access::operand(op, i)).into_iter().collect()
        } else {
            Vec::new()
        };
        for value in targets {
            let root = through_slices(value).0;
            if let Some(i) = parameters.iter().position(|&p| p == key(root)) {
                written[i] = true;
            }
        }
    });
    written
}

/// The allocation made outside `for_op` that `value` is (a slice of), by key, and whether some slice on the way
/// moves with the loop by its extent or more ([`moves_with`]); `None` for a tile made inside, or no tile.
pub(super) fn outside_root(for_op: OperationRef, value: Value, iv: Value) -> Option<(usize, bool)> {
    let (root, slices) = through_slices(value);
    let own_region = slices.iter().any(|slice| moves_with(*slice, iv));
    // A helper's parameter is a tile made by its caller, outside every loop of the helper.
    if let Some(argument) = access::as_argument(root) {
        let owner = argument.owner().parent_operation()?;
        return (op_name(owner) == "func.func").then_some((key(root), own_region));
    }
    let alloc = access::defining_op(root)?;
    let outside = AxeOp::new(alloc).is_some_and(|o| o.kind() == OpKind::Alloc) && !encloses(for_op, alloc);
    outside.then_some((key(root), own_region))
}

/// True when one of a slice's run-time offsets depends on `iv` and is a multiple of at least the region's extent
/// along its dimension (so each value of `iv` gives a region of its own).
pub(super) fn moves_with(slice: OperationRef, iv: Value) -> bool {
    let Some(region) = AxeOp::new(slice).and_then(|o| o.slice_region().ok()) else { return false };
    let mut operand_index = 1;
    for (d, offset) in region.offsets.iter().enumerate() {
        if offset.is_some() {
            continue;
        }
        let Some(value) = access::operand(slice, operand_index) else { return false };
        operand_index += 1;
        if depends_on(value, iv, 8) && known_multiple(value) >= region.sizes.get(d).copied().unwrap_or(i64::MAX) {
            return true;
        }
    }
    false
}

/// True when `value` is `iv` or computed from it by ops within `depth` steps.
pub(super) fn depends_on(value: Value, iv: Value, depth: usize) -> bool {
    if key(value) == key(iv) {
        return true;
    }
    let Some(op) = access::defining_op(value).filter(|_| depth > 0) else { return false };
    (0..op.operand_count()).filter_map(|i| access::operand(op, i)).any(|v| depends_on(v, iv, depth - 1))
}

/// True when `op` lies inside `outer`.
pub(super) fn encloses(outer: OperationRef, op: OperationRef) -> bool {
    let mut current = op.parent_operation();
    while let Some(parent) = current {
        if parent == outer {
            return true;
        }
        current = parent.parent_operation();
    }
    false
}
