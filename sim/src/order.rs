//! Happens-before between the warps of a CTA, as vector clocks (one per warp), so that the lockstep interpreter
//! can tell whether two accesses of different warps are ordered by synchronization or only by the lockstep
//! schedule (which the hardware does not keep: warps drift apart between synchronization points).
//!
//! Warp `w`'s clock is a vector: entry `w` counts `w`'s own releases, entry `x` is the newest of `x`'s clock
//! values `w` has synchronized with. An access by `w` is stamped with `w`'s own entry; it happens before a later
//! access by `y` when `y`'s entry for `w` reaches the stamp. The synchronizations (PTX ISA 8.7 "Memory
//! Consistency Model", 9.7.13.15 "mbarrier"):
//! - a CTA barrier (`bar.sync`, `gpu.barrier`) joins every warp's clock into every other's, then each warp's own
//!   entry advances ([`Clocks::barrier`]);
//! - an mbarrier arrival releases the arriving warp's clock into the barrier ([`Clocks::release`]); a wait that
//!   observes a completed phase acquires the barrier's clock as it was when that phase completed
//!   ([`Clocks::acquire`]; arrivals are read-modify-writes of the barrier, so an observer synchronizes with every
//!   arrival before the phase completed).
//!
//! Threads of one warp share its clock: the model orders the lanes of a warp by program order (the interpreter's
//! lockstep), and the accesses of different lanes of one warp by CTA barriers only (`machine.rs`).

/// One vector clock per warp.
#[derive(Clone, Debug, Default)]
pub struct Clocks {
    /// Warps.
    warps: usize,
    /// `warps x warps`, row `w` is warp `w`'s clock.
    vc: Vec<u32>,
}

impl Clocks {
    /// The clocks of `warps` warps at the kernel's start: each warp at 1 in its own entry, knowing nothing of
    /// the others (0), so that no access of one warp is ordered before another's.
    pub fn new(warps: usize) -> Clocks {
        let mut vc = vec![0; warps * warps];
        for w in 0..warps {
            vc[w * warps + w] = 1;
        }
        Clocks { warps, vc }
    }

    /// The number of warps.
    pub fn warps(&self) -> usize {
        self.warps
    }

    /// Warp `w`'s own clock: the stamp of its accesses now.
    pub fn own(&self, w: usize) -> u32 {
        self.vc[w * self.warps + w]
    }

    /// Whether warp `x`'s access stamped `stamp` happens before what warp `y` does now (always, within a warp).
    pub fn ordered(&self, x: usize, stamp: u32, y: usize) -> bool {
        x == y || self.vc[y * self.warps + x] >= stamp
    }

    /// A CTA barrier: every warp synchronizes with every other.
    pub fn barrier(&mut self) {
        let w = self.warps;
        let joined: Vec<u32> = (0..w).map(|x| (0..w).map(|y| self.vc[y * w + x]).max().unwrap_or(0)).collect();
        for y in 0..w {
            self.vc[y * w..(y + 1) * w].copy_from_slice(&joined);
            self.vc[y * w + y] += 1;
        }
    }

    /// A release by warp `w` (an mbarrier arrival): its clock as released, then its own entry advances (what it
    /// does later is not covered by this release).
    pub fn release(&mut self, w: usize) -> Vec<u32> {
        let snapshot = self.vc[w * self.warps..(w + 1) * self.warps].to_vec();
        self.vc[w * self.warps + w] += 1;
        snapshot
    }

    /// An acquire by warp `w` of a released clock (`clock`, as [`Self::release`] gave it or a join of such).
    pub fn acquire(&mut self, w: usize, clock: &[u32]) {
        for (x, c) in clock.iter().enumerate() {
            let e = &mut self.vc[w * self.warps + x];
            *e = (*e).max(*c);
        }
    }
}

/// Joins `clock` into `into` (entry by entry, the newest).
pub fn join(into: &mut [u32], clock: &[u32]) {
    for (a, b) in into.iter_mut().zip(clock) {
        *a = (*a).max(*b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_barrier_orders_everything_before_it_and_nothing_after() {
        let mut c = Clocks::new(3);
        let stamp = c.own(1);
        assert!(!c.ordered(1, stamp, 0), "no synchronization yet");
        c.barrier();
        assert!(c.ordered(1, stamp, 0) && c.ordered(1, stamp, 2));
        let later = c.own(1);
        assert!(later > stamp && !c.ordered(1, later, 0), "an access after the barrier is not ordered by it");
    }

    #[test]
    fn release_acquire_orders_only_what_came_before_the_release() {
        let mut c = Clocks::new(2);
        let before = c.own(0);
        let released = c.release(0);
        let after = c.own(0);
        c.acquire(1, &released);
        assert!(c.ordered(0, before, 1));
        assert!(!c.ordered(0, after, 1));
        // Transitive: what warp 1 learned it passes on.
        let mut c3 = Clocks::new(3);
        let s = c3.own(0);
        let r0 = c3.release(0);
        c3.acquire(1, &r0);
        let r1 = c3.release(1);
        c3.acquire(2, &r1);
        assert!(c3.ordered(0, s, 2));
    }
}
