//! Whole kernels, lowered by `--lower-tma --lower-mma --lower-copy` and executed by `axe-sim` on small integer
//! matrices; every expected value is computed here from the math (A * B), never by the code under test. The
//! register-to-element maps the tests use to read accumulators back are the PTX ISA's fragment tables, written
//! again here.

mod common;
use axe_sim::{lower, run, run_with, Arg, Buffer, Launch, Outcome, Scalar, Schedule, SimError};
use common::{gemm_case, small, source, Grid};

/// Runs `kernel` of `module` on one CTA under every schedule of [`Schedule::all`]: the first error, else the
/// outcome, which must be the same under every schedule (a kernel whose result depends on when asynchronous
/// operations land or on the order of warps is wrong).
fn run_all(module: &melior::ir::Module, kernel: &str, block_id: [i64; 3], args: Vec<Arg>) -> Result<Outcome, SimError> {
    let launch = Launch { kernel: kernel.into(), block_id, grid: [4, 4, 1], args };
    let mut first: Option<Outcome> = None;
    for schedule in Schedule::all() {
        let out = run_with(module, &launch, &schedule)
            .map_err(|e| SimError::new(&e.loc, format!("{} (schedule {schedule:?})", e.message)))?;
        match &first {
            None => first = Some(out),
            Some(f) => assert_eq!(f.buffers, out.buffers, "the outcome differs under schedule {schedule:?}"),
        }
    }
    Ok(first.expect("at least one schedule"))
}

/// Lowers `text` and runs `kernel` on one CTA (every schedule, [`run_all`]).
fn simulate(text: &str, kernel: &str, block_id: [i64; 3], args: Vec<Arg>) -> Result<Outcome, SimError> {
    let context = axe_dialect::create_context().expect("context");
    let module = lower(&context, text, "kernel.mlir").unwrap_or_else(|e| panic!("lowering failed:\n{e}"));
    run_all(&module, kernel, block_id, args)
}

/// Lowers `text`, applies `edit` to the lowered text (for mutations the compiler itself would refuse), reparses
/// and runs.
fn simulate_lowered_edit(
    text: &str,
    kernel: &str,
    edit: &dyn Fn(&str) -> String,
    block_id: [i64; 3],
    args: Vec<Arg>,
) -> Result<Outcome, SimError> {
    let context = axe_dialect::create_context().expect("context");
    let module = lower(&context, text, "kernel.mlir").unwrap_or_else(|e| panic!("lowering failed:\n{e}"));
    let lowered = edit(&module.as_operation().to_string());
    let module = axe_dialect::parse_module(&context, &lowered, "lowered.mlir").expect("mutated IR parses");
    run_all(&module, kernel, block_id, args)
}

/// wgmma's f32 D fragment for m64nN (PTX ISA 9.7.15.5.1.1): thread t, register i -> (row, col).
fn wgmma_d(t: usize, i: usize) -> (usize, usize) {
    let l = t % 32;
    (16 * (t / 32) + l / 4 + 8 * ((i / 2) % 2), 8 * (i / 4) + 2 * (l % 4) + i % 2)
}

// ---- test/Target/ring-pipeline-ptx.mlir: TMA ring of 3 stages + wgmma, K = 192 and 256 ----

/// The ring kernel with its epilogue widened to write all 32 accumulator registers of each thread:
/// `out[32 * tid + i] = acc[i]` (the file writes only register 0).
fn ring_source() -> String {
    let text = source("test/Target/ring-pipeline-ptx.mlir");
    let old = "      %v0 = memref.load %acc[%c0] : !regs\n      memref.store %v0, %out[%tid] : memref<16384xf32>\n";
    assert!(text.contains(old), "the ring kernel's epilogue changed: update this test");
    let new = "      %c1e = arith.constant 1 : index\n      %c32e = arith.constant 32 : index\n      \
               %base = arith.muli %tid, %c32e : index\n      scf.for %i = %c0 to %c32e step %c1e {\n        \
               %v = memref.load %acc[%i] : !regs\n        %o = arith.addi %base, %i : index\n        \
               memref.store %v, %out[%o] : memref<16384xf32>\n      }\n";
    text.replace(old, new)
}

struct Ring {
    a: Vec<f64>,
    b: Vec<f64>,
}

const RM: usize = 256;
const RK: usize = 4096;
const RN: usize = 256;

impl Ring {
    fn new() -> Ring {
        // A [256, 4096] and B [4096, 256] row-major (only K columns/rows are read).
        let a = (0..RM * RK).map(|x| small(x / RK, x % RK, 1)).collect();
        let b = (0..RK * RN).map(|x| small(x / RN, x % RN, 2)).collect();
        Ring { a, b }
    }

    fn args(&self, k: i64) -> Vec<Arg> {
        vec![
            Arg::Buffer(Buffer::from_f64(Scalar::F16, &self.a)),
            Arg::Buffer(Buffer::from_f64(Scalar::F16, &self.b)),
            Arg::Buffer(Buffer::zeros(Scalar::F32, 16384)),
            Arg::Int(k),
        ]
    }

    /// The 64x64 tile of A * B at (m0, n0) over K, from the math.
    fn expected(&self, m0: usize, n0: usize, k: usize) -> Vec<f64> {
        let mut c = vec![0.0; 64 * 64];
        for r in 0..64 {
            for col in 0..64 {
                c[r * 64 + col] = (0..k).map(|kk| self.a[(m0 + r) * RK + kk] * self.b[kk * RN + n0 + col]).sum();
            }
        }
        c
    }

    /// Compares every register of every thread with the expected tile; returns the mismatches.
    fn mismatches(&self, out: &Outcome, m0: usize, n0: usize, k: usize) -> usize {
        let want = self.expected(m0, n0, k);
        let got = out.buffers[2].as_ref().expect("output buffer").to_f64();
        let mut bad = 0;
        for t in 0..128 {
            for i in 0..32 {
                let (r, c) = wgmma_d(t, i);
                if got[32 * t + i] != want[r * 64 + c] {
                    bad += 1;
                }
            }
        }
        bad
    }
}

#[test]
fn ring_pipeline_computes_a_times_b() {
    let ring = Ring::new();
    let text = ring_source();
    for (k, block) in [(192, [1, 2, 0]), (256, [3, 0, 0])] {
        let out = simulate(&text, "ring_gemm", block, ring.args(k)).unwrap_or_else(|e| panic!("K={k}: {e}"));
        let (m0, n0) = (64 * block[0] as usize, 64 * block[1] as usize);
        assert_eq!(ring.mismatches(&out, m0, n0, k as usize), 0, "K={k} block {block:?}");
        // Not vacuous: the tile is not all zeros.
        assert!(out.buffers[2].as_ref().unwrap().to_f64().iter().any(|x| *x != 0.0));
    }
}

#[test]
fn ring_with_negated_parity_fails() {
    let ring = Ring::new();
    let text = ring_source();
    let old = "%parity = arith.cmpi ne, %odd, %c0 : index";
    assert!(text.contains(old));
    let text = text.replace(old, "%parity = arith.cmpi eq, %odd, %c0 : index");
    let e = simulate(&text, "ring_gemm", [0, 0, 0], ring.args(256)).expect_err("a wrong parity must fail");
    eprintln!("negated parity: {e}");
    // Iteration 0 waits for parity 1 on a barrier in phase 0: the "previous" phase counts as complete, so the
    // wait returns at once and wgmma reads the stage before the TMA load has delivered it.
    assert!(e.message.contains("pending TMA load") && e.message.contains("not delivered"), "{e}");
}

#[test]
fn ring_with_a_barrier_expecting_an_extra_arrival_deadlocks() {
    // Barrier 0 initialized for 3 arrivals while its loads make 2: the first wait on it can never succeed. (The
    // compiler's barrier check does not count arrivals, so this is the source text.)
    let ring = Ring::new();
    let text = ring_source();
    let old = "axe.mbarrier_init cta %bar0 count 2 :";
    assert!(text.contains(old));
    let text = text.replace(old, "axe.mbarrier_init cta %bar0 count 3 :");
    let e = simulate(&text, "ring_gemm", [0, 0, 0], ring.args(256))
        .expect_err("a barrier missing an arrival must deadlock");
    eprintln!("extra arrival: {e}");
    assert!(e.message.contains("deadlock") && e.message.contains("1 arrivals"), "{e}");
}

#[test]
fn ring_with_wrong_stage_gives_wrong_data() {
    let ring = Ring::new();
    let text = ring_source();
    // The wgmma reads stage (kt / 3) instead of kt mod 3 (the wait stays on the right barrier).
    let old = "%row = arith.muli %cur, %c64 : index\n        %sa =";
    assert!(text.contains(old));
    let text = text.replace(old, "%row = arith.muli %round, %c64 : index\n        %sa =");
    // Stage 0 holds tile 0 when iterations 1 and 2 read it (nothing overwrites it at K = 192): no protocol rule is
    // broken, the data is wrong.
    let out = simulate(&text, "ring_gemm", [0, 1, 0], ring.args(192)).unwrap_or_else(|e| panic!("{e}"));
    assert!(ring.mismatches(&out, 0, 64, 192) > 0, "a wrong stage must give wrong data");
}

#[test]
fn ring_without_mbarrier_init_faults() {
    let ring = Ring::new();
    // The compiler's barrier check refuses a missing axe.mbarrier_init, so the init is removed from the
    // lowered IR: the second barrier's nvgpu.mbarrier.init (stage 1).
    let edit = |lowered: &str| {
        let lines: Vec<&str> = lowered.lines().collect();
        let inits: Vec<usize> =
            lines.iter().enumerate().filter(|(_, l)| l.contains("nvgpu.mbarrier.init")).map(|(i, _)| i).collect();
        assert_eq!(inits.len(), 3, "three barrier inits");
        lines.iter().enumerate().filter(|(i, _)| *i != inits[1]).map(|(_, l)| *l).collect::<Vec<_>>().join("\n")
    };
    let e = simulate_lowered_edit(&ring_source(), "ring_gemm", &edit, [0, 0, 0], ring.args(192))
        .expect_err("a missing init must fault");
    eprintln!("missing init: {e}");
    assert!(e.message.contains("before its mbarrier.init"), "{e}");
    assert!(e.loc.contains(".mlir:"), "located: {}", e.loc);
}

// ---- examples/*.mlir against the math ----

#[test]
fn tma_copy_moves_the_tile() {
    let src: Vec<f64> = (0..128 * 64).map(|x| small(x / 64, x % 64, 3)).collect();
    let out = simulate(
        &source("examples/tma_copy.mlir"),
        "tma_copy",
        [0, 0, 0],
        vec![Arg::Buffer(Buffer::from_f64(Scalar::F16, &src)), Arg::Buffer(Buffer::zeros(Scalar::F16, 128 * 64))],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.buffers[1].as_ref().unwrap().to_f64(), src);
}

#[test]
fn mma_wgmma_computes_a_times_b() {
    // A [64, 64]; B = [K=64, N=16] stored as 16 rows of 64 K values (B[k][n] = gB[n][k]); C [64, 16].
    let a: Vec<f64> = (0..64 * 64).map(|x| small(x / 64, x % 64, 4)).collect();
    let gb: Vec<f64> = (0..16 * 64).map(|x| small(x / 64, x % 64, 5)).collect();
    let out = simulate(
        &source("examples/mma_wgmma.mlir"),
        "mma_wgmma",
        [0, 0, 0],
        vec![
            Arg::Buffer(Buffer::from_f64(Scalar::F16, &a)),
            Arg::Buffer(Buffer::from_f64(Scalar::F16, &gb)),
            Arg::Buffer(Buffer::zeros(Scalar::F32, 1024)),
        ],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let got = out.buffers[2].as_ref().unwrap().to_f64();
    // Thread t writes its 8 accumulator registers to out[8t..8t+8].
    for t in 0..128 {
        for i in 0..8 {
            let (r, c) = wgmma_d(t, i);
            let want: f64 = (0..64).map(|k| a[r * 64 + k] * gb[c * 64 + k]).sum();
            assert_eq!(got[8 * t + i], want, "thread {t} register {i} = C[{r}][{c}]");
        }
    }
}

/// examples/mma_sync.mlir with A and B loaded from global row-major inputs (arguments 1 and 2) instead of filled
/// with ones, so that every fragment element matters (with all-ones inputs any fragment mapping gives K = 32).
fn mma_sync_loading_inputs() -> String {
    let text = source("examples/mma_sync.mlir");
    let edits = [
        (
            "gpu.func @mma_sync(%out: memref<256xf32>)",
            "gpu.func @mma_sync(%out: memref<256xf32>, %in_a: memref<512xf16>, %in_b: memref<512xf16>)",
        ),
        (
            "axe.fill cta %a, %one : !a, f16",
            "%ga = axe.view %in_a : memref<512xf16> -> !axe.tensor<16x32xf16, global, S[(16,32):(32,1)]>\n      \
             axe.copy cta %ga to %a : !axe.tensor<16x32xf16, global, S[(16,32):(32,1)]> to !a",
        ),
        (
            "axe.fill cta %b, %one : !b, f16",
            "%gb = axe.view %in_b : memref<512xf16> -> !axe.tensor<32x16xf16, global, S[(32,16):(16,1)]>\n      \
             axe.copy cta %gb to %b : !axe.tensor<32x16xf16, global, S[(32,16):(16,1)]> to !b",
        ),
    ];
    let mut text = text;
    for (from, to) in edits {
        assert!(text.contains(from), "examples/mma_sync.mlir changed: {from:?} is not in it; update this test");
        text = text.replacen(from, to, 1);
    }
    text
}

#[test]
fn mma_sync_computes_a_times_b() {
    // A [16, 32] and B [32, 16] row-major, hashed small integers; C = A * B from the math. Thread t holds C
    // fragment registers 0..3 of warp w = t / 32, which computes columns 8w..8w+8 (the m16n8 C fragment, PTX ISA
    // 9.7.14.5.8: register i of lane l is row l / 4 + 8 (i / 2), column 2 (l % 4) + i % 2).
    let a: Vec<f64> = (0..16 * 32).map(|x| small(x / 32, x % 32, 8)).collect();
    let b: Vec<f64> = (0..32 * 16).map(|x| small(x / 16, x % 16, 9)).collect();
    let out = simulate(
        &mma_sync_loading_inputs(),
        "mma_sync",
        [0, 0, 0],
        vec![
            Arg::Buffer(Buffer::zeros(Scalar::F32, 256)),
            Arg::Buffer(Buffer::from_f64(Scalar::F16, &a)),
            Arg::Buffer(Buffer::from_f64(Scalar::F16, &b)),
        ],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let got = out.buffers[0].as_ref().unwrap().to_f64();
    for t in 0..64 {
        let (w, l) = (t / 32, t % 32);
        for i in 0..4 {
            let (r, c) = (l / 4 + 8 * (i / 2), 8 * w + 2 * (l % 4) + i % 2);
            let want: f64 = (0..32).map(|k| a[r * 32 + k] * b[k * 16 + c]).sum();
            assert_eq!(got[4 * t + i], want, "thread {t} register {i} = C[{r}][{c}]");
        }
    }
}

/// A [128, 16] and B seen from 16 rows of 16 K values (B[k][n] = gB[n][k]).
fn tcgen05_inputs() -> (Vec<f64>, Vec<f64>) {
    let a = (0..128 * 16).map(|x| small(x / 16, x % 16, 6)).collect();
    let gb = (0..16 * 16).map(|x| small(x / 16, x % 16, 7)).collect();
    (a, gb)
}

fn tcgen05_c(a: &[f64], gb: &[f64], r: usize, c: usize) -> f64 {
    (0..16).map(|k| a[r * 16 + k] * gb[c * 16 + k]).sum()
}

#[test]
fn mma_tcgen05_computes_a_times_b() {
    let (a, gb) = tcgen05_inputs();
    let out = simulate(
        &source("examples/mma_tcgen05.mlir"),
        "mma_tcgen05",
        [0, 0, 0],
        vec![
            Arg::Buffer(Buffer::from_f64(Scalar::F16, &a)),
            Arg::Buffer(Buffer::from_f64(Scalar::F16, &gb)),
            Arg::Buffer(Buffer::zeros(Scalar::F32, 2048)),
        ],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let got = out.buffers[2].as_ref().unwrap().to_f64();
    // Thread r writes row r of C to out[16r..16r+16].
    for r in 0..128 {
        for c in 0..16 {
            assert_eq!(got[16 * r + c], tcgen05_c(&a, &gb, r, c), "C[{r}][{c}]");
        }
    }
}

#[test]
fn copy_epilogue_stores_alpha_times_a_times_b_in_f16() {
    let (a, gb) = tcgen05_inputs();
    let alpha = 2.0;
    let out = simulate(
        &source("examples/copy_epilogue.mlir"),
        "copy_epilogue",
        [0, 0, 0],
        vec![
            Arg::Buffer(Buffer::from_f64(Scalar::F16, &a)),
            Arg::Buffer(Buffer::from_f64(Scalar::F16, &gb)),
            Arg::Buffer(Buffer::zeros(Scalar::F16, 128 * 16)),
            Arg::Float(alpha),
        ],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let got = out.buffers[2].as_ref().unwrap().to_f64();
    for r in 0..128 {
        for c in 0..16 {
            assert_eq!(got[16 * r + c], alpha * tcgen05_c(&a, &gb, r, c), "C[{r}][{c}]");
        }
    }
}

fn gemm_sm90a_case(m: usize, n: usize, k: usize) {
    gemm_case("gemm_sm90a", Grid::ColsOnX, m, n, k);
}

#[test]
fn gemm_sm90a_ragged_sizes() {
    // Edges in M and N (partial 128-tiles) and a K of one full and one partial 64-tile.
    gemm_sm90a_case(144, 208, 80);
    // K smaller than one tile, a single partial CTA.
    gemm_sm90a_case(16, 48, 32);
}

#[test]
fn gemm_sm90a_refuses_a_launch_breaking_its_preconditions() {
    // The kernel's tensor maps require M % 16 == 0 (global strides and boxes): M = 100 must not run.
    let (m, n, k) = (100usize, 48usize, 32usize);
    let context = axe_dialect::create_context().expect("context");
    let module = lower(&context, &source("examples/gemm_sm90a.mlir"), "gemm_sm90a.mlir").expect("lowers");
    let args = vec![
        Arg::Buffer(Buffer::zeros(Scalar::F16, m * k)),
        Arg::Buffer(Buffer::zeros(Scalar::F16, k * n)),
        Arg::Buffer(Buffer::zeros(Scalar::F16, m * n)),
        Arg::Int(m as i64),
        Arg::Int(n as i64),
        Arg::Int(k as i64),
    ];
    let launch = Launch { kernel: "gemm_sm90a".into(), block_id: [0, 0, 0], grid: [1, 1, 1], args };
    let Err(error) = run(&module, &launch) else { panic!("a launch with M = 100 must be refused") };
    let error = error.to_string();
    assert!(error.contains("precondition"), "{error}");
}

// ---- elect.sync (PTX ISA, "elect.sync"): one lane per warp, the whole membermask must execute it ----

/// A 64-thread kernel writing `out[tid] = elect.sync(...)`, the election under `guard` (an i1 of %tid).
fn elect_source(guard: &str) -> String {
    format!(
        r#"module attributes {{gpu.container_module}} {{
  gpu.module @m {{
    gpu.func @elect(%out: memref<64xi32>) kernel attributes {{known_block_size = array<i32: 64, 1, 1>}} {{
      %tid = gpu.thread_id x
      %c16 = arith.constant 16 : index
      %zero = arith.constant 0 : i32
      memref.store %zero, %out[%tid] : memref<64xi32>
      %guard = {guard}
      scf.if %guard {{
        %e = nvvm.elect.sync -> i1
        %v = arith.extui %e : i1 to i32
        memref.store %v, %out[%tid] : memref<64xi32>
      }}
      gpu.return
    }}
  }}
}}"#
    )
}

#[test]
fn elect_sync_elects_one_lane_of_each_converged_warp() {
    let text = elect_source("arith.cmpi uge, %tid, %c16 : index");
    // Warp 0 runs it with lanes 0..16 inactive: the full membermask is not all there, which hangs.
    let e = simulate(&text, "elect", [0, 0, 0], vec![Arg::Buffer(Buffer::zeros(Scalar::I(32), 64))]).unwrap_err();
    assert!(e.message.contains("lane 0 of warp 0 is in membermask 0xffffffff but does not execute it"), "{e}");
    // Both warps converged: lane 0 of each is elected (the hardware's choice; the ISA only says one lane).
    let text = elect_source("arith.constant true");
    let out = simulate(&text, "elect", [0, 0, 0], vec![Arg::Buffer(Buffer::zeros(Scalar::I(32), 64))])
        .unwrap_or_else(|e| panic!("{e}"));
    let elected = out.buffers[0].as_ref().unwrap().to_f64();
    let expected: Vec<f64> = (0..64).map(|t| if t % 32 == 0 { 1.0 } else { 0.0 }).collect();
    assert_eq!(elected, expected);
}

// ---- warps ordered by mbarriers alone (no CTA barrier between the rounds) ----

/// A 64-thread kernel, warp 1 producing into a shared buffer and warp 0 consuming it, in two rounds ordered only
/// by a `full` and an `empty` mbarrier (32 arrivals each, initialized by thread 0, fenced, then one CTA
/// barrier): round r's values `tid + 100 r` of warp 1 land in `out[32 r + lane]`.
fn handoff_source() -> String {
    let group = "<memorySpace = #gpu.address_space<workgroup>>";
    let smem = "memref<32xi32, #gpu.address_space<workgroup>>";
    format!(
        r#"module attributes {{gpu.container_module}} {{
  gpu.module @m {{
    memref.global "private" @buf : {smem} {{alignment = 16 : i64}}
    gpu.func @handoff(%out: memref<64xi32>) kernel attributes {{known_block_size = array<i32: 64, 1, 1>}} {{
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %c100 = arith.constant 100 : i32
      %spin = arith.constant 10000000 : index
      %false = arith.constant false
      %true = arith.constant true
      %tid = gpu.thread_id x
      %buf = memref.get_global @buf : {smem}
      %full = nvgpu.mbarrier.create -> {group}
      %empty = nvgpu.mbarrier.create -> {group}
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {{
        nvgpu.mbarrier.init %full[%c0], %c32 : {group}
        nvgpu.mbarrier.init %empty[%c0], %c32 : {group}
        nvvm.fence.mbarrier.init
      }}
      gpu.barrier
      %producer = arith.cmpi uge, %tid, %c32 : index
      %consumer = arith.cmpi ult, %tid, %c32 : index
      %lane = arith.remui %tid, %c32 : index
      %v0 = arith.index_cast %tid : index to i32
      %v1 = arith.addi %v0, %c100 : i32
      %o1 = arith.addi %lane, %c32 : index
      scf.if %producer {{
        memref.store %v0, %buf[%lane] : {smem}
        %t = nvgpu.mbarrier.arrive %full[%c0] : {group} -> !nvgpu.mbarrier.token
      }}
      scf.if %consumer {{
        nvgpu.mbarrier.try_wait.parity %full[%c0], %false, %spin : {group}
        %x = memref.load %buf[%lane] : {smem}
        memref.store %x, %out[%lane] : memref<64xi32>
        %t = nvgpu.mbarrier.arrive %empty[%c0] : {group} -> !nvgpu.mbarrier.token
      }}
      scf.if %producer {{
        nvgpu.mbarrier.try_wait.parity %empty[%c0], %false, %spin : {group}
        memref.store %v1, %buf[%lane] : {smem}
        %t = nvgpu.mbarrier.arrive %full[%c0] : {group} -> !nvgpu.mbarrier.token
      }}
      scf.if %consumer {{
        nvgpu.mbarrier.try_wait.parity %full[%c0], %true, %spin : {group}
        %x = memref.load %buf[%lane] : {smem}
        memref.store %x, %out[%o1] : memref<64xi32>
      }}
      gpu.return
    }}
  }}
}}"#
    )
}

#[test]
fn mbarriers_alone_order_a_producer_warp_and_a_consumer_warp() {
    let run = |text: &str| simulate(text, "handoff", [0, 0, 0], vec![Arg::Buffer(Buffer::zeros(Scalar::I(32), 64))]);
    let text = handoff_source();
    let out = run(&text).unwrap_or_else(|e| panic!("{e}"));
    let expected: Vec<f64> = (0..64).map(|i| if i < 32 { 32.0 + i as f64 } else { 100.0 + i as f64 }).collect();
    assert_eq!(out.buffers[0].as_ref().unwrap().to_f64(), expected);
    // Without the consumer's first wait, its read of warp 1's writes is ordered by nothing.
    let wait = "nvgpu.mbarrier.try_wait.parity %full[%c0], %false";
    let lines: String = text.lines().filter(|l| !l.contains(wait)).map(|l| format!("{l}\n")).collect();
    let e = run(&lines).unwrap_err();
    assert!(e.message.contains("a read-after-write race (no CTA barrier or mbarrier wait"), "{e}");
    assert!(e.message.contains("which thread 32 wrote at kernel.mlir:"), "{e}");
    // Without the producer's wait on `empty`, its second round overwrites what warp 0 read.
    let wait = "nvgpu.mbarrier.try_wait.parity %empty";
    let lines: String = text.lines().filter(|l| !l.contains(wait)).map(|l| format!("{l}\n")).collect();
    let e = run(&lines).unwrap_err();
    assert!(e.message.contains("write of shared byte") && e.message.contains("a write-after-read race"), "{e}");
    assert!(e.message.contains("which warp 0 read at kernel.mlir:"), "{e}");
    // With `empty` initialized by thread 0 but waited on before any CTA barrier: not visible to warp 1.
    let text = text.replacen("      gpu.barrier\n", "", 1);
    let e = run(&text).unwrap_err();
    assert!(e.message.contains("missing barrier after mbarrier init"), "{e}");
}
