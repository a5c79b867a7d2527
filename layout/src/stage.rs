//! Run-time offsets of a region along one dimension of a tensor in memory (a shared ring's stage index, a loop's
//! tile index): which digit of the layout the offset moves and by how many elements of memory.
//!
//! A dimension of a layout grouped by its shape is a list of digits (iters), innermost first. An offset that is a
//! multiple of `P`, the product of the extents below the dimension's outermost non-unit digit, changes that digit
//! alone, by `value / P`, and leaves every inner digit as it is; so every element of the region moves by the same
//! `stride * value / P` on the memory axis `m` (the swizzle aside, which the callers check against their hardware
//! rule). The TMA planner's shared side ([`crate::tma::plan_offsets`]) and the tensor-core planner's run-time
//! operand starts ([`crate::mma::plan_moving`]) state their run-time terms with it.

use crate::axis::Axis;
use crate::canonicalize::canonicalize;
use crate::group::group;
use crate::layout::Layout;
use crate::notation::shape_text;

/// How a run-time offset along one dimension moves a region.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DigitStep {
    /// `P`: elements of the dimension per step of the digit it moves (the offset is divided by it, exactly).
    pub divisor: i64,
    /// The digit's stride on the memory axis `m`, in elements: how far one step moves every element.
    pub stride: i64,
    /// The digit's extent (how many steps the dimension holds).
    pub extent: i64,
}

/// The digit a run-time offset along `dim` of a tensor of `layout` over `shape` moves, for an offset known to be a
/// multiple of `multiple`. Refused (a message with the numbers, for the caller to put under its rule) when the
/// layout does not group by the shape, the dimension has extent 1, or `multiple` is not a multiple of `P`.
pub fn digit_step(layout: &Layout, shape: &[i64], dim: usize, multiple: i64) -> Result<DigitStep, String> {
    let canon = canonicalize(&Layout::Tile(layout.tile().clone())).layout;
    let grouped = group(canon.tile(), shape)
        .map_err(|e| format!("the layout {layout} does not group by the shape {}: {e}", shape_text(shape)))?;
    let (Some(&lo), Some(&hi)) = (grouped.seps.get(dim), grouped.seps.get(dim + 1)) else {
        return Err(format!("the shape {} has no dimension {dim}", shape_text(shape)));
    };
    let block = grouped.layout.shard().get(lo..hi).unwrap_or(&[]);
    // Innermost first: the outermost non-unit digit and the product of the extents below it.
    let mut divisor = 1i64;
    let mut outer: Option<(i64, i64)> = None;
    for it in block.iter().rev().filter(|it| it.extent > 1) {
        if it.axis != Axis::M {
            return Err(format!("dimension {dim} has a digit on axis '{}', not on memory axis m", it.axis));
        }
        if let Some((extent, _)) = outer {
            divisor = divisor.saturating_mul(extent);
        }
        outer = Some((it.extent, it.stride));
    }
    let Some((extent, stride)) = outer else {
        return Err(format!("dimension {dim} has extent 1, so a run-time offset along it can only be 0"));
    };
    if multiple < 1 || multiple % divisor != 0 {
        return Err(format!(
            "dimension {dim} moves by a run-time offset known to be a multiple of {multiple}, but the layout's \
             outermost digit of that dimension (extent {extent}, stride {stride}) steps every {divisor} elements: \
             the offset must be a multiple of {divisor} to move whole stages"
        ));
    }
    Ok(DigitStep { divisor, stride, extent })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_layout;

    fn step(text: &str, shape: &[i64], dim: usize, multiple: i64) -> Result<DigitStep, String> {
        digit_step(&parse_layout(text).unwrap(), shape, dim, multiple)
    }

    /// A ring of stages: the stage index moves the outer digit (stride 8192) one step at a time; a dense ring kept
    /// as rows fuses into one digit of the row stride; the swizzle does not change the digits.
    #[test]
    fn ring_digits() {
        let ring = step("Swizzle(3,3,3) o S[(3,128,64):(8192,64,1)]", &[3, 128, 64], 0, 1).unwrap();
        assert_eq!(ring, DigitStep { divisor: 1, stride: 8192, extent: 3 });
        let rows = step("S[(384,64):(64,1)]", &[384, 64], 0, 128).unwrap();
        assert_eq!(rows, DigitStep { divisor: 1, stride: 64, extent: 384 });
        let padded = step("S[(3,64,64):(4160,64,1)]", &[192, 64], 0, 64).unwrap();
        assert_eq!(padded, DigitStep { divisor: 64, stride: 4160, extent: 3 });
    }

    /// Refusals with the numbers: mid-digit offsets, an extent-1 dimension, a layout that does not group.
    #[test]
    fn refusals() {
        let mid = step("S[(3,64,64):(4160,64,1)]", &[192, 64], 0, 32).unwrap_err();
        assert!(mid.contains("multiple of 32") && mid.contains("steps every 64 elements"), "{mid}");
        let unit = step("S[(1,64):(64,1)]", &[1, 64], 0, 1).unwrap_err();
        assert!(unit.contains("extent 1"), "{unit}");
        assert!(step("S[(6,4):(1,6)]", &[4, 6], 0, 1).is_err());
        assert!(step("S[(8,8):(8,1)]", &[8, 8], 2, 1).is_err());
    }
}
