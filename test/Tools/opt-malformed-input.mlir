// Malformed input gives a located diagnostic (file:line:col, the source line
// and a caret) and exit code 1, never a crash (`not` fails on a signal).
// RUN: not axe-opt %s 2>&1 | FileCheck %s
// RUN: not axe-opt < %s 2>&1 | FileCheck %s --check-prefix=STDIN

// CHECK: opt-malformed-input.mlir:[[# @LINE + 5]]:18: error: expected SSA operand
// CHECK-NEXT: {{^}}  %x = arith.addi{{$}}
// CHECK-NEXT: {{^}}                 ^{{$}}
// STDIN: <stdin>:[[# @LINE + 2]]:18: error: expected SSA operand
func.func @f() {
  %x = arith.addi
}
