// --lower-roles (issue 25): each axe.roles becomes one setmaxnreg per warpgroup whose budget differs from the entry
// count (decreases first), then an else-chain of scf.if on the warp index, one branch per role with its region
// moved in; the kernel gets nvvm.minctasm = 1. Entry counts: 384 threads -> 65536 / 384 = 170 -> 168; 512 threads
// -> 128.
// RUN: axe-opt %s --split-input-file --lower-roles | FileCheck %s

// A producer warp and two consumer warpgroups (the budgets of examples/gemm_sm90a_ws.mlir).
// CHECK-LABEL: gpu.func @producer_consumers
// CHECK-SAME: nvvm.minctasm = 1 : i32
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[WG:.*]] = arith.divui %[[TID]], %c128
// CHECK: %[[GE2:.*]] = arith.cmpi uge, %[[WG]], %c2
// CHECK: %[[LT3:.*]] = arith.cmpi ult, %[[WG]], %c3
// CHECK: %[[IS2:.*]] = arith.andi %[[GE2]], %[[LT3]]
// CHECK: scf.if %[[IS2]] {
// CHECK-NEXT: nvvm.setmaxregister decrease 40
// CHECK-NEXT: }
// CHECK: %[[LT2:.*]] = arith.cmpi ult, %[[WG]], %c2
// CHECK: scf.if %[[LT2]] {
// CHECK-NEXT: nvvm.setmaxregister increase 232
// CHECK-NEXT: }
// CHECK: %[[WARP:.*]] = arith.divui %[[TID]], %c32
// CHECK: %[[CONSUMER:.*]] = arith.cmpi ult, %[[WARP]], %c8
// CHECK: scf.if %[[CONSUMER]] {
// CHECK-NEXT: axe.sync cta(warpid[0:8])
// CHECK-NEXT: } else {
// CHECK: %[[GE8:.*]] = arith.cmpi uge, %[[WARP]], %c8
// CHECK: %[[LT9:.*]] = arith.cmpi ult, %[[WARP]], %c9
// CHECK: %[[PRODUCER:.*]] = arith.andi %[[GE8]], %[[LT9]]
// CHECK: scf.if %[[PRODUCER]] {
// CHECK-NEXT: axe.sync warp
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
// CHECK-NOT: axe.role
module attributes {gpu.container_module} {
  gpu.module @k attributes {axe.target = "sm_90a"} {
    gpu.func @producer_consumers() kernel attributes {known_block_size = array<i32: 384, 1, 1>} {
      axe.roles {
        axe.role wgid[0:2] regs 232 {
          axe.sync cta(warpid[0:8])
        }
        axe.role warpid[8:9] regs 40 {
          axe.sync warp
        }
      }
      gpu.return
    }
  }
}

// -----

// Without budgets: no setmaxnreg, no minctasm, no target needed. A block that is not flat: the warp index is that
// of the linear thread index x + 64 * (y + 2 * z).
// CHECK-LABEL: gpu.func @no_budgets
// CHECK-NOT: minctasm
// CHECK-NOT: setmaxregister
// CHECK: %[[X:.*]] = gpu.thread_id x
// CHECK: %[[Z:.*]] = gpu.thread_id z
// CHECK: %[[ZY:.*]] = arith.muli %[[Z]], %c2
// CHECK: %[[Y:.*]] = gpu.thread_id y
// CHECK: %[[ROW:.*]] = arith.addi %[[Y]], %[[ZY]]
// CHECK: %[[ROWX:.*]] = arith.muli %[[ROW]], %c64
// CHECK: %[[TID:.*]] = arith.addi %[[X]], %[[ROWX]]
// CHECK: %[[WARP:.*]] = arith.divui %[[TID]], %c32
// CHECK: arith.cmpi ult, %[[WARP]], %c1
// CHECK: scf.if
// CHECK-NEXT: axe.sync warp
// CHECK: } else {
// CHECK: scf.if
// CHECK-NEXT: axe.sync cta(warpid[2:4])
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @no_budgets() kernel attributes {known_block_size = array<i32: 64, 2, 2>} {
      axe.roles {
        axe.role warpid[0:1] {
          axe.sync warp
        }
        axe.role warpid[2:4] {
          axe.sync cta(warpid[2:4])
        }
      }
      gpu.return
    }
  }
}

// -----

// A budget equal to the entry count changes nothing: 512 threads start at 128, so only the 96-register warpgroup
// gets a setmaxnreg (warpgroups 2 and 3 keep their 128 too).
// CHECK-LABEL: gpu.func @entry_budget
// CHECK: nvvm.setmaxregister decrease 96
// CHECK-NOT: nvvm.setmaxregister
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @k attributes {axe.target = "sm_100a"} {
    gpu.func @entry_budget() kernel attributes {known_block_size = array<i32: 512, 1, 1>} {
      axe.roles {
        axe.role wgid[0:1] regs 128 {
        }
        axe.role wgid[1:2] regs 96 {
        }
      }
      gpu.return
    }
  }
}
