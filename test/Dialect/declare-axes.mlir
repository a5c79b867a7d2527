// Axes beyond the built-in ones are declared with an `axe.axes` dictionary (axis name -> kind), usually on the
// module; layouts may then use them, and the verifier applies the usual rules to them.
// RUN: axe-opt %s | FileCheck %s
// RUN: axe-opt %s | axe-opt | FileCheck %s

// `quad` is a thread axis indexing threads within a warp, so a register tensor may live on it, and a warp-scope
// op may touch it.
// CHECK: module attributes {axe.axes = {quad = "thread:thread:warp"}}
// CHECK-LABEL: func.func @declared_thread_axis
// CHECK: axe.fill warp %{{.*}}, %{{.*}} : !axe.tensor<4x2xf32, reg, S[(4,2):(1@quad,1)]>, f32
module attributes {axe.axes = {quad = "thread:thread:warp"}} {
  func.func @declared_thread_axis(%v: f32) {
    %r = axe.alloc warp : !axe.tensor<4x2xf32, reg, S[(4,2):(1@quad,1)]>
    axe.fill warp %r, %v : !axe.tensor<4x2xf32, reg, S[(4,2):(1@quad,1)]>, f32
    return
  }
}
