// Malformed meshes, and device iters the declared mesh does not have (rules mesh-declared, device-in-mesh).
// RUN: axe-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{axe.mesh entry 'm' is not a device axis (its kind is memory)}}
module attributes {axe.mesh = {m = 4 : i64}} {
}

// -----

// expected-error @+1 {{axe.mesh must be a dictionary of device axis name to extent}}
module attributes {axe.mesh = [4]} {
}

// -----

// expected-error @+1 {{axe.mesh entry 'gpuid' must be an integer extent, got "4"}}
module attributes {axe.mesh = {gpuid = "4"}} {
}

// -----

// expected-error @+1 {{mesh rule: mesh axis gpuid has extent 0 (< 1)}}
module attributes {axe.mesh = {gpuid = 0 : i64}} {
}

// -----

// expected-error @+1 {{mesh rule: the mesh has 2048 ranks, more than 1024}}
module attributes {axe.mesh = {gpuid_x = 32 : i64, gpuid_y = 64 : i64}} {
}

// -----

// A device axis that is not a mesh dimension.
module attributes {axe.mesh = {gpuid = 4 : i64}} {
  func.func @other_axis(%local: memref<16xf32>) {
    // expected-error @+1 {{layout uses device axis gpuid_x, which is not an axis of the mesh gpuid=4}}
    %t = axe.view %local : memref<16xf32> -> !axe.tensor<64xf32, global, S[(4,16):(1@gpuid_x,1)]>
    return
  }
}

// -----

// Shard(0) over 8 ranks on a mesh of 4: coordinates 0..=7 of gpuid.
module attributes {axe.mesh = {gpuid = 4 : i64}} {
  func.func @too_many_ranks(%local: memref<8xf32>) {
    // expected-error @+1 {{layout reaches coordinates 0..=7 of device axis gpuid, but the mesh has 4 device(s) along it}}
    %t = axe.view %local : memref<8xf32> -> !axe.tensor<64xf32, global, S[(8,8):(1@gpuid,1)]>
    return
  }
}

// -----

// A replica stepping two devices, plus an offset: coordinates 1..=7 on a mesh of 4 (the block argument's
// location).
module attributes {axe.mesh = {gpuid = 4 : i64}} {
  // expected-error @+1 {{layout reaches coordinates 1..=7 of device axis gpuid, but the mesh has 4 device(s) along it}}
  func.func @replica_past_mesh(%t: !axe.tensor<8xf32, global, S[8:1] + R[4:2@gpuid] + 1@gpuid>) {
    return
  }
}

// -----

// A device axis without any mesh.
module {
  func.func @no_mesh(%local: memref<16xf32>) {
    // expected-error @+1 {{layout uses device axis gpuid but the module declares no mesh (axe.mesh = {gpuid = N : i64})}}
    %t = axe.view %local : memref<16xf32> -> !axe.tensor<64xf32, global, S[(4,16):(1@gpuid,1)]>
    return
  }
}
