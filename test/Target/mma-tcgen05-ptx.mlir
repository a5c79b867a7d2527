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
// No axe op is left (custom form, or generic if it were printed so); axe.* attributes may stay.
// LOWERED-NOT: {{^ *(%[^ ]+ = )?"?axe\.[a-z_]+}}
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

// -----------------------------------------------------------------------------------------------------------------
// Operand A in tensor memory (tcgen05.mma [d-tmem], [a-tmem], b-desc, idesc, enable-input-d), this file's kernels.
// A's layout counts element slots on TCol (an f16 A packs 2 to a 32-bit column, fp8 4), D's f16 accumulator is
// unpacked (TCol stride 2). A's address is its allocation + (lane << 16 | column).
// RUN: axe-opt --lower-mma --lower-to-nvvm %s | axe-translate --emit=ptx --chip=sm_100a -o %t.a.ptx
// RUN: FileCheck %s --check-prefix=ATMEM < %t.a.ptx
// RUN: ptxas -arch=sm_100a %t.a.ptx -o %t.a.cubin

// a_tmem: A [128,32] f16 from slot 64 (column 32) in its own allocation (48 columns used: 64 allocated), C f32
// [128,64] at column 32 of another (96 used: 128). Two k16 steps: A at columns 32 and 40 (16 halves = 8 columns
// each). idesc 0x08100010 = 135266320 (f32 D, f16 A/B, no transposes, N>>3 = 8, M>>4 = 8).
// ATMEM-LABEL: .visible .entry a_tmem(
// ATMEM: mov.b32 [[COLSA:%r[0-9]+]], 64;
// ATMEM: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [[[SLOTA:__axe_mma_smem_[0-9]+]]], [[COLSA]];
// ATMEM: ld.shared.b32 [[TA:%r[0-9]+]], [[[SLOTA]]];
// ATMEM: mov.b32 [[COLSC:%r[0-9]+]], 128;
// ATMEM: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [[[SLOTC:__axe_mma_smem_[0-9]+]]], [[COLSC]];
// ATMEM: ld.shared.b32 [[TC:%r[0-9]+]], [[[SLOTC]]];
// ATMEM-DAG: add.s32 [[D:%r[0-9]+]], [[TC]], 32;
// ATMEM-DAG: add.s32 [[A0:%r[0-9]+]], [[TA]], 32;
// ATMEM-DAG: mov.b32 [[IDESC:%r[0-9]+]], 135266320;
// ATMEM: tcgen05.mma.cta_group::1.kind::f16.collector::a::discard [[[D]]], [[[A0]]], {{%rd[0-9]+}}, [[IDESC]], {{%p[0-9]+}};
// ATMEM: add.s32 [[A1:%r[0-9]+]], [[TA]], 40;
// ATMEM: tcgen05.mma.cta_group::1.kind::f16.collector::a::discard [[[D]]], [[[A1]]], {{%rd[0-9]+}}, [[IDESC]], {{%p[0-9]+}};
// ATMEM-NOT: tcgen05.mma
// ATMEM: tcgen05.commit
// ATMEM-DAG: tcgen05.dealloc.cta_group::1.sync.aligned.b32 [[TA]],
// ATMEM-DAG: tcgen05.dealloc.cta_group::1.sync.aligned.b32 [[TC]],

// a_tmem_fp8: e4m3 A (4 to a column: K=32 is 8 columns) at column 0 of its allocation, kind::f8f6f4; the idesc
// equals the f16 one for N=16 (e4m3 is format 0): 0x08040010 = 134479888.
// ATMEM-LABEL: .visible .entry a_tmem_fp8(
// ATMEM: mov.b32 [[IDESC8:%r[0-9]+]], 134479888;
// ATMEM: tcgen05.mma.cta_group::1.kind::f8f6f4.collector::a::discard [{{%r[0-9]+}}], [{{%r[0-9]+}}], {{%rd[0-9]+}}, [[IDESC8]], {{%p[0-9]+}};

// one_alloc: A and an f16 C are views of one f16 allocation (256 slots = 128 columns): C in columns 0..64
// (unpacked, stride 2), A from slot 192 = column 96: one tcgen05.alloc, A at its base + 96, D at its base.
// idesc: f16 D (0 at bit 4), N>>3 = 8, M>>4 = 8: 0x08100000 = 135266304.
// ATMEM-LABEL: .visible .entry one_alloc(
// ATMEM: mov.b32 [[COLS1:%r[0-9]+]], 128;
// ATMEM: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [[[SLOT1:__axe_mma_smem_[0-9]+]]], [[COLS1]];
// ATMEM: ld.shared.b32 [[T1:%r[0-9]+]], [[[SLOT1]]];
// ATMEM-DAG: add.s32 [[A96:%r[0-9]+]], [[T1]], 96;
// ATMEM-DAG: mov.b32 [[IDESC16:%r[0-9]+]], 135266304;
// ATMEM: tcgen05.mma.cta_group::1.kind::f16.collector::a::discard [[[T1]]], [[[A96]]], {{%rd[0-9]+}}, [[IDESC16]], {{%p[0-9]+}};
// ATMEM-NOT: tcgen05.alloc
// ATMEM: tcgen05.dealloc.cta_group::1.sync.aligned.b32 [[T1]],

!b = !axe.tensor<32x64xf16, shared, Swizzle(3,1,3) o S[(2,16,64):(1024,1,16)]>
!a = !axe.tensor<128x32xf16, tmem, S[(128,32):(1@TLane,1@TCol)] + 64@TCol>
!c = !axe.tensor<128x64xf32, tmem, S[(128,64):(1@TLane,1@TCol)] + 32@TCol>
!a8 = !axe.tensor<128x32xf8E4M3FN, tmem, S[(128,32):(1@TLane,1@TCol)]>
!b8 = !axe.tensor<32x16xf8E4M3FN, shared, Swizzle(4,1,3) o S[(32,16):(1,32)]>
!c8 = !axe.tensor<128x16xf32, tmem, S[(128,16):(1@TLane,1@TCol)]>
!all = !axe.tensor<128x256xf16, tmem, S[(128,256):(1@TLane,1@TCol)]>
!ah = !axe.tensor<128x16xf16, tmem, S[(128,16):(1@TLane,1@TCol)] + 192@TCol>
!bh = !axe.tensor<16x64xf16, shared, Swizzle(3,1,3) o S[(16,64):(1,16)]>
!ch = !axe.tensor<128x64xf16, tmem, S[(128,64):(1@TLane,2@TCol)]>
module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_100a"} {
    gpu.func @a_tmem() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %a = axe.alloc cta : !a
      %b = axe.alloc cta : !b
      %c = axe.alloc cta : !c
      axe.gemm cta %a, %b, %c : !a, !b, !c
      gpu.return
    }
    gpu.func @a_tmem_fp8() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %a = axe.alloc cta : !a8
      %b = axe.alloc cta : !b8
      %c = axe.alloc cta : !c8
      axe.gemm cta %a, %b, %c : !a8, !b8, !c8
      gpu.return
    }
    gpu.func @one_alloc() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %t = axe.alloc cta : !all
      %a = axe.view %t : !all -> !ah
      %c = axe.view %t : !all -> !ch
      %b = axe.alloc cta : !bh
      axe.gemm cta %a, %b, %c : !ah, !bh, !ch
      gpu.return
    }
  }
}
