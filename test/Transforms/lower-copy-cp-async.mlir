// --lower-copy, global -> shared without TMA (sm_80, or layouts TMA cannot express): cp.async of 16 bytes (.cg)
// or 4 and 8 (.ca) per thread, then cp.async.commit_group, cp.async.wait_group 0 and a barrier of the scope, so
// the data is in shared memory for every thread when the copy returns (PTX ISA 9.7.9.25). Addresses are worked
// out by hand from the layouts; the shared side's swizzle is applied to the element offset.
// RUN: axe-opt %s --lower-copy --cse | FileCheck %s
// RUN: axe-opt %s --lower-copy --lower-to-nvvm -o %t.mlir
// RUN: axe-translate --emit=ptx --chip=sm_80 %t.mlir -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: ptxas -arch=sm_80 %t.ptx -o %t.cubin
// RUN: axe-translate --emit=ptx --chip=sm_90a %t.mlir -o %t.sm90a.ptx
// RUN: ptxas -arch=sm_90a %t.sm90a.ptx -o %t.sm90a.cubin

// A 64x64 f16 tile (8 KB) into 128B-swizzled shared memory by a CTA of 128 threads: 512 chunks of 16 bytes,
// four per thread; chunk t + 128i is elements e = 8t + 1024i, stored at e ^ (((e >> 6) & 7) << 3)
// (Swizzle(3,3,3): the 16-byte chunk within a 128-byte row XOR the row within 8).
!g = !axe.tensor<64x64xf16, global, S[(64,64):(64,1)]>
!s = !axe.tensor<64x64xf16, shared, Swizzle(3,3,3) o S[(64,64):(64,1)]>
// 32x4 f32, column-major in global memory, row-major in shared: no two elements are adjacent on both sides,
// so each thread moves single 4-byte elements.
!gc = !axe.tensor<32x4xf32, global, S[(32,4):(1,32)]>
!sr = !axe.tensor<32x4xf32, shared, S[(32,4):(4,1)]>
// 32x2 f32, row-major on both sides: 256 contiguous bytes.
!g2 = !axe.tensor<32x2xf32, global, S[(32,2):(2,1)]>
!s2 = !axe.tensor<32x2xf32, shared, S[(32,2):(2,1)]>
!r = !axe.tensor<64x64xf16, reg, S[(4,16,2,32):(1@warpid,2@laneid,1@laneid,1)]>
module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_80"} {
    // CHECK-LABEL: gpu.func @swizzled_tile
    gpu.func @swizzled_tile(%in: memref<4096xf16>, %out: memref<4096xf16>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %g = axe.view %in : memref<4096xf16> -> !g
      %s = axe.alloc cta : !s
      // CHECK: %[[TID:.*]] = gpu.thread_id x
      // CHECK: %[[SMEM:.*]] = memref.get_global @__axe_copy_smem_0 : memref<8192xi8, #gpu.address_space<workgroup>>
      // CHECK: %[[E:.*]] = arith.muli %[[TID]], %c8 : index
      // CHECK: %[[E0:.*]] = arith.addi %c0, %[[E]] : index
      // CHECK: %[[ROW:.*]] = arith.shrui %[[E0]], %c6 : index
      // CHECK: %[[BITS:.*]] = arith.andi %[[ROW]], %c7 : index
      // CHECK: %[[MOVED:.*]] = arith.shli %[[BITS]], %c3 : index
      // CHECK: %[[SW:.*]] = arith.xori %[[E0]], %[[MOVED]] : index
      // CHECK: arith.muli %[[SW]], %c2 : index
      // CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      // The next chunks are 1024 elements on, two swizzle periods: the swizzled offset plus 1024, the global one
      // plus 1024 (computed from the first issue's, not again from the thread index).
      // CHECK: arith.addi %[[SW]], %c1024 : index
      // CHECK: arith.addi %[[E0]], %c1024 : index
      // CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg
      // CHECK: arith.addi %[[SW]], %c2048 : index
      // CHECK: arith.addi %[[E0]], %c2048 : index
      // CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg
      // CHECK: arith.addi %[[SW]], %c3072 : index
      // CHECK: arith.addi %[[E0]], %c3072 : index
      // CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg
      // CHECK-NEXT: nvvm.cp.async.commit.group
      // CHECK-NEXT: nvvm.cp.async.wait.group 0
      // CHECK-NEXT: gpu.barrier
      axe.copy cta %g to %s : !g to !s
      // Read back (ld.shared, through the swizzle) and store, so the PTX keeps the copy.
      %r = axe.alloc cta : !r
      %h = axe.view %out : memref<4096xf16> -> !g
      axe.copy cta %s to %r : !s to !r
      axe.copy cta %r to %h : !r to !g
      gpu.return
    }

    // Column-major to row-major: 128 elements, one per thread, 4 bytes each (.ca); thread t moves element
    // (r, c) = (t % 32, t / 32): global offset t, shared offset 4(t % 32) + t / 32.
    // CHECK-LABEL: gpu.func @transpose_words
    gpu.func @transpose_words(%in: memref<128xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %g = axe.view %in : memref<128xf32> -> !gc
      %s = axe.alloc cta : !sr
      // CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 4, cache = ca : !llvm.ptr<3>, !llvm.ptr<1>
      // CHECK-NOT: nvvm.cp.async.shared.global
      // CHECK: nvvm.cp.async.commit.group
      axe.copy cta %g to %s : !gc to !sr
      gpu.return
    }

    // One warp, 256 bytes: the widest vector is 16 bytes, so lanes 0..15 move one chunk each (16l bytes) and the
    // others idle; then every lane waits at the warp barrier, so the copy is complete for all of them.
    // CHECK-LABEL: gpu.func @warp_rows
    gpu.func @warp_rows(%in: memref<64xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %g = axe.view %in : memref<64xf32> -> !g2
      %s = axe.alloc cta : !s2
      // CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c32 : index
      // CHECK: %[[FIRST:.*]] = arith.cmpi ult, %[[LANE]], %c16 : index
      // CHECK: scf.if %[[FIRST]] {
      // CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      // CHECK-NEXT: }
      // CHECK-NEXT: nvvm.cp.async.commit.group
      // CHECK-NEXT: nvvm.cp.async.wait.group 0
      // CHECK-NEXT: %[[ALL:.*]] = arith.constant -1 : i32
      // CHECK-NEXT: nvvm.bar.warp.sync %[[ALL]] : i32
      axe.copy warp %g to %s : !g2 to !s2
      gpu.return
    }
  }
}

// PTX: .target sm_80
// PTX-LABEL: .visible .entry swizzled_tile(
// Both sides of the next chunks are the first's plus 2048 bytes (the swizzle repeats every 1024).
// PTX: cp.async.cg.shared.global [[[S:%r[0-9]+|%rd[0-9]+]]], [[[G:%rd[0-9]+]]], 16;
// PTX: cp.async.cg.shared.global [[[S]]+2048], [[[G]]+2048], 16;
// PTX: cp.async.cg.shared.global [[[S]]+4096], [[[G]]+4096], 16;
// PTX: cp.async.cg.shared.global [[[S]]+6144], [[[G]]+6144], 16;
// PTX-NEXT: cp.async.commit_group;
// PTX-NEXT: cp.async.wait_group 0;
// PTX-NEXT: bar.sync 0;
// PTX: ld.shared
// PTX-LABEL: .visible .entry transpose_words(
// PTX: cp.async.ca.shared.global [{{%r[0-9]+|%rd[0-9]+}}], [{{%rd[0-9]+}}], 4;
// PTX-LABEL: .visible .entry warp_rows(
// PTX: cp.async.cg.shared.global [{{%r[0-9]+|%rd[0-9]+}}], [{{%rd[0-9]+}}], 16;
// PTX: cp.async.wait_group 0;
// PTX-NEXT: bar.warp.sync -1;
