// The verifier's tile-loop rule (issue 25) and what axe.tile_loop's syntax refuses: two positive tile sizes, a
// positive group, and the same carried types in the initial values, the results and axe.yield.
// RUN: axe-opt %s --split-input-file --verify-diagnostics

func.func @zero_rows(%m: index, %n: index) {
  // expected-error @+1 {{the tile is two positive sizes (rows, columns), got [0, 256]}}
  axe.tile_loop (%m0, %n0) in (%m, %n) : index tile [0, 256] {
  }
  return
}

// -----

func.func @three_sizes(%m: index, %n: index) {
  // expected-error @+1 {{the tile is two positive sizes (rows, columns), got [128, 256, 64]}}
  axe.tile_loop (%m0, %n0) in (%m, %n) : index tile [128, 256, 64] {
  }
  return
}

// -----

func.func @group_zero(%m: index, %n: index) {
  // expected-error @+1 {{the group is a positive number of tile rows, got 0}}
  axe.tile_loop (%m0, %n0) in (%m, %n) : index tile [128, 256] group 0 {
  }
  return
}

// -----

func.func @yields_another_type(%m: index, %n: index, %s: i32) {
  // expected-error @+1 {{axe.yield carries (index) to the next tile, but the loop carries (i32)}}
  %r = axe.tile_loop (%m0, %n0) in (%m, %n) : index tile [128, 256] iter_args(%a = %s) -> (i32) {
    axe.yield %m0 : index
  }
  return
}

// -----

func.func @one_coordinate(%m: index, %n: index) {
  // expected-error @+1 {{expected two tile coordinates and two extents}}
  axe.tile_loop (%m0) in (%m, %n) : index tile [128, 256] {
  }
  return
}

// -----

func.func @float_extent(%m: f32, %n: f32) {
  // expected-error @+1 {{'axe.tile_loop' op operand #0 must be signless integer or index, but got 'f32'}}
  axe.tile_loop (%m0, %n0) in (%m, %n) : f32 tile [128, 256] {
  }
  return
}

// -----

func.func @yield_outside(%x: index) {
  // expected-error @+1 {{'axe.yield' op expects parent op 'axe.tile_loop'}}
  axe.yield %x : index
}
