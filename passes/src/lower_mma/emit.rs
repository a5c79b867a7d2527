//! The rewrite of `--lower-mma`: register, shared and tensor-memory storage, fills, planned gemms and tensor-memory
//! loads become upstream `memref`/`arith`/`scf`/`llvm`/`nvvm` ops, in IR order; then the lowered ops and the allocs
//! and views left without uses are erased. Every number (registers, descriptors, idesc, addresses, columns,
//! issuing warps, alignment) comes from the plans.

use super::{LowerMmaStats, PlannedGemm, Source, TmemLoad, Traced};
use crate::lower_tma::build::{segments, Builder, WORKGROUP};
use axe_dialect::{
    access::{self, OpKey},
    ffi,
    ops::enclosing_function,
    AxeOp, MemScope, OpKind,
};
use axe_layout::{
    mma::{Access, DType, Family, MmaIssue, SmemDesc},
    Axis,
};
use melior::{
    ir::{block::BlockLike, operation::OperationLike, Location, OperationRef, Value, ValueLike},
    IrRewriter,
};
use std::collections::{BTreeMap, HashMap, HashSet};

/// A failure during the rewrite: where and why.
type Failure<'c> = (Location<'c>, String);

/// The private address space of per-thread register storage.
const PRIVATE: &str = "#gpu.address_space<private>";
/// Suspend-time hint of `mbarrier.try_wait.parity` in nanoseconds (as `--lower-tma`).
const TRY_WAIT_TICKS: i64 = 10_000_000;
/// The 14-bit start-address field of a matrix descriptor holds `address >> 4`.
const DESC_ADDRESS_MASK: i64 = 0x3FFF;

/// Per-kernel values created at the entry, before the kernel's original first op.
struct Function<'c, 'a> {
    op: OperationRef<'c, 'a>,
    anchor: OperationRef<'c, 'a>,
    tid: Option<Value<'c, 'a>>,
    /// The tcgen05 completion mbarrier (`!llvm.ptr<3>`) and its phase local (`memref<1xi32>`).
    barrier: Option<(Value<'c, 'a>, Value<'c, 'a>)>,
}

/// The state of one rewrite.
struct Lowering<'c, 'a> {
    root: OperationRef<'c, 'a>,
    functions: Vec<Function<'c, 'a>>,
    function_index: HashMap<OpKey, usize>,
    /// The memref of each lowered register or shared `axe.alloc`.
    storage: HashMap<OpKey, Value<'c, 'a>>,
    /// The tensor-memory address (`!llvm.ptr<6>`) of each lowered tensor-memory `axe.alloc`.
    tmem: HashMap<OpKey, Value<'c, 'a>>,
    /// Per alloc the pass lowers: the shared alignment or tensor-memory columns it needs (0 for registers).
    needed: BTreeMap<OpKey, i64>,
    /// Tensor-memory allocs zeroed by a fill and not yet written by a gemm.
    zeroed: HashSet<OpKey>,
    /// `memref.global` ops by symbol name, built on first use.
    globals: Option<HashMap<String, OperationRef<'c, 'a>>>,
    global_count: usize,
    lowered: Vec<OperationRef<'c, 'a>>,
    stats: LowerMmaStats,
}

/// Lowers `ops` (every axe op under `root`, in IR order) with the plans in `gemms` and `loads`.
pub(super) fn rewrite<'c, 'a>(
    root: OperationRef<'c, 'a>,
    ops: &[AxeOp<'c, 'a>],
    gemms: &[PlannedGemm<'c, 'a>],
    loads: &[TmemLoad<'c, 'a>],
) -> Result<LowerMmaStats, Failure<'c>> {
    let mut lowering = Lowering {
        root,
        functions: Vec::new(),
        function_index: HashMap::new(),
        storage: HashMap::new(),
        tmem: HashMap::new(),
        needed: BTreeMap::new(),
        zeroed: HashSet::new(),
        globals: None,
        global_count: 0,
        lowered: Vec::new(),
        stats: LowerMmaStats::default(),
    };
    for gemm in gemms {
        for traced in &gemm.operands {
            let Source::Alloc(alloc) = traced.source else { continue };
            let need = match traced.tensor.mem {
                MemScope::Shared => gemm.plan.shared_base_alignment_bytes.unwrap_or(16).max(16),
                MemScope::Tmem => i64::from(gemm.plan.tmem_columns.unwrap_or(32)),
                _ => 0,
            };
            let entry = lowering.needed.entry(access::key(alloc.operation())).or_insert(0);
            *entry = (*entry).max(need);
        }
    }
    for load in loads {
        // A tensor-memory alloc only loaded from still covers the columns the load reads.
        let columns = axe_layout::mma::tmem::alloc_columns(load.column + load.columns);
        for (traced, need) in [(&load.tmem, columns), (&load.regs, 0)] {
            if let Source::Alloc(alloc) = traced.source {
                let entry = lowering.needed.entry(access::key(alloc.operation())).or_insert(0);
                *entry = (*entry).max(need);
            }
        }
    }
    for op in ops.iter().filter(|op| op.kind() == OpKind::Fill) {
        if let Some(Source::Alloc(alloc)) = fill_target(*op).map(|t| t.source) {
            if alloc.tensor("result").is_some_and(|t| t.mem == MemScope::Reg) {
                lowering.needed.entry(access::key(alloc.operation())).or_insert(0);
            }
        }
    }
    let gemm_plans: HashMap<OpKey, &PlannedGemm> = gemms.iter().map(|g| (access::key(g.op.operation()), g)).collect();
    let load_plans: HashMap<OpKey, &TmemLoad> = loads.iter().map(|l| (access::key(l.op.operation()), l)).collect();
    for op in ops {
        let at = |message: String| (op.operation().location(), message);
        let key = access::key(op.operation());
        match op.kind() {
            OpKind::Alloc if lowering.needed.contains_key(&key) => {
                lowering.alloc(*op).map_err(at)?;
                continue;
            }
            OpKind::Fill => {
                if !lowering.fill(*op).map_err(at)? {
                    continue;
                }
            }
            OpKind::Gemm => {
                let Some(gemm) = gemm_plans.get(&key) else { continue };
                lowering.gemm(gemm).map_err(at)?;
            }
            OpKind::Copy => {
                let Some(load) = load_plans.get(&key) else { continue };
                lowering.tmem_load(load).map_err(at)?;
            }
            _ => continue,
        }
        lowering.lowered.push(op.operation());
    }
    lowering.cleanup(ops);
    Ok(lowering.stats)
}

/// The traced destination of a fill, when it is a tensor this pass can reach.
fn fill_target<'c, 'a>(op: AxeOp<'c, 'a>) -> Option<Traced<'c, 'a>> {
    op.operand(0).and_then(|v| super::trace("dest", v).ok())
}

/// `memref<N x element, space>` text.
fn memref(n: i64, element: &str, space: &str) -> String {
    format!("memref<{n}x{element}, {space}>")
}

/// Registers of a register tensor: the layout's span on `m` (at least 1).
fn register_count(traced: &Traced) -> i64 {
    traced.layout.tile().span_on(Axis::M).max(1)
}

impl<'c, 'a> Lowering<'c, 'a> {
    /// The index of the kernel-entry state of the function holding `op`.
    fn function(&mut self, op: OperationRef<'c, 'a>) -> Result<usize, String> {
        let func = enclosing_function(op).ok_or("mma: op is not inside a gpu.func or func.func")?;
        if let Some(&i) = self.function_index.get(&access::key(func)) {
            return Ok(i);
        }
        let entry = access::entry_block(func).ok_or("mma: function has no body")?;
        let anchor = entry.first_operation().ok_or("mma: function body is empty")?;
        self.functions.push(Function { op: func, anchor, tid: None, barrier: None });
        self.function_index.insert(access::key(func), self.functions.len() - 1);
        Ok(self.functions.len() - 1)
    }

    /// A builder at the entry of function `f`.
    fn entry(&self, f: usize) -> Result<Builder<'c, 'a>, String> {
        Ok(Builder::before(self.functions[f].anchor)?.at_location(self.functions[f].op.location()))
    }

    /// `gpu.thread_id x` of the function holding `op`, created at its entry.
    fn tid(&mut self, op: OperationRef<'c, 'a>) -> Result<Value<'c, 'a>, String> {
        let f = self.function(op)?;
        if let Some(tid) = self.functions[f].tid {
            return Ok(tid);
        }
        let b = self.entry(f)?;
        let tid = b.value("gpu.thread_id", &[], "index", &[("dimension", "#gpu<dim x>".into())])?;
        self.functions[f].tid = Some(tid);
        Ok(tid)
    }

    /// `i1`: `(tid / unit) % units == index` (`units` = None: no modulo).
    fn unit_is(
        &mut self,
        b: &Builder<'c, 'a>,
        op: OperationRef<'c, 'a>,
        unit: i64,
        units: Option<i64>,
        index: i64,
    ) -> Result<Value<'c, 'a>, String> {
        let tid = self.tid(op)?;
        let mut which = if unit == 1 { tid } else { b.value("arith.divui", &[tid, b.index(unit)?], "index", &[])? };
        if let Some(units) = units {
            which = b.value("arith.remui", &[which, b.index(units)?], "index", &[])?;
        }
        b.value("arith.cmpi", &[which, b.index(index)?], "i1", &[("predicate", "0 : i64".into())])
    }

    /// A new `memref.global` in the symbol table holding the function of `op`, and its `memref.get_global`.
    fn shared_global(
        &mut self,
        op: OperationRef<'c, 'a>,
        b: &Builder<'c, 'a>,
        ty: &str,
        alignment: i64,
    ) -> Result<Value<'c, 'a>, String> {
        let name = format!("__axe_mma_smem_{}", self.global_count);
        self.global_count += 1;
        let func = enclosing_function(op).ok_or("mma: op is not inside a function")?;
        let table = func.block().ok_or("mma: function is not in a module")?;
        Builder::at_start(self.root, table, op.location()).op(
            "memref.global",
            &[],
            &[],
            &[
                ("sym_name", format!("\"{name}\"")),
                ("sym_visibility", "\"private\"".into()),
                ("type", ty.to_string()),
                ("alignment", format!("{alignment} : i64")),
            ],
        )?;
        b.value("memref.get_global", &[], ty, &[("name", format!("@{name}"))])
    }

    /// The address of a workgroup memref as `i64` (the shared-window address).
    fn address(b: &Builder<'c, 'a>, memref: Value<'c, 'a>) -> Result<Value<'c, 'a>, String> {
        let index = b.value("memref.extract_aligned_pointer_as_index", &[memref], "index", &[])?;
        b.value("arith.index_cast", &[index], "i64", &[])
    }

    /// Lowers one alloc the plans use: registers, shared memory or tensor memory.
    fn alloc(&mut self, op: AxeOp<'c, 'a>) -> Result<(), String> {
        let operation = op.operation();
        let key = access::key(operation);
        let need = self.needed.get(&key).copied().unwrap_or(0);
        let tensor = op.tensor("result").ok_or("mma: alloc type does not read")?;
        let layout = match tensor.layout.parse() {
            Some(Ok(layout)) => layout,
            _ => return Err("mma: alloc layout does not parse".to_string()),
        };
        let b = Builder::before(operation)?;
        match tensor.mem {
            MemScope::Reg => {
                let ty = memref(layout.tile().span_on(Axis::M).max(1), &tensor.dtype, PRIVATE);
                let buffer = b.value("memref.alloca", &[], &ty, &[("operandSegmentSizes", segments(&[0, 0]))])?;
                self.storage.insert(key, buffer);
            }
            MemScope::Shared => {
                let dtype = DType::from_name(&tensor.dtype).ok_or("mma: shared alloc dtype is not a gemm type")?;
                let bytes = layout.tile().span_memory().max(1) * dtype.bytes();
                let buffer = self.shared_global(operation, &b, &memref(bytes, "i8", WORKGROUP), need.max(16))?;
                self.storage.insert(key, buffer);
            }
            MemScope::Tmem => {
                let address = self.tmem_alloc(op, need)?;
                self.tmem.insert(key, address);
            }
            other => return Err(format!("mma: internal: alloc in {other}")),
        }
        Ok(())
    }

    /// `tcgen05.alloc` of `columns` by warp 0 into a shared slot, the fences around a CTA barrier, the address
    /// read back; `tcgen05.dealloc` before every return of the kernel.
    fn tmem_alloc(&mut self, op: AxeOp<'c, 'a>, columns: i64) -> Result<Value<'c, 'a>, String> {
        let operation = op.operation();
        let f = self.function(operation)?;
        let func = self.functions[f].op;
        if operation.block() != access::entry_block(func) {
            return Err("mma: storage: a tensor-memory axe.alloc must be at the top level of its kernel".to_string());
        }
        let b = Builder::before(operation)?;
        let slot = self.shared_global(operation, &b, &memref(1, "i32", WORKGROUP), 16)?;
        let slot_address = Self::address(&b, slot)?;
        let slot_pointer = b.value("llvm.inttoptr", &[slot_address], "!llvm.ptr<3>", &[])?;
        let count = b.constant(columns, "i32")?;
        let warp0 = self.unit_is(&b, operation, 32, None, 0)?;
        let group = ("group", "#nvvm.cta_group<cta_1>".to_string());
        b.guarded(warp0, |t| {
            t.op("nvvm.tcgen05.alloc", &[slot_pointer, count], &[], std::slice::from_ref(&group))?;
            t.op("nvvm.tcgen05.relinquish_alloc_permit", &[], &[], std::slice::from_ref(&group)).map(drop)
        })?;
        Self::thread_sync(&b)?;
        let zero = b.index(0)?;
        let raw = b.value("memref.load", &[slot, zero], "i32", &[])?;
        let address = b.value("llvm.inttoptr", &[raw], "!llvm.ptr<6>", &[])?;
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
            r.op("nvvm.tcgen05.fence", &[], &[], &[("kind", "#nvvm.tcgen05_fence<before>".into())])?;
            r.op("gpu.barrier", &[], &[], &[])?;
            let warp0 = self.unit_is(&r, operation, 32, None, 0)?;
            let count = r.constant(columns, "i32")?;
            r.guarded(warp0, |t| {
                t.op("nvvm.tcgen05.dealloc", &[address, count], &[], std::slice::from_ref(&group)).map(drop)
            })?;
        }
        Ok(address)
    }

    /// `tcgen05.fence::before_thread_sync`, a CTA barrier, `tcgen05.fence::after_thread_sync`.
    fn thread_sync(b: &Builder<'c, 'a>) -> Result<(), String> {
        b.op("nvvm.tcgen05.fence", &[], &[], &[("kind", "#nvvm.tcgen05_fence<before>".into())])?;
        b.op("gpu.barrier", &[], &[], &[])?;
        b.op("nvvm.tcgen05.fence", &[], &[], &[("kind", "#nvvm.tcgen05_fence<after>".into())]).map(drop)
    }

    /// The memref holding a register or shared tensor.
    fn memref_of(&self, traced: &Traced<'c, 'a>) -> Result<Value<'c, 'a>, String> {
        match traced.source {
            Source::Memref(memref) => Ok(memref),
            Source::Alloc(alloc) => self
                .storage
                .get(&access::key(alloc.operation()))
                .copied()
                .ok_or_else(|| "mma: internal: the alloc was not lowered before its use".to_string()),
        }
    }

    /// Lowers a fill of registers (stores) or of a tensor-memory accumulator (marks it zeroed); false when the
    /// fill is not this pass's.
    fn fill(&mut self, op: AxeOp<'c, 'a>) -> Result<bool, String> {
        let Some(dest) = fill_target(op) else { return Ok(false) };
        match (dest.tensor.mem, dest.source) {
            (MemScope::Reg, _) => {
                let memref = self.memref_of(&dest)?;
                let value = op.operand(1).ok_or("mma: fill has no value")?;
                let b = Builder::before(op.operation())?;
                for i in 0..register_count(&dest) {
                    b.op("memref.store", &[value, memref, b.index(i)?], &[], &[])?;
                }
            }
            (MemScope::Tmem, Source::Alloc(alloc)) => {
                self.zeroed.insert(access::key(alloc.operation()));
            }
            _ => return Ok(false),
        }
        self.stats.fills += 1;
        Ok(true)
    }

    /// Raises the alignment of the `memref.global` behind a shared memref view to `alignment`.
    fn align_global(&mut self, memref: Value<'c, 'a>, alignment: i64) -> Result<(), String> {
        let getter = super::shared_global(memref).ok_or("mma: internal: shared memref without memref.get_global")?;
        let name = getter.attribute("name").map(|a| a.to_string()).map_err(|_| "mma: internal: get_global name")?;
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
        let global = *globals.get(&name).ok_or_else(|| format!("mma: internal: no memref.global {name}"))?;
        let current = global
            .attribute("alignment")
            .ok()
            .and_then(|a| a.to_string().split(':').next().and_then(|n| n.trim().parse::<i64>().ok()))
            .unwrap_or(1);
        if current < alignment {
            let value =
                ffi::parse_attribute(global, &format!("{alignment} : i64")).ok_or("mma: internal: alignment")?;
            ffi::set_attribute(global, "alignment", value);
        }
        Ok(())
    }

    /// The encoded base address `(address >> 4) & 0x3FFF` of a shared operand, as `i64`.
    fn encoded_base(
        &mut self,
        b: &Builder<'c, 'a>,
        gemm: &PlannedGemm<'c, 'a>,
        i: usize,
    ) -> Result<Value<'c, 'a>, String> {
        let traced = &gemm.operands[i];
        let memref = self.memref_of(traced)?;
        if let Source::Memref(view) = traced.source {
            self.align_global(view, gemm.plan.shared_base_alignment_bytes.unwrap_or(16))?;
        }
        let address = Self::address(b, memref)?;
        let shifted = b.value("arith.shrui", &[address, b.constant(4, "i64")?], "i64", &[])?;
        b.value("arith.andi", &[shifted, b.constant(DESC_ADDRESS_MASK, "i64")?], "i64", &[])
    }

    /// Lowers one planned gemm.
    fn gemm(&mut self, gemm: &PlannedGemm<'c, 'a>) -> Result<(), String> {
        match gemm.plan.family {
            Family::MmaSync => self.mma_sync(gemm)?,
            Family::Wgmma => self.wgmma(gemm)?,
            Family::Tcgen05 => self.tcgen05(gemm)?,
        }
        self.stats.gemms += 1;
        self.stats.instructions += gemm.plan.issues.len();
        Ok(())
    }

    /// Runs `body` for each issuing warp (group) of the plan, under a guard when the scope holds several.
    fn per_issuer(
        &mut self,
        gemm: &PlannedGemm<'c, 'a>,
        unit: i64,
        mut body: impl FnMut(&mut Self, &Builder<'c, 'a>, &[&MmaIssue]) -> Result<(), String>,
    ) -> Result<(), String> {
        let operation = gemm.op.operation();
        let b = Builder::before(operation)?;
        let mut groups: BTreeMap<i64, Vec<&MmaIssue>> = BTreeMap::new();
        for issue in &gemm.plan.issues {
            groups.entry(issue.thread_base).or_default().push(issue);
        }
        let scope_units = super::scope_threads(gemm.scope).map(|t| t / unit);
        for (thread_base, issues) in groups {
            if scope_units == Some(1) {
                body(self, &b, &issues)?;
                continue;
            }
            let condition = self.unit_is(&b, operation, unit, scope_units, thread_base / unit)?;
            // The guard's body needs `self`: build the scf.if, then fill its block.
            let mut result = Ok(());
            b.guarded(condition, |t| {
                result = body(self, t, &issues);
                Ok(())
            })?;
            result?;
        }
        Ok(())
    }

    /// `mma.sync`: per issue, load and pack the fragments, `nvvm.mma.sync`, store the accumulators.
    fn mma_sync(&mut self, gemm: &PlannedGemm<'c, 'a>) -> Result<(), String> {
        let mems = [self.memref_of(&gemm.operands[0])?, self.memref_of(&gemm.operands[1])?];
        let acc_mem = self.memref_of(&gemm.operands[2])?;
        let (dtype, acc) = (gemm.dtype, gemm.acc);
        let [m, n, k] = gemm.plan.inst_shape;
        self.per_issuer(gemm, 32, |_, b, issues| {
            for issue in issues {
                let mut operands = Vec::new();
                let mut sizes = Vec::new();
                for (access, memref) in [(&issue.a, mems[0]), (&issue.b, mems[1])] {
                    let values = load_regs(b, memref, regs(access)?, dtype.name())?;
                    let packed = pack(b, &values, dtype)?;
                    sizes.push(packed.len());
                    operands.extend(packed);
                }
                let c_regs = regs(&issue.c)?;
                let c_values = load_regs(b, acc_mem, c_regs, acc.name())?;
                let (c_packed, element) = pack_accumulators(b, &c_values, acc)?;
                sizes.push(c_packed.len());
                operands.extend(c_packed);
                let result = struct_type(element, sizes[2]);
                // The PTX types are explicit: the op's verifier reads them (the custom parser infers them).
                let attributes = [
                    ("layoutA", "#nvvm.mma_layout<row>".to_string()),
                    ("layoutB", "#nvvm.mma_layout<col>".to_string()),
                    ("multiplicandAPtxType", format!("#nvvm.mma_type<{}>", dtype.name())),
                    ("multiplicandBPtxType", format!("#nvvm.mma_type<{}>", dtype.name())),
                    ("shape", format!("#nvvm.shape<m = {m}, n = {n}, k = {k}>")),
                    ("operandSegmentSizes", segments(&sizes)),
                ];
                let d = b.value("nvvm.mma.sync", &operands, &result, &attributes)?;
                let out = unpack_accumulators(b, d, sizes[2], acc)?;
                store_regs(b, acc_mem, c_regs, &out)?;
            }
            Ok(())
        })
    }

    /// `wgmma`: per issuing warpgroup, fence, one `nvvm.wgmma.mma_async` per issue (inline PTX when A is in
    /// registers, which the NVVM op cannot express), commit and wait for all.
    fn wgmma(&mut self, gemm: &PlannedGemm<'c, 'a>) -> Result<(), String> {
        let b = Builder::before(gemm.op.operation())?;
        let a_in_registers = gemm.operands[0].tensor.mem == MemScope::Reg;
        let a_base = if a_in_registers { None } else { Some(self.encoded_base(&b, gemm, 0)?) };
        let b_base = self.encoded_base(&b, gemm, 1)?;
        let a_mem = if a_in_registers { Some(self.memref_of(&gemm.operands[0])?) } else { None };
        let acc_mem = self.memref_of(&gemm.operands[2])?;
        let [m, n, k] = gemm.plan.inst_shape;
        let wgmma_type = |t: DType| format!("#nvvm.wgmma_type<{}>", t.name());
        let (dtype, acc) = (gemm.dtype, gemm.acc);
        self.per_issuer(gemm, 128, |_, b, issues| {
            b.op("nvvm.wgmma.fence.aligned", &[], &[], &[])?;
            for issue in issues {
                let c_regs = regs(&issue.c)?;
                let values = load_regs(b, acc_mem, c_regs, acc.name())?;
                let (fields, element) = pack_accumulators(b, &values, acc)?;
                let (count, ty) = (fields.len(), struct_type(element, fields.len()));
                let mut accumulators = b.value("llvm.mlir.undef", &[], &ty, &[])?;
                for (i, v) in fields.into_iter().enumerate() {
                    accumulators =
                        b.value("llvm.insertvalue", &[accumulators, v], &ty, &[("position", position(i))])?;
                }
                if let Some(a_mem) = a_mem {
                    let (db, b_major) = descriptor(b, &issue.b, b_base)?;
                    let a_values = load_regs(b, a_mem, regs(&issue.a)?, dtype.name())?;
                    let shape = [m, n, k];
                    let out = wgmma_registers_a(b, shape, dtype, acc, &a_values, db, b_major, accumulators, count)?;
                    store_regs(b, acc_mem, c_regs, &out)?;
                    continue;
                }
                let a_base = a_base.ok_or("mma: internal: shared A without a base")?;
                let (da, a_major) = descriptor(b, &issue.a, a_base)?;
                let (db, b_major) = descriptor(b, &issue.b, b_base)?;
                let layout = |row: bool| format!("#nvvm.mma_layout<{}>", if row { "row" } else { "col" });
                let attributes = [
                    ("shape", format!("#nvvm.shape<m = {m}, n = {n}, k = {k}>")),
                    ("typeA", wgmma_type(dtype)),
                    ("typeB", wgmma_type(dtype)),
                    ("typeD", wgmma_type(acc)),
                    ("scaleD", "#nvvm.wgmma_scale_out<one>".into()),
                    ("scaleA", "#nvvm.wgmma_scale_in<one>".into()),
                    ("scaleB", "#nvvm.wgmma_scale_in<one>".into()),
                    // K-major A is "row" (not transposed), K-major B is "col".
                    ("layoutA", layout(a_major == axe_layout::mma::Major::K)),
                    ("layoutB", layout(b_major != axe_layout::mma::Major::K)),
                ];
                let d = b.value("nvvm.wgmma.mma_async", &[accumulators, da, db], &ty, &attributes)?;
                let out = unpack_accumulators(b, d, count, acc)?;
                store_regs(b, acc_mem, c_regs, &out)?;
            }
            b.op("nvvm.wgmma.commit.group.sync.aligned", &[], &[], &[])?;
            b.op("nvvm.wgmma.wait.group.sync.aligned", &[], &[], &[("group", "0 : i64".into())]).map(drop)
        })
    }

    /// The kernel's tcgen05 completion mbarrier and phase local, created at entry on first use.
    fn barrier(&mut self, op: OperationRef<'c, 'a>) -> Result<(Value<'c, 'a>, Value<'c, 'a>), String> {
        let f = self.function(op)?;
        if let Some(barrier) = self.functions[f].barrier {
            return Ok(barrier);
        }
        let b = self.entry(f)?;
        let storage = self.shared_global(op, &b, &memref(1, "i64", WORKGROUP), 8)?;
        let address = Self::address(&b, storage)?;
        let pointer = b.value("llvm.inttoptr", &[address], "!llvm.ptr<3>", &[])?;
        let leader = self.unit_is(&b, op, 1, None, 0)?;
        let one = b.constant(1, "i32")?;
        b.guarded(leader, |t| {
            t.op("nvvm.mbarrier.init", &[pointer, one], &[], &[])?;
            t.op("nvvm.fence.mbarrier.init", &[], &[], &[]).map(drop)
        })?;
        b.op("gpu.barrier", &[], &[], &[])?;
        let phase = b.value("memref.alloca", &[], "memref<1xi32>", &[("operandSegmentSizes", segments(&[0, 0]))])?;
        b.op("memref.store", &[b.constant(0, "i32")?, phase, b.index(0)?], &[], &[])?;
        self.functions[f].barrier = Some((pointer, phase));
        Ok((pointer, phase))
    }

    /// `tcgen05`: on thread 0, one `nvvm.tcgen05.mma` per issue and a commit to the kernel barrier; every thread
    /// waits for the barrier's phase and fences.
    fn tcgen05(&mut self, gemm: &PlannedGemm<'c, 'a>) -> Result<(), String> {
        let operation = gemm.op.operation();
        let (barrier, phase) = self.barrier(operation)?;
        let b = Builder::before(operation)?;
        let bases = [self.encoded_base(&b, gemm, 0)?, self.encoded_base(&b, gemm, 1)?];
        let Source::Alloc(c_alloc) = gemm.operands[2].source else {
            return Err("mma: internal: tensor-memory accumulator without alloc".into());
        };
        let c_key = access::key(c_alloc.operation());
        let taddr = *self.tmem.get(&c_key).ok_or("mma: internal: tensor memory not allocated")?;
        let zeroed = self.zeroed.remove(&c_key);
        let idesc = gemm.plan.idesc.ok_or("mma: internal: tcgen05 plan without idesc")?;
        let kind = gemm.plan.instruction.rsplit("kind::").next().unwrap_or("f16").to_string();
        let leader = self.unit_is(&b, operation, 1, None, 0)?;
        let group = ("group", "#nvvm.cta_group<cta_1>".to_string());
        b.guarded(leader, |t| {
            let idesc = t.constant(i64::from(idesc as i32), "i32")?;
            let mut written = HashSet::new();
            for issue in &gemm.plan.issues {
                let Access::Tmem { lane, col } = issue.c.clone() else {
                    return Err("mma: internal: tcgen05 accumulator is not in tensor memory".into());
                };
                let d = tmem_address(t, taddr, (lane << 16) | col)?;
                let (da, _) = descriptor(t, &issue.a, bases[0])?;
                let (db, _) = descriptor(t, &issue.b, bases[1])?;
                let accumulate = !(zeroed && written.insert((issue.m, issue.n)));
                let enable = t.constant(i64::from(accumulate), "i1")?;
                let attributes = [
                    ("kind", format!("#nvvm.tcgen05_mma_kind<{kind}>")),
                    ("ctaGroup", "#nvvm.cta_group<cta_1>".into()),
                    ("operandSegmentSizes", segments(&[1, 1, 1, 1, 1, 0, 0])),
                ];
                t.op("nvvm.tcgen05.mma", &[d, da, db, idesc, enable], &[], &attributes)?;
            }
            t.op("nvvm.tcgen05.commit", &[barrier], &[], std::slice::from_ref(&group)).map(drop)
        })?;
        let zero = b.index(0)?;
        let current = b.value("memref.load", &[phase, zero], "i32", &[])?;
        let ticks = b.constant(TRY_WAIT_TICKS, "i32")?;
        b.op("nvvm.mbarrier.try_wait.parity", &[barrier, current, ticks], &[], &[])?;
        let next = b.value("arith.xori", &[current, b.constant(1, "i32")?], "i32", &[])?;
        b.op("memref.store", &[next, phase, zero], &[], &[])?;
        b.op("nvvm.tcgen05.fence", &[], &[], &[("kind", "#nvvm.tcgen05_fence<after>".into())]).map(drop)
    }

    /// `tcgen05.ld.32x32b.xN` of a tensor-memory accumulator into registers, by the 4 warps of the data path.
    fn tmem_load(&mut self, load: &TmemLoad<'c, 'a>) -> Result<(), String> {
        let operation = load.op.operation();
        let Source::Alloc(alloc) = load.tmem.source else {
            return Err("mma: internal: tensor-memory source without alloc".into());
        };
        let taddr = *self.tmem.get(&access::key(alloc.operation())).ok_or("mma: internal: tmem not allocated")?;
        let regs_mem = self.memref_of(&load.regs)?;
        let b = Builder::before(operation)?;
        let tid = self.tid(operation)?;
        let in_path = b.value("arith.cmpi", &[tid, b.index(128)?], "i1", &[("predicate", "6 : i64".into())])?;
        let columns = load.columns;
        let column = load.column;
        b.guarded(in_path, |t| {
            // Warp w reads lanes 32w..32w+32: the lane field is bits 16..31 of the address.
            let warp_row = t.value("arith.andi", &[tid, t.index(!31)?], "index", &[])?;
            let lane = t.value("arith.index_cast", &[warp_row], "i32", &[])?;
            let lane_field = t.value("arith.shli", &[lane, t.constant(16, "i32")?], "i32", &[])?;
            let base = t.value("llvm.ptrtoint", &[taddr], "i32", &[])?;
            let address = t.value("arith.addi", &[base, lane_field], "i32", &[])?;
            let address = t.value("arith.addi", &[address, t.constant(column, "i32")?], "i32", &[])?;
            let pointer = t.value("llvm.inttoptr", &[address], "!llvm.ptr<6>", &[])?;
            let ty = if columns == 1 { "i32".to_string() } else { format!("vector<{columns}xi32>") };
            let shape = ("shape", "#nvvm.tcgen05_ldst_shape<shape_32x32b>".to_string());
            let v = t.value("nvvm.tcgen05.ld", &[pointer], &ty, &[shape])?;
            t.op("nvvm.tcgen05.wait", &[], &[], &[("kind", "#nvvm.tcgen05_wait<load>".into())])?;
            let mut out = Vec::new();
            for j in 0..columns {
                let bits = if columns == 1 {
                    v
                } else {
                    t.value("llvm.extractelement", &[v, t.constant(j, "i32")?], "i32", &[])?
                };
                out.push(t.value("arith.bitcast", &[bits], "f32", &[])?);
            }
            let indices: Vec<i64> = (0..columns).collect();
            store_regs(t, regs_mem, &indices, &out)
        })?;
        self.stats.tmem_loads += 1;
        Ok(())
    }

    /// Erases the lowered ops, then the allocs and views left without uses (a lowered register or shared alloc
    /// still used elsewhere becomes an `axe.view` of its memref).
    fn cleanup(&mut self, ops: &[AxeOp<'c, 'a>]) {
        let rewriter = IrRewriter::from_op(self.root);
        let base = rewriter.as_rewriter_base();
        for op in self.lowered.iter().rev() {
            base.erase_op(*op);
        }
        for op in ops.iter().rev().filter(|op| matches!(op.kind(), OpKind::View | OpKind::Alloc)) {
            let Some(result) = op.result() else { continue };
            let key = access::key(op.operation());
            let lowered = self.storage.get(&key).copied();
            let is_tmem = self.tmem.contains_key(&key);
            let unused = !ffi::has_uses(result);
            if op.kind() == OpKind::View || lowered.is_some() || is_tmem {
                if unused {
                    base.erase_op(op.operation());
                } else if let (Some(memref), Ok(b)) = (lowered, Builder::before(op.operation())) {
                    if let Ok(view) = b.value("axe.view", &[memref], &result.r#type().to_string(), &[]) {
                        base.replace_all_uses_with(result, view);
                        base.erase_op(op.operation());
                    }
                }
            }
        }
    }
}

/// The register list of a register access.
fn regs(access: &Access) -> Result<&[i64], String> {
    match access {
        Access::Regs(regs) => Ok(regs),
        _ => Err("mma: internal: expected a register access".to_string()),
    }
}

/// `memref.load` of each register.
fn load_regs<'c, 'a>(
    b: &Builder<'c, 'a>,
    memref: Value<'c, 'a>,
    regs: &[i64],
    element: &str,
) -> Result<Vec<Value<'c, 'a>>, String> {
    regs.iter().map(|&r| b.value("memref.load", &[memref, b.index(r)?], element, &[])).collect()
}

/// `memref.store` of each value into its register.
fn store_regs<'c, 'a>(
    b: &Builder<'c, 'a>,
    memref: Value<'c, 'a>,
    regs: &[i64],
    values: &[Value<'c, 'a>],
) -> Result<(), String> {
    for (&r, &v) in regs.iter().zip(values) {
        b.op("memref.store", &[v, memref, b.index(r)?], &[], &[])?;
    }
    Ok(())
}

/// Consecutive pairs of 16-bit values as `vector<2xf16>` (bf16: the pair bitcast to `i32`, as `nvvm.mma.sync`
/// takes bf16 fragments).
fn pack<'c, 'a>(b: &Builder<'c, 'a>, values: &[Value<'c, 'a>], dtype: DType) -> Result<Vec<Value<'c, 'a>>, String> {
    let pair = format!("vector<2x{}>", dtype.name());
    values
        .chunks(2)
        .map(|two| {
            let mut vector = b.value("llvm.mlir.undef", &[], &pair, &[])?;
            for (i, v) in two.iter().enumerate() {
                vector = b.value("llvm.insertelement", &[vector, *v, b.constant(i as i64, "i32")?], &pair, &[])?;
            }
            match dtype {
                DType::BF16 => b.value("llvm.bitcast", &[vector], "i32", &[]),
                _ => Ok(vector),
            }
        })
        .collect()
}

/// `wgmma.mma_async` with A in registers, as inline PTX (PTX ISA 9.7.15.5.2: `d, a, b-desc, scale-d, imm-scale-a,
/// imm-scale-b, imm-trans-b`): the accumulators are tied in/out operands (`f32` fields as `f`, `.f16x2` as `r`),
/// the A fragment 4 `.b32` registers of 16-bit pairs, the B descriptor an `l` operand.
#[allow(clippy::too_many_arguments)]
fn wgmma_registers_a<'c, 'a>(
    b: &Builder<'c, 'a>,
    [m, n, k]: [i64; 3],
    dtype: DType,
    acc: DType,
    a_values: &[Value<'c, 'a>],
    b_desc: Value<'c, 'a>,
    b_major: axe_layout::mma::Major,
    accumulators: Value<'c, 'a>,
    count: usize,
) -> Result<Vec<Value<'c, 'a>>, String> {
    let (field, letter) = if acc == DType::F32 { ("f32", "f") } else { ("i32", "r") };
    let pairs = pack(b, a_values, dtype)?;
    let mut operands = Vec::new();
    for pair in pairs {
        operands.push(if dtype == DType::F16 { b.value("llvm.bitcast", &[pair], "i32", &[])? } else { pair });
    }
    let a_count = operands.len();
    operands.push(b_desc);
    let element = if acc == DType::F32 { "f32" } else { "vector<2xf16>" };
    for i in 0..count {
        let value = b.value("llvm.extractvalue", &[accumulators], element, &[("position", position(i))])?;
        operands.push(if acc == DType::F32 { value } else { b.value("llvm.bitcast", &[value], "i32", &[])? });
    }
    let list = |from: usize, to: usize| (from..to).map(|i| format!("${i}")).collect::<Vec<_>>().join(", ");
    let trans_b = i64::from(b_major != axe_layout::mma::Major::K);
    let asm = format!(
        "{{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\nwgmma.mma_async.sync.aligned.m{m}n{n}k{k}.{acc}.{dtype}.{dtype} \
         {{{}}}, {{{}}}, ${}, p, 1, 1, {trans_b};\n}}",
        list(0, count),
        list(count, count + a_count),
        count + a_count,
        acc = acc.name(),
        dtype = dtype.name(),
    );
    let mut constraints = vec![format!("={letter}"); count];
    constraints.extend(vec!["r".to_string(); a_count]);
    constraints.push("l".into());
    constraints.extend((0..count).map(|i| i.to_string()));
    let ty = struct_type(field, count);
    let attributes = [
        ("asm_string", format!("\"{}\"", asm.replace('\n', "\\0A"))),
        ("constraints", format!("\"{}\"", constraints.join(","))),
        ("has_side_effects", "unit".to_string()),
    ];
    let d = b.value("llvm.inline_asm", &operands, &ty, &attributes)?;
    let mut out = Vec::new();
    for i in 0..count {
        let value = b.value("llvm.extractvalue", &[d], field, &[("position", position(i))])?;
        if acc == DType::F32 {
            out.push(value);
            continue;
        }
        let pair = b.value("llvm.bitcast", &[value], "vector<2xf16>", &[])?;
        for lane in 0..2 {
            out.push(b.value("llvm.extractelement", &[pair, b.constant(lane, "i32")?], "f16", &[])?);
        }
    }
    Ok(out)
}

/// Accumulators as the NVVM ops take them: f32 one per field, f16 pairs as `vector<2xf16>`; and the field type.
fn pack_accumulators<'c, 'a>(
    b: &Builder<'c, 'a>,
    values: &[Value<'c, 'a>],
    acc: DType,
) -> Result<(Vec<Value<'c, 'a>>, &'static str), String> {
    match acc {
        DType::F32 => Ok((values.to_vec(), "f32")),
        _ => Ok((pack(b, values, acc)?, "vector<2xf16>")),
    }
}

/// The `fields` fields of an accumulator struct back as one value per register (f16 pairs split).
fn unpack_accumulators<'c, 'a>(
    b: &Builder<'c, 'a>,
    result: Value<'c, 'a>,
    fields: usize,
    acc: DType,
) -> Result<Vec<Value<'c, 'a>>, String> {
    let element = if acc == DType::F32 { "f32" } else { "vector<2xf16>" };
    let mut out = Vec::new();
    for i in 0..fields {
        let field = b.value("llvm.extractvalue", &[result], element, &[("position", position(i))])?;
        if acc == DType::F32 {
            out.push(field);
            continue;
        }
        for lane in 0..2 {
            out.push(b.value("llvm.extractelement", &[field, b.constant(lane, "i32")?], "f16", &[])?);
        }
    }
    Ok(out)
}

/// `!llvm.struct<(element, ...)>` with `count` fields.
fn struct_type(element: &str, count: usize) -> String {
    format!("!llvm.struct<({})>", vec![element; count].join(", "))
}

/// `array<i64: i>` for struct positions.
fn position(i: usize) -> String {
    format!("array<i64: {i}>")
}

/// A matrix descriptor: the plan's constant plus the operand's encoded base address.
fn descriptor<'c, 'a>(
    b: &Builder<'c, 'a>,
    access: &Access,
    base: Value<'c, 'a>,
) -> Result<(Value<'c, 'a>, axe_layout::mma::Major), String> {
    let Access::Smem(SmemDesc { desc, major, .. }) = access else {
        return Err("mma: internal: expected a shared-memory descriptor".to_string());
    };
    let constant = b.constant(*desc as i64, "i64")?;
    Ok((b.value("arith.addi", &[constant, base], "i64", &[])?, *major))
}

/// `taddr + offset` as a tensor-memory pointer (`offset` = `lane << 16 | column`).
fn tmem_address<'c, 'a>(b: &Builder<'c, 'a>, taddr: Value<'c, 'a>, offset: i64) -> Result<Value<'c, 'a>, String> {
    if offset == 0 {
        return Ok(taddr);
    }
    let raw = b.value("llvm.ptrtoint", &[taddr], "i32", &[])?;
    let sum = b.value("arith.addi", &[raw, b.constant(offset, "i32")?], "i32", &[])?;
    b.value("llvm.inttoptr", &[sum], "!llvm.ptr<6>", &[])
}
