// The barrier check on a ring of stages (one mbarrier per stage, picked by scf.index_switch, loads into a stage
// chosen at run time): the correct protocol passes (test/Target/ring-pipeline-ptx.mlir), these mistakes are
// located errors. The loads into a run-time stage are planned (the shared-offset rule holds: 8192 bytes a
// stage), so their bytes count against expect_tx.
// RUN: axe-opt %s --split-input-file --axe-check-barriers --verify-diagnostics

// expect_tx announces one operand's stage (8192 bytes) but the case loads A's and B's (2 x 64x64 f16).
!gA = !axe.tensor<256x4096xf16, global, S[(256,4096):(4096,1)]>
!tile = !axe.tensor<64x64xf16, global>
!ring = !axe.tensor<192x64xf16, shared, Swizzle(3,3,3) o S[(192,64):(64,1)]>
!stage = !axe.tensor<64x64xf16, shared>
gpu.module @k {
  gpu.func @stage_bytes(%a: memref<256x4096xf16>, %k: index, %next: index) kernel {
    %c64 = arith.constant 64 : index
    %ga = axe.view %a : memref<256x4096xf16> -> !gA
    %ring_a = axe.alloc cta : !ring
    %ring_b = axe.alloc cta : !ring
    %bar0 = axe.mbarrier_alloc cta : !axe.mbarrier
    %bar1 = axe.mbarrier_alloc cta : !axe.mbarrier
    axe.mbarrier_init cta %bar0 count 1 : !axe.mbarrier
    axe.mbarrier_init cta %bar1 count 1 : !axe.mbarrier
    %row = arith.muli %next, %c64 : index
    %an = axe.slice %ga[0, %k] [64, 64] : !gA to !tile
    %san = axe.slice %ring_a[%row, 0] [64, 64] : !ring to !stage
    %sbn = axe.slice %ring_b[%row, 0] [64, 64] : !ring to !stage
    scf.index_switch %next
    case 0 {
      axe.mbarrier_arrive_expect_tx cta %bar0 bytes 16384 : !axe.mbarrier
      axe.copy_async cta %an to %san, %bar0 : !tile to !stage, !axe.mbarrier
      axe.copy_async cta %an to %sbn, %bar0 : !tile to !stage, !axe.mbarrier
      scf.yield
    }
    default {
      // expected-error @+1 {{barrier: tx-bytes rule: axe.mbarrier_arrive_expect_tx expects 8192 bytes but the 2 copies it announces deliver 16384 bytes}}
      axe.mbarrier_arrive_expect_tx cta %bar1 bytes 8192 : !axe.mbarrier
      axe.copy_async cta %an to %san, %bar1 : !tile to !stage, !axe.mbarrier
      axe.copy_async cta %an to %sbn, %bar1 : !tile to !stage, !axe.mbarrier
      scf.yield
    }
    gpu.return
  }
}

// -----

// The third stage's barrier is initialized inside the loop's first iteration only (scf.if): a path (no first
// iteration, or the other branch) reaches its wait uninitialized.
gpu.module @k {
  gpu.func @stage_init_in_loop(%n: index, %parity: i1) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %bar0 = axe.mbarrier_alloc cta : !axe.mbarrier
    %bar1 = axe.mbarrier_alloc cta : !axe.mbarrier
    %bar2 = axe.mbarrier_alloc cta : !axe.mbarrier
    axe.mbarrier_init cta %bar0 count 1 : !axe.mbarrier
    axe.mbarrier_init cta %bar1 count 1 : !axe.mbarrier
    scf.for %kt = %c0 to %n step %c1 {
      %first = arith.cmpi eq, %kt, %c0 : index
      scf.if %first {
        axe.mbarrier_init cta %bar2 count 1 : !axe.mbarrier
      }
      %cur = arith.remui %kt, %c3 : index
      scf.index_switch %cur
      case 0 {
        axe.mbarrier_wait cta %bar0, %parity : !axe.mbarrier
        scf.yield
      }
      case 1 {
        axe.mbarrier_wait cta %bar1, %parity : !axe.mbarrier
        scf.yield
      }
      default {
        // expected-error @+1 {{barrier: init rule: axe.mbarrier_wait uses a barrier that is not initialized on every path to it}}
        axe.mbarrier_wait cta %bar2, %parity : !axe.mbarrier
        scf.yield
      }
    }
    gpu.return
  }
}
