// The wgmma example (TMA loads, then a warpgroup GEMM) goes all the way to PTX that ptxas accepts for sm_90a.
// RUN: axe-opt --lower-tma --lower-mma --lower-to-nvvm %examples/mma_wgmma.mlir -o %t.mlir
// The output is deterministic: a second run gives the same bytes.
// RUN: axe-opt --lower-tma --lower-mma --lower-to-nvvm %examples/mma_wgmma.mlir | diff %t.mlir -
// RUN: FileCheck %s --check-prefix=LOWERED < %t.mlir
// RUN: axe-translate --emit=ptx --chip=sm_90a %t.mlir -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin
// The TMA loads need sm_90: on sm_80 LLVM refuses their intrinsics (exit 1, no crash).
// RUN: not axe-translate --emit=ptx --chip=sm_80 %t.mlir 2>&1 | FileCheck %s --check-prefix=SM80

// LOWERED: gpu.module @kernels
// No axe op is left (custom form, or generic if it were printed so); axe.* attributes may stay.
// LOWERED-NOT: {{^ *(%[^ ]+ = )?"?axe\.[a-z_]+}}
// LOWERED: llvm.func @mma_wgmma

// Both shared tiles are 128B-swizzled: the planner asks for 1024-byte bases.
// PTX: .shared .align 1024 .b8 __axe_smem_{{[01]}}[
// PTX: .shared .align 1024 .b8 __axe_smem_{{[01]}}[
// The four K steps of m64n16k16 accumulate into the same 8 registers, then one commit and one wait. Each
// descriptor is the planner's constant OR the encoded base (LLVM turns the add into an or: the base's bits are
// below bit 14): 0x4000004000010000 = 4611686293305360384 (128B swizzle at bit 62, SBO 1024 >> 4 = 64 at bit
// 32, LBO 16 >> 4 = 1 at bit 16), start field +2, +4, +6 for K = 16, 32, 48 (32 bytes per step).
// PTX: wgmma.fence.sync.aligned;
// PTX: or.b64 [[DA0:%rd[0-9]+]], {{%rd[0-9]+}}, 4611686293305360384;
// PTX: or.b64 [[DB0:%rd[0-9]+]], {{%rd[0-9]+}}, 4611686293305360384;
// PTX: wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {[[ACC:%r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+]]}, [[DA0]], [[DB0]], p, 1, 1, 0, 0;
// PTX: or.b64 [[DA1:%rd[0-9]+]], {{%rd[0-9]+}}, 4611686293305360386;
// PTX: wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {[[ACC]]}, [[DA1]],
// PTX: or.b64 [[DA2:%rd[0-9]+]], {{%rd[0-9]+}}, 4611686293305360388;
// PTX: wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {[[ACC]]}, [[DA2]],
// PTX: or.b64 [[DA3:%rd[0-9]+]], {{%rd[0-9]+}}, 4611686293305360390;
// PTX: wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {[[ACC]]}, [[DA3]],
// PTX-NOT: wgmma.mma_async
// PTX: wgmma.commit_group.sync.aligned;
// PTX-NEXT: wgmma.wait_group.sync.aligned 0;
// PTX-COUNT-8: st.global.b32

// SM80: axe-translate: error: LLVM:
