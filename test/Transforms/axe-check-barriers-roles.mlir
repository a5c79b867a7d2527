// The barrier check reads warp roles (issue 25): roles run concurrently, so an arrival in one role may come before
// a wait in another (a producer's load completing a consumer's first wait is accepted), but a wait for a fresh
// barrier's first phase whose only arrivals follow it in its own role is one no role can complete: a located error.
// A barrier initialized inside a role is not initialized for the code after axe.roles (other threads skip it).
// RUN: axe-opt %s --split-input-file --axe-check-barriers --verify-diagnostics

!g = !axe.tensor<128x64xf16, global, S[(128,64):(64,1)]>
!s = !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
func.func @producer_completes_the_consumers_wait(%m: memref<8192xf16>, %p: i1) attributes {known_block_size = array<i32: 256, 1, 1>} {
  %false = arith.constant false
  %g = axe.view %m : memref<8192xf16> -> !g
  %s = axe.alloc cta : !s
  %full = axe.mbarrier_alloc cta : !axe.mbarrier
  axe.mbarrier_init cta %full count 1 : !axe.mbarrier
  axe.roles {
    axe.role wgid[0:1] {
      axe.mbarrier_wait cta %full, %false : !axe.mbarrier
    }
    axe.role warpid[4:5] {
      axe.mbarrier_arrive_expect_tx warp %full bytes 16384 : !axe.mbarrier
      axe.copy_async warp %g to %s, %full : !g to !s, !axe.mbarrier
    }
  }
  return
}

// -----

func.func @a_wait_no_role_can_complete() attributes {known_block_size = array<i32: 256, 1, 1>} {
  %false = arith.constant false
  %done = axe.mbarrier_alloc cta : !axe.mbarrier
  axe.mbarrier_init cta %done count 1 : !axe.mbarrier
  axe.roles {
    axe.role wgid[0:1] {
      // expected-error @+1 {{barrier: phase rule}}
      axe.mbarrier_wait cta %done, %false : !axe.mbarrier
      axe.mbarrier_arrive cta %done : !axe.mbarrier
    }
    axe.role wgid[1:2] {
    }
  }
  return
}

// -----

func.func @an_init_in_a_role_is_not_an_init_after_the_roles() attributes {known_block_size = array<i32: 256, 1, 1>} {
  %bar = axe.mbarrier_alloc cta : !axe.mbarrier
  axe.roles {
    axe.role wgid[0:1] {
      axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
    }
  }
  // expected-error @+1 {{barrier: init rule: axe.mbarrier_arrive uses a barrier that is not initialized on every path to it}}
  axe.mbarrier_arrive cta %bar : !axe.mbarrier
  return
}
