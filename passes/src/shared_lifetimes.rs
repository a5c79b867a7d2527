//! Shared memory by lifetime (issue 25): which shared allocs of a kernel are never live together, so that
//! `--axe-dynamic-shared` may give them the same bytes.
//!
//! The unit of time is the *epoch*: the top-level ops of a function's entry block, numbered by how many CTA
//! barriers (`axe.sync cta` without a thread subset, `gpu.barrier`) precede them. A barrier orders everything every thread did before
//! it before everything after it, so two allocs whose epochs are disjoint are never touched at once, by any
//! thread, whatever the threads' interleaving (warp roles included: an `axe.roles` is one top-level op).
//!
//! An alloc's epochs run from the first to the last top-level op that holds a use of it (through `axe.slice` and
//! `axe.view` results), stretched to the completion of the asynchronous operations on it:
//! - a load into it (`axe.copy_async` with a barrier) completes at a wait on its barrier array: to the last epoch
//!   that holds an `axe.mbarrier_wait` on that array (the last epoch of all when the array is not an
//!   `axe.mbarrier_alloc` of the function);
//! - a store from it (`axe.copy_async` to global) completes at a bulk wait the lowering places before the
//!   kernel returns: to the last epoch.
//!
//! Each shared `axe.alloc` directly in the entry block whose uses are all axe ops gets `axe.epochs = array<i64:
//! first, last>`; any other keeps no attribute and is live throughout. The lowerings annotate a module before
//! they rewrite anything ([`annotate`] is idempotent: the first lowering sees every use), `storage.rs` copies each
//! lowered alloc's epochs to its kernel's `axe.shared_epochs` (by global symbol), which `--axe-dynamic-shared` and
//! the simulator lay out with [`pack`].

use axe_dialect::{access, barriers, ffi, ops::walk_preorder, AxeOp, OpKind};
use axe_layout::hw::Memory;
use axe_layout::ExecScope;
use melior::ir::{block::BlockLike, operation::OperationLike, BlockRef, OperationRef, Value};
use std::collections::HashMap;

/// The attribute on a shared `axe.alloc`: its first and last epoch.
pub(crate) const EPOCHS: &str = "axe.epochs";

/// The kernel attribute recording each shared global's epochs (`{__axe_smem_0 = array<i64: 0, 0>}`).
pub const SHARED_EPOCHS: &str = "axe.shared_epochs";

/// The alignment of the dynamic shared window's base: the largest a buffer may ask for (a TMA swizzle, a wgmma
/// descriptor: 1024 bytes).
pub const WINDOW_ALIGNMENT: i64 = 1024;

/// Annotates the shared allocs of every function under `root` that has one without [`EPOCHS`].
pub(crate) fn annotate(root: OperationRef) {
    let mut functions = Vec::new();
    walk_preorder(root, &mut |op| {
        if matches!(op.name().as_string_ref().as_str(), Ok("gpu.func" | "func.func")) {
            functions.push(op);
        }
    });
    for function in functions {
        if let Some(entry) = access::entry_block(function) {
            annotate_block(function, entry);
        }
    }
}

/// One function's entry block.
fn annotate_block<'c, 'a>(function: OperationRef<'c, 'a>, entry: BlockRef<'c, 'a>) {
    let mut top: Vec<OperationRef<'c, 'a>> = Vec::new();
    let mut cursor = entry.first_operation();
    while let Some(op) = cursor {
        top.push(op);
        cursor = op.next_in_block();
    }
    let allocs: Vec<OperationRef> = top
        .iter()
        .copied()
        .filter(|op| {
            AxeOp::new(*op).is_some_and(|a| {
                a.kind() == OpKind::Alloc && a.tensor("result").is_some_and(|t| t.mem == Memory::Shared)
            }) && !op.has_attribute(EPOCHS)
        })
        .collect();
    if allocs.is_empty() {
        return;
    }
    // The epoch of each top-level op, and of every op nested in one (by key).
    let mut epoch = 0i64;
    let mut epoch_of: HashMap<access::OpKey, i64> = HashMap::new();
    for op in &top {
        if is_cta_barrier(*op) {
            epoch += 1;
        }
        walk_preorder(*op, &mut |inner| {
            epoch_of.insert(access::key(inner), epoch);
        });
    }
    let last = epoch;
    // The last epoch that waits on each barrier array (by the array value's defining op).
    let mut last_wait: HashMap<access::OpKey, i64> = HashMap::new();
    walk_preorder(function, &mut |op| {
        let Some(axe) = AxeOp::new(op).filter(|a| a.kind() == OpKind::MbarrierWait) else { return };
        let (Some(used), Some(&e)) = (barriers::barrier_use(&axe), epoch_of.get(&access::key(op))) else { return };
        if let Some(alloc) = access::defining_op(used.array) {
            let slot = last_wait.entry(access::key(alloc)).or_insert(e);
            *slot = (*slot).max(e);
        }
    });
    for alloc in allocs {
        let Some(result) = access::result(alloc, 0) else { continue };
        if let Some((first, end)) = epochs(result, &epoch_of, &last_wait, last) {
            if let Some(attribute) = ffi::parse_attribute(alloc, &format!("array<i64: {first}, {end}>")) {
                ffi::set_attribute(alloc, EPOCHS, attribute);
            }
        }
    }
}

/// The epochs of the storage behind `value`: `None` when a use escapes the axe ops (live throughout).
fn epochs<'c, 'a>(
    value: Value<'c, 'a>,
    epoch_of: &HashMap<access::OpKey, i64>,
    last_wait: &HashMap<access::OpKey, i64>,
    last: i64,
) -> Option<(i64, i64)> {
    let mut range: Option<(i64, i64)> = None;
    let mut widen = |e: i64| range = Some(range.map_or((e, e), |(a, b)| (a.min(e), b.max(e))));
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        for user in users(value) {
            let axe = AxeOp::new(user)?;
            let &e = epoch_of.get(&access::key(user))?;
            widen(e);
            match axe.kind() {
                OpKind::Slice | OpKind::View => pending.push(access::result(user, 0)?),
                OpKind::CopyAsync => {
                    let is_source = access::operand(user, 0).is_some_and(|s| s == value);
                    if is_source {
                        widen(last);
                    } else {
                        let completes = barriers::barrier_use(&axe)
                            .and_then(|b| access::defining_op(b.array))
                            .and_then(|alloc| last_wait.get(&access::key(alloc)).copied())
                            .unwrap_or(last);
                        widen(completes);
                    }
                }
                _ => {}
            }
        }
    }
    range
}

/// The ops that use `value`, each once.
fn users<'c, 'a>(value: Value<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut out: Vec<OperationRef> = Vec::new();
    for user in ffi::users(value) {
        if !out.iter().any(|o| access::key(*o) == access::key(user)) {
            out.push(user);
        }
    }
    out
}

/// `axe.sync cta` without a thread subset, or `gpu.barrier`: every thread of the CTA.
fn is_cta_barrier(op: OperationRef) -> bool {
    op.name().as_string_ref().as_str() == Ok("gpu.barrier")
        || AxeOp::new(op).is_some_and(|a| {
            a.kind() == OpKind::Sync && a.threads().is_none() && matches!(a.scope(), Some(Ok(ExecScope::Cta)))
        })
}

/// One shared buffer to lay out: its symbol, size, alignment and epochs (`None`: live throughout).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    /// The global's symbol.
    pub name: String,
    /// Its size in bytes.
    pub bytes: i64,
    /// The alignment its users need (at most [`WINDOW_ALIGNMENT`] is honoured: the window's base).
    pub alignment: i64,
    /// Its first and last epoch (`axe.shared_epochs`); buffers whose epochs are disjoint may share bytes.
    pub epochs: Option<(i64, i64)>,
}

/// Offsets for `buffers` (in their order) and the bytes they span: largest first (ties by name), each at the
/// lowest aligned offset where it overlaps no placed buffer it may be live with. Deterministic and independent of
/// the buffers' order, so the simulator lays out shared memory as this pass does.
pub fn pack(buffers: &[Buffer]) -> (Vec<i64>, i64) {
    let mut order: Vec<usize> = (0..buffers.len()).collect();
    order.sort_by(|&a, &b| buffers[b].bytes.cmp(&buffers[a].bytes).then(buffers[a].name.cmp(&buffers[b].name)));
    let together = |a: &Buffer, b: &Buffer| match (a.epochs, b.epochs) {
        (Some((a0, a1)), Some((b0, b1))) => a0 <= b1 && b0 <= a1,
        _ => true,
    };
    let mut offsets = vec![0i64; buffers.len()];
    let mut placed: Vec<usize> = Vec::new();
    for i in order {
        let buffer = &buffers[i];
        let alignment = buffer.alignment.clamp(1, WINDOW_ALIGNMENT);
        let live: Vec<usize> = placed.iter().copied().filter(|&p| together(buffer, &buffers[p])).collect();
        let mut candidates: Vec<i64> =
            std::iter::once(0).chain(live.iter().map(|&p| offsets[p] + buffers[p].bytes)).collect();
        candidates.sort_unstable();
        let fits = |start: i64| {
            live.iter().all(|&p| start + buffer.bytes <= offsets[p] || offsets[p] + buffers[p].bytes <= start)
        };
        let start =
            candidates.into_iter().map(|c| (c + alignment - 1) / alignment * alignment).find(|&c| fits(c)).unwrap_or(0);
        offsets[i] = start;
        placed.push(i);
    }
    let end = buffers.iter().zip(&offsets).map(|(b, o)| o + b.bytes).max().unwrap_or(0);
    (offsets, end)
}

/// Reads `axe.shared_epochs` (`{name = array<i64: first, last>, ...}`) into a map.
pub fn parse_epochs(text: &str) -> HashMap<String, (i64, i64)> {
    let inner = text.trim().trim_start_matches('{').trim_end_matches('}');
    inner
        .split('>')
        .filter_map(|entry| {
            let (name, numbers) = entry.split_once("= array<i64:")?;
            let (first, last) = numbers.split_once(',')?;
            let name = name.trim().trim_start_matches(',').trim().trim_matches('"').to_string();
            Some((name, (first.trim().parse().ok()?, last.trim().parse().ok()?)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buffer(name: &str, bytes: i64, alignment: i64, epochs: Option<(i64, i64)>) -> Buffer {
        Buffer { name: name.to_string(), bytes, alignment, epochs }
    }

    #[test]
    fn buffers_never_live_together_share_bytes() {
        let buffers =
            [buffer("ring", 96, 32, Some((0, 0))), buffer("c", 64, 32, Some((1, 1))), buffer("bars", 8, 8, None)];
        let (offsets, end) = pack(&buffers);
        assert_eq!(offsets, [0, 0, 96]);
        assert_eq!(end, 104);
    }

    #[test]
    fn live_buffers_never_overlap_and_keep_their_alignment() {
        // Random buffers (a small LCG: the test needs no dependency): every pair that may be live together is
        // disjoint in bytes, every offset is a multiple of its alignment, and the order of the input does not
        // change the layout.
        let mut state = 12345u64;
        let mut next = |n: u64| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) % n
        };
        for _ in 0..500 {
            let count = 1 + next(7) as usize;
            let buffers: Vec<Buffer> = (0..count)
                .map(|i| {
                    let epochs = (next(4) > 0).then(|| {
                        let first = next(4) as i64;
                        (first, first + next(3) as i64)
                    });
                    buffer(&format!("b{i}"), 1 + next(3000) as i64, 1 << next(11), epochs)
                })
                .collect();
            let (offsets, end) = pack(&buffers);
            for (i, a) in buffers.iter().enumerate() {
                assert_eq!(offsets[i] % a.alignment.min(WINDOW_ALIGNMENT), 0);
                assert!(offsets[i] + a.bytes <= end);
                for (j, b) in buffers.iter().enumerate().skip(i + 1) {
                    let together = match (a.epochs, b.epochs) {
                        (Some((a0, a1)), Some((b0, b1))) => a0 <= b1 && b0 <= a1,
                        _ => true,
                    };
                    let apart = offsets[i] + a.bytes <= offsets[j] || offsets[j] + b.bytes <= offsets[i];
                    assert!(!together || apart, "{a:?} at {} and {b:?} at {}", offsets[i], offsets[j]);
                }
            }
            let mut reversed = buffers.clone();
            reversed.reverse();
            let (mut back, _) = pack(&reversed);
            back.reverse();
            assert_eq!(back, offsets);
        }
    }

    #[test]
    fn epochs_read_back_from_the_attribute_text() {
        let map = parse_epochs("{__axe_smem_0 = array<i64: 0, 1>, __axe_smem_1 = array<i64: 2, 2>}");
        assert_eq!(map.get("__axe_smem_0"), Some(&(0, 1)));
        assert_eq!(map.get("__axe_smem_1"), Some(&(2, 2)));
        assert_eq!(map.len(), 2);
    }
}
