// Line offsets in annotations that point outside the file, or overflow, are annotation errors (exit 1), not a
// crash: `@+9223372036854775807` made the line arithmetic overflow (a panic, found by axe-fuzz).
// RUN: not axe-opt %s -verify-diagnostics 2>&1 | FileCheck %s

// CHECK: opt-verify-diagnostics-offsets.mlir:[[# @LINE + 1]]:4: error: '@-99' points outside the file
// expected-error@-99 {{never}}
// CHECK: opt-verify-diagnostics-offsets.mlir:[[# @LINE + 1]]:4: error: '@+9223372036854775807' points outside the file
// expected-error@+9223372036854775807 {{never}}
// CHECK: opt-verify-diagnostics-offsets.mlir:[[# @LINE + 1]]:4: error: '@-9223372036854775807' points outside the file
// expected-error@-9223372036854775807 {{never}}
func.func private @f()
