//! Named barriers (`bar.sync id, count`: `nvvm.barrier` with an id and a thread count) and `bar.warp.sync`, from
//! the PTX ISA (9.7.13.1 "bar, barrier"; 9.7.13.3 "bar.warp.sync"), independently of the lowering that emits them.
//!
//! - `bar.sync a, b`: the executing threads arrive at barrier `a` (0 to 15) of the CTA and wait until `b` threads
//!   have arrived (`b` a multiple of 32); arrivals count whole warps (a warp that arrives with only some of its
//!   threads active is undefined behaviour: an error here), and more than `b` arrivals before it completes is an
//!   error. Completion orders everything each participant did before its arrival before everything every
//!   participant does after (each arriving warp releases its clock into the barrier, each leaving warp acquires
//!   the join). Id 0 with the whole CTA is `gpu.barrier` (`sync.rs`).
//! - `bar.warp.sync membermask`: the lanes of the mask synchronize; a mask lane that is not active here would
//!   hang the warp (an error), and lanes of one warp already share a clock.

use super::{err, Exec};
use crate::order::join;
use crate::SimError;
use melior::ir::OperationRef;

/// One named barrier's state: the arrivals of the phase in progress and the clocks of the completed phases.
#[derive(Clone, Debug, Default)]
pub(super) struct Named {
    /// Threads arrived in the phase in progress.
    arrived: i64,
    /// The thread count the phase in progress waits for (the first arrival's `b`).
    count: i64,
    /// The join of the arriving warps' released clocks in the phase in progress.
    clock: Vec<u32>,
    /// Phases completed so far.
    completed: u64,
    /// The clock each completed phase left (by phase).
    released: Vec<Vec<u32>>,
}

impl Exec<'_, '_> {
    /// `nvvm.barrier %id, %count` by the threads of `mask`.
    pub(super) fn named_barrier(&mut self, op: OperationRef, mask: &[bool], loc: &str) -> Result<(), SimError> {
        let ids = self.scalars(op, 0, loc)?;
        let counts = self.scalars(op, 1, loc)?;
        let warps: Vec<usize> =
            (0..self.n.div_ceil(32)).filter(|w| (w * 32..((w + 1) * 32).min(self.n)).any(|t| mask[t])).collect();
        let Some(&first) = warps.first() else { return Ok(()) };
        let (id, count) = (ids[first * 32] as i64, counts[first * 32] as i64);
        for &w in &warps {
            let threads = w * 32..((w + 1) * 32).min(self.n);
            let active = threads.clone().filter(|&t| mask[t]).count();
            if active != threads.len() {
                return err(
                    loc,
                    format!("bar.sync {id}: warp {w} arrives with {active} of its {} threads", threads.len()),
                );
            }
            if threads.clone().any(|t| ids[t] as i64 != id || counts[t] as i64 != count) {
                return err(loc, format!("bar.sync: the threads of warp {w} name different barriers or counts"));
            }
        }
        if !(0..16).contains(&id) || count <= 0 || count % 32 != 0 {
            return err(loc, format!("bar.sync {id}, {count}: the id must be 0 to 15 and the count a multiple of 32"));
        }
        let slot = id as usize;
        let warps_n = self.m.clocks.warps();
        let phase = {
            let named = &mut self.named[slot];
            if named.arrived == 0 {
                named.count = count;
                named.clock = vec![0; warps_n];
            } else if named.count != count {
                return err(
                    loc,
                    format!(
                        "bar.sync {id}: {count} threads expected here, {} by the threads already waiting",
                        named.count
                    ),
                );
            }
            named.completed
        };
        for &w in &warps {
            let released = self.m.clocks.release(w);
            join(&mut self.named[slot].clock, &released);
        }
        let named = &mut self.named[slot];
        named.arrived += 32 * warps.len() as i64;
        if named.arrived > count {
            return err(loc, format!("bar.sync {id}, {count}: {} threads arrived", named.arrived));
        }
        if named.arrived == count {
            let clock = std::mem::take(&mut named.clock);
            named.released.push(clock);
            named.completed += 1;
            named.arrived = 0;
        }
        self.block_until(loc, false, |ex| {
            let named = &ex.named[slot];
            Ok((named.completed <= phase)
                .then(|| format!("bar.sync {id}, {count}: {} of {count} threads arrived", named.arrived)))
        })?;
        let clock = self.named[slot].released[phase as usize].clone();
        for &w in &warps {
            self.m.clocks.acquire(w, &clock);
            // The barrier also orders the accesses of the warp's own lanes.
            if let Some(e) = self.m.named_epochs.get_mut(w) {
                *e += 1;
            }
        }
        Ok(())
    }

    /// `nvvm.bar.warp.sync %mask` by the threads of `mask`.
    pub(super) fn warp_sync(&mut self, op: OperationRef, mask: &[bool], loc: &str) -> Result<(), SimError> {
        let members = self.scalars(op, 0, loc)?;
        for w in 0..self.n.div_ceil(32) {
            let threads = w * 32..((w + 1) * 32).min(self.n);
            let Some(first) = threads.clone().find(|&t| mask[t]) else { continue };
            let membermask = members[first] & 0xffff_ffff;
            for t in threads {
                if membermask >> (t - w * 32) & 1 == 1 && !mask[t] {
                    return err(loc, format!("bar.warp.sync: lane {} of warp {w} is in the mask but does not execute it: the warp would wait forever", t - w * 32));
                }
            }
        }
        Ok(())
    }
}
