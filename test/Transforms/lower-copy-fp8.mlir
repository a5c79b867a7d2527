// --lower-copy on FP8 outputs: axe.cast f32 -> f8E4M3FN / f8E5M2 rounds two registers at a time with
// `cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 d, a, b` (nearest even, saturating to the largest finite value, NaN kept),
// which puts `a` in d's upper byte and `b` in its lower one: register 2i goes in as `b` (element 0 of the
// vector<2xi8>), 2i + 1 as `a`. FP8 registers move as i8 (LLVM has no FP8 type): a store of two codes is one
// vector<2xi8>. The simulator checks the values (sim/tests/fp8.rs, fp8_outputs_*).
// RUN: axe-opt %s --lower-copy | FileCheck %s
// RUN: axe-opt %s --lower-copy --lower-to-nvvm -o %t.mlir
// RUN: axe-translate --emit=ptx --chip=sm_90a %t.mlir -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin

// The m16n8 accumulator fragment: registers 0, 1 (row l/4, columns 2(l%4), +1) and 2, 3 (row 8 + l/4).
!acc = !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
!e4m3 = !axe.tensor<16x8xf8E4M3FN, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
!e5m2 = !axe.tensor<16x8xf8E5M2, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
!g4 = !axe.tensor<16x8xf8E4M3FN, global, S[(16,8):(8,1)]>
!g5 = !axe.tensor<16x8xf8E5M2, global, S[(16,8):(8,1)]>
module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_90a"} {
    // CHECK-LABEL: gpu.func @to_e4m3
    gpu.func @to_e4m3(%x: f32, %c: memref<16x8xf8E4M3FN>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %a = memref.alloca() : memref<4xf32, #gpu.address_space<private>>
      %c0 = arith.constant 0 : index
      memref.store %x, %a[%c0] : memref<4xf32, #gpu.address_space<private>>
      %acc = axe.view %a : memref<4xf32, #gpu.address_space<private>> -> !acc
      %o = axe.alloc warp : !e4m3
      %g = axe.view %c : memref<16x8xf8E4M3FN> -> !g4
      // CHECK: memref.alloca() : memref<4xf8E4M3FN, #gpu.address_space<private>>
      // CHECK-NEXT: %[[R0:.*]] = arith.constant 0 : index
      // CHECK-NEXT: %[[X0:.*]] = memref.load %[[A:.*]][%[[R0]]] : memref<4xf32
      // CHECK-NEXT: %[[R1:.*]] = arith.constant 1 : index
      // CHECK-NEXT: %[[X1:.*]] = memref.load %[[A]][%[[R1]]] : memref<4xf32
      // CHECK-NEXT: %[[V:.*]] = nvvm.convert.f32x2.to.f8x2 %[[X1]], %[[X0]] {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : vector<2xi8>(f8E4M3FN)
      // CHECK-NEXT: %[[L0:.*]] = arith.constant 0 : i32
      // CHECK-NEXT: %[[B0:.*]] = llvm.extractelement %[[V]][%[[L0]] : i32] : vector<2xi8>
      // CHECK-NEXT: %[[F0:.*]] = arith.bitcast %[[B0]] : i8 to f8E4M3FN
      // CHECK-NEXT: %[[S0:.*]] = arith.constant 0 : index
      // CHECK-NEXT: memref.store %[[F0]], %{{.*}}[%[[S0]]] : memref<4xf8E4M3FN
      // CHECK-NEXT: %[[L1:.*]] = arith.constant 1 : i32
      // CHECK-NEXT: %[[B1:.*]] = llvm.extractelement %[[V]][%[[L1]] : i32] : vector<2xi8>
      // CHECK-NEXT: %[[F1:.*]] = arith.bitcast %[[B1]] : i8 to f8E4M3FN
      // CHECK: nvvm.convert.f32x2.to.f8x2
      // CHECK-NOT: nvvm.convert
      axe.cast warp %acc to %o : !acc to !e4m3
      // Registers 0, 1 (two consecutive codes of a row) as one vector<2xi8> store.
      // CHECK: arith.bitcast %{{.*}} : f8E4M3FN to i8
      // CHECK: llvm.insertelement %{{.*}} : vector<2xi8>
      // CHECK: llvm.store %{{.*}} : vector<2xi8>, !llvm.ptr<1>
      axe.copy warp %o to %g : !e4m3 to !g4
      gpu.return
    }

    // CHECK-LABEL: gpu.func @to_e5m2
    // CHECK: nvvm.convert.f32x2.to.f8x2 {{.*}} : vector<2xi8>(f8E5M2)
    gpu.func @to_e5m2(%x: f32, %c: memref<16x8xf8E5M2>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %a = memref.alloca() : memref<4xf32, #gpu.address_space<private>>
      %c0 = arith.constant 0 : index
      memref.store %x, %a[%c0] : memref<4xf32, #gpu.address_space<private>>
      %acc = axe.view %a : memref<4xf32, #gpu.address_space<private>> -> !acc
      %o = axe.alloc warp : !e5m2
      %g = axe.view %c : memref<16x8xf8E5M2> -> !g5
      axe.cast warp %acc to %o : !acc to !e5m2
      axe.copy warp %o to %g : !e5m2 to !g5
      gpu.return
    }
  }
}

// PTX-LABEL: .visible .entry to_e4m3(
// PTX: cvt.rn.satfinite.e4m3x2.f32
// PTX: st.global.b16
// PTX-LABEL: .visible .entry to_e5m2(
// PTX: cvt.rn.satfinite.e5m2x2.f32
