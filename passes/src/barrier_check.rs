//! `axe-check-barriers`: the mbarrier protocol, checked where the IR shows it (issue 11, pipelines).
//!
//! A wrong barrier protocol hangs or faults only on the GPU, so the mistakes the IR shows statically are located
//! errors. The check is a function-level dataflow, not a per-op verifier rule (the verifier runs after every pass
//! and judges one op at a time; these rules need paths through `scf` regions, and the byte rule needs the TMA
//! planner's answer, which only passes ask). It runs inside `--lower-tma` before anything is rewritten, and alone
//! as `--axe-check-barriers` (which plans each copy itself for its byte count and changes nothing).
//!
//! Barriers are the results of `axe.mbarrier_alloc`; a barrier reached any other way (a function or block
//! argument) is not tracked. The ops on a barrier are `axe.mbarrier_init`, `axe.mbarrier_arrive`,
//! `axe.mbarrier_arrive_expect_tx`, `axe.mbarrier_wait` and `axe.copy_async` with a barrier operand (a load that
//! completes on it). Rules (each error names its rule and the numbers):
//!
//! - `init`: every use of a barrier is initialized on every path to it. Straight-line code in order; `scf.if` and
//!   `scf.index_switch` initialize what all their branches initialize; a loop body (and any other region) may run
//!   zero times, so what it initializes does not count after it. Each block of a multi-block region starts from
//!   its region's entry state (conservative).
//! - `phase`: a wait for parity 0 (the barrier's first phase) is an error when no arrival on the barrier can come
//!   before it: nothing arrives on the barrier at all, or every arrival (arrive, expect_tx, copy) follows the wait
//!   in the wait's own block, so every thread that could arrive is stuck at the wait first. Arrivals anywhere else
//!   (earlier, in another branch another thread may take, after the construct that holds the wait, in an earlier
//!   loop iteration) may come first and are accepted. The parity is known when it is an `arith.constant`, or an
//!   `scf.for` iteration argument with a constant start and the wait directly in the loop body (its first
//!   execution sees the start). Parity 1 of a fresh barrier is the phase before the first, which PTX counts as
//!   complete (`mbarrier.try_wait.parity`, PTX ISA 9.7.13.15.16), so such a wait returns at once and is accepted.
//! - `tx-bytes`: an `axe.mbarrier_arrive_expect_tx` announces the bytes of the copies on its barrier that follow it
//!   in its block (nested regions included) up to the next wait on the barrier there: the *announced* copies. When
//!   the expect_tx ops and the announced copies of such a segment are all directly in the block and every copy's
//!   bytes are known (the TMA plan's total), the expected bytes must equal the delivered bytes.
//!
//! The protocol the lowering then follows ([`BarrierProtocol`]): an announced copy does not arrive itself (its
//! bytes only complete transactions); a copy that no expect_tx announces arrives once on its barrier and expects
//! its own bytes (one arrival per copy, as before this check existed).
//!
//! - `async-exit` ([`crate::async_groups`]): no kernel returns with `cp.async` or bulk async copies in flight on
//!   any path (each in a committed group a `wait_group` completed).
//!
//! Barrier arrays (`!axe.mbarrier<N>`, ops on `%bars[%i]`): the init rule is per element. An init without an index
//! initializes every element, one with a constant index that element, one with a run-time index none that the
//! check can name; a use with a constant index needs its element initialized, one with a run-time index every
//! element. The phase rule counts arrivals on any element of the array (an arrival on another element may be
//! this one's, when indices are run-time values: accepted). A tx-bytes segment is judged only when its expect_tx
//! ops, copies and closing wait name the same element (the same index value or constant); mixed, it is not
//! judged.
//!
//! Not checked: arrival counts against the `count` of `axe.mbarrier_init` and parities of later phases (they need
//! the number of arriving threads and of loop trips), and unstructured control flow beyond the conservative
//! per-block start.
//!
//! Work is linear in the ops: one walk in IR order, an undo log for the branches' init states, one binary search
//! per wait over its barrier's arrivals (in walk order).

use crate::glue::{external_pass, PassId};
use crate::glue::{PassInfo, PassKind};
use axe_dialect::{
    access::{self, OpKey},
    barriers::{self, BarrierUse},
    ffi, AxeOp, OpKind,
};
use melior::ir::{
    block::BlockLike, operation::OperationLike, BlockRef, Location, OperationRef, RegionLike, Value, ValueLike,
};
use std::collections::HashSet;

/// `--axe-check-barriers` as `axe-opt` lists it: flag, summary, description, constructor (the registry's entry).
pub const PASS: PassInfo = PassInfo {
    flag: "axe-check-barriers",
    summary:
        "Check the mbarrier protocol (init before use, waits that can complete, expect_tx bytes) and async copy groups",
    description: "Input: a verified module. For each barrier from axe.mbarrier_alloc: every use is\n\
initialized on every path (rule init), a wait for the first phase has an arrival that can come before it\n\
(rule phase), and arrive_expect_tx bytes equal the TMA bytes of the copies it announces (rule tx-bytes).\n\
No kernel returns with cp.async or bulk async copies not waited for on some path (rule async-exit).\n\
Changes nothing; --lower-tma runs the same check before rewriting.",
    kind: PassKind::Rust(create),
};

static ID: PassId = PassId::new();

/// What the check decided that the lowering follows.
#[derive(Debug, Default)]
pub struct BarrierProtocol {
    /// The `axe.copy_async` ops whose bytes an explicit `axe.mbarrier_arrive_expect_tx` announces.
    announced: HashSet<OpKey>,
}

impl BarrierProtocol {
    /// True when an `axe.mbarrier_arrive_expect_tx` announces `copy`'s bytes, so the copy must not arrive itself.
    pub fn is_announced(&self, copy: OperationRef) -> bool {
        self.announced.contains(&access::key(copy))
    }
}

/// Checks every barrier under `root`, planning each barrier copy with the TMA planner for its bytes (a copy the
/// planner refuses has unknown bytes; `--lower-tma` reports the refusal). Reports each error at its op.
pub fn check_barriers(root: OperationRef) -> Result<BarrierProtocol, usize> {
    check(root, &|copy| crate::request::tma::planned_bytes(copy))
}

/// Checks every barrier under `root`; `bytes` gives the bytes a barrier copy delivers, when known. Reports each
/// error at its op (in IR order) and returns how many, or the protocol the lowering follows.
pub fn check<'c, 'a>(
    root: OperationRef<'c, 'a>,
    bytes: &dyn Fn(AxeOp<'c, 'a>) -> Option<u64>,
) -> Result<BarrierProtocol, usize> {
    let mut walker = Walker::new(bytes);
    walker.op(root);
    let mut errors = std::mem::take(&mut walker.errors);
    errors.extend(walker.path_errors());
    errors.sort_by_key(|e| e.0);
    errors.extend(crate::async_groups::check(root));
    for (_, location, message) in &errors {
        ffi::emit_error(*location, message);
    }
    match errors.len() {
        0 => Ok(BarrierProtocol { announced: walker.announced }),
        n => Err(n),
    }
}

/// One barrier array (one `axe.mbarrier_alloc`; a single barrier is an array of one).
struct Barrier {
    /// How many `axe.mbarrier_init` ops initialize it (or an element of it), anywhere.
    inits: usize,
    /// Walk indices of its arrivals (arrive, expect_tx, copies) on any element, ascending.
    arrivals: Vec<u32>,
    /// Its elements' init slots: `first_slot..first_slot + slots`.
    first_slot: usize,
    slots: usize,
}

/// Arrays longer than this are tracked as one slot (initialized only by an init of the whole array).
const MAX_TRACKED_ELEMENTS: i64 = 4096;

/// Which element of an array an op names, as far as the IR shows: a constant, a run-time index value (by
/// identity), or the whole array (an index-less init of an array).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Element {
    Constant(i64),
    RunTime(usize),
    Whole,
}

impl Element {
    fn of(used: &BarrierUse) -> Element {
        match (used.constant_index(), used.index) {
            (Some(i), _) => Element::Constant(i),
            (None, Some(index)) => Element::RunTime(index.to_raw().ptr as usize),
            (None, None) => Element::Whole,
        }
    }
}

/// One `axe.mbarrier_wait`, judged after the walk.
struct Wait<'c> {
    barrier: usize,
    /// Its walk index.
    index: u32,
    /// The walk index just past its block (set when the block ends).
    end: u32,
    /// The parity of its first execution, when known.
    parity: Option<bool>,
    location: Location<'c>,
}

/// Ops on one barrier announced by expect_tx ops at one block depth, up to the next wait there.
struct Segment<'c> {
    /// Block depth of the expect_tx ops.
    depth: usize,
    /// The element the expect_tx ops name.
    element: Element,
    expected: u64,
    delivered: u64,
    copies: usize,
    /// False when an announced copy's bytes are unknown or an op of the segment sits in a nested region.
    known: bool,
    /// Where the first expect_tx is.
    index: u32,
    location: Location<'c>,
}

/// What one open block remembers until it ends.
#[derive(Default)]
struct Frame {
    /// Barriers with a segment opened in this block.
    segments: Vec<usize>,
    /// Indices into `Walker::waits` of the waits directly in this block.
    waits: Vec<usize>,
}

struct Walker<'c, 'a, 'f> {
    bytes: &'f dyn Fn(AxeOp<'c, 'a>) -> Option<u64>,
    /// Barrier id by `axe.mbarrier_alloc`.
    ids: std::collections::HashMap<OpKey, usize>,
    barriers: Vec<Barrier>,
    /// Per barrier element (slot): initialized on every path to the current point.
    initialized: Vec<bool>,
    /// Slots set in `initialized`, in order, so a branch can be undone.
    log: Vec<usize>,
    /// Per barrier: its open segments, innermost last.
    open: Vec<Vec<Segment<'c>>>,
    frames: Vec<Frame>,
    waits: Vec<Wait<'c>>,
    /// The next walk index (ops in IR order, parents before children).
    next: u32,
    /// (walk index, location, message), sorted before they are reported.
    errors: Vec<(u32, Location<'c>, String)>,
    /// Uses before init: (walk index, location, barrier, element, op name), worded once every init is counted.
    uninitialized: Vec<(u32, Location<'c>, usize, Element, &'static str)>,
    announced: HashSet<OpKey>,
}

/// Ops whose regions run at most once each time the op runs and which are not alternatives of one another.
/// (`axe.roles` holds its roles; each `axe.role` is a region some threads skip, so its inits do not count after
/// it, and an arrival in one role may come before a wait in another: the roles run concurrently.)
fn runs_once(name: &str) -> bool {
    matches!(name, "builtin.module" | "gpu.module" | "func.func" | "gpu.func" | "scf.execute_region" | "axe.roles")
}

/// Ops whose regions are alternatives: exactly one runs.
fn is_branch(name: &str) -> bool {
    matches!(name, "scf.if" | "scf.index_switch")
}

impl<'c, 'a, 'f> Walker<'c, 'a, 'f> {
    fn new(bytes: &'f dyn Fn(AxeOp<'c, 'a>) -> Option<u64>) -> Self {
        Walker {
            bytes,
            ids: Default::default(),
            barriers: Vec::new(),
            initialized: Vec::new(),
            log: Vec::new(),
            open: Vec::new(),
            frames: Vec::new(),
            waits: Vec::new(),
            next: 0,
            errors: Vec::new(),
            uninitialized: Vec::new(),
            announced: HashSet::new(),
        }
    }

    /// Visits `op` and everything nested in it.
    fn op(&mut self, op: OperationRef<'c, 'a>) {
        let index = self.next;
        self.next += 1;
        if let Some(axe) = AxeOp::new(op) {
            self.axe_op(axe, index);
        }
        if op.region_count() > 0 {
            self.regions(op);
        }
    }

    /// Visits the regions of `op`, merging their init states by what the op does with them.
    fn regions(&mut self, op: OperationRef<'c, 'a>) {
        let name = op.name();
        let name = name.as_string_ref().as_str().unwrap_or("");
        let mark = self.log.len();
        let branch = is_branch(name);
        let mut set_in: Vec<usize> = Vec::new();
        let mut alternatives = 0;
        for index in 0..op.region_count() {
            let Some(region) = access::region(op, index) else { continue };
            alternatives += 1;
            let mut block = region.first_block();
            let single = block.is_some_and(|b| b.next_in_region().is_none());
            while let Some(current) = block {
                self.block(current);
                block = current.next_in_region();
                if block.is_some() {
                    self.undo(mark);
                }
            }
            if branch && single {
                set_in.extend_from_slice(&self.log[mark..]);
            }
            if !(runs_once(name) && single) || branch {
                self.undo(mark);
            }
        }
        if branch {
            // Initialized after the branch: initialized at the end of every alternative.
            set_in.sort_unstable();
            for run in set_in.chunk_by(|a, b| a == b) {
                if run.len() == alternatives {
                    self.initialize(run[0]);
                }
            }
        }
    }

    /// Visits the ops of `block` in order.
    fn block(&mut self, block: BlockRef<'c, 'a>) {
        self.frames.push(Frame::default());
        let mut cursor = block.first_operation();
        while let Some(op) = cursor {
            self.op(op);
            cursor = op.next_in_block();
        }
        let depth = self.frames.len();
        let frame = self.frames.pop().unwrap_or_default();
        for wait in frame.waits {
            self.waits[wait].end = self.next;
        }
        for barrier in frame.segments {
            self.close(barrier, depth);
        }
    }

    fn initialize(&mut self, slot: usize) {
        if !self.initialized[slot] {
            self.initialized[slot] = true;
            self.log.push(slot);
        }
    }

    fn undo(&mut self, mark: usize) {
        for slot in self.log.drain(mark..) {
            self.initialized[slot] = false;
        }
    }

    /// The init slots `element` of `barrier` stands for: one for a constant in range, every slot otherwise (a
    /// run-time index may be any element; the whole array is all of them).
    fn slots(&self, barrier: usize, element: Element) -> std::ops::Range<usize> {
        let Barrier { first_slot, slots, .. } = self.barriers[barrier];
        match element {
            Element::Constant(i) if slots > 1 && (0..slots as i64).contains(&i) => {
                first_slot + i as usize..first_slot + i as usize + 1
            }
            _ => first_slot..first_slot + slots,
        }
    }

    /// The tracked barrier `value` is, if it comes from an `axe.mbarrier_alloc`.
    fn barrier(&self, value: Option<Value<'c, 'a>>) -> Option<usize> {
        let alloc = access::defining_op(value?)?;
        self.ids.get(&access::key(alloc)).copied()
    }

    fn axe_op(&mut self, op: AxeOp<'c, 'a>, index: u32) {
        let kind = op.kind();
        if kind == OpKind::MbarrierAlloc {
            let count = op.result().and_then(|r| barriers::mbarrier_count(&r.r#type().to_string())).unwrap_or(1);
            let slots = if (1..=MAX_TRACKED_ELEMENTS).contains(&count) { count as usize } else { 1 };
            self.ids.insert(access::key(op.operation()), self.barriers.len());
            self.barriers.push(Barrier { inits: 0, arrivals: Vec::new(), first_slot: self.initialized.len(), slots });
            self.initialized.extend(std::iter::repeat_n(false, slots));
            self.open.push(Vec::new());
            return;
        }
        let Some(used) = barriers::barrier_use(&op) else { return };
        let Some(barrier) = self.barrier(Some(used.array)) else { return };
        let element = Element::of(&used);
        if kind == OpKind::MbarrierInit {
            self.barriers[barrier].inits += 1;
            // A run-time index initializes an element the check cannot name: none counts as initialized.
            if !matches!(element, Element::RunTime(_)) {
                for slot in self.slots(barrier, element) {
                    self.initialize(slot);
                }
            }
            return;
        }
        if !self.slots(barrier, element).all(|slot| self.initialized[slot]) {
            self.uninitialized.push((index, op.operation().location(), barrier, element, kind.name()));
        }
        match kind {
            OpKind::MbarrierWait => self.wait(op, barrier, element, index),
            OpKind::MbarrierArriveExpectTx => {
                self.barriers[barrier].arrivals.push(index);
                let bytes = op.integer_attribute("bytes").and_then(Result::ok).and_then(|b| u64::try_from(b).ok());
                self.expect(barrier, element, bytes, index, op.operation().location());
            }
            OpKind::CopyAsync => {
                self.barriers[barrier].arrivals.push(index);
                self.copy(op, barrier, element);
            }
            _ => self.barriers[barrier].arrivals.push(index),
        }
    }

    /// An expect_tx: opens or extends the barrier's segment at this depth.
    fn expect(&mut self, barrier: usize, element: Element, bytes: Option<u64>, index: u32, location: Location<'c>) {
        let depth = self.frames.len();
        let segments = &mut self.open[barrier];
        for outer in segments.iter_mut().filter(|s| s.depth < depth) {
            outer.known = false;
        }
        match segments.last_mut() {
            Some(segment) if segment.depth == depth => {
                segment.expected = segment.expected.saturating_add(bytes.unwrap_or(0));
                segment.known &= bytes.is_some() && segment.element == element;
            }
            _ => {
                let known = bytes.is_some();
                let expected = bytes.unwrap_or(0);
                segments.push(Segment { depth, element, expected, delivered: 0, copies: 0, known, index, location });
                if let Some(frame) = self.frames.last_mut() {
                    frame.segments.push(barrier);
                }
            }
        }
    }

    /// A copy on a barrier: announced when a segment is open on it.
    fn copy(&mut self, op: AxeOp<'c, 'a>, barrier: usize, element: Element) {
        let depth = self.frames.len();
        let bytes = (self.bytes)(op);
        let Some(segment) = self.open[barrier].last_mut() else { return };
        self.announced.insert(access::key(op.operation()));
        segment.copies += 1;
        segment.delivered = segment.delivered.saturating_add(bytes.unwrap_or(0));
        segment.known &= bytes.is_some() && segment.depth == depth && segment.element == element;
    }

    /// A wait: closes the barrier's segment at this depth and is judged after the walk.
    fn wait(&mut self, op: AxeOp<'c, 'a>, barrier: usize, element: Element, index: u32) {
        let depth = self.frames.len();
        for segment in self.open[barrier].iter_mut() {
            // A wait on another element closes the segment unjudged (its copies may still come).
            segment.known &= segment.depth >= depth && segment.element == element;
        }
        self.close(barrier, depth);
        let operation = op.operation();
        let parity = first_parity(operation, barriers::wait_phase(&op));
        self.waits.push(Wait { barrier, index, end: u32::MAX, parity, location: operation.location() });
        let wait = self.waits.len() - 1;
        if let Some(frame) = self.frames.last_mut() {
            frame.waits.push(wait);
        }
    }

    /// Ends the barrier's segment opened at `depth`, if any, checking its bytes.
    fn close(&mut self, barrier: usize, depth: usize) {
        if self.open[barrier].last().is_none_or(|s| s.depth != depth) {
            return;
        }
        let Some(segment) = self.open[barrier].pop() else { return };
        if segment.known && segment.expected != segment.delivered {
            let copies = match segment.copies {
                0 => "no copy on the barrier follows it (before the next wait on it in its block), so 0 bytes \
                      arrive"
                    .to_string(),
                1 => format!("the 1 copy it announces delivers {} bytes", segment.delivered),
                n => format!("the {n} copies it announces deliver {} bytes", segment.delivered),
            };
            let message = format!(
                "barrier: tx-bytes rule: axe.mbarrier_arrive_expect_tx expects {} bytes but {copies} (the TMA plans' \
                 total); the phase {}",
                segment.expected,
                if segment.expected > segment.delivered { "never completes" } else { "completes early" }
            );
            self.errors.push((segment.index, segment.location, message));
        }
    }

    /// The init-rule and phase-rule errors, judged once the walk has counted every init and arrival.
    fn path_errors(&self) -> Vec<(u32, Location<'c>, String)> {
        let mut errors = Vec::new();
        for &(index, location, barrier, element, name) in &self.uninitialized {
            let what = match (self.barriers[barrier].slots, element) {
                (1, _) => "a barrier".to_string(),
                (_, Element::Constant(i)) => format!("element {i} of a barrier array"),
                _ => "a barrier array at a run-time index (every element must be initialized: an \
                      axe.mbarrier_init without an index initializes them all)"
                    .to_string(),
            };
            let message = match self.barriers[barrier].inits {
                0 => format!(
                    "barrier: init rule: {name} uses {what} that no axe.mbarrier_init initializes; initialize it \
                     after its axe.mbarrier_alloc, before any use"
                ),
                n => format!(
                    "barrier: init rule: {name} uses {what} that is not initialized on every path to it (its {n} \
                     axe.mbarrier_init {} later, in a branch not taken on some path, {}in a loop that may not run)",
                    if n == 1 { "is" } else { "are" },
                    if self.barriers[barrier].slots > 1 { "on other elements, " } else { "or " }
                ),
            };
            errors.push((index, location, message));
        }
        for wait in &self.waits {
            if wait.parity != Some(false) {
                continue;
            }
            let arrivals = &self.barriers[wait.barrier].arrivals;
            let first_after = arrivals.partition_point(|&a| a <= wait.index);
            let past_block = arrivals.partition_point(|&a| a < wait.end);
            if first_after != 0 || past_block != arrivals.len() {
                continue;
            }
            let why = match arrivals.len() {
                0 => "nothing arrives on the barrier".to_string(),
                1 => "its 1 arrival follows the wait in the same block".to_string(),
                n => format!("all {n} of its arrivals follow the wait in the same block"),
            };
            let message = format!(
                "barrier: phase rule: axe.mbarrier_wait waits for parity 0 (the barrier's first phase) but no \
                 arrival can come before it: {why}; the wait never returns"
            );
            errors.push((wait.index, wait.location, message));
        }
        errors
    }
}

/// The parity a wait sees on its first execution, when the IR shows it: an `arith.constant`, or an `scf.for`
/// iteration argument with a constant start when the wait is directly in the loop body.
fn first_parity(wait: OperationRef, parity: Option<Value>) -> Option<bool> {
    let parity = parity?;
    if let Some(argument) = access::as_argument(parity) {
        let body = argument.owner();
        let loop_op = body.parent_operation()?;
        let is_for = loop_op.name().as_string_ref().as_str() == Ok("scf.for");
        let number = argument.argument_number();
        if !is_for || number == 0 || wait.block() != Some(body) {
            return None;
        }
        // scf.for operands: lower bound, upper bound, step, then the iteration arguments' starts.
        return constant_bool(access::operand(loop_op, 2 + number)?);
    }
    constant_bool(parity)
}

/// The value of an `i1` `arith.constant`.
fn constant_bool(value: Value) -> Option<bool> {
    let op = access::defining_op(value)?;
    if op.name().as_string_ref().as_str() != Ok("arith.constant") {
        return None;
    }
    match op.attribute("value").ok()?.to_string().as_str() {
        "true" | "1 : i1" | "-1 : i1" => Some(true),
        "false" | "0 : i1" => Some(false),
        _ => None,
    }
}

/// The melior pass behind `--axe-check-barriers`.
pub fn create() -> melior::pass::Pass {
    external_pass(&ID, "AxeCheckBarriers", &PASS, |operation| check_barriers(operation).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the check alone on `source`: whether it passed, how many copies it announces, the messages.
    fn run(source: &str) -> (Result<usize, usize>, Vec<String>) {
        let (result, _, messages) = crate::testing::run_pass(source, |root| {
            let mut copies = Vec::new();
            axe_dialect::ops::walk_preorder(root, &mut |op| copies.extend(AxeOp::new(op)));
            check_barriers(root).map(|p| copies.iter().filter(|c| p.is_announced(c.operation())).count())
        });
        (result, messages)
    }

    #[test]
    fn the_example_follows_the_protocol_and_announces_nothing() {
        let (result, messages) = run(include_str!("../../examples/tma_copy.mlir"));
        assert_eq!(result, Ok(0), "{messages:?}");
    }

    #[test]
    fn every_use_of_an_uninitialized_barrier_is_reported_in_ir_order() {
        let source = r#"func.func @f() {
  %bar = axe.mbarrier_alloc cta : !axe.mbarrier
  axe.mbarrier_arrive cta %bar : !axe.mbarrier
  %p = arith.constant true
  axe.mbarrier_wait cta %bar, %p : !axe.mbarrier
  return
}"#;
        let (result, messages) = run(source);
        assert_eq!(result, Err(2));
        assert!(messages[0].starts_with("barrier: init rule: axe.mbarrier_arrive uses"), "{messages:?}");
        assert!(messages[1].starts_with("barrier: init rule: axe.mbarrier_wait uses"), "{messages:?}");
    }

    #[test]
    fn an_init_in_a_loop_body_covers_the_body_but_not_what_follows() {
        let source = r#"func.func @f(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bar = axe.mbarrier_alloc cta : !axe.mbarrier
  scf.for %i = %c0 to %n step %c1 {
    axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
    axe.mbarrier_arrive cta %bar : !axe.mbarrier
  }
  axe.mbarrier_arrive cta %bar : !axe.mbarrier
  return
}"#;
        let (result, messages) = run(source);
        assert_eq!(result, Err(1), "{messages:?}");
        assert!(messages[0].contains("its 1 axe.mbarrier_init is later"), "{messages:?}");
    }

    #[test]
    fn nested_if_chains_merge_inits_by_intersection() {
        // Initialized in both branches of the inner if, which sits in the then-branch of the outer one: after the
        // outer if the else path (no init) remains, so only the use after it is reported.
        let source = r#"func.func @f(%a: i1, %b: i1) {
  %bar = axe.mbarrier_alloc cta : !axe.mbarrier
  scf.if %a {
    scf.if %b {
      axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
    } else {
      axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
    }
    axe.mbarrier_arrive cta %bar : !axe.mbarrier
  }
  axe.mbarrier_arrive cta %bar : !axe.mbarrier
  return
}"#;
        let (result, messages) = run(source);
        assert_eq!(result, Err(1), "{messages:?}");
        assert!(messages[0].contains("its 2 axe.mbarrier_init are later"), "{messages:?}");
    }
}
