//! Bounds-checked access to operands, results, regions and block arguments, in O(1).
//!
//! melior's indexed getters (`OperationLike::operand`, `result`, `region`, `BlockLike::argument`) and its
//! `TryFrom<Value>` conversions put the *printed* op, block or value into the error they return on a miss.
//! Printing an op builds an `AsmState` over its enclosing isolated region and verifies it, so one miss costs
//! time proportional to the module, and a pass that probes every op (`result(0)` on an op without results)
//! becomes quadratic. Every probe in the workspace goes through this module instead, which checks the count
//! first and never prints; `clippy.toml` forbids the melior getters everywhere else.

// The one place allowed to call the getters: every call below is checked against the count first.
#![allow(clippy::disallowed_methods)]

use melior::ir::{
    block::{BlockArgument, BlockLike},
    operation::{OperationLike, OperationResult},
    BlockRef, OperationRef, RegionLike, RegionRef, Value, ValueLike,
};

/// An op's identity for hash maps: two refs to one op have the same key, for as long as the op lives.
///
/// `OperationRef` compares through the C API and cannot be hashed; passes that look ops up per op (the buffer of
/// an alloc, the state of a kernel) key maps by this instead of searching a list, so they stay linear.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpKey(usize);

/// The identity of `op` (see [`OpKey`]).
pub fn key(op: OperationRef) -> OpKey {
    OpKey(op.to_raw().ptr as usize)
}

/// Operand `index` of `op`, when it has one.
pub fn operand<'c, 'a>(op: OperationRef<'c, 'a>, index: usize) -> Option<Value<'c, 'a>> {
    (index < op.operand_count()).then(|| op.operand(index).ok()).flatten()
}

/// Result `index` of `op`, as a value, when it has one.
pub fn result<'c, 'a>(op: OperationRef<'c, 'a>, index: usize) -> Option<Value<'c, 'a>> {
    (index < op.result_count()).then(|| op.result(index).ok().map(Value::from)).flatten()
}

/// Region `index` of `op`, when it has one.
pub fn region<'c, 'a>(op: OperationRef<'c, 'a>, index: usize) -> Option<RegionRef<'c, 'a>> {
    (index < op.region_count()).then(|| op.region(index).ok()).flatten()
}

/// The first block of `op`'s first region (a function's entry block, the then-block of an `scf.if`).
pub fn entry_block<'c, 'a>(op: OperationRef<'c, 'a>) -> Option<BlockRef<'c, 'a>> {
    region(op, 0)?.first_block()
}

/// Argument `index` of `block`, when it has one.
pub fn argument<'c, 'a>(block: BlockRef<'c, 'a>, index: usize) -> Option<BlockArgument<'c, 'a>> {
    (index < block.argument_count()).then(|| block.argument(index).ok()).flatten()
}

/// Every argument of `block`, in order.
pub fn arguments<'c, 'a>(block: BlockRef<'c, 'a>) -> impl Iterator<Item = BlockArgument<'c, 'a>> {
    (0..block.argument_count()).filter_map(move |index| argument(block, index))
}

/// Every block of every region of `op`, in IR order.
pub fn blocks<'c, 'a>(op: OperationRef<'c, 'a>) -> impl Iterator<Item = BlockRef<'c, 'a>> {
    (0..op.region_count()).filter_map(move |index| region(op, index)).flat_map(|region| {
        std::iter::successors(region.first_block(), |block: &BlockRef<'c, 'a>| block.next_in_region())
    })
}

/// The op that defines `value`, when it is an op result (not a block argument).
pub fn defining_op<'c, 'a>(value: Value<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    if !value.is_operation_result() {
        return None;
    }
    OperationResult::try_from(value).ok().map(|result| result.owner())
}

/// `value` as a block argument, when it is one.
pub fn as_argument<'c, 'a>(value: Value<'c, 'a>) -> Option<BlockArgument<'c, 'a>> {
    if !value.is_block_argument() {
        return None;
    }
    BlockArgument::try_from(value).ok()
}

/// The integer value of an `index` or integer `arith.constant` (`None` for any other value).
pub fn constant_int(value: Value) -> Option<i64> {
    let op = defining_op(value)?;
    if op.name().as_string_ref().as_str() != Ok("arith.constant") {
        return None;
    }
    let text = op.attribute("value").ok()?.to_string();
    text.split(':').next()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{create_context, parse_module};

    #[test]
    fn misses_are_none_and_hits_are_the_values() {
        let context = create_context().expect("context");
        let source = "func.func @f(%a: i32) -> i32 {\n  %b = arith.addi %a, %a : i32\n  return %b : i32\n}\n";
        let module = parse_module(&context, source, "t.mlir").expect("parses");
        let func = module.body().first_operation().expect("func");
        let entry = entry_block(func).expect("entry block");
        let add = entry.first_operation().expect("addi");
        let a = argument(entry, 0).expect("argument 0");
        assert!(argument(entry, 1).is_none());
        assert_eq!(operand(add, 0), Some(Value::from(a)));
        assert_eq!(operand(add, 1), Some(Value::from(a)));
        assert!(operand(add, 2).is_none());
        let b = result(add, 0).expect("result 0");
        assert!(result(add, 1).is_none());
        assert_eq!(defining_op(b), Some(add));
        assert!(defining_op(a.into()).is_none());
        assert!(as_argument(a.into()).is_some() && as_argument(b).is_none());
        assert!(region(add, 0).is_none() && region(func, 1).is_none());
        assert_eq!(blocks(func).count(), 1);
        assert_eq!(arguments(entry).count(), 1);
    }
}
