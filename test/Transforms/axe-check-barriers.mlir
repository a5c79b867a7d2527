// Barrier protocols --axe-check-barriers accepts (it changes nothing), and what --lower-tma makes of a load
// whose bytes an explicit axe.mbarrier_arrive_expect_tx announces.
// RUN: axe-opt %s --split-input-file --axe-check-barriers | FileCheck %s
// RUN: axe-opt %s --split-input-file --lower-tma | FileCheck %s --check-prefix=TMA

// Initialized in both branches: initialized after the scf.if.
// CHECK-LABEL: func.func @init_in_both_branches
// CHECK: scf.if
// CHECK: axe.mbarrier_init cta
// CHECK: } else {
// CHECK: axe.mbarrier_init cta
// CHECK: axe.mbarrier_arrive cta
func.func @init_in_both_branches(%c: i1) {
  %bar = axe.mbarrier_alloc cta : !axe.mbarrier
  scf.if %c {
    axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
  } else {
    axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
  }
  axe.mbarrier_arrive cta %bar : !axe.mbarrier
  %phase = arith.constant false
  axe.mbarrier_wait cta %bar, %phase : !axe.mbarrier
  return
}

// -----

// Parity 1 of a fresh barrier is the phase before the first, complete by definition: a producer's first wait on
// an "empty" barrier returns at once, before anything arrives.
// CHECK-LABEL: func.func @first_wait_on_parity_one
// CHECK: axe.mbarrier_wait cta
// CHECK: axe.mbarrier_arrive cta
func.func @first_wait_on_parity_one() {
  %bar = axe.mbarrier_alloc cta : !axe.mbarrier
  axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
  %phase = arith.constant true
  axe.mbarrier_wait cta %bar, %phase : !axe.mbarrier
  axe.mbarrier_arrive cta %bar : !axe.mbarrier
  return
}

// -----

// Warp specialization: the consumer branch waits for parity 0, the producer branch arrives. Another thread may
// take the other branch, so the arrival can come first.
// CHECK-LABEL: func.func @specialized
// CHECK: axe.mbarrier_arrive cta
// CHECK: } else {
// CHECK: axe.mbarrier_wait cta
func.func @specialized(%producer: i1) {
  %bar = axe.mbarrier_alloc cta : !axe.mbarrier
  axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
  scf.if %producer {
    axe.mbarrier_arrive cta %bar : !axe.mbarrier
  } else {
    %phase = arith.constant false
    axe.mbarrier_wait cta %bar, %phase : !axe.mbarrier
  }
  return
}

// -----

// A wait inside an scf.if, the arrival after it: the threads that skip the branch arrive.
// CHECK-LABEL: func.func @wait_in_a_branch
func.func @wait_in_a_branch(%consumer: i1) {
  %bar = axe.mbarrier_alloc cta : !axe.mbarrier
  axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
  scf.if %consumer {
    %phase = arith.constant false
    axe.mbarrier_wait cta %bar, %phase : !axe.mbarrier
  }
  axe.mbarrier_arrive cta %bar : !axe.mbarrier
  return
}

// -----

// The loop of a pipeline: parity starts at 1 on an "empty" barrier (returns at once), the consumer arrives on
// it later in the body; the next iteration waits for the phase that arrival completed.
// CHECK-LABEL: func.func @loop_parity_starts_at_one
// CHECK: scf.for
func.func @loop_parity_starts_at_one(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %empty = axe.mbarrier_alloc cta : !axe.mbarrier
  axe.mbarrier_init cta %empty count 1 : !axe.mbarrier
  %last = scf.for %i = %c0 to %n step %c1 iter_args(%p = %true) -> (i1) {
    axe.mbarrier_wait cta %empty, %p : !axe.mbarrier
    axe.mbarrier_arrive cta %empty : !axe.mbarrier
    %next = arith.xori %p, %true : i1
    scf.yield %next : i1
  }
  return
}

// -----

// One expect_tx announces both loads of a stage (two 64x64 f16 tiles of 8192 bytes: 16384 bytes), as a GEMM
// stage loads its A and B tiles. --lower-tma emits the announced count once and the loads without an arrival of
// their own (each unannounced load would arrive with its own expect_tx).
!m = memref<128x64xf16>
!g = !axe.tensor<128x64xf16, global, S[(128,64):(64,1)]>
!gr = !axe.tensor<64x64xf16, global>
!s = !axe.tensor<64x64xf16, shared, Swizzle(3,3,3) o S[(64,64):(64,1)]>
// CHECK-LABEL: gpu.func @announced
// CHECK: axe.mbarrier_arrive_expect_tx cta
// CHECK-COUNT-2: axe.copy_async cta
// CHECK-NOT: axe.copy_async
// TMA-LABEL: gpu.func @announced
// TMA: [[BAR:%.+]] = nvgpu.mbarrier.create
// TMA: nvgpu.mbarrier.init [[BAR]]
// TMA: [[BYTES:%.+]] = arith.constant 16384 : index
// TMA-NEXT: scf.if
// TMA-NEXT: nvgpu.mbarrier.arrive.expect_tx [[BAR]][{{.*}}], [[BYTES]]
// TMA-NEXT: }
// TMA-NOT: nvgpu.mbarrier.arrive
// TMA: nvgpu.tma.async.load %{{.+}}, [[BAR]]
// TMA-NOT: nvgpu.mbarrier.arrive
// TMA: nvgpu.tma.async.load %{{.+}}, [[BAR]]
// TMA-NOT: nvgpu.mbarrier.arrive
// TMA: nvgpu.mbarrier.try_wait.parity [[BAR]]
gpu.module @k {
  gpu.func @announced(%m: !m) kernel {
    %g = axe.view %m : !m -> !g
    %top = axe.slice %g[0, 0] [64, 64] : !g to !gr
    %bottom = axe.slice %g[64, 0] [64, 64] : !g to !gr
    %s0 = axe.alloc cta : !s
    %s1 = axe.alloc cta : !s
    %bar = axe.mbarrier_alloc cta : !axe.mbarrier
    axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
    axe.mbarrier_arrive_expect_tx cta %bar bytes 16384 : !axe.mbarrier
    axe.copy_async cta %top to %s0, %bar : !gr to !s, !axe.mbarrier
    axe.copy_async cta %bottom to %s1, %bar : !gr to !s, !axe.mbarrier
    %phase = arith.constant false
    axe.mbarrier_wait cta %bar, %phase : !axe.mbarrier
    gpu.return
  }
}
