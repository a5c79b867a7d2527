// TMA copies whose global region moves at run time (axe.slice offsets that are SSA values): the planner states
// each coordinate as its static value plus terms in the offsets, and --lower-tma emits them as arith on the
// offsets. Every number is worked out by hand from the layouts.
// RUN: axe-opt %s -split-input-file --lower-tma | FileCheck %s

// The GEMM loop's A operand: A[m0:m0+128, k:k+64] of a row-major 256x512 f16 matrix, m0 = 128 * block id, k
// stepping by 64 over K. One 64x128 box (128B swizzle) per iteration, as the static copy at (0, 0): coordinates
// [column, row] = [k, m0], both moved one coordinate per element (no arithmetic needed), 16384 bytes per phase;
// the parity flips each iteration.

!A = memref<256x512xf16>
!gt = !axe.tensor<256x512xf16, global, S[(256,512):(512,1)]>
!gr = !axe.tensor<128x64xf16, global>
!s = !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
module attributes {gpu.container_module} {
  // CHECK-LABEL: func.func @host_k_loop
  // CHECK: axe.tma_descriptor %arg0 {box_dims = array<i64: 64, 128>, data_type = 6 : i32, element_strides = array<i64: 1, 1>, global_dims = array<i64: 512, 256>, global_offset_bytes = 0 : i64, global_strides_bytes = array<i64: 1024>, interleave = 0 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, rank = 2 : i32, swizzle = 3 : i32}
  func.func @host_k_loop(%a: !A, %k_end: index) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    gpu.launch_func @k::@k_loop blocks in (%c2, %c1, %c1) threads in (%c128, %c1, %c1) args(%a : !A, %k_end : index)
    return
  }
  // CHECK-LABEL: gpu.func @k_loop
  // CHECK: [[DESC:%.+]] = builtin.unrealized_conversion_cast %arg0
  // CHECK: [[BID:%.+]] = gpu.block_id x
  // CHECK: [[M0:%.+]] = arith.muli [[BID]], %{{.+}} : index
  // CHECK: [[BAR:%.+]] = nvgpu.mbarrier.create
  // CHECK: scf.for [[K:%[a-z0-9_]+]] = %{{.+}} to %arg1 step %{{.+}} iter_args([[P:%[a-z0-9_]+]] = %false)
  // CHECK: scf.if
  // CHECK-NEXT: [[BYTES:%.+]] = arith.constant 16384 : index
  // CHECK-NEXT: nvgpu.mbarrier.arrive.expect_tx [[BAR]][{{.*}}], [[BYTES]]
  // CHECK-NEXT: arith.constant 0 : index
  // CHECK-NEXT: [[BOX:%.+]] = memref.view
  // CHECK-NEXT: nvgpu.tma.async.load [[DESC]]{{\[}}[[K]], [[M0]]{{\]}}, [[BAR]][{{.*}}] to [[BOX]]
  // CHECK-NEXT: }
  // CHECK: nvgpu.mbarrier.try_wait.parity [[BAR]][{{.*}}], [[P]]
  // CHECK-NOT: axe.
  // CHECK: gpu.return
  gpu.module @k {
    gpu.func @k_loop(%a: !A, %k_end: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %false = arith.constant false
      %true = arith.constant true
      %bid = gpu.block_id x
      %m0 = arith.muli %bid, %c128 : index
      %t = axe.view %a : !A -> !gt
      %s = axe.alloc cta : !s
      %bar = axe.mbarrier_alloc cta : !axe.mbarrier
      axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
      %last = scf.for %k = %c0 to %k_end step %c64 iter_args(%p = %false) -> (i1) {
        %tile = axe.slice %t[%m0, %k] [128, 64] : !gt to !gr
        axe.copy_async cta %tile to %s, %bar : !gr to !s, !axe.mbarrier
        axe.mbarrier_wait cta %bar, %p : !axe.mbarrier
        %next = arith.xori %p, %true : i1
        scf.yield %next : i1
      }
      gpu.return
    }
  }
}

// -----

// A static part on top of a run-time one: rows 64..128 of the block's 128-row band (a slice of a slice), stored
// back. Row coordinate 64 + m0 (arith.addi), column 0 + n0 (the offset alone); box [64, 64], 8192 bytes.

!C = memref<256x256xf16>
!gt = !axe.tensor<256x256xf16, global, S[(256,256):(256,1)]>
!band = !axe.tensor<128x64xf16, global>
!half = !axe.tensor<64x64xf16, global>
!s = !axe.tensor<64x64xf16, shared, Swizzle(3,3,3) o S[(64,64):(64,1)]>
// CHECK-LABEL: gpu.func @store_static_plus_dynamic
// CHECK: [[DESC:%.+]] = builtin.unrealized_conversion_cast %arg0
// CHECK: nvvm.fence.proxy
// CHECK: scf.if
// CHECK-NEXT: [[OFF:%.+]] = arith.constant 0 : index
// CHECK-NEXT: [[BOX:%.+]] = memref.view %{{.+}}{{\[}}[[OFF]]{{\]}}[]
// CHECK-NEXT: [[ROW0:%.+]] = arith.constant 64 : index
// CHECK-NEXT: [[ROW:%.+]] = arith.addi [[ROW0]], %arg1 : index
// CHECK-NEXT: nvgpu.tma.async.store [[BOX]] to [[DESC]]{{\[}}%arg2, [[ROW]]{{\]}}
gpu.module @k {
  gpu.func @store_static_plus_dynamic(%c: !C, %m0: index, %n0: index) kernel {
    %t = axe.view %c : !C -> !gt
    %band = axe.slice %t[%m0, %n0] [128, 64] : !gt to !band
    %half = axe.slice %band[64, 0] [64, 64] : !band to !half
    %s = axe.alloc cta : !s
    axe.copy_async cta %s to %half : !s to !half
    gpu.return
  }
}

// -----

// A matrix stored as four 64-column panels (S[(128,4,64):(64,8192,1)]): k steps by 64, a whole panel, so it
// moves the panel coordinate by k / 64 (arith.divsi) and the in-panel column stays 0. Descriptor dims [64, 128, 4]
// (columns, rows, panels), box [64, 128, 1]; a constant offset (the row 0 operand) folds into the static part.

!A = memref<32768xf16>
!gt = !axe.tensor<128x256xf16, global, S[(128,4,64):(64,8192,1)]>
!gr = !axe.tensor<128x64xf16, global>
!s = !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
// CHECK-LABEL: gpu.func @panels(%arg0: !llvm.ptr {axe.tma_descriptor = {box_dims = array<i64: 64, 128, 1>, data_type = 6 : i32, element_strides = array<i64: 1, 1, 1>, global_dims = array<i64: 64, 128, 4>, global_offset_bytes = 0 : i64, global_strides_bytes = array<i64: 128, 16384>, interleave = 0 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, rank = 3 : i32, swizzle = 3 : i32}}
// CHECK: scf.for [[K:%[a-z0-9_]+]] =
// CHECK: scf.if
// CHECK: [[C64:%.+]] = arith.constant 64 : index
// CHECK-NEXT: [[PANEL:%.+]] = arith.divsi [[K]], [[C64]] : index
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: [[BOX:%.+]] = memref.view
// CHECK-NEXT: [[X:%.+]] = arith.constant 0 : index
// CHECK-NEXT: [[Y:%.+]] = arith.constant 0 : index
// CHECK-NEXT: nvgpu.tma.async.load %{{.+}}{{\[}}[[X]], [[Y]], [[PANEL]]{{\]}}
gpu.module @k {
  gpu.func @panels(%a: !A) kernel {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    %false = arith.constant false
    %true = arith.constant true
    %t = axe.view %a : !A -> !gt
    %s = axe.alloc cta : !s
    %bar = axe.mbarrier_alloc cta : !axe.mbarrier
    axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
    %last = scf.for %k = %c0 to %c256 step %c64 iter_args(%p = %false) -> (i1) {
      %tile = axe.slice %t[%c0, %k] [128, 64] : !gt to !gr
      axe.copy_async cta %tile to %s, %bar : !gr to !s, !axe.mbarrier
      axe.mbarrier_wait cta %bar, %p : !axe.mbarrier
      %next = arith.xori %p, %true : i1
      scf.yield %next : i1
    }
    gpu.return
  }
}
