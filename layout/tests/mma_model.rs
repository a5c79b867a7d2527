//! A software model of the tensor-core instructions, written from the PTX ISA independently of the planner (it
//! decodes descriptors itself and never calls planner code), that executes a plan on small integer matrices and
//! checks `C += A * B` exactly, element by element.
//!
//! The model's machine:
//! - a register file per thread of the CTA, filled from each register operand's layout (thread id = `laneid` +
//!   32 * warp axes + 128 * `wgid`; register = the `m` coordinate; every replica gets a copy);
//! - shared memory as bytes at absolute addresses, the tensor's base at `SMEM_BASE` (a multiple of 1024 plus
//!   3 * 1024); the layout's `m` (swizzle included, relative to the base) times the element size is the offset;
//! - tensor memory as 128 lanes x 512 columns of 32-bit cells, each four bytes; a layout's TCol value counts
//!   element-sized slots (slot `s` of a `b`-bit tensor is column `s / (32 / b)`, byte `(s % (32 / b)) * b / 8`):
//!   that is how the test places A and C there and reads C back (how A gets into tensor memory is a copy's
//!   business).
//!
//! Per instruction (PTX ISA):
//! - `mma.sync.m16n8k{16,8}` (9.7.14.5.7/8): lane `l` of the issuing warp holds fragment element `i` of A, B, C
//!   at the ISA's `(row, col)` formulas of `groupID`/`threadID_in_group`, in the registers the plan lists;
//! - `wgmma.mma_async.m64nNk{16,32}` (9.7.15.5.1): warp `w` of the warpgroup holds rows `16w..` of A (registers)
//!   and D; shared operands are read through the 64-bit matrix descriptor, decoded here: start, LBO, SBO (each
//!   `field << 4`), base offset, swizzle (bits 62-63: 0 none, 1 128B, 2 64B, 3 32B); the element `(mn, k)` is at
//!   the canonical layout's offset (core matrices of 8 rows x 16 bytes; swizzle atoms of 8 rows x the span),
//!   then the swizzle XORs absolute address bits `[4,4+B)` with `[7,7+B)`;
//! - `tcgen05.mma.cta_group::1` (9.7.16): M, N, the types and the transposes come from the 32-bit instruction
//!   descriptor (decoded here), shared descriptors carry the fixed `0b001` at bits 46-48 and the swizzle at 61-63
//!   (0 none, 2 128B, 4 64B, 6 32B); D lives in tensor memory at the plan's lane and column, row `i` in lane `i`
//!   (M=128) or in lane `32*(i/16) + i%16` (M=64), column `j` in the low bits of column `j` (unpacked, also for
//!   f16, 9.7.16.10.4.1); reading it back, warp `w` of the
//!   warpgroup reaches only lanes `32w..32w+32`. With A in tensor memory (`[a-tmem]`, 9.7.16.10) A is row-major
//!   (the idesc's transpose-A bit must be 0) on the same data path: element `(i, k)` is in D's lane for row `i`,
//!   column `a_col + k / (32 / bits)`, byte `(k % (32 / bits)) * bits / 8` (packed, 9.7.16.10.4). An accumulator write into a cell that holds A, or
//!   an A read of a cell the accumulator wrote, fails the test (the two must not overlap).
//! - `.tf32` (mma.sync m16n8k8, wgmma m64nNk8, tcgen05 `.kind::tf32` K = 8): 32-bit containers decoded as the
//!   ISA's format says, the ISA's tf32 fragments, wgmma shared operands K-major only (`model/mma_hw.rs`'s `//!`;
//!   the tf32 plans are run in `mma_tf32.rs`).

#[path = "model/mma_hw.rs"]
mod mma_hw;

use axe_layout::mma::{
    plan, plan_moving, Access, Chip, ElemType, GemmRequest, Major, Memory, MmaPlan, MmaRule, Operand, OperandMove, Role,
};
use axe_layout::notation::parse_layout;
use axe_layout::slice::slice;
use axe_layout::tile_layout::unflatten;
use mma_hw::*;

// ---------------------------------------------------------------- mma.sync

const A16: &str = "S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)]";
const B16: &str = "S[(2,4,2,8):(2,1@laneid,1,4@laneid)]";
const C16: &str = "S[(2,8,4,2):(2,4@laneid,1@laneid,1)]";

#[test]
fn mma_sync_one_instruction_each_dtype() {
    for (dtype, acc) in [("f16", "f32"), ("f16", "f16"), ("bf16", "f32")] {
        let p = run(
            "sm_80",
            dtype,
            acc,
            &Op::new(A16, [16, 16], Memory::Reg),
            &Op::new(B16, [16, 8], Memory::Reg),
            &Op::new(C16, [16, 8], Memory::Reg),
        );
        assert_eq!(p.instruction, format!("mma.sync.aligned.m16n8k16.row.col.{acc}.{dtype}.{dtype}.{acc}"));
        assert_eq!(p.issues.len(), 1);
    }
}

/// Two warps split N; A is replicated across them (the case TIRx refuses); two M tiles per warp; K is 32.
#[test]
fn mma_sync_two_warps_split_n_with_a_replicated() {
    let a = Op::new("S[(2,2,8,2,2,4,2):(16,2,4@laneid,8,4,1@laneid,1)] + R[2:1@warpid]", [32, 32], Memory::Reg);
    let b = Op::new("S[(2,2,4,2,2,8):(4,2,1@laneid,1,1@warpid,4@laneid)]", [32, 16], Memory::Reg);
    let c = Op::new("S[(2,2,8,2,4,2):(4,2,4@laneid,1@warpid,1@laneid,1)]", [32, 16], Memory::Reg);
    let p = run("sm_90a", "f16", "f32", &a, &b, &c);
    assert_eq!(p.issues.len(), 8);
    assert_eq!(p.issues.iter().filter(|i| i.thread_base == 32).count(), 4);
    // K innermost: consecutive issues of a warp share the C tile.
    assert_eq!((p.issues[0].m, p.issues[0].n, p.issues[0].k), (0, 0, 0));
    assert_eq!((p.issues[1].m, p.issues[1].n, p.issues[1].k), (0, 0, 16));
}

/// K = 8 admits only m16n8k8; registers of the A atom that are not k16's pattern force k8 too.
#[test]
fn mma_sync_k8() {
    let a = Op::new("S[(2,8,4,2):(2,4@laneid,1@laneid,1)]", [16, 8], Memory::Reg);
    let b = Op::new("S[(4,2,8):(1@laneid,1,4@laneid)]", [8, 8], Memory::Reg);
    let p = run("sm_80", "f16", "f32", &a, &b, &Op::new(C16, [16, 8], Memory::Reg));
    assert_eq!(p.inst_shape, [16, 8, 8]);
    // K = 16 whose B registers keep the two k8 halves 4 apart (n tiles 2 apart): not k16's b0..b3, so k8.
    let a = Op::new(A16, [16, 16], Memory::Reg);
    let b = Op::new("S[(2,4,2,2,8):(4,1@laneid,1,2,4@laneid)]", [16, 16], Memory::Reg);
    let c = Op::new("S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)]", [16, 16], Memory::Reg);
    let p = run("sm_80", "f16", "f32", &a, &b, &c);
    assert_eq!((p.inst_shape, p.issues.len()), ([16, 8, 8], 4));
}

// ---------------------------------------------------------------- shared-memory layouts of the tests

/// A shared operand laid out as the PTX ISA's canonical layouts tile it (written here from the ISA's pictures,
/// not by the planner): swizzled modes store panels of `w` contiguous elements (the span), 8-row atoms stacked;
/// the unswizzled mode stores 8x16-byte core matrices, K-adjacent cores contiguous.
fn smem(span: i64, k_major: bool, b: bool, bits: u32, shape: [i64; 2]) -> String {
    let bytes = i64::from(bits / 8);
    let (t, w) = (16 / bytes, span.max(16) / bytes);
    let [r, c] = shape;
    let tile = match (b, k_major, span) {
        (false, true, 0) => format!("S[({},8,{},{t}):({},{t},{},1)]", r / 8, c / t, 8 * c, 8 * t),
        (false, true, _) => format!("S[({r},{},{w}):({w},{},1)]", c / w, r * w),
        (false, false, 0) => format!("S[({},{t},{},8):({},1,{},{t})]", r / t, c / 8, 8 * t, 8 * r),
        (false, false, _) => format!("S[({},{w},{c}):({},1,{w})]", r / w, w * c),
        (true, true, 0) => format!("S[({},{t},{},8):({},1,{},{t})]", r / t, c / 8, 8 * t, 8 * r),
        (true, true, _) => format!("S[({},{w},{c}):({},1,{w})]", r / w, c * w),
        (true, false, 0) => format!("S[({},8,{},{t}):({},{t},{},1)]", r / 8, c / t, 8 * c, 8 * t),
        (true, false, _) => format!("S[({r},{},{w}):({w},{},1)]", c / w, w * r),
    };
    match span {
        0 => tile,
        _ => format!("Swizzle({},{},3) o {tile}", (16 / bytes).ilog2(), (span / 16).ilog2()),
    }
}

fn wg_c(n: i64) -> String {
    format!("S[(4,2,8,{},4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]", n / 8)
}

fn smem_of(p: &MmaPlan, which: char) -> axe_layout::mma::SmemDesc {
    let acc = if which == 'a' { &p.issues[0].a } else { &p.issues[0].b };
    match acc {
        Access::Smem(d) => *d,
        other => panic!("expected a shared operand, got {other:?}"),
    }
}

/// Slices `layout` over `shape` to `region` (what a kernel does to gemm one K step of a staged tile).
fn sliced(text: &str, shape: [i64; 2], region: [(i64, i64); 2], mem: Memory) -> Op {
    let full = parse_layout(text).unwrap();
    let layout = slice(&full, &shape, &region).unwrap();
    Op { layout, shape: [region[0].1 - region[0].0, region[1].1 - region[1].0], mem }
}

// ---------------------------------------------------------------- wgmma

/// Every swizzle mode, K- and MN-major for A and B, f16, one warpgroup, M=N=K=64.
#[test]
fn wgmma_every_swizzle_mode_and_major() {
    for span in [0, 32, 64, 128] {
        for a_k in [true, false] {
            for b_k in [true, false] {
                let a = Op::new(&smem(span, a_k, false, 16, [64, 64]), [64, 64], Memory::Shared);
                let b = Op::new(&smem(span, b_k, true, 16, [64, 64]), [64, 64], Memory::Shared);
                let p = run("sm_90a", "f16", "f32", &a, &b, &Op::new(&wg_c(64), [64, 64], Memory::Reg));
                assert_eq!(p.instruction, "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16");
                assert_eq!(p.issues.len(), 4);
                for (which, k) in [('a', a_k), ('b', b_k)] {
                    let d = smem_of(&p, which);
                    assert_eq!(d.swizzle.bytes(), span.max(16), "{which}");
                    assert_eq!(d.major, if k { Major::K } else { Major::MN }, "span {span} {which}");
                }
            }
        }
    }
}

/// N = 8 (the narrowest wgmma), B both majors; MN-major 128B needs B to be an 8-wide slice of a 64-wide row.
#[test]
fn wgmma_n8() {
    let a = Op::new(&smem(128, true, false, 16, [64, 64]), [64, 64], Memory::Shared);
    let c = Op::new(&wg_c(8), [64, 8], Memory::Reg);
    for (span, k) in [(0, true), (0, false), (32, true), (128, true)] {
        let b = Op::new(&smem(span, k, true, 16, [64, 8]), [64, 8], Memory::Shared);
        assert_eq!(run("sm_90a", "f16", "f32", &a, &b, &c).inst_shape, [64, 8, 16]);
    }
    for n0 in [0, 8, 56] {
        let b = sliced(&smem(128, false, true, 16, [64, 64]), [64, 64], [(0, 64), (n0, n0 + 8)], Memory::Shared);
        let p = run("sm_90a", "f16", "f32", &a, &b, &c);
        assert_eq!(smem_of(&p, 'b').start_offset_bytes, n0 * 2);
    }
}

/// K slices narrower than a swizzle row: A and B are the K-step [k0, k0+16) of a 64-wide 128B tile, whose start
/// sits 32*j bytes into the row; also with a second 1024-byte pattern further on.
#[test]
fn wgmma_k_slices_smaller_than_the_swizzle_atom() {
    for k0 in [0, 16, 32, 48] {
        let a = sliced(&smem(128, true, false, 16, [128, 64]), [128, 64], [(64, 128), (k0, k0 + 16)], Memory::Shared);
        let b = sliced(&smem(128, true, true, 16, [64, 32]), [64, 32], [(k0, k0 + 16), (0, 32)], Memory::Shared);
        let p = run("sm_90a", "bf16", "f32", &a, &b, &Op::new(&wg_c(32), [64, 32], Memory::Reg));
        assert_eq!(smem_of(&p, 'a').start_offset_bytes, 64 * 128 + k0 * 2);
        assert_eq!(smem_of(&p, 'b').start_offset_bytes, k0 * 2);
    }
}

/// fp8 (k32), f16 accumulator, K-major in every swizzle mode.
#[test]
fn wgmma_fp8() {
    for span in [0, 32, 64, 128] {
        let a = Op::new(&smem(span, true, false, 8, [64, 128]), [64, 128], Memory::Shared);
        let b = Op::new(&smem(span, true, true, 8, [128, 16]), [128, 16], Memory::Shared);
        let p = run("sm_90a", "e4m3", "f16", &a, &b, &Op::new(&wg_c(16), [64, 16], Memory::Reg));
        assert_eq!(p.instruction, "wgmma.mma_async.sync.aligned.m64n16k32.f16.e4m3.e4m3");
        assert_eq!(p.issues.len(), 4);
    }
}

/// A in registers, two warpgroups splitting M, each the full N = 256 (the largest instruction).
#[test]
fn wgmma_a_in_registers_two_warpgroups() {
    let a = Op::new("S[(2,4,2,8,2,2,4,2):(1@wgid,1@wid_in_wg,2,4@laneid,8,4,1@laneid,1)]", [128, 32], Memory::Reg);
    let b = Op::new(&smem(64, false, true, 16, [32, 256]), [32, 256], Memory::Shared);
    let c = Op::new("S[(2,4,2,8,32,4,2):(1@wgid,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]", [128, 256], Memory::Reg);
    let p = run("sm_90a", "f16", "f32", &a, &b, &c);
    assert_eq!(p.inst_shape, [64, 256, 16]);
    let bases: Vec<i64> = p.issues.iter().map(|i| i.thread_base).collect();
    assert_eq!(bases, vec![0, 0, 128, 128]);
}

// ---------------------------------------------------------------- tcgen05

/// M=128, N=64, f16 and bf16, K-major 64B operands, D at column 0.
#[test]
fn tcgen05_m128() {
    for dtype in ["f16", "bf16"] {
        let a = Op::new(&smem(64, true, false, 16, [128, 32]), [128, 32], Memory::Shared);
        let b = Op::new(&smem(64, true, true, 16, [32, 64]), [32, 64], Memory::Shared);
        let c = Op::new("S[(128,64):(1@TLane,1@TCol)]", [128, 64], Memory::Tmem);
        let p = run("sm_100a", dtype, "f32", &a, &b, &c);
        assert_eq!(p.instruction, "tcgen05.mma.cta_group::1.kind::f16");
        assert_eq!((p.inst_shape, p.issues.len(), p.tmem_columns), ([128, 64, 16], 2, Some(64)));
    }
}

/// M=64 (Layout F) at lane 16 and column 96: non-zero tensor-memory offsets; MN-major operands, every mode. The
/// accumulator is f16, unpacked: TCol counts 16-bit slots, so column j is slot 2j (column 96 is slot 192).
#[test]
fn tcgen05_m64_with_tmem_offsets_and_mn_major() {
    for span in [0, 32, 64, 128] {
        let a = Op::new(&smem(span, false, false, 16, [64, 32]), [64, 32], Memory::Shared);
        let b = Op::new(&smem(span, false, true, 16, [32, 64]), [32, 64], Memory::Shared);
        let c = Op::new("S[(4,16,64):(32@TLane,1@TLane,2@TCol)] + 16@TLane + 192@TCol", [64, 64], Memory::Tmem);
        let p = run("sm_100a", "f16", "f16", &a, &b, &c);
        assert_eq!(p.inst_shape, [64, 64, 16]);
        assert_eq!(p.tmem_columns, Some(256));
        assert_eq!(p.issues[0].c, Access::Tmem { lane: 16, col: 96 });
    }
}

/// fp8 (kind::f8f6f4, k32) with MN-major 128B operands (fp8 MN-major is legal on tcgen05) and M = 256 as two M=128 tiles side by side in columns.
#[test]
fn tcgen05_fp8_two_m_tiles() {
    let a = Op::new(&smem(128, false, false, 8, [256, 64]), [256, 64], Memory::Shared);
    let b = Op::new(&smem(128, false, true, 8, [64, 128]), [64, 128], Memory::Shared);
    let c = Op::new("S[(2,128,128):(128@TCol,1@TLane,1@TCol)]", [256, 128], Memory::Tmem);
    let p = run("sm_100a", "e5m2", "f32", &a, &b, &c);
    assert_eq!(p.instruction, "tcgen05.mma.cta_group::1.kind::f8f6f4");
    assert_eq!((p.inst_shape, p.issues.len(), p.tmem_columns), ([128, 128, 32], 4, Some(256)));
}

// ---------------------------------------------------------------- tcgen05 with A in tensor memory

fn tmem_a_of(p: &MmaPlan) -> Vec<(i64, i64)> {
    p.issues
        .iter()
        .map(|i| match i.a {
            Access::Tmem { lane, col } => (lane, col),
            ref other => panic!("expected A in tensor memory, got {other:?}"),
        })
        .collect()
}

/// M=128, f16 and bf16, K=32 (two k16 steps), A at TCol slot 256 (column 128: 2 halves to a column) and D at
/// column 32: non-zero tensor-memory offsets for both. Each K step of A is 8 columns further.
#[test]
fn tcgen05_a_in_tmem_m128() {
    for dtype in ["f16", "bf16"] {
        let a = Op::new("S[(128,32):(1@TLane,1@TCol)] + 256@TCol", [128, 32], Memory::Tmem);
        let b = Op::new(&smem(64, true, true, 16, [32, 64]), [32, 64], Memory::Shared);
        let c = Op::new("S[(128,64):(1@TLane,1@TCol)] + 32@TCol", [128, 64], Memory::Tmem);
        let p = run("sm_100a", dtype, "f32", &a, &b, &c);
        assert_eq!(p.instruction, "tcgen05.mma.cta_group::1.kind::f16");
        assert_eq!((p.inst_shape, p.tmem_columns), ([128, 64, 16], Some(256)));
        assert_eq!(tmem_a_of(&p), vec![(0, 128), (0, 136)]);
        assert_eq!(p.issues[0].c, Access::Tmem { lane: 0, col: 32 });
    }
}

/// M=64 (Layout F) at lane 16 for A and D, an f16 accumulator at column 96, MN-major B in every swizzle mode;
/// A's two K steps are 8 columns apart (slots 64 and 96: columns 32 and 48, a gap of 8 columns between them).
#[test]
fn tcgen05_a_in_tmem_m64_lane16() {
    for span in [0, 32, 64, 128] {
        let a =
            Op::new("S[(4,16,2,16):(32@TLane,1@TLane,32@TCol,1@TCol)] + 16@TLane + 64@TCol", [64, 32], Memory::Tmem);
        let b = Op::new(&smem(span, false, true, 16, [32, 64]), [32, 64], Memory::Shared);
        let c = Op::new("S[(4,16,64):(32@TLane,1@TLane,2@TCol)] + 16@TLane + 192@TCol", [64, 64], Memory::Tmem);
        let p = run("sm_100a", "f16", "f16", &a, &b, &c);
        assert_eq!((p.inst_shape, p.tmem_columns), ([64, 64, 16], Some(256)));
        assert_eq!(tmem_a_of(&p), vec![(16, 32), (16, 48)]);
    }
}

/// fp8 (kind::f8f6f4, k32): four e4m3/e5m2 elements to a column, so a K step is 8 columns; A from column 8.
#[test]
fn tcgen05_a_in_tmem_fp8() {
    for (dtype, acc, d) in [("e4m3", "f32", "1@TCol)] + 64@TCol"), ("e5m2", "f16", "2@TCol)] + 128@TCol")] {
        let a = Op::new("S[(128,64):(1@TLane,1@TCol)] + 32@TCol", [128, 64], Memory::Tmem);
        let b = Op::new(&smem(64, true, true, 8, [64, 32]), [64, 32], Memory::Shared);
        let c = Op::new(&format!("S[(128,32):(1@TLane,{d}"), [128, 32], Memory::Tmem);
        let p = run("sm_100a", dtype, acc, &a, &b, &c);
        assert_eq!(p.instruction, "tcgen05.mma.cta_group::1.kind::f8f6f4");
        assert_eq!((p.inst_shape, p.tmem_columns), ([128, 32, 32], Some(128)));
        assert_eq!(tmem_a_of(&p), vec![(0, 8), (0, 16)]);
    }
}

/// M = 256 as two M=128 tiles: A's second row block 8 columns after the first (slot 16), D's 64 columns after.
#[test]
fn tcgen05_a_in_tmem_two_m_tiles() {
    let a = Op::new("S[(2,128,16):(16@TCol,1@TLane,1@TCol)]", [256, 16], Memory::Tmem);
    let b = Op::new(&smem(32, true, true, 16, [16, 64]), [16, 64], Memory::Shared);
    let c = Op::new("S[(2,128,64):(64@TCol,1@TLane,1@TCol)] + 64@TCol", [256, 64], Memory::Tmem);
    let p = run("sm_100a", "bf16", "f32", &a, &b, &c);
    assert_eq!(tmem_a_of(&p), vec![(0, 0), (0, 8)]);
    let cs: Vec<Access> = p.issues.iter().map(|i| i.c.clone()).collect();
    assert_eq!(cs, vec![Access::Tmem { lane: 0, col: 64 }, Access::Tmem { lane: 0, col: 128 }]);
}

/// What the planner refuses with A in tensor memory, by rule, with the numbers.
#[test]
fn tcgen05_a_in_tmem_refusals() {
    use axe_layout::mma::MmaRule;
    let refuse = |a: (&str, [i64; 2]), c: (&str, [i64; 2]), m: i64| {
        let (a, c) = (Op::new(a.0, a.1, Memory::Tmem), Op::new(c.0, c.1, Memory::Tmem));
        let b = Op::new(&smem(32, true, true, 16, [a.shape[1], c.shape[1]]), [a.shape[1], c.shape[1]], Memory::Shared);
        assert_eq!(a.shape[0], m);
        let req = GemmRequest {
            chip: Chip::Sm100a,
            dtype: ElemType::F16,
            acc_dtype: ElemType::F32,
            a: Operand { layout: &a.layout, shape: &a.shape, mem: a.mem },
            b: Operand { layout: &b.layout, shape: &b.shape, mem: b.mem },
            c: Operand { layout: &c.layout, shape: &c.shape, mem: c.mem },
        };
        plan(&req).expect_err("refused")
    };
    let d128 = ("S[(128,64):(1@TLane,1@TCol)] + 64@TCol", [128, 64]);
    // Rows along the columns: not the data path.
    let e = refuse(("S[(128,16):(1@TCol,1@TLane)]", [128, 16]), d128, 128);
    assert_eq!(e.rule, MmaRule::TmemDatapath, "{e}");
    assert!(e.message.contains("operand A is not a tile of the M=128 tensor-memory data-path layout"), "{e}");
    assert!(e.message.contains("(TCol in 16-bit slots, 2 to a 32-bit column)"), "{e}");
    // Slot 1 is the high half of column 0.
    let e = refuse(("S[(128,16):(1@TLane,1@TCol)] + 1@TCol", [128, 16]), d128, 128);
    assert_eq!(e.rule, MmaRule::TmemDatapath, "{e}");
    assert!(e.message.contains("starts at TCol slot 1, inside a 32-bit column (2 16-bit elements to a column)"), "{e}");
    // A in columns 60..68 and D in 64..128.
    let e = refuse(("S[(128,16):(1@TLane,1@TCol)] + 120@TCol", [128, 16]), d128, 128);
    assert_eq!(e.rule, MmaRule::TmemOverlap, "{e}");
    assert!(e.message.contains("operand A's columns 60..68 overlap the accumulator's columns 64..128"), "{e}");
    // Slots 1008..1040 are columns 504..520.
    let e = refuse(("S[(128,32):(1@TLane,1@TCol)] + 1008@TCol", [128, 32]), d128, 128);
    assert_eq!(e.rule, MmaRule::TmemColumns, "{e}");
    assert!(e.message.contains("operand A reaches column 519"), "{e}");
    // Layout F: A at lane 0, D at lane 16.
    let d64 = ("S[(4,16,64):(32@TLane,1@TLane,1@TCol)] + 16@TLane + 64@TCol", [64, 64]);
    let e = refuse(("S[(4,16,16):(32@TLane,1@TLane,1@TCol)]", [64, 16]), d64, 64);
    assert_eq!(e.rule, MmaRule::TmemDatapath, "{e}");
    assert!(e.message.contains("starts at lane 0, but the accumulator tile it multiplies into at lane 16"), "{e}");
    // An f16 accumulator packed two to a column (TCol stride 1) is not the unpacked data path (stride 2).
    let a = Op::new(&smem(32, true, false, 16, [128, 16]), [128, 16], Memory::Shared);
    let b = Op::new(&smem(32, true, true, 16, [16, 64]), [16, 64], Memory::Shared);
    let c = Op::new("S[(128,64):(1@TLane,1@TCol)]", [128, 64], Memory::Tmem);
    let req = GemmRequest {
        chip: Chip::Sm100a,
        dtype: ElemType::F16,
        acc_dtype: ElemType::F16,
        a: Operand { layout: &a.layout, shape: &a.shape, mem: a.mem },
        b: Operand { layout: &b.layout, shape: &b.shape, mem: b.mem },
        c: Operand { layout: &c.layout, shape: &c.shape, mem: c.mem },
    };
    let e = plan(&req).expect_err("packed f16 D");
    assert_eq!(e.rule, MmaRule::TmemDatapath, "{e}");
    assert!(e.message.contains("S[(128,64):(1@TLane,2@TCol)] over [128, 64] (TCol in 16-bit slots, 2 to a 32-bit"));
    // The same columns at the other 16-lane half of Layout F do not overlap.
    let a = Op::new("S[(4,16,16):(32@TLane,1@TLane,1@TCol)] + 128@TCol", [64, 16], Memory::Tmem);
    let b = Op::new(&smem(32, true, true, 16, [16, 64]), [16, 64], Memory::Shared);
    let c = Op::new("S[(4,16,64):(32@TLane,1@TLane,1@TCol)]", [64, 64], Memory::Tmem);
    assert_eq!(tmem_a_of(&run("sm_100a", "f16", "f32", &a, &b, &c)), vec![(0, 64)]);
}

/// A and C in separate allocations (`plan_with(.., Separate)`): both may start at column 0, and each allocation
/// covers its own reach (A: 16 slots of f16 = 8 columns; C: 64 columns); one allocation would overlap.
#[test]
fn tcgen05_a_in_tmem_separate_allocations() {
    use axe_layout::mma::{plan_with, MmaRule, Role, TmemAllocations};
    let a = Op::new("S[(128,16):(1@TLane,1@TCol)]", [128, 16], Memory::Tmem);
    let b = Op::new(&smem(32, true, true, 16, [16, 64]), [16, 64], Memory::Shared);
    let c = Op::new("S[(128,64):(1@TLane,1@TCol)]", [128, 64], Memory::Tmem);
    let req = GemmRequest {
        chip: Chip::Sm100a,
        dtype: ElemType::F16,
        acc_dtype: ElemType::F32,
        a: Operand { layout: &a.layout, shape: &a.shape, mem: a.mem },
        b: Operand { layout: &b.layout, shape: &b.shape, mem: b.mem },
        c: Operand { layout: &c.layout, shape: &c.shape, mem: c.mem },
    };
    assert_eq!(plan(&req).expect_err("one allocation").rule, MmaRule::TmemOverlap);
    let p = plan_with(&req, TmemAllocations::Separate).unwrap();
    assert_eq!(p.tmem_reach, vec![(Role::A, 8), (Role::C, 64)]);
    assert_eq!(tmem_a_of(&p), vec![(0, 0)]);
    assert_eq!(p.issues[0].c, Access::Tmem { lane: 0, col: 0 });
}

// ---------------------------------------------------------------- run-time stages of a shared ring

/// The plan as the kernel runs it at stage offsets `values`, following only the descriptors: the pass adds
/// `((base + stage bytes) >> 4) & 0x3FFF` to each descriptor of a moved operand (the base is the model's
/// `SMEM_BASE`, added when reading), so the start field grows by `(bytes * value / divisor) >> 4`; it must not
/// carry out of its 14 bits.
fn resolve_starts(p: &MmaPlan, values: &[i64]) -> MmaPlan {
    let mut out = p.clone();
    for term in &p.dynamic {
        let value = values[term.offset];
        assert_eq!(value % term.divisor, 0, "the stage offset divides exactly");
        let moved = term.bytes * (value / term.divisor);
        assert_eq!(moved % 16, 0, "a descriptor start moves by 16-byte units");
        for issue in &mut out.issues {
            let access = if term.role == Role::A { &mut issue.a } else { &mut issue.b };
            let Access::Smem(d) = access else { panic!("a moved operand is read through a descriptor") };
            let field = (d.desc & 0x3FFF) + (moved as u64 >> 4);
            assert!(field < 0x4000, "the start field overflows");
            d.desc = (d.desc & !0x3FFF) | field;
        }
    }
    out.dynamic.clear();
    out
}

/// A GEMM over stage `s` of an A ring and a B ring (each a `[stages * rows, cols]` tensor, a stage `rows` rows of
/// it, moved along dimension 0 by `rows * s`), planned once with run-time starts and run on the model for every
/// stage: every stage of both rings holds different numbers, and C must be `C0 + A_s * B_s` exactly, so a wrong
/// stage offset, or a stage whose swizzle phase differs from stage 0's, fails.
#[allow(clippy::too_many_arguments)]
fn run_ring(
    chip: &str,
    dtype: &str,
    acc: &str,
    (a_ring, a_rows): (&Op, i64),
    (b_ring, b_rows): (&Op, i64),
    c: &Op,
    stages: i64,
) -> MmaPlan {
    let a_shape = [a_rows, a_ring.shape[1]];
    let b_shape = [b_rows, b_ring.shape[1]];
    let a0 = slice(&a_ring.layout, &a_ring.shape, &[(0, a_rows), (0, a_shape[1])]).unwrap();
    let b0 = slice(&b_ring.layout, &b_ring.shape, &[(0, b_rows), (0, b_shape[1])]).unwrap();
    let dtype = ElemType::from_name(dtype).unwrap();
    let req = GemmRequest {
        chip: Chip::from_name(chip).unwrap(),
        dtype,
        acc_dtype: ElemType::from_name(acc).unwrap(),
        a: Operand { layout: &a0, shape: &a_shape, mem: Memory::Shared },
        b: Operand { layout: &b0, shape: &b_shape, mem: Memory::Shared },
        c: Operand { layout: &c.layout, shape: &c.shape, mem: c.mem },
    };
    let moves = [
        OperandMove { role: Role::A, ring: &a_ring.layout, ring_shape: &a_ring.shape, dim: 0, multiple: a_rows },
        OperandMove { role: Role::B, ring: &b_ring.layout, ring_shape: &b_ring.shape, dim: 0, multiple: b_rows },
    ];
    let p = plan_moving(&req, &moves).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.dynamic.len(), 2);
    let bytes = i64::from(dtype.bits() / 8);
    let acc_bytes = i64::from(req.acc_dtype.bits() / 8);
    let (va, vb, vc) = (values(a_ring.shape, 1), values(b_ring.shape, 2), values(c.shape, 3));
    let (kk, nn) = (a_shape[1], b_shape[1]);
    for s in 0..stages {
        let mut mach = Machine::default();
        store(&mut mach, a_ring, 'a', bytes, &encode(dtype, &va));
        store(&mut mach, b_ring, 'b', bytes, &encode(dtype, &vb));
        store(&mut mach, c, 'c', acc_bytes, &vc);
        let run = resolve_starts(&p, &[a_rows * s, b_rows * s]);
        for issue in &run.issues {
            execute(&mut mach, &run, issue, bytes);
        }
        let got = load(&mach, c, 'c', acc_bytes);
        for x in 0..c.shape[0] * c.shape[1] {
            let (i, j) = (x / nn, x % nn);
            let a_at = |l: i64| va[((a_rows * s + i) * kk + l) as usize];
            let b_at = |l: i64| vb[((b_rows * s + l) * nn + j) as usize];
            let want = vc[x as usize] + (0..kk).map(|l| a_at(l) * b_at(l)).sum::<i64>();
            assert_eq!(got[x as usize], want, "stage {s}: C{:?} of {}", unflatten(&c.shape, x), p.instruction);
        }
    }
    p
}

/// wgmma m64n64k16 over stage s of 3-stage rings: A 64x64 K-major 128B (8192 bytes a stage), B 64x64 MN-major or
/// K-major 128B (K rows stacked), for s = 0, 1, 2.
#[test]
fn wgmma_over_a_ring_stage_at_run_time() {
    let a = Op::new("Swizzle(3,3,3) o S[(3,64,64):(4096,64,1)]", [192, 64], Memory::Shared);
    for b_text in ["Swizzle(3,3,3) o S[(3,64,64):(4096,64,1)]", "Swizzle(3,3,3) o S[(3,64,64):(4096,1,64)]"] {
        let b = Op::new(b_text, [192, 64], Memory::Shared);
        let p = run_ring("sm_90a", "f16", "f32", (&a, 64), (&b, 64), &Op::new(&wg_c(64), [64, 64], Memory::Reg), 3);
        assert_eq!(p.instruction, "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16");
        // A's ring is dense: its rows are one digit of stride 64 (128 bytes a row, the offset used as is). B's
        // K-major ring keeps its stage digit (stride 4096 every 64 rows: 8192 bytes per 64 rows).
        let terms: Vec<(Role, i64, i64)> = p.dynamic.iter().map(|t| (t.role, t.divisor, t.bytes)).collect();
        let b_term = if b_text.ends_with("(4096,64,1)]") { (Role::B, 1, 128) } else { (Role::B, 64, 8192) };
        assert_eq!(terms, vec![(Role::A, 1, 128), b_term], "{b_text}");
    }
}

/// tcgen05 m128n64k16 (accumulator in tensor memory) over stage s of rings in the 64B mode: A 128x32 (8192 bytes
/// a stage), B 32x64 K-major (4096 bytes, a multiple of the 512-byte repeat).
#[test]
fn tcgen05_over_a_ring_stage_at_run_time() {
    let a = Op::new("Swizzle(3,2,3) o S[(3,128,32):(4096,32,1)]", [384, 32], Memory::Shared);
    let b = Op::new("Swizzle(3,2,3) o S[(3,32,64):(2048,1,32)]", [96, 64], Memory::Shared);
    let c = Op::new("S[(128,64):(1@TLane,1@TCol)]", [128, 64], Memory::Tmem);
    let p = run_ring("sm_100a", "f16", "f32", (&a, 128), (&b, 32), &c, 3);
    assert_eq!(p.instruction, "tcgen05.mma.cta_group::1.kind::f16");
    let terms: Vec<(Role, i64, i64)> = p.dynamic.iter().map(|t| (t.role, t.divisor, t.bytes)).collect();
    // A's dense rows: 64 bytes a row (128 rows a stage, 8192 bytes); B's stage digit: 4096 bytes per 32 rows.
    assert_eq!(terms, vec![(Role::A, 1, 64), (Role::B, 32, 4096)]);
}

/// tf32 over 3-stage rings (4-byte elements, tf32 containers on the model): wgmma m64n64k8 with 128B K-major A
/// (64x32, 8192 bytes a stage) and B (32x64, 8192 bytes a stage), and tcgen05 kind::tf32 m128n64k8 with 64B
/// K-major A (128x16, 8192 bytes) and B (16x64, 4096 bytes). A's rows are one dense digit (128 and 64 bytes a
/// row); B keeps its stage digit (8192 bytes per 32 rows, 4096 per 16).
#[test]
fn tf32_over_a_ring_stage_at_run_time() {
    let a = Op::new("Swizzle(2,3,3) o S[(3,64,32):(2048,32,1)]", [192, 32], Memory::Shared);
    let b = Op::new("Swizzle(2,3,3) o S[(3,32,64):(2048,1,32)]", [96, 64], Memory::Shared);
    let p = run_ring("sm_90a", "tf32", "f32", (&a, 64), (&b, 32), &Op::new(&wg_c(64), [64, 64], Memory::Reg), 3);
    assert_eq!((p.instruction.as_str(), p.issues.len()), ("wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32", 4));
    let terms: Vec<(Role, i64, i64)> = p.dynamic.iter().map(|t| (t.role, t.divisor, t.bytes)).collect();
    assert_eq!(terms, vec![(Role::A, 1, 128), (Role::B, 32, 8192)]);
    let a = Op::new("Swizzle(2,2,3) o S[(3,128,16):(2048,16,1)]", [384, 16], Memory::Shared);
    let b = Op::new("Swizzle(2,2,3) o S[(3,16,64):(1024,1,16)]", [48, 64], Memory::Shared);
    let c = Op::new("S[(128,64):(1@TLane,1@TCol)]", [128, 64], Memory::Tmem);
    let p = run_ring("sm_100a", "tf32", "f32", (&a, 128), (&b, 16), &c, 3);
    assert_eq!((p.instruction.as_str(), p.issues.len()), ("tcgen05.mma.cta_group::1.kind::tf32", 2));
    let terms: Vec<(Role, i64, i64)> = p.dynamic.iter().map(|t| (t.role, t.divisor, t.bytes)).collect();
    assert_eq!(terms, vec![(Role::A, 1, 64), (Role::B, 16, 4096)]);
}

/// Moves the `dynamic-start` rule refuses, with the numbers: a padded ring (stages 8320 bytes apart, not a
/// multiple of the 1024-byte 128B repeat), an offset not known to move whole stages, and an operand in registers.
/// The first is what the static `alignment` rule refuses at stage 1 (base offset 0 is only right for a pattern
/// starting on its repeat boundary, PTX ISA 9.7.15.5.1.2.2; the model assumes base offset 0 and cannot show it).
#[test]
fn ring_moves_the_planner_refuses() {
    let c = Op::new(&wg_c(64), [64, 64], Memory::Reg);
    let b = Op::new(&smem(128, true, true, 16, [64, 64]), [64, 64], Memory::Shared);
    let padded = Op::new("Swizzle(3,3,3) o S[(3,64,64):(4160,64,1)]", [192, 64], Memory::Shared);
    let a0 = slice(&padded.layout, &padded.shape, &[(0, 64), (0, 64)]).unwrap();
    let req = GemmRequest {
        chip: Chip::Sm90a,
        dtype: ElemType::F16,
        acc_dtype: ElemType::F32,
        a: Operand { layout: &a0, shape: &[64, 64], mem: Memory::Shared },
        b: Operand { layout: &b.layout, shape: &b.shape, mem: Memory::Shared },
        c: Operand { layout: &c.layout, shape: &c.shape, mem: c.mem },
    };
    let mv = |multiple: i64| OperandMove {
        role: Role::A,
        ring: &padded.layout,
        ring_shape: &padded.shape,
        dim: 0,
        multiple,
    };
    let e = plan_moving(&req, &[mv(64)]).unwrap_err();
    assert_eq!(e.rule, MmaRule::DynamicStart);
    assert!(e.to_string().contains("8320 bytes per step of 64 elements") && e.to_string().contains("1024-byte"), "{e}");
    let e = plan_moving(&req, &[mv(32)]).unwrap_err();
    assert!(e.to_string().contains("must be a multiple of 64"), "{e}");
    let regs_a = Op::new("S[(4,2,8,4,2,4,2):(1@wid_in_wg,2,4@laneid,8,4,1@laneid,1)]", [64, 64], Memory::Reg);
    let req_regs = GemmRequest { a: Operand { layout: &regs_a.layout, shape: &regs_a.shape, mem: Memory::Reg }, ..req };
    if let Err(e) = plan(&req_regs) {
        panic!("the register-A request itself plans: {e}");
    }
    let e = plan_moving(&req_regs, &[mv(64)]).unwrap_err();
    assert!(e.to_string().contains("operand A, which is not read through a shared-memory descriptor"), "{e}");

    // The rule is the static `alignment` rule carried to run time: stage 1 of the padded ring sliced statically
    // starts 8320 bytes in, mid-pattern, and is refused the same way; stage 1 of the dense ring is accepted.
    let stage1 = slice(&padded.layout, &padded.shape, &[(64, 128), (0, 64)]).unwrap();
    let e = plan(&GemmRequest { a: Operand { layout: &stage1, shape: &[64, 64], mem: Memory::Shared }, ..req })
        .unwrap_err();
    assert_eq!(e.rule, MmaRule::Alignment, "{e}");
    let dense = parse_layout("Swizzle(3,3,3) o S[(3,64,64):(4096,64,1)]").unwrap();
    let stage1 = slice(&dense, &[192, 64], &[(64, 128), (0, 64)]).unwrap();
    plan(&GemmRequest { a: Operand { layout: &stage1, shape: &[64, 64], mem: Memory::Shared }, ..req }).unwrap();
}
