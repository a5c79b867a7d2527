//! What a kernel declares about its launch: `known_block_size = array<i32: x, y, z>` on its `gpu.func`.

use melior::ir::{
    attribute::{ArrayAttribute, DictionaryAttribute, StringAttribute},
    operation::OperationLike,
    OperationRef,
};

/// The kernel's `known_block_size` (x, y, z), empty when `func` has none.
pub fn known_block(func: OperationRef) -> Vec<i64> {
    let Ok(attribute) = func.attribute("known_block_size") else { return Vec::new() };
    let text = attribute.to_string();
    let list = text.split_once(':').map(|(_, list)| list).unwrap_or("");
    list.trim_end_matches('>').split(',').filter_map(|d| d.trim().parse().ok()).collect()
}

/// The grid of the kernel's launch record (`axe.launch = {grid = ["x", "y", "z"], ...}`) as written, `None` when
/// `func` has no record or no grid.
pub fn launch_grid(func: OperationRef) -> Option<Vec<String>> {
    let launch = DictionaryAttribute::try_from(func.attribute("axe.launch").ok()?).ok()?;
    let grid = ArrayAttribute::try_from(launch.element_by_name("grid")?).ok()?;
    (0..grid.len())
        .map(|i| grid.element(i).ok().and_then(|e| StringAttribute::try_from(e).ok()).map(|s| s.value().to_string()))
        .collect()
}
