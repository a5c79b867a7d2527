//! Typed views over axe ops: what each op reads, writes and runs on, as Rust data.
//!
//! An [`AxeOp`] wraps an `OperationRef` whose name is one of the dialect's ops and answers the questions the
//! verifier and the passes ask: its execution scope and thread subset, its tensor operands and result (as
//! [`TensorType`]s, with their layouts readable as `axe_layout::Layout`), a slice's region. Every accessor
//! returns `Err(message)` instead of panicking when the IR is not what the op's definition says (the IRDL
//! constraints normally rule that out; the verifier reports the message).

use crate::{
    access,
    types::{parse_exec_attribute, parse_i64_array, TensorType, Threads},
};
use axe_layout::ExecScope;
use melior::ir::{block::BlockLike, operation::OperationLike, OperationRef, Value, ValueLike};

/// MLIR's marker for a dynamic offset in a static offsets array (`ShapedType::kDynamic`).
pub const DYNAMIC: i64 = i64::MIN;

/// Every axe op.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// `axe.view`: a tensor over a memref, pointer or other tensor.
    View,
    /// `axe.alloc`: shared, tensor-memory or register storage.
    Alloc,
    /// `axe.slice`: a rectangular region of a tensor.
    Slice,
    /// `axe.copy`: synchronous collective copy.
    Copy,
    /// `axe.copy_async`: asynchronous copy completing on an mbarrier.
    CopyAsync,
    /// `axe.gemm`: `c += a * b`.
    Gemm,
    /// `axe.fill`: every element set to a scalar.
    Fill,
    /// `axe.cast`: elementwise element-type conversion of a register tensor.
    Cast,
    /// `axe.scale`: `dest = alpha * source` on register tensors.
    Scale,
    /// `axe.add`: `dest = lhs + rhs` on register tensors.
    Add,
    /// `axe.mul`: `dest = lhs * rhs` on register tensors.
    Mul,
    /// `axe.fma`: `dest = a * b + c` on register tensors, one rounding.
    Fma,
    /// `axe.sub`: `dest = lhs - rhs`.
    Sub,
    /// `axe.max`: `dest = max(lhs, rhs)`, elementwise.
    Max,
    /// `axe.div`: `dest = lhs / rhs`.
    Div,
    /// `axe.exp`: `dest = e^source`.
    Exp,
    /// `axe.reduce`: the max or sum of source over the dimensions where dest has extent 1.
    Reduce,
    /// `axe.mbarrier_alloc`.
    MbarrierAlloc,
    /// `axe.mbarrier_init`.
    MbarrierInit,
    /// `axe.mbarrier_arrive`.
    MbarrierArrive,
    /// `axe.mbarrier_arrive_expect_tx`.
    MbarrierArriveExpectTx,
    /// `axe.mbarrier_wait`.
    MbarrierWait,
    /// `axe.sync`: a barrier across the scope.
    Sync,
    /// `axe.annotate`: a layout note on a value.
    Annotate,
    /// `axe.roles`: regions run by disjoint ranges of warps or warpgroups ([`crate::roles`]).
    Roles,
    /// `axe.role`: one of them, with its warps and register budget.
    Role,
    /// `axe.copy_staged`: a register tile stored to global memory through a shared buffer, a piece at a time.
    CopyStaged,
    /// `axe.tile_loop`: a persistent loop over a grid of output tiles, in grouped order.
    TileLoop,
    /// `axe.yield`: the values an `axe.tile_loop` carries to its next tile.
    Yield,
}

impl OpKind {
    /// Every op kind, in the order docs/dialect.md lists them.
    pub const ALL: [OpKind; 29] = [
        OpKind::View,
        OpKind::Alloc,
        OpKind::Slice,
        OpKind::Copy,
        OpKind::CopyAsync,
        OpKind::CopyStaged,
        OpKind::Gemm,
        OpKind::Fill,
        OpKind::Cast,
        OpKind::Scale,
        OpKind::Add,
        OpKind::Mul,
        OpKind::Fma,
        OpKind::Sub,
        OpKind::Max,
        OpKind::Div,
        OpKind::Exp,
        OpKind::Reduce,
        OpKind::MbarrierAlloc,
        OpKind::MbarrierInit,
        OpKind::MbarrierArrive,
        OpKind::MbarrierArriveExpectTx,
        OpKind::MbarrierWait,
        OpKind::Sync,
        OpKind::Annotate,
        OpKind::Roles,
        OpKind::Role,
        OpKind::TileLoop,
        OpKind::Yield,
    ];

    /// The op's full name (`axe.copy_async`).
    pub fn name(self) -> &'static str {
        match self {
            OpKind::View => "axe.view",
            OpKind::Alloc => "axe.alloc",
            OpKind::Slice => "axe.slice",
            OpKind::Copy => "axe.copy",
            OpKind::CopyAsync => "axe.copy_async",
            OpKind::CopyStaged => "axe.copy_staged",
            OpKind::Gemm => "axe.gemm",
            OpKind::Fill => "axe.fill",
            OpKind::Cast => "axe.cast",
            OpKind::Scale => "axe.scale",
            OpKind::Add => "axe.add",
            OpKind::Mul => "axe.mul",
            OpKind::Fma => "axe.fma",
            OpKind::Sub => "axe.sub",
            OpKind::Max => "axe.max",
            OpKind::Div => "axe.div",
            OpKind::Exp => "axe.exp",
            OpKind::Reduce => "axe.reduce",
            OpKind::MbarrierAlloc => "axe.mbarrier_alloc",
            OpKind::MbarrierInit => "axe.mbarrier_init",
            OpKind::MbarrierArrive => "axe.mbarrier_arrive",
            OpKind::MbarrierArriveExpectTx => "axe.mbarrier_arrive_expect_tx",
            OpKind::MbarrierWait => "axe.mbarrier_wait",
            OpKind::Sync => "axe.sync",
            OpKind::Annotate => "axe.annotate",
            OpKind::Roles => "axe.roles",
            OpKind::Role => "axe.role",
            OpKind::TileLoop => "axe.tile_loop",
            OpKind::Yield => "axe.yield",
        }
    }

    /// The kind of op named `name`.
    pub fn from_name(name: &str) -> Option<OpKind> {
        OpKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// True for collective ops, which carry `scope` (and may carry `threads`).
    pub fn is_collective(self) -> bool {
        !matches!(
            self,
            OpKind::View
                | OpKind::Slice
                | OpKind::Annotate
                | OpKind::Roles
                | OpKind::Role
                | OpKind::TileLoop
                | OpKind::Yield
        )
    }

    /// True for the elementwise ops (`axe.cast`, `axe.scale`, `axe.add`, `axe.sub`, `axe.mul`, `axe.max`,
    /// `axe.div`, `axe.fma`, `axe.exp`): on register tensors, or Trainium's sbuf and psum tiles.
    pub fn is_elementwise(self) -> bool {
        matches!(
            self,
            OpKind::Cast
                | OpKind::Scale
                | OpKind::Add
                | OpKind::Sub
                | OpKind::Mul
                | OpKind::Max
                | OpKind::Div
                | OpKind::Fma
                | OpKind::Exp
        )
    }

    /// True for the elementwise ops whose operands may broadcast and differ in layout from dest
    /// ([`axe_layout::broadcast`]): `axe.add`, `axe.sub`, `axe.mul`, `axe.max`, `axe.div`, `axe.fma`.
    pub fn broadcasts(self) -> bool {
        matches!(self, OpKind::Add | OpKind::Sub | OpKind::Mul | OpKind::Max | OpKind::Div | OpKind::Fma)
    }

    /// Names of the tensor operands, in operand order (the optional barrier and scalars excluded).
    pub fn tensor_operand_names(self) -> &'static [&'static str] {
        match self {
            OpKind::View | OpKind::Slice => &["source"],
            OpKind::Copy | OpKind::CopyAsync | OpKind::Cast | OpKind::Scale | OpKind::Exp => &["source", "dest"],
            OpKind::Reduce => &["source", "dest"],
            OpKind::CopyStaged => &["source", "dest", "buffer"],
            OpKind::Add | OpKind::Sub | OpKind::Mul | OpKind::Max | OpKind::Div => &["lhs", "rhs", "dest"],
            OpKind::Fma => &["a", "b", "c", "dest"],
            OpKind::Gemm => &["a", "b", "c"],
            OpKind::Fill => &["dest"],
            _ => &[],
        }
    }
}

/// The dimensions of a slice region that a rank-reducing slice keeps: `result` is `sizes` with some extents of 1
/// left out (as `tensor.extract_slice` and `memref.subview` reduce rank), matched left to right; `None` when it is
/// not. Only slices of Trainium's hbm tensors may reduce rank (the NKI emitter indexes the dropped dimensions).
pub fn kept_dimensions(sizes: &[i64], result: &[i64]) -> Option<Vec<usize>> {
    let mut kept = Vec::with_capacity(result.len());
    let mut next = result.iter().peekable();
    for (d, &size) in sizes.iter().enumerate() {
        if next.peek() == Some(&&size) {
            next.next();
            kept.push(d);
        } else if size != 1 {
            return None;
        }
    }
    next.peek().is_none().then_some(kept)
}

/// The shape of one piece of an `axe.copy_staged` buffer of `stages` stages: the buffer's shape with its first
/// dimension divided by `stages` (the stages lie along it).
pub fn staged_piece(buffer: &[i64], stages: i64) -> Vec<i64> {
    let mut piece = buffer.to_vec();
    if let Some(rows) = piece.first_mut() {
        *rows /= stages.max(1);
    }
    piece
}

/// One tensor an op touches: its role, the value and its type.
#[derive(Clone, Debug)]
pub struct TensorUse<'c, 'a> {
    /// `source`, `dest`, `lhs`, `rhs`, `a`, `b`, `c` or `result`.
    pub role: &'static str,
    /// The SSA value.
    pub value: Value<'c, 'a>,
    /// The value's tensor type.
    pub tensor: TensorType,
}

/// The region of an `axe.slice`: offsets (`None` where dynamic) and sizes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SliceRegion {
    /// Per dimension: the static offset, or `None` when it comes from an operand.
    pub offsets: Vec<Option<i64>>,
    /// Per dimension: the extent of the region.
    pub sizes: Vec<i64>,
}

impl SliceRegion {
    /// `(begin, end)` per dimension when every offset is static.
    pub fn static_bounds(&self) -> Option<Vec<(i64, i64)>> {
        self.offsets.iter().zip(&self.sizes).map(|(o, s)| o.map(|o| (o, o.saturating_add(*s)))).collect()
    }
}

/// A typed view of one axe op.
#[derive(Clone, Copy, Debug)]
pub struct AxeOp<'c, 'a> {
    op: OperationRef<'c, 'a>,
    kind: OpKind,
}

impl<'c, 'a> AxeOp<'c, 'a> {
    /// Views `op` when it is an axe op.
    pub fn new(op: OperationRef<'c, 'a>) -> Option<Self> {
        let name = op.name();
        let kind = OpKind::from_name(name.as_string_ref().as_str().ok()?)?;
        Some(AxeOp { op, kind })
    }

    /// The op's kind.
    pub fn kind(&self) -> OpKind {
        self.kind
    }

    /// The underlying operation.
    pub fn operation(&self) -> OperationRef<'c, 'a> {
        self.op
    }

    /// The printed form of the attribute `name`, when present.
    pub fn attribute_text(&self, name: &str) -> Option<String> {
        self.op.attribute(name).ok().map(|a| a.to_string())
    }

    /// The execution scope: `None` for non-collective ops.
    pub fn scope(&self) -> Option<Result<ExecScope, String>> {
        if !self.kind.is_collective() {
            return None;
        }
        Some(match self.attribute_text("scope") {
            Some(text) => parse_exec_attribute(&text),
            None => Err("collective op must have a scope attribute".to_string()),
        })
    }

    /// The thread subset, when the op has a `threads` attribute.
    pub fn threads(&self) -> Option<Result<Threads, String>> {
        self.attribute_text("threads").map(|text| Threads::parse(&text))
    }

    /// An integer attribute (`count`, `bytes`).
    pub fn integer_attribute(&self, name: &str) -> Option<Result<i64, String>> {
        let text = self.attribute_text(name)?;
        let value = text.split(':').next().unwrap_or("").trim();
        Some(value.parse::<i64>().map_err(|_| format!("{name} must be an integer, got {text}")))
    }

    /// The tensor operands (by [`OpKind::tensor_operand_names`]) and the tensor result, in that order.
    /// Values whose type is not a readable `!axe.tensor` are reported as errors.
    pub fn tensors(&self) -> Vec<Result<TensorUse<'c, 'a>, String>> {
        let names = self.kind.tensor_operand_names();
        let operands = names.iter().enumerate().filter_map(|(i, role)| {
            // A view's source may be a memref or pointer: only tensors are listed.
            let value = access::operand(self.op, i)?;
            match tensor_of(value) {
                Ok(None) if self.kind == OpKind::View => None,
                other => Some((*role, value, other)),
            }
        });
        let results = self.op.results().take(1).map(|r| ("result", Value::from(r), tensor_of(r.into())));
        operands
            .chain(results)
            .filter_map(|(role, value, tensor)| match tensor {
                Ok(Some(tensor)) => Some(Ok(TensorUse { role, value, tensor })),
                Ok(None) => None,
                Err(e) => Some(Err(format!("{role}: {e}"))),
            })
            .collect()
    }

    /// The tensor with role `role`, if the op has it and it reads.
    pub fn tensor(&self, role: &str) -> Option<TensorType> {
        self.tensors().into_iter().filter_map(Result::ok).find(|t| t.role == role).map(|t| t.tensor)
    }

    /// The operand at `index`.
    pub fn operand(&self, index: usize) -> Option<Value<'c, 'a>> {
        access::operand(self.op, index)
    }

    /// The first result.
    pub fn result(&self) -> Option<Value<'c, 'a>> {
        access::result(self.op, 0)
    }

    /// The region of an `axe.slice` (error for other ops or malformed attributes).
    pub fn slice_region(&self) -> Result<SliceRegion, String> {
        if self.kind != OpKind::Slice {
            return Err(format!("{} has no slice region", self.kind.name()));
        }
        let read = |name: &str| -> Result<Vec<i64>, String> {
            let text = self.attribute_text(name).ok_or_else(|| format!("slice must have {name}"))?;
            parse_i64_array(&text).map_err(|e| format!("slice {name} {e}"))
        };
        let (offsets, sizes) = (read("offsets")?, read("sizes")?);
        let offsets = offsets.into_iter().map(|o| (o != DYNAMIC).then_some(o)).collect();
        Ok(SliceRegion { offsets, sizes })
    }

    /// The number of dynamic offset operands of an `axe.slice`.
    pub fn dynamic_offset_count(&self) -> usize {
        self.op.operand_count().saturating_sub(1)
    }
}

/// The tensor type of `value`: `Ok(None)` when it is not an `!axe.tensor`.
pub fn tensor_of(value: Value) -> Result<Option<TensorType>, String> {
    crate::intern::tensor_type_of(value.r#type())
}

/// Calls `visit` on `root` and every op nested in it, parents before children, in IR order.
///
/// Unlike melior's `walk`, the ops keep the lifetimes of `root`, so callers can keep their locations and values.
/// The walk keeps its own stack, so nesting depth costs heap, not call stack. `visit` may not erase ops.
pub fn walk_preorder<'c, 'a>(root: OperationRef<'c, 'a>, visit: &mut impl FnMut(OperationRef<'c, 'a>)) {
    // One cursor per open block: the next op to visit in it, `None` when the block is done.
    let mut cursors: Vec<Option<OperationRef<'c, 'a>>> = Vec::new();
    let mut enter = |op: OperationRef<'c, 'a>, cursors: &mut Vec<_>| {
        visit(op);
        // Reversed, so the first block of the first region is on top.
        let firsts: Vec<_> = access::blocks(op).map(|block| block.first_operation()).collect();
        cursors.extend(firsts.into_iter().rev());
    };
    enter(root, &mut cursors);
    while let Some(cursor) = cursors.last_mut() {
        match *cursor {
            Some(op) => {
                *cursor = op.next_in_block();
                enter(op, &mut cursors);
            }
            None => {
                cursors.pop();
            }
        }
    }
}

/// The nearest `gpu.func` or `func.func` that encloses `op` (not `op` itself).
pub fn enclosing_function<'c, 'a>(op: OperationRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    std::iter::successors(op.parent_operation(), |parent| parent.parent_operation())
        .find(|parent| matches!(parent.name().as_string_ref().as_str(), Ok("gpu.func" | "func.func")))
}
