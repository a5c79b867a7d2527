//! Thread axes are one hardware (issue 21, item 3): a register operand spelled on `tid` or `tid_in_wg`, or with
//! `reg` as its register axis, plans exactly as the same operand spelled on `laneid`/`warpid`/`wid_in_wg` and `m`
//! does, in the tensor-core planner and in the copy planner; what no iters of lanes and warps can say is refused by
//! the `thread-axes` rule. Every plan made from a `tid`/`tid_in_wg` spelling is also executed on the instruction
//! models (`model/mma_hw.rs`, `model/copy_hw.rs`, which read the thread of a point as `laneid` + 32 warp axes +
//! `tid` ...); `reg` spellings are compared with the `m` spelling's plan (the models read registers off `m`).

// Both models read layouts through their own copy of model/notation.rs (each stands alone).
#![allow(clippy::duplicate_mod)]

#[path = "model/copy_hw.rs"]
mod copy_hw;
#[path = "model/mma_hw.rs"]
mod mma_hw;

use axe_layout::copy::{self, CopyRequest, ElemType, Side};
use axe_layout::mma::{self, Chip, GemmRequest, Memory, MmaRule, Operand};
use axe_layout::notation::parse_layout;
use axe_layout::tile::tile;
use axe_layout::tile_layout::TileLayout;
use axe_layout::{ExecScope, Iter, Layout};

fn l(text: &str) -> Layout {
    parse_layout(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// One GEMM: (layout text, shape, memory) for A, B, C.
type Gemm<'a> = [(&'a str, [i64; 2], Memory); 3];

/// Plans the GEMM and, when it plans and no operand spells its registers `reg`, runs the plan on the tensor-core
/// model (`C += A * B` checked element by element).
fn mma_plan(chip: Chip, dtype: ElemType, g: &Gemm<'_>) -> Result<mma::MmaPlan, mma::MmaError> {
    let ls: Vec<Layout> = g.iter().map(|(t, _, _)| l(t)).collect();
    let op = |i: usize| Operand { layout: &ls[i], shape: &g[i].1, mem: g[i].2 };
    let req = GemmRequest { chip, dtype, acc_dtype: ElemType::F32, a: op(0), b: op(1), c: op(2) };
    let p = mma::plan(&req)?;
    if !g.iter().any(|(t, _, _)| t.contains("@reg")) {
        mma_hw::check_plan(&req, &p);
    }
    Ok(p)
}

/// The issue's first reproducer: the mma.sync accumulator of two warps along M, `32@tid` being warp 1. A is split
/// the same way, B replicated over both warps. The lane/warp spelling is the one the model runs
/// (`mma_model.rs`, mma.sync cases); by hand: 2 M tiles of 16 rows, one per warp, K = 16 one instruction each.
#[test]
fn mma_sync_two_warps_on_tid_plan_as_on_lanes_and_warps() {
    let tid: Gemm = [
        ("S[(2,2,8,2,4,2):(32@tid,2,4@tid,4,1@tid,1)]", [32, 16], Memory::Reg),
        ("S[(2,4,2,8):(2,1@tid,1,4@tid)] + R[2:32@tid]", [16, 8], Memory::Reg),
        ("S[(2,2,8,4,2):(32@tid,2,4@tid,1@tid,1)]", [32, 8], Memory::Reg),
    ];
    let hw: Gemm = [
        ("S[(2,2,8,2,4,2):(1@warpid,2,4@laneid,4,1@laneid,1)]", [32, 16], Memory::Reg),
        ("S[(2,4,2,8):(2,1@laneid,1,4@laneid)] + R[2:1@warpid]", [16, 8], Memory::Reg),
        ("S[(2,2,8,4,2):(1@warpid,2,4@laneid,1@laneid,1)]", [32, 8], Memory::Reg),
    ];
    let p = mma_plan(Chip::Sm80, ElemType::F16, &tid).expect("the tid spelling plans");
    assert_eq!(p, mma_plan(Chip::Sm80, ElemType::F16, &hw).unwrap());
    assert_eq!(p.instruction, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
    let issues: Vec<(i64, i64, i64)> = p.issues.iter().map(|i| (i.thread_base, i.m, i.n)).collect();
    assert_eq!(issues, [(0, 0, 0), (32, 16, 0)]);
    // The register axis spelled reg.
    let reg: Gemm = [
        ("S[(2,2,8,2,4,2):(32@tid,2@reg,4@tid,4@reg,1@tid,1@reg)]", [32, 16], Memory::Reg),
        ("S[(2,4,2,8):(2@reg,1@tid,1@reg,4@tid)] + R[2:32@tid]", [16, 8], Memory::Reg),
        ("S[(2,2,8,4,2):(32@tid,2@reg,4@tid,1@tid,1@reg)]", [32, 8], Memory::Reg),
    ];
    assert_eq!(mma_plan(Chip::Sm80, ElemType::F16, &reg).unwrap(), p);
}

/// The issue's second reproducer: the wgmma m64n128 accumulator on `tid_in_wg` (`32@tid_in_wg` is the warp in the
/// warpgroup), A and B K-major in 128B-swizzled shared memory: one m64n128k16 per 16 of K.
#[test]
fn wgmma_m64n128_on_tid_in_wg_plans_as_on_warps() {
    let a = "Swizzle(3,3,3) o S[(64,64):(64,1)]";
    let b = "Swizzle(3,3,3) o S[(64,128):(1,64)]";
    let tid: Gemm = [
        (a, [64, 64], Memory::Shared),
        (b, [64, 128], Memory::Shared),
        ("S[(4,2,8,16,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]", [64, 128], Memory::Reg),
    ];
    let hw: Gemm = [
        (a, [64, 64], Memory::Shared),
        (b, [64, 128], Memory::Shared),
        ("S[(4,2,8,16,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]", [64, 128], Memory::Reg),
    ];
    let want = mma_plan(Chip::Sm90a, ElemType::F16, &hw);
    let got = mma_plan(Chip::Sm90a, ElemType::F16, &tid);
    let want = want.expect("the wid_in_wg spelling plans");
    assert_eq!(got.expect("the tid_in_wg spelling plans"), want);
    assert_eq!(want.instruction, "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16");
    assert_eq!(want.issues.len(), 4);
    // On tid too (threads 0..128 of the CTA: warpgroup 0).
    let on_tid = [tid[0], tid[1], ("S[(4,2,8,16,4,2):(32@tid,2,4@tid,4,1@tid,1)]", [64, 128], Memory::Reg)];
    assert_eq!(mma_plan(Chip::Sm90a, ElemType::F16, &on_tid).unwrap(), want);
    // Two warpgroups along M on tid: 128@tid is warpgroup 1 (thread base 128).
    let a2 = "Swizzle(3,3,3) o S[(128,64):(64,1)]";
    let two = [
        (a2, [128, 64], Memory::Shared),
        (b, [64, 128], Memory::Shared),
        ("S[(2,4,2,8,16,4,2):(128@tid,32@tid,2,4@tid,4,1@tid,1)]", [128, 128], Memory::Reg),
    ];
    let two_hw = [
        (a2, [128, 64], Memory::Shared),
        (b, [64, 128], Memory::Shared),
        ("S[(2,4,2,8,16,4,2):(1@wgid,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]", [128, 128], Memory::Reg),
    ];
    let p = mma_plan(Chip::Sm90a, ElemType::F16, &two).unwrap();
    assert_eq!(p, mma_plan(Chip::Sm90a, ElemType::F16, &two_hw).unwrap());
    assert_eq!(p.issues.iter().filter(|i| i.thread_base == 128).count(), 4);
}

/// Spellings no iters of lanes and warps can say are refused by the `thread-axes` rule, with the numbers.
#[test]
fn unsplittable_spellings_are_refused_by_rule() {
    // Warps 2..6 of the CTA as a warpgroup instruction's accumulator: they straddle two warpgroups.
    let g = [
        ("Swizzle(3,3,3) o S[(64,64):(64,1)]", [64, 64], Memory::Shared),
        ("Swizzle(3,3,3) o S[(64,128):(1,64)]", [64, 128], Memory::Shared),
        ("S[(4,2,8,16,4,2):(32@tid,2,4@tid,4,1@tid,1)] + 64@tid", [64, 128], Memory::Reg),
    ];
    let e = mma_plan(Chip::Sm90a, ElemType::F16, &g).unwrap_err();
    assert_eq!(e.rule, MmaRule::ThreadAxes, "{e}");
    assert!(e.message.contains("'wid_in_wg' digit takes values 2..=5, outside 0..4"), "{e}");
    assert!(e.to_string().starts_with("mma: thread-axes rule: operand C: "), "{e}");
    // A lane iter that reaches lane 32 (8 groups of 4 lanes from lane 4).
    let g = [
        ("S[(2,8,2,4,2):(2,4@tid,4,1@tid,1)] + 4@tid", [16, 16], Memory::Reg),
        ("S[(2,4,2,8):(2,1@laneid,1,4@laneid)]", [16, 8], Memory::Reg),
        ("S[(2,8,4,2):(2,4@laneid,1@laneid,1)]", [16, 8], Memory::Reg),
    ];
    let e = mma_plan(Chip::Sm80, ElemType::F16, &g).unwrap_err();
    assert_eq!(e.rule, MmaRule::ThreadAxes, "{e}");
    assert!(e.message.contains("'laneid' digit takes values 4..=35, outside 0..32"), "{e}");
}

/// A tiny deterministic generator (no dependency), the same sequence on every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// `layout` respelled: each thread iter and offset on `laneid`/`warpid`/`wid_in_wg`/`wgid` as an iter of threads
/// on `tid` (warpgroup instructions: `tid_in_wg` for what stays in the warpgroup), and `m` as `reg` when `reg`.
fn respell(layout: &Layout, tid: &str, reg: bool) -> Layout {
    let t = layout.tile();
    let word = |it: &Iter| -> (i64, String) {
        match it.axis.name() {
            "laneid" => (it.stride, tid.to_string()),
            "warpid" | "wid_in_wg" => (32 * it.stride, tid.to_string()),
            "wgid" => (128 * it.stride, "tid".to_string()),
            "m" if reg => (it.stride, "reg".to_string()),
            other => (it.stride, other.to_string()),
        }
    };
    let list = |iters: &[Iter]| -> String {
        let e: Vec<String> = iters.iter().map(|i| i.extent.to_string()).collect();
        let s: Vec<String> = iters
            .iter()
            .map(|i| {
                let (s, a) = word(i);
                format!("{s}@{a}")
            })
            .collect();
        format!("({}):({})", e.join(","), s.join(","))
    };
    let mut text = format!("S[{}]", list(t.shard()));
    if !t.replica().is_empty() {
        text += &format!(" + R[{}]", list(t.replica()));
    }
    for (a, v) in t.offset() {
        let (v, a) = word(&Iter::new(1, *v, *a).unwrap());
        text += &format!(" + {v}@{a}");
    }
    l(&text)
}

/// Random warp tilings of the mma.sync fragments (warps and register repeats along M, N and K, A and B
/// replicated over the warps that need them), each planned spelled on lanes and warps, on `tid`, and with `reg`:
/// the plans are equal (or refused alike).
#[test]
fn random_mma_sync_tilings_plan_alike_in_every_spelling() {
    let mut rng = Rng(21);
    let (mut planned, mut cases) = (0, 0);
    for _ in 0..200 {
        let (wm, wn) = (1 << rng.below(3), 1 << rng.below(2));
        let (rm, rn, rk) = (1 + rng.below(2) as i64, 1 + rng.below(2) as i64, 1 + rng.below(2) as i64);
        let (wm, wn) = (wm as i64, wn as i64);
        let (m, n, k) = (16 * wm * rm, 8 * wn * rn, 16 * rk);
        // Warp w = wm_i * wn + wn_j computes C tiles (wm_i*rm + r, wn_j*rn + s).
        let warp_c = format!("S[({wm},{rm},{wn},{rn}):({wn}@warpid,{rn},1@warpid,1)]");
        let outer_c = parse_layout(&warp_c).unwrap().tile().clone();
        let c = tile(&Layout::Tile(mma::atoms::mma_sync_c().unwrap()), &outer_c, &[16, 8], &[wm * rm, wn * rn]);
        let outer_a = tl(&format!("S[({wm},{rm},{rk}):({wn}@warpid,{rk},1)] + R[{wn}:1@warpid]"));
        let a = tile(&Layout::Tile(mma::atoms::mma_sync_a(16).unwrap()), &outer_a, &[16, 16], &[wm * rm, rk]);
        let outer_b = tl(&format!("S[({rk},{wn},{rn}):({rn},1@warpid,1)] + R[{wm}:{wn}@warpid]"));
        let b = tile(&Layout::Tile(mma::atoms::mma_sync_b(16).unwrap()), &outer_b, &[16, 8], &[rk, wn * rn]);
        let (a, b, c) = (a.unwrap(), b.unwrap(), c.unwrap());
        let shapes = [[m, k], [k, n], [m, n]];
        let plan_of = |ls: [&Layout; 3]| {
            let op = |i: usize| Operand { layout: ls[i], shape: &shapes[i], mem: Memory::Reg };
            mma::plan(&GemmRequest {
                chip: Chip::Sm80,
                dtype: ElemType::F16,
                acc_dtype: ElemType::F32,
                a: op(0),
                b: op(1),
                c: op(2),
            })
        };
        let want = plan_of([&a, &b, &c]);
        for reg in [false, true] {
            let spelled = [respell(&a, "tid", reg), respell(&b, "tid", reg), respell(&c, "tid", reg)];
            let got = plan_of([&spelled[0], &spelled[1], &spelled[2]]);
            assert_eq!(got, want, "{} / {} / {}", spelled[0], spelled[1], spelled[2]);
            if let (Ok(p), false) = (&got, reg) {
                let op = |i: usize| Operand { layout: &spelled[i], shape: &shapes[i], mem: Memory::Reg };
                let req = GemmRequest {
                    chip: Chip::Sm80,
                    dtype: ElemType::F16,
                    acc_dtype: ElemType::F32,
                    a: op(0),
                    b: op(1),
                    c: op(2),
                };
                mma_hw::check_plan(&req, p);
            }
            cases += 1;
        }
        planned += usize::from(want.is_ok());
    }
    assert_eq!(cases, 400);
    assert!(planned >= 150, "only {planned} of 200 tilings planned");
}

fn tl(text: &str) -> TileLayout {
    parse_layout(text).unwrap().tile().clone()
}

/// One copy side as text: layout, shape, memory.
type CopySide<'a> = (&'a str, &'a [i64], Memory);

/// Source, destination, dtype, scope, the instruction expected (empty: not stated).
type CopyCase<'a> = (CopySide<'a>, CopySide<'a>, ElemType, ExecScope, &'a str);

/// Copies between shared memory and registers (`ldmatrix`/`stmatrix` and `ld`/`st`) and between registers
/// (`mov`, `shfl`, staged) plan alike in every spelling, and run right on the copy model.
#[test]
fn copies_plan_alike_in_every_spelling_and_run_right() {
    let f16 = ElemType::F16;
    // (source, destination, dtype, scope, chip, expected instruction).
    let cases: &[CopyCase] = &[
        (
            ("S[(16,16):(16,1)]", &[16, 16], Memory::Shared),
            ("S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)]", &[16, 16], Memory::Reg),
            f16,
            ExecScope::Warp,
            "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
        ),
        (
            ("Swizzle(3,3,3) o S[(64,64):(64,1)]", &[64, 64], Memory::Shared),
            ("S[(4,2,8,4,2,4,2):(1@warpid,2,4@laneid,8,4,1@laneid,1)]", &[64, 64], Memory::Reg),
            f16,
            ExecScope::Cta,
            "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
        ),
        (
            ("S[(2,2,8,4,2):(1@warpid,2,4@laneid,1@laneid,1)]", &[32, 8], Memory::Reg),
            ("S[(32,8):(8,1)]", &[32, 8], Memory::Shared),
            f16,
            ExecScope::Cta,
            "stmatrix.sync.aligned.m8n8.x2.shared.b16",
        ),
        (
            ("S[(2,8,4,2):(2,4@laneid,1@laneid,1)]", &[16, 8], Memory::Reg),
            ("S[(8,4,2,2):(4@laneid,1@laneid,2,1)]", &[16, 8], Memory::Reg),
            f16,
            ExecScope::Warp,
            "",
        ),
        (
            ("S[(4,32,8):(1@warpid,1@laneid,1)]", &[128, 8], Memory::Reg),
            ("S[(128,8):(8,1)]", &[128, 8], Memory::Global),
            ElemType::F32,
            ExecScope::Cta,
            "st.global.v4.b32",
        ),
    ];
    for (src, dst, dtype, scope, want) in cases {
        let ls = [l(src.0), l(dst.0)];
        // Plans, and runs the plan on the copy model unless the register axis is spelled reg (the model reads
        // registers off m; such plans are compared with the m spelling's instead).
        let plan_of = |s: &Layout, d: &Layout, run: bool| {
            let req = request((s, src.1, src.2), (d, dst.1, dst.2), *dtype, *scope);
            let p = copy::plan(&req).map_err(|e| e.to_string())?;
            if run {
                copy_hw::run(&req, &p)?;
            }
            Ok::<_, String>(p)
        };
        let p = plan_of(&ls[0], &ls[1], true).unwrap_or_else(|e| panic!("{} -> {}: {e}", src.0, dst.0));
        if !want.is_empty() {
            assert_eq!(p.instruction, *want, "{} -> {}", src.0, dst.0);
        }
        let tid = if *scope == ExecScope::Warp { "laneid" } else { "tid" };
        for reg in [false, true] {
            let respelled = |x: &Layout, mem: Memory| if mem == Memory::Reg { respell(x, tid, reg) } else { x.clone() };
            let (s, d) = (respelled(&ls[0], src.2), respelled(&ls[1], dst.2));
            let q = plan_of(&s, &d, !reg).unwrap_or_else(|e| panic!("{s} -> {d}: {e}"));
            assert_eq!(q, p, "{s} -> {d}");
        }
    }
}

/// A copy request at CTA scope of 128 threads (or at `scope`), on sm_90a.
fn request<'a>(
    src: (&'a Layout, &'a [i64], Memory),
    dst: (&'a Layout, &'a [i64], Memory),
    dtype: ElemType,
    scope: ExecScope,
) -> CopyRequest<'a> {
    CopyRequest {
        src: Side { layout: src.0, shape: src.1, mem: src.2 },
        dst: Side { layout: dst.0, shape: dst.1, mem: dst.2 },
        dtype,
        scope,
        threads: None,
        chip: Chip::Sm90a,
        cta_threads: Some(128),
    }
}
