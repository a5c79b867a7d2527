//! Every fragment atom of `axe_layout::mma::atoms`, checked for every (lane, register) against the PTX ISA's
//! fragment tables, transcribed here as the ISA states them (conditions on the register index `i`, with
//! `groupID = laneid >> 2` and `threadID_in_group = laneid % 4`), independently of how the atoms are built.
//!
//! For each atom: the ISA's `(row, col)` of every (warp, lane, i) is evaluated through the atom and must give
//! exactly that thread and `m = i`; and the map is a bijection (every element of the tile is reached once).

use axe_layout::mma::atoms::{
    mma_sync_a, mma_sync_a_tf32, mma_sync_b, mma_sync_b_tf32, mma_sync_c, smem_atom, tmem_a, tmem_d, wgmma_a, wgmma_d,
};
use axe_layout::mma::{Major, Role};
use axe_layout::{Axis, Layout, SwizzleMode, TileLayout};
use std::collections::HashSet;

fn group_id(lane: i64) -> i64 {
    lane >> 2
}

fn thread_in_group(lane: i64) -> i64 {
    lane % 4
}

/// PTX ISA 9.7.14.5.8, m16n8k16 `.f16`/`.bf16` A: a0..a7.
fn isa_m16n8k16_a(lane: i64, i: i64) -> (i64, i64) {
    let row = if i < 2 || (4..6).contains(&i) { group_id(lane) } else { group_id(lane) + 8 };
    let col = if i < 4 { thread_in_group(lane) * 2 + (i & 1) } else { thread_in_group(lane) * 2 + (i & 1) + 8 };
    (row, col)
}

/// m16n8k16 B: b0..b3.
fn isa_m16n8k16_b(lane: i64, i: i64) -> (i64, i64) {
    let row = if i < 2 { thread_in_group(lane) * 2 + (i & 1) } else { thread_in_group(lane) * 2 + (i & 1) + 8 };
    (row, group_id(lane))
}

/// m16n8k* C/D: c0..c3.
fn isa_m16n8_c(lane: i64, i: i64) -> (i64, i64) {
    let row = if i < 2 { group_id(lane) } else { group_id(lane) + 8 };
    (row, thread_in_group(lane) * 2 + (i & 1))
}

/// PTX ISA 9.7.14.5.7, m16n8k8 `.f16`/`.bf16` A: a0..a3.
fn isa_m16n8k8_a(lane: i64, i: i64) -> (i64, i64) {
    let row = if i < 2 { group_id(lane) } else { group_id(lane) + 8 };
    (row, thread_in_group(lane) * 2 + (i & 1))
}

/// m16n8k8 B: b0, b1.
fn isa_m16n8k8_b(lane: i64, i: i64) -> (i64, i64) {
    (thread_in_group(lane) * 2 + i, group_id(lane))
}

/// PTX ISA 9.7.14.5.7, m16n8k8 `.tf32` A: a0..a3, one element per `.b32` register: row `groupID` for a0 and a2,
/// `groupID + 8` for a1 and a3; column `threadID_in_group` for a0 and a1, `+ 4` for a2 and a3.
fn isa_m16n8k8_a_tf32(lane: i64, i: i64) -> (i64, i64) {
    let row = if i == 0 || i == 2 { group_id(lane) } else { group_id(lane) + 8 };
    let col = if i < 2 { thread_in_group(lane) } else { thread_in_group(lane) + 4 };
    (row, col)
}

/// m16n8k8 `.tf32` B: b0 at row `threadID_in_group`, b1 at `threadID_in_group + 4`; column `groupID`.
fn isa_m16n8k8_b_tf32(lane: i64, i: i64) -> (i64, i64) {
    (thread_in_group(lane) + 4 * i, group_id(lane))
}

/// PTX ISA 9.7.15.5.1.1.2, wgmma m64nNk8 `.tf32` A in registers: warp `w` holds rows 16w..16w+16 as the
/// m16n8k8 tf32 A fragment.
fn isa_wgmma_a_tf32(warp: i64, lane: i64, i: i64) -> (i64, i64) {
    let (r, c) = isa_m16n8k8_a_tf32(lane, i);
    (16 * warp + r, c)
}

/// PTX ISA 9.7.15.5.1.1.1, wgmma m64nNk16 A in registers: warp `w` of the warpgroup holds rows 16w..16w+16 as
/// the m16n8k16 A fragment.
fn isa_wgmma_a16(warp: i64, lane: i64, i: i64) -> (i64, i64) {
    let (r, c) = isa_m16n8k16_a(lane, i);
    (16 * warp + r, c)
}

/// wgmma m64nNk32 A (8-bit) in registers: a0..a15, as the m16n8k32 8-bit A fragment per warp.
fn isa_wgmma_a8(warp: i64, lane: i64, i: i64) -> (i64, i64) {
    let row = if i < 4 || (8..12).contains(&i) { group_id(lane) } else { group_id(lane) + 8 };
    let col = if i < 8 { thread_in_group(lane) * 4 + (i & 3) } else { thread_in_group(lane) * 4 + (i & 3) + 16 };
    (16 * warp + row, col)
}

/// wgmma accumulator D of m64nN: d0..d(N/2-1); each group of four repeats the m16n8 C fragment 8 columns on.
fn isa_wgmma_d(warp: i64, lane: i64, i: i64) -> (i64, i64) {
    let (r, c) = isa_m16n8_c(lane, i % 4);
    (16 * warp + r, 8 * (i / 4) + c)
}

/// Checks `atom` over `shape` against `isa(warp, lane, i) -> (row, col)` for every warp, lane and register.
fn check(atom: &TileLayout, shape: [i64; 2], warps: i64, regs: i64, isa: impl Fn(i64, i64, i64) -> (i64, i64)) {
    let layout = Layout::Tile(atom.clone());
    let lane_axis = Axis::named("laneid").unwrap();
    let warp_axis = Axis::named("wid_in_wg").unwrap();
    let mut seen = HashSet::new();
    for w in 0..warps {
        for lane in 0..32 {
            for i in 0..regs {
                let (r, c) = isa(w, lane, i);
                assert!(seen.insert((r, c)), "({r},{c}) reached twice");
                let pts = layout.eval(&shape, &[r, c]).unwrap();
                assert_eq!(pts.len(), 1, "{atom} at ({r},{c})");
                let p = &pts[0];
                assert_eq!(p.get(&lane_axis).copied().unwrap_or(0), lane, "{atom}: lane of ({r},{c})");
                assert_eq!(p.get(&warp_axis).copied().unwrap_or(0), w, "{atom}: warp of ({r},{c})");
                assert_eq!(p.get(&Axis::M).copied().unwrap_or(0), i, "{atom}: register of ({r},{c})");
            }
        }
    }
    assert_eq!(seen.len() as i64, shape[0] * shape[1], "{atom}: not every element is held");
}

#[test]
fn mma_sync_m16n8k16_fragments_are_the_isa_tables() {
    check(&mma_sync_a(16).unwrap(), [16, 16], 1, 8, |_, l, i| isa_m16n8k16_a(l, i));
    check(&mma_sync_b(16).unwrap(), [16, 8], 1, 4, |_, l, i| isa_m16n8k16_b(l, i));
    check(&mma_sync_c().unwrap(), [16, 8], 1, 4, |_, l, i| isa_m16n8_c(l, i));
}

#[test]
fn mma_sync_m16n8k8_fragments_are_the_isa_tables() {
    check(&mma_sync_a(8).unwrap(), [16, 8], 1, 4, |_, l, i| isa_m16n8k8_a(l, i));
    check(&mma_sync_b(8).unwrap(), [8, 8], 1, 2, |_, l, i| isa_m16n8k8_b(l, i));
}

#[test]
fn tf32_fragments_are_the_isa_tables() {
    check(&mma_sync_a_tf32().unwrap(), [16, 8], 1, 4, |_, l, i| isa_m16n8k8_a_tf32(l, i));
    check(&mma_sync_b_tf32().unwrap(), [8, 8], 1, 2, |_, l, i| isa_m16n8k8_b_tf32(l, i));
    check(&wgmma_a(32).unwrap(), [64, 8], 4, 4, isa_wgmma_a_tf32);
}

/// The issue's example text for the C atom.
#[test]
fn c_atom_prints_as_the_issue_states() {
    assert_eq!(mma_sync_c().unwrap().to_string(), "S[(2,8,4,2):(2,4@laneid,1@laneid,1)]");
}

#[test]
fn wgmma_register_fragments_are_the_isa_tables() {
    check(&wgmma_a(16).unwrap(), [64, 16], 4, 8, isa_wgmma_a16);
    check(&wgmma_a(8).unwrap(), [64, 32], 4, 16, isa_wgmma_a8);
    for n in [8, 16, 24, 64, 136, 256] {
        check(&wgmma_d(n).unwrap(), [64, n], 4, n / 2, isa_wgmma_d);
    }
    assert!(wgmma_d(12).is_err());
}

/// PTX ISA 9.7.16.10.5: Layout D (M=128) puts row i in lane i; Layout F (M=64) puts rows 16w..16w+16 in lanes
/// 32w..32w+16; column j in column j.
#[test]
fn tmem_datapath_layouts_are_the_isa_layouts() {
    let (lane_axis, col_axis) = (Axis::named("TLane").unwrap(), Axis::named("TCol").unwrap());
    for (m, lane_of) in
        [(128, Box::new(|r: i64| r) as Box<dyn Fn(i64) -> i64>), (64, Box::new(|r| 32 * (r / 16) + r % 16))]
    {
        for n in [8, 32, 256] {
            let layout = Layout::Tile(tmem_d(m, n).unwrap());
            for r in 0..m {
                for c in 0..n {
                    let p = &layout.eval(&[m, n], &[r, c]).unwrap()[0];
                    assert_eq!(p.get(&lane_axis).copied().unwrap_or(0), lane_of(r), "M={m} row {r}");
                    assert_eq!(p.get(&col_axis).copied().unwrap_or(0), c);
                }
            }
        }
    }
    assert!(tmem_d(32, 8).is_err());
}

/// PTX ISA 9.7.16.10.5 and 9.7.16.10.2 (Table 51): operand A in tensor memory is row-major on the accumulator's
/// data path, row i in Layout D's (M=128) or F's (M=64) lane; K element k is TCol slot k (A is packed, 32/bits
/// slots to a 32-bit column: k16 of 16-bit and k32 of 8-bit elements both fill 8 columns).
#[test]
fn tmem_a_datapath_layouts_are_the_isa_layouts() {
    let (lane_axis, col_axis) = (Axis::named("TLane").unwrap(), Axis::named("TCol").unwrap());
    for (m, lane_of) in
        [(128, Box::new(|r: i64| r) as Box<dyn Fn(i64) -> i64>), (64, Box::new(|r| 32 * (r / 16) + r % 16))]
    {
        for k in [16, 32] {
            let layout = Layout::Tile(tmem_a(m, k).unwrap());
            let mut seen = HashSet::new();
            for r in 0..m {
                for c in 0..k {
                    let p = &layout.eval(&[m, k], &[r, c]).unwrap()[0];
                    let (lane, slot) =
                        (p.get(&lane_axis).copied().unwrap_or(0), p.get(&col_axis).copied().unwrap_or(0));
                    assert_eq!((lane, slot), (lane_of(r), c), "M={m} A ({r}, {c})");
                    assert!(seen.insert((lane, slot)));
                }
            }
        }
    }
    assert!(tmem_a(256, 16).is_err());
}

/// PTX ISA 9.7.15.5.1.2 Table 38: in 128-bit units a K-major atom is 8 rows of (span/16) chunks, an MN-major atom
/// (span/16) chunks along MN by 8 K rows; the swizzle XORs byte-address bits [4,4+B) with [7,7+B). Every element
/// of every atom is placed at that byte address (atom base 0) divided by the element size.
#[test]
fn smem_atoms_are_the_isa_swizzle_atoms() {
    for bits in [8u32, 16, 32] {
        let bytes = i64::from(bits / 8);
        for mode in [SwizzleMode::None, SwizzleMode::B32, SwizzleMode::B64, SwizzleMode::B128] {
            let (span, b) = match mode {
                SwizzleMode::None => (16, 0),
                SwizzleMode::B32 => (32, 1),
                SwizzleMode::B64 => (64, 2),
                SwizzleMode::B128 => (128, 3),
            };
            let row = span / bytes;
            for major in [Major::K, Major::MN] {
                for role in [Role::A, Role::B] {
                    let (atom, shape) = smem_atom(mode, major, role, bits).unwrap();
                    // (mn extent, k extent) of the atom
                    let (mn_ext, k_ext) = match major {
                        Major::K => (8, row),
                        Major::MN => (row, 8),
                    };
                    let expect_shape = if role == Role::B { [k_ext, mn_ext] } else { [mn_ext, k_ext] };
                    assert_eq!(shape, expect_shape);
                    for mn in 0..mn_ext {
                        for k in 0..k_ext {
                            let byte = match major {
                                Major::K => mn * span + k * bytes,
                                Major::MN => k * span + mn * bytes,
                            };
                            let swizzled = byte ^ (((byte >> 7) & ((1 << b) - 1)) << 4);
                            let x = if role == Role::B { [k, mn] } else { [mn, k] };
                            let p = &atom.eval(&shape, &x).unwrap()[0];
                            assert_eq!(
                                p.get(&Axis::M).copied().unwrap_or(0) * bytes,
                                swizzled,
                                "{bits}-bit {mode:?} {major:?} {role:?} at {x:?}"
                            );
                        }
                    }
                }
            }
        }
    }
}
