//! What a run-time slice offset is known to be a multiple of: the divisibility contract of dynamic TMA offsets.
//!
//! The TMA planner accepts a run-time offset only when it moves the region by whole steps of one coordinate
//! (`axe_layout::tma::plan_dynamic`, rule `dynamic-offset`); for a row-major global tensor any offset does, for a
//! tiled one (64-column panels) the offset must be a multiple of the panel width. The pass proves the multiple
//! from the IR that computes the offset, and nothing else:
//! - `arith.constant c`: `|c|` (a constant offset is folded into the static part instead, see `trace`);
//! - the induction variable of `scf.for %i = %lb to %ub step %s`: `gcd(multiple(lb), multiple(s))`;
//! - a tile's row or column in `axe.tile_loop`: the tile's rows or columns;
//! - `arith.muli a, b`: `multiple(a) * multiple(b)`; `arith.shli a, c`: `multiple(a) << c` for a constant `c`;
//! - `arith.addi` / `arith.subi` / `arith.select`: the gcd of the operands' multiples;
//! - `arith.index_cast` / `arith.index_castui`: the operand's;
//! - anything else (block and thread ids, kernel arguments, loads): 1.
//!
//! So the user states divisibility by writing it: `%m0 = arith.muli %bid, %c128` is a multiple of 128, and a loop
//! `scf.for %k = %c0 to %K step %c64` steps by 64. The walk stops after [`MAX_DEPTH`] ops (answering 1), so each
//! offset costs O(1) in module size.

use axe_dialect::access;
use melior::ir::{block::BlockLike, operation::OperationLike, Value};

/// How many defining ops the walk follows before answering 1.
pub(super) const MAX_DEPTH: usize = 16;

/// The integer value of an `index` or integer `arith.constant`.
pub(crate) use access::constant_int as constant;

/// A number the IR shows `value` to be a multiple of (at least 1; `2^62` for a value known to be 0, a multiple
/// of everything).
pub(crate) fn known_multiple(value: Value) -> i64 {
    match multiple(value, MAX_DEPTH) {
        Some(0) => 1 << 62,
        Some(m) => m,
        None => 1,
    }
}

/// A multiple of `a * b` given multiples `a` of one factor and `b` of the other (the larger one on overflow).
fn product(a: i64, b: i64) -> i64 {
    a.checked_mul(b).unwrap_or(a.max(b))
}

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    i64::try_from(a).unwrap_or(1)
}

/// `Some(m)` with `value` a multiple of `m` (0: the value is 0); `None` when nothing is known.
fn multiple(value: Value, depth: usize) -> Option<i64> {
    if depth == 0 {
        return None;
    }
    if let Some(c) = constant(value) {
        return Some(c.checked_abs().unwrap_or(1));
    }
    let operand = |op, index| access::operand(op, index).and_then(|v| multiple(v, depth - 1)).unwrap_or(1);
    if let Some(argument) = access::as_argument(value) {
        let block = argument.owner();
        let parent = block.parent_operation()?;
        if parent.name().as_string_ref().as_str() == Ok(axe_dialect::OpKind::TileLoop.name()) {
            let tile = axe_dialect::tile_loop::check(parent).ok()?.tile;
            return tile.get(argument.argument_number()).copied();
        }
        if parent.name().as_string_ref().as_str() != Ok("scf.for") || argument.argument_number() != 0 {
            return None;
        }
        // scf.for operands: lower bound, upper bound, step.
        return Some(gcd(operand(parent, 0), operand(parent, 2)));
    }
    let op = access::defining_op(value)?;
    let name = op.name();
    match name.as_string_ref().as_str().ok()? {
        "arith.muli" => Some(product(operand(op, 0), operand(op, 1))),
        "arith.shli" => {
            let shift = access::operand(op, 1).and_then(constant).filter(|s| (0..62).contains(s))?;
            Some(product(operand(op, 0), 1 << shift))
        }
        "arith.addi" | "arith.subi" => Some(gcd(operand(op, 0), operand(op, 1))),
        "arith.select" => Some(gcd(operand(op, 1), operand(op, 2))),
        "arith.index_cast" | "arith.index_castui" => Some(operand(op, 0)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axe_dialect::{create_context, ops::walk_preorder, parse_module};

    #[test]
    fn multiples_follow_the_arithmetic() {
        let source = r#"func.func @f(%n: index, %x: index) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c96 = arith.constant 96 : index
  %c128 = arith.constant 128 : index
  %bid = gpu.block_id x
  %m0 = arith.muli %bid, %c128 : index
  %s = arith.shli %x, %c3 : index
  %sum = arith.addi %m0, %c96 : index
  %zero = arith.muli %x, %c0 : index
  scf.for %k = %c6 to %n step %c96 {
    "test.use"(%m0, %s, %sum, %bid, %zero, %k) : (index, index, index, index, index, index) -> ()
  }
  return
}"#;
        let context = create_context().expect("context");
        context.context().set_allow_unregistered_dialects(true);
        let module = parse_module(&context, source, "t.mlir").expect("parses");
        let mut found = Vec::new();
        walk_preorder(module.as_operation(), &mut |op| {
            if op.name().as_string_ref().as_str() == Ok("test.use") {
                found = (0..6).filter_map(|i| access::operand(op, i)).map(known_multiple).collect();
            }
        });
        // m0 = bid * 128; x << 3; gcd(128, 96); a block id; x * 0 (a multiple of everything); gcd(6, 96).
        assert_eq!(found, vec![128, 8, 32, 1, 1 << 62, 6]);
    }
}
