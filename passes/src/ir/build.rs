//! Building upstream ops (`nvgpu`, `nvvm`, `scf`, `memref`, `arith`, `llvm`) where a lowering puts them: the one
//! builder every pass uses.
//!
//! Every op is built in generic form from MLIR text (types and attributes parse through the context), inserted
//! before an anchor op or appended to a block, and located at the axe op it lowers. Nothing here decides a layout
//! fact: what to build comes from the planners' answers. Its errors are internal (`internal: ...`): text the
//! passes write that does not parse is a bug of the pass, which the pass's driver reports at the op.

use axe_dialect::{access, ffi};
use melior::ir::{
    block::BlockLike, operation::OperationLike, Block, BlockRef, Location, OperationRef, Region, RegionLike, Type,
    Value,
};

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

    /// Parses a type.
    pub(crate) fn ty(&self, text: &str) -> Result<Type<'c>, String> {
        ffi::parse_type(self.context, text).ok_or_else(|| format!("internal: type {text} does not parse"))
    }

    /// `arith.cmpi predicate, lhs, rhs` (an `i1`).
    pub(crate) fn cmpi(&self, predicate: Cmp, lhs: Value<'c, 'a>, rhs: Value<'c, 'a>) -> Result<Value<'c, 'a>, String> {
        self.value("arith.cmpi", &[lhs, rhs], "i1", &[("predicate", format!("{} : i64", predicate as i64))])
    }

    /// Builds and inserts `name(operands) {attributes} : results`, with `regions`.
    pub(crate) fn op_with_regions(
        &self,
        name: &str,
        operands: &[Value<'c, 'a>],
        results: &[&str],
        attributes: &[(&str, String)],
        regions: Vec<Region<'c>>,
    ) -> Result<OperationRef<'c, 'a>, String> {
        let results = results.iter().map(|t| self.ty(t)).collect::<Result<Vec<_>, _>>()?;
        let op = melior::ir::operation::OperationBuilder::new(name, self.location)
            .add_operands(operands)
            .add_results(&results)
            .add_regions_vec(regions)
            .build()
            .map_err(|e| format!("internal: cannot build {name}: {e}"))?;
        let op = match self.before {
            Some(anchor) => self.block.insert_operation_before(anchor, op),
            None => self.block.append_operation(op),
        };
        for (key, text) in attributes {
            let value = ffi::parse_attribute(self.context, text)
                .ok_or_else(|| format!("internal: attribute {text} does not parse"))?;
            ffi::set_attribute(op, key, value);
        }
        Ok(op)
    }

    /// Builds and inserts an op without regions.
    pub(crate) fn op(
        &self,
        name: &str,
        operands: &[Value<'c, 'a>],
        results: &[&str],
        attributes: &[(&str, String)],
    ) -> Result<OperationRef<'c, 'a>, String> {
        self.op_with_regions(name, operands, results, attributes, Vec::new())
    }

    /// Builds an op with one result and returns that result.
    pub(crate) fn value(
        &self,
        name: &str,
        operands: &[Value<'c, 'a>],
        result: &str,
        attributes: &[(&str, String)],
    ) -> Result<Value<'c, 'a>, String> {
        let op = self.op(name, operands, &[result], attributes)?;
        access::result(op, 0).ok_or_else(|| format!("internal: {name} has no result"))
    }

    /// `arith.constant <value> : <ty>`.
    pub(crate) fn constant(&self, value: i64, ty: &str) -> Result<Value<'c, 'a>, String> {
        self.value("arith.constant", &[], ty, &[("value", format!("{value} : {ty}"))])
    }

    /// `arith.constant <value> : index`.
    pub(crate) fn index(&self, value: i64) -> Result<Value<'c, 'a>, String> {
        self.constant(value, "index")
    }

    /// `scf.if %condition { body }` (no results, no else); `body` builds into the then-block before its yield.
    pub(crate) fn guarded(
        &self,
        condition: Value<'c, 'a>,
        body: impl FnOnce(&Builder<'c, 'a>) -> Result<(), String>,
    ) -> Result<(), String> {
        let then = Region::new();
        then.append_block(Block::new(&[]));
        let op = self.op_with_regions("scf.if", &[condition], &[], &[], vec![then, Region::new()])?;
        let block = access::entry_block(op).ok_or("internal: scf.if has no block")?;
        let inner = Builder { context: self.context, location: self.location, block, before: None };
        body(&inner)?;
        inner.op("scf.yield", &[], &[], &[])?;
        Ok(())
    }
}

/// `operandSegmentSizes` text.
pub(crate) fn segments(sizes: &[usize]) -> String {
    let items: Vec<String> = sizes.iter().map(usize::to_string).collect();
    format!("array<i32: {}>", items.join(", "))
}
