"t.use"(%v) : (i32) -> ()
scf.index_switch %c
case 0 { %v
  = arith.constant 1 : i32
  scf.yield
}
