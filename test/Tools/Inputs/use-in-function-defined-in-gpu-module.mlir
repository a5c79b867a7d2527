func.func @launch() {
  gpu.launch_func @k::@f blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
  return
}
gpu.module @k {
  %c1 = arith.constant 1 : index
}
