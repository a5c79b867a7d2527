// --lower-mma: a tensor-memory accumulator zeroed by axe.fill and accumulated by a gemm inside an scf.for. The
// first instruction of the first iteration must overwrite (the fill) and every later one accumulate, so the
// gemm cannot take enable-input-d from the IR's order (that would zero the accumulator every iteration): a
// run-time "written" flag (memref<1xi1>) is set false at the fill, read as the first instruction's enable-input-d,
// and set true after each gemm. (In the fill's block the choice stays static: lower-mma-tcgen05.mlir.)
// RUN: axe-opt %s --lower-mma --cse | FileCheck %s

!a = !axe.tensor<128x16xf16, shared, Swizzle(3,1,3) o S[(128,16):(16,1)]>
!b = !axe.tensor<16x16xf16, shared, Swizzle(3,1,3) o S[(16,16):(1,16)]>
!c = !axe.tensor<128x16xf32, tmem, S[(128,16):(1@TLane,1@TCol)]>
module attributes {axe.target = "sm_100a"} {
  // CHECK-LABEL: func.func @loop
  func.func @loop(%n: index) {
    // CHECK: %[[FLAG:.*]] = memref.alloca() : memref<1xi1>
    %a = axe.alloc cta : !a
    %b = axe.alloc cta : !b
    %c = axe.alloc cta : !c
    %zero = arith.constant 0.0 : f32
    // CHECK: memref.store %false, %[[FLAG]][%c0] : memref<1xi1>
    axe.fill cta %c, %zero : !c, f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // CHECK: scf.for
    scf.for %i = %c0 to %n step %c1 {
      // CHECK: %[[WRITTEN:.*]] = memref.load %[[FLAG]][%c0] : memref<1xi1>
      // CHECK: scf.if
      // CHECK: nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[WRITTEN]]
      // CHECK: nvvm.tcgen05.commit
      // CHECK: memref.store %true, %[[FLAG]][%c0] : memref<1xi1>
      axe.gemm cta %a, %b, %c : !a, !b, !c
    }
    return
  }
}
