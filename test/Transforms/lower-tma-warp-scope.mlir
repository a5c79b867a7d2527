// --lower-tma on a producer warp's loads (issue 25): an axe.copy_async global -> shared on an mbarrier at warp
// scope, and the expect_tx announcing it, are issued by one lane of each warp that executes them: the lane the
// elect.sync at the top of their block elects (sm_90a, a known block of whole warps), with no "warp 0" test (the
// CTA's leader has one: cta-scope ops are warp 0's). The warp that runs them is the kernel's choice: here warp 1.
// RUN: axe-opt %s --lower-tma | FileCheck %s
// RUN: axe-opt %s --lower-tma --lower-to-nvvm | axe-translate --emit=ptx --chip=sm_90a | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: gpu.func @producer_warp
// CHECK: %[[WARP1:.*]] = arith.cmpi uge
// CHECK-NEXT: scf.if %[[WARP1]] {
// CHECK-NEXT: %[[ELECT:.*]] = nvvm.elect.sync -> i1
// CHECK-NOT: arith.andi
// CHECK: %[[BYTES:.*]] = arith.constant 8192 : index
// CHECK-NEXT: scf.if %[[ELECT]] {
// CHECK-NEXT: nvgpu.mbarrier.arrive.expect_tx %{{.*}}[%{{.*}}], %[[BYTES]]
// CHECK-NEXT: }
// CHECK: scf.if %[[ELECT]] {
// CHECK: nvgpu.tma.async.load
// CHECK-NOT: axe.
// PTX-LABEL: .entry producer_warp(
// PTX: elect.sync
// PTX: mbarrier.arrive.expect_tx.shared.b64
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes

!g = !axe.tensor<64x64xf16, global, S[(64,64):(64,1)]>
!s = !axe.tensor<64x64xf16, shared, Swizzle(3,3,3) o S[(64,64):(64,1)]>
module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_90a"} {
    gpu.func @producer_warp(%m: memref<4096xf16>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c32 = arith.constant 32 : index
      %false = arith.constant false
      %g = axe.view %m : memref<4096xf16> -> !g
      %s = axe.alloc cta : !s
      %bar = axe.mbarrier_alloc cta : !axe.mbarrier
      axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
      %tid = gpu.thread_id x
      %warp1 = arith.cmpi uge, %tid, %c32 : index
      scf.if %warp1 {
        axe.mbarrier_arrive_expect_tx warp %bar bytes 8192 : !axe.mbarrier
        axe.copy_async warp %g to %s, %bar : !g to !s, !axe.mbarrier
      }
      axe.mbarrier_wait cta %bar, %false : !axe.mbarrier
      gpu.return
    }
  }
}
