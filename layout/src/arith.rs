//! Checked integer arithmetic for layout computations.
//!
//! Layouts come from user text, so every product or sum that could leave `i64` is checked and turned into a
//! [`LayoutError`] instead of a panic or a silent wrap.

use crate::error::{LayoutError, Result};

/// The largest magnitude a stride, offset or iter reach `(extent-1)*|stride|` may have. With at most
/// [`MAX_ITERS`] iters, every coordinate a layout produces stays far inside `i64`.
pub const MAX_MAGNITUDE: i64 = 1 << 48;

/// The most iters a shard or replica list may hold.
pub const MAX_ITERS: usize = 64;

fn overflow(what: &str) -> LayoutError {
    LayoutError::new(format!("arithmetic overflow while computing {what}"))
}

/// `a * b`, or an error naming `what`.
pub fn mul(a: i64, b: i64, what: &str) -> Result<i64> {
    a.checked_mul(b).ok_or_else(|| overflow(what))
}

/// `a + b`, or an error naming `what`.
pub fn add(a: i64, b: i64, what: &str) -> Result<i64> {
    a.checked_add(b).ok_or_else(|| overflow(what))
}

/// The product of `values`, or an error naming `what`.
pub fn product(values: impl IntoIterator<Item = i64>, what: &str) -> Result<i64> {
    values.into_iter().try_fold(1i64, |acc, v| mul(acc, v, what))
}

/// Checks that `value` is within [`MAX_MAGNITUDE`].
pub fn bounded(value: i64, what: &str) -> Result<i64> {
    if value.unsigned_abs() > MAX_MAGNITUDE as u64 {
        return Err(LayoutError::new(format!("{what} {value} exceeds the supported magnitude 2^48")));
    }
    Ok(value)
}
