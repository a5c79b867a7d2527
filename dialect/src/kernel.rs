//! What a kernel declares about its launch: `known_block_size = array<i32: x, y, z>` on its `gpu.func`.

use melior::ir::{operation::OperationLike, OperationRef};

/// The kernel's `known_block_size` (x, y, z), empty when `func` has none.
pub fn known_block(func: OperationRef) -> Vec<i64> {
    let Ok(attribute) = func.attribute("known_block_size") else { return Vec::new() };
    let text = attribute.to_string();
    let list = text.split_once(':').map(|(_, list)| list).unwrap_or("");
    list.trim_end_matches('>').split(',').filter_map(|d| d.trim().parse().ok()).collect()
}
