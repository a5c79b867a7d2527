// A wrong annotation fails --verify-diagnostics with exit code 1, naming the
// unexpected diagnostic and the unproduced expectation by file:line:col.
// RUN: not axe-opt %s -verify-diagnostics 2>&1 | FileCheck %s

func.func @f(%a: f32) {
  // CHECK: opt-verify-diagnostics-mismatch.mlir:[[# @LINE + 2]]:26: error: unexpected error: custom op 'axe.annotate' expected a token of the layout notation
  // CHECK: opt-verify-diagnostics-mismatch.mlir:[[# @LINE + 2]]:6: error: expected error "this text is not in the message" was not produced
  axe.annotate %a layout("S[8:1]") : f32
  // expected-error@-1 {{this text is not in the message}}
  return
}
