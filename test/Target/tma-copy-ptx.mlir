// The bundled TMA example goes all the way to PTX that ptxas accepts.
// RUN: axe-opt --lower-tma --lower-to-nvvm %examples/tma_copy.mlir -o %t.mlir
// RUN: FileCheck %s --check-prefix=LOWERED < %t.mlir
// RUN: axe-translate --emit=ptx --chip=sm_90a %t.mlir -o %t.sm90a.ptx
// RUN: FileCheck %s --check-prefix=SM90A < %t.sm90a.ptx
// RUN: ptxas -arch=sm_90a %t.sm90a.ptx -o %t.sm90a.cubin
// RUN: axe-translate --emit=ptx --chip=sm_100a %t.mlir -o %t.sm100a.ptx
// RUN: FileCheck %s --check-prefix=SM100A < %t.sm100a.ptx
// RUN: ptxas -arch=sm_100a %t.sm100a.ptx -o %t.sm100a.cubin
// The alias is the upstream pipeline: same output through --pass-pipeline after --lower-tma.
// RUN: axe-opt --lower-tma %examples/tma_copy.mlir | axe-opt --pass-pipeline='builtin.module(gpu.module(convert-scf-to-cf,convert-nvgpu-to-nvvm,convert-gpu-to-nvvm,convert-to-llvm,canonicalize,cse),reconcile-unrealized-casts)' -o %t.pipeline.mlir
// RUN: diff %t.mlir %t.pipeline.mlir
// The TMA ops need sm_90: on sm_80 LLVM refuses cleanly (exit 1, no crash).
// RUN: not axe-translate --emit=ptx --chip=sm_80 %t.mlir 2>&1 | FileCheck %s --check-prefix=SM80

// Only llvm and nvvm ops are left in the gpu.module.
// LOWERED: gpu.module @kernels
// LOWERED-NOT: nvgpu.
// LOWERED: llvm.func @tma_copy
// LOWERED: nvvm.mbarrier.init
// LOWERED: nvvm.mbarrier.arrive.expect_tx
// LOWERED: nvvm.cp.async.bulk.tensor.shared.cluster.global
// LOWERED: nvvm.cp.async.bulk.tensor.global.shared.cta

// SM90A: .version 8.0
// SM90A: .target sm_90a
// SM90A: .visible .entry tma_copy(
// SM90A: .shared .align 1024 .b8 __axe_smem_0[16384];
// SM90A: mbarrier.init.shared.b64
// SM90A-NEXT: fence.mbarrier_init.release.cluster;
// SM90A-NEXT: $L__BB0_2:
// SM90A-NEXT: bar.sync 0;
// 128 x 64 halves = 16384 bytes expected on the barrier.
// SM90A: mov.b32 [[BYTES:%r[0-9]+]], 16384;
// SM90A-NEXT: mbarrier.arrive.expect_tx.shared.b64 {{.*}}, [[BYTES]];
// SM90A: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{.*}}], [%rd{{[0-9]+}}, {[[ZERO:%r[0-9]+]], [[ZERO]]}]
// SM90A: mbarrier.try_wait.parity.shared.b64
// SM90A: fence.proxy.async.shared::cta;
// SM90A: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd{{[0-9]+}}, {[[ZERO2:%r[0-9]+]], [[ZERO2]]}], [__axe_smem_0]
// SM90A: cp.async.bulk.commit_group;
// SM90A: cp.async.bulk.wait_group.read 0;

// SM100A: .version 8.6
// SM100A: .target sm_100a
// SM100A: cp.async.bulk.tensor.2d

// SM80: axe-translate: error: LLVM: Cannot select: intrinsic
