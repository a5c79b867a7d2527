//! examples/gemm_sm90a_ws.mlir, the warp-specialized GEMM (a producer warp, two consumer warpgroups), run on every
//! CTA of its grid under every schedule against A * B computed here; mutants of its protocol must fail with the
//! rule they break.

mod common;

use common::{assert_caught, gemm_case, gemm_runs, lowered, mutant, Grid};

const KERNEL: &str = "gemm_sm90a_ws";

#[test]
fn ragged_tiles_over_four_ctas() {
    // Two row tiles (the second 16 rows), two column tiles (the second 16 columns), K = 80: two K tiles, the
    // second 16 wide (TMA's zero fill past K adds nothing).
    gemm_case(KERNEL, Grid::Tiles(None), 144, 272, 80);
}

#[test]
fn two_persistent_ctas_walk_nine_ragged_tiles_in_grouped_order() {
    // 3 x 3 tiles (the last row 16 high, the last column 16 wide), K = 80 (two K tiles each): CTA 0 takes tiles
    // 0, 2, 4, 6, 8 and CTA 1 tiles 1, 3, 5, 7, so the ring's stages and parities run on across tiles (ten K tiles
    // over four stages for CTA 0), and each tile's stores overlap the next tile's loads.
    gemm_case(KERNEL, Grid::Tiles(Some(2)), 272, 528, 80);
}

#[test]
fn nine_k_tiles_wrap_the_four_stages_twice() {
    // Stage 0 holds K tiles 0, 4 and 8: both sides' parities flip twice, the producer's "free" wait passes at
    // once in round 0 and waits for the consumers' release after.
    gemm_case(KERNEL, Grid::Tiles(None), 128, 256, 576);
}

/// `mutant`'s results on one CTA over five K tiles (stage 0 reused once).
fn runs(text: &str) -> Vec<Result<(), String>> {
    gemm_runs(text, false, KERNEL, Grid::Tiles(None), 128, 256, 320)
}

#[test]
fn a_consumer_that_never_releases_its_stage_deadlocks() {
    let text = mutant(KERNEL, "          axe.mbarrier_arrive warp %empty[%cur_index] : !bars\n", "");
    assert_caught("no release", &runs(&text), &["deadlock: try_wait.parity"]);
}

#[test]
fn a_stage_freed_by_half_the_consumer_warps_is_refilled_under_the_others() {
    // 4 arrivals complete a phase: the producer may refill a stage once one warpgroup released it, over the other's
    // reads (a race), and the consumers' 8 arrivals per round complete two phases, so the parities fall out of step
    // (a deadlock). Under these schedules the deadlock comes first.
    let text = mutant(KERNEL, "axe.mbarrier_init cta %empty count 8", "axe.mbarrier_init cta %empty count 4");
    assert_caught("half release", &runs(&text), &["deadlock: try_wait.parity", "write-after-read race"]);
}

#[test]
fn a_producer_waiting_on_the_consumers_parity_deadlocks() {
    // Without the flip the producer's first wait is for phase 0 of a fresh "empty" barrier, which only the
    // consumers' first release completes, and they wait for the data it would load.
    let text = mutant(
        KERNEL,
        "axe.mbarrier_wait warp %empty[%cur_index], %free",
        "axe.mbarrier_wait warp %empty[%cur_index], %parity",
    );
    assert_caught("no flip", &runs(&text), &["deadlock: try_wait.parity"]);
}

#[test]
fn consumers_that_do_not_wait_for_a_full_stage_race_with_its_load() {
    // The consumers read stages the producer's loads have not delivered (the producer first), or before it
    // loads them: a load then lands over reads nothing ordered before it (a race), or, with the consumers run to
    // their end first, their releases have run the "empty" barriers a phase ahead of the producer's waits.
    let text = mutant(KERNEL, "          axe.mbarrier_wait cta %full[%cur_index], %parity : !bars\n", "");
    let expected = ["deadlock: try_wait.parity", "a pending TMA load", "write-after-read race"];
    assert_caught("no full wait", &runs(&text), &expected);
}

/// `mutant`'s results on the lowered kernel (`--lower-roles --lower-tile-loops --lower-staged-copies --lower-tma --lower-mma
/// --lower-copy`), one CTA.
fn lowered_runs(text: &str) -> Vec<Result<(), String>> {
    gemm_runs(text, true, KERNEL, Grid::Tiles(None), 128, 256, 320)
}

#[test]
fn the_register_budgets_balance_on_the_pool() {
    // 384 threads start at 168 registers: the producer's warpgroup releases 128 x 128 to the CTA's pool and the
    // two consumer warpgroups take 2 x 128 x 64 from it. Run as lowered (the mutants below change this text).
    let text = lowered(KERNEL);
    assert_eq!(text.matches("nvvm.setmaxregister").count(), 2, "one decrease, one increase");
    assert!(lowered_runs(&text).iter().all(Result::is_ok));
}

#[test]
fn a_producer_that_keeps_registers_starves_the_consumers_increase() {
    // The producer's warpgroup keeps 56 registers: the pool holds 14336, the consumers' increase needs 16384 and
    // waits forever (the verifier refuses such budgets in axe.roles; the simulator shows why).
    let text = lowered(KERNEL).replacen("decrease 40", "decrease 56", 1);
    assert_caught("kept registers", &lowered_runs(&text), &["deadlock: setmaxnreg.inc to 232"]);
}

#[test]
fn budgets_without_minnctapersm_are_refused() {
    // Some ptxas versions (CUDA 13.1) ignore setmaxnreg without .minnctapersm (C7508; 13.5 needs only .maxntid):
    // the budgets the kernel counts on would not hold.
    let text = lowered(KERNEL);
    let text = text.replacen(", nvvm.minctasm = 1 : i32", "", 1);
    assert_caught("no minctasm", &lowered_runs(&text), &["without .minnctapersm"]);
}

#[test]
fn a_budget_set_by_the_producer_warp_alone_is_not_aligned() {
    // setmaxnreg is .sync.aligned over a warpgroup: written in the producer's role, only warp 8 runs it.
    let text = mutant(
        KERNEL,
        "        axe.role warpid[8:9] regs 40 {\n",
        "        axe.role warpid[8:9] regs 40 {\n          nvvm.setmaxregister decrease 40\n",
    );
    assert_caught("unaligned", &runs(&text), &["by 32 of the 128 threads of warpgroup 2"]);
}

#[test]
fn an_epilogue_store_by_the_whole_cta_inside_the_consumers_role_hangs() {
    // At cta scope each quarter's barriers synchronize all 384 threads (bar.sync 0), which the producer's warps
    // never reach.
    let text = mutant(KERNEL, "axe.copy_staged cta(wgid[0:2]) %out", "axe.copy_staged cta %out");
    assert_caught("cta store in a role", &runs(&text), &["reached by only part of the CTA"]);
}

#[test]
fn an_epilogue_store_without_the_consumers_barrier_races_with_their_writes() {
    // The first quarter's store's named barrier (the second: the first is the kernel's own before the quarter is
    // written) orders every consumer's writes of the C buffer before warp 0's TMA read.
    let text = lowered(KERNEL);
    let barriers = text.lines().filter(|l| l.contains("nvvm.barrier id")).count();
    assert_eq!(
        barriers, 8,
        "per quarter: the kernel's barrier before the buffer is written, the store's before it is read"
    );
    let text = common::drop_line(&text, "nvvm.barrier id", Some(1));
    assert_caught("no barrier before the store", &lowered_runs(&text), &["race", "before it was written"]);
}

#[test]
fn a_tile_that_overwrites_the_c_buffer_before_the_last_store_read_it_races() {
    // Without the consumers' barrier before the first quarter is written (the first of the 8 named barriers, one
    // before each quarter is written and one before it is stored), a consumer of tile 2 may write the buffer while
    // tile 1's last store (issued by warp 0, which waits for its reads) still reads it.
    let text = common::drop_line(&lowered(KERNEL), "nvvm.barrier id", Some(0));
    let results = gemm_runs(&text, true, KERNEL, Grid::Tiles(Some(1)), 128, 512, 64);
    assert_caught("no barrier before the C buffer is rewritten", &results, &["race", "still reads"]);
}

#[test]
fn a_quarter_written_before_the_store_two_quarters_back_read_its_stage_races() {
    // The buffer has two stages: quarter 2 goes into stage 0, which quarter 0's store may still read until the
    // issuing lane's wait after quarter 1's store (all but the newest store read) and the barrier before quarter 2
    // (the fifth named barrier) that orders the consumers after it. Without that barrier a consumer writes stage 0
    // under the store's reads.
    let text = common::drop_line(&lowered(KERNEL), "nvvm.barrier id", Some(4));
    let results = gemm_runs(&text, true, KERNEL, Grid::Tiles(None), 128, 256, 64);
    assert_caught("no barrier before a stage is reused", &results, &["race", "still reads"]);
}

#[test]
fn stores_that_leave_two_reads_in_flight_over_two_stages_race() {
    // Each store waits for all but the newest one to have read its stage; waiting for all but two lets quarter 2
    // overwrite stage 0 while quarter 0's store may still read it.
    let text = lowered(KERNEL);
    assert_eq!(text.matches("nvvm.cp.async.bulk.wait_group 1 {read}").count(), 3, "three quarters leave one read");
    assert_eq!(text.matches("nvvm.cp.async.bulk.wait_group 0 {read}").count(), 1, "the last waits for all");
    let text = text.replace("nvvm.cp.async.bulk.wait_group 1 {read}", "nvvm.cp.async.bulk.wait_group 2 {read}");
    let results = gemm_runs(&text, true, KERNEL, Grid::Tiles(None), 128, 256, 64);
    assert_caught("two reads in flight over two stages", &results, &["may still read", "race", "still reads"]);
}
