//! The rewrite of `--lower-copy`: storage first (allocs the plans use, in IR order), then each planned copy's
//! steps and each elementwise op become upstream `llvm`/`memref`/`arith`/`scf`/`nvvm` ops before the op
//! they lower; then the lowered ops, and the allocs and views left without uses, are erased. Every address,
//! register, thread set, shape and barrier count comes from the plans.

use super::{instruction::instruction, moving::Int, Barrier, LowerCopyStats, PlannedCopy, PlannedElementwise};
use crate::{
    ir::build::{segments, Builder, Cmp, Tcgen05Access, WORKGROUP},
    ir::ty::{AddressSpace, Ty},
    storage::{memref_type, Source, Storage, Traced},
};
use axe_dialect::{
    access::{self, OpKey},
    AxeOp, OpKind,
};
use axe_layout::hw::Memory;
use axe_layout::{
    copy::{
        Completion, CopyKind, CopySide, CopyStep, ElemType, Operand, PerThread, RegionCoord, Staging, ThreadSet,
        ThreadTerm,
    },
    ExecScope, Swizzle,
};
use melior::{
    ir::{operation::OperationLike, Location, OperationRef, Value, ValueLike},
    IrRewriter,
};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};

/// A failure during the rewrite: where and why.
type Failure<'c> = (Location<'c>, String);

/// The state of one rewrite.
struct Lowering<'c, 'a> {
    root: OperationRef<'c, 'a>,
    storage: Storage<'c, 'a>,
    /// Per alloc the plans use: the shared alignment it needs (0 for registers and tensor memory).
    needed: BTreeMap<OpKey, i64>,
    lowered: Vec<OperationRef<'c, 'a>>,
    stats: LowerCopyStats,
}

/// Lowers `ops` (every axe op under `root`, in IR order) with the plans in `copies` and `elementwise`.
pub(super) fn rewrite<'c, 'a>(
    root: OperationRef<'c, 'a>,
    ops: &[AxeOp<'c, 'a>],
    copies: &[PlannedCopy<'c, 'a>],
    elementwise: &[PlannedElementwise<'c, 'a>],
) -> Result<LowerCopyStats, Failure<'c>> {
    let mut lowering = Lowering {
        root,
        storage: Storage::new(root, "copy"),
        needed: BTreeMap::new(),
        lowered: Vec::new(),
        stats: LowerCopyStats::default(),
    };
    for copy in copies {
        let alignments = [copy.plan.src_base_alignment_bytes, copy.plan.dst_base_alignment_bytes];
        for (traced, alignment) in copy.sides.iter().zip(alignments) {
            lowering.need(traced, alignment.unwrap_or(0));
        }
    }
    for op in elementwise {
        for traced in &op.tensors {
            lowering.need(traced, 0);
        }
    }
    let copy_plans: HashMap<OpKey, &PlannedCopy> = copies.iter().map(|c| (access::key(c.op.operation()), c)).collect();
    let elementwise_plans: HashMap<OpKey, &PlannedElementwise> =
        elementwise.iter().map(|e| (access::key(e.op.operation()), e)).collect();
    for op in ops {
        let at = |message: String| (op.operation().location(), message);
        let key = access::key(op.operation());
        if op.kind() == OpKind::Alloc {
            if let Some(&need) = lowering.needed.get(&key) {
                lowering.storage.lower_alloc(*op, need).map_err(at)?;
            }
            continue;
        }
        if let Some(copy) = copy_plans.get(&key) {
            lowering.copy(copy).map_err(at)?;
        } else if let Some(planned) = elementwise_plans.get(&key) {
            lowering.elementwise(planned).map_err(at)?;
        } else {
            continue;
        }
        lowering.lowered.push(op.operation());
    }
    let rewriter = IrRewriter::from_op(lowering.root);
    for op in lowering.lowered.iter().rev() {
        rewriter.as_rewriter_base().erase_op(*op);
    }
    lowering.storage.cleanup(ops);
    Ok(lowering.stats)
}

/// How one side of a copy is reached at run time.
#[derive(Clone, Copy)]
pub(super) enum Handle<'c, 'a> {
    /// A register tensor: the thread's private memref.
    Regs(Value<'c, 'a>),
    /// Global or shared memory: the base address as `i64`.
    Memory { base: Value<'c, 'a>, space: AddressSpace },
    /// Tensor memory: the allocation's address (`!llvm.ptr<6>`).
    Tmem(Value<'c, 'a>),
}

/// What every instruction of one copy needs.
pub(super) struct Context<'c, 'a> {
    /// The scope-relative thread index (`index`).
    pub(super) t: Value<'c, 'a>,
    /// `thread_id x` (`index`), for barrier ids.
    tid: Value<'c, 'a>,
    scope: ExecScope,
    scope_threads: i64,
    pub(super) dtype: ElemType,
    /// The MLIR element type (`f16`, `f32`, ...).
    pub(super) element: String,
    /// Source and destination.
    pub(super) sides: [Handle<'c, 'a>; 2],
    /// The staging buffer of a register-to-register copy through shared memory.
    staging: Option<Handle<'c, 'a>>,
    /// Per side that is a region of a run-time-sized tensor: its coordinates (see [`region_address`]).
    pub(super) regions: [Option<Region<'c, 'a>>; 2],
    /// Offsets computed by the current step's unguarded issues, for the next ones to reuse (see [`Reuse`]).
    reuse: RefCell<Reuse<'c, 'a>>,
}

/// Values the issues of one step share. Issues differ mostly by a constant (the next 16 rows, the next 1024
/// elements): an offset `swizzle(f(t) + c)` is `swizzle(f(t)) + c` when `c` is a multiple of the swizzle's period,
/// and a region's `(row + dr, col + dc)` is at `address + (dr * W + dc) * bytes`; computing them from the first
/// issue's keeps one per-thread value live instead of one per issue. Only issues without an `only` guard (in the
/// step's own block) record or reuse, so every reused value dominates its uses.
#[derive(Default)]
struct Reuse<'c, 'a> {
    /// Whether the issue being emitted may record and reuse.
    open: bool,
    /// The first swizzled offset (base, value in elements) per side, terms, swizzle and base modulo its period.
    offsets: HashMap<OffsetKey, (i64, Value<'c, 'a>)>,
    /// The first region coordinates and address per side and row and column terms.
    regions: HashMap<(usize, Vec<ThreadTerm>, Vec<ThreadTerm>), RegionValues<'c, 'a>>,
}

/// What makes two issues' offsets differ by a constant the swizzle keeps: side, terms, swizzle, base modulo the
/// swizzle's period (O(1) lookups, so a step of many issues stays linear).
type OffsetKey = (usize, Vec<ThreadTerm>, Option<Swizzle>, i64);

/// One issue's region coordinates and address, as recorded in [`Reuse`].
#[derive(Clone, Copy)]
struct RegionValues<'c, 'a> {
    bases: (i64, i64),
    row: Value<'c, 'a>,
    col: Value<'c, 'a>,
    address: Value<'c, 'a>,
}

/// A side that is a region of a row-major tensor with run-time extents: per issue the plan's row and column
/// formulas, the region's origin, the tensor's row count and row stride (its column count), all `index`.
pub(super) struct Region<'c, 'a> {
    issues: Vec<RegionCoord>,
    origin: [Value<'c, 'a>; 2],
    rows: Value<'c, 'a>,
    stride: Value<'c, 'a>,
}

/// For side `which` when it is a run-time-sized region: issue `index`'s address in this thread, `base +
/// ((row0 + row(t)) * W + col0 + col(t)) * bytes` (`i64`), and whether the access is inside the tensor
/// (`row0 + row(t) < rows` and `col0 + col(t) < W`; the plan's rule makes W a multiple of the vector).
pub(super) fn region_address<'c, 'a>(
    b: &Builder<'c, 'a>,
    cx: &Context<'c, 'a>,
    which: usize,
    index: usize,
) -> Result<Option<(Value<'c, 'a>, Value<'c, 'a>)>, String> {
    let Some(region) = &cx.regions[which] else { return Ok(None) };
    let coord = region.issues.get(index).ok_or("copy: internal: an issue without coordinates")?;
    let terms = (coord.row.terms.clone(), coord.col.terms.clone());
    let bases = (coord.row.base, coord.col.base);

    let key = (which, terms.0, terms.1);
    let earlier = {
        let reuse = cx.reuse.borrow();
        reuse.regions.get(&key).filter(|_| reuse.open).map(|r| (r.row, r.col, r.address, r.bases))
    };
    let (row, col, address) = match earlier {
        Some((row, col, address, (r0, c0))) => {
            let (dr, dc) = (bases.0 - r0, bases.1 - c0);
            let row = b.addi(row, b.index(dr)?)?;
            let col = b.addi(col, b.index(dc)?)?;
            let rows = b.muli(region.stride, b.index(dr)?)?;
            let delta = b.addi(rows, b.index(dc)?)?;
            let delta = b.muli(delta, b.index(cx.dtype.bytes())?)?;
            let delta = b.index_cast(delta, Ty::I64)?;
            (row, col, b.addi(address, delta)?)
        }
        None => {
            let row = per_thread(b, cx.t, &coord.row)?;
            let row = b.addi(region.origin[0], row)?;
            let col = per_thread(b, cx.t, &coord.col)?;
            let col = b.addi(region.origin[1], col)?;
            let element = b.muli(row, region.stride)?;
            let element = b.addi(element, col)?;
            let bytes = b.muli(element, b.index(cx.dtype.bytes())?)?;
            let bytes = b.index_cast(bytes, Ty::I64)?;
            let (base, _) = memory(cx, which)?;
            let address = b.addi(base, bytes)?;
            let mut reuse = cx.reuse.borrow_mut();
            if reuse.open {
                reuse.regions.insert(key, RegionValues { bases, row, col, address });
            }
            (row, col, address)
        }
    };
    let below = b.cmpi(Cmp::Slt, row, region.rows)?;
    let left = b.cmpi(Cmp::Slt, col, region.stride)?;
    let inside = b.andi(below, left)?;
    Ok(Some((address, inside)))
}

impl<'c, 'a> Lowering<'c, 'a> {
    /// Records that the alloc under `traced` (if any) is lowered here, with the shared alignment `alignment`.
    fn need(&mut self, traced: &Traced<'c, 'a>, alignment: i64) {
        if let Source::Alloc(alloc) = traced.source {
            let need = if traced.tensor.mem == Memory::Shared { alignment } else { 0 };
            let entry = self.needed.entry(access::key(alloc.operation())).or_insert(0);
            *entry = (*entry).max(need);
        }
    }

    /// The run-time handle of one side: registers, a memory base address, or a tensor-memory address.
    fn handle(
        &mut self,
        b: &Builder<'c, 'a>,
        traced: &Traced<'c, 'a>,
        alignment: Option<i64>,
    ) -> Result<Handle<'c, 'a>, String> {
        match traced.tensor.mem {
            Memory::Reg => Ok(Handle::Regs(self.storage.memref_of(traced)?)),
            Memory::Tmem => Ok(Handle::Tmem(self.storage.tmem_of(traced)?)),
            trn @ (Memory::Hbm | Memory::Sbuf | Memory::Psum) => {
                Err(format!("a {trn} tensor is Trainium's: `axe-translate --emit=nki` emits its copies"))
            }
            Memory::Shared => {
                let memref = self.storage.memref_of(traced)?;
                if let Source::Memref(view) = traced.source {
                    self.storage.align_global(view, alignment.unwrap_or(16).max(16))?;
                }
                Ok(Handle::Memory { base: Storage::address(b, memref)?, space: AddressSpace::Shared })
            }
            Memory::Global => {
                let base = match traced.source {
                    Source::Pointer(pointer) => {
                        let global = if pointer.r#type().to_string() == "!llvm.ptr<1>" {
                            pointer
                        } else {
                            b.addrspacecast(pointer, AddressSpace::Global)?
                        };
                        b.ptrtoint(global, Ty::I64)?
                    }
                    _ => {
                        let memref = self.storage.memref_of(traced)?;
                        let generic = b.inttoptr(Storage::address(b, memref)?, AddressSpace::Generic)?;
                        let global = b.addrspacecast(generic, AddressSpace::Global)?;
                        b.ptrtoint(global, Ty::I64)?
                    }
                };
                Ok(Handle::Memory { base, space: AddressSpace::Global })
            }
        }
    }

    /// The scope-relative thread index: 0 at thread scope, `tid % 32` at warp scope, `tid % 128` at warpgroup
    /// scope, `tid` at CTA scope (one-dimensional blocks).
    fn thread_index(
        &mut self,
        b: &Builder<'c, 'a>,
        op: OperationRef<'c, 'a>,
        scope: ExecScope,
    ) -> Result<(Value<'c, 'a>, Value<'c, 'a>), String> {
        let tid = self.storage.tid(op)?;
        let t = match scope {
            ExecScope::Thread => b.index(0)?,
            ExecScope::Warp => b.remui(tid, b.index(32)?)?,
            ExecScope::Warpgroup => b.remui(tid, b.index(128)?)?,
            ExecScope::Cta => tid,
            other => {
                return Err(format!(
                    "copy: scope: copies run at thread, warp, warpgroup or cta scope, got {}",
                    other.name()
                ))
            }
        };
        Ok((t, tid))
    }

    /// Lowers one planned copy.
    fn copy(&mut self, copy: &PlannedCopy<'c, 'a>) -> Result<(), String> {
        let operation = copy.op.operation();
        let b = Builder::before(operation)?;
        let (t, tid) = self.thread_index(&b, operation, copy.scope)?;
        let mut src = self.handle(&b, &copy.sides[0], copy.plan.src_base_alignment_bytes)?;
        let mut dst = self.handle(&b, &copy.sides[1], copy.plan.dst_base_alignment_bytes)?;
        // Run-time slice offsets: the plan's terms `elements * (value / divisor)` move the side's base (after the
        // swizzle, which the plan's rule makes equivalent), in bytes.
        for term in &copy.plan.dynamic {
            let value =
                *copy.offsets.get(term.offset).ok_or("copy: internal: an address term names a missing offset")?;
            let side = match term.side {
                CopySide::Src => &mut src,
                CopySide::Dst => &mut dst,
            };
            let Handle::Memory { base, space } = *side else {
                return Err("copy: internal: an address term on a side that is not memory".to_string());
            };
            let mut steps = value;
            if term.divisor != 1 {
                steps = b.divui(steps, b.index(term.divisor)?)?;
            }
            let bytes = term.elements.checked_mul(copy.dtype.bytes()).ok_or("copy: internal: term overflows")?;
            let moved = b.muli(steps, b.index(bytes)?)?;
            let moved = b.index_cast(moved, Ty::I64)?;
            *side = Handle::Memory { base: b.addi(base, moved)?, space };
        }
        let staging = match &copy.plan.staging {
            Some(staging) => Some(self.staging(operation, &b, staging)?),
            None => None,
        };
        let mut regions = [None, None];
        for coords in &copy.plan.coords {
            let which = usize::from(coords.side == CopySide::Dst);
            let row_major = copy.row_major[which].as_ref().ok_or("copy: internal: coordinates without a region")?;
            let int = |i: &Int<'c, 'a>| -> Result<Value<'c, 'a>, String> {
                match i {
                    Int::Static(n) => b.index(*n),
                    Int::Value(v) if v.r#type().to_string() == "index" => Ok(*v),
                    Int::Value(v) => b.index_castui(*v, Ty::Index),
                }
            };
            regions[which] = Some(Region {
                issues: coords.issues.clone(),
                origin: [int(&row_major.origin[0])?, int(&row_major.origin[1])?],
                rows: int(&row_major.extents[0])?,
                stride: int(&row_major.extents[1])?,
            });
        }
        let context = Context {
            reuse: RefCell::new(Reuse::default()),
            regions,
            t,
            tid,
            scope: copy.scope,
            scope_threads: copy.plan.scope_threads,
            dtype: copy.dtype,
            element: copy.sides[0].tensor.dtype.to_string(),
            sides: [src, dst],
            staging,
        };
        for step in &copy.plan.steps {
            if copy.group {
                // Part of the kernel's current cp.async group: its commit_group, wait_group and barrier complete it.
                let group = CopyStep { completion: Completion::None, ..step.clone() };
                step_ops(&b, &context, &group)?;
                self.stats.instructions += step.issues.len();
                continue;
            }
            step_ops(&b, &context, step)?;
            self.stats.instructions += step.issues.len();
        }
        // The staging buffer is this copy's: the barrier that orders its writes before its reads also orders the
        // reads before the next execution's writes (a copy in a loop).
        if let (Some(_), Some(first)) = (&copy.plan.staging, copy.plan.steps.first()) {
            match first.completion {
                Completion::Barrier { threads: Some(threads) } => {
                    let condition = thread_set(&b, t, &first.threads)?;
                    match condition {
                        Some(c) => b.guarded(c, |g| barrier(g, &context, &first.threads, threads))?,
                        None => barrier(&b, &context, &first.threads, threads)?,
                    }
                }
                Completion::Barrier { threads: None } => {
                    barrier(&b, &context, &ThreadSet::default(), copy.plan.scope_threads)?
                }
                _ => {}
            }
        }
        self.stats.copies += 1;
        Ok(())
    }

    /// The staging buffer: a new shared global of the plan's bytes and alignment.
    fn staging(
        &mut self,
        op: OperationRef<'c, 'a>,
        b: &Builder<'c, 'a>,
        staging: &Staging,
    ) -> Result<Handle<'c, 'a>, String> {
        let ty = memref_type(staging.bytes.max(1), "i8", WORKGROUP);
        let buffer = self.storage.new_shared_global(op, b, &ty, staging.alignment_bytes.max(16))?;
        Ok(Handle::Memory { base: Storage::address(b, buffer)?, space: AddressSpace::Shared })
    }

    /// Lowers one elementwise op: per register the layout holds, load, convert or compute, store.
    fn elementwise(&mut self, planned: &PlannedElementwise<'c, 'a>) -> Result<(), String> {
        let op = planned.op;
        let b = Builder::before(op.operation())?;
        let memrefs = planned.tensors.iter().map(|t| self.storage.memref_of(t)).collect::<Result<Vec<_>, String>>()?;
        let names: Vec<String> = planned.tensors.iter().map(|t| t.tensor.dtype.to_string()).collect();
        let dtypes: Vec<&str> = names.iter().map(String::as_str).collect();
        let alpha = match op.kind() {
            OpKind::Scale => Some(op.operand(2).ok_or("copy: axe.scale has no alpha")?),
            _ => None,
        };
        let (out, out_dtype) = (memrefs[memrefs.len() - 1], dtypes[dtypes.len() - 1]);
        // f32 -> f16/bf16 two registers at a time: one `fptrunc <2 x float>` that LLVM's NVPTX backend selects as
        // `cvt.rn.f16x2.f32` / `cvt.rn.bf16x2.f32` (PTX ISA `cvt`, sm_80+), one instruction per pair, where
        // scalar truncations take a cvt each plus a `mov.b32` to pack the pair the store then reads. The pairs are
        // consecutive registers of the layout (slots 2i and 2i + 1 in the usual packed order); each element is
        // still rounded on its own (round to nearest even), so the pairing changes no value.
        if op.kind() == OpKind::Cast && dtypes[0] == "f32" && matches!(out_dtype, "f16" | "bf16") {
            let pairs = planned.registers.chunks_exact(2);
            let rest = pairs.remainder().to_vec();
            for pair in pairs {
                let wide = read(&b, memrefs[0], pair, "f32")?;
                let narrow = b.truncf(wide, b.ty(&vector_type(2, out_dtype))?)?;
                write(&b, out, pair, narrow, out_dtype)?;
            }
            for &r in &rest {
                let index = b.index(r)?;
                let value = b.load(memrefs[0], &[index])?;
                let value = convert(&b, value, "f32", out_dtype)?;
                b.store(value, out, &[index])?;
            }
            self.stats.elementwise += 1;
            return Ok(());
        }
        // f32 -> e4m3/e5m2 two registers at a time: `cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 d, a, b` (PTX ISA
        // `cvt`, sm_89+), which rounds each to nearest even and saturates to the largest finite value (an infinity
        // too; NaN stays NaN), `a` into d's upper byte and `b` into its lower one; as a vector<2xi8> the lower
        // byte is element 0. So register 2i goes in as `b`, 2i + 1 as `a`. An odd last register converts with
        // itself.
        if op.kind() == OpKind::Cast && dtypes[0] == "f32" && out_dtype.starts_with("f8") {
            let attributes = [
                ("rnd", "#nvvm.fp_rnd_mode<rn>".to_string()),
                ("sat", "#nvvm.sat_mode<satfinite>".to_string()),
                ("dstTy", out_dtype.to_string()),
            ];
            for pair in planned.registers.chunks(2) {
                let (low, high) = (pair[0], pair[pair.len() - 1]);
                let lo = b.load(memrefs[0], &[b.index(low)?])?;
                let hi = if high == low { lo } else { b.load(memrefs[0], &[b.index(high)?])? };
                let packed = b.value("nvvm.convert.f32x2.to.f8x2", &[hi, lo], b.ty("vector<2xi8>")?, &attributes)?;
                for (lane, &r) in pair.iter().enumerate() {
                    let byte = b.extractelement(packed, b.constant(lane as i64, Ty::I32)?)?;
                    store_register(&b, byte, out, r, out_dtype)?;
                }
            }
            self.stats.elementwise += 1;
            return Ok(());
        }
        for (slot, &r) in planned.registers.iter().enumerate() {
            let index = b.index(r)?;
            // Each operand's register for this one: the same index unless the operand broadcasts or is laid out
            // otherwise.
            let at = |read: i64| if read == r { Ok(index) } else { b.index(read) };
            let inputs = memrefs[..memrefs.len() - 1]
                .iter()
                .zip(&planned.reads)
                .map(|(m, reads)| b.load(*m, &[at(reads[slot])?]))
                .collect::<Result<Vec<_>, String>>()?;
            let wide = |i: usize| convert(&b, inputs[i], dtypes[i], "f32");
            let value = match op.kind() {
                OpKind::Cast => convert(&b, inputs[0], dtypes[0], out_dtype)?,
                OpKind::Scale => {
                    let alpha = alpha.ok_or("copy: axe.scale has no alpha")?;
                    convert(&b, b.mulf(alpha, wide(0)?)?, "f32", out_dtype)?
                }
                OpKind::Add => convert(&b, b.addf(wide(0)?, wide(1)?)?, "f32", out_dtype)?,
                OpKind::Mul => convert(&b, b.mulf(wide(0)?, wide(1)?)?, "f32", out_dtype)?,
                OpKind::Sub => convert(&b, b.subf(wide(0)?, wide(1)?)?, "f32", out_dtype)?,
                OpKind::Max => convert(&b, b.maximumf(wide(0)?, wide(1)?)?, "f32", out_dtype)?,
                OpKind::Div => convert(&b, b.divf(wide(0)?, wide(1)?)?, "f32", out_dtype)?,
                OpKind::Fma => convert(&b, b.fma(wide(0)?, wide(1)?, wide(2)?)?, "f32", out_dtype)?,
                other => return Err(format!("copy: internal: {} is not elementwise", other.name())),
            };
            b.store(value, out, &[index])?;
        }
        self.stats.elementwise += 1;
        Ok(())
    }
}

/// `value` of float type `from` as `to`: itself, `arith.extf` (widening) or `arith.truncf` (narrowing, round to
/// nearest even).
fn convert<'c, 'a>(b: &Builder<'c, 'a>, value: Value<'c, 'a>, from: &str, to: &str) -> Result<Value<'c, 'a>, String> {
    let bits = |t: &str| match t {
        "f32" => Ok(32),
        "f16" | "bf16" => Ok(16),
        other => Err(format!("copy: internal: {other} is not a float type cast, scale and add take")),
    };
    match bits(from)?.cmp(&bits(to)?) {
        std::cmp::Ordering::Equal if from == to => Ok(value),
        std::cmp::Ordering::Less => b.extf(value, b.ty(to)?),
        std::cmp::Ordering::Greater => b.truncf(value, b.ty(to)?),
        std::cmp::Ordering::Equal => Err(format!("copy: internal: no direct cast from {from} to {to}")),
    }
}

/// One step: its instructions under the guard of its thread set, then its completion.
fn step_ops<'c, 'a>(b: &Builder<'c, 'a>, cx: &Context<'c, 'a>, step: &CopyStep) -> Result<(), String> {
    let participants = count(&step.threads, cx.scope_threads);
    let scope_wide = participants == cx.scope_threads;
    let body = |inner: &Builder<'c, 'a>| -> Result<(), String> {
        *cx.reuse.borrow_mut() = Reuse::default();
        for (index, issue) in step.issues.iter().enumerate() {
            cx.reuse.borrow_mut().open = issue.only.is_none();
            match (&issue.only, step.kind) {
                (Some(only), kind) if kind != CopyKind::Shuffle => {
                    let condition = thread_set(inner, cx.t, only)?.ok_or("copy: internal: empty only-set")?;
                    inner.guarded(condition, |g| instruction(g, cx, step, issue, index))?;
                }
                _ => instruction(inner, cx, step, issue, index)?,
            }
        }
        match step.completion {
            Completion::None => Ok(()),
            Completion::CpAsyncWaitAll => {
                inner.op("nvvm.cp.async.commit.group", &[], &[], &[])?;
                inner.op("nvvm.cp.async.wait.group", &[], &[], &[("n", "0 : i32".into())])?;
                if scope_wide {
                    Ok(())
                } else {
                    barrier(inner, cx, &step.threads, participants)
                }
            }
            Completion::Tcgen05WaitLd => inner.tcgen05_wait(Tcgen05Access::Load),
            Completion::Tcgen05WaitSt => inner.tcgen05_wait(Tcgen05Access::Store),
            Completion::Barrier { threads: Some(threads) } => barrier(inner, cx, &step.threads, threads),
            Completion::Barrier { threads: None } => Ok(()),
        }
    };
    match thread_set(b, cx.t, &step.threads)? {
        Some(condition) => b.guarded(condition, body)?,
        None => body(b)?,
    }
    // A barrier of the whole scope instance is executed by all its threads, outside the step's guard.
    let whole = match step.completion {
        Completion::CpAsyncWaitAll => scope_wide,
        Completion::Barrier { threads } => threads.is_none(),
        _ => false,
    };
    if whole {
        barrier(b, cx, &ThreadSet::default(), cx.scope_threads)?;
    }
    Ok(())
}

/// Each planned `axe.sync` (see [`Barrier`]); the op is erased. Named barrier ids are allocated per kernel: the
/// warpgroups' first (1 + the warpgroup), then one per range of warps in IR order, up to the hardware's 15.
pub(super) fn syncs<'c, 'a>(syncs: &[(AxeOp<'c, 'a>, Barrier)]) -> Result<(), Failure<'c>> {
    for (op, barrier) in syncs {
        let operation = op.operation();
        let at = |message: String| (operation.location(), message);
        let b = Builder::before(operation).map_err(at)?;
        let kernel = axe_dialect::ops::enclosing_function(operation)
            .ok_or_else(|| at("copy: axe.sync outside a function".into()))?;
        let block = crate::ir::kernel::known_block(kernel);
        let named = |id: Value<'c, 'a>, threads: i64| -> Result<(), String> {
            let count = b.constant(threads, Ty::I32)?;
            b.op("nvvm.barrier", &[id, count], &[], &[("operandSegmentSizes", segments(&[1, 1, 0]))]).map(drop)
        };
        match *barrier {
            Barrier::Cta => b.barrier().map_err(at)?,
            Barrier::Lanes(mask) => {
                let mask = b.constant(i64::from(mask as i32), Ty::I32).map_err(at)?;
                b.op("nvvm.bar.warp.sync", &[mask], &[], &[]).map_err(at)?;
            }
            Barrier::Warpgroup => {
                let tid = b.linear_thread_id(&block).map_err(at)?;
                let group = b.divui(tid, b.index(128).map_err(at)?).map_err(at)?;
                let id = b.addi(group, b.index(1).map_err(at)?).map_err(at)?;
                let id = b.index_cast(id, Ty::I32).map_err(at)?;
                named(id, 128).map_err(at)?;
            }
            Barrier::Warps(first, end) => {
                let id = crate::ir::named_barriers::range_id(kernel, first, end)
                    .map_err(|m| at(format!("copy: axe.sync cta(warpid[{first}:{end}]): {m}")))?;
                let id = b.constant(id, Ty::I32).map_err(at)?;
                named(id, 32 * (end - first)).map_err(at)?;
            }
        }
        IrRewriter::from_op(operation).as_rewriter_base().erase_op(operation);
    }
    Ok(())
}

/// The threads of `set` among `0..scope_threads`.
fn count(set: &ThreadSet, scope_threads: i64) -> i64 {
    (0..scope_threads).filter(|&t| set.contains(t)).count() as i64
}

/// A barrier of `threads` threads of `set` (the whole scope for an empty set): none at thread scope;
/// `bar.warp.sync` of the set's lanes at warp scope; `gpu.barrier` (`bar.sync 0`) for a whole CTA; else a named
/// `nvvm.barrier` of `threads` (a multiple of 32) with id 1 + the warpgroup of the first participating thread (at
/// warpgroup scope, of the running warpgroup).
fn barrier<'c, 'a>(b: &Builder<'c, 'a>, cx: &Context<'c, 'a>, set: &ThreadSet, threads: i64) -> Result<(), String> {
    match cx.scope {
        ExecScope::Thread => Ok(()),
        ExecScope::Warp => {
            let mask = (0..32).filter(|&lane| set.contains(lane)).fold(0u32, |m, lane| m | (1u32 << lane));
            let mask = b.constant(i64::from(mask as i32), Ty::I32)?;
            b.op("nvvm.bar.warp.sync", &[mask], &[], &[]).map(drop)
        }
        ExecScope::Cta if threads == cx.scope_threads => b.barrier(),
        _ => {
            if threads % 32 != 0 || threads < 32 {
                return Err(format!("copy: internal: a named barrier of {threads} threads (needs a multiple of 32)"));
            }
            let first = (0..cx.scope_threads).find(|&t| set.contains(t)).unwrap_or(0);
            let id = match cx.scope {
                ExecScope::Warpgroup => {
                    let wg = b.divui(cx.tid, b.index(128)?)?;
                    let id = b.addi(wg, b.index(1)?)?;
                    b.index_cast(id, Ty::I32)?
                }
                _ => b.constant(1 + first / 128, Ty::I32)?,
            };
            let count = b.constant(threads, Ty::I32)?;
            b.op("nvvm.barrier", &[id, count], &[], &[("operandSegmentSizes", segments(&[1, 1, 0]))]).map(drop)
        }
    }
}

/// `i1`: every condition of `set` holds for `t` (`None` when the set has no condition).
pub(super) fn thread_set<'c, 'a>(
    b: &Builder<'c, 'a>,
    t: Value<'c, 'a>,
    set: &ThreadSet,
) -> Result<Option<Value<'c, 'a>>, String> {
    let mut all: Option<Value<'c, 'a>> = None;
    for cond in &set.conds {
        let mut q = if cond.div > 1 { b.divui(t, b.index(cond.div)?)? } else { t };
        if let Some(m) = cond.modulus {
            q = b.remui(q, b.index(m)?)?;
        }
        let mut checks = Vec::new();
        if cond.begin > 0 {
            // uge
            checks.push(b.cmpi(Cmp::Uge, q, b.index(cond.begin)?)?);
        }
        // ult
        checks.push(b.cmpi(Cmp::Ult, q, b.index(cond.end)?)?);
        for check in checks {
            all = Some(match all {
                Some(prev) => b.andi(prev, check)?,
                None => check,
            });
        }
    }
    Ok(all)
}

/// A [`PerThread`] value as `index`: `base + sum of ((t / div) % modulus) * coef`.
pub(super) fn per_thread<'c, 'a>(
    b: &Builder<'c, 'a>,
    t: Value<'c, 'a>,
    value: &PerThread,
) -> Result<Value<'c, 'a>, String> {
    let mut sum = b.index(value.base)?;
    for term in &value.terms {
        let mut q = if term.div > 1 { b.divui(t, b.index(term.div)?)? } else { t };
        if let Some(m) = term.modulus {
            q = b.remui(q, b.index(m)?)?;
        }
        let scaled = if term.coef == 1 { q } else { b.muli(q, b.index(term.coef)?)? };
        sum = b.addi(sum, scaled)?;
    }
    Ok(sum)
}

/// `Swizzle(M,B,S)` of an element offset: `a ^ (((a >> (M+S)) & (2^B - 1)) << M)`.
fn swizzle<'c, 'a>(b: &Builder<'c, 'a>, a: Value<'c, 'a>, s: Swizzle) -> Result<Value<'c, 'a>, String> {
    let shifted = b.shrui(a, b.index(i64::from(s.per_element + s.atom_len))?)?;
    let bits = b.andi(shifted, b.index((1i64 << s.swizzle_len) - 1)?)?;
    let moved = b.shli(bits, b.index(i64::from(s.per_element))?)?;
    b.xori(a, moved)
}

/// The memory handle a `Mem` operand of side `which` (0 source, 1 destination) addresses: the side's memory, or
/// the staging buffer when that side is registers.
pub(super) fn memory<'c, 'a>(cx: &Context<'c, 'a>, which: usize) -> Result<(Value<'c, 'a>, AddressSpace), String> {
    match (cx.sides[which], cx.staging) {
        (Handle::Memory { base, space }, _) | (_, Some(Handle::Memory { base, space })) => Ok((base, space)),
        _ => Err("copy: internal: a memory operand on a side without memory".to_string()),
    }
}

/// The pointer (`!llvm.ptr<space>`) a `Mem` operand of side `which` reaches in thread `t`.
pub(super) fn pointer<'c, 'a>(
    b: &Builder<'c, 'a>,
    cx: &Context<'c, 'a>,
    which: usize,
    operand: &Operand,
    swizzled: Option<Swizzle>,
) -> Result<Value<'c, 'a>, String> {
    let Operand::Mem(offset) = operand else {
        return Err("copy: internal: expected a memory operand".to_string());
    };
    let (base, space) = memory(cx, which)?;
    let period = swizzled.map_or(1, |s| s.period()).max(1);
    let key = (which, offset.terms.clone(), swizzled, offset.base.rem_euclid(period));
    let earlier = {
        let reuse = cx.reuse.borrow();
        reuse.offsets.get(&key).filter(|_| reuse.open).copied()
    };
    let element = match earlier {
        Some((b0, v)) => b.addi(v, b.index(offset.base - b0)?)?,
        None => {
            let mut element = per_thread(b, cx.t, offset)?;
            if let Some(s) = swizzled {
                element = swizzle(b, element, s)?;
            }
            let mut reuse = cx.reuse.borrow_mut();
            if reuse.open {
                reuse.offsets.insert(key, (offset.base, element));
            }
            element
        }
    };
    let bytes = b.muli(element, b.index(cx.dtype.bytes())?)?;
    let bytes = b.index_cast(bytes, Ty::I64)?;
    let address = b.addi(base, bytes)?;
    b.inttoptr(address, space)
}

/// The private memref of side `which` (registers).
pub(super) fn registers<'c, 'a>(cx: &Context<'c, 'a>, which: usize) -> Result<Value<'c, 'a>, String> {
    match cx.sides[which] {
        Handle::Regs(memref) => Ok(memref),
        _ => Err("copy: internal: a register operand on a side that is not registers".to_string()),
    }
}

/// `vector<n x element>`, or the element itself for one.
pub(super) fn vector_type(n: usize, element: &str) -> String {
    let element = llvm_element(element);
    if n == 1 {
        element.to_string()
    } else {
        format!("vector<{n}x{element}>")
    }
}

/// The type an element moves as in LLVM: itself, or `i8` for the FP8 types (LLVM has none; MLIR's conversion
/// to the LLVM dialect stores them as `i8` too).
fn llvm_element(element: &str) -> &str {
    if is_fp8(element) {
        "i8"
    } else {
        element
    }
}

fn is_fp8(element: &str) -> bool {
    matches!(element, "f8E4M3FN" | "f8E5M2")
}

/// Register `slot` of `memref` (of `element`s) loaded as it moves ([`llvm_element`]): an FP8 code bit-cast to `i8`.
fn load_register<'c, 'a>(
    b: &Builder<'c, 'a>,
    memref: Value<'c, 'a>,
    slot: i64,
    element: &str,
) -> Result<Value<'c, 'a>, String> {
    let value = b.load(memref, &[b.index(slot)?])?;
    if is_fp8(element) {
        b.bitcast(value, Ty::Int(8))
    } else {
        Ok(value)
    }
}

/// Stores `value` (as it moved) into register `slot` of `memref` (of `element`s): an `i8` bit-cast back to the FP8
/// type.
fn store_register<'c, 'a>(
    b: &Builder<'c, 'a>,
    value: Value<'c, 'a>,
    memref: Value<'c, 'a>,
    slot: i64,
    element: &str,
) -> Result<(), String> {
    let value = if is_fp8(element) { b.bitcast(value, b.ty(element)?)? } else { value };
    b.store(value, memref, &[b.index(slot)?])
}

/// The registers `slots` as one `vector<n x element>` (or one element; FP8 as `i8`), loaded one by one: scalar accesses are
/// what LLVM promotes the private memref to registers for (a vector access beside scalar ones can leave it in
/// local memory).
pub(super) fn read<'c, 'a>(
    b: &Builder<'c, 'a>,
    memref: Value<'c, 'a>,
    slots: &[i64],
    element: &str,
) -> Result<Value<'c, 'a>, String> {
    let ty = vector_type(slots.len(), element);
    match slots {
        [] => Err("copy: internal: no registers".to_string()),
        [one] => load_register(b, memref, *one, element),
        _ => {
            let mut vector = b.undef(b.ty(&ty)?)?;
            for (i, &slot) in slots.iter().enumerate() {
                let value = load_register(b, memref, slot, element)?;
                vector = b.insertelement(vector, value, b.constant(i as i64, Ty::I32)?)?;
            }
            Ok(vector)
        }
    }
}

/// Stores `value` (a `vector<n x element>` or one element) into the registers `slots`, one by one.
pub(super) fn write<'c, 'a>(
    b: &Builder<'c, 'a>,
    memref: Value<'c, 'a>,
    slots: &[i64],
    value: Value<'c, 'a>,
    element: &str,
) -> Result<(), String> {
    match slots {
        [] => Err("copy: internal: no registers".to_string()),
        [one] => store_register(b, value, memref, *one, element),
        _ => {
            for (i, &slot) in slots.iter().enumerate() {
                let item = b.extractelement(value, b.constant(i as i64, Ty::I32)?)?;
                store_register(b, item, memref, slot, element)?;
            }
            Ok(())
        }
    }
}
