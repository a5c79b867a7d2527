//! The PTX ISA's own worked examples of shared-memory matrix layouts (9.7.15.5.1.2.1.3, "Canonical Layouts",
//! the bf16 MN-major figures): each example's exact CuTe layout, written as an Axe layout of B (`[K, N]`), must
//! give the LBO and SBO the ISA's table states.

use axe_layout::mma::shared::{descriptor, match_shared};
use axe_layout::mma::{Family, Major, Memory, Operand, Role};
use axe_layout::notation::parse_layout;
use axe_layout::SwizzleMode;

fn check(text: &str, shape: [i64; 2], mode: SwizzleMode, lbo: i64, sbo: i64) {
    let layout = parse_layout(text).unwrap();
    let op = Operand { layout: &layout, shape: &shape, mem: Memory::Shared };
    let m = match_shared(Role::B, &op, 16).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!((m.mode, m.major), (mode, Major::MN), "{text}");
    let d = descriptor(&m, Family::Wgmma, [0, 0], shape[1], shape[0]).unwrap();
    assert_eq!((d.lbo_bytes, d.sbo_bytes), (lbo, sbo), "{text}");
    assert_eq!(d.desc >> 16 & 0x3FFF, (lbo >> 4) as u64, "LBO field");
    assert_eq!(d.desc >> 32 & 0x3FFF, (sbo >> 4) as u64, "SBO field");
}

/// `Swizzle<0,4,3> o ((8,1,2),(8,2)):((1,8,64),(8,128))`: LBO = 128 * sizeof(bf16), SBO = 64 * sizeof(bf16).
#[test]
fn mn_major_no_swizzle_bf16() {
    check("S[(2,8,2,8):(128,8,64,1)]", [16, 16], SwizzleMode::None, 256, 128);
}

/// `Swizzle<1,4,3> o ((8,2,2),(8,2)):((1,8,128),(16,256))`: LBO = 128 * 2, SBO = 256 * 2.
#[test]
fn mn_major_32b_bf16() {
    check("Swizzle(3,1,3) o S[(2,8,2,2,8):(256,16,128,8,1)]", [16, 32], SwizzleMode::B32, 256, 512);
}

/// `Swizzle<2,4,3> o ((8,4,2),(8,2)):((1,8,256),(32,512))`: LBO = 256 * 2, SBO = 512 * 2.
#[test]
fn mn_major_64b_bf16() {
    check("Swizzle(3,2,3) o S[(2,8,2,4,8):(512,32,256,8,1)]", [16, 64], SwizzleMode::B64, 512, 1024);
}
