//! The types the passes name when they build ops: a small enum for the common ones (`index`, signless integers,
//! `f32`, `!llvm.ptr` in an address space), so no call site spells them as text, and [`IntoType`], which
//! the typed builder methods take so that a rarer type (a vector, a memref, an LLVM struct) can be passed as the
//! melior [`Type`] it already is.

use std::fmt;

use axe_dialect::ffi;
use melior::ir::{OperationRef, Type};

/// The LLVM address space a pointer is in, as NVPTX numbers them (`!llvm.ptr<N>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AddressSpace {
    /// 0: the generic space (`!llvm.ptr`).
    Generic = 0,
    /// 1: device global memory.
    Global = 1,
    /// 3: shared memory.
    Shared = 3,
    /// 6: tensor memory (sm_100a).
    Tmem = 6,
}

/// A type the passes name often.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    /// `index`.
    Index,
    /// A signless integer of this many bits (`i1`, `i32`, ...).
    Int(u32),
    /// `f32`.
    F32,
    /// `!llvm.ptr` in an address space (`!llvm.ptr<3>`; the generic space prints as `!llvm.ptr`).
    Ptr(AddressSpace),
}

impl Ty {
    /// `i1`.
    pub(crate) const I1: Ty = Ty::Int(1);
    /// `i16`.
    pub(crate) const I16: Ty = Ty::Int(16);
    /// `i32`.
    pub(crate) const I32: Ty = Ty::Int(32);
    /// `i64`.
    pub(crate) const I64: Ty = Ty::Int(64);
}

impl fmt::Display for Ty {
    /// The MLIR spelling.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Index => f.write_str("index"),
            Ty::Int(bits) => write!(f, "i{bits}"),
            Ty::F32 => f.write_str("f32"),
            Ty::Ptr(AddressSpace::Generic) => f.write_str("!llvm.ptr"),
            Ty::Ptr(space) => write!(f, "!llvm.ptr<{}>", *space as u32),
        }
    }
}

/// A type a typed builder method can take: a [`Ty`], or a melior [`Type`] already built or parsed.
pub(crate) trait IntoType<'c> {
    /// The type, in the context of `context` (any op of the module).
    fn into_type(self, context: OperationRef<'c, '_>) -> Result<Type<'c>, String>;
}

impl<'c> IntoType<'c> for Ty {
    fn into_type(self, context: OperationRef<'c, '_>) -> Result<Type<'c>, String> {
        ffi::parse_type(context, &self.to_string()).ok_or_else(|| format!("internal: type {self} does not parse"))
    }
}

impl<'c> IntoType<'c> for Type<'c> {
    fn into_type(self, _: OperationRef<'c, '_>) -> Result<Type<'c>, String> {
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_are_mlir_s() {
        // The builtin and LLVM dialect spellings, written out by hand.
        assert_eq!(Ty::Index.to_string(), "index");
        assert_eq!(Ty::I1.to_string(), "i1");
        assert_eq!(Ty::I64.to_string(), "i64");
        assert_eq!(Ty::Ptr(AddressSpace::Generic).to_string(), "!llvm.ptr");
        assert_eq!(Ty::Ptr(AddressSpace::Global).to_string(), "!llvm.ptr<1>");
        assert_eq!(Ty::Ptr(AddressSpace::Shared).to_string(), "!llvm.ptr<3>");
        assert_eq!(Ty::Ptr(AddressSpace::Tmem).to_string(), "!llvm.ptr<6>");
    }
}
