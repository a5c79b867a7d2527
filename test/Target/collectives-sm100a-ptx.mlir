// The all-gather example for sm_100a: NVSHMEM's sm_100 device bitcode (nvidia-nvshmem-cu13 ships
// libnvshmem_device_sm_100.bc, built for target-cpu sm_100, +ptx88) links in and ptxas assembles the cubin.
// RUN: axe-opt --lower-collectives --lower-to-nvvm %examples/allgather.mlir -o %t.mlir
// RUN: axe-translate --emit=ptx --chip=sm_100a %t.mlir -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_100a %t.ptx -o %t.cubin

// CHECK: .version 8.8
// CHECK-NEXT: .target sm_100a
// CHECK-NOT: .extern .func {{.*}}nvshmem
// CHECK: .visible .const .align 8 .b8 nvshmemi_device_state_d[
// CHECK: .visible .entry allgather(
