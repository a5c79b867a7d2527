// The axe.sync forms --lower-copy refuses, each at the op: a thread, a cluster or a kernel (no barrier
// instruction here), a subset that is not a range of warps, a warpgroup in a block of partial warpgroups, a named
// barrier without the block size, and the seventeenth barrier id.
// RUN: axe-opt %s --split-input-file --lower-copy --verify-diagnostics

func.func @thread() {
  // expected-error @+1 {{copy: axe.sync thread has no barrier: a CTA, a range of its warps (warpid, wgid), a warpgroup, or a warp's lanes synchronize}}
  axe.sync thread
  return
}

// -----

func.func @cluster() {
  // expected-error @+1 {{copy: axe.sync cluster has no barrier}}
  axe.sync cluster
  return
}

// -----

func.func @lanes_of_a_cta() attributes {known_block_size = array<i32: 128, 1, 1>} {
  // expected-error @+1 {{copy: axe.sync cta(laneid[0:16]) has no barrier}}
  axe.sync cta(laneid[0:16])
  return
}

// -----

func.func @partial_warpgroups() attributes {known_block_size = array<i32: 160, 1, 1>} {
  // expected-error @+1 {{copy: axe.sync warpgroup in a block of 160 threads: not whole warpgroups}}
  axe.sync warpgroup
  return
}

// -----

func.func @no_block() {
  // expected-error @+1 {{copy: axe.sync on a range of warps needs the kernel's known_block_size (the warps its named barrier counts)}}
  axe.sync cta(warpid[0:2])
  return
}

// -----

func.func @too_many() attributes {known_block_size = array<i32: 1024, 1, 1>} {
  // 1024 threads: warpgroups take ids 1 to 8, ranges 9 to 15; the eighth range would need 16.
  axe.sync cta(warpid[0:1])
  axe.sync cta(warpid[1:2])
  axe.sync cta(warpid[2:3])
  axe.sync cta(warpid[3:4])
  axe.sync cta(warpid[4:5])
  axe.sync cta(warpid[5:6])
  axe.sync cta(warpid[6:7])
  // expected-error @+1 {{copy: axe.sync cta(warpid[7:8]): warps [7, 8) need named barrier 16: a kernel has 16 (0 for the CTA, 1 to 8 for its warpgroups, the rest one per range of warps)}}
  axe.sync cta(warpid[7:8])
  return
}
