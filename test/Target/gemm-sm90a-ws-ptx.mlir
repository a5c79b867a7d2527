// The warp-specialized, persistent sm_90a GEMM (examples/gemm_sm90a_ws.mlir: a producer warp issuing TMA, two
// consumer warpgroups issuing wgmma on 128x256 tiles, 4 stages, full/empty barrier arrays, register budgets per
// role, each CTA walking tiles in grouped order, the consumers storing each tile themselves a quarter at a time) goes
// all the way to PTX that ptxas accepts for sm_90a with no spills, and to its launch record. The budgets: 384
// threads start at 168 registers (ptxas's count under .maxntid 384 and .minnctapersm 1, which it needs to honour
// setmaxnreg at all: otherwise warning C7508); the producer's warpgroup gives 128 of them per thread back, the two
// consumer warpgroups take 64 more each. (The simulator proves it: sim/tests/gemm_sm90a_ws.rs.)
// RUN: axe-opt --axe-check-barriers %examples/gemm_sm90a_ws.mlir -o /dev/null
// RUN: axe-opt --lower-roles --lower-tile-loops --lower-staged-copies --lower-tma --lower-mma --lower-copy --lower-to-nvvm --axe-hoist-allocas --axe-dynamic-shared %examples/gemm_sm90a_ws.mlir -o %t.mlir
// RUN: axe-translate --emit=ptx --chip=sm_90a %t.mlir -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: FileCheck %s --check-prefix=PRODUCER < %t.ptx
// RUN: ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: axe-translate --emit=launch --chip=sm_90a %t.mlir | FileCheck %s --check-prefix=LAUNCH

// CHECK: .visible .entry gemm_sm90a_ws(
// CHECK: .maxntid 384, 1, 1
// CHECK-NEXT: .minnctapersm 1
// CHECK-NOT: .local
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// Consumers: per K tile, a parity wait on the stage's "full" barrier, four m64n256k16 (K = 64 in steps of 16) that
// both warpgroups run (one code path, warpgroup g's A descriptor 64 rows further), then each consumer warp's
// release: its elected lane arrives on "empty". Per tile, the epilogue in their role, four times (a 128x64 quarter
// of C through two 16 KB stages of one buffer, in turn): their named barrier (id 4: 384 threads are warpgroups 1 to
// 3's ids, and the consumers' warps 0-7 are the kernel's first range; 256 threads) before they write the quarter
// and again before warp 0's elected lane stores it in one 64-column box, commits and waits until at most the
// newest store still reads (its stage is not written again before the next quarter's store is issued); after the
// last quarter it waits for all. No CTA barrier after the set-up (the producer never waits for the epilogue).
// CHECK: elect.sync
// CHECK: mbarrier.try_wait.parity.shared.b64
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// CHECK-NOT: wgmma.mma_async
// CHECK: mbarrier.arrive.shared.b64
// CHECK: bar.sync 4, 256;
// CHECK-NEXT: stmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: bar.sync 4, 256;
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK-NEXT: cp.async.bulk.commit_group;
// CHECK-NEXT: cp.async.bulk.wait_group.read 1;
// CHECK: bar.sync 4, 256;
// CHECK-NEXT: stmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: bar.sync 4, 256;
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK-NEXT: cp.async.bulk.commit_group;
// CHECK-NEXT: cp.async.bulk.wait_group.read 1;
// CHECK: bar.sync 4, 256;
// CHECK-NEXT: stmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: bar.sync 4, 256;
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK-NEXT: cp.async.bulk.commit_group;
// CHECK-NEXT: cp.async.bulk.wait_group.read 1;
// CHECK: bar.sync 4, 256;
// CHECK-NEXT: stmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: bar.sync 4, 256;
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK-NEXT: cp.async.bulk.commit_group;
// CHECK-NEXT: cp.async.bulk.wait_group.read 0;
// CHECK-NOT: cp.async.bulk.tensor.2d.global.shared::cta
// CHECK-NOT: bar.sync 0;
// Producer: its elected lane waits for a free stage, announces 49152 bytes, then loads A in one 64x128 box and B
// in four 64x64 boxes.
// PRODUCER: setmaxnreg.inc.sync.aligned.u32 232;
// PRODUCER: mov.b32 [[BYTES:%r[0-9]+]], 49152;
// PRODUCER: mbarrier.arrive.expect_tx.shared.b64 {{.*}}, [[BYTES]];
// PRODUCER-COUNT-5: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTXAS-NOT: C7508
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Used 168 registers

// Shared memory, largest first: B 4 x 32 KB, A 4 x 16 KB, the C buffer's two 16 KB stages (the ring and C are live
// together: the epilogue runs in the consumers' role), then the barriers (2 x 4 x 8 bytes), and 1024 bytes of
// slack for the window's run-time alignment: 229376 + 64 + 1024.
// LAUNCH: "name": "gemm_sm90a_ws",
// LAUNCH-NEXT: "grid": ["min(ceildiv(M, 128) * ceildiv(N, 256), sm_count)", "1", "1"],
// LAUNCH-NEXT: "block": [384, 1, 1],
// LAUNCH-NEXT: "cluster": [1, 1, 1],
// LAUNCH-NEXT: "dynamic_shared_bytes": 230464,
