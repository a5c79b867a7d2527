// axe-translate picks the only gpu.module, or the one --gpu-module names, and
// refuses to guess between several.
// RUN: axe-translate --emit=llvm --gpu-module=second %s | FileCheck %s --check-prefix=SECOND
// RUN: not axe-translate --emit=llvm %s 2>&1 | FileCheck %s --check-prefix=SEVERAL
// RUN: not axe-translate --emit=llvm --gpu-module=third %s 2>&1 | FileCheck %s --check-prefix=MISSING

// SECOND: define ptx_kernel void @k2()
// SECOND-NOT: @k1
// SEVERAL: axe-translate: error: selecting what to translate: the input holds several gpu.modules (@first, @second): choose one with --gpu-module=NAME
// MISSING: error: selecting what to translate: no gpu.module named @third (found: @first, @second)

module {
  gpu.module @first {
    llvm.func @k1() attributes {nvvm.kernel} {
      llvm.return
    }
  }
  gpu.module @second {
    llvm.func @k2() attributes {nvvm.kernel} {
      llvm.return
    }
  }
}
