// A 3-stage software pipeline written in the axe dialect goes all the way to PTX that ptxas accepts for sm_90a:
// C[m0:m0+64, n0:n0+64] = A[m0:, :] @ B[:, n0:] with A [256, K] and B [K, 256] row-major f16, 64x64x64 tiles,
// f32 accumulators in registers. A and B tiles live in rings of 3 stages kept as rows ([192, 64], 128B swizzle,
// 8192 bytes a stage), one mbarrier per stage. The prologue loads K tiles 0 and 1 into stages 0 and 1; iteration
// kt loads tile kt + 2 (when there is one) into stage (kt + 2) mod 3, waits on stage kt mod 3's barrier for
// parity (kt / 3) mod 2 (the stage's round: its barrier completes one phase per load), and runs wgmma on that
// stage. wgmma waits for itself (wait_group 0) and a CTA barrier opens each iteration, so the stage loaded in
// iteration kt, last read in kt - 1, is free.
// The stage is chosen at run time: the TMA destination, the barrier (scf.index_switch over the three) and the
// wgmma descriptors' start addresses are computed from it. Precondition: K is a multiple of 64, at least 128.
// RUN: axe-opt --axe-check-barriers %s -o /dev/null
// RUN: axe-opt --lower-tma --lower-mma --lower-to-nvvm %s -o %t.mlir
// RUN: axe-translate --emit=ptx --chip=sm_90a %t.mlir -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// CHECK: .visible .entry ring_gemm(
// Two rings of 3 x 8192 bytes, 1024-aligned, and three barriers.
// CHECK-DAG: .shared .align 1024 .b8 __axe_smem_{{[0-9]}}[24576];
// CHECK-DAG: .shared .align 1024 .b8 __axe_smem_{{[0-9]}}[24576];
// Prologue: two loads of each operand into stages 0 and 1, on the first two barriers (by name).
// CHECK-COUNT-4: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [__mbarrier{{(_[01])?}}];
// CHECK-NOT: cp.async.bulk.tensor
// The loop (LLVM merges the three cases of each scf.index_switch into one op on a selected barrier): a parity
// wait on the stage's barrier (a register), four wgmma k16 steps on the stage, then the next tile's loads into a
// run-time stage on a run-time barrier.
// CHECK: mbarrier.try_wait.parity.shared.b64 P1, [%r{{[0-9]+}}], %r{{[0-9]+}}, %r{{[0-9]+}};
// Both descriptors start at their ring's address + stage * 8192 (one shift, shared), encoded into bits 0-13, in
// 32-bit arithmetic (the field keeps address bits 4..17), then widened.
// CHECK: shl.b32 [[OFF:%r[0-9]+]], [[STAGE:%r[0-9]+]], 13;
// CHECK-NEXT: cvt.u32.u64 [[BA:%r[0-9]+]], %rd{{[0-9]+}};
// CHECK-NEXT: add.s32 [[AA:%r[0-9]+]], [[OFF]], [[BA]];
// CHECK-NEXT: shr.u32 [[HA:%r[0-9]+]], [[AA]], 4;
// CHECK-NEXT: and.b32 [[EA32:%r[0-9]+]], [[HA]], 16320;
// CHECK-NEXT: cvt.u64.u32 [[EA:%rd[0-9]+]], [[EA32]];
// CHECK-NEXT: cvt.u32.u64 [[BB:%r[0-9]+]], %rd{{[0-9]+}};
// CHECK-NEXT: add.s32 [[AB:%r[0-9]+]], [[OFF]], [[BB]];
// CHECK-NEXT: shr.u32 [[HB:%r[0-9]+]], [[AB]], 4;
// CHECK-NEXT: and.b32 [[EB32:%r[0-9]+]], [[HB]], 16320;
// CHECK-NEXT: cvt.u64.u32 [[EB:%rd[0-9]+]], [[EB32]];
// CHECK-NEXT: wgmma.fence.sync.aligned;
// CHECK-NEXT: or.b64 [[DA:%rd[0-9]+]], [[EA]], 4611686293305360384;
// CHECK-NEXT: or.b64 [[DB:%rd[0-9]+]], [[EB]], 4611686293305360384;
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, [[DA]], [[DB]],
// CHECK-COUNT-3: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK-NOT: wgmma.mma_async
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned 0;
// CHECK-COUNT-2: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [%rd{{[0-9]+}}];
// CHECK-NOT: cp.async.bulk.tensor

// PTXAS: 0 bytes spill stores, 0 bytes spill loads

!gA = !axe.tensor<256x4096xf16, global, S[(256,4096):(4096,1)]>
!gB = !axe.tensor<4096x256xf16, global, S[(4096,256):(256,1)]>
!tile = !axe.tensor<64x64xf16, global>
!ring = !axe.tensor<192x64xf16, shared, Swizzle(3,3,3) o S[(192,64):(64,1)]>
!stage = !axe.tensor<64x64xf16, shared>
!c = !axe.tensor<64x64xf32, reg, S[(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
!regs = memref<32xf32, #gpu.address_space<private>>
module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_90a"} {
    gpu.func @ring_gemm(%a: memref<256x4096xf16>, %b: memref<4096x256xf16>, %out: memref<16384xf32>, %k_end: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %zero = arith.constant 0.0 : f32
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %m0 = arith.muli %bx, %c64 : index
      %n0 = arith.muli %by, %c64 : index
      %ga = axe.view %a : memref<256x4096xf16> -> !gA
      %gb = axe.view %b : memref<4096x256xf16> -> !gB
      %ring_a = axe.alloc cta : !ring
      %ring_b = axe.alloc cta : !ring
      %bar0 = axe.mbarrier_alloc cta : !axe.mbarrier
      %bar1 = axe.mbarrier_alloc cta : !axe.mbarrier
      %bar2 = axe.mbarrier_alloc cta : !axe.mbarrier
      axe.mbarrier_init cta %bar0 count 2 : !axe.mbarrier
      axe.mbarrier_init cta %bar1 count 2 : !axe.mbarrier
      axe.mbarrier_init cta %bar2 count 2 : !axe.mbarrier
      %acc = memref.alloca() : !regs
      %c = axe.view %acc : !regs -> !c
      axe.fill warpgroup %c, %zero : !c, f32
      // Prologue: K tiles 0 and 1 into stages 0 and 1.
      %a0 = axe.slice %ga[%m0, 0] [64, 64] : !gA to !tile
      %b0 = axe.slice %gb[0, %n0] [64, 64] : !gB to !tile
      %sa0 = axe.slice %ring_a[0, 0] [64, 64] : !ring to !stage
      %sb0 = axe.slice %ring_b[0, 0] [64, 64] : !ring to !stage
      axe.copy_async cta %a0 to %sa0, %bar0 : !tile to !stage, !axe.mbarrier
      axe.copy_async cta %b0 to %sb0, %bar0 : !tile to !stage, !axe.mbarrier
      %a1 = axe.slice %ga[%m0, 64] [64, 64] : !gA to !tile
      %b1 = axe.slice %gb[64, %n0] [64, 64] : !gB to !tile
      %sa1 = axe.slice %ring_a[64, 0] [64, 64] : !ring to !stage
      %sb1 = axe.slice %ring_b[64, 0] [64, 64] : !ring to !stage
      axe.copy_async cta %a1 to %sa1, %bar1 : !tile to !stage, !axe.mbarrier
      axe.copy_async cta %b1 to %sb1, %bar1 : !tile to !stage, !axe.mbarrier
      scf.for %k = %c0 to %k_end step %c64 {
        // Every warp has finished the previous iteration's wgmma (its wait_group 0) before the stage it read is
        // loaded again.
        gpu.barrier
        %kt = arith.divui %k, %c64 : index
        // Load K tile kt + 2 into stage (kt + 2) mod 3, when there is one.
        %k2 = arith.addi %k, %c128 : index
        %more = arith.cmpi ult, %k2, %k_end : index
        scf.if %more {
          %kt2 = arith.addi %kt, %c2 : index
          %next = arith.remui %kt2, %c3 : index
          %row = arith.muli %next, %c64 : index
          %an = axe.slice %ga[%m0, %k2] [64, 64] : !gA to !tile
          %bn = axe.slice %gb[%k2, %n0] [64, 64] : !gB to !tile
          %san = axe.slice %ring_a[%row, 0] [64, 64] : !ring to !stage
          %sbn = axe.slice %ring_b[%row, 0] [64, 64] : !ring to !stage
          scf.index_switch %next
          case 0 {
            axe.copy_async cta %an to %san, %bar0 : !tile to !stage, !axe.mbarrier
            axe.copy_async cta %bn to %sbn, %bar0 : !tile to !stage, !axe.mbarrier
            scf.yield
          }
          case 1 {
            axe.copy_async cta %an to %san, %bar1 : !tile to !stage, !axe.mbarrier
            axe.copy_async cta %bn to %sbn, %bar1 : !tile to !stage, !axe.mbarrier
            scf.yield
          }
          default {
            axe.copy_async cta %an to %san, %bar2 : !tile to !stage, !axe.mbarrier
            axe.copy_async cta %bn to %sbn, %bar2 : !tile to !stage, !axe.mbarrier
            scf.yield
          }
        }
        // Wait for stage kt mod 3, round kt / 3: parity (kt / 3) mod 2.
        %cur = arith.remui %kt, %c3 : index
        %round = arith.divui %kt, %c3 : index
        %odd = arith.remui %round, %c2 : index
        %parity = arith.cmpi ne, %odd, %c0 : index
        scf.index_switch %cur
        case 0 {
          axe.mbarrier_wait cta %bar0, %parity : !axe.mbarrier
          scf.yield
        }
        case 1 {
          axe.mbarrier_wait cta %bar1, %parity : !axe.mbarrier
          scf.yield
        }
        default {
          axe.mbarrier_wait cta %bar2, %parity : !axe.mbarrier
          scf.yield
        }
        %row = arith.muli %cur, %c64 : index
        %sa = axe.slice %ring_a[%row, 0] [64, 64] : !ring to !stage
        %sb = axe.slice %ring_b[%row, 0] [64, 64] : !ring to !stage
        axe.gemm warpgroup %sa, %sb, %c : !stage, !stage, !c
      }
      %tid = gpu.thread_id x
      %v0 = memref.load %acc[%c0] : !regs
      memref.store %v0, %out[%tid] : memref<16384xf32>
      gpu.return
    }
  }
}
