// Text that is not UTF-8 reaching Rust through the custom syntax (issue 23): the layout notation of a tensor type
// takes an axis as an MLIR symbol name after `@`, and a quoted symbol name may hold an escape, here \ba (the raw
// byte 0xBA). The layout is kept as text and printed raw, so the type's text is not UTF-8; reading it, the
// verifier panicked (exit 101: "a Display implementation returned an error unexpectedly"). The input must be
// refused with a diagnostic and exit 1, like a diagnostic that is not UTF-8 (diagnostic-invalid-utf8.mlir).
// XFAIL: *
// RUN: not axe-opt %s 2>&1 | FileCheck %s

// CHECK: diagnostic-invalid-utf8-layout.mlir:[[# @LINE + 2]]:{{[0-9]+}}: error:
// CHECK-NOT: panicked
func.func @f(%t: !axe.tensor<8xf32, shared, S[8:1@"m\ba"]>) {
  return
}
