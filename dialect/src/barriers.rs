//! Barrier arrays: which element of which `!axe.mbarrier<N>` an op uses.
//!
//! `axe.mbarrier_alloc` makes an array of N barriers (`!axe.mbarrier` is N = 1). The barrier ops and
//! `axe.copy_async` name one element, `%bars[%i]`; the index is left out for a single barrier, and an
//! `axe.mbarrier_init` without an index initializes every element. The operand layout of each op is read here,
//! in one place: barrier ops are (barrier, index?, then `phase` for a wait), a copy is (source, dest, barrier?,
//! index?).

use crate::{access, ops::AxeOp, OpKind};
use melior::ir::{operation::OperationLike, Value, ValueLike};

/// The barrier element an op uses.
#[derive(Clone, Copy, Debug)]
pub struct BarrierUse<'c, 'a> {
    /// The barrier array (an `!axe.mbarrier` value).
    pub array: Value<'c, 'a>,
    /// The element's index operand (`index`), when written.
    pub index: Option<Value<'c, 'a>>,
    /// The number of barriers in the array.
    pub count: i64,
}

impl<'c, 'a> BarrierUse<'c, 'a> {
    /// The element's index when it is a constant (`arith.constant`), or 0 for a single barrier without one.
    pub fn constant_index(&self) -> Option<i64> {
        match self.index {
            None if self.count == 1 => Some(0),
            None => None,
            Some(index) => access::constant_int(index),
        }
    }

    /// True when the op names the whole array (an index-less `axe.mbarrier_init` of an array).
    pub fn is_whole_array(&self) -> bool {
        self.index.is_none() && self.count > 1
    }
}

/// The barrier element `op` uses: `None` for ops without one (and for a copy without a barrier).
pub fn barrier_use<'c, 'a>(op: &AxeOp<'c, 'a>) -> Option<BarrierUse<'c, 'a>> {
    let operation = op.operation();
    let count = operation.operand_count();
    let (array, index) = match op.kind() {
        OpKind::CopyAsync => (access::operand(operation, 2)?, access::operand(operation, 3)),
        OpKind::MbarrierWait => {
            // (barrier, index, phase) or (barrier, phase).
            let index = if count == 3 { access::operand(operation, 1) } else { None };
            (access::operand(operation, 0)?, index)
        }
        OpKind::MbarrierInit | OpKind::MbarrierArrive | OpKind::MbarrierArriveExpectTx => {
            (access::operand(operation, 0)?, access::operand(operation, 1))
        }
        _ => return None,
    };
    Some(BarrierUse { array, index, count: array_count(&array.r#type().to_string())? })
}

/// The barrier count of an array's type: an `!axe.mbarrier`, or the `!nvgpu.mbarrier.group` `--lower-tma` replaces
/// it by (while it lowers the ops on it).
fn array_count(text: &str) -> Option<i64> {
    if let Some(count) = mbarrier_count(text) {
        return Some(count);
    }
    let group = text.strip_prefix("!nvgpu.mbarrier.group<")?;
    match group.split_once("num_barriers = ") {
        Some((_, rest)) => rest.trim_end_matches('>').trim().parse().ok(),
        None => Some(1),
    }
}

/// The phase operand of an `axe.mbarrier_wait` (its last operand).
pub fn wait_phase<'c, 'a>(op: &AxeOp<'c, 'a>) -> Option<Value<'c, 'a>> {
    let operation = op.operation();
    (op.kind() == OpKind::MbarrierWait)
        .then(|| access::operand(operation, operation.operand_count().checked_sub(1)?))?
}

/// The barrier count of a printed `!axe.mbarrier` (1) or `!axe.mbarrier<N>` type; `None` for other types.
pub fn mbarrier_count(text: &str) -> Option<i64> {
    let rest = text.strip_prefix("!axe.mbarrier")?;
    if rest.is_empty() {
        return Some(1);
    }
    rest.strip_prefix('<')?.strip_suffix('>')?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_read_from_the_type() {
        assert_eq!(mbarrier_count("!axe.mbarrier"), Some(1));
        assert_eq!(mbarrier_count("!axe.mbarrier<3>"), Some(3));
        assert_eq!(mbarrier_count("!axe.tensor<4xf16, reg>"), None);
        assert_eq!(mbarrier_count("!axe.mbarrierx"), None);
        let group = "!nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>";
        assert_eq!(array_count(&format!("{group}>")), Some(1));
        assert_eq!(array_count(&format!("{group}, num_barriers = 3>")), Some(3));
    }
}
