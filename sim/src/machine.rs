//! The machine state of one CTA: global buffers, shared memory, per-thread private memory, tensor memory and
//! mbarriers, with the fault checks every access makes.
//!
//! mbarriers follow the PTX ISA "Parallel Synchronization and Communication Instructions: mbarrier" section
//! (9.7.13.15): a barrier has an expected arrival count, a pending arrival count, a tx-count and a phase; the
//! current phase completes when the pending count and the tx-count are both zero, and the barrier moves to the
//! next phase with the pending count reset to the expected count. `try_wait.parity P` succeeds once the phase of
//! parity `P` has completed, i.e. when the current phase's parity differs from `P`.
//!
//! Asynchronous TMA loads are kept pending (their bytes computed at issue) and delivered only when a thread waits
//! on their barrier, the latest moment the hardware may deliver them: any read or write of shared bytes a pending
//! load covers is a fault, so a kernel that reads a stage before its barrier's phase completes is caught.

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
    /// Pending `tcgen05.commit` arrivals, by barrier.
    pub commits: Vec<u64>,
    /// Tensor memory cells, lane-major.
    pub tmem: Vec<u32>,
    /// Allocated tensor-memory column ranges `[start, start + n)`.
    pub tmem_allocs: Vec<(u32, u32)>,
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
        Ok(at)
    }

    /// The global buffer holding `[addr, addr + n)`.
    fn global_index(&self, addr: u64, n: usize, loc: &str) -> Result<(usize, usize), SimError> {
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
    fn check_pending(&self, addr: u64, n: usize, what: &str, loc: &str) -> Result<(), SimError> {
        for p in &self.pending {
            if addr < p.start + p.bytes.len() as u64 && p.start < addr + n as u64 {
                return Err(SimError::new(
                    loc,
                    format!(
                        "{what} of shared bytes [{addr}, {}) that a pending TMA load (issued at {}, barrier {}) has \
                         not delivered: its barrier's phase was not waited for",
                        addr + n as u64,
                        p.loc,
                        p.bar
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Reads shared bytes (checked against pending loads).
    pub fn read_shared(&self, addr: u64, n: usize, loc: &str) -> Result<&[u8], SimError> {
        let at = self.shared_range(addr, n, loc)?;
        self.check_pending(addr, n, "read", loc)?;
        Ok(&self.shared[at..at + n])
    }

    /// Writes shared bytes (checked against pending loads).
    pub fn write_shared(&mut self, addr: u64, data: &[u8], loc: &str) -> Result<(), SimError> {
        let at = self.shared_range(addr, data.len(), loc)?;
        self.check_pending(addr, data.len(), "write", loc)?;
        self.shared[at..at + data.len()].copy_from_slice(data);
        Ok(())
    }

    /// Reads global bytes.
    pub fn read_global(&self, addr: u64, n: usize, loc: &str) -> Result<&[u8], SimError> {
        let (i, at) = self.global_index(addr, n, loc)?;
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

    /// `mbarrier.arrive[.expect_tx]` (9.7.13.15.11/12): expect-tx adds `tx` bytes, then one arrival.
    pub fn arrive(&mut self, addr: u64, tx: i64, loc: &str) -> Result<(), SimError> {
        let b = self.bar(addr, "arrive", loc)?;
        b.tx += tx;
        if b.pending == 0 {
            return Err(SimError::new(
                loc,
                format!("arrive on mbarrier {addr} whose phase {} has no arrival left", b.phase),
            ));
        }
        b.pending -= 1;
        b.settle();
        Ok(())
    }

    /// Delivers every pending load and commit on barrier `addr` (complete-tx, 9.7.13.15.2).
    pub fn deliver(&mut self, addr: u64, loc: &str) -> Result<(), SimError> {
        let (mine, rest): (Vec<PendingLoad>, Vec<PendingLoad>) =
            std::mem::take(&mut self.pending).into_iter().partition(|p| p.group.is_none() && p.bar == addr);
        self.pending = rest;
        for p in mine {
            let at = p.start as usize;
            self.shared[at..at + p.bytes.len()].copy_from_slice(&p.bytes);
            let b = self.bar(addr, "complete_tx", &p.loc)?;
            b.tx -= p.tx;
            b.settle();
        }
        let commits = self.commits.iter().filter(|c| **c == addr).count();
        self.commits.retain(|c| *c != addr);
        for _ in 0..commits {
            self.arrive(addr, 0, loc)?;
        }
        Ok(())
    }

    /// `mbarrier.try_wait.parity` in a loop until it succeeds: delivers what is pending on the barrier, then
    /// faults (deadlock) when the phase of parity `parity` still has not completed.
    pub fn wait_parity(&mut self, addr: u64, parity: u64, loc: &str) -> Result<(), SimError> {
        // The phase of parity `parity` completed already: try_wait returns true at once, delivering nothing.
        if self.bar(addr, "try_wait.parity", loc)?.phase % 2 != parity % 2 {
            return Ok(());
        }
        self.deliver(addr, loc)?;
        let b = self.bar(addr, "try_wait.parity", loc)?;
        if b.phase % 2 != parity % 2 {
            return Ok(());
        }
        Err(SimError::new(
            loc,
            format!(
                "deadlock: try_wait.parity {} on mbarrier {addr} can never succeed: the barrier is in phase {} with \
                 {} arrivals and {} transaction bytes missing, and nothing pending can complete it",
                parity % 2,
                b.phase,
                b.pending,
                b.tx
            ),
        ))
    }

    /// `cp.async.wait_group n` (PTX ISA 9.7.9.25.3): delivers every `cp.async` of the committed groups but the
    /// newest `n`.
    pub fn wait_groups(&mut self, n: u64) {
        let limit = self.open_group.saturating_sub(n);
        let (done, rest): (Vec<PendingLoad>, Vec<PendingLoad>) =
            std::mem::take(&mut self.pending).into_iter().partition(|p| p.group.is_some_and(|g| g < limit));
        self.pending = rest;
        for p in done {
            let at = p.start as usize;
            self.shared[at..at + p.bytes.len()].copy_from_slice(&p.bytes);
        }
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
