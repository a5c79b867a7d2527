// Copies --lower-tma refuses: each error is at the copy and names the planner's stage or rule with the numbers.
// (Every barrier is initialized before use, so only the refusal under test fails; barrier-check-invalid.mlir
// has the barrier protocol's refusals.)
// RUN: axe-opt %s --split-input-file --lower-tma --verify-diagnostics
// A refusal fails the pass with exit code 1 and the error on stderr.
// RUN: not axe-opt %s --split-input-file --lower-tma -o %t.out 2>&1 | FileCheck %s --check-prefix=EXIT
// EXIT: error: tma: dynamic-offset rule

// A run-time row offset (a function argument: known multiple 1) over 64-row panels: a region moved by any number of
// rows straddles a panel boundary, which only per-chunk coordinates (a static plan) reach; the offset must move
// whole panels. (A static straddling region, rows 32..96, plans: lower-tma-general.mlir.)
!g = !axe.tensor<128x64xf16, global, S[(2,64,64):(8192,64,1)]>
!r = !axe.tensor<64x64xf16, global>
!s = !axe.tensor<64x64xf16, shared, Swizzle(3,3,3) o S[(64,64):(64,1)]>
func.func @region_moves_within_a_panel(%m: memref<16384xf16>, %row: index) {
  %g = axe.view %m : memref<16384xf16> -> !g
  %r = axe.slice %g[%row, 0] [64, 64] : !g to !r
  %s = axe.alloc cta : !s
  %bar = axe.mbarrier_alloc cta : !axe.mbarrier
  axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
  // expected-error @+1 {{tma: dynamic-offset rule: global dimension 0 moves by a run-time offset known to be a multiple of 1, but the layout's outermost digit of that dimension (extent 2, stride 8192) steps every 64 elements}}
  axe.copy_async cta %r to %s, %bar : !r to !s, !axe.mbarrier
  return
}

// -----

// A row pitch of 68 halves is 136 bytes: TMA global strides must be multiples of 16 bytes.
!g = !axe.tensor<128x68xf16, global, S[(128,68):(68,1)]>
!r = !axe.tensor<128x64xf16, global>
!s = !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
func.func @unaligned_global_stride(%m: memref<8704xf16>) {
  %g = axe.view %m : memref<8704xf16> -> !g
  %r = axe.slice %g[0, 0] [128, 64] : !g to !r
  %s = axe.alloc cta : !s
  %bar = axe.mbarrier_alloc cta : !axe.mbarrier
  axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
  // expected-error @+1 {{tma: global-stride rule: global stride of dimension 1 is 136 bytes, must be a multiple of 16}}
  axe.copy_async cta %r to %s, %bar : !r to !s, !axe.mbarrier
  return
}

// -----

// Shared rows of 4 f16 (8 bytes) 16 bytes apart: the contiguous run is not a whole 16-byte chunk, and a TMA box is
// written densely in rows of whole chunks (the atom is matched in memory order, one chunk S[8] unswizzled).
!g = !axe.tensor<64x4xf16, global, S[(64,4):(4,1)]>
!s = !axe.tensor<64x4xf16, shared, S[(64,4):(8,1)]>
func.func @shared_not_an_atom_tile(%m: memref<256xf16>) {
  %g = axe.view %m : memref<256xf16> -> !g
  %s = axe.alloc cta : !s
  %bar = axe.mbarrier_alloc cta : !axe.mbarrier
  axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
  // expected-error @+1 {{tma: shared-atom stage: the shared region S[(64,4):(8,1)] (in memory order S[(64,4):(8,1)] of extents [64,4]) is not a tile of the none atom S[(1,8):(8,1)] of shape [1,8] (a TMA box is written densely, its rows a multiple of 16 bytes)}}
  axe.copy_async cta %g to %s, %bar : !g to !s, !axe.mbarrier
  return
}

// -----

// Swizzle(2,3,3) works on 4-element chunks: not one of TMA's swizzles for 16-bit elements.
!g = !axe.tensor<128x64xf16, global, S[(128,64):(64,1)]>
!s = !axe.tensor<128x64xf16, shared, Swizzle(2,3,3) o S[(128,64):(64,1)]>
func.func @not_a_tma_swizzle(%m: memref<8192xf16>) {
  %g = axe.view %m : memref<8192xf16> -> !g
  %s = axe.alloc cta : !s
  %bar = axe.mbarrier_alloc cta : !axe.mbarrier
  axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
  // expected-error @+1 {{tma: shared-swizzle stage: Swizzle(2,3,3) is not a TMA swizzle for 16-bit elements}}
  axe.copy_async cta %g to %s, %bar : !g to !s, !axe.mbarrier
  return
}

// -----

// Six padded dimensions, none of which merge with its neighbour: TMA descriptors have at most 5.
!g = !axe.tensor<2x2x2x2x2x64xf16, global, S[(2,2,2,2,2,64):(32768,8192,2048,512,128,1)]>
!s = !axe.tensor<2x2x2x2x2x64xf16, shared, S[(2,2,2,2,2,64):(1024,512,256,128,64,1)]>
func.func @rank_above_five(%m: memref<65536xf16>) {
  %g = axe.view %m : memref<65536xf16> -> !g
  %s = axe.alloc cta : !s
  %bar = axe.mbarrier_alloc cta : !axe.mbarrier
  axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
  // expected-error @+1 {{tma: rank rule: tensor rank is 6, must be in 1..5}}
  axe.copy_async cta %g to %s, %bar : !g to !s, !axe.mbarrier
  return
}

// -----

// Columns 8..16 start 16 bytes into each shared row: TMA writes shared memory at 128-byte aligned addresses.
!g = !axe.tensor<16x64xf16, global, S[(16,64):(64,1)]>
!gr = !axe.tensor<16x8xf16, global>
!s = !axe.tensor<16x64xf16, shared, S[(16,64):(64,1)]>
!sr = !axe.tensor<16x8xf16, shared>
func.func @shared_destination_unaligned(%m: memref<1024xf16>) {
  %g = axe.view %m : memref<1024xf16> -> !g
  %gr = axe.slice %g[0, 8] [16, 8] : !g to !gr
  %s = axe.alloc cta : !s
  %sr = axe.slice %s[0, 8] [16, 8] : !s to !sr
  %bar = axe.mbarrier_alloc cta : !axe.mbarrier
  axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
  // expected-error @+1 {{tma: smem-alignment rule: issue 0 writes shared byte offset 16, must be a multiple of 128}}
  axe.copy_async cta %gr to %sr, %bar : !gr to !sr, !axe.mbarrier
  return
}

// -----

// A global layout offset of 4 halves puts the descriptor's base 8 bytes off the 16-byte alignment TMA needs.
!g = !axe.tensor<128x64xf16, global, S[(128,64):(64,1)] + 4>
!s = !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
func.func @global_base_unaligned(%m: memref<8196xf16>) {
  %g = axe.view %m : memref<8196xf16> -> !g
  %s = axe.alloc cta : !s
  %bar = axe.mbarrier_alloc cta : !axe.mbarrier
  axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
  // expected-error @+1 {{tma: global-address rule: global address offset is 8 bytes, must be a multiple of 16}}
  axe.copy_async cta %g to %s, %bar : !g to !s, !axe.mbarrier
  return
}

// -----

// Column-major global memory: the box's innermost dimension must be contiguous.
!g = !axe.tensor<128x64xf16, global, S[(128,64):(1,128)]>
!s = !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
func.func @global_not_contiguous(%m: memref<8192xf16>) {
  %g = axe.view %m : memref<8192xf16> -> !g
  %s = axe.alloc cta : !s
  %bar = axe.mbarrier_alloc cta : !axe.mbarrier
  axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
  // expected-error @+1 {{tma: inner-stride rule: the box's innermost dimension has global stride 128 elements}}
  axe.copy_async cta %g to %s, %bar : !g to !s, !axe.mbarrier
  return
}

// -----

// 4-bit integers: TMA's element types are 1, 2, 4 or 8 bytes.
!g = !axe.tensor<64x64xi4, global, S[(64,64):(64,1)]>
!s = !axe.tensor<64x64xi4, shared, S[(64,64):(64,1)]>
func.func @dtype_not_tma(%m: memref<4096xi4>) {
  %g = axe.view %m : memref<4096xi4> -> !g
  %s = axe.alloc cta : !s
  %bar = axe.mbarrier_alloc cta : !axe.mbarrier
  axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
  // expected-error @+1 {{tma: dtype: TMA copies 1, 2, 4 or 8-byte numbers, got i4}}
  axe.copy_async cta %g to %s, %bar : !g to !s, !axe.mbarrier
  return
}

// -----

// A run-time column offset into a matrix stored as 64-column panels must move whole panels: a loop stepping by 32
// could land mid-panel, where the box would straddle two panels.
!g = !axe.tensor<128x256xf16, global, S[(128,4,64):(64,8192,1)]>
!r = !axe.tensor<128x64xf16, global>
!s = !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
func.func @dynamic_offset_splits_a_panel(%m: memref<32768xf16>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c192 = arith.constant 192 : index
  %false = arith.constant false
  %true = arith.constant true
  %g = axe.view %m : memref<32768xf16> -> !g
  %s = axe.alloc cta : !s
  %bar = axe.mbarrier_alloc cta : !axe.mbarrier
  axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
  %last = scf.for %k = %c0 to %c192 step %c32 iter_args(%p = %false) -> (i1) {
    %r = axe.slice %g[0, %k] [128, 64] : !g to !r
    // expected-error @+1 {{tma: dynamic-offset rule: global dimension 1 moves by a run-time offset known to be a multiple of 32, but the layout's outermost digit of that dimension (extent 4, stride 8192) steps every 64 elements: the offset must be a multiple of 64 to move whole steps of one coordinate}}
    axe.copy_async cta %r to %s, %bar : !r to !s, !axe.mbarrier
    axe.mbarrier_wait cta %bar, %p : !axe.mbarrier
    %next = arith.xori %p, %true : i1
    scf.yield %next : i1
  }
  return
}

// -----

// A shared slice moving at run time must move whole stages on the swizzle period: row offsets of a 128B-swizzled
// [256, 64] f16 tile move 128 bytes per row, and the offset is only known to be a multiple of 1.
!g = !axe.tensor<128x64xf16, global, S[(128,64):(64,1)]>
!s = !axe.tensor<256x64xf16, shared, Swizzle(3,3,3) o S[(256,64):(64,1)]>
!sr = !axe.tensor<128x64xf16, shared>
func.func @dynamic_shared_offset(%m: memref<8192xf16>, %stage: index) {
  %g = axe.view %m : memref<8192xf16> -> !g
  %s = axe.alloc cta : !s
  %sr = axe.slice %s[%stage, 0] [128, 64] : !s to !sr
  %bar = axe.mbarrier_alloc cta : !axe.mbarrier
  axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
  // expected-error @+1 {{tma: shared-offset rule: shared dimension 0 moves by a run-time offset known to be a multiple of 1, 128 bytes per step of 1 elements: the boxes would move by multiples of 128 bytes, not of the 1024-byte period of the 128B swizzle (it acts on absolute addresses)}}
  axe.copy_async cta %g to %sr, %bar : !g to !sr, !axe.mbarrier
  return
}

// -----

// The descriptor is built on the host at the kernel's launches, so the global tensor must be a kernel argument.
!g = !axe.tensor<128x64xf16, global, S[(128,64):(64,1)]>
!s = !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
func.func @not_a_kernel_argument(%m: memref<8192xf16>) {
  %g = axe.view %m : memref<8192xf16> -> !g
  %s = axe.alloc cta : !s
  %bar = axe.mbarrier_alloc cta : !axe.mbarrier
  axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
  // expected-error @+1 {{tma: global tensor must be a view of a gpu.func kernel argument}}
  axe.copy_async cta %g to %s, %bar : !g to !s, !axe.mbarrier
  return
}

// -----

// Two copies on one kernel argument with different boxes would need two descriptors in one argument.
!gm = memref<128x64xf16>
!g = !axe.tensor<128x64xf16, global, S[(128,64):(64,1)]>
!gr = !axe.tensor<64x64xf16, global>
!s = !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
!h = !axe.tensor<64x64xf16, shared, Swizzle(3,3,3) o S[(64,64):(64,1)]>
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @two_boxes(%m: !gm) kernel {
      %g = axe.view %m : !gm -> !g
      %gr = axe.slice %g[64, 0] [64, 64] : !g to !gr
      %s = axe.alloc cta : !s
      %h = axe.alloc cta : !h
      %bar = axe.mbarrier_alloc cta : !axe.mbarrier
      axe.mbarrier_init cta %bar count 2 : !axe.mbarrier
      axe.copy_async cta %g to %s, %bar : !g to !s, !axe.mbarrier
      // expected-error @+1 {{tma: kernel argument 0 needs one descriptor, but its copies plan box [64, 128] and box [64, 64]}}
      axe.copy_async cta %gr to %h, %bar : !gr to !h, !axe.mbarrier
      gpu.return
    }
  }
}

// -----

// The load's barrier must be one the pass lowers too (an axe.mbarrier_alloc), not an opaque argument.
!g = !axe.tensor<128x64xf16, global, S[(128,64):(64,1)]>
!s = !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
func.func @barrier_from_argument(%m: memref<8192xf16>, %bar: !axe.mbarrier) {
  %g = axe.view %m : memref<8192xf16> -> !g
  %s = axe.alloc cta : !s
  // expected-error @+1 {{tma: the completion barrier must come from axe.mbarrier_alloc}}
  axe.copy_async cta %g to %s, %bar : !g to !s, !axe.mbarrier
  return
}

// -----

// The same holds for the barrier ops themselves.
func.func @wait_on_argument(%bar: !axe.mbarrier) {
  %phase = arith.constant false
  // expected-error @+1 {{tma: the barrier of axe.mbarrier_wait must come from axe.mbarrier_alloc}}
  axe.mbarrier_wait cta %bar, %phase : !axe.mbarrier
  return
}

// -----

// The argument becomes a descriptor pointer: any other use of the memref is reported where it is.
!g = memref<128x64xf16>
!gt = !axe.tensor<128x64xf16, global, S[(128,64):(64,1)]>
!s = !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
gpu.module @k {
  gpu.func @argument_used_elsewhere(%g: !g) kernel {
    %t = axe.view %g : !g -> !gt
    %s = axe.alloc cta : !s
    %bar = axe.mbarrier_alloc cta : !axe.mbarrier
    axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
    axe.copy_async cta %t to %s, %bar : !gt to !s, !axe.mbarrier
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{tma: kernel argument 0 becomes a TMA descriptor but has other uses}}
    %v = memref.load %g[%c0, %c0] : !g
    gpu.return
  }
}
