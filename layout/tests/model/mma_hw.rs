//! The tensor-core hardware model shared by `mma_model.rs` and the `layout-mma` fuzz target: a software model of
//! the instructions, written from the PTX ISA independently of the planner (it decodes descriptors itself and
//! never calls planner code), that executes a plan on small integer matrices and checks `C += A * B` exactly.
//! The machine and the instructions are described in `layout/tests/mma_model.rs`.
//!
//! tf32 (`.tf32`, `.kind::tf32`): an element is a 32-bit container, stored whole, and the model decodes it the
//! way the tensor core reads it (PTX ISA 5.2.3, "Alternate Floating-Point Data Formats": tf32 has f32's sign
//! and 8-bit exponent and a 10-bit mantissa, held in a 32-bit register or memory word whose low 13 bits are not
//! part of the value; [`tf32_value`] drops them). The test data put garbage in the low 12 of those bits (bit 12
//! clear, below half a tf32 unit), so truncation and rounding to nearest read the same value, and a model or
//! plan that moved half containers, or read the low bits as data, cannot give the exact product. The fragments
//! are the ISA's own (9.7.14.5.7, m16n8k8 `.tf32`, Figure 72 for A; B is the `.tf32` table of the same section;
//! 9.7.15.5.1.1.2, wgmma m64nNk8: warp `w` of the warpgroup holds rows `16w..16w+16` as the m16n8k8 A
//! fragment); wgmma reads `.tf32` operands from shared memory K-major only (the description of
//! `wgmma.mma_async`, 9.7.15.5.2: the transpose operands `imm-trans-a/b` are for `.f16`/`.bf16` alone), so the
//! model reads them K-major whatever the plan says and checks that the plan says so; tcgen05 `.kind::tf32` is K = 8 with A/B type 2 in the instruction
//! descriptor (9.7.16.4.2).

#![allow(dead_code)] // each includer uses its part

#[path = "notation.rs"]
mod notation;

use axe_layout::mma::{plan, Access, Chip, ElemType, GemmRequest, Major, Memory, MmaIssue, MmaPlan, Operand};
use axe_layout::notation::parse_layout;
use axe_layout::tile_layout::unflatten;
use axe_layout::{Axis, AxisKind, ExecScope, Layout};
use std::collections::HashMap;

/// Where A's shared tensor starts (1024-aligned), and B's.
pub const SMEM_BASE: i64 = 3 * 1024;
pub const SMEM_BASE_B: i64 = SMEM_BASE + 128 * 1024;

#[derive(Default)]
pub struct Machine {
    /// (operand, thread, register): each operand is its own register array.
    pub regs: HashMap<(char, i64, i64), i64>,
    pub smem: HashMap<i64, i64>,
    /// (lane, column) -> the 32-bit cell.
    pub tmem: HashMap<(i64, i64), Cell>,
}

/// A tensor-memory cell: 32 bits as four bytes, each holding the element that starts there, and the operand that
/// wrote it (`'a'` or `'c'`).
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    pub owner: char,
    pub bytes: [Option<i64>; 4],
}

/// Elements of `bytes` bytes per 32-bit cell.
pub fn per_cell(bytes: i64) -> i64 {
    4 / bytes
}

pub fn tmem_in_range(lane: i64, col: i64) {
    assert!((0..128).contains(&lane) && (0..512).contains(&col), "tmem ({lane},{col}) out of range");
}

/// The element of operand `owner` at byte `byte` of a cell.
pub fn tmem_read(mach: &Machine, owner: char, lane: i64, col: i64, byte: i64) -> i64 {
    tmem_in_range(lane, col);
    match mach.tmem.get(&(lane, col)) {
        Some(cell) if cell.owner == owner => {
            cell.bytes[byte as usize].unwrap_or_else(|| panic!("tmem ({lane},{col}) byte {byte} is empty"))
        }
        other => panic!("{owner} reads tmem ({lane},{col}), which holds {other:?}"),
    }
}

/// Writes an unpacked accumulator element into the low bits of a cell; the cell must not hold A.
pub fn tmem_write_d(mach: &mut Machine, lane: i64, col: i64, v: i64) {
    tmem_in_range(lane, col);
    let old = mach.tmem.insert((lane, col), Cell { owner: 'c', bytes: [Some(v), None, None, None] });
    assert!(old.is_none_or(|cell| cell.owner == 'c'), "the accumulator overwrites A at tmem ({lane},{col})");
}

pub fn thread_id(p: &axe_layout::Coord) -> i64 {
    p.iter()
        .map(|(a, v)| match a.kind() {
            AxisKind::Thread { unit: ExecScope::Thread, .. } => *v,
            AxisKind::Thread { unit: ExecScope::Warp, .. } => 32 * v,
            AxisKind::Thread { unit: ExecScope::Warpgroup, .. } => 128 * v,
            _ => 0,
        })
        .sum()
}

pub fn tlane() -> Axis {
    Axis::named("TLane").unwrap()
}

pub fn tcol() -> Axis {
    Axis::named("TCol").unwrap()
}

/// One operand as the test states it.
pub struct Op {
    pub layout: Layout,
    pub shape: [i64; 2],
    pub mem: Memory,
}

impl Op {
    pub fn new(text: &str, shape: [i64; 2], mem: Memory) -> Op {
        Op { layout: parse_layout(text).unwrap_or_else(|e| panic!("{text}: {e}")), shape, mem }
    }
}

/// Places logical matrix `vals` (row-major over `op.shape`) into the machine through the operand's layout.
pub fn store(mach: &mut Machine, op: &Op, tag: char, bytes: i64, vals: &[i64]) {
    let base = if tag == 'b' { SMEM_BASE_B } else { SMEM_BASE };
    for (flat, v) in vals.iter().enumerate() {
        // Where the layout puts the element, by the notation's definition (not the crate's evaluator).
        for p in notation::points(&op.layout, flat as i64) {
            let prev = match op.mem {
                Memory::Reg => mach.regs.insert((tag, thread_id(&p), p.get(&Axis::M).copied().unwrap_or(0)), *v),
                Memory::Shared => mach.smem.insert(base + p.get(&Axis::M).copied().unwrap_or(0) * bytes, *v),
                Memory::Tmem => {
                    // TCol counts element slots, per_cell(bytes) to a 32-bit column, low bits first.
                    let (lane, slot, per) = (p[&tlane()], p[&tcol()], per_cell(bytes));
                    tmem_in_range(lane, slot / per);
                    let cell = mach.tmem.entry((lane, slot / per)).or_insert(Cell { owner: tag, bytes: [None; 4] });
                    assert_eq!(cell.owner, tag, "A and C share tmem ({lane},{})", slot / per);
                    cell.bytes[((slot % per) * bytes) as usize].replace(*v)
                }
                Memory::Global => panic!("tensor cores have no global operand"),
                Memory::Hbm | Memory::Sbuf | Memory::Psum => panic!("GPU tensor cores have no Trainium operand"),
            };
            assert!(prev.is_none(), "two elements share one location");
        }
    }
}

/// Reads the logical matrix back through the operand's layout; every copy must agree. Tensor memory is read
/// as a warpgroup's `tcgen05.ld` would: the warp `lane / 32` reaches the lane, and only lanes 0..128 exist.
pub fn load(mach: &Machine, op: &Op, tag: char, bytes: i64) -> Vec<i64> {
    let base = if tag == 'b' { SMEM_BASE_B } else { SMEM_BASE };
    (0..op.shape[0] * op.shape[1])
        .map(|flat| {
            let vals: Vec<i64> = notation::points(&op.layout, flat)
                .iter()
                .map(|p| match op.mem {
                    Memory::Reg => mach.regs[&(tag, thread_id(p), p.get(&Axis::M).copied().unwrap_or(0))],
                    Memory::Shared => mach.smem[&(base + p.get(&Axis::M).copied().unwrap_or(0) * bytes)],
                    Memory::Tmem => {
                        let (lane, slot, per) = (p[&tlane()], p[&tcol()], per_cell(bytes));
                        let warp = lane / 32;
                        assert!((0..4).contains(&warp), "tmem lane {lane} is in no warp of the warpgroup");
                        assert!((32 * warp..32 * warp + 32).contains(&lane));
                        tmem_read(mach, tag, lane, slot / per, (slot % per) * bytes)
                    }
                    Memory::Global => panic!("tensor cores have no global operand"),
                    Memory::Hbm | Memory::Sbuf | Memory::Psum => panic!("GPU tensor cores have no Trainium operand"),
                })
                .collect();
            assert!(vals.windows(2).all(|w| w[0] == w[1]), "copies of element {flat} disagree: {vals:?}");
            vals[0]
        })
        .collect()
}

// ---- PTX ISA fragment formulas (row, col) of element i held by lane l (groupID g, threadID_in_group t) ----

pub fn frag_a16(l: i64, i: i64) -> (i64, i64) {
    let (g, t) = (l >> 2, l % 4);
    (if i < 2 || (4..6).contains(&i) { g } else { g + 8 }, t * 2 + (i & 1) + if i < 4 { 0 } else { 8 })
}

pub fn frag_a8(l: i64, i: i64) -> (i64, i64) {
    let (g, t) = (l >> 2, l % 4);
    (if i < 2 { g } else { g + 8 }, t * 2 + (i & 1))
}

pub fn frag_b16(l: i64, i: i64) -> (i64, i64) {
    let (g, t) = (l >> 2, l % 4);
    (t * 2 + (i & 1) + if i < 2 { 0 } else { 8 }, g)
}

pub fn frag_b8(l: i64, i: i64) -> (i64, i64) {
    let (g, t) = (l >> 2, l % 4);
    (t * 2 + i, g)
}

pub fn frag_c(l: i64, i: i64) -> (i64, i64) {
    let (g, t) = (l >> 2, l % 4);
    (if i < 2 { g } else { g + 8 }, t * 2 + (i & 1))
}

/// wgmma A, 8-bit, k32: per warp the m16n8k32 A fragment.
pub fn frag_a_fp8(l: i64, i: i64) -> (i64, i64) {
    let (g, t) = (l >> 2, l % 4);
    (if i < 4 || (8..12).contains(&i) { g } else { g + 8 }, t * 4 + (i & 3) + if i < 8 { 0 } else { 16 })
}

/// m16n8k8 `.tf32` A (PTX ISA 9.7.14.5.7, Figure 72): a0..a3 one element per `.b32` register; row `groupID` for
/// a0 and a2, `groupID + 8` for a1 and a3; column `threadID_in_group` for a0 and a1, `threadID_in_group + 4` for
/// a2 and a3.
pub fn frag_a_tf32(l: i64, i: i64) -> (i64, i64) {
    let (g, t) = (l >> 2, l % 4);
    (g + if i % 2 == 1 { 8 } else { 0 }, t + if i >= 2 { 4 } else { 0 })
}

/// m16n8k8 `.tf32` B (PTX ISA 9.7.14.5.7): b0, b1 one element per `.b32` register; row `threadID_in_group` for b0,
/// `threadID_in_group + 4` for b1; column `groupID`.
pub fn frag_b_tf32(l: i64, i: i64) -> (i64, i64) {
    let (g, t) = (l >> 2, l % 4);
    (t + 4 * i, g)
}

/// The value the tensor core reads from a `.tf32` container (PTX ISA 5.2.3): bit 31 the sign, bits 23..31 the
/// biased exponent (bias 127, as f32), bits 13..23 the 10-bit mantissa; bits 0..13 are not part of the value.
/// The model's numbers are integers, so the value must be one (panics otherwise: a container that was not the
/// one stored, e.g. half of two).
pub fn tf32_value(container: i64) -> i64 {
    let bits = container as u64 & 0xFFFF_FFFF;
    let (sign, exp, mant) = ((bits >> 31) & 1, ((bits >> 23) & 0xFF) as i64, ((bits >> 13) & 0x3FF) as i64);
    let magnitude = match exp {
        0 if mant == 0 => 0,
        0 | 255 => panic!("tf32 container {bits:#010x} is a subnormal, an infinity or a NaN, not a model number"),
        // (1 + mant / 2^10) * 2^(exp - 127) = (2^10 + mant) * 2^(exp - 137)
        e if e >= 137 => (1024 + mant) << (e - 137),
        e => {
            let (num, shift) = (1024 + mant, 137 - e);
            assert!(shift < 63 && num % (1 << shift) == 0, "tf32 container {bits:#010x} is not an integer");
            num >> shift
        }
    };
    if sign == 1 {
        -magnitude
    } else {
        magnitude
    }
}

/// The `.tf32` container of the small integer `v` (|v| < 2^11): its f32 encoding, written out (sign, exponent
/// `127 + floor(log2 |v|)`, the bits below the leading one as the top of the mantissa), with `noise` in the low
/// 12 bits, which the tensor core does not read.
pub fn tf32_container(v: i64, noise: u64) -> i64 {
    let noise = (noise & 0xFFF) as i64;
    if v == 0 {
        return noise;
    }
    let (sign, m) = (i64::from(v < 0) << 31, v.abs());
    assert!(m < 1 << 11, "{v} is not a small integer");
    let lead = 63 - i64::from(m.leading_zeros());
    let frac = (m - (1 << lead)) << (23 - lead);
    sign | ((127 + lead) << 23) | frac | noise
}

/// The values as the memory holds them for `dtype`: `.tf32` containers (with noise from a hash of the index in
/// their ignored bits) for tf32, the values themselves otherwise.
pub fn encode(dtype: ElemType, vals: &[i64]) -> Vec<i64> {
    if dtype != ElemType::TF32 {
        return vals.to_vec();
    }
    vals.iter()
        .enumerate()
        .map(|(x, &v)| tf32_container(v, (x as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40))
        .collect()
}

/// Gathers a `[rows, cols]` tile from registers: `frag(thread, i) -> (row, col)` for `threads` threads.
#[allow(clippy::too_many_arguments)]
pub fn gather_regs(
    mach: &Machine,
    tag: char,
    base: i64,
    threads: i64,
    regs: &[i64],
    rows: i64,
    cols: i64,
    frag: &dyn Fn(i64, i64) -> (i64, i64),
) -> Vec<Option<i64>> {
    let mut tile = vec![None; (rows * cols) as usize];
    for th in 0..threads {
        for (i, r) in regs.iter().enumerate() {
            let (row, col) = frag(th, i as i64);
            let slot = &mut tile[(row * cols + col) as usize];
            assert!(slot.is_none(), "fragment element ({row},{col}) held twice");
            *slot = Some(
                *mach.regs.get(&(tag, base + th, *r)).unwrap_or_else(|| panic!("register {r} of thread {}", base + th)),
            );
        }
    }
    assert!(tile.iter().all(Option::is_some), "the fragment does not cover the tile");
    tile
}

#[allow(clippy::too_many_arguments)]
pub fn scatter_regs(
    mach: &mut Machine,
    tag: char,
    base: i64,
    threads: i64,
    regs: &[i64],
    cols: i64,
    frag: &dyn Fn(i64, i64) -> (i64, i64),
    tile: &[i64],
) {
    for th in 0..threads {
        for (i, r) in regs.iter().enumerate() {
            let (row, col) = frag(th, i as i64);
            mach.regs.insert((tag, base + th, *r), tile[(row * cols + col) as usize]);
        }
    }
}

/// A decoded shared-memory descriptor.
pub struct Desc {
    pub start: i64,
    pub lbo: i64,
    pub sbo: i64,
    pub span: i64,
}

pub fn decode_desc(desc: u64, tcgen05: bool) -> Desc {
    let field = |shift: u32| (((desc >> shift) & 0x3FFF) << 4) as i64;
    assert_eq!((desc >> 49) & 7, 0, "base offset");
    let span = if tcgen05 {
        assert_eq!((desc >> 46) & 7, 1, "tcgen05 descriptors carry 0b001 at bits 46-48");
        assert_eq!((desc >> 52) & 1, 0, "relative leading-dimension mode");
        match desc >> 61 {
            0 => 0,
            2 => 128,
            4 => 64,
            6 => 32,
            other => panic!("tcgen05 swizzle field {other}"),
        }
    } else {
        match desc >> 62 {
            0 => 0,
            1 => 128,
            2 => 64,
            _ => 32,
        }
    };
    Desc { start: field(0), lbo: field(16), sbo: field(32), span }
}

/// The ISA's canonical layout (9.7.15.5.1.2.1.3) in bytes from the start, for element `(mn, k)`.
pub fn canonical_bytes(d: &Desc, k_major: bool, bytes: i64, mn: i64, k: i64) -> i64 {
    let t = 16 / bytes; // elements per 16-byte chunk
    if d.span == 0 {
        // core matrices of 8 rows x 16 bytes, 128 contiguous bytes
        if k_major {
            (mn / 8) * d.sbo + (k / t) * d.lbo + (mn % 8) * 16 + (k % t) * bytes
        } else {
            (mn / t) * d.sbo + (k / 8) * d.lbo + (k % 8) * 16 + (mn % t) * bytes
        }
    } else {
        let w = d.span / bytes; // elements per swizzle row
        if k_major {
            assert!(k < w, "a K-major instruction stays inside one swizzle row");
            (mn / 8) * d.sbo + (mn % 8) * d.span + k * bytes
        } else {
            (mn / w) * d.lbo + (k / 8) * d.sbo + (k % 8) * d.span + (mn % w) * bytes
        }
    }
}

pub fn hw_swizzle(span: i64, addr: i64) -> i64 {
    let bits = match span {
        0 => return addr,
        32 => 1,
        64 => 2,
        _ => 3,
    };
    addr ^ (((addr >> 7) & ((1 << bits) - 1)) << 4)
}

/// Reads a shared operand tile, `mn_ext x k_ext`, returned in operand orientation (`[rows, cols]`).
#[allow(clippy::too_many_arguments)]
pub fn gather_smem(
    mach: &Machine,
    base: i64,
    desc: u64,
    tcgen05: bool,
    k_major: bool,
    bytes: i64,
    mn_ext: i64,
    k_ext: i64,
    b: bool,
) -> Vec<Option<i64>> {
    let d = decode_desc(desc, tcgen05);
    let (rows, cols) = if b { (k_ext, mn_ext) } else { (mn_ext, k_ext) };
    let mut tile = vec![None; (rows * cols) as usize];
    for mn in 0..mn_ext {
        for k in 0..k_ext {
            let addr = hw_swizzle(d.span, base + d.start + canonical_bytes(&d, k_major, bytes, mn, k));
            let v =
                *mach.smem.get(&addr).unwrap_or_else(|| panic!("nothing stored at shared byte {addr} for ({mn},{k})"));
            let (r, c) = if b { (k, mn) } else { (mn, k) };
            tile[(r * cols + c) as usize] = Some(v);
        }
    }
    tile
}

/// tcgen05 instruction descriptor fields (PTX ISA 9.7.16.4.2, Table 42).
pub struct IDesc {
    pub m: i64,
    pub n: i64,
    pub a_mn_major: bool,
    pub b_mn_major: bool,
    d_f32: bool,
    pub ab_type: u32,
}

pub fn decode_idesc(idesc: u32) -> IDesc {
    assert_eq!(idesc & 0b1111, 0, "dense, no saturate");
    assert_eq!((idesc >> 7) & 7, (idesc >> 10) & 7, "A and B types");
    IDesc {
        m: i64::from((idesc >> 24) & 0x1F) << 4,
        n: i64::from((idesc >> 17) & 0x3F) << 3,
        a_mn_major: (idesc >> 15) & 1 == 1,
        b_mn_major: (idesc >> 16) & 1 == 1,
        d_f32: (idesc >> 4) & 3 == 1,
        ab_type: (idesc >> 7) & 7,
    }
}

pub fn tmem_lane(m: i64, row: i64) -> i64 {
    if m == 128 {
        row
    } else {
        32 * (row / 16) + row % 16
    }
}

/// Executes one issue on the machine.
pub fn execute(mach: &mut Machine, p: &MmaPlan, issue: &MmaIssue, bytes: i64) {
    let ins = p.instruction.as_str();
    let tcgen05 = ins.starts_with("tcgen05.mma.cta_group::1");
    let wgmma = ins.starts_with("wgmma.mma_async.sync.aligned");
    // The input type as the opcode states it: `.tf32.tf32` (mma.sync, wgmma) or `.kind::tf32` (tcgen05).
    let tf32 = ins.contains(".tf32.tf32") || ins.ends_with(".kind::tf32");
    // wgmma transposes (imm-trans-a/b) only .f16/.bf16 operands; others are read K-major (9.7.15.5.2).
    let wgmma_k_major_only = wgmma && !(ins.ends_with(".f16.f16") || ins.ends_with(".bf16.bf16"));
    let (m, n, k, idesc) = if tcgen05 {
        let d = decode_idesc(p.idesc.expect("tcgen05 has an instruction descriptor"));
        let k = if ins.ends_with("kind::f8f6f4") {
            32
        } else if tf32 {
            8
        } else {
            16
        };
        (d.m, d.n, k, Some(d))
    } else {
        let shape = ins.split('.').find(|s| s.starts_with('m') && s.contains('n') && s.contains('k')).unwrap();
        let nums: Vec<i64> = shape[1..].split(['n', 'k']).map(|x| x.parse().unwrap()).collect();
        (nums[0], nums[1], nums[2], None)
    };
    assert_eq!(p.inst_shape, [m, n, k], "the opcode or descriptor states the shape");
    // The major the hardware reads with is the instruction's: tcgen05's idesc transpose bits, wgmma's
    // layoutA/B (imm-trans) operands, which the lowering writes from the plan's major.
    let major_of = |acc: &Access, from_idesc: Option<bool>| match (acc, from_idesc) {
        (_, Some(mn)) => !mn,
        (Access::Smem(s), None) if wgmma_k_major_only => {
            assert_eq!(s.major, Major::K, "{ins} reads shared operands K-major only (no imm-trans)");
            true
        }
        (Access::Smem(s), None) => s.major == Major::K,
        _ => true,
    };
    let a = match &issue.a {
        Access::Regs(r) if !wgmma => {
            assert_eq!(r.len() as i64, m * k / 32);
            let frag: &dyn Fn(i64, i64) -> (i64, i64) = match (tf32, k) {
                (true, 8) => &frag_a_tf32,
                (true, _) => panic!("mma.sync .tf32 is m16n8k8 only, not {ins}"),
                (false, 16) => &frag_a16,
                (false, _) => &frag_a8,
            };
            gather_regs(mach, 'a', issue.thread_base, 32, r, m, k, frag)
        }
        Access::Regs(r) => {
            assert_eq!(r.len() as i64, m * k / 128);
            let frag: &dyn Fn(i64, i64) -> (i64, i64) = match (tf32, k) {
                (true, 8) => &frag_a_tf32,
                (true, _) => panic!("wgmma .tf32 is m64nNk8 only, not {ins}"),
                (false, 32) => &frag_a_fp8,
                (false, _) => &frag_a16,
            };
            gather_regs(mach, 'a', issue.thread_base, 128, r, m, k, &|th, i| {
                let (r, c) = frag(th % 32, i);
                (16 * (th / 32) + r, c)
            })
        }
        Access::Smem(s) => {
            let kmaj = major_of(&issue.a, idesc.as_ref().map(|d| d.a_mn_major));
            gather_smem(mach, SMEM_BASE, s.desc, tcgen05, kmaj, bytes, m, k, false)
        }
        Access::Tmem { lane, col } => {
            let d = idesc.as_ref().expect("A in tensor memory is tcgen05's");
            assert!(!d.a_mn_major, "A in tensor memory is row-major: the idesc must not transpose it");
            let per = per_cell(bytes);
            let mut t = Vec::new();
            for row in 0..m {
                for kk in 0..k {
                    let (lane, col) = (lane + tmem_lane(m, row), col + kk / per);
                    t.push(Some(tmem_read(mach, 'a', lane, col, (kk % per) * bytes)));
                }
            }
            t
        }
    };
    let b = match &issue.b {
        Access::Regs(r) => {
            let frag: &dyn Fn(i64, i64) -> (i64, i64) = match (tf32, k) {
                (true, _) => &frag_b_tf32,
                (false, 16) => &frag_b16,
                (false, _) => &frag_b8,
            };
            gather_regs(mach, 'b', issue.thread_base, 32, r, k, n, frag)
        }
        Access::Smem(s) => {
            let kmaj = major_of(&issue.b, idesc.as_ref().map(|d| d.b_mn_major));
            gather_smem(mach, SMEM_BASE_B, s.desc, tcgen05, kmaj, bytes, n, k, true)
        }
        Access::Tmem { .. } => panic!("B is never in tensor memory"),
    };
    // The multiplicands as the tensor core reads them: a tf32 container decoded, other types as stored.
    let read = |x: Option<i64>| {
        let x = x.unwrap();
        if tf32 {
            tf32_value(x)
        } else {
            x
        }
    };
    let (a, b): (Vec<i64>, Vec<i64>) = (a.into_iter().map(read).collect(), b.into_iter().map(read).collect());
    let wg_frag_c = |th: i64, i: i64| {
        let (r, c) = frag_c(th % 32, i % 4);
        (16 * (th / 32) + r, 8 * (i / 4) + c)
    };
    let c: Vec<i64> = match &issue.c {
        Access::Regs(r) if !wgmma => gather_regs(mach, 'c', issue.thread_base, 32, r, m, n, &frag_c),
        Access::Regs(r) => {
            assert_eq!(r.len() as i64, n / 2);
            gather_regs(mach, 'c', issue.thread_base, 128, r, m, n, &wg_frag_c)
        }
        Access::Tmem { lane, col } => {
            let mut t = Vec::new();
            for row in 0..m {
                for j in 0..n {
                    t.push(Some(tmem_read(mach, 'c', lane + tmem_lane(m, row), col + j, 0)));
                }
            }
            t
        }
        Access::Smem(_) => panic!("C is never in shared memory"),
    }
    .into_iter()
    .map(Option::unwrap)
    .collect();
    let d: Vec<i64> = (0..m * n)
        .map(|x| {
            let (i, j) = (x / n, x % n);
            c[x as usize] + (0..k).map(|l| a[(i * k + l) as usize] * b[(l * n + j) as usize]).sum::<i64>()
        })
        .collect();
    match &issue.c {
        Access::Regs(r) if !wgmma => scatter_regs(mach, 'c', issue.thread_base, 32, r, n, &frag_c, &d),
        Access::Regs(r) => scatter_regs(mach, 'c', issue.thread_base, 128, r, n, &wg_frag_c, &d),
        Access::Tmem { lane, col } => {
            for row in 0..m {
                for j in 0..n {
                    tmem_write_d(mach, lane + tmem_lane(m, row), col + j, d[(row * n + j) as usize]);
                }
            }
        }
        Access::Smem(_) => unreachable!(),
    }
}

/// Small integers in -4..=4, a hash of the flat index and `seed`: no short period along rows or columns, so an
/// element mixed up with another one at any distance changes some product.
pub fn values(shape: [i64; 2], seed: i64) -> Vec<i64> {
    (0..shape[0] * shape[1])
        .map(|x| {
            let mut h =
                (x as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (seed as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
            h ^= h >> 31;
            h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
            h ^= h >> 29;
            (h % 9) as i64 - 4
        })
        .collect()
}

/// Plans the GEMM, runs the plan on the model and checks `C += A * B`; returns the plan for further checks.
pub fn run(chip: &str, dtype: &str, acc: &str, a: &Op, b: &Op, c: &Op) -> MmaPlan {
    let req = GemmRequest {
        chip: Chip::from_name(chip).unwrap(),
        dtype: ElemType::from_name(dtype).unwrap(),
        acc_dtype: ElemType::from_name(acc).unwrap(),
        a: Operand { layout: &a.layout, shape: &a.shape, mem: a.mem },
        b: Operand { layout: &b.layout, shape: &b.shape, mem: b.mem },
        c: Operand { layout: &c.layout, shape: &c.shape, mem: c.mem },
    };
    let p = plan(&req).unwrap_or_else(|e| panic!("{e}"));
    check_plan(&req, &p);
    p
}

/// Runs plan `p` of `req` on the model and checks `C += A * B` element by element (panics on a mismatch, with the
/// element and the instruction); the operands must be rank 2.
pub fn check_plan(req: &GemmRequest, p: &MmaPlan) {
    let op = |o: &Operand| {
        assert_eq!(o.shape.len(), 2, "a GEMM operand is a matrix");
        Op { layout: o.layout.clone(), shape: [o.shape[0], o.shape[1]], mem: o.mem }
    };
    let (a, b, c) = (&op(&req.a), &op(&req.b), &op(&req.c));
    let dtype = req.dtype;
    if let Some(idesc) = p.idesc {
        // Table 42: D type F16 = 0, F32 = 1; A/B type (kind::f16) F16 = 0, BF16 = 1, (kind::tf32) TF32 = 2,
        // (kind::f8f6f4) E4M3 = 0, E5M2 = 1.
        let d = decode_idesc(idesc);
        assert_eq!(d.d_f32, req.acc_dtype == ElemType::F32, "idesc D type");
        let ab = match dtype {
            ElemType::F16 | ElemType::F8E4M3 => 0,
            ElemType::BF16 | ElemType::F8E5M2 => 1,
            ElemType::TF32 => 2,
            other => panic!("{} is no tcgen05 input type", other.name()),
        };
        assert_eq!(d.ab_type, ab, "idesc A/B type");
        let kind = match dtype {
            ElemType::F16 | ElemType::BF16 => "f16",
            ElemType::TF32 => "tf32",
            _ => "f8f6f4",
        };
        assert!(p.instruction.ends_with(&format!(".kind::{kind}")), "{} for {}", p.instruction, dtype.name());
    } else {
        // mma.sync and wgmma name the A and B types in the opcode.
        let ab = format!(".{0}.{0}", dtype.ptx());
        assert!(p.instruction.contains(&ab), "{} for {}", p.instruction, dtype.name());
    }
    let bytes = i64::from(dtype.bits() / 8);
    let (va, vb, vc) = (values(a.shape, 1), values(b.shape, 2), values(c.shape, 3));
    let mut mach = Machine::default();
    store(&mut mach, a, 'a', bytes, &encode(dtype, &va));
    store(&mut mach, b, 'b', bytes, &encode(dtype, &vb));
    let acc_bytes = i64::from(req.acc_dtype.bits() / 8);
    store(&mut mach, c, 'c', acc_bytes, &vc);
    for issue in &p.issues {
        execute(&mut mach, p, issue, bytes);
    }
    let got = load(&mach, c, 'c', acc_bytes);
    let (mm, kk, nn) = (a.shape[0], a.shape[1], b.shape[1]);
    for x in 0..mm * nn {
        let (i, j) = (x / nn, x % nn);
        let want = vc[x as usize] + (0..kk).map(|l| va[(i * kk + l) as usize] * vb[(l * nn + j) as usize]).sum::<i64>();
        assert_eq!(
            got[x as usize],
            want,
            "C{:?} after {} issues of {}",
            unflatten(&c.shape, x),
            p.issues.len(),
            p.instruction
        );
    }
}
