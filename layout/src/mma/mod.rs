//! Tensor-core GEMM planning: `axe.gemm(a, b, c)` (`C += A * B`, shapes `[M,K] x [K,N] -> [M,N]`) to a list of
//! tensor-core instructions, each with its registers, shared-memory matrix descriptors or tensor-memory address.
//!
//! [`plan`] is pure: it takes a [`GemmRequest`] and returns an [`MmaPlan`] or an [`MmaError`] naming the refused
//! [`MmaRule`] with the numbers (`mma: fragment rule: operand A is not a tile of ...`). A lowering pass translates
//! the plan into IR and re-derives nothing.
//!
//! # Which instruction family
//! Never guessed: it follows from the operands' memories, then the chip must have it (`planner::select_family`):
//! - C in tensor memory: `tcgen05.mma` (sm_100a), A in shared or tensor memory, B in shared memory;
//! - C in registers with A or B in shared memory: `wgmma.mma_async` (sm_90a), B in shared memory;
//! - everything in registers: `mma.sync` (sm_80 and later).
//!
//! # Algorithm (paper section 3.4, "find the largest possible instruction shape")
//! 1. Candidate instruction shapes, largest first (`planner::candidates`): `m16n8k16` then `m16n8k8` (tf32:
//!    `m16n8k8` only); `m64nNk16` (`k32` for fp8, `k8` for tf32) with N from 256 down by 8; `tcgen05` M 128 then
//!    64, N from 256 down, K 16 (32 for fp8, 8 for tf32).
//! 2. For a candidate, every operand is matched to its atom of that shape by tile-of
//!    ([`crate::tile_of::outer_of`]):
//!    - registers ([`registers`]): the atom is the PTX ISA fragment layout ([`atoms`]); the outer layout's
//!      thread iters are the warp tiling and its register iters give each instruction's registers. The operand's
//!      threads are first written in the atom's digits ([`crate::threads`]), so `tid`, `tid_in_wg` and
//!      `laneid`/`warpid` spellings of one fragment, and `reg` or `m` as its register axis, plan alike;
//!    - shared memory ([`shared`]): the atom is the swizzle atom of the layout's mode (128B, 64B, 32B or the
//!      unswizzled 16-byte core matrix) in K- or MN-major orientation; each instruction's matrix descriptor
//!      (start, leading and stride byte offsets) is read off the layout and checked element by element against
//!      the ISA's canonical layout ([`desc`]);
//!    - tensor memory ([`tmem`]): the atom is the data-path layout of the shape (Layout D for M=128, F for M=64),
//!      for the accumulator and for an operand A in tensor memory (see below).
//! 3. The warp tilings of the register operands must agree: every C tile is computed by exactly one warp (or
//!    warpgroup), and each A (B) tile is held by exactly the warps that compute a C tile in its row (column).
//!    A replica that duplicates A across the warps splitting N (or B across those splitting M) is therefore
//!    accepted; any other disagreement is refused.
//! 4. The remaining iters become the instruction loop: per issuing warp, C tiles in row-major order, K innermost.
//!
//! # Tensor memory and operand A there (`tcgen05.mma ... [d-tmem], [a-tmem], b-desc, idesc, ...`)
//! A tensor-memory layout of `b`-bit elements counts `b`-bit slots on TCol, `32 / b` to a 32-bit column, low bits
//! first ([`tmem`]), so the ISA's formats are plain layouts: the accumulator is unpacked (9.7.16.10.4.1; an f32
//! one is `S[(128,n):(1@TLane,1@TCol)]`, an f16 one `S[(128,n):(1@TLane,2@TCol)]`, each element in the low half of
//! its own column) and operand A is packed (9.7.16.10.4). PTX ISA 9.7.16.10: A may be in tensor memory instead of
//! shared memory. It is row-major there (K-major, Table 51; the idesc's transpose-A bit stays 0), on the same data
//! path as D (9.7.16.10.5: row `i` in lane `i` for M=128; Layout F for M=64, with A and D at the same lane
//! alignment, 0 or 16), with `32 / b` consecutive K elements to a column: the M=128 atom over `[128, k]` is
//! `S[(128,k):(1@TLane,1@TCol)]`, and an f16 A with `+ 256@TCol` starts at column 128. Every instruction tile
//! starts on a column boundary; the plan gives A's lane and 32-bit column (`Access::Tmem`). When A and C are
//! columns of one allocation ([`plan`], [`TmemAllocations::Shared`]) they must not overlap (`tmem-overlap`) and
//! [`MmaPlan::tmem_columns`] covers both (at most 512); in separate allocations ([`plan_with`]) each covers its own
//! [`MmaPlan::tmem_reach`]. The ISA accepts every A type the planner knows (f16, bf16 with `.kind::f16`; tf32
//! with `.kind::tf32`; e4m3, e5m2 with `.kind::f8f6f4`) in tensor memory, so no dtype is refused for it.
//!
//! # Run-time operand starts ([`plan_moving`])
//! A shared operand may be a stage of a ring chosen at run time (A at `[stage * 128, 0]` of a `[384, 64]` ring,
//! `stage = k mod 3`). The plan is made for the region at offset 0 (the request's layout is the ring sliced there);
//! the offset moves the outermost digit of its ring dimension alone ([`crate::stage::digit_step`]), so every
//! element, hence every descriptor's matrix start, moves by `stride * elemsize` bytes per step: the plan states it
//! as a [`StartTerm`], and the pass adds it to the address it encodes into the 14-bit start field
//! (`((base + start) >> 4) & 0x3FFF`). Every value must move by a multiple of the operand's swizzle repeat
//! (1024/512/256 bytes; 16 unswizzled, the field's unit), so each stage's patterns start on their boundary as
//! stage 0's do and base offset 0 stays right; else the `dynamic-start` rule refuses. That the stage lies inside
//! the ring is the kernel's run-time precondition.
//!
//! # Shared-memory base alignment
//! The hardware swizzles the absolute shared address (bits `[4,4+B)` XOR bits `[7,7+B)`), a
//! [`crate::ComposeLayout`] swizzles the address relative to the tensor's base. They agree when the base is
//! aligned to the pattern's repeat, [`MmaPlan::shared_base_alignment_bytes`] (1024/512/256, 16 unswizzled), and
//! every descriptor is planned with base offset 0, which the ISA defines for a pattern starting on that boundary;
//! a start whose pattern does not is refused (`alignment` rule).

pub mod atoms;
pub mod desc;
mod planner;
pub mod registers;
pub mod shared;
pub mod tmem;

pub use planner::{plan, plan_moving, plan_with};

pub use crate::hw::{Chip, ElemType, Memory};
use crate::layout::Layout;
use crate::swizzle::SwizzleMode;
use std::fmt;

/// A tensor-core instruction family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// Warp-level `mma.sync.aligned.m16n8k{16,8}` (sm_80+), every operand in registers.
    MmaSync,
    /// Warpgroup-level `wgmma.mma_async` (sm_90a), B in shared memory, the accumulator in registers.
    Wgmma,
    /// `tcgen05.mma` issued by one thread (sm_100a), the accumulator in tensor memory.
    Tcgen05,
}

impl Family {
    /// The family's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Family::MmaSync => "mma.sync",
            Family::Wgmma => "wgmma",
            Family::Tcgen05 => "tcgen05",
        }
    }

    /// The chips that have the family.
    pub fn available_on(self, chip: Chip) -> bool {
        match self {
            Family::MmaSync => true,
            Family::Wgmma => chip == Chip::Sm90a,
            Family::Tcgen05 => chip == Chip::Sm100a,
        }
    }
}

/// Which of the three operands (in messages and tables).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// The `[M,K]` multiplicand.
    A,
    /// The `[K,N]` multiplicand.
    B,
    /// The `[M,N]` accumulator.
    C,
}

impl Role {
    /// `A`, `B` or `C`.
    pub fn name(self) -> &'static str {
        match self {
            Role::A => "A",
            Role::B => "B",
            Role::C => "C",
        }
    }

    /// The dimension of the operand's `[rows, cols]` shape that is K (`None` for C).
    pub fn k_dim(self) -> Option<usize> {
        match self {
            Role::A => Some(1),
            Role::B => Some(0),
            Role::C => None,
        }
    }
}

/// One operand of the GEMM.
#[derive(Clone, Copy, Debug)]
pub struct Operand<'a> {
    /// Its layout over `shape`.
    pub layout: &'a Layout,
    /// `[rows, cols]`: `[M,K]` for A, `[K,N]` for B, `[M,N]` for C.
    pub shape: &'a [i64],
    /// Where it lives.
    pub mem: Memory,
}

/// `axe.gemm(a, b, c)`: `C += A * B`.
#[derive(Clone, Copy, Debug)]
pub struct GemmRequest<'a> {
    /// The target.
    pub chip: Chip,
    /// The element type of A and B.
    pub dtype: ElemType,
    /// The element type of C (the accumulator).
    pub acc_dtype: ElemType,
    /// The `[M,K]` multiplicand.
    pub a: Operand<'a>,
    /// The `[K,N]` multiplicand.
    pub b: Operand<'a>,
    /// The `[M,N]` accumulator.
    pub c: Operand<'a>,
}

/// The direction in which a shared-memory operand is contiguous (PTX ISA 9.7.15.5.1.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Major {
    /// Consecutive K elements are adjacent (A row-major, B column-major; "non-transposed").
    K,
    /// Consecutive M (for A) or N (for B) elements are adjacent ("transposed").
    MN,
}

impl Major {
    /// `K` or `MN`.
    pub fn name(self) -> &'static str {
        match self {
            Major::K => "K",
            Major::MN => "MN",
        }
    }
}

/// A shared-memory matrix descriptor and the fields it encodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SmemDesc {
    /// The 64-bit descriptor as emitted, with the shared tensor's base at address 0 (the pass adds the base's
    /// encoded address to the start-address field).
    pub desc: u64,
    /// The matrix start, in bytes from the tensor's base (before the swizzle).
    pub start_offset_bytes: i64,
    /// Leading dimension byte offset (16 where the ISA says "not used, assumed 1").
    pub lbo_bytes: i64,
    /// Stride dimension byte offset (0 where the instruction tile has a single group in that direction).
    pub sbo_bytes: i64,
    /// Matrix base offset (always 0 from the planner: patterns start on their repeat boundary).
    pub base_offset: u8,
    /// The swizzle mode.
    pub swizzle: SwizzleMode,
    /// K- or MN-major.
    pub major: Major,
}

/// How one instruction reaches one operand.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// Registers: the values of the register axis `m` holding the fragment's elements, in PTX fragment order
    /// (a0, a1, ...); the same for every lane of the issuing warp or warpgroup.
    Regs(Vec<i64>),
    /// A shared-memory matrix descriptor.
    Smem(SmemDesc),
    /// A tensor-memory address: the lane and 32-bit column of the tile's first element (the accumulator's, or
    /// operand A's: `[a-tmem]`).
    Tmem {
        /// Tensor-memory lane.
        lane: i64,
        /// Tensor-memory column.
        col: i64,
    },
}

/// One tensor-core instruction.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MmaIssue {
    /// The scope-relative index of the first thread of the issuing warp (32*w) or warpgroup (128*g); 0 for
    /// `tcgen05`, which one thread issues.
    pub thread_base: i64,
    /// Logical row of the instruction's tile in C and A.
    pub m: i64,
    /// Logical column of the instruction's tile in C and B.
    pub n: i64,
    /// Logical K origin of the instruction's tile in A and B.
    pub k: i64,
    /// How the instruction reads A.
    pub a: Access,
    /// How the instruction reads B.
    pub b: Access,
    /// How the instruction reads and writes C.
    pub c: Access,
}

/// The result of planning one GEMM.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MmaPlan {
    /// The family chosen.
    pub family: Family,
    /// The PTX opcode with all its qualifiers (`mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`).
    pub instruction: String,
    /// `[m, n, k]` of one instruction.
    pub inst_shape: [i64; 3],
    /// The tensor-memory columns to allocate (a power of two, at least 32), when tensor memory is used: one
    /// allocation covering every tensor-memory operand.
    pub tmem_columns: Option<u32>,
    /// The 32-bit columns each tensor-memory operand reaches (its span on TCol, offset included), A before C: what
    /// its own allocation must cover when A and C are allocated apart ([`TmemAllocations::Separate`]).
    pub tmem_reach: Vec<(Role, i64)>,
    /// The 32-bit instruction descriptor of `tcgen05.mma` (the same for every issue).
    pub idesc: Option<u32>,
    /// The alignment every shared operand's base must have (the largest over the shared operands), if any.
    pub shared_base_alignment_bytes: Option<i64>,
    /// One entry per instruction, in issue order.
    pub issues: Vec<MmaIssue>,
    /// The run-time part of the shared operands' matrix starts ([`plan_moving`]; empty from [`plan`]): every
    /// descriptor of a term's operand starts `bytes * (value / divisor)` further, `value` the run-time offset.
    pub dynamic: Vec<StartTerm>,
}

/// A shared operand that is a region of a larger tensor (a ring of stages) moved at run time along one of its
/// dimensions ([`plan_moving`]). The request's operand layout is the ring sliced to the region at offset 0.
#[derive(Clone, Copy, Debug)]
pub struct OperandMove<'a> {
    /// Operand A or B.
    pub role: Role,
    /// The ring's layout (the operand's storage, from its base).
    pub ring: &'a Layout,
    /// The ring's shape.
    pub ring_shape: &'a [i64],
    /// The ring dimension the region moves along.
    pub dim: usize,
    /// What every run-time value of the offset is a multiple of (at least 1).
    pub multiple: i64,
}

/// One run-time term of an operand's matrix starts: every descriptor of `role` starts
/// `bytes * (value / divisor)` bytes further, `value` being move `offset`'s run-time value (exact division).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StartTerm {
    /// Operand A or B.
    pub role: Role,
    /// Index into the moves given to [`plan_moving`].
    pub offset: usize,
    /// Elements of the ring dimension per step of the digit the offset moves.
    pub divisor: i64,
    /// Bytes per step: a multiple of the operand's swizzle repeat (1024/512/256, 16 unswizzled), so every
    /// descriptor keeps base offset 0 (`dynamic-start` rule).
    pub bytes: i64,
}

/// Whether operand A and the accumulator, both in tensor memory, are columns of one allocation ([`plan_with`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TmemAllocations {
    /// One allocation: their TCol values address the same columns, which must not overlap (`tmem-overlap`).
    Shared,
    /// Two allocations: each operand's TCol values are columns of its own.
    Separate,
}

/// A rule the planner refuses a GEMM by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaRule {
    /// Malformed request: ranks, shapes that do not chain `[M,K] x [K,N] -> [M,N]`, layouts that do not admit them.
    Input,
    /// The memories select a family the chip does not have, or a combination no family accepts.
    Family,
    /// The dtype combination is not in the PTX tables for the family.
    Dtype,
    /// M, N or K is not a multiple of any instruction shape.
    Shape,
    /// A register or tensor-memory operand is not a tile of its fragment atom.
    Fragment,
    /// A register operand's thread iters cannot be written as lanes and warps (and warpgroups) at all: an iter
    /// crosses the 32-thread warp or 4-warp warpgroup boundary unevenly, or an axis leaves its range
    /// ([`crate::threads::to_hardware`]).
    ThreadAxes,
    /// The warp tilings of A, B and C disagree.
    WarpTiling,
    /// A shared layout has a swizzle that is not a tensor-core swizzle for the element size.
    Swizzle,
    /// A shared layout is not a tile of any swizzle atom, in either major-ness, or breaks the canonical layout.
    SmemAtom,
    /// A shared matrix start is not 16-byte aligned or its swizzle pattern does not start on its boundary.
    Alignment,
    /// A tensor-memory operand is not a data-path layout, its lanes are not the data path's, or an instruction
    /// tile of the packed A starts inside a column.
    TmemDatapath,
    /// Tensor memory holds 512 columns.
    TmemColumns,
    /// Operand A and the accumulator, both in tensor memory, share a column.
    TmemOverlap,
    /// A descriptor field does not fit its bits.
    DescriptorRange,
    /// A run-time operand start must move whole stages of a shared operand by multiples of its swizzle repeat.
    DynamicStart,
}

impl MmaRule {
    /// The rule's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            MmaRule::Input => "input",
            MmaRule::Family => "family",
            MmaRule::Dtype => "dtype",
            MmaRule::Shape => "shape",
            MmaRule::Fragment => "fragment",
            MmaRule::ThreadAxes => "thread-axes",
            MmaRule::WarpTiling => "warp-tiling",
            MmaRule::Swizzle => "swizzle",
            MmaRule::SmemAtom => "smem-atom",
            MmaRule::Alignment => "alignment",
            MmaRule::TmemDatapath => "tmem-datapath",
            MmaRule::TmemColumns => "tmem-columns",
            MmaRule::TmemOverlap => "tmem-overlap",
            MmaRule::DescriptorRange => "descriptor-range",
            MmaRule::DynamicStart => "dynamic-start",
        }
    }
}

/// A refusal: `mma: <rule> rule: <what, with the numbers>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MmaError {
    /// The rule broken.
    pub rule: MmaRule,
    /// What failed, lowercase, with the values found.
    pub message: String,
}

impl MmaError {
    /// A refusal by `rule`.
    pub fn new(rule: MmaRule, message: impl Into<String>) -> MmaError {
        MmaError { rule, message: message.into() }
    }
}

impl fmt::Display for MmaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "mma: {} rule: {}", self.rule.name(), self.message)
    }
}

impl std::error::Error for MmaError {}

impl From<MmaError> for crate::LayoutError {
    fn from(e: MmaError) -> crate::LayoutError {
        crate::LayoutError::new(e.to_string())
    }
}
