//! Shared-memory operands: which swizzle atom and major-ness the layout is a tile of, and each instruction's
//! matrix descriptor (PTX ISA 9.7.15.5.1.2 "Shared Memory Matrix Layout", the same canonical layouts for
//! tcgen05 in 9.7.16.3).
//!
//! **Matching** ([`match_shared`]): the layout must be plain on `m` (no replica); its swizzle fixes the mode
//! ([`crate::Swizzle::mode_for_dtype`]; a plain layout is the unswizzled mode); the offset is the matrix start
//! and is set aside; then the rest must be a tile ([`crate::tile_of::outer_of`]) of the mode's atom
//! ([`super::atoms::smem_atom`]) in K- or MN-major orientation, tried in that order. An operand narrower than an
//! atom row along its contiguous dimension (a K slice of a 128B-swizzled tile) is matched as the slice of a
//! whole row: its contiguous stride-1 iter is widened to the row first.
//!
//! **Descriptors** ([`descriptor`]): with `T` elements per 16 bytes and `w` per swizzle row, the ISA's canonical
//! layouts (in elements, `mn` along M or N, `k` along K) are
//!
//! ```text
//! K-major,  none:     (mn%8)*T + (mn/8)*SBO + k%T + (k/T)*LBO
//! K-major,  swizzled: (mn%8)*w + (mn/8)*SBO + k                         (LBO unused, encoded 1)
//! MN-major, none:     mn%T + (mn/T)*SBO + (k%8)*T + (k/8)*LBO
//! MN-major, swizzled: mn%w + (mn/w)*LBO + (k%8)*w + (k/8)*SBO
//! ```
//!
//! followed by the swizzle on the absolute byte address. The start is the layout's address of the tile's first
//! element; LBO and SBO are read off the layout at the next core matrix or atom; then every element of the
//! instruction tile is checked against `start + canonical`, so a descriptor is never emitted for a tile it does
//! not describe.

use super::atoms::{chunk_elems, row_elems, smem_atom};
use super::desc::smem_desc;
use super::{Family, Major, MmaError, MmaRule, Operand, Role, SmemDesc};
use crate::axis::Axis;
use crate::group::group;
use crate::iter::Iter;
use crate::layout::{ComposeLayout, Layout};
use crate::swizzle::{Swizzle, SwizzleMode};
use crate::tile_layout::{flatten, TileLayout};
use crate::tile_of::outer_of;
use std::collections::BTreeMap;

/// A shared operand matched to its swizzle atom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SmemMatch {
    /// The operand.
    pub role: Role,
    /// The swizzle mode.
    pub mode: SwizzleMode,
    /// The major-ness whose atom the layout tiles.
    pub major: Major,
    /// The layout's tile before the swizzle, offset included: element addresses from the tensor's base.
    pub tile: TileLayout,
    /// The operand's shape.
    pub shape: [i64; 2],
    /// Element size in bits.
    pub dtype_bits: u32,
}

impl SmemMatch {
    /// The alignment the shared tensor's base needs for the layout's swizzle to be the hardware's: the
    /// pattern's repeat (8 rows of the span: 1024/512/256 bytes), 16 bytes unswizzled.
    pub fn base_alignment_bytes(&self) -> i64 {
        match self.mode {
            SwizzleMode::None => 16,
            m => 8 * m.bytes(),
        }
    }

    /// The pre-swizzle element address of operand coordinate `x`.
    fn address(&self, x: [i64; 2]) -> Result<i64, MmaError> {
        let flat = flatten(&self.shape, &x).map_err(|e| MmaError::new(MmaRule::Input, e.message))?;
        Ok(self.tile.base_point(flat).get(&Axis::M).copied().unwrap_or(0))
    }
}

fn atom_err(msg: String) -> MmaError {
    MmaError::new(MmaRule::SmemAtom, msg)
}

/// Matches a shared operand to a swizzle atom (see the module documentation).
pub fn match_shared(role: Role, op: &Operand<'_>, dtype_bits: u32) -> Result<SmemMatch, MmaError> {
    let name = role.name();
    let tile = op.layout.tile();
    if let Some(a) = tile.axes().into_iter().find(|a| *a != Axis::M) {
        return Err(atom_err(format!("operand {name} is in shared memory but its layout moves '{a}', not only m")));
    }
    if tile.replica().iter().any(|i| i.extent > 1) {
        return Err(atom_err(format!("operand {name} is in shared memory but its layout has a replica")));
    }
    let mode = match op.layout.swizzle() {
        None => SwizzleMode::None,
        Some(sw) => sw.mode_for_dtype(dtype_bits).ok_or_else(|| {
            let expected: Vec<String> = [SwizzleMode::B128, SwizzleMode::B64, SwizzleMode::B32]
                .into_iter()
                .filter_map(|m| Swizzle::for_dtype(dtype_bits, m).ok().flatten().map(|s| format!("{s} ({})", m.name())))
                .collect();
            MmaError::new(
                MmaRule::Swizzle,
                format!(
                    "operand {name} has {sw}, which is not a tensor-core swizzle atom for {dtype_bits}-bit elements \
                     (expected one of {})",
                    expected.join(", ")
                ),
            )
        })?,
    };
    let shape = [op.shape[0], op.shape[1]];
    let (shard, replica, _) = tile.clone().into_parts();
    let bare = TileLayout::new(shard, replica, BTreeMap::new()).map_err(|e| atom_err(e.message))?;
    let mut reasons = Vec::new();
    for major in [Major::K, Major::MN] {
        match tiles_atom(&bare, op.layout.swizzle(), shape, mode, major, role, dtype_bits) {
            Ok(()) => return Ok(SmemMatch { role, mode, major, tile: tile.clone(), shape, dtype_bits }),
            Err(why) => reasons.push(format!("{}-major: {why}", major.name())),
        }
    }
    Err(atom_err(format!(
        "operand {name} (shape {shape:?}) is not a tile of the {} swizzle atom for {dtype_bits}-bit elements: {}",
        mode.name(),
        reasons.join("; ")
    )))
}

/// Whether `bare` (offset removed) under `swizzle` tiles the atom of `mode`/`major`, widening a contiguous
/// dimension narrower than an atom row first.
fn tiles_atom(
    bare: &TileLayout,
    swizzle: Option<Swizzle>,
    shape: [i64; 2],
    mode: SwizzleMode,
    major: Major,
    role: Role,
    dtype_bits: u32,
) -> Result<(), String> {
    let (atom, atom_shape) = smem_atom(mode, major, role, dtype_bits).map_err(|e| e.message)?;
    let mut wide_shape = shape;
    let mut layout = bare.clone();
    for d in 0..2 {
        if shape[d] >= atom_shape[d] {
            continue;
        }
        if atom_shape[d] % shape[d] != 0 {
            return Err(format!(
                "dimension {d} has {} elements, which does not divide the atom's {}",
                shape[d], atom_shape[d]
            ));
        }
        layout = widen(&layout, shape, d, atom_shape[d])?;
        wide_shape[d] = atom_shape[d];
    }
    let layout = match swizzle {
        None => Layout::Tile(layout),
        Some(sw) => Layout::Compose(ComposeLayout::new(sw, layout).map_err(|e| e.message)?),
    };
    outer_of(&layout, &atom, &wide_shape, &atom_shape).map(|_| ()).map_err(|e| e.message)
}

/// The layout with dimension `d` (a single contiguous iter of extent `shape[d]`) widened to `to` elements: the
/// whole atom row that the operand is a slice of.
fn widen(layout: &TileLayout, shape: [i64; 2], d: usize, to: i64) -> Result<TileLayout, String> {
    let g = group(layout, &shape).map_err(|e| e.message)?;
    let block: Vec<&Iter> = g.block(d).iter().filter(|i| i.extent > 1).collect();
    if block.len() != 1 || block[0].stride != 1 {
        return Err(format!(
            "dimension {d} has {} elements, fewer than an atom row of {to}, and is not one contiguous run",
            shape[d]
        ));
    }
    let mut shard = Vec::new();
    for e in 0..2 {
        if e == d {
            shard.push(Iter::new(to, 1, Axis::M).map_err(|e| e.message)?);
        } else {
            shard.extend_from_slice(g.block(e));
        }
    }
    TileLayout::new(shard, vec![], BTreeMap::new()).map_err(|e| e.message)
}

/// The ISA's canonical offset (elements) of `(mn, k)` from the matrix start, for strides `lbo`, `sbo` in
/// elements (see the module documentation).
pub fn canonical_offset(mode: SwizzleMode, major: Major, dtype_bits: u32, mn: i64, k: i64, lbo: i64, sbo: i64) -> i64 {
    let t = chunk_elems(dtype_bits);
    let w = row_elems(mode, dtype_bits);
    match (major, mode) {
        (Major::K, SwizzleMode::None) => (mn % 8) * t + (mn / 8) * sbo + k % t + (k / t) * lbo,
        (Major::K, _) => (mn % 8) * w + (mn / 8) * sbo + k,
        (Major::MN, SwizzleMode::None) => mn % t + (mn / t) * sbo + (k % 8) * t + (k / 8) * lbo,
        (Major::MN, _) => mn % w + (mn / w) * lbo + (k % 8) * w + (k / 8) * sbo,
    }
}

/// The matrix descriptor of the instruction tile at operand coordinate `origin` with `mn_ext` elements along
/// M/N and `k_ext` along K, for `family` (see the module documentation).
pub fn descriptor(
    m: &SmemMatch,
    family: Family,
    origin: [i64; 2],
    mn_ext: i64,
    k_ext: i64,
) -> Result<SmemDesc, MmaError> {
    let name = m.role.name();
    let bytes = i64::from(m.dtype_bits / 8);
    let at = |mn: i64, k: i64| -> Result<i64, MmaError> {
        let x = match m.role {
            Role::B => [origin[0] + k, origin[1] + mn],
            _ => [origin[0] + mn, origin[1] + k],
        };
        m.address(x)
    };
    let t = chunk_elems(m.dtype_bits);
    let w = row_elems(m.mode, m.dtype_bits);
    let start = at(0, 0)?;
    let step = |used: bool, mn: i64, k: i64| -> Result<Option<i64>, MmaError> {
        if used {
            Ok(Some(at(mn, k)? - start))
        } else {
            Ok(None)
        }
    };
    // (LBO, SBO) in elements, None where the instruction tile has one group in that direction.
    let (lbo, sbo) = match (m.major, m.mode) {
        (Major::K, SwizzleMode::None) => (step(k_ext > t, 0, t)?, step(mn_ext > 8, 8, 0)?),
        (Major::K, _) => (None, step(mn_ext > 8, 8, 0)?),
        (Major::MN, SwizzleMode::None) => (step(k_ext > 8, 0, 8)?, step(mn_ext > t, t, 0)?),
        (Major::MN, _) => (step(mn_ext > w, w, 0)?, step(k_ext > 8, 0, 8)?),
    };
    let what = format!("operand {name}'s instruction tile at {origin:?}");
    if start * bytes % 16 != 0 {
        return Err(MmaError::new(
            MmaRule::Alignment,
            format!("{what} starts at byte {}, not a multiple of 16", start * bytes),
        ));
    }
    if m.mode != SwizzleMode::None {
        let within = start.rem_euclid(w);
        let contiguous = match m.major {
            Major::K => k_ext,
            Major::MN => mn_ext.min(w),
        };
        if within + contiguous > w {
            return Err(MmaError::new(
                MmaRule::Alignment,
                format!(
                    "{what} starts {} bytes into a {} swizzle row and its {} bytes cross the row's end",
                    within * bytes,
                    m.mode.name(),
                    contiguous * bytes
                ),
            ));
        }
        let pattern = (start - within) * bytes;
        let repeat = m.base_alignment_bytes();
        if pattern % repeat != 0 {
            return Err(MmaError::new(
                MmaRule::Alignment,
                format!(
                    "{what} has its {} swizzle pattern start at byte {pattern}, not a multiple of {repeat} (a matrix \
                     base offset would be needed)",
                    m.mode.name()
                ),
            ));
        }
    }
    for mn in 0..mn_ext {
        for k in 0..k_ext {
            let want = at(mn, k)?;
            let got =
                start + canonical_offset(m.mode, m.major, m.dtype_bits, mn, k, lbo.unwrap_or(0), sbo.unwrap_or(0));
            if want != got {
                return Err(atom_err(format!(
                    "{what} is not the canonical {}-major {} layout of one instruction: element (mn {mn}, k {k}) is \
                     at element {want}, the descriptor (start {start}, LBO {}, SBO {}) gives {got}",
                    m.major.name(),
                    m.mode.name(),
                    lbo.unwrap_or(0),
                    sbo.unwrap_or(0)
                )));
            }
        }
    }
    for (what_field, v) in [("LBO", lbo), ("SBO", sbo)] {
        if v.is_some_and(|v| v < 0) {
            return Err(atom_err(format!("{what}: the {what_field} would be negative ({} elements)", v.unwrap_or(0))));
        }
    }
    smem_desc(family, start * bytes, lbo.map_or(16, |v| v * bytes), sbo.map_or(0, |v| v * bytes), m.mode, m.major)
}
