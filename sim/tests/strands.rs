//! Warps that do different things at once: a producer warp fills a two-stage ring in shared memory while two
//! consumer warps drain it, each side waiting on mbarriers the other completes ("full" per stage: the producer's
//! 32 lanes arrive after writing; "empty" per stage: the consumers' 64 threads arrive after reading). A lockstep
//! interpreter that runs one side of the branch to its end first cannot run this: the producer's wait for a
//! stage the consumers have not released yet never succeeds. Strands run both sides; the result is checked
//! against the sum computed here, and mutants of the protocol must fail.

use axe_sim::{run_with, Arg, Buffer, Completion, Launch, Scalar, Schedule, WarpOrder};

/// The ring kernel: `out[c] = sum over i < n of ring value (100 i + c)`, consumer thread c = tid - 32.
const RING: &str = r#"
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    memref.global "private" @stages : memref<2x64xi32, #gpu.address_space<workgroup>>
    gpu.func @ring(%out: memref<64xi32>, %n: i32) kernel attributes {known_block_size = array<i32: 96, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c100 = arith.constant 100 : i32
      %zero = arith.constant 0 : i32
      %true = arith.constant true
      %ticks = arith.constant 10000000 : index
      %ring = memref.get_global @stages : memref<2x64xi32, #gpu.address_space<workgroup>>
      %full = nvgpu.mbarrier.create -> !bars
      %empty = nvgpu.mbarrier.create -> !bars
      %tid = gpu.thread_id x
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        nvgpu.mbarrier.init %full[%c0], %c32 : !bars
        nvgpu.mbarrier.init %full[%c1], %c32 : !bars
        nvgpu.mbarrier.init %empty[%c0], %c64 : !bars
        nvgpu.mbarrier.init %empty[%c1], %c64 : !bars
        nvvm.fence.mbarrier.init
      }
      gpu.barrier
      %n_index = arith.index_castui %n : i32 to index
      %producer = arith.cmpi ult, %tid, %c32 : index
      scf.if %producer {
        scf.for %i = %c0 to %n_index step %c1 {
          %s = arith.remui %i, %c2 : index
          %round = arith.divui %i, %c2 : index
          %round64 = arith.index_castui %round : index to i64
          %odd = arith.trunci %round64 : i64 to i1
          %free = arith.xori %odd, %true : i1
          nvgpu.mbarrier.try_wait.parity %empty[%s], %free, %ticks : !bars
          %i32 = arith.index_castui %i : index to i32
          %base = arith.muli %i32, %c100 : i32
          %lane = arith.index_castui %tid : index to i32
          %v0 = arith.addi %base, %lane : i32
          %c32i = arith.constant 32 : i32
          %v1 = arith.addi %v0, %c32i : i32
          %hi = arith.addi %tid, %c32 : index
          memref.store %v0, %ring[%s, %tid] : memref<2x64xi32, #gpu.address_space<workgroup>>
          memref.store %v1, %ring[%s, %hi] : memref<2x64xi32, #gpu.address_space<workgroup>>
          %t = nvgpu.mbarrier.arrive %full[%s] : !bars -> !nvgpu.mbarrier.token
        }
      } else {
        %c = arith.subi %tid, %c32 : index
        %sum = scf.for %i = %c0 to %n_index step %c1 iter_args(%acc = %zero) -> (i32) {
          %s = arith.remui %i, %c2 : index
          %round = arith.divui %i, %c2 : index
          %round64 = arith.index_castui %round : index to i64
          %odd = arith.trunci %round64 : i64 to i1
          nvgpu.mbarrier.try_wait.parity %full[%s], %odd, %ticks : !bars
          %v = memref.load %ring[%s, %c] : memref<2x64xi32, #gpu.address_space<workgroup>>
          %t = nvgpu.mbarrier.arrive %empty[%s] : !bars -> !nvgpu.mbarrier.token
          %next = arith.addi %acc, %v : i32
          scf.yield %next : i32
        }
        memref.store %sum, %out[%c] : memref<64xi32>
      }
      gpu.return
    }
  }
}
"#;

/// Every schedule the kernel tests use, and more seeded interleavings of the strands.
fn schedules() -> Vec<Schedule> {
    let mut all = Schedule::all();
    for seed in [3, 5, 13, 17, 19, 23] {
        all.push(Schedule { completion: Completion::Lazy, warps: WarpOrder::Shuffled(seed) });
    }
    all
}

/// Runs kernel `kernel` of `text` (arguments: an i32 buffer of `outputs` elements, then `n`) under `schedule`: the
/// buffer, or the error.
fn run_kernel(text: &str, kernel: &str, outputs: usize, n: i64, schedule: &Schedule) -> Result<Vec<f64>, String> {
    let context = axe_dialect::create_context().expect("context");
    let module = axe_dialect::parse_module(&context, text, &format!("{kernel}.mlir")).expect("the kernel parses");
    let args = vec![Arg::Buffer(Buffer::from_f64(Scalar::I(32), &vec![-1.0; outputs])), Arg::Int(n)];
    let launch = Launch { kernel: kernel.into(), block_id: [0; 3], grid: [1, 1, 1], args };
    let done = run_with(&module, &launch, schedule).map_err(|e| e.to_string())?;
    Ok(done.buffers[0].as_ref().expect("out").to_f64())
}

/// Runs `text`'s ring kernel for `n` items under `schedule`: `out`, or the error.
fn ring(text: &str, n: i64, schedule: &Schedule) -> Result<Vec<f64>, String> {
    run_kernel(text, "ring", 64, n, schedule)
}

#[test]
fn producer_and_consumer_warps_run_concurrently_over_phase_wraparound() {
    // n = 1 (one round), 2 (each stage once), 5 (stage 0 three times: the parities wrap twice).
    for n in [1, 2, 5] {
        for schedule in schedules() {
            let out = ring(RING, n, &schedule).unwrap_or_else(|e| panic!("n = {n}, {schedule:?}: {e}"));
            for (c, got) in out.iter().enumerate() {
                let want = (0..n).map(|i| 100 * i + c as i64).sum::<i64>() as f64;
                assert_eq!(*got, want, "n = {n}, {schedule:?}: out[{c}]");
            }
        }
    }
}

/// `RING` with `from` replaced by `to` (which must occur in it once).
fn mutant(from: &str, to: &str) -> String {
    assert_eq!(RING.matches(from).count(), 1, "{from:?} must occur once in the kernel");
    RING.replacen(from, to, 1)
}

/// Every schedule fails on the mutant with an error containing one of `expected` (which rule a broken protocol
/// breaks first depends on the interleaving, as on the hardware); returns the errors.
fn caught(text: &str, expected: &[&str]) -> Vec<String> {
    let mut errors = Vec::new();
    for schedule in schedules() {
        match ring(text, 5, &schedule) {
            Ok(_) => panic!("{schedule:?}: the mutant computes the sums"),
            Err(e) => {
                assert!(expected.iter().any(|x| e.contains(x)), "{schedule:?}: expected one of {expected:?} in:\n{e}");
                errors.push(e);
            }
        }
    }
    errors
}

#[test]
fn a_missing_consumer_release_is_a_deadlock_naming_both_sides() {
    // The producer waits for stage 0's second round forever; the consumers wait for its data.
    let text = mutant("%t = nvgpu.mbarrier.arrive %empty[%s] : !bars -> !nvgpu.mbarrier.token\n", "");
    for e in caught(&text, &["no other strand can go on"]) {
        // Both sides are named with their waits: the producer on an "empty" barrier (at 528 and 536, after the
        // two "full" ones at 512 and 520) and the consumers on a "full" one.
        assert!(e.contains("deadlock: try_wait.parity") && e.contains("warp 0") && e.contains("warps 1-2"), "{e}");
        assert!(e.contains("on mbarrier 528") && e.contains("on mbarrier 512"), "{e}");
    }
}

#[test]
fn a_consumer_waiting_on_the_wrong_parity_reads_the_stage_too_early() {
    // Waiting for parity 1 first passes at once (the phase before phase 0 counts as complete): the consumers read
    // stage 0 with no order against the producer's write (a race either way round), or, when the producer has already
    // completed phase 0, wait for phase 1, which the producer completes only after the consumers release stage 0:
    // a deadlock. Which one depends on the interleaving, as on the hardware.
    let text = mutant(
        "nvgpu.mbarrier.try_wait.parity %full[%s], %odd, %ticks",
        "%wrong = arith.xori %odd, %true : i1\n          nvgpu.mbarrier.try_wait.parity %full[%s], %wrong, %ticks",
    );
    let errors = caught(&text, &["read-after-write race", "write-after-read race", "deadlock: try_wait.parity"]);
    assert!(errors.iter().any(|e| e.contains("race")) && errors.iter().any(|e| e.contains("deadlock")));
}

#[test]
fn a_producer_that_does_not_wait_for_a_free_stage_overwrites_it() {
    // The producer refills stage 0 over the consumers' reads (a race), completes a "full" phase while a consumer's
    // wait for the one before is unordered with it (a phase overrun), or, run ahead by five rounds, completes the
    // phases the consumers wait for before they wait: stage 1's second phase is then never completed again.
    let text = mutant("nvgpu.mbarrier.try_wait.parity %empty[%s], %free, %ticks : !bars\n", "");
    let errors = caught(&text, &["write-after-read race", "phase overrun", "deadlock: try_wait.parity"]);
    assert!(errors.iter().any(|e| e.contains("race")) && errors.iter().any(|e| e.contains("deadlock")));
}

/// A loop over each warp's share of the items (`i = warp, warp + 3, ...`): its bounds differ between warps, so the
/// warps run it as separate strands (three trip counts for n = 7: 3, 2, 2; none for warps past n). Each thread
/// sums its items, the sums meet in shared memory after a CTA barrier, and lane c of warp 0 adds the three:
/// `out[c] = sum over i < n of (100 i + c)`.
const STRIDED: &str = r#"
module attributes {gpu.container_module} {
  gpu.module @kernels {
    memref.global "private" @partial : memref<96xi32, #gpu.address_space<workgroup>>
    gpu.func @strided(%out: memref<32xi32>, %n: i32) kernel attributes {known_block_size = array<i32: 96, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c3 = arith.constant 3 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c100 = arith.constant 100 : i32
      %zero = arith.constant 0 : i32
      %partial = memref.get_global @partial : memref<96xi32, #gpu.address_space<workgroup>>
      %tid = gpu.thread_id x
      %warp = arith.divui %tid, %c32 : index
      %lane = arith.remui %tid, %c32 : index
      %lane32 = arith.index_castui %lane : index to i32
      %n_index = arith.index_castui %n : i32 to index
      %sum = scf.for %i = %warp to %n_index step %c3 iter_args(%acc = %zero) -> (i32) {
        %i32 = arith.index_castui %i : index to i32
        %base = arith.muli %i32, %c100 : i32
        %v = arith.addi %base, %lane32 : i32
        %next = arith.addi %acc, %v : i32
        scf.yield %next : i32
      }
      memref.store %sum, %partial[%tid] : memref<96xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      %first = arith.cmpi ult, %tid, %c32 : index
      scf.if %first {
        %hi = arith.addi %tid, %c32 : index
        %hi2 = arith.addi %tid, %c64 : index
        %a = memref.load %partial[%tid] : memref<96xi32, #gpu.address_space<workgroup>>
        %b = memref.load %partial[%hi] : memref<96xi32, #gpu.address_space<workgroup>>
        %c = memref.load %partial[%hi2] : memref<96xi32, #gpu.address_space<workgroup>>
        %ab = arith.addi %a, %b : i32
        %abc = arith.addi %ab, %c : i32
        memref.store %abc, %out[%tid] : memref<32xi32>
      }
      gpu.return
    }
  }
}
"#;

/// Runs `text`'s strided kernel for `n` items under `schedule`: `out`, or the error.
fn strided(text: &str, n: i64, schedule: &Schedule) -> Result<Vec<f64>, String> {
    run_kernel(text, "strided", 32, n, schedule)
}

#[test]
fn a_loop_whose_bounds_differ_between_warps_runs_each_warps_trips() {
    for n in [1, 2, 7] {
        for schedule in schedules() {
            let out = strided(STRIDED, n, &schedule).unwrap_or_else(|e| panic!("n = {n}, {schedule:?}: {e}"));
            for (c, got) in out.iter().enumerate() {
                let want = (0..n).map(|i| 100 * i + c as i64).sum::<i64>() as f64;
                assert_eq!(*got, want, "n = {n}, {schedule:?}: out[{c}]");
            }
        }
    }
}

#[test]
fn the_warps_partial_sums_read_without_the_barrier_race() {
    // Without the CTA barrier warp 0 reads the other warps' partial sums with nothing ordering their writes first.
    let text = STRIDED.replacen("      gpu.barrier\n", "", 1);
    assert_ne!(text, STRIDED);
    for schedule in schedules() {
        let error = strided(&text, 7, &schedule).err();
        let error = error.unwrap_or_else(|| panic!("{schedule:?}: the mutant computes the sums"));
        assert!(error.contains("race"), "{schedule:?}: {error}");
    }
}
