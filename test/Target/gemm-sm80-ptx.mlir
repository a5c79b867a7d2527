// The sm_80 GEMM example (examples/gemm_sm80.mlir: M, N, K kernel arguments, 128x128x64 CTA tiles, a 3-stage
// cp.async ring in dynamic shared memory, ldmatrix into mma.sync m16n8k16 fragments, 4 warps of 64x64, f32 -> f16
// epilogue with predicated stores) goes all the way to PTX that ptxas accepts for sm_80 without spills; the output
// is deterministic.
// The kernel drains its cp.async groups before it returns (--axe-check-barriers, rule async-exit), and its launch
// record lists what its copies need of the arguments: K = 72 meets them, K = 76 (a 16-byte copy at a row of 152
// bytes would be misaligned) and an A off 16 bytes do not.
// RUN: axe-opt --axe-check-barriers %examples/gemm_sm80.mlir -o /dev/null
// RUN: axe-opt --lower-copy --lower-mma --lower-to-nvvm --axe-dynamic-shared %examples/gemm_sm80.mlir -o %t.mlir
// RUN: axe-translate --emit=launch --chip=sm_80 %t.mlir -o %t.json
// RUN: FileCheck %s --check-prefix=LAUNCH < %t.json
// RUN: python3 %S/Inputs/check_launch.py %t.json gemm_sm80 M=200 N=136 K=72 -- '{"grid": [2, 2, 1], "preconditions": true}' | FileCheck %s --check-prefix=OK
// RUN: not python3 %S/Inputs/check_launch.py %t.json gemm_sm80 M=200 N=136 K=76 -- '{"preconditions": true}' | FileCheck %s --check-prefix=PRE
// RUN: not python3 %S/Inputs/check_launch.py %t.json gemm_sm80 A=264 M=200 N=136 K=72 -- '{"preconditions": true}' | FileCheck %s --check-prefix=PRE
// The tensors behind the pointers, as the example's axe.view ops declare them (A is M x K, B is K x N, C is M x N):
// LAUNCH:      "views": [
// LAUNCH-NEXT:   {"param": "A", "param_index": 0, "dtype": "f16", "dims": ["M", "K"]},
// LAUNCH-NEXT:   {"param": "B", "param_index": 1, "dtype": "f16", "dims": ["K", "N"]},
// LAUNCH-NEXT:   {"param": "C", "param_index": 2, "dtype": "f16", "dims": ["M", "N"]}
// LAUNCH-NEXT: ],
// LAUNCH: "preconditions": ["A % 16 == 0", "K % 8 == 0", "B % 16 == 0", "N % 8 == 0", "C % 4 == 0", "N % 2 == 0"]
// OK: ok
// PRE: preconditions: expected True, got False
// RUN: axe-translate --emit=ptx --chip=sm_80 %t.mlir -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_80 -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: axe-opt --lower-copy --lower-mma --lower-to-nvvm --axe-dynamic-shared %examples/gemm_sm80.mlir | diff %t.mlir -
// The other pass order compiles too (the same ops; an alloca and the thread id read trade places).
// RUN: axe-opt --lower-mma --lower-copy --lower-to-nvvm --axe-dynamic-shared %examples/gemm_sm80.mlir -o %t.other.mlir
// RUN: axe-translate --emit=ptx --chip=sm_80 %t.other.mlir -o %t.other.ptx
// RUN: ptxas -arch=sm_80 -v %t.other.ptx -o %t.other.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// CHECK: .extern .shared .align 16 .b8 __axe_dynamic_smem[];
// CHECK: .visible .entry gemm_sm80(
// CHECK: .param .u32 gemm_sm80_param_3,
// Prologue: K tiles 0 and 1, each 8 + 8 cp.async of 16 bytes per thread (A, then B; a thread's chunks 2048 bytes
// apart), each with its src-size (16, or 0 past the tensor's edge: zero fill), one commit per tile; tile 1's
// copies only when K > 64 (skipped when K < 65), its commit either way.
// CHECK: setp.lt.u64
// CHECK: selp.b32 [[SIZE:%r[0-9]+]], 16, 0, %p{{[0-9]+}};
// CHECK-NEXT: cp.async.cg.shared.global [[[DST:%rd[0-9]+]]], [%rd{{[0-9]+}}], 16, [[SIZE]];
// CHECK: cp.async.cg.shared.global [[[DST]]+2048], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK-COUNT-14: cp.async.cg.shared.global
// CHECK-NEXT: cp.async.commit_group;
// CHECK-NEXT: setp.lt.u32 [[NO1:%p[0-9]+]], %r{{[0-9]+}}, 65;
// CHECK-NEXT: @[[NO1]] bra [[SKIP:\$L__BB0_[0-9]+]];
// CHECK-COUNT-16: cp.async.cg.shared.global
// CHECK-NEXT: [[SKIP]]:
// CHECK: cp.async.commit_group;
// CHECK: cp.async.commit_group;
// The loop, as LLVM rotates it: the iteration's commit (one group for both operands' loads, or an empty one past
// the last tile), the compute of tile kt, then the wait and the loads of the next iteration. Each k16
// step, per warp (no per-warp branches: every warp runs the same code at its own offsets): its 64x16 slice of A by
// four ldmatrix x4, its 16x64 slice of B by four ldmatrix x4 .trans, then its 4 x 8 tiles of m16n8k16; 4 steps.
// CHECK-COUNT-4: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%rd{{[0-9]+}}{{(\+-?[0-9]+)?}}];
// CHECK-COUNT-4: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%rd{{[0-9]+}}{{(\+-?[0-9]+)?}}];
// CHECK-NOT: ldmatrix
// CHECK-COUNT-32: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-NOT: mma.sync
// CHECK-COUNT-4: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-COUNT-4: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK-NOT: ldmatrix
// CHECK-COUNT-32: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-NOT: mma.sync
// CHECK-COUNT-4: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-COUNT-4: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK-NOT: ldmatrix
// CHECK-COUNT-32: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-NOT: mma.sync
// CHECK-COUNT-4: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-COUNT-4: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK-NOT: ldmatrix
// CHECK-COUNT-32: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-NOT: mma.sync
// Wait for tile kt (one group may stay pending), a CTA barrier, the loads of tile kt + 2 into a run-time stage (the
// ring's base plus stage << 14, 16384 bytes a stage; a thread's chunks 2048 bytes apart).
// CHECK: cp.async.wait_group 1;
// CHECK-NEXT: bar.sync 0;
// CHECK: shl.b64 [[STAGE:%rd[0-9]+]], %rd{{[0-9]+}}, 14;
// CHECK-NEXT: add.s64 [[LDST:%rd[0-9]+]], %rd{{[0-9]+}}, [[STAGE]];
// CHECK: cp.async.cg.shared.global [[[LDST]]], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK: cp.async.cg.shared.global [[[LDST]]+2048], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK-COUNT-14: cp.async.cg.shared.global
// CHECK-NOT: cp.async.cg.shared.global
// After the loop: every group retired (the last ones are empty), so no copy is in flight when the CTA exits.
// CHECK: cp.async.wait_group 0;
// Epilogue: accumulator pairs to f16x2 (one cvt.rn.f16x2.f32 a pair, no scalar cvt), stored 4 bytes at a time,
// each store skipped past row M or column N.
// CHECK: @%p{{[0-9]+}} bra
// CHECK-NEXT: cvt.rn.f16x2.f32 [[PAIR:%r[0-9]+]], %r{{[0-9]+}}, %r{{[0-9]+}};
// CHECK-NEXT: st.global.b32 [%rd{{[0-9]+}}], [[PAIR]];
// CHECK-NOT: cvt.rn.f16.f32
// CHECK-NOT: .local

// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Used {{[0-9]+}} registers, used 1 barriers
