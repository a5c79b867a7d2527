//! Canonicalization (paper App. A). STUB: being implemented.

use crate::error::{LayoutError, Result};
use crate::layout::Layout;

/// A canonical layout and whether the paper's gap condition holds for it (then the form is unique).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Canonical {
    /// The canonical layout, with the same induced map as the input.
    pub layout: Layout,
    /// True when the gap condition (Lemma A.9, cumulative separation of replica strides) holds.
    pub gap_condition: bool,
}

/// Canonicalizes `layout`: D0, D1, zero offsets dropped, C0, C1, C2, sorted replica.
pub fn canonicalize(layout: &Layout) -> Canonical {
    Canonical { layout: layout.clone(), gap_condition: false }
}

/// Whether two layouts have the same induced map over `shape`.
pub fn equivalent(a: &Layout, b: &Layout, shape: &[i64]) -> Result<bool> {
    let _ = (a, b, shape);
    Err(LayoutError::new("not implemented"))
}
