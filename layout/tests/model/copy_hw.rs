//! The copy instructions as the hardware performs them, transcribed from the PTX ISA independently of the copy
//! planner (nothing here calls planner code), and a machine that executes an `axe_layout::copy` plan over every
//! thread of the scope on small integer data and checks that every element lands where the destination layout
//! says, and nowhere else.
//!
//! The machine: element `k` of the source holds `1000 + k`. Memory tensors are element arrays whose base sits at
//! byte `BASE` (4096-aligned, so an access's alignment is that of its offset); register tensors are one array per
//! tensor per thread, indexed by the register axis `m`; tensor memory is 128 lanes x 512 columns of 32-bit cells.
//! A thread's index is `laneid + 32 * (warpid | wid_in_wg) + 128 * wgid + tid + tid_in_wg`, as the dialect's
//! layouts name threads. Formulas and thread sets are evaluated from their documented meaning
//! (`base + sum ((t / div) % modulus) * coef`; `begin <= (t / div) % modulus < end`), not with the crate's helpers.
//!
//! Per instruction (PTX ISA):
//! - `ld`/`st` (9.7.9.8/9.7.9.10): `.b8`, `.b16`, `.b32`, `.v2.b32`, `.v4.b32` move 1 to 16 bytes from one
//!   address that must be aligned to the access size;
//! - `ldmatrix`/`stmatrix` (9.7.14.5.15/16): `.m8n8` matrices of 16-bit elements; threads `8i..8i+8` give the
//!   addresses of the 8 rows (16 bytes each, 16-byte aligned) of matrix `i` (`.x1`: threads 0-7, `.x2`: 0-15,
//!   `.x4`: 0-31); lane `l` holds in register `d_i` row `l / 4`, columns `2 * (l % 4) + {0, 1}` of matrix `i` (low
//!   half first), or with `.trans` rows `2 * (l % 4) + {0, 1}`, column `l / 4`;
//! - `cp.async` (9.7.9.25.3): `.ca` copies 4, 8 or 16 bytes, `.cg` only 16, both addresses aligned to the size;
//!   completion by `cp.async.commit_group` + `cp.async.wait_group`;
//! - `tcgen05.ld`/`tcgen05.st` (9.7.16.8.3/4, fragments 9.7.16.2.3.1 Figures 183-187): a warp moves, from
//!   `taddr = (lane, column)`, in register `r` of lane `l`: `32x32b` lane `l`, column `r`; `16x64b` lane
//!   `l / 4 + 8 * (l % 2)`, column `2 * r + (l / 2) % 2`; `16x128b` lane `l / 4 + 8 * (r % 2)`, column
//!   `4 * (r / 2) + l % 4`; `16x256b` lane `l / 4 + 8 * ((r / 2) % 2)`, column `8 * (r / 4) + 2 * (l % 4) + r % 2`
//!   (offsets from `taddr`; `.xN` repeats the pattern along the columns); warp `w` reaches only the lanes
//!   `32 * (w % 4) .. 32 * (w % 4) + 32` of its sub-partition (9.7.16.2.1); waits `tcgen05.wait::ld/st`;
//! - `shfl.sync.idx.b32` (9.7.8.6): every lane sends one 32-bit value and reads lane `b`'s (`c = 0x1f`: a lane
//!   index above 31 reads its own value);
//! - `mov`: inside one thread.

#[path = "notation.rs"]
mod notation;

use axe_layout::copy::{
    Completion, CopyIssue, CopyKind, CopyPlan, CopyRequest, CopyStep, Memory, Operand, PerThread, ThreadSet, TmemShape,
};
use axe_layout::{Axis, Layout, Swizzle};
use std::collections::{HashMap, HashSet};

/// Memory bases in bytes: 4096-aligned.
pub const BASE: i64 = 3 * 4096;

/// Which tensor an operand reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Tensor {
    Src,
    Dst,
    Staging,
}

/// Bank -> the distinct 4-byte words one phase of a warp's access touches in it.
type Banks = HashMap<i64, HashSet<i64>>;

/// The machine's state.
#[derive(Default)]
struct Machine {
    mem: HashMap<(Tensor, i64), i64>,
    regs: HashMap<(Tensor, i64, i64), i64>,
    tmem: HashMap<(i64, i64), i64>,
    /// Every place of the destination written: memory `(0, addr)`, register `(t, reg)`, tensor memory `(l, c)`.
    written: HashSet<(i64, i64)>,
    /// Staging accesses per (step, issue, warp, phase): bank -> 4-byte words, for the bank-conflict check.
    banks: HashMap<(usize, usize, i64, i64), Banks>,
}

/// Where one element lives on one side: memory addresses, `(thread, register)` holders, or `(lane, col)` cells.
fn places(layout: &Layout, mem: Memory, k: i64) -> Vec<(i64, i64)> {
    let mut out = Vec::new();
    // Where the layout puts element k, by the notation's definition (not the crate's evaluator).
    for p in notation::points(layout, k) {
        match mem {
            Memory::Global | Memory::Shared => out.push((0, p.get(&Axis::M).copied().unwrap_or(0))),
            Memory::Tmem => {
                let get = |n: &str| p.get(&Axis::named(n).unwrap()).copied().unwrap_or(0);
                out.push((get("TLane"), get("TCol")));
            }
            Memory::Hbm | Memory::Sbuf | Memory::Psum => {
                panic!("the GPU copy model has no Trainium memories (the planner refuses them)")
            }
            Memory::Reg => {
                let (mut t, mut r) = (0, 0);
                for (a, v) in &p {
                    match a.name() {
                        "m" => r = *v,
                        "laneid" | "tid" | "tid_in_wg" => t += v,
                        "warpid" | "wid_in_wg" => t += 32 * v,
                        "wgid" => t += 128 * v,
                        other => panic!("the model knows no thread axis {other}"),
                    }
                }
                out.push((t, r));
            }
        }
    }
    out
}

fn value(f: &PerThread, t: i64) -> i64 {
    f.terms.iter().fold(f.base, |acc, term| {
        let q = t / term.div;
        let q = match term.modulus {
            Some(m) => q % m,
            None => q,
        };
        acc + q * term.coef
    })
}

fn member(s: &ThreadSet, t: i64) -> bool {
    s.conds.iter().all(|c| {
        let q = t / c.div;
        let q = match c.modulus {
            Some(m) => q % m,
            None => q,
        };
        c.begin <= q && q < c.end
    })
}

fn swz(s: Option<Swizzle>, a: i64) -> i64 {
    s.map_or(a, |s| notation::swizzle(s, a))
}

/// The tcgen05 fragment: `(lane, column)` offsets moved by register `r` of lane `l` (module documentation).
fn tmem_cell(shape: TmemShape, l: i64, r: i64) -> (i64, i64) {
    match shape {
        TmemShape::S32x32b => (l, r),
        TmemShape::S16x64b => (l / 4 + 8 * (l % 2), 2 * r + (l / 2) % 2),
        TmemShape::S16x128b => (l / 4 + 8 * (r % 2), 4 * (r / 2) + l % 4),
        TmemShape::S16x256b => (l / 4 + 8 * ((r / 2) % 2), 8 * (r / 4) + 2 * (l % 4) + r % 2),
    }
}

fn tmem_regs(shape: TmemShape, num: u32) -> i64 {
    let per = match shape {
        TmemShape::S32x32b | TmemShape::S16x64b => 1,
        TmemShape::S16x128b => 2,
        TmemShape::S16x256b => 4,
    };
    per * i64::from(num)
}

struct Exec {
    m: Machine,
    /// Run-time shifts of the source and destination addresses, in elements, added after the swizzle.
    shift: HashMap<Tensor, i64>,
    /// Sides addressed by region coordinates (a row-major tensor of run-time extents).
    coords: HashMap<Tensor, Coords>,
    step_index: usize,
    esize: i64,
    scope_threads: i64,
}

/// A side addressed by coordinates: per issue `(row(t), col(t))` in the region, the region's origin, the root's
/// row stride `w` and row count. An access at `(row0 + row(t), col0 + col(t))` is at `(row0 + row) * w + col0 + col`
/// and in bounds when the row is below `rows` and the column below `w`.
#[derive(Clone)]
#[allow(dead_code)]
pub struct Coords {
    /// Per issue: row and column formulas.
    pub issues: Vec<(PerThread, PerThread)>,
    /// The region's first row and column in the root.
    pub origin: (i64, i64),
    /// The root's row stride (= its column count).
    pub w: i64,
    /// The root's row count.
    pub rows: i64,
}

impl Exec {
    /// For a coordinate-addressed tensor: issue `ii`'s address in thread `t` and whether it is in bounds.
    fn coord_at(&self, tensor: Tensor, ii: usize, t: i64) -> Option<(i64, bool)> {
        let c = self.coords.get(&tensor)?;
        let (rf, cf) = c.issues.get(ii)?;
        let (r, col) = (c.origin.0 + value(rf, t), c.origin.1 + value(cf, t));
        Some((r * c.w + col, r < c.rows && col < c.w))
    }

    /// The address thread `t` reaches in `tensor` through formula `f` and swizzle `sw`, shifted.
    fn at(&self, tensor: Tensor, sw: Option<Swizzle>, f: &PerThread, t: i64) -> i64 {
        swz(sw, value(f, t)) + self.shift.get(&tensor).copied().unwrap_or(0)
    }

    fn read_mem(&self, t: Tensor, a: i64) -> Result<i64, String> {
        self.m.mem.get(&(t, a)).copied().ok_or_else(|| format!("reads address {a} of {t:?}, which holds nothing"))
    }

    fn write_mem(&mut self, t: Tensor, a: i64, v: i64) {
        if t == Tensor::Dst {
            self.m.written.insert((0, a));
        }
        self.m.mem.insert((t, a), v);
    }

    fn read_reg(&self, tensor: Tensor, t: i64, r: i64) -> Result<i64, String> {
        self.m
            .regs
            .get(&(tensor, t, r))
            .copied()
            .ok_or_else(|| format!("thread {t} reads register {r} of {tensor:?}, which holds nothing"))
    }

    fn write_reg(&mut self, tensor: Tensor, t: i64, r: i64, v: i64) {
        if tensor == Tensor::Dst {
            self.m.written.insert((t, r));
        }
        self.m.regs.insert((tensor, t, r), v);
    }

    fn issuers(&self, step: &CopyStep, issue: &CopyIssue) -> Vec<i64> {
        (0..self.scope_threads)
            .filter(|&t| member(&step.threads, t) && issue.only.as_ref().is_none_or(|o| member(o, t)))
            .collect()
    }

    /// The warps whose lanes run the step, each required whole (warp-collective instructions).
    fn warps(&self, step: &CopyStep) -> Result<Vec<i64>, String> {
        let mut ws = Vec::new();
        for w in 0..(self.scope_threads + 31) / 32 {
            let n = (32 * w..32 * w + 32).filter(|&t| member(&step.threads, t)).count();
            match n {
                0 => {}
                32 => ws.push(w),
                _ => return Err(format!("{}: warp {w} takes part with {n} of its 32 lanes", step.instruction)),
            }
        }
        Ok(ws)
    }

    fn step(&mut self, step: &CopyStep, from: Tensor, to: Tensor) -> Result<(), String> {
        let es = self.esize;
        match step.kind {
            CopyKind::Load(_) | CopyKind::Store(_) => {
                let load = matches!(step.kind, CopyKind::Load(_));
                let space = match step.kind {
                    CopyKind::Load(s) | CopyKind::Store(s) => s.name(),
                    _ => unreachable!(),
                };
                let suffix = match step.vector_bytes {
                    1 => "b8",
                    2 => "b16",
                    4 => "b32",
                    8 => "v2.b32",
                    16 => "v4.b32",
                    b => return Err(format!("no ld/st moves {b} bytes")),
                };
                let want = format!("{}.{space}.{suffix}", if load { "ld" } else { "st" });
                if step.instruction != want {
                    return Err(format!(
                        "instruction {} for a {}-byte access, expected {want}",
                        step.instruction, step.vector_bytes
                    ));
                }
                let v = step.vector_bytes / es;
                // Shared memory serves a warp's access of b bytes per thread in max(1, b / 4) phases of lanes.
                let lanes_per_phase = if step.vector_bytes <= 4 { 32 } else { 128 / step.vector_bytes };
                for (ii, issue) in step.issues.iter().enumerate() {
                    let (regs, f, sw) = match (&issue.src, &issue.dst, load) {
                        (Operand::Mem(f), Operand::Regs(r), true) => (r, f, step.src_swizzle),
                        (Operand::Regs(r), Operand::Mem(f), false) => (r, f, step.dst_swizzle),
                        _ => return Err(format!("{}: operands {:?} -> {:?}", step.instruction, issue.src, issue.dst)),
                    };
                    if regs.len() as i64 != v {
                        return Err(format!("{}: {} registers for {v} elements", step.instruction, regs.len()));
                    }
                    for t in self.issuers(step, issue) {
                        let mem_tensor = if load { from } else { to };
                        let (a, inside) = match self.coord_at(mem_tensor, ii, t) {
                            Some(hit) => hit,
                            None => (self.at(mem_tensor, sw, f, t), true),
                        };
                        if !inside {
                            // A predicated access off the tensor: a load reads zeros, a store is skipped.
                            if load {
                                for &r in regs {
                                    self.write_reg(to, t, r, 0);
                                }
                            }
                            continue;
                        }
                        if (BASE + a * es) % step.vector_bytes != 0 {
                            return Err(format!(
                                "thread {t}: {} at element {a} is not {}-byte aligned",
                                step.instruction, step.vector_bytes
                            ));
                        }
                        if from == Tensor::Staging || to == Tensor::Staging {
                            let key = (self.step_index, ii, t / 32, (t % 32) / lanes_per_phase);
                            let bytes = BASE + a * es;
                            for w in bytes / 4..=(bytes + step.vector_bytes - 1) / 4 {
                                self.m.banks.entry(key).or_default().entry(w % 32).or_default().insert(w);
                            }
                        }
                        for (i, &r) in regs.iter().enumerate() {
                            if load {
                                let x = self.read_mem(from, a + i as i64)?;
                                self.write_reg(to, t, r, x);
                            } else {
                                let x = self.read_reg(from, t, r)?;
                                self.write_mem(to, a + i as i64, x);
                            }
                        }
                    }
                }
            }
            CopyKind::Ldmatrix { count, trans } | CopyKind::Stmatrix { count, trans } => {
                let load = matches!(step.kind, CopyKind::Ldmatrix { .. });
                if es != 2 {
                    return Err("ldmatrix/stmatrix move 16-bit elements".into());
                }
                let name = if load { "ldmatrix" } else { "stmatrix" };
                let want = format!("{name}.sync.aligned.m8n8.x{count}{}.shared.b16", if trans { ".trans" } else { "" });
                if step.instruction != want || ![1, 2, 4].contains(&count) {
                    return Err(format!("instruction {}, expected {want}", step.instruction));
                }
                let n = i64::from(count);
                for issue in &step.issues {
                    let (regs, f, sw) = match (&issue.src, &issue.dst, load) {
                        (Operand::Mem(f), Operand::Regs(r), true) => (r, f, step.src_swizzle),
                        (Operand::Regs(r), Operand::Mem(f), false) => (r, f, step.dst_swizzle),
                        _ => return Err(format!("{name}: operands {:?} -> {:?}", issue.src, issue.dst)),
                    };
                    if regs.len() as i64 != 2 * n {
                        return Err(format!("{name}.x{n} with {} 16-bit register slots", regs.len()));
                    }
                    let mem_tensor = if load { from } else { to };
                    for w in self.warps(step)? {
                        // Row addresses from threads 0 .. 8n of the warp.
                        let rows: Vec<i64> = (0..8 * n).map(|l| self.at(mem_tensor, sw, f, 32 * w + l)).collect();
                        for (l, a) in rows.iter().enumerate() {
                            if (BASE + a * 2) % 16 != 0 {
                                return Err(format!(
                                    "warp {w} lane {l}: matrix row at element {a} is not 16-byte aligned"
                                ));
                            }
                        }
                        for l in 0..32 {
                            for i in 0..n {
                                for j in 0..2 {
                                    let (row, col) =
                                        if trans { (2 * (l % 4) + j, l / 4) } else { (l / 4, 2 * (l % 4) + j) };
                                    let a = rows[(8 * i + row) as usize] + col;
                                    let r = regs[(2 * i + j) as usize];
                                    let t = 32 * w + l;
                                    if load {
                                        let x = self.read_mem(from, a)?;
                                        self.write_reg(to, t, r, x);
                                    } else {
                                        let x = self.read_reg(from, t, r)?;
                                        self.write_mem(to, a, x);
                                    }
                                }
                            }
                        }
                    }
                }
            }
            CopyKind::CpAsync { bytes } => {
                let b = i64::from(bytes);
                let want = match b {
                    16 => "cp.async.cg.shared.global",
                    4 | 8 => "cp.async.ca.shared.global",
                    _ => return Err(format!("cp.async copies 4, 8 or 16 bytes, not {b}")),
                };
                if step.instruction != want || step.vector_bytes != b || step.completion != Completion::CpAsyncWaitAll {
                    return Err(format!(
                        "cp.async step {} / {} bytes / {:?}",
                        step.instruction, step.vector_bytes, step.completion
                    ));
                }
                for (ii, issue) in step.issues.iter().enumerate() {
                    let (Operand::Mem(fs), Operand::Mem(fd)) = (&issue.src, &issue.dst) else {
                        return Err("cp.async takes two addresses".into());
                    };
                    for t in self.issuers(step, issue) {
                        let d = self.at(to, step.dst_swizzle, fd, t);
                        let (a, inside) = match self.coord_at(from, ii, t) {
                            Some(hit) => hit,
                            None => (self.at(from, step.src_swizzle, fs, t), true),
                        };
                        if !inside {
                            // src-size 0: the destination's bytes are zero-filled.
                            for i in 0..b / es {
                                self.write_mem(to, d + i, 0);
                            }
                            continue;
                        }
                        if (BASE + a * es) % b != 0 || (BASE + d * es) % b != 0 {
                            return Err(format!(
                                "thread {t}: cp.async of {b} bytes from element {a} to {d} is misaligned"
                            ));
                        }
                        for i in 0..b / es {
                            let x = self.read_mem(from, a + i)?;
                            self.write_mem(to, d + i, x);
                        }
                    }
                }
            }
            CopyKind::Tcgen05Ld { shape, num } | CopyKind::Tcgen05St { shape, num } => {
                let load = matches!(step.kind, CopyKind::Tcgen05Ld { .. });
                if es != 4 {
                    return Err("tcgen05.ld/st move 32-bit cells".into());
                }
                let want =
                    format!("tcgen05.{}.sync.aligned.{}.x{num}.b32", if load { "ld" } else { "st" }, shape.name());
                let wait = if load { Completion::Tcgen05WaitLd } else { Completion::Tcgen05WaitSt };
                if step.instruction != want || step.completion != wait || !num.is_power_of_two() || num > 128 {
                    return Err(format!("instruction {} ({:?}), expected {want}", step.instruction, step.completion));
                }
                let nregs = tmem_regs(shape, num);
                for issue in &step.issues {
                    let (regs, lane, col) = match (&issue.src, &issue.dst, load) {
                        (Operand::Tmem { lane, col }, Operand::Regs(r), true) => (r, lane, col),
                        (Operand::Regs(r), Operand::Tmem { lane, col }, false) => (r, lane, col),
                        _ => return Err("tcgen05 operands".into()),
                    };
                    if regs.len() as i64 != nregs {
                        return Err(format!("{want} takes {nregs} registers, got {}", regs.len()));
                    }
                    for w in self.warps(step)? {
                        let lb = value(lane, 32 * w);
                        let cb = value(col, 32 * w);
                        if (0..32).any(|l| value(lane, 32 * w + l) != lb || value(col, 32 * w + l) != cb) {
                            return Err(format!("warp {w}: lanes disagree on taddr"));
                        }
                        let window = 32 * (w % 4);
                        for l in 0..32 {
                            for (j, &r) in regs.iter().enumerate() {
                                let (dl, dc) = tmem_cell(shape, l, j as i64);
                                let (tl, tc) = (lb + dl, cb + dc);
                                if tl < window || tl >= window + 32 || !(0..512).contains(&tc) {
                                    return Err(format!(
                                        "warp {w} reaches lane {tl} column {tc}, outside lanes {window}..{}",
                                        window + 32
                                    ));
                                }
                                let t = 32 * w + l;
                                if load {
                                    let x = *self
                                        .m
                                        .tmem
                                        .get(&(tl, tc))
                                        .ok_or_else(|| format!("reads empty cell ({tl}, {tc})"))?;
                                    self.write_reg(to, t, r, x);
                                } else {
                                    let x = self.read_reg(from, t, r)?;
                                    self.m.written.insert((tl, tc));
                                    self.m.tmem.insert((tl, tc), x);
                                }
                            }
                        }
                    }
                }
            }
            CopyKind::Shuffle => {
                if step.instruction != "shfl.sync.idx.b32" || es > 4 {
                    return Err(format!("shuffle {} of {es}-byte elements", step.instruction));
                }
                for issue in &step.issues {
                    let (Operand::Shfl { lane, reg }, Operand::Regs(d)) = (&issue.src, &issue.dst) else {
                        return Err("shfl operands".into());
                    };
                    let [rd] = d.as_slice() else { return Err("shfl writes one register".into()) };
                    let mut writes = Vec::new();
                    for w in self.warps(step)? {
                        let sent: Vec<Option<i64>> =
                            (0..32).map(|l| self.m.regs.get(&(from, 32 * w + l, *reg)).copied()).collect();
                        for l in 0..32 {
                            let t = 32 * w + l;
                            if !issue.only.as_ref().is_none_or(|o| member(o, t)) {
                                continue;
                            }
                            let b = value(lane, t);
                            let j = if (0..32).contains(&b) { b } else { l };
                            let x = sent[j as usize].ok_or_else(|| {
                                format!("thread {t} reads lane {j}'s register {reg}, which holds nothing")
                            })?;
                            writes.push((t, x));
                        }
                    }
                    for (t, x) in writes {
                        self.write_reg(to, t, *rd, x);
                    }
                }
            }
            CopyKind::Mov => {
                for issue in &step.issues {
                    let (Operand::Regs(s), Operand::Regs(d)) = (&issue.src, &issue.dst) else {
                        return Err("mov operands".into());
                    };
                    let ([rs], [rd]) = (s.as_slice(), d.as_slice()) else {
                        return Err("mov moves one register".into());
                    };
                    for t in self.issuers(step, issue) {
                        let x = self.read_reg(from, t, *rs)?;
                        self.write_reg(to, t, *rd, x);
                    }
                }
            }
        }
        Ok(())
    }
}

/// The busiest thread's instruction count over the plan's steps, counted from the thread sets.
fn busiest(plan: &CopyPlan) -> i64 {
    plan.steps
        .iter()
        .map(|s| {
            (0..plan.scope_threads)
                .filter(|&t| member(&s.threads, t))
                .map(|t| {
                    // shfl.sync: every lane executes it, `only` keeps the value.
                    let runs =
                        |i: &&CopyIssue| s.kind == CopyKind::Shuffle || i.only.as_ref().is_none_or(|o| member(o, t));
                    s.issues.iter().filter(runs).count() as i64
                })
                .max()
                .unwrap_or(0)
        })
        .sum()
}

/// Executes `plan` for `req` and checks every element of the destination; `Err` says what went wrong.
pub fn run(req: &CopyRequest<'_>, plan: &CopyPlan) -> Result<(), String> {
    let esize = req.dtype.bytes();
    let n = req.src.layout.size();
    let mut m = Machine::default();
    for k in 0..n {
        for (a, b) in places(req.src.layout, req.src.mem, k) {
            match req.src.mem {
                Memory::Global | Memory::Shared => m.mem.insert((Tensor::Src, b), 1000 + k),
                Memory::Reg => m.regs.insert((Tensor::Src, a, b), 1000 + k),
                Memory::Tmem => m.tmem.insert((a, b), 1000 + k),
                Memory::Hbm | Memory::Sbuf | Memory::Psum => {
                    panic!("the GPU copy model has no Trainium memories (the planner refuses them)")
                }
            };
        }
    }
    // What element k may read: the value at each of its source places. Without aliasing that is `1000 + k`
    // alone; a source whose layout gives two elements one place (a broadcast, `S[2:0]`) holds one of them there.
    let readable = |m: &Machine, k: i64| -> Vec<i64> {
        places(req.src.layout, req.src.mem, k)
            .into_iter()
            .filter_map(|(a, b)| match req.src.mem {
                Memory::Global | Memory::Shared => m.mem.get(&(Tensor::Src, b)).copied(),
                Memory::Reg => m.regs.get(&(Tensor::Src, a, b)).copied(),
                Memory::Tmem => m.tmem.get(&(a, b)).copied(),
                Memory::Hbm | Memory::Sbuf | Memory::Psum => {
                    panic!("the GPU copy model has no Trainium memories (the planner refuses them)")
                }
            })
            .collect()
    };
    let wanted: Vec<Vec<i64>> = (0..n).map(|k| readable(&m, k)).collect();
    let mut ex = Exec {
        m,
        shift: HashMap::new(),
        coords: HashMap::new(),
        esize,
        scope_threads: plan.scope_threads,
        step_index: 0,
    };
    let last = plan.steps.len().saturating_sub(1);
    if plan.steps.is_empty() || plan.steps.len() > 2 || (plan.steps.len() == 2) != plan.staging.is_some() {
        return Err(format!("{} steps, staging {:?}", plan.steps.len(), plan.staging.is_some()));
    }
    for (i, step) in plan.steps.iter().enumerate() {
        let from = if i == 0 { Tensor::Src } else { Tensor::Staging };
        let to = if i == last { Tensor::Dst } else { Tensor::Staging };
        if i < last && !matches!(step.completion, Completion::Barrier { .. }) {
            return Err("a staged store must end in a barrier before the load".into());
        }
        ex.step_index = i;
        ex.step(step, from, to)?;
    }
    // The staging buffer's bank conflicts as the plan states them: the most distinct words in one bank of one
    // phase of one warp's access, per step.
    if let Some(st) = &plan.staging {
        for (i, &stated) in st.conflict_ways.iter().enumerate() {
            let worst =
                ex.m.banks
                    .iter()
                    .filter(|(k, _)| k.0 == i)
                    .flat_map(|(_, b)| b.values().map(|w| w.len() as i64))
                    .max()
                    .unwrap_or(1);
            if worst != stated {
                return Err(format!("staging step {i}: {worst}-way bank conflicts, the plan says {stated}"));
            }
        }
    }
    // Every destination place holds its element, and nothing else of the destination was written.
    let mut expected: HashSet<(i64, i64)> = HashSet::new();
    for k in 0..n {
        for (a, b) in places(req.dst.layout, req.dst.mem, k) {
            expected.insert((a, b));
            let got = match req.dst.mem {
                Memory::Global | Memory::Shared => ex.m.mem.get(&(Tensor::Dst, b)).copied(),
                Memory::Reg => ex.m.regs.get(&(Tensor::Dst, a, b)).copied(),
                Memory::Tmem => {
                    if ex.m.written.contains(&(a, b)) {
                        ex.m.tmem.get(&(a, b)).copied()
                    } else {
                        None
                    }
                }
                Memory::Hbm | Memory::Sbuf | Memory::Psum => {
                    panic!("the GPU copy model has no Trainium memories (the planner refuses them)")
                }
            };
            if !got.is_some_and(|v| wanted[k as usize].contains(&v)) {
                return Err(format!(
                    "element {k}: destination place {:?} holds {got:?}, expected one of {:?}",
                    (a, b),
                    wanted[k as usize]
                ));
            }
        }
    }
    if let Some(stray) = ex.m.written.iter().find(|p| !expected.contains(p)) {
        return Err(format!("the plan writes {stray:?}, which is no place of the destination"));
    }
    let busy = busiest(plan);
    if busy != plan.instructions_per_thread {
        return Err(format!(
            "instructions_per_thread {} but the busiest thread issues {busy}",
            plan.instructions_per_thread
        ));
    }
    if plan.vector_bytes != plan.steps.iter().map(|s| s.vector_bytes).min().unwrap_or(0) {
        return Err("vector_bytes is not the steps' smallest".into());
    }
    Ok(())
}

/// A memory side of a moving copy as the model sees it (used by `copy_model.rs` alone): the root tensor the region is a slice of, and where the
/// region starts in it at this run (static part plus the run-time offsets' values).
#[allow(dead_code)]
pub struct Root<'a> {
    /// The root's layout.
    pub layout: &'a Layout,
    /// The root's shape.
    pub shape: &'a [i64],
    /// The region's first index in the root.
    pub begin: Vec<i64>,
}

/// The root index `begin + (the row-major index k of region)`, and whether it lies inside `shape`.
#[allow(dead_code)]
fn root_point(shape: &[i64], begin: &[i64], region: &[i64], k: i64) -> (i64, bool) {
    let mut rest = k;
    let mut local = vec![0; region.len()];
    for d in (0..region.len()).rev() {
        local[d] = rest % region[d];
        rest /= region[d];
    }
    let inside = (0..shape.len()).all(|d| begin[d] + local[d] < shape[d]);
    ((0..shape.len()).fold(0, |acc, d| acc * shape[d] + begin[d] + local[d]), inside)
}

/// Executes a plan of `plan_moving` (or `plan_runtime`) at one run: `values` are the run-time offsets (one per
/// move, in order), `src`/`dst` the roots of the sides that are slices (`None` for a side used as the request
/// gives it), and `coords` the sides addressed by region coordinates (`plan_runtime`: their root is
/// `S[(rows, w):(w, 1)]`, their `begin` the region's origin). Every root element of the source holds
/// `1000 + its root flat index`; element `k` of the copy must land, with the value of the source root's element
/// at `src.begin + k` (0 when that lies outside a coordinate-addressed source: zero fill), at every place the
/// destination root's layout gives `dst.begin + k` (none outside a coordinate-addressed destination: the store
/// is predicated off), and nothing else of the destination may be written. A term of `plan.dynamic` shifts its
/// side's addresses by `elements * (value / divisor)` elements after the swizzle (its documented meaning).
#[allow(dead_code)]
pub fn run_moving(
    req: &CopyRequest<'_>,
    plan: &CopyPlan,
    src: Option<&Root<'_>>,
    dst: Option<&Root<'_>>,
    values: &[i64],
    coords: &[(axe_layout::copy::CopySide, Coords)],
) -> Result<(), String> {
    let esize = req.dtype.bytes();
    let n = req.src.layout.size();
    let tensor_of = |side: axe_layout::copy::CopySide| match side {
        axe_layout::copy::CopySide::Src => Tensor::Src,
        axe_layout::copy::CopySide::Dst => Tensor::Dst,
    };
    let mut shift: HashMap<Tensor, i64> = HashMap::new();
    for term in &plan.dynamic {
        let v = *values.get(term.offset).ok_or_else(|| format!("no value for offset {}", term.offset))?;
        if term.divisor < 1 || v % term.divisor != 0 {
            return Err(format!(
                "offset {} = {v} is not a multiple of the term's divisor {}",
                term.offset, term.divisor
            ));
        }
        *shift.entry(tensor_of(term.side)).or_insert(0) += term.elements * (v / term.divisor);
    }
    let coords: HashMap<Tensor, Coords> = coords.iter().map(|(side, c)| (tensor_of(*side), c.clone())).collect();
    let mut m = Machine::default();
    // The source: the whole root (so a wrong address reads a wrong element, not nothing), or the request's side.
    let wanted: Vec<i64> = match src {
        Some(root) => {
            let size: i64 = root.shape.iter().product();
            for r in 0..size {
                for (_, b) in places(root.layout, req.src.mem, r) {
                    m.mem.insert((Tensor::Src, b), 1000 + r);
                }
            }
            (0..n)
                .map(|k| match root_point(root.shape, &root.begin, req.src.shape, k) {
                    (flat, true) => 1000 + flat,
                    (_, false) => 0,
                })
                .collect()
        }
        None => {
            for k in 0..n {
                for (a, b) in places(req.src.layout, req.src.mem, k) {
                    match req.src.mem {
                        Memory::Global | Memory::Shared => m.mem.insert((Tensor::Src, b), 1000 + k),
                        Memory::Reg => m.regs.insert((Tensor::Src, a, b), 1000 + k),
                        Memory::Tmem => m.tmem.insert((a, b), 1000 + k),
                        Memory::Hbm | Memory::Sbuf | Memory::Psum => {
                            panic!("the GPU copy model has no Trainium memories (the planner refuses them)")
                        }
                    };
                }
            }
            (0..n).map(|k| 1000 + k).collect()
        }
    };
    if plan.steps.len() != 1 {
        return Err(format!("a moving copy has one step, got {}", plan.steps.len()));
    }
    let mut ex = Exec { m, shift, coords, esize, scope_threads: plan.scope_threads, step_index: 0 };
    ex.step(&plan.steps[0], Tensor::Src, Tensor::Dst)?;
    let mut expected: HashSet<(i64, i64)> = HashSet::new();
    for k in 0..n {
        let dst_places = match dst {
            Some(root) => match root_point(root.shape, &root.begin, req.dst.shape, k) {
                (flat, true) => places(root.layout, req.dst.mem, flat),
                (_, false) => Vec::new(),
            },
            None => places(req.dst.layout, req.dst.mem, k),
        };
        for (a, b) in dst_places {
            expected.insert((a, b));
            let got = match req.dst.mem {
                Memory::Global | Memory::Shared => ex.m.mem.get(&(Tensor::Dst, b)).copied(),
                Memory::Reg => ex.m.regs.get(&(Tensor::Dst, a, b)).copied(),
                Memory::Tmem => return Err("the model moves no tensor memory".into()),
                Memory::Hbm | Memory::Sbuf | Memory::Psum => {
                    return Err("the GPU copy model has no Trainium memories".into())
                }
            };
            if got != Some(wanted[k as usize]) {
                return Err(format!(
                    "element {k}: destination place {:?} holds {got:?}, expected {}",
                    (a, b),
                    wanted[k as usize]
                ));
            }
        }
    }
    if let Some(stray) = ex.m.written.iter().find(|p| !expected.contains(p)) {
        return Err(format!("the plan writes {stray:?}, which is no place of the destination region"));
    }
    Ok(())
}
