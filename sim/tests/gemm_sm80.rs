//! examples/gemm_sm80.mlir (cp.async ring + ldmatrix + mma.sync, M, N, K as kernel arguments) executed by
//! `axe-sim` on every CTA of the grid at ragged sizes, C compared with A * B computed here: partial 128-tiles in M
//! and N (cp.async zero fill past the edges, predicated stores), a partial last K tile, a K of one partial tile,
//! and K tiles wrapping the 3-stage ring.

mod common;
use common::{gemm_case, gemm_run, mutant, Grid};

fn gemm_sm80_case(m: usize, n: usize, k: usize) {
    gemm_case("gemm_sm80", Grid::RowsOnX, m, n, k);
}

#[test]
fn gemm_sm80_ragged_sizes() {
    // Partial tiles in M and N, K of one full and one partial 64-tile.
    gemm_sm80_case(144, 136, 80);
    // K smaller than one tile, one partial CTA.
    gemm_sm80_case(16, 48, 32);
}

#[test]
fn gemm_sm80_wraps_the_ring() {
    // Four K tiles (the last partial): stages 0, 1, 2, 0, with the empty commit groups of the last iterations.
    gemm_sm80_case(40, 24, 232);
}

/// The protocol is checked, not assumed: waiting for one group too few (tile kt may still be in flight), reading
/// the wrong stage, or loading into the stage being read each make some element of C wrong (or the simulator
/// refuses the read of undelivered bytes).
#[test]
fn gemm_sm80_mutants_fail() {
    let mutants = [
        ("wait_group 2", mutant("gemm_sm80", "nvvm.cp.async.wait.group 1", "nvvm.cp.async.wait.group 2")),
        (
            "read stage off by one",
            mutant("gemm_sm80", "iter_args(%cur = %c0, %nxt = %c2)", "iter_args(%cur = %c1, %nxt = %c2)"),
        ),
        (
            "load into the stage read",
            mutant("gemm_sm80", "iter_args(%cur = %c0, %nxt = %c2)", "iter_args(%cur = %c0, %nxt = %c0)"),
        ),
    ];
    for (name, text) in mutants {
        assert!(gemm_run(&text, "gemm_sm80", Grid::RowsOnX, 40, 24, 232).is_err(), "{name}: the mutant computes A * B");
    }
}

/// K of at most one 64-tile (issue 21): the prologue loads no tile 1, and the wait_group 0 after the loop leaves no
/// cp.async in flight when the CTA exits (the simulator faults a kernel that exits with copies in flight). K = 72
/// is one full tile and a partial one of 8 columns, the smallest K past one tile that the kernel's `K % 8 == 0`
/// precondition allows.
#[test]
fn gemm_sm80_short_k() {
    for k in [8, 56, 64] {
        gemm_sm80_case(24, 40, k);
    }
    gemm_sm80_case(24, 40, 72);
}

/// The kernel as issue 21 found it (tile 1 loaded whatever K, zero-filled past it; no wait after the loop) would
/// exit with tile 1's copies in flight at K <= 64: the lowering refuses it (`async-exit` rule of the barrier check).
#[test]
fn gemm_sm80_exit_with_copies_in_flight_is_refused() {
    let old = mutant("gemm_sm80", "%has1 = arith.cmpi ult, %c64, %K : index", "%has1 = arith.constant true").replacen(
        "      nvvm.cp.async.wait.group 0\n",
        "",
        1,
    );
    assert!(!old.contains("nvvm.cp.async.wait.group 0"));
    let context = axe_dialect::create_context().expect("context");
    let error = match axe_sim::lower(&context, &old, "gemm_sm80.mlir") {
        Ok(_) => String::from("lowered"),
        Err(e) => format!("{e:?}"),
    };
    assert!(error.contains("async-exit rule"), "{error}");
}
