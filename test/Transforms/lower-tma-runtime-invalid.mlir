// --lower-tma refusals of run-time-sized global tensors (dynamic-extent rule), each at the copy (no chip named:
// TMA owns every global<->shared copy, so its refusals surface here rather than in --lower-copy).
// RUN: axe-opt --lower-tma %s --split-input-file --verify-diagnostics

// K is only known to be a multiple of 4: the row stride K * 2 bytes is a multiple of 8, not the 16 TMA needs.
!gA = !axe.tensor<?x?xf16, global, row_major>
!tile = !axe.tensor<128x64xf16, global>
!smem = !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @stride(%a: !llvm.ptr<1>, %m: i32, %k: i32) kernel {
      %ga = axe.view %a(%m, %k : i32, i32) multiples [16, 4] : !llvm.ptr<1> -> !gA
      %t = axe.slice %ga[0, 0] [128, 64] : !gA to !tile
      %s = axe.alloc cta : !smem
      // expected-error @+1 {{tma: dynamic-extent rule: the global stride of dimension 0 is d1 * 2 bytes, which the stated multiples make a multiple of 8 only; TMA needs a multiple of 16 (state larger multiples on the view) (d0 = arg1, d1 = arg2)}}
      axe.copy_async cta %s to %t : !smem to !tile
      gpu.return
    }
  }
}

// -----

// No multiples stated: nothing is known of K.
!gA = !axe.tensor<?x?xf16, global, row_major>
!tile = !axe.tensor<128x64xf16, global>
!smem = !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @no_multiples(%a: !llvm.ptr<1>, %m: i32, %k: i32) kernel {
      %ga = axe.view %a(%m, %k : i32, i32) : !llvm.ptr<1> -> !gA
      %t = axe.slice %ga[0, 0] [128, 64] : !gA to !tile
      %s = axe.alloc cta : !smem
      // expected-error @+1 {{multiple of 2 only}}
      axe.copy_async cta %s to %t : !smem to !tile
      gpu.return
    }
  }
}

// -----

// The extent is computed in the kernel by a floor division: the launch record's expressions (+, *, ceildiv, and an
// exact /) cannot say it, so the host could not encode the map. (`%m * 2` or `(%m + 1) / 2` it could.)
!gA = !axe.tensor<?x64xf16, global, row_major>
!tile = !axe.tensor<128x64xf16, global>
!smem = !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @computed(%a: !llvm.ptr<1>, %m: i32) kernel {
      %c2 = arith.constant 2 : i32
      %rows = arith.divui %m, %c2 : i32
      %ga = axe.view %a(%rows : i32) : !llvm.ptr<1> -> !gA
      %t = axe.slice %ga[0, 0] [128, 64] : !gA to !tile
      %s = axe.alloc cta : !smem
      // expected-error @+1 {{tma: dynamic-extent rule: the run-time extent of dimension 0 must be a kernel argument or an expression of them the launch can evaluate (+, *, ceildiv; the host encodes the tensor map from it at launch)}}
      axe.copy_async cta %s to %t : !smem to !tile
      gpu.return
    }
  }
}

// -----

// A launch of a kernel with a run-time-sized map: the host side is not lowered (launch from --emit=launch).
!gA = !axe.tensor<?x64xf16, global, row_major>
!tile = !axe.tensor<128x64xf16, global>
!smem = !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @launched(%a: !llvm.ptr<1>, %m: i32) kernel {
      %ga = axe.view %a(%m : i32) : !llvm.ptr<1> -> !gA
      %t = axe.slice %ga[0, 0] [128, 64] : !gA to !tile
      %s = axe.alloc cta : !smem
      // expected-error @+1 {{tma: dynamic-extent rule: kernel argument 0 is a run-time-sized tensor; encoding its map at gpu.launch_func is not lowered}}
      axe.copy_async cta %s to %t : !smem to !tile
      gpu.return
    }
  }
  func.func @host(%a: !llvm.ptr<1>, %m: i32) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@launched blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : !llvm.ptr<1>, %m : i32)
    return
  }
}
