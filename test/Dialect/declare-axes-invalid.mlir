// Malformed axis declarations, and layouts that use an axis nobody declared.
// RUN: axe-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{cannot declare axis 'lane2': axis kind 'lanes' is not memory, device or thread:UNIT:WITHIN}}
module attributes {axe.axes = {lane2 = "lanes"}} {
}

// -----

// expected-error @+1 {{cannot declare axis 'laneid': axis 'laneid' already exists with kind thread:thread:warp}}
module attributes {axe.axes = {laneid = "memory"}} {
}

// -----

// expected-error @+1 {{cannot declare axis 'w2': a thread axis indexes a scope inside another, got cta within warp}}
module attributes {axe.axes = {w2 = "thread:cta:warp"}} {
}

// -----

// expected-error @+1 {{axe.axes must be a dictionary of axis name to kind}}
module attributes {axe.axes = "quad"} {
}

// -----

// expected-error @+1 {{cannot declare axis 'q3': kind must be a string}}
module attributes {axe.axes = {q3 = 3 : i64}} {
}

// -----

// A declared thread axis still obeys the scope rule: `grp` indexes warps within a CTA, beyond a warp-scope op.
module attributes {axe.axes = {grp = "thread:warp:cta"}} {
  func.func @declared_axis_outside_scope(%v: f32) {
    %r = axe.alloc cta : !axe.tensor<4xf32, reg, S[4:1@grp]>
    // expected-error @+1 {{op at warp scope cannot touch a layout over grp (dest): grp indexes warps within a cta}}
    axe.fill warp %r, %v : !axe.tensor<4xf32, reg, S[4:1@grp]>, f32
    return
  }
}

// -----

// Never declared: the layout does not parse.
func.func @undeclared_axis() {
  // expected-error @+1 {{unknown axis 'octet'}}
  %r = axe.alloc warp : !axe.tensor<8xf32, reg, S[8:1@octet]>
  return
}
