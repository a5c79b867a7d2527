//! examples/gemm_sm100a.mlir (TMA ring + tcgen05.mma with the accumulator in tensor memory, tcgen05.ld epilogue,
//! M, N, K as kernel arguments) executed by `axe-sim` on every CTA of the grid at ragged sizes, C compared with
//! A * B computed here: partial 128-tiles in M and N (TMA zero fill past the edges, clipped TMA stores), a partial
//! last K tile, a K of one partial tile, and K tiles wrapping the 3-stage ring (phase parity flips).

use axe_sim::{lower, run, Arg, Buffer, Launch, Scalar};
use std::path::Path;

fn source(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Small integers, different per element, in -3..=3 (every sum of K <= 256 products stays exact in f16).
fn small(i: usize, j: usize, salt: usize) -> f64 {
    ((i * 5 + j * 11 + salt * 3 + (i * j) % 13) % 7) as f64 - 3.0
}

/// Runs the kernel on every CTA of its grid (ceildiv(N, 128) x ceildiv(M, 128): block x covers columns, y rows,
/// as its launch record says) and compares every element of C with A * B; C starts at a sentinel so that a write
/// past the matrix or a missed tile shows.
fn gemm_sm100a_case(m: usize, n: usize, k: usize) {
    let a: Vec<f64> = (0..m * k).map(|x| small(x / k, x % k, 1)).collect();
    let b: Vec<f64> = (0..k * n).map(|x| small(x / n, x % n, 2)).collect();
    let context = axe_dialect::create_context().expect("context");
    let module = lower(&context, &source("examples/gemm_sm100a.mlir"), "gemm_sm100a.mlir").expect("lowers");
    let mut c = Buffer::from_f64(Scalar::F16, &vec![-1000.0; m * n]);
    let grid = [n.div_ceil(128) as i64, m.div_ceil(128) as i64, 1];
    for by in 0..grid[1] {
        for bx in 0..grid[0] {
            let args = vec![
                Arg::Buffer(Buffer::from_f64(Scalar::F16, &a)),
                Arg::Buffer(Buffer::from_f64(Scalar::F16, &b)),
                Arg::Buffer(c.clone()),
                Arg::Int(m as i64),
                Arg::Int(n as i64),
                Arg::Int(k as i64),
            ];
            let out = run(&module, &Launch { kernel: "gemm_sm100a".into(), block_id: [bx, by, 0], grid, args })
                .unwrap_or_else(|e| panic!("M={m} N={n} K={k} block ({bx},{by}): {e}"));
            c = out.buffers[2].clone().expect("C");
        }
    }
    let got = c.to_f64();
    for r in 0..m {
        for col in 0..n {
            let want: f64 = (0..k).map(|kk| a[r * k + kk] * b[kk * n + col]).sum();
            assert_eq!(got[r * n + col], want, "M={m} N={n} K={k}: C[{r}][{col}]");
        }
    }
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
    // The kernel with the wait on stage 1's barrier deleted: its tcgen05.mma reads a stage the TMA has not
    // delivered, which the simulator reports (so the runs above check the pipeline, not just the arithmetic).
    let text = source("examples/gemm_sm100a.mlir");
    let mutated: String =
        text.lines().filter(|line| !line.contains("\"axe.mbarrier_wait\"(%bar1")).map(|l| format!("{l}\n")).collect();
    assert!(mutated.len() < text.len(), "the example waits on %bar1");
    let context = axe_dialect::create_context().expect("context");
    let module = lower(&context, &mutated, "gemm_sm100a.mlir").expect("lowers");
    let (m, n, k) = (16usize, 128usize, 192usize);
    let args = vec![
        Arg::Buffer(Buffer::from_f64(Scalar::F16, &vec![1.0; m * k])),
        Arg::Buffer(Buffer::from_f64(Scalar::F16, &vec![1.0; k * n])),
        Arg::Buffer(Buffer::zeros(Scalar::F16, m * n)),
        Arg::Int(m as i64),
        Arg::Int(n as i64),
        Arg::Int(k as i64),
    ];
    let launch = Launch { kernel: "gemm_sm100a".into(), block_id: [0, 0, 0], grid: [1, 1, 1], args };
    let Err(error) = run(&module, &launch) else { panic!("a kernel reading stage 1 unwaited must fail") };
    let error = error.to_string();
    assert!(error.contains("not delivered") || error.contains("pending"), "{error}");
}
