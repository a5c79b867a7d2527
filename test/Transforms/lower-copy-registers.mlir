// --lower-copy, registers -> registers with another layout: a move inside the thread when every element keeps
// its thread; shfl.sync.idx when every element stays in its warp (thread t reads the lane that holds its element);
// otherwise through a shared staging buffer (stores, a barrier, loads, and a barrier again so the buffer can be
// reused). Owners are worked out by hand from the layouts.
// RUN: axe-opt %s --lower-copy --cse | FileCheck %s
// RUN: axe-opt %s --lower-copy --lower-to-nvvm -o %t.mlir
// RUN: axe-translate --emit=ptx --chip=sm_80 %t.mlir -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: ptxas -arch=sm_80 %t.ptx -o %t.cubin
// RUN: axe-translate --emit=ptx --chip=sm_90a %t.mlir -o %t.sm90a.ptx
// RUN: ptxas -arch=sm_90a %t.sm90a.ptx -o %t.sm90a.cubin

// 32x2 f32, lane l holds row l.
!g = !axe.tensor<32x2xf32, global, S[(32,2):(2,1)]>
!a = !axe.tensor<32x2xf32, reg, S[(32,2):(1@laneid,1)]>
// The same owners, column c in register 2c: registers 0 and 2.
!m = !axe.tensor<32x2xf32, reg, S[(32,2):(1@laneid,2)]>
// Row 16i + j in lane i + 2j: lane l reads lane 16(l%2) + l/2.
!p = !axe.tensor<32x2xf32, reg, S[(2,16,2):(1@laneid,2@laneid,1)]>
// 128x4 f32 over 4 warps: row 32w + l in thread 32w + l, then row 4l + w in thread 32w + l (owners cross warps).
!gc = !axe.tensor<128x4xf32, global, S[(128,4):(4,1)]>
!c = !axe.tensor<128x4xf32, reg, S[(4,32,4):(1@warpid,1@laneid,1)]>
!d = !axe.tensor<128x4xf32, reg, S[(32,4,4):(1@laneid,1@warpid,1)]>
module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_80"} {
    // CHECK-LABEL: gpu.func @move
    gpu.func @move(%in: memref<64xf32>, %out: memref<64xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %g = axe.view %in : memref<64xf32> -> !g
      %h = axe.view %out : memref<64xf32> -> !g
      %a = axe.alloc warp : !a
      %b = axe.alloc warp : !m
      axe.copy warp %g to %a : !g to !a
      // CHECK: %[[X0:.*]] = memref.load %[[A:.*]][%c0] : memref<2xf32, #gpu.address_space<private>>
      // CHECK: memref.store %[[X0]], %[[B:.*]][%c0] : memref<3xf32, #gpu.address_space<private>>
      // CHECK: %[[X1:.*]] = memref.load %[[A]][%c1]
      // CHECK: memref.store %[[X1]], %[[B]][%c2]
      axe.copy warp %a to %b : !a to !m
      axe.copy warp %b to %h : !m to !g
      gpu.return
    }

    // CHECK-LABEL: gpu.func @shuffle
    gpu.func @shuffle(%in: memref<64xf32>, %out: memref<64xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %g = axe.view %in : memref<64xf32> -> !g
      %h = axe.view %out : memref<64xf32> -> !g
      %a = axe.alloc warp : !a
      %b = axe.alloc warp : !p
      axe.copy warp %g to %a : !g to !a
      // CHECK: %[[L:.*]] = arith.remui %{{.*}}, %c32 : index
      // CHECK: %[[V0:.*]] = memref.load %[[A:.*]][%c0]
      // CHECK-NEXT: %[[W0:.*]] = arith.bitcast %[[V0]] : f32 to i32
      // CHECK-NEXT: %[[I:.*]] = arith.remui %[[L]], %c2 : index
      // CHECK: %[[I16:.*]] = arith.muli %[[I]], %c16 : index
      // CHECK: %[[J:.*]] = arith.divui %[[L]], %c2 : index
      // CHECK: %[[SRC:.*]] = arith.index_cast %{{.*}} : index to i32
      // CHECK: %[[R0:.*]] = nvvm.shfl.sync idx %c-1_i32, %[[W0]], %[[SRC]], %c31_i32 : i32 -> i32
      // CHECK-NEXT: %[[F0:.*]] = arith.bitcast %[[R0]] : i32 to f32
      // CHECK: memref.store %[[F0]], %[[B:.*]][%c0]
      // CHECK: nvvm.shfl.sync idx %c-1_i32, %{{.*}}, %[[SRC]], %c31_i32 : i32 -> i32
      // CHECK: memref.store %{{.*}}, %[[B]][%c1]
      axe.copy warp %a to %b : !a to !p
      axe.copy warp %b to %h : !p to !g
      gpu.return
    }

    // CHECK-LABEL: gpu.func @staged
    gpu.func @staged(%in: memref<512xf32>, %out: memref<512xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %g = axe.view %in : memref<512xf32> -> !gc
      %h = axe.view %out : memref<512xf32> -> !gc
      %c = axe.alloc cta : !c
      %d = axe.alloc cta : !d
      axe.copy cta %g to %c : !gc to !c
      // The staging buffer holds the 2048 bytes; its layout (and so the vector width) is the planner's pick for
      // the fewest bank conflicts: each thread stores its 16 bytes, all wait, each loads its new row's 16 bytes,
      // all wait again.
      // CHECK: memref.get_global @__axe_copy_smem_0 : memref<2048xi8, #gpu.address_space<workgroup>>
      // CHECK: llvm.store %{{.*}} : vector<{{[24]}}xf32>, !llvm.ptr<3>
      // CHECK: gpu.barrier
      // CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> vector<{{[24]}}xf32>
      // CHECK: gpu.barrier
      axe.copy cta %c to %d : !c to !d
      axe.copy cta %d to %h : !d to !gc
      gpu.return
    }
  }
}

// PTX: .target sm_80
// PTX-LABEL: .visible .entry shuffle(
// PTX-COUNT-2: shfl.sync.idx.b32
// PTX-LABEL: .visible .entry staged(
// PTX: st.shared.v{{[24]}}.b32
// PTX: bar.sync 0;
// PTX: ld.shared.v{{[24]}}.b32
// PTX: bar.sync 0;
