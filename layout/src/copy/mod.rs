//! Copy planning beyond TMA: `axe.copy(src, dst)` between global memory, shared memory, registers and tensor
//! memory, to the one instruction the two layouts allow, with every address and register of every thread.
//!
//! [`plan`] is pure: it takes a [`CopyRequest`] and returns a [`CopyPlan`] or a [`CopyError`] naming the refused
//! [`CopyRule`] with the numbers (`copy: vector rule: ...`). A lowering pass (`--lower-copy`) translates the plan
//! into IR and re-derives nothing: each [`CopyStep`] says which threads issue, each [`CopyIssue`] gives the
//! registers (the same in every issuing thread) and the per-thread addresses as [`PerThread`] formulas of the
//! scope-relative thread index.
//!
//! # The copy
//! `dst[k] = src[k]` for every row-major flat index `k` of the one shape both sides have ([`shapes_agree`]).
//! Memory layouts (global, shared) map onto `m` in elements from the tensor's base, shared ones possibly through
//! a swizzle; register layouts map onto thread axes and the register axis `m` (one register slot per element,
//! however wide the element); tensor-memory layouts map onto `TLane` and `TCol` (32-bit columns).
//!
//! # Threads
//! Every thread of the scope has a scope-relative index `t`: the lane at warp scope, `tid_in_wg` at warpgroup
//! scope, the linear thread id at CTA scope, 0 at thread scope. A register layout's point names its thread by
//! `t = sum over thread axes of coordinate * threads per unit` (1 for thread axes such as `laneid`, `tid`; 32 for
//! warp axes `warpid`, `wid_in_wg`; 128 for `wgid`), so `S[(4,32,8):(1@warpid,1@laneid,1)]` puts row `r` in
//! thread `r`; `tid`, `tid_in_wg` and `laneid`/`warpid` spellings of one register layout are therefore one
//! layout, and the register axis may be spelled `reg` as well as `m`. The `ldmatrix`/`stmatrix` match reads the
//! layout in lanes and warps ([`crate::threads::to_hardware`]). An optional [`ThreadSubset`] (`warpid` in
//! `[0, 4)`) restricts which threads run the copy.
//!
//! # Which instruction
//! Chosen from the memories, then from the layouts (see each rule of [`CopyRule`] for the refusals):
//! - global or shared <-> registers: per-thread `ld`/`st` of the widest vector (1, 2, 4, 8 or 16 bytes) that is,
//!   for every thread and every element, contiguous and aligned in memory and consecutive on the register axis;
//!   shared -> registers is `ldmatrix` (x4, x2, x1, `.trans`) and registers -> shared `stmatrix` (sm_90 and
//!   later) instead when the register layout is a tile of the instruction's fragment and each 8-element row of
//!   every 8x8 matrix is 16 contiguous, 16-byte aligned bytes of shared memory (after the swizzle);
//! - global -> shared: `cp.async` of 4, 8 or 16 bytes (`.cg` for 16, `.ca` otherwise), then
//!   `cp.async.commit_group` and `cp.async.wait_group 0`;
//! - tensor memory <-> registers: `tcgen05.ld` / `tcgen05.st` (sm_100a), shapes `32x32b`, `16x64b`, `16x128b`,
//!   `16x256b` with `.xN`, where warp `w` of the CTA reaches only lanes `32*(w%4) .. 32*(w%4)+32`;
//! - registers -> registers: `mov` when every element keeps its thread; `shfl.sync.idx.b32` when every element
//!   stays in its warp; else through a shared staging buffer (`st.shared`, a barrier, `ld.shared`) whose layout
//!   is the candidate with the fewest bank conflicts.
//!
//! A plan whose widest legal vector is one element is a scalar loop, and [`CopyPlan::scalar`] says so.
//!
//! # Run-time addresses
//! [`plan_moving`] plans a copy whose global or shared region moves at run time (a block's tile, a loop's K step,
//! a ring's stage): [`CopyPlan::dynamic`] adds `elements * (value / divisor)` elements per offset to every address
//! of its side, after the swizzle, and the `dynamic-offset` rule refuses offsets that would break the plan's
//! alignment or move by less than a swizzle period. [`plan_runtime`] plans a global side that is a region of a
//! row-major tensor with a run-time row stride: [`CopyPlan::coords`] states each issue's row and column per thread,
//! from which the caller computes the address and the in-bounds predicate (`moving.rs` documents both rules).

mod fit;
mod matrix;
mod moving;
mod planner;
mod regs;
mod staging;
mod table;
mod tmem;
mod vector;

pub use moving::{
    placeholder_stride, plan_moving, plan_runtime, AddressTerm, CopyMove, CopySide, RegionCoord, RuntimeRows,
    SideCoords,
};
pub use planner::plan;

use crate::axis::{Axis, ExecScope};
use crate::layout::Layout;
use crate::swizzle::Swizzle;
use std::fmt;

pub use crate::hw::{Chip, ElemType, Memory};

/// One side of the copy: a tensor's layout, shape and memory.
#[derive(Clone, Copy, Debug)]
pub struct Side<'a> {
    /// The layout over `shape`.
    pub layout: &'a Layout,
    /// The tensor's shape.
    pub shape: &'a [i64],
    /// Where it lives.
    pub mem: Memory,
}

/// A thread subset of the scope: units `[begin, end)` on a thread axis (`warpid` 0..4), as `#axe.threads`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ThreadSubset {
    /// The thread axis.
    pub axis: Axis,
    /// First unit.
    pub begin: i64,
    /// One past the last unit.
    pub end: i64,
}

/// `axe.copy(src, dst)` at `scope`: `dst[k] = src[k]` for every row-major flat index `k`.
#[derive(Clone, Copy, Debug)]
pub struct CopyRequest<'a> {
    /// The source.
    pub src: Side<'a>,
    /// The destination.
    pub dst: Side<'a>,
    /// The element type of both.
    pub dtype: ElemType,
    /// The execution scope that runs the copy collectively.
    pub scope: ExecScope,
    /// Only these threads of the scope run it.
    pub threads: Option<ThreadSubset>,
    /// The target.
    pub chip: Chip,
    /// Threads in the CTA, when known: a CTA-scope copy between two memories (cp.async) without a subset spreads
    /// its work over them, and is refused without them.
    pub cta_threads: Option<i64>,
}

/// The copy's shape rule, the one every front end applies: the dialect's verifier (`shapes-agree`), this planner
/// (`input` rule), hence `--lower-copy` and `axe-layout copy-plan`. `axe.copy` pairs the elements of ONE row-major
/// index space, so the source and destination shapes are equal; the same elements seen in another shape are a
/// view of the tensor, not a copy. The message has no prefix: each front end adds its own (`copy source and ...`).
pub fn shapes_agree(src: &[i64], dst: &[i64]) -> Result<(), String> {
    if src == dst {
        return Ok(());
    }
    Err(format!(
        "source and dest shapes must agree, got {} and {}",
        crate::notation::shape_text(src),
        crate::notation::shape_text(dst)
    ))
}

impl CopyRequest<'_> {
    /// [`shapes_agree`] on the request's two sides, as the planner's `input` rule.
    pub fn check_shapes(&self) -> Result<(), CopyError> {
        shapes_agree(self.src.shape, self.dst.shape).map_err(|m| CopyError::new(CopyRule::Input, m))
    }
}

/// One term of a [`PerThread`] value: `((t / div) % modulus) * coef`, with no `% modulus` when it is `None`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ThreadTerm {
    /// Divisor of the thread index (at least 1).
    pub div: i64,
    /// Wraps the quotient, when present (at least 1).
    pub modulus: Option<i64>,
    /// Multiplier.
    pub coef: i64,
}

/// An integer that depends on the scope-relative thread index `t`: `base + sum of terms` (see [`ThreadTerm`]).
/// Addresses are element offsets from the tensor's base, before the step's swizzle.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct PerThread {
    /// The value in a thread where every term is 0.
    pub base: i64,
    /// The thread-dependent terms (empty: the same in every thread).
    pub terms: Vec<ThreadTerm>,
}

impl PerThread {
    /// A value that is the same in every thread.
    pub fn constant(base: i64) -> PerThread {
        PerThread { base, terms: Vec::new() }
    }

    /// The value in thread `t`.
    pub fn at(&self, t: i64) -> i64 {
        self.terms.iter().fold(self.base, |acc, term| {
            let q = t / term.div.max(1);
            let q = term.modulus.map_or(q, |m| q % m.max(1));
            acc + q * term.coef
        })
    }
}

/// One condition on the thread index: `begin <= (t / div) % modulus < end` (no `% modulus` when `None`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ThreadCond {
    /// Divisor (at least 1).
    pub div: i64,
    /// Wraps the quotient, when present.
    pub modulus: Option<i64>,
    /// Smallest value allowed.
    pub begin: i64,
    /// One past the largest value allowed.
    pub end: i64,
}

impl ThreadCond {
    /// Whether thread `t` meets the condition.
    pub fn holds(&self, t: i64) -> bool {
        let q = t / self.div.max(1);
        let q = self.modulus.map_or(q, |m| q % m.max(1));
        self.begin <= q && q < self.end
    }
}

/// The threads `t` in `0..scope_threads` that meet every condition (all of them when there is none).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ThreadSet {
    /// The conditions, all of which hold.
    pub conds: Vec<ThreadCond>,
}

impl ThreadSet {
    /// Whether thread `t` is in the set.
    pub fn contains(&self, t: i64) -> bool {
        self.conds.iter().all(|c| c.holds(t))
    }
}

/// Which way a per-thread `ld`/`st` goes through which state space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// `.global`.
    Global,
    /// `.shared` (`.shared::cta`).
    Shared,
}

impl Space {
    /// `global` or `shared`.
    pub fn name(self) -> &'static str {
        match self {
            Space::Global => "global",
            Space::Shared => "shared",
        }
    }
}

/// A `tcgen05.ld`/`tcgen05.st` shape (PTX ISA 9.7.16.8.x, "Matrix fragments for tcgen05.ld and tcgen05.st").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TmemShape {
    /// 32 lanes x 32 bits: thread `i` of the warp reads lane `base + i`, one column per `.x` repetition.
    S32x32b,
    /// 16 lanes x 64 bits.
    S16x64b,
    /// 16 lanes x 128 bits.
    S16x128b,
    /// 16 lanes x 256 bits.
    S16x256b,
}

impl TmemShape {
    /// The PTX spelling (`32x32b`, `16x64b`, `16x128b`, `16x256b`).
    pub fn name(self) -> &'static str {
        match self {
            TmemShape::S32x32b => "32x32b",
            TmemShape::S16x64b => "16x64b",
            TmemShape::S16x128b => "16x128b",
            TmemShape::S16x256b => "16x256b",
        }
    }
}

/// The instruction a [`CopyStep`] issues.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CopyKind {
    /// Per-thread `ld.<space>` of `vector_bytes` bytes into registers.
    Load(Space),
    /// Per-thread `st.<space>` of `vector_bytes` bytes from registers.
    Store(Space),
    /// `ldmatrix.sync.aligned.m8n8.x{count}{.trans}.shared.b16`: a warp loads `count` 8x8 16-bit matrices.
    Ldmatrix {
        /// 1, 2 or 4 matrices.
        count: u8,
        /// `.trans`.
        trans: bool,
    },
    /// `stmatrix.sync.aligned.m8n8.x{count}{.trans}.shared.b16` (sm_90+): a warp stores `count` 8x8 matrices.
    Stmatrix {
        /// 1, 2 or 4 matrices.
        count: u8,
        /// `.trans`.
        trans: bool,
    },
    /// `cp.async.{ca,cg}.shared.global [dst], [src], bytes` (sm_80+): 4, 8 or 16 bytes per thread.
    CpAsync {
        /// 4, 8 or 16 (`.cg` for 16).
        bytes: u8,
    },
    /// `tcgen05.ld.sync.aligned.<shape>.x<num>.b32` (sm_100a).
    Tcgen05Ld {
        /// The shape.
        shape: TmemShape,
        /// The repetition count `.xN`.
        num: u32,
    },
    /// `tcgen05.st.sync.aligned.<shape>.x<num>.b32` (sm_100a).
    Tcgen05St {
        /// The shape.
        shape: TmemShape,
        /// The repetition count `.xN`.
        num: u32,
    },
    /// `shfl.sync.idx.b32` with a full mask: every lane sends one register, reads another lane's.
    Shuffle,
    /// A register-to-register move inside one thread.
    Mov,
}

/// How one instruction reaches one side, in one issuing thread.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// Register-axis values (element slots), in operand order, the same in every issuing thread. A `vector_bytes`
    /// operand is packed into 32-bit words (or one 8/16-bit value), lower slot in the lower bits: slots
    /// `[w*e, (w+1)*e)` form word `w` with `e = 4 / element bytes`; `ldmatrix`/`stmatrix` list two 16-bit slots
    /// per matrix (`d0.lo, d0.hi, d1.lo, ...`); `tcgen05` one 32-bit slot per column, in column order.
    Regs(Vec<i64>),
    /// A memory address per thread: element offset from the tensor's base before the step's swizzle (the
    /// address is `swizzle(value)` elements from the base). For `ld`/`st`/`cp.async` the first of the vector's
    /// elements; for `ldmatrix`/`stmatrix` the start of the row the thread supplies (threads `8i..8i+8` give
    /// the rows of matrix `i`; other lanes' values are unused but valid).
    Mem(PerThread),
    /// A tensor-memory address per thread: lane and 32-bit column of the first element the warp moves (the
    /// same in every thread of a warp; `taddr = lane << 16 | column` plus the allocation's base).
    Tmem {
        /// Lane.
        lane: PerThread,
        /// Column.
        col: PerThread,
    },
    /// The source of a shuffle: every lane sends its register `reg`, thread `t` reads the value lane `lane(t)`
    /// (0..32, within the warp) sent.
    Shfl {
        /// The lane read, per thread.
        lane: PerThread,
        /// The register every lane sends.
        reg: i64,
    },
}

/// One instruction, issued by every thread of its step's [`CopyStep::threads`] (or of `only`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CopyIssue {
    /// What it reads.
    pub src: Operand,
    /// What it writes.
    pub dst: Operand,
    /// When present, only these threads issue it (for a shuffle: every lane executes it, only these keep the
    /// value).
    pub only: Option<ThreadSet>,
}

/// What must happen after a step's instructions before its destination can be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Completion {
    /// Nothing (synchronous instructions).
    None,
    /// `cp.async.commit_group; cp.async.wait_group 0;` then a barrier of the step's threads (an `axe.copy_async`
    /// may use `cp.async.mbarrier.arrive.noinc.shared::cta.b64` on its barrier instead).
    CpAsyncWaitAll,
    /// `tcgen05.wait::ld.sync.aligned`.
    Tcgen05WaitLd,
    /// `tcgen05.wait::st.sync.aligned`.
    Tcgen05WaitSt,
    /// A barrier of every thread that runs the copy: with `threads` a named `bar.sync` of that many threads
    /// (the subset's), without it the whole scope's (`bar.warp.sync` at warp scope, a 128-thread named barrier
    /// at warpgroup scope, `bar.sync 0` at CTA scope).
    Barrier {
        /// Threads taking part, when not the whole scope.
        threads: Option<i64>,
    },
}

/// One kind of instruction over one pair of tensors, then its completion.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CopyStep {
    /// The instruction.
    pub kind: CopyKind,
    /// The PTX opcode with its qualifiers (`ld.global.v4.b32`, `ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16`).
    pub instruction: String,
    /// Bytes each thread moves per instruction.
    pub vector_bytes: i64,
    /// The threads that issue the step's instructions.
    pub threads: ThreadSet,
    /// The instructions, in issue order.
    pub issues: Vec<CopyIssue>,
    /// The swizzle applied to [`Operand::Mem`] addresses of the source (element units), if any.
    pub src_swizzle: Option<Swizzle>,
    /// The swizzle applied to [`Operand::Mem`] addresses of the destination, if any.
    pub dst_swizzle: Option<Swizzle>,
    /// What follows the instructions.
    pub completion: Completion,
}

/// The shared buffer a register-to-register copy goes through.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Staging {
    /// Its layout over the copy's source shape (on `m`, maybe swizzled).
    pub layout: Layout,
    /// Bytes to allocate.
    pub bytes: i64,
    /// Alignment its base needs.
    pub alignment_bytes: i64,
    /// The worst bank-conflict degree of the store and of the load (1: conflict-free).
    pub conflict_ways: [i64; 2],
}

/// The result of planning one copy.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CopyPlan {
    /// The PTX opcode of the data-moving instruction with its qualifiers; for a staged copy the two joined by
    /// ` + ` (`st.shared.v4.b32 + ld.shared.v4.b32`).
    pub instruction: String,
    /// Bytes each thread moves per instruction (the smaller of the two for a staged copy).
    pub vector_bytes: i64,
    /// Instructions each issuing thread executes (both steps of a staged copy together).
    pub instructions_per_thread: i64,
    /// True when the widest legal choice moves one element at a time: a scalar loop, by necessity.
    pub scalar: bool,
    /// Threads in the scope (`t` ranges over `0..scope_threads`); 1024, CUDA's limit, for a CTA whose size was not
    /// given.
    pub scope_threads: i64,
    /// The alignment, in bytes, the source tensor's base must have for the plan to be right (memory sides).
    pub src_base_alignment_bytes: Option<i64>,
    /// The same for the destination.
    pub dst_base_alignment_bytes: Option<i64>,
    /// The steps in order: one, or two for a staged register-to-register copy (store, then load).
    pub steps: Vec<CopyStep>,
    /// The staging buffer of a register-to-register copy through shared memory.
    pub staging: Option<Staging>,
    /// Run-time terms of the memory addresses (empty unless planned by [`plan_moving`]): each adds
    /// `elements * (value / divisor)` elements to every address of its side, after the swizzle.
    pub dynamic: Vec<AddressTerm>,
    /// Per side that is a region of a row-major tensor of run-time row stride ([`plan_runtime`]): each issue's
    /// row and column per thread (empty otherwise).
    pub coords: Vec<SideCoords>,
}

/// A rule the planner refuses a copy by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CopyRule {
    /// Malformed request: element counts, layouts that do not admit their shapes, axes a memory does not have.
    Input,
    /// No instruction moves data between these two memories.
    Route,
    /// The instruction the memories need does not exist on the chip.
    Chip,
    /// The element type does not suit the instruction (tensor memory holds 32-bit values).
    Dtype,
    /// A layout's threads are outside the scope or the thread subset, or the scope's size is unknown.
    Scope,
    /// A per-thread address or register is not a [`PerThread`] formula of the thread index.
    ThreadMap,
    /// Memory is not contiguous and aligned enough for any vector the instruction has.
    Vector,
    /// Tensor memory: a warp would reach lanes outside its window, or the layout fits no shape.
    TmemLanes,
    /// Too many elements or instructions to plan.
    Limit,
    /// A run-time offset of a side's region would break the plan's alignment or swizzle ([`plan_moving`]).
    DynamicOffset,
}

impl CopyRule {
    /// The rule's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            CopyRule::Input => "input",
            CopyRule::Route => "route",
            CopyRule::Chip => "chip",
            CopyRule::Dtype => "dtype",
            CopyRule::Scope => "scope",
            CopyRule::ThreadMap => "thread-map",
            CopyRule::Vector => "vector",
            CopyRule::TmemLanes => "tmem-lanes",
            CopyRule::Limit => "limit",
            CopyRule::DynamicOffset => "dynamic-offset",
        }
    }
}

/// A refusal: `copy: <rule> rule: <what, with the numbers>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CopyError {
    /// The rule broken.
    pub rule: CopyRule,
    /// What failed, lowercase, with the values found.
    pub message: String,
}

impl CopyError {
    /// A refusal by `rule`.
    pub fn new(rule: CopyRule, message: impl Into<String>) -> CopyError {
        CopyError { rule, message: message.into() }
    }
}

impl fmt::Display for CopyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "copy: {} rule: {}", self.rule.name(), self.message)
    }
}

impl std::error::Error for CopyError {}

impl From<CopyError> for crate::LayoutError {
    fn from(e: CopyError) -> crate::LayoutError {
        crate::LayoutError::new(e.to_string())
    }
}
