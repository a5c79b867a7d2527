// Gemms --lower-mma refuses: each error is at the op and names the rule, then the numbers (the planner's
// `mma: <rule> rule: ...`, or the pass's own `mma: <rule>: ...`). Nothing is rewritten on a refusal.
// RUN: axe-opt %s --split-input-file --lower-mma --verify-diagnostics
// A refusal fails the pass with exit code 1 and the error on stderr.
// RUN: not axe-opt %s --split-input-file --lower-mma -o %t.out 2>&1 | FileCheck %s --check-prefix=EXIT
// EXIT: error: mma: target: no chip for axe.gemm

!a = !axe.tensor<16x16xf16, reg, S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)]>
!b = !axe.tensor<16x8xf16, reg, S[(2,4,2,8):(2,1@laneid,1,4@laneid)]>
!c = !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
// The chip decides the family: without axe.target there is none to plan for.
func.func @no_target() {
  %a = axe.alloc warp : !a
  %b = axe.alloc warp : !b
  %c = axe.alloc warp : !c
  // expected-error @+1 {{mma: target: no chip for axe.gemm: put axe.target = "sm_80" (or sm_90a, sm_100a) on the gpu.module or the module}}
  axe.gemm warp %a, %b, %c : !a, !b, !c
  return
}

// -----

!a = !axe.tensor<16x16xf16, reg, S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)]>
!b = !axe.tensor<16x8xf16, reg, S[(2,4,2,8):(2,1@laneid,1,4@laneid)]>
!c = !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
module attributes {axe.target = "sm_75"} {
  func.func @unknown_chip() {
    %a = axe.alloc warp : !a
    %b = axe.alloc warp : !b
    %c = axe.alloc warp : !c
    // expected-error @+1 {{mma: target: unknown chip "sm_75", expected "sm_80", "sm_90", "sm_90a" or "sm_100a"}}
    axe.gemm warp %a, %b, %c : !a, !b, !c
    return
  }
}

// -----

// B in shared memory with C in registers selects wgmma, which sm_80 does not have.
!a = !axe.tensor<64x64xf16, shared, Swizzle(3,3,3) o S[(64,64):(64,1)]>
!b = !axe.tensor<64x16xf16, shared, Swizzle(3,3,3) o S[(64,16):(1,64)]>
!c = !axe.tensor<64x16xf32, reg, S[(4,2,8,2,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
module attributes {axe.target = "sm_80"} {
  func.func @wgmma_on_sm80() {
    %a = axe.alloc cta : !a
    %b = axe.alloc cta : !b
    %c = axe.alloc warpgroup : !c
    // expected-error @+1 {{mma: family rule: wgmma (selected by the operands' memories) is not available on sm_80; it needs sm_90a}}
    axe.gemm warpgroup %a, %b, %c : !a, !b, !c
    return
  }
}

// -----

// mma.sync has bf16 -> f32 only.
!a = !axe.tensor<16x16xbf16, reg, S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)]>
!b = !axe.tensor<16x8xbf16, reg, S[(2,4,2,8):(2,1@laneid,1,4@laneid)]>
!c = !axe.tensor<16x8xf16, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
module attributes {axe.target = "sm_80"} {
  func.func @bf16_into_f16() {
    %a = axe.alloc warp : !a
    %b = axe.alloc warp : !b
    %c = axe.alloc warp : !c
    // expected-error @+1 {{mma: dtype rule: mma.sync has no bf16 x bf16 -> f16 instruction (PTX table: f16 -> f16|f32, bf16 -> f32, tf32 -> f32)}}
    axe.gemm warp %a, %b, %c : !a, !b, !c
    return
  }
}

// -----

// M = 8 is not a multiple of mma.sync's 16.
!a = !axe.tensor<8x16xf16, reg, S[(8,4,4):(4@laneid,1@laneid,1)]>
!b = !axe.tensor<16x8xf16, reg, S[(2,4,2,8):(2,1@laneid,1,4@laneid)]>
!c = !axe.tensor<8x8xf32, reg, S[(8,4,2):(4@laneid,1@laneid,1)]>
module attributes {axe.target = "sm_80"} {
  func.func @m8() {
    %a = axe.alloc warp : !a
    %b = axe.alloc warp : !b
    %c = axe.alloc warp : !c
    // expected-error @+1 {{mma: shape rule: M=8, N=8, K=16 are not multiples of any mma.sync instruction shape for f16 (m16 n8 k8|16)}}
    axe.gemm warp %a, %b, %c : !a, !b, !c
    return
  }
}

// -----

// C with its lane digits swapped is no tile of the ISA's C fragment.
!a = !axe.tensor<16x16xf16, reg, S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)]>
!b = !axe.tensor<16x8xf16, reg, S[(2,4,2,8):(2,1@laneid,1,4@laneid)]>
!c = !axe.tensor<16x8xf32, reg, S[(4,2,2,8):(1@laneid,1,2,4@laneid)]>
module attributes {axe.target = "sm_80"} {
  func.func @not_the_c_fragment() {
    %a = axe.alloc warp : !a
    %b = axe.alloc warp : !b
    %c = axe.alloc warp : !c
    // expected-error @+1 {{mma: fragment rule: operand C is not a tile of the m16n8k16 C fragment S[(2,8,4,2):(2,4@laneid,1@laneid,1)] over [16, 8]}}
    axe.gemm warp %a, %b, %c : !a, !b, !c
    return
  }
}

// -----

// A replicated accumulator: both warps would add into their own copy.
!a = !axe.tensor<16x16xf16, reg, S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)] + R[2:1@warpid]>
!b = !axe.tensor<16x8xf16, reg, S[(2,4,2,8):(2,1@laneid,1,4@laneid)] + R[2:1@warpid]>
!c = !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)] + R[2:1@warpid]>
module attributes {axe.target = "sm_80"} {
  func.func @replicated_accumulator() {
    %a = axe.alloc cta : !a
    %b = axe.alloc cta : !b
    %c = axe.alloc cta : !c
    // expected-error @+1 {{mma: warp-tiling rule: accumulator tile [0, 0] is held by the warps starting at threads [0, 32]; each C tile needs exactly one}}
    axe.gemm cta %a, %b, %c : !a, !b, !c
    return
  }
}

// -----

// Swizzle(2,3,3) is the 128B swizzle of 32-bit elements, not of f16.
!a = !axe.tensor<64x64xf16, shared, Swizzle(2,3,3) o S[(64,64):(64,1)]>
!b = !axe.tensor<64x16xf16, shared, Swizzle(3,3,3) o S[(64,16):(1,64)]>
!c = !axe.tensor<64x16xf32, reg, S[(4,2,8,2,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
module attributes {axe.target = "sm_90a"} {
  func.func @not_a_tensor_core_swizzle() {
    %a = axe.alloc cta : !a
    %b = axe.alloc cta : !b
    %c = axe.alloc warpgroup : !c
    // expected-error @+1 {{mma: swizzle rule: operand A has Swizzle(2,3,3), which is not a tensor-core swizzle atom for 16-bit elements}}
    axe.gemm warpgroup %a, %b, %c : !a, !b, !c
    return
  }
}

// -----

// wgmma with 8-bit A in registers: planned, but only 16-bit register fragments are lowered.
!a = !axe.tensor<64x32xf8E4M3FN, reg, S[(4,2,8,2,4,4):(1@wid_in_wg,4,4@laneid,8,1@laneid,1)]>
!b = !axe.tensor<32x16xf8E4M3FN, shared, Swizzle(4,1,3) o S[(32,16):(1,32)]>
!c = !axe.tensor<64x16xf32, reg, S[(4,2,8,2,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
module attributes {axe.target = "sm_90a"} {
  func.func @fp8_a_in_registers() {
    %a = axe.alloc warpgroup : !a
    %b = axe.alloc cta : !b
    %c = axe.alloc warpgroup : !c
    // expected-error @+1 {{mma: lowering: wgmma with e4m3 A in registers is not lowered (16-bit A fragments only); put A in shared memory}}
    axe.gemm warpgroup %a, %b, %c : !a, !b, !c
    return
  }
}

// -----

// One thread issues tcgen05 for the CTA: a warpgroup-scope gemm cannot.
!a = !axe.tensor<128x16xf16, shared, Swizzle(3,1,3) o S[(128,16):(16,1)]>
!b = !axe.tensor<16x64xf16, shared, Swizzle(3,1,3) o S[(16,64):(1,16)]>
!c = !axe.tensor<128x64xf32, tmem, S[(128,64):(1@TLane,1@TCol)]>
module attributes {axe.target = "sm_100a"} {
  func.func @tcgen05_at_warpgroup_scope() {
    %a = axe.alloc cta : !a
    %b = axe.alloc cta : !b
    %c = axe.alloc cta : !c
    // expected-error @+1 {{mma: scope: tcgen05 runs at cta scope, got warpgroup}}
    axe.gemm warpgroup %a, %b, %c : !a, !b, !c
    return
  }
}

// -----

// The M=128 data path starts at lane 0.
!a = !axe.tensor<128x16xf16, shared, Swizzle(3,1,3) o S[(128,16):(16,1)]>
!b = !axe.tensor<16x64xf16, shared, Swizzle(3,1,3) o S[(16,64):(1,16)]>
!c = !axe.tensor<128x64xf32, tmem, S[(128,64):(1@TLane,1@TCol)] + 8@TLane>
module attributes {axe.target = "sm_100a"} {
  func.func @datapath_lane() {
    %a = axe.alloc cta : !a
    %b = axe.alloc cta : !b
    %c = axe.alloc cta : !c
    // expected-error @+1 {{mma: tmem-datapath rule: operand C's instruction tile at [0, 0] starts at lane 8, column 0; an M=128 data path starts at lane 0}}
    axe.gemm cta %a, %b, %c : !a, !b, !c
    return
  }
}

// -----

// tcgen05.mma either adds to tensor memory or overwrites it: a fill can only be zero.
!c = !axe.tensor<128x64xf32, tmem, S[(128,64):(1@TLane,1@TCol)]>
module attributes {axe.target = "sm_100a"} {
  func.func @tmem_fill_one() {
    %one = arith.constant 1.0 : f32
    %c = axe.alloc cta : !c
    // expected-error @+1 {{mma: fill: a tensor-memory accumulator can only be zeroed (the first tcgen05.mma overwrites it), got 1.000000e+00 : f32}}
    axe.fill cta %c, %one : !c, f32
    return
  }
}

// -----

// Register operands must reach their storage: a function argument has none the pass can index.
!a = !axe.tensor<16x16xf16, reg, S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)]>
!b = !axe.tensor<16x8xf16, reg, S[(2,4,2,8):(2,1@laneid,1,4@laneid)]>
!c = !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
module attributes {axe.target = "sm_80"} {
  func.func @argument_operand(%a: !a) {
    %b = axe.alloc warp : !b
    %c = axe.alloc warp : !c
    // expected-error @+1 {{mma: storage: operand a must be an axe.alloc or an axe.view of a memref}}
    axe.gemm warp %a, %b, %c : !a, !b, !c
    return
  }
}

// -----

// A shared view of a memref that is not a memref.get_global: the pass cannot raise its alignment to 1024.
!a = !axe.tensor<64x64xf16, shared, Swizzle(3,3,3) o S[(64,64):(64,1)]>
!b = !axe.tensor<64x16xf16, shared, Swizzle(3,3,3) o S[(64,16):(1,64)]>
!c = !axe.tensor<64x16xf32, reg, S[(4,2,8,2,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
!smem = memref<4096xf16, #gpu.address_space<workgroup>>
module attributes {axe.target = "sm_90a"} {
  func.func @shared_argument(%m: !smem) {
    %a = axe.view %m : !smem -> !a
    %b = axe.alloc cta : !b
    %c = axe.alloc warpgroup : !c
    // expected-error @+1 {{mma: storage: the workgroup memref under operand a must come from memref.get_global, so that its alignment can be raised to the planner's}}
    axe.gemm warpgroup %a, %b, %c : !a, !b, !c
    return
  }
}

// -----

// Tensor memory is allocated at its axe.alloc and freed before the returns: an alloc inside a branch would
// not dominate them.
!a = !axe.tensor<128x16xf16, shared, Swizzle(3,1,3) o S[(128,16):(16,1)]>
!b = !axe.tensor<16x64xf16, shared, Swizzle(3,1,3) o S[(16,64):(1,16)]>
!c = !axe.tensor<128x64xf32, tmem, S[(128,64):(1@TLane,1@TCol)]>
module attributes {axe.target = "sm_100a"} {
  func.func @tmem_alloc_in_branch(%p: i1) {
    %a = axe.alloc cta : !a
    %b = axe.alloc cta : !b
    scf.if %p {
      %c = axe.alloc cta : !c
      // expected-error @+1 {{mma: storage: the tensor-memory axe.alloc must be in its kernel's entry block (it is allocated there and freed before every return)}}
      axe.gemm cta %a, %b, %c : !a, !b, !c
    }
    return
  }
}

// -----

// Operand A in tensor memory must be the data path too: rows in lanes, K along the columns (here transposed).
!a = !axe.tensor<128x16xf16, tmem, S[(128,16):(1@TCol,1@TLane)]>
!b = !axe.tensor<16x64xf16, shared, Swizzle(3,1,3) o S[(16,64):(1,16)]>
!c = !axe.tensor<128x64xf32, tmem, S[(128,64):(1@TLane,1@TCol)]>
module attributes {axe.target = "sm_100a"} {
  func.func @a_tmem_not_datapath() {
    %a = axe.alloc cta : !a
    %b = axe.alloc cta : !b
    %c = axe.alloc cta : !c
    // expected-error @+1 {{mma: tmem-datapath rule: operand A is not a tile of the M=128 tensor-memory data-path layout S[(128,16):(1@TLane,1@TCol)] over [128, 16] (TCol in 16-bit slots, 2 to a 32-bit column)}}
    axe.gemm cta %a, %b, %c : !a, !b, !c
    return
  }
}

// -----

// An f16 A packs two K elements to a column: starting at slot 1 is the high half of column 0.
!a = !axe.tensor<128x16xf16, tmem, S[(128,16):(1@TLane,1@TCol)] + 1@TCol>
!b = !axe.tensor<16x64xf16, shared, Swizzle(3,1,3) o S[(16,64):(1,16)]>
!c = !axe.tensor<128x64xf32, tmem, S[(128,64):(1@TLane,1@TCol)]>
module attributes {axe.target = "sm_100a"} {
  func.func @a_tmem_half_column() {
    %a = axe.alloc cta : !a
    %b = axe.alloc cta : !b
    %c = axe.alloc cta : !c
    // expected-error @+1 {{mma: tmem-datapath rule: operand A's instruction tile at [0, 0] starts at TCol slot 1, inside a 32-bit column (2 16-bit elements to a column); an instruction reads whole columns}}
    axe.gemm cta %a, %b, %c : !a, !b, !c
    return
  }
}

// -----

// A and an f16 accumulator as views of one allocation: A in columns 32..40 (slots 64..80), C in 0..64.
!all = !axe.tensor<128x256xf16, tmem, S[(128,256):(1@TLane,1@TCol)]>
!a = !axe.tensor<128x16xf16, tmem, S[(128,16):(1@TLane,1@TCol)] + 64@TCol>
!b = !axe.tensor<16x64xf16, shared, Swizzle(3,1,3) o S[(16,64):(1,16)]>
!c = !axe.tensor<128x64xf16, tmem, S[(128,64):(1@TLane,2@TCol)]>
module attributes {axe.target = "sm_100a"} {
  func.func @a_tmem_overlaps_c() {
    %t = axe.alloc cta : !all
    %a = axe.view %t : !all -> !a
    %c = axe.view %t : !all -> !c
    %b = axe.alloc cta : !b
    // expected-error @+1 {{mma: tmem-overlap rule: operand A's columns 32..40 overlap the accumulator's columns 0..64 (lanes from 0); A and C are in one tensor memory and must not share a column}}
    axe.gemm cta %a, %b, %c : !a, !b, !c
    return
  }
}

// -----

// Slots 1008..1040 of an f16 A are columns 504..520: past the 512 columns of tensor memory.
!a = !axe.tensor<128x32xf16, tmem, S[(128,32):(1@TLane,1@TCol)] + 1008@TCol>
!b = !axe.tensor<32x64xf16, shared, Swizzle(3,1,3) o S[(2,16,64):(1024,1,16)]>
!c = !axe.tensor<128x64xf32, tmem, S[(128,64):(1@TLane,1@TCol)]>
module attributes {axe.target = "sm_100a"} {
  func.func @a_tmem_past_512() {
    %a = axe.alloc cta : !a
    %b = axe.alloc cta : !b
    %c = axe.alloc cta : !c
    // expected-error @+1 {{mma: tmem-columns rule: operand A reaches column 519 (TCol in 16-bit slots, 2 to a 32-bit column), but tensor memory has 512 columns}}
    axe.gemm cta %a, %b, %c : !a, !b, !c
    return
  }
}

// -----

// A and C in two allocations: A reaches column 264 (512 allocated), C 256 (256): 768 columns in total.
!a = !axe.tensor<128x16xf16, tmem, S[(128,16):(1@TLane,1@TCol)] + 512@TCol>
!b = !axe.tensor<16x256xf16, shared, Swizzle(3,1,3) o S[(16,256):(1,16)]>
!c = !axe.tensor<128x256xf32, tmem, S[(128,256):(1@TLane,1@TCol)]>
module attributes {axe.target = "sm_100a"} {
  func.func @tmem_allocations_past_512() {
    %a = axe.alloc cta : !a
    %b = axe.alloc cta : !b
    // expected-error @+1 {{mma: tmem-columns: the kernel's tensor-memory allocations take 512 + 256 = 768 columns; tensor memory has 512}}
    %c = axe.alloc cta : !c
    axe.gemm cta %a, %b, %c : !a, !b, !c
    return
  }
}

// -----

// Layout F (M=64): A and D must share the lane alignment; here A is at lane 0 and D at lane 16.
!a = !axe.tensor<64x16xf16, tmem, S[(4,16,16):(32@TLane,1@TLane,1@TCol)]>
!b = !axe.tensor<16x64xf16, shared, Swizzle(3,1,3) o S[(16,64):(1,16)]>
!c = !axe.tensor<64x64xf32, tmem, S[(4,16,64):(32@TLane,1@TLane,1@TCol)] + 16@TLane>
module attributes {axe.target = "sm_100a"} {
  func.func @a_tmem_lane_alignment() {
    %a = axe.alloc cta : !a
    %b = axe.alloc cta : !b
    %c = axe.alloc cta : !c
    // expected-error @+1 {{mma: tmem-datapath rule: operand A's instruction tile at [0, 0] starts at lane 0, but the accumulator tile it multiplies into at lane 16; A and D share the data path and its lane alignment}}
    axe.gemm cta %a, %b, %c : !a, !b, !c
    return
  }
}
