// The launch record is a contract (issue 22): always valid JSON or an error located at the kernel, never a panic
// or a guess. A kernel name that cannot be a PTX entry (not UTF-8, empty, not an identifier) is refused by
// --emit=launch and --emit=ptx alike (before, launch panicked on the first two and ptx dropped @"" at -O2), and a
// record field of another attribute kind than --lower-tma writes is refused by name (before, `array<i32: 64, 128>`
// printed as `[array<i32: 64, 128]`, invalid JSON with exit 0).
// RUN: not axe-translate --emit=launch --gpu-module=not_utf8 %s 2>&1 | FileCheck %s --check-prefix=UTF8
// RUN: not axe-translate --emit=ptx --gpu-module=not_utf8 %s 2>&1 | FileCheck %s --check-prefix=UTF8
// RUN: not axe-translate --emit=launch --gpu-module=empty %s 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not axe-translate --emit=ptx -O2 --gpu-module=empty %s 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not axe-translate --emit=launch --gpu-module=dotted %s 2>&1 | FileCheck %s --check-prefix=DOTTED
// RUN: not axe-translate --emit=ptx --gpu-module=dotted %s 2>&1 | FileCheck %s --check-prefix=DOTTED
// RUN: not axe-translate --emit=launch --gpu-module=box_i32 %s 2>&1 | FileCheck %s --check-prefix=BOX
// RUN: not axe-translate --emit=launch --gpu-module=strides_i32 %s 2>&1 | FileCheck %s --check-prefix=STRIDES
// RUN: not axe-translate --emit=launch --gpu-module=bad_dim %s 2>&1 | FileCheck %s --check-prefix=DIM
// RUN: not axe-translate --emit=launch --gpu-module=bad_precondition %s 2>&1 | FileCheck %s --check-prefix=PRE
// RUN: not axe-translate --emit=launch --gpu-module=view_past_params %s 2>&1 | FileCheck %s --check-prefix=VIEWARG
// RUN: not axe-translate --emit=launch --gpu-module=view_twice %s 2>&1 | FileCheck %s --check-prefix=VIEWTWICE
// The valid kernel next to them gives JSON that parses.
// RUN: axe-translate --emit=launch --gpu-module=good %s | python3 -c "import json,sys; k=json.load(sys.stdin)['kernels'][0]; print(k['name'], k['preconditions'])" | FileCheck %s --check-prefix=GOOD

// UTF8: emit-launch-invalid.mlir:[[@LINE+12]]:5: error: kernel: the kernel name "k\FF\FE" is not UTF-8; a PTX entry is named by an identifier
// UTF8-NOT: panicked
// EMPTY: emit-launch-invalid.mlir:[[@LINE+15]]:5: error: kernel: a kernel named "" has no PTX entry name (name it with an identifier)
// DOTTED: error: kernel: the kernel name "k.1" is not a PTX identifier
// BOX: error: @k: tensor map 0: box_dims must be array<i64: ...> (what --lower-tma writes), got array<i32: 64, 128>
// STRIDES: error: @k: tensor map 0: element_strides must be array<i64: ...> (what --lower-tma writes), got array<i32: 1, 1>
// DIM: error: @k: tensor map 0: global_dims 'N - 1': unexpected '-'
// PRE: error: @k: precondition 'A % 16': a precondition must compare two expressions
// GOOD: good ['A % 16 == 0']

module attributes {gpu.container_module} {
  gpu.module @not_utf8 {
    llvm.func @"k\FF\FE"(%a: !llvm.ptr) attributes {gpu.kernel} {
      llvm.return
    }
  }
  gpu.module @empty {
    llvm.func @""(%a: !llvm.ptr) attributes {gpu.kernel} {
      llvm.return
    }
  }
  gpu.module @dotted {
    llvm.func @"k.1"(%a: !llvm.ptr) attributes {gpu.kernel} {
      llvm.return
    }
  }
  gpu.module @box_i32 {
    llvm.func @k(%a: !llvm.ptr) attributes {gpu.kernel, axe.tensor_maps = [{arg = 0 : i64, data_type = 6 : i32, rank = 2 : i32, global_dims = ["64", "128"], global_strides_bytes = ["128"], box_dims = array<i32: 64, 128>, element_strides = array<i64: 1, 1>, interleave = 0 : i32, swizzle = 3 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, global_offset_bytes = 0 : i64, preconditions = []}]} {
      llvm.return
    }
  }
  gpu.module @strides_i32 {
    llvm.func @k(%a: !llvm.ptr) attributes {gpu.kernel, axe.tensor_maps = [{arg = 0 : i64, data_type = 6 : i32, rank = 2 : i32, global_dims = ["64", "128"], global_strides_bytes = ["128"], box_dims = array<i64: 64, 128>, element_strides = array<i32: 1, 1>, interleave = 0 : i32, swizzle = 3 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, global_offset_bytes = 0 : i64, preconditions = []}]} {
      llvm.return
    }
  }
  gpu.module @bad_dim {
    llvm.func @k(%a: !llvm.ptr, %n: i32) attributes {gpu.kernel, axe.launch = {params = ["A", "N"]}, axe.tensor_maps = [{arg = 0 : i64, data_type = 6 : i32, rank = 2 : i32, global_dims = ["arg1 - 1", "128"], global_strides_bytes = ["128"], box_dims = array<i64: 64, 128>, element_strides = array<i64: 1, 1>, interleave = 0 : i32, swizzle = 3 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, global_offset_bytes = 0 : i64, preconditions = []}]} {
      llvm.return
    }
  }
  gpu.module @bad_precondition {
    llvm.func @k(%a: !llvm.ptr) attributes {gpu.kernel, axe.launch = {params = ["A"]}, axe.preconditions = ["arg0 % 16"]} {
      llvm.return
    }
  }
  gpu.module @view_past_params {
    llvm.func @k(%a: !llvm.ptr, %m: i32) attributes {gpu.kernel, axe.launch = {params = ["A", "M"]}, axe.views = [{arg = 2 : i64, dims = ["arg1"], dtype = "f16"}]} {
      llvm.return
    }
  }
  gpu.module @view_twice {
    llvm.func @k(%a: !llvm.ptr, %m: i32) attributes {gpu.kernel, axe.launch = {params = ["A", "M"]}, axe.views = [{arg = 0 : i64, dims = ["arg1"], dtype = "f16"}, {arg = 0 : i64, dims = ["arg1"], dtype = "f32"}]} {
      llvm.return
    }
  }
  gpu.module @good {
    llvm.func @good(%a: !llvm.ptr) attributes {gpu.kernel, axe.launch = {params = ["A"], grid = ["1", "1", "1"]}, axe.preconditions = ["arg0 % 16 == 0"]} {
      llvm.return
    }
  }
}

// VIEWARG: error: @k: axe.views entry 0 needs an argument index below 2
// VIEWTWICE: error: @k: axe.views: parameter A is viewed both as f16[M] and as f32[M]
