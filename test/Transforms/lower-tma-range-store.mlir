// --lower-tma: a TMA store by a range of the CTA's warps (a role's epilogue, `cta(wgid[0:2])` or
// `cta(warpid[a:b])`): a proxy fence, the range's named barrier (the kernel's id for the range: 384 threads give
// warpgroups ids 1 to 3, so the first range takes 4; 32 threads per warp), then the range's first warp's elected
// lane issues the boxes, commits and waits for the reads. (Other copies on thread subsets are --lower-copy's.)
// RUN: axe-opt %s --lower-tma | FileCheck %s
// RUN: axe-opt %s --lower-tma --lower-to-nvvm | axe-translate --emit=ptx --chip=sm_90a -o %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin

!g = !axe.tensor<64x64xf16, global, S[(64,64):(64,1)]>
!s = !axe.tensor<64x64xf16, shared, Swizzle(3,3,3) o S[(64,64):(64,1)]>
module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_90a"} {
    // CHECK-LABEL: gpu.func @consumers_store
    // CHECK-SAME: axe.named_barriers = {warps_4_8 = 4 : i64}
    // CHECK: nvvm.fence.proxy
    // CHECK: %[[ID:.*]] = arith.constant 4 : i32
    // CHECK: %[[N:.*]] = arith.constant 128 : i32
    // CHECK: nvvm.barrier id = %[[ID]] number_of_threads = %[[N]]
    // CHECK: %[[TID:.*]] = gpu.thread_id x
    // CHECK: %[[C32:.*]] = arith.constant 32 : index
    // CHECK: %[[WARP:.*]] = arith.divui %[[TID]], %[[C32]]
    // CHECK: %[[C4:.*]] = arith.constant 4 : index
    // CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[WARP]], %[[C4]]
    // CHECK: %[[ELECT:.*]] = nvvm.elect.sync
    // CHECK: %[[LEADER:.*]] = arith.andi %[[FIRST]], %[[ELECT]]
    // CHECK: scf.if %[[LEADER]] {
    // CHECK: nvgpu.tma.async.store
    // CHECK: nvvm.cp.async.bulk.commit.group
    // CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
    gpu.func @consumers_store(%m: memref<4096xf16>) kernel attributes {known_block_size = array<i32: 384, 1, 1>} {
      %g = axe.view %m : memref<4096xf16> -> !g
      %s = axe.alloc cta : !s
      axe.copy_async cta(wgid[1:2]) %s to %g : !s to !g
      gpu.return
    }
  }
}

