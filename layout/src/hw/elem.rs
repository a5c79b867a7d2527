//! [`ElemType`]: the element types tensors hold, one enum for the copy planners (any 1, 2, 4 or 8-byte number)
//! and the tensor-core planner (the subset [`ElemType::is_mma_operand`] names).

use std::fmt;

/// An element type: what a tensor holds, with its size and its names in Axe, MLIR and PTX.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElemType {
    /// 8-bit unsigned integer.
    U8,
    /// 8-bit signed integer (copied as `UINT8`: TMA has no signed 8-bit type, the bits are the same).
    I8,
    /// FP8 E4M3 (copied as `UINT8`).
    F8E4M3,
    /// FP8 E5M2 (copied as `UINT8`).
    F8E5M2,
    /// 16-bit unsigned integer.
    U16,
    /// 16-bit signed integer (copied as `UINT16`).
    I16,
    /// IEEE half precision.
    F16,
    /// bfloat16.
    BF16,
    /// 32-bit unsigned integer.
    U32,
    /// 32-bit signed integer.
    I32,
    /// IEEE single precision.
    F32,
    /// fp32 in memory, read as TF32 by the TMA unit (`TFLOAT32`; never promoted).
    TF32,
    /// 64-bit unsigned integer.
    U64,
    /// 64-bit signed integer.
    I64,
    /// IEEE double precision.
    F64,
}

impl ElemType {
    /// Every element type, for listings.
    pub const ALL: [ElemType; 15] = [
        ElemType::U8,
        ElemType::I8,
        ElemType::F8E4M3,
        ElemType::F8E5M2,
        ElemType::U16,
        ElemType::I16,
        ElemType::F16,
        ElemType::BF16,
        ElemType::U32,
        ElemType::I32,
        ElemType::F32,
        ElemType::TF32,
        ElemType::U64,
        ElemType::I64,
        ElemType::F64,
    ];

    /// The type's name (`f16`, `bf16`, `f8e4m3`, ...), as [`ElemType::from_name`] reads it.
    pub fn name(self) -> &'static str {
        match self {
            ElemType::U8 => "u8",
            ElemType::I8 => "i8",
            ElemType::F8E4M3 => "f8e4m3",
            ElemType::F8E5M2 => "f8e5m2",
            ElemType::U16 => "u16",
            ElemType::I16 => "i16",
            ElemType::F16 => "f16",
            ElemType::BF16 => "bf16",
            ElemType::U32 => "u32",
            ElemType::I32 => "i32",
            ElemType::F32 => "f32",
            ElemType::TF32 => "tf32",
            ElemType::U64 => "u64",
            ElemType::I64 => "i64",
            ElemType::F64 => "f64",
        }
    }

    /// Parses a type name; MLIR spellings (`ui8`, `si32`, `f8E4M3FN`, `f8E5M2`) are accepted too.
    pub fn from_name(name: &str) -> Option<ElemType> {
        let lower = name.to_ascii_lowercase();
        let canonical = match lower.as_str() {
            "ui8" => "u8",
            "si8" => "i8",
            "ui16" => "u16",
            "si16" => "i16",
            "ui32" => "u32",
            "si32" => "i32",
            "ui64" => "u64",
            "si64" => "i64",
            "f8e4m3fn" | "e4m3" => "f8e4m3",
            "e5m2" => "f8e5m2",
            other => other,
        };
        ElemType::ALL.into_iter().find(|t| t.name() == canonical)
    }

    /// Size in bytes.
    pub fn bytes(self) -> i64 {
        match self {
            ElemType::U8 | ElemType::I8 | ElemType::F8E4M3 | ElemType::F8E5M2 => 1,
            ElemType::U16 | ElemType::I16 | ElemType::F16 | ElemType::BF16 => 2,
            ElemType::U32 | ElemType::I32 | ElemType::F32 | ElemType::TF32 => 4,
            ElemType::U64 | ElemType::I64 | ElemType::F64 => 8,
        }
    }

    /// Size in bits.
    pub fn bits(self) -> u32 {
        8 * self.bytes() as u32
    }

    /// The PTX type suffix without the dot, as the tensor-core and copy instructions spell it (`f16`, `bf16`,
    /// `tf32`, `e4m3`, `e5m2`, `u8`, `s32`, ...).
    pub fn ptx(self) -> &'static str {
        match self {
            ElemType::U8 => "u8",
            ElemType::I8 => "s8",
            ElemType::F8E4M3 => "e4m3",
            ElemType::F8E5M2 => "e5m2",
            ElemType::U16 => "u16",
            ElemType::I16 => "s16",
            ElemType::F16 => "f16",
            ElemType::BF16 => "bf16",
            ElemType::U32 => "u32",
            ElemType::I32 => "s32",
            ElemType::F32 => "f32",
            ElemType::TF32 => "tf32",
            ElemType::U64 => "u64",
            ElemType::I64 => "s64",
            ElemType::F64 => "f64",
        }
    }

    /// The MLIR builtin type (`f16`, `bf16`, `f8E4M3FN`, `f8E5M2`, `tf32`; integers signless, `i8` for both
    /// [`ElemType::U8`] and [`ElemType::I8`]: MLIR's arithmetic carries the signedness in the op, not the type).
    pub fn mlir(self) -> &'static str {
        match self {
            ElemType::U8 | ElemType::I8 => "i8",
            ElemType::F8E4M3 => "f8E4M3FN",
            ElemType::F8E5M2 => "f8E5M2",
            ElemType::U16 | ElemType::I16 => "i16",
            ElemType::F16 => "f16",
            ElemType::BF16 => "bf16",
            ElemType::U32 | ElemType::I32 => "i32",
            ElemType::F32 => "f32",
            ElemType::TF32 => "tf32",
            ElemType::U64 | ElemType::I64 => "i64",
            ElemType::F64 => "f64",
        }
    }

    /// The type a tensor of MLIR element type `text` holds, when it is a number this enum names: exactly the
    /// spellings [`ElemType::mlir`] prints (a signless integer reads as signed).
    pub fn from_mlir(text: &str) -> Option<ElemType> {
        ElemType::ALL
            .into_iter()
            .find(|t| t.mlir() == text && !matches!(t, ElemType::U8 | ElemType::U16 | ElemType::U32 | ElemType::U64))
    }

    /// Whether the tensor cores take it as a multiplicand or accumulator (f16, bf16, f32, tf32, e4m3, e5m2).
    pub fn is_mma_operand(self) -> bool {
        matches!(
            self,
            ElemType::F16 | ElemType::BF16 | ElemType::F32 | ElemType::TF32 | ElemType::F8E4M3 | ElemType::F8E5M2
        )
    }
}

impl fmt::Display for ElemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::ElemType;

    #[test]
    fn names_in_each_language() {
        // MLIR builtin types (BuiltinTypes.td: f8E4M3FN, f8E5M2, tf32, signless integers) and PTX ISA 5.2.2's
        // fundamental types (.s8/.u8, .e4m3, .tf32), written out by hand for the tensor-core and copy types.
        let table = [
            (ElemType::F16, "f16", "f16", 2),
            (ElemType::BF16, "bf16", "bf16", 2),
            (ElemType::TF32, "tf32", "tf32", 4),
            (ElemType::F8E4M3, "f8E4M3FN", "e4m3", 1),
            (ElemType::F8E5M2, "f8E5M2", "e5m2", 1),
            (ElemType::I8, "i8", "s8", 1),
            (ElemType::U32, "i32", "u32", 4),
            (ElemType::F64, "f64", "f64", 8),
        ];
        for (t, mlir, ptx, bytes) in table {
            assert_eq!((t.mlir(), t.ptx(), t.bytes(), t.bits()), (mlir, ptx, bytes, 8 * bytes as u32), "{t}");
        }
    }

    #[test]
    fn mlir_spellings_read_back() {
        for t in ElemType::ALL {
            let read = ElemType::from_mlir(t.mlir()).expect("every MLIR spelling reads");
            assert_eq!(read.mlir(), t.mlir(), "{t}");
        }
        // Signless integers read as signed; non-MLIR spellings do not read.
        assert_eq!(ElemType::from_mlir("i16"), Some(ElemType::I16));
        assert_eq!((ElemType::from_mlir("e4m3"), ElemType::from_mlir("vector<2xf16>")), (None, None));
    }

    #[test]
    fn tensor_core_operands() {
        let mma: Vec<ElemType> = ElemType::ALL.into_iter().filter(|t| t.is_mma_operand()).collect();
        assert_eq!(
            mma,
            [ElemType::F8E4M3, ElemType::F8E5M2, ElemType::F16, ElemType::BF16, ElemType::F32, ElemType::TF32]
        );
    }
}
