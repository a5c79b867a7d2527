// The FP8 GEMM example (examples/gemm_fp8_sm90a.mlir: C = scale_a * scale_b * A @ B, A and Bt e4m3 K-major, bf16
// out, 128x128x128 tiles, a 3-stage TMA ring, wgmma k32 on one warpgroup) goes all the way to PTX that ptxas
// accepts for sm_90a with no spills, and to its launch record. (The simulator proves it: sim/tests/fp8.rs.)
// RUN: axe-opt --axe-check-barriers %examples/gemm_fp8_sm90a.mlir -o /dev/null
// RUN: axe-opt --lower-tma --lower-mma --lower-copy --lower-to-nvvm --axe-hoist-allocas --axe-dynamic-shared %examples/gemm_fp8_sm90a.mlir -o %t.mlir
// RUN: axe-translate --emit=ptx --chip=sm_90a %t.mlir -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: grep -c "cvt.rn.bf16x2.f32" %t.ptx | FileCheck %s --check-prefix=CVT
// RUN: ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: axe-translate --emit=launch --chip=sm_90a %t.mlir | FileCheck %s --check-prefix=LAUNCH

// Per K tile of 128: the two 64-row halves of the tile, four k32 steps each, on e4m3 operands, K-major (8-bit
// wgmma has no transpose immediates).
// CHECK: .visible .entry gemm_fp8_sm90a(
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {{{(%r[0-9]+, ){63}%r[0-9]+}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1;
// CHECK-NOT: wgmma.mma_async
// The epilogue: the product of the two scales multiplies every accumulator (128 a thread: 128 x 128 over 128
// threads), then 64 bf16 pairs.
// CHECK: mul.rn.f32 [[SCALE:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}};
// CHECK-COUNT-128: mul.rn.f32 {{%r[0-9]+}}, [[SCALE]], {{%r[0-9]+}};
// CVT: 64
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// LAUNCH: "name": "gemm_fp8_sm90a",
// LAUNCH-NEXT: "grid": ["ceildiv(N, 128)", "ceildiv(M, 128)", "1"],
// LAUNCH: {"name": "scale_a", "ptx_name": "gemm_fp8_sm90a_param_6", "ptx_type": "f32", "kind": "scalar"},
// LAUNCH-NEXT: {"name": "scale_b", "ptx_name": "gemm_fp8_sm90a_param_7", "ptx_type": "f32", "kind": "scalar"}
// LAUNCH: {"param": "A", {{.*}} "data_type_name": "UINT8", "rank": 2, "global_dims": ["K", "M"], "global_strides_bytes": ["K"], "box_dims": [128, 128], {{.*}} "swizzle": 3,
// LAUNCH: {"param": "Bt", {{.*}} "data_type_name": "UINT8", "rank": 2, "global_dims": ["K", "N"], "global_strides_bytes": ["K"], "box_dims": [128, 128], {{.*}} "swizzle": 3,
// LAUNCH: {"param": "C", {{.*}} "data_type_name": "BFLOAT16", "rank": 2, "global_dims": ["N", "M"], "global_strides_bytes": ["N * 2"],
