// Run-time stages --lower-mma refuses: the error is at the gemm and names the planner's rule with the numbers.
// RUN: axe-opt %s --split-input-file --lower-mma --verify-diagnostics

// The row offset is only known to be a multiple of 1: one row of the 128B-swizzled ring is 128 bytes, so a start
// could land mid-pattern, where base offset 0 is wrong.
!ringA = !axe.tensor<192x64xf16, shared, Swizzle(3,3,3) o S[(192,64):(64,1)]>
!b = !axe.tensor<64x16xf16, shared, Swizzle(3,3,3) o S[(64,16):(1,64)]>
!a = !axe.tensor<64x64xf16, shared>
!c = !axe.tensor<64x16xf32, reg, S[(4,2,8,2,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
!regs = memref<8xf32, #gpu.address_space<private>>
gpu.module @kernels attributes {axe.target = "sm_90a"} {
  gpu.func @any_row(%r: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %ring_a = axe.alloc cta : !ringA
    %b = axe.alloc cta : !b
    %a = axe.slice %ring_a[%r, 0] [64, 64] : !ringA to !a
    %acc = memref.alloca() : !regs
    %c = axe.view %acc : !regs -> !c
    // expected-error @+1 {{mma: dynamic-start rule: operand A moves along ring dimension 0 by a run-time offset known to be a multiple of 1, 128 bytes per step of 1 elements: its matrix starts would move by multiples of 128 bytes, not of the 1024-byte repeat of its 128B layout (base offset 0 would be wrong)}}
    axe.gemm warpgroup %a, %b, %c : !a, !b, !c
    gpu.return
  }
}

// -----

// A ring whose stages are not whole digits of the row dimension: stages of 64 rows in a ring of 96-row panels
// (S[(2,96,64):(8192,64,1)] over [192, 64]), moved by multiples of 64 rows.
!ringA = !axe.tensor<192x64xf16, shared, Swizzle(3,3,3) o S[(2,96,64):(8192,64,1)]>
!b = !axe.tensor<64x16xf16, shared, Swizzle(3,3,3) o S[(64,16):(1,64)]>
!a = !axe.tensor<64x64xf16, shared>
!c = !axe.tensor<64x16xf32, reg, S[(4,2,8,2,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
!regs = memref<8xf32, #gpu.address_space<private>>
gpu.module @kernels attributes {axe.target = "sm_90a"} {
  gpu.func @mid_panel(%s: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c64 = arith.constant 64 : index
    %r = arith.muli %s, %c64 : index
    %ring_a = axe.alloc cta : !ringA
    %b = axe.alloc cta : !b
    %a = axe.slice %ring_a[%r, 0] [64, 64] : !ringA to !a
    %acc = memref.alloca() : !regs
    %c = axe.view %acc : !regs -> !c
    // expected-error @+1 {{mma: dynamic-start rule: operand A's ring: dimension 0 moves by a run-time offset known to be a multiple of 64, but the layout's outermost digit of that dimension (extent 2, stride 8192) steps every 96 elements: the offset must be a multiple of 96 to move whole stages}}
    axe.gemm warpgroup %a, %b, %c : !a, !b, !c
    gpu.return
  }
}
