// --lower-collectives refusals: located errors naming the rule, before anything changes.
// RUN: axe-opt %s --split-input-file --verify-diagnostics --lower-collectives

!src = !axe.tensor<8x4xf32, global, S[(4,8):(1@gpuid,1)]>
!dst = !axe.tensor<8x4xf32, global, S[32:1] + R[4:1@gpuid]>

// Peers write the destination: it must be on the symmetric heap.
module attributes {axe.mesh = {gpuid = 4 : i64}} {
  gpu.module @kernels {
    gpu.func @not_symmetric(%src: !llvm.ptr, %dst: !llvm.ptr) kernel {
      %in = axe.view %src : !llvm.ptr -> !src
      %out = axe.view %dst : !llvm.ptr -> !dst
      // expected-error @+1 {{collectives: symmetric rule: the all-gather writes peers' destination buffers with puts; the destination (kernel argument 1) must be a pointer to the symmetric heap (!llvm.ptr or !llvm.ptr<1> from nvshmem_malloc) marked {axe.symmetric}}}
      axe.copy cta %in to %out : !src to !dst
      gpu.return
    }
  }
}

// -----

!src = !axe.tensor<8x4xf32, global, S[(4,8):(1@gpuid,1)]>
!dst = !axe.tensor<8x4xf32, global, S[32:1] + R[4:1@gpuid]>

// The _block NVSHMEM calls take every thread of one CTA.
module attributes {axe.mesh = {gpuid = 4 : i64}} {
  gpu.module @kernels {
    gpu.func @warp_scope(%src: !llvm.ptr, %dst: !llvm.ptr {axe.symmetric}) kernel {
      %in = axe.view %src : !llvm.ptr -> !src
      %out = axe.view %dst : !llvm.ptr -> !dst
      // expected-error @+1 {{collectives: scope rule: a collective copy runs at cta scope (every thread of the one CTA calls the _block NVSHMEM functions), got warp}}
      axe.copy warp %in to %out : !src to !dst
      gpu.return
    }
  }
}

// -----

!src = !axe.tensor<8x4xf32, global, S[(4,8):(1@gpuid,1)]>
!dst = !axe.tensor<8x4xf32, global, S[32:1] + R[4:1@gpuid]>

// A destination that is not a kernel argument (a view of a value computed in the kernel).
module attributes {axe.mesh = {gpuid = 4 : i64}} {
  gpu.module @kernels {
    gpu.func @not_an_argument(%src: !llvm.ptr, %dst: !llvm.ptr {axe.symmetric}) kernel {
      %moved = llvm.getelementptr %dst[8] : (!llvm.ptr) -> !llvm.ptr, f32
      %in = axe.view %src : !llvm.ptr -> !src
      %out = axe.view %moved : !llvm.ptr -> !dst
      // expected-error @+1 {{collectives: buffer rule: the destination must be an axe.view of a kernel argument (a global !llvm.ptr or memref)}}
      axe.copy cta %in to %out : !src to !dst
      gpu.return
    }
  }
}

// -----

!src = !axe.tensor<8x4xf32, global, S[(4,8):(1@gpuid,1)]>
!dst = !axe.tensor<8x4xf32, global, S[(4,8):(1@gpuid,0)]>

// A destination holding two elements in one place: the planner's dst-alias rule.
module attributes {axe.mesh = {gpuid = 4 : i64}} {
  gpu.module @kernels {
    gpu.func @aliased(%src: !llvm.ptr, %dst: !llvm.ptr {axe.symmetric}) kernel {
      %in = axe.view %src : !llvm.ptr -> !src
      %out = axe.view %dst : !llvm.ptr -> !dst
      // expected-error @+1 {{collectives: dst-alias rule: destination rank 0 offset 0 holds both element [0,0] and element [0,1]}}
      axe.copy cta %in to %out : !src to !dst
      gpu.return
    }
  }
}

// -----

!src = !axe.tensor<8x4xf32, global, S[(4,8):(1@gpuid,1)]>
!dst = !axe.tensor<8x4xf32, global, S[32:1] + R[4:1@gpuid]>

// A symmetric destination is a pointer (what nvshmem_malloc returns), not a memref.
module attributes {axe.mesh = {gpuid = 4 : i64}} {
  gpu.module @kernels {
    gpu.func @memref_destination(%src: !llvm.ptr, %dst: memref<8x4xf32> {axe.symmetric}) kernel {
      %in = axe.view %src : !llvm.ptr -> !src
      %out = axe.view %dst : memref<8x4xf32> -> !dst
      // expected-error @+1 {{collectives: symmetric rule: the all-gather writes peers' destination buffers with puts; the destination (kernel argument 1) must be a pointer to the symmetric heap (!llvm.ptr or !llvm.ptr<1> from nvshmem_malloc) marked {axe.symmetric}}}
      axe.copy cta %in to %out : !src to !dst
      gpu.return
    }
  }
}

// -----

!part = !axe.tensor<2x4xf32, global, S[8:1] + R[4:1@gpuid]>

// A Partial source is read by peers' gets: it must be symmetric.
module attributes {axe.mesh = {gpuid = 4 : i64}} {
  gpu.module @kernels {
    gpu.func @source_not_symmetric(%src: !llvm.ptr, %dst: !llvm.ptr) kernel {
      %in = axe.view %src : !llvm.ptr -> !part
      %out = axe.view %dst : !llvm.ptr -> !part
      // expected-error @+1 {{collectives: symmetric rule: the all-reduce reads peers' source buffers with gets; the source (kernel argument 0) must be a pointer to the symmetric heap (!llvm.ptr or !llvm.ptr<1> from nvshmem_malloc) marked {axe.symmetric}}}
      axe.copy cta %in to %out {reduce = "sum"} : !part to !part
      gpu.return
    }
  }
}

// -----

!part = !axe.tensor<2x4xf32, global, S[8:1] + R[4:1@gpuid]>

module attributes {axe.mesh = {gpuid = 4 : i64}} {
  gpu.module @kernels {
    gpu.func @unknown_reduction(%src: !llvm.ptr {axe.symmetric}, %dst: !llvm.ptr) kernel {
      %in = axe.view %src : !llvm.ptr -> !part
      %out = axe.view %dst : !llvm.ptr -> !part
      // expected-error @+1 {{collectives: reduce rule: reduce must be "sum" or "max", got "prod"}}
      axe.copy cta %in to %out {reduce = "prod"} : !part to !part
      gpu.return
    }
  }
}

// -----

!part = !axe.tensor<2x4xi8, global, S[8:1] + R[4:1@gpuid]>

module attributes {axe.mesh = {gpuid = 4 : i64}} {
  gpu.module @kernels {
    gpu.func @byte_reduction(%src: !llvm.ptr {axe.symmetric}, %dst: !llvm.ptr) kernel {
      %in = axe.view %src : !llvm.ptr -> !part
      %out = axe.view %dst : !llvm.ptr -> !part
      // expected-error @+1 {{collectives: dtype rule: a sum reduction of i8 elements is not lowered (f64, f32, f16, bf16, i64, i32)}}
      axe.copy cta %in to %out {reduce = "sum"} : !part to !part
      gpu.return
    }
  }
}

// -----

!part = !axe.tensor<2x4xf32, global, S[8:1] + R[4:1@gpuid]>

// A reduction whose source replicates over no device axis: nothing is partial.
module attributes {axe.mesh = {gpuid = 4 : i64}} {
  gpu.module @kernels {
    gpu.func @nothing_to_reduce(%src: !llvm.ptr {axe.symmetric}, %dst: !llvm.ptr {axe.symmetric}) kernel {
      %in = axe.view %src : !llvm.ptr -> !axe.tensor<8x4xf32, global, S[(4,8):(1@gpuid,1)]>
      %out = axe.view %dst : !llvm.ptr -> !axe.tensor<8x4xf32, global, S[32:1] + R[4:1@gpuid]>
      // expected-error @+1 {{collectives: reduce rule: a sum reduction needs a source replicated over a device axis (its partial values), but the source layout S[(4,8):(1@gpuid,1)] has no device replica}}
      axe.copy cta %in to %out {reduce = "sum"} : !axe.tensor<8x4xf32, global, S[(4,8):(1@gpuid,1)]> to !axe.tensor<8x4xf32, global, S[32:1] + R[4:1@gpuid]>
      gpu.return
    }
  }
}

// -----

!part = !axe.tensor<4x2xf32, global, S[8:1] + R[4:1@gpuid]>
!rows = !axe.tensor<4x2xf32, global, S[(4,2):(1@gpuid,1)]>

// multimem lowers all-reduces only (a reduce-scatter here).
module attributes {axe.mesh = {gpuid = 4 : i64}} {
  gpu.module @kernels {
    gpu.func @multimem_reduce_scatter(%src: !llvm.ptr {axe.symmetric}, %dst: !llvm.ptr {axe.symmetric}) kernel {
      %in = axe.view %src : !llvm.ptr -> !part
      %out = axe.view %dst : !llvm.ptr -> !rows
      // expected-error @+1 {{collectives: multimem rule: multimem lowers a sum all-reduce, got a reduce-scatter plan}}
      axe.copy cta %in to %out {reduce = "sum", multimem} : !part to !rows
      gpu.return
    }
  }
}

// -----

!part = !axe.tensor<2x4xf32, global, S[8:1] + R[4:1@gpuid]>

// multimem needs Hopper or later.
module attributes {axe.mesh = {gpuid = 4 : i64}} {
  gpu.module @kernels attributes {axe.target = "sm_80"} {
    gpu.func @multimem_sm80(%src: !llvm.ptr {axe.symmetric}, %dst: !llvm.ptr {axe.symmetric}) kernel {
      %in = axe.view %src : !llvm.ptr -> !part
      %out = axe.view %dst : !llvm.ptr -> !part
      // expected-error @+1 {{collectives: multimem rule: multimem needs sm_90 or later, the target is sm_80}}
      axe.copy cta %in to %out {reduce = "sum", multimem} : !part to !part
      gpu.return
    }
  }
}

// -----

!part = !axe.tensor<2x4xf32, global, S[8:1] + R[4:1@gpuid]>

// The multicast store writes every PE's destination: it must be symmetric too.
module attributes {axe.mesh = {gpuid = 4 : i64}} {
  gpu.module @kernels {
    gpu.func @multimem_plain_destination(%src: !llvm.ptr {axe.symmetric}, %dst: !llvm.ptr) kernel {
      %in = axe.view %src : !llvm.ptr -> !part
      %out = axe.view %dst : !llvm.ptr -> !part
      // expected-error @+1 {{collectives: multimem rule: the destination (kernel argument 1) must be a symmetric pointer marked {axe.symmetric}: multimem addresses every PE's copy of it}}
      axe.copy cta %in to %out {reduce = "sum", multimem} : !part to !part
      gpu.return
    }
  }
}

// -----

!part = !axe.tensor<2x4xf32, global, S[(2,2,2):(2,1@gpuid_y,1)] + R[2:1@gpuid_x]>

// The multicast team is every PE: Partial(sum), Shard(1) -> Replicate(), Shard(1) on a 2x2 mesh reduces over
// gpuid_x alone, which is not one multicast group.
module attributes {axe.mesh = {gpuid_x = 2 : i64, gpuid_y = 2 : i64}} {
  gpu.module @kernels {
    gpu.func @multimem_one_axis(%src: !llvm.ptr {axe.symmetric}, %dst: !llvm.ptr {axe.symmetric}) kernel {
      %in = axe.view %src : !llvm.ptr -> !part
      %out = axe.view %dst : !llvm.ptr -> !part
      // expected-error @+1 {{collectives: multimem rule: the multicast group is every PE (NVSHMEM_TEAM_WORLD), but the reduction is not over mesh axis gpuid_y}}
      axe.copy cta %in to %out {reduce = "sum", multimem} : !part to !part
      gpu.return
    }
  }
}

// -----

!g = !axe.tensor<8xf32, global, S[8:1]>

// A reduction between tensors on one GPU: nothing is partial (the copy is the collective pass's, not ignored).
module {
  gpu.module @kernels {
    gpu.func @local_reduce(%src: !llvm.ptr {axe.symmetric}, %dst: !llvm.ptr) kernel {
      %in = axe.view %src : !llvm.ptr -> !g
      %out = axe.view %dst : !llvm.ptr -> !g
      // expected-error @+1 {{collectives: mesh rule: a collective copy (layouts on device axes, or reduce) needs the module's axe.mesh, and none is declared}}
      axe.copy cta %in to %out {reduce = "sum"} : !g to !g
      gpu.return
    }
  }
}
