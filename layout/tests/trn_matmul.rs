//! The Trainium matmul planner (`axe_layout::trn::matmul`): plans run on the Tensor Engine model of
//! `model/trn_engine.rs` (written from AWS's NKI documentation, not from the planner) and must compute A^T B
//! exactly; each refusal names its rule and the numbers.

#[path = "model/trn_engine.rs"]
mod trn_engine;

use axe_layout::hw::ElemType;
use axe_layout::notation::parse_layout;
use axe_layout::trn::matmul::{plan, MatmulError, MatmulPlan, MatmulRequest, Operand, Rule};
use axe_layout::trn::{TrnMemory, TRN1};
use axe_layout::Layout;
use trn_engine::run_model;

fn layout(text: &str) -> Layout {
    parse_layout(text).unwrap()
}

/// Plans A [K,M], B [K,N], C [M,N] in SBUF, SBUF, PSUM as bf16 into f32.
fn plan_of(a: &Layout, b: &Layout, c: &Layout, [k, m, n]: [i64; 3]) -> Result<MatmulPlan, MatmulError> {
    plan(&MatmulRequest {
        chip: TRN1,
        dtype: ElemType::BF16,
        acc: ElemType::F32,
        a: Operand { layout: a, shape: [k, m], mem: TrnMemory::Sbuf },
        b: Operand { layout: b, shape: [k, n], mem: TrnMemory::Sbuf },
        c: Operand { layout: c, shape: [m, n], mem: TrnMemory::Psum },
    })
}

/// Plans and runs on the model; C must be A^T B.
fn check(a: &str, b: &str, c: &str, kmn: [i64; 3]) -> MatmulPlan {
    let (a, b, c) = (layout(a), layout(b), layout(c));
    let planned = plan_of(&a, &b, &c, kmn).unwrap_or_else(|e| panic!("{e}"));
    run_model(&planned, &a, &b, &c, kmn).unwrap();
    planned
}

#[test]
fn one_instruction_takes_the_largest_tile() {
    let planned = check("S[(128,128):(1@P,1@F)]", "S[(128,512):(1@P,1@F)]", "S[(128,512):(1@P,1@F)]", [128, 128, 512]);
    assert_eq!(planned.tile, [128, 128, 512]);
    assert_eq!(planned.steps.len(), 1);
}

#[test]
fn a_gemm_of_many_tiles_loops_over_m_n_and_k() {
    // K = 256 in two partition tiles (the outer K tile further along the free axis), M = 256 in two C tiles
    // (their partitions reused further along PSUM's free axis), N = 1024 in two 512-wide tiles, one PSUM bank
    // each: 2 x 2 x 2 instructions, the second K tile of each C tile accumulating.
    let planned = check(
        "S[(2,128,256):(256@F,1@P,1@F)]",
        "S[(2,128,1024):(1024@F,1@P,1@F)]",
        "S[(2,128,1024):(1024@F,1@P,1@F)]",
        [256, 256, 1024],
    );
    assert_eq!(planned.tile, [128, 128, 512]);
    assert_eq!(planned.steps.len(), 8);
    assert_eq!(planned.steps.iter().filter(|s| s.accumulate).count(), 4);
}

#[test]
fn a_result_that_straddles_psum_banks_takes_narrower_tiles() {
    // C's N starts 256 slots into a bank: a 512-wide tile would cross the bank's end, 256-wide ones do not.
    let planned =
        check("S[(128,128):(1@P,1@F)]", "S[(128,512):(1@P,1@F)]", "S[(128,512):(1@P,1@F)] + 256@F", [128, 128, 512]);
    assert_eq!(planned.tile, [128, 128, 256]);
    assert_eq!(planned.steps.len(), 2);
}

fn refusal(a: &str, b: &str, c: &str, kmn: [i64; 3]) -> MatmulError {
    plan_of(&layout(a), &layout(b), &layout(c), kmn).expect_err("the planner accepted it")
}

#[test]
fn k_on_the_free_axis_is_refused_with_the_elements_that_show_it() {
    let e = refusal("S[(128,128):(1@F,1@P)]", "S[(128,512):(1@P,1@F)]", "S[(128,512):(1@P,1@F)]", [128, 128, 512]);
    assert_eq!(e.rule, Rule::Partition);
    assert!(e.to_string().contains("K must be on the partition axis P"), "{e}");
    assert!(e.message.contains("A[0, 0] is on partition 0 but A[0, 1] on partition 1"), "{e}");
}

#[test]
fn m_on_the_free_axis_of_psum_is_refused() {
    let e = refusal("S[(128,128):(1@P,1@F)]", "S[(128,128):(1@P,1@F)]", "S[(128,128):(1@F,1@P)]", [128, 128, 128]);
    assert_eq!(e.rule, Rule::Partition);
    assert!(e.message.starts_with("M must be on the partition axis P"), "{e}");
}

#[test]
fn a_partition_past_128_is_refused() {
    let e = refusal("S[(256,128):(1@P,1@F)]", "S[(256,128):(1@P,1@F)]", "S[(128,128):(1@P,1@F)]", [256, 128, 128]);
    assert_eq!(e.rule, Rule::PartitionRange);
    assert!(e.message.contains("A element [128, 0] is on partition 128; trn1 has partitions 0..128"), "{e}");
}

#[test]
fn an_operand_past_a_partitions_bytes_is_refused() {
    // 128 columns 1024 slots apart: the last at free slot 130048, 260 KB of bf16 into 192 KiB.
    let e = refusal("S[(128,128):(1@P,1024@F)]", "S[(128,128):(1@P,1@F)]", "S[(128,128):(1@P,1@F)]", [128, 128, 128]);
    assert_eq!(e.rule, Rule::Capacity);
}

#[test]
fn tiles_that_cannot_start_at_partition_0_are_refused() {
    // K reversed on the partitions: no instruction tile has K on partitions 0.. in order.
    let e =
        refusal("S[(128,128):(-1@P,1@F)] + 127@P", "S[(128,128):(1@P,1@F)]", "S[(128,128):(1@P,1@F)]", [128, 128, 128]);
    assert_eq!(e.rule, Rule::Tile);
    assert!(e.message.contains("no nc_matmul tile fits"), "{e}");
}

#[test]
fn memories_dtypes_and_shapes_are_checked_first() {
    let l = layout("S[(128,128):(1@P,1@F)]");
    let operand = |mem| Operand { layout: &l, shape: [128, 128], mem };
    let request = |a, acc| MatmulRequest {
        chip: TRN1,
        dtype: ElemType::F16,
        acc,
        a,
        b: operand(TrnMemory::Sbuf),
        c: operand(TrnMemory::Psum),
    };
    let e = plan(&request(operand(TrnMemory::Psum), ElemType::F32)).unwrap_err();
    assert_eq!((e.rule, e.message.as_str()), (Rule::Memory, "A must be in sbuf, got psum"));
    let e = plan(&request(operand(TrnMemory::Sbuf), ElemType::F16)).unwrap_err();
    assert_eq!(e.rule, Rule::Dtype);
    let mut shapes = request(operand(TrnMemory::Sbuf), ElemType::F32);
    shapes.b.shape = [64, 128];
    assert_eq!(plan(&shapes).unwrap_err().rule, Rule::Shapes);
}
