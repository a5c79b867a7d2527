// --lower-copy on the elementwise epilogue ops: axe.cast, axe.scale, axe.add (and sub, max, div) work on each register the layout
// holds, in place in the private memrefs that hold register tensors. The registers below are worked out by hand
// from each layout's iters on m (value = offset + sum of digit * stride).
// RUN: axe-opt %s --lower-copy | FileCheck %s
// Each kernel then stores its registers to global memory, so the PTX keeps the arithmetic; it assembles for
// sm_80 and sm_90a.
// RUN: axe-opt %s --lower-copy --lower-to-nvvm -o %t.mlir
// RUN: axe-translate --emit=ptx --chip=sm_80 %t.mlir -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: ptxas -arch=sm_80 %t.ptx -o %t.cubin
// RUN: axe-translate --emit=ptx --chip=sm_90a %t.mlir -o %t.sm90a.ptx
// RUN: ptxas -arch=sm_90a %t.sm90a.ptx -o %t.sm90a.cubin

// The m16n8 accumulator fragment: m iters (2):(2) and (2):(1), so registers 0, 1, 2, 3; f32 -> f16 narrows each.
!acc = !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
!out = !axe.tensor<16x8xf16, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
// A layout with holes: S[(32,2):(1@laneid,2)] holds registers 0 and 2 only.
!b = !axe.tensor<32x2xbf16, reg, S[(32,2):(1@laneid,2)]>
!f = !axe.tensor<32x2xf32, reg, S[(32,2):(1@laneid,2)]>
// The second half of an 8-register fragment (offset 4 on m): registers 4, 5, 6, 7.
!half = !axe.tensor<16x8xbf16, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)] + 4>
// Two halves per lane: registers 0 and 1.
!h = !axe.tensor<32x2xf16, reg, S[(32,2):(1@laneid,1)]>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // CHECK-LABEL: gpu.func @cast_fragment
    gpu.func @cast_fragment(%in: f32, %out: memref<128xf16>) kernel {
      %a = memref.alloca() : memref<4xf32, #gpu.address_space<private>>
      %h = memref.alloca() : memref<4xf16, #gpu.address_space<private>>
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      memref.store %in, %a[%c0] : memref<4xf32, #gpu.address_space<private>>
      memref.store %in, %a[%c1] : memref<4xf32, #gpu.address_space<private>>
      memref.store %in, %a[%c2] : memref<4xf32, #gpu.address_space<private>>
      memref.store %in, %a[%c3] : memref<4xf32, #gpu.address_space<private>>
      %acc = axe.view %a : memref<4xf32, #gpu.address_space<private>> -> !acc
      %o = axe.view %h : memref<4xf16, #gpu.address_space<private>> -> !out
      // f32 -> f16 two registers at a time: registers 0 and 1 loaded into a vector<2xf32>, truncated as one
      // vector<2xf16> (cvt.rn.f16x2.f32 on sm_80+), stored back register by register; then registers 2 and 3.
      // CHECK-NOT: axe.
      // CHECK: %[[X0:.*]] = memref.load %[[A:.*]][%c0{{.*}}] : memref<4xf32, #gpu.address_space<private>>
      // CHECK: %[[V0:.*]] = llvm.insertelement %[[X0]], %{{.*}} : vector<2xf32>
      // CHECK: %[[X1:.*]] = memref.load %[[A]][%c1{{.*}}] : memref<4xf32, #gpu.address_space<private>>
      // CHECK: %[[V1:.*]] = llvm.insertelement %[[X1]], %[[V0]][%{{.*}} : i32] : vector<2xf32>
      // CHECK-NEXT: %[[Y:.*]] = arith.truncf %[[V1]] : vector<2xf32> to vector<2xf16>
      // CHECK-NEXT: %[[I0:.*]] = arith.constant 0 : i32
      // CHECK-NEXT: %[[Y0:.*]] = llvm.extractelement %[[Y]][%[[I0]] : i32] : vector<2xf16>
      // CHECK-NEXT: %[[R0:.*]] = arith.constant 0 : index
      // CHECK-NEXT: memref.store %[[Y0]], %[[H:.*]][%[[R0]]] : memref<4xf16, #gpu.address_space<private>>
      // CHECK-NEXT: %[[I1:.*]] = arith.constant 1 : i32
      // CHECK-NEXT: %[[Y1:.*]] = llvm.extractelement %[[Y]][%[[I1]] : i32] : vector<2xf16>
      // CHECK-NEXT: %[[R1:.*]] = arith.constant 1 : index
      // CHECK-NEXT: memref.store %[[Y1]], %[[H]][%[[R1]]] : memref<4xf16, #gpu.address_space<private>>
      // CHECK: memref.load %[[A]][%c2{{.*}}]
      // CHECK: memref.load %[[A]][%c3{{.*}}]
      // CHECK: arith.truncf %{{.*}} : vector<2xf32> to vector<2xf16>
      // CHECK: memref.store %{{.*}}, %[[H]][%c2{{.*}}]
      // CHECK: memref.store %{{.*}}, %[[H]][%c3{{.*}}]
      // CHECK-NOT: arith.truncf
      // CHECK: gpu.lane_id
      axe.cast warp %acc to %o : !acc to !out
      %lane = gpu.lane_id
      %c4 = arith.constant 4 : index
      %base = arith.muli %lane, %c4 : index
      %v = memref.load %h[%c3] : memref<4xf16, #gpu.address_space<private>>
      memref.store %v, %out[%base] : memref<128xf16>
      gpu.return
    }

    // bf16 -> f32 widens registers 0 and 2; register 1 (another tensor's, say) is not touched.
    // CHECK-LABEL: gpu.func @cast_holes
    gpu.func @cast_holes(%in: bf16, %out: memref<32xf32>) kernel {
      %p = memref.alloca() : memref<3xbf16, #gpu.address_space<private>>
      %q = memref.alloca() : memref<3xf32, #gpu.address_space<private>>
      %c2 = arith.constant 2 : index
      memref.store %in, %p[%c2] : memref<3xbf16, #gpu.address_space<private>>
      %x = axe.view %p : memref<3xbf16, #gpu.address_space<private>> -> !b
      %y = axe.view %q : memref<3xf32, #gpu.address_space<private>> -> !f
      // CHECK: %[[R0:.*]] = arith.constant 0 : index
      // CHECK-NEXT: memref.load %[[P:.*]][%[[R0]]]
      // CHECK-NEXT: arith.extf %{{.*}} : bf16 to f32
      // CHECK-NEXT: memref.store %{{.*}}, %[[Q:.*]][%[[R0]]]
      // CHECK-NEXT: %[[R2:.*]] = arith.constant 2 : index
      // CHECK-NEXT: memref.load %[[P]][%[[R2]]]
      // CHECK-NEXT: arith.extf
      // CHECK-NEXT: memref.store %{{.*}}, %[[Q]][%[[R2]]]
      // CHECK-NEXT: gpu.lane_id
      axe.cast warp %x to %y : !b to !f
      %lane = gpu.lane_id
      %v = memref.load %q[%c2] : memref<3xf32, #gpu.address_space<private>>
      memref.store %v, %out[%lane] : memref<32xf32>
      gpu.return
    }

    // Scaled in place in bf16: each of registers 4..7 widens to f32, is multiplied by alpha, narrows back;
    // registers 0..3 are not touched.
    // CHECK-LABEL: gpu.func @scale_upper_half
    gpu.func @scale_upper_half(%in: bf16, %alpha: f32, %out: memref<32xbf16>) kernel {
      %p = memref.alloca() : memref<8xbf16, #gpu.address_space<private>>
      %c7 = arith.constant 7 : index
      memref.store %in, %p[%c7] : memref<8xbf16, #gpu.address_space<private>>
      %x = axe.view %p : memref<8xbf16, #gpu.address_space<private>> -> !half
      // CHECK: %[[R4:.*]] = arith.constant 4 : index
      // CHECK-NEXT: %[[X:.*]] = memref.load %[[P:.*]][%[[R4]]] : memref<8xbf16, #gpu.address_space<private>>
      // CHECK-NEXT: %[[W:.*]] = arith.extf %[[X]] : bf16 to f32
      // CHECK-NEXT: %[[M:.*]] = arith.mulf %arg1, %[[W]] : f32
      // CHECK-NEXT: %[[N:.*]] = arith.truncf %[[M]] : f32 to bf16
      // CHECK-NEXT: memref.store %[[N]], %[[P]][%[[R4]]]
      // CHECK-NEXT: arith.constant 5 : index
      // CHECK: arith.constant 6 : index
      // CHECK: arith.constant 7 : index
      // CHECK-NOT: arith.constant {{[0-3]}} : index
      // CHECK: gpu.lane_id
      axe.scale warp %x by %alpha to %x : !half to !half
      %lane = gpu.lane_id
      %v = memref.load %p[%c7] : memref<8xbf16, #gpu.address_space<private>>
      memref.store %v, %out[%lane] : memref<32xbf16>
      gpu.return
    }

    // add in f16 computes in f32: both operands widen, add, narrow; the result overwrites an operand. Lane l
    // stores its two halves at 2l, 2l+1.
    // CHECK-LABEL: gpu.func @add_and_store
    gpu.func @add_and_store(%out: memref<64xf16>, %u: f16, %v: f16) kernel {
      %p = memref.alloca() : memref<2xf16, #gpu.address_space<private>>
      %q = memref.alloca() : memref<2xf16, #gpu.address_space<private>>
      %x = axe.view %p : memref<2xf16, #gpu.address_space<private>> -> !h
      %y = axe.view %q : memref<2xf16, #gpu.address_space<private>> -> !h
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      memref.store %u, %p[%c0] : memref<2xf16, #gpu.address_space<private>>
      memref.store %u, %p[%c1] : memref<2xf16, #gpu.address_space<private>>
      memref.store %v, %q[%c0] : memref<2xf16, #gpu.address_space<private>>
      memref.store %v, %q[%c1] : memref<2xf16, #gpu.address_space<private>>
      // CHECK: %[[A:.*]] = memref.load %[[P:.*]][%[[R0:.*]]] : memref<2xf16, #gpu.address_space<private>>
      // CHECK-NEXT: %[[B:.*]] = memref.load %[[Q:.*]][%[[R0]]]
      // CHECK-NEXT: %[[A32:.*]] = arith.extf %[[A]] : f16 to f32
      // CHECK-NEXT: %[[B32:.*]] = arith.extf %[[B]] : f16 to f32
      // CHECK-NEXT: %[[S:.*]] = arith.addf %[[A32]], %[[B32]] : f32
      // CHECK-NEXT: %[[S16:.*]] = arith.truncf %[[S]] : f32 to f16
      // CHECK-NEXT: memref.store %[[S16]], %[[P]][%[[R0]]]
      axe.add warp %x, %y to %x : !h, !h to !h
      %lane = gpu.lane_id
      %c2 = arith.constant 2 : index
      %i0 = arith.muli %lane, %c2 : index
      %i1 = arith.addi %i0, %c1 : index
      %s0 = memref.load %p[%c0] : memref<2xf16, #gpu.address_space<private>>
      %s1 = memref.load %p[%c1] : memref<2xf16, #gpu.address_space<private>>
      memref.store %s0, %out[%i0] : memref<64xf16>
      memref.store %s1, %out[%i1] : memref<64xf16>
      gpu.return
    }

    // sub, max and div: each register widened to f32, one arith op, rounded back (max: arith.maximumf, NaN if
    // either is).
    // CHECK-LABEL: gpu.func @sub_max_div
    gpu.func @sub_max_div(%out: memref<64xf16>, %u: f16, %v: f16) kernel {
      %p = memref.alloca() : memref<2xf16, #gpu.address_space<private>>
      %q = memref.alloca() : memref<2xf16, #gpu.address_space<private>>
      %x = axe.view %p : memref<2xf16, #gpu.address_space<private>> -> !h
      %y = axe.view %q : memref<2xf16, #gpu.address_space<private>> -> !h
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      memref.store %u, %p[%c0] : memref<2xf16, #gpu.address_space<private>>
      memref.store %u, %p[%c1] : memref<2xf16, #gpu.address_space<private>>
      memref.store %v, %q[%c0] : memref<2xf16, #gpu.address_space<private>>
      memref.store %v, %q[%c1] : memref<2xf16, #gpu.address_space<private>>
      // CHECK: %[[D:.*]] = arith.subf %{{.*}}, %{{.*}} : f32
      // CHECK-NEXT: arith.truncf %[[D]] : f32 to f16
      // CHECK: %[[M:.*]] = arith.maximumf %{{.*}}, %{{.*}} : f32
      // CHECK-NEXT: arith.truncf %[[M]] : f32 to f16
      // CHECK: %[[Q:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
      // CHECK-NEXT: arith.truncf %[[Q]] : f32 to f16
      axe.sub warp %x, %y to %x : !h, !h to !h
      axe.max warp %x, %y to %x : !h, !h to !h
      axe.div warp %x, %y to %x : !h, !h to !h
      %lane = gpu.lane_id
      %c2 = arith.constant 2 : index
      %i0 = arith.muli %lane, %c2 : index
      %i1 = arith.addi %i0, %c1 : index
      %s0 = memref.load %p[%c0] : memref<2xf16, #gpu.address_space<private>>
      %s1 = memref.load %p[%c1] : memref<2xf16, #gpu.address_space<private>>
      memref.store %s0, %out[%i0] : memref<64xf16>
      memref.store %s1, %out[%i1] : memref<64xf16>
      gpu.return
    }
  }
}

// PTX: .target sm_80
// PTX-LABEL: .visible .entry cast_fragment(
// PTX: cvt.rn.f16.f32
// PTX: st.global.b16
// bf16 -> f32 is exact: LLVM widens by shifting the 16 bits up.
// PTX-LABEL: .visible .entry cast_holes(
// PTX: shl.b32 [[W:%r[0-9]+]], {{%r[0-9]+}}, 16;
// PTX: st.global.b32 [{{%rd[0-9]+}}], [[W]];
// PTX-LABEL: .visible .entry scale_upper_half(
// PTX: mul.{{(rn.)?}}f32
// PTX: cvt.rn.bf16.f32
// An f16 sum computed in f32 and rounded once is the f16 sum (f32 holds it exactly): LLVM emits add.rn.f16.
// PTX-LABEL: .visible .entry add_and_store(
// PTX: add.rn.f16 [[S:%rs[0-9]+]]
// PTX: st.global.b16 [{{%rd[0-9]+}}], [[S]];
