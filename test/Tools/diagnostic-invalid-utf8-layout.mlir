// Text that is not UTF-8 reaching Rust through the custom syntax (issue 23): the layout notation of a tensor type
// takes an axis as an MLIR symbol name after `@`, and a quoted symbol name may hold an escape, here \ba (the raw
// byte 0xBA). The layout was kept as text and printed raw, so the type's text was not UTF-8, and reading it the
// verifier panicked (exit 101: "a Display implementation returned an error unexpectedly"). The parser now takes
// identifiers only as axis names; its diagnostic echoes the byte (not UTF-8 either), which is reported with the
// byte replaced by U+FFFD, and the tool exits 1 (as for diagnostic-invalid-utf8.mlir).
// RUN: not axe-opt %s 2>&1 | FileCheck %s

// CHECK: diagnostic-invalid-utf8-layout.mlir:[[# @LINE + 2]]:{{[0-9]+}}: error: layout axis names are identifiers, got @"m{{.+}}"
// CHECK-NOT: panicked
func.func @f(%t: !axe.tensor<8xf32, shared, S[8:1@"m\ba"]>) {
  return
}
