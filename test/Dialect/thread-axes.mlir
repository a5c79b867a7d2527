// The verifier decides on the hardware meaning of thread axes (issue 21, item 3): a cast whose source is spelled
// on tid and whose dest on warpid/laneid holds each element in the same thread and register (tid = 32 warpid +
// laneid), and reg is the register axis m, so its span counts against the viewed memref.
// RUN: axe-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// Row r of 128 in thread r, spelled both ways: the same layout.
!acc = !axe.tensor<128x4xf32, reg, S[(128,4):(1@tid,1)]>
!out = !axe.tensor<128x4xf16, reg, S[(4,32,4):(1@warpid,1@laneid,1@reg)]>
// CHECK-LABEL: func.func @cast_across_spellings
func.func @cast_across_spellings(%a: !acc, %o: !out) {
  // CHECK: axe.cast cta
  axe.cast cta %a to %o : !acc to !out
  return
}

// -----

// Different threads are still different: row r in thread r + 1 is not row r in thread r.
!acc = !axe.tensor<128x4xf32, reg, S[(128,4):(1@tid,1)]>
!out = !axe.tensor<128x4xf16, reg, S[(4,32,4):(1@warpid,1@laneid,1)] + 1@laneid>
func.func @cast_other_threads(%a: !acc, %o: !out) {
  // expected-error @+1 {{cast source and dest must have the same layout (each element in the same thread and register), got S[(128,4):(1@tid,1)] and S[(4,32,4):(1@warpid,1@laneid,1)] + 1@laneid}}
  axe.cast cta %a to %o : !acc to !out
  return
}

// -----

// Four registers on reg do not fit a two-element memref.
!r = !axe.tensor<32x4xf32, reg, S[(32,4):(1@laneid,1@reg)]>
func.func @reg_span(%m: memref<2xf32, #gpu.address_space<private>>) {
  // expected-error @+1 {{view layout spans 4 elements of m, but the memref holds 2}}
  %t = axe.view %m : memref<2xf32, #gpu.address_space<private>> -> !r
  return
}
