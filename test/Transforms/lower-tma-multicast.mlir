// RUN: axe-opt %s --split-input-file --lower-tma | FileCheck %s
// RUN: axe-opt %s --split-input-file --lower-tma --lower-to-nvvm | axe-translate --emit=ptx --chip=sm_90a -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin
// Cluster multicast (issue 12, item 5): a load at cluster scope into a shared tile replicated over the cluster's
// CTA axes becomes cp.async.bulk.tensor ... .multicast::cluster (nvgpu.tma.async.load with multicast_mask). The
// numbers are derived by hand (the plan is proven on the hardware model in layout/tests/tma_multicast.rs).
//
// The 128x64 f16 tile at (row 128, col 64) of a row-major 256x256 matrix, 128B-swizzled, in both CTAs of a 2x1x1
// cluster (R[2:1@cbx]): ctaMask 0b11 = 3. The tile alone is one box [64, 128]; the planner splits it between the
// two CTAs: CTA 0 issues rows 128..192 (coordinates [64, 128]) to shared byte 0, CTA 1 rows 192..256 ([64, 192])
// to 64 * 64 * 2 = 8192. Each CTA's leader announces the whole 16384 bytes on its own barrier, after a cluster
// barrier (every CTA's mbarrier is initialized before another CTA's TMA signals it).

!g = memref<256x256xf16>
!gt = !axe.tensor<256x256xf16, global, S[(256,256):(256,1)]>
!gr = !axe.tensor<128x64xf16, global>
!s = !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)] + R[2:1@cbx]>
module attributes {gpu.container_module} {
  // CHECK-LABEL: func.func @host
  // CHECK: axe.tma_descriptor %arg0 {box_dims = array<i64: 64, 64>, data_type = 6 : i32, element_strides = array<i64: 1, 1>, global_dims = array<i64: 256, 256>, global_offset_bytes = 0 : i64, global_strides_bytes = array<i64: 512>, interleave = 0 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, rank = 2 : i32, swizzle = 3 : i32}
  func.func @host(%g: !g) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    gpu.launch_func @k::@multicast clusters in (%c2, %c1, %c1) blocks in (%c2, %c1, %c1) threads in (%c1, %c1, %c1) args(%g : !g)
    return
  }
  // One CTA's buffer: 128 * 64 * 2 = 16384 bytes, 1024-aligned for the 128B swizzle.
  // CHECK: memref.global "private" @__axe_smem_0 : memref<16384xi8, #gpu.address_space<workgroup>> {alignment = 1024 : i64}
  // CHECK-LABEL: gpu.func @multicast
  // CHECK: nvvm.fence.mbarrier.init
  // CHECK: gpu.barrier
  // CHECK-NEXT: nvvm.cluster.arrive
  // CHECK-NEXT: nvvm.cluster.wait
  // CHECK: scf.if [[LEADER:%.+]] {
  // CHECK-NEXT: [[BYTES:%.+]] = arith.constant 16384 : index
  // CHECK-NEXT: nvgpu.mbarrier.arrive.expect_tx {{.*}}, [[BYTES]]
  // CHECK-NEXT: [[RANK:%.+]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
  // CHECK-NEXT: [[MASK:%.+]] = arith.constant 3 : i16
  // CHECK: [[OFF0:%.+]] = arith.constant 0 : index
  // CHECK-NEXT: [[VIEW0:%.+]] = memref.view {{%.+}}{{\[}}[[OFF0]]{{\]}}[] : memref<16384xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
  // CHECK-NEXT: [[X0:%.+]] = arith.constant 64 : index
  // CHECK-NEXT: [[Y0:%.+]] = arith.constant 128 : index
  // CHECK-NEXT: [[WHO0:%.+]] = arith.constant 0 : i32
  // CHECK-NEXT: [[MINE0:%.+]] = arith.cmpi eq, [[RANK]], [[WHO0]] : i32
  // CHECK-NEXT: scf.if [[MINE0]] {
  // CHECK-NEXT: nvgpu.tma.async.load {{%.+}}{{\[}}[[X0]], [[Y0]]{{\]}}, {{.*}} to [[VIEW0]] multicast_mask = [[MASK]]
  // CHECK: [[OFF1:%.+]] = arith.constant 8192 : index
  // CHECK-NEXT: [[VIEW1:%.+]] = memref.view {{%.+}}{{\[}}[[OFF1]]{{\]}}
  // CHECK-NEXT: [[X1:%.+]] = arith.constant 64 : index
  // CHECK-NEXT: [[Y1:%.+]] = arith.constant 192 : index
  // CHECK-NEXT: [[WHO1:%.+]] = arith.constant 1 : i32
  // CHECK-NEXT: [[MINE1:%.+]] = arith.cmpi eq, [[RANK]], [[WHO1]] : i32
  // CHECK-NEXT: scf.if [[MINE1]] {
  // CHECK-NEXT: nvgpu.tma.async.load {{%.+}}{{\[}}[[X1]], [[Y1]]{{\]}}, {{.*}} to [[VIEW1]] multicast_mask = [[MASK]]
  // CHECK: nvgpu.mbarrier.try_wait.parity
  // CHECK-NOT: axe.
  // CHECK: gpu.return

  // PTX: .explicitcluster
  // PTX-NEXT: .reqnctapercluster 2, 1, 1
  // PTX: barrier.cluster.arrive;
  // PTX-NEXT: barrier.cluster.wait;
  // PTX: mov.u32 {{%r[0-9]+}}, %cluster_ctarank;
  // PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
  // PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
  gpu.module @k {
    gpu.func @multicast(%g: !g) kernel attributes {known_cluster_size = array<i32: 2, 1, 1>} {
      %t = axe.view %g : !g -> !gt
      %r = axe.slice %t[128, 64] [128, 64] : !gt to !gr
      %s = axe.alloc cluster : !s
      %bar = axe.mbarrier_alloc cta : !axe.mbarrier
      axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
      axe.copy_async cluster %r to %s, %bar : !gr to !s, !axe.mbarrier
      %phase = arith.constant false
      axe.mbarrier_wait cta %bar, %phase : !axe.mbarrier
      gpu.return
    }
  }
}
