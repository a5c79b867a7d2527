// The block-scaled FP8 GEMM example (examples/gemm_fp8_blockscaled_sm90a.mlir: DeepGEMM's 1x128 A scales and
// 128x128 B scales, a producer warp, two consumer warpgroups, persistent, each 128-K block multiplied into a fresh
// partial accumulator and promoted with one FMA per element) goes all the way to PTX that ptxas accepts for
// sm_90a with no spills, and to its launch record. (The simulator proves it: sim/tests/fp8.rs.)
// RUN: axe-opt --axe-check-barriers %examples/gemm_fp8_blockscaled_sm90a.mlir -o /dev/null
// RUN: axe-opt --lower-roles --lower-tile-loops --lower-staged-copies --lower-tma --lower-mma --lower-copy --lower-to-nvvm --axe-hoist-allocas --axe-dynamic-shared %examples/gemm_fp8_blockscaled_sm90a.mlir -o %t.mlir
// RUN: axe-translate --emit=ptx --chip=sm_90a %t.mlir -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: grep -c "fma.rn.f32" %t.ptx | FileCheck %s --check-prefix=FMA
// RUN: grep -c "wgmma.mma_async" %t.ptx | FileCheck %s --check-prefix=WGMMA
// RUN: ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: axe-translate --emit=launch --chip=sm_90a %t.mlir | FileCheck %s --check-prefix=LAUNCH

// CHECK: .visible .entry gemm_fp8_blockscaled_sm90a(
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// A consumer thread holds 64 accumulators (128 x 128 over 256 threads) and the scales of its two rows, 8 rows
// apart: accumulator register r = 4c + 2h + p reads row scale h, so the FMAs read scale 0, 0, 1, 1, 0, 0, ...
// CHECK: fma.rn.f32 {{%r[0-9]+}}, {{%r[0-9]+}}, [[S0:%r[0-9]+]], {{%r[0-9]+}};
// CHECK-NEXT: fma.rn.f32 {{%r[0-9]+}}, {{%r[0-9]+}}, [[S0]], {{%r[0-9]+}};
// CHECK-NEXT: fma.rn.f32 {{%r[0-9]+}}, {{%r[0-9]+}}, [[S1:%r[0-9]+]], {{%r[0-9]+}};
// CHECK-NEXT: fma.rn.f32 {{%r[0-9]+}}, {{%r[0-9]+}}, [[S1]], {{%r[0-9]+}};
// CHECK-NEXT: fma.rn.f32 {{%r[0-9]+}}, {{%r[0-9]+}}, [[S0]], {{%r[0-9]+}};
// Per K block: the B block scale from global memory (predicated inside SFB), the stage's "full" wait, the two row
// scales from the stage's scale column (rows l/4 and l/4 + 8 of the warp's 16: 32 bytes apart), four k32 steps on
// e4m3 operands, the wait for them, the warp's release of the stage.
// CHECK: ld.global.b32
// CHECK: mbarrier.try_wait.parity.shared.b64
// CHECK: ld.shared.b32 {{%r[0-9]+}}, [[[ROW:%rd[0-9]+]]];
// CHECK-NEXT: ld.shared.b32 {{%r[0-9]+}}, [[[ROW]]+32];
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK: mbarrier.arrive.shared.b64
// The producer: per K block, A, Bt and the 128 row scales on one barrier.
// CHECK: mov.b32 [[BYTES:%r[0-9]+]], 33280;
// CHECK-NEXT: mbarrier.arrive.expect_tx.shared.b64 {{%rd[0-9]+}}, [{{.*}}], [[BYTES]];
// CHECK-COUNT-3: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// FMA: 64
// WGMMA: 4
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// LAUNCH: "name": "gemm_fp8_blockscaled_sm90a",
// LAUNCH-NEXT: "grid": ["min(ceildiv(M, 128) * ceildiv(N, 128), sm_count)", "1", "1"],
// LAUNCH: {"name": "SFB", "ptx_name": "gemm_fp8_blockscaled_sm90a_param_3", "ptx_type": "u64", "kind": "pointer"},
// The A scales' map: SFA[ceildiv(K, 128), M], a box of one K block's 128 row scales; its extent is computed in
// the kernel ((K + 127) / 128) and reaches the launch as an expression of K.
// LAUNCH: {"param": "SFA", {{.*}} "data_type_name": "FLOAT32", "rank": 2, "global_dims": ["M", "ceildiv(K, 128)"], "global_strides_bytes": ["M * 4"], "box_dims": [128, 1], {{.*}} "swizzle": 0,
// LAUNCH: "views": [
// LAUNCH-NEXT: {"param": "SFB", "param_index": 3, "dtype": "f32", "dims": ["ceildiv(N, 128)", "ceildiv(K, 128)"]}
