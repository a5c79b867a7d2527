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
//! baton checks its condition again; when every live strand has checked twice in a row with no progress between,
//! nothing can go on: a deadlock, reported at the wait with every strand's wait named.
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
    /// Blocked: where, and what it waits for (as of its last check).
    Waits { loc: String, what: String },
    /// Finished.
    Done,
}

/// One strand: its status, its threads (for reports) and, once done, the values its region yielded.
#[derive(Clone, Debug)]
struct Strand {
    status: Status,
    threads: String,
    result: Option<Vec<V>>,
}

/// Every strand of a run and the baton's bookkeeping.
pub(super) struct Strands {
    list: Vec<Strand>,
    /// The strand holding the baton.
    turn: usize,
    /// Hand-overs by blocked strands since some strand last made progress.
    idle: usize,
    /// The first error of any strand: every strand unwinds with it.
    abort: Option<SimError>,
}

impl Strands {
    /// The strands of a CTA of `n` threads: one, the whole CTA, holding the baton.
    pub(super) fn new(n: usize) -> Strands {
        let root = Strand { status: Status::Ready, threads: describe(&vec![true; n]), result: None };
        Strands { list: vec![root], turn: 0, idle: 0, abort: None }
    }

    fn live(&self) -> Vec<usize> {
        (0..self.list.len()).filter(|&i| self.list[i].status != Status::Done).collect()
    }

    fn done(&self, ids: &[usize]) -> bool {
        ids.iter().all(|&i| self.list[i].status == Status::Done)
    }
}

/// `warps 1-4`, `warp 0`, or `threads 0-15` of a mask, for reports.
fn describe(mask: &[bool]) -> String {
    let on: Vec<usize> = (0..mask.len()).filter(|&t| mask[t]).collect();
    let (first, last) = (on.first().copied().unwrap_or(0), on.last().copied().unwrap_or(0));
    let whole = on.len().is_multiple_of(32) && first.is_multiple_of(32) && last - first + 1 == on.len();
    match (whole, first / 32, last / 32) {
        (true, a, b) if a == b => format!("warp {a}"),
        (true, a, b) => format!("warps {a}-{b}"),
        _ => format!("threads {}", on.iter().map(usize::to_string).collect::<Vec<_>>().join(",")),
    }
}

/// An IR handle moved to a strand's thread. Sound because the IR is only read during a run (the interpreter
/// never mutates it), and only by the strand holding the baton, whose hand-over is a lock release/acquire.
struct Ir<T>(T);

// SAFETY: see `Ir`: read-only use, serialized by the baton (`Shared`'s mutex).
unsafe impl<T> Send for Ir<T> {}

impl<'s, 'l> Exec<'s, 'l> {
    /// The root strand's handle: the whole CTA, holding the baton.
    pub(super) fn root(sh: &'s Shared<'l>) -> Exec<'s, 'l> {
        Exec { st: sh.state.lock(), sh, me: 0 }
    }

    /// Runs each side (a region of `op`, the threads that take it) and returns the values each yielded, in
    /// order. One side runs here; with two or more, this strand runs the first (it holds the baton) and a new
    /// strand on its own thread runs each other one, and this strand waits for them at the end of its side.
    pub(super) fn run_sides(
        &mut self,
        op: OperationRef,
        sides: &[(usize, Vec<bool>)],
        loc: &str,
    ) -> Result<Vec<Vec<V>>, SimError> {
        if sides.len() < 2 {
            return sides.iter().map(|(r, mask)| self.run_region(op, *r, &[], mask, loc)).collect();
        }
        let first = self.st.strands.list.len();
        for (_, mask) in &sides[1..] {
            self.st.strands.list.push(Strand { status: Status::Ready, threads: describe(mask), result: None });
        }
        let ids: Vec<usize> = (first..first + sides.len() - 1).collect();
        let (me, sh) = (self.me, self.sh);
        let threads = std::mem::replace(&mut self.st.strands.list[me].threads, describe(&sides[0].1));
        let mine = std::thread::scope(|scope| {
            for (&id, (r, mask)) in ids.iter().zip(&sides[1..]) {
                let (ir, r, mask, loc) = (Ir(op), *r, mask.clone(), loc.to_string());
                scope.spawn(move || {
                    let ir = ir;
                    let mut ex = Exec { st: sh.state.lock(), sh, me: id };
                    let out = ex.wait_turn().and_then(|()| ex.run_region(ir.0, r, &[], &mask, &loc));
                    ex.finish(out);
                    if ex.st.strands.turn == id {
                        ex.pass();
                    }
                    sh.turn.notify_all();
                });
            }
            let what = match ids.len() {
                1 => format!("the other side of the branch at {loc} to finish"),
                n => format!("the other {n} sides of the branch at {loc} to finish"),
            };
            let mine = self.run_region(op, sides[0].0, &[], &sides[0].1, loc).and_then(|out| {
                self.block_until(loc, |ex| Ok((!ex.st.strands.done(&ids)).then(|| what.clone())))?;
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

    /// Blocks this strand until `blocked` (what the strand still waits for, `None` once it can go on) says it can
    /// go on: checks now, and again each time the strand gets the baton back, handing it on in between. A
    /// deadlock when every live strand has checked twice in a row and none could go on.
    pub(super) fn block_until(
        &mut self,
        loc: &str,
        mut blocked: impl FnMut(&mut Self) -> Result<Option<String>, SimError>,
    ) -> Result<(), SimError> {
        let me = self.me;
        loop {
            if let Some(e) = &self.st.strands.abort {
                return Err(e.clone());
            }
            let Some(what) = blocked(self)? else {
                self.st.strands.list[me].status = Status::Ready;
                self.st.strands.idle = 0;
                return Ok(());
            };
            let strands = &mut self.st.strands;
            strands.list[me].status = Status::Waits { loc: loc.to_string(), what };
            strands.idle += 1;
            if strands.idle > 2 * strands.live().len() {
                return Err(self.deadlock());
            }
            self.pass();
            self.wait_turn()?;
        }
    }

    /// Under a shuffled warp order, hands the baton to a drawn live strand (perhaps this one) at a synchronization
    /// point, so that seeded schedules run the strands in other interleavings; this strand stays ready.
    pub(super) fn interleave(&mut self) -> Result<(), SimError> {
        let live = self.st.strands.live();
        if !matches!(self.warps, WarpOrder::Shuffled(_)) || live.len() < 2 {
            return Ok(());
        }
        let pick = live[self.rng.below(live.len() as u64) as usize];
        if pick != self.me {
            self.st.strands.turn = pick;
            self.sh.turn.notify_all();
            self.wait_turn()?;
            self.st.strands.idle = 0;
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
        strands.idle = 0;
    }

    /// The deadlock error at this strand's wait: what it waits for, and what every other live strand waits for.
    fn deadlock(&self) -> SimError {
        let strands = &self.st.strands;
        let (loc, what) = match &strands.list[self.me].status {
            Status::Waits { loc, what } => (loc.as_str(), what.as_str()),
            _ => ("", "a wait"),
        };
        let mut message = format!("deadlock: {what} can never succeed, and nothing pending can complete it");
        let others: Vec<String> = (0..strands.list.len())
            .filter(|&i| i != self.me)
            .filter_map(|i| match &strands.list[i].status {
                Status::Waits { loc, what } => Some(format!("{} at {loc}, on {what}", strands.list[i].threads)),
                _ => None,
            })
            .collect();
        if !others.is_empty() {
            let here = &strands.list[self.me].threads;
            message += &format!(" (here: {here}; no other strand can go on: {})", others.join("; "));
        }
        SimError::new(loc, message)
    }
}
