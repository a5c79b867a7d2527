// --lower-mma on wgmma (sm_90a): A and B in shared memory, C in registers. The descriptors are the planner's
// constants (hand-checked in test/Layout/mma-plan.test) plus the encoded base address computed at run time.
// RUN: axe-opt %s --split-input-file --lower-mma --cse | FileCheck %s

// K-major A and B in 128B-swizzled tiles, one warpgroup: m64n16k16, four K steps.
!a = !axe.tensor<64x64xf16, shared, Swizzle(3,3,3) o S[(64,64):(64,1)]>
!b = !axe.tensor<64x16xf16, shared, Swizzle(3,3,3) o S[(64,16):(1,64)]>
!c = !axe.tensor<64x16xf32, reg, S[(4,2,8,2,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
module attributes {axe.target = "sm_90a"} {
  // A is 64x64 halves = 8192 bytes, B 64x16 = 2048; both 1024-byte aligned (the 128B pattern repeats every
  // 8 rows of 128 bytes).
  // CHECK-DAG: memref.global "private" @[[$GA:__axe_mma_smem_[0-9]+]] : memref<8192xi8, #gpu.address_space<workgroup>> {alignment = 1024 : i64}
  // CHECK-DAG: memref.global "private" @[[$GB:__axe_mma_smem_[0-9]+]] : memref<2048xi8, #gpu.address_space<workgroup>> {alignment = 1024 : i64}
  // CHECK-LABEL: func.func @k_major
  func.func @k_major() {
    // CHECK: %[[A:.*]] = memref.get_global @[[$GA]]
    // CHECK: %[[B:.*]] = memref.get_global @[[$GB]]
    // CHECK: %[[C:.*]] = memref.alloca() : memref<8xf32, #gpu.address_space<private>>
    %a = axe.alloc cta : !a
    %b = axe.alloc cta : !b
    %c = axe.alloc warpgroup : !c
    // The base address field: (address >> 4) & 0x3FFF, on the address's low 32 bits, widened for the descriptor.
    // CHECK: %[[PA:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
    // CHECK: %[[IA:.*]] = arith.index_cast %[[PA]] : index to i64
    // CHECK: %[[LA:.*]] = arith.trunci %[[IA]] : i64 to i32
    // CHECK: %[[SA:.*]] = arith.shrui %[[LA]], %c4_i32 : i32
    // CHECK: %[[MA:.*]] = arith.andi %[[SA]], %c16383_i32 : i32
    // CHECK: %[[EA:.*]] = arith.extui %[[MA]] : i32 to i64
    // CHECK: %[[PB:.*]] = memref.extract_aligned_pointer_as_index %[[B]]
    // CHECK: arith.andi
    // CHECK: %[[EB:.*]] = arith.extui
    // A warpgroup-scope gemm has one warpgroup: no guard.
    // CHECK-NOT: scf.if
    // CHECK: nvvm.wgmma.fence.aligned
    // CHECK: memref.load %[[C]][%c0]
    // CHECK: memref.load %[[C]][%c7]
    // CHECK: %[[ACC:.*]] = llvm.insertvalue %{{.*}}, %{{.*}}[7] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    // 0x4000004000010000: 128B swizzle (1 at bit 62), SBO 1024 >> 4 = 64 at bit 32, LBO 16 >> 4 = 1 at bit 16.
    // CHECK: %[[D0:.*]] = arith.addi %c4611686293305360384_i64, %[[EA]] : i64
    // CHECK: %[[E0:.*]] = arith.addi %c4611686293305360384_i64, %[[EB]] : i64
    // CHECK: %[[R:.*]] = nvvm.wgmma.mma_async %[[D0]], %[[E0]], %[[ACC]], <m = 64, n = 16, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
    // CHECK: %[[R7:.*]] = llvm.extractvalue %[[R]][7]
    // CHECK: memref.store %[[R7]], %[[C]][%c7]
    // Each K step of 16 halves starts 32 bytes further: start field +2.
    // CHECK: arith.addi %c4611686293305360386_i64, %[[EA]]
    // CHECK: nvvm.wgmma.mma_async
    // CHECK: arith.addi %c4611686293305360388_i64, %[[EA]]
    // CHECK: nvvm.wgmma.mma_async
    // CHECK: arith.addi %c4611686293305360390_i64, %[[EA]]
    // CHECK: nvvm.wgmma.mma_async
    // CHECK-NOT: nvvm.wgmma.mma_async
    // CHECK: nvvm.wgmma.commit.group.sync.aligned
    // CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
    axe.gemm warpgroup %a, %b, %c : !a, !b, !c
    return
  }
}

// -----

// MN-major A (M contiguous: `S[(64,16):(1,64)]` over [M,K]) is the transposed form: layoutA = col.
!a = !axe.tensor<64x16xf16, shared, Swizzle(3,3,3) o S[(64,16):(1,64)]>
!b = !axe.tensor<16x16xf16, shared, Swizzle(3,3,3) o S[(16,16):(1,64)]>
!c = !axe.tensor<64x16xf32, reg, S[(4,2,8,2,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
module attributes {axe.target = "sm_90a"} {
  // CHECK-LABEL: func.func @mn_major_a
  func.func @mn_major_a() {
    %a = axe.alloc cta : !a
    %b = axe.alloc cta : !b
    %c = axe.alloc warpgroup : !c
    // CHECK: nvvm.wgmma.mma_async
    // CHECK-SAME: A[<f16>, <one>, <col>], B[<f16>, <one>, <col>]
    axe.gemm warpgroup %a, %b, %c : !a, !b, !c
    return
  }
}

// -----

// Two warpgroups split M at cta scope, one code path: warpgroup g = tid / 128 adds g times its 64 rows of A
// (64 x 16 halves = 2048 bytes, 128 in the descriptor's 16-byte units) to A's descriptor; B is the same for both.
!a = !axe.tensor<128x16xf16, shared, Swizzle(3,1,3) o S[(128,16):(16,1)]>
!b = !axe.tensor<16x16xf16, shared, Swizzle(3,1,3) o S[(16,16):(1,16)]>
!c = !axe.tensor<128x16xf32, reg, S[(2,4,2,8,2,4,2):(1@wgid,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
module attributes {axe.target = "sm_90a"} {
  // CHECK-LABEL: gpu.func @two_warpgroups
  gpu.module @kernels {
    gpu.func @two_warpgroups() kernel {
      // CHECK: %[[TID:.*]] = gpu.thread_id x
      %a = axe.alloc cta : !a
      %b = axe.alloc cta : !b
      %c = axe.alloc cta : !c
      // CHECK: %[[G:.*]] = arith.divui %[[TID]], %c128 : index
      // CHECK-NEXT: %[[G32:.*]] = arith.index_castui %[[G]] : index to i32
      // CHECK-NEXT: %[[STEP:.*]] = arith.constant 128 : i32
      // CHECK-NEXT: %[[MOVE:.*]] = arith.muli %[[G32]], %[[STEP]] : i32
      // CHECK-NEXT: %[[ABASE:.*]] = arith.addi %{{.*}}, %[[MOVE]] : i32
      // CHECK-NEXT: nvvm.wgmma.fence.aligned
      // CHECK-NOT: scf.if
      // The descriptor's low word is a 32-bit add (0x10000: LBO 1 at bit 16), joined to the constant high word.
      // CHECK: %[[LOW:.*]] = arith.addi %c65536_i32, %[[ABASE]] : i32
      // CHECK: %[[WIDE:.*]] = arith.extui %[[LOW]] : i32 to i64
      // CHECK-NEXT: %[[DA:.*]] = arith.ori %[[WIDE]], %[[HIGH:.*]] : i64
      // CHECK: nvvm.wgmma.mma_async %[[DA]]
      // CHECK-NOT: nvvm.wgmma.mma_async
      // CHECK: nvvm.wgmma.wait.group.sync.aligned 0
      axe.gemm cta %a, %b, %c : !a, !b, !c
      gpu.return
    }
  }
}

// -----

// f16 accumulators: m64n16 gives each thread 8 halves, 4 .f16x2 registers (pairs of consecutive fragment
// elements), in and out of the struct.
!a = !axe.tensor<64x16xf16, shared, Swizzle(3,3,3) o S[(64,16):(64,1)]>
!b = !axe.tensor<16x16xf16, shared, Swizzle(3,3,3) o S[(16,16):(1,64)]>
!c = !axe.tensor<64x16xf16, reg, S[(4,2,8,2,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
module attributes {axe.target = "sm_90a"} {
  // CHECK-LABEL: func.func @f16_accumulator
  func.func @f16_accumulator() {
    %a = axe.alloc cta : !a
    %b = axe.alloc cta : !b
    %c = axe.alloc warpgroup : !c
    // CHECK: %[[C:.*]] = memref.alloca() : memref<8xf16, #gpu.address_space<private>>
    // CHECK: %[[C6:.*]] = memref.load %[[C]][%c6]
    // CHECK: %[[C7:.*]] = memref.load %[[C]][%c7]
    // CHECK: %[[P:.*]] = llvm.insertelement %[[C6]], %{{.*}}[%c0_i32 : i32] : vector<2xf16>
    // CHECK: %[[Q:.*]] = llvm.insertelement %[[C7]], %[[P]][%c1_i32 : i32] : vector<2xf16>
    // CHECK: llvm.insertvalue %[[Q]], %{{.*}}[3] : !llvm.struct<(vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>)>
    // CHECK: %[[R:.*]] = nvvm.wgmma.mma_async
    // CHECK-SAME: D[<f16>, <one>]
    // CHECK-SAME: !llvm.struct<(vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>)> -> !llvm.struct<(vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>)>
    // CHECK: %[[R3:.*]] = llvm.extractvalue %[[R]][3]
    // CHECK: %[[H7:.*]] = llvm.extractelement %[[R3]][%c1_i32 : i32] : vector<2xf16>
    // CHECK: memref.store %[[H7]], %[[C]][%c7]
    axe.gemm warpgroup %a, %b, %c : !a, !b, !c
    return
  }
}

// -----

// A in registers (the wgmma A fragment: warp w holds rows 16w.., as mma.sync's A): nvvm.wgmma.mma_async cannot
// take it, so the instruction is inline PTX with the accumulators tied in and out, a0..a7 packed into four
// .b32 registers, B's descriptor, and imm-trans-b 0 (B is K-major).
!a = !axe.tensor<64x16xf16, reg, S[(4,2,8,2,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
!b = !axe.tensor<16x16xf16, shared, Swizzle(3,3,3) o S[(16,16):(1,64)]>
!c = !axe.tensor<64x16xf32, reg, S[(4,2,8,2,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
module attributes {axe.target = "sm_90a"} {
  // CHECK-LABEL: func.func @a_in_registers
  func.func @a_in_registers() {
    // CHECK-DAG: %[[A:.*]] = memref.alloca() : memref<8xf16, #gpu.address_space<private>>
    %a = axe.alloc warpgroup : !a
    %b = axe.alloc cta : !b
    %c = axe.alloc warpgroup : !c
    // CHECK: nvvm.wgmma.fence.aligned
    // CHECK: memref.load %[[A]][%c0]
    // CHECK: memref.load %[[A]][%c7]
    // CHECK: %[[P3:.*]] = llvm.bitcast %{{.*}} : vector<2xf16> to i32
    // CHECK: %[[R:.*]] = llvm.inline_asm has_side_effects "{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;\0Awgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {$0, $1, $2, $3, $4, $5, $6, $7}, {$8, $9, $10, $11}, $12, p, 1, 1, 0;\0A}", "=f,=f,=f,=f,=f,=f,=f,=f,r,r,r,r,l,0,1,2,3,4,5,6,7"
    // CHECK-SAME: : (i32, i32, i32, i32, i64, f32, f32, f32, f32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    // CHECK: llvm.extractvalue %[[R]][7]
    // CHECK: nvvm.wgmma.commit.group.sync.aligned
    // CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
    axe.gemm warpgroup %a, %b, %c : !a, !b, !c
    return
  }
}
