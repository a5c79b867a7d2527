//! The Trainium matmul planner (`axe_layout::trn::matmul`) against a model of the Tensor Engine written from AWS's
//! NKI documentation (`nki.isa.nc_matmul`, "Trainium architecture"), not from the planner: SBUF and PSUM are
//! 128 partitions of f64 slots; the operands are placed by the reference evaluator (`common::ref_eval`, the
//! layout's definition); each planned instruction reads its stationary tile (`kt` partitions from its start, `mt`
//! consecutive free slots) and moving tile (`kt` x `nt`), checks the engine's limits (`kt`, `mt` <= 128, `nt` <=
//! 512, the PSUM tile inside one 2 KiB bank) and writes or adds `stationary^T @ moving` to its PSUM tile (`mt`
//! partitions, `nt` slots). C is read back through its layout and compared with A^T B, exactly (small integers).

mod common;

use axe_layout::hw::ElemType;
use axe_layout::notation::parse_layout;
use axe_layout::trn::matmul::{plan, MatmulError, MatmulPlan, MatmulRequest, Operand, Rule};
use axe_layout::trn::{TrnMemory, TRN1};
use axe_layout::{Axis, Layout};
use common::{ref_eval, slot};

const PARTITIONS: usize = 128;

/// A small integer for element `(i, j)` of operand `salt`.
fn value(i: i64, j: i64, salt: i64) -> f64 {
    (((i * 7 + j * 13 + salt * 5) % 7) - 3) as f64
}

/// (partition, free) of element `flat`: the single point the layout's definition gives.
fn place(layout: &Layout, flat: i64) -> (usize, usize) {
    let points = ref_eval(layout, flat);
    assert_eq!(points.len(), 1, "one place per element");
    let p = points.into_iter().next().unwrap();
    let (ps, fs) = (slot(Axis::named("P").unwrap()), slot(Axis::named("F").unwrap()));
    (p[ps] as usize, p[fs] as usize)
}

/// A memory of 128 partitions.
fn memory(slots: usize) -> Vec<Vec<f64>> {
    vec![vec![f64::NAN; slots]; PARTITIONS]
}

/// Runs `plan` on the model: A [K,M], B [K,N] placed by their layouts; C read back by its layout.
fn run(plan: &MatmulPlan, a: (&Layout, [i64; 2]), b: (&Layout, [i64; 2]), c: (&Layout, [i64; 2])) -> Vec<f64> {
    let (slots, psum_slots) = (192 * 1024 / 4, 16 * 1024 / 4);
    let mut sbuf_a = memory(slots);
    let mut sbuf_b = memory(slots);
    let mut psum = memory(psum_slots);
    for (layout, [rows, cols], salt, sbuf) in [(a.0, a.1, 1, &mut sbuf_a), (b.0, b.1, 2, &mut sbuf_b)] {
        for flat in 0..rows * cols {
            let (p, f) = place(layout, flat);
            sbuf[p][f] = value(flat / cols, flat % cols, salt);
        }
    }
    let [kt, mt, nt] = plan.tile;
    assert!(kt <= 128 && mt <= 128 && nt <= 512, "instruction limits: {:?}", plan.tile);
    for step in &plan.steps {
        let (pa, fa) = (step.a.partition as usize, step.a.free as usize);
        let (pb, fb) = (step.b.partition as usize, step.b.free as usize);
        let (pc, fc) = (step.c.partition as usize, step.c.free as usize);
        assert_eq!(fc / 512, (fc + nt as usize - 1) / 512, "the PSUM tile of {step:?} crosses a bank");
        for i in 0..mt as usize {
            for j in 0..nt as usize {
                let sum: f64 = (0..kt as usize).map(|q| sbuf_a[pa + q][fa + i] * sbuf_b[pb + q][fb + j]).sum();
                let cell = &mut psum[pc + i][fc + j];
                *cell = if step.accumulate { *cell + sum } else { sum };
            }
        }
    }
    let [m, n] = c.1;
    (0..m * n)
        .map(|flat| {
            let (p, f) = place(c.0, flat);
            psum[p][f]
        })
        .collect()
}

/// A^T B by the definition.
fn reference(k: i64, m: i64, n: i64) -> Vec<f64> {
    let mut out = Vec::new();
    for i in 0..m {
        for j in 0..n {
            out.push((0..k).map(|q| value(q, i, 1) * value(q, j, 2)).sum());
        }
    }
    out
}

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
    let [k, m, n] = kmn;
    let planned = plan_of(&a, &b, &c, kmn).unwrap_or_else(|e| panic!("{e}"));
    let got = run(&planned, (&a, [k, m]), (&b, [k, n]), (&c, [m, n]));
    assert_eq!(got, reference(k, m, n));
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
