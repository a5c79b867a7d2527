// What --lower-roles refuses beyond the verifier's roles rule: register budgets on a chip without setmaxnreg, or
// in a module that names no chip. Each error is at the axe.roles op, exit code 1.
// RUN: axe-opt %s --split-input-file --lower-roles --verify-diagnostics
// RUN: not axe-opt %s --split-input-file --lower-roles -o %t.out 2>&1 | FileCheck %s --check-prefix=EXIT
// EXIT: error: lower-roles: register budgets need setmaxnreg, which sm_80 lacks (sm_90a, sm_100a)

module attributes {gpu.container_module} {
  gpu.module @k attributes {axe.target = "sm_80"} {
    gpu.func @ampere() kernel attributes {known_block_size = array<i32: 384, 1, 1>} {
      // expected-error @+1 {{lower-roles: register budgets need setmaxnreg, which sm_80 lacks (sm_90a, sm_100a)}}
      axe.roles {
        axe.role wgid[0:2] regs 232 {
        }
        axe.role warpid[8:9] regs 40 {
        }
      }
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k attributes {axe.target = "sm_90"} {
    gpu.func @hopper_without_a() kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      // expected-error @+1 {{lower-roles: register budgets need setmaxnreg, which sm_90 lacks (sm_90a, sm_100a)}}
      axe.roles {
        axe.role wgid[0:1] regs 64 {
        }
      }
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @no_target() kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      // expected-error @+1 {{lower-roles: target: no chip for register budgets: put axe.target = "sm_80" (or sm_90a, sm_100a) on the gpu.module or the module}}
      axe.roles {
        axe.role wgid[0:1] regs 64 {
        }
      }
      gpu.return
    }
  }
}
