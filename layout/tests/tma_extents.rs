//! `tma::plan_extents` (run-time-sized row-major tensors) against the hardware model of `model/tma_hw.rs`: the
//! plan's symbolic `globalDim`/`globalStrides`, evaluated at concrete M, N, K (multiples of 16, ragged against the
//! 128x64 tiles), with the plan's run-time coordinates resolved at every tile of the matrix, must move exactly
//! the bytes the row-major matrix and the shared layout say: loads fill out-of-bounds elements (past M or K) with
//! the OOB fill and nothing else, stores write exactly the in-bounds elements. The expectation is computed here
//! from the row-major definition and the shared layout, not from the plan.

#[path = "model/tma_hw.rs"]
#[allow(dead_code)]
mod tma_hw;

use axe_layout::notation::parse_layout;
use axe_layout::tma::{
    plan_extents, Direction, DynamicOffset, ElemType, Extent, ExtentExpr, ExtentPlan, ExtentRequest, TmaFailure,
    TmaOptions, TmaPlan, TmaRule,
};
use axe_layout::{Axis, Layout};
use std::collections::HashMap;
use tma_hw::{hardware_pairs, resolve, OOB_TAG, SMEM_BASE};

const E: i64 = 2; // f16

/// The shared element address (elements) of tile coordinate `x`.
fn shared_address(s: &Layout, shape: &[i64], x: &[i64]) -> i64 {
    let points = s.eval(shape, x).expect("shared layout evaluates");
    assert_eq!(points.len(), 1);
    points[0].get(&Axis::M).copied().unwrap_or(0)
}

/// The instance of `p` for concrete `extents`: its descriptor dims and strides from the expressions.
fn instance(p: &ExtentPlan, extents: &[i64]) -> TmaPlan {
    let mut plan = p.plan.clone();
    plan.desc.global_dims = p.global_dims.iter().map(|e| e.eval(extents).expect("dim evaluates") as u64).collect();
    plan.desc.global_strides_bytes =
        p.global_strides_bytes.iter().map(|e| e.eval(extents).expect("stride evaluates") as u64).collect();
    plan
}

/// A 2-D tile copy of a `[rows, cols]` row-major f16 matrix with both extents run-time (multiples `mult`), tile
/// `tile` into shared layout `shared` (shape = tile), with run-time offsets on both dimensions.
fn plan_tile(direction: Direction, mult: [i64; 2], tile: [i64; 2], shared: &Layout) -> Result<ExtentPlan, String> {
    let extents = [Extent { value: None, multiple: mult[0] }, Extent { value: None, multiple: mult[1] }];
    let region = [(0, tile[0]), (0, tile[1])];
    let sregion = [(0, tile[0]), (0, tile[1])];
    let request = ExtentRequest {
        extents: &extents,
        global_region: &region,
        shared,
        shared_shape: &tile,
        shared_region: &sregion,
        dtype: ElemType::F16,
        direction,
        options: TmaOptions::default(),
    };
    let offsets = [DynamicOffset { dim: 0, multiple: tile[0] }, DynamicOffset { dim: 1, multiple: tile[1] }];
    plan_extents(&request, &offsets, &[]).map_err(|e| e.to_string())
}

/// Runs every tile of a `rows x cols` matrix through the hardware model in `direction` and checks the bytes.
fn check_matrix(direction: Direction, p: &ExtentPlan, shared: &Layout, tile: [i64; 2], rows: i64, cols: i64) {
    let plan = instance(p, &[rows, cols]);
    // Global memory: byte (r * cols + c) * 2 + b tagged uniquely.
    let tag = |r: i64, c: i64, b: i64| ((r * cols + c) as u64) << 8 | b as u64;
    for m0 in (0..rows).step_by(tile[0] as usize) {
        for k0 in (0..cols).step_by(tile[1] as usize) {
            let run = resolve(&plan, &[m0, k0]).unwrap_or_else(|e| panic!("{e}"));
            let pairs = hardware_pairs(&run).unwrap_or_else(|e| panic!("{e}"));
            // Expected: shared byte of tile element (i, j) <-> global element (m0 + i, k0 + j), in bounds or not.
            let mut expected: HashMap<i64, Option<i64>> = HashMap::new();
            for i in 0..tile[0] {
                for j in 0..tile[1] {
                    let (r, c) = (m0 + i, k0 + j);
                    let sa = SMEM_BASE + shared_address(shared, &tile, &[i, j]) * E;
                    for b in 0..E {
                        let ga = (r < rows && c < cols).then_some((r * cols + c) * E + b);
                        assert!(expected.insert(sa + b, ga).is_none());
                    }
                }
            }
            let at = format!("{direction:?} of the {rows}x{cols} matrix at tile ({m0}, {k0})");
            match direction {
                Direction::G2S => {
                    let mut smem: HashMap<i64, u64> = HashMap::new();
                    for (ga, sa) in &pairs {
                        let value = match ga {
                            Some(ga) => {
                                assert!(*ga >= 0 && *ga < rows * cols * E, "{at}: reads outside the matrix at {ga}");
                                let (el, b) = (ga / E, ga % E);
                                tag(el / cols, el % cols, b)
                            }
                            None => OOB_TAG,
                        };
                        assert!(smem.insert(*sa, value).is_none(), "{at}: shared byte {sa} written twice");
                    }
                    assert_eq!(smem.len(), expected.len(), "{at}: bytes written");
                    for (sa, ga) in &expected {
                        let want = match ga {
                            Some(ga) => tag(ga / E / cols, (ga / E) % cols, ga % E),
                            None => OOB_TAG,
                        };
                        assert_eq!(smem.get(sa), Some(&want), "{at}: shared byte {sa}");
                    }
                }
                Direction::S2G => {
                    let mut written: HashMap<i64, i64> = HashMap::new();
                    for (ga, sa) in &pairs {
                        let Some(ga) = ga else { continue }; // clipped
                        assert!(*ga >= 0 && *ga < rows * cols * E, "{at}: writes outside the matrix at {ga}");
                        assert!(written.insert(*ga, *sa).is_none(), "{at}: global byte {ga} written twice");
                    }
                    let inside: Vec<(i64, i64)> =
                        expected.iter().filter_map(|(sa, ga)| ga.map(|ga| (ga, *sa))).collect();
                    assert_eq!(written.len(), inside.len(), "{at}: bytes written");
                    for (ga, sa) in inside {
                        assert_eq!(written.get(&ga), Some(&sa), "{at}: global byte {ga}");
                    }
                }
            }
        }
    }
}

/// The GEMM's tiles (examples/gemm_sm90a.mlir): A's 128x64 of A[M,K], B's 64x128 of B[K,N] in two panels, C's
/// 128x128 stored from two panels: one symbolic plan each serves every size that is a multiple of 16, including
/// ragged last tiles in both dimensions (loads fill zeros past the edge, stores clip).
#[test]
fn gemm_tiles_at_several_sizes() {
    let shared = parse_layout("Swizzle(3,3,3) o S[(128,64):(64,1)]").unwrap();
    for direction in [Direction::G2S, Direction::S2G] {
        let p = plan_tile(direction, [16, 16], [128, 64], &shared).unwrap();
        let names = ["M".to_string(), "K".to_string()];
        let dims: Vec<String> = p.global_dims.iter().map(|e| e.text(&names)).collect();
        let strides: Vec<String> = p.global_strides_bytes.iter().map(|e| e.text(&names)).collect();
        assert_eq!(dims, ["K", "M"]);
        assert_eq!(strides, ["K * 2"]);
        assert_eq!(p.plan.desc.box_dims, vec![64, 128]);
        for (rows, cols) in [(128, 64), (256, 128), (144, 80), (16, 16), (272, 208), (128, 48)] {
            check_matrix(direction, &p, &shared, [128, 64], rows, cols);
        }
    }
    // B's tile [64 (K), 128 (N)] of B[K, N]: two 64-column boxes into two 8 KB panels (wgmma's MN-major B).
    let panels = parse_layout("Swizzle(3,3,3) o S[(64,2,64):(64,4096,1)]").unwrap();
    let p = plan_tile(Direction::G2S, [16, 16], [64, 128], &panels).unwrap();
    assert_eq!(p.plan.issues.len(), 2);
    for (rows, cols) in [(64, 128), (80, 208), (16, 48), (208, 272)] {
        check_matrix(Direction::G2S, &p, &panels, [64, 128], rows, cols);
    }
    // C's tile [128, 128] stored from two panels, clipped at M and N.
    let c = parse_layout("Swizzle(3,3,3) o S[(128,2,64):(64,8192,1)]").unwrap();
    let p = plan_tile(Direction::S2G, [16, 16], [128, 128], &c).unwrap();
    for (rows, cols) in [(128, 128), (304, 208), (16, 16), (144, 80)] {
        check_matrix(Direction::S2G, &p, &c, [128, 128], rows, cols);
    }
    let half = parse_layout("Swizzle(3,3,3) o S[(64,64):(64,1)]").unwrap();
    let p = plan_tile(Direction::G2S, [16, 16], [64, 64], &half).unwrap();
    for (rows, cols) in [(64, 128), (80, 208), (208, 48)] {
        check_matrix(Direction::G2S, &p, &half, [64, 64], rows, cols);
    }
}

/// The same plan comes out with other multiples (the stand-ins do not leak into the plan), and the expressions
/// evaluate to the row-major dims and strides.
#[test]
fn expressions_are_the_row_major_fields() {
    let shared = parse_layout("Swizzle(3,3,3) o S[(128,64):(64,1)]").unwrap();
    let a = plan_tile(Direction::G2S, [16, 16], [128, 64], &shared).unwrap();
    let b = plan_tile(Direction::G2S, [8, 64], [128, 64], &shared).unwrap();
    assert_eq!(a.plan.issues, b.plan.issues);
    assert_eq!(a.plan.desc.box_dims, b.plan.desc.box_dims);
    for (m, k) in [(16, 8), (1000, 4096), (144, 80)] {
        assert_eq!(a.global_dims.iter().map(|e| e.eval(&[m, k]).unwrap()).collect::<Vec<_>>(), vec![k, m]);
        assert_eq!(a.global_strides_bytes[0].eval(&[m, k]), Some(k * 2));
    }
    let expr = ExtentExpr { factor: 2, dims: vec![1], divisor: 1 };
    assert_eq!(a.global_strides_bytes[0], expr);
}

/// A row stride the multiples do not make 16-byte aligned is refused with the rule and the numbers.
#[test]
fn unaligned_stride_is_refused() {
    let shared = parse_layout("Swizzle(3,3,3) o S[(128,64):(64,1)]").unwrap();
    let err = plan_tile(Direction::G2S, [16, 4], [128, 64], &shared).unwrap_err();
    assert!(err.starts_with("tma: dynamic-extent rule: the global stride of dimension 0 is d1 * 2 bytes"), "{err}");
    assert!(err.contains("multiple of 8 only"), "{err}");
    // A static inner extent that makes the stride aligned needs no multiple on it.
    let extents = [Extent { value: None, multiple: 1 }, Extent { value: Some(64), multiple: 1 }];
    let region = [(0, 128), (0, 64)];
    let request = ExtentRequest {
        extents: &extents,
        global_region: &region,
        shared: &shared,
        shared_shape: &[128, 64],
        shared_region: &region,
        dtype: ElemType::F16,
        direction: Direction::G2S,
        options: TmaOptions::default(),
    };
    let p = plan_extents(&request, &[DynamicOffset { dim: 0, multiple: 128 }], &[]).unwrap();
    let names = ["M".to_string(), "K".to_string()];
    assert_eq!(p.global_dims.iter().map(|e| e.text(&names)).collect::<Vec<_>>(), ["64", "M"]);
    assert_eq!(p.global_strides_bytes[0].text(&names), "128");
    // A unit static dimension is dropped from the descriptor: refused by name (the mapping would not be 1:1).
    let extents = [
        Extent { value: Some(1), multiple: 1 },
        Extent { value: None, multiple: 16 },
        Extent { value: None, multiple: 16 },
    ];
    let region = [(0, 1), (0, 128), (0, 64)];
    let request = ExtentRequest { extents: &extents, global_region: &region, ..request };
    let err = plan_extents(&request, &[], &[]).map(|_| ()).unwrap_err();
    match err.failure {
        TmaFailure::Rule(TmaRule::DynamicExtent) => assert!(err.message.contains("rank 2 for a rank-3"), "{err}"),
        other => panic!("{other:?}: {err}"),
    }
}

/// Huge multiples and regions far out are refused or planned without overflow or a long search.
#[test]
fn extreme_inputs_do_not_panic() {
    let shared = parse_layout("Swizzle(3,3,3) o S[(128,64):(64,1)]").unwrap();
    for multiple in [i64::MAX, 1 << 40, 3] {
        let extents = [Extent { value: None, multiple }, Extent { value: None, multiple: 16 }];
        let region = [(1 << 40, (1 << 40) + 128), (0, 64)];
        let request = ExtentRequest {
            extents: &extents,
            global_region: &region,
            shared: &shared,
            shared_shape: &[128, 64],
            shared_region: &[(0, 128), (0, 64)],
            dtype: ElemType::F16,
            direction: Direction::G2S,
            options: TmaOptions::default(),
        };
        // Either a plan or a refusal naming a rule or stage; never a panic.
        if let Err(err) = plan_extents(&request, &[], &[]) {
            assert!(err.to_string().starts_with("tma: "), "{err}");
        }
    }
}
