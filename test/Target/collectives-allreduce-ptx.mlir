// The all-reduce example (Partial(sum) -> Replicate() over 4 ranks) through --lower-collectives, --lower-to-nvvm
// and axe-translate with NVSHMEM's device bitcode linked: ptxas assembles it for sm_90a; with the calls left
// .extern, `ptxas -c` for sm_100a. The launch JSON lists the symmetric source (64x32 f32 = 8192 bytes).
// RUN: axe-opt --lower-collectives --lower-to-nvvm %examples/allreduce.mlir -o %t.mlir
// RUN: axe-translate --emit=ptx --chip=sm_90a %t.mlir -o %t.ptx
// RUN: FileCheck %s --check-prefix=LINKED < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: axe-translate --emit=ptx --chip=sm_100a --nvshmem-lib=none %t.mlir -o %t.extern.ptx
// RUN: FileCheck %s --check-prefix=EXTERN < %t.extern.ptx
// RUN: ptxas -arch=sm_100a -c %t.extern.ptx -o %t.o
// RUN: axe-translate --emit=launch %t.mlir | FileCheck %s --check-prefix=LAUNCH

// LINKED: .version 8.8
// LINKED-NOT: .extern .func {{.*}}nvshmem
// LINKED: .visible .entry allreduce(
// LINKED: bar.sync 0;

// EXTERN: .target sm_100a
// EXTERN-DAG: .extern .func  (.param .b32 func_retval0) nvshmem_uint32_g
// EXTERN-DAG: .extern .func nvshmemx_barrier_all_block
// EXTERN: .visible .entry allreduce(
// EXTERN: call.uni (retval0), nvshmem_uint32_g,
// EXTERN: add.rn.f32

// LAUNCH: "symmetric": [
// LAUNCH-NEXT: {"arg": 0, "param": "src", "bytes": 8192}
