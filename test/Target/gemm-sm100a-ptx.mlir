// The sm_100a GEMM example (examples/gemm_sm100a.mlir: the job of gemm_sm90a with the accumulator in tensor
// memory: TMA ring, tcgen05.mma by one thread committed to an mbarrier, tcgen05.ld epilogue, f16 rows through
// shared memory and a TMA store) goes to PTX that ptxas accepts for sm_100a with no spills and no local memory.
// RUN: axe-opt --axe-check-barriers %examples/gemm_sm100a.mlir -o /dev/null
// RUN: axe-opt --lower-tma --lower-mma --lower-copy --lower-to-nvvm --axe-hoist-allocas --axe-dynamic-shared %examples/gemm_sm100a.mlir -o %t.mlir
// RUN: axe-opt --lower-tma --lower-mma --lower-copy --lower-to-nvvm --axe-hoist-allocas --axe-dynamic-shared %examples/gemm_sm100a.mlir | diff %t.mlir -
// RUN: axe-translate --emit=ptx --chip=sm_100a %t.mlir -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: FileCheck %s --check-prefix=RING < %t.ptx
// RUN: ptxas -arch=sm_100a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: axe-translate --emit=launch --chip=sm_100a %t.mlir -o %t.json
// RUN: FileCheck %s --check-prefix=LAUNCH < %t.json
// RUN: python3 %S/Inputs/check_launch.py %t.json gemm_sm100a M=304 N=208 K=80 -- '{"grid": [2, 3, 1], "maps": {"A": {"dims": [80, 304], "strides": [160]}, "B": {"dims": [208, 80], "strides": [416]}, "C": {"dims": [208, 304], "strides": [416]}}, "preconditions": true}' | FileCheck %s --check-prefix=OK

// The ring's stage and parity are loop-carried (add, compare, select; the parity flips when the stage wraps), not
// divided out of the K index: no magic-number division (mul.hi) in the kernel.
// RING: .entry gemm_sm100a(
// RING-NOT: mul.hi
// RING: ret;
// CHECK: .extern .shared .align 16 .b8 __axe_dynamic_smem[];
// CHECK: .visible .entry gemm_sm100a(
// CHECK-NOT: .local
// 128 columns of tensor memory for the 128x128 f32 accumulator.
// CHECK: mov.b32 [[COLS:%r[0-9]+]], 128;
// CHECK-NEXT: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%rd{{[0-9]+}}], [[COLS]];
// Prologue: a loop over K tiles 0-2 (A one box, B two), not unrolled.
// CHECK-COUNT-3: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-NOT: cp.async.bulk.tensor
// The K loop's first iteration, which LLVM peels (the run-time "written" flag is false only there): its first
// tcgen05.mma m128n128k16 overwrites (enable-input-d false: the fill), the other three of the stage accumulate;
// one commit to the completion barrier; then the refill of the stage, tile 3 (A one box, B two).
// CHECK: mov.pred [[FILL:%p[0-9]+]], 0;
// CHECK: tcgen05.mma.cta_group::1.kind::f16.collector::a::discard [%r{{[0-9]+}}], %rd{{[0-9]+}}, %rd{{[0-9]+}}, %r{{[0-9]+}}, [[FILL]];
// CHECK: mov.pred [[ALWAYS:%p[0-9]+]], -1;
// CHECK-NEXT: tcgen05.mma.cta_group::1.kind::f16.collector::a::discard [%r{{[0-9]+}}], %rd{{[0-9]+}}, %rd{{[0-9]+}}, %r{{[0-9]+}}, [[ALWAYS]];
// CHECK-COUNT-2: tcgen05.mma.cta_group::1.kind::f16.collector::a::discard {{.*}}, [[ALWAYS]];
// CHECK-NOT: tcgen05.mma
// CHECK: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// CHECK-COUNT-3: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// Epilogue, two halves of 64 columns: per half one tcgen05.ld of 64 columns of the thread's row, 32 f16 pairs,
// 8 x 16-byte shared stores (64 f16 = 128 bytes); then two TMA stores.
// CHECK: tcgen05.ld.sync.aligned.32x32b.x64.b32
// CHECK: tcgen05.wait::ld.sync.aligned;
// CHECK-COUNT-32: cvt.rn.f16x2.f32
// CHECK-NOT: cvt.rn.f16
// CHECK-COUNT-8: st.shared.v4.b32
// CHECK-NOT: st.shared
// CHECK: tcgen05.ld.sync.aligned.32x32b.x64.b32
// CHECK: tcgen05.wait::ld.sync.aligned;
// CHECK-COUNT-32: cvt.rn.f16x2.f32
// CHECK-NOT: cvt.rn.f16
// CHECK-COUNT-8: st.shared.v4.b32
// CHECK-NOT: st.shared
// CHECK: fence.proxy.async.shared::cta;
// CHECK-COUNT-2: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK-NOT: cp.async.bulk.tensor
// CHECK: tcgen05.dealloc.cta_group::1.sync.aligned.b32
// The later iterations, laid out after the epilogue: 4 accumulating tcgen05.mma, one commit, the refill.
// CHECK: mov.pred [[ACC:%p[0-9]+]], -1;
// CHECK-COUNT-4: tcgen05.mma.cta_group::1.kind::f16.collector::a::discard {{.*}}, [[ACC]];
// CHECK-NOT: tcgen05.mma
// CHECK: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// CHECK-COUNT-3: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-NOT: tcgen05.mma

// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// LAUNCH: "name": "gemm_sm100a",
// LAUNCH-NEXT: "grid": ["ceildiv(N, 128)", "ceildiv(M, 128)", "1"],
// LAUNCH-NEXT: "block": [128, 1, 1],
// LAUNCH-NEXT: "cluster": [1, 1, 1],
// Rings (96 KB; the C tile takes their bytes after the CTA barrier that ends the K loop) and the small slots
// (mbarriers, the tensor-memory address) with 1024 bytes of slack.
// LAUNCH-NEXT: "dynamic_shared_bytes": 99364,
// OK: ok
