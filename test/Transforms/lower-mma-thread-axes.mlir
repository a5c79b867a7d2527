// --lower-mma decides on the hardware meaning of thread axes, not their spelling (issue 21, item 3): tid =
// 32 warpid + laneid, and reg is the register axis m. The expected IR is the lane/warp spelling's
// (lower-mma.mlir, lower-mma-tcgen05.mlir), worked out from the PTX ISA fragments.
// RUN: axe-opt %s --split-input-file --lower-mma --cse | FileCheck %s

// The mma.sync accumulator of two warps along M on tid (32@tid is warp 1), registers spelled reg: A holds 8
// halves a thread, B 4, C 4 (the span on reg), and each warp issues its own m16n8k16 under tid / 32 == w.
!a = !axe.tensor<32x16xf16, reg, S[(2,2,8,2,4,2):(32@tid,2@reg,4@tid,4@reg,1@tid,1@reg)]>
!b = !axe.tensor<16x8xf16, reg, S[(2,4,2,8):(2@reg,1@tid,1@reg,4@tid)] + R[2:32@tid]>
!c = !axe.tensor<32x8xf32, reg, S[(2,2,8,4,2):(32@tid,2@reg,4@tid,1@tid,1@reg)]>
module attributes {axe.target = "sm_80"} {
  // CHECK-LABEL: gpu.func @two_warps_on_tid
  gpu.module @kernels {
    gpu.func @two_warps_on_tid() kernel {
      // CHECK: %[[TID:.*]] = gpu.thread_id x
      // CHECK-DAG: memref.alloca() : memref<8xf16, #gpu.address_space<private>>
      // CHECK-DAG: memref.alloca() : memref<4xf16, #gpu.address_space<private>>
      // CHECK-DAG: memref.alloca() : memref<4xf32, #gpu.address_space<private>>
      %a = axe.alloc cta : !a
      %b = axe.alloc cta : !b
      %c = axe.alloc cta : !c
      // CHECK: %[[W:.*]] = arith.divui %[[TID]], %c32 : index
      // CHECK: %[[IS0:.*]] = arith.cmpi eq, %[[W]], %c0 : index
      // CHECK: scf.if %[[IS0]] {
      // CHECK: nvvm.mma.sync
      // CHECK-SAME: shape = #nvvm.shape<m = 16, n = 8, k = 16>
      // CHECK: %[[IS1:.*]] = arith.cmpi eq, %{{.*}}, %c1 : index
      // CHECK: scf.if %[[IS1]] {
      // CHECK: nvvm.mma.sync
      // CHECK-NOT: nvvm.mma.sync
      axe.gemm cta %a, %b, %c : !a, !b, !c
      gpu.return
    }
  }
}

// -----

// The tcgen05.ld read-back of the M=128 accumulator into thread r holding row r: spelled on tid
// (S[(128,16):(1@tid,1)]) it is the 32x32b fragment S[(4,32,16):(1@warpid,1@laneid,1)], 16 registers.
!a = !axe.tensor<128x16xf16, shared, Swizzle(3,1,3) o S[(128,16):(16,1)]>
!b = !axe.tensor<16x16xf16, shared, Swizzle(3,1,3) o S[(16,16):(1,16)]>
!c = !axe.tensor<128x16xf32, tmem, S[(128,16):(1@TLane,1@TCol)]>
!rows = !axe.tensor<128x16xf32, reg, S[(128,16):(1@tid,1)]>
module attributes {axe.target = "sm_100a"} {
  // CHECK-LABEL: func.func @load_on_tid
  func.func @load_on_tid(%acc: memref<16xf32, #gpu.address_space<private>>) {
    %a = axe.alloc cta : !a
    %b = axe.alloc cta : !b
    %c = axe.alloc cta : !c
    %zero = arith.constant 0.0 : f32
    axe.fill cta %c, %zero : !c, f32
    // CHECK: nvvm.tcgen05.mma
    axe.gemm cta %a, %b, %c : !a, !b, !c
    // CHECK: nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<16xi32>
    // CHECK: memref.store %{{.*}}, %arg0[%c15]
    %r = axe.view %acc : memref<16xf32, #gpu.address_space<private>> -> !rows
    axe.copy cta %c to %r : !c to !rows
    // No axe op is left (custom form, or generic if it were printed so).
    // CHECK-NOT: {{^ *(%[^ ]+ = )?"?axe\.[a-z_]+}}
    return
  }
}
