// The verifier's barrier-index rule (issue 23): an op on an array of N > 1 barriers names one element
// (`%bars[%i]`), except axe.mbarrier_init, which without an index initializes all N; a constant index lies in
// [0, N). And the parser's: an array holds at least one barrier.
// RUN: axe-opt %s --split-input-file --verify-diagnostics

func.func @arrive_names_no_element() {
  %bars = axe.mbarrier_alloc cta : !axe.mbarrier<3>
  axe.mbarrier_init cta %bars count 1 : !axe.mbarrier<3>
  // expected-error @+1 {{axe.mbarrier_arrive on an array of 3 barriers must name one element: %bars[%i]}}
  axe.mbarrier_arrive cta %bars : !axe.mbarrier<3>
  return
}

// -----

func.func @wait_names_no_element(%p: i1) {
  %bars = axe.mbarrier_alloc cta : !axe.mbarrier<2>
  axe.mbarrier_init cta %bars count 1 : !axe.mbarrier<2>
  // expected-error @+1 {{axe.mbarrier_wait on an array of 2 barriers must name one element}}
  axe.mbarrier_wait cta %bars, %p : !axe.mbarrier<2>
  return
}

// -----

func.func @constant_index_past_the_end() {
  %c3 = arith.constant 3 : index
  %bars = axe.mbarrier_alloc cta : !axe.mbarrier<3>
  // expected-error @+1 {{axe.mbarrier_init indexes element 3 of an array of 3 barriers (valid: 0 to 2)}}
  axe.mbarrier_init cta %bars[%c3] count 1 : !axe.mbarrier<3>
  return
}

// -----

func.func @negative_constant_index() {
  %neg = arith.constant -1 : index
  %bars = axe.mbarrier_alloc cta : !axe.mbarrier<4>
  axe.mbarrier_init cta %bars count 1 : !axe.mbarrier<4>
  // expected-error @+1 {{axe.mbarrier_arrive_expect_tx indexes element -1 of an array of 4 barriers (valid: 0 to 3)}}
  axe.mbarrier_arrive_expect_tx cta %bars[%neg] bytes 64 : !axe.mbarrier<4>
  return
}

// -----

!g = !axe.tensor<64xf16, global, S[64:1]>
!s = !axe.tensor<64xf16, shared, S[64:1]>
func.func @copy_names_no_element(%g: !g, %s: !s) {
  %bars = axe.mbarrier_alloc cta : !axe.mbarrier<2>
  axe.mbarrier_init cta %bars count 1 : !axe.mbarrier<2>
  // expected-error @+1 {{axe.copy_async on an array of 2 barriers must name one element}}
  axe.copy_async cta %g to %s, %bars : !g to !s, !axe.mbarrier<2>
  return
}

// -----

func.func @empty_array() {
  // expected-error @+1 {{an mbarrier array holds at least one barrier, not 0}}
  %bars = axe.mbarrier_alloc cta : !axe.mbarrier<0>
  return
}
