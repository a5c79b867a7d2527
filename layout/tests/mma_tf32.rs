//! tf32 GEMMs (issue 21, item 3): `mma.sync.m16n8k8` `.tf32` (sm_80), `wgmma.mma_async.m64nNk8` `.tf32` (sm_90a)
//! and `tcgen05.mma .kind::tf32` K=8 (sm_100a), each into f32. Expected opcodes, descriptor fields and
//! instruction descriptors are worked out by hand from the PTX ISA; mma.sync plans are executed on a small model
//! of the instruction written here from the ISA's tf32 fragment tables (9.7.14.5.7), independently of the planner.

use axe_layout::mma::{plan, Access, Chip, DType, GemmRequest, Major, Mem, MmaPlan, MmaRule, Operand};
use axe_layout::notation::parse_layout;
use axe_layout::{Layout, SwizzleMode};
use std::collections::HashMap;

fn l(text: &str) -> Layout {
    parse_layout(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn run(chip: Chip, acc: DType, ops: [(&str, [i64; 2], Mem); 3]) -> Result<MmaPlan, axe_layout::mma::MmaError> {
    let ls: Vec<Layout> = ops.iter().map(|o| l(o.0)).collect();
    let op = |i: usize| Operand { layout: &ls[i], shape: &ops[i].1, mem: ops[i].2 };
    plan(&GemmRequest { chip, dtype: DType::TF32, acc_dtype: acc, a: op(0), b: op(1), c: op(2) })
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
    let ops = [(A_TF32, [16, 8], Mem::Reg), (B_TF32, [8, 8], Mem::Reg), (C_F32, [16, 8], Mem::Reg)];
    let p = run(Chip::Sm80, DType::F32, ops).expect("plans");
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
    let p = run(Chip::Sm80, DType::F32, [(a, [32, 16], Mem::Reg), (b, [16, 8], Mem::Reg), (c, [32, 8], Mem::Reg)])
        .expect("plans");
    let issues: Vec<(i64, i64, i64)> = p.issues.iter().map(|i| (i.thread_base, i.m, i.k)).collect();
    assert_eq!(issues, [(0, 0, 0), (0, 0, 8), (32, 16, 0), (32, 16, 8)]);
    assert_eq!(p.issues[1].a, Access::Regs(vec![4, 5, 6, 7]));
    execute_mma_sync(&p, [(a, [32, 16]), (b, [16, 8]), (c, [32, 8])]);
}

/// tf32 accumulates into f32 only; the f16 fragment is not a tf32 one.
#[test]
fn mma_sync_tf32_refusals() {
    let ops = [(A_TF32, [16, 8], Mem::Reg), (B_TF32, [8, 8], Mem::Reg), (C_F32, [16, 8], Mem::Reg)];
    let e = run(Chip::Sm80, DType::F16, ops).unwrap_err();
    assert_eq!(e.rule, MmaRule::Dtype);
    assert!(e.message.contains("tf32 -> f32"), "{e}");
    let f16_a = "S[(2,8,4,2):(2,4@laneid,1@laneid,1)]";
    let e = run(Chip::Sm80, DType::F32, [(f16_a, [16, 8], Mem::Reg), ops[1], ops[2]]).unwrap_err();
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
        DType::F32,
        [(A_SMEM, [64, 32], Mem::Shared), (B_SMEM, [32, 64], Mem::Shared), (c, [64, 64], Mem::Reg)],
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
        DType::F32,
        [(A_SMEM, [64, 32], Mem::Shared), (B_SMEM, [32, 64], Mem::Shared), (c_tid, [64, 64], Mem::Reg)],
    );
    assert_eq!(q.unwrap(), p);
    // MN-major tf32 B: wgmma transposes only .f16/.bf16.
    // B MN-major: rows of 32 N elements (128 bytes), K rows 128 bytes apart, the second 32 columns 4 KiB on.
    let b_mn = "Swizzle(2,3,3) o S[(32,2,32):(32,1024,1)]".to_string();
    let e = run(
        Chip::Sm90a,
        DType::F32,
        [(A_SMEM, [64, 32], Mem::Shared), (&b_mn, [32, 64], Mem::Shared), (c, [64, 64], Mem::Reg)],
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
        DType::F32,
        [(a, [128, 32], Mem::Shared), (B_SMEM, [32, 64], Mem::Shared), (c, [128, 64], Mem::Tmem)],
    )
    .expect("plans");
    assert_eq!(p.instruction, "tcgen05.mma.cta_group::1.kind::tf32");
    assert_eq!(p.inst_shape, [128, 64, 8]);
    assert_eq!(p.idesc, Some((1 << 4) | (2 << 7) | (2 << 10) | (8 << 17) | (8 << 24)));
    assert_eq!(p.idesc, Some(0x0810_0910));
    assert_eq!(p.issues.len(), 4);
}
