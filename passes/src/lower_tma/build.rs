//! IR building for `--lower-tma`: the upstream `nvgpu`/`nvvm`/`scf`/`memref` ops one planned copy becomes.
//!
//! Every op is built in generic form from MLIR text (types and attributes parse through the context), inserted
//! before an anchor op or appended to a block, and located at the axe op it lowers. Nothing here decides a layout
//! fact: descriptor fields, coordinates, byte offsets and counts all come from `axe_layout::tma::TmaPlan`.

use axe_dialect::{access, ffi};
use axe_layout::{
    tma::{Interleave, L2Promotion, OobFill, TensorMapDataType, TensorMapDesc},
    SwizzleMode,
};
use melior::ir::{
    block::BlockLike, operation::OperationLike, Block, BlockRef, Location, OperationRef, Region, RegionLike, Type,
    Value,
};

/// `#gpu.address_space<workgroup>`: shared memory.
pub(crate) const WORKGROUP: &str = "#gpu.address_space<workgroup>";
/// The nvgpu barrier type the axe mbarriers become (one mbarrier per group).
pub(super) const BARRIER_TYPE: &str = "!nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>";
/// Suspend-time hint of `mbarrier.try_wait.parity` in nanoseconds (the value upstream's examples use).
pub(super) const TRY_WAIT_TICKS: i64 = 10_000_000;

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
        let block = anchor.block().ok_or("tma: op is not in a block")?;
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
        ffi::parse_type(self.context, text).ok_or_else(|| format!("tma: internal: type {text} does not parse"))
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
            .map_err(|e| format!("tma: internal: cannot build {name}: {e}"))?;
        let op = match self.before {
            Some(anchor) => self.block.insert_operation_before(anchor, op),
            None => self.block.append_operation(op),
        };
        for (key, text) in attributes {
            let value = ffi::parse_attribute(self.context, text)
                .ok_or_else(|| format!("tma: internal: attribute {text} does not parse"))?;
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
        access::result(op, 0).ok_or_else(|| format!("tma: internal: {name} has no result"))
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
        let block = access::entry_block(op).ok_or("tma: internal: scf.if has no block")?;
        let inner = Builder { context: self.context, location: self.location, block, before: None };
        body(&inner)?;
        inner.op("scf.yield", &[], &[], &[])?;
        Ok(())
    }
}

/// The MLIR element type that has the descriptor type's size (the box memref's element type).
pub(super) fn mlir_element(data_type: TensorMapDataType) -> &'static str {
    match data_type {
        TensorMapDataType::Uint8 => "i8",
        TensorMapDataType::Uint16 => "i16",
        TensorMapDataType::Float16 => "f16",
        TensorMapDataType::Bfloat16 => "bf16",
        TensorMapDataType::Uint32 | TensorMapDataType::Int32 => "i32",
        TensorMapDataType::Float32
        | TensorMapDataType::Float32Ftz
        | TensorMapDataType::Tfloat32
        | TensorMapDataType::Tfloat32Ftz => "f32",
        TensorMapDataType::Uint64 | TensorMapDataType::Int64 => "i64",
        TensorMapDataType::Float64 => "f64",
    }
}

/// The shared-memory memref one box fills: box dims outermost first, in the descriptor's element type.
pub(super) fn box_memref(desc: &TensorMapDesc) -> String {
    let dims: Vec<String> = desc.box_dims.iter().rev().map(u32::to_string).collect();
    format!("memref<{}x{}, {WORKGROUP}>", dims.join("x"), mlir_element(desc.data_type))
}

/// `!nvgpu.tensormap.descriptor<...>` for `desc` (the device-side type of the kernel argument).
pub(super) fn descriptor_type(desc: &TensorMapDesc) -> String {
    let swizzle = match desc.swizzle {
        SwizzleMode::None => "none",
        SwizzleMode::B32 => "swizzle_32b",
        SwizzleMode::B64 => "swizzle_64b",
        SwizzleMode::B128 => "swizzle_128b",
    };
    let l2 = match desc.l2_promotion {
        L2Promotion::None => "none",
        L2Promotion::L64B => "l2promo_64b",
        L2Promotion::L128B => "l2promo_128b",
        L2Promotion::L256B => "l2promo_256b",
    };
    let oob = match desc.oob_fill {
        OobFill::None => "zero",
        OobFill::NanRequestZeroFma => "nan",
    };
    let interleave = match desc.interleave {
        Interleave::None => "none",
        Interleave::B16 => "interleave_16b",
        Interleave::B32 => "interleave_32b",
    };
    format!(
        "!nvgpu.tensormap.descriptor<tensor = {}, swizzle = {swizzle}, l2promo = {l2}, oob = {oob}, interleave = \
         {interleave}>",
        box_memref(desc)
    )
}

/// The attributes of `axe.tma_descriptor`: every `cuTensorMapEncodeTiled` field, arrays innermost first, enums
/// as the CUDA driver numbers them.
pub(super) fn descriptor_attributes(desc: &TensorMapDesc, global_offset_bytes: u64) -> Vec<(&'static str, String)> {
    fn array<T: ToString>(values: &[T]) -> String {
        let items: Vec<String> = values.iter().map(T::to_string).collect();
        if items.is_empty() {
            "array<i64>".to_string()
        } else {
            format!("array<i64: {}>", items.join(", "))
        }
    }
    vec![
        ("data_type", format!("{} : i32", desc.data_type.code())),
        ("rank", format!("{} : i32", desc.rank)),
        ("global_dims", array(&desc.global_dims)),
        ("global_strides_bytes", array(&desc.global_strides_bytes)),
        ("box_dims", array(&desc.box_dims)),
        ("element_strides", array(&desc.element_strides)),
        ("interleave", format!("{} : i32", desc.interleave as u32)),
        ("swizzle", format!("{} : i32", desc.swizzle as u32)),
        ("l2_promotion", format!("{} : i32", desc.l2_promotion as u32)),
        ("oob_fill", format!("{} : i32", desc.oob_fill as u32)),
        ("global_offset_bytes", format!("{global_offset_bytes} : i64")),
    ]
}

/// `operandSegmentSizes` text.
pub(crate) fn segments(sizes: &[usize]) -> String {
    let items: Vec<String> = sizes.iter().map(usize::to_string).collect();
    format!("array<i32: {}>", items.join(", "))
}
