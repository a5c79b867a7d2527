//! TMA descriptor planning (paper section 3.4): from a global layout + region and a shared layout + region to
//! every field of `cuTensorMapEncodeTiled` and one `cp.async.bulk.tensor` issue per box.
//!
//! [`plan`] is pure: it takes a [`TmaRequest`] and returns a [`TmaPlan`] or a [`TmaError`] that names the failing
//! planning [`TmaStage`] or driver [`TmaRule`] with the numbers. [`validate`] checks a finished
//! [`TensorMapDesc`] against every documented `cuTensorMapEncodeTiled` requirement, so a pass that builds or edits
//! a descriptor by hand can re-check it.
//!
//! # Algorithm
//! 1. **Slice** both layouts to their regions ([`crate::slice::slice`]). The copy pairs the k-th element of the
//!    global region with the k-th element of the shared region, both in row-major order of their own extents, so
//!    the two regions need the same element count, not the same shape.
//! 2. **Shared side**: the sliced shared layout must be a plain layout on `m` (no replica); its offset is the
//!    region's start in shared memory. Its swizzle must be CUDA's for the element size
//!    ([`crate::Swizzle::for_dtype`]: `Swizzle(M,B,3)`, `B` = 1/2/3 for the 32B/64B/128B modes). The region is
//!    matched to the mode's atom **in memory order**: its iters sorted by stride and contiguous runs
//!    merged (so a row-major u8 `32x8` tile is one run of 256, a column-major tile has its stride-1 iter last like a
//!    row-major one), checked with [`crate::tile_of::outer_of`] against one swizzle row `Swizzle o S[span/elem]`
//!    (one 16-byte chunk `S[16/elem]` unswizzled). One row, not the 8 rows of a period: the hardware swizzles
//!    absolute addresses, so any whole number of rows at a 128-byte aligned start lands where the layout says (a
//!    consumer needing whole periods, wgmma, checks that itself). Which element goes where is kept by step 4.
//! 3. **Global side**: the global layout (canonicalized, [`crate::canonicalize`]) is grouped by the global shape
//!    ([`crate::group::group`]); every non-unit iter of every dimension becomes one candidate descriptor
//!    dimension (global dim = the iter's extent, stride = its stride), so the descriptor addresses the *whole*
//!    tensor and the region's start becomes coordinates. The region is read as a box of the digits of each
//!    dimension (inner digits copied in full from 0, one pivot digit with a partial range, outer digits fixed).
//!    A region that straddles the pivot digit's boundary (rows 32..96 of 64-row panels) is cut into chunks of
//!    `gcd(start digit, length, extent)` positions, each inside one digit range: a box covers a chunk, and the
//!    chunk index is an issue loop whose coordinates are the digits of `start + k * chunk` (a mixed-radix walk
//!    into the outer digits, not one affine step; static regions only, a run-time offset on such a dimension is
//!    refused by the `dynamic-offset` rule).
//! 4. **Co-grouping**: the global box iters (copy order) and the shared iters are refined to one common list of
//!    "joint" iters, each with a shared stride, a descriptor dimension and a coordinate step.
//! 5. **Box**: joint iters sorted by shared stride must start at stride 1 and chain densely
//!    (`stride[i+1] == stride[i] * extent[i]`), because TMA writes a box densely into shared memory, innermost
//!    dimension first. The largest prefix of that chain that forms a legal box wins (prefix search, as TIRx's
//!    `tma_auto`); each descriptor dimension's boxed iters must be consecutive in the chain and be its innermost
//!    digits, so the box covers a contiguous coordinate range. With a swizzle the innermost box row is the swizzle
//!    span, or narrower (whole 16-byte chunks) when the chain continues at the span: the hardware pads each box row
//!    to the span (`boxDim[0] * elemsize <= span`), which the chain's one allowed jump to the span models; nothing
//!    merges across it. Iters longer than 256 are split so that a box can still be formed.
//! 6. **Issues**: the remaining joint iters form the issue loop (outermost first); each issue gets its
//!    coordinates and shared byte offset.
//! 7. **Repair**: the same search is repeated with the element type promoted to 2, 4 or 8 bytes (the descriptor
//!    type becomes `UINT16/32/64`) where the innermost dimension allows it; the largest box wins, then the lower
//!    rank (a re-viewed row, step 8, costs a dimension), then the natural type. Promotion is never used for `tf32` (a converting type) or with NaN OOB fill.
//! 8. **Rank**: descriptor dimensions are ordered as the box chain (innermost first), then coordinate-only
//!    dimensions (box extent 1: a batch index, a fixed row) by stride; unit dimensions are dropped. Contiguous
//!    logical dimensions merge: while the innermost box row is too narrow for the inner-box rule (not a multiple of
//!    16 bytes, or narrower than the swizzle span), the innermost dimension, copied in full from 0, merges into the
//!    next when that one's stride is its extent (a row-major u8 `32x8` tile becomes one dimension of 256; promotion,
//!    step 7, is tried on the unmerged problem, so a 512-byte run becomes 256 `UINT16` before any cut). A merged
//!    run wider than one legal box row (over 256 elements, or swizzled, over the span) is re-viewed as rows: cut into
//!    rows of at most 256 elements of whole 16-byte chunks (swizzled: rows of exactly the span) and a second
//!    dimension counting them, when the row length divides the run's box and every issue and run-time offset moves
//!    whole rows; the rows start where the region does (the descriptor's global address moves there, which must
//!    stay 16-byte aligned). The run is contiguous on both sides, so the rows address the same bytes and
//!    the box writes them densely in the same order, each row swizzled by its absolute address as before: f16
//!    `1024x4` (8 KiB of 8-byte rows) is one `256x16` box, u8 `64x8` under the 128B swizzle one `128x4` box. When more
//!    than 5 remain, adjacent dimensions merge where the box stays legal: a dimension copied in full from 0 into the
//!    next, or two coordinate-only dimensions (coordinate `a + b * dim_a`). Then the rank limit of 5 is the only
//!    limit (`rank` rule). Global layouts whose dimensions are split into interleaved iters (blocked/tiled storage)
//!    need nothing special: every iter is a candidate dimension (step 3) with its own stride, and the box and the
//!    issue loop take them in shared stride order.
//!
//! # Cluster multicast ([`plan_multicast`])
//! A load whose shared destination carries a replica or offset over the cluster's CTA axes (`cbx`, `cby`, `cbz`:
//! `Swizzle(3,3,3) o S[(128,64):(64,1)] + R[2:1@cbx]` is the tile in both CTAs of a 2x1 cluster) is one
//! `cp.async.bulk.tensor ... .multicast::cluster` per box with the CTA mask read off the layout (bit
//! `x + y*nx + z*nx*ny` per CTA point); the boxes are split among the receiving CTAs (CUTLASS's form, the slowest
//! box dimension cut when needed) or issued by one CTA, and the [`MulticastPlan`] says which.
//!
//! # Refusals that remain (each a hardware rule)
//! - `inner-stride`: the shared stride-1 iter is not the global stride-1 iter (a transpose): a box is written in
//!   its dimension-0 order and dimension 0 of a tensor map is the contiguous one.
//! - `inner-box-bytes`: the contiguous global run is not a multiple of 16 bytes and cannot merge (rows of 8 bytes
//!   with gaps: `boxDim[0] * elemsize` must be a multiple of 16, and a wider box row would read the gap), or a
//!   merged run starts at a byte that is not 16-byte aligned (the rows of a re-view start there, and so would the
//!   descriptor's global address, which must be 16-byte aligned), or, swizzled, a box row is not the span and no
//!   re-view makes it one. A run that is not whole 16-byte chunks, or under a swizzle not whole span rows, is
//!   refused earlier by `shared-atom` (one descriptor has one box size, and the hardware pads a short row).
//! - `shared-atom`: the shared region's contiguous run is not whole 16-byte chunks (unswizzled) or whole swizzle
//!   rows: a box is written densely in such rows.
//! - `rank`: more than 5 dimensions that cannot merge; `global-stride`, `global-dim`, `box-dim`,
//!   `smem-alignment`, `coordinate-range`: the `cuTensorMapEncodeTiled` / `cp.async.bulk.tensor` limits.
//! - `multicast`: a multicast store (the hardware multicasts loads only), a cluster over 16 CTAs (`ctaMask` has 16
//!   bits), a CTA outside the cluster, a shard over a CTA axis (the CTAs would hold different data).
//!
//! Refused though the hardware could do them (not planned yet):
//! - `dynamic-offset`: a run-time offset that may move a region across a digit boundary of a tiled global layout
//!   (the static straddling region plans, step 3; its chunk coordinates are not affine in the offset).
//!
//! Planned here but not lowered by `--lower-tma`: swizzled box rows narrower than the span (padded rows), which
//! MLIR's nvgpu tensormap descriptor type refuses (it wants rows of exactly the span).
//!
//! # Run-time offsets ([`plan_dynamic`])
//! The global region may be shifted at run time along some dimensions ([`DynamicOffset`]: a loop variable, a
//! block index times a tile). The plan is made for the static region (offsets 0) and holds for every value the
//! contract allows: a global dimension's digits (step 3) are its layout's iters, innermost first; an offset that is
//! a multiple of `P`, the product of the extents below the dimension's outermost digit, changes that digit alone,
//! by `value / P`, and leaves every inner digit, hence the box, the issue loop and the shared offsets, as they
//! are. So each issue's coordinate on that digit's descriptor dimension is its static value plus `value / P`
//! ([`CoordinateTerm`]; divided again by the factor of a promoted innermost dimension, scaled in a merged one),
//! and an offset whose known multiple is not a multiple of `P` is refused (`dynamic-offset` rule): the region would
//! not move by whole steps of one coordinate. For a row-major tensor `P` is 1 and any offset is accepted; a
//! promotion of the innermost dimension by `f` is only chosen when the offset is a multiple of `f`. Whether the
//! shifted region lies inside the tensor is the caller's run-time precondition (TMA fills loads and clips stores
//! out of bounds), and the `coordinate-range` rule is checked on the static part only.
//!
//! # Run-time shared offsets ([`plan_offsets`])
//! The shared region may move at run time too: a ring of stages `[N, rows, cols]` sliced `[stage, 0, 0]` with the
//! stage a loop variable's `k % N`. The boxes, issues and coordinates are those of the region at offset 0; each
//! shared offset adds [`SharedTerm`] bytes to every issue's shared offset. The offset must move the outermost digit
//! of its shared dimension alone (a multiple of `P`, the product of the extents below it, as on the global side),
//! so the addresses move by `stride * elemsize` bytes per step. Every value must also move the boxes by a multiple
//! of the swizzle period (1024/512/256 bytes for 128B/64B/32B, 128 unswizzled, the TMA destination alignment):
//! the hardware swizzles absolute addresses, so at any 128-aligned shift it still writes what the WHOLE ring's
//! layout says, but only a whole number of periods keeps `swizzle(t + a) = t + swizzle(a)`, so that stage `s`
//! read alone from its own start (the stage's layout, what the atom check of step 2 verified at offset 0 and what
//! a wgmma/tcgen05 descriptor with base offset 0 assumes) holds the same tile as stage 0 (`tma_model.rs` shows a
//! 128-aligned, off-period stage breaking exactly that). Anything else is refused by the `shared-offset` rule
//! (e.g. a ring `S[(3,128,64):(8192,64,1)]` of f16 moves 16384 bytes per stage, a multiple of 1024; a padded ring
//! whose stages are 16512 bytes apart under the 128B swizzle is refused). That the shifted region lies
//! inside the shared tensor (`stage < N`) is the caller's run-time precondition.
//!
//! # Shared-memory alignment and the swizzle (researched, CUDA C++ Programming Guide, "TMA Swizzle")
//! The hardware swizzles the *absolute* shared byte address: for the 128B mode bits `[4,7)` are XORed with bits
//! `[7,10)`; 64B: bits `[4,6)` with `[7,9)`; 32B: bit 4 with bit 7. The pattern repeats every 1024/512/256 bytes,
//! and the guide requires every TMA shared-memory destination to be 128-byte aligned in all modes. In element
//! units with `2^M` elements per 16 bytes, that XOR is exactly `Swizzle(M, B, 3)`: `q = a >> M` is the 16-byte
//! chunk index, its bits `[3, 3+B)` (byte bits `[7, 7+B)`) are XORed into bits `[0, B)` (byte bits `[4, 4+B)`).
//! A [`crate::ComposeLayout`] applies its swizzle to the address *relative to the tensor's base*, so the two agree
//! when the shared tensor's base is aligned to the repeat: [`TmaPlan::shared_base_alignment_bytes`] is that
//! precondition for the allocator (1024/512/256, 128 unswizzled), and every issue's
//! [`TmaIssue::smem_offset_bytes`] is checked to be a multiple of 128 (`smem-alignment` rule). With a swizzle a box
//! row narrower than the span is padded to the span by the hardware, so such a row is planned only where the
//! shared rows are exactly the span apart (step 5).

mod extents;
mod multicast;
mod planner;
mod validate;

pub use extents::{plan_extents, Extent, ExtentExpr, ExtentPlan, ExtentRequest};
pub use multicast::{plan_multicast, Cluster, MulticastForm, MulticastPlan};
pub use planner::{plan, plan_dynamic, plan_offsets};
pub use validate::validate;

pub use crate::hw::ElemType;
use crate::layout::Layout;
use crate::swizzle::SwizzleMode;
use std::fmt;

impl ElemType {
    /// The descriptor type that copies this element type unchanged.
    pub fn tensor_map_type(self) -> TensorMapDataType {
        match self {
            ElemType::U8 | ElemType::I8 | ElemType::F8E4M3 | ElemType::F8E5M2 => TensorMapDataType::Uint8,
            ElemType::U16 | ElemType::I16 => TensorMapDataType::Uint16,
            ElemType::F16 => TensorMapDataType::Float16,
            ElemType::BF16 => TensorMapDataType::Bfloat16,
            ElemType::U32 => TensorMapDataType::Uint32,
            ElemType::I32 => TensorMapDataType::Int32,
            ElemType::F32 => TensorMapDataType::Float32,
            ElemType::TF32 => TensorMapDataType::Tfloat32,
            ElemType::U64 => TensorMapDataType::Uint64,
            ElemType::I64 => TensorMapDataType::Int64,
            ElemType::F64 => TensorMapDataType::Float64,
        }
    }
}

/// `CUtensorMapDataType`, numbered as the CUDA driver numbers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TensorMapDataType {
    /// `CU_TENSOR_MAP_DATA_TYPE_UINT8` = 0.
    Uint8 = 0,
    /// `CU_TENSOR_MAP_DATA_TYPE_UINT16` = 1.
    Uint16 = 1,
    /// `CU_TENSOR_MAP_DATA_TYPE_UINT32` = 2.
    Uint32 = 2,
    /// `CU_TENSOR_MAP_DATA_TYPE_INT32` = 3.
    Int32 = 3,
    /// `CU_TENSOR_MAP_DATA_TYPE_UINT64` = 4.
    Uint64 = 4,
    /// `CU_TENSOR_MAP_DATA_TYPE_INT64` = 5.
    Int64 = 5,
    /// `CU_TENSOR_MAP_DATA_TYPE_FLOAT16` = 6.
    Float16 = 6,
    /// `CU_TENSOR_MAP_DATA_TYPE_FLOAT32` = 7.
    Float32 = 7,
    /// `CU_TENSOR_MAP_DATA_TYPE_FLOAT64` = 8.
    Float64 = 8,
    /// `CU_TENSOR_MAP_DATA_TYPE_BFLOAT16` = 9.
    Bfloat16 = 9,
    /// `CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ` = 10.
    Float32Ftz = 10,
    /// `CU_TENSOR_MAP_DATA_TYPE_TFLOAT32` = 11.
    Tfloat32 = 11,
    /// `CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ` = 12.
    Tfloat32Ftz = 12,
}

impl TensorMapDataType {
    /// The driver's enum number.
    pub fn code(self) -> u32 {
        self as u32
    }

    /// Element size in bytes.
    pub fn bytes(self) -> i64 {
        match self {
            TensorMapDataType::Uint8 => 1,
            TensorMapDataType::Uint16 | TensorMapDataType::Float16 | TensorMapDataType::Bfloat16 => 2,
            TensorMapDataType::Uint32
            | TensorMapDataType::Int32
            | TensorMapDataType::Float32
            | TensorMapDataType::Float32Ftz
            | TensorMapDataType::Tfloat32
            | TensorMapDataType::Tfloat32Ftz => 4,
            TensorMapDataType::Uint64 | TensorMapDataType::Int64 | TensorMapDataType::Float64 => 8,
        }
    }

    /// True for the floating-point types (the only ones NaN OOB fill accepts).
    pub fn is_float(self) -> bool {
        matches!(
            self,
            TensorMapDataType::Float16
                | TensorMapDataType::Float32
                | TensorMapDataType::Float64
                | TensorMapDataType::Bfloat16
                | TensorMapDataType::Float32Ftz
                | TensorMapDataType::Tfloat32
                | TensorMapDataType::Tfloat32Ftz
        )
    }

    /// The type with the driver's number `code` (cuda.h), if there is one.
    pub fn from_code(code: u32) -> Option<TensorMapDataType> {
        use TensorMapDataType::*;
        [
            Uint8,
            Uint16,
            Uint32,
            Int32,
            Uint64,
            Int64,
            Float16,
            Float32,
            Float64,
            Bfloat16,
            Float32Ftz,
            Tfloat32,
            Tfloat32Ftz,
        ]
        .into_iter()
        .find(|t| t.code() == code)
    }

    /// The driver's name without the `CU_TENSOR_MAP_DATA_TYPE_` prefix (`FLOAT16`).
    pub fn name(self) -> &'static str {
        match self {
            TensorMapDataType::Uint8 => "UINT8",
            TensorMapDataType::Uint16 => "UINT16",
            TensorMapDataType::Uint32 => "UINT32",
            TensorMapDataType::Int32 => "INT32",
            TensorMapDataType::Uint64 => "UINT64",
            TensorMapDataType::Int64 => "INT64",
            TensorMapDataType::Float16 => "FLOAT16",
            TensorMapDataType::Float32 => "FLOAT32",
            TensorMapDataType::Float64 => "FLOAT64",
            TensorMapDataType::Bfloat16 => "BFLOAT16",
            TensorMapDataType::Float32Ftz => "FLOAT32_FTZ",
            TensorMapDataType::Tfloat32 => "TFLOAT32",
            TensorMapDataType::Tfloat32Ftz => "TFLOAT32_FTZ",
        }
    }

    /// The unsigned integer type of `bytes` bytes (the promotion target), if there is one.
    pub fn unsigned_of_bytes(bytes: i64) -> Option<TensorMapDataType> {
        match bytes {
            1 => Some(TensorMapDataType::Uint8),
            2 => Some(TensorMapDataType::Uint16),
            4 => Some(TensorMapDataType::Uint32),
            8 => Some(TensorMapDataType::Uint64),
            _ => None,
        }
    }
}

/// `CUtensorMapInterleave`, numbered as the driver numbers it. The planner always emits `None`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Interleave {
    /// `CU_TENSOR_MAP_INTERLEAVE_NONE` = 0.
    None = 0,
    /// `CU_TENSOR_MAP_INTERLEAVE_16B` = 1.
    B16 = 1,
    /// `CU_TENSOR_MAP_INTERLEAVE_32B` = 2.
    B32 = 2,
}

/// `CUtensorMapL2promotion`, numbered as the driver numbers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum L2Promotion {
    /// `CU_TENSOR_MAP_L2_PROMOTION_NONE` = 0.
    None = 0,
    /// `CU_TENSOR_MAP_L2_PROMOTION_L2_64B` = 1.
    L64B = 1,
    /// `CU_TENSOR_MAP_L2_PROMOTION_L2_128B` = 2 (the planner's default, as TIRx's).
    L128B = 2,
    /// `CU_TENSOR_MAP_L2_PROMOTION_L2_256B` = 3.
    L256B = 3,
}

impl L2Promotion {
    /// Parses `none`, `64B`, `128B`, `256B` (also `L2::64B` style and the numbers 0..3).
    pub fn from_name(name: &str) -> Option<L2Promotion> {
        match name.trim_start_matches("L2::").to_ascii_lowercase().as_str() {
            "none" | "0" => Some(L2Promotion::None),
            "64b" | "1" => Some(L2Promotion::L64B),
            "128b" | "2" => Some(L2Promotion::L128B),
            "256b" | "3" => Some(L2Promotion::L256B),
            _ => None,
        }
    }
}

/// `CUtensorMapFloatOOBfill`, numbered as the driver numbers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OobFill {
    /// `CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE` = 0: out-of-bounds elements read as zero.
    None = 0,
    /// `CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA` = 1 (float types only).
    NanRequestZeroFma = 1,
}

/// Which way the copy goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Global to shared (`cp.async.bulk.tensor.Nd.shared::cluster.global...`, completes on an mbarrier).
    G2S,
    /// Shared to global (`cp.async.bulk.tensor.Nd.global.shared::cta...`, bulk-group completion).
    S2G,
}

impl Direction {
    /// Parses `g2s` / `s2g` (also `load` / `store`).
    pub fn from_name(name: &str) -> Option<Direction> {
        match name {
            "g2s" | "load" => Some(Direction::G2S),
            "s2g" | "store" => Some(Direction::S2G),
            _ => None,
        }
    }

    /// `g2s` or `s2g`.
    pub fn name(self) -> &'static str {
        match self {
            Direction::G2S => "g2s",
            Direction::S2G => "s2g",
        }
    }
}

/// Knobs that do not come from the layouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TmaOptions {
    /// L2 promotion (default `L2_128B`).
    pub l2_promotion: L2Promotion,
    /// Out-of-bounds fill (default `NONE`).
    pub oob_fill: OobFill,
}

impl Default for TmaOptions {
    fn default() -> Self {
        TmaOptions { l2_promotion: L2Promotion::L128B, oob_fill: OobFill::None }
    }
}

/// One copy between a global tensor region and a shared tensor region.
#[derive(Clone, Debug)]
pub struct TmaRequest<'a> {
    /// The global tensor's layout (a plain layout on `m`; the tensor's base is address 0).
    pub global: &'a Layout,
    /// The global tensor's shape.
    pub global_shape: &'a [i64],
    /// The copied global region, half-open `(begin, end)` per dimension.
    pub global_region: &'a [(i64, i64)],
    /// The shared tensor's layout: a plain layout on `m` or a CUDA swizzle composed with one.
    pub shared: &'a Layout,
    /// The shared tensor's shape.
    pub shared_shape: &'a [i64],
    /// The copied shared region, half-open `(begin, end)` per dimension.
    pub shared_region: &'a [(i64, i64)],
    /// Element type of both tensors.
    pub dtype: ElemType,
    /// Load (`G2S`) or store (`S2G`).
    pub direction: Direction,
    /// L2 promotion and OOB fill.
    pub options: TmaOptions,
}

/// The arguments of `cuTensorMapEncodeTiled` other than the pointers, every array innermost dimension first.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorMapDesc {
    /// `tensorDataType` (promoted where the planner had to).
    pub data_type: TensorMapDataType,
    /// `tensorRank`, 1..=5.
    pub rank: u32,
    /// `globalDim[rank]`, in elements of `data_type`.
    pub global_dims: Vec<u64>,
    /// `globalStrides[rank-1]`: the byte strides of dimensions 1.. (dimension 0 is contiguous).
    pub global_strides_bytes: Vec<u64>,
    /// `boxDim[rank]`.
    pub box_dims: Vec<u32>,
    /// `elementStrides[rank]` (always 1 from the planner).
    pub element_strides: Vec<u32>,
    /// `interleave`.
    pub interleave: Interleave,
    /// `swizzle` (`SwizzleMode` is numbered as `CUtensorMapSwizzle`).
    pub swizzle: SwizzleMode,
    /// `l2Promotion`.
    pub l2_promotion: L2Promotion,
    /// `oobFill`.
    pub oob_fill: OobFill,
}

impl TensorMapDesc {
    /// Bytes one issue moves (`mbarrier.arrive.expect_tx` count): the product of
    /// `ceil(boxDim[i] / elementStrides[i])` times the element size (saturating at `u64::MAX` for a descriptor
    /// built by hand that [`validate`] would refuse).
    pub fn box_bytes(&self) -> u64 {
        self.box_dims
            .iter()
            .zip(&self.element_strides)
            .fold(1u64, |acc, (&b, &s)| acc.saturating_mul(u64::from(b.div_ceil(s.max(1)))))
            .saturating_mul(self.data_type.bytes() as u64)
    }
}

/// A run-time offset of the global region along one dimension of the global tensor (an `axe.slice` offset that is
/// an SSA value): the region is `global_region` shifted by the offset's value along `dim`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DynamicOffset {
    /// The global tensor dimension it moves the region along.
    pub dim: usize,
    /// What every run-time value is known to be a multiple of (at least 1).
    pub multiple: i64,
}

/// One run-time term of every issue's coordinates: coordinate `dim` grows by `scale * (value / divisor)`, where
/// `value` is dynamic offset `offset`'s run-time value. The division is exact: `divisor` divides the offset's
/// `multiple`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CoordinateTerm {
    /// Index into the planner's `dynamic` offsets.
    pub offset: usize,
    /// The descriptor dimension (innermost first) whose coordinate it moves.
    pub dim: usize,
    /// Elements of the global dimension per coordinate step of `dim` (a power of the layout's digits, times the
    /// promotion factor).
    pub divisor: i64,
    /// Coordinate steps of `dim` per step of `value / divisor` (above 1 only in a merged dimension).
    pub scale: i64,
}

/// One run-time term of every issue's shared byte offset: it grows by `bytes * (value / divisor)`, where `value` is
/// shared offset `offset`'s run-time value (a ring's stage index along its outermost dimension). The division is
/// exact: `divisor` divides the offset's `multiple`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SharedTerm {
    /// Index into the planner's shared offsets.
    pub offset: usize,
    /// Elements of the shared dimension per step of the digit it moves.
    pub divisor: i64,
    /// Bytes the boxes move per step (the digit's stride times the element size; a multiple of the swizzle period
    /// divided by what the offset's multiple guarantees, see the `shared-offset` rule).
    pub bytes: i64,
}

/// One TMA instruction.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TmaIssue {
    /// `tensorCoords`, innermost dimension first (signed 32-bit in PTX).
    pub coordinates: Vec<i64>,
    /// Where the box starts, in bytes from the shared tensor's base (before the swizzle, which the hardware applies
    /// on the absolute address).
    pub smem_offset_bytes: i64,
}

/// The result of planning one copy.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TmaPlan {
    /// The descriptor.
    pub desc: TensorMapDesc,
    /// One entry per TMA instruction, in issue order, with the coordinates at run-time offsets 0.
    pub issues: Vec<TmaIssue>,
    /// The run-time part of every issue's coordinates (empty for a static region): an issue's coordinates are its
    /// `coordinates` plus these terms, evaluated on the offsets' values.
    pub dynamic: Vec<CoordinateTerm>,
    /// The run-time part of every issue's shared byte offset (empty for a static shared region): an issue's shared
    /// offset is its `smem_offset_bytes` plus these terms, evaluated on the shared offsets' values.
    pub shared_dynamic: Vec<SharedTerm>,
    /// The copy direction.
    pub direction: Direction,
    /// The element type the request named (the descriptor's may be promoted).
    pub elem: ElemType,
    /// `globalAddress` minus the global tensor's base: the global layout's own offset in bytes (usually 0).
    pub global_offset_bytes: u64,
    /// Bytes per issue (the `expect_tx` count of one instruction).
    pub box_bytes: u64,
    /// The alignment the shared tensor's base must have for the layout's swizzle to match the hardware's:
    /// 1024/512/256 bytes for the 128B/64B/32B modes, 128 unswizzled.
    pub shared_base_alignment_bytes: u64,
}

impl TmaPlan {
    /// Total bytes moved by all issues.
    pub fn total_bytes(&self) -> u64 {
        self.box_bytes.saturating_mul(self.issues.len() as u64)
    }
}

/// A planning stage that can refuse a copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TmaStage {
    /// The request itself (ranks, dtype, region bounds).
    Input,
    /// Slicing the shared layout to its region.
    SharedSlice,
    /// The sliced shared layout is not a plain, replica-free layout on `m`.
    SharedLayout,
    /// The shared swizzle is not a CUDA TMA swizzle for the element size.
    SharedSwizzle,
    /// The shared region is not a tile of the swizzle mode's atom.
    SharedAtom,
    /// The shared strides do not form a dense chain from stride 1.
    SharedChain,
    /// The global layout is not a plain, replica-free layout on `m` with non-negative strides.
    GlobalLayout,
    /// The global layout does not group by the global shape.
    GlobalShape,
    /// Slicing the global layout to its region.
    GlobalSlice,
    /// The global region is not a box of the digits of a dimension, so no coordinates reach it.
    Coordinate,
    /// The two regions hold different element counts.
    RegionShape,
    /// The global and shared iteration orders have no common refinement.
    CoGroup,
    /// No legal box could be formed.
    Box,
}

impl TmaStage {
    /// The stage's name in messages (`shared-chain`, `coordinate`, ...).
    pub fn name(self) -> &'static str {
        match self {
            TmaStage::Input => "input",
            TmaStage::SharedSlice => "shared-slice",
            TmaStage::SharedLayout => "shared-layout",
            TmaStage::SharedSwizzle => "shared-swizzle",
            TmaStage::SharedAtom => "shared-atom",
            TmaStage::SharedChain => "shared-chain",
            TmaStage::GlobalLayout => "global-layout",
            TmaStage::GlobalShape => "global-shape",
            TmaStage::GlobalSlice => "global-slice",
            TmaStage::Coordinate => "coordinate",
            TmaStage::RegionShape => "region-shape",
            TmaStage::CoGroup => "co-group",
            TmaStage::Box => "box",
        }
    }
}

/// A `cuTensorMapEncodeTiled` / `cp.async.bulk.tensor` requirement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TmaRule {
    /// `tensorRank` in 1..=5 (>= 3 with interleave); array lengths match the rank.
    Rank,
    /// `globalAddress` 16-byte aligned (32 with 32B interleave).
    GlobalAddress,
    /// `globalDim[i]` in 1..=2^32.
    GlobalDim,
    /// `globalStrides[i]` a multiple of 16 (32 with 32B interleave) and below 2^40.
    GlobalStride,
    /// Dimension 0 is contiguous in global memory (its stride is implicitly one element).
    InnerStride,
    /// `boxDim[i]` in 1..=256.
    BoxDim,
    /// Without interleave, `boxDim[0] * elemsize` a multiple of 16 and at most the swizzle span.
    InnerBoxBytes,
    /// `elementStrides[i]` in 1..=8.
    ElementStride,
    /// Interleave needs rank >= 3; 32B interleave needs the 32B swizzle.
    Interleave,
    /// NaN OOB fill needs a floating-point type.
    OobFill,
    /// The boxes move exactly the shared region's bytes (byte-equivalence).
    Payload,
    /// Every issue's shared destination is 128-byte aligned.
    SmemAlignment,
    /// Every coordinate fits in a signed 32-bit register.
    CoordinateRange,
    /// A run-time offset moves the region by whole steps of the coordinate it changes.
    DynamicOffset,
    /// A run-time shared offset moves the boxes by whole stages: the outermost digit of its dimension alone, by
    /// multiples of the swizzle period (1024/512/256 bytes; 128 unswizzled).
    SharedOffset,
    /// A run-time-sized global tensor (`plan_extents`): strides the stated multiples make multiples of 16 bytes,
    /// one descriptor dimension per tensor dimension, a plan that does not depend on the extents.
    DynamicExtent,
    /// A multicast load (`cp.async.bulk.tensor ... .multicast::cluster`): loads only, the destination replicated over
    /// a cluster's CTA axes alone, every CTA inside the cluster, at most 16 CTAs (the 16-bit `ctaMask`).
    Multicast,
}

impl TmaRule {
    /// The rule's name in messages (`box-dim`, `global-stride`, ...).
    pub fn name(self) -> &'static str {
        match self {
            TmaRule::Rank => "rank",
            TmaRule::GlobalAddress => "global-address",
            TmaRule::GlobalDim => "global-dim",
            TmaRule::GlobalStride => "global-stride",
            TmaRule::InnerStride => "inner-stride",
            TmaRule::BoxDim => "box-dim",
            TmaRule::InnerBoxBytes => "inner-box-bytes",
            TmaRule::ElementStride => "element-stride",
            TmaRule::Interleave => "interleave",
            TmaRule::OobFill => "oob-fill",
            TmaRule::Payload => "payload",
            TmaRule::SmemAlignment => "smem-alignment",
            TmaRule::CoordinateRange => "coordinate-range",
            TmaRule::DynamicOffset => "dynamic-offset",
            TmaRule::SharedOffset => "shared-offset",
            TmaRule::DynamicExtent => "dynamic-extent",
            TmaRule::Multicast => "multicast",
        }
    }
}

/// What refused a copy: a planning stage or a hardware rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TmaFailure {
    /// A planning stage found no way forward.
    Stage(TmaStage),
    /// A descriptor or issue broke a CUDA requirement.
    Rule(TmaRule),
}

/// A refusal: `tma: <name> stage: ...` or `tma: <name> rule: ...`, with the numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TmaError {
    /// The stage or rule that failed.
    pub failure: TmaFailure,
    /// What failed, with the values found.
    pub message: String,
}

impl TmaError {
    /// A stage refusal.
    pub fn stage(stage: TmaStage, message: impl Into<String>) -> TmaError {
        TmaError { failure: TmaFailure::Stage(stage), message: message.into() }
    }

    /// A rule refusal.
    pub fn rule(rule: TmaRule, message: impl Into<String>) -> TmaError {
        TmaError { failure: TmaFailure::Rule(rule), message: message.into() }
    }
}

impl fmt::Display for TmaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.failure {
            TmaFailure::Stage(s) => write!(f, "tma: {} stage: {}", s.name(), self.message),
            TmaFailure::Rule(r) => write!(f, "tma: {} rule: {}", r.name(), self.message),
        }
    }
}

impl std::error::Error for TmaError {}

impl From<TmaError> for crate::LayoutError {
    fn from(e: TmaError) -> crate::LayoutError {
        crate::LayoutError::new(e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::TensorMapDataType;

    #[test]
    fn driver_codes_read_back() {
        // cuda.h: CU_TENSOR_MAP_DATA_TYPE_UINT8 = 0 ... FLOAT16 = 6 ... TFLOAT32_FTZ = 12.
        for code in 0..=12 {
            assert_eq!(TensorMapDataType::from_code(code).map(TensorMapDataType::code), Some(code));
        }
        assert_eq!(TensorMapDataType::from_code(6).map(TensorMapDataType::name), Some("FLOAT16"));
        assert_eq!(TensorMapDataType::from_code(9).map(TensorMapDataType::name), Some("BFLOAT16"));
        assert_eq!(TensorMapDataType::from_code(13), None);
    }
}
