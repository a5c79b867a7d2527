// The verifier's roles rule (issue 25): axe.roles names disjoint warps or warpgroups of the kernel's block, and
// register budgets setmaxnreg can set (a multiple of 8 in [24, 256], one per warpgroup, within the registers the
// CTA is given at launch). Each error is at the op it is about.
// RUN: axe-opt %s --split-input-file --verify-diagnostics

func.func @no_block_size() {
  // expected-error @+1 {{axe.roles needs the kernel's known_block_size (the warps its roles name)}}
  axe.roles {
    axe.role warpid[0:1] {
    }
  }
  return
}

// -----

func.func @not_a_role(%x: index) attributes {known_block_size = array<i32: 128, 1, 1>} {
  axe.roles {
    // expected-error @+1 {{only axe.role ops may be inside axe.roles}}
    %y = arith.addi %x, %x : index
  }
  return
}

// -----

func.func @lanes_are_not_a_role() attributes {known_block_size = array<i32: 128, 1, 1>} {
  axe.roles {
    // expected-error @+1 {{a role runs on warps (warpid[a:b]) or warpgroups (wgid[a:b]), not laneid}}
    axe.role laneid[0:16] {
    }
  }
  return
}

// -----

func.func @past_the_block() attributes {known_block_size = array<i32: 384, 1, 1>} {
  axe.roles {
    // expected-error @+1 {{role warpid[8:13] is not a range of the block's 12 warps}}
    axe.role warpid[8:13] {
    }
    // expected-error @+1 {{role wgid[2:2] is not a range of the block's 3 warpgroups}}
    axe.role wgid[2:2] {
    }
  }
  return
}

// -----

func.func @overlapping() attributes {known_block_size = array<i32: 384, 1, 1>} {
  axe.roles {
    axe.role wgid[0:2] {
    }
    // expected-error @+1 {{roles wgid[0:2] and warpid[7:9] both hold warp 7}}
    axe.role warpid[7:9] {
    }
  }
  return
}

// -----

func.func @budgets_setmaxnreg_cannot_set() attributes {known_block_size = array<i32: 384, 1, 1>} {
  axe.roles {
    // expected-error @+1 {{register budget 42 is not a multiple of 8 in [24, 256] (setmaxnreg)}}
    axe.role wgid[0:1] regs 42 {
    }
    // expected-error @+1 {{register budget 264 is not a multiple of 8 in [24, 256] (setmaxnreg)}}
    axe.role wgid[1:2] regs 264 {
    }
    // expected-error @+1 {{register budget 16 is not a multiple of 8 in [24, 256] (setmaxnreg)}}
    axe.role wgid[2:3] regs 16 {
    }
  }
  return
}

// -----

func.func @part_of_a_warpgroup() attributes {known_block_size = array<i32: 288, 1, 1>} {
  axe.roles {
    // expected-error @+1 {{register budgets need whole warpgroups (setmaxnreg is per warpgroup): the block has 288 threads}}
    axe.role wgid[0:2] regs 232 {
    }
    axe.role warpid[8:9] {
    }
  }
  return
}

// -----

func.func @two_budgets_in_one_warpgroup() attributes {known_block_size = array<i32: 384, 1, 1>} {
  axe.roles {
    axe.role wgid[0:2] regs 232 {
    }
    axe.role warpid[8:9] regs 40 {
    }
    // expected-error @+1 {{warpgroup 2 holds roles warpid[8:9] (budget 40) and warpid[9:10] (budget 56): setmaxnreg sets one budget per warpgroup}}
    axe.role warpid[9:10] regs 56 {
    }
  }
  return
}

// -----

func.func @more_than_the_cta_was_given() attributes {known_block_size = array<i32: 384, 1, 1>} {
  // 232 + 232 + 56 registers per thread of 128: 66560, over 168 x 384 = 64512.
  // expected-error @+1 {{the warpgroups' budgets (232, 232, 56) need 66560 registers, more than the CTA's 64512 (168 per thread at entry, 384 threads): setmaxnreg.inc would wait forever}}
  axe.roles {
    axe.role wgid[0:2] regs 232 {
    }
    axe.role warpid[8:9] regs 56 {
    }
  }
  return
}

// -----

func.func @roles_in_a_role() attributes {known_block_size = array<i32: 256, 1, 1>} {
  axe.roles {
    axe.role wgid[0:1] {
      // expected-error @+1 {{axe.roles inside an axe.role: a warpgroup's roles and budget are set once}}
      axe.roles {
        axe.role warpid[0:1] {
        }
      }
    }
  }
  return
}

// -----

func.func @role_outside_roles() attributes {known_block_size = array<i32: 128, 1, 1>} {
  // expected-error @+1 {{'axe.role' op expects parent op 'axe.roles'}}
  axe.role warpid[0:1] {
  }
  return
}
