//! Register-to-register copies (a layout conversion): `mov` when every element keeps its thread, `shfl.sync` when
//! every element stays in its warp, else a shared staging buffer (see [`super::staging`]).
//!
//! Each destination `(thread, register)` takes its element from the source holder in its own thread (`mov`) or
//! warp (`shfl`) with the smallest `(register, thread)`. Instructions are grouped by `(source register,
//! destination register)`: one `mov` or one `shfl.sync.idx.b32` each, the source lane a formula of the reading
//! thread; the threads that keep a value are the issue's `only` when not all of them.

use super::table::err;
use super::vector::{fit_or_err, Threads, MAX_ISSUES};
use super::{Completion, CopyError, CopyIssue, CopyKind, CopyRule, CopyStep, Operand, ThreadCond};
use std::collections::{BTreeMap, BTreeSet};

/// `(source register, destination register) -> [(reading thread, source thread)]`, or `None` when some element
/// has no source holder in the same thread (`same_warp` false) or warp (`same_warp` true).
#[allow(clippy::type_complexity)]
fn moves(
    src: &[Vec<(i64, i64)>],
    dst: &[Vec<(i64, i64)>],
    same_warp: bool,
) -> Option<BTreeMap<(i64, i64), Vec<(i64, i64)>>> {
    let mut out: BTreeMap<(i64, i64), Vec<(i64, i64)>> = BTreeMap::new();
    for (s, d) in src.iter().zip(dst) {
        for &(t, rd) in d {
            let near = |u: i64| if same_warp { u / 32 == t / 32 } else { u == t };
            let &(u, rs) = s.iter().filter(|(u, _)| near(*u)).min_by_key(|(u, r)| (*r, *u))?;
            out.entry((rs, rd)).or_default().push((t, u));
        }
    }
    for v in out.values_mut() {
        v.sort_unstable();
    }
    Some(out)
}

/// The `mov` step when every element keeps its thread, else `None`.
pub(crate) fn mov_step(
    src: &[Vec<(i64, i64)>],
    dst: &[Vec<(i64, i64)>],
    esize: i64,
    ctx: &Threads<'_>,
) -> Result<Option<CopyStep>, CopyError> {
    let Some(moves) = moves(src, dst, false) else { return Ok(None) };
    if moves.len() > MAX_ISSUES {
        return Err(err(CopyRule::Limit, format!("{} register moves exceed {MAX_ISSUES}", moves.len())));
    }
    let all: BTreeSet<i64> = moves.values().flat_map(|v| v.iter().map(|(t, _)| *t)).collect();
    let threads = ctx.set(&all, "move registers")?;
    let mut issues = Vec::with_capacity(moves.len());
    for ((rs, rd), who) in moves {
        let ts: BTreeSet<i64> = who.iter().map(|(t, _)| *t).collect();
        let only = if ts == all { None } else { Some(ctx.set(&ts, "move registers")?) };
        issues.push(CopyIssue { src: Operand::Regs(vec![rs]), dst: Operand::Regs(vec![rd]), only });
    }
    Ok(Some(CopyStep {
        kind: CopyKind::Mov,
        instruction: format!("mov.b{}", 8 * esize),
        vector_bytes: esize,
        threads,
        issues,
        src_swizzle: None,
        dst_swizzle: None,
        completion: Completion::None,
    }))
}

/// The shuffle step when every element stays in its warp (and elements are at most 32 bits), else `None`
/// (also when a source lane is no formula of the reading thread: the staging buffer serves those).
pub(crate) fn shuffle_step(
    src: &[Vec<(i64, i64)>],
    dst: &[Vec<(i64, i64)>],
    esize: i64,
    subset: Option<&ThreadCond>,
    ctx: &Threads<'_>,
) -> Result<Option<CopyStep>, CopyError> {
    if esize > 4 {
        return Ok(None);
    }
    let Some(moves) = moves(src, dst, true) else { return Ok(None) };
    if moves.len() > MAX_ISSUES {
        return Ok(None);
    }
    let warps: BTreeSet<i64> = moves.values().flat_map(|v| v.iter().map(|(t, _)| t / 32)).collect();
    let all: BTreeSet<i64> = warps.iter().flat_map(|w| 32 * w..32 * w + 32).collect();
    // shfl.sync needs every lane of the warp, and only the subset runs the copy.
    if subset.is_some_and(|c| all.iter().any(|&t| !c.holds(t))) {
        return Ok(None);
    }
    let Ok(threads) = ctx.set(&all, "shuffle") else { return Ok(None) };
    let mut issues = Vec::with_capacity(moves.len());
    for ((rs, rd), who) in moves {
        let ts: Vec<i64> = who.iter().map(|(t, _)| *t).collect();
        let lanes: Vec<i64> = who.iter().map(|(_, u)| u % 32).collect();
        let set: BTreeSet<i64> = ts.iter().copied().collect();
        let only = if set == all {
            None
        } else {
            match ctx.set(&set, "keep a shuffled value") {
                Ok(s) => Some(s),
                Err(_) => return Ok(None),
            }
        };
        let Ok(lane) = fit_or_err(&ctx.fitter(&ts), &lanes, "a shuffle's source lane") else { return Ok(None) };
        issues.push(CopyIssue { src: Operand::Shfl { lane, reg: rs }, dst: Operand::Regs(vec![rd]), only });
    }
    Ok(Some(CopyStep {
        kind: CopyKind::Shuffle,
        instruction: "shfl.sync.idx.b32".into(),
        vector_bytes: esize,
        threads,
        issues,
        src_swizzle: None,
        dst_swizzle: None,
        completion: Completion::None,
    }))
}
