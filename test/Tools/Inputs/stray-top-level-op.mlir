nvvm.cp.async.wait.group 1
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%n: index) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %z = arith.constant 0.0 : f32
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f32) {
        %s = arith.addf %acc, %acc : f32
        scf.yield %s : f32
      }
      gpu.return
    }
  }
}
