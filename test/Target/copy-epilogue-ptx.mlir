// The epilogue example (tcgen05 GEMM in tensor memory, read back, scaled, cast to f16, stored) goes all the way to
// PTX that ptxas accepts for sm_100a, and the lowering passes give the same result in another order.
// RUN: axe-opt --lower-tma --lower-mma --lower-copy --lower-to-nvvm %examples/copy_epilogue.mlir -o %t.mlir
// RUN: axe-opt --lower-copy --lower-tma --lower-mma --lower-to-nvvm %examples/copy_epilogue.mlir -o %t.other.mlir
// RUN: axe-translate --emit=ptx --chip=sm_100a %t.mlir -o %t.ptx
// RUN: axe-translate --emit=ptx --chip=sm_100a %t.other.mlir -o %t.other.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: FileCheck %s < %t.other.ptx
// RUN: ptxas -arch=sm_100a %t.ptx -o %t.cubin
// RUN: ptxas -arch=sm_100a %t.other.ptx -o %t.other.cubin
// The output is deterministic.
// RUN: axe-opt --lower-tma --lower-mma --lower-copy --lower-to-nvvm %examples/copy_epilogue.mlir | diff %t.mlir -

// CHECK: .target sm_100a
// CHECK: tcgen05.mma.cta_group::1.kind::f16
// Thread r reads row r of the accumulator: 16 columns.
// CHECK: tcgen05.ld.sync.aligned.32x32b.x16.b32
// CHECK: tcgen05.wait::ld.sync.aligned;
// alpha times each of the 16 registers (sm_100a multiplies f32 pairs: 8 mul.rn.f32x2), then the cast rounds the
// 8 pairs to f16 (axe.cast truncates register pairs as vector<2xf32>: 8 cvt.rn.f16x2.f32, no scalar cvt).
// CHECK-COUNT-8: mul.rn.f32x2
// CHECK-COUNT-8: cvt.rn.f16x2.f32
// CHECK-NOT: {{mul.rn.f32x2|cvt.rn.f16x2.f32}}
// CHECK-NOT: cvt.rn.f16.f32
// Row r is 16 halves = 32 bytes at 32r: two 16-byte stores.
// CHECK: mul.wide.u32 [[OFF:%rd[0-9]+]], {{%r[0-9]+}}, 32;
// CHECK: add.s64 [[ROW:%rd[0-9]+]], {{%rd[0-9]+}}, [[OFF]];
// CHECK: st.global.v4.b32 [[[ROW]]],
// CHECK: st.global.v4.b32 [[[ROW]]+16],
// CHECK-NOT: st.local
// CHECK: tcgen05.dealloc
