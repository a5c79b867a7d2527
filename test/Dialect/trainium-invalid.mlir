// The verifier's rules on Trainium tensors (issue 30): the memories' axes, what the engines' ops take, and what
// has no GPU lowering yet. Each case is one split chunk.
// RUN: axe-opt %s --split-input-file --verify-diagnostics

// layout-fits-memory: sbuf and psum layouts live on the partition axis P and the free axis F
// expected-error @+1 {{layout of a sbuf tensor must use the partition axis P and the free axis F only, got axis m}}
func.func @sbuf_on_m(%a: !axe.tensor<128x64xf16, sbuf, S[(128,64):(64,1)]>) {
  return
}

// -----

// layout-fits-memory: an hbm tensor is flat memory, on m
// expected-error @+1 {{layout of a hbm tensor must use the memory axis m only, got axis P}}
func.func @hbm_on_p(%a: !axe.tensor<128xf16, hbm, S[128:1@P]>) {
  return
}

// -----

// memory-scopes: hbm tensors are a kernel's arguments
func.func @alloc_hbm() {
  // expected-error @+1 {{alloc cannot allocate hbm: a Trainium kernel's hbm tensors are its function's arguments}}
  %t = axe.alloc kernel : !axe.tensor<128x64xf16, hbm, S[(128,64):(64,1)]>
  return
}

// -----

// memory-scopes: the Tensor Engine reads sbuf and writes psum
!a = !axe.tensor<128x128xf16, sbuf, S[(128,128):(1@F,1@P)]>
!c = !axe.tensor<128x128xf32, sbuf, S[(128,128):(1@P,1@F)]>
func.func @gemm_into_sbuf(%a: !a, %c: !c) {
  // expected-error @+1 {{gemm c must be in psum, got sbuf}}
  axe.gemm kernel %a, %a, %c : !a, !a, !c
  return
}

// -----

// shapes-agree: on Trainium an operand broadcasts where its extent is 1, nowhere else
!s = !axe.tensor<128x128xf32, sbuf, S[(128,128):(1@P,1@F)]>
!two = !axe.tensor<128x2xf32, sbuf, S[(128,2):(1@P,1@F)]>
func.func @sub_two_columns(%s: !s, %m: !two) {
  // expected-error @+1 {{sub rhs shape must broadcast to (equal, or 1 where they differ) dest's, got [128,2] and [128,128]}}
  axe.sub kernel %s, %m to %s : !s, !two to !s
  return
}

// -----

// dtypes-agree: the engines' elementwise ops take floats
!i = !axe.tensor<128x4xi32, sbuf, S[(128,4):(1@P,1@F)]>
func.func @exp_int(%x: !i) {
  // expected-error @+1 {{exp takes f32, f16 or bf16 tiles, got source i32}}
  axe.exp kernel %x to %x : !i to !i
  return
}

// -----

// memory-scopes: exp and reduce have no GPU lowering yet
!r = !axe.tensor<32x4xf32, reg, S[(32,4):(1@laneid,1)]>
func.func @exp_on_registers(%x: !r) {
  // expected-error @+1 {{exp has no GPU lowering yet: it works on Trainium's sbuf and psum tiles, got reg}}
  axe.exp warp %x to %x : !r to !r
  return
}

// -----

!r = !axe.tensor<32x4xf32, reg, S[(32,4):(1@laneid,1)]>
!one = !axe.tensor<32x1xf32, reg, S[(32,1):(1@laneid,1)]>
func.func @reduce_on_registers(%x: !r, %y: !one) {
  // expected-error @+1 {{reduce has no GPU lowering yet: it works on Trainium's sbuf and psum tiles, got reg to reg}}
  axe.reduce warp "max" %x to %y : !r to !one
  return
}

// -----

// counts: a reduction is a max or a sum
!s = !axe.tensor<128x128xf32, sbuf, S[(128,128):(1@P,1@F)]>
!rows = !axe.tensor<128x1xf32, sbuf, S[(128,1):(1@P,1@F)]>
func.func @reduce_min(%s: !s, %m: !rows) {
  // expected-error @+1 {{reduce kind must be "max" or "sum", got "min"}}
  axe.reduce kernel "min" %s to %m : !s to !rows
  return
}

// -----

// shapes-agree: dest keeps source's extents or reduces them to 1
!s = !axe.tensor<128x128xf32, sbuf, S[(128,128):(1@P,1@F)]>
!half = !axe.tensor<128x64xf32, sbuf, S[(128,64):(1@P,1@F)]>
func.func @reduce_to_half(%s: !s, %m: !half) {
  // expected-error @+1 {{reduce dest must have source's extents or 1 (the reduced dimensions), got [128,128] to [128,64]}}
  axe.reduce kernel "sum" %s to %m : !s to !half
  return
}

// -----

// region-in-bounds: only an hbm slice may drop unit dimensions (the NKI emitter indexes them)
!g = !axe.tensor<2x128x64xf16, global, S[(2,128,64):(8192,64,1)]>
func.func @rank_reducing_global(%g: !g) {
  // expected-error @+1 {{slice result shape must equal the sizes [1,128,64], got [128,64]}}
  %t = axe.slice %g[1, 0, 0] [1, 128, 64] : !g to !axe.tensor<128x64xf16, global>
  return
}

// -----

// memory-scopes: a gemm that overwrites c is Trainium's for now
!a = !axe.tensor<64x16xf16, shared, S[(64,16):(16,1)]>
!b = !axe.tensor<16x64xf16, shared, S[(16,64):(64,1)]>
!c = !axe.tensor<64x64xf32, reg, S[(64,64):(64,1)]>
func.func @overwrite_on_gpu(%a: !a, %b: !b, %c: !c) {
  // expected-error @+1 {{gemm {accumulate = false} (c = a * b) has no GPU lowering yet: Trainium's nc_matmul takes it}}
  axe.gemm warpgroup %a, %b, %c {accumulate = false} : !a, !b, !c
  return
}
