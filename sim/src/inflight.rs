//! Asynchronous operations in flight, completed as the PTX ISA defines it (the TMA and `cp.async` loads and
//! the mbarriers live in `machine.rs`):
//!
//! - `wgmma.mma_async` (9.7.15.5, 9.7.15.6-8): its shared operands are read, and its accumulator registers
//!   written, until the `wgmma.wait_group` that retires its group (`wgmma.commit_group` closes a group;
//!   `wait_group N` retires all but the newest N). Writing the operands before then, reading the accumulator
//!   before then (the interpreter's register taint, `exec/mod.rs`), or issuing it on accumulator registers written
//!   after the last `wgmma.fence` is an error.
//! - `tcgen05.mma` (9.7.16.10.9, 9.7.16.11.1 "tcgen05.commit"): it runs in issue order and completes at some
//!   point before the arrival its `tcgen05.commit` makes on an mbarrier; a thread may touch its operands and its
//!   tensor-memory result only once a wait observed that arrival's phase, and then (9.7.16.6.4.2
//!   "tcgen05.fence") only after `tcgen05.fence::after_thread_sync`.
//! - `tcgen05.ld` (9.7.16.8.3, 9.7.16.8.5 "tcgen05.wait"): its registers are undefined until
//!   `tcgen05.wait::ld` (register taint, `exec/mod.rs`).
//! - TMA / bulk stores (9.7.9.25.5.2, 9.7.9.25.4.3-4 "cp.async.bulk.commit_group / wait_group"): the shared
//!   source is read until a `wait_group.read` retires the store's bulk group, the global bytes are written by a
//!   `wait_group` (without `.read`) or, as late as allowed, by the kernel's end.
//!
//! When each lands between issue and that point is the schedule's [`Completion`]; the kernel's end with any of
//! them still in flight is an error. Once retired, an operation's shared reads count as reads of the warps that
//! issued it (`machine.rs`, the write-after-read check), stamped with their clocks at the retiring wait (wgmma,
//! TMA store) or, for tcgen05.mma, with the committing warp's clock at its `tcgen05.commit`, whose arrival is
//! what orders the MMA's reads before the waiters.

use crate::machine::Machine;
use crate::schedule::{Completion, Rng};
use crate::SimError;

/// Which asynchronous operation reads shared bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadKind {
    /// The wgmma group with this id.
    Wgmma,
    /// The tcgen05.mma with this index.
    Tcgen05,
    /// The TMA store with this index.
    Store,
}

/// Shared bytes an asynchronous operation may still read.
#[derive(Clone, Debug)]
pub struct Reader {
    /// Byte ranges `[start, end)`.
    pub ranges: Vec<(u64, u64)>,
    /// What reads them.
    pub kind: ReadKind,
    /// The group, MMA or store.
    pub id: u64,
    /// Where it was issued.
    pub loc: String,
    /// The warps on whose behalf it reads.
    pub warps: std::ops::Range<usize>,
    /// The clock stamp of its reads once retired (0: each warp's clock at the retiring wait).
    pub stamp: u32,
    /// [`Self::loc`] as an index into `Machine::locs`.
    pub loc_id: u32,
}

/// A `tcgen05.mma` issued: its operands (read at issue, the reads stay registered until observed) and its
/// accumulator cells.
#[derive(Clone, Debug)]
pub struct TcMma {
    /// Where it was issued.
    pub loc: String,
    /// A (`m x k`, row-major) and B (`n x k`).
    pub a: Vec<f64>,
    /// B, `n x k`.
    pub b: Vec<f64>,
    /// M, N, K.
    pub mnk: [u64; 3],
    /// The D address: lane and column.
    pub lane0: u32,
    /// D's first column.
    pub col0: u32,
    /// Accumulate into D (`enable_input_d`).
    pub accumulate: bool,
    /// Its result is in tensor memory.
    pub done: bool,
    /// The commit that tracks it.
    pub commit: Option<usize>,
    /// A wait observed its completion.
    pub observed: bool,
}

/// A `tcgen05.commit`: an arrival on `bar` once its MMAs complete.
#[derive(Clone, Debug)]
pub struct TcCommit {
    /// The mbarrier.
    pub bar: u64,
    /// The MMAs it tracks (indices into [`InFlight::mmas`]).
    pub mmas: Vec<usize>,
    /// The phase its arrival counted in, once it arrived.
    pub phase: Option<u64>,
    /// Where it was issued.
    pub loc: String,
    /// The committing warp's clock at the commit: what its arrival releases (`order.rs`).
    pub clock: Vec<u32>,
}

/// A TMA store issued: element copies from shared to global.
#[derive(Clone, Debug)]
pub struct BulkStore {
    /// Where it was issued.
    pub loc: String,
    /// `(shared address, global address, bytes)` per element.
    pub pairs: Vec<(u64, u64, usize)>,
    /// The global byte ranges it writes.
    pub global: Vec<(u64, u64)>,
    /// The source bytes once read.
    pub data: Option<Vec<u8>>,
    /// Its bulk group, once committed.
    pub group: Option<u64>,
    /// A `wait_group.read` retired its source reads.
    pub read_retired: bool,
    /// Its global bytes are written.
    pub written: bool,
}

/// Every asynchronous operation in flight and the completion policy.
#[derive(Debug)]
pub struct InFlight {
    /// When operations land.
    pub completion: Completion,
    /// The random policy's generator.
    pub rng: Rng,
    /// Shared bytes in-flight operations read.
    pub readers: Vec<Reader>,
    /// wgmma groups committed so far.
    pub wg_committed: u64,
    /// wgmma groups retired (`wait_group`): groups `0..wg_retired`.
    pub wg_retired: u64,
    /// Where the first wgmma of the open (uncommitted) group was issued.
    pub wg_open: Option<String>,
    /// The step of the last `wgmma.fence`.
    pub wg_fence_step: u64,
    /// tcgen05.mma issued, in order.
    pub mmas: Vec<TcMma>,
    /// tcgen05.commit issued, in order.
    pub commits: Vec<TcCommit>,
    /// A wait observed tcgen05 completions and no `tcgen05.fence::after_thread_sync` followed yet.
    pub tc_fence_needed: bool,
    /// tcgen05.ld issued and retired (`tcgen05.wait::ld`); where the first unretired one was issued.
    pub lds: (u64, u64, Option<String>),
    /// TMA stores not yet fully retired.
    pub stores: Vec<BulkStore>,
    /// Bulk groups committed so far.
    pub bulk_committed: u64,
}

impl Default for InFlight {
    fn default() -> InFlight {
        InFlight {
            completion: Completion::Lazy,
            rng: Rng::new(0),
            readers: Vec::new(),
            wg_committed: 0,
            wg_retired: 0,
            wg_open: None,
            wg_fence_step: 0,
            mmas: Vec::new(),
            commits: Vec::new(),
            tc_fence_needed: false,
            lds: (0, 0, None),
            stores: Vec::new(),
            bulk_committed: 0,
        }
    }
}

/// Sorted, merged byte ranges of the `n`-byte elements at `addrs`.
pub fn ranges_of(addrs: &mut [u64], n: u64) -> Vec<(u64, u64)> {
    addrs.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::new();
    for &a in addrs.iter() {
        match out.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(a + n),
            _ => out.push((a, a + n)),
        }
    }
    out
}

impl InFlight {
    /// Faults when an in-flight operation still reads any of `[addr, addr + n)`.
    pub fn check_readers(&self, addr: u64, n: usize, what: &str, loc: &str) -> Result<(), SimError> {
        let end = addr + n as u64;
        for r in &self.readers {
            if r.ranges.iter().any(|(s, e)| addr < *e && *s < end) {
                let (op, hint) = match r.kind {
                    ReadKind::Wgmma if r.id >= self.wg_committed => {
                        ("wgmma.mma_async", "no wgmma.commit_group closed its group, so no wait_group can retire it")
                    }
                    ReadKind::Wgmma => ("wgmma.mma_async", "no wgmma.wait_group retired its group"),
                    ReadKind::Tcgen05 => ("tcgen05.mma", "no mbarrier wait observed the arrival of its tcgen05.commit"),
                    ReadKind::Store => ("TMA store", "no cp.async.bulk.wait_group.read retired its bulk group"),
                };
                return Err(SimError::new(
                    loc,
                    format!(
                        "{what} of shared bytes [{addr}, {end}) that the {op} issued at {} may still read: {hint}",
                        r.loc
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Faults when a TMA store not retired by a `wait_group` (without `.read`) writes any of the global bytes.
    pub fn check_global_read(&self, addr: u64, n: usize, loc: &str) -> Result<(), SimError> {
        let end = addr + n as u64;
        for s in &self.stores {
            if s.global.iter().any(|(a, e)| addr < *e && *a < end) {
                return Err(SimError::new(
                    loc,
                    format!(
                        "read of global bytes [{addr:#x}, {end:#x}) that the TMA store issued at {} may not have \
                         written yet: no cp.async.bulk.wait_group retired it",
                        s.loc
                    ),
                ));
            }
        }
        Ok(())
    }

    /// `wgmma.mma_async` issued by `warps`, reading `ranges`: joins the open group; returns the group's id.
    pub fn wgmma_issue(
        &mut self,
        ranges: Vec<(u64, u64)>,
        warps: std::ops::Range<usize>,
        loc: &str,
        loc_id: u32,
    ) -> u64 {
        let id = self.wg_committed;
        let loc = loc.to_string();
        self.readers.push(Reader { ranges, kind: ReadKind::Wgmma, id, loc: loc.clone(), warps, stamp: 0, loc_id });
        self.wg_open.get_or_insert(loc);
        id
    }

    /// `wgmma.commit_group`: the open group (possibly empty) is committed.
    pub fn wgmma_commit(&mut self) {
        self.wg_committed += 1;
        self.wg_open = None;
    }

    /// `wgmma.wait_group n`: every committed group but the newest `n` is retired; returns their readers.
    pub fn wgmma_wait(&mut self, n: u64) -> Vec<Reader> {
        self.wg_retired = self.wg_retired.max(self.wg_committed.saturating_sub(n));
        let retired = self.wg_retired;
        self.take_readers(|r| r.kind == ReadKind::Wgmma && r.id < retired)
    }

    /// Removes and returns the readers `which` selects.
    pub fn take_readers(&mut self, which: impl Fn(&Reader) -> bool) -> Vec<Reader> {
        let (taken, kept) = std::mem::take(&mut self.readers).into_iter().partition(|r| which(r));
        self.readers = kept;
        taken
    }

    /// Whether wgmma group `id` is still in flight.
    pub fn wgmma_pending(&self, id: u64) -> bool {
        id >= self.wg_retired
    }

    /// Faults when tensor-memory lanes `lanes`, columns `cols` belong to the result of a tcgen05.mma whose
    /// completion no wait observed, or when no `tcgen05.fence::after_thread_sync` followed the wait that did.
    pub fn check_tmem(&self, lanes: (u32, u32), cols: (u32, u32), what: &str, loc: &str) -> Result<(), SimError> {
        for m in self.mmas.iter().filter(|m| !m.observed) {
            let (ml, mc) = ((m.lane0, m.lane0 + 128), (m.col0, m.col0 + m.mnk[1] as u32));
            if lanes.0 < ml.1 && ml.0 < lanes.1 && cols.0 < mc.1 && mc.0 < cols.1 {
                return Err(SimError::new(
                    loc,
                    format!(
                        "{what} of tensor memory (lanes {}..{}, columns {}..{}) that the tcgen05.mma issued at {} \
                         may still write: no mbarrier wait observed the arrival of its tcgen05.commit",
                        lanes.0, lanes.1, cols.0, cols.1, m.loc
                    ),
                ));
            }
        }
        if self.tc_fence_needed {
            return Err(SimError::new(
                loc,
                format!(
                    "{what} after the mbarrier wait that observed tcgen05.mma completion, with no \
                     tcgen05.fence::after_thread_sync between them: missing tcgen05 fence"
                ),
            ));
        }
        Ok(())
    }
}

impl Machine {
    /// Records the reads of retired asynchronous operations as their warps' reads (`machine.rs`).
    pub fn note_retired(&mut self, readers: Vec<Reader>) {
        for r in readers {
            for (s, e) in &r.ranges {
                self.note_read(*s, (e - s) as usize, r.warps.clone(), r.stamp, r.loc_id);
            }
        }
    }

    /// `wgmma.wait_group n` ([`InFlight::wgmma_wait`]), recording the retired groups' reads.
    pub fn wgmma_wait(&mut self, n: u64) {
        let retired = self.flight.wgmma_wait(n);
        self.note_retired(retired);
    }

    /// Computes tcgen05.mma `i` into tensor memory (its operands were read at issue).
    pub fn complete_mma(&mut self, i: usize) {
        if self.flight.mmas[i].done {
            return;
        }
        let m = &self.flight.mmas[i];
        let [mm, n, k] = m.mnk;
        let mut writes = Vec::with_capacity((mm * n) as usize);
        for r in 0..mm {
            let lane = m.lane0 + crate::isa::tmem_lane_of_row(mm, r) as u32;
            for c in 0..n {
                let cell = (lane * crate::machine::TMEM_COLS + m.col0 + c as u32) as usize;
                let prev = if m.accumulate { f64::from(f32::from_bits(self.tmem[cell])) } else { 0.0 };
                let dot: f64 = (0..k).map(|kk| m.a[(r * k + kk) as usize] * m.b[(c * k + kk) as usize]).sum();
                writes.push((cell, ((prev + dot) as f32).to_bits()));
            }
        }
        for (cell, v) in writes {
            self.tmem[cell] = v;
        }
        self.flight.mmas[i].done = true;
    }

    /// The arrival of tcgen05.commit `c`: its MMAs complete (in issue order), then it arrives on its barrier.
    pub fn arrive_commit(&mut self, c: usize) -> Result<(), SimError> {
        self.landed += 1;
        for i in self.flight.commits[c].mmas.clone() {
            for j in 0..=i {
                self.complete_mma(j);
            }
        }
        let bar = self.flight.commits[c].bar;
        let clock = self.flight.commits[c].clock.clone();
        let at = self.flight.commits[c].loc.clone();
        let phase = self.arrive(bar, 0, &clock, &at)?;
        self.flight.commits[c].phase = Some(phase);
        Ok(())
    }

    /// A wait observed phase `q` of barrier `addr`: the MMAs of the commits that arrived in phases up to `q`
    /// are complete and visible (their operand reads retire); a `tcgen05.fence::after_thread_sync` is due.
    pub fn observe_commits(&mut self, addr: u64, q: u64) {
        let mut seen = Vec::new();
        for c in self.flight.commits.iter().filter(|c| c.bar == addr && c.phase.is_some_and(|p| p <= q)) {
            seen.extend(c.mmas.iter().copied());
        }
        for i in seen {
            if !self.flight.mmas[i].observed {
                self.flight.mmas[i].observed = true;
                self.flight.tc_fence_needed = true;
                let retired = self.flight.take_readers(|r| r.kind == ReadKind::Tcgen05 && r.id == i as u64);
                self.note_retired(retired);
            }
        }
    }

    /// `tcgen05.commit` on `bar` by `thread`: tracks every MMA no earlier commit tracks (eager: they complete
    /// and it arrives now); its arrival releases the thread's warp's clock as of now.
    pub fn tcgen05_commit(&mut self, bar: u64, thread: usize, loc: &str) -> Result<(), SimError> {
        self.check_bar_use(bar, thread, "tcgen05.commit", loc)?;
        let c = self.flight.commits.len();
        let mmas: Vec<usize> = (0..self.flight.mmas.len()).filter(|i| self.flight.mmas[*i].commit.is_none()).collect();
        let clock = self.clocks.release(thread / 32);
        let stamp = clock[thread / 32];
        for i in &mmas {
            self.flight.mmas[*i].commit = Some(c);
        }
        for r in self.flight.readers.iter_mut() {
            if r.kind == ReadKind::Tcgen05 && mmas.contains(&(r.id as usize)) {
                r.stamp = stamp;
                r.warps = thread / 32..thread / 32 + 1;
            }
        }
        self.flight.commits.push(TcCommit { bar, mmas, phase: None, loc: loc.to_string(), clock });
        if self.flight.completion == Completion::Eager {
            self.arrive_commit(c)?;
        }
        Ok(())
    }

    /// Reads the source of TMA store `i` (once).
    fn read_store(&mut self, i: usize) {
        if self.flight.stores[i].data.is_some() {
            return;
        }
        let mut data = Vec::new();
        for (s, _, n) in &self.flight.stores[i].pairs {
            data.extend_from_slice(&self.shared[*s as usize..*s as usize + n]);
        }
        self.flight.stores[i].data = Some(data);
    }

    /// Writes TMA store `i`'s global bytes (once; its source read first).
    fn write_store(&mut self, i: usize, loc: &str) -> Result<(), SimError> {
        self.read_store(i);
        if self.flight.stores[i].written {
            return Ok(());
        }
        let data = self.flight.stores[i].data.clone().unwrap_or_default();
        let pairs = self.flight.stores[i].pairs.clone();
        let mut at = 0;
        for (_, g, n) in pairs {
            let (b, off) = self.global_index(g, n, loc)?;
            self.globals[b].bytes[off..off + n].copy_from_slice(&data[at..at + n]);
            at += n;
        }
        self.flight.stores[i].written = true;
        Ok(())
    }

    /// A TMA store issued by `thread` (its reads checked by the caller): registers its source as read in flight.
    pub fn store_issue(&mut self, store: BulkStore, thread: usize) -> Result<(), SimError> {
        let i = self.flight.stores.len();
        let mut starts: Vec<u64> = store.pairs.iter().map(|p| p.0).collect();
        let n = store.pairs.first().map_or(1, |p| p.2 as u64);
        let ranges = ranges_of(&mut starts, n);
        let loc = store.loc.clone();
        let loc_id = self.intern(&loc);
        let (kind, id, warps) = (ReadKind::Store, self.flight.stores.len() as u64, thread / 32..thread / 32 + 1);
        self.flight.readers.push(Reader { ranges, kind, id, loc, warps, stamp: 0, loc_id });
        self.flight.stores.push(store);
        if self.flight.completion == Completion::Eager {
            let loc = self.flight.stores[i].loc.clone();
            self.write_store(i, &loc)?;
        }
        Ok(())
    }

    /// `cp.async.bulk.commit_group`: the stores issued since the last one form a group.
    pub fn bulk_commit(&mut self) {
        let g = self.flight.bulk_committed;
        for s in self.flight.stores.iter_mut().filter(|s| s.group.is_none()) {
            s.group = Some(g);
        }
        self.flight.bulk_committed += 1;
    }

    /// `cp.async.bulk.wait_group[.read] n`: the stores of every committed group but the newest `n` have read
    /// their source (and, without `.read`, written global memory).
    pub fn bulk_wait(&mut self, n: u64, read_only: bool, loc: &str) -> Result<(), SimError> {
        let limit = self.flight.bulk_committed.saturating_sub(n);
        for i in 0..self.flight.stores.len() {
            if self.flight.stores[i].group.is_some_and(|g| g < limit) {
                self.read_store(i);
                self.flight.stores[i].read_retired = true;
                let retired = self.flight.take_readers(|r| r.kind == ReadKind::Store && r.id == i as u64);
                self.note_retired(retired);
                if !read_only {
                    self.write_store(i, loc)?;
                }
            }
        }
        // Fully retired stores leave the list; indices of the rest are kept by leaving a retired shell.
        for s in self.flight.stores.iter_mut() {
            if s.written && s.read_retired {
                s.global.clear();
            }
        }
        Ok(())
    }

    /// Under the random policy, lands one operation in flight now and then (`step` calls this at every op).
    pub fn tick(&mut self) -> Result<(), SimError> {
        let Completion::Random(_) = self.flight.completion else { return Ok(()) };
        if self.flight.rng.below(4) != 0 {
            return Ok(());
        }
        let mut candidates: Vec<(u8, usize)> = Vec::new();
        candidates.extend(self.pending.iter().enumerate().filter(|(_, p)| !p.landed).map(|(i, _)| (0, i)));
        candidates.extend(self.flight.stores.iter().enumerate().filter(|(_, s)| !s.written).map(|(i, _)| (1, i)));
        if let Some(i) = self.flight.mmas.iter().position(|m| !m.done) {
            candidates.push((2, i));
        }
        let ready = |c: &TcCommit| c.phase.is_none();
        candidates.extend(self.flight.commits.iter().enumerate().filter(|(_, c)| ready(c)).map(|(i, _)| (3, i)));
        if candidates.is_empty() {
            return Ok(());
        }
        let (kind, i) = candidates[self.flight.rng.below(candidates.len() as u64) as usize];
        match kind {
            0 => self.land_load(i),
            1 => {
                let loc = self.flight.stores[i].loc.clone();
                self.write_store(i, &loc)
            }
            2 => {
                self.complete_mma(i);
                Ok(())
            }
            _ => self.arrive_commit(i),
        }
    }

    /// The kernel's end (`loc`: its return): anything still in flight is an error; stores retired by
    /// `wait_group.read` write their global bytes now (the latest moment).
    pub fn exit_check(&mut self, loc: &str) -> Result<(), SimError> {
        let fail = |m: String| Err(SimError::new(loc, format!("kernel exits with {m}")));
        if let Some(p) = self.pending.first() {
            return match p.group {
                Some(g) if g >= self.open_group => fail(format!(
                    "a cp.async (issued at {}) in a group never committed: no cp.async.commit_group closed it",
                    p.loc
                )),
                Some(g) => fail(format!(
                    "a cp.async (issued at {}, group {g}) in flight: no cp.async.wait_group retired its group",
                    p.loc
                )),
                None => fail(format!(
                    "a TMA load (issued at {}, barrier {}) no thread waited for: its bytes land in freed shared memory",
                    p.loc, p.bar
                )),
            };
        }
        if let Some(l) = &self.flight.wg_open {
            return fail(format!("a wgmma.mma_async (issued at {l}) never committed: no wgmma.commit_group"));
        }
        if self.flight.wg_committed > self.flight.wg_retired {
            let r = self.flight.readers.iter().find(|r| r.kind == ReadKind::Wgmma);
            let at = r.map(|r| format!(" (issued at {})", r.loc)).unwrap_or_default();
            return fail(format!("a wgmma group{at} in flight: no wgmma.wait_group retired it"));
        }
        if let Some(m) = self.flight.mmas.iter().find(|m| !m.observed) {
            let why = if m.commit.is_none() { "no tcgen05.commit tracks it" } else { "no wait observed its commit" };
            return fail(format!("a tcgen05.mma (issued at {}) whose completion no thread observed: {why}", m.loc));
        }
        if let (issued, retired, Some(l)) = &self.flight.lds {
            if issued > retired {
                return fail(format!("a tcgen05.ld (issued at {l}) never waited for: no tcgen05.wait::ld"));
            }
        }
        if let Some(s) = self.flight.stores.iter().find(|s| !s.read_retired) {
            let why = if s.group.is_none() {
                "no cp.async.bulk.commit_group closed its group"
            } else {
                "no cp.async.bulk.wait_group.read retired its group"
            };
            return fail(format!(
                "a TMA store (issued at {}) that may still read its shared source, freed at exit: {why}",
                s.loc
            ));
        }
        for i in 0..self.flight.stores.len() {
            self.write_store(i, loc)?;
        }
        Ok(())
    }
}
