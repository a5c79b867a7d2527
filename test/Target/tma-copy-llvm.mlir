// --emit=llvm prints the NVPTX LLVM module: triple, data layout, the kernel
// with the ptx_kernel calling convention and the TMA intrinsics.
// RUN: axe-opt --lower-tma --lower-to-nvvm %examples/tma_copy.mlir | axe-translate --emit=llvm | FileCheck %s
// -O0 keeps the IR as translated (one TMA load, one store).
// RUN: axe-opt --lower-tma --lower-to-nvvm %examples/tma_copy.mlir | axe-translate --emit=llvm -O0 | FileCheck %s --check-prefix=O0

// CHECK: target datalayout = "e-
// CHECK: target triple = "nvptx64-nvidia-cuda"
// CHECK: @__axe_smem_0 = {{.*}}addrspace(3) global [16384 x i8] {{.*}}, align 1024
// CHECK: define ptx_kernel void @tma_copy(ptr {{.*}}, ptr {{.*}})
// CHECK: call void @llvm.nvvm.cp.async.bulk.tensor.g2s.tile.2d
// CHECK: call void @llvm.nvvm.cp.async.bulk.tensor.s2g.tile.2d

// O0-COUNT-1: call void @llvm.nvvm.cp.async.bulk.tensor.g2s.tile.2d
// O0-COUNT-1: call void @llvm.nvvm.cp.async.bulk.tensor.s2g.tile.2d
