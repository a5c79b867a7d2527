// TMA copies into and out of a stage of a shared ring chosen at run time: the ring [3, 128, 64] of f16 under the
// 128B swizzle (Swizzle(3,3,3) o S[(3,128,64):(8192,64,1)]) sliced [%stage, 0, 0]. The planner states the box's
// shared byte offset as 0 + 16384 * stage (8192 halves per stage; 16384 is a multiple of the 1024-byte swizzle
// period), and --lower-tma emits it as arith on the stage for the memref.view of the box of the ring's buffer
// (3 x 16384 = 49152 bytes). Numbers by hand.
// RUN: axe-opt %s -split-input-file --lower-tma | FileCheck %s

// The pipeline's load: stage = k/64 mod 3 (arith.remui), A[m0.., k..] at run-time coordinates [k, m0] (A viewed
// with a unit leading dimension, so that both sides of the copy have the stage's shape [1, 128, 64]).
!A = memref<256x512xf16>
!gt = !axe.tensor<1x256x512xf16, global, S[(1,256,512):(0,512,1)]>
!gr = !axe.tensor<1x128x64xf16, global>
!ring = !axe.tensor<3x128x64xf16, shared, Swizzle(3,3,3) o S[(3,128,64):(8192,64,1)]>
!st = !axe.tensor<1x128x64xf16, shared>
// CHECK-LABEL: gpu.func @ring_load
// CHECK: [[DESC:%.+]] = builtin.unrealized_conversion_cast %arg0
// CHECK: scf.for [[K:%[a-z0-9_]+]] =
// CHECK: [[STAGE:%.+]] = arith.remui
// CHECK: scf.if
// CHECK-NEXT: [[BYTES:%.+]] = arith.constant 16384 : index
// CHECK-NEXT: nvgpu.mbarrier.arrive.expect_tx %{{.+}}, [[BYTES]]
// CHECK-NEXT: [[PER:%.+]] = arith.constant 16384 : index
// CHECK-NEXT: [[OFF:%.+]] = arith.muli [[STAGE]], [[PER]] : index
// CHECK-NEXT: [[BOX:%.+]] = memref.view %{{.+}}{{\[}}[[OFF]]{{\]}}[] : memref<49152xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: nvgpu.tma.async.load [[DESC]]{{\[}}[[K]], %{{.+}}{{\]}}, %{{.+}} to [[BOX]]
// CHECK-NEXT: }
// CHECK-NOT: axe.
// CHECK: gpu.return
gpu.module @k {
  gpu.func @ring_load(%a: !A, %k_end: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %false = arith.constant false
    %true = arith.constant true
    %bid = gpu.block_id x
    %m0 = arith.muli %bid, %c128 : index
    %t = axe.view %a : !A -> !gt
    %ring = axe.alloc cta : !ring
    %bar = axe.mbarrier_alloc cta : !axe.mbarrier
    axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
    %last = scf.for %k = %c0 to %k_end step %c64 iter_args(%p = %false) -> (i1) {
      %kt = arith.divui %k, %c64 : index
      %stage = arith.remui %kt, %c3 : index
      %tile = axe.slice %t[0, %m0, %k] [1, 128, 64] : !gt to !gr
      %st = axe.slice %ring[%stage, 0, 0] [1, 128, 64] : !ring to !st
      axe.copy_async cta %tile to %st, %bar : !gr to !st, !axe.mbarrier
      axe.mbarrier_wait cta %bar, %p : !axe.mbarrier
      %next = arith.xori %p, %true : i1
      scf.yield %next : i1
    }
    gpu.return
  }
}

// -----

// The epilogue's store from a ring kept as rows: [256, 64] f16 (two 128-row stages), sliced at row 64 + %r with
// %r = 128 * %s (arith.muli: a multiple of 128 rows, 16384 bytes, a multiple of the 1024-byte period). The box is
// rows 64..128 of the stage: byte offset 8192 (static) + 128 * %r (128 bytes per row); box [64, 64].
!C = memref<256x256xf16>
!gt = !axe.tensor<256x256xf16, global, S[(256,256):(256,1)]>
!gr = !axe.tensor<64x64xf16, global>
!ring = !axe.tensor<256x64xf16, shared, Swizzle(3,3,3) o S[(256,64):(64,1)]>
!st = !axe.tensor<128x64xf16, shared>
!half = !axe.tensor<64x64xf16, shared>
// CHECK-LABEL: gpu.func @ring_store
// CHECK: [[R:%.+]] = arith.muli %arg1, %{{.+}} : index
// CHECK: nvvm.fence.proxy
// CHECK: scf.if
// CHECK-NEXT: [[PER:%.+]] = arith.constant 128 : index
// CHECK-NEXT: [[MOVED:%.+]] = arith.muli [[R]], [[PER]] : index
// CHECK-NEXT: [[STATIC:%.+]] = arith.constant 8192 : index
// CHECK-NEXT: [[OFF:%.+]] = arith.addi [[STATIC]], [[MOVED]] : index
// CHECK-NEXT: [[BOX:%.+]] = memref.view %{{.+}}{{\[}}[[OFF]]{{\]}}[] : memref<32768xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.tma.async.store [[BOX]] to
gpu.module @k {
  gpu.func @ring_store(%c: !C, %s: index) kernel {
    %c128 = arith.constant 128 : index
    %r = arith.muli %s, %c128 : index
    %t = axe.view %c : !C -> !gt
    %out = axe.slice %t[0, 0] [64, 64] : !gt to !gr
    %ring = axe.alloc cta : !ring
    %st = axe.slice %ring[%r, 0] [128, 64] : !ring to !st
    %half = axe.slice %st[64, 0] [64, 64] : !st to !half
    axe.copy_async cta %half to %out : !half to !gr
    gpu.return
  }
}
