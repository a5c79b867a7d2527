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

// No diagnostics here: the construct is only in a string.
func.func private @h() attributes {a = "array<index: 1>", b = array<i64: 1>}
