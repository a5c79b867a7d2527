//! Iters: `(extent, stride, axis)`, the building block of shards and replicas (paper Definition 2.1).

use crate::arith::{bounded, mul};
use crate::axis::Axis;
use crate::error::{LayoutError, Result};

/// One iter: `extent` consecutive digits, each step moving `stride` along `axis`.
///
/// Invariant (checked by [`Iter::new`]): `extent >= 1` and `(extent - 1) * |stride|` within
/// [`crate::arith::MAX_MAGNITUDE`]. Stride 0 (broadcast) and negative strides are allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Iter {
    /// Number of digit values, at least 1.
    pub extent: i64,
    /// Step along `axis` per digit (any integer).
    pub stride: i64,
    /// The axis moved along.
    pub axis: Axis,
}

impl Iter {
    /// A checked iter.
    pub fn new(extent: i64, stride: i64, axis: Axis) -> Result<Iter> {
        if extent < 1 {
            return Err(LayoutError::new(format!("iter extent must be at least 1, got {extent}")));
        }
        bounded(stride, "iter stride")?;
        bounded(mul(extent - 1, stride.abs(), "iter reach")?, "iter reach (extent-1)*|stride|")?;
        Ok(Iter { extent, stride, axis })
    }

    /// An iter on the default memory axis `m`.
    pub fn m(extent: i64, stride: i64) -> Result<Iter> {
        Iter::new(extent, stride, Axis::M)
    }

    /// `(extent - 1) * |stride|`: how far the iter reaches along its axis (saturating for an iter built by hand
    /// beyond [`Iter::new`]'s limits, where it cannot overflow).
    pub fn reach(&self) -> i64 {
        self.extent.saturating_sub(1).saturating_mul(self.stride.saturating_abs())
    }
}
