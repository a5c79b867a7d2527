// TMA loads into a run-time stage of a shared ring go all the way to PTX that ptxas accepts: a K loop loads
// A[m0:m0+128, k:k+64] into stage (k/64) mod 3 of a [3, 128, 64] f16 ring (128B swizzle, 16384 bytes per stage),
// waits, and stores the stage back to the same place of C. The shared address of each box is the ring's base plus
// stage * 16384 (a shift by 14), in a register.
// RUN: axe-opt --lower-tma --lower-to-nvvm %s -o %t.mlir
// RUN: axe-translate --emit=ptx --chip=sm_90a %t.mlir -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// CHECK: .visible .entry ring_loop(
// CHECK: .shared .align 1024 .b8 __axe_smem_0[49152];
// The issuing thread: the lane of warp 0 (tid.x > 31 excluded) that elect.sync picks; the barrier init is skipped
// unless both hold.
// CHECK: mov.u32 [[TID:%r[0-9]+]], %tid.x;
// CHECK-NEXT: setp.gt.u32 [[NOTWARP0:%p[0-9]+]], [[TID]], 31;
// CHECK-NEXT: elect.sync %r{{[0-9]+}}|[[ELECTED:%p[0-9]+]], -1;
// CHECK-NEXT: not.pred [[NOTELECTED:%p[0-9]+]], [[ELECTED]];
// CHECK-NEXT: or.pred [[SKIP:%p[0-9]+]], [[NOTWARP0]], [[NOTELECTED]];
// CHECK-NEXT: @[[SKIP]] bra
// CHECK-NEXT: mov.b32
// CHECK-NEXT: mbarrier.init.shared.b64
// CHECK: mov.b64 [[BASE:%rd[0-9]+]], __axe_smem_0;
// The stage (k >> 6) mod 3 (by multiplication with the inverse of 3), times 16384, plus the ring's base.
// The loop body's issue points share one election at the top of the body, under warp 0's predicate.
// CHECK: elect.sync %r{{[0-9]+}}|[[EL:%p[0-9]+]], -1;
// CHECK-NEXT: and.pred [[ISSUER:%p[0-9]+]], %p{{[0-9]+}}, [[EL]];
// CHECK: shr.u64 [[KT:%rd[0-9]+]], [[K:%rd[0-9]+]], 6;
// CHECK: sub.s64 [[STAGE:%rd[0-9]+]], [[KT]], %rd{{[0-9]+}};
// CHECK-NEXT: shl.b64 [[OFF:%rd[0-9]+]], [[STAGE]], 14;
// CHECK-NEXT: add.s64 [[DST:%rd[0-9]+]], [[BASE]], [[OFF]];
// CHECK-NEXT: cvta.shared.u64 [[GEN:%rd[0-9]+]], [[DST]];
// CHECK-NEXT: cvta.to.shared::cluster.u64 [[CL:%rd[0-9]+]], [[GEN]];
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes {{\[}}[[CL]]{{\]}}, [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}]
// CHECK: mbarrier.try_wait.parity.shared.b64
// The store reads the same stage.
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], {{\[}}[[DST]]{{\]}};

// PTXAS: 0 bytes spill stores, 0 bytes spill loads

!A = memref<256x512xf16>
!gt = !axe.tensor<1x256x512xf16, global, S[(1,256,512):(0,512,1)]>
!gr = !axe.tensor<1x128x64xf16, global>
!ring = !axe.tensor<3x128x64xf16, shared, Swizzle(3,3,3) o S[(3,128,64):(8192,64,1)]>
!st = !axe.tensor<1x128x64xf16, shared>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @ring_loop(%a: !A, %c: !A, %k_end: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c3 = arith.constant 3 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %false = arith.constant false
      %true = arith.constant true
      %bid = gpu.block_id x
      %m0 = arith.muli %bid, %c128 : index
      %t = axe.view %a : !A -> !gt
      %out = axe.view %c : !A -> !gt
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
        %dst = axe.slice %out[0, %m0, %k] [1, 128, 64] : !gt to !gr
        axe.copy_async cta %st to %dst : !st to !gr
        %next = arith.xori %p, %true : i1
        scf.yield %next : i1
      }
      gpu.return
    }
  }
}
