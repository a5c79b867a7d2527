// The sm_90a GEMM example (examples/gemm_sm90a.mlir: C = A @ B, f16, M, N, K run-time i32 arguments, 128x128x64
// tiles, 3-stage TMA ring, wgmma on one warpgroup, f32 -> f16 epilogue through shared memory and a TMA store) goes
// all the way to PTX that ptxas accepts for sm_90a with no spills and no local memory, and to its launch record.
// RUN: axe-opt --axe-check-barriers %examples/gemm_sm90a.mlir -o /dev/null
// RUN: axe-opt --lower-tma --lower-mma --lower-copy --lower-to-nvvm --axe-hoist-allocas --axe-dynamic-shared %examples/gemm_sm90a.mlir -o %t.mlir
// The output is deterministic: a second run gives the same bytes.
// RUN: axe-opt --lower-tma --lower-mma --lower-copy --lower-to-nvvm --axe-hoist-allocas --axe-dynamic-shared %examples/gemm_sm90a.mlir | diff %t.mlir -
// RUN: axe-translate --emit=ptx --chip=sm_90a %t.mlir -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: FileCheck %s --check-prefix=RING < %t.ptx
// RUN: grep -c "cvt.rn.f16x2.f32" %t.ptx | FileCheck %s --check-prefix=CVT
// RUN: not grep -q "cvt.rn.f16.f32" %t.ptx
// RUN: ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: axe-translate --emit=launch --chip=sm_90a %t.mlir -o %t.json
// RUN: FileCheck %s --check-prefix=LAUNCH < %t.json
// The record as a host reads it (json.load), evaluated at sizes with ragged edges: M = 304, N = 208, K = 80 gives
// ceildiv(208,128) x ceildiv(304,128) = 2 x 3 CTAs; A [304, 80] has dims [80, 304] and a 160-byte row stride;
// B [80, 208] dims [208, 80], 416 bytes; C [304, 208] dims [208, 304], 416 bytes. M = 300 breaks a precondition.
// RUN: python3 %S/Inputs/check_launch.py %t.json gemm_sm90a M=304 N=208 K=80 -- '{"grid": [2, 3, 1], "maps": {"A": {"dims": [80, 304], "strides": [160]}, "B": {"dims": [208, 80], "strides": [416]}, "C": {"dims": [208, 304], "strides": [416]}}, "preconditions": true}' | FileCheck %s --check-prefix=OK
// RUN: not python3 %S/Inputs/check_launch.py %t.json gemm_sm90a M=300 N=208 K=80 -- '{"preconditions": true}' | FileCheck %s --check-prefix=PRE

// Three tensor-map pointers and M, N, K; all shared memory is the dynamic window (rings 2 x 48 KB,
// and C 32 KB over their bytes: the CTA barrier after the K loop separates their lifetimes).
// The ring's stage and parity are loop-carried (add, compare, select; the parity flips when the stage wraps), not
// divided out of the K index: no magic-number division (mul.hi) in the kernel.
// RING: .entry gemm_sm90a(
// RING-NOT: mul.hi
// RING: ret;
// CHECK: .extern .shared .align 16 .b8 __axe_dynamic_smem[];
// CHECK: .visible .entry gemm_sm90a(
// CHECK-NEXT: .param .u64 .ptr .align 1 gemm_sm90a_param_0,
// CHECK-NEXT: .param .u64 .ptr .align 1 gemm_sm90a_param_1,
// CHECK-NEXT: .param .u64 .ptr .align 1 gemm_sm90a_param_2,
// CHECK-NEXT: .param .u32 gemm_sm90a_param_3,
// CHECK-NEXT: .param .u32 gemm_sm90a_param_4,
// CHECK-NEXT: .param .u32 gemm_sm90a_param_5
// CHECK-NOT: .local
// The window's base rounded up to 1024 bytes.
// CHECK: mov.b64 [[WIN:%rd[0-9]+]], __axe_dynamic_smem;
// CHECK-NEXT: neg.s64 [[NEG:%rd[0-9]+]], [[WIN]];
// CHECK-NEXT: and.b64 %rd{{[0-9]+}}, [[NEG]], 1008;
// Prologue: a loop over K tiles 0-2 (A one box, B two 64-column boxes), not unrolled.
// CHECK-COUNT-3: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-NOT: cp.async.bulk.tensor.2d.shared::cluster
// The loop: wait for the stage's parity, 8 x wgmma m64n128k16 (2 M halves x 4 K steps), commit, wait.
// CHECK: mbarrier.try_wait.parity.shared.b64
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// CHECK-NOT: wgmma.mma_async
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned 0;
// CHECK: bar.sync 0;
// The refill: K tile kt + 3 into the stage just read (a run-time stage).
// CHECK-COUNT-3: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-NOT: cp.async.bulk.tensor.2d.shared::cluster
// Epilogue: f32 -> f16 (one cvt.rn.f16x2.f32 per pair of elements: 64 a thread for 128 registers, counted below;
// no scalar cvt), 16 stmatrix.x4 into the swizzled C tile, proxy fence, CTA barrier, two TMA stores of 128x64.
// CHECK: cvt.rn.f16x2.f32
// CHECK-COUNT-16: stmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-NOT: stmatrix
// CHECK: fence.proxy.async.shared::cta;
// CHECK-NEXT: bar.sync 0;
// CHECK-COUNT-2: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK-NOT: cp.async.bulk.tensor
// CHECK: cp.async.bulk.commit_group;

// OK: ok
// PRE: preconditions: expected True, got False
// CVT: 64
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// LAUNCH: "name": "gemm_sm90a",
// LAUNCH-NEXT: "grid": ["ceildiv(N, 128)", "ceildiv(M, 128)", "1"],
// LAUNCH-NEXT: "block": [128, 1, 1],
// LAUNCH-NEXT: "cluster": [1, 1, 1],
// LAUNCH-NEXT: "dynamic_shared_bytes": 99352,
// LAUNCH: {"name": "A", "ptx_name": "gemm_sm90a_param_0", "ptx_type": "u64", "kind": "tensor_map"},
// LAUNCH: {"name": "K", "ptx_name": "gemm_sm90a_param_5", "ptx_type": "u32", "kind": "scalar"}
// LAUNCH: {"param": "A", "param_index": 0, "global_address": "A + 0", "data_type": 6, "data_type_name": "FLOAT16", "rank": 2, "global_dims": ["K", "M"], "global_strides_bytes": ["K * 2"], "box_dims": [64, 128], "element_strides": [1, 1], "interleave": 0, "swizzle": 3, "l2_promotion": 2, "oob_fill": 0, "preconditions": ["M >= 1", "M % 16 == 0", "K >= 1", "K % 16 == 0", "K <= 4294967296", "M <= 4294967296", "K * 2 < 1099511627776"]},
// LAUNCH: {"param": "B", "param_index": 1, {{.*}} "global_dims": ["N", "K"], "global_strides_bytes": ["N * 2"], "box_dims": [64, 64],
// LAUNCH: {"param": "C", "param_index": 2, {{.*}} "global_dims": ["N", "M"], "global_strides_bytes": ["N * 2"], "box_dims": [64, 128],
