//! IR building for `--lower-collectives`: the NVSHMEM calls one planned collective becomes (see the pass's
//! module docs for the shape). Every number in the calls (peer, offsets, lengths, repetitions) is the plan's,
//! scaled by the element size.

use super::{Buffer, LowerCollectivesStats, PlannedCollective, SYMMETRIC_ATTRIBUTE};
use crate::ir::build::{Builder, Cmp, Dim};
use crate::ir::ty::{AddressSpace, Ty};
use axe_dialect::{access, ffi};
use axe_layout::distributed::{
    collective::{Slice, StepOp},
    placement::ReduceOp,
};
use melior::{
    ir::{
        block::BlockLike, operation::OperationLike, Block, BlockRef, Location, OperationRef, Region, RegionLike, Value,
        ValueLike,
    },
    IrRewriter,
};
use std::collections::{BTreeMap, HashMap, HashSet};

/// The device functions of the NVSHMEM library the lowering calls, with their MLIR function types
/// (`nvshmem_my_pe`: `int(void)`; `nvshmemx_putmem_nbi_block`: `void(void *dest, const void *source, size_t
/// nelems, int pe)`; `nvshmem_quiet`, `nvshmemx_barrier_all_block`: `void(void)`; NVSHMEM API, "Device API").
/// `nvshmemx_getmem_block`: `void(void *dest, const void *source, size_t nelems, int pe)`, blocking;
/// `nvshmem_uint{16,32,64}_g`: `uintN_t(const uintN_t *source, int pe)`, one element from a peer.
const FUNCTIONS: &[(&str, &str)] = &[
    (MY_PE, "!llvm.func<i32 ()>"),
    (PUT, "!llvm.func<void (ptr, ptr, i64, i32)>"),
    (GET, "!llvm.func<void (ptr, ptr, i64, i32)>"),
    ("nvshmem_uint16_g", "!llvm.func<i16 (ptr, i32)>"),
    ("nvshmem_uint32_g", "!llvm.func<i32 (ptr, i32)>"),
    ("nvshmem_uint64_g", "!llvm.func<i64 (ptr, i32)>"),
    (QUIET, "!llvm.func<void ()>"),
    (BARRIER, "!llvm.func<void ()>"),
    (MC_PTR, "!llvm.func<ptr (i32, ptr)>"),
];
/// `nvshmemx_mc_ptr(team, ptr)`: the NVLink multicast address of a symmetric address (null without multicast).
const MC_PTR: &str = "nvshmemx_mc_ptr";
/// `NVSHMEM_TEAM_WORLD` (nvshmem_common.cuh: the team of every PE).
const TEAM_WORLD: i64 = 0;
const GET: &str = "nvshmemx_getmem_block";
const MY_PE: &str = "nvshmem_my_pe";
const PUT: &str = "nvshmemx_putmem_nbi_block";
const QUIET: &str = "nvshmem_quiet";
const BARRIER: &str = "nvshmemx_barrier_all_block";

type Failure<'c> = (Location<'c>, String);

/// Declares the NVSHMEM functions in each symbol table that needs them, lowers every planned copy, records the
/// kernels' symmetric buffers and erases the copies and the views left without uses.
pub(super) fn rewrite<'c, 'a>(
    root: OperationRef<'c, 'a>,
    planned: &[PlannedCollective<'c, 'a>],
) -> Result<LowerCollectivesStats, Failure<'c>> {
    let mut stats = LowerCollectivesStats::default();
    let mut declared: HashSet<access::OpKey> = HashSet::new();
    // Per kernel: argument -> (bytes, local shapes), in argument order (deterministic output).
    let mut symmetric: HashMap<access::OpKey, (OperationRef<'c, 'a>, BTreeMap<usize, SymmetricBuffer>)> =
        HashMap::new();
    let mut kernels = Vec::new();
    for p in planned {
        let location = p.op.operation().location();
        let at = |message: String| (location, message);
        let table = p.kernel.block().ok_or_else(|| at("collectives: internal: kernel not in a module".into()))?;
        if let Some(owner) = table.parent_operation() {
            if declared.insert(access::key(owner)) {
                declare(root, table, location).map_err(at)?;
            }
        }
        stats.calls += lower(p).map_err(at)?;
        stats.copies += 1;
        let steps = || p.plan.ranks.iter().flat_map(|r| &r.steps);
        let has_puts = steps().any(|s| s.op == StepOp::Put);
        let has_gets = steps().any(|s| matches!(s.op, StepOp::Get | StepOp::GetReduce));
        // multimem reads every PE's source and writes every PE's destination through their multicast addresses.
        let buffers = [
            (has_gets || p.multimem, p.sides[0].index, p.plan.src_elements, &p.local_shapes[0]),
            (has_puts || p.multimem, p.sides[1].index, p.plan.dst_elements, &p.local_shapes[1]),
        ];
        for (_, index, elements, shapes) in buffers.into_iter().filter(|b| b.0) {
            let entry = symmetric.entry(access::key(p.kernel)).or_insert_with(|| {
                kernels.push(access::key(p.kernel));
                (p.kernel, BTreeMap::new())
            });
            let bytes = elements.saturating_mul(p.bytes);
            match entry.1.get_mut(&index) {
                None => {
                    entry.1.insert(index, SymmetricBuffer { bytes, local_shapes: shapes.clone() });
                }
                Some(slot) => {
                    slot.bytes = slot.bytes.max(bytes);
                    if slot.local_shapes != *shapes {
                        slot.local_shapes = None;
                    }
                }
            }
        }
    }
    for key in kernels {
        let (kernel, args) = &symmetric[&key];
        let items: Vec<String> = args.iter().map(|(arg, buffer)| buffer.attribute(*arg)).collect();
        let text = format!("[{}]", items.join(", "));
        let attribute = ffi::parse_attribute(*kernel, &text)
            .ok_or_else(|| (kernel.location(), format!("collectives: internal: attribute {text} does not parse")))?;
        ffi::set_attribute(*kernel, SYMMETRIC_ATTRIBUTE, attribute);
    }
    let rewriter = IrRewriter::from_op(root);
    let base = rewriter.as_rewriter_base();
    for p in planned.iter().rev() {
        let views: Vec<OperationRef> =
            [p.op.operand(0), p.op.operand(1)].into_iter().flatten().filter_map(access::defining_op).collect();
        base.erase_op(p.op.operation());
        for view in views {
            if access::result(view, 0).is_some_and(|r| !ffi::has_uses(r)) {
                base.erase_op(view);
            }
        }
    }
    Ok(stats)
}

/// What the launch record says of one symmetric buffer.
struct SymmetricBuffer {
    /// The largest plan buffer over the copies using it, in bytes.
    bytes: i64,
    /// Each rank's DTensor local shape, when every copy using the buffer gives the same placement shapes.
    local_shapes: Option<Vec<Vec<i64>>>,
}

impl SymmetricBuffer {
    /// `{arg = 1 : i64, bytes = 128 : i64, local_shapes = [array<i64: 8, 4>, ...]}`.
    fn attribute(&self, arg: usize) -> String {
        let shapes = self.local_shapes.as_ref().map_or(String::new(), |shapes| {
            let each: Vec<String> = shapes
                .iter()
                .map(|s| format!("array<i64: {}>", s.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")))
                .collect();
            format!(", local_shapes = [{}]", each.join(", "))
        });
        format!("{{arg = {arg} : i64, bytes = {} : i64{shapes}}}", self.bytes)
    }
}

/// `llvm.func @f(...)` (external) for each NVSHMEM function `table` (a `gpu.module` or module body) does not
/// define or declare yet.
fn declare<'c, 'a>(root: OperationRef<'c, 'a>, table: BlockRef<'c, 'a>, location: Location<'c>) -> Result<(), String> {
    let mut present = HashSet::new();
    let mut next = table.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        if let Ok(name) = op.attribute("sym_name") {
            present.insert(name.to_string().trim_matches('"').to_string());
        }
    }
    let b = Builder::at_start(root, table, location);
    for (name, ty) in FUNCTIONS.iter().filter(|(name, _)| !present.contains(*name)) {
        b.op_with_regions(
            "llvm.func",
            &[],
            &[],
            &[("sym_name", format!("\"{name}\"")), ("function_type", ty.to_string())],
            vec![Region::new()],
        )?;
    }
    Ok(())
}

/// Lowers one copy before it, run by the first CTA of the grid only (`scf.if` on `block_id == (0, 0, 0)`: the
/// `_block` calls take one CTA per PE, and a second CTA would repeat the puts and double the reductions); returns
/// the slices lowered.
fn lower(p: &PlannedCollective) -> Result<usize, String> {
    let outer = Builder::before(p.op.operation())?;
    let zero = outer.index(0)?;
    let mut first = None;
    for d in Dim::ALL {
        let id = outer.block_id(d)?;
        let is_zero = outer.cmpi(Cmp::Eq, id, zero)?;
        first = Some(match first {
            None => is_zero,
            Some(all) => outer.andi(all, is_zero)?,
        });
    }
    let first = first.ok_or("collectives: internal: no block id")?;
    let mut slices = 0;
    outer.guarded(first, |b| {
        slices = if p.multimem { lower_multimem(p, b)? } else { lower_steps(p, b)? };
        Ok(())
    })?;
    Ok(slices)
}

/// The plan's steps per rank (puts, gets, element loops), then completion.
fn lower_steps<'c, 'a>(p: &PlannedCollective<'c, 'a>, b: &Builder<'c, 'a>) -> Result<usize, String> {
    let src = address(b, &p.sides[0])?;
    let dst = address(b, &p.sides[1])?;
    let pe = call(b, MY_PE, &[], Some(Ty::I32))?.ok_or("collectives: internal: my_pe has no result")?;
    let gets = p.plan.ranks.iter().flat_map(|r| &r.steps).any(|s| matches!(s.op, StepOp::Get | StepOp::GetReduce));
    if gets {
        // Every peer's source is ready before anyone reads it.
        call(b, BARRIER, &[], None)?;
    }
    let pe = b.index_cast(pe, Ty::Index)?;
    let ranks = p.plan.ranks.len();
    let cases: Vec<String> = p.plan.ranks.iter().map(|r| r.rank.to_string()).collect();
    let regions: Vec<Region> = (0..=ranks)
        .map(|_| {
            let region = Region::new();
            region.append_block(Block::new(&[]));
            region
        })
        .collect();
    let switch = b.op_with_regions(
        "scf.index_switch",
        &[pe],
        &[],
        &[("cases", format!("array<i64: {}>", cases.join(", ")))],
        regions,
    )?;
    let block = |i: usize| -> Result<BlockRef, String> {
        access::region(switch, i)
            .and_then(|r| r.first_block())
            .ok_or_else(|| "collectives: internal: switch block".into())
    };
    let default = Builder::at_start(p.op.operation(), block(0)?, p.op.operation().location());
    default.trap()?;
    default.r#yield(&[])?;
    let mut calls = 0;
    for (i, rank) in p.plan.ranks.iter().enumerate() {
        let case = Builder::at_start(p.op.operation(), block(i + 1)?, p.op.operation().location());
        let location = p.op.operation().location();
        for step in &rank.steps {
            let reduction = p.plan.reduce.is_some();
            for slice in &step.slices {
                match step.op {
                    StepOp::Put => transfer(&case, PUT, p.bytes, [dst, src], slice, step.dst_rank, location)?,
                    // A local first contribution in a reduction: element by element (later steps read it).
                    StepOp::Copy if reduction => elementwise(&case, p, [src, dst], slice, None, false, location)?,
                    StepOp::Copy => transfer(&case, PUT, p.bytes, [dst, src], slice, step.dst_rank, location)?,
                    StepOp::Get => transfer(&case, GET, p.bytes, [dst, src], slice, step.src_rank, location)?,
                    StepOp::GetReduce => elementwise(&case, p, [src, dst], slice, Some(step.src_rank), true, location)?,
                    StepOp::Reduce => elementwise(&case, p, [src, dst], slice, None, true, location)?,
                }
                calls += 1;
            }
            if reduction {
                // The next step reads what this one wrote, in other threads.
                case.barrier()?;
            }
        }
        case.r#yield(&[])?;
    }
    call(b, QUIET, &[], None)?;
    call(b, BARRIER, &[], None)?;
    Ok(calls)
}

/// A sum all-reduce over NVLink multicast (PTX ISA, "Data Movement and Conversion Instructions: multimem.ld_reduce,
/// multimem.st, multimem.red": ISA 8.1, sm_90; `.relaxed.sys.global`, `.add.f32`): after
/// a barrier (every PE's source ready), each element of the plan's slices is taken by one thread of one PE
/// (`j = pe * threads + tid; j < len; j += ranks * threads`, the linear thread index and count), which loads the sum of every PE's source
/// element through the source's multicast address and stores it to every PE's destination through the
/// destination's; a null multicast address (no NVLink multicast on this system) traps. Then quiet and a barrier.
fn lower_multimem<'c, 'a>(p: &PlannedCollective<'c, 'a>, b: &Builder<'c, 'a>) -> Result<usize, String> {
    let location = p.op.operation().location();
    let pe = call(b, MY_PE, &[], Some(Ty::I32))?.ok_or("collectives: internal: my_pe has no result")?;
    call(b, BARRIER, &[], None)?;
    let team = b.constant(TEAM_WORLD, Ty::I32)?;
    let null = b.constant(0, Ty::I64)?;
    let mut bases = Vec::new();
    for side in &p.sides {
        let pointer = call(b, MC_PTR, &[team, side.value], Some(Ty::Ptr(AddressSpace::Generic)))?
            .ok_or("collectives: internal: mc_ptr has no result")?;
        let address = b.ptrtoint(pointer, Ty::I64)?;
        let missing = b.cmpi(Cmp::Eq, address, null)?;
        b.guarded(missing, |then| then.trap())?;
        bases.push(address);
    }
    let (tid, threads) = linear_thread(b)?;
    let pe = b.index_cast(pe, Ty::Index)?;
    let first = b.muli(pe, threads)?;
    let first = b.addi(first, tid)?;
    let ranks = b.index(p.plan.ranks.len() as i64)?;
    let stride = b.muli(ranks, threads)?;
    let slices = p.plan.ranks.first().and_then(|r| r.steps.first()).map(|s| s.slices.as_slice()).unwrap_or_default();
    for slice in slices {
        let len = b.index(slice.len)?;
        repeat(b, slice.count, location, |b, c| {
            for_loop(b, [first, len, stride], location, |b, j| {
                let j = b.index_cast(j, Ty::I64)?;
                let from = element_address(b, bases[0], p.bytes, slice.src_offset, slice.src_stride, c, Some(j))?;
                let to = element_address(b, bases[1], p.bytes, slice.dst_offset, slice.dst_stride, c, Some(j))?;
                let (from, to) = (b.ptrtoint(from, Ty::I64)?, b.ptrtoint(to, Ty::I64)?);
                let sum = b.value(
                    "llvm.inline_asm",
                    &[from],
                    Ty::F32,
                    &[
                        ("asm_string", "\"multimem.ld_reduce.relaxed.sys.global.add.f32 $0, [$1];\"".into()),
                        ("constraints", "\"=f,l\"".into()),
                        ("has_side_effects", "unit".into()),
                    ],
                )?;
                b.op(
                    "llvm.inline_asm",
                    &[to, sum],
                    &[],
                    &[
                        ("asm_string", "\"multimem.st.relaxed.sys.global.f32 [$0], $1;\"".into()),
                        ("constraints", "\"l,f\"".into()),
                        ("has_side_effects", "unit".into()),
                    ],
                )?;
                Ok(())
            })
        })?;
    }
    call(b, QUIET, &[], None)?;
    call(b, BARRIER, &[], None)?;
    Ok(slices.len())
}

/// The thread's linear index in the CTA, `x + bx * (y + by * z)`, and the CTA's thread count `bx * by * bz`
/// (`gpu.thread_id` / `gpu.block_dim`): element loops stride over every thread of any block shape.
fn linear_thread<'c, 'a>(b: &Builder<'c, 'a>) -> Result<(Value<'c, 'a>, Value<'c, 'a>), String> {
    let (x, y, z) = (b.thread_id(Dim::X)?, b.thread_id(Dim::Y)?, b.thread_id(Dim::Z)?);
    let (bx, by, bz) = (b.block_dim(Dim::X)?, b.block_dim(Dim::Y)?, b.block_dim(Dim::Z)?);
    let zy = b.muli(by, z)?;
    let yz = b.addi(y, zy)?;
    let rows = b.muli(bx, yz)?;
    let tid = b.addi(x, rows)?;
    let plane = b.muli(bx, by)?;
    let threads = b.muli(plane, bz)?;
    Ok((tid, threads))
}

/// The bulk transfers of one slice, `callee(to, from, bytes, peer)` (a put or a blocking get): one call, or an
/// `scf.for` over its repetitions. `bases` are the destination's and the source's addresses.
fn transfer<'c, 'a>(
    b: &Builder<'c, 'a>,
    callee: &str,
    bytes: i64,
    bases: [Value<'c, 'a>; 2],
    slice: &Slice,
    peer: i64,
    location: Location<'c>,
) -> Result<(), String> {
    let length = b.constant(slice.len * bytes, Ty::I64)?;
    let peer = b.constant(peer, Ty::I32)?;
    repeat(b, slice.count, location, |b, c| {
        let to = element_address(b, bases[0], bytes, slice.dst_offset, slice.dst_stride, c, None)?;
        let from = element_address(b, bases[1], bytes, slice.src_offset, slice.src_stride, c, None)?;
        call(b, callee, &[to, from, length, peer], None)?;
        Ok(())
    })
}

/// `body` once (no repetition value) when `count` is 1, else in an `scf.for` over `c < count` (as `i64`).
fn repeat<'c, 'a>(
    b: &Builder<'c, 'a>,
    count: i64,
    location: Location<'c>,
    body: impl FnOnce(&Builder<'c, 'a>, Option<Value<'c, 'a>>) -> Result<(), String>,
) -> Result<(), String> {
    if count == 1 {
        return body(b, None);
    }
    let (zero, end, one) = (b.index(0)?, b.index(count)?, b.index(1)?);
    for_loop(b, [zero, end, one], location, |inner, iv| {
        let c = inner.index_cast(iv, Ty::I64)?;
        body(inner, Some(c))
    })
}

/// `scf.for %iv = bounds[0] to bounds[1] step bounds[2] { body }`.
fn for_loop<'c, 'a>(
    b: &Builder<'c, 'a>,
    bounds: [Value<'c, 'a>; 3],
    location: Location<'c>,
    body: impl FnOnce(&Builder<'c, 'a>, Value<'c, 'a>) -> Result<(), String>,
) -> Result<(), String> {
    let index = b.resolve(Ty::Index)?;
    let region = Region::new();
    region.append_block(Block::new(&[(index, location)]));
    let for_op = b.op_with_regions("scf.for", &bounds, &[], &[], vec![region])?;
    let block = access::entry_block(for_op).ok_or("collectives: internal: scf.for has no block")?;
    let iv: Value =
        access::argument(block, 0).ok_or("collectives: internal: scf.for has no induction variable")?.into();
    let inner = Builder::at_start(for_op, block, location);
    body(&inner, iv)?;
    inner.r#yield(&[])?;
    Ok(())
}

/// `base + (offset + c * stride + j) * bytes` as a generic pointer (`c`, `j` as `i64` when given).
fn element_address<'c, 'a>(
    b: &Builder<'c, 'a>,
    base: Value<'c, 'a>,
    bytes: i64,
    offset: i64,
    stride: i64,
    c: Option<Value<'c, 'a>>,
    j: Option<Value<'c, 'a>>,
) -> Result<Value<'c, 'a>, String> {
    let start = b.constant(offset * bytes, Ty::I64)?;
    let mut address = b.addi(base, start)?;
    for (value, scale) in [(c, stride * bytes), (j, bytes)] {
        if let Some(value) = value {
            let step = b.constant(scale, Ty::I64)?;
            let moved = b.muli(value, step)?;
            address = b.addi(address, moved)?;
        }
    }
    b.inttoptr(address, AddressSpace::Generic)
}

/// One slice element by element, the CTA's threads striding over it (`j = tid; j < len; j += threads`, the
/// linear thread index and count): `dst[j] = v` or `dst[j] = dst[j] op v`, `v` the local source element or, from `peer`, the
/// remote one (`nvshmem_uint{16,32,64}_g`, bit-cast to the element type).
fn elementwise<'c, 'a>(
    b: &Builder<'c, 'a>,
    p: &PlannedCollective,
    bases: [Value<'c, 'a>; 2],
    slice: &Slice,
    peer: Option<i64>,
    combine: bool,
    location: Location<'c>,
) -> Result<(), String> {
    let dtype = p.dtype.as_str();
    let bits = p.bytes * 8;
    let word = Ty::Int(u32::try_from(bits).map_err(|_| format!("collectives: internal: {bits}-bit elements"))?);
    let float = super::arithmetic(dtype).ok_or_else(|| format!("collectives: internal: no arithmetic for {dtype}"))?;
    let peer = peer.map(|peer| b.constant(peer, Ty::I32)).transpose()?;
    let (tid, threads) = linear_thread(b)?;
    let len = b.index(slice.len)?;
    repeat(b, slice.count, location, |b, c| {
        for_loop(b, [tid, len, threads], location, |b, j| {
            let j = b.index_cast(j, Ty::I64)?;
            let from = element_address(b, bases[0], p.bytes, slice.src_offset, slice.src_stride, c, Some(j))?;
            let to = element_address(b, bases[1], p.bytes, slice.dst_offset, slice.dst_stride, c, Some(j))?;
            let mut value = match peer {
                Some(peer) => {
                    let name = format!("nvshmem_uint{bits}_g");
                    let raw =
                        call(b, &name, &[from, peer], Some(word))?.ok_or("collectives: internal: get has no result")?;
                    if dtype.starts_with('i') {
                        raw
                    } else {
                        b.bitcast(raw, b.ty(dtype)?)?
                    }
                }
                None => b.llvm_load(from, b.ty(dtype)?, None)?,
            };
            if combine {
                let old = b.llvm_load(to, b.ty(dtype)?, None)?;
                value = match (p.plan.reduce, float) {
                    (Some(ReduceOp::Max), true) => b.maximumf(old, value)?,
                    (Some(ReduceOp::Max), false) => b.maxsi(old, value)?,
                    (_, true) => b.addf(old, value)?,
                    (_, false) => b.addi(old, value)?,
                };
            }
            b.llvm_store(value, to, None)?;
            Ok(())
        })
    })
}

/// `llvm.call @name(args)`, with its result when it has one.
fn call<'c, 'a>(
    b: &Builder<'c, 'a>,
    name: &str,
    args: &[Value<'c, 'a>],
    result: Option<Ty>,
) -> Result<Option<Value<'c, 'a>>, String> {
    let results = result.map(|ty| b.resolve(ty)).transpose()?.into_iter().collect::<Vec<_>>();
    let op = b.op(
        "llvm.call",
        args,
        &results,
        &[
            ("callee", format!("@{name}")),
            ("operandSegmentSizes", format!("array<i32: {}, 0>", args.len())),
            ("op_bundle_sizes", "array<i32>".into()),
        ],
    )?;
    Ok(access::result(op, 0))
}

/// A kernel argument's address as `i64` (a generic address, what NVSHMEM takes).
fn address<'c, 'a>(b: &Builder<'c, 'a>, buffer: &Buffer<'c, 'a>) -> Result<Value<'c, 'a>, String> {
    let ty = buffer.value.r#type().to_string();
    if ty.starts_with("memref<") {
        let index = b.aligned_pointer(buffer.value)?;
        return b.index_cast(index, Ty::I64);
    }
    let generic = match ty.as_str() {
        "!llvm.ptr" => buffer.value,
        "!llvm.ptr<1>" => b.addrspacecast(buffer.value, AddressSpace::Generic)?,
        other => return Err(format!("collectives: internal: kernel argument of type {other}")),
    };
    b.ptrtoint(generic, Ty::I64)
}
