// Axe ops declare their memory effects (issue 23), so upstream canonicalize, CSE and DCE treat them as they
// should: views and slices are pure (an unused one is removed, two equal ones are one), an unused alloc is dead
// (it allocates its result and nothing else), and every op that reads or writes memory, synchronizes or
// annotates stays, even when nothing uses a result of it (two equal copies are two copies).
// RUN: axe-opt --canonicalize --cse %s | FileCheck %s

!g = !axe.tensor<128x64xf16, global, S[(128,64):(64,1)]>
!t = !axe.tensor<64x64xf16, global>
!s = !axe.tensor<64x64xf16, shared, S[(64,64):(64,1)]>
// CHECK-LABEL: func.func @effects
// CHECK-SAME: (%[[M:.*]]: memref<8192xf16>, %[[I:.*]]: index)
// CHECK-NEXT: %[[G:.*]] = axe.view %[[M]] : memref<8192xf16> -> !axe.tensor<128x64xf16, global, S[(128,64):(64,1)]>
// CHECK-NEXT: %[[A:.*]] = axe.slice %[[G]][0, 0] [64, 64]
// CHECK-NEXT: %[[S:.*]] = axe.alloc cta
// CHECK-NEXT: axe.copy cta %[[A]] to %[[S]]
// CHECK-NEXT: axe.copy cta %[[A]] to %[[S]]
// CHECK-NEXT: axe.sync cta
// CHECK-NEXT: axe.annotate %[[I]] layout(S[1:1]) : index
// CHECK-NEXT: return
func.func @effects(%m: memref<8192xf16>, %i: index) {
  %g = axe.view %m : memref<8192xf16> -> !g
  %unused_view = axe.view %m : memref<8192xf16> -> !g
  %unused = axe.slice %g[%i, 0] [64, 64] : !g to !t
  %a = axe.slice %g[0, 0] [64, 64] : !g to !t
  %b = axe.slice %g[0, 0] [64, 64] : !g to !t
  %s = axe.alloc cta : !s
  %dead = axe.alloc cta : !s
  %dead_bars = axe.mbarrier_alloc cta : !axe.mbarrier<2>
  axe.copy cta %a to %s : !t to !s
  axe.copy cta %b to %s : !t to !s
  axe.sync cta
  axe.annotate %i layout(S[1:1]) : index
  return
}
