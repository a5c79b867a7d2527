// Barrier protocols --axe-check-barriers refuses (and --lower-tma, which runs the same check before rewriting).
// Each error is at the op, names the rule (init, phase, tx-bytes) and the numbers.
// RUN: axe-opt %s --split-input-file --axe-check-barriers --verify-diagnostics
// RUN: not axe-opt %s --split-input-file --lower-tma -o %t.out 2>&1 | FileCheck %s --check-prefix=TMA
// TMA: error: barrier: init rule: axe.copy_async uses a barrier that no axe.mbarrier_init initializes
// TMA: error: barrier: tx-bytes rule: axe.mbarrier_arrive_expect_tx expects 8192 bytes but the 1 copy it announces delivers 16384 bytes

// The load arrives on a barrier nobody initialized (mbarrier.arrive on garbage on the GPU).
!m = memref<128x64xf16>
!g = !axe.tensor<128x64xf16, global, S[(128,64):(64,1)]>
!s = !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
gpu.module @k {
  gpu.func @never_initialized(%m: !m) kernel {
    %g = axe.view %m : !m -> !g
    %s = axe.alloc cta : !s
    %bar = axe.mbarrier_alloc cta : !axe.mbarrier
    // expected-error @+1 {{barrier: init rule: axe.copy_async uses a barrier that no axe.mbarrier_init initializes; initialize it after its axe.mbarrier_alloc, before any use}}
    axe.copy_async cta %g to %s, %bar : !g to !s, !axe.mbarrier
    %phase = arith.constant false
    // expected-error @+1 {{barrier: init rule: axe.mbarrier_wait uses a barrier that no axe.mbarrier_init}}
    axe.mbarrier_wait cta %bar, %phase : !axe.mbarrier
    gpu.return
  }
}

// -----

// Used before its init in straight-line code.
func.func @init_too_late() {
  %bar = axe.mbarrier_alloc cta : !axe.mbarrier
  // expected-error @+1 {{barrier: init rule: axe.mbarrier_arrive uses a barrier that is not initialized on every path to it (its 1 axe.mbarrier_init is later, in a branch not taken on some path, or in a loop that may not run)}}
  axe.mbarrier_arrive cta %bar : !axe.mbarrier
  axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
  return
}

// -----

// Initialized in one branch only: the path through the other reaches the arrive uninitialized.
func.func @init_in_one_branch(%c: i1) {
  %bar = axe.mbarrier_alloc cta : !axe.mbarrier
  scf.if %c {
    axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
  }
  // expected-error @+2 {{barrier: init rule: axe.mbarrier_arrive_expect_tx uses a barrier that is not initialized on every path to it (its 1 axe.mbarrier_init is}}
  // expected-error @+1 {{barrier: tx-bytes rule: axe.mbarrier_arrive_expect_tx expects 16 bytes but no copy on the barrier follows it}}
  axe.mbarrier_arrive_expect_tx cta %bar bytes 16 : !axe.mbarrier
  return
}

// -----

// Initialized in a loop that may run zero times and in an scf.if whose else does nothing: neither init is on
// every path to the arrive.
func.func @init_in_a_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bar = axe.mbarrier_alloc cta : !axe.mbarrier
  // The loop may run zero times.
  scf.for %i = %c0 to %n step %c1 {
    axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
  }
  %true = arith.constant true
  scf.if %true {
    axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
  } else {
  }
  // expected-error @+1 {{barrier: init rule: axe.mbarrier_arrive uses a barrier that is not initialized on every path to it (its 2 axe.mbarrier_init are}}
  axe.mbarrier_arrive cta %bar : !axe.mbarrier
  return
}

// -----

// Parity 0 of a barrier nothing ever arrives on.
func.func @nothing_arrives() {
  %bar = axe.mbarrier_alloc cta : !axe.mbarrier
  axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
  %phase = arith.constant false
  // expected-error @+1 {{barrier: phase rule: axe.mbarrier_wait waits for parity 0 (the barrier's first phase) but no arrival can come before it: nothing arrives on the barrier; the wait never returns}}
  axe.mbarrier_wait cta %bar, %phase : !axe.mbarrier
  return
}

// -----

// The wait comes before the load in the same block: every thread that would issue it waits first.
!m = memref<128x64xf16>
!g = !axe.tensor<128x64xf16, global, S[(128,64):(64,1)]>
!s = !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
gpu.module @k {
  gpu.func @wait_before_copy(%m: !m) kernel {
    %g = axe.view %m : !m -> !g
    %s = axe.alloc cta : !s
    %bar = axe.mbarrier_alloc cta : !axe.mbarrier
    axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
    %phase = arith.constant false
    // expected-error @+1 {{barrier: phase rule: axe.mbarrier_wait waits for parity 0 (the barrier's first phase) but no arrival can come before it: its 1 arrival follows the wait in the same block; the wait never returns}}
    axe.mbarrier_wait cta %bar, %phase : !axe.mbarrier
    axe.copy_async cta %g to %s, %bar : !g to !s, !axe.mbarrier
    gpu.return
  }
}

// -----

// In a loop whose parity starts at 0, the first iteration waits before anything arrives.
func.func @loop_parity_starts_at_zero(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %false = arith.constant false
  %true = arith.constant true
  %bar = axe.mbarrier_alloc cta : !axe.mbarrier
  axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
  %last = scf.for %i = %c0 to %n step %c1 iter_args(%p = %false) -> (i1) {
    // expected-error @+1 {{barrier: phase rule: axe.mbarrier_wait waits for parity 0 (the barrier's first phase) but no arrival can come before it: all 2 of its arrivals follow the wait in the same block}}
    axe.mbarrier_wait cta %bar, %p : !axe.mbarrier
    axe.mbarrier_arrive cta %bar : !axe.mbarrier
    axe.mbarrier_arrive cta %bar : !axe.mbarrier
    %next = arith.xori %p, %true : i1
    scf.yield %next : i1
  }
  return
}

// -----

// expect_tx announces half of what the load delivers (a 128x64 f16 box is 16384 bytes).
!m = memref<128x64xf16>
!g = !axe.tensor<128x64xf16, global, S[(128,64):(64,1)]>
!s = !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
gpu.module @k {
  gpu.func @too_few_bytes(%m: !m) kernel {
    %g = axe.view %m : !m -> !g
    %s = axe.alloc cta : !s
    %bar = axe.mbarrier_alloc cta : !axe.mbarrier
    axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
    // expected-error @+1 {{barrier: tx-bytes rule: axe.mbarrier_arrive_expect_tx expects 8192 bytes but the 1 copy it announces delivers 16384 bytes (the TMA plans' total); the phase completes early}}
    axe.mbarrier_arrive_expect_tx cta %bar bytes 8192 : !axe.mbarrier
    axe.copy_async cta %g to %s, %bar : !g to !s, !axe.mbarrier
    %phase = arith.constant false
    axe.mbarrier_wait cta %bar, %phase : !axe.mbarrier
    gpu.return
  }
}

// -----

// Two loads of 64x64 halves, 8192 bytes each (rows 0..64 and 64..128 into two tiles), announced as one.
!m = memref<128x64xf16>
!g = !axe.tensor<128x64xf16, global, S[(128,64):(64,1)]>
!gr = !axe.tensor<64x64xf16, global>
!s = !axe.tensor<64x64xf16, shared, Swizzle(3,3,3) o S[(64,64):(64,1)]>
gpu.module @k {
  gpu.func @two_copies_one_counted(%m: !m) kernel {
    %g = axe.view %m : !m -> !g
    %top = axe.slice %g[0, 0] [64, 64] : !g to !gr
    %bottom = axe.slice %g[64, 0] [64, 64] : !g to !gr
    %s0 = axe.alloc cta : !s
    %s1 = axe.alloc cta : !s
    %bar = axe.mbarrier_alloc cta : !axe.mbarrier
    axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
    // expected-error @+1 {{barrier: tx-bytes rule: axe.mbarrier_arrive_expect_tx expects 8192 bytes but the 2 copies it announces deliver 16384 bytes}}
    axe.mbarrier_arrive_expect_tx cta %bar bytes 8192 : !axe.mbarrier
    axe.copy_async cta %top to %s0, %bar : !gr to !s, !axe.mbarrier
    axe.copy_async cta %bottom to %s1, %bar : !gr to !s, !axe.mbarrier
    %phase = arith.constant false
    axe.mbarrier_wait cta %bar, %phase : !axe.mbarrier
    gpu.return
  }
}

// -----

// The load comes after the wait, so it is not what the expect_tx announced: the phase waits for bytes that
// never come (and the load then arrives on the next phase by itself).
!m = memref<128x64xf16>
!g = !axe.tensor<128x64xf16, global, S[(128,64):(64,1)]>
!s = !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
gpu.module @k {
  gpu.func @announced_nothing(%m: !m) kernel {
    %g = axe.view %m : !m -> !g
    %s = axe.alloc cta : !s
    %bar = axe.mbarrier_alloc cta : !axe.mbarrier
    axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
    // expected-error @+1 {{barrier: tx-bytes rule: axe.mbarrier_arrive_expect_tx expects 16384 bytes but no copy on the barrier follows it (before the next wait on it in its block), so 0 bytes arrive (the TMA plans' total); the phase never completes}}
    axe.mbarrier_arrive_expect_tx cta %bar bytes 16384 : !axe.mbarrier
    %phase = arith.constant false
    axe.mbarrier_wait cta %bar, %phase : !axe.mbarrier
    axe.copy_async cta %g to %s, %bar : !g to !s, !axe.mbarrier
    %next = arith.constant true
    axe.mbarrier_wait cta %bar, %next : !axe.mbarrier
    gpu.return
  }
}
