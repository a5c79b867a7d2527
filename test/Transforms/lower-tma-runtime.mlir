// --lower-tma on a run-time-sized global tensor (docs/dialect.md, "Run-time sizes"): A is an [M, K] row-major
// f16 matrix with M and K kernel arguments; the 128x64 tile at (bx * 128, 0) is loaded and stored back. The map's
// box, swizzle and element strides are static; globalDim is [K, M] and globalStrides [K * 2] bytes, written as
// expressions of the kernel's arguments (arg2 = K, arg1 = M) in the kernel's axe.tensor_maps record; the
// argument becomes the map pointer and carries no static axe.tma_descriptor.
// RUN: axe-opt --lower-tma %s | FileCheck %s

// CHECK-LABEL: gpu.func @tile(
// CHECK-SAME: %arg0: !llvm.ptr, %arg1: i32, %arg2: i32)
// CHECK-SAME: axe.tensor_maps = [{arg = 0 : i64, box_dims = array<i64: 64, 128>, data_type = 6 : i32, element_strides = array<i64: 1, 1>, global_dims = ["arg2", "arg1"], global_offset_bytes = 0 : i64, global_strides_bytes = ["arg2 * 2"], interleave = 0 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, preconditions = ["arg1 >= 1", "arg1 % 16 == 0", "arg2 >= 1", "arg2 % 16 == 0", "arg2 <= 4294967296", "arg1 <= 4294967296", "arg2 * 2 < 1099511627776"], rank = 2 : i32, swizzle = 3 : i32}]
// CHECK-NOT: axe.tma_descriptor
// The load's coordinates: [0, bx * 128] (column 0, row offset from the block id).
// CHECK: %[[M0:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK: nvgpu.tma.async.load %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}] to %{{.*}}
// CHECK: nvgpu.tma.async.store %{{.*}} to %{{.*}}[%{{.*}}, %{{.*}}]

!gA = !axe.tensor<?x?xf16, global, row_major>
!tile = !axe.tensor<128x64xf16, global>
!smem = !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_90a"} {
    gpu.func @tile(%a: !llvm.ptr<1>, %m: i32, %k: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c128 = arith.constant 128 : index
      %bx = gpu.block_id x
      %m0 = arith.muli %bx, %c128 : index
      %ga = axe.view %a(%m, %k : i32, i32) multiples [16, 16] : !llvm.ptr<1> -> !gA
      %t = axe.slice %ga[%m0, 0] [128, 64] : !gA to !tile
      %s = axe.alloc cta : !smem
      %bar = axe.mbarrier_alloc cta : !axe.mbarrier
      axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
      axe.copy_async cta %t to %s, %bar : !tile to !smem, !axe.mbarrier
      %p = arith.constant false
      axe.mbarrier_wait cta %bar, %p : !axe.mbarrier
      axe.copy_async cta %s to %t : !smem to !tile
      gpu.return
    }
  }
}
