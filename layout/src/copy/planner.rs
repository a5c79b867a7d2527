//! The copy planner: evaluate both sides, check the threads against the scope and subset, then dispatch on the
//! pair of memories (see the parent module's documentation).

use super::fit::Digit;
use super::matrix::matrix_step;
use super::regs::{mov_step, shuffle_step};
use super::staging::staged;
use super::table::{check_injective, err, evaluate_both, subset_cond, Table, MAX_CTA_THREADS};
use super::tmem::tmem_step;
use super::vector::{cp_async_step, reg_mem_step, Entry, Pair, Threads};
use super::{Chip, CopyError, CopyKind, CopyPlan, CopyRequest, CopyRule, CopyStep, Memory, Space, Staging, ThreadCond};
use crate::axis::{AxisKind, ExecScope};
use crate::layout::Layout;

/// Plans one `axe.copy` (see the module documentation). Errors name the rule and the numbers, e.g.
/// `copy: vector rule: cp.async moves 4, 8 or 16 bytes per thread, ...`.
pub fn plan(req: &CopyRequest<'_>) -> Result<CopyPlan, CopyError> {
    let (src_regs, dst_regs) = register_layouts(req)?;
    let mut named = *req;
    if let Some(l) = &src_regs {
        named.src.layout = l;
    }
    if let Some(l) = &dst_regs {
        named.dst.layout = l;
    }
    let req = &named;
    let esize = req.dtype.bytes();
    check_route(req, esize)?;
    let (src, dst) = evaluate_both(req)?;
    check_injective(&dst, "destination")?;
    if matches!(src, Table::Reg { .. }) {
        check_injective(&src, "source")?;
    }
    let known = known_threads(req)?;
    let limit = known.unwrap_or(MAX_CTA_THREADS);
    let subset = req.threads.as_ref().map(|s| subset_cond(s, req.scope)).transpose()?;
    for (table, what) in [(&src, "source"), (&dst, "destination")] {
        if let Table::Reg { holders } = table {
            check_threads(holders, limit, subset.as_ref(), what)?;
        }
    }
    let digits = layout_digits(req);
    let ctx = Threads { limit, known: known.is_some(), digits: &digits };
    let routed = route(req, &src, &dst, subset, &ctx)?;
    Ok(finish(routed.steps, routed.staging, esize, limit, routed.src_align, routed.dst_align))
}

/// The steps of one route, with the staging buffer and the base alignments they assume.
struct Routed {
    steps: Vec<CopyStep>,
    staging: Option<Staging>,
    src_align: Option<i64>,
    dst_align: Option<i64>,
}

impl Routed {
    /// One step that assumes the given alignments.
    fn one(step: CopyStep, src_align: Option<i64>, dst_align: Option<i64>) -> Routed {
        Routed { steps: vec![step], staging: None, src_align, dst_align }
    }
}

/// The register layouts with their register axis named `m` however it is spelled (`reg` is `m`,
/// crate::threads), for the sides in registers.
fn register_layouts(req: &CopyRequest<'_>) -> Result<(Option<Layout>, Option<Layout>), CopyError> {
    let register_axis = |side: &super::Side<'_>, what: &str| match side.mem {
        Memory::Reg => crate::threads::register_axis(side.layout)
            .map(Some)
            .map_err(|e| err(CopyRule::Input, format!("{what}: {}", e.message))),
        _ => Ok(None),
    };
    Ok((register_axis(&req.src, "source")?, register_axis(&req.dst, "destination")?))
}

/// The scope's thread count when known (fixed by the scope, or the CTA's given count), refusing a CTA count out of
/// range and a scope no copy runs at.
fn known_threads(req: &CopyRequest<'_>) -> Result<Option<i64>, CopyError> {
    let scope = req.scope;
    let known = match (scope.fixed_threads(), req.cta_threads) {
        (Some(n), _) => Some(n),
        (None, Some(n)) if scope == ExecScope::Cta => {
            if !(1..=MAX_CTA_THREADS).contains(&n) {
                return Err(err(CopyRule::Scope, format!("a CTA has 1 to {MAX_CTA_THREADS} threads, got {n}")));
            }
            Some(n)
        }
        _ => None,
    };
    if !matches!(scope, ExecScope::Thread | ExecScope::Warp | ExecScope::Warpgroup | ExecScope::Cta) {
        return Err(err(CopyRule::Scope, format!("copies run at thread, warp, warpgroup or cta scope, got {scope}")));
    }
    Ok(known)
}

/// Dispatches on the pair of memories: one instruction family per pair (registers to registers possibly two
/// steps through shared memory).
fn route(
    req: &CopyRequest<'_>,
    src: &Table,
    dst: &Table,
    subset: Option<ThreadCond>,
    ctx: &Threads<'_>,
) -> Result<Routed, CopyError> {
    let esize = req.dtype.bytes();
    Ok(match (src, dst) {
        (Table::Mem { pre, post, swizzle }, Table::Reg { holders }) => {
            let entries = reg_entries(holders, pre, post, true);
            let step = match (req.src.mem, matrix_step(req.dst.layout, req.dst.shape, src, true, esize, ctx)) {
                (Memory::Shared, Some(s)) => s,
                _ => reg_mem_step(&entries, esize, space(req.src.mem), true, *swizzle, ctx)?,
            };
            let align = Some(align_of(&step));
            Routed::one(step, align, None)
        }
        (Table::Reg { holders }, Table::Mem { pre, post, swizzle }) => {
            let stmatrix = req.dst.mem == Memory::Shared && req.chip != Chip::Sm80;
            let matrix =
                if stmatrix { matrix_step(req.src.layout, req.src.shape, dst, false, esize, ctx) } else { None };
            let step = match matrix {
                Some(s) => s,
                None => {
                    let entries = reg_entries(holders, pre, post, false);
                    reg_mem_step(&entries, esize, space(req.dst.mem), false, *swizzle, ctx)?
                }
            };
            let align = Some(align_of(&step));
            Routed::one(step, None, align)
        }
        (Table::Mem { pre: gp, post: ga, swizzle: gs }, Table::Mem { pre: sp, post: sa, swizzle: ss }) => {
            let pairs: Vec<Pair> = (0..gp.len()).map(|k| (gp[k], ga[k], sp[k], sa[k])).collect();
            let runners: Vec<i64> = (0..ctx.limit).filter(|&t| subset.is_none_or(|c| c.holds(t))).collect();
            if !ctx.known && subset.is_none() {
                return Err(err(
                    CopyRule::Scope,
                    "a CTA-scope cp.async spreads its work over the CTA's threads: give the CTA's thread count or a \
                     thread subset",
                ));
            }
            let step = cp_async_step(&pairs, esize, (*gs, *ss), &runners, ctx)?;
            let align = Some(step.vector_bytes);
            Routed::one(step, align, align)
        }
        (Table::Tmem { .. }, Table::Reg { holders }) => Routed::one(tmem_step(src, holders, true, ctx)?, None, None),
        (Table::Reg { holders }, Table::Tmem { .. }) => {
            let first: Vec<Vec<(i64, i64)>> = holders.iter().map(|h| h.iter().take(1).copied().collect()).collect();
            Routed::one(tmem_step(dst, &first, false, ctx)?, None, None)
        }
        (Table::Reg { holders: s }, Table::Reg { holders: d }) => register_copy(req, s, d, subset, ctx)?,
        _ => return Err(route_error(req)),
    })
}

/// Registers to registers: `mov` within a thread, else `shfl` within a warp, else through a shared staging buffer
/// (a store and a load), which needs whole warps and fits the CTA's shared memory.
fn register_copy(
    req: &CopyRequest<'_>,
    s: &[Vec<(i64, i64)>],
    d: &[Vec<(i64, i64)>],
    subset: Option<ThreadCond>,
    ctx: &Threads<'_>,
) -> Result<Routed, CopyError> {
    let esize = req.dtype.bytes();
    if let Some(step) = mov_step(s, d, esize, ctx)? {
        return Ok(Routed::one(step, None, None));
    }
    if let Some(step) = shuffle_step(s, d, esize, subset.as_ref(), ctx)? {
        return Ok(Routed::one(step, None, None));
    }
    if let Some(c) = subset.filter(|c| c.div == 1 && c.modulus.is_some()) {
        return Err(err(
            CopyRule::Scope,
            format!(
                "a register copy through shared memory needs whole warps, but the subset selects lanes {}..{}",
                c.begin, c.end
            ),
        ));
    }
    let bytes = req.src.layout.size() * esize;
    let capacity = if req.chip == Chip::Sm80 { 163 * 1024 } else { 227 * 1024 };
    if bytes > capacity {
        return Err(err(
            CopyRule::Limit,
            format!(
                "this register copy moves elements between warps through shared memory, but its {bytes} bytes exceed \
                 the {capacity} bytes of shared memory a CTA has on {}",
                req.chip.name()
            ),
        ));
    }
    let barrier = subset.map(|c| (c.end - c.begin) * c.div);
    let (st, store, load) =
        staged(req.src.shape, req.src.layout, req.dst.layout, s, d, esize, req.scope, barrier, ctx)?;
    Ok(Routed { steps: vec![store, load], staging: Some(st), src_align: None, dst_align: None })
}

fn space(mem: Memory) -> Space {
    if mem == Memory::Global {
        Space::Global
    } else {
        Space::Shared
    }
}

/// The base alignment a step's memory accesses assume: its vector (16 for the 16-byte matrix rows).
fn align_of(step: &CopyStep) -> i64 {
    match step.kind {
        CopyKind::Ldmatrix { .. } | CopyKind::Stmatrix { .. } => 16,
        _ => step.vector_bytes,
    }
}

fn route_error(req: &CopyRequest<'_>) -> CopyError {
    err(
        CopyRule::Route,
        format!(
            "no instruction copies {} to {} (planned: global/shared <-> registers, global -> shared, tensor memory \
             <-> registers, registers -> registers)",
            req.src.mem, req.dst.mem
        ),
    )
}

/// The memories, chip, dtype and scope an instruction family needs, before any evaluation.
fn check_route(req: &CopyRequest<'_>, esize: i64) -> Result<(), CopyError> {
    use Memory::*;
    match (req.src.mem, req.dst.mem) {
        (Global | Shared, Reg) | (Reg, Global | Shared) | (Global, Shared) | (Reg, Reg) => Ok(()),
        (Tmem, Reg) | (Reg, Tmem) => {
            if req.chip != Chip::Sm100a {
                return Err(err(
                    CopyRule::Chip,
                    format!("tcgen05.ld/st (tensor memory) needs sm_100a, got {}", req.chip.name()),
                ));
            }
            if esize != 4 {
                return Err(err(
                    CopyRule::Dtype,
                    format!("tcgen05.ld/st moves 32-bit cells; {} is {esize} bytes", req.dtype.name()),
                ));
            }
            if !matches!(req.scope, ExecScope::Warpgroup | ExecScope::Cta) {
                return Err(err(
                    CopyRule::Scope,
                    format!(
                        "a warp reaches the tensor-memory lanes 32*(warp%4)..+32 of its own warp index, which a {} \
                         scope does not know: copy at warpgroup or cta scope",
                        req.scope
                    ),
                ));
            }
            Ok(())
        }
        _ => Err(route_error(req)),
    }
}

/// Every holding thread is inside the scope's threads and the subset.
fn check_threads(
    holders: &[Vec<(i64, i64)>],
    limit: i64,
    subset: Option<&ThreadCond>,
    what: &str,
) -> Result<(), CopyError> {
    for (k, hs) in holders.iter().enumerate() {
        for &(t, _) in hs {
            if t >= limit {
                return Err(err(
                    CopyRule::Scope,
                    format!("{what}: element {k} is held by thread {t}, but the scope has {limit} threads"),
                ));
            }
            if let Some(c) = subset.filter(|c| !c.holds(t)) {
                return Err(err(
                    CopyRule::Scope,
                    format!(
                        "{what}: element {k} is held by thread {t}, outside the thread subset (units {}..{} of {} \
                         threads each)",
                        c.begin, c.end, c.div
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Digit systems from the register layouts' thread iters: `(threads per step, extent)` sorted by step.
fn layout_digits(req: &CopyRequest<'_>) -> Vec<Vec<Digit>> {
    let mut out = Vec::new();
    for side in [&req.src, &req.dst] {
        if side.mem != Memory::Reg {
            continue;
        }
        let tile = side.layout.tile();
        let mut d: Vec<Digit> = tile
            .shard()
            .iter()
            .chain(tile.replica())
            .filter(|i| i.extent > 1 && i.stride > 0)
            .filter_map(|i| match i.axis.kind() {
                AxisKind::Thread { unit, .. } => {
                    let per = match unit {
                        ExecScope::Thread => 1,
                        ExecScope::Warp => 32,
                        ExecScope::Warpgroup => 128,
                        _ => return None,
                    };
                    Some((i.stride * per, Some(i.extent)))
                }
                _ => None,
            })
            .collect();
        d.sort_unstable();
        out.push(d);
    }
    out
}

/// Register-memory entries: every holder (`all`, a load) or the first holder of each element (a store).
fn reg_entries(holders: &[Vec<(i64, i64)>], pre: &[i64], post: &[i64], all: bool) -> Vec<Entry> {
    let mut out = Vec::new();
    for (k, hs) in holders.iter().enumerate() {
        let take = if all { hs.len() } else { hs.len().min(1) };
        for &(t, reg) in &hs[..take] {
            out.push(Entry { t, reg, pre: pre[k], addr: post[k] });
        }
    }
    out
}

/// The instructions the busiest thread of a step executes.
pub fn per_thread(step: &CopyStep, limit: i64) -> i64 {
    // Every lane executes every shuffle (`only` says who keeps the value).
    if step.kind == CopyKind::Shuffle || step.issues.iter().all(|i| i.only.is_none()) {
        return step.issues.len() as i64;
    }
    (0..limit)
        .filter(|&t| step.threads.contains(t))
        .map(|t| step.issues.iter().filter(|i| i.only.as_ref().is_none_or(|s| s.contains(t))).count() as i64)
        .max()
        .unwrap_or(0)
}

fn finish(
    steps: Vec<CopyStep>,
    staging: Option<Staging>,
    esize: i64,
    limit: i64,
    src_base_alignment_bytes: Option<i64>,
    dst_base_alignment_bytes: Option<i64>,
) -> CopyPlan {
    let instruction = steps.iter().map(|s| s.instruction.as_str()).collect::<Vec<_>>().join(" + ");
    let vector_bytes = steps.iter().map(|s| s.vector_bytes).min().unwrap_or(esize);
    let instructions_per_thread = steps.iter().map(|s| per_thread(s, limit)).sum();
    let scalar = steps.iter().all(|s| {
        matches!(
            s.kind,
            CopyKind::Load(_) | CopyKind::Store(_) | CopyKind::Mov | CopyKind::Shuffle | CopyKind::CpAsync { .. }
        ) && s.vector_bytes == esize
    });
    CopyPlan {
        instruction,
        vector_bytes,
        instructions_per_thread,
        scalar,
        scope_threads: limit,
        src_base_alignment_bytes,
        dst_base_alignment_bytes,
        steps,
        staging,
        dynamic: Vec::new(),
        coords: Vec::new(),
    }
}
