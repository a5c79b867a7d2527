//! Typed memory ops: `memref` buffers, loads and stores; `llvm` pointer casts, loads and stores; tensor-memory
//! loads and stores (`tcgen05.ld`/`st`); and the `llvm` aggregate and vector ops that pack and unpack the values
//! moved. A result type MLIR infers (a loaded memref
//! element, an extracted vector element, an updated aggregate) is not passed; a pointer's is its address space.

use axe_layout::copy::TmemShape;
use melior::{
    dialect::{llvm, memref},
    ir::Value,
};

use super::{integer, segments, Builder};
use crate::ir::ty::{AddressSpace, IntoType, Ty};

/// `array<i64: index>`: the position of a field of an LLVM struct.
fn position(index: usize) -> String {
    format!("array<i64: {index}>")
}

/// The NVVM spelling of a tensor-memory access shape.
fn tmem_shape(shape: TmemShape) -> String {
    format!("#nvvm.tcgen05_ldst_shape<shape_{}>", shape.name())
}

/// The `alignment` attribute of an `llvm.load`/`llvm.store`, when given.
fn alignment(bytes: Option<i64>) -> Vec<(&'static str, String)> {
    bytes.map(|bytes| ("alignment", integer(bytes, Ty::I64))).into_iter().collect()
}

impl<'c, 'a> Builder<'c, 'a> {
    /// `memref.load memref[indices]` (the memref's element type).
    pub(crate) fn load(&self, memref: Value<'c, 'a>, indices: &[Value<'c, 'a>]) -> Result<Value<'c, 'a>, String> {
        self.inferred("memref.load", &[&[memref], indices].concat(), &[])
    }

    /// `memref.store value, memref[indices]`.
    pub(crate) fn store(
        &self,
        value: Value<'c, 'a>,
        memref: Value<'c, 'a>,
        indices: &[Value<'c, 'a>],
    ) -> Result<(), String> {
        self.insert(memref::store(value, memref, indices, self.location));
        Ok(())
    }

    /// `memref.global "private" @name : memref {alignment}` at the insertion point (the start of a symbol
    /// table): an uninitialised buffer.
    pub(crate) fn global(&self, name: &str, memref: impl IntoType<'c>, alignment: i64) -> Result<(), String> {
        let attributes = [
            ("sym_name", format!("\"{name}\"")),
            ("sym_visibility", "\"private\"".to_string()),
            ("type", self.resolve(memref)?.to_string()),
            ("alignment", integer(alignment, Ty::I64)),
        ];
        self.build("memref.global", &[], &[], &attributes, Vec::new()).map(drop)
    }

    /// `memref.get_global @name : memref`.
    pub(crate) fn get_global(&self, name: &str, memref: impl IntoType<'c>) -> Result<Value<'c, 'a>, String> {
        self.typed("memref.get_global", &[], memref, &[("name", format!("@{name}"))])
    }

    /// `memref.extract_aligned_pointer_as_index memref`: the buffer's address as an `index`.
    pub(crate) fn aligned_pointer(&self, memref: Value<'c, 'a>) -> Result<Value<'c, 'a>, String> {
        self.typed("memref.extract_aligned_pointer_as_index", &[memref], Ty::Index, &[])
    }

    /// `memref.alloca() : memref` (a static shape: no dynamic sizes or symbols).
    pub(crate) fn alloca(&self, memref: impl IntoType<'c>) -> Result<Value<'c, 'a>, String> {
        self.typed("memref.alloca", &[], memref, &[("operandSegmentSizes", segments(&[0, 0]))])
    }

    /// `memref.view source[byte_shift][] : memref` (a static shape).
    pub(crate) fn view(
        &self,
        source: Value<'c, 'a>,
        byte_shift: Value<'c, 'a>,
        memref: impl IntoType<'c>,
    ) -> Result<Value<'c, 'a>, String> {
        self.typed("memref.view", &[source, byte_shift], memref, &[])
    }

    /// `axe.view source : tensor`: storage (a memref or pointer) seen as an axe tensor type again, where a
    /// lowering hands an alloc it lowered on to a pass that lowers the alloc's other users.
    pub(crate) fn axe_view(&self, source: Value<'c, 'a>, tensor: impl IntoType<'c>) -> Result<Value<'c, 'a>, String> {
        self.typed("axe.view", &[source], tensor, &[])
    }

    /// `llvm.ptrtoint pointer : to` (an integer type).
    pub(crate) fn ptrtoint(&self, pointer: Value<'c, 'a>, to: Ty) -> Result<Value<'c, 'a>, String> {
        self.typed("llvm.ptrtoint", &[pointer], to, &[])
    }

    /// `llvm.inttoptr address : !llvm.ptr<space>`.
    pub(crate) fn inttoptr(&self, address: Value<'c, 'a>, space: AddressSpace) -> Result<Value<'c, 'a>, String> {
        self.typed("llvm.inttoptr", &[address], Ty::Ptr(space), &[])
    }

    /// `llvm.addrspacecast pointer : !llvm.ptr<space>`.
    pub(crate) fn addrspacecast(&self, pointer: Value<'c, 'a>, space: AddressSpace) -> Result<Value<'c, 'a>, String> {
        self.typed("llvm.addrspacecast", &[pointer], Ty::Ptr(space), &[])
    }

    /// `llvm.bitcast value : to`: the same bits as another type of the same width (vectors included).
    pub(crate) fn llvm_bitcast(&self, value: Value<'c, 'a>, to: impl IntoType<'c>) -> Result<Value<'c, 'a>, String> {
        self.insert_value(llvm::bitcast(value, self.resolve(to)?, self.location))
    }

    /// `llvm.load pointer : ty`, with the alignment in bytes when given.
    pub(crate) fn llvm_load(
        &self,
        pointer: Value<'c, 'a>,
        ty: impl IntoType<'c>,
        align: Option<i64>,
    ) -> Result<Value<'c, 'a>, String> {
        self.typed("llvm.load", &[pointer], ty, &alignment(align))
    }

    /// `llvm.store value, pointer`, with the alignment in bytes when given.
    pub(crate) fn llvm_store(
        &self,
        value: Value<'c, 'a>,
        pointer: Value<'c, 'a>,
        align: Option<i64>,
    ) -> Result<(), String> {
        self.build("llvm.store", &[value, pointer], &[], &alignment(align), Vec::new()).map(drop)
    }

    /// `nvvm.tcgen05.ld pointer` of `shape` (`.x<num>` in the result's width): each thread's registers, an `i32`
    /// or a `vector<N x i32>`.
    pub(crate) fn tcgen05_ld(
        &self,
        pointer: Value<'c, 'a>,
        shape: TmemShape,
        registers: impl IntoType<'c>,
    ) -> Result<Value<'c, 'a>, String> {
        self.typed("nvvm.tcgen05.ld", &[pointer], registers, &[("shape", tmem_shape(shape))])
    }

    /// `nvvm.tcgen05.st pointer, value` of `shape`: each thread's registers into tensor memory.
    pub(crate) fn tcgen05_st(
        &self,
        pointer: Value<'c, 'a>,
        value: Value<'c, 'a>,
        shape: TmemShape,
    ) -> Result<(), String> {
        self.build("nvvm.tcgen05.st", &[pointer, value], &[], &[("shape", tmem_shape(shape))], Vec::new()).map(drop)
    }

    /// `llvm.mlir.undef : ty`.
    pub(crate) fn undef(&self, ty: impl IntoType<'c>) -> Result<Value<'c, 'a>, String> {
        self.insert_value(llvm::undef(self.resolve(ty)?, self.location))
    }

    /// `llvm.extractvalue aggregate[index] : field` (the field's type: the op does not infer it).
    pub(crate) fn extractvalue(
        &self,
        aggregate: Value<'c, 'a>,
        index: usize,
        field: impl IntoType<'c>,
    ) -> Result<Value<'c, 'a>, String> {
        self.typed("llvm.extractvalue", &[aggregate], field, &[("position", position(index))])
    }

    /// `llvm.insertvalue value, aggregate[index]` (the aggregate's type).
    pub(crate) fn insertvalue(
        &self,
        aggregate: Value<'c, 'a>,
        value: Value<'c, 'a>,
        index: usize,
    ) -> Result<Value<'c, 'a>, String> {
        self.inferred("llvm.insertvalue", &[aggregate, value], &[("position", position(index))])
    }

    /// `llvm.extractelement vector[index]` (the vector's element type); `index` an integer value.
    pub(crate) fn extractelement(&self, vector: Value<'c, 'a>, index: Value<'c, 'a>) -> Result<Value<'c, 'a>, String> {
        self.inferred("llvm.extractelement", &[vector, index], &[])
    }

    /// `llvm.insertelement value, vector[index]` (the vector's type); `index` an integer value.
    pub(crate) fn insertelement(
        &self,
        vector: Value<'c, 'a>,
        value: Value<'c, 'a>,
        index: Value<'c, 'a>,
    ) -> Result<Value<'c, 'a>, String> {
        self.inferred("llvm.insertelement", &[vector, value, index], &[])
    }
}
