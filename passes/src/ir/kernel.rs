//! What a kernel declares about its launch (the dialect's reader, shared with the verifier).

pub(crate) use axe_dialect::kernel::known_block;

use axe_dialect::access;
use axe_layout::hw::expr::Expr;
use melior::ir::{operation::OperationLike, OperationRef, Value};

/// The index of the kernel argument `value` is (looking through integer casts that keep a non-negative value),
/// when `op` is in a `gpu.func` kernel and `value` is an argument of its entry block.
pub(crate) fn kernel_argument(op: OperationRef, value: Value) -> Option<usize> {
    let mut value = value;
    while let Some(cast) = access::defining_op(value) {
        let name = cast.name();
        let keeps = matches!(
            name.as_string_ref().as_str(),
            Ok("arith.index_cast" | "arith.index_castui" | "arith.extui" | "arith.extsi")
        );
        value = if keeps { axe_dialect::access::operand(cast, 0)? } else { return None };
    }
    let kernel = axe_dialect::ops::enclosing_function(op)?;
    if kernel.name().as_string_ref().as_str() != Ok("gpu.func") || !kernel.has_attribute("gpu.kernel") {
        return None;
    }
    let argument = axe_dialect::access::as_argument(value)?;
    let index = argument.argument_number();
    let entry = axe_dialect::access::entry_block(kernel)?;
    (axe_dialect::access::argument(entry, index).map(Value::from) == Some(value)).then_some(index)
}

/// `value` as an expression of the kernel's arguments, for the host to evaluate at launch (a tensor map's or a
/// view's extent): a kernel argument, a non-negative integer constant, casts between integer types,
/// `arith.addi`, `arith.muli`, `arith.ceildivui`, and the rounding-up idiom `(x + (c - 1)) / c` (`arith.divui` of
/// an `arith.addi`) as `ceildiv(x, c)`. `None` for anything else (a floor division, which the launch record's
/// exact `/` cannot say). `op` is any op inside the kernel.
pub(crate) fn argument_expression(op: OperationRef, value: Value) -> Option<Expr> {
    if let Some(index) = kernel_argument(op, value) {
        return Some(Expr::Arg(index));
    }
    if let Some(c) = access::constant_int(value) {
        return (c >= 0).then_some(Expr::Int(c));
    }
    let def = access::defining_op(value)?;
    let name = def.name().as_string_ref().as_str().ok()?.to_string();
    let sub = |i: usize| argument_expression(op, access::operand(def, i)?);
    let pair = |f: fn(Box<Expr>, Box<Expr>) -> Expr| Some(f(Box::new(sub(0)?), Box::new(sub(1)?)));
    match name.as_str() {
        "arith.index_cast" | "arith.index_castui" | "arith.extui" | "arith.extsi" => sub(0),
        "arith.addi" => pair(Expr::Add),
        "arith.muli" => pair(Expr::Mul),
        "arith.ceildivui" => pair(Expr::CeilDiv),
        "arith.divui" => {
            let c = access::constant_int(access::operand(def, 1)?).filter(|&c| c >= 1)?;
            let sum = access::defining_op(access::operand(def, 0)?)?;
            if sum.name().as_string_ref().as_str() != Ok("arith.addi") {
                return None;
            }
            let (x, y) = (access::operand(sum, 0)?, access::operand(sum, 1)?);
            let x = match (access::constant_int(x), access::constant_int(y)) {
                (_, Some(d)) if d == c - 1 => x,
                (Some(d), _) if d == c - 1 => y,
                _ => return None,
            };
            Some(Expr::CeilDiv(Box::new(argument_expression(op, x)?), Box::new(Expr::Int(c))))
        }
        _ => None,
    }
}
