// Command-line errors are one line naming the problem, with exit code 1.
// RUN: not axe-opt --no-such-flag %s 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: not axe-opt --pass-pipeline='builtin.module(no-such-pass)' %s 2>&1 | FileCheck %s --check-prefix=PIPE
// RUN: not axe-opt %s.missing 2>&1 | FileCheck %s --check-prefix=FILE
// RUN: not axe-opt %s %s 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not axe-translate --chip=sm_75 %s 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: axe-opt --help | FileCheck %s --check-prefix=HELP

// FLAG: axe-opt: Unknown command line argument '--no-such-flag'.  Try: 'axe-opt --help'
// PIPE: <unknown>:0: error: MLIR Textual PassPipeline Parser:1:1: error: 'no-such-pass' does not refer to a registered pass or pass pipeline
// FILE: axe-opt: error: cannot open input file '{{.*}}.missing'
// TWO: axe-opt: error: Too many positional arguments specified!
// CHIP: axe-translate: error: unsupported chip 'sm_75' (expected sm_80, sm_90a or sm_100a)

// --help lists every registered pass with its one-line summary.
// HELP: USAGE: axe-opt
// HELP: --split-input-file
// HELP: --verify-diagnostics
// HELP: AXE PASSES
// HELP: --axe-strip-annotations{{ +}}Erase every axe.annotate op
// HELP: --lower-to-nvvm{{ +}}Lower every gpu.module to llvm and nvvm ops

func.func @f() {
  return
}
