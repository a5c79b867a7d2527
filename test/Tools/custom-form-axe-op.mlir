// An axe op written in custom form: MLIR 22's parser fails on an IRDL op written that way without any diagnostic
// (upstream mlir-opt-22 --irdl-file exits 1 silently), so the tools refused without saying why (axe-fuzz's long
// run, seeds 2614 and 2615). Now they name the op, where it is and how to write it.
// RUN: not axe-opt %s 2>&1 | FileCheck %s
// RUN: not axe-translate --emit=launch %s 2>&1 | FileCheck %s
// CHECK: custom-form-axe-op.mlir:[[@LINE+3]]:8: error: custom op 'axe.alloc' has no custom syntax: axe ops are written in MLIR's generic form ("axe.alloc"(operands) {attributes} : (types) -> types)
// CHECK-NOT: error
func.func @f() {
  %a = axe.alloc : i32
  return
}
