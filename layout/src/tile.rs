//! Tiling (paper App. C). STUB: being implemented.

use crate::error::{LayoutError, Result};
use crate::layout::Layout;
use crate::tile_layout::TileLayout;

/// tile(inner, outer): the layout over shape `outer_shape[i] * inner_shape[i]` with
/// `L(x_outer * inner_shape + x_inner) = span(inner) (.) outer(x_outer) + inner(x_inner)`.
pub fn tile(inner: &Layout, outer: &TileLayout, inner_shape: &[i64], outer_shape: &[i64]) -> Result<Layout> {
    let _ = (inner, outer, inner_shape, outer_shape);
    Err(LayoutError::new("not implemented"))
}
