// --lower-copy lowers axe.sync: a CTA to bar.sync 0 (gpu.barrier), a warp (or lanes of it) to bar.warp.sync of
// its mask, a warpgroup to bar.sync 1 + its index with 128 threads, and a range of the CTA's warps to a named
// barrier of 32 threads per warp, one id per range in the kernel after the warpgroups' ids (here 384 threads:
// warpgroups take 1 to 3, so ranges take 4, 5, ...). A range that covers the block is the CTA's barrier.
// RUN: axe-opt %s --lower-copy | FileCheck %s
// RUN: axe-opt %s --lower-copy --lower-to-nvvm | axe-translate --emit=ptx --chip=sm_90a -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin

module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_90a"} {
    // CHECK-LABEL: gpu.func @syncs
    gpu.func @syncs() kernel attributes {known_block_size = array<i32: 384, 1, 1>} {
      // CHECK-NEXT: gpu.barrier
      axe.sync cta
      // CHECK-NEXT: %[[ALL:.*]] = arith.constant -1 : i32
      // CHECK-NEXT: nvvm.bar.warp.sync %[[ALL]]
      axe.sync warp
      // Lanes 0-15: mask 0xffff.
      // CHECK-NEXT: %[[HALF:.*]] = arith.constant 65535 : i32
      // CHECK-NEXT: nvvm.bar.warp.sync %[[HALF]]
      axe.sync warp(laneid[0:16])
      // CHECK-NEXT: %[[TID:.*]] = gpu.thread_id x
      // CHECK-NEXT: %[[C128:.*]] = arith.constant 128 : index
      // CHECK-NEXT: %[[WG:.*]] = arith.divui %[[TID]], %[[C128]]
      // CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
      // CHECK-NEXT: %[[ID:.*]] = arith.addi %[[WG]], %[[C1]]
      // CHECK-NEXT: %[[ID32:.*]] = arith.index_cast %[[ID]] : index to i32
      // CHECK-NEXT: %[[N128:.*]] = arith.constant 128 : i32
      // CHECK-NEXT: nvvm.barrier id = %[[ID32]] number_of_threads = %[[N128]]
      axe.sync warpgroup
      // Warps 0-7 (two warpgroups): id 4, 256 threads; warp 8: id 5, 32 threads; warps 0-7 again: id 4.
      // CHECK-NEXT: %[[ID4:.*]] = arith.constant 4 : i32
      // CHECK-NEXT: %[[N256:.*]] = arith.constant 256 : i32
      // CHECK-NEXT: nvvm.barrier id = %[[ID4]] number_of_threads = %[[N256]]
      axe.sync cta(wgid[0:2])
      // CHECK-NEXT: %[[ID5:.*]] = arith.constant 5 : i32
      // CHECK-NEXT: %[[N32:.*]] = arith.constant 32 : i32
      // CHECK-NEXT: nvvm.barrier id = %[[ID5]] number_of_threads = %[[N32]]
      axe.sync cta(warpid[8:9])
      // CHECK-NEXT: %[[AGAIN:.*]] = arith.constant 4 : i32
      // CHECK-NEXT: %[[N256B:.*]] = arith.constant 256 : i32
      // CHECK-NEXT: nvvm.barrier id = %[[AGAIN]] number_of_threads = %[[N256B]]
      axe.sync cta(warpid[0:8])
      // Every warp of the block: the CTA's barrier.
      // CHECK-NEXT: gpu.barrier
      axe.sync cta(wgid[0:3])
      gpu.return
    }
  }
}
// PTX: bar.sync 0;
// PTX: bar.warp.sync -1;
// PTX: bar.warp.sync 65535;
// PTX: bar.sync %r{{[0-9]+}}, 128;
// PTX: bar.sync 4, 256;
// PTX: bar.sync 5, 32;
// PTX: bar.sync 4, 256;
// PTX: bar.sync 0;
