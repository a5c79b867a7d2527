!ring = !axe.tensor<array<i64: 192, 64>, f16, #axe.layout<"Swizzle(3,3,3) o S[(192,64):(64,1)]">, #axe.mem<"shared">>
!stage = !axe.tensor<array<i64: 64, 64>, f16, #axe.deferred, #axe.mem<"shared">>
    %san = "axe.slice"(%ring_a, %row) {offsets = array<i64: -9223372036854775808, 0>, sizes = array<i64: 64, 64>} : (!ring, index) -> !stage
    scf.index_switch %next
    case 0 {
    %ring_a = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !ring
    }
