func.func @f() -> i32 {
  cf.br ^bb2
^bb1:
  return %x : i32
^bb2:
  %x = arith.constant 1 : i32
  cf.br ^bb1
}
