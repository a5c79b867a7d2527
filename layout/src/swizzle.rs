//! XOR swizzles of linear memory addresses (semantics.md "Objects"; TIRx layout page, "Swizzle").
//!
//! `Swizzle(M, B, S)` works on units of `2^M` elements: with `q = a >> M`, bits `[S, S+B)` of `q` are XORed into
//! bits `[0, B)`. This is the CUDA TMA/wgmma swizzle when `M` is log2 of the elements per 16 bytes, `B` is 1/2/3
//! for the 32B/64B/128B modes and `S = 3`.

use crate::error::{LayoutError, Result};
use std::fmt;

/// The CUDA shared-memory swizzle modes (numbered as `CUtensorMapSwizzle`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SwizzleMode {
    /// No swizzle (enum 0).
    None = 0,
    /// 32-byte swizzle (enum 1).
    B32 = 1,
    /// 64-byte swizzle (enum 2).
    B64 = 2,
    /// 128-byte swizzle (enum 3).
    B128 = 3,
}

impl SwizzleMode {
    /// The swizzle span in bytes (16 for `None`: the unswizzled atom is one 16-byte row).
    pub fn bytes(self) -> i64 {
        match self {
            SwizzleMode::None => 16,
            SwizzleMode::B32 => 32,
            SwizzleMode::B64 => 64,
            SwizzleMode::B128 => 128,
        }
    }

    /// Parses `none`, `32B`, `64B`, `128B`.
    pub fn from_name(name: &str) -> Option<SwizzleMode> {
        match name {
            "none" | "0" => Some(SwizzleMode::None),
            "32B" | "32b" => Some(SwizzleMode::B32),
            "64B" | "64b" => Some(SwizzleMode::B64),
            "128B" | "128b" => Some(SwizzleMode::B128),
            _ => None,
        }
    }

    /// The mode's name as [`SwizzleMode::from_name`] reads it.
    pub fn name(self) -> &'static str {
        match self {
            SwizzleMode::None => "none",
            SwizzleMode::B32 => "32B",
            SwizzleMode::B64 => "64B",
            SwizzleMode::B128 => "128B",
        }
    }
}

/// `Swizzle(per_element, swizzle_len, atom_len)`, i.e. `(M, B, S)`. Well-formed iff `S >= B`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Swizzle {
    /// M: log2 of the elements moved together (the low `M` address bits pass through).
    pub per_element: u32,
    /// B: how many bits are XORed.
    pub swizzle_len: u32,
    /// S: the distance between the XOR source bits and the destination bits.
    pub atom_len: u32,
}

/// Largest `M + B + S` accepted: periods up to 2^40 elements.
const MAX_BITS: u32 = 40;

impl Swizzle {
    /// A checked swizzle: `S >= B` and `M + B + S <= 40`.
    pub fn new(per_element: u32, swizzle_len: u32, atom_len: u32) -> Result<Swizzle> {
        if atom_len < swizzle_len {
            return Err(LayoutError::new(format!(
                "swizzle needs atom_len >= swizzle_len, got Swizzle({per_element},{swizzle_len},{atom_len})"
            )));
        }
        if per_element as u64 + swizzle_len as u64 + atom_len as u64 > MAX_BITS as u64 {
            return Err(LayoutError::new(format!(
                "swizzle period 2^({per_element}+{swizzle_len}+{atom_len}) exceeds 2^{MAX_BITS}"
            )));
        }
        Ok(Swizzle { per_element, swizzle_len, atom_len })
    }

    /// The swizzle CUDA applies for `mode` to elements of `dtype_bits` bits: `M = bitlen(128/bits) - 1`, `B` from
    /// the mode, `S = 3`. `None` for `SwizzleMode::None`, or an error for element sizes that do not divide 128 bits.
    pub fn for_dtype(dtype_bits: u32, mode: SwizzleMode) -> Result<Option<Swizzle>> {
        if dtype_bits == 0 || dtype_bits > 128 || 128 % dtype_bits != 0 {
            return Err(LayoutError::new(format!("element size {dtype_bits} bits does not divide 128 bits")));
        }
        if mode == SwizzleMode::None {
            return Ok(None);
        }
        let per_element = (128 / dtype_bits).ilog2();
        Swizzle::new(per_element, mode as u32, 3).map(Some)
    }

    /// The period `2^(M+B+S)`: the swizzle maps each aligned block of this many elements onto itself
    /// (`i64::MAX` for a swizzle built by hand beyond [`Swizzle::new`]'s 2^40).
    pub fn period(&self) -> i64 {
        let bits = u64::from(self.per_element) + u64::from(self.swizzle_len) + u64::from(self.atom_len);
        if bits < 63 {
            1 << bits
        } else {
            i64::MAX
        }
    }

    /// The swizzled address: `q = a >> M; f(q) = q ^ ((q & ((2^B-1) << S)) >> S); (f(q) << M) + (a mod 2^M)`.
    /// The shifts wrap instead of panicking for a swizzle built by hand beyond [`Swizzle::new`]'s limits (the
    /// result then means nothing); within them, for addresses within [`crate::arith::MAX_MAGNITUDE`], nothing
    /// wraps.
    pub fn apply(&self, address: i64) -> i64 {
        let low_bits = |n: u32| 1i64.wrapping_shl(n).wrapping_sub(1);
        let q = address.wrapping_shr(self.per_element);
        let mask = low_bits(self.swizzle_len).wrapping_shl(self.atom_len);
        let f = q ^ (q & mask).wrapping_shr(self.atom_len);
        f.wrapping_shl(self.per_element).wrapping_add(address & low_bits(self.per_element))
    }

    /// The mode this swizzle implements for `dtype_bits` elements, if it is one of CUDA's.
    pub fn mode_for_dtype(&self, dtype_bits: u32) -> Option<SwizzleMode> {
        [SwizzleMode::B32, SwizzleMode::B64, SwizzleMode::B128]
            .into_iter()
            .find(|m| Swizzle::for_dtype(dtype_bits, *m).ok().flatten() == Some(*self))
    }
}

impl fmt::Display for Swizzle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Swizzle({},{},{})", self.per_element, self.swizzle_len, self.atom_len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// TIRx page: `Swizzle(3,3,3)` maps `(i*8+j)*8+k` to `(i*8 + (i XOR j))*8 + k` inside one 512-element period.
    #[test]
    fn swizzle_333_xors_row_into_chunk() {
        let s = Swizzle::new(3, 3, 3).unwrap();
        for i in 0..8 {
            for j in 0..8 {
                for k in 0..8 {
                    assert_eq!(s.apply((i * 8 + j) * 8 + k), (i * 8 + (i ^ j)) * 8 + k);
                    assert_eq!(s.apply(512 + (i * 8 + j) * 8 + k), 512 + (i * 8 + (i ^ j)) * 8 + k);
                }
            }
        }
    }

    #[test]
    fn parameters_from_dtype_and_mode() {
        assert_eq!(Swizzle::for_dtype(16, SwizzleMode::B128).unwrap(), Some(Swizzle::new(3, 3, 3).unwrap()));
        assert_eq!(Swizzle::for_dtype(8, SwizzleMode::B64).unwrap(), Some(Swizzle::new(4, 2, 3).unwrap()));
        assert_eq!(Swizzle::for_dtype(32, SwizzleMode::B32).unwrap(), Some(Swizzle::new(2, 1, 3).unwrap()));
        assert_eq!(Swizzle::for_dtype(16, SwizzleMode::None).unwrap(), None);
        assert!(Swizzle::for_dtype(24, SwizzleMode::B128).is_err());
        assert!(Swizzle::new(3, 3, 2).is_err());
    }

    #[test]
    fn swizzle_is_a_permutation_of_each_period() {
        for (m, b, s) in [(0, 3, 3), (3, 2, 3), (4, 1, 3), (1, 2, 2)] {
            let sw = Swizzle::new(m, b, s).unwrap();
            let mut seen: Vec<i64> = (0..sw.period()).map(|a| sw.apply(a)).collect();
            seen.sort();
            assert_eq!(seen, (0..sw.period()).collect::<Vec<_>>());
        }
    }
}
