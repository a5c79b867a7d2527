// The planned lowerings (--lower-tma, --lower-mma, --lower-copy, --lower-collectives) refuse the structure ops the
// passes before them lower: an axe.roles, axe.tile_loop or axe.copy_staged left for them would otherwise survive to
// a translation error far from it. Each is an error at the op, naming the pass; exit code 1.
// RUN: axe-opt %s --split-input-file --lower-tma --verify-diagnostics
// RUN: axe-opt %s --split-input-file --lower-copy --verify-diagnostics
// RUN: not axe-opt %s --split-input-file --lower-mma -o %t.out 2>&1 | FileCheck %s --check-prefix=EXIT
// EXIT: error: mma: axe.roles is lowered by --lower-roles, which runs first

module attributes {gpu.container_module} {
  gpu.module @k attributes {axe.target = "sm_90a"} {
    gpu.func @roles() kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      // expected-error-re @+1 {{{{(tma|copy)}}: axe.roles is lowered by --lower-roles, which runs first}}
      axe.roles {
        axe.role wgid[0:1] {
        }
        axe.role wgid[1:2] {
        }
      }
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k attributes {axe.target = "sm_90a"} {
    gpu.func @tiles(%m: index, %n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      // expected-error-re @+1 {{{{(tma|copy)}}: axe.tile_loop is lowered by --lower-tile-loops, which runs first}}
      axe.tile_loop (%m0, %n0) in (%m, %n) : index tile [128, 128] {
      }
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k attributes {axe.target = "sm_90a"} {
    gpu.func @staged(%r: !axe.tensor<128x256xf16, reg>, %g: !axe.tensor<128x256xf16, global>, %b: !axe.tensor<128x64xf16, shared>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      // expected-error-re @+1 {{{{(tma|copy)}}: axe.copy_staged is lowered by --lower-staged-copies, which runs first}}
      axe.copy_staged cta(wgid[0:2]) %r to %g through %b : !axe.tensor<128x256xf16, reg> to !axe.tensor<128x256xf16, global> through !axe.tensor<128x64xf16, shared>
      gpu.return
    }
  }
}
