// What --lower-tile-loops refuses beyond the verifier's tile-loop rule: a kernel whose launch record has a grid
// of more than one dimension (the loop walks gpu.block_id x in steps of gpu.grid_dim x). The error is at the
// axe.tile_loop op, exit code 1.
// RUN: axe-opt %s --lower-tile-loops --verify-diagnostics
// RUN: not axe-opt %s --lower-tile-loops -o %t.out 2>&1 | FileCheck %s --check-prefix=EXIT
// EXIT: lower-tile-loops-invalid.mlir:11:7: error: lower-tile-loops: a tile loop walks a 1-D grid
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @two_d(%m: index, %n: index) kernel attributes {axe.launch = {params = ["M", "N"], grid = ["ceildiv(N, 256)", "ceildiv(M, 128)", "1"]}} {
      // expected-error @+1 {{lower-tile-loops: a tile loop walks a 1-D grid (gpu.block_id x, gpu.grid_dim x), but the launch record's grid is [ceildiv(N, 256), ceildiv(M, 128), 1]}}
      axe.tile_loop (%m0, %n0) in (%m, %n) : index tile [128, 256] {
      }
      gpu.return
    }
  }
}
