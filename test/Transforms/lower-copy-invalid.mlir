// Copies --lower-copy refuses: each error is at the copy and names the rule (the planner's `copy: <rule> rule:`,
// or the pass's own `copy: <what>:`) with the numbers; the pass fails before changing anything.
// RUN: axe-opt %s --split-input-file --lower-copy --verify-diagnostics
// A refusal fails the pass with exit code 1 and the error on stderr.
// RUN: not axe-opt %s --split-input-file --lower-copy -o %t.out 2>&1 | FileCheck %s --check-prefix=EXIT
// EXIT: error: copy: target: no chip for axe.copy

// The chip decides the instructions: a module without axe.target cannot be planned.
!g = !axe.tensor<array<i64: 32, 8>, f16, #axe.layout<"S[(32,8):(8,1)]">, #axe.mem<"global">>
!r = !axe.tensor<array<i64: 32, 8>, f16, #axe.layout<"S[(32,8):(1@laneid,1)]">, #axe.mem<"reg">>
func.func @no_target(%m: memref<256xf16>) {
  %g = "axe.view"(%m) : (memref<256xf16>) -> !g
  %r = "axe.alloc"() {scope = #axe.exec<"warp">} : () -> !r
  // expected-error @+1 {{copy: target: no chip for axe.copy: put axe.target = "sm_80" (or sm_90a, sm_100a) on the gpu.module or the module}}
  "axe.copy"(%g, %r) {scope = #axe.exec<"warp">} : (!g, !r) -> ()
  return
}

// -----

// An unknown chip is not guessed at.
!g = !axe.tensor<array<i64: 32, 8>, f16, #axe.layout<"S[(32,8):(8,1)]">, #axe.mem<"global">>
!r = !axe.tensor<array<i64: 32, 8>, f16, #axe.layout<"S[(32,8):(1@laneid,1)]">, #axe.mem<"reg">>
module attributes {axe.target = "sm_75"} {
  func.func @unknown_chip(%m: memref<256xf16>) {
    %g = "axe.view"(%m) : (memref<256xf16>) -> !g
    %r = "axe.alloc"() {scope = #axe.exec<"warp">} : () -> !r
    // expected-error @+1 {{copy: target: unknown chip "sm_75", expected "sm_80", "sm_90", "sm_90a" or "sm_100a"}}
    "axe.copy"(%g, %r) {scope = #axe.exec<"warp">} : (!g, !r) -> ()
    return
  }
}

// -----

// A warp-scope copy_async is not TMA's (one thread issues TMA for a CTA), and cp.async completes through commit
// and wait groups, not on the op's mbarrier.
!g = !axe.tensor<array<i64: 32, 8>, f16, #axe.layout<"S[(32,8):(8,1)]">, #axe.mem<"global">>
!s = !axe.tensor<array<i64: 32, 8>, f16, #axe.layout<"S[(32,8):(8,1)]">, #axe.mem<"shared">>
module attributes {axe.target = "sm_90a"} {
  func.func @async_at_warp_scope(%m: memref<256xf16>) {
    %g = "axe.view"(%m) : (memref<256xf16>) -> !g
    %s = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !s
    %bar = "axe.mbarrier_alloc"() {scope = #axe.exec<"cta">} : () -> !axe.mbarrier
    // expected-error @+1 {{copy: async: this axe.copy_async is not a TMA copy (see --lower-tma), and cp.async completes through commit and wait groups, not on the mbarrier the op names: use axe.copy}}
    "axe.copy_async"(%g, %s, %bar) {scope = #axe.exec<"warp">} : (!g, !s, !axe.mbarrier) -> ()
    return
  }
}

// -----

// On sm_80 there is no TMA: a CTA copy_async is --lower-copy's, and refused for the same reason.
!g = !axe.tensor<array<i64: 32, 8>, f16, #axe.layout<"S[(32,8):(8,1)]">, #axe.mem<"global">>
!s = !axe.tensor<array<i64: 32, 8>, f16, #axe.layout<"S[(32,8):(8,1)]">, #axe.mem<"shared">>
module attributes {axe.target = "sm_80"} {
  func.func @async_without_tma(%m: memref<256xf16>) {
    %g = "axe.view"(%m) : (memref<256xf16>) -> !g
    %s = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !s
    %bar = "axe.mbarrier_alloc"() {scope = #axe.exec<"cta">} : () -> !axe.mbarrier
    // expected-error @+1 {{copy: async: this axe.copy_async is not a TMA copy}}
    "axe.copy_async"(%g, %s, %bar) {scope = #axe.exec<"cta">} : (!g, !s, !axe.mbarrier) -> ()
    return
  }
}

// -----

// Threads are told apart by thread_id x: a two-dimensional block is refused.
!g = !axe.tensor<array<i64: 32, 8>, f16, #axe.layout<"S[(32,8):(8,1)]">, #axe.mem<"global">>
!r = !axe.tensor<array<i64: 32, 8>, f16, #axe.layout<"S[(32,8):(1@laneid,1)]">, #axe.mem<"reg">>
module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_80"} {
    gpu.func @two_dimensional_block(%m: memref<256xf16>) kernel attributes {known_block_size = array<i32: 32, 4, 1>} {
      %g = "axe.view"(%m) : (memref<256xf16>) -> !g
      %r = "axe.alloc"() {scope = #axe.exec<"warp">} : () -> !r
      // expected-error @+1 {{copy: threads: the kernel's block is 32x4x1; copies are lowered for one-dimensional blocks (threads told apart by thread_id x)}}
      "axe.copy"(%g, %r) {scope = #axe.exec<"warp">} : (!g, !r) -> ()
      gpu.return
    }
  }
}

// -----

// A register tensor that is a function argument has no storage the pass can index.
!g = !axe.tensor<array<i64: 32, 8>, f16, #axe.layout<"S[(32,8):(8,1)]">, #axe.mem<"global">>
!r = !axe.tensor<array<i64: 32, 8>, f16, #axe.layout<"S[(32,8):(1@laneid,1)]">, #axe.mem<"reg">>
module attributes {axe.target = "sm_80"} {
  func.func @argument_registers(%m: memref<256xf16>, %r: !r) {
    %g = "axe.view"(%m) : (memref<256xf16>) -> !g
    // expected-error @+1 {{copy: storage: operand dest must be an axe.alloc or a view or slice of one, or of a memref}}
    "axe.copy"(%g, %r) {scope = #axe.exec<"warp">} : (!g, !r) -> ()
    return
  }
}

// -----

// A shared memref the pass cannot align (a function argument, not a memref.global).
!s = !axe.tensor<array<i64: 32, 8>, f16, #axe.layout<"S[(32,8):(8,1)]">, #axe.mem<"shared">>
!r = !axe.tensor<array<i64: 32, 8>, f16, #axe.layout<"S[(32,8):(1@laneid,1)]">, #axe.mem<"reg">>
module attributes {axe.target = "sm_80"} {
  func.func @shared_argument(%w: memref<256xf16, #gpu.address_space<workgroup>>) {
    %s = "axe.view"(%w) : (memref<256xf16, #gpu.address_space<workgroup>>) -> !s
    %r = "axe.alloc"() {scope = #axe.exec<"warp">} : () -> !r
    // expected-error @+1 {{copy: storage: the workgroup memref under the source must come from memref.get_global, so that its alignment can be raised to the plan's}}
    "axe.copy"(%s, %r) {scope = #axe.exec<"warp">} : (!s, !r) -> ()
    return
  }
}

// -----

// A global memref with an offset or strides: its aligned pointer is not the tensor's base.
!g = !axe.tensor<array<i64: 32, 8>, f16, #axe.layout<"S[(32,8):(8,1)]">, #axe.mem<"global">>
!r = !axe.tensor<array<i64: 32, 8>, f16, #axe.layout<"S[(32,8):(1@laneid,1)]">, #axe.mem<"reg">>
module attributes {axe.target = "sm_80"} {
  func.func @strided_global(%m: memref<256xf16, strided<[1], offset: 8>>) {
    %g = "axe.view"(%m) : (memref<256xf16, strided<[1], offset: 8>>) -> !g
    %r = "axe.alloc"() {scope = #axe.exec<"warp">} : () -> !r
    // expected-error @+1 {{copy: storage: the global memref under the source must have the identity layout (its base is the tensor's), got memref<256xf16, strided<[1], offset: 8>>}}
    "axe.copy"(%g, %r) {scope = #axe.exec<"warp">} : (!g, !r) -> ()
    return
  }
}

// -----

// Tensor memory is allocated where its alloc is and freed before every return: the alloc must be at the top of
// the kernel.
!t = !axe.tensor<array<i64: 128, 8>, f32, #axe.layout<"S[(128,8):(1@TLane,1@TCol)]">, #axe.mem<"tmem">>
!r = !axe.tensor<array<i64: 128, 8>, f32, #axe.layout<"S[(4,32,8):(1@warpid,1@laneid,1)]">, #axe.mem<"reg">>
module attributes {axe.target = "sm_100a"} {
  func.func @tmem_alloc_in_a_branch(%c: i1) {
    %r = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !r
    scf.if %c {
      %t = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !t
      // expected-error @+1 {{copy: storage: the tensor-memory axe.alloc must be in its kernel's entry block (it is allocated there and freed before every return)}}
      "axe.copy"(%r, %t) {scope = #axe.exec<"cta">} : (!r, !t) -> ()
    }
    return
  }
}

// -----

// 4-bit integers have no byte-addressed loads.
!g = !axe.tensor<array<i64: 32, 8>, i4, #axe.layout<"S[(32,8):(8,1)]">, #axe.mem<"global">>
!r = !axe.tensor<array<i64: 32, 8>, i4, #axe.layout<"S[(32,8):(1@laneid,1)]">, #axe.mem<"reg">>
module attributes {axe.target = "sm_80"} {
  func.func @four_bit(%m: memref<256xi4>) {
    %g = "axe.view"(%m) : (memref<256xi4>) -> !g
    %r = "axe.alloc"() {scope = #axe.exec<"warp">} : () -> !r
    // expected-error @+1 {{copy: dtype: copies move 1, 2, 4 or 8-byte numbers, got i4}}
    "axe.copy"(%g, %r) {scope = #axe.exec<"warp">} : (!g, !r) -> ()
    return
  }
}

// -----

// A slice of a slice whose layout --axe-slice has not computed yet (a deferred slice the copy uses directly is
// sliced by the pass; one under another slice is not).
!g = !axe.tensor<array<i64: 64, 8>, f16, #axe.layout<"S[(64,8):(8,1)]">, #axe.mem<"global">>
!gs = !axe.tensor<array<i64: 32, 8>, f16, #axe.deferred, #axe.mem<"global">>
!gt = !axe.tensor<array<i64: 16, 8>, f16, #axe.deferred, #axe.mem<"global">>
!r = !axe.tensor<array<i64: 16, 8>, f16, #axe.layout<"S[(16,8):(1@laneid,1)]">, #axe.mem<"reg">>
module attributes {axe.target = "sm_80"} {
  func.func @deferred_slice(%m: memref<512xf16>, %i: index) {
    %g = "axe.view"(%m) : (memref<512xf16>) -> !g
    %s = "axe.slice"(%g) {offsets = array<i64: 32, 0>, sizes = array<i64: 32, 8>} : (!g) -> !gs
    %t = "axe.slice"(%s, %i) {offsets = array<i64: -9223372036854775808, 0>, sizes = array<i64: 16, 8>} : (!gs, index) -> !gt
    %r = "axe.alloc"() {scope = #axe.exec<"warp">} : () -> !r
    // expected-error @+1 {{copy: operand source has a deferred layout: run --axe-slice first}}
    "axe.copy"(%t, %r) {scope = #axe.exec<"warp">} : (!gt, !r) -> ()
    return
  }
}

// -----

// dynamic-offset: a K step of 4 halves (8 bytes) would misalign the 16-byte cp.async vectors the static tile
// allows.
!g = !axe.tensor<array<i64: 64, 256>, f16, #axe.layout<"S[(64,256):(256,1)]">, #axe.mem<"global">>
!gt = !axe.tensor<array<i64: 64, 64>, f16, #axe.deferred, #axe.mem<"global">>
!s = !axe.tensor<array<i64: 64, 64>, f16, #axe.layout<"Swizzle(3,3,3) o S[(64,64):(64,1)]">, #axe.mem<"shared">>
module attributes {axe.target = "sm_80"} {
  gpu.module @k {
    gpu.func @k_step(%m: memref<16384xf16>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %c192 = arith.constant 192 : index
      %g = "axe.view"(%m) : (memref<16384xf16>) -> !g
      %s = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !s
      scf.for %k = %c0 to %c192 step %c4 {
        %t = "axe.slice"(%g, %k) {offsets = array<i64: 0, -9223372036854775808>, sizes = array<i64: 64, 64>} : (!g, index) -> !gt
        // expected-error @+1 {{copy: dynamic-offset rule: offset 0 moves the source along dimension 1 by a multiple of 4 elements (8 bytes: a known multiple of 4 over 1 times stride 1), which breaks the alignment of its 16-byte vectors (16 bytes)}}
        "axe.copy_async"(%t, %s) {scope = #axe.exec<"cta">} : (!gt, !s) -> ()
      }
      gpu.return
    }
  }
}

// -----

// dynamic-offset: stages of 4 rows of a 128B-swizzled ring move by 256 elements, half the swizzle's period, so
// the swizzled row addresses of ldmatrix would change with the stage.
!ring = !axe.tensor<array<i64: 64, 64>, f16, #axe.layout<"Swizzle(3,3,3) o S[(64,64):(64,1)]">, #axe.mem<"shared">>
!st = !axe.tensor<array<i64: 16, 16>, f16, #axe.deferred, #axe.mem<"shared">>
!r = !axe.tensor<array<i64: 16, 16>, f16, #axe.layout<"S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)]">, #axe.mem<"reg">>
module attributes {axe.target = "sm_80"} {
  func.func @off_period(%i: index) {
    %c4 = arith.constant 4 : index
    %ring = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !ring
    %row = arith.muli %i, %c4 : index
    %s = "axe.slice"(%ring, %row) {offsets = array<i64: -9223372036854775808, 0>, sizes = array<i64: 16, 16>} : (!ring, index) -> !st
    %r = "axe.alloc"() {scope = #axe.exec<"warp">} : () -> !r
    // expected-error @+1 {{copy: dynamic-offset rule: offset 0 moves the source along dimension 0 by a multiple of 256 elements, not of the 512-element period of its swizzle Swizzle(3,3,3): the swizzled addresses would change}}
    "axe.copy"(%s, %r) {scope = #axe.exec<"warp">} : (!st, !r) -> ()
    return
  }
}

// -----

// async: a copy_async without a barrier is a cp.async group, which moves global to shared only.
!s = !axe.tensor<array<i64: 32, 8>, f16, #axe.layout<"S[(32,8):(8,1)]">, #axe.mem<"shared">>
!g = !axe.tensor<array<i64: 32, 8>, f16, #axe.layout<"S[(32,8):(8,1)]">, #axe.mem<"global">>
module attributes {axe.target = "sm_80"} {
  func.func @group_store(%m: memref<256xf16>) {
    %g = "axe.view"(%m) : (memref<256xf16>) -> !g
    %s = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !s
    // expected-error @+1 {{copy: async: an axe.copy_async without a barrier is a cp.async group, global to shared}}
    "axe.copy_async"(%s, %g) {scope = #axe.exec<"warp">} : (!s, !g) -> ()
    return
  }
}

// -----

// Several refusals are all reported, and nothing is lowered: the cast below stays.
!g = !axe.tensor<array<i64: 32, 8>, f16, #axe.layout<"S[(32,8):(8,1)]">, #axe.mem<"global">>
!r = !axe.tensor<array<i64: 32, 8>, f16, #axe.layout<"S[(32,8):(1@laneid,1)]">, #axe.mem<"reg">>
!f = !axe.tensor<array<i64: 32, 8>, f32, #axe.layout<"S[(32,8):(1@laneid,1)]">, #axe.mem<"reg">>
func.func @several(%m: memref<256xf16>, %n: memref<256xf16>) {
  %g = "axe.view"(%m) : (memref<256xf16>) -> !g
  %h = "axe.view"(%n) : (memref<256xf16>) -> !g
  %r = "axe.alloc"() {scope = #axe.exec<"warp">} : () -> !r
  %f = "axe.alloc"() {scope = #axe.exec<"warp">} : () -> !f
  // expected-error @+1 {{copy: target: no chip for axe.copy}}
  "axe.copy"(%g, %r) {scope = #axe.exec<"warp">} : (!g, !r) -> ()
  "axe.cast"(%r, %f) {scope = #axe.exec<"warp">} : (!r, !f) -> ()
  // expected-error @+1 {{copy: target: no chip for axe.copy}}
  "axe.copy"(%r, %h) {scope = #axe.exec<"warp">} : (!r, !g) -> ()
  return
}

// -----

// The planner's refusals name its rule. Shared to global without TMA: no instruction.
!s = !axe.tensor<array<i64: 32, 8>, f16, #axe.layout<"S[(32,8):(8,1)]">, #axe.mem<"shared">>
!g = !axe.tensor<array<i64: 32, 8>, f16, #axe.layout<"S[(32,8):(8,1)]">, #axe.mem<"global">>
module attributes {axe.target = "sm_80"} {
  func.func @route(%m: memref<256xf16>) {
    %g = "axe.view"(%m) : (memref<256xf16>) -> !g
    %s = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !s
    // expected-error @+1 {{copy: route rule: no instruction copies shared to global}}
    "axe.copy"(%s, %g) {scope = #axe.exec<"warp">} : (!s, !g) -> ()
    return
  }
}

// -----

// cp.async moves at least 4 bytes: a column-major source into row-major shared memory has 2-byte runs. No
// scalar loop is substituted.
!gc = !axe.tensor<array<i64: 32, 8>, f16, #axe.layout<"S[(32,8):(1,32)]">, #axe.mem<"global">>
!s = !axe.tensor<array<i64: 32, 8>, f16, #axe.layout<"S[(32,8):(8,1)]">, #axe.mem<"shared">>
module attributes {axe.target = "sm_80"} {
  func.func @vector(%m: memref<256xf16>) {
    %g = "axe.view"(%m) : (memref<256xf16>) -> !gc
    %s = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !s
    // expected-error @+1 {{copy: vector rule: cp.async moves 4, 8 or 16 bytes per thread, but the widest run that is contiguous and aligned in both global and shared memory is 2 bytes}}
    "axe.copy"(%g, %s) {scope = #axe.exec<"warp">} : (!gc, !s) -> ()
    return
  }
}

// -----

// A warp reaches only its own 32 tensor-memory lanes: here warp 1 holds rows that live in lanes 64..95.
!t = !axe.tensor<array<i64: 128, 8>, f32, #axe.layout<"S[(2,2,32,8):(32@TLane,64@TLane,1@TLane,1@TCol)]">, #axe.mem<"tmem">>
!r = !axe.tensor<array<i64: 128, 8>, f32, #axe.layout<"S[(4,32,8):(1@warpid,1@laneid,1)]">, #axe.mem<"reg">>
module attributes {axe.target = "sm_100a"} {
  func.func @tmem_lanes() {
    %t = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !t
    %r = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !r
    // expected-error @+1 {{copy: tmem-lanes rule: element 256 is in lane 64 and thread 32 (warp 1) holds it, but warp 1 reaches only lanes 32..64}}
    "axe.copy"(%r, %t) {scope = #axe.exec<"cta">} : (!r, !t) -> ()
    return
  }
}

// -----

// At warp scope the warp's index, and so its tensor-memory lanes, is unknown.
!t = !axe.tensor<array<i64: 32, 8>, f32, #axe.layout<"S[(32,8):(1@TLane,1@TCol)] + 32@TLane">, #axe.mem<"tmem">>
!r = !axe.tensor<array<i64: 32, 8>, f32, #axe.layout<"S[(32,8):(1@laneid,1)]">, #axe.mem<"reg">>
module attributes {axe.target = "sm_100a"} {
  func.func @tmem_at_warp_scope() {
    %t = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !t
    %r = "axe.alloc"() {scope = #axe.exec<"warp">} : () -> !r
    // expected-error @+1 {{copy: scope rule: a warp reaches the tensor-memory lanes 32*(warp%4)..+32 of its own warp index, which a warp scope does not know: copy at warpgroup or cta scope}}
    "axe.copy"(%r, %t) {scope = #axe.exec<"warp">} : (!r, !t) -> ()
    return
  }
}

// -----

// tcgen05 is sm_100a only.
!t = !axe.tensor<array<i64: 128, 8>, f32, #axe.layout<"S[(128,8):(1@TLane,1@TCol)]">, #axe.mem<"tmem">>
!r = !axe.tensor<array<i64: 128, 8>, f32, #axe.layout<"S[(4,32,8):(1@warpid,1@laneid,1)]">, #axe.mem<"reg">>
module attributes {axe.target = "sm_90a"} {
  func.func @chip() {
    %t = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !t
    %r = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !r
    // expected-error @+1 {{copy: chip rule: tcgen05.ld/st (tensor memory) needs sm_100a, got sm_90a}}
    "axe.copy"(%r, %t) {scope = #axe.exec<"cta">} : (!r, !t) -> ()
    return
  }
}

// -----

// Tensor memory holds 32-bit cells.
!t = !axe.tensor<array<i64: 128, 8>, f16, #axe.layout<"S[(128,8):(1@TLane,1@TCol)]">, #axe.mem<"tmem">>
!r = !axe.tensor<array<i64: 128, 8>, f16, #axe.layout<"S[(4,32,8):(1@warpid,1@laneid,1)]">, #axe.mem<"reg">>
module attributes {axe.target = "sm_100a"} {
  func.func @tmem_dtype() {
    %t = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !t
    %r = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !r
    // expected-error @+1 {{copy: dtype rule: tcgen05.ld/st moves 32-bit cells; f16 is 2 bytes}}
    "axe.copy"(%r, %t) {scope = #axe.exec<"cta">} : (!r, !t) -> ()
    return
  }
}

// -----

// A thread subset must hold every element it copies.
!g = !axe.tensor<array<i64: 64, 8>, f32, #axe.layout<"S[(64,8):(8,1)]">, #axe.mem<"global">>
!r = !axe.tensor<array<i64: 64, 8>, f32, #axe.layout<"S[(2,32,8):(1@warpid,1@laneid,1)]">, #axe.mem<"reg">>
module attributes {axe.target = "sm_80"} {
  func.func @subset(%m: memref<512xf32>) {
    %g = "axe.view"(%m) : (memref<512xf32>) -> !g
    %r = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !r
    // expected-error @+1 {{copy: scope rule: destination: element 256 is held by thread 32, outside the thread subset (units 0..1 of 32 threads each)}}
    "axe.copy"(%g, %r) {scope = #axe.exec<"cta">, threads = #axe.threads<"warpid", array<i64: 0, 1>>} : (!g, !r) -> ()
    return
  }
}

// -----

// A CTA-scope cp.async spreads its work over the CTA's threads: without known_block_size (or a subset) their
// number is unknown.
!g = !axe.tensor<array<i64: 32, 8>, f32, #axe.layout<"S[(32,8):(8,1)]">, #axe.mem<"global">>
!s = !axe.tensor<array<i64: 32, 8>, f32, #axe.layout<"S[(32,8):(8,1)]">, #axe.mem<"shared">>
module attributes {axe.target = "sm_80"} {
  func.func @cta_threads_unknown(%m: memref<256xf32>) {
    %g = "axe.view"(%m) : (memref<256xf32>) -> !g
    %s = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !s
    // expected-error @+1 {{copy: scope rule: a CTA-scope cp.async spreads its work over the CTA's threads: give the CTA's thread count or a thread subset}}
    "axe.copy"(%g, %s) {scope = #axe.exec<"cta">} : (!g, !s) -> ()
    return
  }
}

// -----

// A register layout whose lanes run past the warp (moved here from lower-mma-invalid: this read-back is not
// --lower-mma's tcgen05.ld.32x32b pattern, so it is --lower-copy's).
!t = !axe.tensor<array<i64: 128, 8>, f32, #axe.layout<"S[(128,8):(1@TLane,1@TCol)]">, #axe.mem<"tmem">>
!r = !axe.tensor<array<i64: 128, 8>, f32, #axe.layout<"S[(4,32,8):(1@warpid,1,32@laneid)]">, #axe.mem<"reg">>
module attributes {axe.target = "sm_100a"} {
  func.func @lanes_past_the_warp() {
    %t = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !t
    %r = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !r
    // expected-error @+1 {{copy: scope rule: destination: element 1 is on laneid = 32, outside its 0..32 values}}
    "axe.copy"(%t, %r) {scope = #axe.exec<"cta">} : (!t, !r) -> ()
    return
  }
}

// -----

// dynamic-offset: a run-time row stride known only to be even (K a multiple of 2) would misalign the 16-byte
// cp.async vectors of the tile's rows.
!g = !axe.tensor<array<i64: -9223372036854775808, -9223372036854775808>, f16, #axe.row_major, #axe.mem<"global">>
!gt = !axe.tensor<array<i64: 64, 64>, f16, #axe.deferred, #axe.mem<"global">>
!s = !axe.tensor<array<i64: 64, 64>, f16, #axe.layout<"Swizzle(3,3,3) o S[(64,64):(64,1)]">, #axe.mem<"shared">>
module attributes {axe.target = "sm_80"} {
  gpu.module @k {
    gpu.func @odd_stride(%p: !llvm.ptr<1>, %m: i32, %k: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %g = "axe.view"(%p, %m, %k) {multiples = array<i64: 1, 2>} : (!llvm.ptr<1>, i32, i32) -> !g
      %t = "axe.slice"(%g) {offsets = array<i64: 0, 0>, sizes = array<i64: 64, 64>} : (!g) -> !gt
      %s = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !s
      // expected-error @+1 {{copy: dynamic-offset rule: the source's run-time row stride is known to be a multiple of 2 elements (4 bytes), not of the 16-byte vectors of cp.async.cg.shared.global: state a larger multiple}}
      "axe.copy_async"(%t, %s) {scope = #axe.exec<"cta">} : (!gt, !s) -> ()
      gpu.return
    }
  }
}

// -----

// run-time extents: a load straight into registers would need a predicated, zero-filled load.
!g = !axe.tensor<array<i64: -9223372036854775808, -9223372036854775808>, f16, #axe.row_major, #axe.mem<"global">>
!gt = !axe.tensor<array<i64: 32, 8>, f16, #axe.deferred, #axe.mem<"global">>
!r = !axe.tensor<array<i64: 32, 8>, f16, #axe.layout<"S[(32,8):(1@laneid,1)]">, #axe.mem<"reg">>
module attributes {axe.target = "sm_80"} {
  func.func @runtime_load(%p: !llvm.ptr<1>, %m: i32, %k: i32) {
    %g = "axe.view"(%p, %m, %k) {multiples = array<i64: 1, 8>} : (!llvm.ptr<1>, i32, i32) -> !g
    %t = "axe.slice"(%g) {offsets = array<i64: 0, 0>, sizes = array<i64: 32, 8>} : (!g) -> !gt
    %r = "axe.alloc"() {scope = #axe.exec<"warp">} : () -> !r
    // expected-error @+1 {{copy: run-time extents: a load into registers from a run-time-sized tensor is not predicated; load it with cp.async into shared memory (zero fill past the edge)}}
    "axe.copy"(%t, %r) {scope = #axe.exec<"warp">} : (!gt, !r) -> ()
    return
  }
}
