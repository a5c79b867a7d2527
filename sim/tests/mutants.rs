//! Mutants of the three GEMM examples and of tma_copy, each a broken synchronization step (a missing wait, fence,
//! commit or barrier, a wrong phase, a stage reused early), each of which must fail under every schedule of the
//! asynchronous model with the error of the rule it breaks (`common::assert_caught`), not any error. Source
//! mutants edit the example; the steps the compiler emits itself (fences, commits, the barriers of the TMA
//! store and of mbarrier init) are removed from the lowered IR.
//!
//! What catches each mutant (the expected error text) is written next to it; the same list is in the
//! simulator's docs (ARCHITECTURE.md, axe-sim).

mod common;
use axe_sim::{run_with, Arg, Buffer, Launch, Scalar, Schedule};
use common::{assert_caught, drop_line, gemm_runs, lowered, mutant, Grid};

const PENDING_TMA: &str = "that a pending TMA load";
const PENDING_CP: &str = "that a pending cp.async";
const DEADLOCK: &str = "deadlock: try_wait.parity";
const RACE: &str = "a read-after-write race";
const WAR: &str = "a write-after-read race";
const OVERRUN: &str = "a phase overrun";
const INIT_FENCE: &str = "missing mbarrier init fence";
const INIT_BARRIER: &str = "missing barrier after mbarrier init";
/// The CTA barrier between the GEMM examples' MMAs on a stage and the load that refills it.
const REFILL_BARRIER: &str = "        gpu.barrier\n        %kt3 = arith.addi %kt, %i3 : i32\n";
/// [`REFILL_BARRIER`] removed.
const NO_REFILL_BARRIER: &str = "        %kt3 = arith.addi %kt, %i3 : i32\n";

fn sm90(text: &str, lowered_ir: bool, k: usize) -> Vec<Result<(), String>> {
    gemm_runs(text, lowered_ir, "gemm_sm90a", Grid::ColsOnX, 32, 128, k)
}

fn sm100(text: &str, lowered_ir: bool, k: usize) -> Vec<Result<(), String>> {
    gemm_runs(text, lowered_ir, "gemm_sm100a", Grid::ColsOnX, 32, 128, k)
}

fn sm80(text: &str, k: usize) -> Vec<Result<(), String>> {
    gemm_runs(text, false, "gemm_sm80", Grid::RowsOnX, 40, 24, k)
}

// ---- gemm_sm90a: TMA ring + wgmma ----

/// The ring's wait on the current stage's barrier, and the same wait skipped when the stage is 1 (an `scf.if` on
/// the stage index), as the sm_90a and sm_100a examples write it.
const SKIPPED_WAIT: (&str, &str) = (
    "        axe.mbarrier_wait cta %bars[%cur_index], %parity : !bars\n",
    "        %stage_1 = arith.constant 1 : index\n        %not_stage_1 = arith.cmpi ne, %cur_index, %stage_1 : index\n        scf.if %not_stage_1 {\n  \
             axe.mbarrier_wait cta %bars[%cur_index], %parity : !bars\n        }\n",
);

#[test]
fn sm90a_missing_wgmma_wait_group() {
    // Without wait_group 0 the wgmma of tile kt is still reading stage kt mod 3 when iteration kt + 1 loads tile
    // kt + 3 into it.
    let text = drop_line(&lowered("gemm_sm90a"), "nvvm.wgmma.wait.group.sync.aligned", None);
    let expected = ["TMA load write of shared bytes", "wgmma.mma_async issued at"];
    assert_caught("sm90a: no wgmma.wait_group", &sm90(&text, true, 256), &expected);
    // With a single K tile there is no reuse: the epilogue reads the accumulator the wgmma still writes.
    let text = drop_line(&lowered("gemm_sm90a"), "nvvm.wgmma.wait.group.sync.aligned", None);
    assert_caught(
        "sm90a: no wgmma.wait_group, one tile",
        &sm90(&text, true, 64),
        &["the accumulator of a wgmma.mma_async no wgmma.wait_group retired"],
    );
}

#[test]
fn sm90a_missing_wgmma_fence() {
    let text = drop_line(&lowered("gemm_sm90a"), "nvvm.wgmma.fence.aligned", None);
    assert_caught("sm90a: no wgmma.fence", &sm90(&text, true, 128), &["missing wgmma.fence"]);
}

#[test]
fn sm90a_missing_wgmma_commit() {
    // The wait_group 0 has no committed group to wait for: the wgmma is still reading stage 0 when tile 3 is
    // loaded into it.
    let text = drop_line(&lowered("gemm_sm90a"), "nvvm.wgmma.commit.group.sync.aligned", None);
    assert_caught("sm90a: no wgmma.commit_group", &sm90(&text, true, 256), &["no wgmma.commit_group closed its group"]);
}

#[test]
fn sm90a_missing_mbarrier_wait() {
    // Stage 1 is read by wgmma before its TMA load was waited for.
    let text = mutant("gemm_sm90a", SKIPPED_WAIT.0, SKIPPED_WAIT.1);
    assert_caught("sm90a: no wait on stage 1", &sm90(&text, false, 128), &[PENDING_TMA]);
}

#[test]
fn sm90a_wrong_phase() {
    // The parity never flips: the second round of stage 0 (tile 3) waits for parity 0, which the first round
    // completed already, and wgmma reads tile 3 before it lands (or, when it landed at issue, the wait for the
    // completed parity-0 phase of round 2 can never succeed).
    let text = mutant(
        "gemm_sm90a",
        "%parity2 = arith.xori %parity, %wraps : i1",
        "%parity2 = arith.xori %parity, %false : i1",
    );
    assert_caught("sm90a: parity never flips", &sm90(&text, false, 256), &[PENDING_TMA, DEADLOCK]);
}

#[test]
fn sm90a_stage_reused_early() {
    // The prologue loads A's tile p at row 64 p instead of 128 p (each on its own stage's barrier): tile 1
    // overlaps rows 64-127 of stage 0, where tile 0 is still in flight.
    let text = mutant(
        "gemm_sm90a",
        "%row_ap = arith.muli %p_index, %c128 : index",
        "%row_ap = arith.muli %p_index, %c64 : index",
    );
    assert_caught("sm90a: stage reused early", &sm90(&text, false, 192), &["TMA load write of shared bytes"]);
}

#[test]
fn sm90a_missing_proxy_fence_before_the_tma_store() {
    let text = drop_line(&lowered("gemm_sm90a"), "nvvm.fence.proxy", None);
    assert_caught("sm90a: no fence.proxy.async", &sm90(&text, true, 64), &["missing proxy fence"]);
}

#[test]
fn sm90a_missing_barrier_before_the_tma_store() {
    // The elected thread stores C's shared tile while the other threads' writes to it are unordered.
    let text = drop_after(&lowered("gemm_sm90a"), "nvvm.fence.proxy", "gpu.barrier");
    assert_caught("sm90a: no barrier before the TMA store", &sm90(&text, true, 64), &[RACE]);
}

#[test]
fn sm90a_missing_bulk_commit_and_wait() {
    let text = drop_line(&lowered("gemm_sm90a"), "nvvm.cp.async.bulk.commit.group", None);
    assert_caught("sm90a: no bulk commit", &sm90(&text, true, 64), &["no cp.async.bulk.commit_group closed"]);
    let text = drop_line(&lowered("gemm_sm90a"), "nvvm.cp.async.bulk.wait_group", None);
    assert_caught("sm90a: no bulk wait", &sm90(&text, true, 64), &["no cp.async.bulk.wait_group.read retired"]);
}

#[test]
fn sm90a_missing_refill_barrier() {
    // In lockstep every warp has retired its wgmma (wait_group 0) before thread 0 refills the stage, but nothing
    // orders warps 1-3's reads of stage 0 (tile 0, iteration 0) before thread 0's TMA load of tile 3 into it
    // (the refill in iteration 0): on the hardware warp 0 may run ahead and overwrite a stage a slower warp still
    // reads.
    let text = mutant("gemm_sm90a", REFILL_BARRIER, NO_REFILL_BARRIER);
    let results = sm90(&text, false, 256);
    eprintln!("sm90a, no refill barrier: {:?}", results[0]);
    assert_caught("sm90a: no refill barrier", &results, &[WAR]);
    for r in &results {
        let e = r.as_ref().unwrap_err();
        assert!(e.contains("TMA load write of shared byte") && e.contains("by thread 0 (warp 0)"), "{e}");
        assert!(e.contains("gemm_sm90a.mlir:"), "located: {e}");
    }
    // With three K tiles no stage is reloaded: the mutant is correct there.
    assert!(sm90(&text, false, 192).iter().all(Result::is_ok));
}

#[test]
fn sm90a_missing_fence_mbarrier_init() {
    // Thread 0 initializes the stage barriers; every other thread waits on them.
    let text = drop_line(&lowered("gemm_sm90a"), "nvvm.fence.mbarrier.init", None);
    assert_caught("sm90a: no fence.mbarrier_init", &sm90(&text, true, 64), &[INIT_FENCE]);
}

// ---- gemm_sm100a: TMA ring + tcgen05.mma ----

#[test]
fn sm100a_missing_refill_barrier() {
    // Thread 0 issues the loads, the MMAs and their commit and waits on the MMA barrier itself, so it never
    // overwrites a stage its MMAs still read; but no warp waits for warps 1-3, which only wait on the barriers:
    // warp 0 can refill a stage and run a phase ahead of them, and their parity waits then see the wrong phase.
    let text = mutant("gemm_sm100a", REFILL_BARRIER, NO_REFILL_BARRIER);
    let results = sm100(&text, false, 256);
    eprintln!("sm100a, no refill barrier: {:?}", results[0]);
    assert_caught("sm100a: no refill barrier", &results, &[OVERRUN]);
    for r in &results {
        let e = r.as_ref().unwrap_err();
        assert!(e.contains("no arrival ordered after warp") && e.contains("'s wait for phase"), "{e}");
    }
}

#[test]
fn sm100a_missing_mbarrier_wait() {
    let text = mutant("gemm_sm100a", SKIPPED_WAIT.0, SKIPPED_WAIT.1);
    assert_caught("sm100a: no wait on stage 1", &sm100(&text, false, 128), &[PENDING_TMA]);
}

#[test]
fn sm100a_missing_tcgen05_commit() {
    // Nothing arrives on the MMA barrier: its wait can never succeed, and the model says which MMA was never
    // committed.
    let text = drop_line(&lowered("gemm_sm100a"), "nvvm.tcgen05.commit", None);
    assert_caught("sm100a: no tcgen05.commit", &sm100(&text, true, 64), &["was never committed"]);
}

#[test]
fn sm100a_missing_commit_wait() {
    // The MMA barrier's wait removed: the next tile is loaded into a stage the MMAs may still read, or the
    // epilogue reads tensor memory they may still write.
    let text = drop_line(&lowered("gemm_sm100a"), "nvvm.mbarrier.try_wait.parity", None);
    assert_caught(
        "sm100a: no wait on the MMA barrier",
        &sm100(&text, true, 256),
        &["tcgen05.mma issued at", "no mbarrier wait observed the arrival of its tcgen05.commit"],
    );
}

#[test]
fn sm100a_missing_tcgen05_fence_after() {
    // Every tcgen05.fence removed (the model checks the after_thread_sync one that must follow the MMA wait).
    let text = drop_line(&lowered("gemm_sm100a"), "nvvm.tcgen05.fence", None);
    assert_caught("sm100a: no tcgen05.fence::after_thread_sync", &sm100(&text, true, 128), &["missing tcgen05 fence"]);
}

#[test]
fn sm100a_missing_tcgen05_wait_ld() {
    let text = drop_line(&lowered("gemm_sm100a"), "nvvm.tcgen05.wait", None);
    assert_caught(
        "sm100a: no tcgen05.wait::ld",
        &sm100(&text, true, 64),
        &["the registers of a tcgen05.ld not yet waited for"],
    );
}

#[test]
fn sm100a_wrong_phase() {
    let text = mutant(
        "gemm_sm100a",
        "%parity2 = arith.xori %parity, %wraps : i1",
        "%parity2 = arith.xori %parity, %false : i1",
    );
    assert_caught("sm100a: parity never flips", &sm100(&text, false, 256), &[PENDING_TMA, DEADLOCK]);
}

#[test]
fn sm100a_stage_reused_early() {
    // The prologue loads A's tile p at row 64 p instead of 128 p (each on its own stage's barrier): tile 1
    // overlaps rows 64-127 of stage 0, where tile 0 is still in flight.
    let text = mutant(
        "gemm_sm100a",
        "%row_ap = arith.muli %p_index, %c128 : index",
        "%row_ap = arith.muli %p_index, %c64 : index",
    );
    assert_caught("sm100a: stage reused early", &sm100(&text, false, 192), &["TMA load write of shared bytes"]);
}

#[test]
fn sm100a_missing_proxy_fence_and_barrier_before_the_tma_store() {
    let text = drop_line(&lowered("gemm_sm100a"), "nvvm.fence.proxy", None);
    assert_caught("sm100a: no fence.proxy.async", &sm100(&text, true, 64), &["missing proxy fence"]);
    let text = drop_after(&lowered("gemm_sm100a"), "nvvm.fence.proxy", "gpu.barrier");
    assert_caught("sm100a: no barrier before the TMA store", &sm100(&text, true, 64), &[RACE]);
}

// ---- tma_copy: one TMA load and store on one mbarrier ----

/// Runs lowered tma_copy text under every schedule: `Err` unless the tile arrives intact.
fn tma_copy_runs(text: &str) -> Vec<Result<(), String>> {
    let context = axe_dialect::create_context().expect("context");
    let module = axe_dialect::parse_module(&context, text, "tma_copy.lowered.mlir").expect("mutated IR parses");
    let src: Vec<f64> = (0..128 * 64).map(|x| common::small(x / 64, x % 64, 3)).collect();
    Schedule::all()
        .iter()
        .map(|s| {
            let args = vec![
                Arg::Buffer(Buffer::from_f64(Scalar::F16, &src)),
                Arg::Buffer(Buffer::zeros(Scalar::F16, 128 * 64)),
            ];
            let launch = Launch { kernel: "tma_copy".into(), block_id: [0, 0, 0], grid: [1, 1, 1], args };
            let out = run_with(&module, &launch, s).map_err(|e| format!("{s:?}: {e}"))?;
            match out.buffers[1].as_ref().map(Buffer::to_f64) == Some(src.clone()) {
                true => Ok(()),
                false => Err(format!("{s:?}: the tile differs")),
            }
        })
        .collect()
}

#[test]
fn tma_copy_mbarrier_init_needs_its_fence_and_barrier() {
    // The unmutated lowering copies the tile under every schedule.
    assert!(tma_copy_runs(&lowered("tma_copy")).iter().all(Result::is_ok));
    // Thread 0 initializes the barrier; threads 1..127 wait on it right after the CTA barrier.
    let text = drop_after(&lowered("tma_copy"), "nvvm.fence.mbarrier.init", "gpu.barrier");
    let results = tma_copy_runs(&text);
    eprintln!("tma_copy, no barrier after mbarrier init: {:?}", results[0]);
    assert_caught("tma_copy: no barrier after mbarrier init", &results, &[INIT_BARRIER]);
    for r in &results {
        let e = r.as_ref().unwrap_err();
        assert!(e.contains("try_wait.parity by thread ") && e.contains("which thread 0 initialized at"), "{e}");
    }
    let text = drop_line(&lowered("tma_copy"), "nvvm.fence.mbarrier.init", None);
    assert_caught("tma_copy: no fence.mbarrier_init", &tma_copy_runs(&text), &[INIT_FENCE]);
}

// ---- gemm_sm80: cp.async ring + ldmatrix + mma.sync ----

#[test]
fn sm80_missing_wait_group() {
    let text = mutant("gemm_sm80", "        nvvm.cp.async.wait.group 1\n", "");
    assert_caught("sm80: no wait_group", &sm80(&text, 232), &[PENDING_CP]);
}

#[test]
fn sm80_waits_one_group_too_few() {
    // wait_group 2 (the "phase" of a cp.async ring: which group is complete): tile kt may still be in flight.
    let text = mutant("gemm_sm80", "nvvm.cp.async.wait.group 1", "nvvm.cp.async.wait.group 2");
    assert_caught("sm80: wait_group 2", &sm80(&text, 232), &[PENDING_CP]);
}

#[test]
fn sm80_missing_commit() {
    // The loop's commit removed (from the lowered IR: the compiler's barrier check refuses the source, copies
    // never committed): wait_group 1 leaves tile 1's group pending when iteration 1 reads it.
    let text = drop_line(&lowered("gemm_sm80"), "nvvm.cp.async.commit.group", Some(2));
    let results = gemm_runs(&text, true, "gemm_sm80", Grid::RowsOnX, 40, 24, 232);
    assert_caught("sm80: no commit in the loop", &results, &[PENDING_CP]);
}

#[test]
fn sm80_missing_barrier() {
    // Without the barrier after the wait, a warp's ldmatrix reads 16-byte chunks other threads' cp.async wrote.
    let text = drop_after(&common::source("examples/gemm_sm80.mlir"), "nvvm.cp.async.wait.group 1", "gpu.barrier");
    assert_caught("sm80: no barrier after the wait", &sm80(&text, 232), &[RACE]);
}

#[test]
fn sm80_barrier_after_the_next_loads() {
    // The loop's barrier moved from after the wait to after the next tile's copies: tile kt is still visible to
    // every warp before ldmatrix reads it, but the copies of tile kt + 2 overwrite the stage every warp read in
    // iteration kt - 1 with nothing ordering those reads first.
    let text = mutant(
        "gemm_sm80",
        "        nvvm.cp.async.wait.group 1\n        gpu.barrier\n",
        "        nvvm.cp.async.wait.group 1\n",
    );
    let (from, to) = (
        "        nvvm.cp.async.commit.group\n        // The warp's rows",
        "        nvvm.cp.async.commit.group\n        gpu.barrier\n        // The warp's rows",
    );
    assert!(text.contains(from), "the example changed: update this test");
    let text = text.replacen(from, to, 1);
    let results = sm80(&text, 232);
    assert_caught("sm80: barrier after the next loads", &results, &["cp.async write of shared byte", WAR]);
    for r in &results {
        assert!(r.as_ref().unwrap_err().contains(WAR), "{r:?}");
    }
}

#[test]
fn sm80_stage_reused_early() {
    // Tile kt + 2 loaded into the stage read in iteration kt: its copies are in flight when ldmatrix reads it.
    let text = mutant("gemm_sm80", "iter_args(%cur = %c0, %nxt = %c2)", "iter_args(%cur = %c0, %nxt = %c0)");
    assert_caught("sm80: load into the stage read", &sm80(&text, 232), &[PENDING_CP]);
    // The stage read off by one: tile 1's group is not retired when iteration 0 reads stage 1.
    let text = mutant("gemm_sm80", "iter_args(%cur = %c0, %nxt = %c2)", "iter_args(%cur = %c1, %nxt = %c2)");
    assert_caught("sm80: read stage off by one", &sm80(&text, 232), &[PENDING_CP]);
}

/// `text` without the first line containing `what` after the first line containing `after`.
fn drop_after(text: &str, after: &str, what: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.iter().position(|l| l.contains(after)).unwrap_or_else(|| panic!("no {after:?}"));
    let at = start + lines[start..].iter().position(|l| l.contains(what)).unwrap_or_else(|| panic!("no {what:?}"));
    lines.iter().enumerate().filter(|(i, _)| *i != at).map(|(_, l)| format!("{l}\n")).collect()
}

// ---- shared memory by lifetime ----

#[test]
fn sm90a_c_tile_shares_the_rings_bytes_after_the_barrier() {
    // The CTA barrier after the K loop separates the rings' epoch (0) from the C tile's (1): the simulator lays
    // the tile over the rings as --axe-dynamic-shared does, and the kernel stays exact (tests in kernels.rs).
    let text = lowered("gemm_sm90a");
    assert!(text.contains("__axe_smem_0 = array<i64: 0, 0>"), "ring A in epoch 0");
    assert!(text.contains("__axe_smem_2 = array<i64: 1, 1>"), "the C tile in epoch 1");
    assert!(sm90(&text, true, 256).iter().all(Result::is_ok));
}

#[test]
fn sm90a_a_lifetime_plan_that_overlaps_live_rings_is_caught() {
    // A wrong plan: ring A claimed live only in epoch 5, so it shares ring B's bytes while both are loaded.
    let text = lowered("gemm_sm90a").replacen("__axe_smem_0 = array<i64: 0, 0>", "__axe_smem_0 = array<i64: 5, 5>", 1);
    // Schedule 0 (in order) meets it first as a load over bytes another load has not delivered.
    let expected = ["TMA load write of shared bytes", "race", "differs"];
    assert_caught("sm90a: overlapping lifetimes", &sm90(&text, true, 256), &expected);
}
