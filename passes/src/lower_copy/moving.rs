//! Copy operands that are slices at run-time offsets: `axe.slice %tensor[%m0, %k] [128, 64]` of a global tensor at a
//! block's tile and a loop's K step, or of a shared ring at a run-time stage.
//!
//! The planner gets the sliced tensor's source sliced at the static part of the offsets (each run-time offset
//! taken as 0) and, per run-time offset, a `CopyMove`: the source's layout and shape, the dimension, and the
//! multiple the IR shows the offset to be (`crate::ir::multiple`: `arith.muli %bid, %c128` is a multiple of
//! 128, an `scf.for` counter one of its step). `axe_layout::copy::plan_moving` answers with the address terms or
//! refuses (`dynamic-offset` rule); the emitter adds the terms to the side's base address.

use crate::ir::multiple::known_multiple;
pub(crate) use crate::storage::Int;
use crate::storage::{self, Source, Traced};
use axe_dialect::{access, AxeOp, LayoutSpec, OpKind};
use axe_layout::copy::placeholder_stride;
use melior::ir::{operation::OperationLike, Value, ValueLike};

/// A copy operand that is a run-time slice: its source traced to the storage, the operand as that source sliced
/// at the static offsets, and the run-time offsets (source dimension, value, known multiple).
pub(super) struct Moving<'c, 'a> {
    pub(super) root: Traced<'c, 'a>,
    pub(super) operand: Traced<'c, 'a>,
    pub(super) dynamic: Vec<(usize, Value<'c, 'a>, i64)>,
}

/// When `value` is an `axe.slice` with offsets that are not constants (or a static one whose layout is still
/// deferred, left out of its type), the [`Moving`] operand; `None` otherwise (the operand is traced as a whole by
/// `storage::trace`).
pub(super) fn trace_moving<'c, 'a>(role: &str, value: Value<'c, 'a>) -> Result<Option<Moving<'c, 'a>>, String> {
    let Some(slice) = access::defining_op(value).and_then(AxeOp::new).filter(|op| op.kind() == OpKind::Slice) else {
        return Ok(None);
    };
    let region = slice.slice_region().map_err(|e| format!("copy: operand {role}: {e}"))?;
    let tensor = axe_dialect::ops::tensor_of(value)?.ok_or_else(|| format!("copy: operand {role} is not a tensor"))?;
    // A static slice with its layout written out is traced as a whole; one left deferred is sliced here.
    if region.offsets.iter().all(Option::is_some) && tensor.layout != LayoutSpec::Deferred {
        return Ok(None);
    }
    let source = slice.operand(0).ok_or_else(|| format!("copy: operand {role}: slice has no source"))?;
    let root = storage::trace("copy", role, source, true)?;
    let offsets = storage::slice_offsets(&slice, &region).map_err(|e| format!("copy: operand {role}: {e}"))?;
    let mut begin = Vec::with_capacity(offsets.len());
    let mut dynamic = Vec::new();
    for (d, offset) in offsets.into_iter().enumerate() {
        match offset {
            Int::Static(c) => begin.push(c),
            Int::Value(v) => {
                begin.push(0);
                dynamic.push((d, v, known_multiple(v)));
            }
        }
    }
    let bounds: Vec<(i64, i64)> = begin.iter().zip(&region.sizes).map(|(&b, &n)| (b, b + n)).collect();
    let layout = axe_layout::slice::slice(&root.layout, &root.tensor.shape, &bounds)
        .map_err(|e| format!("copy: operand {role}: its source's layout sliced at the static offsets: {e}"))?;
    let operand = Traced { tensor, layout, source: root.source };
    Ok(Some(Moving { root, operand, dynamic }))
}

/// A copy operand that is a `rows x cols` slice of a global view with run-time extents (`row_major`): the
/// region's origin in the root and the root's two extents (the second is the row stride).
pub(crate) struct RowMajor<'c, 'a> {
    /// Row and column of the region's first element.
    pub(crate) origin: [Int<'c, 'a>; 2],
    /// The root's row count and column count.
    pub(crate) extents: [Int<'c, 'a>; 2],
    /// What the column count is known to be a multiple of.
    pub(crate) stride_multiple: i64,
    /// What the column offset is known to be a multiple of.
    pub(crate) col_multiple: i64,
}

/// When `value` is an `axe.slice` of an `axe.view` whose layout is `row_major` (run-time extents), the
/// operand (its layout the planner's placeholder, its storage the view's pointer or memref) and its [`RowMajor`]
/// description; `None` otherwise.
pub(super) fn trace_row_major<'c, 'a>(
    role: &str,
    value: Value<'c, 'a>,
) -> Result<Option<(Traced<'c, 'a>, RowMajor<'c, 'a>)>, String> {
    let Some(slice) = access::defining_op(value).and_then(AxeOp::new).filter(|op| op.kind() == OpKind::Slice) else {
        return Ok(None);
    };
    let Some(source) = slice.operand(0) else { return Ok(None) };
    let Some(view) = access::defining_op(source).and_then(AxeOp::new).filter(|op| op.kind() == OpKind::View) else {
        return Ok(None);
    };
    let Some(root) = view.tensor("result") else { return Ok(None) };
    if root.layout != LayoutSpec::RowMajor {
        return Ok(None);
    }
    let tensor = axe_dialect::ops::tensor_of(value)?.ok_or_else(|| format!("copy: operand {role} is not a tensor"))?;
    let rank = root.shape.len();
    if rank != 2 {
        return Err(format!(
            "copy: run-time extents: the {role} is a slice of a rank-{rank} row-major view; copies take rank 2"
        ));
    }
    // Extents: static entries as they are, run-time ones from the view's extent operands in order.
    let multiples = view
        .operation()
        .attribute("multiples")
        .ok()
        .map(|a| {
            let text = a.to_string();
            text.trim_start_matches("array<i64:")
                .trim_end_matches('>')
                .split(',')
                .filter_map(|d| d.trim().parse::<i64>().ok())
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    let mut next = 1;
    let mut extents = [Int::Static(1); 2];
    for (d, extent) in root.shape.iter().enumerate() {
        extents[d] = if *extent == axe_dialect::ops::DYNAMIC {
            let v = view.operand(next).ok_or_else(|| format!("copy: operand {role}: missing extent operand {d}"))?;
            next += 1;
            Int::Value(v)
        } else {
            Int::Static(*extent)
        };
    }
    let stride_multiple = match extents[1] {
        Int::Static(n) => n,
        Int::Value(_) => multiples.get(1).copied().unwrap_or(1).max(1),
    };
    let region = slice.slice_region().map_err(|e| format!("copy: operand {role}: {e}"))?;
    let offsets = storage::slice_offsets(&slice, &region).map_err(|e| format!("copy: operand {role}: {e}"))?;
    let origin =
        [offsets.first().copied().unwrap_or(Int::Static(0)), offsets.get(1).copied().unwrap_or(Int::Static(0))];
    let col_multiple = match origin[1] {
        Int::Static(0) => 1 << 40,
        Int::Static(c) => c.abs(),
        Int::Value(v) => known_multiple(v),
    };
    let storage = view.operand(0).ok_or_else(|| format!("copy: operand {role}: the view has no source"))?;
    let source = if storage.r#type().to_string().starts_with("!llvm.ptr") {
        Source::Pointer(storage)
    } else {
        return Err(format!(
            "copy: run-time extents: the {role}'s view must be of a global !llvm.ptr (a kernel argument), got {}",
            storage.r#type()
        ));
    };
    let cols = tensor.shape.get(1).copied().unwrap_or(1);
    let text = format!("S[({},{cols}):({},1)]", tensor.shape.first().copied().unwrap_or(1), placeholder_stride(cols));
    let layout = axe_layout::notation::parse_layout(&text).map_err(|e| format!("copy: internal: {e}"))?;
    Ok(Some((Traced { tensor, layout, source }, RowMajor { origin, extents, stride_multiple, col_multiple })))
}
