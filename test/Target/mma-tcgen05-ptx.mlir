// The tcgen05 example (TMA loads, a tensor-memory GEMM, the accumulator read back) goes all the way to PTX that
// ptxas accepts for sm_100a.
// RUN: axe-opt --lower-tma --lower-mma --lower-to-nvvm %examples/mma_tcgen05.mlir -o %t.mlir
// The output is deterministic: a second run gives the same bytes.
// RUN: axe-opt --lower-tma --lower-mma --lower-to-nvvm %examples/mma_tcgen05.mlir | diff %t.mlir -
// RUN: FileCheck %s --check-prefix=LOWERED < %t.mlir
// RUN: axe-translate --emit=ptx --chip=sm_100a %t.mlir -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: ptxas -arch=sm_100a %t.ptx -o %t.cubin
// tcgen05 is sm_100a only: LLVM refuses its intrinsics for sm_90a (exit 1, no crash).
// RUN: not axe-translate --emit=ptx --chip=sm_90a %t.mlir 2>&1 | FileCheck %s --check-prefix=SM90A

// LOWERED: gpu.module @kernels
// LOWERED-NOT: "axe.
// LOWERED: llvm.func @mma_tcgen05

// PTX: .target sm_100a
// Warp 0 allocates 64 columns (48 used: column 32 + 16) into the shared slot, then gives up the permit.
// PTX: mov.b32 [[COLS:%r[0-9]+]], 64;
// PTX: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [[[SLOT:__axe_mma_smem_[0-9]+]]], [[COLS]];
// PTX-NEXT: tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
// PTX: tcgen05.fence::before_thread_sync;
// PTX-NEXT: bar.sync 0;
// PTX-NEXT: tcgen05.fence::after_thread_sync;
// PTX-NEXT: ld.shared.b32 [[TMEM:%r[0-9]+]], [[[SLOT]]];
// One instruction: D at column 32, descriptors 0xc000401000010000 (= -4611615580963667968 as s64) OR the
// encoded bases, idesc 0x08040010 = 134479888, enable-input-d false (the accumulator was zero-filled).
// PTX: add.s32 [[D:%r[0-9]+]], [[TMEM]], 32;
// PTX: or.b64 [[DA:%rd[0-9]+]], {{%rd[0-9]+}}, -4611615580963667968;
// PTX: or.b64 [[DB:%rd[0-9]+]], {{%rd[0-9]+}}, -4611615580963667968;
// PTX: mov.pred [[EN:%p[0-9]+]], 0;
// PTX: mov.b32 [[IDESC:%r[0-9]+]], 134479888;
// PTX: tcgen05.mma.cta_group::1.kind::f16.collector::a::discard [[[D]]], [[DA]], [[DB]], [[IDESC]], [[EN]];
// PTX-NEXT: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [[[BAR:__axe_mma_smem_[0-9]+]]];
// PTX-NOT: tcgen05.mma
// PTX: mbarrier.try_wait.parity.shared.b64
// PTX: tcgen05.fence::after_thread_sync;
// Warp w reads lanes 32w.. (lane in bits 16 and up), column 32: thread r gets row r in 16 registers.
// PTX: tcgen05.ld.sync.aligned.32x32b.x16.b32
// PTX: tcgen05.wait::ld.sync.aligned;
// PTX-COUNT-16: st.global.b32
// Before the exit: fence, sync, warp 0 frees the 64 columns.
// PTX: tcgen05.fence::before_thread_sync;
// PTX-NEXT: bar.sync 0;
// PTX: tcgen05.dealloc.cta_group::1.sync.aligned.b32 [[TMEM]], {{%r[0-9]+}};

// SM90A: axe-translate: error: LLVM:
