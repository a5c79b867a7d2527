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
//! of `bar.sync`s so far) and at which step: a thread reading a byte another thread wrote in the same interval is
//! a race (a missing `bar.sync`), and an asynchronous-proxy read (wgmma, tcgen05.mma, TMA store) of a byte a
//! thread wrote after that thread's last `fence.proxy.async` is a missing proxy fence (PTX ISA 9.7.13.4
//! "membar/fence": generic-proxy writes are not visible to the async proxy without it). Asynchronous operations
//! in flight live in `inflight.rs`.

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
}

impl Mbarrier {
    /// Completes the phase when nothing is missing.
    fn settle(&mut self) {
        if self.pending == 0 && self.tx == 0 {
            self.phase += 1;
            self.pending = self.expected;
        }
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
    /// CTA barriers (`bar.sync`) executed so far: the current barrier interval.
    pub epoch: u32,
    /// Per thread: the step of its last `fence.proxy.async` (0: none).
    pub proxy_fence: Vec<u64>,
    /// The step being executed.
    pub step: u64,
    /// Asynchronous operations in flight (`inflight.rs`).
    pub flight: crate::inflight::InFlight,
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

    /// The generic-proxy read of `[addr, addr + n)` by threads `readers` (a thread, a warp or a warpgroup): a byte
    /// another thread wrote in the current barrier interval is a race, a missing `bar.sync`.
    pub fn check_race(&self, addr: u64, n: usize, readers: std::ops::Range<usize>, loc: &str) -> Result<(), SimError> {
        for b in addr as usize..addr as usize + n {
            let w = self.writer[b];
            if w != 0 && self.wepoch[b] == self.epoch && !readers.contains(&(w as usize - 1)) {
                return Err(SimError::new(
                    loc,
                    format!(
                        "threads {}..{} read shared byte {b}, which thread {} wrote since the last bar.sync: a race \
                         (no CTA barrier orders the write before the read)",
                        readers.start,
                        readers.end,
                        w - 1
                    ),
                ));
            }
        }
        Ok(())
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
            if w != 0 && self.wstep[b] > self.proxy_fence[w as usize - 1] {
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

    /// Records a generic-proxy write of `[addr, addr + n)` by `thread`.
    pub fn mark_written(&mut self, addr: u64, n: usize, thread: usize) {
        for b in addr as usize..addr as usize + n {
            self.writer[b] = thread as u32 + 1;
            self.wepoch[b] = self.epoch;
            self.wstep[b] = self.step;
        }
    }

    /// Records an asynchronous-proxy write (a landed TMA load, tensor-core writes) of `[addr, addr + n)`: made
    /// visible by the mbarrier that observes it, not by thread ordering.
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

    /// A generic-proxy write of shared bytes by `thread` ([`Self::write_shared`], recorded for the race and
    /// proxy-fence checks).
    pub fn write_shared_by(&mut self, addr: u64, data: &[u8], thread: usize, loc: &str) -> Result<(), SimError> {
        self.write_shared(addr, data, loc)?;
        self.mark_written(addr, data.len(), thread);
        Ok(())
    }

    /// A generic-proxy read of shared bytes by threads `readers` ([`Self::read_shared`] and the race check).
    pub fn read_shared_by(
        &self,
        addr: u64,
        n: usize,
        readers: std::ops::Range<usize>,
        loc: &str,
    ) -> Result<&[u8], SimError> {
        let bytes = self.read_shared(addr, n, loc)?;
        self.check_race(addr, n, readers, loc)?;
        Ok(bytes)
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

    /// `mbarrier.init` (9.7.13.15.9): phase 0, pending = expected = `count`, tx-count 0.
    pub fn init_bar(&mut self, addr: u64, count: i64, loc: &str) -> Result<(), SimError> {
        if !(1..(1 << 20)).contains(&count) {
            return Err(SimError::new(loc, format!("mbarrier.init count {count} outside 1..2^20")));
        }
        self.bars.insert(addr, Mbarrier { expected: count, pending: count, tx: 0, phase: 0 });
        Ok(())
    }

    /// `mbarrier.arrive[.expect_tx]` (9.7.13.15.11/12): expect-tx adds `tx` bytes, then one arrival. Returns the
    /// phase the arrival counted in.
    pub fn arrive(&mut self, addr: u64, tx: i64, loc: &str) -> Result<u64, SimError> {
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
        b.settle();
        Ok(phase)
    }

    /// Lands pending load `i` (its bytes reach shared memory; a TMA load completes its transaction bytes on its
    /// barrier, 9.7.13.15.2 complete-tx). It stays in `pending`, invisible, until a wait observes it.
    pub fn land_load(&mut self, i: usize) -> Result<(), SimError> {
        if self.pending[i].landed {
            return Ok(());
        }
        let p = &self.pending[i];
        let (at, len, bar, tx, group, loc) = (p.start as usize, p.bytes.len(), p.bar, p.tx, p.group, p.loc.clone());
        let bytes = std::mem::take(&mut self.pending[i].bytes);
        self.shared[at..at + len].copy_from_slice(&bytes);
        self.pending[i].bytes = bytes;
        self.pending[i].landed = true;
        if group.is_none() {
            self.mark_async_written(at as u64, len);
            let b = self.bar(bar, "complete_tx", &loc)?;
            b.tx -= tx;
            let phase = b.phase;
            b.settle();
            self.pending[i].phase = Some(phase);
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
            self.arrive_commit(c, loc)?;
        }
        Ok(())
    }

    /// `mbarrier.try_wait.parity` in a loop until it succeeds: lands what is pending on the barrier (the lazy
    /// policy's completion point), then faults (deadlock) when the phase of parity `parity` still has not
    /// completed. A success observes the completed phase: the TMA loads and tcgen05.mma counted in it become
    /// visible.
    pub fn wait_parity(&mut self, addr: u64, parity: u64, loc: &str) -> Result<(), SimError> {
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
            return Ok(());
        }
        let (phase, pending, tx) = (b.phase, b.pending, b.tx);
        let uncommitted = self.flight.mmas.iter().find(|m| m.commit.is_none()).map(|m| m.loc.clone());
        let hint = match uncommitted {
            Some(l) => format!(" (the tcgen05.mma issued at {l} was never committed: no tcgen05.commit tracks it)"),
            None => String::new(),
        };
        Err(SimError::new(
            loc,
            format!(
                "deadlock: try_wait.parity {parity} on mbarrier {addr} can never succeed: the barrier is in phase \
                 {phase} with {pending} arrivals and {tx} transaction bytes missing, and nothing pending can \
                 complete it{hint}"
            ),
        ))
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
                self.mark_written(p.start, p.bytes.len(), p.thread);
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
