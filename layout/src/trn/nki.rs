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
use crate::tile_layout::{unflatten, TileLayout};
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

/// The rectangle an SBUF or PSUM tensor of `shape` occupies (see the module docs), or the rule it breaks, with
/// the element that shows it. `bytes` is the element size.
pub fn on_chip(shape: &[i64], layout: &Layout, mem: TrnMemory, chip: Chip, bytes: i64) -> Result<Rect, NkiError> {
    let tile = |m: String| NkiError { rule: NkiRule::Tile, message: m };
    let &[r, c] = shape else {
        return refuse(NkiRule::Tile, format!("an NKI tile is 2-D (partitions by free offsets), got shape {shape:?}"));
    };
    layout.admits(shape).map_err(|e| tile(e.message))?;
    let eval = Evaluator::new(layout).map_err(|e| tile(e.message))?;
    let slot = |name: &str| Axis::named(name).ok().and_then(|a| eval.axes().iter().position(|&x| x == a));
    let (p_slot, f_slot) = (slot("P"), slot("F"));
    let mut points = Vec::with_capacity((r * c) as usize);
    for flat in 0..r * c {
        let values = eval.values(flat).map_err(|e| tile(e.message))?;
        let [point] = values.as_slice() else {
            return refuse(
                NkiRule::Tile,
                format!(
                    "element {:?} has {} places; an NKI tile holds each element once",
                    unflatten(shape, flat),
                    values.len()
                ),
            );
        };
        let at = |s: Option<usize>| s.map_or(0, |i| point[i]);
        points.push((at(p_slot), at(f_slot)));
    }
    let (p0, f0) = points[0];
    let fits = |d: usize| {
        points.iter().enumerate().all(|(flat, &(p, f))| {
            let x = [flat as i64 / c, flat as i64 % c];
            (p, f) == (p0 + x[d], f0 + x[1 - d])
        })
    };
    // A single row or column fits both ways; the partition dimension is then the one NKI tiles put first.
    let Some(partition_dim) = [0, 1].into_iter().find(|&d| fits(d)) else {
        return refuse(
            NkiRule::Tile,
            format!(
                "layout {layout} is not one NKI tile: no dimension runs down consecutive partitions with the other \
                 along consecutive free offsets (element [0, 0] at partition {p0}, free {f0}; [{}, 0] at {:?}; \
                 [0, {}] at {:?})",
                (r > 1) as i64,
                points[(c * (r > 1) as i64) as usize],
                (c > 1) as i64,
                points[(c > 1) as usize]
            ),
        );
    };
    let rect =
        Rect { partition_dim, partition: p0, free: f0, rows: shape[partition_dim], cols: shape[1 - partition_dim] };
    if p0 < 0 || p0 + rect.rows > chip.partitions {
        return refuse(
            NkiRule::PartitionRange,
            format!(
                "the tile spans partitions {p0}..{}; {} has partitions 0..{}",
                p0 + rect.rows,
                chip.name,
                chip.partitions
            ),
        );
    }
    let (limit, what) = match mem {
        TrnMemory::Psum => (chip.psum_bank_bytes, "one PSUM bank (an NKI PSUM tile lies in one bank)"),
        _ => (chip.sbuf_bytes, "an SBUF partition"),
    };
    if f0 < 0 || (f0 + rect.cols) * bytes > limit {
        return refuse(
            NkiRule::Capacity,
            format!(
                "the tile spans free offsets {f0}..{} of {bytes}-byte elements, {} bytes: past the {limit} bytes of {what}",
                f0 + rect.cols,
                (f0 + rect.cols) * bytes
            ),
        );
    }
    Ok(rect)
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
