//! What the kernel tests share: the repository's files, small integer data, and the GEMM examples run on every
//! CTA of their grid and compared with A * B computed here (never by the code under test).

#![allow(dead_code)] // each test binary uses its part

use axe_sim::{lower, run, Arg, Buffer, Launch, Scalar};
use std::path::Path;

/// A file of the repository, by its path from the root.
pub fn source(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Small integers, different per element, in -3..=3.
pub fn small(i: usize, j: usize, salt: usize) -> f64 {
    ((i * 7 + j * 13 + salt * 5 + (i * j) % 11) % 7) as f64 - 3.0
}

/// How a GEMM example's grid covers C (its launch record says which).
#[derive(Clone, Copy)]
pub enum Grid {
    /// `(ceildiv(M, 128), ceildiv(N, 128))`: block x covers rows, y columns.
    RowsOnX,
    /// `(ceildiv(N, 128), ceildiv(M, 128))`: block x covers columns, y rows.
    ColsOnX,
}

/// Runs `text` (`examples/<kernel>.mlir` or a mutant of it; C[M,N] f16 = A[M,K] @ B[K,N], arguments A, B, C, M, N,
/// K) on every CTA of its grid and compares every element of C with A * B; `Err` says what went wrong. Entries in
/// -2..=2 keep every sum exact in f16 up to K = 512 (|C| <= 4 K <= 2048); C starts at a sentinel, so a missed tile
/// or a write past the matrix shows.
pub fn gemm_run(text: &str, kernel: &str, grid: Grid, m: usize, n: usize, k: usize) -> Result<(), String> {
    let entry = |i: usize, j: usize, salt: usize| small(i, j, salt).clamp(-2.0, 2.0);
    let a: Vec<f64> = (0..m * k).map(|x| entry(x / k, x % k, 1)).collect();
    let b: Vec<f64> = (0..k * n).map(|x| entry(x / n, x % n, 2)).collect();
    let context = axe_dialect::create_context().expect("context");
    let module = lower(&context, text, &format!("{kernel}.mlir")).expect("lowers");
    let mut c = Buffer::from_f64(Scalar::F16, &vec![-1000.0; m * n]);
    let (rows, cols) = (m.div_ceil(128) as i64, n.div_ceil(128) as i64);
    let dims = match grid {
        Grid::RowsOnX => [rows, cols, 1],
        Grid::ColsOnX => [cols, rows, 1],
    };
    for by in 0..dims[1] {
        for bx in 0..dims[0] {
            let args = vec![
                Arg::Buffer(Buffer::from_f64(Scalar::F16, &a)),
                Arg::Buffer(Buffer::from_f64(Scalar::F16, &b)),
                Arg::Buffer(c.clone()),
                Arg::Int(m as i64),
                Arg::Int(n as i64),
                Arg::Int(k as i64),
            ];
            let launch = Launch { kernel: kernel.into(), block_id: [bx, by, 0], grid: dims, args };
            let out = run(&module, &launch).map_err(|e| format!("M={m} N={n} K={k} block ({bx},{by}): {e}"))?;
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

/// [`gemm_run`] on the example itself; panics with what went wrong.
pub fn gemm_case(kernel: &str, grid: Grid, m: usize, n: usize, k: usize) {
    let text = source(&format!("examples/{kernel}.mlir"));
    gemm_run(&text, kernel, grid, m, n, k).unwrap_or_else(|e| panic!("{kernel}: {e}"));
}

/// `examples/<kernel>.mlir` with `from` replaced by `to` (which must occur in it).
pub fn mutant(kernel: &str, from: &str, to: &str) -> String {
    let text = source(&format!("examples/{kernel}.mlir"));
    assert!(text.contains(from), "the example changed: {from:?} is not in it; update this test");
    text.replacen(from, to, 1)
}
