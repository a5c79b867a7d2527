//! Both sides of a copy evaluated element by element: where each flat index lives (memory addresses before and
//! after the swizzle, the threads and registers holding it, its tensor-memory cell), with the scope's thread
//! numbering applied (see the parent module, "Threads").

use super::{CopyError, CopyRequest, CopyRule, Memory, Side, ThreadCond, ThreadSubset};
use crate::axis::{Axis, AxisKind, ExecScope};
use crate::eval::Evaluator;
use crate::swizzle::Swizzle;

/// The most elements one copy may have (every plan is built and checked element by element).
pub const MAX_ELEMENTS: i64 = 1 << 18;

/// The most `(thread, register)` holders of one register side, all elements together (a replica over many
/// threads multiplies them).
pub const MAX_HOLDERS: usize = 1 << 20;

/// The most threads a CTA has (CUDA's limit), which bounds thread indices where the CTA's size is not given.
pub const MAX_CTA_THREADS: i64 = 1024;

pub(crate) fn err(rule: CopyRule, msg: impl Into<String>) -> CopyError {
    CopyError::new(rule, msg)
}

/// One side, element by element (index = row-major flat index of the side's shape).
#[derive(Clone, Debug)]
pub(crate) enum Table {
    /// Global or shared memory: per element, the address before the swizzle and after it, in elements.
    Mem {
        /// Before the swizzle.
        pre: Vec<i64>,
        /// After it (the real offset from the base).
        post: Vec<i64>,
        /// The layout's swizzle.
        swizzle: Option<Swizzle>,
    },
    /// Registers: per element, every `(thread, register)` holding it, sorted.
    Reg {
        /// The holders.
        holders: Vec<Vec<(i64, i64)>>,
    },
    /// Tensor memory: per element, its `(lane, column)`.
    Tmem {
        /// The cells.
        cells: Vec<(i64, i64)>,
    },
}

/// Threads per index of a thread axis (1, 32 or 128) for the scope, or why the axis cannot be used there.
pub(crate) fn unit_threads(axis: Axis, scope: ExecScope) -> Result<(i64, Option<i64>), String> {
    let AxisKind::Thread { unit, within } = axis.kind() else {
        return Err(format!("'{axis}' is not a thread axis"));
    };
    if within > scope {
        return Err(format!("'{axis}' indexes {unit}s within a {within}, outside one {scope}"));
    }
    let count = ExecScope::fixed_threads;
    let Some(per) = count(unit) else {
        return Err(format!("'{axis}' indexes {unit}s, which are not threads of one {scope}"));
    };
    Ok((per, count(within).map(|w| w / per)))
}

/// The subset as a condition on the thread index.
pub(crate) fn subset_cond(subset: &ThreadSubset, scope: ExecScope) -> Result<ThreadCond, CopyError> {
    let (per, extent) =
        unit_threads(subset.axis, scope).map_err(|e| err(CopyRule::Scope, format!("thread subset: {e}")))?;
    // Units past a CTA's 1024 threads do not exist (this also bounds the subset's thread count).
    let extent = Some(extent.unwrap_or(MAX_CTA_THREADS / per));
    if subset.begin < 0 || subset.begin >= subset.end || extent.is_some_and(|e| subset.end > e) {
        return Err(err(
            CopyRule::Scope,
            format!(
                "thread subset {}[{}, {}) is not a non-empty range inside the axis's {} values",
                subset.axis,
                subset.begin,
                subset.end,
                extent.map_or("unbounded".to_owned(), |e| e.to_string())
            ),
        ));
    }
    let modulus = unit_threads(subset.axis, scope).ok().and_then(|(_, e)| e);
    Ok(ThreadCond { div: per, modulus, begin: subset.begin, end: subset.end })
}

/// Evaluates one side (`what` is `source` or `destination` in messages).
pub(crate) fn evaluate(side: &Side<'_>, scope: ExecScope, what: &str) -> Result<Table, CopyError> {
    side.layout.admits(side.shape).map_err(|e| input(what, e.message))?;
    let n = side.layout.size();
    if n > MAX_ELEMENTS {
        return Err(err(CopyRule::Limit, format!("{what} has {n} elements, more than the {MAX_ELEMENTS} planned")));
    }
    match side.mem {
        Memory::Global | Memory::Shared => memory_table(side, n, what),
        Memory::Reg => register_table(side, n, scope, what),
        Memory::Tmem => tmem_table(side, n, what),
        Memory::Hbm | Memory::Sbuf | Memory::Psum => Err(input(
            what,
            format!("a {} tensor is Trainium's; GPU copies move global, shared, register and tensor memory", side.mem),
        )),
    }
}

/// An `input` rule refusal of side `what`.
fn input(what: &str, m: String) -> CopyError {
    err(CopyRule::Input, format!("{what}: {m}"))
}

/// A global or shared side's `n` elements: one address each on `m`, before and after the layout's swizzle.
fn memory_table(side: &Side<'_>, n: i64, what: &str) -> Result<Table, CopyError> {
    let input = |m: String| input(what, m);
    if let Some(a) = side.layout.axes().into_iter().find(|a| *a != Axis::M) {
        return Err(input(format!("a {} tensor's layout maps onto m only, found '{a}'", side.mem)));
    }
    let ev = Evaluator::for_tile(side.layout.tile()).map_err(|e| input(e.message))?;
    let swizzle = side.layout.swizzle();
    let (mut pre, mut post) = (Vec::with_capacity(n as usize), Vec::with_capacity(n as usize));
    for k in 0..n {
        let points = ev.values(k).map_err(|e| input(e.message))?;
        if points.len() != 1 {
            return Err(input(format!(
                "element {k} is at {} addresses; a memory tensor keeps one copy of each element",
                points.len()
            )));
        }
        let a = points[0].first().copied().unwrap_or(0);
        pre.push(a);
        post.push(swizzle.map_or(a, |s| s.apply(a)));
    }
    Ok(Table::Mem { pre, post, swizzle })
}

/// A register side's `n` elements: every `(thread, register)` holding each, the thread index relative to the
/// `scope` from the layout's thread axes and the register from `m`.
fn register_table(side: &Side<'_>, n: i64, scope: ExecScope, what: &str) -> Result<Table, CopyError> {
    let input = |m: String| input(what, m);
    if side.layout.swizzle().is_some() {
        return Err(input("a register layout has no swizzle".into()));
    }
    let ev = Evaluator::new(side.layout).map_err(|e| input(e.message))?;
    let axes = ev.axes().to_vec();
    let mut units = Vec::with_capacity(axes.len());
    for a in &axes {
        if *a == Axis::M {
            units.push((0, None));
        } else if a.is_thread() {
            units.push(unit_threads(*a, scope).map_err(|e| err(CopyRule::Scope, format!("{what}: {e}")))?);
        } else {
            return Err(input(format!("a register layout maps onto thread axes and the register axis m, found '{a}'")));
        }
    }
    if (n as usize).saturating_mul(ev.replica_len()) > MAX_HOLDERS {
        return Err(err(
            CopyRule::Limit,
            format!(
                "{what}: {n} elements held by up to {} threads each exceed the {MAX_HOLDERS} holders planned",
                ev.replica_len()
            ),
        ));
    }
    let mut holders = Vec::with_capacity(n as usize);
    for k in 0..n {
        let mut hs = Vec::new();
        for p in ev.values(k).map_err(|e| input(e.message))? {
            hs.push(holder(&axes, &units, &p, k, what)?);
        }
        hs.sort_unstable();
        hs.dedup();
        holders.push(hs);
    }
    Ok(Table::Reg { holders })
}

/// One place `p` of element `k` on the register layout's `axes` as `(thread, register)`: each thread axis's value
/// inside its extent times its threads per index (`units`), the register from `m`.
fn holder(axes: &[Axis], units: &[(i64, Option<i64>)], p: &[i64], k: i64, what: &str) -> Result<(i64, i64), CopyError> {
    let (mut t, mut r) = (0i64, 0i64);
    for ((a, &v), &(per, extent)) in axes.iter().zip(p).zip(units) {
        if *a == Axis::M {
            r = v;
            continue;
        }
        if v < 0 || extent.is_some_and(|e| v >= e) {
            return Err(err(
                CopyRule::Scope,
                format!(
                    "{what}: element {k} is on {a} = {v}, outside its {} values",
                    extent.map_or("non-negative".to_owned(), |e| format!("0..{e}"))
                ),
            ));
        }
        t += v * per;
    }
    if r < 0 {
        return Err(input(what, format!("element {k} is in register {r}, below 0")));
    }
    Ok((t, r))
}

/// A tensor-memory side's `n` elements: one `(lane, column)` cell each, inside 128 lanes and 512 columns.
fn tmem_table(side: &Side<'_>, n: i64, what: &str) -> Result<Table, CopyError> {
    let input = |m: String| input(what, m);
    let (lane, col) = (Axis::named("TLane"), Axis::named("TCol"));
    let (Ok(lane), Ok(col)) = (lane, col) else {
        return Err(input("the TLane and TCol axes are missing".into()));
    };
    if side.layout.swizzle().is_some() {
        return Err(input("a tensor-memory layout has no swizzle".into()));
    }
    if let Some(a) = side.layout.axes().into_iter().find(|a| *a != lane && *a != col) {
        return Err(input(format!("a tensor-memory layout maps onto TLane and TCol only, found '{a}'")));
    }
    let ev = Evaluator::new(side.layout).map_err(|e| input(e.message))?;
    let slot = |a: Axis| ev.axes().iter().position(|x| *x == a);
    let (ls, cs) = (slot(lane), slot(col));
    let mut cells = Vec::with_capacity(n as usize);
    for k in 0..n {
        let points = ev.values(k).map_err(|e| input(e.message))?;
        if points.len() != 1 {
            return Err(input(format!("element {k} is in {} tensor-memory cells", points.len())));
        }
        let p = &points[0];
        let (l, c) = (ls.map_or(0, |i| p[i]), cs.map_or(0, |i| p[i]));
        if !(0..128).contains(&l) || !(0..512).contains(&c) {
            return Err(input(format!(
                "element {k} is at lane {l}, column {c}; tensor memory has lanes 0..128 and columns 0..512"
            )));
        }
        cells.push((l, c));
    }
    Ok(Table::Tmem { cells })
}

/// The two sides of a request, evaluated, after checking their shapes agree ([`CopyRequest::check_shapes`]) and
/// hence their element counts.
pub(crate) fn evaluate_both(req: &CopyRequest<'_>) -> Result<(Table, Table), CopyError> {
    req.check_shapes()?;
    let (ns, nd) = (req.src.layout.size(), req.dst.layout.size());
    if ns != nd {
        return Err(err(
            CopyRule::Input,
            format!("the source has {ns} elements and the destination {nd}; a copy pairs them one to one"),
        ));
    }
    let src = evaluate(&req.src, req.scope, "source")?;
    let dst = evaluate(&req.dst, req.scope, "destination")?;
    Ok((src, dst))
}

/// Refuses a destination that two elements would write: the same address, register or cell.
pub(crate) fn check_injective(table: &Table, what: &str) -> Result<(), CopyError> {
    let mut seen: Vec<(i64, i64, usize)> = match table {
        Table::Mem { post, .. } => post.iter().enumerate().map(|(k, &a)| (a, 0, k)).collect(),
        Table::Reg { holders } => {
            holders.iter().enumerate().flat_map(|(k, hs)| hs.iter().map(move |&(t, r)| (t, r, k))).collect()
        }
        Table::Tmem { cells } => cells.iter().enumerate().map(|(k, &(l, c))| (l, c, k)).collect(),
    };
    seen.sort_unstable();
    for w in seen.windows(2) {
        if w[0].0 == w[1].0 && w[0].1 == w[1].1 {
            let place = match table {
                Table::Mem { .. } => format!("address {}", w[0].0),
                Table::Reg { .. } => format!("register {} of thread {}", w[0].1, w[0].0),
                Table::Tmem { .. } => format!("lane {}, column {}", w[0].0, w[0].1),
            };
            return Err(err(
                CopyRule::Input,
                format!("{what}: elements {} and {} are both at {place}", w[0].2, w[1].2),
            ));
        }
    }
    Ok(())
}
