// --lower-copy, tensor memory <-> registers (sm_100a): tcgen05.st / tcgen05.ld of the shape the two layouts fit
// (PTX ISA 9.7.16.2.3.1: 32x32b gives lane l tensor-memory lane base + l, register j column base + j; 16x256b gives
// register r of lane l the cell (l/4 + 8((r/2)%2), r%2 + 2(l%4) + 8(r/4))), then tcgen05.wait::st / ::ld. Warp w
// reaches only lanes 32(w%4)..32(w%4)+32, and the address is the allocation plus lane << 16 | column. The
// read-back of the whole accumulator into one row per thread is --lower-mma's (its tcgen05.ld.32x32b pattern); the
// tensor-memory alloc is lowered by whichever pass runs first and handed on to the other.
// RUN: axe-opt %s --lower-mma --lower-copy --cse | FileCheck %s
// RUN: axe-opt %s --lower-copy --lower-mma --cse | FileCheck %s
// RUN: axe-opt %s --lower-copy --lower-mma --lower-to-nvvm -o %t.mlir
// RUN: axe-translate --emit=ptx --chip=sm_100a %t.mlir -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: ptxas -arch=sm_100a %t.ptx -o %t.cubin

// 128x16 f32 accumulator in tensor memory (row r in lane r); thread 32w + l holds row 32w + l in 16 registers.
!t = !axe.tensor<128x16xf32, tmem, S[(128,16):(1@TLane,1@TCol)]>
!r = !axe.tensor<128x16xf32, reg, S[(4,32,16):(1@warpid,1@laneid,1)]>
// Rows 0..15, columns 16..23 of it, as the m16n8 accumulator fragment of warp 0: the 16x256b shape.
!q = !axe.tensor<16x8xf32, tmem, S[(16,8):(1@TLane,1@TCol)] + 16@TCol>
!qr = !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
!g = !axe.tensor<128x16xf32, global, S[(128,16):(16,1)]>
!gq = !axe.tensor<16x8xf32, global, S[(16,8):(8,1)]>
module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_100a"} {
    // CHECK-LABEL: gpu.func @round_trip
    gpu.func @round_trip(%in: memref<2048xf32>, %out: memref<2048xf32>, %part: memref<128xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %g = axe.view %in : memref<2048xf32> -> !g
      %h = axe.view %out : memref<2048xf32> -> !g
      %hq = axe.view %part : memref<128xf32> -> !gq
      // 16 columns: 32 allocated, by warp 0.
      // CHECK: %[[TID:.*]] = gpu.thread_id x
      // CHECK: %[[WARP:.*]] = arith.divui %[[TID]], %c32 : index
      // CHECK: nvvm.tcgen05.alloc %{{.*}}, %c32_i32
      %t = axe.alloc cta : !t
      %r = axe.alloc cta : !r
      %qr = axe.alloc cta : !qr
      axe.copy cta %g to %r : !g to !r
      // Every warp stores its 32 rows: lane field 32w, column 0, 16 registers in order.
      // CHECK: memref.load %[[R:.*]][%c0] : memref<16xf32, #gpu.address_space<private>>
      // CHECK: memref.load %[[R]][%c15] : memref<16xf32, #gpu.address_space<private>>
      // CHECK: %[[REGS:.*]] = llvm.insertelement %{{.*}}[%c15_i32 : i32] : vector<16xf32>
      // CHECK: %[[BITS:.*]] = llvm.bitcast %[[REGS]] : vector<16xf32> to vector<16xi32>
      // CHECK: %[[LANE:.*]] = arith.muli %[[WARP]], %c32 : index
      // CHECK: nvvm.tcgen05.st %{{.*}}, %[[BITS]] {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<16xi32>
      // CHECK-NEXT: nvvm.tcgen05.wait <store>
      axe.copy cta %r to %t : !r to !t
      %q = axe.view %t : !t -> !q
      // Warp 0 alone (the subset) loads lanes 0..15, column 16, with one 16x256b: registers 0..3 in order.
      // CHECK: %[[W0:.*]] = arith.cmpi ult, %[[TID]], %c32 : index
      // CHECK: scf.if %[[W0]] {
      // CHECK: %[[COL:.*]] = arith.index_cast %c16 : index to i32
      // CHECK: %[[V:.*]] = nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_16x256b>} : vector<4xi32>
      // CHECK-NEXT: %[[F:.*]] = llvm.bitcast %[[V]] : vector<4xi32> to vector<4xf32>
      // CHECK: %[[F0:.*]] = llvm.extractelement %[[F]][%c0_i32 : i32] : vector<4xf32>
      // CHECK: memref.store %[[F0]], %[[QR:.*]][%c0] : memref<4xf32, #gpu.address_space<private>>
      // CHECK: memref.store %{{.*}}, %[[QR]][%c3]
      // CHECK: nvvm.tcgen05.wait <load>
      axe.copy cta(warpid[0:1]) %q to %qr : !q to !qr
      // CHECK: nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<16xi32>
      axe.copy cta %t to %r : !t to !r
      axe.copy cta %r to %h : !r to !g
      axe.copy warp %qr to %hq : !qr to !gq
      // CHECK: nvvm.tcgen05.dealloc %{{.*}}, %c32_i32
      gpu.return
    }
  }
}

// PTX: .target sm_100a
// PTX: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32
// PTX: tcgen05.st.sync.aligned.32x32b.x16.b32
// PTX: tcgen05.wait::st.sync.aligned;
// PTX: tcgen05.ld.sync.aligned.16x256b.x1.b32
// PTX: tcgen05.wait::ld.sync.aligned;
// PTX: tcgen05.ld.sync.aligned.32x32b.x16.b32
// PTX: tcgen05.wait::ld.sync.aligned;
// PTX: tcgen05.dealloc.cta_group::1.sync.aligned.b32
