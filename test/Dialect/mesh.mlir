// A module declares its device mesh next to its axes (`axe.mesh`: device axis -> extent, dimensions in name
// order, ranks row-major); global tensors may then lay out over the mesh's device axes.
// RUN: axe-opt %s | FileCheck %s
// RUN: axe-opt %s | axe-opt | FileCheck %s

// CHECK: module attributes {axe.mesh = {gpuid_x = 2 : i64, gpuid_y = 4 : i64}}
// CHECK-LABEL: func.func @sharded_rows
// Shard(0), Replicate() of a 64x128 tensor on the 2x4 mesh (docs/distributed.md): rows split over gpuid_x,
// replicated over gpuid_y; the local tile is 32x128.
// CHECK: axe.view %{{.*}} : memref<32x128xf32> -> !axe.tensor<64x128xf32, global, S[(2,4096):(1@gpuid_x,1)] + R[4:1@gpuid_y]>
module attributes {axe.mesh = {gpuid_x = 2 : i64, gpuid_y = 4 : i64}} {
  func.func @sharded_rows(%local: memref<32x128xf32>) {
    %t = axe.view %local : memref<32x128xf32> -> !axe.tensor<64x128xf32, global, S[(2,4096):(1@gpuid_x,1)] + R[4:1@gpuid_y]>
    return
  }
}

// -----

// A declared device axis may be a mesh dimension; an offset on a device axis stays inside its extent (the
// tensor lives on rank 3 only).
// CHECK: module attributes {axe.axes = {gpuid_z = "device"}, axe.mesh = {gpuid = 4 : i64}}
// CHECK-LABEL: func.func @on_one_rank
module attributes {axe.axes = {gpuid_z = "device"}, axe.mesh = {gpuid = 4 : i64}} {
  func.func @on_one_rank(%local: memref<16xf32>) {
    %t = axe.view %local : memref<16xf32> -> !axe.tensor<16xf32, global, S[16:1] + 3@gpuid>
    return
  }
}
