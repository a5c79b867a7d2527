//! The PTX ISA's fragment layouts and shared-memory swizzle atoms, written as Axe layouts.
//!
//! A register fragment atom maps the instruction tile's logical `[rows, cols]` index to the thread that holds
//! the element (`laneid`, and `wid_in_wg` for warpgroup instructions) and to the register axis `m`, whose value
//! is the element's position in the PTX fragment (a0, a1, ...): element `i` of the fragment is at `m = i`.
//! The ISA states each fragment as formulas of `groupID = laneid >> 2` and `threadID_in_group = laneid % 4`;
//! reading them digit by digit gives the iters below. `layout/tests/mma_atoms.rs` checks every atom against an
//! independent transcription of those formulas for every (lane, register).
//!
//! Tensor-memory atoms map the tile to `TLane` and `TCol`, where TCol counts slots of the element size, `32 / bits`
//! to a 32-bit column (see [`super::tmem`]): the accumulator is unpacked (a 16-bit one still takes a whole column,
//! PTX ISA 9.7.16.10.4.1, so its TCol stride is 2), operand A is packed ([`tmem_a`]).

use crate::axis::Axis;
use crate::error::{LayoutError, Result};
use crate::iter::Iter;
use crate::layout::{ComposeLayout, Layout};
use crate::swizzle::{Swizzle, SwizzleMode};
use crate::tile_layout::TileLayout;
use std::collections::BTreeMap;

use super::{Major, Role};

fn axis(name: &str) -> Result<Axis> {
    Axis::named(name)
}

/// A shard-only layout from `(extent, stride, axis)` triples, outermost first.
fn shard(iters: &[(i64, i64, &str)]) -> Result<TileLayout> {
    let shard = iters.iter().map(|&(e, s, a)| Iter::new(e, s, axis(a)?)).collect::<Result<Vec<Iter>>>()?;
    TileLayout::new(shard, vec![], BTreeMap::new())
}

/// The A fragment of `mma.sync.aligned.m16n8k{k}` for 16-bit types (PTX ISA 9.7.14.5.8 for k16, 9.7.14.5.7 for
/// k8), over `[16, k]`: `row = groupID + 8*bit1(i)`, `col = 2*threadID_in_group + bit0(i) + 8*bit2(i)` (k16).
///
/// k16: `S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)]`; k8: `S[(2,8,4,2):(2,4@laneid,1@laneid,1)]`.
pub fn mma_sync_a(k: i64) -> Result<TileLayout> {
    match k {
        16 => shard(&[(2, 2, "m"), (8, 4, "laneid"), (2, 4, "m"), (4, 1, "laneid"), (2, 1, "m")]),
        8 => shard(&[(2, 2, "m"), (8, 4, "laneid"), (4, 1, "laneid"), (2, 1, "m")]),
        _ => Err(LayoutError::new(format!("mma.sync has no 16-bit A fragment with k = {k}"))),
    }
}

/// The B fragment of `mma.sync.aligned.m16n8k{k}` for 16-bit types, over `[k, 8]`:
/// `row = 2*threadID_in_group + bit0(i) + 8*bit1(i)`, `col = groupID`.
///
/// k16: `S[(2,4,2,8):(2,1@laneid,1,4@laneid)]`; k8: `S[(4,2,8):(1@laneid,1,4@laneid)]`.
pub fn mma_sync_b(k: i64) -> Result<TileLayout> {
    match k {
        16 => shard(&[(2, 2, "m"), (4, 1, "laneid"), (2, 1, "m"), (8, 4, "laneid")]),
        8 => shard(&[(4, 1, "laneid"), (2, 1, "m"), (8, 4, "laneid")]),
        _ => Err(LayoutError::new(format!("mma.sync has no 16-bit B fragment with k = {k}"))),
    }
}

/// The A fragment of `mma.sync.aligned.m16n8k8` for `.tf32` (PTX ISA 9.7.14.5.7), over `[16, 8]`, one element
/// per 32-bit register: `row = groupID + 8*bit0(i)`, `col = threadID_in_group + 4*bit1(i)`:
/// `S[(2,8,2,4):(1,4@laneid,2,1@laneid)]`.
pub fn mma_sync_a_tf32() -> Result<TileLayout> {
    shard(&[(2, 1, "m"), (8, 4, "laneid"), (2, 2, "m"), (4, 1, "laneid")])
}

/// The B fragment of `mma.sync.aligned.m16n8k8` for `.tf32`, over `[8, 8]`: `row = threadID_in_group + 4*i`,
/// `col = groupID`: `S[(2,4,8):(1,1@laneid,4@laneid)]`.
pub fn mma_sync_b_tf32() -> Result<TileLayout> {
    shard(&[(2, 1, "m"), (4, 1, "laneid"), (8, 4, "laneid")])
}

/// The C/D fragment of `mma.sync.aligned.m16n8k*` (f32 and f16 accumulators alike), over `[16, 8]`:
/// `row = groupID + 8*bit1(i)`, `col = 2*threadID_in_group + bit0(i)`: `S[(2,8,4,2):(2,4@laneid,1@laneid,1)]`.
pub fn mma_sync_c() -> Result<TileLayout> {
    shard(&[(2, 2, "m"), (8, 4, "laneid"), (4, 1, "laneid"), (2, 1, "m")])
}

/// The A fragment of `wgmma.mma_async.m64nNk*` in registers (PTX ISA 9.7.15.5.1.1), over `[64, k]`: warp `w`
/// of the warpgroup holds rows `16w..16w+16` as the mma.sync m16n8k16 A fragment (16-bit, k16), or, for 8-bit
/// types (k32), `row = groupID + 8*bit2(i)`, `col = 4*threadID_in_group + (i & 3) + 16*bit3(i)`, or, for tf32
/// (k8, 9.7.15.5.1.1.2), the mma.sync m16n8k8 tf32 A fragment: `row = groupID + 8*bit0(i)`,
/// `col = threadID_in_group + 4*bit1(i)`.
pub fn wgmma_a(dtype_bits: u32) -> Result<TileLayout> {
    match dtype_bits {
        32 => shard(&[(4, 1, "wid_in_wg"), (2, 1, "m"), (8, 4, "laneid"), (2, 2, "m"), (4, 1, "laneid")]),
        16 => shard(&[(4, 1, "wid_in_wg"), (2, 2, "m"), (8, 4, "laneid"), (2, 4, "m"), (4, 1, "laneid"), (2, 1, "m")]),
        8 => shard(&[(4, 1, "wid_in_wg"), (2, 4, "m"), (8, 4, "laneid"), (2, 8, "m"), (4, 1, "laneid"), (4, 1, "m")]),
        _ => Err(LayoutError::new(format!("wgmma has no {dtype_bits}-bit A register fragment"))),
    }
}

/// The accumulator fragment of `wgmma.mma_async.m64nNk*` (PTX ISA 9.7.15.5.1.1), over `[64, n]`:
/// `row = 16*warp + groupID + 8*bit1(i)`, `col = 8*(i >> 2) + 2*threadID_in_group + bit0(i)`:
/// `S[(4,2,8,n/8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]`.
pub fn wgmma_d(n: i64) -> Result<TileLayout> {
    if n < 8 || n % 8 != 0 {
        return Err(LayoutError::new(format!("wgmma N must be a positive multiple of 8, got {n}")));
    }
    shard(&[(4, 1, "wid_in_wg"), (2, 2, "m"), (8, 4, "laneid"), (n / 8, 4, "m"), (4, 1, "laneid"), (2, 1, "m")])
}

/// The rows of an `m`-row `tcgen05.mma` tile (`cta_group::1`) on the lanes of its data path (PTX ISA
/// 9.7.16.10.5): Layout D for M=128 (row `i` in lane `i`) and Layout F for M=64 (rows `16w..16w+16` in lanes
/// `32w..32w+16` of each warp's sub-partition); column `j` of the tile at TCol slot `j * col_stride`.
fn datapath(m: i64, n: i64, col_stride: i64) -> Result<TileLayout> {
    match m {
        128 => shard(&[(128, 1, "TLane"), (n, col_stride, "TCol")]),
        64 => shard(&[(4, 32, "TLane"), (16, 1, "TLane"), (n, col_stride, "TCol")]),
        _ => Err(LayoutError::new(format!("tcgen05 with cta_group::1 has M = 64 or 128, got {m}"))),
    }
}

/// The tensor-memory data-path layout of a 32-bit `tcgen05.mma` accumulator over `[m, n]` (`datapath`):
/// `S[(128,n):(1@TLane,1@TCol)]` for M=128, `S[(4,16,n):(32@TLane,1@TLane,1@TCol)]` for M=64; column `j` of the
/// tile is column `j`.
pub fn tmem_d(m: i64, n: i64) -> Result<TileLayout> {
    datapath(m, n, 1)
}

/// The accumulator's data-path layout for `acc_bits`-bit elements: D is unpacked (PTX ISA 9.7.16.10.4.1), one
/// element in the low bits of each 32-bit column, so with TCol counting `acc_bits`-bit slots (see
/// [`super::tmem`]) column `j` of an f16 tile is slot `2j`: `S[(128,n):(1@TLane,2@TCol)]`.
pub fn tmem_d_for(m: i64, n: i64, acc_bits: u32) -> Result<TileLayout> {
    datapath(m, n, super::tmem::slots_per_column(acc_bits))
}

/// The tensor-memory data-path layout of a `tcgen05.mma` operand A over `[m, k]`: the rows go to the lanes as the
/// accumulator's (9.7.16.10.5: A and D share the data path and its lane alignment) and A is row-major (K-major,
/// Table 51), so K runs along the columns; A is packed (9.7.16.10.4): K element `j` is slot `j`, `32 / bits` of
/// them to a 32-bit column, low bits first. `S[(128,k):(1@TLane,1@TCol)]` for M=128.
pub fn tmem_a(m: i64, k: i64) -> Result<TileLayout> {
    datapath(m, k, 1)
}

/// Elements of one 16-byte chunk: the ISA's `T = 128 / sizeof-bits(element)`.
pub fn chunk_elems(dtype_bits: u32) -> i64 {
    128 / i64::from(dtype_bits.max(1))
}

/// Elements along the contiguous direction of one swizzle atom row: the swizzle span (32/64/128 bytes), or one
/// 16-byte chunk unswizzled.
pub fn row_elems(mode: SwizzleMode, dtype_bits: u32) -> i64 {
    mode.bytes() * 8 / i64::from(dtype_bits.max(1))
}

/// The shared-memory atom of `mode` and `major` for operand `role`, in the operand's logical orientation (A is
/// `[M,K]`, B is `[K,N]`), with its shape (PTX ISA 9.7.15.5.1.2, Table 38, "swizzle atom layout").
///
/// In the ISA's `MN x K` view the K-major atom is 8 rows of one swizzle span each, `S[(8,w):(w,1)]`, and the
/// MN-major atom is 8 K-rows of one span of MN elements, `S[(w,8):(1,w)]`, with `w` = [`row_elems`]; swizzled
/// modes compose [`Swizzle::for_dtype`] (`Swizzle(M,B,3)` on element addresses). For B the two dimensions swap.
pub fn smem_atom(mode: SwizzleMode, major: Major, role: Role, dtype_bits: u32) -> Result<(Layout, [i64; 2])> {
    let w = row_elems(mode, dtype_bits);
    // (extent, stride) of the MN and K directions.
    let (mn, k) = match major {
        Major::K => ((8, w), (w, 1)),
        Major::MN => ((w, 1), (8, w)),
    };
    let dims = match role {
        Role::B => [k, mn],
        _ => [mn, k],
    };
    let tile = shard(&[(dims[0].0, dims[0].1, "m"), (dims[1].0, dims[1].1, "m")])?;
    let layout = match Swizzle::for_dtype(dtype_bits, mode)? {
        None => Layout::Tile(tile),
        Some(sw) => Layout::Compose(ComposeLayout::new(sw, tile)?),
    };
    Ok((layout, [dims[0].0, dims[1].0]))
}
