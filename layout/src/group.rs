//! Grouping a layout by a shape (paper App. B). STUB: being implemented.

use crate::error::{LayoutError, Result};
use crate::tile_layout::TileLayout;

/// A layout whose shard is split into consecutive blocks, one per dimension of the shape it was grouped by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grouped {
    /// The regrouped layout (same induced map over the shape).
    pub layout: TileLayout,
    /// Block boundaries: dimension `i` owns shard iters `seps[i]..seps[i+1]`; `seps.len() == rank + 1`.
    pub seps: Vec<usize>,
}

/// Splits and fuses shard iters, in order, so consecutive blocks multiply to the dims of `shape`.
pub fn group(layout: &TileLayout, shape: &[i64]) -> Result<Grouped> {
    let _ = (layout, shape);
    Err(LayoutError::new("not implemented"))
}
