//! How an NKI kernel addresses a tensor with an Axe layout: the facts the NKI emitter
//! (`axe_passes::nki`) needs, decided here on the layouts alone.
//!
//! NKI names on-chip data as tiles: a tile in SBUF or PSUM is an array whose first dimension is the partition
//! dimension and whose second is the free dimension, so `t[p0:p0+r, f0:f0+c]` is the rectangle of partitions
//! `p0..p0+r` and free offsets `f0..f0+c` (AWS NKI documentation, "NKI programming model": tiles, partition and
//! free dimensions). A device-memory (HBM) tensor is a row-major numpy-like array. So:
//!
//! - an SBUF or PSUM tensor is addressable as one NKI tile when its layout places a 2-D logical index `x` at
//!   partition `p0 + x[d]` and free offset `f0 + x[1 - d]` for one dimension `d` on the partitions
//!   ([`on_chip`]); PSUM tiles must also fit one 2 KiB bank per partition (`nki.language.tile_size.psum_fmax`);
//! - an HBM tensor is an NKI array when its layout is dense row-major over some order of its logical dimensions
//!   ([`hbm_array`]); the order says which NKI axis each logical dimension is, so that a copy knows whether the
//!   data arrives with the partition dimension first (`nl.load`) or transposed (`nl.load_transpose2d`).

use super::{Chip, TrnMemory};
use crate::eval::Evaluator;
use crate::group::group_shard;
use crate::layout::Layout;
use crate::tile_layout::TileLayout;
use crate::Axis;
use std::fmt;

/// Why a tensor cannot be addressed the way NKI addresses data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NkiRule {
    /// An on-chip tensor that is not one rectangle of partitions by free offsets.
    Tile,
    /// A partition outside the chip's.
    PartitionRange,
    /// Past a partition's bytes (SBUF), or past one PSUM bank.
    Capacity,
    /// An HBM tensor that is not dense row-major over an order of its dimensions.
    Hbm,
}

impl NkiRule {
    /// The rule's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            NkiRule::Tile => "nki-tile",
            NkiRule::PartitionRange => "nki-partition-range",
            NkiRule::Capacity => "nki-capacity",
            NkiRule::Hbm => "nki-hbm",
        }
    }
}

/// A refusal: the rule and what broke it, with the numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NkiError {
    /// The rule.
    pub rule: NkiRule,
    /// What broke it.
    pub message: String,
}

impl fmt::Display for NkiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "nki: {} rule: {}", self.rule.name(), self.message)
    }
}

impl std::error::Error for NkiError {}

fn refuse<T>(rule: NkiRule, message: String) -> Result<T, NkiError> {
    Err(NkiError { rule, message })
}

/// Where a 2-D on-chip tensor lies: logical dimension `partition_dim` runs down the partitions from `partition`,
/// the other along the free axis from `free`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect {
    /// The logical dimension on the partitions (0 or 1).
    pub partition_dim: usize,
    /// The first partition.
    pub partition: i64,
    /// The first free offset, in elements.
    pub free: i64,
    /// Partitions spanned (the extent of `partition_dim`).
    pub rows: i64,
    /// Free offsets spanned (the other extent).
    pub cols: i64,
}

impl Rect {
    /// The partition and free offset of logical element `x`.
    pub fn place(&self, x: [i64; 2]) -> (i64, i64) {
        let (p, f) = (x[self.partition_dim], x[1 - self.partition_dim]);
        (self.partition + p, self.free + f)
    }
}

/// Where each element of an SBUF or PSUM tensor lies: its layout evaluated on `P` and `F`.
struct Points {
    eval: Evaluator,
    shape: Vec<i64>,
    slots: [Option<usize>; 2],
}

impl Points {
    fn new(shape: &[i64], layout: &Layout) -> Result<Points, NkiError> {
        let tile = |m: String| NkiError { rule: NkiRule::Tile, message: m };
        if shape.len() != 2 {
            return refuse(
                NkiRule::Tile,
                format!("an NKI tile is 2-D (partitions by free offsets), got shape {shape:?}"),
            );
        }
        layout.admits(shape).map_err(|e| tile(e.message))?;
        let eval = Evaluator::new(layout).map_err(|e| tile(e.message))?;
        let slot = |name: &str| Axis::named(name).ok().and_then(|a| eval.axes().iter().position(|&x| x == a));
        let slots = [slot("P"), slot("F")];
        Ok(Points { eval, shape: shape.to_vec(), slots })
    }

    /// The partition and free offset of element `x`.
    fn at(&self, x: [i64; 2]) -> Result<(i64, i64), NkiError> {
        if x.iter().zip(&self.shape).any(|(&i, &extent)| !(0..extent).contains(&i)) {
            return refuse(NkiRule::Tile, format!("element {x:?} lies outside the tensor's shape {:?}", self.shape));
        }
        let flat = x[0] * self.shape[1] + x[1];
        let values = self.eval.values(flat).map_err(|e| NkiError { rule: NkiRule::Tile, message: e.message })?;
        let [point] = values.as_slice() else {
            return refuse(
                NkiRule::Tile,
                format!("element {x:?} has {} places; an NKI tile holds each element once", values.len()),
            );
        };
        let get = |s: Option<usize>| s.map_or(0, |i| point[i]);
        Ok((get(self.slots[0]), get(self.slots[1])))
    }
}

/// The NKI buffer an SBUF or PSUM tensor of `shape` needs: `[partitions, free elements]` from partition 0 and free
/// offset 0 to the last its layout reaches, within the chip's partitions and a partition's bytes (for PSUM, one
/// 2 KiB bank: an NKI PSUM tile lies in one). `bytes` is the element size.
pub fn buffer(shape: &[i64], layout: &Layout, mem: TrnMemory, chip: Chip, bytes: i64) -> Result<[i64; 2], NkiError> {
    let points = Points::new(shape, layout)?;
    let (mut p_range, mut f_range) = ((i64::MAX, i64::MIN), (i64::MAX, i64::MIN));
    for flat in 0..shape[0] * shape[1] {
        let (p, f) = points.at([flat / shape[1], flat % shape[1]])?;
        p_range = (p_range.0.min(p), p_range.1.max(p));
        f_range = (f_range.0.min(f), f_range.1.max(f));
    }
    if p_range.0 < 0 || p_range.1 >= chip.partitions {
        return refuse(
            NkiRule::PartitionRange,
            format!(
                "the tile spans partitions {}..{}; {} has partitions 0..{}",
                p_range.0,
                p_range.1 + 1,
                chip.name,
                chip.partitions
            ),
        );
    }
    let (limit, what) = match mem {
        TrnMemory::Psum => (chip.psum_bank_bytes, "one PSUM bank (an NKI PSUM tile lies in one bank)"),
        _ => (chip.sbuf_bytes, "an SBUF partition"),
    };
    if f_range.0 < 0 || (f_range.1 + 1) * bytes > limit {
        return refuse(
            NkiRule::Capacity,
            format!(
                "the tile spans free offsets {}..{} of {bytes}-byte elements, {} bytes: past the {limit} bytes of {what}",
                f_range.0,
                f_range.1 + 1,
                (f_range.1 + 1) * bytes
            ),
        );
    }
    Ok([p_range.1 + 1, f_range.1 + 1])
}

/// The rectangle the region `[origin, origin + sizes)` of a 2-D SBUF or PSUM tensor occupies: one logical dimension
/// down consecutive partitions, the other along consecutive free offsets (see the module docs), or `nki-tile` with
/// the elements that show it is not one.
pub fn region(shape: &[i64], layout: &Layout, origin: [i64; 2], sizes: [i64; 2]) -> Result<Rect, NkiError> {
    let points = Points::new(shape, layout)?;
    let [r, c] = sizes;
    let at = |i: i64, j: i64| points.at([origin[0] + i, origin[1] + j]);
    let (p0, f0) = at(0, 0)?;
    let mut fits = [true, true];
    for i in 0..r {
        for j in 0..c {
            let (p, f) = at(i, j)?;
            fits[0] &= (p, f) == (p0 + i, f0 + j);
            fits[1] &= (p, f) == (p0 + j, f0 + i);
        }
    }
    // A single row or column fits both ways; the partition dimension is then the one NKI tiles put first.
    let Some(partition_dim) = [0, 1].into_iter().find(|&d| fits[d]) else {
        let down = if r > 1 { at(1, 0)? } else { (p0, f0) };
        let across = if c > 1 { at(0, 1)? } else { (p0, f0) };
        return refuse(
            NkiRule::Tile,
            format!(
                "layout {layout} is not one NKI tile over the region from {origin:?} of {sizes:?}: no dimension runs \
                 down consecutive partitions with the other along consecutive free offsets (its first element at \
                 partition {p0}, free {f0}; the next down at {down:?}; the next across at {across:?})"
            ),
        );
    };
    Ok(Rect { partition_dim, partition: p0, free: f0, rows: sizes[partition_dim], cols: sizes[1 - partition_dim] })
}

/// How far the region `[origin, origin + sizes)` moves, in partitions and free offsets, when its origin moves by
/// `step` along dimension `dim`: the same for every element and for every step that keeps the region inside the
/// tensor (so a run-time offset that is a multiple of `step` moves the tile by that many steps), or `nki-tile`.
pub fn region_step(
    shape: &[i64],
    layout: &Layout,
    origin: [i64; 2],
    sizes: [i64; 2],
    dim: usize,
    step: i64,
) -> Result<(i64, i64), NkiError> {
    let points = Points::new(shape, layout)?;
    let mut moved = origin;
    moved[dim] += step;
    if step <= 0 || moved[dim] + sizes[dim] > shape[dim] {
        return Ok((0, 0));
    }
    let (a, b) = (points.at(origin)?, points.at(moved)?);
    let delta = (b.0 - a.0, b.1 - a.1);
    // Every position the region takes lies in the band from its origin to its last position; if one step moves
    // every element of the band that stays in it by `delta`, q steps move the region by q * delta (induction).
    let last = origin[dim] + (shape[dim] - sizes[dim] - origin[dim]) / step * step;
    let other = 1 - dim;
    for along in origin[dim]..last + sizes[dim] - step {
        for across in origin[other]..origin[other] + sizes[other] {
            let mut x = [0; 2];
            (x[dim], x[other]) = (along, across);
            let mut y = x;
            y[dim] += step;
            let ((p, f), (pq, fq)) = (points.at(x)?, points.at(y)?);
            if (pq - p, fq - f) != delta {
                return refuse(
                    NkiRule::Tile,
                    format!(
                        "layout {layout}: moving the region by {step} along dimension {dim} does not move it as a \
                         whole tile (element {x:?} goes from ({p}, {f}) to ({pq}, {fq}), not by {delta:?})"
                    ),
                );
            }
        }
    }
    Ok(delta)
}

/// The rectangle a whole SBUF or PSUM tensor occupies ([`buffer`]'s checks, then [`region`] over all of it).
pub fn on_chip(shape: &[i64], layout: &Layout, mem: TrnMemory, chip: Chip, bytes: i64) -> Result<Rect, NkiError> {
    buffer(shape, layout, mem, chip, bytes)?;
    region(shape, layout, [0, 0], [shape[0], shape[1]])
}

/// An HBM tensor as an NKI array: its axes, outermost first, each a logical dimension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HbmArray {
    /// The logical dimension each array axis is, outermost first.
    pub dims: Vec<usize>,
    /// The array's shape (the logical extents in `dims` order).
    pub shape: Vec<i64>,
}

/// The NKI array an HBM tensor of `shape` is (see the module docs), or why it is none: each logical dimension one
/// stride, no replica, offset or swizzle, and the strides those of a dense row-major array over some order of the
/// dimensions.
pub fn hbm_array(shape: &[i64], layout: &Layout) -> Result<HbmArray, NkiError> {
    let hbm = |m: String| NkiError { rule: NkiRule::Hbm, message: m };
    let tile: &TileLayout = match layout {
        Layout::Tile(t) => t,
        _ => return refuse(NkiRule::Hbm, format!("an HBM array has no swizzle, got {layout}")),
    };
    if !tile.replica().is_empty() || !tile.offset().is_empty() {
        return refuse(NkiRule::Hbm, format!("an HBM array is one copy from its base, got {layout}"));
    }
    let grouped = group_shard(tile, shape).map_err(|e| hbm(e.message))?;
    let mut strides = Vec::with_capacity(shape.len());
    for (d, &extent) in shape.iter().enumerate() {
        let stride = match grouped.block(d) {
            [] => 0,
            [it] => it.stride,
            _ if extent == 1 => 0,
            many => {
                return refuse(
                    NkiRule::Hbm,
                    format!(
                        "dimension {d} of {layout} takes {} strides; an HBM array gives each dimension one",
                        many.len()
                    ),
                )
            }
        };
        strides.push(stride);
    }
    let mut dims: Vec<usize> = (0..shape.len()).collect();
    // Outermost first: larger strides first, unit dimensions where they stand.
    dims.sort_by_key(|&d| (std::cmp::Reverse(if shape[d] == 1 { i64::MIN } else { strides[d] }), d));
    let mut expected = 1;
    for &d in dims.iter().rev() {
        if shape[d] != 1 && strides[d] != expected {
            return refuse(
                NkiRule::Hbm,
                format!(
                    "{layout} is not dense row-major over an order of its dimensions: dimension {d} has stride {}, \
                     the array would need {expected}",
                    strides[d]
                ),
            );
        }
        expected *= shape[d];
    }
    let array_shape = dims.iter().map(|&d| shape[d]).collect();
    Ok(HbmArray { dims, shape: array_shape })
}

/// The same 2-D layout over the transposed shape: element `[j, i]` of the result is where element `[i, j]` of
/// `layout` is (App. B: the shard grouped by `shape`, its two blocks swapped). The Tensor Engine planner takes
/// A as `[K, M]`; `axe.gemm` names it `[M, K]`.
pub fn transpose(layout: &Layout, shape: [i64; 2]) -> crate::Result<Layout> {
    let grouped = group_shard(layout.tile(), &shape)?;
    let mut shard = grouped.block(1).to_vec();
    shard.extend_from_slice(grouped.block(0));
    let tile = TileLayout::new(shard, layout.tile().replica().to_vec(), layout.tile().offset().clone())?;
    layout.with_tile(tile)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_layout;
    use crate::trn::TRN1;

    fn layout(text: &str) -> Layout {
        parse_layout(text).unwrap()
    }

    #[test]
    fn a_k_major_tile_puts_its_second_dimension_on_the_partitions() {
        let rect = on_chip(&[128, 64], &layout("S[(128,64):(1@F,1@P)] + 3@P + 256@F"), TrnMemory::Sbuf, TRN1, 2);
        let rect = rect.unwrap();
        assert_eq!((rect.partition_dim, rect.partition, rect.free, rect.rows, rect.cols), (1, 3, 256, 64, 128));
        assert_eq!(rect.place([5, 7]), (10, 261));
    }

    #[test]
    fn two_blocks_on_the_free_axis_are_not_one_tile() {
        let e = on_chip(&[256, 64], &layout("S[(2,128,64):(64@F,1@P,1@F)]"), TrnMemory::Sbuf, TRN1, 2).unwrap_err();
        assert_eq!(e.rule, NkiRule::Tile, "{e}");
    }

    #[test]
    fn a_psum_tile_lies_in_one_bank() {
        let ok = on_chip(&[128, 512], &layout("S[(128,512):(1@P,1@F)]"), TrnMemory::Psum, TRN1, 4);
        assert!(ok.is_ok());
        let e = on_chip(&[128, 1024], &layout("S[(128,1024):(1@P,1@F)]"), TrnMemory::Psum, TRN1, 4).unwrap_err();
        assert_eq!(e.rule, NkiRule::Capacity);
        assert!(e.message.contains("4096 bytes"), "{e}");
        let e = on_chip(&[64, 8], &layout("S[(64,8):(1@P,1@F)] + 100@P"), TrnMemory::Sbuf, TRN1, 2).unwrap_err();
        assert_eq!(e.rule, NkiRule::PartitionRange);
    }

    #[test]
    fn a_tensor_of_blocks_is_a_tile_per_block() {
        // V's 512 rows as 4 blocks of 128 partitions side by side on the free axis.
        let v = layout("S[(4,128,64):(64@F,1@P,1@F)]");
        assert_eq!(buffer(&[512, 64], &v, TrnMemory::Sbuf, TRN1, 2).unwrap(), [128, 256]);
        assert_eq!(on_chip(&[512, 64], &v, TrnMemory::Sbuf, TRN1, 2).unwrap_err().rule, NkiRule::Tile);
        let block = region(&[512, 64], &v, [256, 0], [128, 64]).unwrap();
        assert_eq!((block.partition_dim, block.partition, block.free, block.rows, block.cols), (0, 0, 128, 128, 64));
        // A run-time offset in steps of 128 rows moves the block 64 free offsets a step; steps of 64 do not.
        assert_eq!(region_step(&[512, 64], &v, [0, 0], [128, 64], 0, 128).unwrap(), (0, 64));
        assert_eq!(region_step(&[512, 64], &v, [0, 0], [128, 64], 0, 64).unwrap_err().rule, NkiRule::Tile);
        // Across a block boundary no region is one tile; past the tensor, no region at all.
        assert_eq!(region(&[512, 64], &v, [64, 0], [128, 64]).unwrap_err().rule, NkiRule::Tile);
        assert!(region(&[512, 64], &v, [448, 0], [128, 64]).unwrap_err().message.contains("outside"));
    }

    #[test]
    fn hbm_arrays_are_row_major_over_an_order() {
        let a = hbm_array(&[1024, 512], &layout("S[(1024,512):(1,1024)]")).unwrap();
        assert_eq!((a.dims, a.shape), (vec![1, 0], vec![512, 1024]));
        let b = hbm_array(&[4, 8], &layout("S[(4,8):(8,1)]")).unwrap();
        assert_eq!((b.dims, b.shape), (vec![0, 1], vec![4, 8]));
        let padded = hbm_array(&[4, 8], &layout("S[(4,8):(16,1)]")).unwrap_err();
        assert_eq!(padded.rule, NkiRule::Hbm);
        assert!(hbm_array(&[4, 8], &layout("S[(4,2,4):(4,32,1)]")).is_err());
    }

    #[test]
    fn transposing_swaps_the_blocks() {
        let t = transpose(&layout("S[(128,64):(1@F,1@P)]"), [128, 64]).unwrap();
        assert_eq!(t.to_string(), "S[(64,128):(1@P,1@F)]");
        let t = transpose(&layout("S[(2,4,8):(1@F,16@F,2@F)]"), [8, 8]).unwrap();
        for i in 0..8 {
            for j in 0..8 {
                let before = layout("S[(2,4,8):(1@F,16@F,2@F)]").eval(&[8, 8], &[i, j]).unwrap();
                assert_eq!(t.eval(&[8, 8], &[j, i]).unwrap(), before);
            }
        }
    }
}
