// --split-input-file processes each chunk on its own: a failing chunk does
// not stop the others, its diagnostic keeps the whole file's line number, the
// outputs are joined by the split marker, and the exit code reports the failure.
// (Like mlir-opt, axe-opt splits wherever the marker text appears, so the
// checks below spell it with a regex.)
// RUN: not axe-opt %s -split-input-file 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// The same output as upstream mlir-opt, byte for byte.
// RUN: not axe-opt %s -split-input-file > %t.axe 2>/dev/null
// RUN: not mlir-opt-22 --load-dialect-plugin=%axe_plugin %s -split-input-file > %t.upstream 2>/dev/null
// RUN: diff %t.axe %t.upstream

// CHECK-LABEL: func.func @first
// CHECK-NEXT: return
// CHECK: {{^//}} -----
// CHECK-NEXT: {{^//}} -----
// CHECK-NEXT: module {
// CHECK-NEXT: func.func @third
func.func @first() {
  return
}

// -----

// ERR: opt-split-input-file.mlir:[[# @LINE + 2]]:18: error: expected SSA operand
func.func @second() {
  %x = arith.addi
}

// -----

func.func @third() {
  return
}
