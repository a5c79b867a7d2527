//! tf32 GEMMs (issue 21, item 3): `mma.sync.m16n8k8` `.tf32` (sm_80), `wgmma.mma_async.m64nNk8` `.tf32` (sm_90a)
//! and `tcgen05.mma .kind::tf32` K=8 (sm_100a), each into f32. Expected opcodes, descriptor fields and
//! instruction descriptors are worked out by hand from the PTX ISA; mma.sync plans are executed on a small model
//! of the instruction written here from the ISA's tf32 fragment tables (9.7.14.5.7), independently of the planner,
//! and every tf32 plan form (mma.sync; wgmma with A in registers or shared memory, every swizzle mode; tcgen05
//! with A in shared or tensor memory, M = 128 and 64) also runs on the tensor-core model of `model/mma_hw.rs`
//! (issue 32), which stores each element as a 32-bit tf32 container with noise in the bits the hardware ignores.
//! Plans broken on purpose (registers of a fragment swapped, a descriptor or a tensor-memory column moved, the
//! instruction descriptor's type changed) must fail on that model.

use axe_layout::mma::{plan, Access, Chip, ElemType, GemmRequest, Major, Memory, MmaPlan, MmaRule, Operand};
use axe_layout::notation::parse_layout;
use axe_layout::{Layout, SwizzleMode};
use std::collections::HashMap;

#[path = "model/mma_hw.rs"]
mod mma_hw;

fn l(text: &str) -> Layout {
    parse_layout(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn run(chip: Chip, acc: ElemType, ops: [(&str, [i64; 2], Memory); 3]) -> Result<MmaPlan, axe_layout::mma::MmaError> {
    let ls: Vec<Layout> = ops.iter().map(|o| l(o.0)).collect();
    let op = |i: usize| Operand { layout: &ls[i], shape: &ops[i].1, mem: ops[i].2 };
    plan(&GemmRequest { chip, dtype: ElemType::TF32, acc_dtype: acc, a: op(0), b: op(1), c: op(2) })
}

/// The ISA's m16n8k8 tf32 fragments: `(row, col)` of register `i` of lane `l` (groupID = l >> 2,
/// threadID_in_group = l % 4).
fn frag_a(l: i64, i: i64) -> (i64, i64) {
    ((l >> 2) + 8 * (i % 2), l % 4 + 4 * (i / 2))
}

fn frag_b(l: i64, i: i64) -> (i64, i64) {
    (l % 4 + 4 * i, l >> 2)
}

fn frag_c(l: i64, i: i64) -> (i64, i64) {
    ((l >> 2) + 8 * (i / 2), 2 * (l % 4) + i % 2)
}

/// Every thread's registers filled from the operand's layout: `regs[(thread, register)] = value`, thread =
/// lane + 32 * warp.
fn fill(layout: &Layout, shape: [i64; 2], vals: &[i64], regs: &mut HashMap<(char, i64, i64), i64>, tag: char) {
    for r in 0..shape[0] {
        for c in 0..shape[1] {
            for p in layout.eval(&shape, &[r, c]).unwrap() {
                let mut t = 0;
                let mut reg = 0;
                for (a, v) in p.iter() {
                    match a.name() {
                        "laneid" | "tid" => t += v,
                        "warpid" => t += 32 * v,
                        "m" => reg = *v,
                        other => panic!("axis {other} in a register operand"),
                    }
                }
                regs.insert((tag, t, reg), vals[(r * shape[1] + c) as usize]);
            }
        }
    }
}

/// Runs an mma.sync tf32 plan: per issue, lane `l` of the issuing warp supplies fragment element `i` from the
/// register the plan lists; `D = A * B + C` per the ISA; then C is read back through its layout.
fn execute_mma_sync(p: &MmaPlan, ops: [(&str, [i64; 2]); 3]) {
    let [(ta, sa), (tb, sb), (tc, sc)] = ops;
    let (m, k, n) = (sa[0], sa[1], sb[1]);
    let val = |shape: [i64; 2], seed: i64| -> Vec<i64> {
        (0..shape[0] * shape[1]).map(|x| (x * 7 + seed * 13 + (x * x) % 5) % 9 - 4).collect()
    };
    let (va, vb, vc) = (val(sa, 1), val(sb, 2), val(sc, 3));
    let mut regs = HashMap::new();
    fill(&l(ta), sa, &va, &mut regs, 'a');
    fill(&l(tb), sb, &vb, &mut regs, 'b');
    fill(&l(tc), sc, &vc, &mut regs, 'c');
    for issue in &p.issues {
        let (Access::Regs(ra), Access::Regs(rb), Access::Regs(rc)) = (&issue.a, &issue.b, &issue.c) else {
            panic!("mma.sync reads registers")
        };
        assert_eq!((ra.len(), rb.len(), rc.len()), (4, 2, 4), "m16n8k8 tf32 takes 4, 2 and 4 registers");
        let mut a = [[0i64; 8]; 16];
        let mut b = [[0i64; 8]; 8];
        let mut c = [[0i64; 8]; 16];
        for lane in 0..32 {
            let t = issue.thread_base + lane;
            for i in 0..4 {
                let (r, col) = frag_a(lane, i);
                a[r as usize][col as usize] = regs[&('a', t, ra[i as usize])];
                let (r, col) = frag_c(lane, i);
                c[r as usize][col as usize] = regs[&('c', t, rc[i as usize])];
            }
            for i in 0..2 {
                let (r, col) = frag_b(lane, i);
                b[r as usize][col as usize] = regs[&('b', t, rb[i as usize])];
            }
        }
        for lane in 0..32 {
            let t = issue.thread_base + lane;
            for i in 0..4 {
                let (r, col) = frag_c(lane, i);
                let d =
                    c[r as usize][col as usize] + (0..8).map(|x| a[r as usize][x] * b[x][col as usize]).sum::<i64>();
                regs.insert(('c', t, rc[i as usize]), d);
            }
        }
    }
    let lc = l(tc);
    for r in 0..m {
        for c in 0..n {
            let want = vc[(r * n + c) as usize]
                + (0..k).map(|x| va[(r * k + x) as usize] * vb[(x * n + c) as usize]).sum::<i64>();
            for p in lc.eval(&sc, &[r, c]).unwrap() {
                let t: i64 = p
                    .iter()
                    .map(|(a, v)| {
                        if a.name() == "warpid" {
                            32 * v
                        } else if a.name() == "m" {
                            0
                        } else {
                            *v
                        }
                    })
                    .sum();
                let reg = p.iter().find(|(a, _)| a.name() == "m").map_or(0, |(_, v)| *v);
                assert_eq!(regs[&('c', t, reg)], want, "C[{r}][{c}] in thread {t} register {reg}");
            }
        }
    }
}

const A_TF32: &str = "S[(2,8,2,4):(1,4@laneid,2,1@laneid)]";
const B_TF32: &str = "S[(2,4,8):(1,1@laneid,4@laneid)]";
const C_F32: &str = "S[(2,8,4,2):(2,4@laneid,1@laneid,1)]";

/// One m16n8k8 tf32: the fragments themselves, registers in ISA order.
#[test]
fn mma_sync_tf32_one_instruction() {
    let ops = [(A_TF32, [16, 8], Memory::Reg), (B_TF32, [8, 8], Memory::Reg), (C_F32, [16, 8], Memory::Reg)];
    let p = run(Chip::Sm80, ElemType::F32, ops).expect("plans");
    assert_eq!(p.instruction, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32");
    assert_eq!(p.inst_shape, [16, 8, 8]);
    assert_eq!(p.issues.len(), 1);
    assert_eq!(p.issues[0].a, Access::Regs(vec![0, 1, 2, 3]));
    assert_eq!(p.issues[0].b, Access::Regs(vec![0, 1]));
    execute_mma_sync(&p, [(A_TF32, [16, 8]), (B_TF32, [8, 8]), (C_F32, [16, 8])]);
}

/// Two warps along M on `tid`, K = 16 (two k8 steps, K innermost), B replicated over the warps.
#[test]
fn mma_sync_tf32_two_warps_two_k_steps() {
    // A [32,16]: rows (warp, 8*bit0, groupID), cols (k step, 4*bit1, threadID_in_group); 8 registers a thread.
    let a = "S[(2,2,8,2,2,4):(32@tid,1,4@tid,4,2,1@tid)]";
    // B [16,8]: rows (k step, 4*i, threadID_in_group), cols groupID; 4 registers a thread.
    let b = "S[(2,2,4,8):(2,1,1@tid,4@tid)] + R[2:32@tid]";
    let c = "S[(2,2,8,4,2):(32@tid,2,4@tid,1@tid,1)]";
    let p = run(
        Chip::Sm80,
        ElemType::F32,
        [(a, [32, 16], Memory::Reg), (b, [16, 8], Memory::Reg), (c, [32, 8], Memory::Reg)],
    )
    .expect("plans");
    let issues: Vec<(i64, i64, i64)> = p.issues.iter().map(|i| (i.thread_base, i.m, i.k)).collect();
    assert_eq!(issues, [(0, 0, 0), (0, 0, 8), (32, 16, 0), (32, 16, 8)]);
    assert_eq!(p.issues[1].a, Access::Regs(vec![4, 5, 6, 7]));
    execute_mma_sync(&p, [(a, [32, 16]), (b, [16, 8]), (c, [32, 8])]);
}

/// tf32 accumulates into f32 only; the f16 fragment is not a tf32 one.
#[test]
fn mma_sync_tf32_refusals() {
    let ops = [(A_TF32, [16, 8], Memory::Reg), (B_TF32, [8, 8], Memory::Reg), (C_F32, [16, 8], Memory::Reg)];
    let e = run(Chip::Sm80, ElemType::F16, ops).unwrap_err();
    assert_eq!(e.rule, MmaRule::Dtype);
    assert!(e.message.contains("tf32 -> f32"), "{e}");
    let f16_a = "S[(2,8,4,2):(2,4@laneid,1@laneid,1)]";
    let e = run(Chip::Sm80, ElemType::F32, [(f16_a, [16, 8], Memory::Reg), ops[1], ops[2]]).unwrap_err();
    assert_eq!(e.rule, MmaRule::Fragment, "{e}");
}

/// 128B-swizzled K-major tf32 operands: 32 elements (128 bytes) a row, `Swizzle(2,3,3)` on element offsets.
const A_SMEM: &str = "Swizzle(2,3,3) o S[(64,32):(32,1)]";
const B_SMEM: &str = "Swizzle(2,3,3) o S[(32,64):(1,32)]";

/// wgmma m64n64k8 tf32, A and B in shared memory: four K steps of 8 (32 bytes) each; the descriptors start 32
/// bytes apart, SBO 1024 (8 rows of 128 bytes), 128B swizzle, K-major.
#[test]
fn wgmma_tf32_k8() {
    let c = "S[(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]";
    let p = run(
        Chip::Sm90a,
        ElemType::F32,
        [(A_SMEM, [64, 32], Memory::Shared), (B_SMEM, [32, 64], Memory::Shared), (c, [64, 64], Memory::Reg)],
    )
    .expect("plans");
    assert_eq!(p.instruction, "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32");
    assert_eq!(p.issues.len(), 4);
    for (j, issue) in p.issues.iter().enumerate() {
        let Access::Smem(d) = issue.a else { panic!("A is shared") };
        assert_eq!(
            (d.start_offset_bytes, d.sbo_bytes, d.swizzle, d.major),
            (32 * j as i64, 1024, SwizzleMode::B128, Major::K)
        );
    }
    // The same on tid_in_wg.
    let c_tid = "S[(4,2,8,8,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]";
    let q = run(
        Chip::Sm90a,
        ElemType::F32,
        [(A_SMEM, [64, 32], Memory::Shared), (B_SMEM, [32, 64], Memory::Shared), (c_tid, [64, 64], Memory::Reg)],
    );
    assert_eq!(q.unwrap(), p);
    // MN-major tf32 B: wgmma transposes only .f16/.bf16.
    // B MN-major: rows of 32 N elements (128 bytes), K rows 128 bytes apart, the second 32 columns 4 KiB on.
    let b_mn = "Swizzle(2,3,3) o S[(32,2,32):(32,1024,1)]".to_string();
    let e = run(
        Chip::Sm90a,
        ElemType::F32,
        [(A_SMEM, [64, 32], Memory::Shared), (&b_mn, [32, 64], Memory::Shared), (c, [64, 64], Memory::Reg)],
    )
    .unwrap_err();
    assert_eq!(e.rule, MmaRule::SmemAtom, "{e}");
    assert!(e.message.contains("32-bit operands K-major only"), "{e}");
}

/// tcgen05 kind::tf32, M=128, N=64, K=8: the instruction descriptor by hand (Table 42): D f32 (1 << 4), A and B
/// tf32 (2 << 7, 2 << 10), N >> 3 = 8 at bit 17, M >> 4 = 8 at bit 24.
#[test]
fn tcgen05_tf32_idesc() {
    let a = "Swizzle(2,3,3) o S[(128,32):(32,1)]";
    let c = "S[(128,64):(1@TLane,1@TCol)]";
    let p = run(
        Chip::Sm100a,
        ElemType::F32,
        [(a, [128, 32], Memory::Shared), (B_SMEM, [32, 64], Memory::Shared), (c, [128, 64], Memory::Tmem)],
    )
    .expect("plans");
    assert_eq!(p.instruction, "tcgen05.mma.cta_group::1.kind::tf32");
    assert_eq!(p.inst_shape, [128, 64, 8]);
    assert_eq!(p.idesc, Some((1 << 4) | (2 << 7) | (2 << 10) | (8 << 17) | (8 << 24)));
    assert_eq!(p.idesc, Some(0x0810_0910));
    assert_eq!(p.issues.len(), 4);
}

// ---------------------------------------------------------------- the tensor-core model (model/mma_hw.rs)

/// The request of `ops` (tf32 into f32 on `chip`) with its layouts, for running a plan (or a broken copy of it)
/// on the model.
struct Gemm {
    chip: Chip,
    layouts: Vec<Layout>,
    shapes: Vec<[i64; 2]>,
    mems: Vec<Memory>,
}

impl Gemm {
    fn new(chip: Chip, ops: [(&str, [i64; 2], Memory); 3]) -> Gemm {
        Gemm {
            chip,
            layouts: ops.iter().map(|o| l(o.0)).collect(),
            shapes: ops.iter().map(|o| o.1).collect(),
            mems: ops.iter().map(|o| o.2).collect(),
        }
    }

    fn req(&self) -> GemmRequest<'_> {
        let op = |i: usize| Operand { layout: &self.layouts[i], shape: &self.shapes[i], mem: self.mems[i] };
        GemmRequest { chip: self.chip, dtype: ElemType::TF32, acc_dtype: ElemType::F32, a: op(0), b: op(1), c: op(2) }
    }

    /// Plans, runs the plan on the model (which checks `C += A * B` exactly) and returns it.
    fn run(&self) -> MmaPlan {
        let p = plan(&self.req()).unwrap_or_else(|e| panic!("{e}"));
        mma_hw::check_plan(&self.req(), &p);
        p
    }

    /// Whether `p` (a broken copy of a plan of this request) fails on the model.
    fn fails(&self, p: &MmaPlan) -> bool {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| mma_hw::check_plan(&self.req(), p))).is_err()
    }
}

/// A K-major shared tf32 operand over `[rows, cols]` (`b`: the operand is B, `[K, N]`) in the ISA's canonical
/// layout (9.7.15.5.1.2): swizzled modes store rows of `span / 4` elements, 8-row atoms stacked (the layout's
/// swizzle is `Swizzle(2, log2(span / 16), 3)` on element offsets: 4 elements to a 16-byte chunk); the
/// unswizzled mode stores 8-row x 16-byte core matrices, the K-adjacent cores contiguous (LBO 128, SBO 256 when
/// K = 8).
fn k_major(span: i64, b: bool, [r, c]: [i64; 2]) -> String {
    let (mn, k) = if b { (c, r) } else { (r, c) };
    let w = span / 4;
    // (mn, k) -> element offset, written for A ([mn, k]) and transposed for B ([k, mn]).
    let tile = match (span, b) {
        (0, false) => format!("S[({},8,{},4):({},4,32,1)]", mn / 8, k / 4, 8 * k),
        (0, true) => format!("S[({},4,{},8):(32,1,{},4)]", k / 4, mn / 8, 8 * k),
        (_, false) => format!("S[({mn},{},{w}):({w},{},1)]", k / w, mn * w),
        (_, true) => format!("S[({},{w},{mn}):({},1,{w})]", k / w, mn * w),
    };
    match span {
        0 => tile,
        _ => format!("Swizzle(2,{},3) o {tile}", (span / 16).ilog2()),
    }
}

/// The wgmma accumulator fragment over `[64, n]` (9.7.15.5.1.1).
fn wg_c(n: i64) -> String {
    format!("S[(4,2,8,{},4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]", n / 8)
}

/// The tf32 containers decode as the ISA's format says, values worked out by hand: 3.0 is 0x40400000 (exponent
/// 128, mantissa 0.5), -4.0 is 0xC0800000, 1.0 is 0x3F800000; the low 13 bits do not count.
#[test]
fn tf32_containers_decode_by_the_format() {
    assert_eq!(mma_hw::tf32_value(0x4040_0000), 3);
    assert_eq!(mma_hw::tf32_value(0x4040_0FFF), 3);
    assert_eq!(mma_hw::tf32_value(0x4040_1FFF), 3, "the 13 low bits are not part of the value");
    assert_eq!(mma_hw::tf32_value(0xC080_0000), -4);
    assert_eq!(mma_hw::tf32_value(0x3F80_0000), 1);
    assert_eq!(mma_hw::tf32_value(0x0000_0ABC), 0);
    assert_eq!(mma_hw::tf32_container(-3, 0xABC), 0xC040_0ABC);
    assert_eq!(mma_hw::tf32_container(1, 0), 0x3F80_0000);
    assert_eq!(mma_hw::tf32_container(-4, 0x1001), 0xC080_0001, "noise keeps to the low 12 bits");
    // 3 + 2^-9 (mantissa bit 13 set) is a tf32 value, but not an integer: the model refuses to read it.
    assert!(std::panic::catch_unwind(|| mma_hw::tf32_value(0x4040_2000)).is_err());
}

/// mma.sync m16n8k8 tf32 on the model: one instruction, and two warps with two K steps; swapping registers a1 and
/// a2 (rows g+8 and g, columns t and t+4) or b0 and b1 of one issue must fail.
#[test]
fn mma_sync_tf32_on_the_model() {
    let g = Gemm::new(
        Chip::Sm80,
        [(A_TF32, [16, 8], Memory::Reg), (B_TF32, [8, 8], Memory::Reg), (C_F32, [16, 8], Memory::Reg)],
    );
    let p = g.run();
    assert_eq!(p.instruction, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32");
    let mut bad = p.clone();
    bad.issues[0].a = Access::Regs(vec![0, 2, 1, 3]);
    assert!(g.fails(&bad), "a1 and a2 swapped");
    let mut bad = p.clone();
    bad.issues[0].b = Access::Regs(vec![1, 0]);
    assert!(g.fails(&bad), "b0 and b1 swapped");
    let a = "S[(2,2,8,2,2,4):(32@tid,1,4@tid,4,2,1@tid)]";
    let b = "S[(2,2,4,8):(2,1,1@tid,4@tid)] + R[2:32@tid]";
    let c = "S[(2,2,8,4,2):(32@tid,2,4@tid,1@tid,1)]";
    let g = Gemm::new(Chip::Sm80, [(a, [32, 16], Memory::Reg), (b, [16, 8], Memory::Reg), (c, [32, 8], Memory::Reg)]);
    let p = g.run();
    assert_eq!(p.issues.len(), 4);
    let mut bad = p.clone();
    bad.issues.swap(0, 1);
    bad.issues[0].k = 0;
    bad.issues[1].k = 8;
    let (first, second) = (bad.issues[0].a.clone(), bad.issues[1].a.clone());
    bad.issues[0].a = second;
    bad.issues[1].a = first;
    assert!(g.fails(&bad), "the two K steps' A registers exchanged");
}

/// wgmma m64nNk8 tf32 on the model, A and B K-major in shared memory in every swizzle mode (K = 8, 16, 32: one
/// to four K steps), N = 8, 32 and 64; moving A's descriptor start by one 16-byte chunk must fail.
#[test]
fn wgmma_tf32_smem_every_swizzle_mode_on_the_model() {
    for (span, k) in [(0, 16), (32, 8), (64, 16), (128, 32)] {
        for n in [8, 32, 64] {
            let (a, b, c) = (k_major(span, false, [64, k]), k_major(span, true, [k, n]), wg_c(n));
            let g = Gemm::new(
                Chip::Sm90a,
                [(&a, [64, k], Memory::Shared), (&b, [k, n], Memory::Shared), (&c, [64, n], Memory::Reg)],
            );
            let p = g.run();
            assert_eq!(p.instruction, format!("wgmma.mma_async.sync.aligned.m64n{n}k8.f32.tf32.tf32"), "{a}");
            assert_eq!(p.issues.len() as i64, k / 8);
            let mut bad = p.clone();
            let Access::Smem(d) = &mut bad.issues[0].a else { panic!("A is shared") };
            d.desc += 1; // the start address field counts 16-byte units
            assert!(g.fails(&bad), "A one chunk off, span {span}");
        }
    }
}

/// wgmma tf32 with A in registers (the per-warp m16n8k8 fragment, two K steps), B 64B-swizzled; swapping a0
/// and a1 of the first issue must fail.
#[test]
fn wgmma_tf32_a_in_registers_on_the_model() {
    // A [64,16]: rows (warp, 8*bit0, groupID), columns (K step, 4*bit1, threadID_in_group): 8 registers a thread.
    let a = "S[(4,2,8,2,2,4):(1@wid_in_wg,1,4@laneid,4,2,1@laneid)]";
    let b_text = k_major(64, true, [16, 64]);
    let c = wg_c(64);
    let g = Gemm::new(
        Chip::Sm90a,
        [(a, [64, 16], Memory::Reg), (&b_text, [16, 64], Memory::Shared), (&c, [64, 64], Memory::Reg)],
    );
    let p = g.run();
    assert_eq!(p.instruction, "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32");
    assert_eq!(p.issues[0].a, Access::Regs(vec![0, 1, 2, 3]));
    assert_eq!(p.issues[1].a, Access::Regs(vec![4, 5, 6, 7]));
    let mut bad = p.clone();
    bad.issues[0].a = Access::Regs(vec![1, 0, 2, 3]);
    assert!(g.fails(&bad), "a0 and a1 swapped");
}

/// tcgen05 kind::tf32 on the model: M = 128 and 64, K-major shared operands in every swizzle mode, D at a
/// non-zero column; the instruction descriptor's A/B type set to f16's (0), or D moved by a column, must fail.
#[test]
fn tcgen05_tf32_smem_on_the_model() {
    for (span, k) in [(0, 8), (32, 16), (64, 16), (128, 32)] {
        for (m, c) in [(128, "S[(128,64):(1@TLane,1@TCol)] + 64@TCol"), (64, "S[(4,16,64):(32@TLane,1@TLane,1@TCol)]")]
        {
            let (a, b) = (k_major(span, false, [m, k]), k_major(span, true, [k, 64]));
            let g = Gemm::new(
                Chip::Sm100a,
                [(&a, [m, k], Memory::Shared), (&b, [k, 64], Memory::Shared), (c, [m, 64], Memory::Tmem)],
            );
            let p = g.run();
            assert_eq!(p.instruction, "tcgen05.mma.cta_group::1.kind::tf32");
            assert_eq!((p.inst_shape, p.issues.len() as i64), ([m, 64, 8], k / 8));
            let mut bad = p.clone();
            bad.idesc = bad.idesc.map(|d| d & !(7 << 7) & !(7 << 10));
            assert!(g.fails(&bad), "idesc says f16");
            let mut bad = p.clone();
            let Access::Smem(d) = &mut bad.issues[0].b else { panic!("B is shared") };
            d.desc += 1;
            assert!(g.fails(&bad), "B one chunk off, span {span}");
        }
    }
}

/// tcgen05 kind::tf32 with A in tensor memory: one tf32 element to a 32-bit column, so a K step is 8 columns; A
/// from column 32, D from column 0. Moving A's column by one must fail.
#[test]
fn tcgen05_tf32_a_in_tmem_on_the_model() {
    let a = "S[(128,32):(1@TLane,1@TCol)] + 128@TCol";
    let b = k_major(128, true, [32, 64]);
    let c = "S[(128,64):(1@TLane,1@TCol)]";
    let g = Gemm::new(
        Chip::Sm100a,
        [(a, [128, 32], Memory::Tmem), (&b, [32, 64], Memory::Shared), (c, [128, 64], Memory::Tmem)],
    );
    let p = g.run();
    let cols: Vec<Access> = p.issues.iter().map(|i| i.a.clone()).collect();
    let want: Vec<Access> = [128, 136, 144, 152].iter().map(|&col| Access::Tmem { lane: 0, col }).collect();
    assert_eq!(cols, want);
    let mut bad = p.clone();
    bad.issues[1].a = Access::Tmem { lane: 0, col: 137 };
    assert!(g.fails(&bad), "A one column off");
}
