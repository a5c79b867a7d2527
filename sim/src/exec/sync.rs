//! Synchronization: the CTA barrier (`gpu.barrier`, `bar.sync`), mbarriers (`nvgpu.mbarrier.*`,
//! `nvvm.mbarrier.*`: create, init, arrive[.expect_tx], try_wait.parity), `fence.mbarrier_init`,
//! `fence.proxy.async` and `elect.sync`. The barrier state and its ordering checks live in `machine.rs`.

use super::{err, loc_of, Exec};
use crate::value::V;
use crate::SimError;
use axe_dialect::access;
use melior::ir::operation::OperationLike;
use melior::ir::{OperationRef, ValueLike};

impl Exec<'_, '_> {
    /// `gpu.barrier` (`bar.sync`): the whole CTA, joining every warp's clock.
    pub(super) fn cta_barrier(&mut self, op: OperationRef, mask: &[bool]) -> Result<(), SimError> {
        if mask.iter().any(|m| !m) {
            return err(&loc_of(op), "gpu.barrier (bar.sync) reached by only part of the CTA: it would hang");
        }
        self.m.epoch += 1;
        self.m.clocks.barrier();
        Ok(())
    }

    /// The mbarrier, fence and `elect.sync` ops (`act`: the active threads in the schedule's order).
    pub(super) fn sync_op(
        &mut self,
        op: OperationRef,
        name: &str,
        mask: &[bool],
        act: Vec<usize>,
        loc: &str,
    ) -> Result<(), SimError> {
        match name {
            // fence.mbarrier_init.release.cluster (PTX ISA 9.7.13.4): orders the thread's mbarrier.init before
            // other threads' uses of the barrier (with a synchronization between them, `machine.rs`).
            "nvvm.fence.mbarrier.init" => {
                for t in act {
                    self.m.fence_mbarrier_init(t);
                }
            }
            "nvvm.fence.proxy" => {
                // fence.proxy.async[.shared::cta]: orders the thread's generic-proxy writes before later
                // async-proxy accesses (other kinds, e.g. tensormap, do not).
                let kind = op.attribute("kind").map(|a| a.to_string()).unwrap_or_default();
                if kind.contains("async") {
                    for t in act {
                        self.m.proxy_fence[t] = self.steps;
                    }
                }
            }
            "nvvm.elect.sync" => {
                let members =
                    if op.operand_count() > 0 { self.scalars(op, 0, loc)? } else { vec![0xffff_ffff; self.n] };
                let elected = self.elect_sync(&members, mask, loc)?;
                self.set(op, 0, V::S(elected));
            }
            "nvgpu.mbarrier.create" => {
                // A group of `num_barriers` barriers, 8 bytes each (the result type says how many).
                let ty = access::result(op, 0).map(|r| r.r#type().to_string()).unwrap_or_default();
                let count = ty
                    .split_once("num_barriers = ")
                    .and_then(|(_, rest)| rest.split(|c: char| !c.is_ascii_digit()).next()?.parse::<u64>().ok())
                    .unwrap_or(1);
                let addr = self.m.alloc_shared(8 * count, 8, loc)?;
                self.m.bar_slots.push(addr);
                self.set(op, 0, V::S(vec![addr; self.n]));
            }
            "nvgpu.mbarrier.init" | "nvvm.mbarrier.init" | "nvvm.mbarrier.init.shared" => {
                let (addr, count) = if name.starts_with("nvgpu") {
                    (self.bar_addr(op, 0, 2, loc)?, self.scalars(op, 1, loc)?)
                } else {
                    (self.scalars(op, 0, loc)?, self.scalars(op, 1, loc)?)
                };
                for t in act {
                    self.m.init_bar(addr[t], count[t] as i64, t, loc)?;
                }
            }
            "nvgpu.mbarrier.arrive.expect_tx" | "nvgpu.mbarrier.arrive" => {
                let expect = name.ends_with("expect_tx");
                let addr = self.bar_addr(op, 0, if expect { 2 } else { 1 }, loc)?;
                let tx = if expect { self.scalars(op, 1, loc)? } else { vec![0; self.n] };
                for t in act {
                    self.arrive(addr[t], tx[t] as i64, t, loc)?;
                }
                if !expect {
                    self.set(op, 0, V::S(vec![0; self.n]));
                }
                self.interleave()?;
            }
            "nvvm.mbarrier.arrive" | "nvvm.mbarrier.arrive.expect_tx" => {
                let addr = self.scalars(op, 0, loc)?;
                let tx = if name.ends_with("expect_tx") { self.scalars(op, 1, loc)? } else { vec![0; self.n] };
                for t in act {
                    self.arrive(addr[t], tx[t] as i64, t, loc)?;
                }
                self.set(op, 0, V::S(vec![0; self.n]));
                self.interleave()?;
            }
            "nvgpu.mbarrier.try_wait.parity" | "nvvm.mbarrier.try_wait.parity" => {
                self.try_wait_parity(op, name, &act, loc)?
            }
            _ => return err(loc, format!("not modelled: {name}")),
        }
        Ok(())
    }

    /// `mbarrier.try_wait.parity`: the strand blocks until the phase of each barrier its threads wait on has
    /// completed (a wait no strand can complete is a deadlock, `strand.rs`), then each waiting warp acquires the
    /// phase it observed.
    fn try_wait_parity(&mut self, op: OperationRef, name: &str, act: &[usize], loc: &str) -> Result<(), SimError> {
        let (addr, parity) = if name.starts_with("nvgpu") {
            (self.bar_addr(op, 0, 3, loc)?, self.scalars(op, 1, loc)?)
        } else {
            (self.scalars(op, 0, loc)?, self.scalars(op, 1, loc)?)
        };
        let mut waits = Vec::new();
        for &t in act {
            self.m.check_bar_use(addr[t], t, "try_wait.parity", loc)?;
            if !waits.contains(&(addr[t], parity[t] & 1)) {
                waits.push((addr[t], parity[t] & 1));
            }
        }
        self.block_until(loc, false, |ex| {
            for &(a, p) in &waits {
                if let Some(what) = ex.m.try_parity(a, p, loc)? {
                    return Ok(Some(what));
                }
            }
            Ok(None)
        })?;
        // Each waiting warp synchronizes with the arrivals of the phase it observed.
        let mut warps = std::collections::HashSet::new();
        for &t in act {
            if warps.insert((addr[t], t / 32)) {
                self.m.waited(addr[t], t / 32, loc)?;
            }
        }
        self.interleave()
    }

    /// An arrival by `thread` on the barrier at `addr` (`tx` transaction bytes expected): it releases the thread's
    /// warp's clock.
    fn arrive(&mut self, addr: u64, tx: i64, thread: usize, loc: &str) -> Result<u64, SimError> {
        self.m.check_bar_use(addr, thread, "arrive", loc)?;
        let clock = self.m.clocks.release(thread / 32);
        self.m.arrive(addr, tx, &clock, loc)
    }

    /// The shared address of barrier `group[mbarId]` per thread (each barrier of a group is 8 bytes).
    fn bar_addr(&self, op: OperationRef, group: usize, id: usize, loc: &str) -> Result<Vec<u64>, SimError> {
        let base = self.scalars(op, group, loc)?;
        let idx = self.scalars(op, id, loc)?;
        Ok(base.iter().zip(&idx).map(|(b, i)| b + 8 * i).collect())
    }

    /// `elect.sync _|p, membermask` (PTX ISA, "elect.sync", sm_90): per warp, each active thread must be in its
    /// `membermask` (undefined otherwise) and waits until every thread of the mask executes the instruction, so a
    /// mask lane of the CTA that is not active here would hang: both are faults. One leader of the mask is
    /// elected, the same one every time; the ISA does not say which, and the hardware's choice, modelled here, is
    /// the lowest lane. `p` is 1 on the leader, 0 on every other thread.
    fn elect_sync(&self, members: &[u64], mask: &[bool], loc: &str) -> Result<Vec<u64>, SimError> {
        let mut out = vec![0; self.n];
        for w in 0..self.n.div_ceil(32) {
            let threads = w * 32..((w + 1) * 32).min(self.n);
            let Some(first) = threads.clone().find(|&t| mask[t]) else { continue };
            let membermask = members[first] & 0xffff_ffff;
            for t in threads.clone() {
                let bit = membermask >> (t - w * 32) & 1 == 1;
                if mask[t] && members[t] & 0xffff_ffff != membermask {
                    return err(loc, format!("elect.sync in warp {w}: membermask differs between active threads"));
                }
                if mask[t] && !bit {
                    return err(
                        loc,
                        format!("elect.sync: thread {t} executes it but is not in membermask {membermask:#x}"),
                    );
                }
                if bit && !mask[t] {
                    return err(loc, format!("elect.sync: lane {} of warp {w} is in membermask {membermask:#x} but does not execute it: the warp would wait forever", t - w * 32));
                }
            }
            out[first] = 1;
        }
        Ok(out)
    }
}
