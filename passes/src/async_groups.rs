//! The asynchronous-copy groups of a kernel, checked at its exits (issue 21: `gemm_sm80` at K <= 64 returned with
//! 16 `cp.async` copies per thread in flight). Run by `--axe-check-barriers` (and so by `--lower-tma`) beside the
//! mbarrier protocol of [`crate::barrier_check`]; an analysis, it changes nothing.
//!
//! A CTA that returns while its asynchronous copies still write shared memory (or still read it, for a bulk
//! store) hands that memory to the next CTA on the SM with the copies under way: the PTX ISA requires waiting for
//! them (9.7.9.25.3, cp.async; 9.7.9.25.4, cp.async.bulk). Rule `async-exit`: on every path to a kernel's return,
//! every copy issued is in a committed group that a wait completed.
//!
//! Two kinds of group, each per thread, tracked alike:
//! - `cp.async`: issued by `axe.copy_async` from global to shared without a barrier operand (a `cp.async` into
//!   the open group, by `--lower-copy`) and `nvvm.cp.async.shared.global`; closed by `nvvm.cp.async.commit.group`; `nvvm.cp.async.
//!   wait.group N` completes every committed group but the newest `N` (copies not yet committed stay in flight).
//! - bulk: issued by `nvgpu.tma.async.store` and the `nvvm.cp.async.bulk` stores and reductions into global memory;
//!   closed by `nvvm.cp.async.bulk.commit.group`; `nvvm.cp.async.bulk.wait_group N` (with `.read`, the shared
//!   source is free, which is what an exit needs).
//!
//! The state at a point is, per kind, whether copies may be open (issued, not committed) and, newest first, which
//! committed groups may still hold copies not waited for (an empty group is complete). Paths join position by
//! position (`wait_group N` keeps the newest `N`, whatever came before). `scf.if` and `scf.index_switch` join their
//! branches (and the way around an absent `else`); a loop body (any other region) runs zero or more times, to a
//! fixed point. Positions past the largest `N` any wait of the kernel names are merged into one: every wait drops
//! them, so the lattice is finite. A multi-block region (after `--lower-to-nvvm`) starts each block from the join of
//! the region's entry and every block's exit, to a fixed point: sound for any branches, possibly pessimistic.
//!
//! The facts are the IR's, not the values': an `scf.if` that issues nothing on the last loop iteration still counts
//! as possibly issuing, so a pipeline drains with `wait_group 0` after its loop (free when the groups left are
//! empty), as CUTLASS's mainloops do. Not modelled: a synchronous `axe.copy` that `--lower-copy` plans as cp.async
//! (its own commit and `wait_group 0` drain every group; taken as draining nothing, the conservative side), and
//! kernels past [`FUEL`] op visits (accepted unchecked rather than refused).

use axe_dialect::{
    access::{self, OpKey},
    AxeOp, OpKind,
};
use axe_layout::hw::Memory;
use melior::ir::{
    attribute::IntegerAttribute, block::BlockLike, operation::OperationLike, BlockRef, Location, OperationRef,
    RegionLike,
};
use std::collections::HashMap;

/// At most this many op visits per kernel (nested loops re-walk their bodies to a fixed point).
pub const FUEL: u64 = 2_000_000;

/// The two kinds of asynchronous group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    CpAsync,
    Bulk,
}

/// One kind's groups at a program point.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Groups {
    /// Copies issued and not committed, on some path.
    open: bool,
    /// Committed groups, newest first: `true` when the group may hold a copy not waited for.
    committed: Vec<bool>,
}

impl Groups {
    fn join(&mut self, other: &Groups) {
        self.open |= other.open;
        if other.committed.len() > self.committed.len() {
            self.committed.resize(other.committed.len(), false);
        }
        for (mine, theirs) in self.committed.iter_mut().zip(&other.committed) {
            *mine |= *theirs;
        }
        self.trim();
    }

    /// Drops the oldest groups that hold nothing (an empty group is complete), so equal states compare equal.
    fn trim(&mut self) {
        while self.committed.last() == Some(&false) {
            self.committed.pop();
        }
    }

    /// Commits the open copies as the newest group; positions from `cap - 1` on merge into one.
    fn commit(&mut self, cap: usize) {
        self.committed.insert(0, std::mem::take(&mut self.open));
        if self.committed.len() > cap {
            let tail = self.committed.drain(cap - 1..).fold(false, |a, b| a | b);
            self.committed.push(tail);
        }
        self.trim();
    }

    /// Waits until at most the newest `n` committed groups are pending.
    fn wait(&mut self, n: usize) {
        self.committed.truncate(n);
        self.trim();
    }

    /// Committed groups that may hold copies.
    fn pending(&self) -> usize {
        self.committed.iter().filter(|g| **g).count()
    }
}

/// Both kinds at a program point.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct State {
    cp: Groups,
    bulk: Groups,
}

impl State {
    fn join(&mut self, other: &State) {
        self.cp.join(&other.cp);
        self.bulk.join(&other.bulk);
    }

    fn of(&mut self, kind: Kind) -> &mut Groups {
        match kind {
            Kind::CpAsync => &mut self.cp,
            Kind::Bulk => &mut self.bulk,
        }
    }
}

/// What an op does to the groups.
enum Effect {
    Issue(Kind),
    Commit(Kind),
    Wait(Kind, usize),
    Return,
    None,
}

fn effect(op: OperationRef) -> Effect {
    let name = op.name();
    let name = name.as_string_ref().as_str().unwrap_or("");
    let n = |key: &str| {
        op.attribute(key).ok().and_then(|a| IntegerAttribute::try_from(a).ok()).map_or(0, |a| a.value().max(0)) as usize
    };
    match name {
        "axe.copy_async" if AxeOp::new(op).is_some_and(is_cp_async) => Effect::Issue(Kind::CpAsync),
        "nvvm.cp.async.shared.global" => Effect::Issue(Kind::CpAsync),
        "nvvm.cp.async.commit.group" => Effect::Commit(Kind::CpAsync),
        "nvvm.cp.async.wait.group" => Effect::Wait(Kind::CpAsync, n("n")),
        "nvgpu.tma.async.store"
        | "nvvm.cp.async.bulk.tensor.global.shared.cta"
        | "nvvm.cp.async.bulk.global.shared.cta"
        | "nvvm.cp.async.bulk.tensor.reduce" => Effect::Issue(Kind::Bulk),
        "nvvm.cp.async.bulk.commit.group" => Effect::Commit(Kind::Bulk),
        "nvvm.cp.async.bulk.wait_group" => Effect::Wait(Kind::Bulk, n("group")),
        "gpu.return" | "llvm.return" | "func.return" => Effect::Return,
        _ => Effect::None,
    }
}

/// An `axe.copy_async` global -> shared without a barrier: a `cp.async` into the open group (`--lower-copy`).
fn is_cp_async(op: AxeOp) -> bool {
    let mem = |role: &str| op.tensor(role).map(|t| t.mem);
    op.kind() == OpKind::CopyAsync
        && op.operand(2).is_none()
        && mem("source") == Some(Memory::Global)
        && mem("dest") == Some(Memory::Shared)
}

/// Whether `op` is a kernel: a `gpu.func` marked `kernel`, or an `llvm.func` marked `gpu.kernel`/`nvvm.kernel`.
fn is_kernel(op: OperationRef) -> bool {
    let name = op.name();
    match name.as_string_ref().as_str().unwrap_or("") {
        "gpu.func" => op.has_attribute("gpu.kernel") || op.has_attribute("kernel"),
        "llvm.func" => op.has_attribute("gpu.kernel") || op.has_attribute("nvvm.kernel"),
        _ => false,
    }
}

/// Ops whose regions are alternatives: exactly one runs (an empty region passes the state through).
fn is_branch(name: &str) -> bool {
    matches!(name, "scf.if" | "scf.index_switch")
}

/// The errors found, in the order of the returns they are at: (walk index, location, message).
pub(crate) type Found<'c> = Vec<(u32, Location<'c>, String)>;

/// Checks every kernel under `root`; returns the `async-exit` errors (not yet emitted), located at the returns.
pub(crate) fn check<'c>(root: OperationRef<'c, '_>) -> Found<'c> {
    let mut kernels = Vec::new();
    axe_dialect::ops::walk_preorder(root, &mut |op| {
        if is_kernel(op) {
            kernels.push(op);
        }
    });
    let mut found = Vec::new();
    for kernel in kernels {
        let mut cap = 1;
        axe_dialect::ops::walk_preorder(kernel, &mut |op| {
            if let Effect::Wait(_, n) = effect(op) {
                cap = cap.max(n.saturating_add(1).min(64));
            }
        });
        let mut walker = Walker { cap, fuel: FUEL, exits: Vec::new(), seen: HashMap::new() };
        if let Some(region) = access::region(kernel, 0) {
            walker.region(region, State::default());
        }
        if walker.fuel > 0 {
            for (index, (op, state)) in walker.exits.iter().enumerate() {
                if let Some(message) = exit_message(*op, state) {
                    found.push((index as u32, op.location(), message));
                }
            }
        }
    }
    found
}

/// The error at a return whose state may leave copies in flight.
fn exit_message(op: OperationRef, state: &State) -> Option<String> {
    let name = op.name();
    let name = name.as_string_ref().as_str().unwrap_or("the return").to_string();
    let mut parts = Vec::new();
    for (groups, what, wait) in [
        (&state.cp, "cp.async", "nvvm.cp.async.wait.group 0"),
        (&state.bulk, "cp.async.bulk", "nvvm.cp.async.bulk.wait_group 0 (.read suffices)"),
    ] {
        let pending = groups.pending();
        if pending == 0 && !groups.open {
            continue;
        }
        let mut why = Vec::new();
        if pending > 0 {
            why.push(format!(
                "{pending} committed group{} that may hold copies not waited for",
                if pending == 1 { "" } else { "s" }
            ));
        }
        if groups.open {
            why.push("copies never committed to a group".to_string());
        }
        let commit = if groups.open { "commit and " } else { "" };
        parts.push(format!("{what}: {} ({commit}add {wait} before it)", why.join(" and ")));
    }
    if parts.is_empty() {
        return None;
    }
    Some(format!(
        "barrier: async-exit rule: {name} may leave asynchronous copies in flight on some path, which keep using \
         shared memory the next CTA gets: {}",
        parts.join("; ")
    ))
}

struct Walker<'c, 'a> {
    /// Committed positions kept apart (1 + the largest wait count of the kernel).
    cap: usize,
    fuel: u64,
    /// Every return reached, with the join of the states it was reached in.
    exits: Vec<(OperationRef<'c, 'a>, State)>,
    /// Index in `exits` by return op.
    seen: HashMap<OpKey, usize>,
}

impl<'c, 'a> Walker<'c, 'a> {
    /// The state after running `region` from `state` (its blocks joined as the module docs say).
    fn region(&mut self, region: melior::ir::RegionRef<'c, 'a>, state: State) -> State {
        let Some(first) = region.first_block() else { return state };
        if first.next_in_region().is_none() {
            return self.block(first, state);
        }
        let mut entry = state;
        loop {
            let mut out = entry.clone();
            let mut block = Some(first);
            while let Some(current) = block {
                out.join(&self.block(current, entry.clone()));
                block = current.next_in_region();
            }
            if out == entry || self.fuel == 0 {
                return out;
            }
            entry = out;
        }
    }

    fn block(&mut self, block: BlockRef<'c, 'a>, mut state: State) -> State {
        let mut cursor = block.first_operation();
        while let Some(op) = cursor {
            state = self.op(op, state);
            cursor = op.next_in_block();
        }
        state
    }

    fn op(&mut self, op: OperationRef<'c, 'a>, mut state: State) -> State {
        if self.fuel == 0 {
            return state;
        }
        self.fuel -= 1;
        match effect(op) {
            Effect::Issue(kind) => state.of(kind).open = true,
            Effect::Commit(kind) => state.of(kind).commit(self.cap),
            Effect::Wait(kind, n) => state.of(kind).wait(n),
            Effect::Return => self.exit(op, &state),
            Effect::None => {}
        }
        if op.region_count() == 0 || is_kernel(op) {
            return state;
        }
        let name = op.name();
        let name = name.as_string_ref().as_str().unwrap_or("");
        if is_branch(name) {
            let mut out: Option<State> = None;
            for index in 0..op.region_count() {
                let Some(region) = access::region(op, index) else { continue };
                let after = self.region(region, state.clone());
                match &mut out {
                    Some(joined) => joined.join(&after),
                    None => out = Some(after),
                }
            }
            return out.unwrap_or(state);
        }
        // Any other region may run zero or more times, one after another: a fixed point.
        let mut current = state;
        loop {
            let mut next = current.clone();
            for index in 0..op.region_count() {
                let Some(region) = access::region(op, index) else { continue };
                let after = self.region(region, current.clone());
                next.join(&after);
            }
            if next == current || self.fuel == 0 {
                return next;
            }
            current = next;
        }
    }

    fn exit(&mut self, op: OperationRef<'c, 'a>, state: &State) {
        match self.seen.get(&access::key(op)) {
            Some(&index) => self.exits[index].1.join(state),
            None => {
                self.seen.insert(access::key(op), self.exits.len());
                self.exits.push((op, state.clone()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axe_dialect::ffi;

    /// The messages of the check on `source`.
    fn run(source: &str) -> Vec<String> {
        let (_, _, messages) = crate::testing::run_pass(source, |root| {
            let found = check(root);
            for (_, location, message) in &found {
                ffi::emit_error(*location, message);
            }
            if found.is_empty() {
                Ok(())
            } else {
                Err(found.len())
            }
        });
        messages
    }

    fn kernel(body: &str) -> String {
        format!(
            "gpu.module @m {{\n  gpu.func @k(%p: !llvm.ptr<3>, %q: !llvm.ptr<1>, %c: i1, %n: index) kernel {{\n    \
             %c0 = arith.constant 0 : index\n    %c1 = arith.constant 1 : index\n{body}\n    gpu.return\n  }}\n}}"
        )
    }

    const COPY: &str = "    nvvm.cp.async.shared.global %p, %q, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>";

    #[test]
    fn groups_follow_commit_and_wait() {
        let mut g = Groups { open: true, committed: Vec::new() };
        g.commit(3);
        g.commit(3);
        assert_eq!(g.committed, vec![false, true]);
        g.wait(1);
        assert_eq!(g, Groups::default());
        // Past the cap, old positions merge into one that every wait drops.
        for _ in 0..5 {
            g.open = true;
            g.commit(2);
        }
        assert_eq!(g.committed, vec![true, true]);
        g.wait(1);
        assert_eq!(g.committed, vec![true]);
    }

    #[test]
    fn a_drained_kernel_passes() {
        let body = format!("{COPY}\n    nvvm.cp.async.commit.group\n    nvvm.cp.async.wait.group 0");
        assert_eq!(run(&kernel(&body)), Vec::<String>::new());
    }

    #[test]
    fn a_copy_never_committed_or_waited_is_refused() {
        let messages = run(&kernel(COPY));
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert!(messages[0].contains("async-exit rule") && messages[0].contains("never committed"), "{messages:?}");
        let body = format!("{COPY}\n    nvvm.cp.async.commit.group\n    nvvm.cp.async.wait.group 1");
        let messages = run(&kernel(&body));
        assert!(messages[0].contains("1 committed group that may hold copies"), "{messages:?}");
    }

    #[test]
    fn a_branch_that_may_issue_needs_a_wait_after_the_join() {
        // The copy in the then-branch, a commit after: the wait for all but the newest group leaves it in flight.
        let body = format!(
            "    scf.if %c {{\n{COPY}\n    }}\n    nvvm.cp.async.commit.group\n    nvvm.cp.async.commit.group\n    \
             nvvm.cp.async.wait.group 1"
        );
        assert!(run(&kernel(&body)).is_empty(), "the copy's group is the older one, completed");
        let body =
            format!("    scf.if %c {{\n{COPY}\n    }}\n    nvvm.cp.async.commit.group\n    nvvm.cp.async.wait.group 1");
        assert_eq!(run(&kernel(&body)).len(), 1);
    }

    #[test]
    fn a_loop_that_commits_without_a_final_wait_is_refused() {
        // The pipeline shape: wait 1, issue, commit, per iteration; a wait 0 after the loop drains it.
        let lp = format!(
            "    scf.for %i = %c0 to %n step %c1 {{\n      nvvm.cp.async.wait.group 1\n  {COPY}\n      \
             nvvm.cp.async.commit.group\n    }}"
        );
        assert_eq!(run(&kernel(&lp)).len(), 1);
        assert!(run(&kernel(&format!("{lp}\n    nvvm.cp.async.wait.group 0"))).is_empty());
    }

    #[test]
    fn bulk_groups_are_checked_and_a_read_wait_suffices() {
        let store = "    nvvm.cp.async.bulk.commit.group";
        // A commit of an empty group leaves nothing in flight.
        assert!(run(&kernel(store)).is_empty());
        let body = "    nvvm.cp.async.bulk.wait_group 0 {read}";
        assert!(run(&kernel(body)).is_empty());
    }
}
