//! Named barriers between roles (`axe.sync cta(warpid[a:b])`, lowered by `--lower-copy` to `bar.sync id, count`):
//! a pair of warps exchanges data through shared memory, synchronizing only themselves, while a third warp waits
//! on an mbarrier the pair arrives on after its exchange. A CTA barrier there would hang (the third warp never
//! reaches it before the pair's arrival); the named barrier does not. Run through `axe_sim::lower` (roles, then
//! the copy pass's barrier) under every schedule against the values computed here; mutants must fail.

use axe_sim::{lower, run_with, Arg, Buffer, Completion, Launch, Scalar, Schedule, WarpOrder};

/// Warps 0-1: thread t writes `10 t` to `tile[t]`, synchronizes with the other warp of the pair, reads the other
/// warp's `tile[63 - t]` into `out[t]` and arrives on the barrier. Warp 2: waits for the pair's 64 arrivals, then
/// thread t writes `tile[t - 64] + 1000` to `out[t]`.
const PAIR: &str = r#"
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_90a"} {
    memref.global "private" @tile : memref<64xi32, #gpu.address_space<workgroup>>
    gpu.func @pair(%out: memref<96xi32>) kernel attributes {known_block_size = array<i32: 96, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c63 = arith.constant 63 : index
      %c64 = arith.constant 64 : index
      %ten = arith.constant 10 : i32
      %thousand = arith.constant 1000 : i32
      %false = arith.constant false
      %ticks = arith.constant 10000000 : index
      %tile = memref.get_global @tile : memref<64xi32, #gpu.address_space<workgroup>>
      %bar = nvgpu.mbarrier.create -> !bar
      %tid = gpu.thread_id x
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        nvgpu.mbarrier.init %bar[%c0], %c64 : !bar
        nvvm.fence.mbarrier.init
      }
      gpu.barrier
      axe.roles {
        axe.role warpid[0:2] {
          %t32 = arith.index_castui %tid : index to i32
          %mine = arith.muli %t32, %ten : i32
          memref.store %mine, %tile[%tid] : memref<64xi32, #gpu.address_space<workgroup>>
          axe.sync cta(warpid[0:2])
          %other = arith.subi %c63, %tid : index
          %v = memref.load %tile[%other] : memref<64xi32, #gpu.address_space<workgroup>>
          memref.store %v, %out[%tid] : memref<96xi32>
          %token = nvgpu.mbarrier.arrive %bar[%c0] : !bar -> !nvgpu.mbarrier.token
        }
        axe.role warpid[2:3] {
          nvgpu.mbarrier.try_wait.parity %bar[%c0], %false, %ticks : !bar
          %i = arith.subi %tid, %c64 : index
          %v = memref.load %tile[%i] : memref<64xi32, #gpu.address_space<workgroup>>
          %w = arith.addi %v, %thousand : i32
          memref.store %w, %out[%tid] : memref<96xi32>
        }
      }
      gpu.return
    }
  }
}
"#;

fn schedules() -> Vec<Schedule> {
    let mut all = Schedule::all();
    for seed in [3, 5, 13, 17] {
        all.push(Schedule { completion: Completion::Lazy, warps: WarpOrder::Shuffled(seed) });
    }
    all
}

/// `text` lowered (unless `lowered`) and run under `schedule`: `out`, or the error.
fn pair(text: &str, lowered: bool, schedule: &Schedule) -> Result<Vec<f64>, String> {
    let context = axe_dialect::create_context().expect("context");
    let module = if lowered {
        axe_dialect::parse_module(&context, text, "pair.lowered.mlir").expect("parses")
    } else {
        lower(&context, text, "pair.mlir")?
    };
    let out = Buffer::from_f64(Scalar::I(32), &[-1.0; 96]);
    let launch = Launch { kernel: "pair".into(), block_id: [0; 3], grid: [1, 1, 1], args: vec![Arg::Buffer(out)] };
    let done = run_with(&module, &launch, schedule).map_err(|e| e.to_string())?;
    Ok(done.buffers[0].as_ref().expect("out").to_f64())
}

fn lowered_text() -> String {
    let context = axe_dialect::create_context().expect("context");
    let module = lower(&context, PAIR, "pair.mlir").expect("lowers");
    let text = module.as_operation().to_string();
    text
}

/// Every schedule fails on `text` with an error holding one of `expected`.
fn caught(text: &str, lowered: bool, expected: &[&str]) {
    for schedule in schedules() {
        match pair(text, lowered, &schedule) {
            Ok(_) => panic!("{schedule:?}: the mutant computes the right values"),
            Err(e) => {
                assert!(expected.iter().any(|x| e.contains(x)), "{schedule:?}: expected one of {expected:?}:\n{e}")
            }
        }
    }
}

#[test]
fn a_pair_of_warps_synchronizes_alone_while_a_third_waits_for_it() {
    for schedule in schedules() {
        let out = pair(PAIR, false, &schedule).unwrap_or_else(|e| panic!("{schedule:?}: {e}"));
        for (t, got) in out.iter().enumerate() {
            let want = if t < 64 { 10 * (63 - t) } else { 10 * (t - 64) + 1000 };
            assert_eq!(*got, want as f64, "{schedule:?}: out[{t}]");
        }
    }
}

#[test]
fn the_pair_gets_the_first_id_after_the_warpgroups_and_counts_its_64_threads() {
    // 96 threads: one warpgroup (id 1), so the first range of warps takes id 2.
    let text = lowered_text();
    let barriers: Vec<&str> = text.lines().filter(|l| l.contains("nvvm.barrier id")).collect();
    assert_eq!(barriers.len(), 1, "{text}");
    assert!(barriers[0].contains("id = %c2_i32 number_of_threads = %c64_i32"), "{}", barriers[0]);
}

#[test]
fn without_the_named_barrier_the_pair_reads_bytes_the_other_warp_writes() {
    let text = PAIR.replacen("          axe.sync cta(warpid[0:2])\n", "", 1);
    caught(&text, false, &["race", "not observed written", "before it was written"]);
}

#[test]
fn a_cta_barrier_in_one_role_hangs() {
    // Warp 2 waits for the pair's arrivals, which come after the barrier it never reaches.
    let text = PAIR.replacen("axe.sync cta(warpid[0:2])", "axe.sync cta", 1);
    caught(&text, false, &["reached by only part of the CTA", "deadlock"]);
}

#[test]
fn a_named_barrier_counting_the_third_warp_deadlocks() {
    // Counting 96 threads, the pair waits for warp 2, which waits for the pair: a deadlock naming both waits.
    let text = lowered_text();
    let count = "arith.constant 64 : i32";
    assert_eq!(text.matches(count).count(), 1, "the count appears once in the lowered kernel");
    let text = text.replacen(count, "arith.constant 96 : i32", 1);
    caught(&text, true, &["bar.sync 2, 96: 64 of 96 threads arrived"]);
}
