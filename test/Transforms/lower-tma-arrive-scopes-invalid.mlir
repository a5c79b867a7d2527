// Barrier ops --lower-tma refuses by scope: an arrive runs once per instance of cta, warpgroup, warp or thread
// scope (not a cluster: a remote arrival is another op's job); init and expect_tx are one thread's work for the
// CTA (cta scope); no barrier op but the wait takes a thread subset. Each error is at the op, exit code 1.
// RUN: axe-opt %s --split-input-file --lower-tma --verify-diagnostics
// RUN: not axe-opt %s --split-input-file --lower-tma -o %t.out 2>&1 | FileCheck %s --check-prefix=EXIT
// EXIT: error: tma: axe.mbarrier_arrive arrives once per instance of its scope

func.func @cluster_arrive(%s: index) {
  %bars = axe.mbarrier_alloc cta : !axe.mbarrier<2>
  axe.mbarrier_init cta %bars count 1 : !axe.mbarrier<2>
  // expected-error @+1 {{tma: axe.mbarrier_arrive arrives once per instance of its scope: cta, warpgroup, warp or thread, got cluster}}
  axe.mbarrier_arrive cluster %bars[%s] : !axe.mbarrier<2>
  return
}

// -----

func.func @warp_init() {
  %bar = axe.mbarrier_alloc cta : !axe.mbarrier
  // expected-error @+1 {{tma: axe.mbarrier_init must run at cta scope, got warp}}
  axe.mbarrier_init warp %bar count 1 : !axe.mbarrier
  return
}

// -----

!g = !axe.tensor<64x64xf16, global, S[(64,64):(64,1)]>
!s = !axe.tensor<64x64xf16, shared, Swizzle(3,3,3) o S[(64,64):(64,1)]>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @warpgroup_expect_tx(%m: memref<4096xf16>) kernel {
      %g = axe.view %m : memref<4096xf16> -> !g
      %s = axe.alloc cta : !s
      %bar = axe.mbarrier_alloc cta : !axe.mbarrier
      axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
      // expected-error @+1 {{tma: axe.mbarrier_arrive_expect_tx must run at cta scope, got warpgroup}}
      axe.mbarrier_arrive_expect_tx warpgroup %bar bytes 8192 : !axe.mbarrier
      axe.copy_async cta %g to %s, %bar : !g to !s, !axe.mbarrier
      gpu.return
    }
  }
}

// -----

func.func @arrive_on_a_thread_subset() {
  %bar = axe.mbarrier_alloc cta : !axe.mbarrier
  axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
  // expected-error @+1 {{tma: axe.mbarrier_arrive with a thread subset is not supported}}
  axe.mbarrier_arrive cta(warpid[0:1]) %bar : !axe.mbarrier
  return
}

