//! examples/gemm_sm100a.mlir (TMA ring + tcgen05.mma with the accumulator in tensor memory, tcgen05.ld epilogue,
//! M, N, K as kernel arguments) executed by `axe-sim` on every CTA of the grid at ragged sizes, C compared with
//! A * B computed here: partial 128-tiles in M and N (TMA zero fill past the edges, clipped TMA stores), a partial
//! last K tile, a K of one partial tile, and K tiles wrapping the 3-stage ring (phase parity flips).

mod common;
use common::{gemm_case, gemm_run, source, Grid};

fn gemm_sm100a_case(m: usize, n: usize, k: usize) {
    gemm_case("gemm_sm100a", Grid::ColsOnX, m, n, k);
}

#[test]
fn gemm_sm100a_ragged_sizes() {
    // Partial tiles in M and N, K of one full and one partial 64-tile.
    gemm_sm100a_case(144, 208, 80);
    // K smaller than one tile, a single partial CTA.
    gemm_sm100a_case(16, 48, 32);
}

#[test]
fn gemm_sm100a_wraps_the_ring() {
    // Four K tiles: stages 0, 1, 2, 0 (the second use of stage 0 waits on parity 1).
    gemm_sm100a_case(32, 128, 256);
}

#[test]
fn gemm_sm100a_without_the_wait_on_stage_1_fails() {
    // The kernel with the wait on stage 1's barrier skipped: its tcgen05.mma reads a stage the TMA has not
    // delivered, which the simulator reports (so the runs above check the pipeline, not just the arithmetic).
    let text = source("examples/gemm_sm100a.mlir");
    let wait = "        axe.mbarrier_wait cta %bars[%cur_index], %parity : !bars\n";
    let skipped = "        %stage_1 = arith.constant 1 : index\n        %not_stage_1 = arith.cmpi ne, %cur_index, %stage_1 : index\n        scf.if %not_stage_1 {\n  \
                   axe.mbarrier_wait cta %bars[%cur_index], %parity : !bars\n        }\n";
    assert!(text.contains(wait), "the example waits on the stage's barrier");
    let mutated = text.replace(wait, skipped);
    let error = gemm_run(&mutated, "gemm_sm100a", Grid::ColsOnX, 16, 128, 192).expect_err("the mutant must fail");
    assert!(error.contains("that a pending TMA load") && error.contains("has not delivered"), "{error}");
}
