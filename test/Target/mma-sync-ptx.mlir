// The mma.sync example goes all the way to PTX that ptxas accepts for sm_80.
// RUN: axe-opt --lower-mma --lower-to-nvvm %examples/mma_sync.mlir -o %t.mlir
// The output is deterministic: a second run gives the same bytes.
// RUN: axe-opt --lower-mma --lower-to-nvvm %examples/mma_sync.mlir | diff %t.mlir -
// RUN: FileCheck %s --check-prefix=LOWERED < %t.mlir
// RUN: axe-translate --emit=ptx --chip=sm_80 %t.mlir -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: ptxas -arch=sm_80 %t.ptx -o %t.cubin
// The same kernel assembles for the later chips (mma.sync exists on all of them).
// RUN: axe-translate --emit=ptx --chip=sm_90a %t.mlir -o %t.sm90a.ptx
// RUN: ptxas -arch=sm_90a %t.sm90a.ptx -o %t.sm90a.cubin

// LOWERED: gpu.module @kernels
// No axe op is left (custom form, or generic if it were printed so); axe.* attributes may stay.
// LOWERED-NOT: {{^ *(%[^ ]+ = )?"?axe\.[a-z_]+}}
// LOWERED: nvvm.mma.sync
// LOWERED-SAME: shape = #nvvm.shape<m = 16, n = 8, k = 16>

// K = 32 is two k16 steps; both warps run the same registers, so LLVM merges the two guarded copies: two
// instructions, the second accumulating onto the first's result.
// PTX: .target sm_80
// PTX: .visible .entry mma_sync(
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX-NEXT: {[[D0:%r[0-9]+]], [[D1:%r[0-9]+]], [[D2:%r[0-9]+]], [[D3:%r[0-9]+]]},
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX-NEXT: {[[E0:%r[0-9]+]], [[E1:%r[0-9]+]], [[E2:%r[0-9]+]], [[E3:%r[0-9]+]]},
// PTX-NEXT: {{[{].*[}]}},
// PTX-NEXT: {{[{].*[}]}},
// PTX-NEXT: {[[D0]], [[D1]], [[D2]], [[D3]]};
// PTX-NOT: mma.sync
// The epilogue stores the four accumulators of each thread.
// PTX: st.global.b32 [{{%rd[0-9]+}}], [[E0]];
// PTX: st.global.b32 [{{%rd[0-9]+}}+4], [[E1]];
// PTX: st.global.b32 [{{%rd[0-9]+}}+8], [[E2]];
// PTX: st.global.b32 [{{%rd[0-9]+}}+12], [[E3]];
