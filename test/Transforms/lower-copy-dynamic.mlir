// --lower-copy at run-time addresses. A slice at run-time offsets is planned once at its static part; each
// offset adds `elements * (value / divisor)` elements to its side's base (axe_layout::copy::plan_moving: here a
// ring stage of 32 rows of 64 halves, 4096 bytes a stage). A slice of a view with run-time extents
// (layout `row_major`) is addressed by the plan's per-thread row and column, `(row0 + row) * W + col0 + col`
// (axe_layout::copy::plan_runtime), and predicated on `row < M` and `col < W`: cp.async gets src-size 0 past the
// edge (zero fill, reading the base), st.global is skipped, and ld.global into registers is skipped over registers
// set to zero first.
// RUN: axe-opt %s --lower-copy --cse | FileCheck %s
// RUN: axe-opt %s --lower-copy --lower-to-nvvm -o %t.mlir
// RUN: axe-translate --emit=ptx --chip=sm_80 %t.mlir -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: ptxas -arch=sm_80 %t.ptx -o %t.cubin

!g = !axe.tensor<?x?xf16, global, row_major>
!gt = !axe.tensor<32x64xf16, global>
!ring = !axe.tensor<96x64xf16, shared, Swizzle(3,3,3) o S[(96,64):(64,1)]>
!st = !axe.tensor<32x64xf16, shared>
!r = !axe.tensor<32x64xf16, reg, S[(4,8,4,2,8):(1@warpid,4@laneid,1@laneid,8,1)]>
!gl = !axe.tensor<32x8xf16, global>
!rl = !axe.tensor<32x8xf16, reg, S[(32,8):(1@laneid,1)]>
module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_80"} {
    // CHECK-LABEL: gpu.func @ring_of_a_runtime_tensor
    gpu.func @ring_of_a_runtime_tensor(%p: !llvm.ptr<1>, %q: !llvm.ptr<1>, %mm: i32, %kk: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c3 = arith.constant 3 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %K = arith.index_castui %kk : i32 to index
      %bid = gpu.block_id x
      %m0 = arith.muli %bid, %c32 : index
      %g = axe.view %p(%mm, %kk : i32, i32) multiples [1, 8] : !llvm.ptr<1> -> !g
      %out = axe.view %q(%mm, %kk : i32, i32) multiples [1, 8] : !llvm.ptr<1> -> !g
      %ring = axe.alloc cta : !ring
      %r = axe.alloc cta : !r
      // CHECK: scf.for %[[K:.*]] = %c0 to %{{.*}} step %c64
      scf.for %k = %c0 to %K step %c64 {
        %kt = arith.divui %k, %c64 : index
        %s = arith.remui %kt, %c3 : index
        %row = arith.muli %s, %c32 : index
        %t = axe.slice %g[%m0, %k] [32, 64] : !g to !gt
        %st = axe.slice %ring[%row, 0] [32, 64] : !ring to !st
        // The stage: 128 bytes per ring row, added to the ring's base.
        // CHECK: %[[MOVED:.*]] = arith.muli %{{.*}}, %c128 : index
        // CHECK: %[[MOVED64:.*]] = arith.index_cast %[[MOVED]] : index to i64
        // CHECK: %[[STAGE:.*]] = arith.addi %{{.*}}, %[[MOVED64]] : i64
        // The source's row and column, bounds, address: (m0 + row) * K + k + col halves.
        // CHECK: %[[COL:.*]] = arith.addi %[[K]], %{{.*}} : index
        // CHECK-NEXT: %[[RK:.*]] = arith.muli %[[ROW:[0-9a-z_]+]], %[[W:[0-9a-z_]+]] : index
        // CHECK-NEXT: arith.addi %[[RK]], %[[COL]] : index
        // CHECK: %[[BELOW:.*]] = arith.cmpi slt, %[[ROW]], %{{.*}} : index
        // CHECK-NEXT: %[[LEFT:.*]] = arith.cmpi slt, %[[COL]], %[[W]] : index
        // CHECK: %[[IN:.*]] = arith.andi %[[BELOW]], %[[LEFT]] : i1
        // CHECK: arith.select %[[IN]], %{{.*}}, %{{.*}} : i64
        // CHECK: %[[SIZE:.*]] = arith.select %[[IN]], %c16_i32, %c0_i32 : i32
        // CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %[[SIZE]] : !llvm.ptr<3>, !llvm.ptr<1>, i32
        // The second chunk is 16 rows on: the first's address plus 16 * K * 2 bytes.
        // CHECK: arith.addi %[[ROW]], %c16 : index
        axe.copy_async cta %t to %st : !gt to !st
        nvvm.cp.async.commit.group
        nvvm.cp.async.wait.group 0
        gpu.barrier
        // Back through registers to the same region of another run-time-sized tensor: each store under its bounds.
        axe.copy cta %st to %r : !st to !r
        %o = axe.slice %out[%m0, %k] [32, 64] : !g to !gt
        // CHECK: nvvm.cp.async.wait.group 0
        // CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> vector<8xf16>
        // CHECK: %[[SIN:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
        // CHECK: scf.if %[[SIN]] {
        // CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<1>
        axe.copy cta %r to %o : !r to !gt
      }
      gpu.return
    }

    // A warp loads a 32x8 region of a run-time-sized tensor straight into registers, a row of 8 halves (one
    // 16-byte vector) per lane: lane l reads row r0 + l, inside only when r0 + l < M (and column 0 < W).
    // CHECK-LABEL: gpu.func @load_into_registers
    gpu.func @load_into_registers(%p: !llvm.ptr<1>, %q: !llvm.ptr<1>, %mm: i32, %kk: i32) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %c32 = arith.constant 32 : index
      %bid = gpu.block_id x
      %r0 = arith.muli %bid, %c32 : index
      %g = axe.view %p(%mm, %kk : i32, i32) multiples [1, 8] : !llvm.ptr<1> -> !g
      %t = axe.slice %g[%r0, 0] [32, 8] : !g to !gl
      %r = axe.alloc warp : !rl
      // CHECK: %[[R0:.*]] = arith.muli %block_id_x, %c32
      // CHECK: %[[ROW:.*]] = arith.addi %[[R0]], %{{.*}} : index
      // CHECK: %[[BELOW:.*]] = arith.cmpi slt, %[[ROW]], %{{.*}} : index
      // CHECK: %[[IN:.*]] = arith.andi %[[BELOW]], %{{.*}} : i1
      // CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f16
      // CHECK-COUNT-8: memref.store %[[ZERO]], %[[REGS:.*]][%{{.*}}] : memref<8xf16, #gpu.address_space<private>>
      // CHECK: scf.if %[[IN]] {
      // CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xf16>
      // CHECK-COUNT-8: memref.store %{{.*}}, %[[REGS]][%{{.*}}] : memref<8xf16, #gpu.address_space<private>>
      // CHECK-NEXT: }
      axe.copy warp %t to %r : !gl to !rl
      %out = axe.view %q(%mm, %kk : i32, i32) multiples [1, 8] : !llvm.ptr<1> -> !g
      %o = axe.slice %out[%r0, 0] [32, 8] : !g to !gl
      axe.copy warp %r to %o : !rl to !gl
      gpu.return
    }
  }
}

// PTX-LABEL: .visible .entry ring_of_a_runtime_tensor(
// PTX: selp.b32 [[N:%r[0-9]+]], 16, 0, %p{{[0-9]+}};
// PTX: cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, [[N]];
// PTX: cp.async.cg.shared.global [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// PTX: cp.async.commit_group;
// PTX: cp.async.wait_group 0;
// PTX: @%p{{[0-9]+}} bra
// PTX: st.global.v4.b32
// PTX-LABEL: .visible .entry load_into_registers(
// PTX: @%p{{[0-9]+}} bra
// PTX: ld.global.v4.b32
// PTX: st.global.v4.b32
