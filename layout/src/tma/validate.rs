//! Every documented `cuTensorMapEncodeTiled` requirement, checked on a finished descriptor.

use super::{Interleave, TensorMapDesc, TmaError, TmaRule};
use crate::swizzle::SwizzleMode;

/// Checks `desc` (with `globalAddress` at byte offset `global_address` from a 256-byte aligned allocation)
/// against the driver's documented requirements:
///
/// - `rank`: `tensorRank` in 1..=5, and >= 3 when interleaved; every array has `rank` entries (`rank - 1` strides);
/// - `global-address`: `globalAddress` a multiple of 16 bytes (32 with `INTERLEAVE_32B`);
/// - `global-dim`: every `globalDim` in 1..=2^32;
/// - `global-stride`: every `globalStrides` a multiple of 16 (32 with `INTERLEAVE_32B`) and below 2^40;
/// - `box-dim`: every `boxDim` in 1..=256;
/// - `inner-box-bytes`: without interleave, `boxDim[0] * elemsize` a multiple of 16 bytes and, with a swizzle,
///   at most the swizzle span (32/64/128 bytes);
/// - `element-stride`: every `elementStrides` in 1..=8;
/// - `interleave`: `INTERLEAVE_32B` needs `SWIZZLE_32B`;
/// - `oob-fill`: `NAN_REQUEST_ZERO_FMA` needs a floating-point data type.
pub fn validate(desc: &TensorMapDesc, global_address: u64) -> Result<(), TmaError> {
    let rank = desc.rank as usize;
    if !(1..=5).contains(&desc.rank) {
        return Err(TmaError::rule(TmaRule::Rank, format!("tensor rank is {}, must be in 1..5", desc.rank)));
    }
    if desc.interleave != Interleave::None && desc.rank < 3 {
        return Err(TmaError::rule(
            TmaRule::Rank,
            format!("tensor rank is {}, must be at least 3 with interleave", desc.rank),
        ));
    }
    let lengths = [
        ("globalDim", desc.global_dims.len(), rank),
        ("globalStrides", desc.global_strides_bytes.len(), rank - 1),
        ("boxDim", desc.box_dims.len(), rank),
        ("elementStrides", desc.element_strides.len(), rank),
    ];
    for (what, got, want) in lengths {
        if got != want {
            return Err(TmaError::rule(TmaRule::Rank, format!("{what} has {got} entries, rank {rank} needs {want}")));
        }
    }
    let align = if desc.interleave == Interleave::B32 { 32 } else { 16 };
    if !global_address.is_multiple_of(align) {
        return Err(TmaError::rule(
            TmaRule::GlobalAddress,
            format!("global address offset is {global_address} bytes, must be a multiple of {align}"),
        ));
    }
    for (i, &d) in desc.global_dims.iter().enumerate() {
        if d == 0 || d > 1 << 32 {
            return Err(TmaError::rule(TmaRule::GlobalDim, format!("global dimension {i} is {d}, must be in 1..2^32")));
        }
    }
    for (i, &s) in desc.global_strides_bytes.iter().enumerate() {
        if !s.is_multiple_of(align) {
            return Err(TmaError::rule(
                TmaRule::GlobalStride,
                format!("global stride of dimension {} is {s} bytes, must be a multiple of {align}", i + 1),
            ));
        }
        if s >= 1 << 40 {
            return Err(TmaError::rule(
                TmaRule::GlobalStride,
                format!("global stride of dimension {} is {s} bytes, must be below 2^40", i + 1),
            ));
        }
    }
    for (i, &b) in desc.box_dims.iter().enumerate() {
        if b == 0 || b > 256 {
            return Err(TmaError::rule(TmaRule::BoxDim, format!("box dimension {i} is {b}, must be in 1..256")));
        }
    }
    if desc.interleave == Interleave::None {
        let inner = u64::from(desc.box_dims[0]) * desc.data_type.bytes() as u64;
        if !inner.is_multiple_of(16) {
            return Err(TmaError::rule(
                TmaRule::InnerBoxBytes,
                format!("inner box is {inner} bytes, must be a multiple of 16"),
            ));
        }
        if desc.swizzle != SwizzleMode::None && inner > desc.swizzle.bytes() as u64 {
            return Err(TmaError::rule(
                TmaRule::InnerBoxBytes,
                format!(
                    "inner box is {inner} bytes, must be at most the {} swizzle span of {} bytes",
                    desc.swizzle.name(),
                    desc.swizzle.bytes()
                ),
            ));
        }
    }
    for (i, &e) in desc.element_strides.iter().enumerate() {
        if e == 0 || e > 8 {
            return Err(TmaError::rule(TmaRule::ElementStride, format!("element stride {i} is {e}, must be in 1..8")));
        }
    }
    if desc.interleave == Interleave::B32 && desc.swizzle != SwizzleMode::B32 {
        return Err(TmaError::rule(
            TmaRule::Interleave,
            format!("32B interleave needs the 32B swizzle, got {}", desc.swizzle.name()),
        ));
    }
    if desc.oob_fill == super::OobFill::NanRequestZeroFma && !desc.data_type.is_float() {
        return Err(TmaError::rule(
            TmaRule::OobFill,
            format!("NaN OOB fill needs a floating-point type, got {}", desc.data_type.name()),
        ));
    }
    Ok(())
}
