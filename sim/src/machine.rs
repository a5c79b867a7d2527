//! The machine state of one CTA: global buffers, shared memory, per-thread private memory, tensor memory and
//! mbarriers, with the fault checks every access makes.
//!
//! mbarriers follow the PTX ISA "Parallel Synchronization and Communication Instructions: mbarrier" section
//! (9.7.13.15): a barrier has an expected arrival count, a pending arrival count, a tx-count and a phase; the
//! current phase completes when the pending count and the tx-count are both zero, and the barrier moves to the
//! next phase with the pending count reset to the expected count. `try_wait.parity P` succeeds once the phase of
//! parity `P` has completed, i.e. when the current phase's parity differs from `P`.
//!
//! Shared memory keeps, per byte, which thread last wrote it (generic proxy), in which barrier interval (the count
//! of `bar.sync`s so far), at which step and at which clock of its warp (`order.rs`), and per warp the clock of
//! its last read. The interpreter runs warps in lockstep, but the hardware does not: two accesses of different
//! warps are ordered only by synchronization (CTA barriers, mbarrier arrive -> wait), so
//! - a read of a byte another warp wrote with no synchronization ordering the write before it is a
//!   read-after-write race, as is, within one warp, a read of another lane's write in the same barrier interval;
//! - a write (a thread's store, a TMA load or `cp.async` its thread issues) of a byte another warp read with no
//!   synchronization ordering the read before it is a write-after-read race; the reads of wgmma, tcgen05.mma and
//!   TMA stores count as reads of the warps that issued them, stamped when they are retired (`inflight.rs`);
//! - an asynchronous-proxy read (wgmma, tcgen05.mma, TMA store) of a byte a thread wrote after that thread's last
//!   `fence.proxy.async` is a missing proxy fence (PTX ISA 9.7.13.4 "membar/fence": generic-proxy writes are not
//!   visible to the async proxy without it).
//!
//! An mbarrier is also ordered: a thread other than the one that initialized it may use it only after that
//! thread's `fence.mbarrier_init` and a synchronization with it (9.7.13.15.9 "mbarrier.init", 9.7.13.4
//! "fence.mbarrier_init"); and a phase may complete only once some arrival of it is ordered after every wait
//! that observed the previous phase, since otherwise a fast warp can run the barrier two phases past a slow
//! waiter, whose parity wait then sees the wrong phase (a phase overrun). Asynchronous operations in flight live
//! in `inflight.rs`.

use crate::order::{join, Clocks};
use crate::SimError;
use std::collections::HashMap;

/// Size of the shared-memory window (sm_90/sm_100: 227 KiB per CTA).
pub const SHARED_BYTES: u64 = 232_448;
/// Tensor memory: 128 lanes x 512 columns of 32-bit cells (PTX ISA 9.7.16.2, "Tensor Memory").
pub const TMEM_LANES: u32 = 128;
/// Columns of tensor memory.
pub const TMEM_COLS: u32 = 512;
/// Where the first global buffer starts; buffers are spaced 4 GiB apart.
pub const GLOBAL_BASE: u64 = 1 << 40;

/// An mbarrier's state (PTX ISA 9.7.13.15.1, "Contents of the mbarrier object").
#[derive(Clone, Debug)]
pub struct Mbarrier {
    /// Expected arrivals per phase.
    pub expected: i64,
    /// Arrivals still missing in the current phase.
    pub pending: i64,
    /// Transaction bytes still missing in the current phase.
    pub tx: i64,
    /// The current phase number.
    pub phase: u64,
    /// The join of every arrival's clock so far (`order.rs`).
    pub cum: Vec<u32>,
    /// [`Self::cum`] when the last phase completed: what a wait observing it acquires.
    pub done: Vec<u32>,
    /// The join of the current phase's arrivals' clocks.
    pub arrived: Vec<u32>,
    /// Where the current phase's last arrival was made.
    pub last_arrive: String,
    /// The waits that observed the last completed phase: warp, its clock then, where.
    pub waiters: Vec<(usize, u32, String)>,
    /// Who initialized it, and whether it is fenced.
    pub init: BarInit,
}

/// The `mbarrier.init` of a barrier: other threads may use the barrier after the initializing thread's
/// `fence.mbarrier_init` and a synchronization with it.
#[derive(Clone, Debug)]
pub struct BarInit {
    /// The thread that initialized it.
    pub thread: usize,
    /// Its warp's clock then.
    pub clock: u32,
    /// The barrier interval then.
    pub epoch: u32,
    /// Where.
    pub loc: String,
    /// A `fence.mbarrier_init` by that thread followed the init.
    pub fenced: bool,
}

impl Mbarrier {
    /// Completes the phase when nothing is missing; whether it did.
    fn settle(&mut self) -> bool {
        if self.pending == 0 && self.tx == 0 {
            self.phase += 1;
            self.pending = self.expected;
            return true;
        }
        false
    }
}

/// A TMA load issued but not yet delivered to shared memory.
#[derive(Clone, Debug)]
pub struct PendingLoad {
    /// The barrier it completes bytes on.
    pub bar: u64,
    /// First shared byte written.
    pub start: u64,
    /// The bytes, from `start` (swizzle applied).
    pub bytes: Vec<u8>,
    /// Bytes credited to the barrier's tx-count.
    pub tx: i64,
    /// Where it was issued.
    pub loc: String,
    /// For `cp.async` (no barrier): the commit group it belongs to.
    pub group: Option<u64>,
    /// The issuing thread.
    pub thread: usize,
    /// Whether its bytes are in shared memory already (it stays invisible until a wait observes it).
    pub landed: bool,
    /// For a TMA load that landed: the barrier phase its complete-tx counted in.
    pub phase: Option<u64>,
    /// For a TMA load: its thread's warp's clock at the issue, which its complete-tx releases into the barrier
    /// (`order.rs`; empty for `cp.async`).
    pub clock: Vec<u32>,
}

/// A global buffer bound to a kernel argument.
#[derive(Clone, Debug)]
pub struct GlobalBuf {
    /// First address.
    pub base: u64,
    /// Contents.
    pub bytes: Vec<u8>,
}

/// The CTA's memories and barriers.
#[derive(Debug, Default)]
pub struct Machine {
    /// Global buffers, in argument order.
    pub globals: Vec<GlobalBuf>,
    /// Shared memory bytes (the allocated part of the window).
    pub shared: Vec<u8>,
    /// Private allocations: one byte vector per thread each.
    pub private: Vec<Vec<Vec<u8>>>,
    /// mbarriers by shared address (present once initialized).
    pub bars: HashMap<u64, Mbarrier>,
    /// Addresses handed out by `nvgpu.mbarrier.create`.
    pub bar_slots: Vec<u64>,
    /// Pending TMA loads, in issue order.
    pub pending: Vec<PendingLoad>,
    /// The `cp.async` group being filled (groups below it are committed).
    pub open_group: u64,
    /// Tensor memory cells, lane-major.
    pub tmem: Vec<u32>,
    /// Allocated tensor-memory column ranges `[start, start + n)`.
    pub tmem_allocs: Vec<(u32, u32)>,
    /// Per shared byte: the thread that last wrote it through the generic proxy, plus one (0: none, or the
    /// async proxy).
    pub writer: Vec<u32>,
    /// Per shared byte: the barrier interval of that write.
    pub wepoch: Vec<u32>,
    /// Per shared byte: the step of that write.
    pub wstep: Vec<u64>,
    /// Per shared byte: the writer's warp's clock at that write (`order.rs`).
    pub wclock: Vec<u32>,
    /// Per shared byte: where that write was made (an index into [`Self::locs`]).
    pub wloc: Vec<u32>,
    /// Per shared byte: that write was a TMA load's (async proxy, made visible by the mbarrier phase it
    /// completes, so ordered by clocks only and exempt from the proxy-fence check).
    pub wasync: Vec<bool>,
    /// Per shared byte and warp (`byte * warps + warp`): that warp's clock at its last read of it (0: none).
    pub rclock: Vec<u32>,
    /// Per shared byte and warp: where that read was made (an index into [`Self::locs`]).
    pub rloc: Vec<u32>,
    /// The warps' clocks (`order.rs`).
    pub clocks: Clocks,
    /// Op locations, by the index the access records keep.
    pub locs: Vec<String>,
    /// The index of each location in [`Self::locs`].
    pub loc_index: HashMap<String, u32>,
    /// The index of the location of the op being executed.
    pub cur_loc: u32,
    /// CTA barriers (`bar.sync`) executed so far: the current barrier interval.
    pub epoch: u32,
    /// Named barriers each warp has passed (`bar.sync id, count`): with [`Machine::epoch`], what orders the
    /// accesses of different lanes of one warp ([`Machine::lane_epoch`]).
    pub named_epochs: Vec<u32>,
    /// Per thread: the step of its last `fence.proxy.async` (0: none).
    pub proxy_fence: Vec<u64>,
    /// The step being executed.
    pub step: u64,
    /// Asynchronous operations in flight (`inflight.rs`).
    pub flight: crate::inflight::InFlight,
    /// Asynchronous completions so far (loads landed, commit arrivals): a blocked strand whose check lands one has
    /// changed what other strands wait on (`exec/strand.rs`).
    pub landed: u64,
}

impl Machine {
    /// Allocates `n` shared bytes at `align`; returns the address.
    pub fn alloc_shared(&mut self, n: u64, align: u64, loc: &str) -> Result<u64, SimError> {
        let align = align.max(1);
        let at = (self.shared.len() as u64).div_ceil(align) * align;
        if at + n > SHARED_BYTES {
            return Err(SimError::new(
                loc,
                format!("shared memory exhausted: {n} bytes at {at} exceed the {SHARED_BYTES}-byte window"),
            ));
        }
        self.shared.resize((at + n) as usize, 0);
        self.writer.resize((at + n) as usize, 0);
        self.wepoch.resize((at + n) as usize, 0);
        self.wstep.resize((at + n) as usize, 0);
        self.wclock.resize((at + n) as usize, 0);
        self.wloc.resize((at + n) as usize, 0);
        self.wasync.resize((at + n) as usize, false);
        let w = self.clocks.warps();
        self.rclock.resize((at + n) as usize * w, 0);
        self.rloc.resize((at + n) as usize * w, 0);
        Ok(at)
    }

    /// The global buffer holding `[addr, addr + n)`.
    pub(crate) fn global_index(&self, addr: u64, n: usize, loc: &str) -> Result<(usize, usize), SimError> {
        for (i, g) in self.globals.iter().enumerate() {
            if addr >= g.base && addr + n as u64 <= g.base + g.bytes.len() as u64 {
                return Ok((i, (addr - g.base) as usize));
            }
        }
        Err(SimError::new(loc, format!("out-of-bounds global access: {n} bytes at address {addr:#x}")))
    }

    fn shared_range(&self, addr: u64, n: usize, loc: &str) -> Result<usize, SimError> {
        if addr + n as u64 > self.shared.len() as u64 {
            return Err(SimError::new(
                loc,
                format!("out-of-bounds shared access: {n} bytes at {addr} (allocated: {} bytes)", self.shared.len()),
            ));
        }
        Ok(addr as usize)
    }

    /// Faults when a pending TMA load covers any of `[addr, addr + n)`.
    pub(crate) fn check_pending(&self, addr: u64, n: usize, what: &str, loc: &str) -> Result<(), SimError> {
        for p in &self.pending {
            if addr < p.start + p.bytes.len() as u64 && p.start < addr + n as u64 {
                let end = addr + n as u64;
                return Err(SimError::new(
                    loc,
                    match p.group {
                        None => format!(
                            "{what} of shared bytes [{addr}, {end}) that a pending TMA load (issued at {}, barrier {}) \
                             has not delivered: its barrier's phase was not waited for",
                            p.loc, p.bar
                        ),
                        Some(g) => format!(
                            "{what} of shared bytes [{addr}, {end}) that a pending cp.async (issued at {}, group {g}) \
                             has not delivered: no cp.async.wait_group retired its group",
                            p.loc
                        ),
                    },
                ));
            }
        }
        Ok(())
    }

    /// The index of location `loc` in [`Self::locs`] (added when new).
    pub fn intern(&mut self, loc: &str) -> u32 {
        if let Some(i) = self.loc_index.get(loc) {
            return *i;
        }
        self.locs.push(loc.to_string());
        let i = self.locs.len() as u32 - 1;
        self.loc_index.insert(loc.to_string(), i);
        i
    }

    /// A location by its index in [`Self::locs`].
    pub fn loc_name(&self, id: u32) -> &str {
        self.locs.get(id as usize).map_or("?", String::as_str)
    }

    /// The warps of threads `threads`.
    fn warps_of(threads: &std::ops::Range<usize>) -> std::ops::Range<usize> {
        threads.start / 32..threads.end.div_ceil(32)
    }

    /// The barrier interval of warp `w`'s lanes: it changes at every CTA barrier and every named barrier the warp
    /// passes, and lanes of one warp are ordered only across such a change.
    pub fn lane_epoch(&self, w: usize) -> u32 {
        self.epoch.wrapping_add(self.named_epochs.get(w).copied().unwrap_or(0))
    }

    /// The generic-proxy read of `[addr, addr + n)` by threads `readers` (a thread, a warp or a warpgroup): a byte
    /// another thread wrote with no synchronization ordering the write before the read is a read-after-write race
    /// (another warp: no CTA barrier or mbarrier wait between them; another lane of a reading warp: no CTA
    /// barrier between them).
    pub fn check_race(&self, addr: u64, n: usize, readers: std::ops::Range<usize>, loc: &str) -> Result<(), SimError> {
        let warps = Self::warps_of(&readers);
        for b in addr as usize..addr as usize + n {
            let w = self.writer[b];
            if w == 0 || readers.contains(&(w as usize - 1)) {
                continue;
            }
            let ww = (w as usize - 1) / 32;
            let ordered = if warps.contains(&ww) {
                self.wasync[b] || self.wepoch[b] != self.lane_epoch(ww)
            } else {
                warps.clone().any(|r| self.clocks.ordered(ww, self.wclock[b], r))
            };
            if !ordered {
                return Err(SimError::new(
                    loc,
                    format!(
                        "threads {}..{} read shared byte {b}, which thread {} wrote at {} with no synchronization \
                         ordering the write before the read: a read-after-write race (no CTA barrier{} between them)",
                        readers.start,
                        readers.end,
                        w - 1,
                        self.loc_name(self.wloc[b]),
                        if warps.contains(&ww) && !self.wasync[b] { "" } else { " or mbarrier wait" }
                    ),
                ));
            }
        }
        Ok(())
    }

    /// A write of `[addr, addr + n)` by `thread` (its store, or the TMA load or `cp.async` it issued; `what`): a
    /// byte another warp read with no synchronization ordering the read before the write is a write-after-read
    /// race.
    pub fn check_war(&self, addr: u64, n: usize, thread: usize, what: &str, loc: &str) -> Result<(), SimError> {
        let nw = self.clocks.warps();
        let wt = thread / 32;
        for b in addr as usize..addr as usize + n {
            for x in (0..nw).filter(|x| *x != wt) {
                let stamp = self.rclock[b * nw + x];
                if stamp != 0 && !self.clocks.ordered(x, stamp, wt) {
                    return Err(SimError::new(
                        loc,
                        format!(
                            "{what} of shared byte {b} by thread {thread} (warp {wt}), which warp {x} read at {} with \
                             no synchronization ordering the read before the write: a write-after-read race (no CTA \
                             barrier or mbarrier wait between them; the warps may drift apart)",
                            self.loc_name(self.rloc[b * nw + x])
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Records reads of `[addr, addr + n)` by `warps`, each stamped with `stamp` (0: the warp's own clock now),
    /// made at location `loc` (an index into [`Self::locs`]).
    pub fn note_read(&mut self, addr: u64, n: usize, warps: std::ops::Range<usize>, stamp: u32, loc: u32) {
        let nw = self.clocks.warps();
        for w in warps {
            let s = if stamp == 0 { self.clocks.own(w) } else { stamp };
            for b in addr as usize..addr as usize + n {
                let i = b * nw + w;
                if s >= self.rclock[i] {
                    self.rclock[i] = s;
                    self.rloc[i] = loc;
                }
            }
        }
    }

    /// The asynchronous-proxy read of `[addr, addr + n)` by an operation `issuer` issued (`what`): a race check
    /// as for the issuer, and every byte a thread wrote through the generic proxy must precede that thread's last
    /// `fence.proxy.async`.
    pub fn check_async_read(
        &self,
        addr: u64,
        n: usize,
        issuers: std::ops::Range<usize>,
        what: &str,
        loc: &str,
    ) -> Result<(), SimError> {
        self.check_race(addr, n, issuers, loc)?;
        for b in addr as usize..addr as usize + n {
            let w = self.writer[b];
            if w != 0 && !self.wasync[b] && self.wstep[b] > self.proxy_fence[w as usize - 1] {
                return Err(SimError::new(
                    loc,
                    format!(
                        "{what} reads shared byte {b} through the async proxy, but thread {} wrote it through the \
                         generic proxy with no fence.proxy.async after the write: missing proxy fence",
                        w - 1
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Records a generic-proxy write of `[addr, addr + n)` by `thread` (made at the op being executed).
    pub fn mark_written(&mut self, addr: u64, n: usize, thread: usize) {
        let clock = self.clocks.own(thread / 32);
        let epoch = self.lane_epoch(thread / 32);
        for b in addr as usize..addr as usize + n {
            self.writer[b] = thread as u32 + 1;
            self.wepoch[b] = epoch;
            self.wstep[b] = self.step;
            self.wclock[b] = clock;
            self.wloc[b] = self.cur_loc;
            self.wasync[b] = false;
        }
    }

    /// Records a write of `[addr, addr + n)` by the hardware rather than a thread (`tcgen05.alloc`'s address):
    /// no race or proxy-fence check applies to it.
    pub fn mark_async_written(&mut self, addr: u64, n: usize) {
        for b in addr as usize..addr as usize + n {
            self.writer[b] = 0;
        }
    }

    /// Reads shared bytes (checked against pending loads).
    pub fn read_shared(&self, addr: u64, n: usize, loc: &str) -> Result<&[u8], SimError> {
        let at = self.shared_range(addr, n, loc)?;
        self.check_pending(addr, n, "read", loc)?;
        Ok(&self.shared[at..at + n])
    }

    /// Writes shared bytes (checked against pending loads and the operands of asynchronous operations in
    /// flight).
    pub fn write_shared(&mut self, addr: u64, data: &[u8], loc: &str) -> Result<(), SimError> {
        let at = self.shared_range(addr, data.len(), loc)?;
        self.check_pending(addr, data.len(), "write", loc)?;
        self.flight.check_readers(addr, data.len(), "write", loc)?;
        self.shared[at..at + data.len()].copy_from_slice(data);
        Ok(())
    }

    /// A generic-proxy write of shared bytes by `thread` ([`Self::write_shared`] and the write-after-read check,
    /// recorded for the race and proxy-fence checks).
    pub fn write_shared_by(&mut self, addr: u64, data: &[u8], thread: usize, loc: &str) -> Result<(), SimError> {
        self.shared_range(addr, data.len(), loc)?;
        self.check_war(addr, data.len(), thread, "write", loc)?;
        self.write_shared(addr, data, loc)?;
        self.mark_written(addr, data.len(), thread);
        Ok(())
    }

    /// A generic-proxy read of shared bytes by threads `readers` ([`Self::read_shared`] and the race check,
    /// recorded for the write-after-read check).
    pub fn read_shared_by(
        &mut self,
        addr: u64,
        n: usize,
        readers: std::ops::Range<usize>,
        loc: &str,
    ) -> Result<&[u8], SimError> {
        self.read_shared(addr, n, loc)?;
        self.check_race(addr, n, readers.clone(), loc)?;
        self.note_read(addr, n, Self::warps_of(&readers), 0, self.cur_loc);
        Ok(&self.shared[addr as usize..addr as usize + n])
    }

    /// Reads global bytes (checked against TMA stores not yet waited for).
    pub fn read_global(&self, addr: u64, n: usize, loc: &str) -> Result<&[u8], SimError> {
        let (i, at) = self.global_index(addr, n, loc)?;
        self.flight.check_global_read(addr, n, loc)?;
        Ok(&self.globals[i].bytes[at..at + n])
    }

    /// Writes global bytes.
    pub fn write_global(&mut self, addr: u64, data: &[u8], loc: &str) -> Result<(), SimError> {
        let (i, at) = self.global_index(addr, data.len(), loc)?;
        self.globals[i].bytes[at..at + data.len()].copy_from_slice(data);
        Ok(())
    }

    /// The barrier at `addr`, which must be initialized.
    pub fn bar(&mut self, addr: u64, what: &str, loc: &str) -> Result<&mut Mbarrier, SimError> {
        self.bars.get_mut(&addr).ok_or_else(|| {
            SimError::new(loc, format!("{what} on the mbarrier at shared address {addr} before its mbarrier.init"))
        })
    }

    /// `mbarrier.init` (9.7.13.15.9) by `thread`: phase 0, pending = expected = `count`, tx-count 0.
    pub fn init_bar(&mut self, addr: u64, count: i64, thread: usize, loc: &str) -> Result<(), SimError> {
        if !(1..(1 << 20)).contains(&count) {
            return Err(SimError::new(loc, format!("mbarrier.init count {count} outside 1..2^20")));
        }
        let w = self.clocks.warps();
        let init = BarInit {
            thread,
            clock: self.clocks.own(thread / 32),
            epoch: self.lane_epoch(thread / 32),
            loc: loc.to_string(),
            fenced: false,
        };
        let zero = vec![0; w];
        let bar = Mbarrier {
            expected: count,
            pending: count,
            tx: 0,
            phase: 0,
            cum: zero.clone(),
            done: zero.clone(),
            arrived: zero,
            last_arrive: String::new(),
            waiters: Vec::new(),
            init,
        };
        self.bars.insert(addr, bar);
        Ok(())
    }

    /// `fence.mbarrier_init` by `thread`: the barriers it initialized are fenced.
    pub fn fence_mbarrier_init(&mut self, thread: usize) {
        for b in self.bars.values_mut().filter(|b| b.init.thread == thread) {
            b.init.fenced = true;
        }
    }

    /// A use (`what`) of the barrier at `addr` by `thread`: it must be initialized and, for a thread other than
    /// the initializing one, the init fenced (`fence.mbarrier_init`) and ordered before the use (a CTA barrier
    /// between them, or another synchronization with the initializing warp).
    pub fn check_bar_use(&mut self, addr: u64, thread: usize, what: &str, loc: &str) -> Result<(), SimError> {
        let epoch = self.lane_epoch(thread / 32);
        let b = self.bar(addr, what, loc)?;
        let init = b.init.clone();
        if init.thread == thread {
            return Ok(());
        }
        if !init.fenced {
            return Err(SimError::new(
                loc,
                format!(
                    "{what} by thread {thread} on the mbarrier at shared address {addr}, which thread {} initialized \
                     at {} with no fence.mbarrier_init after the init: missing mbarrier init fence",
                    init.thread, init.loc
                ),
            ));
        }
        let (wi, wt) = (init.thread / 32, thread / 32);
        let ordered = if wi == wt { init.epoch != epoch } else { self.clocks.ordered(wi, init.clock, wt) };
        if !ordered {
            return Err(SimError::new(
                loc,
                format!(
                    "{what} by thread {thread} on the mbarrier at shared address {addr}, which thread {} initialized \
                     at {} with no CTA barrier between the init and this use: the init may not be visible yet \
                     (missing barrier after mbarrier init)",
                    init.thread, init.loc
                ),
            ));
        }
        Ok(())
    }

    /// `mbarrier.arrive[.expect_tx]` (9.7.13.15.11/12) releasing `clock` (the arriving warp's, `order.rs`):
    /// expect-tx adds `tx` bytes, then one arrival. Returns the phase the arrival counted in.
    pub fn arrive(&mut self, addr: u64, tx: i64, clock: &[u32], loc: &str) -> Result<u64, SimError> {
        let b = self.bar(addr, "arrive", loc)?;
        b.tx += tx;
        if b.pending == 0 {
            return Err(SimError::new(
                loc,
                format!("arrive on mbarrier {addr} whose phase {} has no arrival left", b.phase),
            ));
        }
        let phase = b.phase;
        b.pending -= 1;
        join(&mut b.cum, clock);
        join(&mut b.arrived, clock);
        b.last_arrive = loc.to_string();
        if b.settle() {
            self.phase_completed(addr)?;
        }
        Ok(phase)
    }

    /// The barrier at `addr` completed a phase: some arrival of it must be ordered after every wait that observed
    /// the previous phase (else a phase overrun, see the module docs); waits now observe this one.
    fn phase_completed(&mut self, addr: u64) -> Result<(), SimError> {
        let b = self.bars.get_mut(&addr).expect("a barrier that completed a phase exists");
        let phase = b.phase - 1;
        for (w, stamp, at) in &b.waiters {
            if b.arrived[*w] < *stamp {
                return Err(SimError::new(
                    &b.last_arrive,
                    format!(
                        "mbarrier {addr} completes phase {phase} with no arrival ordered after warp {w}'s wait for \
                         phase {} (at {at}): a phase overrun (the arriving warps may run two phases ahead of the \
                         waiter, whose parity wait then sees the wrong phase; no CTA barrier or mbarrier wait orders \
                         the wait before the next phase's arrivals)",
                        phase - 1
                    ),
                ));
            }
        }
        b.done = b.cum.clone();
        b.arrived.iter_mut().for_each(|c| *c = 0);
        b.waiters.clear();
        Ok(())
    }

    /// Warp `w` waited on the barrier at `addr` and observed its last completed phase (none while in phase 0):
    /// it acquires the barrier's clock as of that completion and is recorded as a waiter of that phase.
    pub fn waited(&mut self, addr: u64, w: usize, loc: &str) -> Result<(), SimError> {
        let b = self.bars.get(&addr).ok_or_else(|| SimError::new(loc, "wait on a missing mbarrier"))?;
        if b.phase == 0 {
            return Ok(());
        }
        let done = b.done.clone();
        self.clocks.acquire(w, &done);
        let stamp = self.clocks.own(w);
        let b = self.bars.get_mut(&addr).expect("checked above");
        match b.waiters.iter_mut().find(|x| x.0 == w) {
            Some(x) => {
                x.1 = x.1.max(stamp);
                x.2 = loc.to_string();
            }
            None => b.waiters.push((w, stamp, loc.to_string())),
        }
        Ok(())
    }

    /// Lands pending load `i` (its bytes reach shared memory; a TMA load completes its transaction bytes on its
    /// barrier, 9.7.13.15.2 complete-tx). It stays in `pending`, invisible, until a wait observes it.
    pub fn land_load(&mut self, i: usize) -> Result<(), SimError> {
        if self.pending[i].landed {
            return Ok(());
        }
        let p = &self.pending[i];
        let (at, len, bar, tx, group, loc) = (p.start as usize, p.bytes.len(), p.bar, p.tx, p.group, p.loc.clone());
        self.landed += 1;
        let bytes = std::mem::take(&mut self.pending[i].bytes);
        self.shared[at..at + len].copy_from_slice(&bytes);
        self.pending[i].bytes = bytes;
        self.pending[i].landed = true;
        if group.is_none() {
            // Written by the async proxy for the issuing thread, visible to whoever observes the phase.
            let (thread, clock) = (self.pending[i].thread, self.pending[i].clock.clone());
            let loc_id = self.intern(&loc);
            let epoch = self.lane_epoch(thread / 32);
            for b in at..at + len {
                self.writer[b] = thread as u32 + 1;
                self.wepoch[b] = epoch;
                self.wstep[b] = self.step;
                self.wclock[b] = clock.get(thread / 32).copied().unwrap_or(0);
                self.wloc[b] = loc_id;
                self.wasync[b] = true;
            }
            let b = self.bar(bar, "complete_tx", &loc)?;
            join(&mut b.cum, &clock);
            join(&mut b.arrived, &clock);
            b.tx -= tx;
            let phase = b.phase;
            let completed = b.settle();
            self.pending[i].phase = Some(phase);
            if completed {
                self.phase_completed(bar)?;
            }
        }
        Ok(())
    }

    /// Lands what is pending on barrier `addr`, oldest first, until the phase of parity `parity` completes: TMA
    /// loads, then `tcgen05.commit` arrivals (their MMAs first).
    fn complete_on(&mut self, addr: u64, parity: u64, loc: &str) -> Result<(), SimError> {
        let mut i = 0;
        while i < self.pending.len() {
            if self.bar(addr, "try_wait.parity", loc)?.phase % 2 != parity {
                return Ok(());
            }
            if self.pending[i].group.is_none() && self.pending[i].bar == addr {
                self.land_load(i)?;
            }
            i += 1;
        }
        while self.bar(addr, "try_wait.parity", loc)?.phase % 2 == parity {
            let Some(c) = self.flight.commits.iter().position(|c| c.bar == addr && c.phase.is_none()) else {
                break;
            };
            self.arrive_commit(c)?;
        }
        Ok(())
    }

    /// `mbarrier.try_wait.parity`: lands what is pending on the barrier (the lazy policy's completion point), then
    /// says whether the phase of parity `parity` has completed: `None` when it has (the wait succeeds and
    /// observes the completed phase: the TMA loads and tcgen05.mma counted in it become visible), else what the
    /// wait still waits for (the interpreter blocks the waiting strand on it, `exec/strand.rs`).
    pub fn try_parity(&mut self, addr: u64, parity: u64, loc: &str) -> Result<Option<String>, SimError> {
        let parity = parity % 2;
        // When the phase of parity `parity` completed already, try_wait returns true at once.
        if self.bar(addr, "try_wait.parity", loc)?.phase % 2 == parity {
            self.complete_on(addr, parity, loc)?;
        }
        let b = self.bar(addr, "try_wait.parity", loc)?;
        if b.phase % 2 != parity {
            // The phase observed: the newest completed one (none when the barrier is still in phase 0, whose
            // "preceding phase" the ISA counts as complete).
            if let Some(q) = b.phase.checked_sub(1) {
                self.observe(addr, q);
            }
            return Ok(None);
        }
        let (phase, pending, tx) = (b.phase, b.pending, b.tx);
        let uncommitted = self.flight.mmas.iter().find(|m| m.commit.is_none()).map(|m| m.loc.clone());
        let hint = match uncommitted {
            Some(l) => format!(" (the tcgen05.mma issued at {l} was never committed: no tcgen05.commit tracks it)"),
            None => String::new(),
        };
        Ok(Some(format!(
            "try_wait.parity {parity} on mbarrier {addr} (the barrier is in phase {phase} with {pending} arrivals \
             and {tx} transaction bytes missing{hint})"
        )))
    }

    /// A wait observed phase `q` of barrier `addr`: the TMA loads whose bytes counted in phases up to `q` become
    /// visible (leave `pending`), and so do the tcgen05.mma whose commit arrived in them.
    fn observe(&mut self, addr: u64, q: u64) {
        self.pending.retain(|p| !(p.group.is_none() && p.bar == addr && p.phase.is_some_and(|ph| ph <= q)));
        self.observe_commits(addr, q);
    }

    /// `cp.async.wait_group n` (PTX ISA 9.7.9.25.3): every `cp.async` of the committed groups but the newest `n`
    /// lands and becomes visible to the thread that issued it (other threads see it after a `bar.sync`).
    pub fn wait_groups(&mut self, n: u64) -> Result<(), SimError> {
        let limit = self.open_group.saturating_sub(n);
        let mut i = 0;
        while i < self.pending.len() {
            if self.pending[i].group.is_some_and(|g| g < limit) {
                self.land_load(i)?;
                let p = self.pending.remove(i);
                let id = self.intern(&p.loc);
                let at = std::mem::replace(&mut self.cur_loc, id);
                self.mark_written(p.start, p.bytes.len(), p.thread);
                self.cur_loc = at;
            } else {
                i += 1;
            }
        }
        Ok(())
    }

    /// Checks that tensor-memory cell `(lane, col)` lies in an allocation; returns its index.
    pub fn tmem_cell(&self, lane: u32, col: u32, loc: &str) -> Result<usize, SimError> {
        if lane >= TMEM_LANES {
            return Err(SimError::new(loc, format!("tensor-memory lane {lane} outside 0..{TMEM_LANES}")));
        }
        if !self.tmem_allocs.iter().any(|(s, n)| col >= *s && col < s + n) {
            return Err(SimError::new(
                loc,
                format!("tensor-memory column {col} (lane {lane}) outside every tcgen05.alloc allocation"),
            ));
        }
        Ok((lane * TMEM_COLS + col) as usize)
    }

    /// `tcgen05.alloc` (9.7.16.7.1): the lowest free power-of-two block of `n` columns (32..512).
    pub fn tmem_alloc(&mut self, n: u32, loc: &str) -> Result<u32, SimError> {
        if !(32..=TMEM_COLS).contains(&n) || !n.is_power_of_two() {
            return Err(SimError::new(loc, format!("tcgen05.alloc of {n} columns: must be a power of two in 32..512")));
        }
        if self.tmem.is_empty() {
            self.tmem = vec![0; (TMEM_LANES * TMEM_COLS) as usize];
        }
        let mut start = 0;
        while start + n <= TMEM_COLS {
            if !self.tmem_allocs.iter().any(|(s, m)| start < s + m && *s < start + n) {
                self.tmem_allocs.push((start, n));
                return Ok(start);
            }
            start += n;
        }
        Err(SimError::new(loc, format!("tcgen05.alloc of {n} columns: tensor memory is full")))
    }

    /// `tcgen05.dealloc`: frees the allocation starting at `col` of `n` columns.
    pub fn tmem_dealloc(&mut self, col: u32, n: u32, loc: &str) -> Result<(), SimError> {
        let before = self.tmem_allocs.len();
        self.tmem_allocs.retain(|a| *a != (col, n));
        if self.tmem_allocs.len() == before {
            return Err(SimError::new(loc, format!("tcgen05.dealloc of {n} columns at {col}: no such allocation")));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
