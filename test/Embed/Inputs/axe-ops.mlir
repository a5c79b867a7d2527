// Every axe op in its custom form, for the CMake package test (test/Embed/cmake-package.test): upstream
// mlir-opt with AxePlugin.so and the example consumer (axe-embed-example) parse this file and print it back as
// the CHECK lines say (type aliases expanded; results renumbered %0, %1, ... in order, block arguments %argN,
// constants named by arith's hints), and axe-opt prints the same text byte for byte.

// CHECK-LABEL: gpu.func @every_op
// CHECK-SAME: (%arg0: !llvm.ptr<1>, %arg1: i32, %arg2: i32, %arg3: memref<4096xf16, #gpu.address_space<workgroup>>) kernel
// CHECK: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c64 = arith.constant 64 : index
// CHECK-NEXT: %false = arith.constant false
// CHECK-NEXT: %cst = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %cst_0 = arith.constant 2.000000e+00 : f32
// CHECK-NEXT{LITERAL}: %0 = axe.view %arg0(%arg1, %arg2 : i32, i32) multiples [16, 16] : !llvm.ptr<1> -> !axe.tensor<?x?xf16, global, row_major>
// CHECK-NEXT{LITERAL}: %1 = axe.view %arg3 : memref<4096xf16, #gpu.address_space<workgroup>> -> !axe.tensor<64x64xf16, shared, S[(64,64):(64,1)]>
// CHECK-NEXT{LITERAL}: %2 = axe.alloc cta : !axe.tensor<256x64xf16, shared, Swizzle(3,3,3) o S[(256,64):(64,1)]>
// CHECK-NEXT{LITERAL}: %3 = axe.mbarrier_alloc cta : !axe.mbarrier<2>
// CHECK-NEXT{LITERAL}: %4 = axe.mbarrier_alloc cta : !axe.mbarrier
// CHECK-NEXT{LITERAL}: axe.mbarrier_init cta %3[%c1] count 1 : !axe.mbarrier<2>
// CHECK-NEXT{LITERAL}: axe.mbarrier_init cta %4 count 128 : !axe.mbarrier
// CHECK-NEXT{LITERAL}: axe.sync cta
// CHECK-NEXT{LITERAL}: %5 = axe.slice %0[%c64, 0] [128, 64] : !axe.tensor<?x?xf16, global, row_major> to !axe.tensor<128x64xf16, global>
// CHECK-NEXT{LITERAL}: %6 = axe.slice %2[128, 0] [128, 64] : !axe.tensor<256x64xf16, shared, Swizzle(3,3,3) o S[(256,64):(64,1)]> to !axe.tensor<128x64xf16, shared>
// CHECK-NEXT{LITERAL}: axe.mbarrier_arrive_expect_tx cta %3[%c1] bytes 16384 : !axe.mbarrier<2>
// CHECK-NEXT{LITERAL}: axe.copy_async cta %5 to %6, %3[%c1] : !axe.tensor<128x64xf16, global> to !axe.tensor<128x64xf16, shared>, !axe.mbarrier<2>
// CHECK-NEXT{LITERAL}: axe.mbarrier_wait cta %3[%c1], %false : !axe.mbarrier<2>
// CHECK-NEXT{LITERAL}: axe.mbarrier_arrive cta %4 : !axe.mbarrier
// CHECK-NEXT{LITERAL}: axe.mbarrier_wait cta %4, %false : !axe.mbarrier
// CHECK-NEXT{LITERAL}: %7 = axe.alloc warpgroup : !axe.tensor<64x64xf16, reg, S[(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
// CHECK-NEXT{LITERAL}: axe.copy warpgroup %1 to %7 : !axe.tensor<64x64xf16, shared, S[(64,64):(64,1)]> to !axe.tensor<64x64xf16, reg, S[(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
// CHECK-NEXT{LITERAL}: axe.copy cta(warpid[0:4]) %7 to %1 : !axe.tensor<64x64xf16, reg, S[(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]> to !axe.tensor<64x64xf16, shared, S[(64,64):(64,1)]>
// CHECK-NEXT{LITERAL}: axe.copy_async cta %6 to %5 : !axe.tensor<128x64xf16, shared> to !axe.tensor<128x64xf16, global>
// CHECK-NEXT{LITERAL}: %8 = axe.alloc warpgroup : !axe.tensor<128x128xf32, reg, S[(2,4,2,8,16,4,2):(64,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
// CHECK-NEXT{LITERAL}: %9 = axe.alloc warpgroup : !axe.tensor<128x128xf16, reg, S[(2,4,2,8,16,4,2):(64,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
// CHECK-NEXT{LITERAL}: axe.fill warpgroup %8, %cst : !axe.tensor<128x128xf32, reg, S[(2,4,2,8,16,4,2):(64,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>, f32
// CHECK-NEXT{LITERAL}: axe.scale warpgroup %8 by %cst_0 to %8 : !axe.tensor<128x128xf32, reg, S[(2,4,2,8,16,4,2):(64,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]> to !axe.tensor<128x128xf32, reg, S[(2,4,2,8,16,4,2):(64,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
// CHECK-NEXT{LITERAL}: axe.add warpgroup %8, %8 to %8 : !axe.tensor<128x128xf32, reg, S[(2,4,2,8,16,4,2):(64,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>, !axe.tensor<128x128xf32, reg, S[(2,4,2,8,16,4,2):(64,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]> to !axe.tensor<128x128xf32, reg, S[(2,4,2,8,16,4,2):(64,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
// CHECK-NEXT{LITERAL}: axe.mul warpgroup %8, %8 to %8 : !axe.tensor<128x128xf32, reg, S[(2,4,2,8,16,4,2):(64,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>, !axe.tensor<128x128xf32, reg, S[(2,4,2,8,16,4,2):(64,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]> to !axe.tensor<128x128xf32, reg, S[(2,4,2,8,16,4,2):(64,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
// CHECK-NEXT{LITERAL}: axe.fma warpgroup %8, %8, %8 to %8 : !axe.tensor<128x128xf32, reg, S[(2,4,2,8,16,4,2):(64,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>, !axe.tensor<128x128xf32, reg, S[(2,4,2,8,16,4,2):(64,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>, !axe.tensor<128x128xf32, reg, S[(2,4,2,8,16,4,2):(64,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]> to !axe.tensor<128x128xf32, reg, S[(2,4,2,8,16,4,2):(64,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
// CHECK-NEXT{LITERAL}: axe.cast warpgroup %8 to %9 : !axe.tensor<128x128xf32, reg, S[(2,4,2,8,16,4,2):(64,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]> to !axe.tensor<128x128xf16, reg, S[(2,4,2,8,16,4,2):(64,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
// CHECK-NEXT{LITERAL}: %10 = axe.alloc cta : !axe.tensor<64x128xf16, shared, Swizzle(3,3,3) o S[(64,2,64):(64,4096,1)]>
// CHECK-NEXT{LITERAL}: axe.gemm warpgroup %6, %10, %8 : !axe.tensor<128x64xf16, shared>, !axe.tensor<64x128xf16, shared, Swizzle(3,3,3) o S[(64,2,64):(64,4096,1)]>, !axe.tensor<128x128xf32, reg, S[(2,4,2,8,16,4,2):(64,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
// CHECK-NEXT{LITERAL}: %11 = axe.tma_descriptor %arg0 {box_dims = array<i64: 64, 128>, data_type = 6 : i32, element_strides = array<i64: 1, 1>, global_dims = array<i64: 64, 256>, global_offset_bytes = 0 : i64, global_strides_bytes = array<i64: 128>, interleave = 0 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, rank = 2 : i32, swizzle = 3 : i32} : !llvm.ptr<1> -> !llvm.ptr
// CHECK-NEXT{LITERAL}: axe.annotate %cst layout(S[(4,8):(8,1)] + R[2:1@warpid]) : f32
// CHECK-NEXT: gpu.return
// The example also counts the ops of the axe dialect through the generated C++ classes: 31 in @every_op.
// COUNT: // axe ops: 31

!gA = !axe.tensor<?x?xf16, global, row_major>
!tileA = !axe.tensor<128x64xf16, global>
!ringA = !axe.tensor<256x64xf16, shared, Swizzle(3,3,3) o S[(256,64):(64,1)]>
!stageA = !axe.tensor<128x64xf16, shared>
!stageB = !axe.tensor<64x128xf16, shared, Swizzle(3,3,3) o S[(64,2,64):(64,4096,1)]>
!smem = !axe.tensor<64x64xf16, shared, S[(64,64):(64,1)]>
!frag = !axe.tensor<64x64xf16, reg, S[(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
!acc = !axe.tensor<128x128xf32, reg, S[(2,4,2,8,16,4,2):(64,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
!out = !axe.tensor<128x128xf16, reg, S[(2,4,2,8,16,4,2):(64,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>

module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_90a"} {
    gpu.func @every_op(%a: !llvm.ptr<1>, %m: i32, %k: i32, %mem: memref<4096xf16, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      %false = arith.constant false
      %zero = arith.constant 0.0 : f32
      %two = arith.constant 2.0 : f32
      %ga = axe.view %a(%m, %k : i32, i32) multiples [16, 16] : !llvm.ptr<1> -> !gA
      %s = axe.view %mem : memref<4096xf16, #gpu.address_space<workgroup>> -> !smem
      %ring = axe.alloc cta : !ringA
      %bars = axe.mbarrier_alloc cta : !axe.mbarrier<2>
      %bar = axe.mbarrier_alloc cta : !axe.mbarrier
      axe.mbarrier_init cta %bars[%c1] count 1 : !axe.mbarrier<2>
      axe.mbarrier_init cta %bar count 128 : !axe.mbarrier
      axe.sync cta
      %tile = axe.slice %ga[%c64, 0] [128, 64] : !gA to !tileA
      %stage = axe.slice %ring[128, 0] [128, 64] : !ringA to !stageA
      axe.mbarrier_arrive_expect_tx cta %bars[%c1] bytes 16384 : !axe.mbarrier<2>
      axe.copy_async cta %tile to %stage, %bars[%c1] : !tileA to !stageA, !axe.mbarrier<2>
      axe.mbarrier_wait cta %bars[%c1], %false : !axe.mbarrier<2>
      axe.mbarrier_arrive cta %bar : !axe.mbarrier
      axe.mbarrier_wait cta %bar, %false : !axe.mbarrier
      %frag = axe.alloc warpgroup : !frag
      axe.copy warpgroup %s to %frag : !smem to !frag
      axe.copy cta(warpid[0:4]) %frag to %s : !frag to !smem
      axe.copy_async cta %stage to %tile : !stageA to !tileA
      %acc = axe.alloc warpgroup : !acc
      %out = axe.alloc warpgroup : !out
      axe.fill warpgroup %acc, %zero : !acc, f32
      axe.scale warpgroup %acc by %two to %acc : !acc to !acc
      axe.add warpgroup %acc, %acc to %acc : !acc, !acc to !acc
      axe.mul warpgroup %acc, %acc to %acc : !acc, !acc to !acc
      axe.fma warpgroup %acc, %acc, %acc to %acc : !acc, !acc, !acc to !acc
      axe.cast warpgroup %acc to %out : !acc to !out
      %sb = axe.alloc cta : !stageB
      axe.gemm warpgroup %stage, %sb, %acc : !stageA, !stageB, !acc
      %d = axe.tma_descriptor %a {box_dims = array<i64: 64, 128>, data_type = 6 : i32, element_strides = array<i64: 1, 1>, global_dims = array<i64: 64, 256>, global_offset_bytes = 0 : i64, global_strides_bytes = array<i64: 128>, interleave = 0 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, rank = 2 : i32, swizzle = 3 : i32} : !llvm.ptr<1> -> !llvm.ptr
      axe.annotate %zero layout(S[(4,8):(8,1)] + R[2:1@warpid]) : f32
      gpu.return
    }
  }
}
