func.func @callee(%a: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %r = arith.addi %a, %c1 : i32
  return %r : i32
}
func.func @caller() -> i32 {
  %c2 = arith.constant 2 : i32
  %0 = call @callee(%c2) : (i32) -> i32
  return %0 : i32
}
