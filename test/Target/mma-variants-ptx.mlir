// Variants beyond the examples assemble too: bf16 mma.sync (fragments as i32), wgmma with f16 accumulators
// (.f16x2 registers), wgmma with A in registers (inline PTX) and fp8 wgmma (k32, no transpose immediates), in
// one sm_90a module; each kernel stores accumulators so nothing is dead code.
// RUN: axe-opt --lower-mma --lower-to-nvvm %s | axe-translate --emit=ptx --chip=sm_90a -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin

// CHECK-LABEL: .visible .entry bf16_sync(
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-COUNT-4: st.global.b32
// CHECK-NOT: st.global
// CHECK-LABEL: .visible .entry f16_wgmma(
// CHECK: wgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16 {{{%r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+}}}
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK-COUNT-8: st.global.b16
// CHECK-NOT: st.global
// CHECK-LABEL: .visible .entry regs_a_wgmma(
// CHECK: wgmma.fence.sync.aligned;
// CHECK: wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {{{(%r[0-9]+, ){7}%r[0-9]+}}}, {{{(%r[0-9]+, ){3}%r[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 0;
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK-LABEL: .visible .entry fp8_wgmma(
// CHECK: wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e4m3 {{{(%r[0-9]+, ){7}%r[0-9]+}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1;

!a = !axe.tensor<16x16xbf16, reg, S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)]>
!b = !axe.tensor<16x8xbf16, reg, S[(2,4,2,8):(2,1@laneid,1,4@laneid)]>
!c = !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
!sa = !axe.tensor<64x16xf16, shared, Swizzle(3,3,3) o S[(64,16):(64,1)]>
!sb = !axe.tensor<16x16xf16, shared, Swizzle(3,3,3) o S[(16,16):(1,64)]>
!h = !axe.tensor<64x16xf16, reg, S[(4,2,8,2,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
!ra = !axe.tensor<64x16xf16, reg, S[(4,2,8,2,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
!f = !axe.tensor<64x16xf32, reg, S[(4,2,8,2,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
!regs4 = memref<4xf32, #gpu.address_space<private>>
!regs8f = memref<8xf32, #gpu.address_space<private>>
!fa = !axe.tensor<64x32xf8E4M3FN, shared, Swizzle(4,1,3) o S[(64,32):(32,1)]>
!fb = !axe.tensor<32x16xf8E4M3FN, shared, Swizzle(4,1,3) o S[(32,16):(1,32)]>
!regs8 = memref<8xf16, #gpu.address_space<private>>

module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_90a"} {
    gpu.func @bf16_sync(%out: memref<128xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %one = arith.constant 1.0 : bf16
      %zero = arith.constant 0.0 : f32
      %a = axe.alloc warp : !a
      %b = axe.alloc warp : !b
      %acc = memref.alloca() : !regs4
      %c = axe.view %acc : !regs4 -> !c
      axe.fill warp %a, %one : !a, bf16
      axe.fill warp %b, %one : !b, bf16
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

    gpu.func @f16_wgmma(%out: memref<1024xf16>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %zero = arith.constant 0.0 : f16
      %a = axe.alloc cta : !sa
      %b = axe.alloc cta : !sb
      %acc = memref.alloca() : !regs8
      %c = axe.view %acc : !regs8 -> !h
      axe.fill warpgroup %c, %zero : !h, f16
      axe.gemm warpgroup %a, %b, %c : !sa, !sb, !h
      %tid = gpu.thread_id x
      %c8 = arith.constant 8 : index
      %base = arith.muli %tid, %c8 : index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %c6 = arith.constant 6 : index
      %c7 = arith.constant 7 : index
      %v0 = memref.load %acc[%c0] : !regs8
      %v1 = memref.load %acc[%c1] : !regs8
      %v2 = memref.load %acc[%c2] : !regs8
      %v3 = memref.load %acc[%c3] : !regs8
      %v4 = memref.load %acc[%c4] : !regs8
      %v5 = memref.load %acc[%c5] : !regs8
      %v6 = memref.load %acc[%c6] : !regs8
      %v7 = memref.load %acc[%c7] : !regs8
      %i1 = arith.addi %base, %c1 : index
      %i2 = arith.addi %base, %c2 : index
      %i3 = arith.addi %base, %c3 : index
      %i4 = arith.addi %base, %c4 : index
      %i5 = arith.addi %base, %c5 : index
      %i6 = arith.addi %base, %c6 : index
      %i7 = arith.addi %base, %c7 : index
      memref.store %v0, %out[%base] : memref<1024xf16>
      memref.store %v1, %out[%i1] : memref<1024xf16>
      memref.store %v2, %out[%i2] : memref<1024xf16>
      memref.store %v3, %out[%i3] : memref<1024xf16>
      memref.store %v4, %out[%i4] : memref<1024xf16>
      memref.store %v5, %out[%i5] : memref<1024xf16>
      memref.store %v6, %out[%i6] : memref<1024xf16>
      memref.store %v7, %out[%i7] : memref<1024xf16>
      gpu.return
    }

    gpu.func @regs_a_wgmma(%out: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %one = arith.constant 1.0 : f16
      %zero = arith.constant 0.0 : f32
      %a = axe.alloc warpgroup : !ra
      %b = axe.alloc cta : !sb
      %acc = memref.alloca() : !regs8f
      %c = axe.view %acc : !regs8f -> !f
      axe.fill warpgroup %a, %one : !ra, f16
      axe.fill warpgroup %c, %zero : !f, f32
      axe.gemm warpgroup %a, %b, %c : !ra, !sb, !f
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %v0 = memref.load %acc[%c0] : !regs8f
      memref.store %v0, %out[%tid] : memref<1024xf32>
      gpu.return
    }

    gpu.func @fp8_wgmma(%out: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %zero = arith.constant 0.0 : f32
      %a = axe.alloc cta : !fa
      %b = axe.alloc cta : !fb
      %acc = memref.alloca() : !regs8f
      %c = axe.view %acc : !regs8f -> !f
      axe.fill warpgroup %c, %zero : !f, f32
      axe.gemm warpgroup %a, %b, %c : !fa, !fb, !f
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %v0 = memref.load %acc[%c0] : !regs8f
      memref.store %v0, %out[%tid] : memref<1024xf32>
      gpu.return
    }
  }
}
