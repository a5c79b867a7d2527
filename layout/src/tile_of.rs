//! Deciding whether a layout is a tile and recovering the factor (paper App. D). STUB: being implemented.

use crate::error::{LayoutError, Result};
use crate::layout::Layout;
use crate::tile_layout::TileLayout;

/// Given tiled T and inner A, finds outer B with tile(A, B) == T.
pub fn outer_of(tiled: &Layout, inner: &Layout, tiled_shape: &[i64], inner_shape: &[i64]) -> Result<TileLayout> {
    let _ = (tiled, inner, tiled_shape, inner_shape);
    Err(LayoutError::new("not implemented"))
}

/// Given tiled T and outer B, finds inner A with tile(A, B) == T.
pub fn inner_of(tiled: &Layout, outer: &TileLayout, tiled_shape: &[i64], outer_shape: &[i64]) -> Result<Layout> {
    let _ = (tiled, outer, tiled_shape, outer_shape);
    Err(LayoutError::new("not implemented"))
}
