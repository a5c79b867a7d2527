// RUN: axe-opt %s -split-input-file --lower-tma | FileCheck %s
// Issue 21 item 5: a merged contiguous run wider than one box row is re-viewed as rows, lowered. Every number is
// derived by hand from the layouts (the same plans run on the hardware model in layout/tests/tma_general.rs).
// Arrays innermost dimension first; dtype UINT8=0 FLOAT16=6; swizzle NONE=0 128B=3; L2_128B=2.

// f16 1024x4 row-major: 8 KiB of 8-byte rows, one contiguous run of 4096 elements. As rows of 256 f16 (512 bytes)
// it is 16 rows: one box of 256 x 16 at coordinates [0, 0], 8192 bytes, written as 16 rows of 256 in shared memory.

!g = memref<1024x4xf16>
!gt = !axe.tensor<1024x4xf16, global, S[(1024,4):(4,1)]>
!s = !axe.tensor<1024x4xf16, shared, S[(1024,4):(4,1)]>
module attributes {gpu.container_module} {
  // CHECK-LABEL: func.func @host_rows
  // CHECK: axe.tma_descriptor %arg0 {box_dims = array<i64: 256, 16>, data_type = 6 : i32, element_strides = array<i64: 1, 1>, global_dims = array<i64: 256, 16>, global_offset_bytes = 0 : i64, global_strides_bytes = array<i64: 512>, interleave = 0 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, rank = 2 : i32, swizzle = 0 : i32}
  func.func @host_rows(%g: !g) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@rows blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%g : !g)
    return
  }
  // CHECK-LABEL: gpu.func @rows
  // CHECK: [[BYTES:%.+]] = arith.constant 8192 : index
  // CHECK-NEXT: nvgpu.mbarrier.arrive.expect_tx {{.*}}, [[BYTES]]
  // CHECK: memref.view {{.*}} to memref<16x256xf16, #gpu.address_space<workgroup>>
  // CHECK: nvgpu.tma.async.load {{.*}} swizzle = none
  gpu.module @k {
    gpu.func @rows(%g: !g) kernel {
      %t = axe.view %g : !g -> !gt
      %s = axe.alloc cta : !s
      %bar = axe.mbarrier_alloc cta : !axe.mbarrier
      axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
      axe.copy_async cta %t to %s, %bar : !gt to !s, !axe.mbarrier
      %phase = arith.constant false
      axe.mbarrier_wait cta %bar, %phase : !axe.mbarrier
      gpu.return
    }
  }
}

// -----

// u8 64x8 under the 128B swizzle (Swizzle(4,3,3)): 512 contiguous bytes of 8-byte rows, as 4 rows of the 128-byte
// span: one box of 128 x 4, 512 bytes, written as 4 rows of 128 (swizzled by the hardware on absolute addresses).

!g = memref<64x8xui8>
!gt = !axe.tensor<64x8xui8, global, S[(64,8):(8,1)]>
!s = !axe.tensor<64x8xui8, shared, Swizzle(4,3,3) o S[(64,8):(8,1)]>
module attributes {gpu.container_module} {
  // CHECK-LABEL: func.func @host_span_rows
  // CHECK: axe.tma_descriptor %arg0 {box_dims = array<i64: 128, 4>, data_type = 0 : i32, element_strides = array<i64: 1, 1>, global_dims = array<i64: 128, 4>, global_offset_bytes = 0 : i64, global_strides_bytes = array<i64: 128>, interleave = 0 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, rank = 2 : i32, swizzle = 3 : i32}
  func.func @host_span_rows(%g: !g) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@span_rows blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%g : !g)
    return
  }
  // CHECK-LABEL: gpu.func @span_rows
  // CHECK: [[BYTES:%.+]] = arith.constant 512 : index
  // CHECK-NEXT: nvgpu.mbarrier.arrive.expect_tx {{.*}}, [[BYTES]]
  // CHECK: memref.view {{.*}} to memref<4x128xi8, #gpu.address_space<workgroup>>
  // CHECK: nvgpu.tma.async.load {{.*}} swizzle = swizzle_128b
  gpu.module @k {
    gpu.func @span_rows(%g: !g) kernel {
      %t = axe.view %g : !g -> !gt
      %s = axe.alloc cta : !s
      %bar = axe.mbarrier_alloc cta : !axe.mbarrier
      axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
      axe.copy_async cta %t to %s, %bar : !gt to !s, !axe.mbarrier
      %phase = arith.constant false
      axe.mbarrier_wait cta %bar, %phase : !axe.mbarrier
      gpu.return
    }
  }
}
