// RUN: axe-opt %s -split-input-file --lower-tma | FileCheck %s
// Issue 12: copies the planner covers beyond row-major tiles, lowered. Every number is derived by hand from the
// layouts (the same plans are proven element by element on the hardware model in layout/tests/tma_general.rs).
// Arrays innermost dimension first; dtype UINT8=0 FLOAT16=6; swizzle NONE=0 128B=3; L2_128B=2.

// Merged contiguous dimensions: a row-major u8 32x8 tile is one run of 256 bytes, a rank-1 box of 256 at
// coordinate 0 (rows of 8 bytes alone would break the 16-byte inner-box rule).

!g = memref<32x8xui8>
!gt = !axe.tensor<32x8xui8, global, S[(32,8):(8,1)]>
!s = !axe.tensor<32x8xui8, shared, S[(32,8):(8,1)]>
module attributes {gpu.container_module} {
  // CHECK-LABEL: func.func @host_merged
  // CHECK: axe.tma_descriptor %arg0 {box_dims = array<i64: 256>, data_type = 0 : i32, element_strides = array<i64: 1>, global_dims = array<i64: 256>, global_offset_bytes = 0 : i64, global_strides_bytes = array<i64>, interleave = 0 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, rank = 1 : i32, swizzle = 0 : i32}
  func.func @host_merged(%g: !g) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@merged blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%g : !g)
    return
  }
  // CHECK-LABEL: gpu.func @merged
  // CHECK: [[BYTES:%.+]] = arith.constant 256 : index
  // CHECK-NEXT: nvgpu.mbarrier.arrive.expect_tx {{.*}}, [[BYTES]]
  // CHECK: memref.view {{.*}} to memref<256xi8, #gpu.address_space<workgroup>>
  // CHECK-NEXT: [[X:%.+]] = arith.constant 0 : index
  // CHECK-NEXT: nvgpu.tma.async.load {{%.+}}{{\[}}[[X]]{{\]}}
  gpu.module @k {
    gpu.func @merged(%g: !g) kernel {
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

// Column-major: rows 0..64, columns 32..64 of a column-major 128x128 f16 matrix into a column-major 128B-swizzled
// 64x32 tile. Descriptor dimension 0 is the row dimension (contiguous, 128 elements), dimension 1 the columns
// (stride 128 * 2 = 256 bytes); the box is 64 rows (128 bytes, the span) x 32 columns; coordinates [row 0, col 32];
// 64 * 32 * 2 = 4096 bytes.

!g = memref<128x128xf16>
!gt = !axe.tensor<128x128xf16, global, S[(128,128):(1,128)]>
!gr = !axe.tensor<64x32xf16, global>
!s = !axe.tensor<64x32xf16, shared, Swizzle(3,3,3) o S[(64,32):(1,64)]>
module attributes {gpu.container_module} {
  // CHECK-LABEL: func.func @host_colmajor
  // CHECK: axe.tma_descriptor %arg0 {box_dims = array<i64: 64, 32>, data_type = 6 : i32, element_strides = array<i64: 1, 1>, global_dims = array<i64: 128, 128>, global_offset_bytes = 0 : i64, global_strides_bytes = array<i64: 256>, interleave = 0 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, rank = 2 : i32, swizzle = 3 : i32}
  func.func @host_colmajor(%g: !g) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@colmajor blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%g : !g)
    return
  }
  // CHECK-LABEL: gpu.func @colmajor
  // CHECK: [[BYTES:%.+]] = arith.constant 4096 : index
  // CHECK-NEXT: nvgpu.mbarrier.arrive.expect_tx {{.*}}, [[BYTES]]
  // The box in shared memory: 32 columns of 64 rows (the descriptor's order, outermost first).
  // CHECK: memref.view {{.*}} to memref<32x64xf16, #gpu.address_space<workgroup>>
  // CHECK-NEXT: [[X:%.+]] = arith.constant 0 : index
  // CHECK-NEXT: [[Y:%.+]] = arith.constant 32 : index
  // CHECK-NEXT: nvgpu.tma.async.load {{%.+}}{{\[}}[[X]], [[Y]]{{\]}}
  gpu.module @k {
    gpu.func @colmajor(%g: !g) kernel {
      %t = axe.view %g : !g -> !gt
      %r = axe.slice %t[0, 32] [64, 32] : !gt to !gr
      %s = axe.alloc cta : !s
      %bar = axe.mbarrier_alloc cta : !axe.mbarrier
      axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
      axe.copy_async cta %r to %s, %bar : !gr to !s, !axe.mbarrier
      %phase = arith.constant false
      axe.mbarrier_wait cta %bar, %phase : !axe.mbarrier
      gpu.return
    }
  }
}

// -----

// A coordinate-only dimension: batch 2 of a (4, 128, 64) f16 tensor into a 2-D 128B-swizzled tile. The batch
// dimension stays in the descriptor (global dim 4, stride 128 * 64 * 2 = 16384 bytes) with box 1 and coordinate 2.

!g = memref<4x128x64xf16>
!gt = !axe.tensor<4x128x64xf16, global, S[(4,128,64):(8192,64,1)]>
!gr = !axe.tensor<1x128x64xf16, global>
!s = !axe.tensor<1x128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
module attributes {gpu.container_module} {
  // CHECK-LABEL: func.func @host_batch
  // CHECK: axe.tma_descriptor %arg0 {box_dims = array<i64: 64, 128, 1>, data_type = 6 : i32, element_strides = array<i64: 1, 1, 1>, global_dims = array<i64: 64, 128, 4>, global_offset_bytes = 0 : i64, global_strides_bytes = array<i64: 128, 16384>, interleave = 0 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, rank = 3 : i32, swizzle = 3 : i32}
  func.func @host_batch(%g: !g) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@batch blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%g : !g)
    return
  }
  // CHECK-LABEL: gpu.func @batch
  // CHECK: memref.view {{.*}} to memref<1x128x64xf16, #gpu.address_space<workgroup>>
  // CHECK-NEXT: [[X:%.+]] = arith.constant 0 : index
  // CHECK-NEXT: [[Y:%.+]] = arith.constant 0 : index
  // CHECK-NEXT: [[Z:%.+]] = arith.constant 2 : index
  // CHECK-NEXT: nvgpu.tma.async.load {{%.+}}{{\[}}[[X]], [[Y]], [[Z]]{{\]}}
  gpu.module @k {
    gpu.func @batch(%g: !g) kernel {
      %t = axe.view %g : !g -> !gt
      %r = axe.slice %t[2, 0, 0] [1, 128, 64] : !gt to !gr
      %s = axe.alloc cta : !s
      %bar = axe.mbarrier_alloc cta : !axe.mbarrier
      axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
      axe.copy_async cta %r to %s, %bar : !gr to !s, !axe.mbarrier
      %phase = arith.constant false
      axe.mbarrier_wait cta %bar, %phase : !axe.mbarrier
      gpu.return
    }
  }
}

// -----

// Interleaved (blocked) global: a 64x64 f16 matrix in 8x8 blocks, S[(8,8,8,8):(512,8,64,1)] (row 8R + r, column
// 8C + c at 512R + 8r + 64C + c). Rows 16..32 into a row-major 16x64 tile: one descriptor dimension per iter in
// shared chain order, c (box 8 = 16 bytes), C (64 el = 128 bytes, box 8), r (8 el = 16 bytes, box 8), R (512 el =
// 1024 bytes, box 2 from block 2): coordinates [0, 0, 0, 2], 16 * 64 * 2 = 2048 bytes.

!g = memref<64x64xf16>
!gt = !axe.tensor<64x64xf16, global, S[(8,8,8,8):(512,8,64,1)]>
!gr = !axe.tensor<16x64xf16, global>
!s = !axe.tensor<16x64xf16, shared, S[(16,64):(64,1)]>
module attributes {gpu.container_module} {
  // CHECK-LABEL: func.func @host_blocked
  // CHECK: axe.tma_descriptor %arg0 {box_dims = array<i64: 8, 8, 8, 2>, data_type = 6 : i32, element_strides = array<i64: 1, 1, 1, 1>, global_dims = array<i64: 8, 8, 8, 8>, global_offset_bytes = 0 : i64, global_strides_bytes = array<i64: 128, 16, 1024>, interleave = 0 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, rank = 4 : i32, swizzle = 0 : i32}
  func.func @host_blocked(%g: !g) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@blocked blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%g : !g)
    return
  }
  // CHECK-LABEL: gpu.func @blocked
  // CHECK: [[BYTES:%.+]] = arith.constant 2048 : index
  // CHECK-NEXT: nvgpu.mbarrier.arrive.expect_tx {{.*}}, [[BYTES]]
  // CHECK: memref.view {{.*}} to memref<2x8x8x8xf16, #gpu.address_space<workgroup>>
  // CHECK-NEXT: [[C0:%.+]] = arith.constant 0 : index
  // CHECK-NEXT: [[C1:%.+]] = arith.constant 0 : index
  // CHECK-NEXT: [[C2:%.+]] = arith.constant 0 : index
  // CHECK-NEXT: [[C3:%.+]] = arith.constant 2 : index
  // CHECK-NEXT: nvgpu.tma.async.load {{%.+}}{{\[}}[[C0]], [[C1]], [[C2]], [[C3]]{{\]}}
  gpu.module @k {
    gpu.func @blocked(%g: !g) kernel {
      %t = axe.view %g : !g -> !gt
      %r = axe.slice %t[16, 0] [16, 64] : !gt to !gr
      %s = axe.alloc cta : !s
      %bar = axe.mbarrier_alloc cta : !axe.mbarrier
      axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
      axe.copy_async cta %r to %s, %bar : !gr to !s, !axe.mbarrier
      %phase = arith.constant false
      axe.mbarrier_wait cta %bar, %phase : !axe.mbarrier
      gpu.return
    }
  }
}

// -----

// A region straddling a digit boundary: rows 32..96 of a global in 64-row panels, S[(2,64,64):(8192,64,1)] over
// 128x64 (panels 8192 elements apart). Chunks of gcd(32, 64, 64) = 32 rows, one box [64, 32, 1] each: chunk 0 at (row 32, panel 0), chunk 1 at
// position 64 = (row 0, panel 1), 32 * 128 = 4096 bytes on; 8192 bytes in all.

!g = memref<16384xf16>
!gt = !axe.tensor<128x64xf16, global, S[(2,64,64):(8192,64,1)]>
!gr = !axe.tensor<64x64xf16, global>
!s = !axe.tensor<64x64xf16, shared, Swizzle(3,3,3) o S[(64,64):(64,1)]>
module attributes {gpu.container_module} {
  // CHECK-LABEL: func.func @host_straddle
  // CHECK: axe.tma_descriptor %arg0 {box_dims = array<i64: 64, 32, 1>, data_type = 6 : i32, element_strides = array<i64: 1, 1, 1>, global_dims = array<i64: 64, 64, 2>, global_offset_bytes = 0 : i64, global_strides_bytes = array<i64: 128, 16384>, interleave = 0 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, rank = 3 : i32, swizzle = 3 : i32}
  func.func @host_straddle(%g: !g) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@straddle blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%g : !g)
    return
  }
  // CHECK-LABEL: gpu.func @straddle
  // CHECK: [[BYTES:%.+]] = arith.constant 8192 : index
  // CHECK-NEXT: nvgpu.mbarrier.arrive.expect_tx {{.*}}, [[BYTES]]
  // CHECK: [[OFF0:%.+]] = arith.constant 0 : index
  // CHECK-NEXT: memref.view {{%.+}}{{\[}}[[OFF0]]{{\]}}[] : {{.*}} to memref<1x32x64xf16, #gpu.address_space<workgroup>>
  // CHECK-NEXT: [[A0:%.+]] = arith.constant 0 : index
  // CHECK-NEXT: [[A1:%.+]] = arith.constant 32 : index
  // CHECK-NEXT: [[A2:%.+]] = arith.constant 0 : index
  // CHECK-NEXT: nvgpu.tma.async.load {{%.+}}{{\[}}[[A0]], [[A1]], [[A2]]{{\]}}
  // CHECK: [[OFF1:%.+]] = arith.constant 4096 : index
  // CHECK-NEXT: memref.view {{%.+}}{{\[}}[[OFF1]]{{\]}}
  // CHECK-NEXT: [[B0:%.+]] = arith.constant 0 : index
  // CHECK-NEXT: [[B1:%.+]] = arith.constant 0 : index
  // CHECK-NEXT: [[B2:%.+]] = arith.constant 1 : index
  // CHECK-NEXT: nvgpu.tma.async.load {{%.+}}{{\[}}[[B0]], [[B1]], [[B2]]{{\]}}
  gpu.module @k {
    gpu.func @straddle(%g: !g) kernel {
      %t = axe.view %g : !g -> !gt
      %r = axe.slice %t[32, 0] [64, 64] : !gt to !gr
      %s = axe.alloc cta : !s
      %bar = axe.mbarrier_alloc cta : !axe.mbarrier
      axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
      axe.copy_async cta %r to %s, %bar : !gr to !s, !axe.mbarrier
      %phase = arith.constant false
      axe.mbarrier_wait cta %bar, %phase : !axe.mbarrier
      gpu.return
    }
  }
}
