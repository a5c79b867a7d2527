//! Unit tests of the TMA planner: the 128x64 f16 128B example, every swizzle mode, multi-issue loops, ranks 2..5,
//! the store direction, dtype promotion, and refusals that each name their stage or rule.

use axe_layout::notation::parse_layout;
use axe_layout::tma::{
    plan, plan_dynamic, validate, Direction, DynamicOffset, ElemType, Interleave, L2Promotion, OobFill,
    TensorMapDataType, TensorMapDesc, TmaError, TmaFailure, TmaOptions, TmaPlan, TmaRequest, TmaRule, TmaStage,
};
use axe_layout::SwizzleMode;

/// One copy as text, as the CLI takes it.
struct Case<'a> {
    global: &'a str,
    gshape: &'a [i64],
    gregion: &'a [(i64, i64)],
    shared: &'a str,
    sshape: &'a [i64],
    sregion: &'a [(i64, i64)],
    dtype: ElemType,
    direction: Direction,
    options: TmaOptions,
}

impl<'a> Case<'a> {
    fn new(global: &'a str, gshape: &'a [i64], gregion: &'a [(i64, i64)], shared: &'a str, sshape: &'a [i64]) -> Self {
        Case {
            global,
            gshape,
            gregion,
            shared,
            sshape,
            sregion: &[],
            dtype: ElemType::F16,
            direction: Direction::G2S,
            options: TmaOptions::default(),
        }
    }

    fn run(&self) -> Result<TmaPlan, TmaError> {
        self.run_dynamic(&[])
    }

    /// [`Case::run`] with run-time offsets on the global region.
    fn run_dynamic(&self, dynamic: &[DynamicOffset]) -> Result<TmaPlan, TmaError> {
        let g = parse_layout(self.global).expect("global layout parses");
        let s = parse_layout(self.shared).expect("shared layout parses");
        let full: Vec<(i64, i64)> = self.sshape.iter().map(|&e| (0, e)).collect();
        let sregion = if self.sregion.is_empty() { &full[..] } else { self.sregion };
        let request = TmaRequest {
            global: &g,
            global_shape: self.gshape,
            global_region: self.gregion,
            shared: &s,
            shared_shape: self.sshape,
            shared_region: sregion,
            dtype: self.dtype,
            direction: self.direction,
            options: self.options,
        };
        if dynamic.is_empty() {
            plan(&request)
        } else {
            plan_dynamic(&request, dynamic)
        }
    }
}

fn ok(case: &Case<'_>) -> TmaPlan {
    case.run().unwrap_or_else(|e| panic!("expected a plan, got {e}"))
}

fn refused(case: &Case<'_>, want: TmaFailure) -> TmaError {
    match case.run() {
        Ok(p) => panic!("expected a refusal ({want:?}), got a plan {p:?}"),
        Err(e) => {
            assert_eq!(e.failure, want, "wrong failure: {e}");
            e
        }
    }
}

fn coords(p: &TmaPlan) -> Vec<(Vec<i64>, i64)> {
    p.issues.iter().map(|i| (i.coordinates.clone(), i.smem_offset_bytes)).collect()
}

const G256: &str = "S[(256,256):(256,1)]";

#[test]
fn f16_128x64_into_128b_swizzle() {
    let p =
        ok(&Case::new(G256, &[256, 256], &[(0, 128), (64, 128)], "Swizzle(3,3,3) o S[(128,64):(64,1)]", &[128, 64]));
    assert_eq!(p.desc.data_type, TensorMapDataType::Float16);
    assert_eq!(p.desc.data_type.code(), 6);
    assert_eq!(p.desc.rank, 2);
    assert_eq!(p.desc.global_dims, vec![256, 256]);
    assert_eq!(p.desc.global_strides_bytes, vec![512]);
    assert_eq!(p.desc.box_dims, vec![64, 128]);
    assert_eq!(p.desc.element_strides, vec![1, 1]);
    assert_eq!(p.desc.interleave, Interleave::None);
    assert_eq!(p.desc.swizzle, SwizzleMode::B128);
    assert_eq!(p.desc.l2_promotion, L2Promotion::L128B);
    assert_eq!(p.desc.oob_fill, OobFill::None);
    assert_eq!(coords(&p), vec![(vec![64, 0], 0)]);
    assert_eq!(p.box_bytes, 128 * 64 * 2);
    assert_eq!(p.shared_base_alignment_bytes, 1024);
    assert_eq!(p.global_offset_bytes, 0);
}

/// One swizzle-mode case: (shared layout, shared shape, dtype, mode, expected box).
type ModeCase = (&'static str, &'static [i64], ElemType, SwizzleMode, Vec<u32>);

#[test]
fn every_swizzle_mode() {
    let cases: [ModeCase; 5] = [
        ("S[(64,64):(64,1)]", &[64, 64], ElemType::F16, SwizzleMode::None, vec![64, 64]),
        ("Swizzle(3,1,3) o S[(64,16):(16,1)]", &[64, 16], ElemType::F16, SwizzleMode::B32, vec![16, 64]),
        ("Swizzle(3,2,3) o S[(64,32):(32,1)]", &[64, 32], ElemType::F16, SwizzleMode::B64, vec![32, 64]),
        ("Swizzle(2,1,3) o S[(32,8):(8,1)]", &[32, 8], ElemType::F32, SwizzleMode::B32, vec![8, 32]),
        ("Swizzle(4,3,3) o S[(64,128):(128,1)]", &[64, 128], ElemType::U8, SwizzleMode::B128, vec![128, 64]),
    ];
    for (shared, sshape, dtype, mode, boxd) in cases {
        let region: Vec<(i64, i64)> = sshape.iter().map(|&e| (0, e)).collect();
        let mut c = Case::new(G256, &[256, 256], &region, shared, sshape);
        c.dtype = dtype;
        let p = ok(&c);
        assert_eq!(p.desc.swizzle, mode, "{shared}");
        assert_eq!(p.desc.box_dims, boxd, "{shared}");
        assert_eq!(p.issues.len(), 1, "{shared}");
        assert_eq!(p.desc.global_strides_bytes, vec![256 * dtype.bytes() as u64]);
    }
}

#[test]
fn f16_128x128_128b_needs_two_issues() {
    let p = ok(&Case::new(
        G256,
        &[256, 256],
        &[(128, 256), (0, 128)],
        "Swizzle(3,3,3) o S[(128,2,64):(64,8192,1)]",
        &[128, 128],
    ));
    assert_eq!(p.desc.box_dims, vec![64, 128]);
    assert_eq!(coords(&p), vec![(vec![0, 128], 0), (vec![64, 128], 16384)]);
    assert_eq!(p.total_bytes(), 128 * 128 * 2);
}

#[test]
fn shared_sub_region_offsets_the_issue() {
    let mut c = Case::new(G256, &[256, 256], &[(0, 128), (0, 64)], "Swizzle(3,3,3) o S[(256,64):(64,1)]", &[256, 64]);
    c.sregion = &[(128, 256), (0, 64)];
    assert_eq!(coords(&ok(&c)), vec![(vec![0, 0], 16384)]);
}

#[test]
fn interleaved_shared_chain_gives_an_issue_loop() {
    // Shared rows of 8 f16 (16 bytes) laid out column-block major: the chain stops after two iters.
    let c = Case::new("S[(8,64):(64,1)]", &[8, 64], &[(0, 8), (0, 64)], "S[(8,8,8):(8,64,1)]", &[8, 64]);
    let p = ok(&c);
    assert_eq!(p.desc.box_dims, vec![8, 8]);
    assert_eq!(p.issues.len(), 8);
    assert_eq!(p.issues[3].coordinates, vec![24, 0]);
    assert_eq!(p.issues[3].smem_offset_bytes, 3 * 128);
}

#[test]
fn ranks_three_four_five() {
    let p = ok(&Case::new(
        "S[(4,128,64):(8192,64,1)]",
        &[4, 128, 64],
        &[(1, 3), (0, 128), (0, 64)],
        "Swizzle(3,3,3) o S[(2,128,64):(8192,64,1)]",
        &[2, 128, 64],
    ));
    // The batch stride continues the rows (8192 = 128*64) but the region starts at batch 1: no merge needed.
    assert_eq!(p.desc.rank, 3);
    assert_eq!(p.desc.global_dims, vec![64, 128, 4]);
    assert_eq!(p.desc.box_dims, vec![64, 128, 2]);
    assert_eq!(coords(&p), vec![(vec![0, 0, 1], 0)]);

    let p = ok(&Case::new(
        "S[(3,4,8,64):(65536,8192,128,1)]",
        &[3, 4, 8, 64],
        &[(1, 3), (2, 4), (0, 8), (0, 64)],
        "Swizzle(3,3,3) o S[(2,2,8,64):(1024,512,64,1)]",
        &[2, 2, 8, 64],
    ));
    assert_eq!(p.desc.rank, 4);
    assert_eq!(p.desc.global_dims, vec![64, 8, 4, 3]);
    assert_eq!(p.desc.global_strides_bytes, vec![256, 16384, 131072]);
    assert_eq!(p.desc.box_dims, vec![64, 8, 2, 2]);
    assert_eq!(coords(&p), vec![(vec![0, 0, 2, 1], 0)]);

    let p = ok(&Case::new(
        "S[(2,2,2,8,64):(1048576,65536,8192,128,1)]",
        &[2, 2, 2, 8, 64],
        &[(0, 2), (1, 2), (0, 2), (0, 8), (0, 64)],
        "Swizzle(3,3,3) o S[(2,1,2,8,64):(1024,1024,512,64,1)]",
        &[2, 1, 2, 8, 64],
    ));
    assert_eq!(p.desc.rank, 5);
    // Boxed dimensions come in shared stride order, the coordinate-only one (batch dim 1) last.
    assert_eq!(p.desc.global_dims, vec![64, 8, 2, 2, 2]);
    assert_eq!(p.desc.global_strides_bytes, vec![256, 16384, 2097152, 131072]);
    assert_eq!(p.desc.box_dims, vec![64, 8, 2, 2, 1]);
    assert_eq!(coords(&p), vec![(vec![0, 0, 0, 0, 1], 0)]);
}

#[test]
fn store_direction() {
    let mut c =
        Case::new(G256, &[256, 256], &[(0, 128), (0, 128)], "Swizzle(3,3,3) o S[(128,2,64):(64,8192,1)]", &[128, 128]);
    c.direction = Direction::S2G;
    let p = ok(&c);
    assert_eq!(p.direction, Direction::S2G);
    assert_eq!(coords(&p), vec![(vec![0, 0], 0), (vec![64, 0], 16384)]);
}

#[test]
fn promotion_widens_a_too_long_row() {
    // 512 f16 per row: a box row of 512 elements breaks box-dim; as u32 it is 256 wide and one issue suffices.
    let c = Case::new("S[(16,1024):(1024,1)]", &[16, 1024], &[(0, 16), (0, 512)], "S[(16,512):(512,1)]", &[16, 512]);
    let p = ok(&c);
    assert_eq!(p.desc.data_type, TensorMapDataType::Uint32);
    assert_eq!(p.desc.global_dims, vec![512, 16]);
    assert_eq!(p.desc.box_dims, vec![256, 16]);
    assert_eq!(p.desc.global_strides_bytes, vec![2048]);
    assert_eq!(p.issues.len(), 1);
}

#[test]
fn tf32_is_never_promoted() {
    let mut c =
        Case::new("S[(16,1024):(1024,1)]", &[16, 1024], &[(0, 16), (0, 512)], "S[(16,512):(512,1)]", &[16, 512]);
    c.dtype = ElemType::TF32;
    let p = ok(&c);
    assert_eq!(p.desc.data_type.code(), 11);
    assert_eq!(p.desc.box_dims, vec![256, 1]);
    assert_eq!(p.issues.len(), 32);
}

#[test]
fn dtype_table() {
    let codes: Vec<(ElemType, u32)> = ElemType::ALL.iter().map(|t| (*t, t.tensor_map_type().code())).collect();
    for (t, code) in codes {
        let want = match t {
            ElemType::U8 | ElemType::I8 | ElemType::F8E4M3 | ElemType::F8E5M2 => 0,
            ElemType::U16 | ElemType::I16 => 1,
            ElemType::U32 => 2,
            ElemType::I32 => 3,
            ElemType::U64 => 4,
            ElemType::I64 => 5,
            ElemType::F16 => 6,
            ElemType::F32 => 7,
            ElemType::F64 => 8,
            ElemType::BF16 => 9,
            ElemType::TF32 => 11,
        };
        assert_eq!(code, want, "{t}");
        assert_eq!(ElemType::from_name(t.name()), Some(t));
    }
    assert_eq!(ElemType::from_name("f8E4M3FN"), Some(ElemType::F8E4M3));
}

// ---- refusals: each names its stage or rule ----

#[test]
fn refuses_a_non_tma_swizzle() {
    let c = Case::new(G256, &[256, 256], &[(0, 128), (0, 64)], "Swizzle(2,3,3) o S[(128,64):(64,1)]", &[128, 64]);
    let e = refused(&c, TmaFailure::Stage(TmaStage::SharedSwizzle));
    assert!(
        e.to_string().starts_with("tma: shared-swizzle stage: Swizzle(2,3,3) is not a TMA swizzle for 16-bit"),
        "{e}"
    );
}

#[test]
fn plans_a_partial_swizzle_period() {
    // 4 rows of the 128B swizzle: the atom is one swizzle row (the hardware swizzles absolute addresses row by
    // row), so the box is 64 x 4 (proven by the model in tma_general.rs).
    let c = Case::new(G256, &[256, 256], &[(0, 4), (0, 64)], "Swizzle(3,3,3) o S[(4,64):(64,1)]", &[4, 64]);
    assert_eq!(ok(&c).desc.box_dims, vec![64, 4]);
}

#[test]
fn refuses_a_narrow_unswizzled_row() {
    // 4 f16 = 8 bytes per global row: not even one 16-byte chunk (the shared side is one contiguous run, but the
    // global rows are 512 bytes apart, so nothing merges).
    let c = Case::new(G256, &[256, 256], &[(0, 64), (0, 4)], "S[(64,4):(4,1)]", &[64, 4]);
    refused(&c, TmaFailure::Rule(TmaRule::InnerBoxBytes));
}

#[test]
fn refuses_a_broadcast_shared_layout() {
    let c = Case::new(G256, &[256, 256], &[(0, 64), (0, 64)], "S[(64,64):(0,1)]", &[64, 64]);
    let e = c.run().expect_err("a broadcast shared layout cannot receive a TMA box");
    assert!(
        matches!(e.failure, TmaFailure::Stage(TmaStage::SharedChain) | TmaFailure::Stage(TmaStage::SharedAtom)),
        "{e}"
    );
}

#[test]
fn refuses_a_swizzled_global() {
    let c = Case::new(
        "Swizzle(3,3,3) o S[(128,64):(64,1)]",
        &[128, 64],
        &[(0, 128), (0, 64)],
        "S[(128,64):(64,1)]",
        &[128, 64],
    );
    refused(&c, TmaFailure::Stage(TmaStage::GlobalLayout));
}

#[test]
fn refuses_a_global_with_threads() {
    let c = Case::new(
        "S[(128,64):(64,1)] + R[2:4@warpid]",
        &[128, 64],
        &[(0, 128), (0, 64)],
        "S[(128,64):(64,1)]",
        &[128, 64],
    );
    refused(&c, TmaFailure::Stage(TmaStage::GlobalLayout));
}

#[test]
fn refuses_a_global_that_does_not_group() {
    let c = Case::new("S[(3,8):(100,1)]", &[4, 6], &[(0, 4), (0, 6)], "S[24]", &[24]);
    refused(&c, TmaFailure::Stage(TmaStage::GlobalShape));
}

#[test]
fn plans_a_region_that_wraps_a_digit() {
    // Rows 32..96 of a dimension made of two 64-row panels: one box of 32 rows per chunk, the second chunk at row 0
    // of panel 1 (proven on the model in tma_general.rs).
    let c = Case::new(
        "S[(2,64,64):(8192,64,1)]",
        &[128, 64],
        &[(32, 96), (0, 64)],
        "Swizzle(3,3,3) o S[(64,64):(64,1)]",
        &[64, 64],
    );
    assert_eq!(coords(&ok(&c)), vec![(vec![0, 32, 0], 0), (vec![0, 0, 1], 4096)]);
}

#[test]
fn refuses_different_element_counts() {
    let c = Case::new(G256, &[256, 256], &[(0, 64), (0, 64)], "Swizzle(3,3,3) o S[(128,64):(64,1)]", &[128, 64]);
    let e = refused(&c, TmaFailure::Stage(TmaStage::RegionShape));
    assert!(e.message.contains("4096") && e.message.contains("8192"), "{e}");
}

#[test]
fn refuses_a_transposed_global() {
    let c = Case::new(
        "S[(256,256):(1,256)]",
        &[256, 256],
        &[(0, 128), (0, 64)],
        "Swizzle(3,3,3) o S[(128,64):(64,1)]",
        &[128, 64],
    );
    let e = refused(&c, TmaFailure::Rule(TmaRule::InnerStride));
    assert!(e.message.contains("global stride 256"), "{e}");
}

#[test]
fn refuses_an_unaligned_global_pitch() {
    let c = Case::new(
        "S[(128,68):(68,1)]",
        &[128, 68],
        &[(0, 128), (0, 64)],
        "Swizzle(3,3,3) o S[(128,64):(64,1)]",
        &[128, 64],
    );
    let e = refused(&c, TmaFailure::Rule(TmaRule::GlobalStride));
    assert_eq!(
        e.to_string(),
        "tma: global-stride rule: global stride of dimension 1 is 136 bytes, must be a multiple of 16"
    );
}

#[test]
fn refuses_an_unaligned_shared_start() {
    let mut c = Case::new("S[(16,64):(64,1)]", &[16, 64], &[(0, 16), (8, 16)], "S[(16,64):(64,1)]", &[16, 64]);
    c.sregion = &[(0, 16), (8, 16)];
    let e = refused(&c, TmaFailure::Rule(TmaRule::SmemAlignment));
    assert!(e.message.contains("shared byte offset 16"), "{e}");
}

#[test]
fn refuses_nan_fill_on_integers() {
    let mut c = Case::new(G256, &[256, 256], &[(0, 64), (0, 64)], "S[(64,64):(64,1)]", &[64, 64]);
    c.dtype = ElemType::U16;
    c.options.oob_fill = OobFill::NanRequestZeroFma;
    refused(&c, TmaFailure::Rule(TmaRule::OobFill));
}

#[test]
fn refuses_an_unaligned_global_offset() {
    let c = Case::new(
        "S[(128,64):(64,1)] + 4",
        &[128, 64],
        &[(0, 128), (0, 64)],
        "Swizzle(3,3,3) o S[(128,64):(64,1)]",
        &[128, 64],
    );
    let e = refused(&c, TmaFailure::Rule(TmaRule::GlobalAddress));
    assert!(e.message.contains("8 bytes"), "{e}");
}

#[test]
fn refuses_a_region_outside_the_shape() {
    let c = Case::new(G256, &[256, 256], &[(0, 300), (0, 64)], "S[(64,64):(64,1)]", &[64, 64]);
    refused(&c, TmaFailure::Stage(TmaStage::Input));
}

fn desc() -> TensorMapDesc {
    TensorMapDesc {
        data_type: TensorMapDataType::Float16,
        rank: 2,
        global_dims: vec![256, 256],
        global_strides_bytes: vec![512],
        box_dims: vec![64, 128],
        element_strides: vec![1, 1],
        interleave: Interleave::None,
        swizzle: SwizzleMode::B128,
        l2_promotion: L2Promotion::L128B,
        oob_fill: OobFill::None,
    }
}

#[test]
fn validate_names_each_driver_rule() {
    assert_eq!(validate(&desc(), 0), Ok(()));
    let check = |d: TensorMapDesc, addr: u64, r: TmaRule, text: &str| {
        let e = validate(&d, addr).expect_err(text);
        assert_eq!(e.failure, TmaFailure::Rule(r), "{e}");
        assert_eq!(e.to_string(), text);
    };
    let mut d = desc();
    d.box_dims = vec![64, 512];
    check(d, 0, TmaRule::BoxDim, "tma: box-dim rule: box dimension 1 is 512, must be in 1..256");
    let mut d = desc();
    d.box_dims = vec![128, 64];
    check(
        d,
        0,
        TmaRule::InnerBoxBytes,
        "tma: inner-box-bytes rule: inner box is 256 bytes, must be at most the 128B swizzle span of 128 bytes",
    );
    let mut d = desc();
    d.swizzle = SwizzleMode::None;
    d.box_dims = vec![4, 64];
    check(d, 0, TmaRule::InnerBoxBytes, "tma: inner-box-bytes rule: inner box is 8 bytes, must be a multiple of 16");
    let mut d = desc();
    d.rank = 6;
    check(d, 0, TmaRule::Rank, "tma: rank rule: tensor rank is 6, must be in 1..5");
    let mut d = desc();
    d.global_strides_bytes = vec![1 << 40];
    check(
        d,
        0,
        TmaRule::GlobalStride,
        "tma: global-stride rule: global stride of dimension 1 is 1099511627776 bytes, must be below 2^40",
    );
    let mut d = desc();
    d.global_dims = vec![256, (1 << 32) + 1];
    check(d, 0, TmaRule::GlobalDim, "tma: global-dim rule: global dimension 1 is 4294967297, must be in 1..2^32");
    let mut d = desc();
    d.element_strides = vec![1, 9];
    check(d, 0, TmaRule::ElementStride, "tma: element-stride rule: element stride 1 is 9, must be in 1..8");
    check(
        desc(),
        8,
        TmaRule::GlobalAddress,
        "tma: global-address rule: global address offset is 8 bytes, must be a multiple of 16",
    );
    let mut d = desc();
    d.interleave = Interleave::B32;
    check(d, 0, TmaRule::Rank, "tma: rank rule: tensor rank is 2, must be at least 3 with interleave");
    let mut d = desc();
    d.rank = 3;
    d.global_dims = vec![8, 256, 256];
    d.global_strides_bytes = vec![32, 8192];
    d.box_dims = vec![8, 8, 8];
    d.element_strides = vec![1, 1, 1];
    d.interleave = Interleave::B32;
    check(d, 0, TmaRule::Interleave, "tma: interleave rule: 32B interleave needs the 32B swizzle, got 128B");
    let mut d = desc();
    d.data_type = TensorMapDataType::Int32;
    d.box_dims = vec![32, 128];
    d.oob_fill = OobFill::NanRequestZeroFma;
    check(d, 0, TmaRule::OobFill, "tma: oob-fill rule: NaN OOB fill needs a floating-point type, got INT32");
}

#[test]
fn a_dynamic_plan_keeps_the_static_plan_and_adds_terms() {
    // A[m0:m0+128, k:k+64] of a row-major 256x256 f16 matrix: the same descriptor and issue as the static copy at
    // (0, 0), plus one term per offset: rows move descriptor dimension 1, columns dimension 0.
    let case = Case::new(G256, &[256, 256], &[(0, 128), (0, 64)], "Swizzle(3,3,3) o S[(128,64):(64,1)]", &[128, 64]);
    let fixed = ok(&case);
    let offsets = [DynamicOffset { dim: 0, multiple: 128 }, DynamicOffset { dim: 1, multiple: 64 }];
    let p = case.run_dynamic(&offsets).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((p.desc.clone(), p.issues.clone()), (fixed.desc, fixed.issues));
    assert!(fixed.dynamic.is_empty());
    let terms: Vec<_> = p.dynamic.iter().map(|t| (t.offset, t.dim, t.divisor, t.scale)).collect();
    assert_eq!(terms, vec![(0, 1, 1, 1), (1, 0, 1, 1)]);
}

#[test]
fn refuses_a_dynamic_offset_that_splits_a_panel() {
    // Columns stored as 64-wide panels: an offset known only to be a multiple of 32 could land mid-panel.
    let case = Case::new(
        "S[(128,4,64):(64,8192,1)]",
        &[128, 256],
        &[(0, 128), (0, 64)],
        "Swizzle(3,3,3) o S[(128,64):(64,1)]",
        &[128, 64],
    );
    let e = case.run_dynamic(&[DynamicOffset { dim: 1, multiple: 32 }]).expect_err("refused");
    assert_eq!(e.failure, TmaFailure::Rule(TmaRule::DynamicOffset), "{e}");
    assert!(e.message.contains("multiple of 32") && e.message.contains("steps every 64 elements"), "{e}");
    assert!(case.run_dynamic(&[DynamicOffset { dim: 1, multiple: 128 }]).is_ok());
}

#[test]
fn refuses_dynamic_offsets_that_name_no_dimension_or_a_unit_one() {
    let case = Case::new("S[(1,64):(64,1)]", &[1, 64], &[(0, 1), (0, 64)], "S[(1,64):(64,1)]", &[1, 64]);
    let e = case.run_dynamic(&[DynamicOffset { dim: 0, multiple: 1 }]).expect_err("refused");
    assert_eq!(e.failure, TmaFailure::Rule(TmaRule::DynamicOffset), "{e}");
    for bad in [DynamicOffset { dim: 2, multiple: 1 }, DynamicOffset { dim: 1, multiple: 0 }] {
        let e = case.run_dynamic(&[bad]).expect_err("refused");
        assert_eq!(e.failure, TmaFailure::Stage(TmaStage::Input), "{e}");
    }
}

#[test]
fn refuses_a_store_to_overlapping_global_rows() {
    // Rows of 32 elements 8 apart overlap: a store would write addresses 8..31 of row 0 again from row 1 (found by
    // the layout-tma fuzz target, seed fuzz/seeds/layout-tma/store-to-overlapping-rows.txt). A load may read them.
    let mut case = Case::new("S[(8,32):(8,1)]", &[8, 32], &[(0, 8), (0, 32)], "S[(8,32):(32,1)]", &[8, 32]);
    case.direction = Direction::S2G;
    let e = refused(&case, TmaFailure::Stage(TmaStage::GlobalLayout));
    assert!(e.message.contains("stride 8 (extent 8)") && e.message.contains("31 elements"), "{e}");
    case.direction = Direction::G2S;
    ok(&case);
}
