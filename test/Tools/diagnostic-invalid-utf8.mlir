// A diagnostic whose text MLIR prints with bytes that are not UTF-8 (the op name below is written with a \ba
// escape, which MLIR echoes as the raw byte 0xBA) used to panic inside the diagnostic callback and abort
// (SIGABRT); it is reported, the byte replaced by U+FFFD, and the tool exits 1 (`not` fails on a crash).
// The op is written in the generic form on purpose: only a quoted op name can carry an escape (the custom form
// names ops with bare identifiers). diagnostic-invalid-utf8-layout.mlir reaches the same class through the
// custom syntax.
// RUN: not axe-opt %s 2>&1 | FileCheck %s

// CHECK: diagnostic-invalid-utf8.mlir:[[# @LINE + 3]]:8: error: unregistered operation 'axe.m{{.+}}rrier_alloc' found in dialect ('axe')
// CHECK-NOT: panicked
func.func @f() {
  %0 = "axe.m\barrier_alloc"() {scope = #axe.exec<cta>} : () -> !axe.mbarrier
  return
}
