//! Slicing a layout to a rectangular region (paper App. E). STUB: being implemented.

use crate::error::{LayoutError, Result};
use crate::layout::Layout;

/// A layout L' over the region's extents with `L'(y) == L(y + begin)`; `region[i] = (begin, end)` half-open.
pub fn slice(layout: &Layout, shape: &[i64], region: &[(i64, i64)]) -> Result<Layout> {
    let _ = (layout, shape, region);
    Err(LayoutError::new("not implemented"))
}
