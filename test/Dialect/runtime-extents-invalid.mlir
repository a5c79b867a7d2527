// The run-time-extents rule (docs/dialect.md, "Run-time sizes"): run-time extents (`?` in the shape) and
// row_major only on global axe.view results over storage, one extent operand per run-time dimension,
// multiples that divide; slices of them keep static sizes and leave the layout out. Each case is one split chunk.
// RUN: axe-opt %s --split-input-file --verify-diagnostics

!dyn = !axe.tensor<?x?xf16, global, row_major>

// A well-formed view and slice verify (the slice's region past a run-time extent is the lowering's business).
// Each extent is an i32 or an index on its own, so one view may mix them (--lower-tma takes each as it is).
func.func @accepted(%a: !llvm.ptr<1>, %m: index, %k: index, %i: index, %n: i32) {
  %g = axe.view %a(%m, %k : index, index) multiples [16, 8] : !llvm.ptr<1> -> !dyn
  %h = axe.view %a(%n, %k : i32, index) : !llvm.ptr<1> -> !dyn
  %t = axe.slice %g[%i, 4096] [128, 64] : !dyn to !axe.tensor<128x64xf16, global>
  return
}

// -----

!dyn = !axe.tensor<?x?xf16, global, row_major>
func.func @missing_extent(%a: !llvm.ptr<1>, %m: i32) {
  // expected-error @+1 {{view has 2 run-time extents but 1 extent operands}}
  %g = axe.view %a(%m : i32) : !llvm.ptr<1> -> !dyn
  return
}

// -----

func.func @extent_on_static_view(%a: !llvm.ptr<1>, %m: i32) {
  // expected-error @+1 {{view has 0 run-time extents but 1 extent operands}}
  %g = axe.view %a(%m : i32) : !llvm.ptr<1> -> !axe.tensor<64xf16, global, S[64:1]>
  return
}

// -----

func.func @runtime_needs_row_major(%a: !llvm.ptr<1>, %m: i32) {
  // expected-error @+1 {{a tensor with run-time extents [?, 64] must have layout row_major, got no layout (deferred)}}
  %g = axe.view %a(%m : i32) : !llvm.ptr<1> -> !axe.tensor<?x64xf16, global>
  return
}

// -----

func.func @row_major_is_global(%s: memref<64xf16, #gpu.address_space<workgroup>>) {
  // expected-error @+1 {{run-time extents and row_major are for global tensors, got shared}}
  %g = axe.view %s : memref<64xf16, #gpu.address_space<workgroup>> -> !axe.tensor<64xf16, shared, row_major>
  return
}

// -----

!dyn = !axe.tensor<?x?xf16, global, row_major>
func.func @bad_multiples(%a: !llvm.ptr<1>, %m: i32, %k: i32) {
  // expected-error @+1 {{view multiple of dimension 1 must be at least 1 and divide a static extent, got 0 for extent ?}}
  %g = axe.view %a(%m, %k : i32, i32) multiples [16, 0] : !llvm.ptr<1> -> !dyn
  return
}

// -----

func.func @multiple_divides_static(%a: !llvm.ptr<1>, %m: i32) {
  // expected-error @+1 {{view multiple of dimension 1 must be at least 1 and divide a static extent, got 48 for extent 64}}
  %g = axe.view %a(%m : i32) multiples [16, 48] : !llvm.ptr<1> -> !axe.tensor<?x64xf16, global, row_major>
  return
}

// -----

!dyn = !axe.tensor<?x?xf16, global, row_major>
func.func @copy_of_runtime_tensor(%a: !llvm.ptr<1>, %m: i32, %k: i32, %s: !axe.tensor<64xf16, shared, S[64:1]>) {
  %g = axe.view %a(%m, %k : i32, i32) : !llvm.ptr<1> -> !dyn
  // expected-error @+2 {{copy source has run-time extents: only an axe.view result (and an axe.slice source) may, slice it to static sizes first}}
  // expected-error @+1 {{copy source and dest shapes must agree}}
  axe.copy cta %g to %s : !dyn to !axe.tensor<64xf16, shared, S[64:1]>
  return
}

// -----

!dyn = !axe.tensor<?x?xf16, global, row_major>
func.func @slice_layout_stays_deferred(%a: !llvm.ptr<1>, %m: i32, %k: i32) {
  %g = axe.view %a(%m, %k : i32, i32) : !llvm.ptr<1> -> !dyn
  // expected-error @+1 {{a slice of a row_major tensor has run-time strides: its type must leave the layout out, got S[(2,2):(2,1)]}}
  %t = axe.slice %g[0, 0] [2, 2] : !dyn to !axe.tensor<2x2xf16, global, S[(2,2):(2,1)]>
  return
}

// -----

!dyn = !axe.tensor<?x?xf16, global, row_major>
func.func @view_of_runtime_tensor(%a: !llvm.ptr<1>, %m: i32, %k: i32) {
  %g = axe.view %a(%m, %k : i32, i32) : !llvm.ptr<1> -> !dyn
  // expected-error @+2 {{view source has run-time extents}}
  // expected-error @+1 {{a view with run-time extents or layout row_major must view a memref or pointer, not a tensor}}
  %h = axe.view %g(%m, %k : i32, i32) : !dyn -> !dyn
  return
}

// -----

// A static extent is at least 1: zero is refused by the verifier, on the type and on the op's result.
func.func @zero_static_extent(%a: !llvm.ptr<1>) {
  // expected-error @+2 {{invalid tensor type: tensor extents must be at least 1 (or ?), got 0}}
  // expected-error @+1 {{invalid tensor type of result: tensor extents must be at least 1 (or ?), got 0}}
  %g = axe.view %a : !llvm.ptr<1> -> !axe.tensor<0xf16, global, row_major>
  return
}

// -----

// A negative extent cannot be written: the parser says what an extent is.
func.func @negative_static_extent(%a: !llvm.ptr<1>) {
  // expected-error @+1 {{tensor extents are positive integers or ?}}
  %g = axe.view %a : !llvm.ptr<1> -> !axe.tensor<-4xf16, global, row_major>
  return
}
