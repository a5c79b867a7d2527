// Multicast loads --lower-tma refuses: each error is at the copy and names the rule.
// RUN: axe-opt %s --split-input-file --lower-tma --verify-diagnostics

// The cluster shape is needed to turn the CTA points into ranks: no known_cluster_size on the kernel.
!g = memref<64x64xf16>
!gt = !axe.tensor<64x64xf16, global, S[(64,64):(64,1)]>
!s = !axe.tensor<64x64xf16, shared, S[(64,64):(64,1)] + R[2:1@cbx]>
gpu.module @k {
  gpu.func @no_cluster_size(%g: !g) kernel {
    %t = axe.view %g : !g -> !gt
    %s = axe.alloc cluster : !s
    %bar = axe.mbarrier_alloc cta : !axe.mbarrier
    axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
    // expected-error @+1 {{tma: multicast rule: the shared tensor is replicated over the cluster's CTAs; the kernel needs known_cluster_size = array<i32: x, y, z> to place them}}
    axe.copy_async cluster %t to %s, %bar : !gt to !s, !axe.mbarrier
    %phase = arith.constant false
    axe.mbarrier_wait cta %bar, %phase : !axe.mbarrier
    gpu.return
  }
}

// -----

// The replica names CTA 2 (offset 1 plus 0..1) of a 2x1x1 cluster.
!g = memref<64x64xf16>
!gt = !axe.tensor<64x64xf16, global, S[(64,64):(64,1)]>
!s = !axe.tensor<64x64xf16, shared, S[(64,64):(64,1)] + R[2:1@cbx] + 1@cbx>
gpu.module @k {
  gpu.func @outside(%g: !g) kernel attributes {known_cluster_size = array<i32: 2, 1, 1>} {
    %t = axe.view %g : !g -> !gt
    %s = axe.alloc cluster : !s
    %bar = axe.mbarrier_alloc cta : !axe.mbarrier
    axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
    // expected-error @+1 {{tma: multicast rule: the shared layout places the tile in the CTA at (cbx, cby, cbz) = (2, 0, 0), outside the cluster [2, 1, 1]}}
    axe.copy_async cluster %t to %s, %bar : !gt to !s, !axe.mbarrier
    %phase = arith.constant false
    axe.mbarrier_wait cta %bar, %phase : !axe.mbarrier
    gpu.return
  }
}

// -----

// A store from a replicated tile: cp.async.bulk.tensor multicasts loads only.
!g = memref<64x64xf16>
!gt = !axe.tensor<64x64xf16, global, S[(64,64):(64,1)]>
!s = !axe.tensor<64x64xf16, shared, S[(64,64):(64,1)] + R[2:1@cbx]>
gpu.module @k {
  gpu.func @store(%g: !g) kernel attributes {known_cluster_size = array<i32: 2, 1, 1>} {
    %t = axe.view %g : !g -> !gt
    %s = axe.alloc cluster : !s
    // expected-error @+1 {{tma: multicast rule: the shared tile is replicated over the cluster's CTAs, but .multicast::cluster exists only for loads (global to shared); a store reads one CTA's shared memory}}
    axe.copy_async cluster %s to %t : !s to !gt
    gpu.return
  }
}

// -----

// A replicated tile loaded at cta scope: the verifier's scope rule (cbx indexes CTAs within a cluster).
!g = memref<64x64xf16>
!gt = !axe.tensor<64x64xf16, global, S[(64,64):(64,1)]>
!s = !axe.tensor<64x64xf16, shared, S[(64,64):(64,1)] + R[2:1@cbx]>
gpu.module @k {
  gpu.func @cta_scope(%g: !g) kernel attributes {known_cluster_size = array<i32: 2, 1, 1>} {
    %t = axe.view %g : !g -> !gt
    %s = axe.alloc cluster : !s
    %bar = axe.mbarrier_alloc cta : !axe.mbarrier
    axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
    // expected-error @+1 {{op at cta scope cannot touch a layout over cbx (dest): cbx indexes ctas within a cluster}}
    axe.copy_async cta %t to %s, %bar : !gt to !s, !axe.mbarrier
    %phase = arith.constant false
    axe.mbarrier_wait cta %bar, %phase : !axe.mbarrier
    gpu.return
  }
}

// -----

// A shard over cbx (the CTAs would hold different halves): the verifier's memory rule for shared tensors.
!s = !axe.tensor<2x64xf16, shared, S[(2,64):(1@cbx,1)]>
gpu.module @k {
  gpu.func @shard(%g: memref<128xf16>) kernel attributes {known_cluster_size = array<i32: 2, 1, 1>} {
    // expected-error @+1 {{layout of a shared tensor may name cbx only in a replica or offset (the same tile in several CTAs of the cluster, a multicast destination), not in its shard}}
    %s = axe.alloc cluster : !s
    gpu.return
  }
}
