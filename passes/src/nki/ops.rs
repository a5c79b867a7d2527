//! The axe ops on Trainium tensors, one NKI statement (or one per planned instruction) each: allocations, slices,
//! copies (`nl.load`, `nl.load_transpose2d`, `nl.store`, `nl.copy`, a Tensor Engine transpose), conversions,
//! the engines' elementwise ops and reductions, and `axe.gemm` as the planner's `nisa.nc_matmul`s.

use super::analysis::overwrites;
use super::python::{dtype, shape_tuple, BinOp, Expr};
use super::values::{hbm_region, operand_region, read_of, rect_of, same_orientation, write_of, Bound, HbmView, Tile};
use super::{axe_tensor, element, key, known_layout, op_name, operand, refuse, result, Emitted, Emitter};
use crate::ir::multiple::known_multiple;
use axe_dialect::access;
use axe_dialect::ops::{kept_dimensions, AxeOp, OpKind, SliceRegion};
use axe_dialect::types::TensorType;
use axe_layout::hw::Memory;
use axe_layout::trn::matmul::{self, MatmulRequest, Operand};
use axe_layout::trn::nki::{buffer, region, region_step, transpose, NkiError};
use axe_layout::trn::TrnMemory;
use melior::ir::operation::OperationLike;
use melior::ir::OperationRef;

impl Emitter<'_> {
    /// `axe.alloc` of an sbuf or psum tensor: an NKI tile (`nl.zeros`/`nl.full` with the fill after it).
    pub(super) fn alloc<'c>(&mut self, op: OperationRef<'c, '_>) -> Emitted<'c, bool> {
        let value = result(op)?;
        let tensor = axe_tensor(op, value)?;
        let nl_buffer = match tensor.mem {
            Memory::Sbuf => "nl.sbuf",
            Memory::Psum => "nl.psum",
            other => return refuse(op, format!("nki-memory rule: a kernel allocates sbuf or psum tiles, got {other}")),
        };
        let (_, nl_dtype) = element(op, &tensor)?;
        let var = self.names.fresh(&self.result_name(op), "t");
        let tile = self.whole_tile(op, &tensor, &var)?;
        let shape = shape_tuple(&tile.buffer);
        let fill = op.next_in_block().filter(|next| {
            AxeOp::new(*next).is_some_and(|o| o.kind() == OpKind::Fill)
                && access::operand(*next, 0).map(key) == Some(key(value))
        });
        let scalar = match fill {
            Some(f) => match self.bound(f, operand(f, 1)?)? {
                Bound::Scalar(s) => Some(s),
                Bound::Index(Expr::Int(n)) => Some(n.to_string()),
                _ => return refuse(f, "nki-fill rule: the fill value must be a constant".to_string()),
            },
            None => None,
        };
        match scalar.as_deref() {
            None => self.out.line(format!("{var} = nl.ndarray({shape}, dtype={nl_dtype}, buffer={nl_buffer})")),
            Some("0.0" | "0" | "-0.0") => {
                self.out.line(format!("{var} = nl.zeros({shape}, dtype={nl_dtype}, buffer={nl_buffer})"))
            }
            Some(s) => self.out.line(format!("{var} = nl.full({shape}, {s}, dtype={nl_dtype}, buffer={nl_buffer})")),
        }
        self.bind(value, Bound::Tile(tile));
        Ok(fill.is_some())
    }

    /// An sbuf or psum tensor as a whole tile named `var` (an allocation, or a helper's parameter): its buffer,
    /// checked, and where the tensor lies in it.
    pub(super) fn whole_tile<'c>(&self, op: OperationRef<'c, '_>, tensor: &TensorType, var: &str) -> Emitted<'c, Tile> {
        let mem = if tensor.mem == Memory::Psum { TrnMemory::Psum } else { TrnMemory::Sbuf };
        let (elem, _) = element(op, tensor)?;
        let layout = known_layout(op, tensor)?;
        let &[rows, cols] = tensor.shape.as_slice() else {
            return refuse(op, format!("nki-tile rule: an NKI tile is 2-D, got shape {:?}", tensor.shape));
        };
        let buffer = buffer(&tensor.shape, &layout, mem, self.chip, elem.bytes())
            .map_err(|e| (op.location(), format!("{e} ({var})")))?;
        let rect = region(&tensor.shape, &layout, [0, 0], [rows, cols]);
        let zero = [Expr::Int(0), Expr::Int(0)];
        Ok(Tile {
            var: var.to_string(),
            buffer,
            mem,
            dtype: elem,
            layout,
            root_shape: [rows, cols],
            origin: [0, 0],
            shape: [rows, cols],
            rect,
            shift: zero,
        })
    }

    /// `axe.slice` of an hbm tensor: a region of its array (a rank-reducing slice indexes the dimensions it drops).
    pub(super) fn slice<'c>(&mut self, op: OperationRef<'c, '_>) -> Emitted<'c, ()> {
        let Some(axe) = AxeOp::new(op) else { return refuse(op, "not an axe op".to_string()) };
        let region = axe.slice_region().map_err(|e| (op.location(), format!("nki: {e}")))?;
        let source = match self.bound(op, operand(op, 0)?)? {
            Bound::Hbm(source) => source,
            Bound::Tile(tile) => return self.slice_tile(op, tile, &region),
            _ => return refuse(op, "axe.slice needs a tensor".to_string()),
        };
        let result_shape = axe_tensor(op, result(op)?)?.shape;
        let Some(kept) = kept_dimensions(&region.sizes, &result_shape) else {
            return refuse(op, format!("the slice result {result_shape:?} is not the region {:?}", region.sizes));
        };
        let mut dynamic = 1;
        let (mut offsets, mut sizes) = (source.offsets.clone(), source.sizes.clone());
        for (i, &d) in source.kept.iter().enumerate() {
            let offset = match region.offsets.get(i) {
                Some(Some(n)) => Expr::Int(*n),
                _ => {
                    let e = self.index(op, operand(op, dynamic)?)?;
                    dynamic += 1;
                    e
                }
            };
            offsets[d] = Expr::binary(BinOp::Add, offsets[d].clone(), offset);
            sizes[d] = region.sizes[i];
        }
        let kept = kept.iter().map(|&i| source.kept[i]).collect();
        self.bind(result(op)?, Bound::Hbm(HbmView { offsets, sizes, kept, ..source }));
        Ok(())
    }

    /// `axe.slice` of an sbuf or psum tensor: a region of its tile. A run-time offset must be a multiple (read from
    /// the IR) of a step that moves the region as a whole ([`region_step`]); the region moves by that many steps.
    pub(super) fn slice_tile<'c>(
        &mut self,
        op: OperationRef<'c, '_>,
        tile: Tile,
        slice: &SliceRegion,
    ) -> Emitted<'c, ()> {
        let at = |e: NkiError| (op.location(), e.to_string());
        let Ok(sizes) = <[i64; 2]>::try_from(slice.sizes.as_slice()) else {
            return refuse(op, format!("nki-tile rule: an NKI tile is 2-D, got a slice of {:?}", slice.sizes));
        };
        let mut origin = tile.origin;
        let mut moves = Vec::new();
        let mut dynamic = 1;
        for (d, offset) in slice.offsets.iter().enumerate().take(2) {
            match offset {
                Some(n) => origin[d] += n,
                None => {
                    let value = operand(op, dynamic)?;
                    dynamic += 1;
                    moves.push((d, self.index(op, value)?, known_multiple(value)));
                }
            }
        }
        let mut shift = tile.shift.clone();
        for (d, offset, multiple) in moves {
            let (dp, df) = region_step(&tile.root_shape, &tile.layout, origin, sizes, d, multiple).map_err(at)?;
            let steps = Expr::binary(BinOp::Div, offset, Expr::Int(multiple));
            for (axis, delta) in [(0, dp), (1, df)] {
                let moved = Expr::binary(BinOp::Mul, steps.clone(), Expr::Int(delta));
                shift[axis] = Expr::binary(BinOp::Add, shift[axis].clone(), moved);
            }
        }
        let rect = region(&tile.root_shape, &tile.layout, origin, sizes);
        self.bind(result(op)?, Bound::Tile(Tile { origin, shape: sizes, rect, shift, ..tile }));
        Ok(())
    }

    pub(super) fn copy<'c>(&mut self, op: OperationRef<'c, '_>) -> Emitted<'c, ()> {
        let (source, dest) = (self.bound(op, operand(op, 0)?)?, self.bound(op, operand(op, 1)?)?);
        match (source, dest) {
            (Bound::Hbm(from), Bound::Tile(to)) if to.mem == TrnMemory::Sbuf => {
                let load = if from.axis_order().first() == Some(&rect_of(op, &to)?.partition_dim) {
                    "nl.load"
                } else {
                    "nl.load_transpose2d"
                };
                self.out.line(format!("{} = {load}({})", write_of(op, &to)?, hbm_region(&from)));
            }
            (Bound::Tile(from), Bound::Hbm(to)) if from.mem == TrnMemory::Sbuf => {
                if to.axis_order().first() != Some(&rect_of(op, &from)?.partition_dim) {
                    return refuse(
                        op,
                        "nki-store rule: nl.store writes a tile's partition dimension as the array's first axis; this \
                         tile lies transposed to its destination (transpose it on chip first)"
                            .to_string(),
                    );
                }
                self.out.line(format!("nl.store({}, value={})", hbm_region(&to), read_of(op, &from)?));
            }
            // The same logical tile with the other dimension on the partitions: a transpose on the Tensor Engine
            // (SBUF in, PSUM out, at most 128 x 128), copied into the destination.
            (Bound::Tile(from), Bound::Tile(to))
                if rect_of(op, &from)?.partition_dim != rect_of(op, &to)?.partition_dim =>
            {
                if from.mem != TrnMemory::Sbuf || rect_of(op, &from)?.rows > 128 || rect_of(op, &from)?.cols > 128 {
                    return refuse(
                        op,
                        format!(
                            "nki-copy rule: a copy that moves a dimension onto the partitions is an nc_transpose on \
                             the Tensor Engine: an sbuf tile of at most 128 x 128, got a {} x {} {} tile",
                            rect_of(op, &from)?.rows,
                            rect_of(op, &from)?.cols,
                            from.mem.name()
                        ),
                    );
                }
                let nl_dtype = dtype(to.dtype).unwrap_or("nl.float32");
                self.out.line(format!(
                    "{} = nl.copy(nisa.nc_transpose({}), dtype={nl_dtype})",
                    write_of(op, &to)?,
                    read_of(op, &from)?
                ));
            }
            (Bound::Tile(from), Bound::Tile(to)) => {
                self.out.line(format!("{} = nl.copy({})", write_of(op, &to)?, read_of(op, &from)?));
            }
            (Bound::Tile(from), Bound::Hbm(_)) => {
                return refuse(
                    op,
                    format!(
                        "nki-memory rule: NKI stores to hbm from sbuf, got {}: copy it to an sbuf tile first",
                        from.mem.name()
                    ),
                )
            }
            (Bound::Hbm(_), Bound::Tile(to)) => {
                return refuse(op, format!("nki-memory rule: NKI loads from hbm into sbuf, got {}", to.mem.name()))
            }
            _ => return refuse(op, "nki-memory rule: a copy moves hbm <-> sbuf or between on-chip tiles".to_string()),
        }
        Ok(())
    }

    pub(super) fn cast<'c>(&mut self, op: OperationRef<'c, '_>) -> Emitted<'c, ()> {
        let (from, to) = (self.tile(op, operand(op, 0)?, "source")?, self.tile(op, operand(op, 1)?, "dest")?);
        same_orientation(op, &from, &to)?;
        if to.mem != TrnMemory::Sbuf {
            return refuse(op, "nki-memory rule: a conversion writes an sbuf tile".to_string());
        }
        let nl_dtype = dtype(to.dtype).unwrap_or("nl.float32");
        self.out.line(format!("{} = nl.copy({}, dtype={nl_dtype})", write_of(op, &to)?, read_of(op, &from)?));
        Ok(())
    }

    /// An operand of an elementwise op writing `dest`: the same partitions as dest, and along the free axis dest's
    /// extent or 1 (NKI broadcasts a `[P, 1]` tile along the free axis; nothing broadcasts across partitions).
    pub(super) fn operand_of<'c>(&self, op: OperationRef<'c, '_>, index: usize, dest: &Tile) -> Emitted<'c, String> {
        let value = operand(op, index)?;
        let tile = match self.bound(op, value)? {
            Bound::Scalar(s) => return Ok(s),
            Bound::Tile(t) => t,
            _ => return refuse(op, format!("{} operand {index} must be an sbuf or psum tile", op_name(op))),
        };
        let d = rect_of(op, dest)?.partition_dim;
        let partitions_match =
            tile.shape[d] == dest.shape[d] && (rect_of(op, &tile)?.partition_dim == d || tile.shape[d] == 1);
        let free = tile.shape[1 - d];
        if !partitions_match || (free != dest.shape[1 - d] && free != 1) {
            return refuse(
                op,
                format!(
                    "nki-broadcast rule: operand {index} ({:?}, dimension {} on the partitions) must lie on dest's \
                     partitions ({:?}, dimension {d}) and match or broadcast along the free axis",
                    tile.shape,
                    rect_of(op, &tile)?.partition_dim,
                    dest.shape
                ),
            );
        }
        read_of(op, &tile)
    }

    /// `dest = alpha * source`.
    pub(super) fn scale<'c>(&mut self, op: OperationRef<'c, '_>) -> Emitted<'c, ()> {
        let to = self.tile(op, operand(op, 1)?, "dest")?;
        let from = self.operand_of(op, 0, &to)?;
        let Bound::Scalar(alpha) = self.bound(op, operand(op, 2)?)? else {
            return refuse(op, "nki-op rule: axe.scale's factor must be a constant".to_string());
        };
        let nl_dtype = dtype(to.dtype).unwrap_or("nl.float32");
        self.out.line(format!("{} = nl.multiply({from}, {alpha}, dtype={nl_dtype})", write_of(op, &to)?));
        Ok(())
    }

    /// `dest = lhs <op> rhs` on the Vector Engine.
    pub(super) fn binary_op<'c>(&mut self, op: OperationRef<'c, '_>, kind: OpKind) -> Emitted<'c, ()> {
        let to = self.tile(op, operand(op, 2)?, "dest")?;
        let (lhs, rhs) = (self.operand_of(op, 0, &to)?, self.operand_of(op, 1, &to)?);
        let function = match kind {
            OpKind::Add => "nl.add",
            OpKind::Sub => "nl.subtract",
            OpKind::Mul => "nl.multiply",
            OpKind::Max => "nl.maximum",
            _ => "nl.divide",
        };
        let nl_dtype = dtype(to.dtype).unwrap_or("nl.float32");
        self.out.line(format!("{} = {function}({lhs}, {rhs}, dtype={nl_dtype})", write_of(op, &to)?));
        Ok(())
    }

    /// `dest = e^source` on the Scalar Engine.
    pub(super) fn exp<'c>(&mut self, op: OperationRef<'c, '_>) -> Emitted<'c, ()> {
        let to = self.tile(op, operand(op, 1)?, "dest")?;
        let from = self.tile(op, operand(op, 0)?, "source")?;
        same_orientation(op, &from, &to)?;
        let nl_dtype = dtype(to.dtype).unwrap_or("nl.float32");
        self.out.line(format!("{} = nl.exp({}, dtype={nl_dtype})", write_of(op, &to)?, read_of(op, &from)?));
        Ok(())
    }

    /// `axe.reduce`: the Vector Engine reduces along the free axis (`nl.max`/`nl.sum` over axis 1, kept).
    pub(super) fn reduce<'c>(&mut self, op: OperationRef<'c, '_>) -> Emitted<'c, ()> {
        let from = self.tile(op, operand(op, 0)?, "source")?;
        let to = self.tile(op, operand(op, 1)?, "dest")?;
        let kind = op.attribute("kind").map(|a| a.to_string()).unwrap_or_default();
        let function = if kind.contains("max") { "nl.max" } else { "nl.sum" };
        let (p, f) = (rect_of(op, &from)?.partition_dim, 1 - rect_of(op, &from)?.partition_dim);
        if to.shape[p] != from.shape[p]
            || to.shape[f] != 1
            || (rect_of(op, &to)?.partition_dim != p && to.shape[p] != 1)
        {
            return refuse(
                op,
                format!(
                    "nki-reduce rule: the Vector Engine reduces along the free axis: dest {:?} must keep source's \
                     partition dimension {p} ({:?}) and reduce dimension {f} to 1",
                    to.shape, from.shape
                ),
            );
        }
        let nl_dtype = dtype(to.dtype).unwrap_or("nl.float32");
        self.out.line(format!(
            "{} = {function}({}, axis=1, keepdims=True, dtype={nl_dtype})",
            write_of(op, &to)?,
            read_of(op, &from)?
        ));
        Ok(())
    }

    /// `axe.gemm` (c += a * b): the Tensor Engine plan, one `nisa.nc_matmul` per instruction.
    pub(super) fn gemm<'c>(&mut self, op: OperationRef<'c, '_>) -> Emitted<'c, ()> {
        let a = self.tile(op, operand(op, 0)?, "a")?;
        let b = self.tile(op, operand(op, 1)?, "b")?;
        let c = self.tile(op, operand(op, 2)?, "c")?;
        // Each operand's region as a layout of its own; A transposed to the planner's [K, M].
        let planned = |t: &Tile| t.planned_layout().map_err(|e| (op.location(), e));
        let (a_mk, b_kn, c_mn) = (planned(&a)?, planned(&b)?, planned(&c)?);
        let a_km = transpose(&a_mk, a.shape).map_err(|e| (op.location(), format!("nki: a: {e}")))?;
        let request = MatmulRequest {
            chip: self.chip,
            dtype: a.dtype,
            acc: c.dtype,
            a: Operand { layout: &a_km, shape: [a.shape[1], a.shape[0]], mem: a.mem },
            b: Operand { layout: &b_kn, shape: b.shape, mem: b.mem },
            c: Operand { layout: &c_mn, shape: c.shape, mem: c.mem },
        };
        let plan = matmul::plan(&request).map_err(|e| (op.location(), e.to_string()))?;
        let accumulate = !overwrites(op);
        let [kt, mt, nt] = plan.tile;
        for step in &plan.steps {
            let target = operand_region(&c, step.c, [mt, nt]);
            let (stationary, moving) = (operand_region(&a, step.a, [kt, mt]), operand_region(&b, step.b, [kt, nt]));
            // `{accumulate = false}`: each C tile's first K step overwrites it (the planner marks the rest).
            let assign = if step.accumulate || accumulate { "+=" } else { "=" };
            let target = if assign == "=" && !target.contains('[') { format!("{target}[...]") } else { target };
            self.out.line(format!("{target} {assign} nisa.nc_matmul({stationary}, {moving})"));
        }
        Ok(())
    }
}
