//! A software model of the TMA box copy, written independently of the planner from the CUDA documentation, run on
//! every issue of a plan; it proves for every element of the region that it lands where the ORIGINAL (unsliced)
//! shared layout says it should (load), or where the global layout says (store), and that nothing else is written.
//! The hardware itself (descriptor and swizzle on absolute addresses) is transcribed in `model/tma_hw.rs`.
//!
//! Memory is modelled per byte, each global byte tagged uniquely (element id and byte index), so a misplaced
//! byte, a duplicated element or a promoted descriptor type moving bytes wrongly is caught.

#[path = "model/tma_copy.rs"]
mod tma_copy;
#[path = "model/tma_hw.rs"]
mod tma_hw;

use axe_layout::notation::parse_layout;
use axe_layout::tile_layout::unflatten;
use axe_layout::tma::{
    plan, plan_dynamic, plan_offsets, Direction, DynamicOffset, ElemType, SharedTerm, TmaFailure, TmaOptions, TmaPlan,
    TmaRequest, TmaRule,
};
use axe_layout::{Layout, SwizzleMode};
use std::collections::HashMap;
use tma_copy::*;
use tma_hw::{check_transfer, hardware_pairs, hw_swizzle, resolve, resolve_both, SMEM_BASE};

#[test]
fn f16_128x64_128b() {
    let p = check(&Copy {
        global: "S[(256,256):(256,1)]",
        gshape: &[256, 256],
        gregion: &[(64, 192), (64, 128)],
        shared: "Swizzle(3,3,3) o S[(128,64):(64,1)]",
        sshape: &[128, 64],
        sregion: &full(&[128, 64]),
        dtype: ElemType::F16,
    });
    assert_eq!(p.issues.len(), 1);
}

#[test]
fn f16_128x128_128b_two_issues() {
    let p = check(&Copy {
        global: "S[(256,256):(256,1)]",
        gshape: &[256, 256],
        gregion: &[(0, 128), (128, 256)],
        shared: "Swizzle(3,3,3) o S[(128,2,64):(64,8192,1)]",
        sshape: &[128, 128],
        sregion: &full(&[128, 128]),
        dtype: ElemType::F16,
    });
    assert_eq!(p.issues.len(), 2);
}

#[test]
fn each_mode_and_dtype() {
    let cases: [(&str, &[i64], ElemType); 7] = [
        ("Swizzle(3,2,3) o S[(64,32):(32,1)]", &[64, 32], ElemType::BF16),
        ("Swizzle(3,1,3) o S[(32,16):(16,1)]", &[32, 16], ElemType::F16),
        ("Swizzle(2,3,3) o S[(16,32):(32,1)]", &[16, 32], ElemType::F32),
        ("Swizzle(1,3,3) o S[(16,16):(16,1)]", &[16, 16], ElemType::F64),
        ("Swizzle(4,3,3) o S[(16,128):(128,1)]", &[16, 128], ElemType::F8E4M3),
        ("Swizzle(2,2,3) o S[(8,2,16):(16,128,1)]", &[8, 32], ElemType::I32),
        ("S[(32,64):(64,1)]", &[32, 64], ElemType::F16),
    ];
    for (shared, sshape, dtype) in cases {
        check(&Copy {
            global: "S[(128,256):(256,1)]",
            gshape: &[128, 256],
            gregion: &[(16, 16 + sshape[0]), (32, 32 + sshape[1])],
            shared,
            sshape,
            sregion: &full(sshape),
            dtype,
        });
    }
}

#[test]
fn shared_sub_region_and_issue_loop() {
    check(&Copy {
        global: "S[(256,256):(256,1)]",
        gshape: &[256, 256],
        gregion: &[(8, 136), (0, 64)],
        shared: "Swizzle(3,3,3) o S[(256,64):(64,1)]",
        sshape: &[256, 64],
        sregion: &[(128, 256), (0, 64)],
        dtype: ElemType::F16,
    });
    let p = check(&Copy {
        global: "S[(8,64):(64,1)]",
        gshape: &[8, 64],
        gregion: &full(&[8, 64]),
        shared: "S[(8,8,8):(8,64,1)]",
        sshape: &[8, 64],
        sregion: &full(&[8, 64]),
        dtype: ElemType::F16,
    });
    assert_eq!(p.issues.len(), 8);
}

#[test]
fn ranks_three_to_five() {
    check(&Copy {
        global: "S[(4,128,64):(8192,64,1)]",
        gshape: &[4, 128, 64],
        gregion: &[(1, 3), (0, 128), (0, 64)],
        shared: "Swizzle(3,3,3) o S[(2,128,64):(8192,64,1)]",
        sshape: &[2, 128, 64],
        sregion: &full(&[2, 128, 64]),
        dtype: ElemType::F16,
    });
    check(&Copy {
        global: "S[(3,4,8,64):(65536,8192,128,1)]",
        gshape: &[3, 4, 8, 64],
        gregion: &[(1, 3), (2, 4), (0, 8), (0, 64)],
        shared: "Swizzle(3,3,3) o S[(2,2,8,64):(1024,512,64,1)]",
        sshape: &[2, 2, 8, 64],
        sregion: &full(&[2, 2, 8, 64]),
        dtype: ElemType::F16,
    });
    check(&Copy {
        global: "S[(2,2,2,8,64):(1048576,65536,8192,128,1)]",
        gshape: &[2, 2, 2, 8, 64],
        gregion: &[(0, 2), (1, 2), (0, 2), (0, 8), (0, 64)],
        shared: "Swizzle(3,3,3) o S[(2,1,2,8,64):(1024,1024,512,64,1)]",
        sshape: &[2, 1, 2, 8, 64],
        sregion: &full(&[2, 1, 2, 8, 64]),
        dtype: ElemType::F16,
    });
}

#[test]
fn promoted_descriptor_moves_the_same_bytes() {
    let p = check(&Copy {
        global: "S[(16,1024):(1024,1)]",
        gshape: &[16, 1024],
        gregion: &[(0, 16), (512, 1024)],
        shared: "S[(16,512):(512,1)]",
        sshape: &[16, 512],
        sregion: &full(&[16, 512]),
        dtype: ElemType::F16,
    });
    assert_eq!(p.desc.data_type.bytes(), 4);
}

#[test]
fn tiled_global_and_different_region_shapes() {
    // A global tensor stored as 64x64 panels; the shared region is the same 8192 elements seen as (2,64,64).
    check(&Copy {
        global: "S[(2,64,2,64):(8192,64,4096,1)]",
        gshape: &[128, 128],
        gregion: &[(64, 128), (0, 128)],
        shared: "Swizzle(3,3,3) o S[(64,2,64):(64,4096,1)]",
        sshape: &[64, 128],
        sregion: &full(&[64, 128]),
        dtype: ElemType::F16,
    });
}

/// The swizzle the layout algebra uses (`Swizzle(M,B,3)` on element addresses) is the hardware's XOR on byte
/// addresses, for every mode and element size, on aligned addresses.
#[test]
fn layout_swizzle_equals_the_hardware_swizzle() {
    for bytes in [1i64, 2, 4, 8] {
        for mode in [SwizzleMode::B32, SwizzleMode::B64, SwizzleMode::B128] {
            let sw = axe_layout::Swizzle::for_dtype((bytes * 8) as u32, mode).unwrap().unwrap();
            for a in 0..(4096 / bytes) {
                assert_eq!(sw.apply(a) * bytes, hw_swizzle(mode, a * bytes), "{sw} at {a}");
            }
        }
    }
}

/// Plans the copy once with run-time `offsets` on the global region (`c.gregion` is the region at offsets 0) and,
/// in both directions, runs the plan for each vector of offset `values` on the hardware model: the region the
/// layouts give at those offsets must be what moves. Returns the load plan.
fn check_dynamic(c: &Copy<'_>, offsets: &[DynamicOffset], values: &[&[i64]]) -> TmaPlan {
    let g = parse_layout(c.global).expect("global parses");
    let s = parse_layout(c.shared).expect("shared parses");
    let gmem = global_memory(c, &g);
    let mut load = None;
    for direction in [Direction::S2G, Direction::G2S] {
        let request = TmaRequest {
            global: &g,
            global_shape: c.gshape,
            global_region: c.gregion,
            shared: &s,
            shared_shape: c.sshape,
            shared_region: c.sregion,
            dtype: c.dtype,
            direction,
            options: TmaOptions::default(),
        };
        let p = plan_dynamic(&request, offsets).unwrap_or_else(|err| panic!("{} -> {}: {err}", c.global, c.shared));
        for &vals in values {
            let mut region = c.gregion.to_vec();
            for (offset, &v) in offsets.iter().zip(vals) {
                region[offset.dim].0 += v;
                region[offset.dim].1 += v;
            }
            let expected = expected_bytes(c, &g, &s, &region);
            let run = resolve(&p, vals).unwrap_or_else(|err| panic!("{err}"));
            let pairs = hardware_pairs(&run).unwrap_or_else(|err| panic!("{err}"));
            check_transfer(direction, &pairs, &expected, &gmem)
                .unwrap_or_else(|err| panic!("{} at offsets {vals:?} {direction:?}: {err}", c.global));
        }
        load = Some(p);
    }
    load.expect("planned")
}

/// The GEMM loop's A tile: rows m0..m0+128 and columns k..k+64 of a row-major 256x256 f16 matrix, m0 a block
/// index times 128 and k a loop variable stepping by 64. One box, coordinates [k, m0] at run time.
#[test]
fn dynamic_row_major_tile() {
    let c = Copy {
        global: "S[(256,256):(256,1)]",
        gshape: &[256, 256],
        gregion: &[(0, 128), (0, 64)],
        shared: "Swizzle(3,3,3) o S[(128,64):(64,1)]",
        sshape: &[128, 64],
        sregion: &full(&[128, 64]),
        dtype: ElemType::F16,
    };
    let offsets = [DynamicOffset { dim: 0, multiple: 128 }, DynamicOffset { dim: 1, multiple: 64 }];
    let p = check_dynamic(&c, &offsets, &[&[0, 0], &[128, 0], &[0, 64], &[128, 192]]);
    assert_eq!(p.issues.len(), 1);
    assert_eq!(p.issues[0].coordinates, vec![0, 0]);
    let terms: Vec<(usize, usize, i64, i64)> =
        p.dynamic.iter().map(|t| (t.offset, t.dim, t.divisor, t.scale)).collect();
    // Offset 0 (rows) moves descriptor dimension 1, offset 1 (columns) dimension 0, one element per element.
    assert_eq!(terms, vec![(0, 1, 1, 1), (1, 0, 1, 1)]);
}

/// Any multiple works on a row-major dimension, including odd ones and a static part.
#[test]
fn dynamic_odd_offsets_with_a_static_part() {
    let c = Copy {
        global: "S[(64,128):(128,1)]",
        gshape: &[64, 128],
        gregion: &[(3, 35), (8, 72)],
        shared: "S[(32,64):(64,1)]",
        sshape: &[32, 64],
        sregion: &full(&[32, 64]),
        dtype: ElemType::F16,
    };
    check_dynamic(&c, &[DynamicOffset { dim: 0, multiple: 1 }], &[&[0], &[1], &[7], &[29]]);
}

/// Two offsets on one dimension (a slice of a slice) add up.
#[test]
fn dynamic_offsets_on_one_dimension_add() {
    let c = Copy {
        global: "S[(256,64):(64,1)]",
        gshape: &[256, 64],
        gregion: &[(0, 64), (0, 64)],
        shared: "Swizzle(3,3,3) o S[(64,64):(64,1)]",
        sshape: &[64, 64],
        sregion: &full(&[64, 64]),
        dtype: ElemType::F16,
    };
    let offsets = [DynamicOffset { dim: 0, multiple: 64 }, DynamicOffset { dim: 0, multiple: 8 }];
    check_dynamic(&c, &offsets, &[&[0, 0], &[64, 8], &[128, 56], &[0, 192]]);
}

/// A global matrix stored as 64-column panels: the column offset steps whole panels (multiple 64), so it moves
/// the panel coordinate by k / 64 and the in-panel column stays 0.
#[test]
fn dynamic_offset_over_panels() {
    let c = Copy {
        global: "S[(128,4,64):(64,8192,1)]",
        gshape: &[128, 256],
        gregion: &[(0, 128), (0, 64)],
        shared: "Swizzle(3,3,3) o S[(128,64):(64,1)]",
        sshape: &[128, 64],
        sregion: &full(&[128, 64]),
        dtype: ElemType::F16,
    };
    let p = check_dynamic(&c, &[DynamicOffset { dim: 1, multiple: 64 }], &[&[0], &[64], &[192]]);
    assert_eq!(p.dynamic.len(), 1);
    assert_eq!(p.dynamic[0].divisor, 64);
    assert_eq!(p.issues.len(), 1);
}

/// A promoted innermost dimension (512 halves as 256 u32 words per row) divides the offset by the factor too.
#[test]
fn dynamic_offset_on_a_promoted_dimension() {
    let c = Copy {
        global: "S[(16,2048):(2048,1)]",
        gshape: &[16, 2048],
        gregion: &[(0, 16), (0, 512)],
        shared: "S[(16,512):(512,1)]",
        sshape: &[16, 512],
        sregion: &full(&[16, 512]),
        dtype: ElemType::F16,
    };
    let p = check_dynamic(&c, &[DynamicOffset { dim: 1, multiple: 512 }], &[&[0], &[512], &[1536]]);
    assert_eq!(p.desc.data_type.bytes(), 4);
    assert_eq!((p.dynamic[0].dim, p.dynamic[0].divisor), (0, 2));
    // An odd offset cannot move whole words: the halves stay halves, a box row holds at most 256 of them, and the
    // second half-row lies between the rows in shared memory, so each box is one half-row: 2 x 16 issues.
    let q = check_dynamic(&c, &[DynamicOffset { dim: 1, multiple: 1 }], &[&[0], &[1], &[1001]]);
    assert_eq!(q.desc.data_type.bytes(), 2);
    assert_eq!(q.desc.box_dims, vec![256, 1]);
    assert_eq!(q.issues.len(), 32);
}

/// A request over `c` in `direction` (the regions at offsets 0).
fn request<'a>(c: &'a Copy<'a>, g: &'a Layout, s: &'a Layout, direction: Direction) -> TmaRequest<'a> {
    TmaRequest {
        global: g,
        global_shape: c.gshape,
        global_region: c.gregion,
        shared: s,
        shared_shape: c.sshape,
        shared_region: c.sregion,
        dtype: c.dtype,
        direction,
        options: TmaOptions::default(),
    }
}

/// Moves `region` by `values` of `offsets`.
fn shifted(region: &[(i64, i64)], offsets: &[DynamicOffset], values: &[i64]) -> Vec<(i64, i64)> {
    let mut out = region.to_vec();
    for (offset, &v) in offsets.iter().zip(values) {
        out[offset.dim].0 += v;
        out[offset.dim].1 += v;
    }
    out
}

/// Plans a ring copy (global offsets `goffs`, shared offsets `soffs`) in both directions and runs it on the
/// hardware model for every `(global values, shared values)` pair: what moves must be the ring layout's region at
/// those offsets. Returns the load plan.
fn check_ring(c: &Copy<'_>, goffs: &[DynamicOffset], soffs: &[DynamicOffset], runs: &[(&[i64], &[i64])]) -> TmaPlan {
    let g = parse_layout(c.global).expect("global parses");
    let s = parse_layout(c.shared).expect("shared parses");
    let gmem = global_memory(c, &g);
    let mut load = None;
    for direction in [Direction::S2G, Direction::G2S] {
        let p = plan_offsets(&request(c, &g, &s, direction), goffs, soffs)
            .unwrap_or_else(|err| panic!("{} -> {}: {err}", c.global, c.shared));
        for &(gv, sv) in runs {
            let expected = expected_at(c, &g, &s, &shifted(c.gregion, goffs, gv), &shifted(c.sregion, soffs, sv));
            let run = resolve_both(&p, gv, sv).unwrap_or_else(|err| panic!("{err}"));
            let pairs = hardware_pairs(&run).unwrap_or_else(|err| panic!("{err}"));
            check_transfer(direction, &pairs, &expected, &gmem)
                .unwrap_or_else(|err| panic!("{} at {gv:?} / stage {sv:?} {direction:?}: {err}", c.shared));
        }
        load = Some(p);
    }
    load.expect("planned")
}

/// The shared bytes (from [`SMEM_BASE`]) a stage layout `stage` (shape `shape`, relative to its own start) gives
/// its elements when the stage starts `start` bytes into the ring: what a consumer of the stage alone (a wgmma
/// descriptor at base offset 0) reads.
fn stage_view(stage: &Layout, shape: &[i64], e: i64, start: i64) -> HashMap<i64, i64> {
    let n: i64 = shape.iter().product();
    (0..n).map(|k| (k, SMEM_BASE + start + address(stage, shape, &unflatten(shape, k)) * e)).collect()
}

/// The GEMM pipeline's A ring: 3 stages of a 128x64 f16 tile (128B swizzle, 16384 bytes per stage), stage index a
/// run-time value, loading A[m0.., k..] at run-time coordinates. For every stage and a few (m0, k) the hardware
/// writes exactly the ring layout's stage, and that stage read alone (the stage layout from its own start) holds
/// A's tile element by element: 16384 is a multiple of the 1024-byte swizzle period.
#[test]
fn ring_stage_at_run_time() {
    let c = Copy {
        global: "S[(256,256):(256,1)]",
        gshape: &[256, 256],
        gregion: &[(0, 128), (0, 64)],
        shared: "Swizzle(3,3,3) o S[(3,128,64):(8192,64,1)]",
        sshape: &[3, 128, 64],
        sregion: &[(0, 1), (0, 128), (0, 64)],
        dtype: ElemType::F16,
    };
    let goffs = [DynamicOffset { dim: 0, multiple: 128 }, DynamicOffset { dim: 1, multiple: 64 }];
    let soffs = [DynamicOffset { dim: 0, multiple: 1 }];
    let p =
        check_ring(&c, &goffs, &soffs, &[(&[0, 0], &[0]), (&[128, 64], &[1]), (&[0, 192], &[2]), (&[128, 0], &[2])]);
    assert_eq!(p.issues.len(), 1);
    assert_eq!(p.issues[0].smem_offset_bytes, 0);
    // 8192 elements of 2 bytes per stage, the stage index used as is.
    assert_eq!(p.shared_dynamic, vec![SharedTerm { offset: 0, divisor: 1, bytes: 16384 }]);
    // Stage s read alone as Swizzle(3,3,3) o S[(128,64):(64,1)] from its start is A's tile: the hardware's byte
    // for tile element k is where the stage layout puts it.
    let g = parse_layout(c.global).expect("parses");
    let stage = parse_layout("Swizzle(3,3,3) o S[(128,64):(64,1)]").expect("parses");
    for s in 0..3 {
        let run = resolve_both(&p, &[0, 0], &[s]).expect("resolves");
        let written: HashMap<i64, i64> =
            hardware_pairs(&run).expect("pairs").into_iter().map(|(ga, sa)| (sa, ga.expect("inside"))).collect();
        for (k, sa) in stage_view(&stage, &[128, 64], 2, s * 16384) {
            let (row, col) = (k / 64, k % 64);
            assert_eq!(written.get(&sa), Some(&(address(&g, &[256, 256], &[row, col]) * 2)), "stage {s} element {k}");
        }
    }
}

/// Offsets the rule refuses, with the numbers: a padded ring whose stages are 16512 bytes apart (128-byte aligned,
/// so the hardware could write there, but not a multiple of the 1024-byte swizzle period), and an offset inside a
/// dimension's outermost digit. The model shows what the first would break: the hardware still writes what the
/// WHOLE ring's layout says (it swizzles absolute addresses), but stage 1 read alone from its start (a consumer
/// assuming the stage layout, as a wgmma descriptor with base offset 0) is not the tile.
#[test]
fn ring_offsets_off_the_swizzle_period_are_refused() {
    let padded = Copy {
        global: "S[(256,256):(256,1)]",
        gshape: &[256, 256],
        gregion: &[(0, 128), (0, 64)],
        shared: "Swizzle(3,3,3) o S[(3,128,64):(8256,64,1)]",
        sshape: &[3, 128, 64],
        sregion: &[(0, 1), (0, 128), (0, 64)],
        dtype: ElemType::F16,
    };
    let g = parse_layout(padded.global).expect("parses");
    let s = parse_layout(padded.shared).expect("parses");
    let soffs = [DynamicOffset { dim: 0, multiple: 1 }];
    let err = plan_offsets(&request(&padded, &g, &s, Direction::G2S), &[], &soffs).expect_err("refused");
    assert_eq!(err.failure, TmaFailure::Rule(TmaRule::SharedOffset), "{err}");
    assert!(err.to_string().contains("16512 bytes") && err.to_string().contains("1024-byte period"), "{err}");
    // Known to be even, the offset moves 33024 bytes at a time: still not a multiple of 1024.
    let even = [DynamicOffset { dim: 0, multiple: 2 }];
    assert!(plan_offsets(&request(&padded, &g, &s, Direction::G2S), &[], &even).is_err());

    // What the rule prevents, on the model: plan stage 0 statically and move it by hand to stage 1.
    let mut p = plan(&request(&padded, &g, &s, Direction::G2S)).expect("stage 0 plans");
    p.shared_dynamic = vec![SharedTerm { offset: 0, divisor: 1, bytes: 16512 }];
    let run = resolve_both(&p, &[], &[1]).expect("resolves");
    let pairs = hardware_pairs(&run).expect("pairs");
    let gmem = global_memory(&padded, &g);
    let ring = expected_at(&padded, &g, &s, padded.gregion, &[(1, 2), (0, 128), (0, 64)]);
    check_transfer(Direction::G2S, &pairs, &ring, &gmem).expect("the ring layout itself still holds");
    let stage = parse_layout("Swizzle(3,3,3) o S[(128,64):(64,1)]").expect("parses");
    let written: HashMap<i64, i64> = pairs.into_iter().map(|(ga, sa)| (sa, ga.expect("inside"))).collect();
    let misplaced = stage_view(&stage, &[128, 64], 2, 16512)
        .into_iter()
        .filter(|&(k, sa)| written.get(&sa) != Some(&(address(&g, &[256, 256], &[k / 64, k % 64]) * 2)))
        .count();
    assert!(misplaced > 0, "stage 1 read alone would be the tile; the period rule would be needless");

    // Inside a digit: a shared dimension of 2 panels of 64 columns, moved by 32 columns.
    let panels = Copy {
        global: "S[(64,256):(256,1)]",
        gshape: &[64, 256],
        gregion: &[(0, 64), (0, 64)],
        shared: "Swizzle(3,3,3) o S[(64,2,64):(64,4096,1)]",
        sshape: &[64, 128],
        sregion: &[(0, 64), (0, 64)],
        dtype: ElemType::F16,
    };
    let (g, s) = (parse_layout(panels.global).expect("parses"), parse_layout(panels.shared).expect("parses"));
    let err = plan_offsets(&request(&panels, &g, &s, Direction::G2S), &[], &[DynamicOffset { dim: 1, multiple: 32 }])
        .expect_err("refused");
    assert!(err.to_string().contains("shared-offset rule") && err.to_string().contains("multiple of 64"), "{err}");
    // Whole panels are fine, and the model agrees at panel 1.
    check_ring(&panels, &[], &[DynamicOffset { dim: 1, multiple: 64 }], &[(&[], &[0]), (&[], &[64])]);
}

/// An unswizzled ring needs only the 128-byte alignment: dense stages of 8x8 f32 (256 bytes apart) move; stages
/// interleaved 64 bytes apart (row stride 256 bytes) are refused unless the offset is known to be even.
#[test]
fn unswizzled_ring_needs_128_bytes() {
    let ring = |shared: &'static str| Copy {
        global: "S[(64,64):(64,1)]",
        gshape: &[64, 64],
        gregion: &[(0, 8), (0, 8)],
        shared,
        sshape: &[4, 8, 8],
        sregion: &[(0, 1), (0, 8), (0, 8)],
        dtype: ElemType::F32,
    };
    let soffs = [DynamicOffset { dim: 0, multiple: 1 }];
    let c = ring("S[(4,8,8):(64,8,1)]");
    let p =
        check_ring(&c, &[DynamicOffset { dim: 0, multiple: 8 }], &soffs, &[(&[0], &[0]), (&[8], &[1]), (&[56], &[3])]);
    assert_eq!(p.shared_dynamic[0].bytes, 256);
    let c = ring("S[(4,8,8):(16,64,1)]");
    let (g, s) = (parse_layout(c.global).expect("parses"), parse_layout(c.shared).expect("parses"));
    let err = plan_offsets(&request(&c, &g, &s, Direction::G2S), &[], &soffs).expect_err("refused");
    assert!(err.to_string().contains("multiples of 64 bytes") && err.to_string().contains("128-byte"), "{err}");
    // Known to be a multiple of 2 stages (128 bytes), the same ring moves.
    let two = [DynamicOffset { dim: 0, multiple: 2 }];
    check_ring(&c, &[], &two, &[(&[], &[0]), (&[], &[2])]);
}
