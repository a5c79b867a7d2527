//! What the kernel tests share: the repository's files, small integer data, and the GEMM examples run on every
//! CTA of their grid and compared with A * B computed here (never by the code under test).

#![allow(dead_code)] // each test binary uses its part

use axe_sim::{lower, run_with, Arg, Buffer, Launch, Scalar, Schedule};
use std::path::Path;

/// A file of the repository, by its path from the root.
pub fn source(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Small integers in -3..=3, a hash of `(i, j, salt)`: no period in `i` or `j` (a row or K mix-up by any
/// distance changes some product), and small enough that f16 sums stay exact.
pub fn small(i: usize, j: usize, salt: usize) -> f64 {
    let mut h = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (j as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
        ^ (salt as u64 + 1).wrapping_mul(0x1656_67B1_9E37_79F9);
    h ^= h >> 31;
    h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h ^= h >> 29;
    (h % 7) as f64 - 3.0
}

/// How a GEMM example's grid covers C (its launch record says which).
#[derive(Clone, Copy)]
pub enum Grid {
    /// `(ceildiv(M, 128), ceildiv(N, 128))`: block x covers rows, y columns.
    RowsOnX,
    /// `(ceildiv(N, 128), ceildiv(M, 128))`: block x covers columns, y rows.
    ColsOnX,
    /// `(ceildiv(N, 256), ceildiv(M, 128))`: block x covers 256 columns, y 128 rows.
    WideColsOnX,
    /// `(ctas, 1)` CTAs walking the 128x256 tiles of C (a persistent kernel); `None`: one CTA per tile.
    Tiles(Option<i64>),
}

/// Runs `text` (`examples/<kernel>.mlir` or a mutant of it; C[M,N] f16 = A[M,K] @ B[K,N], arguments A, B, C, M, N,
/// K) on every CTA of its grid under every schedule of [`Schedule::all`] and compares every element of C with
/// A * B; `Err` says what went wrong (under which schedule). Entries in -2..=2 keep every sum exact in f16 up to
/// K = 512 (|C| <= 4 K <= 2048); C starts at a sentinel, so a missed tile or a write past the matrix shows.
pub fn gemm_run(text: &str, kernel: &str, grid: Grid, m: usize, n: usize, k: usize) -> Result<(), String> {
    gemm_runs(text, false, kernel, grid, m, n, k).into_iter().find(Result::is_err).unwrap_or(Ok(()))
}

/// [`gemm_run`] on lowered IR (a mutant of the lowering's output): one result per schedule of [`Schedule::all`].
pub fn gemm_runs(
    text: &str,
    lowered: bool,
    kernel: &str,
    grid: Grid,
    m: usize,
    n: usize,
    k: usize,
) -> Vec<Result<(), String>> {
    let context = axe_dialect::create_context().expect("context");
    let module = if lowered {
        axe_dialect::parse_module(&context, text, &format!("{kernel}.lowered.mlir")).expect("mutated IR parses")
    } else {
        lower(&context, text, &format!("{kernel}.mlir")).expect("lowers")
    };
    Schedule::all()
        .iter()
        .map(|s| gemm_schedule(&module, kernel, grid, m, n, k, s).map_err(|e| format!("{s:?}: {e}")))
        .collect()
}

/// One schedule of [`gemm_runs`].
fn gemm_schedule(
    module: &melior::ir::Module,
    kernel: &str,
    grid: Grid,
    m: usize,
    n: usize,
    k: usize,
    schedule: &Schedule,
) -> Result<(), String> {
    let entry = |i: usize, j: usize, salt: usize| small(i, j, salt).clamp(-2.0, 2.0);
    let a: Vec<f64> = (0..m * k).map(|x| entry(x / k, x % k, 1)).collect();
    let b: Vec<f64> = (0..k * n).map(|x| entry(x / n, x % n, 2)).collect();
    let mut c = Buffer::from_f64(Scalar::F16, &vec![-1000.0; m * n]);
    let (rows, cols) = (m.div_ceil(128) as i64, n.div_ceil(128) as i64);
    let dims = match grid {
        Grid::RowsOnX => [rows, cols, 1],
        Grid::ColsOnX => [cols, rows, 1],
        Grid::WideColsOnX => [n.div_ceil(256) as i64, rows, 1],
        Grid::Tiles(ctas) => [ctas.unwrap_or(n.div_ceil(256) as i64 * rows), 1, 1],
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
            let out =
                run_with(module, &launch, schedule).map_err(|e| format!("M={m} N={n} K={k} block ({bx},{by}): {e}"))?;
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

/// `examples/<kernel>.mlir` lowered (`--lower-roles --lower-tile-loops --lower-staged-copies --lower-tma --lower-mma --lower-copy`), as text.
pub fn lowered(kernel: &str) -> String {
    let context = axe_dialect::create_context().expect("context");
    let module =
        lower(&context, &source(&format!("examples/{kernel}.mlir")), &format!("{kernel}.mlir")).expect("lowers");
    module.as_operation().to_string()
}

/// `text` without its `nth` line (0-based) that contains `pattern` (`None`: every such line); the line must exist.
pub fn drop_line(text: &str, pattern: &str, nth: Option<usize>) -> String {
    let hits: Vec<usize> = text.lines().enumerate().filter(|(_, l)| l.contains(pattern)).map(|(i, _)| i).collect();
    assert!(!hits.is_empty(), "no line contains {pattern:?}: the lowering changed; update this test");
    let drop: Vec<usize> = match nth {
        Some(i) => vec![*hits.get(i).unwrap_or_else(|| panic!("fewer than {} lines contain {pattern:?}", i + 1))],
        None => hits,
    };
    text.lines().enumerate().filter(|(i, _)| !drop.contains(i)).map(|(_, l)| format!("{l}\n")).collect()
}

/// A mutant's results (one per schedule): every schedule must fail; the default (lazy) schedule with an error
/// containing `expected[0]`, the others with one containing some entry of `expected` (where an operation lands
/// can change which rule it breaks first, e.g. a wrong parity reads a pending load or deadlocks).
pub fn assert_caught(name: &str, results: &[Result<(), String>], expected: &[&str]) {
    for (i, r) in results.iter().enumerate() {
        let e = match r {
            Ok(()) => panic!("{name}: the mutant computes A * B under schedule {i}"),
            Err(e) => e,
        };
        let ok = if i == 0 { e.contains(expected[0]) } else { expected.iter().any(|x| e.contains(x)) };
        assert!(ok, "{name}: schedule {i} fails with another error than {expected:?}:\n{e}");
        assert!(!e.contains("not modelled"), "{name}: {e}");
    }
}
