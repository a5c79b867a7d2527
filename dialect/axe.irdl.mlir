// The axe dialect: the one definition of its attributes, types and ops.
//
// Loaded at run time by axe-opt/axe-translate (axe-dialect crate, include_str!),
// by upstream tools with `mlir-opt-22 --irdl-file=dialect/axe.irdl.mlir`, and by
// C++ projects through cmake/ (axe::loadAxeDialect). All print the same text.
//
// IRDL limits in MLIR 22 (see docs/toolchain): ops use the generic syntax only,
// no traits, no terminators, no verifier hooks, no optional attributes. The
// constraints below are structural (which attribute, which type); the semantic
// rules (layouts parse and admit shapes, axes fit memory scopes, execution
// scopes nest, dtypes/shapes/regions agree) are checked by the Rust verifier
// (dialect/src/verify.rs), which axe-opt runs after parsing and after each pass.
// One constraint value per operand: two operands constrained by one SSA value
// must have equal types.
//
// Collective ops carry `scope = #axe.exec<...>` and may carry an extra
// `threads = #axe.threads<...>` attribute (IRDL cannot declare an optional
// attribute; the Rust verifier checks it). docs/dialect.md documents every
// entry with an example.

irdl.dialect @axe {
  //===--------------------------------------------------------------------===//
  // Attributes
  //===--------------------------------------------------------------------===//

  // #axe.layout<"S[...] + R[...] + n@axis">: a layout in the text notation of
  // the axe-layout crate (shard, replica, offset, optional Swizzle(M,B,S) o).
  // The single parameter is the layout text; --axe-canonicalize prints it in
  // canonical form.
  irdl.attribute @layout {
    %text = irdl.base "#builtin.string"
    irdl.parameters(text: %text)
  }

  // #axe.deferred: the layout of a slice result that --axe-slice has not
  // computed yet. Only valid as the layout of an axe.slice result (and of
  // values derived from it before --axe-slice runs).
  irdl.attribute @deferred {
    irdl.parameters()
  }

  // #axe.row_major: dense row-major over the tensor's shape, whose extents may
  // be run-time values (shape entries i64 min, MLIR's kDynamic): element x at
  // sum_i x_i * prod_{j>i} d_j. Only on global axe.view results.
  irdl.attribute @row_major {
    irdl.parameters()
  }

  // #axe.mem<"global"|"shared"|"tmem"|"reg">: where a tensor's elements live:
  // device global memory, CTA shared memory, Blackwell tensor memory, or the
  // registers of the threads named by the layout's thread axes.
  irdl.attribute @mem {
    %global = irdl.is "global"
    %shared = irdl.is "shared"
    %tmem = irdl.is "tmem"
    %reg = irdl.is "reg"
    %scope = irdl.any_of(%global, %shared, %tmem, %reg)
    irdl.parameters(scope: %scope)
  }

  // #axe.exec<"kernel"|"cluster"|"cta"|"warpgroup"|"warp"|"thread">: the
  // execution scope of a collective op: every instance of the scope (every
  // CTA of the launch for "cta") runs the op together (paper section 3.2).
  irdl.attribute @exec {
    %kernel = irdl.is "kernel"
    %cluster = irdl.is "cluster"
    %cta = irdl.is "cta"
    %warpgroup = irdl.is "warpgroup"
    %warp = irdl.is "warp"
    %thread = irdl.is "thread"
    %scope = irdl.any_of(%kernel, %cluster, %cta, %warpgroup, %warp, %thread)
    irdl.parameters(scope: %scope)
  }

  // #axe.threads<"warpid", array<i64: 0, 4>>: a thread subset of an op's
  // scope: the units whose index on the thread axis lies in [begin, end)
  // (warps 0..3 of the CTA here). The axis must index units inside the scope.
  irdl.attribute @threads {
    %axis = irdl.base "#builtin.string"
    %range = irdl.base "#builtin.dense_array"
    irdl.parameters(axis: %axis, range: %range)
  }

  //===--------------------------------------------------------------------===//
  // Types
  //===--------------------------------------------------------------------===//

  // !axe.tensor<array<i64: 128, 64>, f16, #axe.layout<"...">, #axe.mem<"shared">>:
  // a tensor of the given shape and element type whose logical index x is
  // stored at base + layout(x) in the memory scope (paper section 3.2). The
  // base is the storage of the view or alloc the tensor comes from.
  irdl.type @tensor {
    %shape = irdl.base "#builtin.dense_array"
    %dtype = irdl.any
    %known = irdl.base @axe::@layout
    %deferred = irdl.base @axe::@deferred
    %row_major = irdl.base @axe::@row_major
    %layout = irdl.any_of(%known, %deferred, %row_major)
    %mem = irdl.base @axe::@mem
    irdl.parameters(shape: %shape, dtype: %dtype, layout: %layout, mem: %mem)
  }

  // !axe.mbarrier: one mbarrier object in shared memory (PTX mbarrier), the
  // completion mechanism of axe.copy_async.
  irdl.type @mbarrier {
    irdl.parameters()
  }

  //===--------------------------------------------------------------------===//
  // Tensors: view, alloc, slice
  //===--------------------------------------------------------------------===//

  // %t = "axe.view"(%src) : (memref<128x64xf16>) -> !axe.tensor<...global>
  //
  // A tensor over existing storage: a memref or !llvm.ptr (global, or shared
  // for address space 3 / #gpu.address_space<workgroup>), or another axe
  // tensor (same storage seen with another shape or layout). Not collective.
  // A global view of a pointer or memref may have run-time extents: one
  // `extents` operand (i32 or index) per kDynamic shape entry, in order, with
  // layout #axe.row_major.
  irdl.operation @view {
    %source = irdl.any
    %i32 = irdl.is i32
    %index = irdl.is index
    %extent = irdl.any_of(%i32, %index)
    %result = irdl.base @axe::@tensor
    irdl.operands(source: %source, extents: variadic %extent)
    irdl.results(result: %result)
  }

  // %t = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !axe.tensor<...shared>
  //
  // Allocates shared, tensor-memory or register storage for one tensor per
  // instance of the scope.
  irdl.operation @alloc {
    %scope = irdl.base @axe::@exec
    %result = irdl.base @axe::@tensor
    irdl.attributes { "scope" = %scope }
    irdl.results(result: %result)
  }

  // %s = "axe.slice"(%t, %k) {offsets = array<i64: 0, -9223372036854775808>,
  //        sizes = array<i64: 128, 32>} : (!axe.tensor<...>, index) -> !axe.tensor<...>
  //
  // The rectangular region [offsets, offsets + sizes) of a tensor, on the same
  // storage. An offset equal to i64 min (MLIR's kDynamic) is taken from the
  // next `dynamic_offsets` operand, in order. The result layout is the sliced
  // layout or #axe.deferred (computed by --axe-slice). Not collective.
  irdl.operation @slice {
    %source = irdl.base @axe::@tensor
    %index = irdl.is index
    %offsets = irdl.base "#builtin.dense_array"
    %sizes = irdl.base "#builtin.dense_array"
    %result = irdl.base @axe::@tensor
    irdl.operands(source: %source, dynamic_offsets: variadic %index)
    irdl.attributes { "offsets" = %offsets, "sizes" = %sizes }
    irdl.results(result: %result)
  }

  //===--------------------------------------------------------------------===//
  // Operators with schedules
  //===--------------------------------------------------------------------===//

  // "axe.copy"(%src, %dst) {scope = #axe.exec<"cta">} : (!axe.tensor<...>, !axe.tensor<...>) -> ()
  //
  // dst[x] = src[x] for every logical index x, run by the scope together.
  // Synchronous: the data is in dst when every thread of the scope returns.
  irdl.operation @copy {
    %source = irdl.base @axe::@tensor
    %dest = irdl.base @axe::@tensor
    %scope = irdl.base @axe::@exec
    irdl.operands(source: %source, dest: %dest)
    irdl.attributes { "scope" = %scope }
  }

  // "axe.copy_async"(%src, %dst, %bar) {scope = #axe.exec<"cta">} : (..., !axe.mbarrier) -> ()
  //
  // Asynchronous dst[x] = src[x] (TMA, cp.async). A load into shared memory
  // completes on the barrier operand (its transaction count drops by the
  // bytes copied); a store from shared to global has no barrier operand.
  irdl.operation @copy_async {
    %source = irdl.base @axe::@tensor
    %dest = irdl.base @axe::@tensor
    %barrier = irdl.base @axe::@mbarrier
    %scope = irdl.base @axe::@exec
    irdl.operands(source: %source, dest: %dest, barrier: optional %barrier)
    irdl.attributes { "scope" = %scope }
  }

  // "axe.gemm"(%a, %b, %c) {scope = #axe.exec<"warpgroup">} : (MxK, KxN, MxN) -> ()
  //
  // c += a * b over the tensors' logical indices, run by the scope together
  // (mma.sync at warp scope, wgmma at warpgroup scope, tcgen05 at cta scope).
  irdl.operation @gemm {
    %a = irdl.base @axe::@tensor
    %b = irdl.base @axe::@tensor
    %c = irdl.base @axe::@tensor
    %scope = irdl.base @axe::@exec
    irdl.operands(a: %a, b: %b, c: %c)
    irdl.attributes { "scope" = %scope }
  }

  // "axe.fill"(%t, %v) {scope = #axe.exec<"warp">} : (!axe.tensor<...f32...>, f32) -> ()
  //
  // t[x] = v for every logical index x, run by the scope together.
  irdl.operation @fill {
    %dest = irdl.base @axe::@tensor
    %value = irdl.any
    %scope = irdl.base @axe::@exec
    irdl.operands(dest: %dest, value: %value)
    irdl.attributes { "scope" = %scope }
  }

  //===--------------------------------------------------------------------===//
  // Elementwise ops on register tensors (epilogues)
  //===--------------------------------------------------------------------===//

  // "axe.cast"(%src, %dst) {scope = #axe.exec<"warp">} : (!axe.tensor<...f32...>, !axe.tensor<...f16...>) -> ()
  //
  // dst[x] = src[x] converted to dst's element type (round to nearest even when narrowing): f32 -> f16 | bf16,
  // f16 | bf16 -> f32. Both are register tensors of one shape and one layout, so every thread converts its own
  // registers.
  irdl.operation @cast {
    %source = irdl.base @axe::@tensor
    %dest = irdl.base @axe::@tensor
    %scope = irdl.base @axe::@exec
    irdl.operands(source: %source, dest: %dest)
    irdl.attributes { "scope" = %scope }
  }

  // "axe.scale"(%src, %dst, %alpha) {scope = #axe.exec<"warp">} : (!axe.tensor<...>, !axe.tensor<...>, f32) -> ()
  //
  // dst[x] = alpha * src[x], computed in f32 and rounded to the dtype (f32, f16 or bf16). Register tensors of
  // one shape, dtype and layout; src and dst may be the same tensor.
  irdl.operation @scale {
    %source = irdl.base @axe::@tensor
    %dest = irdl.base @axe::@tensor
    %alpha = irdl.is f32
    %scope = irdl.base @axe::@exec
    irdl.operands(source: %source, dest: %dest, alpha: %alpha)
    irdl.attributes { "scope" = %scope }
  }

  // "axe.add"(%lhs, %rhs, %dst) {scope = #axe.exec<"warp">} : (!axe.tensor<...>, !axe.tensor<...>, !axe.tensor<...>) -> ()
  //
  // dst[x] = lhs[x] + rhs[x], computed in f32 and rounded to the dtype (f32, f16 or bf16). Register tensors of
  // one shape, dtype and layout; dst may be lhs or rhs.
  irdl.operation @add {
    %lhs = irdl.base @axe::@tensor
    %rhs = irdl.base @axe::@tensor
    %dest = irdl.base @axe::@tensor
    %scope = irdl.base @axe::@exec
    irdl.operands(lhs: %lhs, rhs: %rhs, dest: %dest)
    irdl.attributes { "scope" = %scope }
  }

  //===--------------------------------------------------------------------===//
  // Barriers
  //===--------------------------------------------------------------------===//

  // %bar = "axe.mbarrier_alloc"() {scope = #axe.exec<"cta">} : () -> !axe.mbarrier
  //
  // One mbarrier in shared memory per instance of the scope.
  irdl.operation @mbarrier_alloc {
    %scope = irdl.base @axe::@exec
    %result = irdl.base @axe::@mbarrier
    irdl.attributes { "scope" = %scope }
    irdl.results(result: %result)
  }

  // "axe.mbarrier_init"(%bar) {count = 1 : i64, scope = #axe.exec<"cta">} : (!axe.mbarrier) -> ()
  //
  // Initializes the barrier to expect `count` arrivals per phase.
  irdl.operation @mbarrier_init {
    %barrier = irdl.base @axe::@mbarrier
    %count = irdl.base "#builtin.integer"
    %scope = irdl.base @axe::@exec
    irdl.operands(barrier: %barrier)
    irdl.attributes { "count" = %count, "scope" = %scope }
  }

  // "axe.mbarrier_arrive"(%bar) {scope = #axe.exec<"warpgroup">} : (!axe.mbarrier) -> ()
  //
  // One arrival on the barrier per instance of the scope.
  irdl.operation @mbarrier_arrive {
    %barrier = irdl.base @axe::@mbarrier
    %scope = irdl.base @axe::@exec
    irdl.operands(barrier: %barrier)
    irdl.attributes { "scope" = %scope }
  }

  // "axe.mbarrier_arrive_expect_tx"(%bar) {bytes = 16384 : i64, scope = ...} : (!axe.mbarrier) -> ()
  //
  // Arrives and raises the barrier's expected transaction count by `bytes`
  // (the bytes the phase's copy_async ops will deliver).
  irdl.operation @mbarrier_arrive_expect_tx {
    %barrier = irdl.base @axe::@mbarrier
    %bytes = irdl.base "#builtin.integer"
    %scope = irdl.base @axe::@exec
    irdl.operands(barrier: %barrier)
    irdl.attributes { "bytes" = %bytes, "scope" = %scope }
  }

  // "axe.mbarrier_wait"(%bar, %phase) {scope = #axe.exec<"cta">} : (!axe.mbarrier, i1) -> ()
  //
  // Waits until the barrier's phase with parity %phase has completed.
  irdl.operation @mbarrier_wait {
    %barrier = irdl.base @axe::@mbarrier
    %phase = irdl.is i1
    %scope = irdl.base @axe::@exec
    irdl.operands(barrier: %barrier, phase: %phase)
    irdl.attributes { "scope" = %scope }
  }

  // "axe.sync"() {scope = #axe.exec<"cta">} : () -> ()
  //
  // Execution and memory barrier across the scope (bar.sync for a CTA, a named
  // barrier for a warpgroup or thread subset, __syncwarp, cluster barrier).
  irdl.operation @sync {
    %scope = irdl.base @axe::@exec
    irdl.attributes { "scope" = %scope }
  }

  //===--------------------------------------------------------------------===//
  // Annotations
  //===--------------------------------------------------------------------===//

  // "axe.annotate"(%v) {layout = #axe.layout<"...">} : (T) -> ()
  //
  // Attaches a layout to any SSA value, for documentation and debugging. It
  // has no semantics: `axe-opt --axe-strip-annotations` erases every one.
  irdl.operation @annotate {
    %any = irdl.any
    %layout = irdl.base @axe::@layout
    irdl.operands(value: %any)
    irdl.attributes { "layout" = %layout }
  }

  //===--------------------------------------------------------------------===//
  // Lowering outputs (added by --lower-tma; not written in kernels)
  //===--------------------------------------------------------------------===//

  // %d = "axe.tma_descriptor"(%g) {data_type = 6 : i32, rank = 2 : i32,
  //        global_dims = array<i64: 64, 128>, global_strides_bytes = array<i64: 128>,
  //        box_dims = array<i64: 64, 128>, element_strides = array<i64: 1, 1>,
  //        interleave = 0 : i32, swizzle = 3 : i32, l2_promotion = 2 : i32,
  //        oob_fill = 0 : i32, global_offset_bytes = 0 : i64} : (memref<128x64xf16>) -> !llvm.ptr
  //
  // Host side: encodes a CUtensorMap with cuTensorMapEncodeTiled from the
  // global storage %g (memref or pointer; globalAddress = its base plus
  // global_offset_bytes) and the explicit fields (arrays innermost dimension
  // first, enums numbered as the CUDA driver numbers them), and returns a
  // device-readable pointer to the 128-byte map for a kernel argument.
  irdl.operation @tma_descriptor {
    %global = irdl.any
    %data_type = irdl.base "#builtin.integer"
    %rank = irdl.base "#builtin.integer"
    %global_dims = irdl.base "#builtin.dense_array"
    %global_strides = irdl.base "#builtin.dense_array"
    %box_dims = irdl.base "#builtin.dense_array"
    %element_strides = irdl.base "#builtin.dense_array"
    %interleave = irdl.base "#builtin.integer"
    %swizzle = irdl.base "#builtin.integer"
    %l2_promotion = irdl.base "#builtin.integer"
    %oob_fill = irdl.base "#builtin.integer"
    %global_offset = irdl.base "#builtin.integer"
    %descriptor = irdl.any
    irdl.operands(global: %global)
    irdl.attributes {
      "data_type" = %data_type,
      "rank" = %rank,
      "global_dims" = %global_dims,
      "global_strides_bytes" = %global_strides,
      "box_dims" = %box_dims,
      "element_strides" = %element_strides,
      "interleave" = %interleave,
      "swizzle" = %swizzle,
      "l2_promotion" = %l2_promotion,
      "oob_fill" = %oob_fill,
      "global_offset_bytes" = %global_offset
    }
    irdl.results(descriptor: %descriptor)
  }
}
