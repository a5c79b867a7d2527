// --axe-check-barriers on barrier arrays (issue 23): init per element (an index-less init initializes them all; a
// run-time index needs every element initialized), tx-bytes judged when the expect_tx and its copies name one
// element, not judged when they name different run-time indices.
// RUN: axe-opt %s --split-input-file --axe-check-barriers --verify-diagnostics

// A 3-stage ring: the whole array initialized once, every use at a run-time index, 8192 bytes per 64x64 f16 tile.
!g = !axe.tensor<256x64xf16, global, S[(256,64):(64,1)]>
!tile = !axe.tensor<64x64xf16, global>
!ring = !axe.tensor<192x64xf16, shared, Swizzle(3,3,3) o S[(192,64):(64,1)]>
!stage = !axe.tensor<64x64xf16, shared>
gpu.module @k {
  gpu.func @ring(%src: memref<16384xf16>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %false = arith.constant false
    %g = axe.view %src : memref<16384xf16> -> !g
    %ring = axe.alloc cta : !ring
    %bars = axe.mbarrier_alloc cta : !axe.mbarrier<3>
    axe.mbarrier_init cta %bars count 1 : !axe.mbarrier<3>
    scf.for %i = %c0 to %c4 step %c1 {
      %s = arith.remui %i, %c3 : index
      %row = arith.muli %i, %c64 : index
      %srow = arith.muli %s, %c64 : index
      %t = axe.slice %g[%row, 0] [64, 64] : !g to !tile
      %st = axe.slice %ring[%srow, 0] [64, 64] : !ring to !stage
      axe.mbarrier_arrive_expect_tx cta %bars[%s] bytes 8192 : !axe.mbarrier<3>
      axe.copy_async cta %t to %st, %bars[%s] : !tile to !stage, !axe.mbarrier<3>
      axe.mbarrier_wait cta %bars[%s], %false : !axe.mbarrier<3>
    }
    gpu.return
  }
}

// -----

// Element 0 initialized, element 1 used.
func.func @other_element(%p: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bars = axe.mbarrier_alloc cta : !axe.mbarrier<2>
  axe.mbarrier_init cta %bars[%c0] count 1 : !axe.mbarrier<2>
  axe.mbarrier_arrive cta %bars[%c0] : !axe.mbarrier<2>
  // expected-error @+1 {{barrier: init rule: axe.mbarrier_arrive uses element 1 of a barrier array that is not initialized on every path to it (its 1 axe.mbarrier_init is later, in a branch not taken on some path, on other elements, in a loop that may not run)}}
  axe.mbarrier_arrive cta %bars[%c1] : !axe.mbarrier<2>
  axe.mbarrier_wait cta %bars[%c0], %p : !axe.mbarrier<2>
  return
}

// -----

// Each element initialized by constant index: then a run-time index may use any of them.
func.func @every_element_by_constant(%i: index, %p: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bars = axe.mbarrier_alloc cta : !axe.mbarrier<2>
  axe.mbarrier_init cta %bars[%c0] count 1 : !axe.mbarrier<2>
  axe.mbarrier_init cta %bars[%c1] count 1 : !axe.mbarrier<2>
  axe.mbarrier_arrive cta %bars[%i] : !axe.mbarrier<2>
  axe.mbarrier_wait cta %bars[%i], %p : !axe.mbarrier<2>
  return
}

// -----

// An init at a run-time index initializes an element the check cannot name.
func.func @initialized_at_a_run_time_index(%i: index, %p: i1) {
  %bars = axe.mbarrier_alloc cta : !axe.mbarrier<2>
  axe.mbarrier_init cta %bars[%i] count 1 : !axe.mbarrier<2>
  // expected-error @+1 {{barrier: init rule: axe.mbarrier_arrive uses a barrier array at a run-time index (every element must be initialized: an axe.mbarrier_init without an index initializes them all) that is not initialized on every path to it}}
  axe.mbarrier_arrive cta %bars[%i] : !axe.mbarrier<2>
  // expected-error @+1 {{barrier: init rule: axe.mbarrier_wait uses a barrier array at a run-time index}}
  axe.mbarrier_wait cta %bars[%i], %p : !axe.mbarrier<2>
  return
}

// -----

// tx-bytes on one element: 4096 announced, 8192 delivered.
!g = !axe.tensor<64x64xf16, global, S[(64,64):(64,1)]>
!s = !axe.tensor<64x64xf16, shared, Swizzle(3,3,3) o S[(64,64):(64,1)]>
gpu.module @k {
  gpu.func @short_expect(%m: memref<4096xf16>, %i: index) kernel {
    %false = arith.constant false
    %g = axe.view %m : memref<4096xf16> -> !g
    %s = axe.alloc cta : !s
    %bars = axe.mbarrier_alloc cta : !axe.mbarrier<2>
    axe.mbarrier_init cta %bars count 1 : !axe.mbarrier<2>
    // expected-error @+1 {{barrier: tx-bytes rule: axe.mbarrier_arrive_expect_tx expects 4096 bytes but the 1 copy it announces delivers 8192 bytes (the TMA plans' total); the phase completes early}}
    axe.mbarrier_arrive_expect_tx cta %bars[%i] bytes 4096 : !axe.mbarrier<2>
    axe.copy_async cta %g to %s, %bars[%i] : !g to !s, !axe.mbarrier<2>
    axe.mbarrier_wait cta %bars[%i], %false : !axe.mbarrier<2>
    gpu.return
  }
}

// -----

// The expect_tx and the copy name different run-time indices: the segment is not judged (they may be one element
// or two), so no tx-bytes error.
!g = !axe.tensor<64x64xf16, global, S[(64,64):(64,1)]>
!s = !axe.tensor<64x64xf16, shared, Swizzle(3,3,3) o S[(64,64):(64,1)]>
gpu.module @k {
  gpu.func @different_elements(%m: memref<4096xf16>, %i: index, %j: index) kernel {
    %false = arith.constant false
    %g = axe.view %m : memref<4096xf16> -> !g
    %s = axe.alloc cta : !s
    %bars = axe.mbarrier_alloc cta : !axe.mbarrier<2>
    axe.mbarrier_init cta %bars count 1 : !axe.mbarrier<2>
    axe.mbarrier_arrive_expect_tx cta %bars[%i] bytes 4096 : !axe.mbarrier<2>
    axe.copy_async cta %g to %s, %bars[%j] : !g to !s, !axe.mbarrier<2>
    axe.mbarrier_wait cta %bars[%i], %false : !axe.mbarrier<2>
    gpu.return
  }
}
