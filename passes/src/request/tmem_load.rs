//! Reading a tensor-memory -> register `axe.copy` into `--lower-mma`'s one read-back pattern: `tcgen05.ld.32x32b`
//! of the M=128 data path, row r in lane r, to one row per thread (`crate::ownership` gives such copies to
//! `--lower-mma`, which lowered them before `--lower-copy` existed; the copy planner would choose the same
//! instruction).

use crate::storage::{self, Source, Traced};
use axe_dialect::AxeOp;
use axe_layout::{ExecScope, Layout};

/// One `axe.copy` from a tensor-memory accumulator to registers (`tcgen05.ld` 32x32b).
pub(crate) struct TmemLoad<'c, 'a> {
    pub(crate) op: AxeOp<'c, 'a>,
    pub(crate) tmem: Traced<'c, 'a>,
    pub(crate) regs: Traced<'c, 'a>,
    /// Columns per thread (the register count).
    pub(crate) columns: i64,
    /// The accumulator's first column.
    pub(crate) column: i64,
}

/// True when this pass lowers the tensor-memory -> register copy `op` (its `tcgen05.ld.32x32b` read-back pattern,
/// [`plan_tmem_load`]); `crate::ownership` gives the other such copies to `--lower-copy`.
pub(crate) fn accepts(op: AxeOp) -> bool {
    plan(op).is_ok()
}

/// Checks a tensor-memory -> register copy against the `tcgen05.ld.32x32b` shape: the source is the M=128 data
/// path `S[(128,N):(1@TLane,1@TCol)] + c@TCol`, the destination `S[(4,32,N):(1@warpid,1@laneid,1)]`.
pub(crate) fn plan<'c, 'a>(op: AxeOp<'c, 'a>) -> Result<TmemLoad<'c, 'a>, String> {
    match op.scope() {
        Some(Ok(ExecScope::Cta)) => {}
        Some(Ok(other)) => return Err(format!("mma: scope: tcgen05.ld copies run at cta scope, got {}", other.name())),
        _ => return Err("mma: scope: tcgen05.ld copies run at cta scope".to_string()),
    }
    let (Some(source), Some(dest)) = (op.operand(0), op.operand(1)) else {
        return Err("mma: axe.copy must have source and dest".to_string());
    };
    let (tmem, regs) = (storage::trace("mma", "source", source, false)?, storage::trace("mma", "dest", dest, false)?);
    if let Source::Alloc(alloc) = tmem.source {
        storage::check_tmem_alloc("mma", alloc)?;
    }
    let shape = &tmem.tensor.shape;
    let n = match shape.as_slice() {
        [128, n] if *n >= 1 && *n <= 128 && n & (n - 1) == 0 => *n,
        _ => {
            return Err(format!(
                "mma: tmem-load: tcgen05.ld.32x32b reads 128 rows of 1, 2, 4, ..., 128 columns, got shape {shape:?}"
            ))
        }
    };
    let column = tmem.layout.tile().offset().iter().find(|(a, _)| a.name() == "TCol").map_or(0, |(_, v)| *v);
    let datapath = parse_layout(&format!("S[(128,{n}):(1@TLane,1@TCol)] + {column}@TCol"))?;
    let fragment = parse_layout(&format!("S[(4,32,{n}):(1@warpid,1@laneid,1)]"))?;
    let same = |l: &Layout, r: &Layout| axe_layout::canonicalize::equivalent(l, r, shape).unwrap_or(false);
    if !same(&tmem.layout, &datapath) {
        return Err(format!(
            "mma: tmem-load: the source must be the M=128 data path {datapath} (row r in lane r), got {}",
            tmem.layout
        ));
    }
    // Thread axes are one hardware: `S[(128,N):(1@tid,1)]` is the same fragment (axe_layout::threads).
    let in_warps = axe_layout::threads::to_hardware(&regs.layout, axe_layout::threads::Grain::Warp);
    if regs.tensor.shape != *shape || !in_warps.is_ok_and(|l| same(&l, &fragment)) {
        return Err(format!(
            "mma: tmem-load: the destination must be {fragment} over {shape:?} (thread r holds row r, register j \
             column j), got {} over {:?}",
            regs.layout, regs.tensor.shape
        ));
    }
    if !tmem.tensor.dtype.is(axe_layout::hw::ElemType::F32) {
        return Err(format!("mma: tmem-load: tcgen05.ld reads 32-bit accumulators, got {}", tmem.tensor.dtype));
    }
    Ok(TmemLoad { op, tmem, regs, columns: n, column })
}

/// Parses a layout the pass compares against.
fn parse_layout(text: &str) -> Result<Layout, String> {
    axe_layout::notation::parse_layout(text).map_err(|e| format!("mma: internal: {text}: {e}"))
}
