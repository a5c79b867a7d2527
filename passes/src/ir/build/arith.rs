//! Typed `arith` ops: the integer and float arithmetic, casts, constants, comparisons and selects the lowerings
//! compute addresses, indices and values with. A binary op's result has its operands' type (MLIR infers it); a
//! cast names the type it casts to.

use melior::{dialect::arith, ir::Value};

use super::{integer, Builder, Cmp};
use crate::ir::ty::{IntoType, Ty};

/// Typed methods for binary ops `arith.<name>`, the result type inferred (built here rather than by melior's
/// `arith::addi` and the like, which panic where inference fails: the op's dialect not loaded, say).
macro_rules! binary {
    ($($name:ident: $doc:literal,)*) => {
        $(
            #[doc = $doc]
            pub(crate) fn $name(&self, lhs: Value<'c, 'a>, rhs: Value<'c, 'a>) -> Result<Value<'c, 'a>, String> {
                self.inferred(concat!("arith.", stringify!($name)), &[lhs, rhs], &[])
            }
        )*
    };
}

/// Typed methods for the casts melior builds (`melior::dialect::arith`), to a given type.
macro_rules! cast {
    ($($name:ident: $doc:literal,)*) => {
        $(
            #[doc = $doc]
            pub(crate) fn $name(&self, value: Value<'c, 'a>, to: impl IntoType<'c>) -> Result<Value<'c, 'a>, String> {
                self.insert_value(arith::$name(value, self.resolve(to)?, self.location))
            }
        )*
    };
}

impl<'c, 'a> Builder<'c, 'a> {
    binary! {
        addi: "`arith.addi lhs, rhs`.",
        subi: "`arith.subi lhs, rhs`.",
        muli: "`arith.muli lhs, rhs`.",
        andi: "`arith.andi lhs, rhs`.",
        ori: "`arith.ori lhs, rhs`.",
        xori: "`arith.xori lhs, rhs`.",
        shli: "`arith.shli lhs, rhs`: `lhs << rhs`.",
        shrui: "`arith.shrui lhs, rhs`: `lhs >> rhs`, unsigned.",
        remui: "`arith.remui lhs, rhs`: the unsigned remainder.",
        divui: "`arith.divui lhs, rhs`: the unsigned quotient.",
        divsi: "`arith.divsi lhs, rhs`: the signed quotient, rounded toward zero.",
        maxsi: "`arith.maxsi lhs, rhs`: the signed maximum.",
        minui: "`arith.minui lhs, rhs`: the unsigned minimum.",
        maximumf: "`arith.maximumf lhs, rhs`: the maximum, NaN if either is.",
        addf: "`arith.addf lhs, rhs`.",
        subf: "`arith.subf lhs, rhs`.",
        mulf: "`arith.mulf lhs, rhs`.",
        divf: "`arith.divf lhs, rhs`: IEEE division, rounded once.",
    }

    cast! {
        index_cast: "`arith.index_cast`: between `index` and an integer, sign-extending or truncating.",
        index_castui: "`arith.index_castui`: between `index` and an integer, zero-extending or truncating.",
        extui: "`arith.extui`: zero-extends an integer.",
        trunci: "`arith.trunci`: truncates an integer.",
        bitcast: "`arith.bitcast`: the same bits as another type of the same width.",
        extf: "`arith.extf`: widens a float.",
        truncf: "`arith.truncf`: narrows a float.",
    }

    /// `arith.select condition, if_true, if_false`.
    pub(crate) fn select(
        &self,
        condition: Value<'c, 'a>,
        if_true: Value<'c, 'a>,
        if_false: Value<'c, 'a>,
    ) -> Result<Value<'c, 'a>, String> {
        self.insert_value(arith::select(condition, if_true, if_false, self.location))
    }

    /// `arith.cmpi predicate, lhs, rhs` (an `i1`).
    pub(crate) fn cmpi(&self, predicate: Cmp, lhs: Value<'c, 'a>, rhs: Value<'c, 'a>) -> Result<Value<'c, 'a>, String> {
        self.typed("arith.cmpi", &[lhs, rhs], Ty::I1, &[("predicate", integer(predicate as i64, Ty::I64))])
    }

    /// `llvm.intr.fma a, b, c`: `a * b + c` with one rounding (`fma.rn` on NVPTX). Not `math.fma`, which
    /// `convert-gpu-to-nvvm` turns into a call of libdevice's `__nv_fmaf`, which nothing links.
    pub(crate) fn fma(&self, a: Value<'c, 'a>, b: Value<'c, 'a>, c: Value<'c, 'a>) -> Result<Value<'c, 'a>, String> {
        self.inferred("llvm.intr.fma", &[a, b, c], &[])
    }

    /// `arith.constant <value> : <ty>`.
    pub(crate) fn constant(&self, value: i64, ty: Ty) -> Result<Value<'c, 'a>, String> {
        self.typed("arith.constant", &[], ty, &[("value", integer(value, ty))])
    }

    /// `arith.constant 0 : <element>`: the zero of an integer or float element type named as MLIR prints it.
    pub(crate) fn zero(&self, element: &str) -> Result<Value<'c, 'a>, String> {
        let integer = element.starts_with('i') && element[1..].chars().all(|c| c.is_ascii_digit());
        let value = if integer { format!("0 : {element}") } else { format!("0.0 : {element}") };
        self.typed("arith.constant", &[], self.ty(element)?, &[("value", value)])
    }

    /// `arith.constant <value> : index`.
    pub(crate) fn index(&self, value: i64) -> Result<Value<'c, 'a>, String> {
        self.constant(value, Ty::Index)
    }
}
