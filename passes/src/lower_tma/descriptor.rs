//! The device-side types and host-side fields of a TMA descriptor, from the planner's `TensorMapDesc`.

use crate::ir::build::WORKGROUP;
use axe_layout::{
    tma::{Interleave, L2Promotion, OobFill, TensorMapDataType, TensorMapDesc},
    SwizzleMode,
};

/// The nvgpu barrier type of one mbarrier (a synchronous load's own barrier).
pub(super) const BARRIER_TYPE: &str = "!nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>";

/// The nvgpu barrier group an `!axe.mbarrier<count>` becomes: `count` mbarriers in one shared array, which
/// `convert-nvgpu-to-nvvm` addresses as base + 8 * index.
pub(super) fn barrier_group_type(count: i64) -> String {
    match count {
        1 => BARRIER_TYPE.to_string(),
        n => format!("!nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = {n}>"),
    }
}
/// Suspend-time hint of `mbarrier.try_wait.parity` in nanoseconds (the value upstream's examples use).
pub(super) const TRY_WAIT_TICKS: i64 = 10_000_000;

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
