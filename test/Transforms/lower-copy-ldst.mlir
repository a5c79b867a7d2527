// --lower-copy, per-thread ld/st between global or shared memory and registers: the widest vector (up to 16
// bytes) that is contiguous and aligned in memory and consecutive in registers for every thread. The addresses
// and widths below are worked out by hand from the layouts (element offset = sum of coordinate * stride).
// RUN: axe-opt %s --lower-copy --cse | FileCheck %s
// RUN: axe-opt %s --lower-copy --lower-to-nvvm -o %t.mlir
// RUN: axe-translate --emit=ptx --chip=sm_80 %t.mlir -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: ptxas -arch=sm_80 %t.ptx -o %t.cubin
// RUN: axe-translate --emit=ptx --chip=sm_90a %t.mlir -o %t.sm90a.ptx
// RUN: ptxas -arch=sm_90a %t.sm90a.ptx -o %t.sm90a.cubin
// The output is deterministic.
// RUN: axe-opt %s --lower-copy --lower-to-nvvm | diff %t.mlir -

// A 32x8 f16 tile, row-major in memory; lane l holds row l in registers 0..7.
!g = !axe.tensor<32x8xf16, global, S[(32,8):(8,1)]>
!r = !axe.tensor<32x8xf16, reg, S[(32,8):(1@laneid,1)]>
// The same tile column-major: row l's elements are 32 apart.
!gt = !axe.tensor<32x8xf16, global, S[(32,8):(1,32)]>
!s = !axe.tensor<32x8xf16, shared, S[(32,8):(8,1)]>
!rx = !axe.tensor<32x8xf16, reg, S[(4,8,8):(1@laneid,4@laneid,1)]>
// 32x2 f32: two floats (8 bytes) per lane.
!g2 = !axe.tensor<32x2xf32, global, S[(32,2):(2,1)]>
!r2 = !axe.tensor<32x2xf32, reg, S[(32,2):(1@laneid,1)]>
// 128x8 f32 over a CTA of 128 threads: thread t holds row t, 32 bytes.
!gc = !axe.tensor<128x8xf32, global, S[(128,8):(8,1)]>
!rc = !axe.tensor<128x8xf32, reg, S[(4,32,8):(1@warpid,1@laneid,1)]>
// Rows 64..127 held by warps 2 and 3.
!gh = !axe.tensor<64x8xf32, global, S[(64,8):(8,1)]>
!rh = !axe.tensor<64x8xf32, reg, S[(2,32,8):(1@warpid,1@laneid,1)] + 2@warpid>
module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_80"} {
    // CHECK-LABEL: gpu.func @row_per_lane
    gpu.func @row_per_lane(%in: memref<256xf16>, %out: memref<256xf16>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %g = axe.view %in : memref<256xf16> -> !g
      %h = axe.view %out : memref<256xf16> -> !g
      %r = axe.alloc warp : !r
      // Lane l reads elements 8l..8l+8: bytes 16l, one 16-byte vector into registers 0..7.
      // CHECK: %[[TID:.*]] = gpu.thread_id x
      // CHECK: %[[REGS:.*]] = memref.alloca() : memref<8xf16, #gpu.address_space<private>>
      // CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %c32 : index
      // CHECK: %[[E:.*]] = arith.muli %[[LANE]], %c8 : index
      // CHECK: %[[E2:.*]] = arith.addi %c0, %[[E]] : index
      // CHECK: %[[B:.*]] = arith.muli %[[E2]], %c2 : index
      // CHECK: %[[V:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xf16>
      // CHECK: %[[V0:.*]] = llvm.extractelement %[[V]][%c0_i32 : i32] : vector<8xf16>
      // CHECK: memref.store %[[V0]], %[[REGS]][%c0] : memref<8xf16, #gpu.address_space<private>>
      // CHECK: %[[V7:.*]] = llvm.extractelement %[[V]][%c7_i32 : i32] : vector<8xf16>
      // CHECK: memref.store %[[V7]], %[[REGS]][%c7] : memref<8xf16, #gpu.address_space<private>>
      axe.copy warp %g to %r : !g to !r
      // CHECK: memref.load %[[REGS]][%c0] : memref<8xf16, #gpu.address_space<private>>
      // CHECK: memref.load %[[REGS]][%c7] : memref<8xf16, #gpu.address_space<private>>
      // CHECK: %[[W:.*]] = llvm.insertelement %{{.*}}[%c7_i32 : i32] : vector<8xf16>
      // CHECK: llvm.store %[[W]], %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<1>
      axe.copy warp %r to %h : !r to !g
      gpu.return
    }

    // Column-major: lane l's elements l, l+32, ..., l+224 are 64 bytes apart, so the widest legal choice is one
    // element at a time (the plan says scalar): 8 two-byte loads, register j from element l + 32j.
    // CHECK-LABEL: gpu.func @column_major_scalar
    gpu.func @column_major_scalar(%in: memref<256xf16>, %out: memref<256xf16>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %gt = axe.view %in : memref<256xf16> -> !gt
      %h = axe.view %out : memref<256xf16> -> !g
      %r = axe.alloc warp : !r
      // CHECK: llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<1> -> f16
      // CHECK: memref.store %{{.*}}, %[[REGS:.*]][%c0]
      // CHECK: arith.addi %{{.*}}, %c224 : index
      // CHECK: llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<1> -> f16
      // CHECK: memref.store %{{.*}}, %[[REGS]][%c7]
      // CHECK-NOT: llvm.load
      // CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<1>
      axe.copy warp %gt to %r : !gt to !r
      axe.copy warp %r to %h : !r to !g
      gpu.return
    }

    // Through shared memory: the shared alloc becomes an aligned memref.global; lane l stores row l (16 bytes at
    // 16l), then reads row 8(l%4) + l/4 (16 bytes at 16(8(l%4) + l/4): the layout !rx puts row 8i+j in lane
    // i+4j).
    // CHECK-LABEL: gpu.func @through_shared
    gpu.func @through_shared(%in: memref<256xf16>, %out: memref<256xf16>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %g = axe.view %in : memref<256xf16> -> !g
      %h = axe.view %out : memref<256xf16> -> !g
      %r = axe.alloc warp : !r
      %x = axe.alloc warp : !rx
      %s = axe.alloc cta : !s
      axe.copy warp %g to %r : !g to !r
      // CHECK: %[[SMEM:.*]] = memref.get_global @__axe_copy_smem_0 : memref<512xi8, #gpu.address_space<workgroup>>
      // CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<3>
      axe.copy warp %r to %s : !r to !s
      // CHECK: %[[I:.*]] = arith.remui %[[LANE:.*]], %c4 : index
      // CHECK: %[[I8:.*]] = arith.muli %[[I]], %c64 : index
      // CHECK: %[[J:.*]] = arith.divui %[[LANE]], %c4 : index
      // CHECK: %[[J2:.*]] = arith.remui %[[J]], %c8 : index
      // CHECK: %[[J8:.*]] = arith.muli %[[J2]], %c8 : index
      // CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xf16>
      axe.copy warp %s to %x : !s to !rx
      axe.copy warp %x to %h : !rx to !g
      gpu.return
    }

    // Two floats per lane, 8 bytes at 8l.
    // CHECK-LABEL: gpu.func @pairs
    gpu.func @pairs(%in: memref<64xf32>, %out: memref<64xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %g = axe.view %in : memref<64xf32> -> !g2
      %h = axe.view %out : memref<64xf32> -> !g2
      %r = axe.alloc warp : !r2
      // CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xf32>
      axe.copy warp %g to %r : !g2 to !r2
      // CHECK: llvm.store %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      axe.copy warp %r to %h : !r2 to !g2
      gpu.return
    }

    // A CTA of 128 threads: thread t's row is 32 bytes, two 16-byte vectors at elements 8t and 8t+4, into
    // registers 0..3 and 4..7. Then warps 2 and 3 alone (a thread subset) store rows 64..127: guarded by
    // 64 <= tid < 128.
    // CHECK-LABEL: gpu.func @cta_rows
    gpu.func @cta_rows(%in: memref<1024xf32>, %out: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %g = axe.view %in : memref<1024xf32> -> !gc
      %r = axe.alloc cta : !rc
      // CHECK: %[[TID:.*]] = gpu.thread_id x
      // CHECK: arith.muli %[[TID]], %c8 : index
      // CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
      // CHECK: memref.store %{{.*}}, %[[REGS:.*]][%c0]
      // CHECK: memref.store %{{.*}}, %[[REGS]][%c3]
      // CHECK: arith.addi %{{.*}}, %c4 : index
      // CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
      // CHECK: memref.store %{{.*}}, %[[REGS]][%c4]
      // CHECK: memref.store %{{.*}}, %[[REGS]][%c7]
      axe.copy cta %g to %r : !gc to !rc
      %h = axe.view %out : memref<1024xf32> -> !gh
      %rh = axe.view %r : !rc -> !rh
      // CHECK: %[[LO:.*]] = arith.cmpi uge, %[[TID]], %c64 : index
      // CHECK: %[[HI:.*]] = arith.cmpi ult, %[[TID]], %c128 : index
      // CHECK: %[[IN:.*]] = arith.andi %[[LO]], %[[HI]] : i1
      // CHECK: scf.if %[[IN]] {
      // CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
      // CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
      // CHECK: }
      axe.copy cta(warpid[2:4]) %rh to %h : !rh to !gh
      gpu.return
    }
  }
}

// PTX: .target sm_80
// PTX-LABEL: .visible .entry row_per_lane(
// PTX: ld.global.v4.b32 {[[A:%r[0-9]+]], [[B:%r[0-9]+]], [[C:%r[0-9]+]], [[D:%r[0-9]+]]}
// PTX: st.global.v4.b32 [{{%rd[0-9]+}}], {[[A]], [[B]], [[C]], [[D]]};
// PTX-LABEL: .visible .entry column_major_scalar(
// PTX-COUNT-8: ld.global.b16
// PTX: st.global.v4.b32
// PTX-LABEL: .visible .entry through_shared(
// PTX: ld.global.v4.b32
// PTX: st.shared.v4.b32
// PTX: ld.shared.v4.b32
// PTX: st.global.v4.b32
// PTX-LABEL: .visible .entry pairs(
// PTX: ld.global.v2.b32
// PTX: st.global.v2.b32
// Threads below 64 skip the subset's stores (LLVM sinks the loads into the branch: nothing else reads them).
// PTX-LABEL: .visible .entry cta_rows(
// PTX: setp.lt.u32 [[P:%p[0-9]+]], {{%r[0-9]+}}, 64;
// PTX-NEXT: @[[P]] bra
// PTX-COUNT-2: ld.global.v4.b32
// PTX: st.global.v4.b32 [{{%rd[0-9]+}}+-2048]
// PTX-NEXT: st.global.v4.b32 [{{%rd[0-9]+}}+-2032]
