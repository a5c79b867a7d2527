//! examples/gemm_sm80.mlir (cp.async ring + ldmatrix + mma.sync, M, N, K as kernel arguments) executed by
//! `axe-sim` on every CTA of the grid at ragged sizes, C compared with A * B computed here: partial 128-tiles in M
//! and N (cp.async zero fill past the edges, predicated stores), a partial last K tile, a K of one partial tile,
//! and K tiles wrapping the 3-stage ring.

use axe_sim::{lower, run, Arg, Buffer, Launch, Scalar};
use std::path::Path;

fn source(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Small integers, different per element, in -3..=3.
fn small(i: usize, j: usize, salt: usize) -> f64 {
    ((i * 7 + j * 13 + salt * 5 + (i * j) % 11) % 7) as f64 - 3.0
}

/// Runs `text` (the example, or a mutant of it) on every CTA of its grid (ceildiv(M, 128) x ceildiv(N, 128): block
/// x covers rows, y columns) and compares every element of C with A * B; C starts at a sentinel so that writes
/// past the tile show. `Err` says what went wrong.
fn run_case(text: &str, m: usize, n: usize, k: usize) -> Result<(), String> {
    let a: Vec<f64> = (0..m * k).map(|x| small(x / k, x % k, 3)).collect();
    let b: Vec<f64> = (0..k * n).map(|x| small(x / n, x % n, 4)).collect();
    let context = axe_dialect::create_context().expect("context");
    let module = lower(&context, text, "gemm_sm80.mlir").expect("lowers");
    let mut c = Buffer::from_f64(Scalar::F16, &vec![-1000.0; m * n]);
    let grid = [m.div_ceil(128) as i64, n.div_ceil(128) as i64, 1];
    for bx in 0..grid[0] {
        for by in 0..grid[1] {
            let args = vec![
                Arg::Buffer(Buffer::from_f64(Scalar::F16, &a)),
                Arg::Buffer(Buffer::from_f64(Scalar::F16, &b)),
                Arg::Buffer(c.clone()),
                Arg::Int(m as i64),
                Arg::Int(n as i64),
                Arg::Int(k as i64),
            ];
            let out = run(&module, &Launch { kernel: "gemm_sm80".into(), block_id: [bx, by, 0], grid, args })
                .map_err(|e| format!("M={m} N={n} K={k} block ({bx},{by}): {e}"))?;
            c = out.buffers[2].clone().expect("C");
        }
    }
    let got = c.to_f64();
    for r in 0..m {
        for col in 0..n {
            let want: f64 = (0..k).map(|kk| a[r * k + kk] * b[kk * n + col]).sum();
            if got[r * n + col] != want {
                return Err(format!("M={m} N={n} K={k}: C[{r}][{col}] = {}, expected {want}", got[r * n + col]));
            }
        }
    }
    Ok(())
}

fn gemm_sm80_case(m: usize, n: usize, k: usize) {
    run_case(&source("examples/gemm_sm80.mlir"), m, n, k).unwrap_or_else(|e| panic!("{e}"));
}

/// The example with `from` replaced by `to` (which must occur in it).
fn mutant(from: &str, to: &str) -> String {
    let text = source("examples/gemm_sm80.mlir");
    assert!(text.contains(from), "the example changed: {from:?} is not in it; update this test");
    text.replacen(from, to, 1)
}

#[test]
fn gemm_sm80_ragged_sizes() {
    // Partial tiles in M and N, K of one full and one partial 64-tile; |C| <= 9 K < 2048 stays exact in f16.
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
        ("wait_group 2", mutant("nvvm.cp.async.wait.group 1", "nvvm.cp.async.wait.group 2")),
        ("read stage off by one", mutant("iter_args(%cur = %c0, %nxt = %c2)", "iter_args(%cur = %c1, %nxt = %c2)")),
        ("load into the stage read", mutant("iter_args(%cur = %c0, %nxt = %c2)", "iter_args(%cur = %c0, %nxt = %c0)")),
    ];
    for (name, text) in mutants {
        assert!(run_case(&text, 40, 24, 232).is_err(), "{name}: the mutant computes A * B");
    }
}
