// Passes run in command-line order, axe's and upstream's alike, as flags or
// named in one --pass-pipeline (mlir-opt's rule: a pipeline and pass flags do
// not mix, so axe passes are nameable in pipeline text).
// RUN: axe-opt %s --pass-pipeline='builtin.module(axe-strip-annotations,canonicalize)' | FileCheck %s
// RUN: axe-opt %s --axe-strip-annotations --canonicalize --cse | FileCheck %s
// Canonicalizing first keeps the add (it still has a user), then the strip runs.
// RUN: axe-opt %s --pass-pipeline='builtin.module(canonicalize,axe-strip-annotations)' | FileCheck %s --check-prefix=AFTER
// RUN: axe-opt %s --canonicalize --axe-strip-annotations | FileCheck %s --check-prefix=AFTER
// Without the Rust pass the annotation (and so the add) survives.
// RUN: axe-opt %s --pass-pipeline='builtin.module(canonicalize)' | FileCheck %s --check-prefix=KEPT
// Mixing them is mlir-opt's command-line error.
// RUN: not axe-opt %s --axe-strip-annotations --pass-pipeline='builtin.module(canonicalize)' 2>&1 | FileCheck %s --check-prefix=MIXED
// MIXED: '-pass-pipeline' option can't be used with individual pass options

// CHECK-LABEL: func.func @folds_after_strip
// CHECK-NEXT: return
// AFTER-LABEL: func.func @folds_after_strip
// AFTER-NEXT: arith.addf
// AFTER-NEXT: return
// KEPT: arith.addf
// KEPT-NEXT: axe.annotate
func.func @folds_after_strip(%a: f32) {
  %b = arith.addf %a, %a : f32
  axe.annotate %b layout(S[(128,64):(64,1)]) : f32
  return
}
