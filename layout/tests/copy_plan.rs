//! Properties of the copy planner over random layouts, and its refusals.
//!
//! - Register <-> memory: for random register layouts (bits of the element index spread over lanes, warps and
//!   registers) and random memory layouts (bits permuted onto addresses, an offset, sometimes a swizzle), the
//!   chosen `ld`/`st` width is the widest legal one, found here by brute force over every width (a width `V` is
//!   legal when every element's run `r0..r0+V` of registers of its thread sits at `a0..a0+V` with `a0 % V == 0`),
//!   and the plan runs right on the model of `model/copy_hw.rs`.
//! - Register -> register and tensor memory -> registers: random layouts run right on the model.
//! - Every refusal names its rule and the numbers.

#[path = "model/copy_hw.rs"]
mod copy_hw;

use axe_layout::copy::{plan, Chip, CopyKind, CopyRequest, CopyRule, ElemType, Memory, Side, ThreadSubset};
use axe_layout::notation::parse_layout;
use axe_layout::{Axis, ComposeLayout, ExecScope, Iter, Layout, Swizzle, TileLayout};
use proptest::prelude::*;
use std::collections::{BTreeMap, HashSet};

/// A layout from bit targets: bit `i` of the element index (bit 0 the innermost) moves `stride` along `axis`.
fn from_bits(bits: &[(i64, Axis)], offset: BTreeMap<Axis, i64>) -> TileLayout {
    let shard = bits.iter().rev().map(|&(s, a)| Iter::new(2, s, a).unwrap()).collect();
    TileLayout::new(shard, vec![], offset).unwrap()
}

/// Bit targets: `lane` bits to laneid, `warp` bits to warpid, the rest to registers, in the order `perm` gives.
fn reg_bits(n: usize, lane: usize, warp: usize, perm: &[usize]) -> Vec<(i64, Axis)> {
    let (l, w) = (Axis::named("laneid").unwrap(), Axis::named("warpid").unwrap());
    let mut next = BTreeMap::new();
    let mut out = vec![(0, Axis::M); n];
    for (k, &bit) in perm.iter().enumerate().take(n) {
        let axis = if k < lane {
            l
        } else if k < lane + warp {
            w
        } else {
            Axis::M
        };
        let s = next.entry(axis).or_insert(1i64);
        out[bit] = (*s, axis);
        *s *= 2;
    }
    out
}

fn perm_of(n: usize, seed: u64) -> Vec<usize> {
    let mut v: Vec<usize> = (0..n).collect();
    let mut x = seed | 1;
    for i in (1..n).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.swap(i, (x % (i as u64 + 1)) as usize);
    }
    v
}

/// The widest legal width by brute force (see the module documentation).
fn brute_widest(entries: &[(i64, i64, i64)], esize: i64) -> i64 {
    let set: HashSet<(i64, i64, i64)> = entries.iter().copied().collect();
    for bytes in [16, 8, 4, 2, 1] {
        if bytes < esize || bytes % esize != 0 {
            continue;
        }
        let v = bytes / esize;
        let ok = entries.iter().all(|&(t, r, a)| {
            let off = a.rem_euclid(v);
            (0..v).all(|i| set.contains(&(t, r - off + i, a - off + i)))
        });
        if ok {
            return bytes;
        }
    }
    esize
}

/// `(thread, register, address)` of every element as the plan's threads hold it.
fn entries(reg: &Layout, mem: &Layout, n: i64, first_only: bool) -> Vec<(i64, i64, i64)> {
    let mut out = Vec::new();
    for k in 0..n {
        let a = mem.eval_flat(k).unwrap()[0].get(&Axis::M).copied().unwrap_or(0);
        let mut hs: Vec<(i64, i64)> = reg
            .eval_flat(k)
            .unwrap()
            .iter()
            .map(|p| {
                let mut t = 0;
                let mut r = 0;
                for (ax, v) in p {
                    match ax.name() {
                        "laneid" => t += v,
                        "warpid" => t += 32 * v,
                        _ => r = *v,
                    }
                }
                (t, r)
            })
            .collect();
        hs.sort();
        if first_only {
            hs.truncate(1);
        }
        out.extend(hs.into_iter().map(|(t, r)| (t, r, a)));
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The chosen width is the widest legal one, and the plan is right on the model.
    #[test]
    fn ld_st_width_is_the_widest_legal(
        bits in 3usize..9, lane in 0usize..6, warp in 0usize..3, rseed in any::<u64>(), mseed in any::<u64>(),
        esize_log in 0u32..4, offset in 0i64..4, swz in 0u32..3, load in any::<bool>(), shared in any::<bool>(),
    ) {
        let lane = lane.min(bits);
        let warp = warp.min(bits - lane);
        let esize = 1i64 << esize_log;
        let reg = Layout::Tile(from_bits(&reg_bits(bits, lane, warp, &perm_of(bits, rseed)), BTreeMap::new()));
        let mperm = perm_of(bits, mseed);
        let mbits: Vec<(i64, Axis)> = (0..bits).map(|i| (1i64 << mperm[i], Axis::M)).collect();
        let tile = from_bits(&mbits, BTreeMap::from([(Axis::M, offset)]));
        // Swizzle(M,1,3) with 2^M elements <= 16 bytes keeps M-chunks whole; on shared memory only.
        let m = (16 / esize).ilog2().min(swz);
        let mem = if shared && swz > 0 {
            Layout::Compose(ComposeLayout::new(Swizzle::new(m, 1, 3).unwrap(), tile).unwrap())
        } else {
            Layout::Tile(tile)
        };
        let n = 1i64 << bits;
        let shape = [n];
        let scope = if warp > 0 { ExecScope::Cta } else { ExecScope::Warp };
        let mem_kind = if shared { Memory::Shared } else { Memory::Global };
        let (src, dst) = if load {
            (Side { layout: &mem, shape: &shape, mem: mem_kind }, Side { layout: &reg, shape: &shape, mem: Memory::Reg })
        } else {
            (Side { layout: &reg, shape: &shape, mem: Memory::Reg }, Side { layout: &mem, shape: &shape, mem: mem_kind })
        };
        let dtype = match esize { 1 => ElemType::U8, 2 => ElemType::F16, 4 => ElemType::F32, _ => ElemType::F64 };
        let req = CopyRequest { src, dst, dtype, scope, threads: None, chip: Chip::Sm80, cta_threads: None };
        let p = plan(&req).map_err(|e| TestCaseError::fail(format!("refused: {e}")))?;
        if matches!(p.steps[0].kind, CopyKind::Load(_) | CopyKind::Store(_)) {
            let want = brute_widest(&entries(&reg, &mem, n, !load), esize);
            prop_assert_eq!(p.vector_bytes, want, "plan {}", p.instruction);
            prop_assert_eq!(p.scalar, want == esize);
        }
        copy_hw::run(&req, &p).map_err(TestCaseError::fail)?;
    }

    /// Register layout conversions (mov, shuffles, staging) are right on the model.
    #[test]
    fn register_conversions_run_right(bits in 5usize..8, warp in 0usize..3, s1 in any::<u64>(), s2 in any::<u64>()) {
        let lane = 5usize.min(bits);
        let warp = warp.min(bits - lane);
        let a = Layout::Tile(from_bits(&reg_bits(bits, lane, warp, &perm_of(bits, s1)), BTreeMap::new()));
        let b = Layout::Tile(from_bits(&reg_bits(bits, lane, warp, &perm_of(bits, s2)), BTreeMap::new()));
        let shape = [1i64 << bits];
        let scope = if warp > 0 { ExecScope::Cta } else { ExecScope::Warp };
        let req = CopyRequest {
            src: Side { layout: &a, shape: &shape, mem: Memory::Reg },
            dst: Side { layout: &b, shape: &shape, mem: Memory::Reg },
            dtype: ElemType::F32,
            scope,
            threads: None,
            chip: Chip::Sm80,
            cta_threads: None,
        };
        let p = plan(&req).map_err(|e| TestCaseError::fail(format!("refused: {e}")))?;
        copy_hw::run(&req, &p).map_err(TestCaseError::fail)?;
    }

    /// Tensor memory -> registers: thread `32w + l` reads lane `32w + l`, its registers permuted over columns.
    #[test]
    fn tmem_loads_run_right(cols_log in 0usize..5, seed in any::<u64>(), store in any::<bool>()) {
        let bits = 7 + cols_log;
        // Element bits: 5 lane bits, 2 warp bits, then columns; the register order is a permutation of the
        // column bits.
        let perm = perm_of(cols_log, seed);
        let (l, w) = (Axis::named("laneid").unwrap(), Axis::named("warpid").unwrap());
        let (tl, tc) = (Axis::named("TLane").unwrap(), Axis::named("TCol").unwrap());
        let mut rb = Vec::new();
        let mut tb = Vec::new();
        for (i, p) in perm.iter().enumerate() {
            rb.push((1i64 << p, Axis::M));
            tb.push((1i64 << i, tc));
        }
        for i in 0..5 {
            rb.push((1 << i, l));
            tb.push((1 << i, tl));
        }
        for i in 0..2 {
            rb.push((1 << i, w));
            tb.push((32 << i, tl));
        }
        let reg = Layout::Tile(from_bits(&rb, BTreeMap::new()));
        let tmem = Layout::Tile(from_bits(&tb, BTreeMap::new()));
        let shape = [1i64 << bits];
        let (src, dst) = if store {
            (Side { layout: &reg, shape: &shape, mem: Memory::Reg }, Side { layout: &tmem, shape: &shape, mem: Memory::Tmem })
        } else {
            (Side { layout: &tmem, shape: &shape, mem: Memory::Tmem }, Side { layout: &reg, shape: &shape, mem: Memory::Reg })
        };
        let req = CopyRequest {
            src, dst, dtype: ElemType::F32, scope: ExecScope::Cta, threads: None, chip: Chip::Sm100a, cta_threads: None,
        };
        let p = plan(&req).map_err(|e| TestCaseError::fail(format!("refused: {e}")))?;
        copy_hw::run(&req, &p).map_err(TestCaseError::fail)?;
    }
}

struct Refusal {
    src: (&'static str, &'static [i64], Memory),
    dst: (&'static str, &'static [i64], Memory),
    dtype: ElemType,
    scope: ExecScope,
    chip: Chip,
    threads: Option<(&'static str, i64, i64)>,
    rule: CopyRule,
    says: &'static str,
}

fn refusal(
    src: (&'static str, &'static [i64], Memory),
    dst: (&'static str, &'static [i64], Memory),
    dtype: ElemType,
    scope: ExecScope,
    chip: Chip,
    rule: CopyRule,
    says: &'static str,
) -> Refusal {
    Refusal { src, dst, dtype, scope, chip, threads: None, rule, says }
}

#[test]
fn refusals_name_the_rule_and_the_numbers() {
    use ExecScope::*;
    use Memory::*;
    let (f16, f32) = (ElemType::F16, ElemType::F32);
    let row = ("S[(32,4):(4,1)]", &[32, 4][..], Global);
    let lanes = ("S[(32,4):(1@laneid,1)]", &[32, 4][..], Reg);
    let cases = [
        refusal(row, ("S[(32,4):(4,1)]", &[32, 4], Global), f32, Warp, Chip::Sm80, CopyRule::Route, "global to global"),
        refusal(
            ("S[(128,4):(1@TLane,1@TCol)]", &[128, 4], Tmem),
            ("S[(4,32,4):(1@warpid,1@laneid,1)]", &[128, 4], Reg),
            f32,
            Cta,
            Chip::Sm90a,
            CopyRule::Chip,
            "needs sm_100a, got sm_90a",
        ),
        refusal(
            ("S[(128,4):(1@TLane,1@TCol)]", &[128, 4], Tmem),
            ("S[(4,32,4):(1@warpid,1@laneid,1)]", &[128, 4], Reg),
            f16,
            Cta,
            Chip::Sm100a,
            CopyRule::Dtype,
            "f16 is 2 bytes",
        ),
        refusal(
            ("S[(32,4):(1@TLane,1@TCol)]", &[32, 4], Tmem),
            lanes,
            f32,
            Warp,
            Chip::Sm100a,
            CopyRule::Scope,
            "copy at warpgroup or cta scope",
        ),
        refusal(
            ("S[(32,4):(1@TLane,1@TCol)] + 32@TLane", &[32, 4], Tmem),
            ("S[(32,4):(1@laneid,1)]", &[32, 4], Reg),
            f32,
            Cta,
            Chip::Sm100a,
            CopyRule::TmemLanes,
            "element 0 is in lane 32 and thread 0 (warp 0) holds it, but warp 0 reaches only lanes 0..32",
        ),
        refusal(
            row,
            ("S[(32,4):(1@laneid,1@warpid)]", &[32, 4], Reg),
            f32,
            Warp,
            Chip::Sm80,
            CopyRule::Scope,
            "'warpid' indexes warps within a cta, outside one warp",
        ),
        refusal(
            ("S[(32,4):(4,1)] + 1", &[32, 4], Global),
            ("S[(32,4):(4,1)]", &[32, 4], Shared),
            f16,
            Warp,
            Chip::Sm80,
            CopyRule::Vector,
            "the widest run that is contiguous and aligned in both global and shared memory is 2 bytes",
        ),
        refusal(
            row,
            ("S[(32,2):(1@laneid,1)]", &[32, 2], Reg),
            f32,
            Warp,
            Chip::Sm80,
            CopyRule::Input,
            "source and dest shapes must agree, got [32,4] and [32,2]",
        ),
        refusal(
            lanes,
            ("S[(32,4):(1,0)]", &[32, 4], Global),
            f32,
            Warp,
            Chip::Sm80,
            CopyRule::Input,
            "elements 0 and 1 are both at address 0",
        ),
        refusal(
            row,
            ("S[(32,4):(4,1)]", &[32, 4], Shared),
            f32,
            Cta,
            Chip::Sm80,
            CopyRule::Scope,
            "give the CTA's thread count or a thread subset",
        ),
        refusal(
            ("S[1048576:1]", &[1048576], Global),
            ("S[1048576:1]", &[1048576], Shared),
            f32,
            Warp,
            Chip::Sm80,
            CopyRule::Limit,
            "1048576 elements, more than the 262144",
        ),
        refusal(
            ("S[(2,32,1024):(1@warpid,1@laneid,1)]", &[65536], Reg),
            ("S[(32,2,1024):(1@laneid,1@warpid,1)]", &[65536], Reg),
            f32,
            Cta,
            Chip::Sm80,
            CopyRule::Limit,
            "its 262144 bytes exceed the 166912 bytes of shared memory a CTA has on sm_80",
        ),
        // A shuffle needs every lane of the warp, a staged copy whole warps: half a warp can do neither.
        Refusal {
            threads: Some(("laneid", 0, 16)),
            ..refusal(
                ("S[(16,2):(1@laneid,1)]", &[32], Reg),
                ("S[(2,8,2):(1,1@laneid,8@laneid)]", &[32], Reg),
                f32,
                Warp,
                Chip::Sm80,
                CopyRule::Scope,
                "a register copy through shared memory needs whole warps, but the subset selects lanes 0..16",
            )
        },
        Refusal {
            threads: Some(("warpid", 0, 100)),
            ..refusal(
                row,
                ("S[(32,4):(1@laneid,1)]", &[32, 4], Reg),
                f32,
                Cta,
                Chip::Sm80,
                CopyRule::Scope,
                "thread subset warpid[0, 100) is not a non-empty range inside the axis's 32 values",
            )
        },
        Refusal {
            threads: Some(("warpid", 1, 2)),
            ..refusal(
                row,
                ("S[(32,4):(1@laneid,1)]", &[32, 4], Reg),
                f32,
                Cta,
                Chip::Sm80,
                CopyRule::Scope,
                "element 0 is held by thread 0, outside the thread subset (units 1..2 of 32 threads each)",
            )
        },
    ];
    for c in cases {
        let (sl, dl) = (parse_layout(c.src.0).unwrap(), parse_layout(c.dst.0).unwrap());
        let threads = c.threads.map(|(a, b, e)| ThreadSubset { axis: Axis::named(a).unwrap(), begin: b, end: e });
        let req = CopyRequest {
            src: Side { layout: &sl, shape: c.src.1, mem: c.src.2 },
            dst: Side { layout: &dl, shape: c.dst.1, mem: c.dst.2 },
            dtype: c.dtype,
            scope: c.scope,
            threads,
            chip: c.chip,
            cta_threads: None,
        };
        let e = plan(&req).expect_err(c.says);
        assert_eq!(e.rule, c.rule, "{e}");
        assert!(e.to_string().starts_with(&format!("copy: {} rule: ", c.rule.name())), "{e}");
        assert!(e.message.contains(c.says), "{e}\nexpected it to say: {}", c.says);
    }
}
