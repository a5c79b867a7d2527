//! Transcriptions of the hardware rules the interpreter executes, from the CUDA driver API and the PTX ISA,
//! written independently of the planners in `layout/src` (nothing here calls them).

use crate::fp8::Fp8;
use crate::value::Scalar;
use crate::SimError;

/// A tensor map as `cuTensorMapEncodeTiled` receives it (CUDA Driver API, "Tensor Map Object Management"), with
/// the fields `--lower-tma` writes on the kernel argument (`axe.tma_descriptor`). Dimensions innermost first.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorMap {
    /// `CUtensorMapDataType` code.
    pub data_type: u32,
    /// Element bytes of that type.
    pub elem_bytes: u64,
    /// Global address (the bound buffer plus `global_offset_bytes`).
    pub base: u64,
    /// `globalDim`.
    pub dims: Vec<i64>,
    /// `globalStrides` in bytes of dimensions 1.. (dimension 0 is contiguous).
    pub strides: Vec<i64>,
    /// `boxDim`.
    pub box_dims: Vec<i64>,
    /// `elementStrides`.
    pub elem_strides: Vec<i64>,
    /// `CUtensorMapSwizzle`: 0 none, 1 32B, 2 64B, 3 128B.
    pub swizzle: u32,
    /// `CUtensorMapInterleave` (only 0 is modelled).
    pub interleave: u32,
    /// `CUtensorMapFloatOOBfill` (0: zeros).
    pub oob_fill: u32,
}

/// Bytes of a `CUtensorMapDataType` element (UINT8 0, UINT16 1, UINT32 2, INT32 3, UINT64 4, INT64 5, FLOAT16 6,
/// FLOAT32 7, FLOAT64 8, BFLOAT16 9, FLOAT32_FTZ 10, TFLOAT32 11, TFLOAT32_FTZ 12).
pub fn tensor_map_elem_bytes(code: u32) -> Option<u64> {
    match code {
        0 => Some(1),
        1 | 6 | 9 => Some(2),
        2 | 3 | 7 | 10..=12 => Some(4),
        4 | 5 | 8 => Some(8),
        _ => None,
    }
}

impl TensorMap {
    /// The swizzle span in bytes (0 for none).
    pub fn span(&self) -> u64 {
        match self.swizzle {
            1 => 32,
            2 => 64,
            3 => 128,
            _ => 0,
        }
    }

    /// The driver's `cuTensorMapEncodeTiled` rules that matter to the data moved: rank 1..5, 16-byte aligned
    /// address and strides, box dimensions 1..256, inner box a multiple of 16 bytes and at most the swizzle
    /// span, element strides 1 (others not modelled), no interleave, zero OOB fill.
    pub fn validate(&self, loc: &str) -> Result<(), SimError> {
        let fail = |m: String| Err(SimError::new(loc, format!("cuTensorMapEncodeTiled would refuse: {m}")));
        let r = self.dims.len();
        if !(1..=5).contains(&r) || self.box_dims.len() != r || self.strides.len() + 1 != r {
            return fail(format!("rank {r} with {} box dims and {} strides", self.box_dims.len(), self.strides.len()));
        }
        if !self.base.is_multiple_of(16) {
            return fail(format!("global address {:#x} not 16-byte aligned", self.base));
        }
        if let Some(s) = self.strides.iter().find(|s| **s % 16 != 0 || **s <= 0) {
            return fail(format!("global stride {s} not a positive multiple of 16"));
        }
        if let Some(b) = self.box_dims.iter().find(|b| !(1..=256).contains(*b)) {
            return fail(format!("box dimension {b} outside 1..256"));
        }
        let inner = self.box_dims[0] as u64 * self.elem_bytes;
        if !inner.is_multiple_of(16) {
            return fail(format!("inner box of {inner} bytes not a multiple of 16"));
        }
        if self.span() != 0 && inner > self.span() {
            return fail(format!("inner box of {inner} bytes exceeds the {}-byte swizzle span", self.span()));
        }
        if self.elem_strides.iter().any(|s| *s != 1) || self.interleave != 0 || self.oob_fill != 0 {
            return Err(SimError::new(loc, "not modelled: element strides other than 1, interleave, NaN OOB fill"));
        }
        Ok(())
    }

    /// Bytes of one box (what `complete_tx` credits, out-of-bounds elements included).
    pub fn box_bytes(&self) -> u64 {
        self.box_dims.iter().product::<i64>() as u64 * self.elem_bytes
    }

    /// Every element of the box at `coords`: (offset in the dense box in shared memory, global address or `None`
    /// when out of bounds). PTX ISA 9.7.9.25 `cp.async.bulk.tensor` tile mode: box element `b` is at global
    /// coordinates `coords + b`; elements outside `[0, globalDim)` are filled with zeros (loads) or skipped
    /// (stores).
    pub fn box_elements(&self, coords: &[i64]) -> Vec<(u64, Option<u64>)> {
        let r = self.box_dims.len();
        let total: i64 = self.box_dims.iter().product();
        let mut out = Vec::with_capacity(total as usize);
        for lin in 0..total {
            let (mut rest, mut inb, mut addr) = (lin, true, self.base as i64);
            #[allow(clippy::needless_range_loop)]
            for d in 0..r {
                let b = rest % self.box_dims[d];
                rest /= self.box_dims[d];
                let g = coords[d] + b;
                inb &= (0..self.dims[d]).contains(&g);
                addr += if d == 0 { g * self.elem_bytes as i64 } else { g * self.strides[d - 1] };
            }
            out.push((lin as u64 * self.elem_bytes, inb.then_some(addr as u64)));
        }
        out
    }
}

/// The shared-memory swizzle the hardware applies to an absolute shared address (TMA `CU_TENSOR_MAP_SWIZZLE_*`
/// and the wgmma/tcgen05 swizzling modes, PTX ISA 9.7.15.5.1.2 "Shared Memory Matrix Layout"): the 16-byte chunk
/// bits `[4, 4+B)` are XORed with bits `[7, 7+B)`, B = 1, 2, 3 for the 32, 64 and 128-byte spans.
pub fn swizzle(span: u64, addr: u64) -> u64 {
    let b = match span {
        32 => 1,
        64 => 2,
        128 => 3,
        _ => return addr,
    };
    addr ^ (((addr >> 7) & ((1 << b) - 1)) << 4)
}

/// A decoded shared-memory matrix descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmemDesc {
    /// Start address (bytes).
    pub start: u64,
    /// Leading-dimension byte offset.
    pub lbo: u64,
    /// Stride-dimension byte offset.
    pub sbo: u64,
    /// Swizzle span in bytes (0: none, the interleaved core-matrix layout).
    pub span: u64,
}

/// Decodes a 64-bit matrix descriptor: wgmma (PTX ISA 9.7.15.5.1.2.2 "Matrix Descriptor Format": start, LBO, SBO
/// as 14-bit fields of `addr >> 4` at bits 0, 16, 32; base offset at 49-51; swizzle at 62-63: 0 none, 1 128B,
/// 2 64B, 3 32B) or tcgen05 (9.7.16.4.1 "Shared Memory Descriptor": the same fields, the fixed `0b001` at bits
/// 46-48, the LBO mode at 52, swizzle at 61-63: 0 none, 1 128B with 32B atoms, 2 128B, 4 64B, 6 32B).
pub fn decode_smem_desc(desc: u64, tcgen05: bool, loc: &str) -> Result<SmemDesc, SimError> {
    let field = |shift: u32| ((desc >> shift) & 0x3FFF) << 4;
    if (desc >> 49) & 7 != 0 {
        return Err(SimError::new(loc, format!("not modelled: matrix descriptor base offset {}", (desc >> 49) & 7)));
    }
    let span = if tcgen05 {
        if (desc >> 46) & 7 != 1 {
            return Err(SimError::new(loc, format!("tcgen05 shared descriptor {desc:#x} lacks 0b001 at bits 46-48")));
        }
        if (desc >> 52) & 1 != 0 {
            return Err(SimError::new(loc, "not modelled: tcgen05 descriptor absolute LBO mode"));
        }
        match desc >> 61 {
            0 => 0,
            2 => 128,
            4 => 64,
            6 => 32,
            m => return Err(SimError::new(loc, format!("not modelled: tcgen05 swizzle mode {m}"))),
        }
    } else {
        match desc >> 62 {
            0 => 0,
            1 => 128,
            2 => 64,
            _ => 32,
        }
    };
    Ok(SmemDesc { start: field(0), lbo: field(16), sbo: field(32), span })
}

/// Byte offset from the start of element `(mn, k)` of an operand in the canonical layouts (PTX ISA
/// 9.7.15.5.1.2.1 "Shared Memory Matrix Layout", the same for tcgen05, 9.7.16.4.1): without swizzle, core
/// matrices of 8 rows x 16 bytes (128 contiguous bytes), LBO between core matrices along the leading dimension
/// and SBO along the strided one; with a swizzle of span T, atoms of 8 rows x T bytes, SBO between 8-row groups
/// (K-major) or 8-K groups (MN-major), LBO between MN atoms (MN-major). The swizzle is applied afterwards on the
/// absolute address ([`swizzle`]).
pub fn canonical_offset(d: &SmemDesc, k_major: bool, bytes: u64, mn: u64, k: u64, loc: &str) -> Result<u64, SimError> {
    let t = 16 / bytes; // elements per 16-byte chunk
    Ok(if d.span == 0 {
        if k_major {
            (mn / 8) * d.sbo + (k / t) * d.lbo + (mn % 8) * 16 + (k % t) * bytes
        } else {
            (mn / t) * d.sbo + (k / 8) * d.lbo + (k % 8) * 16 + (mn % t) * bytes
        }
    } else {
        let w = d.span / bytes; // elements per swizzle row
        if k_major {
            if k >= w {
                return Err(SimError::new(loc, "not modelled: a K-major instruction reaching past one swizzle row"));
            }
            (mn / 8) * d.sbo + (mn % 8) * d.span + k * bytes
        } else {
            (mn / w) * d.lbo + (k / 8) * d.sbo + (k % 8) * d.span + (mn % w) * bytes
        }
    })
}

/// `mma.sync.aligned.m16n8k16` A fragment (PTX ISA 9.7.14.5.8, f16/bf16): lane `l`'s element `i` (0..8) is at
/// `(row, col)`; `groupID = l / 4`, `threadID_in_group = l % 4`.
pub fn frag_a_m16k16(l: u64, i: u64) -> (u64, u64) {
    let (g, t) = (l / 4, l % 4);
    let row = if i < 2 || (4..6).contains(&i) { g } else { g + 8 };
    (row, t * 2 + (i & 1) + if i >= 4 { 8 } else { 0 })
}

/// `m16n8k8` A fragment (9.7.14.5.7, f16/bf16), elements 0..4.
pub fn frag_a_m16k8(l: u64, i: u64) -> (u64, u64) {
    let (g, t) = (l / 4, l % 4);
    (if i < 2 { g } else { g + 8 }, t * 2 + (i & 1))
}

/// `m16n8k16` B fragment (9.7.14.5.8): element `i` (0..4) at `(k, n)`.
pub fn frag_b_k16n8(l: u64, i: u64) -> (u64, u64) {
    let (g, t) = (l / 4, l % 4);
    (t * 2 + (i & 1) + if i >= 2 { 8 } else { 0 }, g)
}

/// `m16n8k8` B fragment (9.7.14.5.7): element `i` (0..2) at `(k, n)`.
pub fn frag_b_k8n8(l: u64, i: u64) -> (u64, u64) {
    let (g, t) = (l / 4, l % 4);
    (t * 2 + i, g)
}

/// `m16n8k*` C/D fragment (9.7.14.5.7/8, f32): element `i` (0..4) at `(row, col)`.
pub fn frag_c_m16n8(l: u64, i: u64) -> (u64, u64) {
    let (g, t) = (l / 4, l % 4);
    (if i < 2 { g } else { g + 8 }, t * 2 + (i & 1))
}

/// wgmma D fragment (PTX ISA 9.7.15.5.1.1, "Register Fragments", f32 accumulator of `m64nN`): thread `th`
/// (0..128) of the warpgroup holds element `i` at row `16 * (th / 32) + (th % 32) / 4 + 8 * ((i / 2) % 2)`,
/// column `8 * (i / 4) + 2 * (th % 4) + i % 2`.
pub fn frag_wgmma_d(th: u64, i: u64) -> (u64, u64) {
    let l = th % 32;
    (16 * (th / 32) + l / 4 + 8 * ((i / 2) % 2), 8 * (i / 4) + 2 * (l % 4) + (i % 2))
}

/// The `.kind` of a `tcgen05.mma`, which says how its instruction descriptor's A and B type fields read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmaKind {
    /// `.kind::f16`: A and B f16 (code 0) or bf16 (1), K = 16 per instruction.
    F16,
    /// `.kind::f8f6f4`: A and B each e4m3 (code 0) or e5m2 (1) here (e2m3, e3m2, e2m1 are not modelled), K = 32.
    F8f6f4,
}

/// Decoded tcgen05 instruction descriptor for `.kind::f16` and `.kind::f8f6f4` (PTX ISA 9.7.16.4.2, "Instruction
/// descriptor"): D type at bits 4-5 (f16 0, f32 1), A and B types at 7-9 and 10-12 (by kind, [`MmaKind`]),
/// transpose (MN-major) A and B at bits 15 and 16, `N >> 3` at 17-22, `M >> 4` at 24-28; bits 0-3 (sparsity,
/// saturate) and the negations (13, 14) must be zero here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IDesc {
    /// M.
    pub m: u64,
    /// N.
    pub n: u64,
    /// K of one instruction: 32 bytes of A's and B's elements.
    pub k: u64,
    /// A is MN-major.
    pub a_mn: bool,
    /// B is MN-major.
    pub b_mn: bool,
    /// D is f32 (else f16).
    pub d_f32: bool,
    /// A's element type.
    pub a: Scalar,
    /// B's element type.
    pub b: Scalar,
}

/// Decodes an instruction descriptor of a `.kind::f16` or `.kind::f8f6f4` `tcgen05.mma`.
pub fn decode_idesc(x: u32, kind: MmaKind, loc: &str) -> Result<IDesc, SimError> {
    let refuse = || SimError::new(loc, format!("not modelled: tcgen05 instruction descriptor {x:#x} for {kind:?}"));
    if x & 0xF != 0 || (x >> 13) & 3 != 0 {
        return Err(refuse());
    }
    let (a, b) = ((x >> 7) & 7, (x >> 10) & 7);
    let (a, b) = match kind {
        // One 16-bit type for both operands.
        MmaKind::F16 if a == b && a <= 1 => {
            let t = if a == 1 { Scalar::BF16 } else { Scalar::F16 };
            (t, t)
        }
        MmaKind::F16 => return Err(refuse()),
        MmaKind::F8f6f4 => {
            let f8 = |code| match code {
                0 => Ok(Scalar::F8(Fp8::E4M3)),
                1 => Ok(Scalar::F8(Fp8::E5M2)),
                _ => Err(refuse()),
            };
            (f8(a)?, f8(b)?)
        }
    };
    Ok(IDesc {
        m: u64::from((x >> 24) & 0x1F) << 4,
        n: u64::from((x >> 17) & 0x3F) << 3,
        k: 32 / a.bytes() as u64,
        a_mn: (x >> 15) & 1 == 1,
        b_mn: (x >> 16) & 1 == 1,
        d_f32: (x >> 4) & 3 == 1,
        a,
        b,
    })
}

/// The tensor-memory lane of D's row `row` for `cta_group::1` (PTX ISA 9.7.16.10.4.1, "Matrix fragments for
/// tcgen05.mma"): row `i` in lane `i` for M = 128; for M = 64, rows 0-15 of each 16 in lanes `32 * (i / 16)..`.
pub fn tmem_lane_of_row(m: u64, row: u64) -> u64 {
    if m == 128 {
        row
    } else {
        32 * (row / 16) + row % 16
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instruction_descriptors_read_their_types_by_kind() {
        // f32 D (bit 4), A e4m3 (0 at 7-9), B e5m2 (1 at 10-12), N = 128 (16 at 17-22), M = 128 (8 at 24-28).
        let x = (1 << 4) | (1 << 10) | (16 << 17) | (8 << 24);
        let f8 = decode_idesc(x, MmaKind::F8f6f4, "t").unwrap();
        assert_eq!((f8.m, f8.n, f8.k, f8.d_f32), (128, 128, 32, true));
        assert_eq!((f8.a, f8.b), (Scalar::F8(Fp8::E4M3), Scalar::F8(Fp8::E5M2)));
        // The same bits under kind::f16 name f16 A and bf16 B, which one instruction cannot mix.
        assert!(decode_idesc(x, MmaKind::F16, "t").is_err());
        let bf16 = decode_idesc(x | (1 << 7), MmaKind::F16, "t").unwrap();
        assert_eq!((bf16.a, bf16.b, bf16.k), (Scalar::BF16, Scalar::BF16, 16));
        // e2m3 (code 3) is not modelled.
        assert!(decode_idesc(x | (3 << 7), MmaKind::F8f6f4, "t").is_err());
    }

    #[test]
    fn swizzle_128b_permutes_chunks_within_1024_bytes() {
        // Row r of a 128B-swizzled tile: chunk c lands on chunk c ^ (r % 8).
        for r in 0..8u64 {
            for c in 0..8u64 {
                assert_eq!(swizzle(128, r * 128 + c * 16), r * 128 + ((c ^ r) * 16));
            }
        }
        assert_eq!(swizzle(0, 4242), 4242);
    }

    #[test]
    fn fragments_cover_their_tiles_once() {
        let mut seen = std::collections::HashSet::new();
        for th in 0..128 {
            for i in 0..32 {
                assert!(seen.insert(frag_wgmma_d(th, i)));
            }
        }
        assert_eq!(seen.len(), 64 * 64);
        let mut a = std::collections::HashSet::new();
        for l in 0..32 {
            for i in 0..8 {
                assert!(a.insert(frag_a_m16k16(l, i)));
            }
        }
        assert_eq!(a.len(), 16 * 16);
    }
}
