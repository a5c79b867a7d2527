//! Reading a copy operand back to its root tensor and storage, through `axe.slice` chains and views.
//!
//! The planner wants the root tensor's layout and shape and the copied region in the root's indices; the
//! lowering wants the storage (an `axe.alloc`, or the kernel argument under the global views). A slice offset that
//! is an SSA value is folded into the region when it is an `arith.constant`, else kept as a run-time offset of the
//! root dimension (the region then starts at the static part), with the multiple the IR shows
//! (`crate::ir::multiple`).

use axe_dialect::{
    access,
    ops::{enclosing_function, tensor_of},
    AxeOp, OpKind, TensorType,
};
use axe_layout::Layout;
use melior::ir::{OperationRef, Value};

/// Where a tensor's elements are stored.
pub(crate) enum Backing<'c, 'a> {
    /// An `axe.alloc`.
    Alloc(AxeOp<'c, 'a>),
    /// Argument `index` of the `gpu.func` kernel that holds the copy.
    KernelArgument(OperationRef<'c, 'a>, usize),
    /// Anything else (a value that is not a kernel argument).
    Other,
}

/// A copy operand as the planner sees it.
pub(crate) struct RootRegion<'c, 'a> {
    /// The root tensor's type (the `axe.view` or `axe.alloc` under the slices).
    pub(crate) tensor: TensorType,
    /// The operand's region in the root's indices, half-open per dimension (at run-time offsets 0).
    pub(crate) region: Vec<(i64, i64)>,
    /// Run-time offsets of the region: (root dimension, value), in slice-chain order, outermost slice last.
    pub(crate) dynamic: Vec<(usize, Value<'c, 'a>)>,
    /// What stores the root: an alloc or a kernel argument.
    pub(crate) backing: Backing<'c, 'a>,
    /// The root `axe.view` or `axe.alloc` (a run-time-sized view holds its extents and `multiples`).
    pub(crate) root: AxeOp<'c, 'a>,
}

impl RootRegion<'_, '_> {
    /// The root's layout.
    pub(crate) fn layout(&self) -> Result<Layout, String> {
        match self.tensor.layout.parse() {
            Some(Ok(layout)) => Ok(layout),
            Some(Err(e)) => Err(format!("tma: layout does not parse: {e}")),
            None => Err("tma: root tensor layout is deferred (left out of its type)".to_string()),
        }
    }
}

/// The `axe.*` op that defines `value`, if any.
fn defining<'c, 'a>(value: Value<'c, 'a>) -> Option<AxeOp<'c, 'a>> {
    AxeOp::new(access::defining_op(value)?)
}

/// Traces `value` (an operand of `copy`) to its root tensor, region and storage.
pub(crate) fn trace<'c, 'a>(copy: AxeOp<'c, 'a>, value: Value<'c, 'a>) -> Result<RootRegion<'c, 'a>, String> {
    let tensor = tensor_of(value)?.ok_or("tma: copy operand is not an !axe.tensor")?;
    let mut begin = vec![0i64; tensor.shape.len()];
    let mut dynamic = Vec::new();
    let mut current = value;
    let root = loop {
        let Some(op) = defining(current) else {
            return Err("tma: copy operand must come from axe.view or axe.alloc through axe.slice ops".into());
        };
        match op.kind() {
            OpKind::Slice => {
                let region = op.slice_region()?;
                let offsets = crate::storage::slice_offsets(&op, &region).map_err(|e| format!("tma: {e}"))?;
                for (d, (b, offset)) in begin.iter_mut().zip(offsets).enumerate() {
                    match offset {
                        crate::storage::Int::Static(c) => *b += c,
                        crate::storage::Int::Value(value) => dynamic.push((d, value)),
                    }
                }
                current = op.operand(0).ok_or("tma: slice has no source")?;
            }
            OpKind::View | OpKind::Alloc => break op,
            other => return Err(format!("tma: copy operand must come from a view or alloc, got {}", other.name())),
        }
    };
    let root_tensor = root.tensor("result").ok_or("tma: root tensor type does not read")?;
    if root_tensor.shape.len() != begin.len() {
        return Err("tma: slices must keep the rank of their source".to_string());
    }
    let region = begin.iter().zip(&tensor.shape).map(|(&b, &e)| (b, b + e)).collect();
    Ok(RootRegion { tensor: root_tensor, region, dynamic, backing: backing(copy, root), root })
}

/// The storage under `root`: an alloc, or the kernel argument reached through views.
fn backing<'c, 'a>(copy: AxeOp<'c, 'a>, mut root: AxeOp<'c, 'a>) -> Backing<'c, 'a> {
    loop {
        if root.kind() == OpKind::Alloc {
            return Backing::Alloc(root);
        }
        let Some(source) = root.operand(0) else { return Backing::Other };
        match defining(source) {
            Some(inner) if matches!(inner.kind(), OpKind::View | OpKind::Slice | OpKind::Alloc) => root = inner,
            Some(_) => return Backing::Other,
            None => return kernel_argument(copy, source),
        }
    }
}

/// `KernelArgument` when `value` is an argument of the `gpu.func` kernel enclosing `copy`
/// ([`crate::ir::kernel::kernel_argument`]).
fn kernel_argument<'c, 'a>(copy: AxeOp<'c, 'a>, value: Value<'c, 'a>) -> Backing<'c, 'a> {
    let index = crate::ir::kernel::kernel_argument(copy.operation(), value);
    match (index, enclosing_function(copy.operation())) {
        (Some(index), Some(kernel)) => Backing::KernelArgument(kernel, index),
        _ => Backing::Other,
    }
}
