// A K loop of TMA loads at run-time coordinates goes all the way to PTX that ptxas accepts: A[m0:m0+128, k:k+64]
// (m0 = 128 * block id, k stepping by 64) is loaded into one 128B-swizzled tile on a barrier whose parity flips
// each iteration, then stored to the same place of C. The box coordinates are registers: {k, ctaid.x << 7}.
// RUN: axe-opt --lower-tma --lower-to-nvvm %s -o %t.mlir
// RUN: axe-translate --emit=ptx --chip=sm_90a %t.mlir -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// CHECK: .visible .entry k_loop(
// CHECK: mov.u32 [[BID:%r[0-9]+]], %ctaid.x;
// CHECK: shl.b32 [[M0:%r[0-9]+]], [[BID]], 7;
// The induction variable k steps by 64.
// CHECK: add.s64 [[KV:%rd[0-9]+]], [[KV]], 64;
// 128 x 64 halves = 16384 bytes expected per phase; the load's box starts at {k, m0}.
// CHECK: mov.b32 [[BYTES:%r[0-9]+]], 16384;
// CHECK-NEXT: mbarrier.arrive.expect_tx.shared.b64 {{.*}}, [[BYTES]];
// CHECK: cvt.u32.u64 [[K:%r[0-9]+]], [[KV]];
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{.*}}], [%rd{{[0-9]+}}, {[[K]], [[M0]]}]
// CHECK: mbarrier.try_wait.parity.shared.b64
// The store goes back to the same {k, m0} of C.
// CHECK: cvt.u32.u64 [[K2:%r[0-9]+]], [[KV]];
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd{{[0-9]+}}, {[[K2]], [[M0]]}], [__axe_smem_0]
// CHECK: cp.async.bulk.wait_group.read 0;

// PTXAS: 0 bytes spill stores, 0 bytes spill loads

!A = memref<256x512xf16>
!gt = !axe.tensor<256x512xf16, global, S[(256,512):(512,1)]>
!gr = !axe.tensor<128x64xf16, global>
!s = !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
!C = memref<256x512xf16>
!half = !axe.tensor<64x64xf16, global>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k_loop(%a: !A, %c: !C, %k_end: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %false = arith.constant false
      %true = arith.constant true
      %bid = gpu.block_id x
      %m0 = arith.muli %bid, %c128 : index
      %t = axe.view %a : !A -> !gt
      %out = axe.view %c : !C -> !gt
      %s = axe.alloc cta : !s
      %bar = axe.mbarrier_alloc cta : !axe.mbarrier
      axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
      %last = scf.for %k = %c0 to %k_end step %c64 iter_args(%p = %false) -> (i1) {
        %tile = axe.slice %t[%m0, %k] [128, 64] : !gt to !gr
        axe.copy_async cta %tile to %s, %bar : !gr to !s, !axe.mbarrier
        axe.mbarrier_wait cta %bar, %p : !axe.mbarrier
        %dst = axe.slice %out[%m0, %k] [128, 64] : !gt to !gr
        axe.copy_async cta %s to %dst : !s to !gr
        %next = arith.xori %p, %true : i1
        scf.yield %next : i1
      }
      gpu.return
    }
  }
}
