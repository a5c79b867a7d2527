!ring = !axe.tensor<192x64xf16, shared, Swizzle(3,3,3) o S[(192,64):(64,1)]>
!stage = !axe.tensor<64x64xf16, shared>
    %san = axe.slice %ring_a[%row, 0] [64, 64] : !ring to !stage
    scf.index_switch %next
    case 0 {
    %ring_a = axe.alloc cta : !ring
    }
