// --lower-tma on a barrier array (issue 23): !axe.mbarrier<3> becomes one nvgpu barrier group of 3 (one shared
// array, addressed base + 8 * index by convert-nvgpu-to-nvvm); the index-less init initializes elements 0, 1 and 2
// on the leader; every op on %bars[%s] keeps the run-time stage index %s (arith.remui %i, %c3), for the
// expect_tx, the TMA load's completion barrier and the wait alike. Then the whole pipeline reaches PTX.
// RUN: axe-opt %s --lower-tma | FileCheck %s
// RUN: axe-opt %s --lower-tma --lower-to-nvvm | axe-translate --emit=ptx --chip=sm_90a | FileCheck %s --check-prefix=PTX

// CHECK: %[[BARS:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
// CHECK: scf.if
// CHECK: %[[E0:.*]] = arith.constant 0 : index
// CHECK-NEXT: nvgpu.mbarrier.init %[[BARS]][%[[E0]]], %[[ONE:.*]] : <memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
// CHECK-NEXT: %[[E1:.*]] = arith.constant 1 : index
// CHECK-NEXT: nvgpu.mbarrier.init %[[BARS]][%[[E1]]], %[[ONE]]
// CHECK-NEXT: %[[E2:.*]] = arith.constant 2 : index
// CHECK-NEXT: nvgpu.mbarrier.init %[[BARS]][%[[E2]]], %[[ONE]]
// CHECK-NEXT: nvvm.fence.mbarrier.init
// CHECK: scf.for
// CHECK: %[[S:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[BARS]][%[[S]]], %{{.*}} : <memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
// CHECK: nvgpu.tma.async.load %{{.*}}[%{{.*}}, %{{.*}}], %[[BARS]][%[[S]]] to
// CHECK: nvgpu.mbarrier.try_wait.parity %[[BARS]][%[[S]]], %{{.*}}, %{{.*}} : <memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
// CHECK-NOT: axe.
// Three mbarriers of 8 bytes each in one shared array, initialized at byte offsets 0, 8 and 16.
// PTX: .shared .align 8 .b8 [[BAR:__mbarrier[_0-9]*]][24];
// PTX: mbarrier.init.shared.b64 {{.*}}[[[BAR]]], [[COUNT:%r[0-9]+]];
// PTX-NEXT: mbarrier.init.shared.b64 {{.*}}[[[BAR]]+8], [[COUNT]];
// PTX-NEXT: mbarrier.init.shared.b64 {{.*}}[[[BAR]]+16], [[COUNT]];
// PTX: mbarrier.try_wait.parity

!g = !axe.tensor<256x64xf16, global, S[(256,64):(64,1)]>
!tile = !axe.tensor<64x64xf16, global>
!ring = !axe.tensor<192x64xf16, shared, Swizzle(3,3,3) o S[(192,64):(64,1)]>
!stage = !axe.tensor<64x64xf16, shared>
module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_90a"} {
    gpu.func @ring(%src: memref<16384xf16>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c64 = arith.constant 64 : index
      %false = arith.constant false
      %g = axe.view %src : memref<16384xf16> -> !g
      %ring = axe.alloc cta : !ring
      %bars = axe.mbarrier_alloc cta : !axe.mbarrier<3>
      axe.mbarrier_init cta %bars count 1 : !axe.mbarrier<3>
      scf.for %i = %c0 to %c4 step %c1 {
        %s = arith.remui %i, %c3 : index
        %row = arith.muli %i, %c64 : index
        %srow = arith.muli %s, %c64 : index
        %t = axe.slice %g[%row, 0] [64, 64] : !g to !tile
        %st = axe.slice %ring[%srow, 0] [64, 64] : !ring to !stage
        axe.mbarrier_arrive_expect_tx cta %bars[%s] bytes 8192 : !axe.mbarrier<3>
        axe.copy_async cta %t to %st, %bars[%s] : !tile to !stage, !axe.mbarrier<3>
        axe.mbarrier_wait cta %bars[%s], %false : !axe.mbarrier<3>
      }
      gpu.return
    }
  }
}
