//! Named barrier ids (`bar.sync id, count`) of a kernel, shared by the passes that emit them (`--lower-copy` for
//! `axe.sync`, `--lower-tma` for a TMA store by a range of warps), so that two ranges never share an id.
//!
//! A CTA has 16: id 0 is the whole CTA's (`bar.sync 0`), ids 1 to G its G warpgroups' (`bar.sync 1 + g, 128`),
//! and the rest go to ranges of warps, one each, in the order the passes ask. The kernel keeps the ranges it
//! gave out as `axe.named_barriers = {warps_0_8 = 4 : i64, ...}`, so a pass that runs later reuses them.

use super::kernel::known_block;
use axe_dialect::ffi;
use melior::ir::{operation::OperationLike, OperationRef};

/// The kernel attribute recording each range's id.
const ATTRIBUTE: &str = "axe.named_barriers";

/// The id of the named barrier of warps `first..end` in `kernel`, given out on first use.
pub(crate) fn range_id(kernel: OperationRef, first: i64, end: i64) -> Result<i64, String> {
    let key = format!("warps_{first}_{end}");
    let text = kernel.attribute(ATTRIBUTE).map(|a| a.to_string()).unwrap_or_default();
    let mut entries: Vec<(String, i64)> = text
        .trim()
        .trim_start_matches('{')
        .trim_end_matches('}')
        .split(',')
        .filter_map(|entry| {
            let (name, value) = entry.split_once('=')?;
            let id = value.split(':').next()?.trim().parse().ok()?;
            Some((name.trim().to_string(), id))
        })
        .collect();
    if let Some((_, id)) = entries.iter().find(|(name, _)| *name == key) {
        return Ok(*id);
    }
    let groups = (known_block(kernel).iter().product::<i64>() + 127) / 128;
    let id = entries.iter().map(|(_, id)| id + 1).max().unwrap_or(1 + groups).max(1 + groups);
    if id > 15 {
        return Err(format!(
            "warps [{first}, {end}) need named barrier {id}: a kernel has 16 (0 for the CTA, 1 to {groups} for its \
             warpgroups, the rest one per range of warps)"
        ));
    }
    entries.push((key, id));
    entries.sort();
    let items: Vec<String> = entries.iter().map(|(name, id)| format!("{name} = {id} : i64")).collect();
    let text = format!("{{{}}}", items.join(", "));
    let attribute = ffi::parse_attribute(kernel, &text).ok_or_else(|| format!("internal: {text} does not parse"))?;
    ffi::set_attribute(kernel, ATTRIBUTE, attribute);
    Ok(id)
}
