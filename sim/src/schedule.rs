//! Schedules: the choices the hardware leaves open, made explicitly so that a test can run a kernel under several
//! of them and a kernel that is right only by luck of timing fails under some.
//!
//! - [`Completion`]: when an asynchronous operation (TMA load or store, `cp.async`, `tcgen05.mma` and its commit
//!   arrival) lands, between its issue and the latest point the PTX ISA allows (the wait that observes it):
//!   `Eager` at issue, `Lazy` at that wait, `Random` at a seeded random step in between. The rules (a read of
//!   bytes or registers not yet observed complete, a write of operands an operation still reads, a missing fence)
//!   are checked the same way under every policy; the policy moves data and mbarrier phases in time.
//! - [`WarpOrder`]: the interpreter executes each op for all active threads of a strand at once; the order of the
//!   warps within one op (whose stores land first, which warp's arrival completes a phase), which side of a
//!   divergent `scf.if` / which case of a divergent `scf.index_switch` starts first, and who runs next when a
//!   strand blocks (`exec/strand.rs`) are open on the hardware: forward, reverse or seeded-shuffled. Shuffled
//!   orders also hand the baton between strands at synchronization points (arrivals, passed waits), so different
//!   seeds run a producer and its consumers in different interleavings. Warps of one strand drifting apart between
//!   synchronization points are not executed but covered by rule: an access counts as ordered after another
//!   warp's only through synchronization (`order.rs`, `machine.rs`).

/// When asynchronous operations complete (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Completion {
    /// At issue.
    Eager,
    /// At the wait that observes them (the latest moment allowed).
    Lazy,
    /// At random steps in between (the seed).
    Random(u64),
}

/// The order of warps within an op and of divergent regions (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpOrder {
    /// Warp 0 first; `then` before `else`, cases in order, strands handed over in order.
    Forward,
    /// The last warp first; `else` before `then`, cases in reverse, strands handed over in reverse.
    Reverse,
    /// A seeded random order, drawn again at every op, and seeded hand-overs between strands.
    Shuffled(u64),
}

/// One schedule: a completion policy and a warp order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// When asynchronous operations land.
    pub completion: Completion,
    /// The order of warps and divergent regions.
    pub warps: WarpOrder,
}

impl Default for Schedule {
    /// Lazy completion, forward order: the schedule [`crate::run`] uses.
    fn default() -> Schedule {
        Schedule { completion: Completion::Lazy, warps: WarpOrder::Forward }
    }
}

impl Schedule {
    /// The schedules every kernel test runs: lazy/forward, eager/reverse and two seeded random ones.
    pub fn all() -> Vec<Schedule> {
        vec![
            Schedule::default(),
            Schedule { completion: Completion::Eager, warps: WarpOrder::Reverse },
            Schedule { completion: Completion::Random(1), warps: WarpOrder::Shuffled(7) },
            Schedule { completion: Completion::Random(2), warps: WarpOrder::Shuffled(11) },
        ]
    }
}

/// A small deterministic generator (splitmix64), so a seeded schedule replays exactly.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// Shuffles `items` (Fisher-Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }
}
