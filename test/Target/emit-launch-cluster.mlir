// A kernel's cluster shape reaches the launch record: the gpu.func's known_cluster_size, which --lower-to-nvvm
// turns into nvvm.cluster_dim (and PTX into .reqnctapercluster), is the record's "cluster"; a launch's grid must be
// a multiple of it. Without it the record says [1, 1, 1] (test/Target/emit-launch.mlir).
// RUN: axe-opt --lower-to-nvvm %s | axe-translate --emit=launch --chip=sm_90a | FileCheck %s
// RUN: axe-opt --lower-to-nvvm %s | axe-translate --emit=ptx --chip=sm_90a | FileCheck %s --check-prefix=PTX

// CHECK: "name": "clustered",
// CHECK-NEXT: "grid": null,
// CHECK-NEXT: "block": [128, 1, 1],
// CHECK-NEXT: "cluster": [2, 1, 1],
// PTX: .reqnctapercluster 2, 1, 1

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @clustered(%n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
      gpu.return
    }
  }
}
