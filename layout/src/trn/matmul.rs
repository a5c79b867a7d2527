//! The Tensor Engine matmul planner (paper section 3.4 and Appendix H, for Trainium): `C[M,N] = A[K,M]^T B[K,N]`
//! onto `nc_matmul` instructions.
//!
//! Appendix H's rules, with the NKI documentation's numbers ([`super::Chip`]):
//! 1. the instruction computes `stationary^T @ moving`: A (stationary, `[K, M]`) and B (moving, `[K, N]`) in SBUF,
//!    C (`[M, N]`, f32) in PSUM;
//! 2. A and B have their contraction dimension K on the partition axis `P` and M, N on the free axis `F`; C has M
//!    on `P` and N on `F`;
//! 3. one instruction takes at most 128 partitions of K, 128 of M (the stationary free extent) and 512 of N (the
//!    moving free extent), and its C tile lies in one 2 KiB PSUM bank.
//!
//! Algorithm (the GPU planner's, [`crate::mma`]): candidate instruction tiles `(kt, mt, nt)`, largest first (K
//! first: fewer accumulation steps), each a divisor of its dimension within the limits; for a candidate, every
//! operand must be its atom (`S[(kt,mt):(1@P,1@F)]` for A, likewise B and C) tiled by an outer layout
//! ([`crate::tile_of::outer_of`], paper App. D), every instruction's tiles must start at partition 0, and every C
//! tile must stay inside one PSUM bank. The outer layouts are the loop nest: per C tile (M tiles, then N tiles)
//! the K tiles in order, the first overwriting the PSUM tile and the others accumulating into it.
//!
//! Refusals name a [`Rule`]: memories, dtypes, shapes, the partition rule (a dimension on the wrong axis, with the
//! two elements that show it), a partition past the chip's, the free-axis capacity, and no instruction tile.

use super::{Chip, TrnMemory};
use crate::eval::Evaluator;
use crate::hw::ElemType;
use crate::layout::Layout;
use crate::notation::parse_layout;
use crate::tile_layout::unflatten;
use crate::Axis;
use std::fmt;

/// One operand: its layout over its logical shape `[rows, cols]` and its memory.
#[derive(Clone, Copy, Debug)]
pub struct Operand<'a> {
    /// The layout, on `P` and `F`.
    pub layout: &'a Layout,
    /// `[K, M]` for A, `[K, N]` for B, `[M, N]` for C.
    pub shape: [i64; 2],
    /// Where it lives.
    pub mem: TrnMemory,
}

/// A GEMM for the Tensor Engine.
#[derive(Clone, Copy, Debug)]
pub struct MatmulRequest<'a> {
    /// The NeuronCore generation.
    pub chip: Chip,
    /// A's and B's element type.
    pub dtype: ElemType,
    /// C's element type (f32: the engine accumulates in f32).
    pub acc: ElemType,
    /// The stationary operand, `[K, M]`.
    pub a: Operand<'a>,
    /// The moving operand, `[K, N]`.
    pub b: Operand<'a>,
    /// The result, `[M, N]`.
    pub c: Operand<'a>,
}

/// A tile's first element in its memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// Partition.
    pub partition: i64,
    /// Free-axis offset, in elements.
    pub free: i64,
}

/// One `nc_matmul`: the logical origin of its tiles and where each tile starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// K, M and N of the tiles' first element.
    pub k0: i64,
    /// See `k0`.
    pub m0: i64,
    /// See `k0`.
    pub n0: i64,
    /// The stationary tile `A[k0.., m0..]`.
    pub a: Place,
    /// The moving tile `B[k0.., n0..]`.
    pub b: Place,
    /// The PSUM tile `C[m0.., n0..]`.
    pub c: Place,
    /// Accumulates into C (every K tile but the first of its C tile).
    pub accumulate: bool,
}

/// The plan: the instruction tile and its instructions in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatmulPlan {
    /// `(kt, mt, nt)`: partitions of K, the stationary and the moving free extents of every instruction.
    pub tile: [i64; 3],
    /// Per C tile (M tiles outer, N tiles inner), its K tiles in order.
    pub steps: Vec<Step>,
}

/// Why a GEMM was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// A and B must be in SBUF, C in PSUM.
    Memory,
    /// A/B types the engine reads (e4m3, e5m2, bf16, f16, tf32, f32); C f32.
    Dtype,
    /// `[K, M]`, `[K, N]`, `[M, N]`.
    Shapes,
    /// A dimension on the wrong axis (Appendix H, rule 2), or an axis other than `P` and `F`.
    Partition,
    /// A partition index outside the chip's partitions.
    PartitionRange,
    /// A tile past the memory's bytes per partition.
    Capacity,
    /// No instruction tile fits every operand (tile-of, partition 0, PSUM banks).
    Tile,
}

impl Rule {
    /// The rule's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Memory => "trn-memory",
            Rule::Dtype => "trn-dtype",
            Rule::Shapes => "trn-shapes",
            Rule::Partition => "trn-partition",
            Rule::PartitionRange => "trn-partition-range",
            Rule::Capacity => "trn-capacity",
            Rule::Tile => "trn-tile",
        }
    }
}

/// A refusal: the rule and what broke it, with the numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatmulError {
    /// The rule.
    pub rule: Rule,
    /// What broke it.
    pub message: String,
}

impl fmt::Display for MatmulError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "trn matmul: {} rule: {}", self.rule.name(), self.message)
    }
}

impl std::error::Error for MatmulError {}

fn refuse<T>(rule: Rule, message: String) -> Result<T, MatmulError> {
    Err(MatmulError { rule, message })
}

/// Plans `request` (see the module docs) or says which rule it breaks.
pub fn plan(request: &MatmulRequest) -> Result<MatmulPlan, MatmulError> {
    let MatmulRequest { chip, dtype, acc, a, b, c } = *request;
    for (name, operand, want) in [("A", a, TrnMemory::Sbuf), ("B", b, TrnMemory::Sbuf), ("C", c, TrnMemory::Psum)] {
        if operand.mem != want {
            return refuse(Rule::Memory, format!("{name} must be in {}, got {}", want.name(), operand.mem.name()));
        }
    }
    use ElemType::{BF16, F16, F32, F8E4M3, F8E5M2, TF32};
    if ![F8E4M3, F8E5M2, BF16, F16, TF32, F32].contains(&dtype) || acc != F32 {
        return refuse(
            Rule::Dtype,
            format!("the engine reads e4m3, e5m2, bf16, f16, tf32 or f32 and accumulates f32, got {dtype} into {acc}"),
        );
    }
    let ([k, m], [kb, n], [mc, nc]) = (a.shape, b.shape, c.shape);
    if kb != k || mc != m || nc != n {
        return refuse(
            Rule::Shapes,
            format!("A [K,M], B [K,N] and C [M,N] must agree, got {:?}, {:?} and {:?}", a.shape, b.shape, c.shape),
        );
    }
    let places = [
        Places::of("A", a, "K", chip, dtype.bytes())?,
        Places::of("B", b, "K", chip, dtype.bytes())?,
        Places::of("C", c, "M", chip, acc.bytes())?,
    ];
    let mut first_failure = None;
    for [kt, mt, nt] in candidates(chip, k, m, n, acc.bytes()) {
        match try_tile(request, &places, [kt, mt, nt]) {
            Ok(plan) => return Ok(plan),
            Err(e) => {
                first_failure.get_or_insert(e);
            }
        }
    }
    refuse(
        Rule::Tile,
        match first_failure {
            Some(why) => format!("no nc_matmul tile fits; the largest, {why}"),
            None => format!("no nc_matmul tile divides K = {k}, M = {m}, N = {n} within the chip's limits"),
        },
    )
}

/// Every element's (partition, free) of one operand, checked against the partition rule and the chip.
struct Places {
    cols: i64,
    points: Vec<(i64, i64)>,
}

impl Places {
    /// Evaluates `operand`: each element on one point of `P` and `F` only; rows (`row_name`: K or M) on the
    /// partitions, columns not; partitions and bytes within the chip.
    fn of(name: &str, operand: Operand, row_name: &str, chip: Chip, bytes: i64) -> Result<Places, MatmulError> {
        let layout = operand.layout;
        let [rows, cols] = operand.shape;
        let axis_error = |e: crate::LayoutError| MatmulError { rule: Rule::Partition, message: format!("{name}: {e}") };
        layout.admits(&operand.shape).map_err(axis_error)?;
        let eval = Evaluator::new(layout).map_err(axis_error)?;
        let (p_axis, f_axis) = (Axis::named("P").map_err(axis_error)?, Axis::named("F").map_err(axis_error)?);
        let slot = |axis: Axis| eval.axes().iter().position(|&a| a == axis);
        let (p_slot, f_slot) = (slot(p_axis), slot(f_axis));
        if let Some(other) = eval.axes().iter().find(|&&a| a != p_axis && a != f_axis) {
            return refuse(Rule::Partition, format!("{name} is on axis {other}; SBUF and PSUM have P and F only"));
        }
        let mut points = Vec::with_capacity((rows * cols) as usize);
        let capacity = if operand.mem == TrnMemory::Psum { chip.psum_bytes } else { chip.sbuf_bytes };
        for flat in 0..rows * cols {
            let values = eval.values(flat).map_err(axis_error)?;
            let [point] = values.as_slice() else {
                return refuse(
                    Rule::Partition,
                    format!(
                        "{name} element {:?} has {} places; a matmul operand has one",
                        unflatten(&operand.shape, flat),
                        values.len()
                    ),
                );
            };
            let at = |s: Option<usize>| s.map_or(0, |i| point[i]);
            let (p, f) = (at(p_slot), at(f_slot));
            let x = unflatten(&operand.shape, flat);
            if !(0..chip.partitions).contains(&p) {
                return refuse(
                    Rule::PartitionRange,
                    format!(
                        "{name} element {x:?} is on partition {p}; {} has partitions 0..{}",
                        chip.name, chip.partitions
                    ),
                );
            }
            if f < 0 || (f + 1) * bytes > capacity {
                return refuse(
                    Rule::Capacity,
                    format!("{name} element {x:?} is at free offset {f} ({bytes}-byte elements): past the {capacity} bytes a partition of {} holds", operand.mem.name()),
                );
            }
            points.push((p, f));
        }
        // Rule 2: the partition depends on the row alone.
        for (flat, &(p, _)) in points.iter().enumerate() {
            let (row, col) = (flat as i64 / cols, flat as i64 % cols);
            let (first, _) = points[(row * cols) as usize];
            if p != first {
                return refuse(
                    Rule::Partition,
                    format!(
                        "{row_name} must be on the partition axis P and the other dimension on the free axis F (Appendix H): {name}[{row}, 0] is on partition {first} but {name}[{row}, {col}] on partition {p}"
                    ),
                );
            }
        }
        Ok(Places { cols, points })
    }

    fn at(&self, row: i64, col: i64) -> Place {
        let (partition, free) = self.points[(row * self.cols + col) as usize];
        Place { partition, free }
    }
}

/// Instruction tiles, largest first: K partitions (down from 128), then the product of the free extents.
fn candidates(chip: Chip, k: i64, m: i64, n: i64, acc_bytes: i64) -> Vec<[i64; 3]> {
    let divisors =
        |extent: i64, limit: i64| -> Vec<i64> { (1..=extent.min(limit)).rev().filter(|d| extent % d == 0).collect() };
    let mut out = Vec::new();
    for kt in divisors(k, chip.partitions) {
        let mut free: Vec<[i64; 3]> = Vec::new();
        for mt in divisors(m, chip.stationary_fmax) {
            for nt in divisors(n, chip.moving_fmax.min(chip.psum_bank_bytes / acc_bytes)) {
                free.push([kt, mt, nt]);
            }
        }
        free.sort_by_key(|[_, mt, nt]| std::cmp::Reverse(mt * nt));
        out.extend(free);
    }
    out
}

/// The atom of an instruction operand `[rows, cols]`: rows on partitions from 0, columns on consecutive free slots.
fn atom(rows: i64, cols: i64) -> Layout {
    parse_layout(&format!("S[({rows},{cols}):(1@P,1@F)]")).expect("an atom parses")
}

/// One candidate tile: every operand tiled by its atom, tiles from partition 0, C tiles inside a PSUM bank.
fn try_tile(request: &MatmulRequest, places: &[Places; 3], [kt, mt, nt]: [i64; 3]) -> Result<MatmulPlan, String> {
    let (a, b, c) = (request.a, request.b, request.c);
    let tiles = [("A", a, [kt, mt]), ("B", b, [kt, nt]), ("C", c, [mt, nt])];
    for (name, operand, tile) in tiles {
        crate::tile_of::outer_of(operand.layout, &atom(tile[0], tile[1]), &operand.shape, &tile).map_err(|e| {
            format!(
                "{kt}x{mt}x{nt} (K x M x N): {name} is not a tiling of the {}x{} instruction tile: {}",
                tile[0], tile[1], e.message
            )
        })?;
    }
    let [k, m] = a.shape;
    let n = b.shape[1];
    let bank_elements = request.chip.psum_bank_bytes / request.acc.bytes();
    let mut steps = Vec::new();
    for m0 in (0..m).step_by(mt as usize) {
        for n0 in (0..n).step_by(nt as usize) {
            let c_at = places[2].at(m0, n0);
            if c_at.free / bank_elements != (c_at.free + nt - 1) / bank_elements {
                return Err(format!(
                    "{kt}x{mt}x{nt}: the C tile at [{m0}, {n0}] spans free offsets {}..{}, across a {}-byte PSUM bank",
                    c_at.free,
                    c_at.free + nt,
                    request.chip.psum_bank_bytes
                ));
            }
            for k0 in (0..k).step_by(kt as usize) {
                let (a_at, b_at) = (places[0].at(k0, m0), places[1].at(k0, n0));
                for (name, at) in [("A", a_at), ("B", b_at), ("C", c_at)] {
                    if at.partition != 0 {
                        return Err(format!(
                            "{kt}x{mt}x{nt}: the {name} tile of the instruction at K = {k0}, M = {m0}, N = {n0} starts at partition {}, not 0",
                            at.partition
                        ));
                    }
                }
                steps.push(Step { k0, m0, n0, a: a_at, b: b_at, c: c_at, accumulate: k0 > 0 });
            }
        }
    }
    Ok(MatmulPlan { tile: [kt, mt, nt], steps })
}
