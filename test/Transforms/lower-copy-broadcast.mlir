// --lower-copy on the elementwise ops whose operands broadcast (axe.mul, axe.fma, axe.add): each register of
// dest reads the operand register that holds its element on the same thread. The register pairs below are worked
// out by hand from the layouts (docs/dialect.md, "Elementwise on registers").
// RUN: axe-opt %s --lower-copy | FileCheck %s
// The fma is one fma.rn.f32 per register in PTX (llvm.intr.fma, not a libdevice call), and it assembles.
// RUN: axe-opt %s --lower-copy --lower-to-nvvm -o %t.mlir
// RUN: axe-translate --emit=ptx --chip=sm_90a %t.mlir -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin

// The m16n8 accumulator fragment: lane l holds rows l/4 (registers 0, 1) and 8 + l/4 (registers 2, 3), columns
// 2(l%4) and 2(l%4) + 1.
!acc = !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
// A row's scale, in the four lanes that hold the row: lane l holds rows l/4 (register 0) and 8 + l/4 (register 1).
!rows = !axe.tensor<16x1xf32, reg, S[(2,8,1):(1,4@laneid,1)] + R[4:1@laneid]>
// One value in every lane.
!one = !axe.tensor<1x1xf32, reg, S[(1,1):(1,1)] + R[32:1@laneid]>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // acc[i, j] = part[i, j] * scale[i, 0] + acc[i, j]: registers 0, 1 read scale register 0; 2, 3 read 1.
    // CHECK-LABEL: gpu.func @promote
    gpu.func @promote(%v: f32, %w: f32, %out: memref<128xf32>) kernel {
      %a = memref.alloca() : memref<4xf32, #gpu.address_space<private>>
      %p = memref.alloca() : memref<4xf32, #gpu.address_space<private>>
      %s = memref.alloca() : memref<2xf32, #gpu.address_space<private>>
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      memref.store %v, %s[%c0] : memref<2xf32, #gpu.address_space<private>>
      memref.store %w, %s[%c1] : memref<2xf32, #gpu.address_space<private>>
      memref.store %v, %p[%c3] : memref<4xf32, #gpu.address_space<private>>
      memref.store %w, %a[%c3] : memref<4xf32, #gpu.address_space<private>>
      %acc = axe.view %a : memref<4xf32, #gpu.address_space<private>> -> !acc
      %part = axe.view %p : memref<4xf32, #gpu.address_space<private>> -> !acc
      %scale = axe.view %s : memref<2xf32, #gpu.address_space<private>> -> !rows
      // CHECK-NOT: axe.fma
      // CHECK: memref.store %arg1, %{{.*}}[%c3]
      // CHECK-NEXT: %[[R0:.*]] = arith.constant 0 : index
      // CHECK-NEXT: %[[X0:.*]] = memref.load %[[P:.*]][%[[R0]]] : memref<4xf32
      // CHECK-NEXT: %[[Y0:.*]] = memref.load %[[S:.*]][%[[R0]]] : memref<2xf32
      // CHECK-NEXT: %[[Z0:.*]] = memref.load %[[A:.*]][%[[R0]]] : memref<4xf32
      // CHECK-NEXT: %[[F0:.*]] = llvm.intr.fma(%[[X0]], %[[Y0]], %[[Z0]]) : (f32, f32, f32) -> f32
      // CHECK-NEXT: memref.store %[[F0]], %[[A]][%[[R0]]]
      // CHECK-NEXT: %[[R1:.*]] = arith.constant 1 : index
      // CHECK-NEXT: memref.load %[[P]][%[[R1]]]
      // CHECK-NEXT: %[[S1:.*]] = arith.constant 0 : index
      // CHECK-NEXT: memref.load %[[S]][%[[S1]]]
      // CHECK-NEXT: memref.load %[[A]][%[[R1]]]
      // CHECK: %[[R2:.*]] = arith.constant 2 : index
      // CHECK-NEXT: memref.load %[[P]][%[[R2]]]
      // CHECK-NEXT: %[[S2:.*]] = arith.constant 1 : index
      // CHECK-NEXT: memref.load %[[S]][%[[S2]]]
      // CHECK: %[[R3:.*]] = arith.constant 3 : index
      // CHECK-NEXT: memref.load %[[P]][%[[R3]]]
      // CHECK-NEXT: %[[S3:.*]] = arith.constant 1 : index
      // CHECK-NEXT: memref.load %[[S]][%[[S3]]]
      // CHECK: llvm.intr.fma
      // CHECK-NOT: llvm.intr.fma
      // CHECK: gpu.lane_id
      axe.fma warp %part, %scale, %acc to %acc : !acc, !rows, !acc to !acc
      %lane = gpu.lane_id
      %x = memref.load %a[%c3] : memref<4xf32, #gpu.address_space<private>>
      memref.store %x, %out[%lane] : memref<128xf32>
      gpu.return
    }

    // scale[i, 0] = rows[i, 0] * one[0, 0]: both row registers read the one register 0; then
    // acc[i, j] = acc[i, j] + scale[i, 0] (axe.add broadcasts too).
    // CHECK-LABEL: gpu.func @scale_rows_then_add
    gpu.func @scale_rows_then_add(%v: f32, %out: memref<128xf32>) kernel {
      %a = memref.alloca() : memref<4xf32, #gpu.address_space<private>>
      %s = memref.alloca() : memref<2xf32, #gpu.address_space<private>>
      %o = memref.alloca() : memref<1xf32, #gpu.address_space<private>>
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      memref.store %v, %o[%c0] : memref<1xf32, #gpu.address_space<private>>
      memref.store %v, %s[%c1] : memref<2xf32, #gpu.address_space<private>>
      memref.store %v, %a[%c2] : memref<4xf32, #gpu.address_space<private>>
      %acc = axe.view %a : memref<4xf32, #gpu.address_space<private>> -> !acc
      %rows = axe.view %s : memref<2xf32, #gpu.address_space<private>> -> !rows
      %one = axe.view %o : memref<1xf32, #gpu.address_space<private>> -> !one
      // CHECK: memref.store %arg0, %{{.*}}[%c2]
      // CHECK-NEXT: %[[R0:.*]] = arith.constant 0 : index
      // CHECK-NEXT: memref.load %[[S:.*]][%[[R0]]] : memref<2xf32
      // CHECK-NEXT: memref.load %[[O:.*]][%[[R0]]] : memref<1xf32
      // CHECK-NEXT: arith.mulf
      // CHECK-NEXT: memref.store %{{.*}}, %[[S]][%[[R0]]]
      // CHECK-NEXT: %[[R1:.*]] = arith.constant 1 : index
      // CHECK-NEXT: memref.load %[[S]][%[[R1]]] : memref<2xf32
      // CHECK-NEXT: %[[O1:.*]] = arith.constant 0 : index
      // CHECK-NEXT: memref.load %[[O]][%[[O1]]] : memref<1xf32
      // CHECK-NEXT: arith.mulf
      axe.mul warp %rows, %one to %rows : !rows, !one to !rows
      // Register 2 of acc (row 8 + l/4) adds scale register 1.
      // CHECK: %[[A2:.*]] = arith.constant 2 : index
      // CHECK-NEXT: memref.load %[[A:.*]][%[[A2]]] : memref<4xf32
      // CHECK-NEXT: %[[S2:.*]] = arith.constant 1 : index
      // CHECK-NEXT: memref.load %[[S]][%[[S2]]] : memref<2xf32
      // CHECK-NEXT: arith.addf
      axe.add warp %acc, %rows to %acc : !acc, !rows to !acc
      %lane = gpu.lane_id
      %x = memref.load %a[%c2] : memref<4xf32, #gpu.address_space<private>>
      memref.store %x, %out[%lane] : memref<128xf32>
      gpu.return
    }
  }
}

// PTX-LABEL: .visible .entry promote(
// PTX: fma.rn.f32
// PTX-NOT: __nv_fmaf
// PTX-LABEL: .visible .entry scale_rows_then_add(
// PTX: mul.{{(rn.)?}}f32
// PTX: add.{{(rn.)?}}f32
