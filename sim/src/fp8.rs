//! The OCP 8-bit floating-point formats (OCP "8-bit Floating Point Specification (OFP8)", rev. 1.0; PTX's `e4m3`
//! and `e5m2`, MLIR's `f8E4M3FN` and `f8E5M2`), decoded bit-exactly and encoded by rounding to nearest even.
//!
//! - E4M3: sign, 4 exponent bits (bias 7), 3 mantissa bits; no infinities: `S.1111.111` is NaN, so the largest
//!   finite value is `S.1111.110` = 448; exponent 0 is subnormal (`2^-6 * m/8`).
//! - E5M2: sign, 5 exponent bits (bias 15), 2 mantissa bits, IEEE-like: exponent 31 is infinity (`m = 0`) or NaN;
//!   the largest finite value is 57344; exponent 0 is subnormal (`2^-14 * m/4`).
//!
//! Encoding follows the conversions the tensor-core epilogues use (`cvt.rn.satfinite`): nearest even, values
//! beyond the largest finite saturate to it, NaN stays NaN.

/// One of the two formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fp8 {
    /// E4M3 (`f8E4M3FN`, PTX `e4m3`).
    E4M3,
    /// E5M2 (`f8E5M2`, PTX `e5m2`).
    E5M2,
}

impl Fp8 {
    /// Exponent bits, mantissa bits and bias.
    fn fields(self) -> (u32, u32, i32) {
        match self {
            Fp8::E4M3 => (4, 3, 7),
            Fp8::E5M2 => (5, 2, 15),
        }
    }

    /// The value of `code` (its low 8 bits).
    pub fn decode(self, code: u8) -> f64 {
        let (e_bits, m_bits, bias) = self.fields();
        let sign = if code & 0x80 != 0 { -1.0 } else { 1.0 };
        let exponent = i32::from((code >> m_bits) & ((1 << e_bits) - 1) as u8);
        let mantissa = f64::from(code & ((1 << m_bits) - 1) as u8);
        let scale = f64::from(1u32 << m_bits);
        let all_ones = (1 << e_bits) - 1;
        match self {
            Fp8::E4M3 if exponent == all_ones && mantissa == scale - 1.0 => return f64::NAN,
            Fp8::E5M2 if exponent == all_ones => {
                return if mantissa == 0.0 { sign * f64::INFINITY } else { f64::NAN };
            }
            _ => {}
        }
        if exponent == 0 {
            sign * (mantissa / scale) * 2f64.powi(1 - bias)
        } else {
            sign * (1.0 + mantissa / scale) * 2f64.powi(exponent - bias)
        }
    }

    /// `x` rounded to the nearest code (ties to the even code), saturating to the largest finite value (an
    /// infinity included, as `cvt.rn.satfinite` does: PTX ISA 9.7.9.21, "satfinite").
    pub fn encode(self, x: f64) -> u8 {
        if x.is_nan() {
            return match self {
                Fp8::E4M3 => 0x7f,
                Fp8::E5M2 => 0x7e,
            };
        }
        let finite = (0u8..=0x7f).filter(|&c| self.decode(c).is_finite());
        let largest = finite.clone().map(|c| self.decode(c)).fold(0.0, f64::max);
        let magnitude = x.abs().min(largest);
        let mut best = 0u8;
        for code in finite {
            let (d, b) = ((self.decode(code) - magnitude).abs(), (self.decode(best) - magnitude).abs());
            // Codes of one sign grow with their value: ties go to the even code.
            if d < b || (d == b && code % 2 == 0 && best % 2 == 1) {
                best = code;
            }
        }
        if x.is_sign_negative() {
            best | 0x80
        } else {
            best
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Fp8;

    /// The values the OCP specification tabulates for each format.
    #[test]
    fn the_specifications_values() {
        let e4m3 = [(0x7e, 448.0), (0x08, 2f64.powi(-6)), (0x07, 0.875 * 2f64.powi(-6)), (0x01, 2f64.powi(-9))];
        for (code, value) in e4m3 {
            assert_eq!(Fp8::E4M3.decode(code), value, "e4m3 {code:#04x}");
            assert_eq!(Fp8::E4M3.decode(code | 0x80), -value, "e4m3 {:#04x}", code | 0x80);
        }
        assert!(Fp8::E4M3.decode(0x7f).is_nan() && Fp8::E4M3.decode(0xff).is_nan());
        assert_eq!(Fp8::E4M3.decode(0x78), 256.0); // S.1111.000: finite in E4M3, unlike IEEE
        let e5m2 = [(0x7b, 57344.0), (0x04, 2f64.powi(-14)), (0x03, 0.75 * 2f64.powi(-14)), (0x01, 2f64.powi(-16))];
        for (code, value) in e5m2 {
            assert_eq!(Fp8::E5M2.decode(code), value, "e5m2 {code:#04x}");
        }
        assert_eq!(Fp8::E5M2.decode(0x7c), f64::INFINITY);
        assert_eq!(Fp8::E5M2.decode(0xfc), f64::NEG_INFINITY);
        assert!(Fp8::E5M2.decode(0x7d).is_nan());
        assert_eq!((Fp8::E4M3.decode(0x00), Fp8::E4M3.decode(0x80).is_sign_negative()), (0.0, true));
    }

    /// Every finite code encodes back to itself; halfway values go to the even neighbour; overflow saturates.
    #[test]
    fn encoding_rounds_to_nearest_even_and_saturates() {
        for format in [Fp8::E4M3, Fp8::E5M2] {
            for code in 0..=255u8 {
                let value = format.decode(code);
                if value.is_finite() && !(value == 0.0 && code == 0x80) {
                    assert_eq!(format.encode(value), code, "{format:?} {code:#04x}");
                }
            }
        }
        // 1.0 = 0x38 and 1.125 = 0x39 in E4M3: 1.0625 lies halfway and goes to the even 0x38.
        assert_eq!(Fp8::E4M3.encode(1.0625), 0x38);
        assert_eq!(Fp8::E4M3.encode(1.1), 0x39);
        assert_eq!((Fp8::E4M3.encode(1e6), Fp8::E4M3.encode(-1e6)), (0x7e, 0xfe));
        assert_eq!(Fp8::E5M2.encode(1e9), 0x7b);
        // Infinities saturate too (satfinite), with their sign.
        assert_eq!((Fp8::E4M3.encode(f64::INFINITY), Fp8::E4M3.encode(f64::NEG_INFINITY)), (0x7e, 0xfe));
        assert_eq!(Fp8::E5M2.encode(f64::INFINITY), 0x7b);
    }
}
