//! Descriptor encodings: the wgmma matrix descriptor (PTX ISA 9.7.15.5.1.2.2), the tcgen05 shared-memory
//! descriptor (9.7.16.4.1) and the tcgen05 instruction descriptor for `.kind::f16`, `.kind::tf32` and
//! `.kind::f8f6f4` (9.7.16.4.2, Table 42).

use super::{ElemType, Family, Major, MmaError, MmaRule, SmemDesc};
use crate::swizzle::SwizzleMode;

/// `matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4`, the 14-bit field of a byte address or offset.
pub fn encode14(bytes: i64) -> u64 {
    ((bytes as u64) & 0x3FFFF) >> 4
}

/// The descriptor's 2-bit (wgmma, bits 62-63) or 3-bit (tcgen05, bits 61-63) swizzle field value.
pub fn swizzle_field(family: Family, mode: SwizzleMode) -> u64 {
    match (family, mode) {
        (Family::Tcgen05, SwizzleMode::None) => 0,
        (Family::Tcgen05, SwizzleMode::B128) => 2,
        (Family::Tcgen05, SwizzleMode::B64) => 4,
        (Family::Tcgen05, SwizzleMode::B32) => 6,
        (_, SwizzleMode::None) => 0,
        (_, SwizzleMode::B128) => 1,
        (_, SwizzleMode::B64) => 2,
        (_, SwizzleMode::B32) => 3,
    }
}

/// Builds the 64-bit shared-memory descriptor of `family` from its fields, checking that each fits: start,
/// LBO and SBO are 16-byte multiples below 2^18 (14 bits after dropping 4), the base offset is 3 bits.
///
/// wgmma: start 0-13, LBO 16-29, SBO 32-45, base offset 49-51, swizzle 62-63. tcgen05 adds the fixed
/// `0b001` at bits 46-48, leading-dimension mode 0 (relative) at bit 52 and its own swizzle field at 61-63.
pub fn smem_desc(
    family: Family,
    start_offset_bytes: i64,
    lbo_bytes: i64,
    sbo_bytes: i64,
    swizzle: SwizzleMode,
    major: Major,
) -> Result<SmemDesc, MmaError> {
    for (what, v) in
        [("start address", start_offset_bytes), ("leading byte offset", lbo_bytes), ("stride byte offset", sbo_bytes)]
    {
        if !(0..1 << 18).contains(&v) || v % 16 != 0 {
            return Err(MmaError::new(
                MmaRule::DescriptorRange,
                format!("the {what} is {v} bytes; a descriptor holds multiples of 16 in 0..262144"),
            ));
        }
    }
    let mut desc = encode14(start_offset_bytes) | encode14(lbo_bytes) << 16 | encode14(sbo_bytes) << 32;
    match family {
        Family::Tcgen05 => desc |= 1 << 46 | swizzle_field(family, swizzle) << 61,
        _ => desc |= swizzle_field(family, swizzle) << 62,
    }
    Ok(SmemDesc { desc, start_offset_bytes, lbo_bytes, sbo_bytes, base_offset: 0, swizzle, major })
}

/// The tcgen05 `.kind` for an input type: `f16` for f16/bf16, `tf32` for tf32, `f8f6f4` for fp8.
pub fn tcgen05_kind(dtype: ElemType) -> &'static str {
    match dtype {
        ElemType::F8E4M3 | ElemType::F8E5M2 => "f8f6f4",
        ElemType::TF32 => "tf32",
        _ => "f16",
    }
}

/// The 32-bit tcgen05 instruction descriptor (Table 42): dense, no saturate, no negation; D type at bits 4-5
/// (f16 0, f32 1), A and B types at 7-9 and 10-12 (kind::f16: f16 0, bf16 1; kind::tf32: tf32 2;
/// kind::f8f6f4: e4m3 0, e5m2 1), transpose A/B (MN-major) at 15/16, `N >> 3` at 17-22 and `M >> 4` at 24-28.
pub fn tcgen05_idesc(dtype: ElemType, acc: ElemType, m: i64, n: i64, a_major: Major, b_major: Major) -> u32 {
    let d = u32::from(acc == ElemType::F32);
    let ab = match dtype {
        ElemType::BF16 | ElemType::F8E5M2 => 1,
        ElemType::TF32 => 2,
        _ => 0,
    };
    let t = |major: Major| u32::from(major == Major::MN);
    d << 4
        | ab << 7
        | ab << 10
        | t(a_major) << 15
        | t(b_major) << 16
        | ((n >> 3) as u32 & 0x3F) << 17
        | ((m >> 4) as u32 & 0x1F) << 24
}
