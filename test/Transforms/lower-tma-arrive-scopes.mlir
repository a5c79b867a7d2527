// --lower-tma on arrivals below cta scope (issue 25): a consumer that releases a stage arrives once per instance of
// the arrive's scope. A warpgroup-scope arrive is guarded by "first thread of its 128" on the linear thread index
// x + dim_x * (y + dim_y * z) (x alone in a block known to be flat), a warp-scope one by "first of its 32", a
// thread-scope one by nothing (a warp-scope one by elect.sync where the block is known to be whole warps on
// sm_90+); a cta-scope one keeps the CTA's elected leader. Then the pipeline reaches PTX.
// RUN: axe-opt %s --lower-tma | FileCheck %s
// RUN: axe-opt %s --lower-tma --lower-to-nvvm | axe-translate --emit=ptx --chip=sm_90a | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: gpu.func @release
// CHECK: %[[BARS:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
// The warpgroup arrive, in a block of unknown shape: the first thread of each warpgroup.
// CHECK: %[[X:.*]] = gpu.thread_id x
// CHECK-NEXT: %[[Y:.*]] = gpu.thread_id y
// CHECK-NEXT: %[[Z:.*]] = gpu.thread_id z
// CHECK-NEXT: %[[DX:.*]] = gpu.block_dim x
// CHECK-NEXT: %[[DY:.*]] = gpu.block_dim y
// CHECK-NEXT: %[[YZ:.*]] = arith.muli %[[DY]], %[[Z]] : index
// CHECK-NEXT: %[[PLANE:.*]] = arith.addi %[[Y]], %[[YZ]] : index
// CHECK-NEXT: %[[ROWS:.*]] = arith.muli %[[DX]], %[[PLANE]] : index
// CHECK-NEXT: %[[LINEAR:.*]] = arith.addi %[[X]], %[[ROWS]] : index
// CHECK-NEXT: %[[C128:.*]] = arith.constant 128 : index
// CHECK-NEXT: %[[R:.*]] = arith.remui %[[LINEAR]], %[[C128]] : index
// CHECK-NEXT: %[[Z0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi eq, %[[R]], %[[Z0]] : index
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT: nvgpu.mbarrier.arrive %[[BARS]][%[[S:.*]]] :
// CHECK-NEXT: }
// The warp arrive: the first thread of each warp.
// CHECK: %[[C32:.*]] = arith.constant 32 : index
// CHECK-NEXT: %[[R32:.*]] = arith.remui %{{.*}}, %[[C32]] : index
// CHECK-NEXT: %{{.*}} = arith.constant 0 : index
// CHECK-NEXT: %[[LANE0:.*]] = arith.cmpi eq, %[[R32]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[LANE0]] {
// CHECK-NEXT: nvgpu.mbarrier.arrive %[[BARS]][%[[S]]] :
// CHECK-NEXT: }
// The thread arrive: every thread, unguarded.
// CHECK: %{{.*}} = nvgpu.mbarrier.arrive %[[BARS]][%[[S]]] :
// CHECK-NEXT: gpu.return
// A known block of whole warps on sm_90a: the warp arrive is guarded by the elect.sync at the block's top (here
// the kernel entry, which the CTA leader's test shares), one lane per warp.
// CHECK-LABEL: gpu.func @flat
// CHECK: %[[ELECT:.*]] = nvvm.elect.sync -> i1
// CHECK: gpu.barrier
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: scf.if %[[ELECT]] {
// CHECK-NEXT: nvgpu.mbarrier.arrive
// CHECK-NOT: axe.
// PTX-LABEL: .entry release(
// PTX-COUNT-3: mbarrier.arrive.shared.b64
// PTX-NOT: mbarrier.arrive
// PTX-LABEL: .entry flat(

!bars = !axe.mbarrier<2>
module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_90a"} {
    gpu.func @release(%s: index) kernel {
      %bars = axe.mbarrier_alloc cta : !bars
      axe.mbarrier_init cta %bars count 2 : !bars
      axe.mbarrier_arrive warpgroup %bars[%s] : !bars
      axe.mbarrier_arrive warp %bars[%s] : !bars
      axe.mbarrier_arrive thread %bars[%s] : !bars
      gpu.return
    }
    gpu.func @flat(%s: index) kernel attributes {known_block_size = array<i32: 96, 1, 1>} {
      %bars = axe.mbarrier_alloc cta : !bars
      axe.mbarrier_init cta %bars count 3 : !bars
      axe.mbarrier_arrive warp %bars[%s] : !bars
      gpu.return
    }
  }
}
