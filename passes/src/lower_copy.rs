//! `lower-copy`: lower the copies TMA does not take, and the elementwise epilogue ops, from the layouts (paper
//! section 3.4: one `copy` operator dispatched by the layouts of its two sides).
//!
//! **Copies.** For each `axe.copy` the shared ownership rule gives to this pass (`crate::ownership`: every copy
//! but the CTA-scope global<->shared ones TMA takes and the tensor-memory read-back `--lower-mma` takes), the pass
//! reads both tensors' layouts, shapes and memories, the scope and `threads` subset, the chip (`axe.target`) and
//! the kernel's `known_block_size`, asks `axe_layout::copy::plan`, and translates the plan. It derives no layout
//! fact: the instruction, vector width, issuing threads, every per-thread address and register, swizzles,
//! tensor-memory lanes, shuffle lanes, the staging buffer and the completion are the planner's. A refusal is an
//! error at the copy (the planner's `copy: <rule> rule: ...`, or the pass's own `copy: <what>: ...` with the
//! numbers) and the pass fails before changing anything.
//!
//! Emitted, per step of the plan, under an `scf.if` on the step's thread set (none when it is every thread):
//! - per-thread `ld`/`st`: `llvm.load`/`llvm.store` of a `vector<N x dtype>` (or one element) on a pointer into
//!   global (`!llvm.ptr<1>`) or shared (`!llvm.ptr<3>`) memory, aligned to the vector's bytes; the register side
//!   is the private memref of the register tensor, read and written element by element (`memref.load`/`store`
//!   and `llvm.insertelement`/`extractelement`), which LLVM promotes to registers;
//! - `nvvm.ldmatrix` / `nvvm.stmatrix` (m8n8, b16, `.trans` as the `col` layout), each 32-bit result the pair of
//!   16-bit registers the plan lists;
//! - `nvvm.cp.async.shared.global` (`cache = cg` for 16 bytes, `ca` otherwise), then `cp.async.commit.group`,
//!   `cp.async.wait.group 0` and a barrier of the step's threads;
//! - `nvvm.tcgen05.ld` / `nvvm.tcgen05.st` of the plan's shape (the `.xN` follows from the vector length) at
//!   the allocation's address plus `lane << 16 | column`, then `tcgen05.wait::ld` / `wait::st`;
//! - `nvvm.shfl.sync idx` (full mask) of the register every lane sends, kept where the plan says;
//! - a register-to-register copy through shared memory: a private `memref.global` staging buffer of the plan's
//!   bytes and alignment, the store step, a barrier, the load step.
//!
//! Addresses are the plan's `PerThread` formulas of the scope-relative thread index (lane at warp scope,
//! `tid % 128` at warpgroup scope, `thread_id x` at CTA scope, 0 at thread scope), swizzled as the plan says
//! (`a ^ (((a >> (M+S)) & (2^B-1)) << M)`, Swizzle(M,B,S) on element offsets), in elements from the tensor's
//! base. Barriers: `nvvm.bar.warp.sync` of the step's lanes at warp scope, `gpu.barrier` for a whole CTA, else a
//! named `nvvm.barrier` (id 1 + the first thread's warpgroup) of the step's thread count.
//!
//! **Elementwise.** `axe.cast`, `axe.scale` and `axe.add` take register tensors of one layout, so each thread
//! works on its own registers: for every register the layout holds (`axe_layout::points::axis_points` on `m`),
//! `memref.load`, `arith.extf`/`truncf`/`mulf`/`addf` (scale and add in f32), `memref.store`.
//!
//! Storage is `crate::storage`'s: register tensors are private memrefs, shared tensors `memref.global`s (their
//! alignment raised to the plan's base alignment), tensor memory `tcgen05.alloc`; allocs other passes also use
//! are handed on as views, so `--lower-tma`, `--lower-mma` and `--lower-copy` run in any order. A global tensor
//! is a view of a memref with the identity layout (or of a global `!llvm.ptr`); its base is assumed aligned to
//! the plan's `src_base_alignment_bytes` (as `cudaMalloc`'d buffers are, 256 bytes): the loads say so.
//!
//! **Preconditions.** What a plan relies on about the kernel's arguments and the IR does not prove becomes a
//! precondition over `arg<i>` in the kernel attribute `axe.preconditions`, which `axe-translate --emit=launch`
//! prints for the launch to check: a global pointer argument's alignment (`arg0 % 16 == 0`), and a run-time row
//! stride that keeps every vector aligned (`arg5 % 8 == 0` for 16-byte `cp.async` of f16; the view's `multiples`
//! let the planner assume it). A run-time row stride that is not a kernel argument is refused. Beside them, the
//! tensor each global pointer argument is (the row-major view's element type and extents over `arg<i>`) goes into
//! `axe.views`, which the launch record prints as `views`, so a launcher can check the tensors it is handed.
//!
//! **Run-time addresses** (`lower_copy/moving.rs`). An operand that is an `axe.slice` at run-time offsets is
//! planned by `axe_layout::copy::plan_moving` on its source sliced at the static offsets, with each offset's known
//! multiple from the IR (`crate::ir::multiple`); the emitter adds the plan's terms
//! `elements * (value / divisor) * bytes` to the side's base (the `dynamic-offset` rule has made them alignment-
//! and swizzle-preserving, so they go after the swizzle). An operand that is a slice of a view with run-time
//! extents (`row_major`) is planned by `axe_layout::copy::plan_runtime` and addressed by the plan's per-issue
//! row and column, `base + ((row0 + row) * W + col0 + col) * bytes`, predicated on `row0 + row < rows` and
//! `col0 + col < W`: `cp.async` gets src-size 0 past the edge (zero fill) and reads the base instead, `st.global`
//! is under an `scf.if`. Issues of one step whose offsets differ from an earlier issue's by a constant (whole
//! swizzle periods; whole rows of a run-time region) reuse its per-thread value plus the constant, so one value per
//! step stays live rather than one per issue.
//!
//! **cp.async groups.** An `axe.copy_async` from global to shared without a barrier lowers to the plan's
//! `cp.async`s alone: they join the kernel's current group, which the kernel commits and waits for itself
//! (`nvvm.cp.async.commit.group`, `nvvm.cp.async.wait.group N`, a barrier), as a multi-stage pipeline needs.
//!
//! Not done: `axe.copy_async` with a barrier (cp.async completes through commit/wait groups, not the mbarrier the
//! op names: it is refused), kernels whose blocks are not one-dimensional (the thread index is `thread_id x`),
//! a dynamic slice of a slice whose layout is deferred, register loads from run-time-sized tensors, global tensors
//! that are slices of memrefs with offsets, several copies sharing a named barrier id at once.
//!
//! ```mlir
//! axe.copy warp %g to %r : !global to !regs
//! // becomes (each lane loads 8 halves = 16 bytes)
//! %p = llvm.inttoptr %addr : i64 to !llvm.ptr<1>
//! %v = llvm.load %p {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xf16>
//! %e0 = llvm.extractelement %v[%c0_i32 : i32] : vector<8xf16>   // ... e1..e7
//! memref.store %e0, %regs[%c0] : memref<8xf16, #gpu.address_space<private>>
//! ```

mod emit;
mod instruction;
mod moving;

use crate::{
    glue::{external_pass_creating, PassId},
    glue::{PassInfo, PassKind},
    ir::kernel::{argument_expression, kernel_argument},
    lowering::Run,
    ownership::{self, Owner},
    storage::{self, check_tmem_alloc, shared_global, Int, Source, Traced},
};
use axe_dialect::{ffi, AxeOp, OpKind};
use axe_layout::{
    copy::{
        plan, plan_moving, plan_runtime, Chip, CopyMove, CopyPlan, CopyRequest, CopySide, ElemType, Memory,
        RuntimeRows, Side, ThreadSubset,
    },
    hw::expr::{Cmp, Expr, Precondition},
    Axis, ExecScope,
};
use melior::ir::{operation::OperationLike, OperationRef, Value, ValueLike};

/// `--lower-copy` as `axe-opt` lists it: flag, summary, description, constructor (the registry's entry).
pub const PASS: PassInfo = PassInfo {
    flag: "lower-copy",
    summary: "Lower axe.copy (ld/st, ldmatrix/stmatrix, cp.async, tcgen05.ld/st, shuffles) and cast/scale/add from the layouts",
    description: "Input: a verified module whose gpu.module or module has axe.target = \"sm_80\" |\n\
\"sm_90a\" | \"sm_100a\". Each axe.copy TMA does not take is planned by axe-layout's copy planner; a refusal is\n\
an error at the copy naming the rule. axe.cast/scale/add become per-register arith ops. Output: llvm/vector\n\
loads and stores, nvvm ldmatrix/stmatrix/cp.async/tcgen05/shfl ops. Runs before or after --lower-tma and\n\
--lower-mma, before --lower-to-nvvm.",
    kind: PassKind::Rust(create),
};

static ID: PassId = PassId::new();

/// The dialects whose ops the lowering builds.
const CREATES: &[&str] = &["arith", "gpu", "llvm", "memref", "nvvm", "scf"];

/// What one run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LowerCopyStats {
    /// Copies lowered.
    pub copies: usize,
    /// Data-moving instructions emitted (one per planned issue).
    pub instructions: usize,
    /// Elementwise ops (cast, scale, add) lowered.
    pub elementwise: usize,
}

/// One copy the planner accepted.
pub(crate) struct PlannedCopy<'c, 'a> {
    pub(crate) op: AxeOp<'c, 'a>,
    pub(crate) plan: CopyPlan,
    pub(crate) scope: ExecScope,
    pub(crate) dtype: ElemType,
    /// Source, destination.
    pub(crate) sides: [Traced<'c, 'a>; 2],
    /// The run-time slice offsets, in the order of the plan's address terms' `offset`.
    pub(crate) offsets: Vec<Value<'c, 'a>>,
    /// Source, destination: a region of a run-time-sized (`row_major`) tensor, addressed by coordinates.
    pub(crate) row_major: [Option<moving::RowMajor<'c, 'a>>; 2],
    /// An `axe.copy_async` without a barrier: `cp.async` into the kernel's current group, which the kernel commits
    /// (`nvvm.cp.async.commit.group`) and completes (`nvvm.cp.async.wait.group`, a barrier): nothing follows it.
    pub(crate) group: bool,
    /// What the plan needs of the kernel's arguments ([`preconditions`]).
    pub(crate) preconditions: Vec<Precondition>,
    /// The global tensors behind pointer arguments, as [`VIEWS_ATTRIBUTE`] entries ([`views`]).
    pub(crate) views: Vec<String>,
}

/// One elementwise op: its register tensors in operand order (the destination last) and the registers it touches.
pub(crate) struct PlannedElementwise<'c, 'a> {
    pub(crate) op: AxeOp<'c, 'a>,
    pub(crate) tensors: Vec<Traced<'c, 'a>>,
    /// The register-axis values the destination's layout holds.
    pub(crate) registers: Vec<i64>,
    /// Per operand before the destination, the register it reads for each of `registers` (itself where the
    /// layouts are one; otherwise [`axe_layout::broadcast::register_map`]).
    pub(crate) reads: Vec<Vec<i64>>,
}

/// The barrier an `axe.sync` becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Barrier {
    /// `bar.sync 0` (`gpu.barrier`): the whole CTA.
    Cta,
    /// `bar.warp.sync mask`: these lanes of the executing warp.
    Lanes(u32),
    /// `bar.sync 1 + g, 128`: the executing warpgroup `g` (ids 1 to the warpgroups of the block).
    Warpgroup,
    /// `bar.sync id, 32 * (end - first)`: warps `first..end` of the CTA, `id` one per range in the kernel, after
    /// the warpgroups' ids.
    Warps(i64, i64),
}

/// An `axe.sync` and its barrier: a CTA, a warp (or lanes of it: `warp(laneid[a:b])`), a warpgroup, or a range of
/// the CTA's warps (`cta(warpid[a:b])`, `cta(wgid[a:b])`), the ones roles synchronize by.
fn plan_sync<'c, 'a>(op: AxeOp<'c, 'a>) -> Result<(AxeOp<'c, 'a>, Barrier), String> {
    let scope = op.scope().unwrap_or_else(|| Err("axe.sync has no scope".into()))?;
    let block =
        axe_dialect::ops::enclosing_function(op.operation()).map(crate::ir::kernel::known_block).unwrap_or_default();
    let threads: i64 = block.iter().product();
    let needs_block = |what: &str| {
        format!("copy: axe.sync {what} needs the kernel's known_block_size (the warps its named barrier counts)")
    };
    let barrier = match (scope, op.threads().transpose()?) {
        (ExecScope::Cta, None) => Barrier::Cta,
        (ExecScope::Warp, None) => Barrier::Lanes(u32::MAX),
        (ExecScope::Warp, Some(t)) if t.axis == "laneid" => {
            Barrier::Lanes((t.begin..t.end).fold(0u32, |mask, lane| mask | (1u32 << lane)))
        }
        (ExecScope::Warpgroup, None) => {
            if block.is_empty() {
                return Err(needs_block("at warpgroup scope"));
            }
            if threads % 128 != 0 {
                return Err(format!("copy: axe.sync warpgroup in a block of {threads} threads: not whole warpgroups"));
            }
            Barrier::Warpgroup
        }
        (ExecScope::Cta, Some(t)) if t.axis == "warpid" || t.axis == "wgid" => {
            if block.is_empty() {
                return Err(needs_block("on a range of warps"));
            }
            let per = if t.axis == "wgid" { 4 } else { 1 };
            let (first, end) = (t.begin * per, t.end * per);
            if first == 0 && end * 32 >= threads {
                Barrier::Cta
            } else {
                Barrier::Warps(first, end)
            }
        }
        (scope, threads) => {
            let subset = threads.map(|t| format!("({}[{}:{}])", t.axis, t.begin, t.end)).unwrap_or_default();
            return Err(format!(
                "copy: axe.sync {}{subset} has no barrier: a CTA, a range of its warps (warpid, wgid), a warpgroup, \
                 or a warp's lanes synchronize",
                scope.name()
            ));
        }
    };
    Ok((op, barrier))
}

/// Lowers every copy `--lower-copy` owns and every elementwise op under `root`; on refusal reports each at its op
/// and returns how many were refused.
pub fn lower_copy(root: OperationRef) -> Result<LowerCopyStats, usize> {
    let mut run = Run::begin(root, "copy", CREATES)?;
    let elementwise = run.plan(|op| op.kind().is_elementwise().then(|| plan_elementwise(op)));
    let copies = run
        .plan(|op| (!op.kind().is_elementwise() && ownership::owner(op) == Some(Owner::Copy)).then(|| plan_copy(op)));
    let syncs = run.plan(|op| (op.kind() == OpKind::Sync).then(|| plan_sync(op)));
    run.rewrite(|ops| {
        // The preconditions and views go on each copy's kernel; the kernels are found before the rewrite replaces
        // the copies.
        let kernels = kernel_facts(&copies);
        let stats = emit::rewrite(root, ops, &copies, &elementwise)?;
        emit::syncs(&syncs)?;
        for (kernel, preconditions, views) in kernels {
            for (name, entries) in [(PRECONDITIONS_ATTRIBUTE, preconditions), (VIEWS_ATTRIBUTE, views)] {
                append_entries(kernel, name, &entries).map_err(|message| (kernel.location(), message))?;
            }
        }
        Ok(stats)
    })
}

/// Per kernel, the [`PRECONDITIONS_ATTRIBUTE`] and [`VIEWS_ATTRIBUTE`] entries its copies add, in IR order.
#[allow(clippy::type_complexity)]
fn kernel_facts<'c, 'a>(copies: &[PlannedCopy<'c, 'a>]) -> Vec<(OperationRef<'c, 'a>, Vec<String>, Vec<String>)> {
    let mut kernels: Vec<(OperationRef, Vec<String>, Vec<String>)> = Vec::new();
    for copy in copies {
        let Some(kernel) = axe_dialect::ops::enclosing_function(copy.op.operation()) else { continue };
        if copy.preconditions.is_empty() && copy.views.is_empty() {
            continue;
        }
        let key = axe_dialect::access::key(kernel);
        let index = match kernels.iter().position(|(k, _, _)| axe_dialect::access::key(*k) == key) {
            Some(index) => index,
            None => {
                kernels.push((kernel, Vec::new(), Vec::new()));
                kernels.len() - 1
            }
        };
        // Each precondition is printed here, once, as an MLIR string (the grammar has no quote or backslash).
        kernels[index].1.extend(copy.preconditions.iter().map(|p| format!("\"{p}\"")));
        kernels[index].2.extend(copy.views.iter().cloned());
    }
    kernels
}

/// The kernel attribute listing what a kernel's code needs of its arguments (strings over `arg<i>`), which
/// `axe-translate --emit=launch` prints as the kernel's `preconditions` (beside its tensor maps').
pub const PRECONDITIONS_ATTRIBUTE: &str = "axe.preconditions";

/// The kernel attribute describing each global tensor the kernel reads or writes through a pointer argument (a
/// `row_major` view of it): `{arg = <i> : i64, dims = [<extent>, ...], dtype = "<element type>"}`, extents
/// numbers or `arg<i>`. `axe-translate --emit=launch` prints them as the kernel's `views`, so that a launcher can
/// check the tensors it is handed (shape, dtype, packing) where the pointer alone says nothing.
pub const VIEWS_ATTRIBUTE: &str = "axe.views";

/// Appends `entries` (attribute texts, as MLIR prints them) to the kernel's array attribute `name`, each once,
/// in order after those it holds.
fn append_entries(kernel: OperationRef, name: &str, entries: &[String]) -> Result<(), String> {
    if entries.is_empty() {
        return Ok(());
    }
    let mut all: Vec<String> = match kernel.attribute(name) {
        Ok(existing) => {
            let array = melior::ir::attribute::ArrayAttribute::try_from(existing)
                .map_err(|_| format!("copy: {name} must be an array, got {existing}"))?;
            (0..array.len()).filter_map(|i| array.element(i).ok()).map(|a| a.to_string()).collect()
        }
        Err(_) => Vec::new(),
    };
    for entry in entries {
        if !all.contains(entry) {
            all.push(entry.clone());
        }
    }
    let text = format!("[{}]", all.join(", "));
    let attribute =
        ffi::parse_attribute(kernel, &text).ok_or_else(|| format!("copy: internal: {name} {text} does not parse"))?;
    ffi::set_attribute(kernel, name, attribute);
    Ok(())
}

/// The [`VIEWS_ATTRIBUTE`] entries of a copy: each global side that is a run-time-sized (`row_major`) view of
/// a pointer kernel argument, with extents that are numbers or kernel arguments (a side whose extents the launch
/// cannot name is left out: nothing is claimed about it).
fn views(op: AxeOp, sides: &[Traced; 2], rows: [&Option<moving::RowMajor>; 2]) -> Vec<String> {
    let mut out = Vec::new();
    for (side, row_major) in sides.iter().zip(rows) {
        let (Source::Pointer(pointer), Some(row_major)) = (side.source, row_major) else { continue };
        if side.tensor.mem != Memory::Global {
            continue;
        }
        let Some(arg) = kernel_argument(op.operation(), pointer) else { continue };
        let dims: Option<Vec<String>> = row_major
            .extents
            .iter()
            .map(|extent| match extent {
                Int::Static(n) => Some(Expr::Int(*n)),
                Int::Value(v) => argument_expression(op.operation(), *v),
            })
            .map(|dim| dim.map(|dim| format!("\"{dim}\"")))
            .collect();
        if let Some(dims) = dims {
            out.push(format!("{{arg = {arg} : i64, dims = [{}], dtype = \"{}\"}}", dims.join(", "), side.tensor.dtype));
        }
    }
    out
}

/// What a plan relies on about the kernel's arguments that the IR does not prove, as preconditions over
/// `arg<i>` (issue 21: a kernel states every precondition its code relies on): a global side whose storage is a
/// pointer argument must start at the plan's base alignment (`arg0 % 16 == 0` for 16-byte vectors), and a
/// run-time row stride (a region of a `row_major` view) must keep every vector of the side aligned, a
/// multiple of `vector / gcd(vector, element)` elements (`arg5 % 8 == 0` for 16-byte `cp.async` of f16). The
/// view's `multiples` let the planner assume this; here it becomes the launch's to check. A run-time stride that
/// is not a kernel argument is refused: the launch record could not state it.
fn preconditions(
    op: AxeOp,
    plan: &CopyPlan,
    sides: &[Traced; 2],
    rows: [&Option<moving::RowMajor>; 2],
    dtype: ElemType,
) -> Result<Vec<Precondition>, String> {
    let multiple_of =
        |index: usize, m: i64| Precondition::new(Expr::Arg(index).modulo(Expr::Int(m)), Cmp::Eq, Expr::Int(0));
    let mut out = Vec::new();
    let esize = dtype.bytes();
    for (which, role) in [(0, "source"), (1, "dest")] {
        let side = &sides[which];
        if side.tensor.mem != Memory::Global {
            continue;
        }
        let alignment = if which == 0 { plan.src_base_alignment_bytes } else { plan.dst_base_alignment_bytes };
        if let (Source::Pointer(pointer), Some(alignment)) = (side.source, alignment) {
            if alignment > 1 {
                if let Some(index) = kernel_argument(op.operation(), pointer) {
                    out.push(multiple_of(index, alignment));
                }
            }
        }
        let Some(row_major) = rows[which] else { continue };
        let step = if which == 0 { plan.steps.first() } else { plan.steps.last() };
        let vector = step.map_or(esize, |s| s.vector_bytes).max(1);
        let elements = vector / gcd(vector, esize);
        if elements <= 1 {
            continue;
        }
        match row_major.extents[1] {
            Int::Static(w) if w % elements == 0 => {}
            Int::Static(w) => {
                return Err(format!(
                    "copy: run-time extents: the {role}'s row stride {w} is not a multiple of the {elements} elements                      of its {vector}-byte vectors"
                ))
            }
            Int::Value(w) => match kernel_argument(op.operation(), w) {
                Some(index) => out.push(multiple_of(index, elements)),
                None => {
                    return Err(format!(
                        "copy: run-time extents: the {role}'s row stride (the view's extent of dimension 1) must be a                          kernel argument: the plan's {vector}-byte vectors need it to be a multiple of {elements}                          elements, a precondition the launch record states on that argument"
                    ))
                }
            },
        }
    }
    Ok(out)
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

/// The chip named by the nearest `axe.target` on `op` or an op enclosing it.
fn target(op: OperationRef) -> Result<Chip, String> {
    crate::ir::target::chip(op, "copy", "axe.copy")
}

/// The threads of the CTA from the enclosing kernel's `known_block_size = array<i32: x, y, z>`, when it says; an
/// error for blocks that are not one-dimensional (the thread index is `thread_id x`).
fn cta_threads(op: OperationRef) -> Result<Option<i64>, String> {
    let Some(func) = axe_dialect::ops::enclosing_function(op) else { return Ok(None) };
    match crate::ir::kernel::known_block(func).as_slice() {
        [x, 1, 1] => Ok(Some(*x)),
        [x, y, z] => Err(format!(
            "copy: threads: the kernel's block is {x}x{y}x{z}; copies are lowered for one-dimensional blocks \
             (threads told apart by thread_id x)"
        )),
        _ => Ok(None),
    }
}

/// Plans one copy: the chip, scope, subset, both sides' storage and what this pass needs of it, then
/// `axe_layout::copy::plan`.
fn plan_copy<'c, 'a>(op: AxeOp<'c, 'a>) -> Result<PlannedCopy<'c, 'a>, String> {
    let group = op.kind() == OpKind::CopyAsync && op.operand(2).is_none();
    if op.kind() == OpKind::CopyAsync && !group {
        return Err("copy: async: this axe.copy_async is not a TMA copy (see --lower-tma), and cp.async completes \
                    through commit and wait groups, not on the mbarrier the op names: use axe.copy, or axe.copy_async \
                    without a barrier (a cp.async group)"
            .to_string());
    }
    let chip = target(op.operation())?;
    let scope = match op.scope() {
        Some(Ok(scope)) => scope,
        Some(Err(e)) => return Err(format!("copy: {e}")),
        None => return Err("copy: axe.copy must have a scope".to_string()),
    };
    let threads = match op.threads() {
        None => None,
        Some(Err(e)) => return Err(format!("copy: {e}")),
        Some(Ok(t)) => {
            let axis = Axis::named(&t.axis).map_err(|e| format!("copy: thread subset: {}", e.message))?;
            Some(ThreadSubset { axis, begin: t.begin, end: t.end })
        }
    };
    type Traced3<'c, 'a> = (Traced<'c, 'a>, Option<moving::Moving<'c, 'a>>, Option<moving::RowMajor<'c, 'a>>);
    let side = |i: usize, role: &str| -> Result<Traced3<'c, 'a>, String> {
        let value = op.operand(i).ok_or_else(|| format!("copy: axe.copy has no {role}"))?;
        if let Some((traced, row_major)) = moving::trace_row_major(role, value)? {
            return Ok((traced, None, Some(row_major)));
        }
        match moving::trace_moving(role, value)? {
            Some(moved) => Ok((moved.operand.clone(), Some(moved), None)),
            None => Ok((storage::trace("copy", role, value, true)?, None, None)),
        }
    };
    let (src, src_moving, src_rows) = side(0, "source")?;
    let (dst, dst_moving, dst_rows) = side(1, "dest")?;
    let sides = [src, dst];
    let dtype_name = &sides[0].tensor.dtype;
    let dtype = dtype_name
        .number()
        .ok_or_else(|| format!("copy: dtype: copies move 1, 2, 4 or 8-byte numbers, got {dtype_name}"))?;
    let request = CopyRequest {
        src: Side { layout: &sides[0].layout, shape: &sides[0].tensor.shape, mem: sides[0].tensor.mem },
        dst: Side { layout: &sides[1].layout, shape: &sides[1].tensor.shape, mem: sides[1].tensor.mem },
        dtype,
        scope,
        threads,
        chip,
        cta_threads: cta_threads(op.operation())?,
    };
    for (traced, role) in sides.iter().zip(["source", "dest"]) {
        check_storage(traced, role)?;
    }
    if group && (request.src.mem, request.dst.mem) != (Memory::Global, Memory::Shared) {
        return Err("copy: async: an axe.copy_async without a barrier is a cp.async group, global to shared".into());
    }
    let mut moves = Vec::new();
    let mut offsets = Vec::new();
    for (side, moved) in [(CopySide::Src, &src_moving), (CopySide::Dst, &dst_moving)] {
        if let Some(m) = moved {
            for &(dim, value, multiple) in &m.dynamic {
                moves.push(CopyMove { side, root: &m.root.layout, root_shape: &m.root.tensor.shape, dim, multiple });
                offsets.push(value);
            }
        }
    }
    let rows: Vec<RuntimeRows> = [(CopySide::Src, &src_rows), (CopySide::Dst, &dst_rows)]
        .into_iter()
        .filter_map(|(side, r)| {
            r.as_ref().map(|r| RuntimeRows { side, stride_multiple: r.stride_multiple, col_multiple: r.col_multiple })
        })
        .collect();
    let plan = match (moves.is_empty(), rows.is_empty()) {
        (true, true) => plan(&request),
        (_, true) => plan_moving(&request, &moves),
        _ => plan_runtime(&request, &moves, &rows),
    };
    let plan = plan.map_err(|e| e.to_string())?;
    if group && plan.steps.iter().any(|s| !matches!(s.kind, axe_layout::copy::CopyKind::CpAsync { .. })) {
        return Err("copy: async: an axe.copy_async without a barrier must be planned as cp.async".into());
    }
    let preconditions = preconditions(op, &plan, &sides, [&src_rows, &dst_rows], dtype)?;
    let views = views(op, &sides, [&src_rows, &dst_rows]);
    let row_major = [src_rows, dst_rows];
    Ok(PlannedCopy { op, plan, scope, dtype, sides, offsets, group, row_major, preconditions, views })
}

/// What the emitter needs of a side's storage: a shared memref whose global can be aligned, a global memref with
/// the identity layout, a tensor-memory alloc in the kernel's entry block.
fn check_storage(traced: &Traced, role: &str) -> Result<(), String> {
    match (traced.tensor.mem, traced.source) {
        (Memory::Shared, Source::Memref(memref)) if shared_global(memref).is_none() => Err(format!(
            "copy: storage: the workgroup memref under the {role} must come from memref.get_global, so that its \
             alignment can be raised to the plan's"
        )),
        (Memory::Global, Source::Memref(memref)) => {
            let ty = memref.r#type().to_string();
            if ty.contains("strided<") || ty.contains("affine_map<") {
                return Err(format!(
                    "copy: storage: the global memref under the {role} must have the identity layout (its base is \
                     the tensor's), got {ty}"
                ));
            }
            Ok(())
        }
        (Memory::Tmem, Source::Alloc(alloc)) => check_tmem_alloc("copy", alloc),
        _ => Ok(()),
    }
}

/// Traces an elementwise op's register tensors and asks the layout crate which registers the destination holds.
fn plan_elementwise<'c, 'a>(op: AxeOp<'c, 'a>) -> Result<PlannedElementwise<'c, 'a>, String> {
    let name = op.kind().name();
    let mut tensors = Vec::new();
    for (i, role) in op.kind().tensor_operand_names().iter().enumerate() {
        let value = op.operand(i).ok_or_else(|| format!("copy: {name} has no {role}"))?;
        let traced = storage::trace("copy", role, value, true)?;
        if traced.tensor.mem != Memory::Reg {
            return Err(format!("copy: {name} works on register tensors, got {role} in {}", traced.tensor.mem));
        }
        tensors.push(traced);
    }
    let dest = tensors.last().ok_or_else(|| format!("copy: {name} has no tensors"))?;
    let tile = dest.layout.tile();
    let iters: Vec<_> = tile.shard().iter().chain(tile.replica()).copied().collect();
    let offset = tile.offset().get(&Axis::M).copied().unwrap_or(0);
    let registers = axe_layout::points::axis_points(&iters, Axis::M, offset)
        .map_err(|e| format!("copy: {name}: the registers of the dest layout: {e}"))?;
    let mut reads = Vec::new();
    for operand in &tensors[..tensors.len() - 1] {
        if operand.layout == dest.layout && operand.tensor.shape == dest.tensor.shape {
            reads.push(registers.clone());
            continue;
        }
        let map = axe_layout::broadcast::register_map(
            &dest.layout,
            &dest.tensor.shape,
            &operand.layout,
            &operand.tensor.shape,
        )
        .map_err(|e| format!("copy: {name}: {e}"))?;
        let read = registers.iter().map(|r| map.get(r).copied().ok_or(r)).collect::<Result<Vec<_>, _>>();
        reads.push(read.map_err(|r| format!("copy: internal: {name}: dest register {r} has no operand register"))?);
    }
    Ok(PlannedElementwise { op, tensors, registers, reads })
}

/// The melior pass behind `--lower-copy`.
pub fn create() -> melior::pass::Pass {
    external_pass_creating(&ID, "LowerCopy", &PASS, CREATES, |operation| lower_copy(operation).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    const EPILOGUE: &str = include_str!("../../examples/copy_epilogue.mlir");

    /// Runs the passes `order` names on `source`: the last pass's result, the printed module, the messages.
    fn run(source: &str, order: &[&str]) -> (Result<LowerCopyStats, usize>, String, Vec<String>) {
        crate::testing::run_pass(source, |module| {
            let mut copy = Ok(LowerCopyStats::default());
            for pass in order {
                match *pass {
                    "tma" => drop(crate::lower_tma::lower_tma(module).expect("tma lowers")),
                    "mma" => drop(crate::lower_mma::lower_mma(module).expect("mma lowers")),
                    _ => copy = lower_copy(module),
                }
            }
            copy
        })
    }

    #[test]
    fn lowers_the_epilogue_deterministically_in_any_order() {
        let (result, printed, _) = run(EPILOGUE, &["tma", "mma", "copy"]);
        // The global store (2 vectors per thread), the scale and the cast.
        assert_eq!(result, Ok(LowerCopyStats { copies: 1, instructions: 2, elementwise: 2 }));
        assert_eq!(crate::testing::axe_ops(&printed), Vec::<String>::new(), "{printed}");
        // The cast rounds the 16 registers of a thread two at a time: 8 vector<2xf32> -> vector<2xf16> truncations.
        assert_eq!(printed.matches("arith.truncf").count(), 8, "{printed}");
        assert_eq!(printed.matches(": vector<2xf32> to vector<2xf16>").count(), 8, "{printed}");
        assert_eq!(run(EPILOGUE, &["tma", "mma", "copy"]).1, printed);
        for order in [["copy", "tma", "mma"], ["tma", "copy", "mma"]] {
            let (result, other, _) = run(EPILOGUE, &order);
            assert_eq!(result, Ok(LowerCopyStats { copies: 1, instructions: 2, elementwise: 2 }), "{order:?}");
            assert_eq!(crate::testing::axe_ops(&other), Vec::<String>::new(), "{order:?}: {other}");
            assert_eq!(other.matches("nvvm.tcgen05.ld").count(), 1, "{order:?}");
            assert_eq!(other.matches("nvvm.tcgen05.alloc").count(), 1, "{order:?}");
        }
    }

    #[test]
    fn a_refusal_changes_nothing_and_names_the_rule() {
        let source = EPILOGUE.replace("axe.target = \"sm_100a\"", "axe.target = \"sm_75\"");
        let (result, printed, messages) = run(&source, &["copy"]);
        // The two loads (no TMA on an unknown chip) and the store are refused, each at its copy.
        assert_eq!(result, Err(3));
        let expected = "copy: target: unknown chip \"sm_75\", expected \"sm_80\", \"sm_90\", \"sm_90a\" or \"sm_100a\"";
        assert_eq!(messages, vec![expected; 3]);
        let left = crate::testing::axe_ops(&printed);
        assert!(left.iter().any(|n| n == "axe.scale") && left.iter().any(|n| n == "axe.cast"), "{printed}");
        assert!(!printed.contains("arith.truncf") && !printed.contains("llvm.store"), "{printed}");
    }
}
