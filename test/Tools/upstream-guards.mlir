// RUN: axe-opt %s --split-input-file --verify-diagnostics
// RUN: not axe-translate %s 2>&1 | FileCheck %s

// Constructs that crash the bundled MLIR 22 are refused at their position before its parser sees them
// (dialect/src/guards.rs lists each with its upstream reference). Strings and comments are not inspected:
// "array<index: 1>" in a string is fine.

// CHECK: upstream-guards.mlir:[[@LINE+1]]:{{[0-9]+}}: error: array<index is refused: {{.*}}llvm-project issue 179045
func.func private @f() attributes {a = array<index: 32>} // expected-error {{array<index is refused}}

// -----

func.func private @g() attributes {
  // expected-error @+1 {{llvm-project issue 179045, fixed by PR 179075}}
  a = array <
    index: 1, 2>
}

// -----

// Comments are trivia between the tokens, as for MLIR's lexer: a comment line inside `array < ... index` hid it
// from the guard, and MLIR 22 crashed (SIGSEGV; issue 22's long fuzz run, seed 2612).
func.func private @g2() attributes {
  // expected-error @+1 {{llvm-project issue 179045, fixed by PR 179075}}
  a = array < // the element type follows
// a comment line between the tokens
    index: 1, 2>
}

// -----

// No diagnostics here: the construct is only in a string.
func.func private @h() attributes {a = "array<index: 1>", b = array<i64: 1>}

// -----

// An llvm.insertvalue/extractvalue struct position of 2^32 or more crashed axe-opt, axe-translate and
// mlir-opt-22 (SIGSEGV; found by axe-fuzz). Both the custom and the generic form are refused at the op.
llvm.func @insert(%p: i64) {
  %0 = llvm.mlir.poison : !llvm.struct<(i64, i64)>
  // expected-error @+1 {{llvm.insertvalue with a position of 2^32 or more is refused: MLIR 22 checks}}
  %1 = llvm.insertvalue %p, %0[4294967296] : !llvm.struct<(i64, i64)>
  llvm.return
}

// -----

llvm.func @extract() {
  %0 = llvm.mlir.poison : !llvm.struct<(i64, i64)>
  // expected-error @+1 {{llvm.extractvalue with a position of 2^32 or more is refused}}
  %1 = "llvm.extractvalue"(%0) <{position = array<i64: 140737488355328>}> : (!llvm.struct<(i64, i64)>) -> i64
  llvm.return
}

// -----

// In range: no diagnostic, the ops parse.
llvm.func @fine(%p: i64) {
  %0 = llvm.mlir.poison : !llvm.struct<(i64, i64)>
  %1 = llvm.insertvalue %p, %0[1] : !llvm.struct<(i64, i64)>
  %2 = "llvm.extractvalue"(%1) <{position = array<i64: 0>}> : (!llvm.struct<(i64, i64)>) -> i64
  llvm.return
}

// -----

// An llvm.mlir.global addr_space that is not an integer was dropped by the parser and dereferenced by the
// translation to LLVM IR (axe-translate and mlir-translate-22 crashed with SIGSEGV; found by axe-fuzz).
gpu.module @k {
  // expected-error @+1 {{an addr_space that is not an integer is refused: MLIR 22 drops}}
  llvm.mlir.global private @g() {addr_space = i32, alignment = 8 : i64} : !llvm.array<1 x i64>
}
