// --lower-copy, ldmatrix (shared -> registers, sm_80+) and stmatrix (registers -> shared, sm_90a): when the
// register layout is a tile of the instruction's fragment (PTX ISA 9.7.14.5.15/16: thread t holds row t/4,
// elements 2(t%4) and 2(t%4)+1 of each 8x8 matrix; .trans the column) and each 8-element row is 16 contiguous
// bytes of shared memory. Threads 8i..8i+7 give the row addresses of matrix i. The addresses below are worked out
// by hand from the layouts.
// RUN: axe-opt %s --lower-copy --cse | FileCheck %s
// RUN: axe-opt %s --lower-copy --lower-to-nvvm -o %t.mlir
// RUN: axe-translate --emit=ptx --chip=sm_80 --gpu-module=sm80 %t.mlir -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: ptxas -arch=sm_80 %t.ptx -o %t.cubin
// RUN: axe-translate --emit=ptx --chip=sm_90a --gpu-module=sm80 %t.mlir -o %t.ldm90.ptx
// RUN: ptxas -arch=sm_90a %t.ldm90.ptx -o %t.ldm90.cubin
// RUN: axe-translate --emit=ptx --chip=sm_90a --gpu-module=sm90a %t.mlir -o %t.sm90a.ptx
// RUN: FileCheck %s --check-prefix=STM < %t.sm90a.ptx
// RUN: ptxas -arch=sm_90a %t.sm90a.ptx -o %t.sm90a.cubin

// A: 16x16 f16 row-major in shared memory (rows of 32 bytes), into the m16n8k16 A fragment.
!ga = !axe.tensor<16x16xf16, global, S[(16,16):(16,1)]>
!sa = !axe.tensor<16x16xf16, shared, S[(16,16):(16,1)]>
!a = !axe.tensor<16x16xf16, reg, S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)]>
// B: 16x8 (K x N) f16 row-major in shared memory (rows of N = 16 bytes), into the m16n8k16 B fragment, which
// holds two consecutive k of one n: the transposed load.
!gb = !axe.tensor<16x8xf16, global, S[(16,8):(8,1)]>
!sb = !axe.tensor<16x8xf16, shared, S[(16,8):(8,1)]>
!b = !axe.tensor<16x8xf16, reg, S[(2,4,2,8):(2,1@laneid,1,4@laneid)]>
// C: a 16x8 f16 accumulator fragment, stored to shared rows of 16 bytes; read back by 16 lanes, one row each.
!c = !axe.tensor<16x8xf16, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
!rows = !axe.tensor<16x8xf16, reg, S[(16,8):(1@laneid,1)]>
module attributes {gpu.container_module} {
  gpu.module @sm80 attributes {axe.target = "sm_80"} {
    // CHECK-LABEL: gpu.func @fragments
    gpu.func @fragments(%ma: memref<256xf16>, %mb: memref<128xf16>, %oa: memref<256xf16>, %ob: memref<128xf16>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %ga = axe.view %ma : memref<256xf16> -> !ga
      %gb = axe.view %mb : memref<128xf16> -> !gb
      %ha = axe.view %oa : memref<256xf16> -> !ga
      %hb = axe.view %ob : memref<128xf16> -> !gb
      %sa = axe.alloc cta : !sa
      %sb = axe.alloc cta : !sb
      %a = axe.alloc warp : !a
      %b = axe.alloc warp : !b
      axe.copy cta %ga to %sa : !ga to !sa
      axe.copy cta %gb to %sb : !gb to !sb
      // x4: matrix i is rows 8(i%2).., columns 8(i/2).. (A's register pairs 0..3 in that order), so thread t
      // gives row 8((t/8)%2) + t%8, column 8(t/16): element 16(t%8) + 128((t/8)%2) + 8(t/16), which is
      // 16(t%16) + 8((t/16)%2) for t < 32.
      // CHECK: %[[T:.*]] = arith.remui %{{.*}}, %c32 : index
      // CHECK: %[[LOW:.*]] = arith.remui %[[T]], %c16 : index
      // CHECK: arith.muli %[[LOW]], %c16 : index
      // CHECK: %[[HIGH:.*]] = arith.divui %[[T]], %c16 : index
      // CHECK: %[[BIT:.*]] = arith.remui %[[HIGH]], %c2 : index
      // CHECK: arith.muli %[[BIT]], %c8 : index
      // CHECK: %[[X4:.*]] = nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
      // CHECK: %[[D0:.*]] = llvm.extractvalue %[[X4]][0]
      // CHECK-NEXT: %[[P0:.*]] = llvm.bitcast %[[D0]] : i32 to vector<2xf16>
      // CHECK: %[[H0:.*]] = llvm.extractelement %[[P0]][%c0_i32 : i32] : vector<2xf16>
      // CHECK: memref.store %[[H0]], %[[A:.*]][%c0]
      // CHECK: %[[H1:.*]] = llvm.extractelement %[[P0]][%c1_i32 : i32] : vector<2xf16>
      // CHECK: memref.store %[[H1]], %[[A]][%c1]
      // CHECK: llvm.extractvalue %[[X4]][3]
      // CHECK: memref.store %{{.*}}, %[[A]][%c6]
      // CHECK: memref.store %{{.*}}, %[[A]][%c7]
      axe.copy warp %sa to %a : !sa to !a
      // x2 .trans: matrix i is k rows 8i..8i+7; thread t < 16 gives row k = t: element 8t.
      // CHECK: %[[E:.*]] = arith.muli %[[T]], %c8 : index
      // CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 2 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
      axe.copy warp %sb to %b : !sb to !b
      axe.copy warp %a to %ha : !a to !ga
      axe.copy warp %b to %hb : !b to !gb
      gpu.return
    }
  }
  gpu.module @sm90a attributes {axe.target = "sm_90a"} {
    // CHECK-LABEL: gpu.func @store_fragment
    gpu.func @store_fragment(%mc: memref<128xf16>, %oc: memref<128xf16>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %gc = axe.view %mc : memref<128xf16> -> !gb
      %hc = axe.view %oc : memref<128xf16> -> !gb
      %c = axe.alloc warp : !c
      %sc = axe.alloc cta : !sb
      %rows = axe.alloc warp : !rows
      axe.copy warp %gc to %c : !gb to !c
      // stmatrix x2: matrix 0 is rows 0..7 (registers 0, 1), matrix 1 rows 8..15 (registers 2, 3); thread t < 16
      // gives row t: element 8t.
      // CHECK: %[[T:.*]] = arith.remui %{{.*}}, %c32 : index
      // CHECK: arith.muli %[[T]], %c8 : index
      // CHECK: memref.load %[[C:.*]][%c0] : memref<4xf16, #gpu.address_space<private>>
      // CHECK: memref.load %[[C]][%c1]
      // CHECK: %[[R01:.*]] = llvm.insertelement %{{.*}} : vector<2xf16>
      // CHECK-NEXT: %[[W0:.*]] = llvm.bitcast %[[R01]] : vector<2xf16> to i32
      // CHECK: memref.load %[[C]][%c2]
      // CHECK: memref.load %[[C]][%c3]
      // CHECK: %[[R23:.*]] = llvm.insertelement %{{.*}} : vector<2xf16>
      // CHECK-NEXT: %[[W1:.*]] = llvm.bitcast %[[R23]] : vector<2xf16> to i32
      // CHECK-NEXT: nvvm.stmatrix %{{.*}}, %[[W0]], %[[W1]] {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32, i32
      axe.copy warp %c to %sc : !c to !sb
      axe.copy warp %sc to %rows : !sb to !rows
      axe.copy warp %rows to %hc : !rows to !gb
      gpu.return
    }
  }
}

// PTX: .target sm_80
// PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {[[D0:%r[0-9]+]], [[D1:%r[0-9]+]], [[D2:%r[0-9]+]], [[D3:%r[0-9]+]]}
// PTX: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// A's pairs go to row g, column 2c (+0 bytes), row g+8 (+256), column +8 (+16), both (+272).
// PTX: st.global.b32 [[[OUT:%rd[0-9]+]]], [[D0]];
// PTX-NEXT: st.global.b32 [[[OUT]]+256], [[D1]];
// PTX-NEXT: st.global.b32 [[[OUT]]+16], [[D2]];
// PTX-NEXT: st.global.b32 [[[OUT]]+272], [[D3]];

// STM: .target sm_90a
// STM: stmatrix.sync.aligned.m8n8.x2.shared.b16 [{{%r[0-9]+|%rd[0-9]+}}], {{[{]}}{{%r[0-9]+}}, {{%r[0-9]+}}{{[}]}};
// STM: ld.shared.v4.b32
// STM: st.global.v4.b32
