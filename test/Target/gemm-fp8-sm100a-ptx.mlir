// The FP8 GEMM on Blackwell (examples/gemm_fp8_sm100a.mlir: gemm_fp8_sm90a's job, e4m3 A and Bt K-major, on
// tcgen05.mma kind::f8f6f4 with the f32 accumulator in tensor memory, per-tensor scales in the epilogue, bf16 out)
// goes all the way to PTX that ptxas accepts for sm_100a with no spills, and to its launch record. (The simulator
// proves it: sim/tests/fp8.rs.)
// RUN: axe-opt --axe-check-barriers %examples/gemm_fp8_sm100a.mlir -o /dev/null
// RUN: axe-opt --lower-tma --lower-mma --lower-copy --lower-to-nvvm --axe-hoist-allocas --axe-dynamic-shared %examples/gemm_fp8_sm100a.mlir -o %t.mlir
// RUN: axe-translate --emit=ptx --chip=sm_100a %t.mlir -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_100a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: axe-translate --emit=launch --chip=sm_100a %t.mlir | FileCheck %s --check-prefix=LAUNCH

// The instruction descriptor (PTX ISA 9.7.16.4.2), worked out by hand: D f32 (1 << 4 = 16), A and B e4m3 (type
// code 0 at bits 7-9 and 10-12), both K-major (transpose bits 15, 16 clear), N = 128 (16 << 17 = 2097152),
// M = 128 (8 << 24 = 134217728): 136314896. Per K tile of 128: four m128n128k32, each 32 bytes of K.
// CHECK: .visible .entry gemm_fp8_sm100a(
// CHECK: mov.b32 [[IDESC:%r[0-9]+]], 136314896;
// CHECK-COUNT-4: tcgen05.mma.cta_group::1.kind::f8f6f4{{.*}} [%r{{[0-9]+}}], %rd{{[0-9]+}}, %rd{{[0-9]+}}, [[IDESC]], %p{{[0-9]+}};
// CHECK-NEXT: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// The epilogue: the scales' product, then each half of the accumulator read from tensor memory (64 columns a
// thread), scaled, rounded to bf16.
// CHECK: mul.rn.f32 [[SCALE:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}};
// CHECK: tcgen05.ld.sync.aligned.32x32b.x64.b32
// CHECK: tcgen05.wait::ld.sync.aligned;
// CHECK: cvt.rn.bf16x2.f32
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// LAUNCH: "name": "gemm_fp8_sm100a",
// LAUNCH-NEXT: "grid": ["ceildiv(N, 128)", "ceildiv(M, 128)", "1"],
// LAUNCH: {"param": "A", {{.*}} "data_type_name": "UINT8", "rank": 2, "global_dims": ["K", "M"], "global_strides_bytes": ["K"], "box_dims": [128, 128], {{.*}} "swizzle": 3,
// LAUNCH: {"param": "Bt", {{.*}} "data_type_name": "UINT8", "rank": 2, "global_dims": ["K", "N"], "global_strides_bytes": ["K"], "box_dims": [128, 128], {{.*}} "swizzle": 3,
