//===- Axe.td - the axe dialect: attributes, types and ops -*- tablegen -*-===//
//
// The one definition of the axe dialect. Built into the Rust tools by dialect/build.rs (mlir-tblgen-22 into
// OUT_DIR, compiled with cpp/AxeDialect.cpp), into the CMake package for C++ projects (cmake/: a library with
// the generated headers, and an `mlir-opt-22 --load-dialect-plugin` module), and into docs by -gen-op-doc.
//
// The structure is checked here (which operand is a tensor or a barrier, which attribute an op carries); the
// semantic rules (layouts parse and admit shapes, axes fit memory scopes, execution scopes nest, dtypes, shapes
// and regions agree, barrier indices and phases) are checked in Rust, by dialect/src/verify.rs, which axe-opt
// runs after parsing and after each pass: one place for each rule.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_TD
#define AXE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Axe_Dialect : Dialect {
  let name = "axe";
  let cppNamespace = "::mlir::axe";
  let summary = "Layout-aware tensors, collective copies and tensor-core ops for GPUs";
  let description = [{
    An axe tensor is a shape, an element type, a memory (global, shared, tensor memory or registers on a GPU;
    hbm, sbuf or psum on Trainium) and a
    layout: the map from each logical index to coordinates on named hardware axes, written in the Axe layout
    notation (`S[(128,64):(64,1)]`, with replicas `R[...]`, offsets `n@axis` and swizzles `Swizzle(M,B,S) o`).
    Collective ops name the execution scope that runs them together (`cta`, `warpgroup`, `warp`, ...).
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Axe_MemorySpace : I32EnumAttr<"MemorySpace", "where a tensor's elements live", [
    I32EnumAttrCase<"global", 0>, I32EnumAttrCase<"shared", 1>, I32EnumAttrCase<"tmem", 2>,
    I32EnumAttrCase<"reg", 3>, I32EnumAttrCase<"hbm", 4>, I32EnumAttrCase<"sbuf", 5>,
    I32EnumAttrCase<"psum", 6>]> {
  let cppNamespace = "::mlir::axe";
  let genSpecializedAttr = 0;
}

def Axe_ExecScope : I32EnumAttr<"ExecScope", "the threads that run a collective op together", [
    I32EnumAttrCase<"kernel", 0>, I32EnumAttrCase<"cluster", 1>, I32EnumAttrCase<"cta", 2>,
    I32EnumAttrCase<"warpgroup", 3>, I32EnumAttrCase<"warp", 4>, I32EnumAttrCase<"thread", 5>]> {
  let cppNamespace = "::mlir::axe";
  let genSpecializedAttr = 0;
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

class Axe_Attr<string name, string attrMnemonic> : AttrDef<Axe_Dialect, name> {
  let mnemonic = attrMnemonic;
}

def Axe_LayoutAttr : Axe_Attr<"Layout", "layout"> {
  let summary = "a layout in the Axe notation";
  let description = [{
    `#axe.layout<S[(128,64):(64,1)] + R[4:1@warpid] + 3@m>`: shard, replica and offset, optionally under a
    swizzle (`Swizzle(3,4,3) o S[...]`). The text is written unquoted; the parser keeps it token by token,
    with the notation's own spacing (` + ` between terms, ` o ` after a swizzle), so that it prints back
    byte-identical. The Rust verifier parses and checks it; `--axe-canonicalize` rewrites it canonically.
  }];
  let parameters = (ins StringRefParameter<"the layout text">:$text);
  let hasCustomAssemblyFormat = 1;
}

def Axe_ExecAttr : EnumAttr<Axe_Dialect, Axe_ExecScope, "exec"> {
  let summary = "the execution scope of a collective op";
  let assemblyFormat = "`<` $value `>`";
}

def Axe_ThreadsAttr : Axe_Attr<"Threads", "threads"> {
  let summary = "a subset of the threads of an op's scope";
  let description = [{
    `#axe.threads<warpid[0:4]>`: the units whose index on the thread axis lies in the half-open range
    [begin, end) (warps 0 to 3 of the CTA here). In an op's custom form it follows the scope:
    `axe.copy cta(warpid[0:4]) ...`.
  }];
  let parameters = (ins StringRefParameter<"the thread axis">:$axis, "int64_t":$begin, "int64_t":$end);
  let hasCustomAssemblyFormat = 1;
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

class Axe_Type<string name, string typeMnemonic> : TypeDef<Axe_Dialect, name> {
  let mnemonic = typeMnemonic;
}

def Axe_TensorType : Axe_Type<"Tensor", "tensor"> {
  let summary = "a tensor with a layout, in a memory";
  let description = [{
    `!axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>`: a tensor of the shape and element
    type whose logical index x is stored at base + layout(x) in the memory (paper section 3.2). The layout is
    one of:
    - the notation (as in `#axe.layout`);
    - `row_major`: dense row-major over the shape, whose extents may be run-time values (`?`); only on global
      `axe.view` results (docs/dialect.md, "Run-time sizes");
    - nothing: the layout of a slice result that `--axe-slice` has not computed yet.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t", "shape; ShapedType::kDynamic for `?`">:$shape,
                        "::mlir::Type":$elementType,
                        "::mlir::axe::MemorySpace":$memory,
                        StringRefParameter<"layout text; `row_major`; or empty (deferred)">:$layout);
  let hasCustomAssemblyFormat = 1;
}

def Axe_MbarrierType : Axe_Type<"Mbarrier", "mbarrier"> {
  let summary = "an array of mbarriers in shared memory";
  let description = [{
    `!axe.mbarrier` (one barrier) or `!axe.mbarrier<3>` (three, indexed at run time: `%bars[%stage]`): PTX
    mbarrier objects, the completion mechanism of `axe.copy_async`.
  }];
  let parameters = (ins "int64_t":$count);
  let hasCustomAssemblyFormat = 1;
}

def Axe_AnyTensor : Type<CPred<"::llvm::isa<::mlir::axe::TensorType>($_self)">, "axe tensor",
                         "::mlir::axe::TensorType">;
def Axe_AnyMbarrier : Type<CPred<"::llvm::isa<::mlir::axe::MbarrierType>($_self)">, "axe mbarrier",
                           "::mlir::axe::MbarrierType">;

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

class Axe_Op<string mnemonic, list<Trait> traits = []> : Op<Axe_Dialect, mnemonic, traits>;

// A collective op: run by every thread of `scope` (optionally only the `threads` subset of it) together. Its
// custom form writes the scope right after the op name: `axe.copy warpgroup ...`, `axe.copy cta(warpid[0:4]) ...`.
class Axe_CollectiveOp<string mnemonic, list<Trait> traits = []> : Axe_Op<mnemonic, traits> {
  dag scopeArgs = (ins Axe_ExecAttr:$scope, OptionalAttr<Axe_ThreadsAttr>:$threads);
}

// What the collective ops that touch memory do: they read and write it, so canonicalize, CSE and DCE keep them.
defvar Axe_ReadsWrites = MemoryEffects<[MemRead, MemWrite]>;

def Axe_ViewOp : Axe_Op<"view", [Pure]> {
  let summary = "a tensor over existing storage";
  let description = [{
    ```mlir
    %g = axe.view %a(%m, %k : i32, i32) multiples [16, 16] : !llvm.ptr<1> -> !axe.tensor<?x?xf16, global, row_major>
    %s = axe.view %smem : memref<128x64xf16, 3> -> !axe.tensor<128x64xf16, shared, S[(128,64):(64,1)]>
    ```
    A tensor over a memref, an `!llvm.ptr` (global, or shared for address space 3) or another axe tensor (the
    same storage with another shape or layout). A global view of a pointer or memref may have run-time extents:
    one `i32` or `index` operand per `?` in the shape, in order, with layout `row_major`; `multiples` states
    that each extent is a multiple of the given number (a precondition the launch checks). Not collective.
  }];
  let arguments = (ins AnyType:$source, Variadic<AnyTypeOf<[I32, Index]>>:$extents,
                       OptionalAttr<DenseI64ArrayAttr>:$multiples);
  let results = (outs Axe_AnyTensor:$result);
  let assemblyFormat = [{
    $source (`(` $extents^ `:` type($extents) `)`)? (`multiples` $multiples^)? attr-dict
    `:` type($source) `->` qualified(type($result))
  }];
}

def Axe_AllocOp : Axe_CollectiveOp<"alloc"> {
  let summary = "shared, tensor-memory or register storage for a tensor";
  let description = [{
    ```mlir
    %ring = axe.alloc cta : !axe.tensor<384x64xf16, shared, Swizzle(3,3,3) o S[(384,64):(64,1)]>
    ```
    One tensor per instance of the scope.
  }];
  let arguments = scopeArgs;
  // It allocates its result (and nothing else): an unused alloc is dead code that canonicalize and DCE remove.
  let results = (outs Res<Axe_AnyTensor, "", [MemAlloc]>:$result);
  let assemblyFormat = "custom<Scope>($scope, $threads) attr-dict `:` qualified(type($result))";
}

def Axe_SliceOp : Axe_Op<"slice", [Pure]> {
  let summary = "a rectangular region of a tensor";
  let description = [{
    ```mlir
    %tile = axe.slice %g[%m0, 0] [128, 64] : !axe.tensor<?x?xf16, global, row_major> to !axe.tensor<128x64xf16, global>
    ```
    The region [offsets, offsets + sizes) of a tensor, on the same storage; offsets are constants or `index`
    values (as in `memref.subview`). The result layout is the sliced layout, or left out for `--axe-slice` to
    compute. Not collective.
  }];
  let arguments = (ins Axe_AnyTensor:$source, Variadic<Index>:$dynamic_offsets, DenseI64ArrayAttr:$offsets,
                       DenseI64ArrayAttr:$sizes);
  let results = (outs Axe_AnyTensor:$result);
  let assemblyFormat = [{
    $source `` custom<DynamicIndexList>($dynamic_offsets, $offsets) $sizes attr-dict
    `:` qualified(type($source)) `to` qualified(type($result))
  }];
}

def Axe_CopyOp : Axe_CollectiveOp<"copy", [Axe_ReadsWrites]> {
  let summary = "a collective copy";
  let description = [{
    ```mlir
    axe.copy warpgroup %acc to %smem : !axe.tensor<128x128xf16, reg, ...> to !axe.tensor<128x128xf16, shared, ...>
    axe.copy cta %part to %sum {reduce = "sum"} : ... to ...
    ```
    dest[x] = source[x] for every logical index x, run by the scope together; `--lower-copy` picks the
    instructions (ld/st vectors, ldmatrix/stmatrix, cp.async, tcgen05.ld/st, shuffles) and
    `--lower-collectives` the transfers between devices (`reduce` = "sum" or "max" reduces into dest).
  }];
  let arguments = !con((ins Axe_AnyTensor:$source, Axe_AnyTensor:$dest, OptionalAttr<StrAttr>:$reduce), scopeArgs);
  let assemblyFormat = [{
    custom<Scope>($scope, $threads) $source `to` $dest attr-dict
    `:` qualified(type($source)) `to` qualified(type($dest))
  }];
}

def Axe_CopyAsyncOp : Axe_CollectiveOp<"copy_async", [Axe_ReadsWrites, AttrSizedOperandSegments]> {
  let summary = "an asynchronous copy that completes on an mbarrier";
  let description = [{
    ```mlir
    axe.copy_async cta %tile to %stage, %bars[%s] : !tileA to !stageA, !axe.mbarrier<3>
    axe.copy_async cta %smem to %tile : !smemC to !tileC
    ```
    A global -> shared copy (TMA or cp.async) completes on the barrier (element `%s` of a barrier array) as
    transactions; a shared -> global copy (TMA store) has no barrier.
  }];
  let arguments = !con((ins Axe_AnyTensor:$source, Axe_AnyTensor:$dest, Optional<Axe_AnyMbarrier>:$barrier,
                            Optional<Index>:$index), scopeArgs);
  let assemblyFormat = [{
    custom<Scope>($scope, $threads) $source `to` $dest (`,` $barrier^ `` custom<BarrierIndex>($index))? attr-dict
    `:` qualified(type($source)) `to` qualified(type($dest)) (`,` qualified(type($barrier))^)?
  }];
}

def Axe_CopyStagedOp : Axe_CollectiveOp<"copy_staged", [Axe_ReadsWrites]> {
  let summary = "a register tile stored to global memory through a smaller shared buffer, a piece at a time";
  let description = [{
    ```mlir
    axe.copy_staged cta(wgid[0:2]) %out to %tile through %buf : !out to !tileC through !smemC
    ```
    An epilogue store: the source (registers) is cut into pieces of the buffer's shape, in row-major order; for
    each piece the scope synchronizes (the previous piece's store has read the buffer), writes the piece into
    the buffer and stores the buffer to its region of dest (a TMA store, waited for its reads). A tile larger
    than the shared memory left beside a pipeline's ring goes out through one small buffer. `--lower-staged-copies`
    writes the pieces as `axe.sync`, `axe.copy` and `axe.copy_async`.

    With `stages S` the buffer holds S pieces along its first dimension and the pieces take them in turn: piece
    p is written while the stores of the S - 1 pieces before it may still be reading theirs (each store then
    waits only for all but the newest S - 1 stores' reads; the last waits for all).
  }];
  let arguments = !con((ins Axe_AnyTensor:$source, Axe_AnyTensor:$dest, Axe_AnyTensor:$buffer,
                            OptionalAttr<I64Attr>:$stages), scopeArgs);
  let assemblyFormat = [{
    custom<Scope>($scope, $threads) $source `to` $dest `through` $buffer (`stages` $stages^)? attr-dict
    `:` qualified(type($source)) `to` qualified(type($dest)) `through` qualified(type($buffer))
  }];
}

def Axe_GemmOp : Axe_CollectiveOp<"gemm", [Axe_ReadsWrites]> {
  let summary = "c += a * b on tensor cores";
  let description = [{
    ```mlir
    axe.gemm warpgroup %a, %b, %acc : !stageA, !stageB, !acc
    ```
    c += a * b over the tensors' logical indices (a is MxK, b KxN, c MxN), run by the scope together:
    mma.sync at warp scope, wgmma at warpgroup scope, tcgen05 at cta scope (`--lower-mma`). With
    `{accumulate = false}`, c = a * b: c's old contents are not read (Trainium's `nc_matmul` overwriting its PSUM
    tile; no GPU lowering takes it yet).
  }];
  let arguments = !con((ins Axe_AnyTensor:$a, Axe_AnyTensor:$b, Axe_AnyTensor:$c, OptionalAttr<BoolAttr>:$accumulate),
                       scopeArgs);
  let assemblyFormat = [{
    custom<Scope>($scope, $threads) $a `,` $b `,` $c attr-dict
    `:` qualified(type($a)) `,` qualified(type($b)) `,` qualified(type($c))
  }];
}

def Axe_FillOp : Axe_CollectiveOp<"fill", [Axe_ReadsWrites]> {
  let summary = "every element set to a scalar";
  let description = [{
    ```mlir
    axe.fill warpgroup %acc, %zero : !acc, f32
    ```
  }];
  let arguments = !con((ins Axe_AnyTensor:$dest, AnyType:$value), scopeArgs);
  let assemblyFormat = [{
    custom<Scope>($scope, $threads) $dest `,` $value attr-dict `:` qualified(type($dest)) `,` type($value)
  }];
}

def Axe_CastOp : Axe_CollectiveOp<"cast", [Axe_ReadsWrites]> {
  let summary = "elementwise conversion of a register tensor";
  let description = [{
    ```mlir
    axe.cast warpgroup %acc to %out : !axe.tensor<128x128xf32, reg, ...> to !axe.tensor<128x128xf16, reg, ...>
    ```
    dest[x] = source[x] converted to dest's element type (round to nearest even when narrowing): f32 -> f16 or
    bf16, f32 -> f8E4M3FN or f8E5M2 (saturating to the largest finite value, `cvt.rn.satfinite`), f16 or bf16 ->
    f32. Both are register tensors of one shape and one layout.
  }];
  let arguments = !con((ins Axe_AnyTensor:$source, Axe_AnyTensor:$dest), scopeArgs);
  let assemblyFormat = [{
    custom<Scope>($scope, $threads) $source `to` $dest attr-dict
    `:` qualified(type($source)) `to` qualified(type($dest))
  }];
}

def Axe_ScaleOp : Axe_CollectiveOp<"scale", [Axe_ReadsWrites]> {
  let summary = "dest = alpha * source on register tensors";
  let description = [{
    ```mlir
    axe.scale warp %acc by %alpha to %out : !acc to !acc
    ```
  }];
  let arguments = !con((ins Axe_AnyTensor:$source, Axe_AnyTensor:$dest, F32:$alpha), scopeArgs);
  let assemblyFormat = [{
    custom<Scope>($scope, $threads) $source `by` $alpha `to` $dest attr-dict
    `:` qualified(type($source)) `to` qualified(type($dest))
  }];
}

// An elementwise op of two tensors into a third: `axe.<op> <scope> %lhs, %rhs to %dest`.
class Axe_BinaryOp<string mnemonic> : Axe_CollectiveOp<mnemonic, [Axe_ReadsWrites]> {
  let arguments = !con((ins Axe_AnyTensor:$lhs, Axe_AnyTensor:$rhs, Axe_AnyTensor:$dest), scopeArgs);
  let assemblyFormat = [{
    custom<Scope>($scope, $threads) $lhs `,` $rhs `to` $dest attr-dict
    `:` qualified(type($lhs)) `,` qualified(type($rhs)) `to` qualified(type($dest))
  }];
}

def Axe_AddOp : Axe_BinaryOp<"add"> {
  let summary = "dest = lhs + rhs on register tensors";
  let description = [{
    ```mlir
    axe.add warp %x, %y to %x : !t, !t to !t
    ```
    Computed in f32 and rounded to the element type (f32, f16 or bf16). dest may be lhs or rhs. Operands broadcast
    as `axe.mul`'s do.
  }];
}

def Axe_SubOp : Axe_BinaryOp<"sub"> {
  let summary = "dest = lhs - rhs";
  let description = [{
    ```mlir
    axe.sub kernel %scores, %row_max to %shifted : !s, !rows to !s
    ```
    Computed in f32 and rounded to the element type; operands broadcast as `axe.mul`'s do.
  }];
}

def Axe_MulOp : Axe_BinaryOp<"mul"> {
  let summary = "dest = lhs * rhs on register tensors";
  let description = [{
    ```mlir
    axe.mul cta %scale_a, %scale_b to %scale : !rows, !one to !rows
    ```
    Computed in f32 and rounded to the element type (f32, f16 or bf16). An operand may broadcast over dimensions
    of extent 1 (numpy's rule, same rank), and may be laid out differently from dest as long as each thread holds,
    in its own registers, every operand element its dest elements read (rule `layouts-agree`).
  }];
}

def Axe_MaxOp : Axe_BinaryOp<"max"> {
  let summary = "dest = max(lhs, rhs), elementwise";
  let description = [{
    ```mlir
    axe.max kernel %m, %tile_max to %m_new : !rows, !rows to !rows
    ```
    Operands broadcast as `axe.mul`'s do. (A reduction over a dimension is `axe.reduce`.)
  }];
}

def Axe_DivOp : Axe_BinaryOp<"div"> {
  let summary = "dest = lhs / rhs";
  let description = [{
    ```mlir
    axe.div kernel %o, %l to %out : !o, !rows to !out16
    ```
    Computed in f32 (IEEE division) and rounded to dest's element type; operands broadcast as `axe.mul`'s do.
  }];
}

def Axe_ExpOp : Axe_CollectiveOp<"exp", [Axe_ReadsWrites]> {
  let summary = "dest = e^source, elementwise";
  let description = [{
    ```mlir
    axe.exp kernel %shifted to %p : !s to !s
    ```
    Computed in f32 and rounded to dest's element type. Trainium's Scalar Engine computes it (NKI `nl.exp`); no
    GPU lowering has it yet.
  }];
  let arguments = !con((ins Axe_AnyTensor:$source, Axe_AnyTensor:$dest), scopeArgs);
  let assemblyFormat = [{
    custom<Scope>($scope, $threads) $source `to` $dest attr-dict
    `:` qualified(type($source)) `to` qualified(type($dest))
  }];
}

def Axe_ReduceOp : Axe_CollectiveOp<"reduce", [Axe_ReadsWrites]> {
  let summary = "dest = the max or sum of source over the dimensions where dest has extent 1";
  let description = [{
    ```mlir
    axe.reduce kernel "max" %scores to %row_max : !axe.tensor<128x128xf32, sbuf, ...> to !axe.tensor<128x1xf32, sbuf, ...>
    ```
    dest has source's rank; each dimension of extent 1 in dest (and not in source) is reduced, in f32. `max` or
    `sum`. Trainium's Vector Engine reduces along the free axis (NKI `nl.max`/`nl.sum` over an axis); no GPU
    lowering has it yet.
  }];
  let arguments = !con((ins StrAttr:$kind, Axe_AnyTensor:$source, Axe_AnyTensor:$dest), scopeArgs);
  let assemblyFormat = [{
    custom<Scope>($scope, $threads) $kind $source `to` $dest attr-dict
    `:` qualified(type($source)) `to` qualified(type($dest))
  }];
}

def Axe_FmaOp : Axe_CollectiveOp<"fma", [Axe_ReadsWrites]> {
  let summary = "dest = a * b + c on register tensors, fused";
  let description = [{
    ```mlir
    axe.fma cta %part, %scale, %acc to %acc : !acc, !rows, !acc to !acc
    ```
    One rounding per element (`fma.rn`), in f32, then to the element type. Operands broadcast as `axe.mul`'s do:
    above, each row of the partial accumulator is scaled by that row's factor and added to the accumulator
    (the promotion of block-scaled FP8 GEMMs).
  }];
  let arguments = !con((ins Axe_AnyTensor:$a, Axe_AnyTensor:$b, Axe_AnyTensor:$c, Axe_AnyTensor:$dest), scopeArgs);
  let assemblyFormat = [{
    custom<Scope>($scope, $threads) $a `,` $b `,` $c `to` $dest attr-dict
    `:` qualified(type($a)) `,` qualified(type($b)) `,` qualified(type($c)) `to` qualified(type($dest))
  }];
}

def Axe_MbarrierAllocOp : Axe_CollectiveOp<"mbarrier_alloc"> {
  let summary = "mbarriers in shared memory";
  let description = [{
    ```mlir
    %bars = axe.mbarrier_alloc cta : !axe.mbarrier<3>
    ```
    One barrier array per instance of the scope.
  }];
  let arguments = scopeArgs;
  let results = (outs Res<Axe_AnyMbarrier, "", [MemAlloc]>:$result);
  let assemblyFormat = "custom<Scope>($scope, $threads) attr-dict `:` qualified(type($result))";
}

// A barrier op: one element of a barrier array, `%bars[%i]` (the index left out for a single barrier).
class Axe_BarrierOp<string mnemonic> : Axe_CollectiveOp<mnemonic, [Axe_ReadsWrites]> {
  dag barrierArgs = (ins Axe_AnyMbarrier:$barrier, Optional<Index>:$index);
}

def Axe_MbarrierInitOp : Axe_BarrierOp<"mbarrier_init"> {
  let summary = "initializes an mbarrier with its arrival count";
  let description = [{
    ```mlir
    axe.mbarrier_init cta %bars[%i] count 1 : !axe.mbarrier<3>
    ```
  }];
  let arguments = !con(barrierArgs, (ins I64Attr:$count), scopeArgs);
  let assemblyFormat = [{
    custom<Scope>($scope, $threads) $barrier `` custom<BarrierIndex>($index) `count` $count attr-dict
    `:` qualified(type($barrier))
  }];
}

def Axe_MbarrierArriveOp : Axe_BarrierOp<"mbarrier_arrive"> {
  let summary = "arrives on an mbarrier";
  let description = [{
    ```mlir
    axe.mbarrier_arrive cta %bar : !axe.mbarrier
    ```
  }];
  let arguments = !con(barrierArgs, scopeArgs);
  let assemblyFormat = [{
    custom<Scope>($scope, $threads) $barrier `` custom<BarrierIndex>($index) attr-dict `:` qualified(type($barrier))
  }];
}

def Axe_MbarrierArriveExpectTxOp : Axe_BarrierOp<"mbarrier_arrive_expect_tx"> {
  let summary = "arrives on an mbarrier and announces the bytes its copies will complete";
  let description = [{
    ```mlir
    axe.mbarrier_arrive_expect_tx cta %bars[%s] bytes 32768 : !axe.mbarrier<3>
    ```
  }];
  let arguments = !con(barrierArgs, (ins I64Attr:$bytes), scopeArgs);
  let assemblyFormat = [{
    custom<Scope>($scope, $threads) $barrier `` custom<BarrierIndex>($index) `bytes` $bytes attr-dict
    `:` qualified(type($barrier))
  }];
}

def Axe_MbarrierWaitOp : Axe_BarrierOp<"mbarrier_wait"> {
  let summary = "waits for an mbarrier phase to complete";
  let description = [{
    ```mlir
    axe.mbarrier_wait cta %bars[%s], %parity : !axe.mbarrier<3>
    ```
    Returns when the phase of the given parity has completed.
  }];
  let arguments = !con(barrierArgs, (ins I1:$phase), scopeArgs);
  let assemblyFormat = [{
    custom<Scope>($scope, $threads) $barrier `` custom<BarrierIndex>($index) `,` $phase attr-dict
    `:` qualified(type($barrier))
  }];
}

def Axe_SyncOp : Axe_CollectiveOp<"sync", [Axe_ReadsWrites]> {
  let summary = "an execution and memory barrier across the scope";
  let description = [{
    ```mlir
    axe.sync cta
    ```
    bar.sync 0 for a CTA, a named barrier (bar.sync id, count) for a warpgroup or a range of the CTA's warps,
    bar.warp.sync for a warp or lanes of it (lowered by --lower-copy).
  }];
  let arguments = scopeArgs;
  let assemblyFormat = "custom<Scope>($scope, $threads) attr-dict";
}

def Axe_RolesOp : Axe_Op<"roles", [NoTerminator, SingleBlock]> {
  let summary = "warp roles: regions run by disjoint ranges of warps or warpgroups";
  let description = [{
    ```mlir
    axe.roles {
      axe.role wgid[0:2] regs 232 { ... }   // warpgroups 0 and 1: the consumers
      axe.role warpid[8:9] regs 40 { ... }  // warp 8: the producer
    }
    ```
    Each `axe.role` runs its region on the threads of its warps or warpgroups (`warpid` and `wgid` index the
    CTA's warps and warpgroups), all roles concurrently; threads in no role skip the op. `regs` is the register
    budget of every warpgroup the role touches (`setmaxnreg`, sm_90a and later: a multiple of 8 in [24, 256];
    warps of such a warpgroup in no role idle under it). Needs the kernel's `known_block_size`. `--lower-roles`
    writes one `scf.if` per role and the budgets.
  }];
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "attr-dict-with-keyword $body";
}

def Axe_RoleOp : Axe_Op<"role", [NoTerminator, SingleBlock, HasParent<"RolesOp">]> {
  let summary = "one warp role: a region, the warps that run it and their register budget";
  let description = [{
    ```mlir
    axe.role warpid[8:9] regs 40 { ... }
    ```
    Only directly inside `axe.roles` (see there).
  }];
  let arguments = (ins Axe_ThreadsAttr:$threads, OptionalAttr<I64Attr>:$regs);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "custom<RoleThreads>($threads) (`regs` $regs^)? attr-dict-with-keyword $body";
}

def Axe_TileLoopOp : Axe_Op<"tile_loop", [SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects]> {
  let summary = "a persistent loop over the output tiles of a 2-D grid, in grouped order";
  let description = [{
    ```mlir
    %ring:2 = axe.tile_loop (%m0, %n0) in (%m, %n) : i32 tile [128, 256] group 8
        iter_args(%stage = %i0, %parity = %false) -> (i32, i1) {
      ...                                   // the tile at rows %m0.., columns %n0..
      axe.yield %next_stage, %next_parity : i32, i1
    }
    ```
    The extents `(%m, %n)` split into `ceildiv(m, 128) x ceildiv(n, 256)` tiles; CTA `bx` of a 1-D grid runs
    the body for tiles `bx, bx + gridDim.x, ...` (persistent: a grid of at most the SM count keeps every CTA
    resident; one CTA per tile works too), with `(%m0, %n0)` the tile's first row and column (`index`, multiples
    of the tile). Tiles are numbered in grouped order: `group` rows of tiles at a time, column by column inside a
    group, so the CTAs running at once share rows of A and columns of B in L2 (`group 1`, the default, is row
    major). `iter_args` carry values from one tile to the next (a ring's stage and phase). `--lower-tile-loops`
    writes the `scf.for` and the index arithmetic.
  }];
  let arguments = (ins AnySignlessIntegerOrIndex:$rows, AnySignlessIntegerOrIndex:$cols, DenseI64ArrayAttr:$tile,
                       DefaultValuedAttr<I64Attr, "1">:$group, Variadic<AnyType>:$inits);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
}

def Axe_YieldOp : Axe_Op<"yield", [Pure, Terminator, HasParent<"TileLoopOp">]> {
  let summary = "the values an axe.tile_loop carries to its next tile";
  let description = [{
    ```mlir
    axe.yield %stage, %parity : i32, i1
    ```
    Ends an `axe.tile_loop` body (implicit when the loop carries nothing).
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, ValueRange()); }]>];
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

def Axe_AnnotateOp : Axe_Op<"annotate"> {
  let summary = "a layout note on a value";
  let description = [{
    ```mlir
    axe.annotate %v layout(S[(4,8):(8,1)]) : vector<32xf16>
    ```
    Documentation and debugging only: `--axe-strip-annotations` erases every one. It declares no memory
    effects, so canonicalize and DCE keep it until then.
  }];
  let arguments = (ins AnyType:$value, Axe_LayoutAttr:$layout);
  let assemblyFormat = "$value `layout` `` custom<LayoutText>($layout) attr-dict `:` type($value)";
}

def Axe_TmaDescriptorOp : Axe_Op<"tma_descriptor"> {
  let summary = "a TMA tensor map (added by --lower-tma)";
  let description = [{
    ```mlir
    %d = axe.tma_descriptor %g {data_type = 6 : i32, rank = 2 : i32, ...} : !llvm.ptr<1> -> !llvm.ptr
    ```
    The `cuTensorMapEncodeTiled` fields of one tensor map (arrays innermost dimension first, enums numbered as
    the CUDA driver numbers them); the launch record carries them to the host, which encodes the map.
  }];
  let arguments = (ins AnyType:$global, I32Attr:$data_type, I32Attr:$rank, DenseI64ArrayAttr:$global_dims,
                       DenseI64ArrayAttr:$global_strides_bytes, DenseI64ArrayAttr:$box_dims,
                       DenseI64ArrayAttr:$element_strides, I32Attr:$interleave, I32Attr:$swizzle,
                       I32Attr:$l2_promotion, I32Attr:$oob_fill, I64Attr:$global_offset_bytes);
  let results = (outs AnyType:$descriptor);
  let assemblyFormat = "$global attr-dict `:` type($global) `->` type($descriptor)";
}

#endif // AXE_TD
