//! Tensor-memory operands (sm_100a): the accumulator, and operand A when it is in tensor memory, must be a tile
//! of the data-path layout of the instruction shape ([`super::atoms::tmem_d_for`], [`super::atoms::tmem_a`])
//! placed at a lane the data path allows (PTX ISA 9.7.16.10.5: lane 0 for M=128, lane 0 or 16 for M=64), within
//! the 512 columns of tensor memory (9.7.16.1).
//!
//! Units on `TCol`: tensor memory is 128 lanes of 512 32-bit columns; a layout of `b`-bit elements counts
//! `b`-bit slots on TCol, [`slots_per_column`] `= 32 / b` to a column, low bits first: slot `s` is column
//! `s / (32 / b)`, bits `[b * (s % (32 / b)), ...)`. So the meaning of a tensor-memory layout depends on its
//! element type only (an allocation's columns follow from the alloc alone), and the ISA's two formats are
//! layouts: the accumulator is unpacked (9.7.16.10.4.1, a 16-bit element in the low half of its own column: TCol
//! stride 2), A is packed (9.7.16.10.4, two 16-bit or four 8-bit K elements to a column: stride 1). For 32-bit
//! elements a slot is a column. Each instruction tile must start on a column boundary; addresses and column counts
//! in the plan are always 32-bit columns.

use super::{MmaError, MmaRule, Operand, Role};
use crate::axis::Axis;
use crate::layout::Layout;
use crate::tile_layout::{flatten, TileLayout};
use crate::tile_of::outer_of;
use std::collections::BTreeMap;

/// Tensor memory has 512 columns of 32 bits per lane (sm_100a).
pub const TMEM_COLUMNS: i64 = 512;
/// Tensor memory has 128 lanes.
pub const TMEM_LANES: i64 = 128;

/// Where each instruction tile of a tensor-memory operand starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TmemTiles {
    /// The grid of instruction tiles.
    pub grid: [i64; 2],
    /// `(lane, column)` of each tile's first element, row-major over `grid` (32-bit columns).
    pub tiles: Vec<(i64, i64)>,
    /// The 32-bit columns one instruction tile occupies (N for the accumulator, `K / (32 / bits)` for A).
    pub width: i64,
    /// Columns the operand reaches (its span on `TCol`, offset included, in 32-bit columns).
    pub columns: i64,
}

impl TmemTiles {
    /// The address of tile `(r, c)`.
    pub fn at(&self, r: i64, c: i64) -> (i64, i64) {
        self.tiles.get((r * self.grid[1] + c) as usize).copied().unwrap_or((0, 0))
    }
}

/// The columns `tcgen05.alloc` must allocate to cover `used` columns: a power of two, at least 32.
pub fn alloc_columns(used: i64) -> i64 {
    let mut n = 32;
    while n < used {
        n *= 2;
    }
    n
}

/// TCol slots per 32-bit tensor-memory column for `bits`-bit elements (see the module documentation): 2 for
/// 16-bit, 4 for 8-bit, 1 for 32-bit elements.
pub fn slots_per_column(bits: u32) -> i64 {
    i64::from(32 / bits.clamp(1, 32))
}

/// Matches a tensor-memory operand of `slot_bits`-bit elements to the data-path atom of an `m`-row instruction
/// (see the module docs); `atom_shape[1]` spans `width` 32-bit columns in the atom.
pub fn match_tmem(
    role: Role,
    op: &Operand<'_>,
    atom: &TileLayout,
    atom_shape: [i64; 2],
    m: i64,
    slot_bits: u32,
    width: i64,
) -> Result<TmemTiles, MmaError> {
    let name = role.name();
    let per = slots_per_column(slot_bits);
    let fail = |msg: String| MmaError::new(MmaRule::TmemDatapath, msg);
    let (lane, col) =
        (Axis::named("TLane").map_err(|e| fail(e.message))?, Axis::named("TCol").map_err(|e| fail(e.message))?);
    let tile = match op.layout {
        Layout::Tile(t) => t,
        Layout::Compose(_) => return Err(fail(format!("operand {name} is in tensor memory but has a swizzle"))),
    };
    if let Some(a) = tile.axes().into_iter().find(|a| *a != lane && *a != col) {
        return Err(fail(format!(
            "operand {name} is in tensor memory but its layout moves '{a}', not only TLane and TCol"
        )));
    }
    if tile.replica().iter().any(|i| i.extent > 1) {
        return Err(fail(format!("operand {name} is in tensor memory but its layout has a replica")));
    }
    let packing =
        if per > 1 { format!(" (TCol in {slot_bits}-bit slots, {per} to a 32-bit column)") } else { String::new() };
    let (shard, replica, _) = tile.clone().into_parts();
    let bare = TileLayout::new(shard, replica, BTreeMap::new()).map_err(|e| fail(e.message))?;
    outer_of(&Layout::Tile(bare), &Layout::Tile(atom.clone()), op.shape, &atom_shape).map_err(|e| {
        fail(format!(
            "operand {name} is not a tile of the M={m} tensor-memory data-path layout {atom} over \
             {atom_shape:?}{packing}: {e}"
        ))
    })?;
    let columns = (tile.span_on(col) + per - 1) / per;
    if columns > TMEM_COLUMNS {
        return Err(MmaError::new(
            MmaRule::TmemColumns,
            format!(
                "operand {name} reaches column {}{packing}, but tensor memory has {TMEM_COLUMNS} columns",
                columns - 1
            ),
        ));
    }
    let grid = [op.shape[0] / atom_shape[0], op.shape[1] / atom_shape[1]];
    let allowed: &[i64] = if m == 64 { &[0, 16] } else { &[0] };
    let mut tiles = Vec::new();
    for r in 0..grid[0] {
        for c in 0..grid[1] {
            let x = [r * atom_shape[0], c * atom_shape[1]];
            let flat = flatten(op.shape, &x).map_err(|e| fail(e.message))?;
            let point = tile.base_point(flat);
            let (l, k) = (point.get(&lane).copied().unwrap_or(0), point.get(&col).copied().unwrap_or(0));
            if !allowed.contains(&l) || k < 0 {
                return Err(fail(format!(
                    "operand {name}'s instruction tile at {x:?} starts at lane {l}, column {k}; an M={m} data path \
                     starts at lane {}",
                    allowed.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(" or ")
                )));
            }
            if k % per != 0 {
                return Err(fail(format!(
                    "operand {name}'s instruction tile at {x:?} starts at TCol slot {k}, inside a 32-bit column \
                     ({per} {slot_bits}-bit elements to a column); an instruction reads whole columns"
                )));
            }
            tiles.push((l, k / per));
        }
    }
    Ok(TmemTiles { grid, tiles, width, columns })
}
