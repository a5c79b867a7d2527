//! The persistent tile loop (`axe.tile_loop`, issue 25): which output tiles a CTA computes, in which order.
//!
//! A persistent kernel launches at most one CTA per SM and lets each CTA walk the output tiles `bx, bx +
//! gridDim.x, ...`; the order the tiles are numbered in decides what the CTAs running at once share in L2.
//! Grouped order numbers `group` rows of tiles at a time, column by column inside a group (Triton's
//! `GROUP_SIZE_M`, CUTLASS's raster swizzle): `group` CTAs that run together read the same `group` row panels of
//! A and one column panel of B, instead of one row panel and `group` column panels. [`grouped`] is that
//! numbering; `--lower-tile-loops` writes it as index arithmetic and the simulator runs what it writes.
//!
//! Rules (the verifier's `tile-loop`): two positive tile sizes and a positive group; the body's block arguments
//! are the tile's two `index` coordinates and one value per carried value, of its type; the loop's results, its
//! initial values and its `axe.yield` have the same types.

use crate::{
    access,
    ops::{AxeOp, OpKind},
    types::parse_i64_array,
};
use melior::ir::{block::BlockLike, operation::OperationLike, OperationRef, Type, ValueLike};

/// A checked `axe.tile_loop`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileLoop {
    /// Rows and columns of one tile.
    pub tile: [i64; 2],
    /// Tile rows per group of the grouped order (1: row major).
    pub group: i64,
}

/// Operands before the carried values: the row and column extents.
pub const EXTENTS: usize = 2;

/// The tile `(row, column)` numbered `t` in grouped order over `rows x cols` tiles with groups of `group` tile
/// rows: groups take `group * cols` consecutive numbers (the last group may have fewer rows), and inside a group
/// the numbers run down a column of the group's rows, then on to the next column.
pub fn grouped(t: i64, rows: i64, cols: i64, group: i64) -> (i64, i64) {
    let per_group = group * cols;
    let first = t / per_group * group;
    let height = (rows - first).min(group);
    let within = t % per_group;
    (first + within % height, within / height)
}

/// Checks `op` (an `axe.tile_loop`): the loop, or the errors.
pub fn check(op: OperationRef) -> Result<TileLoop, Vec<String>> {
    let axe =
        AxeOp::new(op).filter(|a| a.kind() == OpKind::TileLoop).ok_or_else(|| vec!["not an axe.tile_loop".into()])?;
    let mut errors = Vec::new();
    let tile = axe.attribute_text("tile").map(|t| parse_i64_array(&t)).unwrap_or_else(|| Err("is missing".into()));
    let tile = match tile.as_deref() {
        Ok(&[rows, cols]) if rows > 0 && cols > 0 => [rows, cols],
        Ok(sizes) => {
            errors.push(format!("the tile is two positive sizes (rows, columns), got {sizes:?}"));
            [1, 1]
        }
        Err(e) => {
            errors.push(format!("tile {e}"));
            [1, 1]
        }
    };
    let group = axe.integer_attribute("group").unwrap_or(Ok(1)).unwrap_or(0);
    if group < 1 {
        errors.push(format!("the group is a positive number of tile rows, got {group}"));
    }
    let inits: Vec<Type> = op.operands().skip(EXTENTS).map(|v| v.r#type()).collect();
    let results: Vec<Type> = op.results().map(|v| v.r#type()).collect();
    if inits != results {
        errors.push(format!("the results' types {} are not the carried values' {}", types(&results), types(&inits)));
    }
    match access::entry_block(op) {
        Some(body) => {
            let arguments: Vec<String> = access::arguments(body).map(|a| a.r#type().to_string()).collect();
            let expected: Vec<String> = ["index".to_string(), "index".to_string()]
                .into_iter()
                .chain(inits.iter().map(|t| t.to_string()))
                .collect();
            if arguments != expected {
                errors.push(format!(
                    "the body's arguments are the tile's row and column (index) and the carried values: ({}), got ({})",
                    expected.join(", "),
                    arguments.join(", ")
                ));
            }
            if let Some(terminator) = body.terminator() {
                let yielded: Vec<Type> = terminator.operands().map(|v| v.r#type()).collect();
                if yielded != inits {
                    errors.push(format!(
                        "axe.yield carries {} to the next tile, but the loop carries {}",
                        types(&yielded),
                        types(&inits)
                    ));
                }
            }
        }
        None => errors.push("the loop has no body".into()),
    }
    if errors.is_empty() {
        Ok(TileLoop { tile, group })
    } else {
        Err(errors)
    }
}

/// `(i32, i1)`.
fn types(types: &[Type]) -> String {
    let names: Vec<String> = types.iter().map(|t| t.to_string()).collect();
    format!("({})", names.join(", "))
}

#[cfg(test)]
mod tests {
    use super::grouped;

    /// Every tile exactly once, and the grouped order as its definition says, by a second, independent count:
    /// walk the groups, then the columns, then the rows of each group.
    #[test]
    fn grouped_order_numbers_every_tile_once() {
        for (rows, cols, group) in [(1, 1, 1), (9, 4, 8), (17, 3, 8), (5, 7, 2), (4, 4, 1), (3, 5, 8)] {
            let mut expected = Vec::new();
            let mut first = 0;
            while first < rows {
                let height = (rows - first).min(group);
                for col in 0..cols {
                    for row in first..first + height {
                        expected.push((row, col));
                    }
                }
                first += group;
            }
            let got: Vec<_> = (0..rows * cols).map(|t| grouped(t, rows, cols, group)).collect();
            assert_eq!(got, expected, "{rows}x{cols} tiles, groups of {group}");
        }
    }
}
