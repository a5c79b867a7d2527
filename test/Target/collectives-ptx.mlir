// The all-gather example through --lower-collectives, --lower-to-nvvm and axe-translate: with NVSHMEM's device
// bitcode linked in (found in the project's .venv, scripts/setup.sh installs nvidia-nvshmem-cu13) ptxas
// assembles a complete cubin for sm_90a; with --nvshmem-lib=none the NVSHMEM functions stay .extern and
// `ptxas -c` assembles a relocatable object for nvlink. The launch JSON lists the symmetric buffer.
// RUN: axe-opt --lower-collectives --lower-to-nvvm %examples/allgather.mlir -o %t.mlir
// RUN: FileCheck %s --check-prefix=LOWERED < %t.mlir
// RUN: axe-translate --emit=ptx --chip=sm_90a --nvshmem-lib=none %t.mlir -o %t.extern.ptx
// RUN: FileCheck %s --check-prefix=EXTERN < %t.extern.ptx
// RUN: ptxas -arch=sm_90a -c %t.extern.ptx -o %t.o
// RUN: axe-translate --emit=ptx --chip=sm_90a %t.mlir -o %t.ptx
// RUN: FileCheck %s --check-prefix=LINKED < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: axe-translate --emit=launch --chip=sm_90a %t.mlir | FileCheck %s --check-prefix=LAUNCH
// A bitcode path that holds none is an error, not a silent extern.
// RUN: not axe-translate --emit=ptx --nvshmem-lib=%t.missing %t.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// A file that is not bitcode is refused by name.
// RUN: not axe-translate --emit=ptx --nvshmem-lib=%s %t.mlir 2>&1 | FileCheck %s --check-prefix=NOTBC

// LOWERED: llvm.func @nvshmemx_putmem_nbi_block(!llvm.ptr, !llvm.ptr, i64, i32)
// LOWERED: llvm.func @allgather(
// LOWERED-SAME: axe.symmetric = [{arg = 1 : i64, bytes = 128 : i64, local_shapes = [array<i64: 8, 4>, array<i64: 8, 4>, array<i64: 8, 4>, array<i64: 8, 4>]}]
// LOWERED-DAG: llvm.call @nvshmem_quiet()
// LOWERED-DAG: llvm.call @nvshmemx_barrier_all_block()

// EXTERN: .version 8.0
// EXTERN: .extern .func  (.param .b32 func_retval0) nvshmem_my_pe
// EXTERN: .extern .func nvshmemx_putmem_nbi_block
// EXTERN: .visible .entry allgather(
// EXTERN: call.uni (retval0), nvshmem_my_pe, ();
// EXTERN: brx.idx
// EXTERN: call.uni nvshmemx_putmem_nbi_block, (param0, param1, param2, param3);
// EXTERN-DAG: call.uni nvshmem_quiet, ();
// EXTERN-DAG: call.uni nvshmemx_barrier_all_block, ();

// The library's inline PTX (fence.acquire.gpu) needs ISA 8.6: the module takes the library's +ptx88.
// LINKED: .version 8.8
// LINKED-NEXT: .target sm_90a
// LINKED-NOT: .extern .func {{.*}}nvshmem
// LINKED: .visible .const .align 8 .b8 nvshmemi_device_state_d[
// LINKED: .visible .entry allgather(
// LINKED: ld.const.{{.*}}[nvshmemi_device_state_d

// LAUNCH: "name": "allgather"
// LAUNCH: "symmetric": [
// LAUNCH-NEXT: {"arg": 1, "param": "dst", "bytes": 128, "local_shapes": {{\[\[}}8, 4], [8, 4], [8, 4], [8, 4]]}
// LAUNCH-NEXT: ]

// MISSING: axe-translate: error: --nvshmem-lib: no NVSHMEM device bitcode at
// NOTBC: axe-translate: error: cannot read NVSHMEM device bitcode {{.*}}collectives-ptx.mlir: not an LLVM bitcode file
