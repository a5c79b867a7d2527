//! The GEMM planner: family, candidate shapes largest first, operand matching, warp-tiling agreement and the
//! instruction loop (see the parent module's documentation).

use super::atoms::{
    mma_sync_a, mma_sync_a_tf32, mma_sync_b, mma_sync_b_tf32, mma_sync_c, tmem_a, tmem_d_for, wgmma_a, wgmma_d,
};
use super::desc::{tcgen05_idesc, tcgen05_kind};
use super::registers::{match_registers, RegTiles};
use super::shared::{descriptor, match_shared, SmemMatch};
use super::tmem::{alloc_columns, match_tmem, slots_per_column, TmemTiles};
use super::{
    Access, ElemType, Family, GemmRequest, Major, Memory, MmaError, MmaIssue, MmaPlan, MmaRule, Operand, OperandMove,
    Role, SmemDesc, StartTerm, TmemAllocations,
};
use crate::swizzle::SwizzleMode;
use crate::tile_layout::TileLayout;
use std::collections::{BTreeMap, BTreeSet};

/// The most instructions one GEMM may expand to.
pub const MAX_ISSUES: i64 = 1 << 16;

fn err(rule: MmaRule, msg: impl Into<String>) -> MmaError {
    MmaError::new(rule, msg)
}

/// Plans one `axe.gemm` (see the module documentation), with A and C in one tensor-memory allocation when both
/// are there ([`plan_with`]). Errors name the rule and the numbers, e.g.
/// `mma: fragment rule: operand B is not a tile of the m16n8k16 B fragment ...`.
pub fn plan(req: &GemmRequest<'_>) -> Result<MmaPlan, MmaError> {
    plan_with(req, TmemAllocations::Shared)
}

/// [`plan`], saying whether operand A and the accumulator, both in tensor memory, are columns of one allocation
/// (their columns must not overlap) or of two (each allocation has its own columns).
pub fn plan_with(req: &GemmRequest<'_>, allocations: TmemAllocations) -> Result<MmaPlan, MmaError> {
    let [m, k, n] = check_input(req)?;
    let family = select_family(req)?;
    check_dtypes(family, req.dtype, req.acc_dtype)?;
    let candidates = candidates(family, req.dtype);
    let mut first: Option<MmaError> = None;
    for shape in &candidates {
        if m % shape[0] != 0 || n % shape[1] != 0 || k % shape[2] != 0 {
            continue;
        }
        match plan_shape(family, req, *shape, [m, n, k], allocations) {
            Ok(p) => return Ok(p),
            Err(e) => {
                first.get_or_insert(e);
            }
        }
    }
    Err(first.unwrap_or_else(|| {
        let names: Vec<String> = distinct_shapes(&candidates);
        err(
            MmaRule::Shape,
            format!(
                "M={m}, N={n}, K={k} are not multiples of any {} instruction shape for {} ({})",
                family.name(),
                req.dtype,
                names.join(", ")
            ),
        )
    }))
}

/// `[M, K, N]` after checking ranks, the chain `[M,K] x [K,N] -> [M,N]` and that each layout admits its shape.
fn check_input(req: &GemmRequest<'_>) -> Result<[i64; 3], MmaError> {
    for (role, op) in [(Role::A, &req.a), (Role::B, &req.b), (Role::C, &req.c)] {
        if op.shape.len() != 2 || op.shape.iter().any(|&d| d < 1) {
            return Err(err(MmaRule::Input, format!("operand {} needs a 2-d shape, got {:?}", role.name(), op.shape)));
        }
        op.layout
            .admits(op.shape)
            .map_err(|e| err(MmaRule::Input, format!("operand {}: {}", role.name(), e.message)))?;
    }
    let (a, b, c) = (req.a.shape, req.b.shape, req.c.shape);
    if a[1] != b[0] || a[0] != c[0] || b[1] != c[1] {
        return Err(err(
            MmaRule::Input,
            format!("shapes {a:?} x {b:?} -> {c:?} do not chain as [M,K] x [K,N] -> [M,N]"),
        ));
    }
    Ok([a[0], a[1], b[1]])
}

/// The family the memories select, refused when the chip lacks it (never a guess: see [`Family`]).
fn select_family(req: &GemmRequest<'_>) -> Result<Family, MmaError> {
    let family = match (req.a.mem, req.b.mem, req.c.mem) {
        (Memory::Shared | Memory::Tmem, Memory::Shared, Memory::Tmem) => Family::Tcgen05,
        (Memory::Reg, Memory::Reg, Memory::Reg) => Family::MmaSync,
        (Memory::Reg | Memory::Shared, Memory::Shared, Memory::Reg) => Family::Wgmma,
        (a, b, c) => {
            return Err(err(
                MmaRule::Family,
                format!(
                    "no instruction family takes A in {}, B in {}, C in {} (mma.sync: all in registers; wgmma: A in \
                     registers or shared, B shared, C registers; tcgen05: A shared or tmem, B shared, C tmem)",
                    a.name(),
                    b.name(),
                    c.name()
                ),
            ))
        }
    };
    if !family.available_on(req.chip) {
        let needs = match family {
            Family::Wgmma => "sm_90a",
            Family::Tcgen05 => "sm_100a",
            Family::MmaSync => "sm_80",
        };
        return Err(err(
            MmaRule::Family,
            format!(
                "{} (selected by the operands' memories) is not available on {}; it needs {needs}",
                family.name(),
                req.chip.name()
            ),
        ));
    }
    Ok(family)
}

/// The PTX tables: mma.sync f16 -> f16|f32, bf16 -> f32, tf32 -> f32 (9.7.14.5.14); wgmma and tcgen05 add
/// e4m3/e5m2 -> f16|f32 (9.7.15.5, 9.7.16.10.1).
fn check_dtypes(family: Family, dtype: ElemType, acc: ElemType) -> Result<(), MmaError> {
    let ok = match (dtype, acc) {
        (ElemType::F16, ElemType::F16 | ElemType::F32) | (ElemType::BF16 | ElemType::TF32, ElemType::F32) => true,
        (ElemType::F8E4M3 | ElemType::F8E5M2, ElemType::F16 | ElemType::F32) => family != Family::MmaSync,
        _ => false,
    };
    if ok {
        return Ok(());
    }
    let table = match family {
        Family::MmaSync => "f16 -> f16|f32, bf16 -> f32, tf32 -> f32",
        _ => "f16 -> f16|f32, bf16 -> f32, tf32 -> f32, e4m3|e5m2 -> f16|f32",
    };
    let (dtype, acc) = (dtype.ptx(), acc.ptx());
    Err(err(
        MmaRule::Dtype,
        format!("{} has no {dtype} x {dtype} -> {acc} instruction (PTX table: {table})", family.name()),
    ))
}

/// Instruction shapes `[m, n, k]`, largest first: K is 32 bytes of the multiplicand type (16 for 16-bit, 32 for
/// fp8, 8 for tf32); mma.sync also has k8 for 16-bit types, and only k8 for tf32.
fn candidates(family: Family, dtype: ElemType) -> Vec<[i64; 3]> {
    let k = 256 / i64::from(dtype.bits());
    match family {
        Family::MmaSync if dtype == ElemType::TF32 => vec![[16, 8, 8]],
        Family::MmaSync => vec![[16, 8, 16], [16, 8, 8]],
        Family::Wgmma => (1..=32).rev().map(|i| [64, 8 * i, k]).collect(),
        Family::Tcgen05 => {
            let mut v: Vec<[i64; 3]> = (1..=16).rev().map(|i| [128, 16 * i, k]).collect();
            v.extend((1..=32).rev().map(|i| [64, 8 * i, k]));
            v
        }
    }
}

fn distinct_shapes(candidates: &[[i64; 3]]) -> Vec<String> {
    let ms: BTreeSet<i64> = candidates.iter().map(|c| c[0]).collect();
    let ks: BTreeSet<i64> = candidates.iter().map(|c| c[2]).collect();
    let ns: BTreeSet<i64> = candidates.iter().map(|c| c[1]).collect();
    let show = |s: &BTreeSet<i64>| s.iter().map(|v| v.to_string()).collect::<Vec<_>>().join("|");
    vec![format!(
        "m{} n{} k{}",
        show(&ms),
        if ns.len() > 4 { format!("{}..{}", ns.first().unwrap_or(&0), ns.last().unwrap_or(&0)) } else { show(&ns) },
        show(&ks)
    )]
}

/// The PTX opcode of one instruction shape.
fn opcode(family: Family, dtype: ElemType, acc: ElemType, [m, n, k]: [i64; 3]) -> String {
    let kind = tcgen05_kind(dtype);
    let (dtype, acc) = (dtype.ptx(), acc.ptx());
    match family {
        Family::MmaSync => format!("mma.sync.aligned.m{m}n{n}k{k}.row.col.{acc}.{dtype}.{dtype}.{acc}"),
        Family::Wgmma => format!("wgmma.mma_async.sync.aligned.m{m}n{n}k{k}.{acc}.{dtype}.{dtype}"),
        Family::Tcgen05 => format!("tcgen05.mma.cta_group::1.kind::{kind}"),
    }
}

/// How one operand is reached for a candidate shape.
enum Matched {
    Regs(RegTiles),
    Smem(SmemMatch),
    Tmem(TmemTiles),
}

fn inst_name(family: Family, [m, n, k]: [i64; 3]) -> String {
    match family {
        Family::MmaSync => format!("m{m}n{n}k{k}"),
        Family::Wgmma => format!("wgmma m{m}n{n}k{k}"),
        Family::Tcgen05 => format!("tcgen05 m{m}n{n}k{k}"),
    }
}

/// The register atom of `role` for a family and shape.
fn reg_atom(
    family: Family,
    role: Role,
    dtype: ElemType,
    [m, n, k]: [i64; 3],
) -> Result<(TileLayout, [i64; 2]), MmaError> {
    let atom = match (family, role) {
        (Family::MmaSync, Role::A) if dtype == ElemType::TF32 => mma_sync_a_tf32().map(|a| (a, [m, k])),
        (Family::MmaSync, Role::B) if dtype == ElemType::TF32 => mma_sync_b_tf32().map(|a| (a, [k, n])),
        (Family::MmaSync, Role::A) => mma_sync_a(k).map(|a| (a, [m, k])),
        (Family::MmaSync, Role::B) => mma_sync_b(k).map(|a| (a, [k, n])),
        (Family::MmaSync, Role::C) => mma_sync_c().map(|a| (a, [m, n])),
        (Family::Wgmma, Role::A) => wgmma_a(dtype.bits()).map(|a| (a, [m, k])),
        (Family::Wgmma, Role::C) => wgmma_d(n).map(|a| (a, [m, n])),
        _ => {
            return Err(err(
                MmaRule::Family,
                format!("{} takes no operand {} in registers", family.name(), role.name()),
            ))
        }
    };
    atom.map_err(|e| err(MmaRule::Fragment, e.message))
}

fn match_operand(
    family: Family,
    role: Role,
    op: &Operand<'_>,
    dtype: ElemType,
    acc: ElemType,
    shape: [i64; 3],
) -> Result<Matched, MmaError> {
    match op.mem {
        // `select_family` refuses global operands first; this arm keeps the match total.
        Memory::Global => Err(err(
            MmaRule::Family,
            format!(
                "operand {} is in global memory; tensor cores read registers, shared or tensor memory",
                role.name()
            ),
        )),
        Memory::Hbm | Memory::Sbuf | Memory::Psum => Err(err(
            MmaRule::Family,
            format!(
                "operand {} is in Trainium's {}; GPU tensor cores read registers, shared or tensor memory \
                 (axe_layout::trn::matmul plans the Tensor Engine)",
                role.name(),
                op.mem
            ),
        )),
        Memory::Reg => {
            let (atom, atom_shape) = reg_atom(family, role, dtype, shape)?;
            match_registers(role, op, &atom, atom_shape, &inst_name(family, shape)).map(Matched::Regs)
        }
        Memory::Shared => {
            let m = match_shared(role, op, dtype.bits())?;
            if family == Family::Wgmma && dtype.bits() != 16 && m.major == Major::MN {
                return Err(err(
                    MmaRule::SmemAtom,
                    format!(
                        "operand {} is MN-major, but wgmma reads {}-bit operands K-major only (imm-trans is for \
                         .f16/.bf16)",
                        role.name(),
                        dtype.bits()
                    ),
                ));
            }
            if family == Family::Tcgen05 && dtype == ElemType::TF32 && m.major == Major::MN {
                return Err(err(
                    MmaRule::SmemAtom,
                    format!(
                        "operand {} is MN-major; the planner reads tf32 operands of tcgen05 K-major only (MN-major \
                         32-bit operands need the 32-byte-atom swizzle modes, which it does not plan)",
                        role.name()
                    ),
                ));
            }
            Ok(Matched::Smem(m))
        }
        Memory::Tmem => {
            // TCol counts element slots: C unpacked (one element per 32-bit column), A packed (PTX ISA 9.7.16.10.4).
            let ([m, n, k], acc_bits) = (shape, acc.bits());
            let (atom, ext, slot_bits, width) = match role {
                Role::C => (tmem_d_for(m, n, acc_bits), [m, n], acc_bits, n),
                Role::A => (tmem_a(m, k), [m, k], dtype.bits(), k / slots_per_column(dtype.bits())),
                Role::B => {
                    return Err(err(
                        MmaRule::Family,
                        "operand B is never in tensor memory (tcgen05 reads it from shared)",
                    ))
                }
            };
            let atom = atom.map_err(|e| err(MmaRule::TmemDatapath, e.message))?;
            match_tmem(role, op, &atom, ext, m, slot_bits, width).map(Matched::Tmem)
        }
    }
}

/// A and C both in tensor memory (PTX ISA 9.7.16.10.5): the M=64 data path (Layout F) needs the same lane
/// alignment for A and the D tile it multiplies into, and, in one allocation, A's columns must not overlap C's.
/// Intervals are compared per starting lane (the 16-lane halves of Layout F are disjoint).
fn check_a_beside_c(
    a: &TmemTiles,
    c: &TmemTiles,
    issues: &[MmaIssue],
    allocations: TmemAllocations,
) -> Result<(), MmaError> {
    for issue in issues {
        if let (Access::Tmem { lane: la, .. }, Access::Tmem { lane: lc, .. }) = (&issue.a, &issue.c) {
            if la != lc {
                return Err(err(
                    MmaRule::TmemDatapath,
                    format!(
                        "operand A's instruction tile at [{}, {}] starts at lane {la}, but the accumulator tile it \
                         multiplies into at lane {lc}; A and D share the data path and its lane alignment",
                        issue.m, issue.k
                    ),
                ));
            }
        }
    }
    if allocations == TmemAllocations::Separate {
        return Ok(());
    }
    let mut spans: Vec<(i64, i64, i64, bool)> = a
        .tiles
        .iter()
        .map(|&(l, k)| (l, k, k + a.width, true))
        .chain(c.tiles.iter().map(|&(l, k)| (l, k, k + c.width, false)))
        .collect();
    spans.sort();
    // Per (lane, is A): the interval seen so far that reaches furthest.
    let mut reach: BTreeMap<(i64, bool), (i64, i64)> = BTreeMap::new();
    for (lane, start, end, is_a) in spans {
        if let Some(&(other_start, other_end)) = reach.get(&(lane, !is_a)) {
            if start < other_end {
                let (a_cols, c_cols) = if is_a {
                    ((start, end), (other_start, other_end))
                } else {
                    ((other_start, other_end), (start, end))
                };
                return Err(err(
                    MmaRule::TmemOverlap,
                    format!(
                        "operand A's columns {}..{} overlap the accumulator's columns {}..{} (lanes from {lane}); A \
                         and C are in one tensor memory and must not share a column",
                        a_cols.0, a_cols.1, c_cols.0, c_cols.1
                    ),
                ));
            }
        }
        let entry = reach.entry((lane, is_a)).or_insert((start, end));
        if end > entry.1 {
            *entry = (start, end);
        }
    }
    Ok(())
}

fn plan_shape(
    family: Family,
    req: &GemmRequest<'_>,
    shape: [i64; 3],
    [m, n, k]: [i64; 3],
    allocations: TmemAllocations,
) -> Result<MmaPlan, MmaError> {
    let [mi, ni, ki] = shape;
    let (mt, nt, kt) = (m / mi, n / ni, k / ki);
    if mt * nt * kt > MAX_ISSUES {
        return Err(err(MmaRule::Shape, format!("{} instructions exceed the limit of {MAX_ISSUES}", mt * nt * kt)));
    }
    let c = match_operand(family, Role::C, &req.c, req.dtype, req.acc_dtype, shape)?;
    let a = match_operand(family, Role::A, &req.a, req.dtype, req.acc_dtype, shape)?;
    let b = match_operand(family, Role::B, &req.b, req.dtype, req.acc_dtype, shape)?;

    // Issuers: per C tile, the one warp (group) computing it.
    let owners: Vec<i64> = match &c {
        Matched::Regs(r) => owners_of(r)?,
        _ => vec![0; (mt * nt) as usize],
    };
    let owner = |i: i64, j: i64| owners[(i * nt + j) as usize];
    if let Matched::Regs(ra) = &a {
        agree(Role::A, ra, |i, _| (0..nt).map(|j| owner(i, j)).collect(), [mi, ki])?;
    }
    if let Matched::Regs(rb) = &b {
        agree(Role::B, rb, |_, j| (0..mt).map(|i| owner(i, j)).collect(), [ki, ni])?;
    }

    let mut order: Vec<(i64, i64, i64)> =
        (0..mt).flat_map(|i| (0..nt).map(move |j| (i, j))).map(|(i, j)| (owner(i, j), i, j)).collect();
    order.sort();
    let mut descs: BTreeMap<(Role, i64, i64), SmemDesc> = BTreeMap::new();
    let mut issues = Vec::with_capacity((mt * nt * kt) as usize);
    for (tb, i, j) in order {
        for l in 0..kt {
            let a_acc = access(family, Role::A, &a, tb, [i, l], [i * mi, l * ki], [mi, ki], &mut descs)?;
            let b_acc = access(family, Role::B, &b, tb, [l, j], [l * ki, j * ni], [ni, ki], &mut descs)?;
            let c_acc = access(family, Role::C, &c, tb, [i, j], [i * mi, j * ni], [mi, ni], &mut descs)?;
            issues.push(MmaIssue { thread_base: tb, m: i * mi, n: j * ni, k: l * ki, a: a_acc, b: b_acc, c: c_acc });
        }
    }

    if let (Matched::Tmem(ta), Matched::Tmem(tc)) = (&a, &c) {
        check_a_beside_c(ta, tc, &issues, allocations)?;
    }

    // A in tensor memory is K-major (row-major, PTX ISA 9.7.16.10.2 Table 51): no transpose bit.
    let major = |x: &Matched| match x {
        Matched::Smem(s) => s.major,
        _ => Major::K,
    };
    let idesc =
        (family == Family::Tcgen05).then(|| tcgen05_idesc(req.dtype, req.acc_dtype, mi, ni, major(&a), major(&b)));
    let tmem_reach: Vec<(Role, i64)> = [(Role::A, &a), (Role::C, &c)]
        .into_iter()
        .filter_map(|(role, x)| match x {
            Matched::Tmem(t) => Some((role, t.columns)),
            _ => None,
        })
        .collect();
    let tmem_columns = tmem_reach.iter().map(|(_, cols)| *cols).max().map(|cols| alloc_columns(cols) as u32);
    let shared_base_alignment_bytes = [&a, &b]
        .iter()
        .filter_map(|x| match x {
            Matched::Smem(s) => Some(s.base_alignment_bytes()),
            _ => None,
        })
        .max();
    Ok(MmaPlan {
        family,
        instruction: opcode(family, req.dtype, req.acc_dtype, shape),
        inst_shape: shape,
        tmem_columns,
        tmem_reach,
        idesc,
        shared_base_alignment_bytes,
        issues,
        dynamic: Vec::new(),
    })
}

/// [`plan`] for shared operands moved at run time (see "Run-time operand starts" in the module documentation):
/// the plan of the regions at offset 0 plus [`MmaPlan::dynamic`], one [`StartTerm`] per move.
pub fn plan_moving(req: &GemmRequest<'_>, moves: &[OperandMove<'_>]) -> Result<MmaPlan, MmaError> {
    let mut p = plan(req)?;
    for (k, mv) in moves.iter().enumerate() {
        let first = p.issues.first().map(|issue| match mv.role {
            Role::A => &issue.a,
            Role::B => &issue.b,
            Role::C => &issue.c,
        });
        let Some(Access::Smem(desc)) = first else {
            return Err(err(
                MmaRule::DynamicStart,
                format!(
                    "move {k} is of operand {}, which is not read through a shared-memory descriptor; only shared A \
                     and B may start at run time",
                    mv.role.name()
                ),
            ));
        };
        let step = crate::stage::digit_step(mv.ring, mv.ring_shape, mv.dim, mv.multiple)
            .map_err(|e| err(MmaRule::DynamicStart, format!("operand {}'s ring: {e}", mv.role.name())))?;
        let bytes = step.stride.saturating_mul(req.dtype.bytes());
        let moved = bytes.saturating_mul(mv.multiple / step.divisor);
        let repeat = match desc.swizzle {
            SwizzleMode::None => 16,
            m => 8 * m.bytes(),
        };
        if moved % repeat != 0 {
            return Err(err(
                MmaRule::DynamicStart,
                format!(
                    "operand {} moves along ring dimension {} by a run-time offset known to be a multiple of {}, \
                     {bytes} bytes per step of {} elements: its matrix starts would move by multiples of {moved} \
                     bytes, not of the {repeat}-byte repeat of its {} layout (base offset 0 would be wrong)",
                    mv.role.name(),
                    mv.dim,
                    mv.multiple,
                    step.divisor,
                    desc.swizzle.name()
                ),
            ));
        }
        p.dynamic.push(StartTerm { role: mv.role, offset: k, divisor: step.divisor, bytes });
    }
    Ok(p)
}

/// The single warp (group) computing each C tile; a replicated accumulator is refused.
fn owners_of(c: &RegTiles) -> Result<Vec<i64>, MmaError> {
    let mut owners = Vec::with_capacity(c.tiles.len());
    for (flat, holders) in c.tiles.iter().enumerate() {
        match holders.as_slice() {
            [(tb, _)] => owners.push(*tb),
            _ => {
                let threads: Vec<i64> = holders.iter().map(|(t, _)| *t).collect();
                return Err(err(
                    MmaRule::WarpTiling,
                    format!(
                        "accumulator tile {:?} is held by the warps starting at threads {threads:?}; each C tile \
                         needs exactly one",
                        [flat as i64 / c.grid[1], flat as i64 % c.grid[1]]
                    ),
                ));
            }
        }
    }
    Ok(owners)
}

/// Each tile of a register multiplicand must be held by exactly the warps that compute with it.
fn agree(role: Role, r: &RegTiles, needed: impl Fn(i64, i64) -> BTreeSet<i64>, tile: [i64; 2]) -> Result<(), MmaError> {
    for i in 0..r.grid[0] {
        for j in 0..r.grid[1] {
            let held: BTreeSet<i64> = r.at(i, j).iter().map(|(t, _)| *t).collect();
            let need = needed(i, j);
            if held != need {
                return Err(err(
                    MmaRule::WarpTiling,
                    format!(
                        "the warp tilings of {} and C disagree: {} tile at {:?} is held by the warps starting at \
                         threads {held:?}, but the C tiles it multiplies are computed by {need:?}",
                        role.name(),
                        role.name(),
                        [i * tile[0], j * tile[1]]
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The access of one operand for one issue: `tile` is the grid coordinate, `origin` the logical one; `ext` is
/// (M or N extent, K extent) for shared operands.
#[allow(clippy::too_many_arguments)]
fn access(
    family: Family,
    role: Role,
    x: &Matched,
    thread_base: i64,
    tile: [i64; 2],
    origin: [i64; 2],
    ext: [i64; 2],
    descs: &mut BTreeMap<(Role, i64, i64), SmemDesc>,
) -> Result<Access, MmaError> {
    match x {
        Matched::Regs(r) => r.regs(tile[0], tile[1], thread_base).map(Access::Regs).ok_or_else(|| {
            err(
                MmaRule::WarpTiling,
                format!(
                    "operand {} tile {:?} is not held by the warp starting at thread {thread_base}",
                    role.name(),
                    origin
                ),
            )
        }),
        Matched::Smem(s) => {
            if let Some(d) = descs.get(&(role, tile[0], tile[1])) {
                return Ok(Access::Smem(*d));
            }
            let d = descriptor(s, family, origin, ext[0], ext[1])?;
            descs.insert((role, tile[0], tile[1]), d);
            Ok(Access::Smem(d))
        }
        Matched::Tmem(t) => {
            let (lane, col) = t.at(tile[0], tile[1]);
            Ok(Access::Tmem { lane, col })
        }
    }
}
