// Copies --lower-copy refuses: each error is at the copy and names the rule (the planner's `copy: <rule> rule:`,
// or the pass's own `copy: <what>:`) with the numbers; the pass fails before changing anything.
// RUN: axe-opt %s --split-input-file --lower-copy --verify-diagnostics
// A refusal fails the pass with exit code 1 and the error on stderr.
// RUN: not axe-opt %s --split-input-file --lower-copy -o %t.out 2>&1 | FileCheck %s --check-prefix=EXIT
// EXIT: error: copy: target: no chip for axe.copy

// The chip decides the instructions: a module without axe.target cannot be planned.
!g = !axe.tensor<32x8xf16, global, S[(32,8):(8,1)]>
!r = !axe.tensor<32x8xf16, reg, S[(32,8):(1@laneid,1)]>
func.func @no_target(%m: memref<256xf16>) {
  %g = axe.view %m : memref<256xf16> -> !g
  %r = axe.alloc warp : !r
  // expected-error @+1 {{copy: target: no chip for axe.copy: put axe.target = "sm_80" (or sm_90a, sm_100a) on the gpu.module or the module}}
  axe.copy warp %g to %r : !g to !r
  return
}

// -----

// An unknown chip is not guessed at.
!g = !axe.tensor<32x8xf16, global, S[(32,8):(8,1)]>
!r = !axe.tensor<32x8xf16, reg, S[(32,8):(1@laneid,1)]>
module attributes {axe.target = "sm_75"} {
  func.func @unknown_chip(%m: memref<256xf16>) {
    %g = axe.view %m : memref<256xf16> -> !g
    %r = axe.alloc warp : !r
    // expected-error @+1 {{copy: target: unknown chip "sm_75", expected "sm_80", "sm_90", "sm_90a" or "sm_100a"}}
    axe.copy warp %g to %r : !g to !r
    return
  }
}

// -----

// A warp-scope copy_async is not TMA's (one thread issues TMA for a CTA), and cp.async completes through commit
// and wait groups, not on the op's mbarrier.
!g = !axe.tensor<32x8xf16, global, S[(32,8):(8,1)]>
!s = !axe.tensor<32x8xf16, shared, S[(32,8):(8,1)]>
module attributes {axe.target = "sm_90a"} {
  func.func @async_at_warp_scope(%m: memref<256xf16>) {
    %g = axe.view %m : memref<256xf16> -> !g
    %s = axe.alloc cta : !s
    %bar = axe.mbarrier_alloc cta : !axe.mbarrier
    // expected-error @+1 {{copy: async: this axe.copy_async is not a TMA copy (see --lower-tma), and cp.async completes through commit and wait groups, not on the mbarrier the op names: use axe.copy}}
    axe.copy_async warp %g to %s, %bar : !g to !s, !axe.mbarrier
    return
  }
}

// -----

// On sm_80 there is no TMA: a CTA copy_async is --lower-copy's, and refused for the same reason.
!g = !axe.tensor<32x8xf16, global, S[(32,8):(8,1)]>
!s = !axe.tensor<32x8xf16, shared, S[(32,8):(8,1)]>
module attributes {axe.target = "sm_80"} {
  func.func @async_without_tma(%m: memref<256xf16>) {
    %g = axe.view %m : memref<256xf16> -> !g
    %s = axe.alloc cta : !s
    %bar = axe.mbarrier_alloc cta : !axe.mbarrier
    // expected-error @+1 {{copy: async: this axe.copy_async is not a TMA copy}}
    axe.copy_async cta %g to %s, %bar : !g to !s, !axe.mbarrier
    return
  }
}

// -----

// Threads are told apart by thread_id x: a two-dimensional block is refused.
!g = !axe.tensor<32x8xf16, global, S[(32,8):(8,1)]>
!r = !axe.tensor<32x8xf16, reg, S[(32,8):(1@laneid,1)]>
module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_80"} {
    gpu.func @two_dimensional_block(%m: memref<256xf16>) kernel attributes {known_block_size = array<i32: 32, 4, 1>} {
      %g = axe.view %m : memref<256xf16> -> !g
      %r = axe.alloc warp : !r
      // expected-error @+1 {{copy: threads: the kernel's block is 32x4x1; copies are lowered for one-dimensional blocks (threads told apart by thread_id x)}}
      axe.copy warp %g to %r : !g to !r
      gpu.return
    }
  }
}

// -----

// A register tensor that is a function argument has no storage the pass can index.
!g = !axe.tensor<32x8xf16, global, S[(32,8):(8,1)]>
!r = !axe.tensor<32x8xf16, reg, S[(32,8):(1@laneid,1)]>
module attributes {axe.target = "sm_80"} {
  func.func @argument_registers(%m: memref<256xf16>, %r: !r) {
    %g = axe.view %m : memref<256xf16> -> !g
    // expected-error @+1 {{copy: storage: operand dest must be an axe.alloc or a view or slice of one, or of a memref}}
    axe.copy warp %g to %r : !g to !r
    return
  }
}

// -----

// A shared memref the pass cannot align (a function argument, not a memref.global).
!s = !axe.tensor<32x8xf16, shared, S[(32,8):(8,1)]>
!r = !axe.tensor<32x8xf16, reg, S[(32,8):(1@laneid,1)]>
module attributes {axe.target = "sm_80"} {
  func.func @shared_argument(%w: memref<256xf16, #gpu.address_space<workgroup>>) {
    %s = axe.view %w : memref<256xf16, #gpu.address_space<workgroup>> -> !s
    %r = axe.alloc warp : !r
    // expected-error @+1 {{copy: storage: the workgroup memref under the source must come from memref.get_global, so that its alignment can be raised to the plan's}}
    axe.copy warp %s to %r : !s to !r
    return
  }
}

// -----

// A global memref with an offset or strides: its aligned pointer is not the tensor's base.
!g = !axe.tensor<32x8xf16, global, S[(32,8):(8,1)]>
!r = !axe.tensor<32x8xf16, reg, S[(32,8):(1@laneid,1)]>
module attributes {axe.target = "sm_80"} {
  func.func @strided_global(%m: memref<256xf16, strided<[1], offset: 8>>) {
    %g = axe.view %m : memref<256xf16, strided<[1], offset: 8>> -> !g
    %r = axe.alloc warp : !r
    // expected-error @+1 {{copy: storage: the global memref under the source must have the identity layout (its base is the tensor's), got memref<256xf16, strided<[1], offset: 8>>}}
    axe.copy warp %g to %r : !g to !r
    return
  }
}

// -----

// Tensor memory is allocated where its alloc is and freed before every return: the alloc must be at the top of
// the kernel.
!t = !axe.tensor<128x8xf32, tmem, S[(128,8):(1@TLane,1@TCol)]>
!r = !axe.tensor<128x8xf32, reg, S[(4,32,8):(1@warpid,1@laneid,1)]>
module attributes {axe.target = "sm_100a"} {
  func.func @tmem_alloc_in_a_branch(%c: i1) {
    %r = axe.alloc cta : !r
    scf.if %c {
      %t = axe.alloc cta : !t
      // expected-error @+1 {{copy: storage: the tensor-memory axe.alloc must be in its kernel's entry block (it is allocated there and freed before every return)}}
      axe.copy cta %r to %t : !r to !t
    }
    return
  }
}

// -----

// 4-bit integers have no byte-addressed loads.
!g = !axe.tensor<32x8xi4, global, S[(32,8):(8,1)]>
!r = !axe.tensor<32x8xi4, reg, S[(32,8):(1@laneid,1)]>
module attributes {axe.target = "sm_80"} {
  func.func @four_bit(%m: memref<256xi4>) {
    %g = axe.view %m : memref<256xi4> -> !g
    %r = axe.alloc warp : !r
    // expected-error @+1 {{copy: dtype: copies move 1, 2, 4 or 8-byte numbers, got i4}}
    axe.copy warp %g to %r : !g to !r
    return
  }
}

// -----

// A slice of a slice whose layout --axe-slice has not computed yet (a deferred slice the copy uses directly is
// sliced by the pass; one under another slice is not).
!g = !axe.tensor<64x8xf16, global, S[(64,8):(8,1)]>
!gs = !axe.tensor<32x8xf16, global>
!gt = !axe.tensor<16x8xf16, global>
!r = !axe.tensor<16x8xf16, reg, S[(16,8):(1@laneid,1)]>
module attributes {axe.target = "sm_80"} {
  func.func @deferred_slice(%m: memref<512xf16>, %i: index) {
    %g = axe.view %m : memref<512xf16> -> !g
    %s = axe.slice %g[32, 0] [32, 8] : !g to !gs
    %t = axe.slice %s[%i, 0] [16, 8] : !gs to !gt
    %r = axe.alloc warp : !r
    // expected-error @+1 {{copy: operand source has a deferred layout: run --axe-slice first}}
    axe.copy warp %t to %r : !gt to !r
    return
  }
}

// -----

// dynamic-offset: a K step of 4 halves (8 bytes) would misalign the 16-byte cp.async vectors the static tile
// allows.
!g = !axe.tensor<64x256xf16, global, S[(64,256):(256,1)]>
!gt = !axe.tensor<64x64xf16, global>
!s = !axe.tensor<64x64xf16, shared, Swizzle(3,3,3) o S[(64,64):(64,1)]>
module attributes {axe.target = "sm_80"} {
  gpu.module @k {
    gpu.func @k_step(%m: memref<16384xf16>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %c192 = arith.constant 192 : index
      %g = axe.view %m : memref<16384xf16> -> !g
      %s = axe.alloc cta : !s
      scf.for %k = %c0 to %c192 step %c4 {
        %t = axe.slice %g[0, %k] [64, 64] : !g to !gt
        // expected-error @+1 {{copy: dynamic-offset rule: offset 0 moves the source along dimension 1 by a multiple of 4 elements (8 bytes: a known multiple of 4 over 1 times stride 1), which breaks the alignment of its 16-byte vectors (16 bytes)}}
        axe.copy_async cta %t to %s : !gt to !s
      }
      gpu.return
    }
  }
}

// -----

// dynamic-offset: stages of 4 rows of a 128B-swizzled ring move by 256 elements, half the swizzle's period, so
// the swizzled row addresses of ldmatrix would change with the stage.
!ring = !axe.tensor<64x64xf16, shared, Swizzle(3,3,3) o S[(64,64):(64,1)]>
!st = !axe.tensor<16x16xf16, shared>
!r = !axe.tensor<16x16xf16, reg, S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)]>
module attributes {axe.target = "sm_80"} {
  func.func @off_period(%i: index) {
    %c4 = arith.constant 4 : index
    %ring = axe.alloc cta : !ring
    %row = arith.muli %i, %c4 : index
    %s = axe.slice %ring[%row, 0] [16, 16] : !ring to !st
    %r = axe.alloc warp : !r
    // expected-error @+1 {{copy: dynamic-offset rule: offset 0 moves the source along dimension 0 by a multiple of 256 elements, not of the 512-element period of its swizzle Swizzle(3,3,3): the swizzled addresses would change}}
    axe.copy warp %s to %r : !st to !r
    return
  }
}

// -----

// async: a copy_async without a barrier is a cp.async group, which moves global to shared only.
!s = !axe.tensor<32x8xf16, shared, S[(32,8):(8,1)]>
!g = !axe.tensor<32x8xf16, global, S[(32,8):(8,1)]>
module attributes {axe.target = "sm_80"} {
  func.func @group_store(%m: memref<256xf16>) {
    %g = axe.view %m : memref<256xf16> -> !g
    %s = axe.alloc cta : !s
    // expected-error @+1 {{copy: async: an axe.copy_async without a barrier is a cp.async group, global to shared}}
    axe.copy_async warp %s to %g : !s to !g
    return
  }
}

// -----

// Several refusals are all reported, and nothing is lowered: the cast below stays.
!g = !axe.tensor<32x8xf16, global, S[(32,8):(8,1)]>
!r = !axe.tensor<32x8xf16, reg, S[(32,8):(1@laneid,1)]>
!f = !axe.tensor<32x8xf32, reg, S[(32,8):(1@laneid,1)]>
func.func @several(%m: memref<256xf16>, %n: memref<256xf16>) {
  %g = axe.view %m : memref<256xf16> -> !g
  %h = axe.view %n : memref<256xf16> -> !g
  %r = axe.alloc warp : !r
  %f = axe.alloc warp : !f
  // expected-error @+1 {{copy: target: no chip for axe.copy}}
  axe.copy warp %g to %r : !g to !r
  axe.cast warp %r to %f : !r to !f
  // expected-error @+1 {{copy: target: no chip for axe.copy}}
  axe.copy warp %r to %h : !r to !g
  return
}

// -----

// The planner's refusals name its rule. Shared to global without TMA: no instruction.
!s = !axe.tensor<32x8xf16, shared, S[(32,8):(8,1)]>
!g = !axe.tensor<32x8xf16, global, S[(32,8):(8,1)]>
module attributes {axe.target = "sm_80"} {
  func.func @route(%m: memref<256xf16>) {
    %g = axe.view %m : memref<256xf16> -> !g
    %s = axe.alloc cta : !s
    // expected-error @+1 {{copy: route rule: no instruction copies shared to global}}
    axe.copy warp %s to %g : !s to !g
    return
  }
}

// -----

// cp.async moves at least 4 bytes: a column-major source into row-major shared memory has 2-byte runs. No
// scalar loop is substituted.
!gc = !axe.tensor<32x8xf16, global, S[(32,8):(1,32)]>
!s = !axe.tensor<32x8xf16, shared, S[(32,8):(8,1)]>
module attributes {axe.target = "sm_80"} {
  func.func @vector(%m: memref<256xf16>) {
    %g = axe.view %m : memref<256xf16> -> !gc
    %s = axe.alloc cta : !s
    // expected-error @+1 {{copy: vector rule: cp.async moves 4, 8 or 16 bytes per thread, but the widest run that is contiguous and aligned in both global and shared memory is 2 bytes}}
    axe.copy warp %g to %s : !gc to !s
    return
  }
}

// -----

// A warp reaches only its own 32 tensor-memory lanes: here warp 1 holds rows that live in lanes 64..95.
!t = !axe.tensor<128x8xf32, tmem, S[(2,2,32,8):(32@TLane,64@TLane,1@TLane,1@TCol)]>
!r = !axe.tensor<128x8xf32, reg, S[(4,32,8):(1@warpid,1@laneid,1)]>
module attributes {axe.target = "sm_100a"} {
  func.func @tmem_lanes() {
    %t = axe.alloc cta : !t
    %r = axe.alloc cta : !r
    // expected-error @+1 {{copy: tmem-lanes rule: element 256 is in lane 64 and thread 32 (warp 1) holds it, but warp 1 reaches only lanes 32..64}}
    axe.copy cta %r to %t : !r to !t
    return
  }
}

// -----

// At warp scope the warp's index, and so its tensor-memory lanes, is unknown.
!t = !axe.tensor<32x8xf32, tmem, S[(32,8):(1@TLane,1@TCol)] + 32@TLane>
!r = !axe.tensor<32x8xf32, reg, S[(32,8):(1@laneid,1)]>
module attributes {axe.target = "sm_100a"} {
  func.func @tmem_at_warp_scope() {
    %t = axe.alloc cta : !t
    %r = axe.alloc warp : !r
    // expected-error @+1 {{copy: scope rule: a warp reaches the tensor-memory lanes 32*(warp%4)..+32 of its own warp index, which a warp scope does not know: copy at warpgroup or cta scope}}
    axe.copy warp %r to %t : !r to !t
    return
  }
}

// -----

// tcgen05 is sm_100a only.
!t = !axe.tensor<128x8xf32, tmem, S[(128,8):(1@TLane,1@TCol)]>
!r = !axe.tensor<128x8xf32, reg, S[(4,32,8):(1@warpid,1@laneid,1)]>
module attributes {axe.target = "sm_90a"} {
  func.func @chip() {
    %t = axe.alloc cta : !t
    %r = axe.alloc cta : !r
    // expected-error @+1 {{copy: chip rule: tcgen05.ld/st (tensor memory) needs sm_100a, got sm_90a}}
    axe.copy cta %r to %t : !r to !t
    return
  }
}

// -----

// Tensor memory holds 32-bit cells.
!t = !axe.tensor<128x8xf16, tmem, S[(128,8):(1@TLane,1@TCol)]>
!r = !axe.tensor<128x8xf16, reg, S[(4,32,8):(1@warpid,1@laneid,1)]>
module attributes {axe.target = "sm_100a"} {
  func.func @tmem_dtype() {
    %t = axe.alloc cta : !t
    %r = axe.alloc cta : !r
    // expected-error @+1 {{copy: dtype rule: tcgen05.ld/st moves 32-bit cells; f16 is 2 bytes}}
    axe.copy cta %r to %t : !r to !t
    return
  }
}

// -----

// A thread subset must hold every element it copies.
!g = !axe.tensor<64x8xf32, global, S[(64,8):(8,1)]>
!r = !axe.tensor<64x8xf32, reg, S[(2,32,8):(1@warpid,1@laneid,1)]>
module attributes {axe.target = "sm_80"} {
  func.func @subset(%m: memref<512xf32>) {
    %g = axe.view %m : memref<512xf32> -> !g
    %r = axe.alloc cta : !r
    // expected-error @+1 {{copy: scope rule: destination: element 256 is held by thread 32, outside the thread subset (units 0..1 of 32 threads each)}}
    axe.copy cta(warpid[0:1]) %g to %r : !g to !r
    return
  }
}

// -----

// A CTA-scope cp.async spreads its work over the CTA's threads: without known_block_size (or a subset) their
// number is unknown.
!g = !axe.tensor<32x8xf32, global, S[(32,8):(8,1)]>
!s = !axe.tensor<32x8xf32, shared, S[(32,8):(8,1)]>
module attributes {axe.target = "sm_80"} {
  func.func @cta_threads_unknown(%m: memref<256xf32>) {
    %g = axe.view %m : memref<256xf32> -> !g
    %s = axe.alloc cta : !s
    // expected-error @+1 {{copy: scope rule: a CTA-scope cp.async spreads its work over the CTA's threads: give the CTA's thread count or a thread subset}}
    axe.copy cta %g to %s : !g to !s
    return
  }
}

// -----

// A register layout whose lanes run past the warp (moved here from lower-mma-invalid: this read-back is not
// --lower-mma's tcgen05.ld.32x32b pattern, so it is --lower-copy's).
!t = !axe.tensor<128x8xf32, tmem, S[(128,8):(1@TLane,1@TCol)]>
!r = !axe.tensor<128x8xf32, reg, S[(4,32,8):(1@warpid,1,32@laneid)]>
module attributes {axe.target = "sm_100a"} {
  func.func @lanes_past_the_warp() {
    %t = axe.alloc cta : !t
    %r = axe.alloc cta : !r
    // expected-error @+1 {{copy: scope rule: destination: element 1 is on laneid = 32, outside its 0..32 values}}
    axe.copy cta %t to %r : !t to !r
    return
  }
}

// -----

// dynamic-offset: a run-time row stride known only to be even (K a multiple of 2) would misalign the 16-byte
// cp.async vectors of the tile's rows.
!g = !axe.tensor<?x?xf16, global, row_major>
!gt = !axe.tensor<64x64xf16, global>
!s = !axe.tensor<64x64xf16, shared, Swizzle(3,3,3) o S[(64,64):(64,1)]>
module attributes {axe.target = "sm_80"} {
  gpu.module @k {
    gpu.func @odd_stride(%p: !llvm.ptr<1>, %m: i32, %k: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %g = axe.view %p(%m, %k : i32, i32) multiples [1, 2] : !llvm.ptr<1> -> !g
      %t = axe.slice %g[0, 0] [64, 64] : !g to !gt
      %s = axe.alloc cta : !s
      // expected-error @+1 {{copy: dynamic-offset rule: the source's run-time row stride is known to be a multiple of 2 elements (4 bytes), not of the 16-byte vectors of cp.async.cg.shared.global: state a larger multiple}}
      axe.copy_async cta %t to %s : !gt to !s
      gpu.return
    }
  }
}

