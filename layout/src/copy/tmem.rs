//! `tcgen05.ld` / `tcgen05.st` between tensor memory and registers (sm_100a; PTX ISA 9.7.16.8.3/4, shapes and
//! their fragments 9.7.16.2.3.1, Figures 183-187).
//!
//! One instruction of shape `S` and repetition `.xN` is issued by a whole warp with one address `(lb, cb)`
//! (lane and column); lane `l` of the warp moves, into or out of its `j`-th register of the instruction, the cell
//! ([`cell`]):
//! - `32x32b`: lane `lb + l`, column `cb + j` (`N` registers);
//! - `16x64b`: lane `lb + l/4 + 8*(l%2)`, column `cb + 2j + (l/2)%2` (`N` registers);
//! - `16x128b`: lane `lb + l/4 + 8*(j%2)`, column `cb + 4*(j/2) + l%4` (`2N` registers);
//! - `16x256b`: lane `lb + l/4 + 8*((j/2)%2)`, column `cb + 8*(j/4) + 2*(l%4) + j%2` (`4N` registers).
//!
//! Warp `w` of the CTA reaches only lanes `32*(w%4) .. 32*(w%4)+32` (9.7.16.2.1), so `lb` is `32*(w%4)` for
//! `32x32b` and that or `+16` for the 16-lane shapes. The planner covers each warp's cells greedily: the
//! uncovered cell with the smallest `(column, lane)` is the `(l = 0, j = 0)` cell of the next instruction, whose
//! cells must all be the warp's, each in the register the instruction's `j` names for every lane. Every warp must
//! get the same register lists, in order. Shapes and `N` (up to 128 registers) are tried, the fewest
//! instructions winning (ties: `32x32b`, `16x256b`, `16x128b`, `16x64b`).

use super::fit::Fitter;
use super::table::{err, Table};
use super::vector::{fit_or_err, Threads};
use super::{Completion, CopyError, CopyIssue, CopyKind, CopyRule, CopyStep, Operand, TmemShape};
use std::collections::{BTreeMap, BTreeSet};

/// Registers per thread of one `.x1` instruction of the shape.
pub fn regs_per_rep(shape: TmemShape) -> i64 {
    match shape {
        TmemShape::S32x32b | TmemShape::S16x64b => 1,
        TmemShape::S16x128b => 2,
        TmemShape::S16x256b => 4,
    }
}

/// The cell `(lane offset, column offset)` from the instruction's `(lb, cb)` that lane `l` moves with its
/// `j`-th register (see the module documentation).
pub fn cell(shape: TmemShape, l: i64, j: i64) -> (i64, i64) {
    match shape {
        TmemShape::S32x32b => (l, j),
        TmemShape::S16x64b => (l / 4 + 8 * (l % 2), 2 * j + (l / 2) % 2),
        TmemShape::S16x128b => (l / 4 + 8 * (j % 2), 4 * (j / 2) + l % 4),
        TmemShape::S16x256b => (l / 4 + 8 * ((j / 2) % 2), 8 * (j / 4) + 2 * (l % 4) + j % 2),
    }
}

const SHAPES: [TmemShape; 4] = [TmemShape::S32x32b, TmemShape::S16x256b, TmemShape::S16x128b, TmemShape::S16x64b];

/// One warp's cells: `(lane, column) -> (lane in the warp, register)`.
type Cells = BTreeMap<(i64, i64), (i64, i64)>;

/// One instruction of one warp: `(lb, cb, registers)`.
type Inst = (i64, i64, Vec<i64>);

/// Covers one warp's cells (`(lane, col) -> (lane in warp, register)`) with instructions of `shape` x `n`.
fn cover(cells: &Cells, window: i64, shape: TmemShape, n: i64) -> Option<Vec<Inst>> {
    let per = regs_per_rep(shape) * n;
    let lanes: &[i64] = if shape == TmemShape::S32x32b { &[0] } else { &[0, 16] };
    let mut left: BTreeSet<(i64, i64)> = cells.keys().map(|&(l, c)| (c, l)).collect();
    let mut out = Vec::new();
    while let Some(&(cb, lb)) = left.iter().next() {
        if !lanes.iter().any(|o| window + o == lb) {
            return None;
        }
        let mut regs = vec![-1i64; per as usize];
        for l in 0..32 {
            for j in 0..per {
                let (dl, dc) = cell(shape, l, j);
                let key = (lb + dl, cb + dc);
                let &(lane, reg) = cells.get(&key)?;
                if lane != l || !left.remove(&(key.1, key.0)) {
                    return None;
                }
                let slot = &mut regs[j as usize];
                if *slot == -1 {
                    *slot = reg;
                } else if *slot != reg {
                    return None;
                }
            }
        }
        out.push((lb, cb, regs));
    }
    Some(out)
}

/// The `tcgen05.ld` (`load`) or `tcgen05.st` step between a tensor-memory table and register holders (one per
/// element for a store).
pub(crate) fn tmem_step(
    tmem: &Table,
    holders: &[Vec<(i64, i64)>],
    load: bool,
    ctx: &Threads<'_>,
) -> Result<CopyStep, CopyError> {
    let Table::Tmem { cells } = tmem else {
        return Err(err(CopyRule::Input, "tensor-memory side expected"));
    };
    let warps = warp_cells(cells, holders)?;
    let (shape, n, plan) = best_cover(&warps)?;
    let all: BTreeSet<i64> = plan.keys().flat_map(|w| 32 * w..32 * w + 32).collect();
    let threads = ctx.set(&all, "issue tcgen05")?;
    let issues = tmem_issues(&plan, &all, load, ctx)?;
    let (op, kind, completion) = if load {
        ("ld", CopyKind::Tcgen05Ld { shape, num: n as u32 }, Completion::Tcgen05WaitLd)
    } else {
        ("st", CopyKind::Tcgen05St { shape, num: n as u32 }, Completion::Tcgen05WaitSt)
    };
    Ok(CopyStep {
        kind,
        instruction: format!("tcgen05.{op}.sync.aligned.{}.x{n}.b32", shape.name()),
        vector_bytes: 4 * regs_per_rep(shape) * n,
        threads,
        issues,
        src_swizzle: None,
        dst_swizzle: None,
        completion,
    })
}

/// Per warp, its cells: `(lane, col) -> (lane in warp, register)`, refusing a cell outside the warp's lane window
/// or held by two lanes of one warp (`tmem-lanes`).
fn warp_cells(cells: &[(i64, i64)], holders: &[Vec<(i64, i64)>]) -> Result<BTreeMap<i64, Cells>, CopyError> {
    let mut warps: BTreeMap<i64, Cells> = BTreeMap::new();
    for (k, (&(lane, col), hs)) in cells.iter().zip(holders).enumerate() {
        for &(t, r) in hs {
            let (w, l) = (t / 32, t % 32);
            let window = 32 * (w % 4);
            if lane < window || lane >= window + 32 {
                return Err(err(
                    CopyRule::TmemLanes,
                    format!(
                        "element {k} is in lane {lane} and thread {t} (warp {w}) holds it, but warp {w} reaches only \
                         lanes {window}..{}",
                        window + 32
                    ),
                ));
            }
            if let Some(prev) = warps.entry(w).or_default().insert((lane, col), (l, r)) {
                return Err(err(
                    CopyRule::TmemLanes,
                    format!(
                        "lane {lane}, column {col} is held by lanes {} and {l} of warp {w}; one tcgen05 instruction \
                         moves each cell to one lane",
                        prev.0
                    ),
                ));
            }
        }
    }
    Ok(warps)
}

/// A tcgen05 shape, its repeat count `.xN` and each warp's instructions.
type Cover = (TmemShape, i64, BTreeMap<i64, Vec<Inst>>);

/// The shape and repeat count whose instructions cover every warp's cells with the same registers in every warp,
/// fewest instructions first (per shape the widest repeat that covers), with each warp's instructions.
fn best_cover(warps: &BTreeMap<i64, Cells>) -> Result<Cover, CopyError> {
    let mut best: Option<Cover> = None;
    for shape in SHAPES {
        for n in (0..8).map(|p| 128i64 >> p).filter(|n| n * regs_per_rep(shape) <= 128) {
            let mut plan = BTreeMap::new();
            let ok = warps.iter().all(|(&w, c)| match cover(c, 32 * (w % 4), shape, n) {
                Some(insts) => plan.insert(w, insts).is_none(),
                None => false,
            });
            let uniform = {
                let mut lists = plan.values().map(|v: &Vec<Inst>| v.iter().map(|i| &i.2).collect::<Vec<_>>());
                let first = lists.next();
                lists.all(|l| Some(&l) == first.as_ref())
            };
            if ok && uniform {
                let count = plan.values().next().map_or(0, Vec::len);
                if best.as_ref().is_none_or(|b| count < b.2.values().next().map_or(0, Vec::len)) {
                    best = Some((shape, n, plan));
                }
                break;
            }
        }
    }
    best.ok_or_else(|| {
        err(
            CopyRule::TmemLanes,
            format!(
                "no tcgen05 shape (32x32b, 16x64b, 16x128b, 16x256b) with .x1 to .x128 covers the cells of the {} \
                 warp(s) with the same registers in every lane and warp",
                warps.len()
            ),
        )
    })
}

/// One issue per instruction of the cover: the lane and column as formulas of the issuing threads `all`, the
/// registers (the same in every warp).
fn tmem_issues(
    plan: &BTreeMap<i64, Vec<Inst>>,
    all: &BTreeSet<i64>,
    load: bool,
    ctx: &Threads<'_>,
) -> Result<Vec<CopyIssue>, CopyError> {
    let ts: Vec<i64> = all.iter().copied().collect();
    let fitter: Fitter = ctx.fitter(&ts);
    let count = plan.values().next().map_or(0, Vec::len);
    let mut issues = Vec::with_capacity(count);
    for i in 0..count {
        let (mut lanes, mut cols) = (Vec::with_capacity(ts.len()), Vec::with_capacity(ts.len()));
        for &t in &ts {
            let inst = &plan[&(t / 32)][i];
            lanes.push(inst.0);
            cols.push(inst.1);
        }
        let at = Operand::Tmem {
            lane: fit_or_err(&fitter, &lanes, "a tcgen05 lane")?,
            col: fit_or_err(&fitter, &cols, "a tcgen05 column")?,
        };
        let regs = Operand::Regs(plan.values().next().map(|v| v[i].2.clone()).unwrap_or_default());
        let (src, dst) = if load { (at, regs) } else { (regs, at) };
        issues.push(CopyIssue { src, dst, only: None });
    }
    Ok(issues)
}
