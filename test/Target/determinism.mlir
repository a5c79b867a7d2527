// The same input gives byte-identical output, run after run, at every stage.
// RUN: axe-opt --lower-tma --lower-to-nvvm %examples/tma_copy.mlir -o %t.1.mlir
// RUN: axe-opt --lower-tma --lower-to-nvvm %examples/tma_copy.mlir -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// The TMA lowering alone is deterministic too (descriptor fields, issue order, buffer names).
// RUN: axe-opt --lower-tma %examples/tma_copy.mlir -o %t.tma.1.mlir
// RUN: axe-opt --lower-tma %examples/tma_copy.mlir -o %t.tma.2.mlir
// RUN: cmp %t.tma.1.mlir %t.tma.2.mlir
// RUN: axe-translate --emit=ptx --chip=sm_90a %t.1.mlir -o %t.1.ptx
// RUN: axe-translate --emit=ptx --chip=sm_90a %t.2.mlir -o %t.2.ptx
// RUN: cmp %t.1.ptx %t.2.ptx
// RUN: axe-translate --emit=llvm %t.1.mlir -o %t.1.ll
// RUN: axe-translate --emit=llvm %t.2.mlir -o %t.2.ll
// RUN: cmp %t.1.ll %t.2.ll
// Reading stdin gives the same bytes as reading the file.
// RUN: axe-translate --emit=ptx --chip=sm_90a < %t.1.mlir > %t.stdin.ptx
// RUN: cmp %t.1.ptx %t.stdin.ptx
