//! Per-thread vector copies: `ld`/`st` between memory and registers, and `cp.async` from global to shared.
//!
//! A width of `V` elements is legal when the elements split into instructions of `V` elements each, every one
//! moving registers `r0 .. r0+V` of one thread (consecutive on the register axis) from or to addresses
//! `a0 .. a0+V` with `a0` a multiple of `V` (contiguous and aligned, after the swizzle): for `cp.async`, `V`
//! contiguous aligned addresses on both sides. The widest legal width of at most 16 bytes wins
//! ([`widest_reg_mem`], [`widest_mem_mem`]); one element is always legal for `ld`/`st`.

use super::fit::{fit_set, systems, Digit, Fitter};
use super::table::err;
use super::{Completion, CopyError, CopyIssue, CopyKind, CopyRule, CopyStep, Operand, PerThread, Space, ThreadSet};
use crate::swizzle::Swizzle;
use std::collections::{BTreeMap, BTreeSet};

/// The most instructions one plan may have.
pub const MAX_ISSUES: usize = 1 << 16;

/// One element as one thread moves it between a register and memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Entry {
    /// The thread.
    pub t: i64,
    /// The register.
    pub reg: i64,
    /// Its address before the swizzle.
    pub pre: i64,
    /// After the swizzle.
    pub addr: i64,
}

/// Widths in elements whose bytes are 16, 8, 4, 2 or 1, widest first.
pub(crate) fn widths(esize: i64) -> Vec<i64> {
    [16, 8, 4, 2, 1].into_iter().filter(|b| *b >= esize && b % esize == 0).map(|b| b / esize).collect()
}

/// The instructions of width `v`, keyed by `(thread, first register)` with the address of the first element
/// (before the swizzle), or `None` when `v` is not legal.
pub(crate) fn chunks(entries: &[Entry], v: i64) -> Option<BTreeMap<(i64, i64), i64>> {
    // (thread, first register, first address, offset, pre), sorted: each instruction's elements are adjacent.
    let mut keyed: Vec<(i64, i64, i64, i64, i64)> = entries
        .iter()
        .map(|e| {
            let off = e.addr.rem_euclid(v);
            (e.t, e.reg - off, e.addr - off, off, e.pre)
        })
        .collect();
    keyed.sort_unstable();
    let mut out = BTreeMap::new();
    for g in keyed.chunks(v as usize) {
        let (t, r0, a0) = (g[0].0, g[0].1, g[0].2);
        let whole =
            g.len() as i64 == v && g.iter().enumerate().all(|(i, x)| (x.0, x.1, x.2, x.3) == (t, r0, a0, i as i64));
        if !whole || out.insert((t, r0), g[0].4).is_some() {
            return None;
        }
    }
    Some(out)
}

/// The widest legal width of a register-memory copy (1 if nothing wider is).
pub(crate) fn widest_reg_mem(entries: &[Entry], esize: i64) -> (i64, BTreeMap<(i64, i64), i64>) {
    for v in widths(esize) {
        if let Some(c) = chunks(entries, v) {
            return (v, c);
        }
    }
    (1, BTreeMap::new())
}

/// The PTX type of a `bytes`-wide access: `.b8`, `.b16`, `.b32`, `.v2.b32`, `.v4.b32`.
pub(crate) fn vector_suffix(bytes: i64) -> &'static str {
    match bytes {
        1 => "b8",
        2 => "b16",
        4 => "b32",
        8 => "v2.b32",
        _ => "v4.b32",
    }
}

/// Where fitting needs the context: the scope's size, whether it is known, and digit systems.
pub(crate) struct Threads<'a> {
    /// Thread indices are checked over `0..limit`.
    pub limit: i64,
    /// `limit` is the scope's real size.
    pub known: bool,
    /// Extra digit systems (from a register layout's thread iters).
    pub digits: &'a [Vec<Digit>],
}

impl Threads<'_> {
    pub(crate) fn set(&self, threads: &BTreeSet<i64>, what: &str) -> Result<ThreadSet, CopyError> {
        fit_set(threads, self.limit, self.known, &systems(self.digits)).ok_or_else(|| {
            err(
                CopyRule::ThreadMap,
                format!(
                    "the threads that {what} ({} of them, {}..={}) are no set of digit ranges of the thread index",
                    threads.len(),
                    threads.first().unwrap_or(&0),
                    threads.last().unwrap_or(&0)
                ),
            )
        })
    }

    pub(crate) fn fitter(&self, threads: &[i64]) -> Fitter {
        Fitter::new(threads, &systems(self.digits))
    }
}

pub(crate) fn fit_or_err(f: &Fitter, values: &[i64], what: &str) -> Result<PerThread, CopyError> {
    f.fit(values).ok_or_else(|| {
        let shown: Vec<String> =
            f.threads().iter().zip(values).take(8).map(|(t, v)| format!("thread {t}: {v}")).collect();
        err(
            CopyRule::ThreadMap,
            format!("{what} is not a sum of digit terms of the thread index ({}, ...)", shown.join(", ")),
        )
    })
}

/// Groups per-thread instructions `(thread, key) -> value` into issues by `key` (the same registers in every
/// thread), with the formulas of the values; returns the step's threads and `(key, only, formula)` per issue.
#[allow(clippy::type_complexity)]
pub(crate) fn issues_by_key(
    per_thread: &BTreeMap<(i64, i64), Vec<i64>>,
    ctx: &Threads<'_>,
    what: &str,
) -> Result<(ThreadSet, BTreeSet<i64>, Vec<(i64, Option<ThreadSet>, Vec<PerThread>)>), CopyError> {
    let mut by_key: BTreeMap<i64, Vec<(i64, &Vec<i64>)>> = BTreeMap::new();
    for ((t, key), vals) in per_thread {
        by_key.entry(*key).or_default().push((*t, vals));
    }
    if by_key.len() > MAX_ISSUES {
        return Err(err(CopyRule::Limit, format!("{} instructions per thread exceed {MAX_ISSUES}", by_key.len())));
    }
    let all: BTreeSet<i64> = per_thread.keys().map(|(t, _)| *t).collect();
    let set = ctx.set(&all, what)?;
    let mut fitters: BTreeMap<Vec<i64>, Fitter> = BTreeMap::new();
    let mut out = Vec::with_capacity(by_key.len());
    for (key, items) in by_key {
        let threads: Vec<i64> = items.iter().map(|(t, _)| *t).collect();
        let only =
            if threads.len() == all.len() { None } else { Some(ctx.set(&threads.iter().copied().collect(), what)?) };
        let f = fitters.entry(threads.clone()).or_insert_with(|| ctx.fitter(&threads));
        let n = items.first().map_or(0, |(_, v)| v.len());
        let mut formulas = Vec::with_capacity(n);
        for i in 0..n {
            let values: Vec<i64> = items.iter().map(|(_, v)| v.get(i).copied().unwrap_or(0)).collect();
            formulas.push(fit_or_err(f, &values, &format!("the address of the instruction at register {key}"))?);
        }
        out.push((key, only, formulas));
    }
    Ok((set, all, out))
}

/// Per-thread `ld` (`load`) or `st` of the widest legal vector between registers and `space`.
pub(crate) fn reg_mem_step(
    entries: &[Entry],
    esize: i64,
    space: Space,
    load: bool,
    swizzle: Option<Swizzle>,
    ctx: &Threads<'_>,
) -> Result<CopyStep, CopyError> {
    let (v, chunks) = widest_reg_mem(entries, esize);
    let per_thread: BTreeMap<(i64, i64), Vec<i64>> = chunks.iter().map(|(&k, &pre)| (k, vec![pre])).collect();
    let what = if load { "load" } else { "store" };
    let (threads, _, issues) = issues_by_key(&per_thread, ctx, what)?;
    let bytes = v * esize;
    let issues = issues
        .into_iter()
        .map(|(r0, only, mut f)| {
            let regs = Operand::Regs((r0..r0 + v).collect());
            let mem = Operand::Mem(f.pop().unwrap_or_default());
            let (src, dst) = if load { (mem, regs) } else { (regs, mem) };
            CopyIssue { src, dst, only }
        })
        .collect();
    let (kind, op) = if load { (CopyKind::Load(space), "ld") } else { (CopyKind::Store(space), "st") };
    Ok(CopyStep {
        kind,
        instruction: format!("{op}.{}.{}", space.name(), vector_suffix(bytes)),
        vector_bytes: bytes,
        threads,
        issues,
        src_swizzle: if load { swizzle } else { None },
        dst_swizzle: if load { None } else { swizzle },
        completion: Completion::None,
    })
}

/// One element of a memory-to-memory copy: `(src pre, src post, dst pre, dst post)`.
pub(crate) type Pair = (i64, i64, i64, i64);

/// One element of a chunk: `(offset in the chunk, src pre, dst pre)`.
type Part = (i64, i64, i64);

/// The chunks of width `v` of a memory-to-memory copy, sorted by the destination address before the swizzle: per
/// chunk `(dst pre, src pre, dst pre)` of its first element, or `None` when `v` is not legal.
pub(crate) fn mem_chunks(pairs: &[Pair], v: i64) -> Option<Vec<(i64, i64, i64)>> {
    let mut groups: BTreeMap<(i64, i64), Vec<Part>> = BTreeMap::new();
    for &(sp, sa, dp, da) in pairs {
        let off = da.rem_euclid(v);
        if sa.rem_euclid(v) != off {
            return None;
        }
        groups.entry((da - off, sa - off)).or_default().push((off, sp, dp));
    }
    let mut out = Vec::with_capacity(groups.len());
    let mut seen = BTreeSet::new();
    for ((d0, _), mut g) in groups {
        g.sort_unstable();
        if g.len() as i64 != v || g.iter().enumerate().any(|(i, x)| x.0 != i as i64) || !seen.insert(d0) {
            return None;
        }
        out.push((g[0].2, g[0].1, g[0].2));
    }
    // In the order of the destination's addresses before its swizzle: the logical order of a swizzled buffer.
    out.sort_unstable();
    Some(out)
}

/// `cp.async` of 16, 8 or 4 bytes from global to shared, chunks spread over `runners` round-robin.
pub(crate) fn cp_async_step(
    pairs: &[Pair],
    esize: i64,
    swizzles: (Option<Swizzle>, Option<Swizzle>),
    runners: &[i64],
    ctx: &Threads<'_>,
) -> Result<CopyStep, CopyError> {
    let mut found = None;
    for v in widths(esize).into_iter().filter(|v| matches!(v * esize, 4 | 8 | 16)) {
        if let Some(c) = mem_chunks(pairs, v) {
            found = Some((v, c));
            break;
        }
    }
    let Some((v, chunks)) = found else {
        let widest = widths(esize).into_iter().find(|&v| mem_chunks(pairs, v).is_some()).unwrap_or(1);
        return Err(err(
            CopyRule::Vector,
            format!(
                "cp.async moves 4, 8 or 16 bytes per thread, but the widest run that is contiguous and aligned in \
                 both global and shared memory is {} bytes",
                widest * esize
            ),
        ));
    };
    let r = runners.len().max(1);
    let rounds = chunks.len().div_ceil(r);
    if rounds > MAX_ISSUES {
        return Err(err(CopyRule::Limit, format!("{rounds} cp.async per thread exceed {MAX_ISSUES}")));
    }
    let all: BTreeSet<i64> = runners.iter().copied().collect();
    let threads = ctx.set(&all, "run the copy")?;
    let mut issues = Vec::with_capacity(rounds);
    let mut fitters: BTreeMap<usize, Fitter> = BTreeMap::new();
    for (round, part) in chunks.chunks(r).enumerate() {
        let ts = &runners[..part.len()];
        let f = fitters.entry(part.len()).or_insert_with(|| ctx.fitter(ts));
        let src: Vec<i64> = part.iter().map(|c| c.1).collect();
        let dst: Vec<i64> = part.iter().map(|c| c.2).collect();
        let what = |side: &str| format!("the {side} address of cp.async round {round}");
        let only = if part.len() == r { None } else { Some(ctx.set(&ts.iter().copied().collect(), "copy")?) };
        issues.push(CopyIssue {
            src: Operand::Mem(fit_or_err(f, &src, &what("global"))?),
            dst: Operand::Mem(fit_or_err(f, &dst, &what("shared"))?),
            only,
        });
    }
    let bytes = v * esize;
    let cache = if bytes == 16 { "cg" } else { "ca" };
    Ok(CopyStep {
        kind: CopyKind::CpAsync { bytes: bytes as u8 },
        instruction: format!("cp.async.{cache}.shared.global"),
        vector_bytes: bytes,
        threads,
        issues,
        src_swizzle: swizzles.0,
        dst_swizzle: swizzles.1,
        completion: Completion::CpAsyncWaitAll,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(f: impl Fn(i64, i64) -> i64, threads: i64, regs: i64) -> Vec<Entry> {
        (0..threads)
            .flat_map(|t| (0..regs).map(move |r| (t, r)))
            .map(|(t, r)| Entry { t, reg: r, pre: f(t, r), addr: f(t, r) })
            .collect()
    }

    #[test]
    fn widest_vector_follows_contiguity_and_alignment() {
        // Each thread holds 8 consecutive f16 of a row: 16 bytes.
        assert_eq!(widest_reg_mem(&entries(|t, r| 8 * t + r, 32, 8), 2).0, 8);
        // Shifted by 2 elements: 4-byte aligned runs only.
        assert_eq!(widest_reg_mem(&entries(|t, r| 8 * t + r + 2, 32, 8), 2).0, 2);
        // Registers reversed against addresses: scalar.
        assert_eq!(widest_reg_mem(&entries(|t, r| 8 * t + 7 - r, 32, 8), 2).0, 1);
    }
}
