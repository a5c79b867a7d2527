//! Copy operands that are slices at run-time offsets: `axe.slice(%tensor, %m0, %k)` of a global tensor at a
//! block's tile and a loop's K step, or of a shared ring at a run-time stage.
//!
//! The planner gets the sliced tensor's source sliced at the static part of the offsets (each run-time offset
//! taken as 0) and, per run-time offset, a `CopyMove`: the source's layout and shape, the dimension, and the
//! multiple the IR shows the offset to be (`crate::lower_tma::multiple`: `arith.muli %bid, %c128` is a multiple of
//! 128, an `scf.for` counter one of its step). `axe_layout::copy::plan_moving` answers with the address terms or
//! refuses (`dynamic-offset` rule); the emitter adds the terms to the side's base address.

use crate::lower_tma::multiple::{constant, known_multiple};
use crate::storage::{self, Traced};
use axe_dialect::{access, AxeOp, LayoutSpec, OpKind};
use melior::ir::Value;

/// A copy operand that is a run-time slice: its source traced to the storage, the operand as that source sliced
/// at the static offsets, and the run-time offsets (source dimension, value, known multiple).
pub(super) struct Moving<'c, 'a> {
    pub(super) root: Traced<'c, 'a>,
    pub(super) operand: Traced<'c, 'a>,
    pub(super) dynamic: Vec<(usize, Value<'c, 'a>, i64)>,
}

/// When `value` is an `axe.slice` with offsets that are not constants (or a static one whose layout is still
/// `#axe.deferred`), the [`Moving`] operand; `None` otherwise (the operand is traced as a whole by
/// `storage::trace`).
pub(super) fn trace_moving<'c, 'a>(role: &str, value: Value<'c, 'a>) -> Result<Option<Moving<'c, 'a>>, String> {
    let Some(slice) = access::defining_op(value).and_then(AxeOp::new).filter(|op| op.kind() == OpKind::Slice) else {
        return Ok(None);
    };
    let region = slice.slice_region().map_err(|e| format!("copy: operand {role}: {e}"))?;
    let tensor = axe_dialect::ops::tensor_of(value)?.ok_or_else(|| format!("copy: operand {role} is not a tensor"))?;
    // A static slice with its layout written out is traced as a whole; one left #axe.deferred is sliced here.
    if region.offsets.iter().all(Option::is_some) && tensor.layout != LayoutSpec::Deferred {
        return Ok(None);
    }
    let source = slice.operand(0).ok_or_else(|| format!("copy: operand {role}: slice has no source"))?;
    let root = storage::trace("copy", role, source, true)?;
    let mut begin = Vec::with_capacity(region.offsets.len());
    let mut dynamic = Vec::new();
    let mut operand = 1;
    for (d, offset) in region.offsets.iter().enumerate() {
        match offset {
            Some(o) => begin.push(*o),
            None => {
                let v = slice.operand(operand).ok_or_else(|| format!("copy: operand {role}: missing slice offset"))?;
                operand += 1;
                match constant(v) {
                    Some(c) => begin.push(c),
                    None => {
                        begin.push(0);
                        dynamic.push((d, v, known_multiple(v)));
                    }
                }
            }
        }
    }
    let bounds: Vec<(i64, i64)> = begin.iter().zip(&region.sizes).map(|(&b, &n)| (b, b + n)).collect();
    let layout = axe_layout::slice::slice(&root.layout, &root.tensor.shape, &bounds)
        .map_err(|e| format!("copy: operand {role}: its source's layout sliced at the static offsets: {e}"))?;
    let operand = Traced { tensor, layout, source: root.source };
    Ok(Some(Moving { root, operand, dynamic }))
}
