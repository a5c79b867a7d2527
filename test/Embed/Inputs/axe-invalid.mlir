// The hand-written parsers' diagnostics (dialect/cpp/AxeDialect.cpp) reach upstream mlir-opt through the plugin:
// checked by test/Embed/cmake-package.test with --verify-diagnostics --split-input-file.

// expected-error @+1 {{unknown memory 'sram': expected global, shared, tmem, reg, hbm, sbuf or psum}}
func.func @memory(%t: !axe.tensor<8xf16, sram, S[8:1]>) {
  return
}

// -----

func.func @scope() {
  // expected-error @+1 {{unknown execution scope 'block': expected kernel, cluster, cta, warpgroup, warp or thread}}
  axe.sync block
  return
}

// -----

// expected-error @+1 {{an mbarrier array holds at least one barrier, not 0}}
func.func @barriers(%b: !axe.mbarrier<0>) {
  return
}

// -----

func.func @layout(%a: f32) {
  // expected-error @+1 {{unbalanced ']' in layout}}
  axe.annotate %a layout(S[8:1]]) : f32
  return
}
