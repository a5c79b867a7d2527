//! Types and per-thread values of the interpreter.
//!
//! Every SSA value holds one entry per thread of the CTA (threads execute in lockstep). Scalars are raw bits
//! (`u64`, integers zero-extended to their width, floats as their IEEE encoding), so memory, bit casts and vector
//! packing need no conversion; arithmetic decodes by the op's type.

use crate::fp8::Fp8;
use half::{bf16, f16};

/// A scalar element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    /// An integer of this many bits (`index` is 64).
    I(u32),
    /// IEEE half.
    F16,
    /// bfloat16.
    BF16,
    /// IEEE single.
    F32,
    /// IEEE double.
    F64,
    /// An OCP 8-bit float (`f8E4M3FN`, `f8E5M2`).
    F8(Fp8),
}

impl Scalar {
    /// Size in memory, bytes (`i1` takes a byte, as LLVM stores it).
    pub fn bytes(self) -> usize {
        match self {
            Scalar::I(w) => (w as usize).div_ceil(8).max(1),
            Scalar::F8(_) => 1,
            Scalar::F16 | Scalar::BF16 => 2,
            Scalar::F32 => 4,
            Scalar::F64 => 8,
        }
    }

    /// Width in bits.
    pub fn bits(self) -> u32 {
        match self {
            Scalar::I(w) => w,
            Scalar::F8(_) => 8,
            Scalar::F16 | Scalar::BF16 => 16,
            Scalar::F32 => 32,
            Scalar::F64 => 64,
        }
    }

    /// Is it a float type.
    pub fn is_float(self) -> bool {
        !matches!(self, Scalar::I(_))
    }

    /// Decodes bits of this float type.
    pub fn to_f64(self, bits: u64) -> f64 {
        match self {
            Scalar::F16 => f16::from_bits(bits as u16).to_f64(),
            Scalar::BF16 => bf16::from_bits(bits as u16).to_f64(),
            Scalar::F32 => f64::from(f32::from_bits(bits as u32)),
            Scalar::F64 => f64::from_bits(bits),
            Scalar::F8(format) => format.decode(bits as u8),
            Scalar::I(w) => sext(w, bits) as f64,
        }
    }

    /// Encodes `x` in this float type, rounding to nearest even.
    pub fn from_f64(self, x: f64) -> u64 {
        match self {
            Scalar::F16 => u64::from(f16::from_f64(x).to_bits()),
            Scalar::BF16 => u64::from(bf16::from_f64(x).to_bits()),
            Scalar::F32 => u64::from((x as f32).to_bits()),
            Scalar::F64 => x.to_bits(),
            Scalar::F8(format) => u64::from(format.encode(x)),
            Scalar::I(w) => wrap(w, x as i64 as u64),
        }
    }
}

/// `x` truncated to `w` bits.
pub fn wrap(w: u32, x: u64) -> u64 {
    if w >= 64 {
        x
    } else {
        x & ((1u64 << w) - 1)
    }
}

/// The low `w` bits of `x`, sign-extended.
pub fn sext(w: u32, x: u64) -> i64 {
    if w >= 64 || w == 0 {
        x as i64
    } else {
        let s = 64 - w;
        ((x << s) as i64) >> s
    }
}

/// Where a memref lives (the `#gpu.address_space` of its type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemSpace {
    /// Global memory (no address space).
    Global,
    /// `workgroup`: CTA shared memory.
    Shared,
    /// `private`: per-thread registers/stack.
    Private,
}

/// An MLIR type, as far as the interpreter needs it.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    /// A scalar (integers, index, floats).
    Sc(Scalar),
    /// `vector<N x T>` or `!llvm.struct<(...)>`: per-element values.
    Agg(Vec<Ty>),
    /// A memref with a static identity layout.
    Mem { shape: Vec<i64>, elem: Scalar, space: MemSpace },
    /// `!llvm.ptr<N>` (an address; tensor-memory addresses are 32-bit, the rest 64).
    Ptr(u32),
    /// `!nvgpu.mbarrier.group`: the shared address of its first barrier.
    MbarGroup,
    /// `!nvgpu.tensormap.descriptor`: an index into the launch's descriptors.
    TmaDesc,
    /// Anything else (refused where used).
    Other(String),
}

impl Ty {
    /// The scalar a value of this type is stored as, when it is one.
    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            Ty::Sc(s) => Some(*s),
            Ty::Ptr(6) => Some(Scalar::I(32)),
            Ty::Ptr(_) | Ty::MbarGroup | Ty::TmaDesc => Some(Scalar::I(64)),
            _ => None,
        }
    }

    /// Parses the printed form of a type.
    pub fn parse(text: &str) -> Ty {
        let t = text.trim();
        match t {
            "index" => return Ty::Sc(Scalar::I(64)),
            "f16" => return Ty::Sc(Scalar::F16),
            "bf16" => return Ty::Sc(Scalar::BF16),
            "f32" => return Ty::Sc(Scalar::F32),
            "f64" => return Ty::Sc(Scalar::F64),
            "f8E4M3FN" => return Ty::Sc(Scalar::F8(Fp8::E4M3)),
            "f8E5M2" => return Ty::Sc(Scalar::F8(Fp8::E5M2)),
            "!llvm.ptr" => return Ty::Ptr(0),
            _ => {}
        }
        if let Some(w) = t.strip_prefix('i').and_then(|w| w.parse::<u32>().ok()) {
            return Ty::Sc(Scalar::I(w));
        }
        if let Some(n) = t.strip_prefix("!llvm.ptr<").and_then(|r| r.strip_suffix('>')) {
            return n.parse().map(Ty::Ptr).unwrap_or_else(|_| Ty::Other(t.into()));
        }
        if t.starts_with("!nvgpu.mbarrier.group") {
            return Ty::MbarGroup;
        }
        if t.starts_with("!nvgpu.tensormap.descriptor") {
            return Ty::TmaDesc;
        }
        if let Some(body) = t.strip_prefix("vector<").and_then(|r| r.strip_suffix('>')) {
            let mut parts: Vec<&str> = body.split('x').collect();
            let elem = parts.pop().unwrap_or("");
            let n: Option<i64> = parts.iter().map(|p| p.parse::<i64>().ok()).product();
            return match (n, Ty::parse(elem)) {
                (Some(n), e @ Ty::Sc(_)) => Ty::Agg(vec![e; n as usize]),
                _ => Ty::Other(t.into()),
            };
        }
        if let Some(body) = t.strip_prefix("!llvm.struct<(").and_then(|r| r.strip_suffix(")>")) {
            return Ty::Agg(split_top(body).into_iter().map(Ty::parse).collect());
        }
        if let Some(body) = t.strip_prefix("memref<").and_then(|r| r.strip_suffix('>')) {
            let parts = split_top(body);
            let space = match parts.get(1).map(|s| s.trim()) {
                None => MemSpace::Global,
                Some(s) if s.contains("workgroup") || s == "3" => MemSpace::Shared,
                Some(s) if s.contains("private") || s == "5" => MemSpace::Private,
                Some(_) => return Ty::Other(t.into()),
            };
            let mut dims: Vec<&str> = parts[0].split('x').collect();
            let elem = dims.pop().unwrap_or("");
            let shape: Option<Vec<i64>> = dims.iter().map(|d| d.parse::<i64>().ok()).collect();
            return match (shape, Ty::parse(elem)) {
                (Some(shape), Ty::Sc(elem)) => Ty::Mem { shape, elem, space },
                _ => Ty::Other(t.into()),
            };
        }
        Ty::Other(t.into())
    }
}

/// Splits at top-level commas (outside `<>`, `()`, `[]`, `{}` and string literals).
pub fn split_top(s: &str) -> Vec<&str> {
    let (mut depth, mut start, mut out, mut quoted) = (0i32, 0usize, Vec::new(), false);
    for (i, c) in s.char_indices() {
        if c == '"' {
            quoted = !quoted;
        }
        if quoted {
            continue;
        }
        match c {
            '<' | '(' | '[' | '{' => depth += 1,
            '>' | ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !s[start..].trim().is_empty() {
        out.push(s[start..].trim());
    }
    out
}

/// A memref value: where its element 0 is and its static shape (row-major, identity layout).
#[derive(Clone, Debug, PartialEq)]
pub struct MemRef {
    /// The memory.
    pub space: Space,
    /// Byte address of element 0 (for private memory, the offset in the thread's allocation).
    pub addr: u64,
    /// Static shape.
    pub shape: Vec<i64>,
    /// Element type.
    pub elem: Scalar,
}

/// The memory a memref points into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// Global memory (addresses of the bound buffers).
    Global,
    /// CTA shared memory (shared-window addresses).
    Shared,
    /// The per-thread allocation made by one `memref.alloca` execution.
    Private(usize),
}

/// One SSA value for every thread of the CTA.
#[derive(Clone, Debug, PartialEq)]
pub enum V {
    /// Raw bits per thread.
    S(Vec<u64>),
    /// Elements of a vector or struct.
    Agg(Vec<V>),
    /// A memref (the same in every thread).
    Mem(MemRef),
}

impl V {
    /// A zero value of type `ty` for `n` threads.
    pub fn zero(ty: &Ty, n: usize) -> V {
        match ty {
            Ty::Agg(es) => V::Agg(es.iter().map(|e| V::zero(e, n)).collect()),
            _ => V::S(vec![0; n]),
        }
    }

    /// Per-thread select: `self` where `m` holds, `other` elsewhere.
    pub fn select(&self, other: &V, m: &[bool]) -> V {
        match (self, other) {
            (V::S(a), V::S(b)) => V::S(a.iter().zip(b).zip(m).map(|((x, y), c)| if *c { *x } else { *y }).collect()),
            (V::Agg(a), V::Agg(b)) => V::Agg(a.iter().zip(b).map(|(x, y)| x.select(y, m)).collect()),
            (a, _) => a.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_parse() {
        assert_eq!(Ty::parse("index"), Ty::Sc(Scalar::I(64)));
        assert_eq!(Ty::parse("vector<2xf16>"), Ty::Agg(vec![Ty::Sc(Scalar::F16); 2]));
        assert_eq!(
            Ty::parse("memref<64x64xf16, #gpu.address_space<workgroup>>"),
            Ty::Mem { shape: vec![64, 64], elem: Scalar::F16, space: MemSpace::Shared }
        );
        assert_eq!(Ty::parse("memref<i1>"), Ty::Mem { shape: vec![], elem: Scalar::I(1), space: MemSpace::Global });
        assert_eq!(Ty::parse("!llvm.struct<(f32, f32)>"), Ty::Agg(vec![Ty::Sc(Scalar::F32); 2]));
        assert_eq!(Ty::parse("!llvm.ptr<6>"), Ty::Ptr(6));
        assert_eq!(sext(8, 0xff), -1);
        assert_eq!(Scalar::F16.to_f64(Scalar::F16.from_f64(3.0)), 3.0);
    }
}
