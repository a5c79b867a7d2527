// tf32 GEMMs assemble for sm_90a (issue 21, item 3): mma.sync m16n8k8 with tf32 fragments (each element its own
// .b32 register: A a0..a3, B b0..b1, PTX ISA 9.7.14.5.7; a tf32 register tensor is stored as f32 and filled with
// an f32), and wgmma m64nNk8 .tf32 from 32B-swizzled K-major shared tiles (rows of 8 tf32 = 32 bytes) into an
// accumulator spelled on tid_in_wg. Each kernel stores its accumulators, so nothing is dead code.
// RUN: axe-opt --lower-mma --lower-to-nvvm %s | axe-translate --emit=ptx --chip=sm_90a -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin

// A and B are the f32 1.0 bit pattern 0x3F800000 = 1065353216, one per .b32 register: 4 for A, 2 for B.
// CHECK-LABEL: .visible .entry tf32_sync(
// CHECK: mov.b32 [[ONE:%r[0-9]+]], 1065353216;
// CHECK-NEXT: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK-NEXT: {{{(%r[0-9]+, ){3}%r[0-9]+}}},
// CHECK-NEXT: {[[ONE]], [[ONE]], [[ONE]], [[ONE]]},
// CHECK-NEXT: {[[ONE]], [[ONE]]},
// CHECK-COUNT-4: st.global.b32
// CHECK-NOT: st.global
// CHECK-LABEL: .visible .entry tf32_wgmma(
// CHECK: wgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32 {{{(%r[0-9]+, ){7}%r[0-9]+}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1;
// CHECK: wgmma.wait_group.sync.aligned 0;

!a = !axe.tensor<16x8xtf32, reg, S[(2,8,2,4):(1,4@laneid,2,1@laneid)]>
!b = !axe.tensor<8x8xtf32, reg, S[(2,4,8):(1,1@laneid,4@laneid)]>
!c = !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
!sa = !axe.tensor<64x8xtf32, shared, Swizzle(2,1,3) o S[(64,8):(8,1)]>
!sb = !axe.tensor<8x16xtf32, shared, Swizzle(2,1,3) o S[(8,16):(1,8)]>
!f = !axe.tensor<64x16xf32, reg, S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>
!regs4 = memref<4xf32, #gpu.address_space<private>>
!regs8 = memref<8xf32, #gpu.address_space<private>>

module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_90a"} {
    gpu.func @tf32_sync(%out: memref<128xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %one = arith.constant 1.0 : f32
      %zero = arith.constant 0.0 : f32
      %a = axe.alloc warp : !a
      %b = axe.alloc warp : !b
      %acc = memref.alloca() : !regs4
      %c = axe.view %acc : !regs4 -> !c
      axe.fill warp %a, %one : !a, f32
      axe.fill warp %b, %one : !b, f32
      axe.fill warp %c, %zero : !c, f32
      axe.gemm warp %a, %b, %c : !a, !b, !c
      %tid = gpu.thread_id x
      %c4 = arith.constant 4 : index
      %base = arith.muli %tid, %c4 : index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %i1 = arith.addi %base, %c1 : index
      %i2 = arith.addi %base, %c2 : index
      %i3 = arith.addi %base, %c3 : index
      %v0 = memref.load %acc[%c0] : !regs4
      %v1 = memref.load %acc[%c1] : !regs4
      %v2 = memref.load %acc[%c2] : !regs4
      %v3 = memref.load %acc[%c3] : !regs4
      memref.store %v0, %out[%base] : memref<128xf32>
      memref.store %v1, %out[%i1] : memref<128xf32>
      memref.store %v2, %out[%i2] : memref<128xf32>
      memref.store %v3, %out[%i3] : memref<128xf32>
      gpu.return
    }

    gpu.func @tf32_wgmma(%out: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %zero = arith.constant 0.0 : f32
      %a = axe.alloc cta : !sa
      %b = axe.alloc cta : !sb
      %acc = memref.alloca() : !regs8
      %c = axe.view %acc : !regs8 -> !f
      axe.fill warpgroup %c, %zero : !f, f32
      axe.gemm warpgroup %a, %b, %c : !sa, !sb, !f
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c7 = arith.constant 7 : index
      %v0 = memref.load %acc[%c0] : !regs8
      %v7 = memref.load %acc[%c7] : !regs8
      %sum = arith.addf %v0, %v7 : f32
      memref.store %sum, %out[%tid] : memref<1024xf32>
      gpu.return
    }
  }
}
