// Every rule of the axe verifier, at least once; each case is one split chunk.
// RUN: axe-opt %s --split-input-file --verify-diagnostics

// layout-parses
// expected-error @+1 {{layout "S[(4,8)(8,1)]" does not parse: column 8: unexpected '(', expected one of ':' or ']'}}
func.func @layout_does_not_parse(%t: !axe.tensor<32xf16, shared, S[(4,8)(8,1)]>) {
  return
}

// -----

// layout-parses: an unclosed bracket is refused already by MLIR's lexer, which reads the type's body as a
// balanced run of tokens
// expected-error @+1 {{unbalanced '[' character in pretty dialect name}}
func.func @layout_unbalanced(%t: !axe.tensor<32xf16, shared, S[(4,8):(8,1)>) {
  return
}

// -----

// layout-parses: an unknown axis is an error of the layout crate
// expected-error @+1 {{unknown axis 'lane'}}
func.func @layout_unknown_axis(%t: !axe.tensor<32xf32, reg, S[32:1@lane]>) {
  return
}

// -----

// layout-admits-shape
// expected-error @+1 {{layout does not admit shape [128,64]: layout maps 4096 elements, shape has 8192}}
func.func @layout_does_not_admit_shape(%t: !axe.tensor<128x64xf16, shared, S[(64,64):(64,1)]>) {
  return
}

// -----

// layout-fits-memory: shared memory is addressed on m only
func.func @shared_layout_on_thread_axis() {
  // expected-error @+1 {{layout of a shared tensor must use the memory axis m only, got axis laneid}}
  %t = axe.alloc cta : !axe.tensor<32xf16, shared, S[32:1@laneid]>
  return
}

// -----

// layout-fits-memory: tensor memory is addressed on TLane/TCol
func.func @tmem_layout_on_m() {
  // expected-error @+1 {{layout of a tmem tensor must use TLane and TCol only, got axis m}}
  %t = axe.alloc cta : !axe.tensor<128x4xf32, tmem, S[(128,4):(1@TLane,1)]>
  return
}

// -----

// layout-fits-memory: registers live on thread axes plus m/reg
func.func @reg_layout_on_tmem_axis() {
  // expected-error @+1 {{layout of a reg tensor must use thread axes and m or reg only, got axis TCol}}
  %t = axe.alloc warp : !axe.tensor<32xf32, reg, S[32:1@TCol]>
  return
}

// -----

// layout-fits-memory: swizzles address memory
func.func @swizzled_registers() {
  // expected-error @+1 {{swizzled layout needs a global or shared tensor, got a reg tensor}}
  %t = axe.alloc thread : !axe.tensor<512xf16, reg, Swizzle(3,3,3) o S[512:1]>
  return
}

// -----

// scope-covers-layout: a warp-scope op cannot reach the warps of a CTA
!frag = !axe.tensor<4x32xf32, reg, S[(4,32):(1@warpid,1@laneid)]>
func.func @warp_op_on_cta_layout(%t: !frag, %v: f32) {
  // expected-error @+1 {{op at warp scope cannot touch a layout over warpid (dest): warpid indexes warps within a cta}}
  axe.fill warp %t, %v : !frag, f32
  return
}

// -----

// scope-covers-layout: a thread-scope op cannot reach other lanes
!frag = !axe.tensor<32xf32, reg, S[32:1@laneid]>
func.func @thread_op_on_warp_layout() {
  // expected-error @+1 {{op at thread scope cannot touch a layout over laneid (result): laneid indexes threads within a warp}}
  %t = axe.alloc thread : !frag
  return
}

// -----

// threads-in-scope: the subset's axis must be local to the scope
func.func @threads_outside_scope() {
  // expected-error @+1 {{thread subset must select units inside the warp scope, got warpid (warps within a cta)}}
  axe.sync warp(warpid[0:4])
  return
}

// -----

// threads-in-scope: a warp has 32 lanes
func.func @threads_range_too_large() {
  // expected-error @+1 {{thread subset range [0,40) exceeds the 32 values of laneid}}
  axe.sync warp(laneid[0:40])
  return
}

// -----

// threads-in-scope: empty range, and a memory axis is no thread subset
func.func @threads_bad_range_and_axis() {
  // expected-error @+1 {{thread subset range must satisfy 0 <= begin < end, got [4,4)}}
  axe.sync cta(warpid[4:4])
  // expected-error @+1 {{thread subset axis m is not a thread axis}}
  axe.sync cta(m[0:4])
  return
}

// -----

// dtypes-agree and shapes-agree on copy: both errors are reported
!a = !axe.tensor<64x128xf16, global, S[8192:1]>
!b = !axe.tensor<128x64xf32, shared, S[8192:1]>
func.func @copy_mismatch(%a: !a, %b: !b) {
  // expected-error @+2 {{copy source and dest dtypes must agree, got f16 and f32}}
  // expected-error @+1 {{copy source and dest shapes must agree, got [64,128] and [128,64]}}
  axe.copy cta %a to %b : !a to !b
  return
}

// -----

// shapes-agree is the copy planner's rule too (axe_layout::copy::shapes_agree, issue 21 item 4): the same 4096
// elements as [64,64] and as [4096] are refused here and by `axe-layout copy-plan` (test/Layout/copy-plan-errors.test)
!g = !axe.tensor<64x64xf16, global, S[(64,64):(64,1)]>
!s = !axe.tensor<4096xf16, shared, S[4096:1]>
func.func @copy_reshape(%g: !g, %s: !s) {
  // expected-error @+1 {{copy source and dest shapes must agree, got [64,64] and [4096]}}
  axe.copy cta %g to %s : !g to !s
  return
}

// -----

// dtypes-agree: fill value
!t = !axe.tensor<32xf32, reg, S[32:1@laneid]>
func.func @fill_value_type(%t: !t, %v: f16) {
  // expected-error @+1 {{fill value type must equal the dest dtype f32, got f16}}
  axe.fill warp %t, %v : !t, f16
  return
}

// -----

// dtypes-agree: view element type
func.func @view_element_type(%m: memref<64xf32>) {
  // expected-error @+1 {{view source element type f32 must equal the tensor dtype f16}}
  %t = axe.view %m : memref<64xf32> -> !axe.tensor<64xf16, global, S[64:1]>
  return
}

// -----

// shapes-agree: gemm is [M,K] x [K,N] -> [M,N]
!a = !axe.tensor<64x16xf16, shared, S[1024:1]>
!b = !axe.tensor<32x64xf16, shared, S[2048:1]>
!c = !axe.tensor<64x64xf32, reg, S[(128,32):(1@tid_in_wg,1)]>
func.func @gemm_shapes(%a: !a, %b: !b, %c: !c) {
  // expected-error @+1 {{gemm shapes must be a [M,K], b [K,N], c [M,N], got [64,16], [32,64], [64,64]}}
  axe.gemm warpgroup %a, %b, %c : !a, !b, !c
  return
}

// -----

// region-in-bounds
!t = !axe.tensor<128x64xf16, shared, S[8192:1]>
func.func @slice_out_of_bounds(%t: !t) {
  // expected-error @+1 {{slice region of dimension 1 must lie in [0,64), got offset 48 size 32}}
  %s = axe.slice %t[0, 48] [128, 32] : !t to !axe.tensor<128x32xf16, shared>
  return
}

// -----

// region-in-bounds: rank, result shape, dynamic offsets
!t = !axe.tensor<128x64xf16, shared, S[8192:1]>
func.func @slice_rank_and_shape(%t: !t, %k: index) {
  // expected-error @+1 {{slice region rank must equal the source rank 2, got 1 offsets and 1 sizes}}
  %a = axe.slice %t[0] [128] : !t to !axe.tensor<128xf16, shared>
  // expected-error @+1 {{slice result shape must equal the sizes [64,64], got [128,64]}}
  %b = axe.slice %t[64, 0] [64, 64] : !t to !axe.tensor<128x64xf16, shared>
  // The custom form writes each dynamic offset in its place; only the generic form can give an offset operand
  // that no offset uses.
  // expected-error @+1 {{slice has 0 dynamic offsets but 1 offset operands}}
  %c = "axe.slice"(%t, %k) {offsets = array<i64: 64, 0>, sizes = array<i64: 64, 64>} : (!t, index) -> !axe.tensor<64x64xf16, shared>
  return
}

// -----

// slice-layout-matches: rows 64..127 start at 4096, not 64
!t = !axe.tensor<128x64xf16, shared, S[(128,64):(64,1)]>
func.func @slice_wrong_layout(%t: !t) {
  // expected-error @+1 {{slice result layout is not the sliced layout: index [0,0] maps to {m:64} but the source maps index [64,0] to {m:4096}}}
  %s = axe.slice %t[64, 0] [64, 64] : !t to !axe.tensor<64x64xf16, shared, S[(64,64):(64,1)] + 64>
  return
}

// -----

// memory-scopes: alloc never makes global memory
func.func @alloc_global() {
  // expected-error @+1 {{alloc cannot allocate global memory: view a memref or pointer instead}}
  %t = axe.alloc kernel : !axe.tensor<64xf16, global, S[64:1]>
  return
}

// -----

// memory-scopes: copy_async directions and barriers
!g = !axe.tensor<64xf16, global, S[64:1]>
!s = !axe.tensor<64xf16, shared, S[64:1]>
!r = !axe.tensor<64xf16, reg, S[64:1]>
func.func @copy_async_memories(%g: !g, %s: !s, %r: !r, %bar: !axe.mbarrier) {
  // A load without a barrier is a cp.async group (completed by cp.async.wait_group): no error.
  axe.copy_async thread %g to %s : !g to !s
  // expected-error @+1 {{copy_async store to global memory completes through bulk groups and takes no barrier operand}}
  axe.copy_async thread %s to %g, %bar : !s to !g, !axe.mbarrier
  // expected-error @+1 {{copy_async must copy global to shared or shared to global, got global to reg}}
  axe.copy_async thread %g to %r, %bar : !g to !r, !axe.mbarrier
  return
}

// -----

// memory-scopes: gemm operands
!a = !axe.tensor<64x16xf16, global, S[1024:1]>
!b = !axe.tensor<16x64xf16, shared, S[1024:1]>
!c = !axe.tensor<64x64xf32, shared, S[4096:1]>
func.func @gemm_memories(%a: !a, %b: !b, %c: !c) {
  // expected-error @+2 {{gemm a must be in shared, reg or tmem, got global}}
  // expected-error @+1 {{gemm c must be in reg or tmem, got shared}}
  axe.gemm warpgroup %a, %b, %c : !a, !b, !c
  return
}

// -----

// memory-scopes: a workgroup memref holds shared data
func.func @view_workgroup_as_global(%w: memref<64xf16, #gpu.address_space<workgroup>>) {
  // expected-error @+1 {{view of workgroup memref storage must be a shared tensor, got global}}
  %t = axe.view %w : memref<64xf16, #gpu.address_space<workgroup>> -> !axe.tensor<64xf16, global, S[64:1]>
  return
}

// -----

// view-fits-storage
func.func @view_past_the_end(%m: memref<4096xf16>) {
  // expected-error @+1 {{view layout spans 8192 elements of m, but the memref holds 4096}}
  %t = axe.view %m : memref<4096xf16> -> !axe.tensor<128x64xf16, global, S[(128,64):(64,1)]>
  return
}

// -----

// counts
func.func @zero_counts() {
  %bar = axe.mbarrier_alloc cta : !axe.mbarrier
  // expected-error @+1 {{mbarrier_init count must be at least 1, got 0}}
  axe.mbarrier_init cta %bar count 0 : !axe.mbarrier
  // expected-error @+1 {{mbarrier_arrive_expect_tx bytes must be at least 1, got 0}}
  axe.mbarrier_arrive_expect_tx thread %bar bytes 0 : !axe.mbarrier
  return
}

// -----

// ODS structure: the memory is one of four words (checked while parsing the type)
// expected-error @+1 {{unknown memory 'l2': expected global, shared, tmem, reg, hbm, sbuf or psum}}
func.func @unknown_memory(%t: !axe.tensor<4xf16, l2, S[4:1]>) {
  return
}

// -----

// ODS structure: collective ops need a scope, one of six words
func.func @unknown_scope() {
  // expected-error @+1 {{unknown execution scope 'gpu': expected kernel, cluster, cta, warpgroup, warp or thread}}
  axe.sync gpu
  return
}

// -----

// ODS structure: the generic form cannot leave the scope out either
func.func @missing_scope() {
  // expected-error @+1 {{'axe.sync' op requires attribute 'scope'}}
  "axe.sync"() : () -> ()
  return
}

// -----

// memory-scopes: cast converts registers (each thread its own); shared memory is copied, not cast
!acc = !axe.tensor<32x4xf32, reg, S[(32,4):(1@laneid,1)]>
!smem = !axe.tensor<32x4xf16, shared, S[(32,4):(4,1)]>
func.func @cast_to_shared(%a: !acc, %s: !smem) {
  // expected-error @+1 {{cast works on register tensors (or Trainium's sbuf and psum), got dest in shared}}
  axe.cast warp %a to %s : !acc to !smem
  return
}

// -----

// dtypes-agree: cast narrows f32 to f16 or bf16 or widens them back; f16 to f16 is not a cast
!a = !axe.tensor<32x4xf16, reg, S[(32,4):(1@laneid,1)]>
func.func @cast_same_dtype(%x: !a, %y: !a) {
  // expected-error @+1 {{cast converts f32 to f16, bf16, f8E4M3FN or f8E5M2, or f16 or bf16 to f32, got f16 to f16}}
  axe.cast warp %x to %y : !a to !a
  return
}

// -----

// dtypes-agree: FP8 is an output format here; no cast reads it (wgmma and tcgen05 read FP8 operands directly)
!e = !axe.tensor<32x4xf8E4M3FN, reg, S[(32,4):(1@laneid,1)]>
!f = !axe.tensor<32x4xf32, reg, S[(32,4):(1@laneid,1)]>
func.func @cast_from_fp8(%x: !e, %y: !f) {
  // expected-error @+1 {{cast converts f32 to f16, bf16, f8E4M3FN or f8E5M2, or f16 or bf16 to f32, got f8E4M3FN to f32}}
  axe.cast warp %x to %y : !e to !f
  return
}

// -----

// dtypes-agree: no f16 <-> bf16 cast (go through f32)
!h = !axe.tensor<32x4xf16, reg, S[(32,4):(1@laneid,1)]>
!b = !axe.tensor<32x4xbf16, reg, S[(32,4):(1@laneid,1)]>
func.func @cast_f16_to_bf16(%x: !h, %y: !b) {
  // expected-error @+1 {{cast converts f32 to f16, bf16, f8E4M3FN or f8E5M2, or f16 or bf16 to f32, got f16 to bf16}}
  axe.cast warp %x to %y : !h to !b
  return
}

// -----

// layouts-agree: a cast keeps each element in its thread and register (a different owner is a copy)
!acc = !axe.tensor<32x4xf32, reg, S[(32,4):(1@laneid,1)]>
!out = !axe.tensor<32x4xf16, reg, S[(32,4):(1,8@laneid)]>
func.func @cast_other_layout(%a: !acc, %o: !out) {
  // expected-error @+1 {{cast source and dest must have the same layout (each element in the same thread and register), got S[(32,4):(1@laneid,1)] and S[(32,4):(1,8@laneid)]}}
  axe.cast warp %a to %o : !acc to !out
  return
}

// -----

// shapes-agree: an operand of add, mul or fma broadcasts to dest's shape (same rank, each extent equal or 1)
!x = !axe.tensor<32x4xf32, reg, S[(32,4):(1@laneid,1)]>
!y = !axe.tensor<4x32xf32, reg, S[(4,32):(1,1@laneid)]>
func.func @add_shapes(%a: !x, %b: !y, %c: !x) {
  // expected-error @+1 {{add rhs shape [4,32] does not broadcast to dest shape [32,4] (same rank, each extent equal or 1)}}
  axe.add warp %a, %b to %c : !x, !y to !x
  return
}

// -----

// shapes-agree: a column of another rank does not broadcast (numpy would align it on the last dimension)
!x = !axe.tensor<32x4xf32, reg, S[(32,4):(1@laneid,1)]>
!col = !axe.tensor<32xf32, reg, S[32:1@laneid]>
func.func @mul_rank(%a: !x, %b: !col) {
  // expected-error @+1 {{mul rhs shape [32] does not broadcast to dest shape [32,4]}}
  axe.mul warp %a, %b to %a : !x, !col to !x
  return
}

// -----

// layouts-agree: each thread must hold the operand elements its dest elements read. The m16n8 accumulator's
// lane l holds row l/4; a scale column held by lanes 0, 4, 8, ... only leaves lane 1 without its row's scale.
!acc = !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
!rows = !axe.tensor<16x1xf32, reg, S[(2,8,1):(1,4@laneid,1)]>
func.func @fma_unreplicated_rows(%p: !acc, %s: !rows, %a: !acc) {
  // expected-error @+1 {{fma b and dest: thread 1 holds dest element [0, 2] (register 0) but not the operand's element [0, 0]}}
  axe.fma warp %p, %s, %a to %a : !acc, !rows, !acc to !acc
  return
}

// -----

// layouts-agree: one instruction stream serves every thread, so a dest register reads one operand register on
// all of them. Here dest (i, j) sits on warp i in register j, while the operand's row i is register i of both
// warps: dest register 0 reads operand register 0 on warp 0 and 1 on warp 1.
!d = !axe.tensor<2x2xf32, reg, S[(2,2):(1@warpid,1)]>
!r = !axe.tensor<2x1xf32, reg, S[(2,1):(1,1)] + R[2:1@warpid]>
func.func @mul_register_by_thread(%a: !d, %b: !r) {
  // expected-error @+1 {{mul rhs and dest: dest register 0 reads operand register 0 on one thread and 1 on thread 32 (element [1, 0]): one instruction cannot serve both}}
  axe.mul cta %a, %b to %a : !d, !r to !d
  return
}

// -----

// dtypes-agree: fma takes one float dtype
!x = !axe.tensor<32x4xf32, reg, S[(32,4):(1@laneid,1)]>
!h = !axe.tensor<32x4xf16, reg, S[(32,4):(1@laneid,1)]>
func.func @fma_mixed(%a: !x, %b: !h) {
  // expected-error @+1 {{fma takes tensors of one dtype, f32, f16 or bf16, got f32, f16, f32, f32}}
  axe.fma warp %a, %b, %a to %a : !x, !h, !x to !x
  return
}

// -----

// dtypes-agree: scale works in one float dtype
!x = !axe.tensor<32x4xi32, reg, S[(32,4):(1@laneid,1)]>
func.func @scale_integers(%a: !x, %alpha: f32) {
  // expected-error @+1 {{scale takes tensors of one dtype, f32, f16 or bf16, got i32, i32}}
  axe.scale warp %a by %alpha to %a : !x to !x
  return
}

// -----

// ODS structure: the scale factor is an f32 value (the custom form reads it as f32, so an f16 value clashes with
// its definition)
!x = !axe.tensor<32x4xf16, reg, S[(32,4):(1@laneid,1)]>
// expected-note @+1 {{prior use here}}
func.func @scale_f16_alpha(%a: !x, %alpha: f16) {
  // expected-error @+1 {{use of value '%alpha' expects different type than prior uses: 'f32' vs 'f16'}}
  axe.scale warp %a by %alpha to %a : !x to !x
  return
}

// -----

// ODS structure: the same in the generic form, where the operand's type is written
!x = !axe.tensor<32x4xf16, reg, S[(32,4):(1@laneid,1)]>
func.func @scale_f16_alpha_generic(%a: !x, %alpha: f16) {
  // expected-error @+1 {{'axe.scale' op operand #2 must be 32-bit float, but got 'f16'}}
  "axe.scale"(%a, %a, %alpha) {scope = #axe.exec<warp>} : (!x, !x, f16) -> ()
  return
}

// -----

// scope-covers-layout: a warp-scope add cannot touch a layout over warps
!x = !axe.tensor<4x32xf32, reg, S[(4,32):(1@warpid,1@laneid)]>
func.func @add_scope(%a: !x) {
  // expected-error @+3 {{op at warp scope cannot touch a layout over warpid (lhs)}}
  // expected-error @+2 {{op at warp scope cannot touch a layout over warpid (rhs)}}
  // expected-error @+1 {{op at warp scope cannot touch a layout over warpid (dest)}}
  axe.add warp %a, %a to %a : !x, !x to !x
  return
}

// -----

// layout-parses on an annotation: the notation is read token by token by the parser and checked by the verifier,
// as a tensor type's layout is.
func.func @annotation_layout(%a: f32) {
  // expected-error @+1 {{layout "S[8:1]x" does not parse: column 7: unexpected 'x', expected one of '+' or '-'}}
  axe.annotate %a layout(S[8:1]x) : f32
  return
}
