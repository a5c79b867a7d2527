// axe-translate --emit=launch on the static TMA copy (no axe.launch: parameters named param<i>, no grid; the maps'
// dims and strides are numbers) and its refusals: a grid over an unknown name, a params list that does not match
// the PTX parameters, a module without a kernel; a cluster kernel's CTAs per cluster, and a malformed one.
// RUN: axe-opt --lower-tma --lower-to-nvvm %examples/tma_copy.mlir | axe-translate --emit=launch | FileCheck %s --check-prefix=COPY
// RUN: axe-opt --lower-tma --lower-to-nvvm %examples/tma_copy.mlir | axe-translate --emit=launch | python3 -c "import json,sys; d=json.load(sys.stdin); k=d['kernels'][0]; print(k['name'], k['dynamic_shared_bytes'], [m['global_dims'] for m in k['tensor_maps']])" | FileCheck %s --check-prefix=JSON
// RUN: not axe-translate --emit=launch %s --gpu-module=bad_grid 2>&1 | FileCheck %s --check-prefix=GRID
// RUN: not axe-translate --emit=launch %s --gpu-module=bad_params 2>&1 | FileCheck %s --check-prefix=PARAMS
// RUN: not axe-translate --emit=launch %s --gpu-module=no_kernel 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: axe-translate --emit=launch %s --gpu-module=cluster | FileCheck %s --check-prefix=CLUSTER
// RUN: not axe-translate --emit=launch %s --gpu-module=bad_cluster 2>&1 | FileCheck %s --check-prefix=BADCLUSTER

// COPY: "chip": "sm_90a",
// COPY: "name": "tma_copy",
// COPY-NEXT: "grid": null,
// COPY-NEXT: "block": [128, 1, 1],
// COPY-NEXT: "cluster": [1, 1, 1],
// COPY-NEXT: "dynamic_shared_bytes": 0,
// COPY: {"name": "param0", "ptx_name": "tma_copy_param_0", "ptx_type": "u64", "kind": "tensor_map"},
// COPY: {"param": "param0", "param_index": 0, "global_address": "param0 + 0", "data_type": 6, "data_type_name": "FLOAT16", "rank": 2, "global_dims": ["64", "128"], "global_strides_bytes": ["128"], "box_dims": [64, 128], "element_strides": [1, 1], "interleave": 0, "swizzle": 3, "l2_promotion": 2, "oob_fill": 0, "preconditions": []},
// JSON: tma_copy 0 {{\[\['64', '128'\], \['64', '128'\]\]}}
// GRID: error: @k: grid expression 'ceildiv(Q, 128)': 'Q' is neither an integer nor a parameter name
// PARAMS: error: @k: axe.launch names 1 parameters but the lowered kernel has 2
// NONE: error: --emit=launch: no kernel
// The cluster shape --lower-to-nvvm writes from a gpu.func's known_cluster_size (PTX .reqnctapercluster 2, 1, 1).
// CLUSTER: "name": "k",
// CLUSTER-NEXT: "grid": null,
// CLUSTER-NEXT: "block": [128, 1, 1],
// CLUSTER-NEXT: "cluster": [2, 1, 1],
// BADCLUSTER: error: @k: nvvm.cluster_dim must have 3 entries (x, y, z), got 2

module attributes {gpu.container_module} {
  gpu.module @bad_grid {
    llvm.func @k(%a: !llvm.ptr, %n: i32) attributes {gpu.kernel, axe.launch = {params = ["A", "N"], grid = ["ceildiv(Q, 128)", "1", "1"]}} {
      llvm.return
    }
  }
  gpu.module @bad_params {
    llvm.func @k(%a: !llvm.ptr, %n: i32) attributes {gpu.kernel, axe.launch = {params = ["A"], grid = ["1", "1", "1"]}} {
      llvm.return
    }
  }
  gpu.module @cluster {
    llvm.func @k(%a: !llvm.ptr) attributes {gpu.kernel, gpu.known_block_size = array<i32: 128, 1, 1>, nvvm.cluster_dim = array<i32: 2, 1, 1>} {
      llvm.return
    }
  }
  gpu.module @bad_cluster {
    llvm.func @k(%a: !llvm.ptr) attributes {gpu.kernel, nvvm.cluster_dim = array<i32: 2, 1>} {
      llvm.return
    }
  }
  gpu.module @no_kernel {
    llvm.func @helper() {
      llvm.return
    }
  }
}
