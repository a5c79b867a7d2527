//! Direct sum on the interleaved domain (paper App. F). STUB: being implemented.

use crate::error::{LayoutError, Result};
use crate::layout::Layout;
use crate::tile_layout::TileLayout;

/// direct_sum(A, B): `L(x_A * right_shape + x_B) = A(x_A) + B(x_B)` over shape `left_shape[i] * right_shape[i]`.
pub fn direct_sum(left: &TileLayout, right: &Layout, left_shape: &[i64], right_shape: &[i64]) -> Result<Layout> {
    let _ = (left, right, left_shape, right_shape);
    Err(LayoutError::new("not implemented"))
}
