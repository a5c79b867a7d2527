//! Where lowered tensors live: the storage `--lower-mma` and `--lower-copy` give register, shared and
//! tensor-memory tensors, and how one pass hands it on to the next.
//!
//! - A register tensor is, per thread, a `memref<N x dtype, #gpu.address_space<private>>`, N = the layout's span
//!   on the register axis `m` (register `i` is element `i`): an `axe.alloc` in registers becomes a
//!   `memref.alloca`; an `axe.view` of a private memref uses it directly. LLVM promotes the constant-indexed
//!   allocas to registers.
//! - A shared tensor is an `axe.alloc` (it becomes a private `memref.global` of bytes, aligned to what the pass
//!   needs, at least 16) or a view of a workgroup `memref.get_global`, or of a `memref.view` of one at byte 0 (what
//!   `--lower-tma` and this module leave of the allocs they lowered); the global's alignment is raised on demand.
//! - A tensor-memory `axe.alloc` (at the kernel's top level) becomes a shared `i32` slot, `tcgen05.alloc` by warp
//!   0 of a power of two of columns (at least 32, covering the layout's span on `TCol` and what the pass needs) and
//!   `relinquish_alloc_permit`, `tcgen05.fence::before_thread_sync`, a CTA barrier and `fence::after_thread_sync`,
//!   and the address (`!llvm.ptr<6>`) loaded from the slot; before every return, `fence::before_thread_sync`, a
//!   CTA barrier and `tcgen05.dealloc` by warp 0. An `axe.view` of such an address is the lowered alloc.
//!
//! **Hand-on.** A pass lowers the allocs its own ops use; an alloc that other ops still use becomes an `axe.view`
//! of its new storage (the private memref, a `memref.view` of the shared bytes typed as the tensor's dtype, or
//! the tensor-memory address), which the next pass traces like any view. So the passes run in either order and
//! each alloc is lowered once; the storage chosen depends on the alloc alone (plus alignment raised later).
//!
//! Tracing ([`trace`]) follows views (and, when asked, slices) of tensors to the storage: a slice or a view of a
//! tensor is the same storage from the same base, with its own layout (an explicit slice layout already holds its
//! offset into the root's storage).

use crate::ir::build::{Builder, Cmp, Dim, ThreadSync, WORKGROUP};
use crate::ir::ty::{AddressSpace, Ty};
use axe_dialect::{
    access::{self, OpKey},
    ffi,
    ops::enclosing_function,
    AxeOp, Element, OpKind, TensorType,
};
use axe_layout::hw::{ElemType, Memory};
use axe_layout::{Axis, Layout};
use melior::{
    ir::{block::BlockLike, operation::OperationLike, OperationRef, Value, ValueLike},
    IrRewriter,
};
use std::collections::HashMap;

/// The private address space of per-thread register storage.
pub(crate) const PRIVATE: &str = "#gpu.address_space<private>";
/// The type of a tensor-memory address.
pub(crate) const TMEM_POINTER: &str = "!llvm.ptr<6>";

/// Where a tensor's storage comes from.
#[derive(Clone, Copy)]
pub(crate) enum Source<'c, 'a> {
    /// An `axe.alloc` the pass lowers.
    Alloc(AxeOp<'c, 'a>),
    /// The memref under an `axe.view` (private for registers, workgroup for shared memory).
    Memref(Value<'c, 'a>),
    /// The tensor-memory address under an `axe.view` (an alloc an earlier pass lowered).
    TmemAddress(Value<'c, 'a>),
    /// The `!llvm.ptr` under an `axe.view` of a global tensor.
    Pointer(Value<'c, 'a>),
}

impl Source<'_, '_> {
    /// An identity of the storage for maps: the alloc, or the op defining the memref or address.
    pub(crate) fn key(&self) -> Option<OpKey> {
        match self {
            Source::Alloc(alloc) => Some(access::key(alloc.operation())),
            Source::Memref(v) | Source::TmemAddress(v) | Source::Pointer(v) => access::defining_op(*v).map(access::key),
        }
    }
}

/// One tensor operand traced to its storage.
#[derive(Clone)]
pub(crate) struct Traced<'c, 'a> {
    /// The operand's own type.
    pub(crate) tensor: TensorType,
    /// The operand's layout (relative to the storage's base).
    pub(crate) layout: Layout,
    /// The storage.
    pub(crate) source: Source<'c, 'a>,
}

impl Traced<'_, '_> {
    /// Registers of a register tensor per thread: the layout's span on the register axis (`m`, also spelled `reg`;
    /// at least 1).
    pub(crate) fn register_count(&self) -> i64 {
        axe_layout::threads::register_span(&self.layout)
    }
}

/// Traces the tensor operand `value` (role `role`) of a `pass` op to an `axe.alloc`, a memref, a tensor-memory
/// address or a global pointer under views (and slices, when `slices`); errors start with `{pass}: `.
pub(crate) fn trace<'c, 'a>(
    pass: &str,
    role: &str,
    value: Value<'c, 'a>,
    slices: bool,
) -> Result<Traced<'c, 'a>, String> {
    let tensor =
        axe_dialect::ops::tensor_of(value)?.ok_or_else(|| format!("{pass}: operand {role} is not a tensor"))?;
    let layout = match tensor.layout.parse() {
        Some(Ok(layout)) => layout,
        Some(Err(e)) => return Err(format!("{pass}: operand {role}: {e}")),
        None => return Err(format!("{pass}: operand {role} has a deferred layout: run --axe-slice first")),
    };
    let source = source_of(pass, role, value, &tensor, slices)?;
    Ok(Traced { tensor, layout, source })
}

/// The storage under `value` (see [`trace`]).
fn source_of<'c, 'a>(
    pass: &str,
    role: &str,
    value: Value<'c, 'a>,
    tensor: &TensorType,
    slices: bool,
) -> Result<Source<'c, 'a>, String> {
    let what = if slices {
        "an axe.alloc or a view or slice of one, or of a memref"
    } else {
        "an axe.alloc or an axe.view of a memref"
    };
    let mut current = value;
    loop {
        let defining = access::defining_op(current).and_then(AxeOp::new);
        match defining.map(|op| (op.kind(), op)) {
            Some((OpKind::Alloc, op)) => return Ok(Source::Alloc(op)),
            Some((OpKind::Slice, op)) if slices => {
                current = op.operand(0).ok_or_else(|| format!("{pass}: operand {role}: slice has no source"))?;
            }
            Some((OpKind::View, op)) => match op.operand(0) {
                Some(memref) if memref.r#type().to_string().starts_with("memref<") => {
                    if tensor.mem == Memory::Tmem {
                        return Err(format!(
                            "{pass}: storage: operand {role} in tensor memory must come from axe.alloc"
                        ));
                    }
                    return Ok(Source::Memref(memref));
                }
                Some(pointer) if pointer.r#type().to_string() == TMEM_POINTER => {
                    return Ok(Source::TmemAddress(pointer))
                }
                Some(pointer)
                    if tensor.mem == Memory::Global && pointer.r#type().to_string().starts_with("!llvm.ptr") =>
                {
                    return Ok(Source::Pointer(pointer))
                }
                // A view of a tensor is the same storage from the same base: its source's.
                Some(inner) if matches!(axe_dialect::ops::tensor_of(inner), Ok(Some(_))) => current = inner,
                _ => return Err(format!("{pass}: storage: operand {role} must be {what}")),
            },
            Some((kind, _)) => {
                return Err(format!("{pass}: storage: operand {role} must be {what}, got {}", kind.name()))
            }
            None => return Err(format!("{pass}: storage: operand {role} must be {what}")),
        }
    }
}

/// The `memref.get_global` under a workgroup memref: the memref itself, or the source of a `memref.view` of it
/// at byte 0 (how `--lower-tma` and [`Storage`] hand on a shared alloc they lowered).
pub(crate) fn shared_global<'c, 'a>(memref: Value<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    let op = access::defining_op(memref)?;
    match op.name().as_string_ref().as_str() {
        Ok("memref.get_global") => Some(op),
        Ok("memref.view") => {
            let offset = access::operand(op, 1).and_then(access::defining_op)?;
            let zero = offset.attribute("value").is_ok_and(|v| v.to_string() == "0 : index");
            zero.then(|| access::operand(op, 0).and_then(shared_global)).flatten()
        }
        _ => None,
    }
}

/// Tensor memory is allocated where its `axe.alloc` is and freed before the kernel's returns, so the alloc must
/// be in the kernel's entry block (it then dominates every return).
pub(crate) fn check_tmem_alloc(pass: &str, alloc: AxeOp) -> Result<(), String> {
    let operation = alloc.operation();
    match enclosing_function(operation) {
        Some(f) if operation.block() == access::entry_block(f) => Ok(()),
        _ => Err(format!(
            "{pass}: storage: the tensor-memory axe.alloc must be in its kernel's entry block (it is allocated there \
             and freed before every return)"
        )),
    }
}

/// The columns `tcgen05.alloc` gives a tensor-memory tensor: a power of two (at least 32) covering its layout's
/// span on TCol, whose slots are element-sized (`32 / bits` to a 32-bit column, `axe_layout::mma::tmem`), and
/// `need` columns.
pub(crate) fn tmem_alloc_columns(tensor: &TensorType, layout: &Layout, need: i64) -> i64 {
    let span = Axis::named("TCol").map_or(1, |tcol| layout.tile().span_on(tcol));
    let bits = tensor.dtype.number().map_or(32, |t| t.bits().min(32));
    let per = axe_layout::mma::tmem::slots_per_column(bits);
    axe_layout::mma::tmem::alloc_columns(((span + per - 1) / per).max(need))
}

/// The element type a register tensor of `dtype` is stored as: `tf32` as `f32` (the same 32 bits, which the tensor
/// cores read with the low 13 mantissa bits ignored; MLIR's `tf32` has no LLVM type), others as themselves.
pub(crate) fn register_element(dtype: &Element) -> String {
    if dtype.is(ElemType::TF32) {
        ElemType::F32.mlir().to_string()
    } else {
        dtype.to_string()
    }
}

/// `memref<N x element, space>` text.
pub(crate) fn memref_type(n: i64, element: impl std::fmt::Display, space: &str) -> String {
    format!("memref<{n}x{element}, {space}>")
}

/// Per-kernel values created at the entry, before the kernel's original first op.
struct Kernel<'c, 'a> {
    op: OperationRef<'c, 'a>,
    anchor: OperationRef<'c, 'a>,
    tid: Option<Value<'c, 'a>>,
}

/// The storage of one pass run: the allocs it lowered, kernel-entry values, the shared globals it made.
pub(crate) struct Storage<'c, 'a> {
    /// The pass's message prefix and global-name infix (`mma`, `copy`).
    pass: &'static str,
    root: OperationRef<'c, 'a>,
    kernels: Vec<Kernel<'c, 'a>>,
    kernel_index: HashMap<OpKey, usize>,
    /// The memref of each lowered register or shared `axe.alloc`.
    buffers: HashMap<OpKey, Value<'c, 'a>>,
    /// The tensor-memory address (`!llvm.ptr<6>`) of each lowered tensor-memory `axe.alloc`.
    tmem: HashMap<OpKey, Value<'c, 'a>>,
    /// `memref.global` ops by symbol name, built on first use.
    globals: Option<HashMap<String, OperationRef<'c, 'a>>>,
    global_count: usize,
}

impl<'c, 'a> Storage<'c, 'a> {
    /// Storage for one run of `pass` over `root`.
    pub(crate) fn new(root: OperationRef<'c, 'a>, pass: &'static str) -> Self {
        Storage {
            pass,
            root,
            kernels: Vec::new(),
            kernel_index: HashMap::new(),
            buffers: HashMap::new(),
            tmem: HashMap::new(),
            globals: None,
            global_count: 0,
        }
    }

    /// The index of the kernel-entry state of the function holding `op`.
    fn kernel(&mut self, op: OperationRef<'c, 'a>) -> Result<usize, String> {
        let pass = self.pass;
        let func = enclosing_function(op).ok_or_else(|| format!("{pass}: op is not inside a gpu.func or func.func"))?;
        if let Some(&i) = self.kernel_index.get(&access::key(func)) {
            return Ok(i);
        }
        let entry = access::entry_block(func).ok_or_else(|| format!("{pass}: function has no body"))?;
        let anchor = entry.first_operation().ok_or_else(|| format!("{pass}: function body is empty"))?;
        self.kernels.push(Kernel { op: func, anchor, tid: None });
        self.kernel_index.insert(access::key(func), self.kernels.len() - 1);
        Ok(self.kernels.len() - 1)
    }

    /// A builder at the entry of the function holding `op`, located at the function.
    pub(crate) fn entry(&mut self, op: OperationRef<'c, 'a>) -> Result<Builder<'c, 'a>, String> {
        let k = self.kernel(op)?;
        Ok(Builder::before(self.kernels[k].anchor)?.at_location(self.kernels[k].op.location()))
    }

    /// `gpu.thread_id x` of the function holding `op`, created at its entry.
    pub(crate) fn tid(&mut self, op: OperationRef<'c, 'a>) -> Result<Value<'c, 'a>, String> {
        let k = self.kernel(op)?;
        if let Some(tid) = self.kernels[k].tid {
            return Ok(tid);
        }
        let b = self.entry(op)?;
        let tid = b.thread_id(Dim::X)?;
        self.kernels[k].tid = Some(tid);
        Ok(tid)
    }

    /// `i1`: `(tid / unit) % units == index` (`units` = None: no modulo).
    pub(crate) fn unit_is(
        &mut self,
        b: &Builder<'c, 'a>,
        op: OperationRef<'c, 'a>,
        unit: i64,
        units: Option<i64>,
        index: i64,
    ) -> Result<Value<'c, 'a>, String> {
        let which = self.unit_index(b, op, unit, units)?;
        b.cmpi(Cmp::Eq, which, b.index(index)?)
    }

    /// The index (`index`) of the calling thread's unit of `unit` threads within its scope instance of `units`
    /// units (`tid / unit`, modulo `units` when the scope's size is known).
    pub(crate) fn unit_index(
        &mut self,
        b: &Builder<'c, 'a>,
        op: OperationRef<'c, 'a>,
        unit: i64,
        units: Option<i64>,
    ) -> Result<Value<'c, 'a>, String> {
        let tid = self.tid(op)?;
        let mut which = if unit == 1 { tid } else { b.divui(tid, b.index(unit)?)? };
        if let Some(units) = units {
            which = b.remui(which, b.index(units)?)?;
        }
        Ok(which)
    }

    /// `i1`: true on exactly one thread of the CTA, the lane of warp 0 (`tid.x < 32`) that `elect.sync
    /// 0xffffffff` elects (PTX ISA, "elect.sync", sm_90+), built at `b`, which whole warps must reach (cta-scope
    /// issue points). ptxas proves such a predicate selects one thread and issues what it guards (tcgen05.mma,
    /// tcgen05.commit, mbarrier init) once; a `tid.x == 0` test makes it wrap each in an ELECT/BRA.U.ANY loop.
    pub(crate) fn elected(&mut self, b: &Builder<'c, 'a>, op: OperationRef<'c, 'a>) -> Result<Value<'c, 'a>, String> {
        let tid = self.tid(op)?;
        let warp0 = b.cmpi(Cmp::Ult, tid, b.index(32)?)?;
        let elected = b.elect_sync()?;
        b.andi(warp0, elected)
    }

    /// A new `memref.global` in the symbol table holding the function of `op`, and its `memref.get_global`.
    pub(crate) fn new_shared_global(
        &mut self,
        op: OperationRef<'c, 'a>,
        b: &Builder<'c, 'a>,
        ty: &str,
        alignment: i64,
    ) -> Result<Value<'c, 'a>, String> {
        let pass = self.pass;
        let name = format!("__axe_{pass}_smem_{}", self.global_count);
        self.global_count += 1;
        let func = enclosing_function(op).ok_or_else(|| format!("{pass}: op is not inside a function"))?;
        let table = func.block().ok_or_else(|| format!("{pass}: function is not in a module"))?;
        let ty = b.ty(ty)?;
        Builder::at_start(self.root, table, op.location()).global(&name, ty, alignment)?;
        note_lifetime(op, func, &name)?;
        b.get_global(&name, ty)
    }

    /// The address of a workgroup memref as `i64` (the shared-window address).
    pub(crate) fn address(b: &Builder<'c, 'a>, memref: Value<'c, 'a>) -> Result<Value<'c, 'a>, String> {
        let index = b.aligned_pointer(memref)?;
        b.index_cast(index, Ty::I64)
    }

    /// Lowers one alloc: registers (`memref.alloca`), shared memory (a `memref.global` aligned to `need` bytes, at
    /// least 16) or tensor memory (`tcgen05.alloc` of at least `need` columns).
    pub(crate) fn lower_alloc(&mut self, op: AxeOp<'c, 'a>, need: i64) -> Result<(), String> {
        let pass = self.pass;
        let operation = op.operation();
        let key = access::key(operation);
        let tensor = op.tensor("result").ok_or_else(|| format!("{pass}: alloc type does not read"))?;
        let layout = match tensor.layout.parse() {
            Some(Ok(layout)) => layout,
            _ => return Err(format!("{pass}: alloc layout does not parse")),
        };
        let b = Builder::before(operation)?;
        match tensor.mem {
            Memory::Reg => {
                let ty =
                    memref_type(axe_layout::threads::register_span(&layout), register_element(&tensor.dtype), PRIVATE);
                let buffer = b.alloca(b.ty(&ty)?)?;
                self.buffers.insert(key, buffer);
            }
            Memory::Shared => {
                let element = tensor
                    .dtype
                    .number()
                    .map(ElemType::bytes)
                    .ok_or_else(|| format!("{pass}: shared alloc of {} has no known element size", tensor.dtype))?;
                let bytes = layout.tile().span_memory().max(1) * element;
                let buffer =
                    self.new_shared_global(operation, &b, &memref_type(bytes, "i8", WORKGROUP), need.max(16))?;
                self.buffers.insert(key, buffer);
            }
            Memory::Tmem => {
                check_tmem_alloc(pass, op)?;
                let columns = tmem_alloc_columns(&tensor, &layout, need);
                let address = self.tmem_alloc(op, columns)?;
                self.tmem.insert(key, address);
            }
            other => return Err(format!("{pass}: internal: alloc in {other}")),
        }
        Ok(())
    }

    /// `tcgen05.alloc` of `columns` by warp 0 into a shared slot, the fences around a CTA barrier, the address
    /// read back; `tcgen05.dealloc` before every return of the kernel.
    fn tmem_alloc(&mut self, op: AxeOp<'c, 'a>, columns: i64) -> Result<Value<'c, 'a>, String> {
        let operation = op.operation();
        // Kernel-entry values go before the kernel's first op as it is now, before the slot is made.
        self.kernel(operation)?;
        let b = Builder::before(operation)?;
        let slot = self.new_shared_global(operation, &b, &memref_type(1, "i32", WORKGROUP), 16)?;
        let slot_address = Self::address(&b, slot)?;
        let slot_pointer = b.inttoptr(slot_address, AddressSpace::Shared)?;
        let count = b.constant(columns, Ty::I32)?;
        let warp0 = self.unit_is(&b, operation, 32, None, 0)?;
        let group = ("group", "#nvvm.cta_group<cta_1>".to_string());
        b.guarded(warp0, |t| {
            t.op("nvvm.tcgen05.alloc", &[slot_pointer, count], &[], std::slice::from_ref(&group))?;
            t.op("nvvm.tcgen05.relinquish_alloc_permit", &[], &[], std::slice::from_ref(&group)).map(drop)
        })?;
        Self::thread_sync(&b)?;
        let zero = b.index(0)?;
        let raw = b.load(slot, &[zero])?;
        let address = b.inttoptr(raw, AddressSpace::Tmem)?;
        let func =
            enclosing_function(operation).ok_or_else(|| format!("{}: op is not inside a function", self.pass))?;
        let mut returns = Vec::new();
        for block in access::blocks(func) {
            let mut next = block.first_operation();
            while let Some(o) = next {
                if matches!(o.name().as_string_ref().as_str(), Ok("gpu.return" | "func.return")) {
                    returns.push(o);
                }
                next = o.next_in_block();
            }
        }
        for ret in returns {
            let r = Builder::before(ret)?.at_location(operation.location());
            r.tcgen05_fence(ThreadSync::Before)?;
            r.barrier()?;
            let warp0 = self.unit_is(&r, operation, 32, None, 0)?;
            let count = r.constant(columns, Ty::I32)?;
            r.guarded(warp0, |t| {
                t.op("nvvm.tcgen05.dealloc", &[address, count], &[], std::slice::from_ref(&group)).map(drop)
            })?;
        }
        Ok(address)
    }

    /// `tcgen05.fence::before_thread_sync`, a CTA barrier, `tcgen05.fence::after_thread_sync`.
    pub(crate) fn thread_sync(b: &Builder<'c, 'a>) -> Result<(), String> {
        b.tcgen05_fence(ThreadSync::Before)?;
        b.barrier()?;
        b.tcgen05_fence(ThreadSync::After)
    }

    /// The memref holding a register or shared tensor (for a shared alloc lowered here: its byte buffer).
    pub(crate) fn memref_of(&self, traced: &Traced<'c, 'a>) -> Result<Value<'c, 'a>, String> {
        match traced.source {
            Source::Memref(memref) => Ok(memref),
            Source::Alloc(alloc) => self
                .buffers
                .get(&access::key(alloc.operation()))
                .copied()
                .ok_or_else(|| format!("{}: internal: the alloc was not lowered before its use", self.pass)),
            Source::TmemAddress(_) | Source::Pointer(_) => {
                Err(format!("{}: internal: the tensor has no memref", self.pass))
            }
        }
    }

    /// The tensor-memory address (`!llvm.ptr<6>`) of a tensor-memory tensor.
    pub(crate) fn tmem_of(&self, traced: &Traced<'c, 'a>) -> Result<Value<'c, 'a>, String> {
        match traced.source {
            Source::TmemAddress(address) => Ok(address),
            Source::Alloc(alloc) => self
                .tmem
                .get(&access::key(alloc.operation()))
                .copied()
                .ok_or_else(|| format!("{}: internal: tensor memory not allocated", self.pass)),
            Source::Memref(_) | Source::Pointer(_) => Err(format!("{}: internal: not tensor memory", self.pass)),
        }
    }

    /// Raises the alignment of the `memref.global` behind a shared memref view to `alignment`.
    pub(crate) fn align_global(&mut self, memref: Value<'c, 'a>, alignment: i64) -> Result<(), String> {
        let pass = self.pass;
        let getter = shared_global(memref)
            .ok_or_else(|| format!("{pass}: internal: shared memref without memref.get_global"))?;
        let name = getter
            .attribute("name")
            .map(|a| a.to_string())
            .map_err(|_| format!("{pass}: internal: get_global name"))?;
        let root = self.root;
        let globals = self.globals.get_or_insert_with(|| {
            let mut map = HashMap::new();
            axe_dialect::ops::walk_preorder(root, &mut |op| {
                if op.name().as_string_ref().as_str() == Ok("memref.global") {
                    if let Ok(symbol) = op.attribute("sym_name") {
                        map.insert(format!("@{}", symbol.to_string().trim_matches('"')), op);
                    }
                }
            });
            map
        });
        let global = *globals.get(&name).ok_or_else(|| format!("{pass}: internal: no memref.global {name}"))?;
        let current = global
            .attribute("alignment")
            .ok()
            .and_then(|a| a.to_string().split(':').next().and_then(|n| n.trim().parse::<i64>().ok()))
            .unwrap_or(1);
        if current < alignment {
            let value = ffi::parse_attribute(global, &format!("{alignment} : i64"))
                .ok_or_else(|| format!("{pass}: internal: alignment"))?;
            ffi::set_attribute(global, "alignment", value);
        }
        Ok(())
    }

    /// After the pass erased the ops it lowered: erases the views, and the allocs lowered here, left without
    /// uses; a lowered alloc still used elsewhere becomes an `axe.view` of its storage (the hand-on form).
    pub(crate) fn cleanup(&self, ops: &[AxeOp<'c, 'a>]) {
        let rewriter = IrRewriter::from_op(self.root);
        let base = rewriter.as_rewriter_base();
        for op in ops.iter().rev().filter(|op| matches!(op.kind(), OpKind::View | OpKind::Alloc | OpKind::Slice)) {
            let Some(result) = op.result() else { continue };
            // A slice (a ring's run-time stage) goes with its last use.
            if op.kind() == OpKind::Slice {
                if !ffi::has_uses(result) {
                    base.erase_op(op.operation());
                }
                continue;
            }
            let key = access::key(op.operation());
            let lowered = self.buffers.get(&key).copied().or_else(|| self.tmem.get(&key).copied());
            if op.kind() != OpKind::View && lowered.is_none() {
                continue;
            }
            if !ffi::has_uses(result) {
                base.erase_op(op.operation());
                continue;
            }
            let (Some(storage), Ok(b)) = (lowered, Builder::before(op.operation())) else { continue };
            let Some(tensor) = op.tensor("result") else { continue };
            let Ok(storage) = self.hand_on(&b, storage, &tensor) else { continue };
            if let Ok(view) = b.axe_view(storage, result.r#type()) {
                base.replace_all_uses_with(result, view);
                base.erase_op(op.operation());
            }
        }
    }

    /// The value an `axe.view` of a lowered alloc takes: the private memref or tensor-memory address itself, a
    /// shared byte buffer seen as `memref<N x dtype, workgroup>` at byte 0 (N = the layout's span).
    fn hand_on(
        &self,
        b: &Builder<'c, 'a>,
        storage: Value<'c, 'a>,
        tensor: &TensorType,
    ) -> Result<Value<'c, 'a>, String> {
        if tensor.mem != Memory::Shared {
            return Ok(storage);
        }
        let layout = tensor.layout.parse().and_then(Result::ok).ok_or("alloc layout does not parse")?;
        let ty = memref_type(layout.tile().span_memory().max(1), &tensor.dtype, WORKGROUP);
        let zero = b.index(0)?;
        b.view(storage, zero, b.ty(&ty)?)
    }
}

/// A static or run-time integer of the IR (an extent, an offset).
#[derive(Clone, Copy)]
pub(crate) enum Int<'c, 'a> {
    /// Known when compiling.
    Static(i64),
    /// An `index` or integer SSA value.
    Value(Value<'c, 'a>),
}

/// Records the epochs of `alloc` (`axe.epochs`, when it has them) as global `name`'s in `func`'s
/// `axe.shared_epochs` dictionary (the lifetimes `--axe-dynamic-shared` packs by; see `shared_lifetimes`).
pub(crate) fn note_lifetime(alloc: OperationRef, func: OperationRef, name: &str) -> Result<(), String> {
    let Ok(epochs) = alloc.attribute(crate::shared_lifetimes::EPOCHS) else { return Ok(()) };
    let epochs = epochs.to_string();
    let existing = func.attribute(crate::shared_lifetimes::SHARED_EPOCHS).map(|a| a.to_string()).unwrap_or_default();
    let mut entries: Vec<(String, String)> = crate::shared_lifetimes::parse_epochs(&existing)
        .into_iter()
        .map(|(name, (first, last))| (name, format!("array<i64: {first}, {last}>")))
        .collect();
    entries.push((name.to_string(), epochs.to_string()));
    entries.sort();
    let items: Vec<String> = entries.iter().map(|(name, value)| format!("{name} = {value}")).collect();
    let text = format!("{{{}}}", items.join(", "));
    let attribute = ffi::parse_attribute(func, &text)
        .ok_or_else(|| format!("internal: axe.shared_epochs {text} does not parse"))?;
    ffi::set_attribute(func, crate::shared_lifetimes::SHARED_EPOCHS, attribute);
    Ok(())
}

/// Per dimension, the offset of `slice` (an `axe.slice` with its `region`): written offsets, and run-time operands
/// that are `arith.constant`s, as [`Int::Static`]; the other run-time operands as [`Int::Value`]. The run-time
/// offsets are the slice's operands 1.. in the order of the dimensions that take one.
pub(crate) fn slice_offsets<'c, 'a>(
    slice: &AxeOp<'c, 'a>,
    region: &axe_dialect::ops::SliceRegion,
) -> Result<Vec<Int<'c, 'a>>, String> {
    let mut operand = 1;
    let mut out = Vec::with_capacity(region.offsets.len());
    for (d, offset) in region.offsets.iter().enumerate() {
        out.push(match offset {
            Some(o) => Int::Static(*o),
            None => {
                let v = slice
                    .operand(operand)
                    .ok_or_else(|| format!("slice lacks the run-time offset of dimension {d}"))?;
                operand += 1;
                crate::ir::multiple::constant(v).map_or(Int::Value(v), Int::Static)
            }
        });
    }
    Ok(out)
}
