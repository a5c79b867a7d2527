// --lower-mma on mma.sync (sm_80): every operand in registers. The registers each instruction reads come from
// the planner (axe_layout::mma); the checks below are written from the PTX ISA's m16n8k16/m16n8k8 fragments
// (9.7.14.5.8, .7): A is 8 (k16) or 4 (k8) halves packed two per .f16x2 register, B 4 or 2, C 4 floats.
// RUN: axe-opt %s --split-input-file --lower-mma --cse | FileCheck %s

// One warp, one m16n8k16: layouts equal to the fragments, so a0..a7 are registers 0..7 in order, b0..b3 are
// 0..3, c0..c3 are 0..3; pairs (0,1), (2,3), ... fill the .f16x2 registers.
!a = !axe.tensor<16x16xf16, reg, S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)]>
!b = !axe.tensor<16x8xf16, reg, S[(2,4,2,8):(2,1@laneid,1,4@laneid)]>
!c = !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
module attributes {axe.target = "sm_80"} {
  // CHECK-LABEL: func.func @one_instruction
  func.func @one_instruction(%acc: memref<4xf32, #gpu.address_space<private>>) {
    // CHECK-DAG: %[[A:.*]] = memref.alloca() : memref<8xf16, #gpu.address_space<private>>
    // CHECK-DAG: %[[B:.*]] = memref.alloca() : memref<4xf16, #gpu.address_space<private>>
    %zero = arith.constant 0.0 : f32
    %a = axe.alloc warp : !a
    %b = axe.alloc warp : !b
    %c = axe.view %acc : memref<4xf32, #gpu.address_space<private>> -> !c
    // The fill stores zero into the 4 accumulator registers.
    // CHECK: memref.store %{{.*}}, %arg0[%c0]
    // CHECK: memref.store %{{.*}}, %arg0[%c1]
    // CHECK: memref.store %{{.*}}, %arg0[%c2]
    // CHECK: memref.store %{{.*}}, %arg0[%c3]
    axe.fill warp %c, %zero : !c, f32
    // A warp-scope gemm has one warp: no guard.
    // CHECK-NOT: scf.if
    // CHECK: %[[A0:.*]] = memref.load %[[A]][%c0]
    // CHECK: %[[A1:.*]] = memref.load %[[A]][%c1]
    // CHECK: %[[A7:.*]] = memref.load %[[A]][%c7]
    // CHECK: %[[P0:.*]] = llvm.insertelement %[[A0]], %{{.*}}[%c0_i32 : i32] : vector<2xf16>
    // CHECK: llvm.insertelement %[[A1]], %[[P0]][%c1_i32 : i32] : vector<2xf16>
    // CHECK: memref.load %[[B]][%c3]
    // CHECK: %[[C0:.*]] = memref.load %arg0[%c0]
    // CHECK: %[[C3:.*]] = memref.load %arg0[%c3]
    // CHECK: %[[D:.*]] = nvvm.mma.sync A[{{.*}}, {{.*}}, {{.*}}, {{.*}}]  B[{{.*}}, {{.*}}]  C[%[[C0]], {{.*}}, {{.*}}, %[[C3]]]
    // CHECK-SAME: shape = #nvvm.shape<m = 16, n = 8, k = 16>
    // CHECK-SAME: (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    // CHECK: %[[D0:.*]] = llvm.extractvalue %[[D]][0]
    // CHECK: %[[D3:.*]] = llvm.extractvalue %[[D]][3]
    // CHECK: memref.store %[[D0]], %arg0[%c0]
    // CHECK: memref.store %[[D3]], %arg0[%c3]
    axe.gemm warp %a, %b, %c : !a, !b, !c
    // CHECK-NOT: axe.
    // CHECK: return
    return
  }
}

// -----

// K = 32 in one warp: the second k16 step of A sits at registers 8..15 (A's K iter of extent 2 has stride 8 on
// m) and of B at 4..7; the accumulator is the same 4 registers, read back between the two instructions.
!a = !axe.tensor<16x32xf16, reg, S[(2,8,2,2,4,2):(2,4@laneid,8,4,1@laneid,1)]>
!b = !axe.tensor<32x8xf16, reg, S[(2,2,4,2,8):(4,2,1@laneid,1,4@laneid)]>
!c = !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
module attributes {axe.target = "sm_80"} {
  // CHECK-LABEL: func.func @two_k_steps
  func.func @two_k_steps() {
    // CHECK-DAG: %[[A:.*]] = memref.alloca() : memref<16xf16, #gpu.address_space<private>>
    // CHECK-DAG: %[[B:.*]] = memref.alloca() : memref<8xf16, #gpu.address_space<private>>
    // CHECK-DAG: %[[C:.*]] = memref.alloca() : memref<4xf32, #gpu.address_space<private>>
    %a = axe.alloc warp : !a
    %b = axe.alloc warp : !b
    %c = axe.alloc warp : !c
    // CHECK: memref.load %[[A]][%c0]
    // CHECK: memref.load %[[A]][%c7]
    // CHECK: memref.load %[[B]][%c0]
    // CHECK: memref.load %[[B]][%c3]
    // CHECK: nvvm.mma.sync
    // CHECK: memref.store %{{.*}}, %[[C]][%c3]
    // CHECK: memref.load %[[A]][%c8]
    // CHECK: memref.load %[[A]][%c15]
    // CHECK: memref.load %[[B]][%c4]
    // CHECK: memref.load %[[B]][%c7]
    // CHECK: memref.load %[[C]][%c0]
    // CHECK: nvvm.mma.sync
    // CHECK-NOT: nvvm.mma.sync
    axe.gemm warp %a, %b, %c : !a, !b, !c
    return
  }
}

// -----

// bf16: nvvm.mma.sync takes bf16 pairs as i32 (the pair vector bitcast) and the PTX types explicitly.
!a = !axe.tensor<16x16xbf16, reg, S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)]>
!b = !axe.tensor<16x8xbf16, reg, S[(2,4,2,8):(2,1@laneid,1,4@laneid)]>
!c = !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
module attributes {axe.target = "sm_80"} {
  // CHECK-LABEL: func.func @bf16
  func.func @bf16() {
    %a = axe.alloc warp : !a
    %b = axe.alloc warp : !b
    %c = axe.alloc warp : !c
    // CHECK: llvm.bitcast %{{.*}} : vector<2xbf16> to i32
    // CHECK: nvvm.mma.sync
    // CHECK-SAME: multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>
    // CHECK-SAME: (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    axe.gemm warp %a, %b, %c : !a, !b, !c
    return
  }
}

// -----

// f16 accumulators: c0..c3 are two .f16x2 registers, in and out; K = 8 selects m16n8k8 (A 2 registers, B 1).
!a = !axe.tensor<16x8xf16, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
!b = !axe.tensor<8x8xf16, reg, S[(4,2,8):(1@laneid,1,4@laneid)]>
!c = !axe.tensor<16x8xf16, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
module attributes {axe.target = "sm_80"} {
  // CHECK-LABEL: func.func @f16_accumulator_k8
  func.func @f16_accumulator_k8() {
    %a = axe.alloc warp : !a
    %b = axe.alloc warp : !b
    %c = axe.alloc warp : !c
    // CHECK: %[[D:.*]] = nvvm.mma.sync A[{{[^,]*}}, {{[^,]*}}]  B[{{[^,]*}}]  C[{{[^,]*}}, {{[^,]*}}]
    // CHECK-SAME: shape = #nvvm.shape<m = 16, n = 8, k = 8>
    // CHECK-SAME: (vector<2xf16>, vector<2xf16>, vector<2xf16>) -> !llvm.struct<(vector<2xf16>, vector<2xf16>)>
    // CHECK: %[[D1:.*]] = llvm.extractvalue %[[D]][1]
    // CHECK: llvm.extractelement %[[D1]][%c1_i32 : i32] : vector<2xf16>
    axe.gemm warp %a, %b, %c : !a, !b, !c
    return
  }
}

// -----

// Two warps split N at cta scope: the issues of the warp starting at thread 32 run under tid / 32 == 1.
!a = !axe.tensor<16x16xf16, reg, S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)] + R[2:1@warpid]>
!b = !axe.tensor<16x16xf16, reg, S[(2,4,2,2,8):(2,1@laneid,1,1@warpid,4@laneid)]>
!c = !axe.tensor<16x16xf32, reg, S[(2,8,2,4,2):(2,4@laneid,1@warpid,1@laneid,1)]>
module attributes {axe.target = "sm_80"} {
  // CHECK-LABEL: gpu.func @two_warps
  gpu.module @kernels {
    gpu.func @two_warps() kernel {
      // CHECK: %[[TID:.*]] = gpu.thread_id x
      %a = axe.alloc cta : !a
      %b = axe.alloc cta : !b
      %c = axe.alloc cta : !c
      // CHECK: %[[W:.*]] = arith.divui %[[TID]], %c32 : index
      // CHECK: %[[IS0:.*]] = arith.cmpi eq, %[[W]], %c0 : index
      // CHECK: scf.if %[[IS0]] {
      // CHECK: nvvm.mma.sync
      // CHECK: %[[IS1:.*]] = arith.cmpi eq, %{{.*}}, %c1 : index
      // CHECK: scf.if %[[IS1]] {
      // CHECK: nvvm.mma.sync
      axe.gemm cta %a, %b, %c : !a, !b, !c
      gpu.return
    }
  }
}
