//! Strands: the divergent sides of a branch, run concurrently as the hardware runs warps.
//!
//! A warp-specialized kernel splits its CTA by warp (`scf.if` / `scf.index_switch` on the warp index): a producer
//! warp issues loads into a ring of stages while consumer warps compute on earlier ones, and each side waits on
//! mbarriers the other completes. Run one side to its end before the other, as a lockstep interpreter would, and
//! the first wait for the other side's arrival can never succeed. So when a branch has more than one active side,
//! each side becomes a *strand*: the same recursive interpreter on its own (scoped) OS thread, over the same
//! [`State`]. One strand at a time holds the *baton* (the state's lock and the turn), so the state is never touched
//! concurrently and a run is deterministic: the schedule, not the OS, decides every hand-over.
//!
//! A strand hands the baton on only where a warp can stall on the hardware ([`Exec::block_until`]: a parity wait
//! whose phase has not completed, a parent waiting for its sides), and, under a shuffled [`WarpOrder`], at
//! synchronization points ([`Exec::interleave`]), so that seeded schedules explore other interleavings. The next
//! strand is the next live one in the schedule's order (by index, reversed, or drawn). A blocked strand given the
//! baton checks its condition again. Progress (a strand that ran ops, a wait that passed, a check that landed an
//! asynchronous operation) starts a new *epoch*; when every live strand is blocked and has checked in vain in the
//! current epoch, nothing can go on: a deadlock, reported at the wait with every strand's wait named.
//!
//! The first side runs on the parent's thread; when all sides are done the parent goes on with their results. An
//! error in any strand aborts all of them (each wakes, sees it and unwinds); the first error is the run's.

use super::{Exec, State};
use crate::schedule::WarpOrder;
use crate::value::V;
use crate::SimError;
use melior::ir::OperationRef;
use parking_lot::{Condvar, Mutex};

/// The interpreter's state under its lock, and the condition strands wait on for their turn.
pub(super) struct Shared<'l> {
    state: Mutex<State<'l>>,
    turn: Condvar,
}

impl<'l> Shared<'l> {
    /// `state`, to be run by strands.
    pub(super) fn new(state: State<'l>) -> Shared<'l> {
        Shared { state: Mutex::new(state), turn: Condvar::new() }
    }
}

/// What a strand is doing.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Status {
    /// Running, or ready to run when it gets the baton.
    Ready,
    /// Blocked: where, what it waits for (as of its last check), and whether that is other strands finishing
    /// (a join) rather than the machine (a barrier phase).
    Waits { loc: String, what: String, join: bool },
    /// Finished.
    Done,
}

/// One strand: its status, its threads (for reports), the epoch of its last vain check, and once done the values
/// its region yielded.
#[derive(Clone, Debug)]
struct Strand {
    status: Status,
    threads: String,
    checked: u64,
    result: Option<Vec<V>>,
}

impl Strand {
    fn new(mask: &[bool]) -> Strand {
        Strand { status: Status::Ready, threads: describe(mask), checked: 0, result: None }
    }
}

/// Every strand of a run and the baton's bookkeeping.
pub(super) struct Strands {
    list: Vec<Strand>,
    /// The strand holding the baton.
    turn: usize,
    /// Incremented at every progress (see the module docs); starts at 1, after every strand's `checked`.
    epoch: u64,
    /// The first error of any strand: every strand unwinds with it.
    abort: Option<SimError>,
}

impl Strands {
    /// The strands of a CTA of `n` threads: one, the whole CTA, holding the baton.
    pub(super) fn new(n: usize) -> Strands {
        Strands { list: vec![Strand::new(&vec![true; n])], turn: 0, epoch: 1, abort: None }
    }

    fn live(&self) -> Vec<usize> {
        (0..self.list.len()).filter(|&i| self.list[i].status != Status::Done).collect()
    }

    fn done(&self, ids: &[usize]) -> bool {
        ids.iter().all(|&i| self.list[i].status == Status::Done)
    }

    /// Every live strand is blocked and checked in vain in this epoch.
    fn stuck(&self) -> bool {
        self.list.iter().all(|s| match s.status {
            Status::Done => true,
            Status::Ready => false,
            Status::Waits { .. } => s.checked == self.epoch,
        })
    }
}

/// The threads of a mask, for reports: `warp 8`, `warps 0-7`, or `lanes 1-31 of warps 0-7` (`threads ...` when
/// warps differ in their lanes).
fn describe(mask: &[bool]) -> String {
    let warps: Vec<(usize, Vec<usize>)> = (0..mask.len().div_ceil(32))
        .map(|w| (w, (0..32).filter(|l| mask.get(w * 32 + l) == Some(&true)).collect::<Vec<usize>>()))
        .filter(|(_, lanes)| !lanes.is_empty())
        .collect();
    let ids: Vec<usize> = warps.iter().map(|(w, _)| *w).collect();
    let noun = if ids.len() == 1 { "warp" } else { "warps" };
    match warps.first() {
        None => "no threads".to_string(),
        Some((_, lanes)) if warps.iter().all(|(_, l)| l == lanes) && lanes.len() == 32 => {
            format!("{noun} {}", ranges(&ids))
        }
        Some((_, lanes)) if warps.iter().all(|(_, l)| l == lanes) => {
            format!("lanes {} of {noun} {}", ranges(lanes), ranges(&ids))
        }
        _ => format!("threads {}", ranges(&(0..mask.len()).filter(|&t| mask[t]).collect::<Vec<_>>())),
    }
}

/// `0-3, 5, 7-9` of sorted numbers.
fn ranges(xs: &[usize]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < xs.len() {
        let mut j = i;
        while j + 1 < xs.len() && xs[j + 1] == xs[j] + 1 {
            j += 1;
        }
        parts.push(if i == j { xs[i].to_string() } else { format!("{}-{}", xs[i], xs[j]) });
        i = j + 1;
    }
    parts.join(", ")
}

/// Stack of a strand's thread.
const STACK_BYTES: usize = 8 << 20;

/// An IR handle moved to a strand's thread. Sound because the IR is only read during a run (the interpreter
/// never mutates it), and only by the strand holding the baton, whose hand-over is a lock release/acquire.
struct Ir<T>(T);

/// What one side of a divergent op runs.
#[derive(Clone, Copy, Debug)]
pub(super) enum Side {
    /// Region `r` of the op (a branch of `scf.if`, a case of `scf.index_switch`).
    Region(usize),
    /// The whole `scf.for`, for threads whose bounds agree (loops whose bounds differ between threads).
    Loop,
}

// SAFETY: see `Ir`: read-only use, serialized by the baton (`Shared`'s mutex).
unsafe impl<T> Send for Ir<T> {}

impl<'s, 'l> Exec<'s, 'l> {
    /// The root strand's handle: the whole CTA, holding the baton.
    pub(super) fn root(sh: &'s Shared<'l>) -> Exec<'s, 'l> {
        Exec { st: sh.state.lock(), sh, me: 0 }
    }

    /// Runs each side (what of `op` it runs, the threads that take it) and returns the values each yielded, in
    /// order. One side runs here; with two or more, this strand runs the first (it holds the baton) and a new
    /// strand on its own thread runs each other one, and this strand waits for them at the end of its side.
    pub(super) fn run_sides(
        &mut self,
        op: OperationRef,
        sides: &[(Side, Vec<bool>)],
        loc: &str,
    ) -> Result<Vec<Vec<V>>, SimError> {
        if sides.len() < 2 {
            return sides.iter().map(|(side, mask)| self.run_side(op, *side, mask, loc)).collect();
        }
        let first = self.st.strands.list.len();
        for (_, mask) in &sides[1..] {
            self.st.strands.list.push(Strand::new(mask));
        }
        let ids: Vec<usize> = (first..first + sides.len() - 1).collect();
        let (me, sh) = (self.me, self.sh);
        let threads = std::mem::replace(&mut self.st.strands.list[me].threads, describe(&sides[0].1));
        let mine = std::thread::scope(|scope| {
            for (&id, (r, mask)) in ids.iter().zip(&sides[1..]) {
                let (ir, r, mask, at) = (Ir(op), *r, mask.clone(), loc.to_string());
                let strand = move || {
                    let ir = ir;
                    // A panic (an interpreter bug) must not leave the parent waiting for this strand forever:
                    // it ends the strand with an error instead, which aborts the run.
                    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        let mut ex = Exec { st: sh.state.lock(), sh, me: id };
                        let out = ex.wait_turn().and_then(|()| ex.run_side(ir.0, r, &mask, &at));
                        ex.finish(out);
                        ex
                    }));
                    let mut ex = run.unwrap_or_else(|_| {
                        let mut ex = Exec { st: sh.state.lock(), sh, me: id };
                        ex.finish(Err(SimError::new(&at, "internal error: a strand of this branch panicked")));
                        ex
                    });
                    if ex.st.strands.turn == id {
                        ex.pass();
                    }
                    sh.turn.notify_all();
                };
                // The interpreter recurses per region: the main thread's stack size, not a spawned thread's 2 MiB.
                let spawned = std::thread::Builder::new().stack_size(STACK_BYTES).spawn_scoped(scope, strand);
                if let Err(e) = spawned {
                    let strands = &mut self.st.strands;
                    strands.abort.get_or_insert_with(|| SimError::new(loc, format!("cannot start a thread: {e}")));
                    strands.list[id].status = Status::Done;
                }
            }
            let what = match ids.len() {
                1 => format!("the other side of the branch at {loc} to finish"),
                n => format!("the other {n} sides of the branch at {loc} to finish"),
            };
            let mine = self.run_side(op, sides[0].0, &sides[0].1, loc).and_then(|out| {
                self.block_until(loc, true, |ex| Ok((!ex.st.strands.done(&ids)).then(|| what.clone())))?;
                Ok(out)
            });
            if let Err(e) = &mine {
                // Every other side unwinds with the error before the scope joins their threads.
                self.st.strands.abort.get_or_insert_with(|| e.clone());
                sh.turn.notify_all();
                while !self.st.strands.done(&ids) {
                    sh.turn.wait(&mut self.st);
                }
            }
            mine
        });
        self.st.strands.list[me].threads = threads;
        let mut outs = vec![mine?];
        outs.extend(ids.iter().map(|&i| self.st.strands.list[i].result.take().unwrap_or_default()));
        if self.st.strands.list.len() == first + ids.len() {
            self.st.strands.list.truncate(first);
        }
        Ok(outs)
    }

    /// Runs `side` of `op` under `mask`: the values it yielded.
    fn run_side(&mut self, op: OperationRef, side: Side, mask: &[bool], loc: &str) -> Result<Vec<V>, SimError> {
        match side {
            Side::Region(r) => self.run_region(op, r, &[], mask, loc),
            Side::Loop => self.for_loop(op, mask, loc),
        }
    }

    /// Blocks this strand until `blocked` (what the strand still waits for, `None` once it can go on) says it can
    /// go on: checks now, and again each time the strand gets the baton back, handing it on in between. A
    /// deadlock when every live strand is blocked and has checked in vain since the last progress.
    pub(super) fn block_until(
        &mut self,
        loc: &str,
        join: bool,
        mut blocked: impl FnMut(&mut Self) -> Result<Option<String>, SimError>,
    ) -> Result<(), SimError> {
        let me = self.me;
        // This strand ran ops since it last had to hand the baton over: progress.
        self.st.strands.epoch += 1;
        loop {
            if let Some(e) = &self.st.strands.abort {
                return Err(e.clone());
            }
            let landed = self.m.landed;
            let check = blocked(self)?;
            if self.m.landed != landed {
                self.st.strands.epoch += 1;
            }
            let Some(what) = check else {
                self.st.strands.list[me].status = Status::Ready;
                self.st.strands.epoch += 1;
                return Ok(());
            };
            let strands = &mut self.st.strands;
            strands.list[me].status = Status::Waits { loc: loc.to_string(), what, join };
            strands.list[me].checked = strands.epoch;
            if strands.stuck() {
                return Err(self.deadlock());
            }
            self.pass();
            self.wait_turn()?;
        }
    }

    /// Under a shuffled warp order, hands the baton to a drawn live strand (perhaps this one) at a synchronization
    /// point, so that seeded schedules run the strands in other interleavings; this strand stays ready.
    pub(super) fn interleave(&mut self) -> Result<(), SimError> {
        if !matches!(self.warps, WarpOrder::Shuffled(_)) {
            return Ok(());
        }
        let live = self.st.strands.live();
        if live.len() < 2 {
            return Ok(());
        }
        let pick = live[self.rng.below(live.len() as u64) as usize];
        if pick != self.me {
            self.st.strands.turn = pick;
            self.sh.turn.notify_all();
            self.wait_turn()?;
            self.st.strands.epoch += 1;
        }
        Ok(())
    }

    /// Waits until this strand holds the baton (or every strand unwinds with an error).
    fn wait_turn(&mut self) -> Result<(), SimError> {
        loop {
            if let Some(e) = &self.st.strands.abort {
                return Err(e.clone());
            }
            if self.st.strands.turn == self.me {
                return Ok(());
            }
            self.sh.turn.wait(&mut self.st);
        }
    }

    /// Hands the baton to the next live strand in the schedule's order (this one when it is the only one).
    fn pass(&mut self) {
        let live = self.st.strands.live();
        let me = self.me;
        let next = match self.warps {
            WarpOrder::Forward => live.iter().find(|&&i| i > me).or(live.first()).copied(),
            WarpOrder::Reverse => live.iter().rev().find(|&&i| i < me).or(live.last()).copied(),
            WarpOrder::Shuffled(_) => {
                let others: Vec<usize> = live.iter().copied().filter(|&i| i != me).collect();
                match others.len() {
                    0 => Some(me),
                    n => Some(others[self.rng.below(n as u64) as usize]),
                }
            }
        };
        self.st.strands.turn = next.unwrap_or(me);
        self.sh.turn.notify_all();
    }

    /// This strand is done: its region's values, or its error (which aborts every strand).
    fn finish(&mut self, out: Result<Vec<V>, SimError>) {
        let me = self.me;
        let strands = &mut self.st.strands;
        match out {
            Ok(values) => strands.list[me].result = Some(values),
            Err(e) => {
                strands.abort.get_or_insert(e);
            }
        }
        strands.list[me].status = Status::Done;
        strands.epoch += 1;
    }

    /// The deadlock error: at the first strand waiting on the machine (a barrier phase) rather than on other
    /// strands, with what it waits for, and what every other live strand waits for.
    fn deadlock(&self) -> SimError {
        let strands = &self.st.strands;
        let waiting = |i: usize| match &strands.list[i].status {
            Status::Waits { loc, what, join } => Some((loc.as_str(), what.as_str(), *join)),
            _ => None,
        };
        let all: Vec<usize> = (0..strands.list.len()).filter(|&i| waiting(i).is_some()).collect();
        let first = all.iter().copied().find(|&i| waiting(i).is_some_and(|w| !w.2)).unwrap_or(self.me);
        let (loc, what, _) = waiting(first).unwrap_or(("", "a wait", false));
        let mut message = format!("deadlock: {what} can never succeed, and nothing pending can complete it");
        let others: Vec<String> = all
            .iter()
            .filter(|&&i| i != first)
            .filter_map(|&i| {
                waiting(i).map(|(loc, what, _)| format!("{} at {loc}, on {what}", strands.list[i].threads))
            })
            .collect();
        if !others.is_empty() {
            let here = &strands.list[first].threads;
            message += &format!(" (here: {here}; no other strand can go on: {})", others.join("; "));
        }
        SimError::new(loc, message)
    }
}
