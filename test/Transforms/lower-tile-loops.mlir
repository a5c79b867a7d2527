// --lower-tile-loops (issue 25): each axe.tile_loop becomes an scf.for over the tiles this CTA takes (from
// gpu.block_id x to the tile count in steps of gpu.grid_dim x), its body preceded by the grouped order's index
// arithmetic (dialect/src/tile_loop.rs, `grouped`) and its axe.yield an scf.yield.
// RUN: axe-opt %s --split-input-file --lower-tile-loops | FileCheck %s

// Groups of 8 tile rows over i32 extents, carrying a ring's stage and parity from tile to tile.
// CHECK-LABEL: gpu.func @grouped
// CHECK-SAME: (%[[M:.*]]: i32, %[[N:.*]]: i32, %[[S0:.*]]: i32, %[[P0:.*]]: i1)
// CHECK: %[[MI:.*]] = arith.index_castui %[[M]] : i32 to index
// CHECK: %[[MUP:.*]] = arith.addi %[[MI]], %c127
// CHECK: %[[ROWS:.*]] = arith.divui %[[MUP]], %c128
// CHECK: %[[NI:.*]] = arith.index_castui %[[N]] : i32 to index
// CHECK: %[[NUP:.*]] = arith.addi %[[NI]], %c255
// CHECK: %[[COLS:.*]] = arith.divui %[[NUP]], %c256
// CHECK: %[[TILES:.*]] = arith.muli %[[ROWS]], %[[COLS]]
// CHECK: %[[BX:.*]] = gpu.block_id x
// CHECK: %[[GX:.*]] = gpu.grid_dim x
// CHECK: %[[R:.*]]:2 = scf.for %[[T:.*]] = %[[BX]] to %[[TILES]] step %[[GX]] iter_args(%[[S:.*]] = %[[S0]], %[[P:.*]] = %[[P0]]) -> (i32, i1) {
// CHECK:   %[[PER:.*]] = arith.muli %[[COLS]], %[[C8:.*]] : index
// CHECK:   %[[G:.*]] = arith.divui %[[T]], %[[PER]]
// CHECK:   %[[FIRST:.*]] = arith.muli %[[G]], %[[C8]]
// CHECK:   %[[LEFT:.*]] = arith.subi %[[ROWS]], %[[FIRST]]
// CHECK:   %[[HEIGHT:.*]] = arith.minui %[[LEFT]], %[[C8]]
// CHECK:   %[[WITHIN:.*]] = arith.remui %[[T]], %[[PER]]
// CHECK:   %[[DOWN:.*]] = arith.remui %[[WITHIN]], %[[HEIGHT]]
// CHECK:   %[[ROW:.*]] = arith.addi %[[FIRST]], %[[DOWN]]
// CHECK:   %[[COL:.*]] = arith.divui %[[WITHIN]], %[[HEIGHT]]
// CHECK:   %[[M0:.*]] = arith.muli %[[ROW]], %{{.*}} : index
// CHECK:   %[[N0:.*]] = arith.muli %[[COL]], %{{.*}} : index
// CHECK:   %[[SUM:.*]] = arith.addi %[[M0]], %[[N0]] : index
// CHECK:   %[[S1:.*]] = arith.index_castui %[[SUM]] : index to i32
// CHECK:   %[[P1:.*]] = arith.xori %[[P]], %{{.*}} : i1
// CHECK:   scf.yield %[[S1]], %[[P1]] : i32, i1
// CHECK: }
// CHECK: gpu.printf "%d %d", %[[R]]#0, %[[R]]#1
// CHECK-NOT: axe.tile_loop
// CHECK-NOT: axe.yield
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @grouped(%m: i32, %n: i32, %s0: i32, %p0: i1) kernel attributes {axe.launch = {params = ["M", "N", "S", "P"], grid = ["min(ceildiv(M, 128) * ceildiv(N, 256), sm_count)", "1", "1"]}} {
      %true = arith.constant true
      %r:2 = axe.tile_loop (%m0, %n0) in (%m, %n) : i32 tile [128, 256] group 8 iter_args(%s = %s0, %p = %p0) -> (i32, i1) {
        %sum = arith.addi %m0, %n0 : index
        %s1 = arith.index_castui %sum : index to i32
        %p1 = arith.xori %p, %true : i1
        axe.yield %s1, %p1 : i32, i1
      }
      gpu.printf "%d %d", %r#0, %r#1 : i32, i1
      gpu.return
    }
  }
}

// -----

// Group 1 (the default) is row major, over index extents, carrying nothing: the terminator is implicit.
// CHECK-LABEL: gpu.func @row_major
// CHECK-SAME: (%[[M:.*]]: index, %[[N:.*]]: index)
// CHECK: %[[MUP:.*]] = arith.addi %[[M]], %c63
// CHECK: %[[ROWS:.*]] = arith.divui %[[MUP]], %c64
// CHECK: %[[NUP:.*]] = arith.addi %[[N]], %c31
// CHECK: %[[COLS:.*]] = arith.divui %[[NUP]], %c32
// CHECK: %[[TILES:.*]] = arith.muli %[[ROWS]], %[[COLS]]
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %[[TILES]] step %{{.*}} {
// CHECK-NEXT: %[[ROW:.*]] = arith.divui %[[T]], %[[COLS]]
// CHECK-NEXT: %[[COL:.*]] = arith.remui %[[T]], %[[COLS]]
// CHECK-NEXT: %[[C64:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[M0:.*]] = arith.muli %[[ROW]], %[[C64]]
// CHECK-NEXT: %[[C32:.*]] = arith.constant 32 : index
// CHECK-NEXT: %[[N0:.*]] = arith.muli %[[COL]], %[[C32]]
// CHECK-NEXT: gpu.printf "%d %d", %[[M0]], %[[N0]]
// CHECK-NEXT: }
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @row_major(%m: index, %n: index) kernel {
      axe.tile_loop (%m0, %n0) in (%m, %n) : index tile [64, 32] {
        gpu.printf "%d %d", %m0, %n0 : index, index
      }
      gpu.return
    }
  }
}
