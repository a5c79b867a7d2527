//! Building upstream ops (`nvgpu`, `nvvm`, `scf`, `memref`, `arith`, `llvm`, `gpu`) where a lowering puts them: the
//! one builder every pass uses.
//!
//! Ops are inserted before an anchor op or appended to a block, and located at the axe op they lower. Nothing here
//! decides a layout fact: what to build comes from the planners' answers.
//!
//! The ops the passes emit in many places, or in more than one lowering, have typed methods: `arith`
//! (arithmetic, casts, constants, comparisons), `memory` (`memref` buffers, loads and stores; `llvm` pointer
//! casts, loads and stores, aggregates and vectors; `tcgen05.ld`/`st`) and `control` (the `gpu` barrier and ids,
//! `scf.yield`, a trap, and the `nvvm` fences, waits and elections more than one lowering emits). Operands are
//! values; a result type is a [`Ty`](super::ty::Ty) or a melior type, and one MLIR infers (`addi`'s is its lhs's,
//! `memref.load`'s the memref's element) is not passed at all. Ops that cannot fail to build (no inference:
//! casts, `select`, `memref.store`, `scf.yield`, `llvm.bitcast`, `llvm.mlir.undef`) come from melior's own
//! dialect builders (`melior::dialect::{arith, memref, scf, llvm}`); the rest build through [`OperationBuilder`]
//! here, because melior's inferring builders panic where inference fails, and a pass reports an error rather than
//! panicking (melior's `gpu` and `nvvm` builders exist only with its `ods-dialects` feature, which the workspace
//! does not enable). The generic [`Builder::op`] and [`Builder::value`] build from the op's name, its result
//! types (typed too) and its attributes as MLIR text: they are for the one-off `nvvm`/`nvgpu`/`llvm` ops, each
//! named once, in the module that lowers to it. Errors here are internal (`internal: ...`): IR the passes build that does not parse or
//! build is a bug of the pass, which the pass's driver reports at the op.

mod arith;
mod control;
mod memory;

use axe_dialect::{access, ffi};
use melior::ir::{
    block::BlockLike, operation::OperationBuilder, operation::OperationLike, Block, BlockRef, Location, Operation,
    OperationRef, Region, RegionLike, Type, Value,
};

use super::ty::{IntoType, Ty};

pub(crate) use control::{Dim, Tcgen05Access, ThreadSync};

/// `#gpu.address_space<workgroup>`: shared memory.
pub(crate) const WORKGROUP: &str = "#gpu.address_space<workgroup>";

/// The predicate of `arith.cmpi`, numbered as the arith dialect numbers it (`arith::CmpIPredicate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cmp {
    /// `eq`.
    Eq = 0,
    /// `slt`: signed less than.
    Slt = 2,
    /// `ult`: unsigned less than.
    Ult = 6,
    /// `uge`: unsigned greater or equal.
    Uge = 9,
}

/// Where new ops go: before an anchor op, or at the end of a block; all located at the lowered op.
#[derive(Clone, Copy)]
pub(crate) struct Builder<'c, 'a> {
    /// Any op of the module: types and attributes parse in its context.
    context: OperationRef<'c, 'a>,
    location: Location<'c>,
    block: BlockRef<'c, 'a>,
    before: Option<OperationRef<'c, 'a>>,
}

impl<'c, 'a> Builder<'c, 'a> {
    /// Inserts before `anchor` (which must be in a block), located at `anchor`.
    pub(crate) fn before(anchor: OperationRef<'c, 'a>) -> Result<Self, String> {
        let block = anchor.block().ok_or("internal: the op is not in a block")?;
        Ok(Builder { context: anchor, location: anchor.location(), block, before: Some(anchor) })
    }

    /// Inserts at the start of `block` (before its first op), located at `location`; `context` is any op.
    pub(crate) fn at_start(context: OperationRef<'c, 'a>, block: BlockRef<'c, 'a>, location: Location<'c>) -> Self {
        Builder { context, location, block, before: block.first_operation() }
    }

    /// The block ops are inserted into.
    pub(crate) fn block(&self) -> BlockRef<'c, 'a> {
        self.block
    }

    /// The same insertion point, with ops located at `location`.
    pub(crate) fn at_location(self, location: Location<'c>) -> Self {
        Builder { location, ..self }
    }

    /// Parses a type (one the passes spell from parts: a vector, a memref, an LLVM struct).
    pub(crate) fn ty(&self, text: &str) -> Result<Type<'c>, String> {
        ffi::parse_type(self.context, text).ok_or_else(|| format!("internal: type {text} does not parse"))
    }

    /// The melior type of `ty`.
    pub(crate) fn resolve(&self, ty: impl IntoType<'c>) -> Result<Type<'c>, String> {
        ty.into_type(self.context)
    }

    /// Inserts `op` at the insertion point.
    fn insert(&self, op: Operation<'c>) -> OperationRef<'c, 'a> {
        match self.before {
            Some(anchor) => self.block.insert_operation_before(anchor, op),
            None => self.block.append_operation(op),
        }
    }

    /// Inserts `op`, which has one result, and returns that result.
    fn insert_value(&self, op: Operation<'c>) -> Result<Value<'c, 'a>, String> {
        let op = self.insert(op);
        access::result(op, 0).ok_or_else(|| {
            format!("internal: {} has no result", op.name().as_string_ref().as_str().unwrap_or_default())
        })
    }

    /// Sets attributes given as MLIR text on `op`.
    fn set_attributes(&self, op: OperationRef<'c, 'a>, attributes: &[(&str, String)]) -> Result<(), String> {
        for (key, text) in attributes {
            let value = ffi::parse_attribute(self.context, text)
                .ok_or_else(|| format!("internal: attribute {text} does not parse"))?;
            ffi::set_attribute(op, key, value);
        }
        Ok(())
    }

    /// Builds and inserts `name(operands) {attributes} : results`, with `regions`.
    fn build(
        &self,
        name: &str,
        operands: &[Value<'c, 'a>],
        results: &[Type<'c>],
        attributes: &[(&str, String)],
        regions: Vec<Region<'c>>,
    ) -> Result<OperationRef<'c, 'a>, String> {
        let op = OperationBuilder::new(name, self.location)
            .add_operands(operands)
            .add_results(results)
            .add_regions_vec(regions)
            .build()
            .map_err(|e| format!("internal: cannot build {name}: {e}"))?;
        let op = self.insert(op);
        self.set_attributes(op, attributes)?;
        Ok(op)
    }

    /// Builds and inserts `name(operands) {attributes}` with the one result MLIR infers for it, and returns that
    /// result.
    fn inferred(
        &self,
        name: &str,
        operands: &[Value<'c, 'a>],
        attributes: &[(&str, String)],
    ) -> Result<Value<'c, 'a>, String> {
        let op = OperationBuilder::new(name, self.location)
            .add_operands(operands)
            .enable_result_type_inference()
            .build()
            .map_err(|e| format!("internal: cannot build {name}: {e}"))?;
        let op = self.insert(op);
        self.set_attributes(op, attributes)?;
        access::result(op, 0).ok_or_else(|| format!("internal: {name} has no result"))
    }

    /// Builds a one-result op whose result type is given, and returns that result.
    fn typed(
        &self,
        name: &str,
        operands: &[Value<'c, 'a>],
        result: impl IntoType<'c>,
        attributes: &[(&str, String)],
    ) -> Result<Value<'c, 'a>, String> {
        let op = self.build(name, operands, &[self.resolve(result)?], attributes, Vec::new())?;
        access::result(op, 0).ok_or_else(|| format!("internal: {name} has no result"))
    }

    /// Builds and inserts `name(operands) {attributes} : results`, with `regions`; the generic form, for the ops
    /// built in one place (see the module docs).
    pub(crate) fn op_with_regions(
        &self,
        name: &str,
        operands: &[Value<'c, 'a>],
        results: &[Type<'c>],
        attributes: &[(&str, String)],
        regions: Vec<Region<'c>>,
    ) -> Result<OperationRef<'c, 'a>, String> {
        self.build(name, operands, results, attributes, regions)
    }

    /// Builds and inserts an op without regions; the generic form, for the ops built in one place.
    pub(crate) fn op(
        &self,
        name: &str,
        operands: &[Value<'c, 'a>],
        results: &[Type<'c>],
        attributes: &[(&str, String)],
    ) -> Result<OperationRef<'c, 'a>, String> {
        self.op_with_regions(name, operands, results, attributes, Vec::new())
    }

    /// Builds an op with one result and returns that result; the generic form, for the ops built in one place.
    pub(crate) fn value(
        &self,
        name: &str,
        operands: &[Value<'c, 'a>],
        result: impl IntoType<'c>,
        attributes: &[(&str, String)],
    ) -> Result<Value<'c, 'a>, String> {
        self.typed(name, operands, result, attributes)
    }

    /// `scf.if %condition { body }` (no results, no else); `body` builds into the then-block before its yield.
    pub(crate) fn guarded(
        &self,
        condition: Value<'c, 'a>,
        body: impl FnOnce(&Builder<'c, 'a>) -> Result<(), String>,
    ) -> Result<(), String> {
        let then = Region::new();
        then.append_block(Block::new(&[]));
        let op = self.build("scf.if", &[condition], &[], &[], vec![then, Region::new()])?;
        let block = access::entry_block(op).ok_or("internal: scf.if has no block")?;
        let inner = Builder { context: self.context, location: self.location, block, before: None };
        body(&inner)?;
        inner.r#yield(&[])
    }
}

/// `operandSegmentSizes` text.
pub(crate) fn segments(sizes: &[usize]) -> String {
    let items: Vec<String> = sizes.iter().map(usize::to_string).collect();
    format!("array<i32: {}>", items.join(", "))
}

/// The text of an integer attribute of type `ty`: `value : ty`.
fn integer(value: i64, ty: Ty) -> String {
    format!("{value} : {ty}")
}

#[cfg(test)]
mod tests;
