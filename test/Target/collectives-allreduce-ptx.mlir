// The all-reduce example (Partial(sum) -> Replicate() over 4 ranks, with gets and over NVLink multicast) through
// --lower-collectives, --lower-to-nvvm and axe-translate with NVSHMEM's device bitcode linked: ptxas assembles it
// for sm_90a; with the calls left .extern, `ptxas -c` for sm_100a (multimem needs PTX ISA 8.1: sm_90a's own 8.0
// does not have it, so on sm_90a the multimem kernel needs the library's 8.8, i.e. linking). The launch JSON lists
// the symmetric buffers (64x32 f32 = 8192 bytes; every rank's to_local() is the whole 64x32).
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
// LINKED: .visible .entry allreduce_multimem(
// LINKED: multimem.ld_reduce.relaxed.sys.global.add.f32 [[SUM:%[a-z]+[0-9]+]], [%rd{{[0-9]+}}];
// LINKED: multimem.st.relaxed.sys.global.f32 [%rd{{[0-9]+}}], [[SUM]];

// EXTERN: .target sm_100a
// EXTERN-DAG: .extern .func  (.param .b32 func_retval0) nvshmem_uint32_g
// EXTERN-DAG: .extern .func nvshmemx_barrier_all_block
// EXTERN: .visible .entry allreduce(
// EXTERN: call.uni (retval0), nvshmem_uint32_g,
// EXTERN: add.rn.f32
// EXTERN: .visible .entry allreduce_multimem(
// EXTERN: call.uni (retval0), nvshmemx_mc_ptr,
// EXTERN: multimem.ld_reduce.relaxed.sys.global.add.f32

// LAUNCH: "name": "allreduce"
// LAUNCH: "symmetric": [
// LAUNCH-NEXT: {"arg": 0, "param": "src", "bytes": 8192, "local_shapes": {{\[\[}}64, 32], [64, 32], [64, 32], [64, 32]]}
// LAUNCH-NEXT: ]
// LAUNCH: "name": "allreduce_multimem"
// LAUNCH: "symmetric": [
// LAUNCH-NEXT: {"arg": 0, "param": "src", "bytes": 8192, "local_shapes": {{\[\[}}64, 32], [64, 32], [64, 32], [64, 32]]},
// LAUNCH-NEXT: {"arg": 1, "param": "dst", "bytes": 8192, "local_shapes": {{\[\[}}64, 32], [64, 32], [64, 32], [64, 32]]}
