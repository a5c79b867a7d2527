%r = scf.for %i = %a to %b step %c iter_args(%v = %x) -> (f32) {
  %x = arith.constant 1.0 : f32
  scf.yield %v : f32
}
