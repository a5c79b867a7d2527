//! The TMA box copy as the hardware performs it, transcribed from the CUDA driver documentation
//! (`cuTensorMapEncodeTiled`) and the PTX ISA (`cp.async.bulk.tensor`), independently of the planner. Shared by
//! the TMA model tests (`layout/tests/tma_model.rs`) and the fuzz target `layout-tma` (included there by path), so
//! there is one transcription of the hardware to review.
//!
//! Per `cp.async.bulk.tensor` issue with coordinates `c` and shared destination `dst`:
//! - the box holds `n_i = ceil(boxDim[i] / elementStrides[i])` elements along dimension `i`; box element `(i_0..)`
//!   is global element `c_t + i_t * elementStrides[t]`, at byte address
//!   `globalAddress + (c_0 + ..) * elemsize + sum_{t>=1} (c_t + ..) * globalStrides[t-1]`; a coordinate outside
//!   `[0, globalDim[t])` reads the OOB fill on a load and is skipped on a store;
//! - shared memory receives the box densely, dimension 0 fastest, each row of `n_0 * elemsize` bytes padded to the
//!   swizzle span when narrower (CUDA Programming Guide: "the shared memory must be allocated to accommodate the
//!   full swizzle width");
//! - the swizzle acts on the ABSOLUTE shared byte address: bits `[4, 4+B)` XOR bits `[7, 7+B)`, `B` = 1/2/3 for the
//!   32B/64B/128B modes (16-byte chunks permuted within each span, the pattern repeating every 256/512/1024 bytes).

use axe_layout::tma::{Direction, TmaPlan};
use axe_layout::SwizzleMode;
use std::collections::HashMap;

/// The shared tensor's base address in the model: 1024-byte aligned (as every plan requires) plus 3 such blocks,
/// so a swizzle computed from offsets instead of absolute addresses would show.
pub const SMEM_BASE: i64 = 3 * 1024;

/// Tag of a shared byte the TMA fills out of bounds.
pub const OOB_TAG: u64 = u64::MAX;

/// The CUDA TMA swizzle on an absolute shared byte address.
pub fn hw_swizzle(mode: SwizzleMode, addr: i64) -> i64 {
    let bits = match mode {
        SwizzleMode::None => return addr,
        SwizzleMode::B32 => 1,
        SwizzleMode::B64 => 2,
        SwizzleMode::B128 => 3,
    };
    addr ^ (((addr >> 7) & ((1i64 << bits) - 1)) << 4)
}

/// The issues as the kernel runs them for run-time offset `values` (one per dynamic offset of the request): each
/// coordinate is the plan's static one plus, per term on its dimension, `scale * (value / divisor)`, which must
/// divide exactly (the integer arithmetic the lowering emits). A static plan has no terms and comes back as is.
pub fn resolve(p: &TmaPlan, values: &[i64]) -> Result<TmaPlan, String> {
    resolve_both(p, values, &[])
}

/// [`resolve`] with the shared offsets' `shared_values` too: every issue's shared byte offset gains, per shared
/// term, `bytes * (value / divisor)` (exact division, as the lowering emits it).
pub fn resolve_both(p: &TmaPlan, values: &[i64], shared_values: &[i64]) -> Result<TmaPlan, String> {
    let mut out = p.clone();
    for term in &p.shared_dynamic {
        let value = *shared_values
            .get(term.offset)
            .ok_or_else(|| format!("model: no value for shared offset {}", term.offset))?;
        if term.divisor < 1 || value % term.divisor != 0 {
            return Err(format!(
                "model: shared offset value {value} is not a multiple of the divisor {}",
                term.divisor
            ));
        }
        for issue in &mut out.issues {
            issue.smem_offset_bytes += term.bytes * (value / term.divisor);
        }
    }
    out.shared_dynamic.clear();
    for term in &p.dynamic {
        let value = *values.get(term.offset).ok_or_else(|| format!("model: no value for offset {}", term.offset))?;
        if term.divisor < 1 || value % term.divisor != 0 {
            return Err(format!("model: offset value {value} is not a multiple of the divisor {}", term.divisor));
        }
        for issue in &mut out.issues {
            let slot = issue.coordinates.get_mut(term.dim).ok_or("model: a term names a dimension past the rank")?;
            *slot += term.scale * (value / term.divisor);
        }
    }
    out.dynamic.clear();
    Ok(out)
}

/// Every (global byte address, shared byte address) the hardware pairs for the plan's issues, following the
/// descriptor only, with the shared tensor at [`SMEM_BASE`]; `None` on the global side is an out-of-bounds element.
/// A plan with run-time terms must be [`resolve`]d first.
pub fn hardware_pairs(p: &TmaPlan) -> Result<Vec<(Option<i64>, i64)>, String> {
    if !p.dynamic.is_empty() || !p.shared_dynamic.is_empty() {
        return Err("model: the plan has run-time terms; resolve them first".to_string());
    }
    let d = &p.desc;
    let e = d.data_type.bytes();
    let rank = d.rank as usize;
    let n: Vec<i64> = (0..rank).map(|i| i64::from(d.box_dims[i].div_ceil(d.element_strides[i].max(1)))).collect();
    // CU_TENSOR_MAP_SWIZZLE_32B/64B/128B: the span in bytes (the CUDA driver's enum, not `SwizzleMode::bytes`).
    let span = match d.swizzle {
        SwizzleMode::None => 0,
        SwizzleMode::B32 => 32,
        SwizzleMode::B64 => 64,
        SwizzleMode::B128 => 128,
    };
    let pitch = (n[0] * e).max(span);
    let count: i64 = n.iter().product();
    let mut out = Vec::new();
    for issue in &p.issues {
        if issue.coordinates.len() != rank {
            return Err(format!("model: an issue has {} coordinates for rank {rank}", issue.coordinates.len()));
        }
        for flat in 0..count {
            // box index, dimension 0 fastest
            let mut idx = vec![0i64; rank];
            let mut rest = flat;
            for (i, slot) in idx.iter_mut().enumerate() {
                *slot = rest % n[i];
                rest /= n[i];
            }
            let coord: Vec<i64> =
                (0..rank).map(|t| issue.coordinates[t] + idx[t] * i64::from(d.element_strides[t])).collect();
            let inside = coord.iter().zip(&d.global_dims).all(|(&c, &g)| c >= 0 && (c as u64) < g);
            let gaddr = p.global_offset_bytes as i64
                + coord[0] * e
                + (1..rank).map(|t| coord[t] * d.global_strides_bytes[t - 1] as i64).sum::<i64>();
            let mut row = 0i64;
            for t in (1..rank).rev() {
                row = row * n[t] + idx[t];
            }
            let saddr = hw_swizzle(d.swizzle, SMEM_BASE + issue.smem_offset_bytes + idx[0] * e + row * pitch);
            for b in 0..e {
                out.push((inside.then_some(gaddr + b), saddr + b));
            }
        }
    }
    Ok(out)
}

/// Runs the hardware's byte pairs in `direction` over memories and checks the outcome against `expected` (shared
/// byte -> global byte, what the layouts say): a load must fill exactly the region's shared bytes, each with its
/// global byte's tag from `gmem` (global byte -> unique tag); a store must write exactly the region's global bytes,
/// each from its shared byte, nothing twice and nothing out of bounds.
pub fn check_transfer(
    direction: Direction,
    pairs: &[(Option<i64>, i64)],
    expected: &HashMap<i64, i64>,
    gmem: &HashMap<i64, u64>,
) -> Result<(), String> {
    match direction {
        Direction::G2S => {
            let mut smem: HashMap<i64, u64> = HashMap::new();
            for (ga, sa) in pairs {
                let tag = match ga {
                    Some(ga) => {
                        *gmem.get(ga).ok_or_else(|| format!("model: the load reads outside the tensor at {ga}"))?
                    }
                    None => OOB_TAG,
                };
                if smem.insert(*sa, tag).is_some() {
                    return Err(format!("model: shared byte {sa} written twice"));
                }
            }
            if smem.len() != expected.len() {
                return Err(format!("model: {} shared bytes written, the region has {}", smem.len(), expected.len()));
            }
            for (sa, ga) in expected {
                if smem.get(sa) != gmem.get(ga) {
                    return Err(format!("model: shared byte {sa} should hold global byte {ga}"));
                }
            }
        }
        Direction::S2G => {
            let mut written: HashMap<i64, i64> = HashMap::new();
            for (ga, sa) in pairs {
                let ga = ga.ok_or("model: the store writes out of bounds")?;
                if !expected.contains_key(sa) {
                    return Err(format!("model: the store reads shared byte {sa} outside the region"));
                }
                if written.insert(ga, *sa).is_some() {
                    return Err(format!("model: global byte {ga} written twice"));
                }
            }
            if written.len() != expected.len() {
                return Err(format!(
                    "model: {} global bytes written, the region has {}",
                    written.len(),
                    expected.len()
                ));
            }
            for (sa, ga) in expected {
                if written.get(ga) != Some(sa) {
                    return Err(format!("model: global byte {ga} should come from shared byte {sa}"));
                }
            }
        }
    }
    Ok(())
}

/// A multicast load (PTX ISA, `cp.async.bulk.tensor ... .multicast::cluster`): each issue, issued by one CTA,
/// writes its box "to the same CTA-relative offset as dstMem in the shared memory of each destination CTA", the
/// destinations being the set bits of the 16-bit `ctaMask` (bit `r` = `%cluster_ctarank` r), and signals each
/// destination CTA's mbarrier with the bytes it delivered there. Returns every (destination CTA rank, global byte,
/// shared byte) and the bytes each CTA's mbarrier receives. `issuer` names the CTA of each issue; it must be a CTA
/// of the cluster (`cluster_size` CTAs) and give every issue exactly one issuer.
#[allow(clippy::type_complexity, dead_code)] // used by tma_multicast.rs, not by every includer of this file
pub fn multicast_pairs(
    p: &TmaPlan,
    cta_mask: u16,
    issuer: &[u32],
    cluster_size: u32,
) -> Result<(Vec<(u32, Option<i64>, i64)>, HashMap<u32, u64>), String> {
    if issuer.len() != p.issues.len() {
        return Err(format!("model: {} issuers for {} issues", issuer.len(), p.issues.len()));
    }
    if let Some(r) = issuer.iter().find(|&&r| r >= cluster_size) {
        return Err(format!("model: issuer rank {r} is outside the cluster of {cluster_size} CTAs"));
    }
    if cluster_size < 16 && cta_mask >> cluster_size != 0 {
        return Err(format!("model: ctaMask {cta_mask:#x} names a CTA outside the cluster of {cluster_size}"));
    }
    let mut out = Vec::new();
    let mut tx: HashMap<u32, u64> = HashMap::new();
    for issue in &p.issues {
        let one = TmaPlan { issues: vec![issue.clone()], ..p.clone() };
        let pairs = hardware_pairs(&one)?;
        for cta in (0..16u32).filter(|r| cta_mask >> r & 1 == 1) {
            *tx.entry(cta).or_insert(0) += pairs.len() as u64;
            out.extend(pairs.iter().map(|&(g, s)| (cta, g, s)));
        }
    }
    Ok((out, tx))
}
