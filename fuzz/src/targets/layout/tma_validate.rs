//! The `layout-tma-validate` target: `tma::validate` accepts exactly the descriptors that meet the documented
//! `cuTensorMapEncodeTiled` rules.

use super::{doc, fail, regression, Doc};
use crate::driver::Outcome::{self, Planned, Refused};
use crate::driver::Rng;
use axe_layout::tma::{validate, Interleave, L2Promotion, OobFill, TensorMapDataType, TensorMapDesc};
use axe_layout::SwizzleMode;
use rand::seq::IndexedRandom;
use rand::RngExt;

const DATA_TYPES: &[TensorMapDataType] = &[
    TensorMapDataType::Uint8,
    TensorMapDataType::Uint16,
    TensorMapDataType::Uint32,
    TensorMapDataType::Int32,
    TensorMapDataType::Uint64,
    TensorMapDataType::Int64,
    TensorMapDataType::Float16,
    TensorMapDataType::Float32,
    TensorMapDataType::Float64,
    TensorMapDataType::Bfloat16,
    TensorMapDataType::Float32Ftz,
    TensorMapDataType::Tfloat32,
    TensorMapDataType::Tfloat32Ftz,
];

pub(super) fn gen_validate(rng: &mut Rng) -> String {
    if let Some(s) = regression(rng, "layout-tma-validate") {
        return s;
    }
    if rng.random_bool(0.5) {
        return near_valid_descriptor(rng);
    }
    let rank: u32 = *[0u32, 1, 2, 3, 4, 5, 5, 6, 3, 2].choose(rng).unwrap_or(&2);
    let len = |rng: &mut Rng, n: u32| -> usize {
        if rng.random_range(0..10) == 0 {
            rng.random_range(0..=6)
        } else {
            n as usize
        }
    };
    let pick_u64 = |rng: &mut Rng, nice: &[u64]| -> u64 {
        match rng.random_range(0..8) {
            0 => {
                *[0u64, 1, 1 << 32, (1 << 32) + 1, 1 << 40, (1 << 40) - 16, u64::MAX, 15, 17].choose(rng).unwrap_or(&0)
            }
            _ => *nice.choose(rng).unwrap_or(&16),
        }
    };
    let gd = len(rng, rank);
    let gs = len(rng, rank.saturating_sub(1));
    let bd = len(rng, rank);
    let es = len(rng, rank);
    let global_dims: Vec<u64> = (0..gd).map(|_| pick_u64(rng, &[1, 8, 64, 128, 256, 1024])).collect();
    let global_strides: Vec<u64> = (0..gs).map(|_| pick_u64(rng, &[16, 32, 128, 256, 4096, 48])).collect();
    let box_dims: Vec<u64> = (0..bd).map(|_| pick_u64(rng, &[1, 8, 16, 32, 64, 128, 256, 257]) % (1 << 32)).collect();
    let elem_strides: Vec<u64> = (0..es).map(|_| *[0u64, 1, 1, 1, 2, 8, 9].choose(rng).unwrap_or(&1)).collect();
    let dt = rng.random_range(0..DATA_TYPES.len());
    doc(&[
        ("data_type", dt.to_string()),
        ("rank", rank.to_string()),
        ("global_dims", join(&global_dims)),
        ("global_strides_bytes", join(&global_strides)),
        ("box_dims", join(&box_dims)),
        ("element_strides", join(&elem_strides)),
        ("interleave", rng.random_range(0..3).to_string()),
        ("swizzle", rng.random_range(0..4).to_string()),
        ("oob", rng.random_range(0..2).to_string()),
        ("global_address", pick_u64(rng, &[0, 16, 32, 48, 256, 8]).to_string()),
    ])
}

/// A descriptor that meets every documented rule, then, one time in two, one field moved to (or across) the edge
/// of its rule: drawing every field at random meets all the rules about one time in seventy, so without this the
/// target would test refusals almost only, and never one rule at a time.
fn near_valid_descriptor(rng: &mut Rng) -> String {
    let dt = rng.random_range(0..DATA_TYPES.len());
    let bytes = DATA_TYPES[dt].bytes() as u64;
    let rank: u32 = rng.random_range(1..=5);
    // Interleaved layouts need rank >= 3; 32-byte interleave needs the 32-byte swizzle.
    let il: usize = if rank >= 3 && rng.random_bool(0.25) { rng.random_range(1..=2) } else { 0 };
    let sw: usize = if il == 2 { 1 } else { rng.random_range(0..4) };
    let align: u64 = if il == 2 { 32 } else { 16 };
    let pick = |rng: &mut Rng, v: &[u64]| *v.choose(rng).unwrap_or(&1);
    let mut global_dims: Vec<u64> = (0..rank).map(|_| pick(rng, &[1, 8, 64, 256, 1024, 1 << 32])).collect();
    let mut global_strides: Vec<u64> =
        (1..rank).map(|_| align * pick(rng, &[1, 2, 8, 256, (1 << 36) / align])).collect();
    let mut box_dims: Vec<u64> = (0..rank).map(|_| pick(rng, &[1, 2, 8, 64, 256])).collect();
    if il == 0 {
        // The inner box row: a multiple of 16 bytes, at most the swizzle span (256 elements at most).
        let span = [256 * bytes, 32, 64, 128][sw];
        let rows: Vec<u64> = (1..=span / 16).map(|j| 16 * j).filter(|b| b / bytes <= 256).collect();
        box_dims[0] = pick(rng, &rows) / bytes;
    }
    let mut element_strides: Vec<u64> = (0..rank).map(|_| rng.random_range(1..=8)).collect();
    let mut oob: usize = usize::from(DATA_TYPES[dt].is_float() && rng.random_bool(0.5));
    let mut address = align * rng.random_range(0..64u64);
    let (mut rank_field, mut il_field, mut sw_field) = (rank, il, sw);
    if rng.random_bool(0.5) {
        let i = rng.random_range(0..rank as usize);
        match rng.random_range(0..10) {
            0 => global_dims[i] = pick(rng, &[0, 1 << 32, (1 << 32) + 1]),
            1 if !global_strides.is_empty() => {
                let j = i.min(global_strides.len() - 1);
                global_strides[j] = pick(rng, &[8, 16, 48, (1 << 40) - align, 1 << 40]);
            }
            2 => box_dims[i] = pick(rng, &[0, 255, 256, 257]),
            3 => box_dims[0] += pick(rng, &[1, 16 / bytes.min(16), 256]),
            4 => element_strides[i] = pick(rng, &[0, 8, 9]),
            5 => address += pick(rng, &[8, 16, 24]),
            6 => oob = 1,
            7 => rank_field = pick(rng, &[0, 6, 2, 3]) as u32,
            8 => il_field = rng.random_range(0..3),
            _ => sw_field = rng.random_range(0..4),
        }
    }
    doc(&[
        ("data_type", dt.to_string()),
        ("rank", rank_field.to_string()),
        ("global_dims", join(&global_dims)),
        ("global_strides_bytes", join(&global_strides)),
        ("box_dims", join(&box_dims)),
        ("element_strides", join(&element_strides)),
        ("interleave", il_field.to_string()),
        ("swizzle", sw_field.to_string()),
        ("oob", oob.to_string()),
        ("global_address", address.to_string()),
    ])
}

fn join(v: &[u64]) -> String {
    v.iter().map(u64::to_string).collect::<Vec<_>>().join(",")
}

fn u64s(d: &Doc<'_>, key: &str) -> Option<Vec<u64>> {
    let text = d.get(key)?.trim();
    if text.is_empty() {
        return Some(Vec::new());
    }
    text.split(',').map(|s| s.trim().parse().ok()).collect()
}

fn u32s(d: &Doc<'_>, key: &str) -> Option<Vec<u32>> {
    u64s(d, key)?.into_iter().map(|v| u32::try_from(v).ok()).collect()
}

/// The documented `cuTensorMapEncodeTiled` rules (`validate`'s doc comment), written out independently.
fn documented_rules_hold(desc: &TensorMapDesc, global_address: u64) -> bool {
    let rank = desc.rank as usize;
    let interleaved = desc.interleave != Interleave::None;
    let align = if desc.interleave == Interleave::B32 { 32 } else { 16 };
    (1..=5).contains(&desc.rank)
        && (!interleaved || desc.rank >= 3)
        && desc.global_dims.len() == rank
        && desc.global_strides_bytes.len() == rank - 1
        && desc.box_dims.len() == rank
        && desc.element_strides.len() == rank
        && global_address.is_multiple_of(align)
        && desc.global_dims.iter().all(|&d| (1..=1u64 << 32).contains(&d))
        && desc.global_strides_bytes.iter().all(|&s| s % align == 0 && s < 1 << 40)
        && desc.box_dims.iter().all(|&b| (1..=256).contains(&b))
        && (interleaved || {
            let inner = u64::from(desc.box_dims[0]) * desc.data_type.bytes() as u64;
            inner.is_multiple_of(16) && (desc.swizzle == SwizzleMode::None || inner <= desc.swizzle.bytes() as u64)
        })
        && desc.element_strides.iter().all(|&e| (1..=8).contains(&e))
        && (desc.interleave != Interleave::B32 || desc.swizzle == SwizzleMode::B32)
        && (desc.oob_fill != OobFill::NanRequestZeroFma || desc.data_type.is_float())
}

/// Planned: `validate` accepts the descriptor; refused: it refuses it, or a field does not parse.
pub(super) fn check_validate(text: &str) -> Result<Outcome, String> {
    let d = Doc::parse(text);
    let field = |k: &str| d.get(k).and_then(|v| v.trim().parse::<usize>().ok());
    let (Some(dt), Some(rank), Some(il), Some(sw), Some(oob)) =
        (field("data_type"), field("rank"), field("interleave"), field("swizzle"), field("oob"))
    else {
        return Ok(Refused);
    };
    let (Some(global_dims), Some(global_strides_bytes), Some(box_dims), Some(element_strides), Some(addr)) = (
        u64s(&d, "global_dims"),
        u64s(&d, "global_strides_bytes"),
        u32s(&d, "box_dims"),
        u32s(&d, "element_strides"),
        d.get("global_address").and_then(|v| v.trim().parse::<u64>().ok()),
    ) else {
        return Ok(Refused);
    };
    let desc = TensorMapDesc {
        data_type: DATA_TYPES[dt % DATA_TYPES.len()],
        rank: rank as u32,
        global_dims,
        global_strides_bytes,
        box_dims,
        element_strides,
        interleave: [Interleave::None, Interleave::B16, Interleave::B32][il % 3],
        swizzle: [SwizzleMode::None, SwizzleMode::B32, SwizzleMode::B64, SwizzleMode::B128][sw % 4],
        l2_promotion: L2Promotion::L128B,
        oob_fill: [OobFill::None, OobFill::NanRequestZeroFma][oob % 2],
    };
    let got = validate(&desc, addr);
    let want = documented_rules_hold(&desc, addr);
    if got.is_ok() != want {
        return fail(format!("validate says {got:?} but the documented rules say {want} for {desc:?} at {addr}"));
    }
    Ok(if got.is_ok() { Planned } else { Refused })
}
