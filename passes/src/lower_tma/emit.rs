//! The rewrite of `--lower-tma`: planned copies, their shared buffers, descriptors and mbarriers become upstream
//! ops. Phase 1 lowers every op in IR order (mbarriers, copies), creating shared buffers, kernel-entry values and
//! host descriptors on first use; phase 2 erases the lowered ops and the views and slices left without uses.

use super::{
    descriptor::{barrier_group_type, box_memref, descriptor_type, BARRIER_TYPE, TRY_WAIT_TICKS},
    host::{annotate_argument, host_descriptor, kernel_symbol, launch_index, record_tensor_map, retype_function},
    LowerTmaStats, PlannedCopy,
};
use crate::ir::build::{segments, Builder, Cmp, Dim, WORKGROUP};
use crate::ir::kernel::known_block;
use crate::ir::ty::Ty;
use axe_dialect::{
    access::{self, OpKey},
    barriers, ffi,
    ops::enclosing_function,
    AxeOp, OpKind,
};
use axe_layout::{
    mma::Chip,
    tma::{Direction, TmaPlan},
    ExecScope,
};
use melior::{
    ir::{block::BlockLike, operation::OperationLike, Location, OperationRef, Value, ValueLike},
    IrRewriter,
};
use std::collections::HashMap;

/// A failure during the rewrite: where and why.
type Failure<'c> = (Location<'c>, String);

/// Reports copies that need different descriptors on one kernel argument; returns how many it reported.
pub(super) fn check_descriptors_agree(copies: &[PlannedCopy]) -> usize {
    let mut failed = 0;
    let mut first_by_argument: HashMap<(OpKey, usize), &PlannedCopy> = HashMap::new();
    for copy in copies {
        let first = *first_by_argument.entry((access::key(copy.global.0), copy.global.1)).or_insert(copy);
        if first.plan.desc != copy.plan.desc {
            failed += 1;
            let message = format!(
                "tma: kernel argument {} needs one descriptor, but its copies plan box {:?} and box {:?}",
                copy.global.1, first.plan.desc.box_dims, copy.plan.desc.box_dims
            );
            ffi::emit_error(copy.op.operation().location(), &message);
        }
    }
    failed
}

/// Per-kernel values created at the entry, before the kernel's original first op.
struct Function<'c, 'a> {
    op: OperationRef<'c, 'a>,
    anchor: OperationRef<'c, 'a>,
    /// The entry-block predicate of the issuing warp (or thread, see [`Lowering::leader`]) and whether an
    /// `elect.sync` at each use picks one lane of it.
    leader: Option<(Value<'c, 'a>, bool)>,
}

/// The state of one rewrite.
struct Lowering<'c, 'a> {
    root: OperationRef<'c, 'a>,
    functions: Vec<Function<'c, 'a>>,
    /// Index into `functions` by function op.
    function_index: HashMap<OpKey, usize>,
    /// The issuing-thread predicate of each block (by block pointer) that holds an issue point: one `elect.sync`
    /// at the top of the block serves every issue in it (see [`Lowering::leader`]).
    elected: HashMap<usize, Value<'c, 'a>>,
    /// The `elect.sync` of each block that holds a warp-scope issue point (see [`Lowering::issuer`]).
    warp_elected: HashMap<usize, Value<'c, 'a>>,
    /// The shared buffer of each lowered `axe.alloc`.
    buffers: HashMap<OpKey, Value<'c, 'a>>,
    /// The kernel-entry descriptor of each (kernel, argument), in creation order.
    descriptors: Vec<((OperationRef<'c, 'a>, usize), Value<'c, 'a>)>,
    /// Index into `descriptors` by (kernel, argument).
    descriptor_index: HashMap<(OpKey, usize), usize>,
    /// Every launch in the module by kernel symbol, built on the first descriptor.
    launches: Option<HashMap<String, Vec<OperationRef<'c, 'a>>>>,
    lowered: Vec<OperationRef<'c, 'a>>,
    stats: LowerTmaStats,
}

/// Lowers `ops` (every axe op under `root`, in IR order) with the plans in `copies`.
pub(super) fn rewrite<'c, 'a>(
    root: OperationRef<'c, 'a>,
    ops: &[AxeOp<'c, 'a>],
    copies: &[PlannedCopy<'c, 'a>],
) -> Result<LowerTmaStats, Failure<'c>> {
    let mut lowering = Lowering {
        root,
        functions: Vec::new(),
        function_index: HashMap::new(),
        elected: HashMap::new(),
        warp_elected: HashMap::new(),
        buffers: HashMap::new(),
        descriptors: Vec::new(),
        descriptor_index: HashMap::new(),
        launches: None,
        lowered: Vec::new(),
        stats: LowerTmaStats::default(),
    };
    let plans: HashMap<OpKey, &PlannedCopy> =
        copies.iter().map(|copy| (access::key(copy.op.operation()), copy)).collect();
    for op in ops {
        let at = |message: String| (op.operation().location(), message);
        match op.kind() {
            OpKind::Copy | OpKind::CopyAsync => {
                let Some(copy) = plans.get(&access::key(op.operation())) else { continue };
                lowering.copy(copy).map_err(at)?;
            }
            kind if is_barrier_op(kind) => lowering.barrier_op(*op).map_err(at)?,
            _ => continue,
        }
        lowering.lowered.push(op.operation());
    }
    lowering.cleanup(ops);
    lowering.check_arguments()?;
    Ok(lowering.stats)
}

/// The mbarrier ops this pass lowers.
fn is_barrier_op(kind: OpKind) -> bool {
    matches!(
        kind,
        OpKind::MbarrierAlloc
            | OpKind::MbarrierInit
            | OpKind::MbarrierArrive
            | OpKind::MbarrierArriveExpectTx
            | OpKind::MbarrierWait
    )
}

impl<'c, 'a> Lowering<'c, 'a> {
    /// The index of the kernel-entry state of the function holding `op`.
    fn function(&mut self, op: OperationRef<'c, 'a>) -> Result<usize, String> {
        let func = enclosing_function(op).ok_or("tma: op is not inside a gpu.func or func.func")?;
        if let Some(&i) = self.function_index.get(&access::key(func)) {
            return Ok(i);
        }
        let entry = access::entry_block(func).ok_or("tma: function has no body")?;
        let anchor = entry.first_operation().ok_or("tma: function body is empty")?;
        self.functions.push(Function { op: func, anchor, leader: None });
        self.function_index.insert(access::key(func), self.functions.len() - 1);
        Ok(self.functions.len() - 1)
    }

    /// A builder at the entry of function `f`, located at `location`.
    fn entry(&self, f: usize, location: Location<'c>) -> Result<Builder<'c, 'a>, String> {
        Ok(Builder::before(self.functions[f].anchor)?.at_location(location))
    }

    /// `i1` true on the one thread of the CTA that issues TMA and initializes barriers, built at `b` (which must
    /// be reached by whole warps: the axe ops lowered here run at cta scope).
    ///
    /// With a known block whose thread count is a multiple of 32 (every warp full), that thread is the lane of
    /// warp 0 that `elect.sync 0xffffffff` elects (PTX ISA, "elect.sync", sm_90+): `tid.x < 32` (and `tid.y|tid.z
    /// == 0` unless the block is flat) holds on all of warp 0 and on no other warp's lanes that could be elected,
    /// and `elect.sync` picks exactly one lane of a converged warp. This is what Triton emits: ptxas proves it is
    /// one thread and issues the guarded TMA, barrier and tcgen05 instructions once, where a `tid == 0` test
    /// makes it wrap each in an ELECT/BRA.U.ANY loop. Otherwise (block unknown or with a partial warp, or a
    /// module for a chip before sm_90) the issuing thread is thread 0 by a plain comparison.
    ///
    /// One election serves every issue point of `b`'s block: the `elect.sync` sits at the top of the block (in
    /// the entry block, with the other entry values), which every thread that reaches an op of the block reaches
    /// converged (structured control flow, no early exit), so the same lane issues the block's expect_tx and its
    /// loads, and ptxas sees one ELECT where one per issue point made three.
    fn leader(&mut self, b: &Builder<'c, 'a>, op: OperationRef<'c, 'a>) -> Result<Value<'c, 'a>, String> {
        let (base, elect) = self.leader_base(op)?;
        if !elect {
            return Ok(base);
        }
        let key = b.block().to_raw().ptr as usize;
        if let Some(&leader) = self.elected.get(&key) {
            return Ok(leader);
        }
        // The election and the test at the top of the block; after an election a warp-scope issue point of the
        // block made already, the test just before this op (the top of the block is before that election).
        let leader = match self.warp_elected.get(&key) {
            Some(&elected) => b.andi(base, elected)?,
            None => {
                let at = self.block_start(b, op)?;
                let elected = at.elect_sync()?;
                self.warp_elected.insert(key, elected);
                at.andi(base, elected)?
            }
        };
        self.elected.insert(key, leader);
        Ok(leader)
    }

    /// The thread that issues `op` for its scope: the CTA's [`Self::leader`] at cta (or cluster) scope; at warp
    /// scope one lane of each warp that executes it (a producer warp issuing a warp-scope load or arrival): the
    /// lane `elect.sync` elects where the leader would use it, else lane 0 of the linear thread index.
    fn issuer(&mut self, b: &Builder<'c, 'a>, op: AxeOp<'c, 'a>) -> Result<Value<'c, 'a>, String> {
        if op.scope().and_then(Result::ok) != Some(ExecScope::Warp) {
            return self.leader(b, op.operation());
        }
        match self.leader_base(op.operation())? {
            (_, true) => self.elect(b, op.operation()),
            (_, false) => first_of_group(b, 32, self.flat_block(op.operation())?),
        }
    }

    /// Whether the kernel holding `op` declares a block of (x, 1, 1) threads (its linear thread index is x).
    fn flat_block(&mut self, op: OperationRef<'c, 'a>) -> Result<bool, String> {
        let f = self.function(op)?;
        Ok(matches!(known_block(self.functions[f].op)[..], [_, 1, 1]))
    }

    /// `elect.sync` at the top of `b`'s block, one per block (see [`Self::leader`]).
    fn elect(&mut self, b: &Builder<'c, 'a>, op: OperationRef<'c, 'a>) -> Result<Value<'c, 'a>, String> {
        let key = b.block().to_raw().ptr as usize;
        if let Some(&elected) = self.warp_elected.get(&key) {
            return Ok(elected);
        }
        let elected = self.block_start(b, op)?.elect_sync()?;
        self.warp_elected.insert(key, elected);
        Ok(elected)
    }

    /// A builder at the top of `b`'s block: with the function's entry values when it is the entry block.
    fn block_start(&mut self, b: &Builder<'c, 'a>, op: OperationRef<'c, 'a>) -> Result<Builder<'c, 'a>, String> {
        let f = self.function(op)?;
        let entry = access::entry_block(self.functions[f].op).ok_or("tma: function has no body")?;
        let location = self.functions[f].op.location();
        match std::ptr::eq(entry.to_raw().ptr, b.block().to_raw().ptr) {
            true => self.entry(f, location),
            false => Ok(Builder::at_start(self.root, b.block(), location)),
        }
    }

    /// The entry-block part of [`Self::leader`], created on first use: (`warp 0`, true) with a known block of
    /// whole warps, else (`thread 0`, false).
    fn leader_base(&mut self, op: OperationRef<'c, 'a>) -> Result<(Value<'c, 'a>, bool), String> {
        let f = self.function(op)?;
        if let Some(leader) = self.functions[f].leader {
            return Ok(leader);
        }
        let leader = self.warp0(f)?;
        self.functions[f].leader = Some(leader);
        Ok(leader)
    }

    /// Builds [`Self::leader_base`]'s values at the entry of function `f`.
    fn warp0(&mut self, f: usize) -> Result<(Value<'c, 'a>, bool), String> {
        let b = self.entry(f, self.functions[f].op.location())?;
        let dims = known_block(self.functions[f].op);
        // elect.sync is sm_90+: a module naming an older chip (or one not known) keeps the comparison.
        let chip = crate::ir::target::target_name(self.functions[f].op).map(|name| Chip::from_name(&name));
        let elect_sync = matches!(chip, None | Some(Some(Chip::Sm90 | Chip::Sm90a | Chip::Sm100a)));
        let whole_warps = dims.len() == 3 && dims.iter().all(|&d| d > 0) && dims.iter().product::<i64>() % 32 == 0;
        let whole_warps = whole_warps && elect_sync;
        // With a known block of (n, 1, 1) threads, y and z are 0: test x alone.
        let flat = dims.len() == 3 && dims[1] == 1 && dims[2] == 1;
        let zero = b.index(0)?;
        let x = b.thread_id(Dim::X)?;
        let mut rest = None;
        if !flat {
            let (y, z) = (b.thread_id(Dim::Y)?, b.thread_id(Dim::Z)?);
            rest = Some(b.ori(y, z)?);
        }
        if !whole_warps {
            let linear = match rest {
                Some(rest) => b.ori(x, rest)?,
                None => x,
            };
            return Ok((b.cmpi(Cmp::Eq, linear, zero)?, false));
        }
        let lanes = b.index(32)?;
        let mut warp0 = b.cmpi(Cmp::Ult, x, lanes)?;
        if let Some(rest) = rest {
            let row0 = b.cmpi(Cmp::Eq, rest, zero)?;
            warp0 = b.andi(warp0, row0)?;
        }
        Ok((warp0, true))
    }

    /// Lowers one mbarrier op: alloc and init run at cta scope (one barrier array, initialized by one thread of
    /// the CTA), expect_tx at cta or warp scope (the warp that issues the loads announces them), a plain arrive at
    /// cta, warpgroup, warp or thread scope (one arrival per instance of the scope: a consumer warpgroup releasing
    /// a stage arrives once), a wait per thread.
    fn barrier_op(&mut self, op: AxeOp<'c, 'a>) -> Result<(), String> {
        let scope = op.scope().unwrap_or_else(|| Err("no scope".into()))?;
        let arrival_scopes = [ExecScope::Cta, ExecScope::Warpgroup, ExecScope::Warp, ExecScope::Thread];
        match op.kind() {
            OpKind::MbarrierWait => {}
            OpKind::MbarrierArrive if !arrival_scopes.contains(&scope) => {
                return Err(format!(
                    "tma: axe.mbarrier_arrive arrives once per instance of its scope: cta, warpgroup, warp or \
                     thread, got {}",
                    scope.name()
                ))
            }
            OpKind::MbarrierArrive => {}
            // A producer warp announces the bytes of its own warp-scope loads.
            OpKind::MbarrierArriveExpectTx if scope == ExecScope::Warp => {}
            kind if scope != ExecScope::Cta => {
                return Err(format!("tma: {} must run at cta scope, got {}", kind.name(), scope.name()))
            }
            _ => {}
        }
        if op.threads().is_some() && op.kind() != OpKind::MbarrierWait {
            return Err(format!("tma: {} with a thread subset is not supported", op.kind().name()));
        }
        let b = Builder::before(op.operation())?;
        if op.kind() == OpKind::MbarrierAlloc {
            let old = op.result().ok_or("tma: mbarrier_alloc has no result")?;
            let count = barriers::mbarrier_count(&old.r#type().to_string()).ok_or("tma: not an !axe.mbarrier")?;
            let barrier = b.value("nvgpu.mbarrier.create", &[], b.ty(&barrier_group_type(count))?, &[])?;
            IrRewriter::from_op(self.root).as_rewriter_base().replace_all_uses_with(old, barrier);
            return Ok(());
        }
        let used = barriers::barrier_use(&op).ok_or("tma: mbarrier op has no barrier")?;
        let barrier = used.array;
        if !barrier.r#type().to_string().starts_with("!nvgpu.mbarrier.group") {
            return Err(format!("tma: the barrier of {} must come from axe.mbarrier_alloc", op.kind().name()));
        }
        let zero = b.index(0)?;
        let element = match used.index {
            Some(index) => index,
            None => zero,
        };
        self.leader_base(op.operation())?;
        let integer = |name: &str| op.integer_attribute(name).unwrap_or_else(|| Err(format!("missing {name}")));
        match op.kind() {
            OpKind::MbarrierInit => {
                let count = b.index(integer("count")?)?;
                let leader = self.leader(&b, op.operation())?;
                // An init without an index initializes every element of the array.
                let elements = if used.is_whole_array() { used.count } else { 1 };
                b.guarded(leader, |t| {
                    for i in 0..elements {
                        let element = if used.is_whole_array() { t.index(i)? } else { element };
                        t.op("nvgpu.mbarrier.init", &[barrier, count, element], &[], &[])?;
                    }
                    t.fence_mbarrier_init()
                })?;
                b.barrier()?;
            }
            OpKind::MbarrierArriveExpectTx => {
                let bytes = b.index(integer("bytes")?)?;
                let leader = self.issuer(&b, op)?;
                b.guarded(leader, |t| {
                    t.op("nvgpu.mbarrier.arrive.expect_tx", &[barrier, bytes, element], &[], &[]).map(drop)
                })?;
            }
            OpKind::MbarrierArrive => {
                let arrive = |t: &Builder<'c, 'a>| {
                    t.op("nvgpu.mbarrier.arrive", &[barrier, element], &[t.ty("!nvgpu.mbarrier.token")?], &[]).map(drop)
                };
                match scope {
                    ExecScope::Thread => arrive(&b)?,
                    ExecScope::Warpgroup => {
                        b.guarded(first_of_group(&b, 128, self.flat_block(op.operation())?)?, arrive)?
                    }
                    _ => b.guarded(self.issuer(&b, op)?, arrive)?,
                }
            }
            _ => {
                let phase = barriers::wait_phase(&op).ok_or("tma: mbarrier_wait has no phase")?;
                let ticks = b.index(TRY_WAIT_TICKS)?;
                b.op("nvgpu.mbarrier.try_wait.parity", &[barrier, phase, ticks, element], &[], &[])?;
            }
        }
        Ok(())
    }

    /// Lowers one planned copy.
    fn copy(&mut self, copy: &PlannedCopy<'c, 'a>) -> Result<(), String> {
        let operation = copy.op.operation();
        self.leader_base(operation)?;
        let smem = self.buffer(copy.shared, &copy.plan)?;
        let desc = self.descriptor(copy)?;
        let b = Builder::before(operation)?;
        let sync = copy.op.kind() == OpKind::Copy;
        let plan = &copy.plan;
        match plan.direction {
            Direction::G2S => {
                let (barrier, element, phase) = match sync {
                    false => {
                        let used = barriers::barrier_use(&copy.op).ok_or("tma: copy_async load has no barrier")?;
                        (used.array, used.index, None)
                    }
                    true => {
                        let (barrier, phase) = self.sync_barrier(operation)?;
                        (barrier, None, phase)
                    }
                };
                if let Some(phase) = phase {
                    b.barrier()?;
                    let current = b.load(phase, &[])?;
                    let leader = self.leader(&b, operation)?;
                    self.load_issues(&b, leader, smem, desc, (barrier, element, true), copy)?;
                    let ticks = b.index(TRY_WAIT_TICKS)?;
                    let zero = b.index(0)?;
                    b.op("nvgpu.mbarrier.try_wait.parity", &[barrier, current, ticks, zero], &[], &[])?;
                    let one = b.constant(1, Ty::I1)?;
                    let next = b.xori(current, one)?;
                    b.store(next, phase, &[])?;
                } else {
                    if copy.multicast.is_some() {
                        // Every CTA of the cluster has initialized its barrier before any CTA's TMA signals it.
                        b.op("nvvm.cluster.arrive", &[], &[], &[])?;
                        b.op("nvvm.cluster.wait", &[], &[], &[])?;
                    }
                    let issuer = self.issuer(&b, copy.op)?;
                    self.load_issues(&b, issuer, smem, desc, (barrier, element, !copy.announced), copy)?;
                }
            }
            Direction::S2G => {
                let proxy =
                    [("kind", "#nvvm.proxy_kind<async.shared>".into()), ("space", "#nvvm.shared_space<cta>".into())];
                b.op("nvvm.fence.proxy", &[], &[], &proxy)?;
                // The threads that wrote the tile synchronize, then one of them issues: the CTA and its leader, or
                // a range of warps (a role) and its first warp's elected lane.
                let range = self.warp_range(copy.op)?;
                let leader = match range {
                    None => {
                        b.barrier()?;
                        self.leader(&b, operation)?
                    }
                    Some((first, end)) => self.range_leader(&b, operation, first, end)?,
                };
                b.guarded(leader, |t| {
                    let moved = run_time_coordinates(t, plan, &copy.offsets)?;
                    let stage = run_time_shared_bytes(t, plan, &copy.shared_offsets)?;
                    for issue in &plan.issues {
                        let source = box_view(t, smem, plan, issue.smem_offset_bytes, stage)?;
                        let mut operands = vec![source, desc];
                        operands.extend(coordinates(t, &issue.coordinates, &moved)?);
                        let sizes = segments(&[1, 1, issue.coordinates.len(), 0]);
                        t.op("nvgpu.tma.async.store", &operands, &[], &[("operandSegmentSizes", sizes)])?;
                    }
                    t.op("nvvm.cp.async.bulk.commit.group", &[], &[], &[])?;
                    // An axe.copy_async store may leave the newest n stores reading (`reads_in_flight = n`, a
                    // staged epilogue's stages); a blocking axe.copy waits for all.
                    let in_flight = if sync { 0 } else { reads_in_flight(copy.op)? };
                    let mut wait = vec![("group", format!("{in_flight} : i32"))];
                    if !sync {
                        wait.push(("read", "unit".into()));
                    }
                    t.op("nvvm.cp.async.bulk.wait_group", &[], &[], &wait).map(drop)
                })?;
                if sync {
                    match range {
                        None => b.barrier()?,
                        Some((first, end)) => range_barrier(&b, operation, first, end)?,
                    }
                }
            }
        }
        self.stats.copies += 1;
        self.stats.issues += plan.issues.len();
        Ok(())
    }

    /// On the leader: `arrive.expect_tx` with the plan's bytes (unless `arrive` is false: an explicit
    /// `axe.mbarrier_arrive_expect_tx` announced them), then one TMA load per issue, all on the barrier group's
    /// element `element` (0 when `None`).
    fn load_issues(
        &self,
        b: &Builder<'c, 'a>,
        leader: Value<'c, 'a>,
        smem: Value<'c, 'a>,
        desc: Value<'c, 'a>,
        (barrier, element, arrive): (Value<'c, 'a>, Option<Value<'c, 'a>>, bool),
        copy: &PlannedCopy<'c, 'a>,
    ) -> Result<(), String> {
        let plan = &copy.plan;
        let zero = match element {
            Some(element) => element,
            None => b.index(0)?,
        };
        b.guarded(leader, |t| {
            if arrive {
                let bytes = t.index(plan.total_bytes() as i64)?;
                t.op("nvgpu.mbarrier.arrive.expect_tx", &[barrier, bytes, zero], &[], &[])?;
            }
            let moved = run_time_coordinates(t, plan, &copy.offsets)?;
            let stage = run_time_shared_bytes(t, plan, &copy.shared_offsets)?;
            // A multicast load: this CTA's rank in the cluster and the mask every issue goes to.
            let multicast = match &copy.multicast {
                Some(m) => Some((
                    t.value("nvvm.read.ptx.sreg.cluster.ctarank", &[], Ty::I32, &[])?,
                    t.constant(i64::from(m.mask as i16), Ty::I16)?,
                    &m.issuer,
                )),
                None => None,
            };
            for (k, issue) in plan.issues.iter().enumerate() {
                let dest = box_view(t, smem, plan, issue.smem_offset_bytes, stage)?;
                let mut operands = vec![dest, barrier, desc];
                operands.extend(coordinates(t, &issue.coordinates, &moved)?);
                operands.push(zero);
                let Some((rank, mask, issuer)) = multicast else {
                    let sizes = segments(&[1, 1, 1, issue.coordinates.len(), 1, 0, 0]);
                    t.op("nvgpu.tma.async.load", &operands, &[], &[("operandSegmentSizes", sizes)])?;
                    continue;
                };
                operands.push(mask);
                let sizes = segments(&[1, 1, 1, issue.coordinates.len(), 1, 1, 0]);
                let who = t.constant(i64::from(issuer.get(k).copied().unwrap_or(0)), Ty::I32)?;
                let mine = t.cmpi(Cmp::Eq, rank, who)?;
                t.guarded(mine, |u| {
                    u.op("nvgpu.tma.async.load", &operands, &[], &[("operandSegmentSizes", sizes)]).map(drop)
                })?;
            }
            Ok(())
        })
    }

    /// A fresh barrier for a synchronous load, initialized at kernel entry, and its phase bit (`memref<i1>`).
    fn sync_barrier(&mut self, op: OperationRef<'c, 'a>) -> Result<(Value<'c, 'a>, Option<Value<'c, 'a>>), String> {
        self.leader_base(op)?;
        let f = self.function(op)?;
        let b = self.entry(f, op.location())?;
        let barrier = b.value("nvgpu.mbarrier.create", &[], b.ty(BARRIER_TYPE)?, &[])?;
        let (zero, one) = (b.index(0)?, b.index(1)?);
        let leader = self.leader(&b, op)?;
        b.guarded(leader, |t| {
            t.op("nvgpu.mbarrier.init", &[barrier, one, zero], &[], &[])?;
            t.fence_mbarrier_init()
        })?;
        b.barrier()?;
        let phase = b.alloca(b.ty("memref<i1>")?)?;
        let start = b.constant(0, Ty::I1)?;
        b.store(start, phase, &[])?;
        Ok((barrier, Some(phase)))
    }

    /// The warps `first..end` of a copy at `cta` scope on a range of warps (`cta(warpid[a:b])`, `cta(wgid[a:b])`);
    /// `None` for the whole CTA.
    fn warp_range(&self, op: AxeOp<'c, 'a>) -> Result<Option<(i64, i64)>, String> {
        match op.threads().transpose()? {
            None => Ok(None),
            Some(t) if t.axis == "warpid" => Ok(Some((t.begin, t.end))),
            Some(t) if t.axis == "wgid" => Ok(Some((4 * t.begin, 4 * t.end))),
            Some(t) => Err(format!("tma: a copy by {}[{}:{}] is not a range of warps", t.axis, t.begin, t.end)),
        }
    }

    /// A named barrier of warps `first..end`, then the predicate of the range's issuing thread: warp `first`'s
    /// elected lane.
    fn range_leader(
        &mut self,
        b: &Builder<'c, 'a>,
        op: OperationRef<'c, 'a>,
        first: i64,
        end: i64,
    ) -> Result<Value<'c, 'a>, String> {
        range_barrier(b, op, first, end)?;
        let kernel = enclosing_function(op).ok_or("tma: copy is not inside a function")?;
        let tid = b.linear_thread_id(&known_block(kernel))?;
        let warp = b.divui(tid, b.index(32)?)?;
        let first_warp = b.cmpi(Cmp::Eq, warp, b.index(first)?)?;
        let elected = b.elect_sync()?;
        b.andi(first_warp, elected)
    }

    /// The shared buffer (`memref<Nxi8, workgroup>`) of an `axe.alloc`, created on first use as a `memref.global`.
    fn buffer(&mut self, alloc: AxeOp<'c, 'a>, plan: &TmaPlan) -> Result<Value<'c, 'a>, String> {
        let operation = alloc.operation();
        let alignment = plan.shared_base_alignment_bytes;
        if let Some(&buffer) = self.buffers.get(&access::key(operation)) {
            return Ok(buffer);
        }
        let tensor = alloc.tensor("result").ok_or("tma: alloc type does not read")?;
        let layout = tensor.layout.parse().and_then(Result::ok).ok_or("tma: alloc layout does not parse")?;
        let elem = tensor.dtype.number().ok_or("tma: alloc dtype is not a TMA type")?;
        let bytes = layout.tile().span_memory() * elem.bytes();
        let memref = format!("memref<{bytes}xi8, {}>", WORKGROUP);
        let name = format!("__axe_smem_{}", self.buffers.len());
        let func = enclosing_function(operation).ok_or("tma: alloc is not inside a function")?;
        let table = func.block().ok_or("tma: function is not in a module")?;
        let global = Builder::at_start(self.root, table, operation.location());
        let ty = global.ty(&memref)?;
        let alignment = i64::try_from(alignment.max(128)).map_err(|_| "tma: internal: alignment out of range")?;
        global.global(&name, ty, alignment)?;
        crate::storage::note_lifetime(operation, func, &name)?;
        let b = Builder::before(operation)?;
        let buffer = b.get_global(&name, ty)?;
        self.buffers.insert(access::key(operation), buffer);
        Ok(buffer)
    }

    /// The device-side descriptor of a copy's global kernel argument, created on first use: the argument becomes
    /// `!llvm.ptr`, each launch passes `axe.tma_descriptor` of its operand, and the kernel casts at entry.
    fn descriptor(&mut self, copy: &PlannedCopy<'c, 'a>) -> Result<Value<'c, 'a>, String> {
        let (kernel, index) = copy.global;
        if let Some(&i) = self.descriptor_index.get(&(access::key(kernel), index)) {
            return Ok(self.descriptors[i].1);
        }
        let entry = access::entry_block(kernel).ok_or("tma: kernel has no body")?;
        let argument = access::argument(entry, index).ok_or_else(|| format!("tma: kernel has no argument {index}"))?;
        let old_type = argument.r#type();
        let pointer = ffi::parse_type(kernel, "!llvm.ptr").ok_or("tma: internal: !llvm.ptr")?;
        argument.set_type(pointer);
        retype_function(kernel, index, pointer)?;
        if copy.runtime.is_none() {
            annotate_argument(kernel, index, &copy.plan)?;
        }
        record_tensor_map(kernel, index, &copy.plan, copy.runtime.as_ref())?;
        let symbol = kernel_symbol(kernel)?;
        let root = self.root;
        let launches = self.launches.get_or_insert_with(|| launch_index(root));
        for &launch in launches.get(&symbol).into_iter().flatten() {
            if copy.runtime.is_some() {
                return Err(format!(
                    "tma: dynamic-extent rule: kernel argument {index} is a run-time-sized tensor; encoding its map \
                     at gpu.launch_func is not lowered (launch from the record axe-translate --emit=launch prints)"
                ));
            }
            host_descriptor(launch, index, old_type, &copy.plan)?;
        }
        let f = self.function(copy.op.operation())?;
        let b = self.entry(f, argument_location(kernel))?;
        let desc = b.value(
            "builtin.unrealized_conversion_cast",
            &[argument.into()],
            b.ty(&descriptor_type(&copy.plan.desc))?,
            &[],
        )?;
        self.descriptor_index.insert((access::key(kernel), index), self.descriptors.len());
        self.descriptors.push((copy.global, desc));
        self.stats.descriptors += 1;
        Ok(desc)
    }

    /// Erases the lowered ops, then views, slices and allocs left without uses (an alloc still used elsewhere
    /// becomes an `axe.view` of its buffer).
    fn cleanup(&mut self, ops: &[AxeOp<'c, 'a>]) {
        let rewriter = IrRewriter::from_op(self.root);
        let base = rewriter.as_rewriter_base();
        for op in self.lowered.iter().rev() {
            base.erase_op(*op);
        }
        for op in ops.iter().rev().filter(|op| matches!(op.kind(), OpKind::View | OpKind::Slice | OpKind::Alloc)) {
            let Some(result) = op.result() else { continue };
            let buffer = self.buffers.get(&access::key(op.operation())).copied();
            if !ffi::has_uses(result) && (op.kind() != OpKind::Alloc || buffer.is_some()) {
                base.erase_op(op.operation());
            } else if let (Some(buffer), Ok(b)) = (buffer, Builder::before(op.operation())) {
                // The byte buffer seen as elements of the tensor's dtype (a view keeps its source's dtype).
                let Some(typed) = op.tensor("result").and_then(|t| typed_buffer(&b, buffer, &t).ok()) else {
                    continue;
                };
                if let Ok(view) = b.axe_view(typed, result.r#type()) {
                    base.replace_all_uses_with(result, view);
                    base.erase_op(op.operation());
                }
            }
        }
    }

    /// Fails when a kernel argument turned descriptor is still used by anything but its entry cast.
    fn check_arguments(&self) -> Result<(), Failure<'c>> {
        for ((kernel, index), desc) in &self.descriptors {
            let Some(argument) = access::entry_block(*kernel).and_then(|entry| access::argument(entry, *index)) else {
                continue;
            };
            let mut other = None;
            axe_dialect::ops::walk_preorder(*kernel, &mut |op| {
                let is_cast = access::result(op, 0) == Some(*desc);
                if !is_cast && op.operands().any(|v| v == Value::from(argument)) && other.is_none() {
                    other = Some(op.location());
                }
            });
            if let Some(location) = other {
                let message = format!("tma: kernel argument {index} becomes a TMA descriptor but has other uses");
                return Err((location, message));
            }
        }
        Ok(())
    }
}

/// `memref.view` of the shared byte buffer of an alloc as `memref<N x dtype>` (N = the layout's span, as
/// [`Lowering::buffer`] sized it), so the alloc's remaining uses see a view with the tensor's dtype.
fn typed_buffer<'c, 'a>(
    b: &Builder<'c, 'a>,
    buffer: Value<'c, 'a>,
    tensor: &axe_dialect::TensorType,
) -> Result<Value<'c, 'a>, String> {
    let layout = tensor.layout.parse().and_then(Result::ok).ok_or("tma: alloc layout does not parse")?;
    let ty = format!("memref<{}x{}, {}>", layout.tile().span_memory(), tensor.dtype, WORKGROUP);
    let zero = b.index(0)?;
    b.view(buffer, zero, b.ty(&ty)?)
}

/// The `memref.view` of one box at `offset` bytes into `smem`, plus the run-time shared bytes when the shared
/// region moves (`arith.addi`, or the run-time value alone when the constant is 0).
fn box_view<'c, 'a>(
    b: &Builder<'c, 'a>,
    smem: Value<'c, 'a>,
    plan: &TmaPlan,
    offset: i64,
    run_time: Option<Value<'c, 'a>>,
) -> Result<Value<'c, 'a>, String> {
    let offset = match run_time {
        Some(moved) if offset == 0 => moved,
        Some(moved) => {
            let constant = b.index(offset)?;
            b.addi(constant, moved)?
        }
        None => b.index(offset)?,
    };
    b.view(smem, offset, b.ty(&box_memref(&plan.desc))?)
}

/// The run-time part of every issue's shared byte offset (`None` for a static shared region): the sum of the
/// plan's shared terms `bytes * (offset / divisor)` (exact division, `arith.divsi`).
fn run_time_shared_bytes<'c, 'a>(
    b: &Builder<'c, 'a>,
    plan: &TmaPlan,
    offsets: &[Value<'c, 'a>],
) -> Result<Option<Value<'c, 'a>>, String> {
    let mut sum: Option<Value<'c, 'a>> = None;
    for term in &plan.shared_dynamic {
        let mut value = *offsets.get(term.offset).ok_or("tma: internal: a shared term names a missing offset")?;
        if term.divisor != 1 {
            let divisor = b.index(term.divisor)?;
            value = b.divsi(value, divisor)?;
        }
        let bytes = b.index(term.bytes)?;
        value = b.muli(value, bytes)?;
        sum = Some(match sum {
            Some(sum) => b.addi(sum, value)?,
            None => value,
        });
    }
    Ok(sum)
}

/// The run-time part of the coordinates, per descriptor dimension (`None` where nothing moves it): the sum of the
/// plan's terms `scale * (offset / divisor)` (exact division, `arith.divsi`, so negative offsets divide right too).
fn run_time_coordinates<'c, 'a>(
    b: &Builder<'c, 'a>,
    plan: &TmaPlan,
    offsets: &[Value<'c, 'a>],
) -> Result<Vec<Option<Value<'c, 'a>>>, String> {
    let mut moved: Vec<Option<Value<'c, 'a>>> = vec![None; plan.desc.rank as usize];
    for term in &plan.dynamic {
        let offset = *offsets.get(term.offset).ok_or("tma: internal: a plan term names a missing offset")?;
        let mut value = offset;
        if term.divisor != 1 {
            let divisor = b.index(term.divisor)?;
            value = b.divsi(value, divisor)?;
        }
        if term.scale != 1 {
            let scale = b.index(term.scale)?;
            value = b.muli(value, scale)?;
        }
        let slot = moved.get_mut(term.dim).ok_or("tma: internal: a plan term names a missing dimension")?;
        *slot = Some(match *slot {
            Some(sum) => b.addi(sum, value)?,
            None => value,
        });
    }
    Ok(moved)
}

/// One `index` per coordinate (innermost first, as the descriptor's dimensions): the issue's constant, plus the
/// run-time part where the plan has one (`arith.addi`, or the run-time value alone when the constant is 0).
fn coordinates<'c, 'a>(
    b: &Builder<'c, 'a>,
    coordinates: &[i64],
    moved: &[Option<Value<'c, 'a>>],
) -> Result<Vec<Value<'c, 'a>>, String> {
    coordinates
        .iter()
        .enumerate()
        .map(|(dim, &c)| match moved.get(dim).copied().flatten() {
            Some(run_time) if c == 0 => Ok(run_time),
            Some(run_time) => {
                let constant = b.index(c)?;
                b.addi(constant, run_time)
            }
            None => b.index(c),
        })
        .collect()
}

/// Where the kernel-entry cast of a descriptor argument is located: at the kernel.
fn argument_location<'c>(kernel: OperationRef<'c, '_>) -> Location<'c> {
    kernel.location()
}

/// `i1` true on the first thread of each group of `size` consecutive threads (a warp: 32, a warpgroup: 128), by
/// the linear thread index `x + dim_x * (y + dim_y * z)` (`x` in a block known to be flat): the one thread per warp
/// or warpgroup that arrives.
fn first_of_group<'c, 'a>(b: &Builder<'c, 'a>, size: i64, flat: bool) -> Result<Value<'c, 'a>, String> {
    let mut linear = b.thread_id(Dim::X)?;
    if !flat {
        let (y, z) = (b.thread_id(Dim::Y)?, b.thread_id(Dim::Z)?);
        let (dim_x, dim_y) = (b.block_dim(Dim::X)?, b.block_dim(Dim::Y)?);
        let plane = b.addi(y, b.muli(dim_y, z)?)?;
        linear = b.addi(linear, b.muli(dim_x, plane)?)?;
    }
    let first = b.remui(linear, b.index(size)?)?;
    b.cmpi(Cmp::Eq, first, b.index(0)?)
}

/// `bar.sync id, 32 * (end - first)`: the named barrier of warps `first..end` (the kernel's id for the range).
fn range_barrier(b: &Builder, op: OperationRef, first: i64, end: i64) -> Result<(), String> {
    let kernel = enclosing_function(op).ok_or("tma: copy is not inside a function")?;
    let id = crate::ir::named_barriers::range_id(kernel, first, end).map_err(|m| format!("tma: {m}"))?;
    let id = b.constant(id, Ty::I32)?;
    let count = b.constant(32 * (end - first), Ty::I32)?;
    b.op("nvvm.barrier", &[id, count], &[], &[("operandSegmentSizes", segments(&[1, 1, 0]))]).map(drop)
}

/// The `reads_in_flight` of an `axe.copy_async` store: how many of the newest bulk store groups its issuing lane
/// leaves reading their shared source (`cp.async.bulk.wait_group.read n`); 0 when absent.
fn reads_in_flight(op: AxeOp) -> Result<i64, String> {
    match op.integer_attribute("reads_in_flight") {
        None => Ok(0),
        Some(Ok(n)) if (0..=63).contains(&n) => Ok(n),
        Some(Ok(n)) => Err(format!("tma: reads_in_flight must be in 0..=63, got {n}")),
        Some(Err(e)) => Err(format!("tma: {e}")),
    }
}
