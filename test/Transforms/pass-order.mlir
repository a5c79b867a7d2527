// Passes run in command-line order and textual pipelines are appended, not
// substituted: a Rust pass given before --pass-pipeline still runs, and so
// does one given after it. Upstream single-pass flags (--canonicalize) work too.
// RUN: axe-opt %s --axe-strip-annotations --pass-pipeline='builtin.module(canonicalize)' | FileCheck %s
// RUN: axe-opt %s --axe-strip-annotations --canonicalize --cse | FileCheck %s
// Canonicalizing first keeps the add (it still has a user), then the strip runs.
// RUN: axe-opt %s --pass-pipeline='builtin.module(canonicalize)' --axe-strip-annotations | FileCheck %s --check-prefix=AFTER
// Without the Rust pass the annotation (and so the add) survives.
// RUN: axe-opt %s --pass-pipeline='builtin.module(canonicalize)' | FileCheck %s --check-prefix=KEPT

// CHECK-LABEL: func.func @folds_after_strip
// CHECK-NEXT: return
// AFTER-LABEL: func.func @folds_after_strip
// AFTER-NEXT: arith.addf
// AFTER-NEXT: return
// KEPT: arith.addf
// KEPT-NEXT: axe.annotate
func.func @folds_after_strip(%a: f32) {
  %b = arith.addf %a, %a : f32
  "axe.annotate"(%b) {layout = #axe.layout<"S[(128,64):(64,1)]">} : (f32) -> ()
  return
}
