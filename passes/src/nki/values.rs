//! What an IR value is in the emitted kernel: an index expression, a float constant, a region of an HBM array, or
//! a region of an on-chip tile, and how each prints as Python (`a[k * 128:k * 128 + 128, ...]`, `acc`,
//! `v_all[0:128, j * 64:j * 64 + 64]`).

use super::python::{slice, BinOp, Expr};
use super::{op_name, refuse, Emitted};
use axe_layout::hw::ElemType;
use axe_layout::trn::matmul::Place;
use axe_layout::trn::nki::{HbmArray, NkiError, Rect};
use axe_layout::trn::TrnMemory;
use axe_layout::Layout;
use melior::ir::operation::OperationLike;
use melior::ir::OperationRef;

/// What an IR value is in the kernel.
#[derive(Clone)]
pub(super) enum Bound {
    /// An `index` value: an expression of loop variables.
    Index(Expr),
    /// A float constant, as Python writes it.
    Scalar(String),
    /// A region of an HBM array.
    Hbm(HbmView),
    /// An SBUF or PSUM tile.
    Tile(Tile),
}

/// A region of an HBM argument: `sizes` elements from `offsets` in the argument's logical dimensions, of which
/// the view keeps `kept` (a rank-reducing slice indexes the others).
#[derive(Clone)]
pub(super) struct HbmView {
    pub(super) var: String,
    pub(super) array: HbmArray,
    pub(super) offsets: Vec<Expr>,
    pub(super) sizes: Vec<i64>,
    pub(super) kept: Vec<usize>,
}

impl HbmView {
    /// The view's dimensions in the order of the array's axes (which of its dimensions comes first in memory).
    pub(super) fn axis_order(&self) -> Vec<usize> {
        self.array.dims.iter().filter_map(|d| self.kept.iter().position(|k| k == d)).collect()
    }
}

/// An on-chip tensor: the region `[origin, origin + shape)`, moved at run time by `shift`, of an allocation of
/// `root_shape` laid out by `layout` in the NKI tile `var` of `buffer` partitions by free elements.
#[derive(Clone)]
pub(super) struct Tile {
    pub(super) var: String,
    pub(super) buffer: [i64; 2],
    pub(super) mem: TrnMemory,
    pub(super) dtype: ElemType,
    pub(super) layout: Layout,
    pub(super) root_shape: [i64; 2],
    pub(super) origin: [i64; 2],
    pub(super) shape: [i64; 2],
    /// Where the region lies at `origin`: one rectangle, or why it is none (refused where it is used).
    pub(super) rect: Result<Rect, NkiError>,
    /// The run-time move of the region, in partitions and free offsets.
    pub(super) shift: [Expr; 2],
}

impl Tile {
    /// The rectangle the region lies in, or the refusal.
    pub(super) fn rect(&self) -> Result<Rect, String> {
        self.rect.clone().map_err(|e| e.to_string())
    }

    /// `var[p0:p0 + rows, f0:f0 + cols]`, the static starts moved by `shift`.
    pub(super) fn region(&self, partition: i64, rows: i64, free: i64, cols: i64) -> String {
        let p = Expr::binary(BinOp::Add, Expr::Int(partition), self.shift[0].clone());
        let f = Expr::binary(BinOp::Add, Expr::Int(free), self.shift[1].clone());
        format!("{}[{}, {}]", self.var, slice(&p, rows), slice(&f, cols))
    }

    /// The tensor as an operand: the bare tile when the tensor is all of it.
    pub(super) fn read(&self) -> Result<String, String> {
        let r = self.rect()?;
        if self.is_whole(r) {
            return Ok(self.var.clone());
        }
        Ok(self.region(r.partition, r.rows, r.free, r.cols))
    }

    /// The tensor as an assignment target.
    pub(super) fn write(&self) -> Result<String, String> {
        let r = self.rect()?;
        if self.is_whole(r) {
            return Ok(format!("{}[...]", self.var));
        }
        self.read()
    }

    pub(super) fn is_whole(&self, r: Rect) -> bool {
        let unmoved = self.shift == [Expr::Int(0), Expr::Int(0)];
        r.partition == 0 && r.free == 0 && [r.rows, r.cols] == self.buffer && unmoved
    }

    /// The region as a layout of its own (its rectangle at its static start), for the matmul planner.
    pub(super) fn planned_layout(&self) -> Result<Layout, String> {
        let r = self.rect()?;
        let strides = if r.partition_dim == 0 { "1@P,1@F" } else { "1@F,1@P" };
        let mut text = format!("S[({},{}):({strides})]", self.shape[0], self.shape[1]);
        for (start, axis) in [(r.partition, "P"), (r.free, "F")] {
            if start != 0 {
                text.push_str(&format!(" + {start}@{axis}"));
            }
        }
        axe_layout::notation::parse_layout(&text).map_err(|e| format!("nki: internal: {text}: {e}"))
    }
}

/// One instruction's operand: the rectangle of `extent` at `place` of the tile (moved by its shift), or the bare
/// tile when that is all of it.
pub(super) fn operand_region(tile: &Tile, place: Place, extent: [i64; 2]) -> String {
    let start =
        Rect { partition_dim: 0, partition: place.partition, free: place.free, rows: extent[0], cols: extent[1] };
    if tile.is_whole(start) {
        return tile.var.clone();
    }
    tile.region(place.partition, extent[0], place.free, extent[1])
}

/// The Python index of an HBM region, in the array's axis order: a slice per kept dimension, the offset of each
/// dropped one (the bare array when the region is all of it).
pub(super) fn hbm_region(view: &HbmView) -> String {
    let whole = view.kept.len() == view.sizes.len()
        && view.offsets.iter().all(|o| *o == Expr::Int(0))
        && view.array.dims.iter().zip(&view.array.shape).all(|(&d, &extent)| view.sizes[d] == extent);
    if whole {
        return view.var.clone();
    }
    let axes: Vec<String> =
        view.array
            .dims
            .iter()
            .map(|&d| {
                if view.kept.contains(&d) {
                    slice(&view.offsets[d], view.sizes[d])
                } else {
                    view.offsets[d].to_string()
                }
            })
            .collect();
    format!("{}[{}]", view.var, axes.join(", "))
}

pub(super) fn same_orientation<'c>(op: OperationRef<'c, '_>, from: &Tile, to: &Tile) -> Emitted<'c, ()> {
    let (source, dest) = (rect_of(op, from)?.partition_dim, rect_of(op, to)?.partition_dim);
    if source != dest {
        return refuse(
            op,
            format!(
                "nki-copy rule: {} keeps partitions: source dimension {source} is on the partitions but dest's is \
                 {dest} (a transpose is an nc_transpose)",
                op_name(op)
            ),
        );
    }
    Ok(())
}

/// Where a tile lies, or its refusal at `op`.
pub(super) fn rect_of<'c>(op: OperationRef<'c, '_>, tile: &Tile) -> Emitted<'c, Rect> {
    tile.rect().map_err(|e| (op.location(), e))
}

/// A tile as an operand of `op`.
pub(super) fn read_of<'c>(op: OperationRef<'c, '_>, tile: &Tile) -> Emitted<'c, String> {
    tile.read().map_err(|e| (op.location(), e))
}

/// A tile as the target of `op`.
pub(super) fn write_of<'c>(op: OperationRef<'c, '_>, tile: &Tile) -> Emitted<'c, String> {
    tile.write().map_err(|e| (op.location(), e))
}
