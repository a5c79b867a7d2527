//! The rewrite of `--lower-mma`: register, shared and tensor-memory storage, fills, planned gemms and tensor-memory
//! loads become upstream `memref`/`arith`/`scf`/`llvm`/`nvvm` ops, in IR order; then the lowered ops and the allocs
//! and views left without uses are erased. Every number (registers, descriptors, idesc, addresses, columns,
//! issuing warps, alignment) comes from the plans.

use super::{LowerMmaStats, PlannedGemm, Traced};
use crate::ir::ty::{AddressSpace, Ty};
use crate::request::tmem_load::TmemLoad;
use crate::{
    ir::build::{segments, Builder, Cmp, Tcgen05Access, ThreadSync, WORKGROUP},
    storage::{self, memref_type as memref, Source, Storage},
};
use axe_dialect::{
    access::{self, OpKey},
    ops::enclosing_function,
    AxeOp, OpKind,
};
use axe_layout::copy::TmemShape;
use axe_layout::hw::Memory;
use axe_layout::mma::{Access, ElemType, Family, MmaIssue, Role, SmemDesc};
use melior::{
    ir::{operation::OperationLike, Location, OperationRef, Value},
    IrRewriter,
};
use std::collections::{BTreeMap, HashMap, HashSet};

/// A failure during the rewrite: where and why.
type Failure<'c> = (Location<'c>, String);

/// Suspend-time hint of `mbarrier.try_wait.parity` in nanoseconds (as `--lower-tma`).
const TRY_WAIT_TICKS: i64 = 10_000_000;
/// The 14-bit start-address field of a matrix descriptor holds `address >> 4`.
const DESC_ADDRESS_MASK: i64 = 0x3FFF;

/// The state of one rewrite.
struct Lowering<'c, 'a> {
    root: OperationRef<'c, 'a>,
    /// Register, shared and tensor-memory storage (allocs lowered here, kernel-entry values).
    storage: Storage<'c, 'a>,
    /// Per kernel: the tcgen05 completion mbarrier (`!llvm.ptr<3>`) and its phase local (`memref<1xi32>`).
    barriers: HashMap<OpKey, (Value<'c, 'a>, Value<'c, 'a>)>,
    /// Per alloc the pass lowers: the shared alignment or tensor-memory columns it needs (0 for registers).
    needed: BTreeMap<OpKey, i64>,
    /// Tensor-memory storage zeroed by a fill and not yet written by a gemm.
    zeroed: HashSet<OpKey>,
    /// Per zeroed tensor-memory storage: the fill that zeroed it and, once a gemm in another block (a loop) needs
    /// it, a run-time "written" flag (`memref<1xi1>`: false at the fill, true after each gemm).
    zero_fills: HashMap<OpKey, (OperationRef<'c, 'a>, Option<Value<'c, 'a>>)>,
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
        storage: Storage::new(root, "mma"),
        barriers: HashMap::new(),
        needed: BTreeMap::new(),
        zeroed: HashSet::new(),
        zero_fills: HashMap::new(),
        lowered: Vec::new(),
        stats: LowerMmaStats::default(),
    };
    for gemm in gemms {
        for (traced, role) in gemm.operands.iter().zip([Role::A, Role::B, Role::C]) {
            let Source::Alloc(alloc) = traced.source else { continue };
            let need = match traced.tensor.mem {
                Memory::Shared => gemm.plan.shared_base_alignment_bytes.unwrap_or(16).max(16),
                // The columns this operand reaches (A and C in one alloc: both land on the same entry).
                Memory::Tmem => gemm.plan.tmem_reach.iter().find(|(r, _)| *r == role).map_or(32, |(_, c)| *c),
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
            if alloc.tensor("result").is_some_and(|t| t.mem == Memory::Reg) {
                lowering.needed.entry(access::key(alloc.operation())).or_insert(0);
            }
        }
    }
    check_tmem_total(ops, &lowering.needed)?;
    let gemm_plans: HashMap<OpKey, &PlannedGemm> = gemms.iter().map(|g| (access::key(g.op.operation()), g)).collect();
    let load_plans: HashMap<OpKey, &TmemLoad> = loads.iter().map(|l| (access::key(l.op.operation()), l)).collect();
    for op in ops {
        let at = |message: String| (op.operation().location(), message);
        let key = access::key(op.operation());
        match op.kind() {
            OpKind::Alloc if lowering.needed.contains_key(&key) => {
                let need = lowering.needed[&key];
                lowering.storage.lower_alloc(*op, need).map_err(at)?;
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

/// Tensor memory has 512 columns (PTX ISA 9.7.16.1): the tensor-memory allocs one kernel gets from this pass must
/// fit together, or a `tcgen05.alloc` would wait forever. Refused at the alloc that goes over, before any rewrite.
fn check_tmem_total<'c>(ops: &[AxeOp<'c, '_>], needed: &BTreeMap<OpKey, i64>) -> Result<(), Failure<'c>> {
    let mut per_kernel: HashMap<OpKey, Vec<i64>> = HashMap::new();
    for op in ops.iter().filter(|op| op.kind() == OpKind::Alloc) {
        let Some(&need) = needed.get(&access::key(op.operation())) else { continue };
        let Some(tensor) = op.tensor("result").filter(|t| t.mem == Memory::Tmem) else { continue };
        let (Some(Ok(layout)), Some(kernel)) = (tensor.layout.parse(), enclosing_function(op.operation())) else {
            continue;
        };
        let columns = per_kernel.entry(access::key(kernel)).or_default();
        columns.push(storage::tmem_alloc_columns(&tensor, &layout, need));
        let total: i64 = columns.iter().sum();
        if total > axe_layout::mma::tmem::TMEM_COLUMNS {
            let list: Vec<String> = columns.iter().map(|c| c.to_string()).collect();
            return Err((
                op.operation().location(),
                format!(
                    "mma: tmem-columns: the kernel's tensor-memory allocations take {} = {total} columns; tensor \
                     memory has {}",
                    list.join(" + "),
                    axe_layout::mma::tmem::TMEM_COLUMNS
                ),
            ));
        }
    }
    Ok(())
}

/// The traced destination of a fill, when it is a tensor this pass can reach.
fn fill_target<'c, 'a>(op: AxeOp<'c, 'a>) -> Option<Traced<'c, 'a>> {
    op.operand(0).and_then(|v| super::trace("dest", v).ok())
}

impl<'c, 'a> Lowering<'c, 'a> {
    /// Lowers a fill of registers (stores) or of a tensor-memory accumulator (marks it zeroed); false when the
    /// fill is not this pass's.
    fn fill(&mut self, op: AxeOp<'c, 'a>) -> Result<bool, String> {
        let Some(dest) = fill_target(op) else { return Ok(false) };
        match (dest.tensor.mem, dest.source) {
            (Memory::Reg, _) => {
                let memref = self.storage.memref_of(&dest)?;
                let value = op.operand(1).ok_or("mma: fill has no value")?;
                let b = Builder::before(op.operation())?;
                for i in 0..dest.register_count() {
                    b.store(value, memref, &[b.index(i)?])?;
                }
            }
            (Memory::Tmem, source) => {
                self.zeroed.extend(source.key());
                if let Some(key) = source.key() {
                    self.zero_fills.insert(key, (op.operation(), None));
                }
            }
            _ => return Ok(false),
        }
        self.stats.fills += 1;
        Ok(true)
    }

    /// The encoded base address `(address >> 4) & 0x3FFF` of a shared operand, as `i64` when `wide` (what
    /// [`descriptor`] adds), else as `i32` (the low word [`join_descriptor`] adds to); for a run-time stage of a
    /// ring the address is the ring's plus the plan's start terms on the offsets.
    fn encoded_base(
        &mut self,
        b: &Builder<'c, 'a>,
        gemm: &PlannedGemm<'c, 'a>,
        i: usize,
        wide: bool,
    ) -> Result<Value<'c, 'a>, String> {
        let traced = &gemm.operands[i];
        let memref = self.storage.memref_of(traced)?;
        if let Source::Memref(view) = traced.source {
            self.storage.align_global(view, gemm.plan.shared_base_alignment_bytes.unwrap_or(16))?;
        }
        // The encoding keeps address bits 4..17 only, so the arithmetic runs on the low 32 bits (sums modulo 2^32
        // have the same low bits): 32-bit instructions, where i64 took add-with-carry pairs and 64-bit shifts.
        let mut address = b.trunci(Storage::address(b, memref)?, Ty::I32)?;
        // A ring's stage: the plan's start terms `bytes * (offset / divisor)`, added to the address before encoding.
        let role = if i == 0 { Role::A } else { Role::B };
        for term in gemm.plan.dynamic.iter().filter(|t| t.role == role) {
            let offset = *gemm.offsets.get(term.offset).ok_or("mma: internal: a start term names a missing offset")?;
            let mut steps = offset;
            if term.divisor != 1 {
                steps = b.divsi(steps, b.index(term.divisor)?)?;
            }
            let moved = b.muli(steps, b.index(term.bytes)?)?;
            let moved = b.index_cast(moved, Ty::I32)?;
            address = b.addi(address, moved)?;
        }
        let shifted = b.shrui(address, b.constant(4, Ty::I32)?)?;
        let encoded = b.andi(shifted, b.constant(DESC_ADDRESS_MASK, Ty::I32)?)?;
        if wide {
            b.extui(encoded, Ty::I64)
        } else {
            Ok(encoded)
        }
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
        let groups = by_issuer(&gemm.plan.issues);
        let scope_units = gemm.scope.fixed_threads().map(|t| t / unit);
        for (thread_base, issues) in groups {
            if scope_units == Some(1) {
                body(self, &b, &issues)?;
                continue;
            }
            let condition = self.storage.unit_is(&b, operation, unit, scope_units, thread_base / unit)?;
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
        let mems = [self.storage.memref_of(&gemm.operands[0])?, self.storage.memref_of(&gemm.operands[1])?];
        let acc_mem = self.storage.memref_of(&gemm.operands[2])?;
        let (dtype, acc) = (gemm.dtype, gemm.acc);
        let [m, n, k] = gemm.plan.inst_shape;
        self.per_issuer(gemm, 32, |_, b, issues| {
            for issue in issues {
                let mut operands = Vec::new();
                let mut sizes = Vec::new();
                for (access, memref) in [(&issue.a, mems[0]), (&issue.b, mems[1])] {
                    let values = load_regs(b, memref, regs(access)?)?;
                    let packed = pack(b, &values, dtype)?;
                    sizes.push(packed.len());
                    operands.extend(packed);
                }
                let c_regs = regs(&issue.c)?;
                let c_values = load_regs(b, acc_mem, c_regs)?;
                let (c_packed, element) = pack_accumulators(b, &c_values, acc)?;
                sizes.push(c_packed.len());
                operands.extend(c_packed);
                let result = struct_type(element, sizes[2]);
                // The PTX types are explicit: the op's verifier reads them (the custom parser infers them).
                let attributes = [
                    ("layoutA", "#nvvm.mma_layout<row>".to_string()),
                    ("layoutB", "#nvvm.mma_layout<col>".to_string()),
                    ("multiplicandAPtxType", format!("#nvvm.mma_type<{}>", dtype.ptx())),
                    ("multiplicandBPtxType", format!("#nvvm.mma_type<{}>", dtype.ptx())),
                    ("shape", format!("#nvvm.shape<m = {m}, n = {n}, k = {k}>")),
                    ("operandSegmentSizes", segments(&sizes)),
                ];
                let d = b.value("nvvm.mma.sync", &operands, b.ty(&result)?, &attributes)?;
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
        let a_in_registers = gemm.operands[0].tensor.mem == Memory::Reg;
        let uniform = if a_in_registers { None } else { uniform_groups(&gemm.plan.issues) };
        let wide = uniform.is_none();
        let a_base = if a_in_registers { None } else { Some(self.encoded_base(&b, gemm, 0, wide)?) };
        let b_base = self.encoded_base(&b, gemm, 1, wide)?;
        let a_mem = if a_in_registers { Some(self.storage.memref_of(&gemm.operands[0])?) } else { None };
        let acc_mem = self.storage.memref_of(&gemm.operands[2])?;
        let wg = Wgmma { shape: gemm.plan.inst_shape, dtype: gemm.dtype, acc: gemm.acc, acc_mem };
        // Warpgroups that issue the same instructions on descriptors one fixed step apart run one code path, the
        // step times their index added to the bases, where a guard per warpgroup doubled the loop's code.
        if let (Some(a_base), Some((a_step, b_step))) = (a_base, uniform) {
            let scope_units = gemm.scope.fixed_threads().map(|t| t / 128);
            let group = self.storage.unit_index(&b, gemm.op.operation(), 128, scope_units)?;
            let group = b.index_castui(group, Ty::I32)?;
            let moved = |base: Value<'c, 'a>, step: i64| match step {
                0 => Ok(base),
                _ => b.addi(base, b.muli(group, b.constant(step, Ty::I32)?)?),
            };
            let (a_base, b_base) = (moved(a_base, a_step)?, moved(b_base, b_step)?);
            let first: Vec<&MmaIssue> = gemm.plan.issues.iter().filter(|i| i.thread_base == 0).collect();
            b.op("nvvm.wgmma.fence.aligned", &[], &[], &[])?;
            for issue in first {
                wg.shared(&b, issue, a_base, b_base, true)?;
            }
            return wgmma_wait_all(&b);
        }
        self.per_issuer(gemm, 128, |_, b, issues| {
            b.op("nvvm.wgmma.fence.aligned", &[], &[], &[])?;
            for issue in issues {
                match (a_mem, a_base) {
                    (Some(a_mem), _) => wg.registers_a(b, issue, a_mem, b_base)?,
                    (None, Some(a_base)) => wg.shared(b, issue, a_base, b_base, false)?,
                    (None, None) => return Err("mma: internal: shared A without a base".into()),
                }
            }
            wgmma_wait_all(b)
        })
    }

    /// The kernel's tcgen05 completion mbarrier and phase local, created at entry on first use.
    fn barrier(&mut self, op: OperationRef<'c, 'a>) -> Result<(Value<'c, 'a>, Value<'c, 'a>), String> {
        let func = enclosing_function(op).ok_or("mma: op is not inside a gpu.func or func.func")?;
        if let Some(&barrier) = self.barriers.get(&access::key(func)) {
            return Ok(barrier);
        }
        let b = self.storage.entry(op)?;
        let storage = self.storage.new_shared_global(op, &b, &memref(1, "i64", WORKGROUP), 8)?;
        let address = Storage::address(&b, storage)?;
        let pointer = b.inttoptr(address, AddressSpace::Shared)?;
        let leader = self.storage.elected(&b, op)?;
        let one = b.constant(1, Ty::I32)?;
        b.guarded(leader, |t| {
            t.op("nvvm.mbarrier.init", &[pointer, one], &[], &[])?;
            t.fence_mbarrier_init()
        })?;
        b.barrier()?;
        let phase = b.alloca(b.ty("memref<1xi32>")?)?;
        b.store(b.constant(0, Ty::I32)?, phase, &[b.index(0)?])?;
        self.barriers.insert(access::key(func), (pointer, phase));
        Ok((pointer, phase))
    }

    /// `tcgen05`: on the elected lane of warp 0 (`Storage::elected`), one `nvvm.tcgen05.mma` per issue and a commit
    /// to the kernel barrier; every thread waits for the barrier's phase and fences.
    fn tcgen05(&mut self, gemm: &PlannedGemm<'c, 'a>) -> Result<(), String> {
        let operation = gemm.op.operation();
        let (barrier, phase) = self.barrier(operation)?;
        let b = Builder::before(operation)?;
        // A in shared memory is a descriptor on its base; A in tensor memory an address (`[a-tmem]`).
        let a_tmem = gemm.operands[0].tensor.mem == Memory::Tmem;
        let a_base =
            if a_tmem { self.storage.tmem_of(&gemm.operands[0])? } else { self.encoded_base(&b, gemm, 0, true)? };
        let b_base = self.encoded_base(&b, gemm, 1, true)?;
        let taddr = self.storage.tmem_of(&gemm.operands[2])?;
        // The first instruction of each tile overwrites a zeroed accumulator. A gemm in the fill's block knows
        // statically whether it is the first; one in another block (a loop body) reads a run-time flag.
        let key = gemm.operands[2].source.key();
        let fill = key.and_then(|k| self.zero_fills.get(&k).map(|(fill, _)| *fill));
        let same_block = fill.is_some_and(|fill| fill.block() == operation.block());
        let zeroed = same_block && key.is_some_and(|key| self.zeroed.remove(&key));
        let flag = match (key, fill) {
            (Some(key), Some(fill)) if !same_block => Some(self.written_flag(key, fill)?),
            _ => None,
        };
        let written_before = match flag {
            Some(flag) => Some(b.load(flag, &[b.index(0)?])?),
            None => None,
        };
        let idesc = gemm.plan.idesc.ok_or("mma: internal: tcgen05 plan without idesc")?;
        let kind = gemm.plan.instruction.rsplit("kind::").next().unwrap_or("f16").to_string();
        let leader = self.storage.elected(&b, operation)?;
        let group = ("group", "#nvvm.cta_group<cta_1>".to_string());
        b.guarded(leader, |t| {
            let idesc = t.constant(i64::from(idesc as i32), Ty::I32)?;
            let mut written = HashSet::new();
            for issue in &gemm.plan.issues {
                let Access::Tmem { lane, col } = issue.c.clone() else {
                    return Err("mma: internal: tcgen05 accumulator is not in tensor memory".into());
                };
                let d = tmem_address(t, taddr, (lane << 16) | col)?;
                let da = match issue.a {
                    Access::Tmem { lane, col } => tmem_address(t, a_base, (lane << 16) | col)?,
                    _ => descriptor(t, &issue.a, a_base)?.0,
                };
                let (db, _) = descriptor(t, &issue.b, b_base)?;
                let first = (zeroed || written_before.is_some()) && written.insert((issue.m, issue.n));
                let enable = match (first, written_before) {
                    (true, Some(flag)) => flag,
                    (first, _) => t.constant(i64::from(!first), Ty::I1)?,
                };
                let attributes = [
                    ("kind", format!("#nvvm.tcgen05_mma_kind<{kind}>")),
                    ("ctaGroup", "#nvvm.cta_group<cta_1>".into()),
                    ("operandSegmentSizes", segments(&[1, 1, 1, 1, 1, 0, 0])),
                ];
                t.op("nvvm.tcgen05.mma", &[d, da, db, idesc, enable], &[], &attributes)?;
            }
            t.op("nvvm.tcgen05.commit", &[barrier], &[], std::slice::from_ref(&group)).map(drop)
        })?;
        if let Some(flag) = flag {
            b.store(b.constant(1, Ty::I1)?, flag, &[b.index(0)?])?;
        }
        let zero = b.index(0)?;
        let current = b.load(phase, &[zero])?;
        let ticks = b.constant(TRY_WAIT_TICKS, Ty::I32)?;
        b.op("nvvm.mbarrier.try_wait.parity", &[barrier, current, ticks], &[], &[])?;
        let next = b.xori(current, b.constant(1, Ty::I32)?)?;
        b.store(next, phase, &[zero])?;
        b.tcgen05_fence(ThreadSync::After)
    }

    /// The run-time "written" flag of zeroed tensor-memory storage `key`: a `memref<1xi1>` at the kernel's entry,
    /// set false where `fill` zeroed it (created on first use).
    fn written_flag(&mut self, key: OpKey, fill: OperationRef<'c, 'a>) -> Result<Value<'c, 'a>, String> {
        if let Some((_, Some(flag))) = self.zero_fills.get(&key) {
            return Ok(*flag);
        }
        let at_entry = self.storage.entry(fill)?;
        let flag = at_entry.alloca(at_entry.ty("memref<1xi1>")?)?;
        let b = Builder::before(fill)?;
        b.store(b.constant(0, Ty::I1)?, flag, &[b.index(0)?])?;
        self.zero_fills.insert(key, (fill, Some(flag)));
        Ok(flag)
    }

    /// `tcgen05.ld.32x32b.xN` of a tensor-memory accumulator into registers, by the 4 warps of the data path.
    fn tmem_load(&mut self, load: &TmemLoad<'c, 'a>) -> Result<(), String> {
        let operation = load.op.operation();
        let taddr = self.storage.tmem_of(&load.tmem)?;
        let regs_mem = self.storage.memref_of(&load.regs)?;
        let b = Builder::before(operation)?;
        let tid = self.storage.tid(operation)?;
        let in_path = b.cmpi(Cmp::Ult, tid, b.index(128)?)?;
        let columns = load.columns;
        let column = load.column;
        b.guarded(in_path, |t| {
            // Warp w reads lanes 32w..32w+32: the lane field is bits 16..31 of the address.
            let warp_row = t.andi(tid, t.index(!31)?)?;
            let lane = t.index_cast(warp_row, Ty::I32)?;
            let lane_field = t.shli(lane, t.constant(16, Ty::I32)?)?;
            let base = t.ptrtoint(taddr, Ty::I32)?;
            let address = t.addi(base, lane_field)?;
            let address = t.addi(address, t.constant(column, Ty::I32)?)?;
            let pointer = t.inttoptr(address, AddressSpace::Tmem)?;
            let ty = if columns == 1 { "i32".to_string() } else { format!("vector<{columns}xi32>") };
            let v = t.tcgen05_ld(pointer, TmemShape::S32x32b, t.ty(&ty)?)?;
            t.tcgen05_wait(Tcgen05Access::Load)?;
            let mut out = Vec::new();
            for j in 0..columns {
                let bits = if columns == 1 { v } else { t.extractelement(v, t.constant(j, Ty::I32)?)? };
                out.push(t.bitcast(bits, Ty::F32)?);
            }
            let indices: Vec<i64> = (0..columns).collect();
            store_regs(t, regs_mem, &indices, &out)
        })?;
        self.stats.tmem_loads += 1;
        Ok(())
    }

    /// Erases the lowered ops, then the allocs and views left without uses (a lowered alloc still used elsewhere
    /// becomes an `axe.view` of its storage, see [`Storage::cleanup`]).
    fn cleanup(&mut self, ops: &[AxeOp<'c, 'a>]) {
        let rewriter = IrRewriter::from_op(self.root);
        let base = rewriter.as_rewriter_base();
        for op in self.lowered.iter().rev() {
            base.erase_op(*op);
        }
        self.storage.cleanup(ops);
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
fn load_regs<'c, 'a>(b: &Builder<'c, 'a>, memref: Value<'c, 'a>, regs: &[i64]) -> Result<Vec<Value<'c, 'a>>, String> {
    regs.iter().map(|&r| b.load(memref, &[b.index(r)?])).collect()
}

/// `memref.store` of each value into its register.
fn store_regs<'c, 'a>(
    b: &Builder<'c, 'a>,
    memref: Value<'c, 'a>,
    regs: &[i64],
    values: &[Value<'c, 'a>],
) -> Result<(), String> {
    for (&r, &v) in regs.iter().zip(values) {
        b.store(v, memref, &[b.index(r)?])?;
    }
    Ok(())
}

/// Consecutive pairs of 16-bit values as `vector<2xf16>` (bf16: the pair bitcast to `i32`, as `nvvm.mma.sync`
/// takes bf16 fragments); tf32 values (stored as f32) one per `.b32` register, bitcast to `i32`.
fn pack<'c, 'a>(b: &Builder<'c, 'a>, values: &[Value<'c, 'a>], dtype: ElemType) -> Result<Vec<Value<'c, 'a>>, String> {
    if dtype == ElemType::TF32 {
        return values.iter().map(|v| b.llvm_bitcast(*v, Ty::I32)).collect();
    }
    let pair = format!("vector<2x{}>", dtype.mlir());
    values
        .chunks(2)
        .map(|two| {
            let mut vector = b.undef(b.ty(&pair)?)?;
            for (i, v) in two.iter().enumerate() {
                vector = b.insertelement(vector, *v, b.constant(i as i64, Ty::I32)?)?;
            }
            match dtype {
                ElemType::BF16 => b.llvm_bitcast(vector, Ty::I32),
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
    dtype: ElemType,
    acc: ElemType,
    a_values: &[Value<'c, 'a>],
    b_desc: Value<'c, 'a>,
    b_major: axe_layout::mma::Major,
    accumulators: Value<'c, 'a>,
    count: usize,
) -> Result<Vec<Value<'c, 'a>>, String> {
    let (field, letter) = if acc == ElemType::F32 { ("f32", "f") } else { ("i32", "r") };
    let pairs = pack(b, a_values, dtype)?;
    let mut operands = Vec::new();
    for pair in pairs {
        operands.push(if dtype == ElemType::F16 { b.llvm_bitcast(pair, Ty::I32)? } else { pair });
    }
    let a_count = operands.len();
    operands.push(b_desc);
    let element = if acc == ElemType::F32 { "f32" } else { "vector<2xf16>" };
    for i in 0..count {
        let value = b.extractvalue(accumulators, i, b.ty(element)?)?;
        operands.push(if acc == ElemType::F32 { value } else { b.llvm_bitcast(value, Ty::I32)? });
    }
    let list = |from: usize, to: usize| (from..to).map(|i| format!("${i}")).collect::<Vec<_>>().join(", ");
    let trans_b = i64::from(b_major != axe_layout::mma::Major::K);
    let asm = format!(
        "{{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\nwgmma.mma_async.sync.aligned.m{m}n{n}k{k}.{acc}.{dtype}.{dtype} \
         {{{}}}, {{{}}}, ${}, p, 1, 1, {trans_b};\n}}",
        list(0, count),
        list(count, count + a_count),
        count + a_count,
        acc = acc.ptx(),
        dtype = dtype.ptx(),
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
    let d = b.value("llvm.inline_asm", &operands, b.ty(&ty)?, &attributes)?;
    let mut out = Vec::new();
    for i in 0..count {
        let value = b.extractvalue(d, i, b.ty(field)?)?;
        if acc == ElemType::F32 {
            out.push(value);
            continue;
        }
        let pair = b.llvm_bitcast(value, b.ty("vector<2xf16>")?)?;
        for lane in 0..2 {
            out.push(b.extractelement(pair, b.constant(lane, Ty::I32)?)?);
        }
    }
    Ok(out)
}

/// Accumulators as the NVVM ops take them: f32 one per field, f16 pairs as `vector<2xf16>`; and the field type.
fn pack_accumulators<'c, 'a>(
    b: &Builder<'c, 'a>,
    values: &[Value<'c, 'a>],
    acc: ElemType,
) -> Result<(Vec<Value<'c, 'a>>, &'static str), String> {
    match acc {
        ElemType::F32 => Ok((values.to_vec(), "f32")),
        _ => Ok((pack(b, values, acc)?, "vector<2xf16>")),
    }
}

/// The `fields` fields of an accumulator struct back as one value per register (f16 pairs split).
fn unpack_accumulators<'c, 'a>(
    b: &Builder<'c, 'a>,
    result: Value<'c, 'a>,
    fields: usize,
    acc: ElemType,
) -> Result<Vec<Value<'c, 'a>>, String> {
    let element = if acc == ElemType::F32 { "f32" } else { "vector<2xf16>" };
    let mut out = Vec::new();
    for i in 0..fields {
        let field = b.extractvalue(result, i, b.ty(element)?)?;
        if acc == ElemType::F32 {
            out.push(field);
            continue;
        }
        for lane in 0..2 {
            out.push(b.extractelement(field, b.constant(lane, Ty::I32)?)?);
        }
    }
    Ok(out)
}

/// `!llvm.struct<(element, ...)>` with `count` fields.
fn struct_type(element: &str, count: usize) -> String {
    format!("!llvm.struct<({})>", vec![element; count].join(", "))
}

/// What every `wgmma` issue of one gemm shares: the instruction shape, the operand and accumulator types, and the
/// accumulator's register array.
struct Wgmma<'c, 'a> {
    shape: [i64; 3],
    dtype: ElemType,
    acc: ElemType,
    acc_mem: Value<'c, 'a>,
}

impl<'c, 'a> Wgmma<'c, 'a> {
    /// The issue's accumulators, loaded and packed into the instruction's struct: (struct, fields, its type).
    fn accumulators(&self, b: &Builder<'c, 'a>, issue: &MmaIssue) -> Result<(Value<'c, 'a>, usize, String), String> {
        let values = load_regs(b, self.acc_mem, regs(&issue.c)?)?;
        let (fields, element) = pack_accumulators(b, &values, self.acc)?;
        let (count, ty) = (fields.len(), struct_type(element, fields.len()));
        let mut accumulators = b.undef(b.ty(&ty)?)?;
        for (i, v) in fields.into_iter().enumerate() {
            accumulators = b.insertvalue(accumulators, v, i)?;
        }
        Ok((accumulators, count, ty))
    }

    /// One `nvvm.wgmma.mma_async` on shared A and B (descriptors from the encoded bases), results stored back.
    fn shared(
        &self,
        b: &Builder<'c, 'a>,
        issue: &MmaIssue,
        a_base: Value<'c, 'a>,
        b_base: Value<'c, 'a>,
        low_word: bool,
    ) -> Result<(), String> {
        let (accumulators, count, ty) = self.accumulators(b, issue)?;
        let (da, a_major) = join_descriptor(b, &issue.a, a_base, low_word)?;
        let (db, b_major) = join_descriptor(b, &issue.b, b_base, low_word)?;
        let [m, n, k] = self.shape;
        let wgmma_type = |t: ElemType| format!("#nvvm.wgmma_type<{}>", t.ptx());
        let layout = |row: bool| format!("#nvvm.mma_layout<{}>", if row { "row" } else { "col" });
        let attributes = [
            ("shape", format!("#nvvm.shape<m = {m}, n = {n}, k = {k}>")),
            ("typeA", wgmma_type(self.dtype)),
            ("typeB", wgmma_type(self.dtype)),
            ("typeD", wgmma_type(self.acc)),
            ("scaleD", "#nvvm.wgmma_scale_out<one>".into()),
            ("scaleA", "#nvvm.wgmma_scale_in<one>".into()),
            ("scaleB", "#nvvm.wgmma_scale_in<one>".into()),
            // K-major A is "row" (not transposed), K-major B is "col".
            ("layoutA", layout(a_major == axe_layout::mma::Major::K)),
            ("layoutB", layout(b_major != axe_layout::mma::Major::K)),
        ];
        let d = b.value("nvvm.wgmma.mma_async", &[accumulators, da, db], b.ty(&ty)?, &attributes)?;
        let out = unpack_accumulators(b, d, count, self.acc)?;
        store_regs(b, self.acc_mem, regs(&issue.c)?, &out)
    }

    /// One wgmma with A in registers (inline PTX), results stored back.
    fn registers_a(
        &self,
        b: &Builder<'c, 'a>,
        issue: &MmaIssue,
        a_mem: Value<'c, 'a>,
        b_base: Value<'c, 'a>,
    ) -> Result<(), String> {
        let (accumulators, count, _) = self.accumulators(b, issue)?;
        let (db, b_major) = descriptor(b, &issue.b, b_base)?;
        let a_values = load_regs(b, a_mem, regs(&issue.a)?)?;
        let out = wgmma_registers_a(b, self.shape, self.dtype, self.acc, &a_values, db, b_major, accumulators, count)?;
        store_regs(b, self.acc_mem, regs(&issue.c)?, &out)
    }
}

/// `wgmma.commit_group` and `wait_group 0`: every wgmma issued so far is complete when the gemm returns.
fn wgmma_wait_all(b: &Builder) -> Result<(), String> {
    b.op("nvvm.wgmma.commit.group.sync.aligned", &[], &[], &[])?;
    b.op("nvvm.wgmma.wait.group.sync.aligned", &[], &[], &[("group", "0 : i64".into())]).map(drop)
}

/// A plan's issues by issuing warp or warpgroup (its first thread), in order.
fn by_issuer(issues: &[MmaIssue]) -> BTreeMap<i64, Vec<&MmaIssue>> {
    let mut groups: BTreeMap<i64, Vec<&MmaIssue>> = BTreeMap::new();
    for issue in issues {
        groups.entry(issue.thread_base).or_default().push(issue);
    }
    groups
}

/// The issuing warpgroups of a wgmma plan on shared A as one code path: when there are several, every one
/// issues the same instructions on the same accumulator registers (a cta-scope gemm whose C layout splits rows
/// over `wgid`), and warpgroup `g`'s A and B descriptors are warpgroup 0's plus `g` times a fixed step, the
/// steps `(a, b)` in descriptor units; `None` otherwise.
fn uniform_groups(issues: &[MmaIssue]) -> Option<(i64, i64)> {
    let groups: Vec<Vec<&MmaIssue>> = by_issuer(issues).into_values().collect();
    let bases: Vec<i64> = groups.iter().map(|g| g[0].thread_base).collect();
    if groups.len() < 2 || bases.iter().enumerate().any(|(g, base)| *base != 128 * g as i64) {
        return None;
    }
    let smem = |access: &Access| match access {
        Access::Smem(d) => Some(*d),
        _ => None,
    };
    // Descriptor `x` of group `g` minus group 0's, in wrapping 64-bit arithmetic (what the add does).
    let step = |x: &MmaIssue, first: &MmaIssue, pick: fn(&MmaIssue) -> &Access| -> Option<i64> {
        let (d, d0) = (smem(pick(x))?, smem(pick(first))?);
        let same = (d.lbo_bytes, d.sbo_bytes, d.base_offset, d.swizzle, d.major)
            == (d0.lbo_bytes, d0.sbo_bytes, d0.base_offset, d0.swizzle, d0.major);
        same.then(|| d.desc.wrapping_sub(d0.desc) as i64)
    };
    let (first, second) = (&groups[0], &groups[1]);
    let a_step = step(second[0], first[0], |i| &i.a)?;
    let b_step = step(second[0], first[0], |i| &i.b)?;
    for (g, group) in groups.iter().enumerate() {
        if group.len() != first.len() {
            return None;
        }
        for (issue, first) in group.iter().zip(first) {
            let g = g as i64;
            let moves = step(issue, first, |i| &i.a)? == g.wrapping_mul(a_step)
                && step(issue, first, |i| &i.b)? == g.wrapping_mul(b_step);
            if !moves || issue.c != first.c || (issue.n, issue.k) != (first.n, first.k) {
                return None;
            }
        }
    }
    Some((a_step, b_step))
}

/// A matrix descriptor: the plan's constant plus the operand's encoded base address (`i64`).
fn descriptor<'c, 'a>(
    b: &Builder<'c, 'a>,
    access: &Access,
    base: Value<'c, 'a>,
) -> Result<(Value<'c, 'a>, axe_layout::mma::Major), String> {
    join_descriptor(b, access, base, false)
}

/// [`descriptor`], or with `low_word` (an `i32` base) a 32-bit add on the low word joined to the constant high word
/// (`mov.b64 {lo, hi}`): the base moves the 14-bit start-address field only, which never carries out of the low
/// word.
/// `low_word` is for warpgroups that share one code path on bases moved by their index (a 64-bit add there is an
/// add-with-carry pair per descriptor: gemm_sm90a_ws's K loop, 61 -> 59 SASS); elsewhere ptxas folds the 64-bit
/// constant add better (gemm_sm90a's and gemm_sm100a's K loops took 4 and 3 more SASS with the low-word form).
fn join_descriptor<'c, 'a>(
    b: &Builder<'c, 'a>,
    access: &Access,
    base: Value<'c, 'a>,
    low_word: bool,
) -> Result<(Value<'c, 'a>, axe_layout::mma::Major), String> {
    let Access::Smem(SmemDesc { desc, major, .. }) = access else {
        return Err("mma: internal: expected a shared-memory descriptor".to_string());
    };
    if !low_word {
        return Ok((b.addi(b.constant(*desc as i64, Ty::I64)?, base)?, *major));
    }
    let low = b.addi(b.constant(i64::from(*desc as u32 as i32), Ty::I32)?, base)?;
    let high = b.constant((*desc & !0xFFFF_FFFF) as i64, Ty::I64)?;
    Ok((b.ori(b.extui(low, Ty::I64)?, high)?, *major))
}

/// `taddr + offset` as a tensor-memory pointer (`offset` = `lane << 16 | column`).
fn tmem_address<'c, 'a>(b: &Builder<'c, 'a>, taddr: Value<'c, 'a>, offset: i64) -> Result<Value<'c, 'a>, String> {
    if offset == 0 {
        return Ok(taddr);
    }
    let raw = b.ptrtoint(taddr, Ty::I32)?;
    let sum = b.addi(raw, b.constant(offset, Ty::I32)?)?;
    b.inttoptr(sum, AddressSpace::Tmem)
}
