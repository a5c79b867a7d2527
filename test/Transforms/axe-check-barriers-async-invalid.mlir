// Kernels that may return with asynchronous copies in flight, refused by --axe-check-barriers (rule async-exit):
// the CTA's shared memory goes to the next CTA while the copies still write it (cp.async) or read it (bulk stores).
// Each error is at the return and counts, per kind, the committed groups that may still hold copies.
// RUN: axe-opt %s --split-input-file --axe-check-barriers --verify-diagnostics
// RUN: not axe-opt %s --split-input-file --axe-check-barriers -o %t.out 2>&1 | FileCheck %s --check-prefix=EXIT
// EXIT-COUNT-5: error: barrier: async-exit rule:
// EXIT-NOT: error:

// issue 21's gemm_sm80 before the fix: the prologue commits two groups (tile 1 always, zero-filled when K <= 64),
// each iteration waits for all but the newest group, may load, and commits; nothing waits after the loop. At the
// return the newest two groups (tile 1's or the last iteration's load, and the last commit) may be in flight.
!g = !axe.tensor<64x64xf16, global, S[(64,64):(64,1)]>
!s = !axe.tensor<64x64xf16, shared, Swizzle(3,3,3) o S[(64,64):(64,1)]>
gpu.module @kernels attributes {axe.target = "sm_80"} {
  gpu.func @old_prologue(%in: memref<4096xf16>, %n: index, %more: i1) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %g = axe.view %in : memref<4096xf16> -> !g
    %s = axe.alloc cta : !s
    axe.copy_async cta %g to %s : !g to !s
    nvvm.cp.async.commit.group
    axe.copy_async cta %g to %s : !g to !s
    nvvm.cp.async.commit.group
    scf.for %k = %c0 to %n step %c64 {
      nvvm.cp.async.wait.group 1
      gpu.barrier
      scf.if %more {
        axe.copy_async cta %g to %s : !g to !s
      }
      nvvm.cp.async.commit.group
    }
    // expected-error @+1 {{barrier: async-exit rule: gpu.return may leave asynchronous copies in flight on some path, which keep using shared memory the next CTA gets: cp.async: 2 committed groups that may hold copies not waited for (add nvvm.cp.async.wait.group 0 before it)}}
    gpu.return
  }
}

// -----

// A copy never committed: wait_group completes committed groups only.
!g = !axe.tensor<64x64xf16, global, S[(64,64):(64,1)]>
!s = !axe.tensor<64x64xf16, shared, Swizzle(3,3,3) o S[(64,64):(64,1)]>
gpu.module @kernels attributes {axe.target = "sm_80"} {
  gpu.func @never_committed(%in: memref<4096xf16>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %g = axe.view %in : memref<4096xf16> -> !g
    %s = axe.alloc cta : !s
    axe.copy_async cta %g to %s : !g to !s
    nvvm.cp.async.wait.group 0
    // expected-error @+1 {{barrier: async-exit rule: gpu.return may leave asynchronous copies in flight on some path, which keep using shared memory the next CTA gets: cp.async: copies never committed to a group (commit and add nvvm.cp.async.wait.group 0 before it)}}
    gpu.return
  }
}

// -----

// Waited for on one path only: the then-branch commits its copy, only the else-branch waits.
gpu.module @kernels {
  gpu.func @one_path(%s: !llvm.ptr<3>, %d: !llvm.ptr<1>, %c: i1) kernel {
    scf.if %c {
      nvvm.cp.async.shared.global %s, %d, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      nvvm.cp.async.commit.group
    } else {
      nvvm.cp.async.wait.group 0
    }
    // expected-error @+1 {{cp.async: 1 committed group that may hold copies not waited for}}
    gpu.return
  }
}

// -----

// A bulk store (what --lower-tma emits for a shared -> global TMA copy) committed but never waited for: it may
// still read its shared source at exit. `wait_group.read 0` would suffice.
gpu.module @kernels {
  gpu.func @bulk_store(%s: !llvm.ptr<3>, %d: !llvm.ptr<1>, %n: i32) kernel {
    nvvm.cp.async.bulk.global.shared.cta %d, %s, %n : !llvm.ptr<1>, !llvm.ptr<3>
    nvvm.cp.async.bulk.commit.group
    // expected-error @+1 {{barrier: async-exit rule: gpu.return may leave asynchronous copies in flight on some path, which keep using shared memory the next CTA gets: cp.async.bulk: 1 committed group that may hold copies not waited for (add nvvm.cp.async.bulk.wait_group 0 (.read suffices) before it)}}
    gpu.return
  }
}

// -----

// After --lower-to-nvvm (blocks and branches): the copy's block branches to the return without a wait.
gpu.module @kernels {
  llvm.func @lowered(%d: !llvm.ptr<1>, %s: !llvm.ptr<3>, %c: i1) attributes {gpu.kernel} {
    llvm.cond_br %c, ^bb1, ^bb2
  ^bb1:
    nvvm.cp.async.shared.global %s, %d, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
    nvvm.cp.async.commit.group
    llvm.br ^bb2
  ^bb2:
    // expected-error @+1 {{barrier: async-exit rule: llvm.return may leave asynchronous copies in flight on some path, which keep using shared memory the next CTA gets: cp.async: 1 committed group that may hold copies not waited for}}
    llvm.return
  }
}

// -----

// Accepted: every path waits (a pipeline drained after its loop, a bulk store waited for with .read, a helper
// function that is not a kernel returning with its group for the caller to wait for).
gpu.module @kernels {
  gpu.func @drained(%s: !llvm.ptr<3>, %d: !llvm.ptr<1>, %n: index, %m: i32) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %k = %c0 to %n step %c1 {
      nvvm.cp.async.wait.group 1
      nvvm.cp.async.shared.global %s, %d, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      nvvm.cp.async.commit.group
    }
    nvvm.cp.async.wait.group 0
    nvvm.cp.async.bulk.global.shared.cta %d, %s, %m : !llvm.ptr<1>, !llvm.ptr<3>
    nvvm.cp.async.bulk.commit.group
    nvvm.cp.async.bulk.wait_group 0 {read}
    gpu.return
  }
  gpu.func @helper(%s: !llvm.ptr<3>, %d: !llvm.ptr<1>) {
    nvvm.cp.async.shared.global %s, %d, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
    nvvm.cp.async.commit.group
    gpu.return
  }
}
