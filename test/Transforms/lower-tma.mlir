// RUN: axe-opt %s -split-input-file --lower-tma | FileCheck %s
// Every number below is worked out by hand from the layouts (cuTensorMapEncodeTiled order: arrays innermost
// dimension first; dtype FLOAT16=6 FLOAT32=7 UINT8=0 UINT32=2; swizzle NONE=0 32B=1 64B=2 128B=3; L2_128B=2).
// Every load's barrier is initialized before the copy and waited on after it: --lower-tma checks that protocol
// first (test/Transforms/barrier-check-invalid.mlir).

// 128B swizzle, a 128x64 f16 block at (row 128, col 64) of a row-major 256x256 matrix, reached through a slice.
// Box: one 128-byte swizzle row (64 halves) x 128 rows; global dims [256, 256], row stride 512 bytes; the
// region start becomes the coordinates [64, 128]; 128*64*2 = 16384 bytes; the 128B atom needs 1024-byte alignment.

!g = memref<256x256xf16>
!gt = !axe.tensor<256x256xf16, global, S[(256,256):(256,1)]>
!gr = !axe.tensor<128x64xf16, global>
!s = !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
module attributes {gpu.container_module} {
  // CHECK-LABEL: func.func @host_128b
  // CHECK: [[D:%.+]] = axe.tma_descriptor %arg0 {box_dims = array<i64: 64, 128>, data_type = 6 : i32, element_strides = array<i64: 1, 1>, global_dims = array<i64: 256, 256>, global_offset_bytes = 0 : i64, global_strides_bytes = array<i64: 512>, interleave = 0 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, rank = 2 : i32, swizzle = 3 : i32} : memref<256x256xf16> -> !llvm.ptr
  // CHECK-NEXT: gpu.launch_func @k::@swizzle_128b {{.*}} args([[D]] : !llvm.ptr)
  func.func @host_128b(%g: !g) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@swizzle_128b blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%g : !g)
    return
  }
  // CHECK: memref.global "private" @__axe_smem_0 : memref<16384xi8, #gpu.address_space<workgroup>> {alignment = 1024 : i64}
  // The kernel argument says which descriptor it expects, with the same fields.
  // CHECK-LABEL: gpu.func @swizzle_128b(%arg0: !llvm.ptr {axe.tma_descriptor = {box_dims = array<i64: 64, 128>, data_type = 6 : i32, element_strides = array<i64: 1, 1>, global_dims = array<i64: 256, 256>, global_offset_bytes = 0 : i64, global_strides_bytes = array<i64: 512>, interleave = 0 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, rank = 2 : i32, swizzle = 3 : i32}}) kernel
  // CHECK: [[TID:%.+]] = gpu.thread_id x
  // CHECK: [[TIDY:%.+]] = gpu.thread_id y
  // CHECK: [[LEADER:%.+]] = arith.cmpi eq
  // CHECK: [[DESC:%.+]] = builtin.unrealized_conversion_cast %arg0 : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_128b, oob = zero, interleave = none>
  // CHECK: [[SMEM:%.+]] = memref.get_global @__axe_smem_0
  // CHECK: [[BAR:%.+]] = nvgpu.mbarrier.create
  // The barrier is initialized for one arrival (the copy's) by the leader, then made visible to every thread.
  // CHECK: [[COUNT:%.+]] = arith.constant 1 : index
  // CHECK-NEXT: scf.if [[LEADER]] {
  // CHECK-NEXT: nvgpu.mbarrier.init [[BAR]][{{.*}}], [[COUNT]]
  // CHECK-NEXT: nvvm.fence.mbarrier.init
  // CHECK-NEXT: }
  // CHECK-NEXT: gpu.barrier
  // CHECK: scf.if [[LEADER]] {
  // CHECK-NEXT: [[BYTES:%.+]] = arith.constant 16384 : index
  // CHECK-NEXT: nvgpu.mbarrier.arrive.expect_tx [[BAR]][{{.*}}], [[BYTES]]
  // CHECK-NEXT: [[OFF:%.+]] = arith.constant 0 : index
  // CHECK-NEXT: [[BOX:%.+]] = memref.view [[SMEM]]{{\[}}[[OFF]]{{\]}}[] : memref<16384xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
  // CHECK-NEXT: [[X:%.+]] = arith.constant 64 : index
  // CHECK-NEXT: [[Y:%.+]] = arith.constant 128 : index
  // CHECK-NEXT: nvgpu.tma.async.load [[DESC]]{{\[}}[[X]], [[Y]]{{\]}}, [[BAR]][{{.*}}] to [[BOX]]
  // CHECK-NEXT: }
  // Every thread waits for phase 0 (parity false).
  // CHECK-NEXT: [[PARITY:%.+]] = arith.constant false
  // CHECK: nvgpu.mbarrier.try_wait.parity [[BAR]][{{.*}}], [[PARITY]]
  // CHECK-NOT: axe.
  // CHECK: gpu.return
  gpu.module @k {
    gpu.func @swizzle_128b(%g: !g) kernel {
      %t = axe.view %g : !g -> !gt
      %r = axe.slice %t[128, 64] [128, 64] : !gt to !gr
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

// 64B swizzle, f32: Swizzle(2,2,3) (4 floats per 16-byte chunk), rows of 16 floats = 64 bytes. A 32x16 block at
// (32, 16) of a 64x128 matrix: box [16, 32], global dims [128, 64], row stride 128*4 = 512 bytes, coordinates
// [16, 32], 32*16*4 = 2048 bytes, 512-byte alignment. With known_block_size (128, 1, 1) only tid.x is tested.

!g = memref<64x128xf32>
!gt = !axe.tensor<64x128xf32, global, S[(64,128):(128,1)]>
!gr = !axe.tensor<32x16xf32, global>
!s = !axe.tensor<32x16xf32, shared, Swizzle(2,2,3) o S[(32,16):(16,1)]>
module attributes {gpu.container_module} {
  // CHECK-LABEL: func.func @host_64b
  // CHECK: axe.tma_descriptor %arg0 {box_dims = array<i64: 16, 32>, data_type = 7 : i32, element_strides = array<i64: 1, 1>, global_dims = array<i64: 128, 64>, global_offset_bytes = 0 : i64, global_strides_bytes = array<i64: 512>, interleave = 0 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, rank = 2 : i32, swizzle = 2 : i32}
  func.func @host_64b(%g: !g) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@swizzle_64b blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%g : !g)
    return
  }
  // CHECK: memref.global "private" @__axe_smem_0 : memref<2048xi8, #gpu.address_space<workgroup>> {alignment = 512 : i64}
  // CHECK-LABEL: gpu.func @swizzle_64b
  // A known block of whole warps: the issuing thread is the lane of warp 0 (tid.x < 32) that elect.sync picks,
  // one election per block (here the entry block's: it serves the barrier init and the load).
  // CHECK: [[TID:%.+]] = gpu.thread_id x
  // CHECK-NOT: gpu.thread_id y
  // CHECK: [[WARP0:%.+]] = arith.cmpi ult, [[TID]], %c32 : index
  // CHECK-NEXT: [[E:%.+]] = nvvm.elect.sync -> i1
  // CHECK-NEXT: [[L:%.+]] = arith.andi [[WARP0]], [[E]] : i1
  // CHECK: !nvgpu.tensormap.descriptor<tensor = memref<32x16xf32, #gpu.address_space<workgroup>>, swizzle = swizzle_64b, l2promo = l2promo_128b, oob = zero, interleave = none>
  // CHECK: scf.if [[L]] {
  // CHECK-NEXT: nvgpu.mbarrier.init
  // CHECK-NOT: nvvm.elect.sync
  // CHECK: scf.if [[L]] {
  // CHECK-NEXT: arith.constant 2048 : index
  // CHECK-NEXT: nvgpu.mbarrier.arrive.expect_tx
  // CHECK: memref.view {{.*}} to memref<32x16xf32, #gpu.address_space<workgroup>>
  // CHECK-NEXT: [[X:%.+]] = arith.constant 16 : index
  // CHECK-NEXT: [[Y:%.+]] = arith.constant 32 : index
  // CHECK-NEXT: nvgpu.tma.async.load %{{.+}}{{\[}}[[X]], [[Y]]{{\]}}
  gpu.module @k {
    gpu.func @swizzle_64b(%g: !g) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %t = axe.view %g : !g -> !gt
      %r = axe.slice %t[32, 16] [32, 16] : !gt to !gr
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

// 32B swizzle and the store direction: Swizzle(3,1,3), rows of 16 halves = 32 bytes, stored to columns 48..64 of
// a 64x64 matrix. Box [16, 64], global dims [64, 64], row stride 128 bytes, coordinates [48, 0], 256-byte
// alignment. The store makes generic-proxy writes visible to the TMA unit first, and waits until shared memory
// has been read.

!g = memref<64x64xf16>
!gt = !axe.tensor<64x64xf16, global, S[(64,64):(64,1)]>
!gr = !axe.tensor<64x16xf16, global>
!s = !axe.tensor<64x16xf16, shared, Swizzle(3,1,3) o S[(64,16):(16,1)]>
module attributes {gpu.container_module} {
  // CHECK-LABEL: func.func @host_32b
  // CHECK: axe.tma_descriptor %arg0 {box_dims = array<i64: 16, 64>, data_type = 6 : i32, element_strides = array<i64: 1, 1>, global_dims = array<i64: 64, 64>, global_offset_bytes = 0 : i64, global_strides_bytes = array<i64: 128>, interleave = 0 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, rank = 2 : i32, swizzle = 1 : i32}
  func.func @host_32b(%g: !g) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@swizzle_32b_store blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%g : !g)
    return
  }
  // CHECK: memref.global "private" @__axe_smem_0 : memref<2048xi8, #gpu.address_space<workgroup>> {alignment = 256 : i64}
  // CHECK-LABEL: gpu.func @swizzle_32b_store
  // CHECK: [[LEADER:%.+]] = arith.cmpi eq
  // CHECK: [[DESC:%.+]] = builtin.unrealized_conversion_cast %arg0 : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<64x16xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_32b,
  // CHECK-NOT: nvgpu.mbarrier
  // CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
  // CHECK-NEXT: gpu.barrier
  // CHECK-NEXT: scf.if [[LEADER]] {
  // CHECK-NEXT: arith.constant 0 : index
  // CHECK-NEXT: [[BOX:%.+]] = memref.view
  // CHECK-NEXT: [[X:%.+]] = arith.constant 48 : index
  // CHECK-NEXT: [[Y:%.+]] = arith.constant 0 : index
  // CHECK-NEXT: nvgpu.tma.async.store [[BOX]] to [[DESC]]{{\[}}[[X]], [[Y]]{{\]}}
  // CHECK-NEXT: nvvm.cp.async.bulk.commit.group
  // CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
  // CHECK-NEXT: }
  gpu.module @k {
    gpu.func @swizzle_32b_store(%g: !g) kernel {
      %t = axe.view %g : !g -> !gt
      %r = axe.slice %t[0, 48] [64, 16] : !gt to !gr
      %s = axe.alloc cta : !s
      axe.copy_async cta %s to %r : !s to !gr
      gpu.return
    }
  }
}

// -----

// No swizzle, u8: a 32x64 byte block at (32, 64) of a 128x256 byte matrix into row-major shared memory. Box
// [64, 32] (64-byte rows, a multiple of 16), global dims [256, 128], row stride 256 bytes, coordinates [64, 32],
// 2048 bytes, 128-byte alignment (the unswizzled TMA minimum).

!g = memref<128x256xi8>
!gt = !axe.tensor<128x256xi8, global, S[(128,256):(256,1)]>
!gr = !axe.tensor<32x64xi8, global>
!s = !axe.tensor<32x64xi8, shared, S[(32,64):(64,1)]>
module attributes {gpu.container_module} {
  // CHECK-LABEL: func.func @host_none
  // CHECK: axe.tma_descriptor %arg0 {box_dims = array<i64: 64, 32>, data_type = 0 : i32, element_strides = array<i64: 1, 1>, global_dims = array<i64: 256, 128>, global_offset_bytes = 0 : i64, global_strides_bytes = array<i64: 256>, interleave = 0 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, rank = 2 : i32, swizzle = 0 : i32}
  func.func @host_none(%g: !g) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@no_swizzle blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%g : !g)
    return
  }
  // CHECK: memref.global "private" @__axe_smem_0 : memref<2048xi8, #gpu.address_space<workgroup>> {alignment = 128 : i64}
  // CHECK-LABEL: gpu.func @no_swizzle
  // CHECK: !nvgpu.tensormap.descriptor<tensor = memref<32x64xi8, #gpu.address_space<workgroup>>, swizzle = none,
  // CHECK: arith.constant 2048 : index
  // CHECK: [[X:%.+]] = arith.constant 64 : index
  // CHECK-NEXT: [[Y:%.+]] = arith.constant 32 : index
  // CHECK-NEXT: nvgpu.tma.async.load %{{.+}}{{\[}}[[X]], [[Y]]{{\]}}
  gpu.module @k {
    gpu.func @no_swizzle(%g: !g) kernel {
      %t = axe.view %g : !g -> !gt
      %r = axe.slice %t[32, 64] [32, 64] : !gt to !gr
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

// Multi-issue: rows 64..128 of a 128x128 f16 matrix into two 128B-swizzled 64-column panels (panel stride 4096
// elements). One box covers one panel: [64, 64]; two issues, at columns 0 and 64, the second 64*64*2 = 8192 bytes
// into shared memory; expect_tx counts both: 16384 bytes.

!g = memref<128x128xf16>
!gt = !axe.tensor<128x128xf16, global, S[(128,128):(128,1)]>
!gr = !axe.tensor<64x128xf16, global>
!s = !axe.tensor<64x128xf16, shared, Swizzle(3,3,3) o S[(64,2,64):(64,4096,1)]>
module attributes {gpu.container_module} {
  // CHECK-LABEL: func.func @host_panels
  // CHECK: axe.tma_descriptor %arg0 {box_dims = array<i64: 64, 64>, data_type = 6 : i32, element_strides = array<i64: 1, 1>, global_dims = array<i64: 128, 128>, global_offset_bytes = 0 : i64, global_strides_bytes = array<i64: 256>, interleave = 0 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, rank = 2 : i32, swizzle = 3 : i32}
  func.func @host_panels(%g: !g) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@two_panels blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%g : !g)
    return
  }
  // CHECK: memref.global "private" @__axe_smem_0 : memref<16384xi8, #gpu.address_space<workgroup>> {alignment = 1024 : i64}
  // CHECK-LABEL: gpu.func @two_panels
  // CHECK: [[BYTES:%.+]] = arith.constant 16384 : index
  // CHECK-NEXT: nvgpu.mbarrier.arrive.expect_tx %{{.+}}, [[BYTES]]
  // CHECK-NEXT: [[OFF0:%.+]] = arith.constant 0 : index
  // CHECK-NEXT: [[BOX0:%.+]] = memref.view %{{.+}}{{\[}}[[OFF0]]{{\]}}[] : {{.*}} to memref<64x64xf16, #gpu.address_space<workgroup>>
  // CHECK-NEXT: [[X0:%.+]] = arith.constant 0 : index
  // CHECK-NEXT: [[Y0:%.+]] = arith.constant 64 : index
  // CHECK-NEXT: nvgpu.tma.async.load %{{.+}}{{\[}}[[X0]], [[Y0]]{{\]}}, %{{.+}} to [[BOX0]]
  // CHECK-NEXT: [[OFF1:%.+]] = arith.constant 8192 : index
  // CHECK-NEXT: [[BOX1:%.+]] = memref.view %{{.+}}{{\[}}[[OFF1]]{{\]}}[]
  // CHECK-NEXT: [[X1:%.+]] = arith.constant 64 : index
  // CHECK-NEXT: [[Y1:%.+]] = arith.constant 64 : index
  // CHECK-NEXT: nvgpu.tma.async.load %{{.+}}{{\[}}[[X1]], [[Y1]]{{\]}}, %{{.+}} to [[BOX1]]
  // CHECK-NEXT: }
  gpu.module @k {
    gpu.func @two_panels(%g: !g) kernel {
      %t = axe.view %g : !g -> !gt
      %r = axe.slice %t[64, 0] [64, 128] : !gt to !gr
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

// An 8-issue loop: shared S[(8,8,8):(8,64,1)] stores the 8x64 tile as eight 8x8 column blocks of 128 bytes. The
// box may take the 8 columns and the 8 rows of a block, but not the block index (it would split the column
// dimension around the rows), so box [8, 8] and one issue per block: coordinates [8b, 0] at byte 128b.

!g = memref<8x64xf16>
!gt = !axe.tensor<8x64xf16, global, S[(8,64):(64,1)]>
!s = !axe.tensor<8x64xf16, shared, S[(8,8,8):(8,64,1)]>
module attributes {gpu.container_module} {
  // CHECK-LABEL: func.func @host_loop
  // CHECK: axe.tma_descriptor %arg0 {box_dims = array<i64: 8, 8>, data_type = 6 : i32, element_strides = array<i64: 1, 1>, global_dims = array<i64: 64, 8>, global_offset_bytes = 0 : i64, global_strides_bytes = array<i64: 128>, interleave = 0 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, rank = 2 : i32, swizzle = 0 : i32}
  func.func @host_loop(%g: !g) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@eight_issues blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%g : !g)
    return
  }
  // CHECK-LABEL: gpu.func @eight_issues
  // CHECK: arith.constant 1024 : index
  // CHECK-COUNT-7: nvgpu.tma.async.load
  // CHECK-NEXT: [[OFF:%.+]] = arith.constant 896 : index
  // CHECK-NEXT: memref.view %{{.+}}{{\[}}[[OFF]]{{\]}}[] : {{.*}} to memref<8x8xf16, #gpu.address_space<workgroup>>
  // CHECK-NEXT: [[X:%.+]] = arith.constant 56 : index
  // CHECK-NEXT: [[Y:%.+]] = arith.constant 0 : index
  // CHECK-NEXT: nvgpu.tma.async.load %{{.+}}{{\[}}[[X]], [[Y]]{{\]}}
  // CHECK-NOT: nvgpu.tma.async.load
  gpu.module @k {
    gpu.func @eight_issues(%g: !g) kernel {
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

// Rank 3: batches 2..4 of a (4, 64, 64) f16 tensor. Box [64, 64, 2] (the batch continues the shared chain:
// 64*64 = 4096), global dims [64, 64, 4], strides 64*2 = 128 and 4096*2 = 8192 bytes, coordinates [0, 0, 2].

!g = memref<4x64x64xf16>
!gt = !axe.tensor<4x64x64xf16, global, S[(4,64,64):(4096,64,1)]>
!gr = !axe.tensor<2x64x64xf16, global>
!s = !axe.tensor<2x64x64xf16, shared, Swizzle(3,3,3) o S[(2,64,64):(4096,64,1)]>
module attributes {gpu.container_module} {
  // CHECK-LABEL: func.func @host_rank3
  // CHECK: axe.tma_descriptor %arg0 {box_dims = array<i64: 64, 64, 2>, data_type = 6 : i32, element_strides = array<i64: 1, 1, 1>, global_dims = array<i64: 64, 64, 4>, global_offset_bytes = 0 : i64, global_strides_bytes = array<i64: 128, 8192>, interleave = 0 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, rank = 3 : i32, swizzle = 3 : i32}
  func.func @host_rank3(%g: !g) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@rank3 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%g : !g)
    return
  }
  // CHECK-LABEL: gpu.func @rank3
  // CHECK: arith.constant 16384 : index
  // CHECK: memref.view {{.*}} to memref<2x64x64xf16, #gpu.address_space<workgroup>>
  // CHECK-NEXT: [[X:%.+]] = arith.constant 0 : index
  // CHECK-NEXT: [[Y:%.+]] = arith.constant 0 : index
  // CHECK-NEXT: [[Z:%.+]] = arith.constant 2 : index
  // CHECK-NEXT: nvgpu.tma.async.load %{{.+}}{{\[}}[[X]], [[Y]], [[Z]]{{\]}}
  gpu.module @k {
    gpu.func @rank3(%g: !g) kernel {
      %t = axe.view %g : !g -> !gt
      %r = axe.slice %t[2, 0, 0] [2, 64, 64] : !gt to !gr
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

// Rank 4: a padded (2, 3, 16, 64) f16 tensor (row pitch 128 elements), region [1:2, 1:3, 0:16, 0:64]. The box
// chain is 64 columns, 16 rows, 2 of dimension 1 (shared strides 1, 64, 1024); dimension 0 is one coordinate.
// Global dims [64, 16, 3, 2], strides 128*2 = 256, 2048*2 = 4096, 6144*2 = 12288 bytes; box [64, 16, 2, 1];
// coordinates [0, 0, 1, 1]; 64*16*2*2 = 4096 bytes.

!g = memref<12288xf16>
!gt = !axe.tensor<2x3x16x64xf16, global, S[(2,3,16,64):(6144,2048,128,1)]>
!gr = !axe.tensor<1x2x16x64xf16, global>
!s = !axe.tensor<1x2x16x64xf16, shared, Swizzle(3,3,3) o S[(1,2,16,64):(2048,1024,64,1)]>
module attributes {gpu.container_module} {
  // CHECK-LABEL: func.func @host_rank4
  // CHECK: axe.tma_descriptor %arg0 {box_dims = array<i64: 64, 16, 2, 1>, data_type = 6 : i32, element_strides = array<i64: 1, 1, 1, 1>, global_dims = array<i64: 64, 16, 3, 2>, global_offset_bytes = 0 : i64, global_strides_bytes = array<i64: 256, 4096, 12288>, interleave = 0 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, rank = 4 : i32, swizzle = 3 : i32}
  func.func @host_rank4(%g: !g) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@rank4 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%g : !g)
    return
  }
  // CHECK-LABEL: gpu.func @rank4
  // CHECK: arith.constant 4096 : index
  // CHECK: memref.view {{.*}} to memref<1x2x16x64xf16, #gpu.address_space<workgroup>>
  // CHECK-NEXT: [[C0:%.+]] = arith.constant 0 : index
  // CHECK-NEXT: [[C1:%.+]] = arith.constant 0 : index
  // CHECK-NEXT: [[C2:%.+]] = arith.constant 1 : index
  // CHECK-NEXT: [[C3:%.+]] = arith.constant 1 : index
  // CHECK-NEXT: nvgpu.tma.async.load %{{.+}}{{\[}}[[C0]], [[C1]], [[C2]], [[C3]]{{\]}}
  gpu.module @k {
    gpu.func @rank4(%g: !g) kernel {
      %t = axe.view %g : !g -> !gt
      %r = axe.slice %t[1, 1, 0, 0] [1, 2, 16, 64] : !gt to !gr
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

// Rank 5: a contiguous (2, 2, 2, 8, 64) f16 tensor, region [1:2, 0:2, 1:2, 0:8, 0:64]. Boxed: 64 columns, 8
// rows, dimension 1 (global stride 1024 elements); then the coordinate-only dimensions by stride: dimension 2
// (512 elements) and dimension 0 (2048). Global dims [64, 8, 2, 2, 2], strides [128, 2048, 1024, 4096] bytes,
// box [64, 8, 2, 1, 1], coordinates [0, 0, 0, 1, 1], 64*8*2*2 = 2048 bytes.

!g = memref<4096xf16>
!gt = !axe.tensor<2x2x2x8x64xf16, global, S[(2,2,2,8,64):(2048,1024,512,64,1)]>
!gr = !axe.tensor<1x2x1x8x64xf16, global>
!s = !axe.tensor<1x2x1x8x64xf16, shared, Swizzle(3,3,3) o S[(2,8,64):(512,64,1)]>
module attributes {gpu.container_module} {
  // CHECK-LABEL: func.func @host_rank5
  // CHECK: axe.tma_descriptor %arg0 {box_dims = array<i64: 64, 8, 2, 1, 1>, data_type = 6 : i32, element_strides = array<i64: 1, 1, 1, 1, 1>, global_dims = array<i64: 64, 8, 2, 2, 2>, global_offset_bytes = 0 : i64, global_strides_bytes = array<i64: 128, 2048, 1024, 4096>, interleave = 0 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, rank = 5 : i32, swizzle = 3 : i32}
  func.func @host_rank5(%g: !g) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@rank5 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%g : !g)
    return
  }
  // CHECK-LABEL: gpu.func @rank5
  // CHECK: arith.constant 2048 : index
  // CHECK: memref.view {{.*}} to memref<1x1x2x8x64xf16, #gpu.address_space<workgroup>>
  // CHECK-NEXT: [[C0:%.+]] = arith.constant 0 : index
  // CHECK-NEXT: [[C1:%.+]] = arith.constant 0 : index
  // CHECK-NEXT: [[C2:%.+]] = arith.constant 0 : index
  // CHECK-NEXT: [[C3:%.+]] = arith.constant 1 : index
  // CHECK-NEXT: [[C4:%.+]] = arith.constant 1 : index
  // CHECK-NEXT: nvgpu.tma.async.load %{{.+}}{{\[}}[[C0]], [[C1]], [[C2]], [[C3]], [[C4]]{{\]}}
  gpu.module @k {
    gpu.func @rank5(%g: !g) kernel {
      %t = axe.view %g : !g -> !gt
      %r = axe.slice %t[1, 0, 1, 0, 0] [1, 2, 1, 8, 64] : !gt to !gr
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

// Promotion: 512 halves per row exceed the 256-element box limit; as UINT32 (dtype 2) one 256x16 box copies
// columns 512..1024 of a 16x1024 f16 matrix: global dims [512, 16] (in u32), stride 2048 bytes, coordinate
// [256, 0] (512 halves = 256 words), box memref of i32.

!g = memref<16x1024xf16>
!gt = !axe.tensor<16x1024xf16, global, S[(16,1024):(1024,1)]>
!gr = !axe.tensor<16x512xf16, global>
!s = !axe.tensor<16x512xf16, shared, S[(16,512):(512,1)]>
module attributes {gpu.container_module} {
  // CHECK-LABEL: func.func @host_promoted
  // CHECK: axe.tma_descriptor %arg0 {box_dims = array<i64: 256, 16>, data_type = 2 : i32, element_strides = array<i64: 1, 1>, global_dims = array<i64: 512, 16>, global_offset_bytes = 0 : i64, global_strides_bytes = array<i64: 2048>, interleave = 0 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, rank = 2 : i32, swizzle = 0 : i32}
  func.func @host_promoted(%g: !g) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@promoted blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%g : !g)
    return
  }
  // CHECK-LABEL: gpu.func @promoted
  // CHECK: !nvgpu.tensormap.descriptor<tensor = memref<16x256xi32, #gpu.address_space<workgroup>>, swizzle = none,
  // CHECK: arith.constant 16384 : index
  // CHECK: [[X:%.+]] = arith.constant 256 : index
  // CHECK-NEXT: [[Y:%.+]] = arith.constant 0 : index
  // CHECK-NEXT: nvgpu.tma.async.load %{{.+}}{{\[}}[[X]], [[Y]]{{\]}}
  gpu.module @k {
    gpu.func @promoted(%g: !g) kernel {
      %t = axe.view %g : !g -> !gt
      %r = axe.slice %t[0, 512] [16, 512] : !gt to !gr
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

// A synchronous round trip on one kernel argument: axe.copy in and out of the same 64x64 tile share one
// descriptor (box [64, 64], 8192 bytes). The load gets its own barrier, initialized at entry, and tracks its
// phase in a local; the store waits for the whole write (no {read}) and ends with a CTA barrier.

!g = memref<64x64xf16>
!gt = !axe.tensor<64x64xf16, global, S[(64,64):(64,1)]>
!s = !axe.tensor<64x64xf16, shared, Swizzle(3,3,3) o S[(64,64):(64,1)]>
module attributes {gpu.container_module} {
  // CHECK-LABEL: func.func @host_sync
  // CHECK-COUNT-1: axe.tma_descriptor %arg0 {box_dims = array<i64: 64, 64>, data_type = 6 : i32, element_strides = array<i64: 1, 1>, global_dims = array<i64: 64, 64>, global_offset_bytes = 0 : i64, global_strides_bytes = array<i64: 128>, interleave = 0 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, rank = 2 : i32, swizzle = 3 : i32}
  // CHECK-NOT: axe.tma_descriptor
  func.func @host_sync(%g: !g) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@sync_round_trip blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%g : !g)
    return
  }
  // CHECK-LABEL: gpu.func @sync_round_trip
  // CHECK: [[LEADER:%.+]] = arith.cmpi eq
  // CHECK: [[BAR:%.+]] = nvgpu.mbarrier.create
  // CHECK: scf.if [[LEADER]] {
  // CHECK-NEXT: nvgpu.mbarrier.init [[BAR]]
  // CHECK-NEXT: nvvm.fence.mbarrier.init
  // CHECK: gpu.barrier
  // CHECK-NEXT: [[PHASE:%.+]] = memref.alloca() : memref<i1>
  // CHECK: gpu.barrier
  // CHECK-NEXT: [[P:%.+]] = memref.load [[PHASE]][] : memref<i1>
  // CHECK: arith.constant 8192 : index
  // CHECK: nvgpu.tma.async.load
  // CHECK: nvgpu.mbarrier.try_wait.parity [[BAR]][{{.*}}], [[P]]
  // CHECK: [[NEXT:%.+]] = arith.xori [[P]]
  // CHECK-NEXT: memref.store [[NEXT]], [[PHASE]][]
  // CHECK: nvgpu.tma.async.store
  // CHECK: nvvm.cp.async.bulk.wait_group 0{{$}}
  // CHECK-NEXT: }
  // CHECK-NEXT: gpu.barrier
  gpu.module @k {
    gpu.func @sync_round_trip(%g: !g) kernel {
      %t = axe.view %g : !g -> !gt
      %s = axe.alloc cta : !s
      axe.copy cta %t to %s : !gt to !s
      axe.copy cta %s to %t : !s to !gt
      gpu.return
    }
  }
}

// -----

// The bundled example: init, load, wait, store. The barrier ops are lowered where they stand.

// CHECK-LABEL: func.func @example
// CHECK: [[SRC:%.+]] = axe.tma_descriptor %arg0 {box_dims = array<i64: 64, 128>, {{.*}}swizzle = 3 : i32}
// CHECK: [[DST:%.+]] = axe.tma_descriptor %arg1 {box_dims = array<i64: 64, 128>, {{.*}}swizzle = 3 : i32}
// CHECK: gpu.launch_func @k::@example_kernel {{.*}} args([[SRC]] : !llvm.ptr, [[DST]] : !llvm.ptr)
// CHECK-LABEL: gpu.func @example_kernel(%arg0: !llvm.ptr {axe.tma_descriptor = {{.*}}}, %arg1: !llvm.ptr {axe.tma_descriptor = {{.*}}})
// CHECK: [[BAR:%.+]] = nvgpu.mbarrier.create
// CHECK: [[COUNT:%.+]] = arith.constant 1 : index
// CHECK-NEXT: scf.if
// CHECK-NEXT: nvgpu.mbarrier.init [[BAR]][{{.*}}], [[COUNT]]
// CHECK-NEXT: nvvm.fence.mbarrier.init
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: nvgpu.tma.async.load
// CHECK: nvgpu.mbarrier.try_wait.parity [[BAR]]
// CHECK: nvgpu.tma.async.store
!gmem = memref<128x64xf16>
!global = !axe.tensor<128x64xf16, global, S[(128,64):(64,1)]>
!tile = !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
module attributes {gpu.container_module} {
  func.func @example(%src: !gmem, %dst: !gmem) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@example_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%src : !gmem, %dst : !gmem)
    return
  }
  gpu.module @k {
    gpu.func @example_kernel(%src: !gmem, %dst: !gmem) kernel {
      %in = axe.view %src : !gmem -> !global
      %out = axe.view %dst : !gmem -> !global
      %tile = axe.alloc cta : !tile
      %bar = axe.mbarrier_alloc cta : !axe.mbarrier
      axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
      axe.copy_async cta %in to %tile, %bar : !global to !tile, !axe.mbarrier
      %phase = arith.constant false
      axe.mbarrier_wait cta %bar, %phase : !axe.mbarrier
      axe.copy_async cta %tile to %out : !tile to !global
      gpu.return
    }
  }
}

// -----

// A kernel compiled without its host code: no launch to build the descriptor at, so the argument attribute is
// the only record of the fields (box [64, 32] for 32 rows of 128 bytes at row 96 of a 128x64 f16 matrix).

!g = memref<128x64xf16>
!gt = !axe.tensor<128x64xf16, global, S[(128,64):(64,1)]>
!gr = !axe.tensor<32x64xf16, global>
!s = !axe.tensor<32x64xf16, shared, Swizzle(3,3,3) o S[(32,64):(64,1)]>
// CHECK-LABEL: gpu.func @device_only(%arg0: !llvm.ptr {axe.tma_descriptor = {box_dims = array<i64: 64, 32>, data_type = 6 : i32, element_strides = array<i64: 1, 1>, global_dims = array<i64: 64, 128>, global_offset_bytes = 0 : i64, global_strides_bytes = array<i64: 128>, interleave = 0 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, rank = 2 : i32, swizzle = 3 : i32}}, %arg1: index) kernel
// CHECK: memref.view
// CHECK-NEXT: [[X:%.+]] = arith.constant 0 : index
// CHECK-NEXT: [[Y:%.+]] = arith.constant 96 : index
// CHECK-NEXT: nvgpu.tma.async.load %{{.+}}{{\[}}[[X]], [[Y]]{{\]}}
gpu.module @k {
  gpu.func @device_only(%g: !g, %unused: index) kernel {
    %t = axe.view %g : !g -> !gt
    %r = axe.slice %t[96, 0] [32, 64] : !gt to !gr
    %s = axe.alloc cta : !s
    %bar = axe.mbarrier_alloc cta : !axe.mbarrier
    axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
    axe.copy_async cta %r to %s, %bar : !gr to !s, !axe.mbarrier
    %phase = arith.constant false
    axe.mbarrier_wait cta %bar, %phase : !axe.mbarrier
    gpu.return
  }
}

// -----

// Nothing to lower: ops other than TMA copies are left alone.

// CHECK-LABEL: func.func @no_copies
// CHECK-NEXT: axe.annotate %arg0 layout(S[8:1]) : f32
// CHECK-NOT: nvgpu
func.func @no_copies(%a: f32) {
  axe.annotate %a layout(S[8:1]) : f32
  return
}
