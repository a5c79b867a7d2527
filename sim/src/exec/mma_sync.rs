//! The sm_80 warp-level tensor-core path: `ldmatrix`, `stmatrix` (shared memory to and from fragments) and
//! `mma.sync` (m16n8k8/k16, f16/bf16 into f32), each on whole warps.

use super::{array_ints, err, ints_in, Exec};
use crate::isa;
use crate::value::{Scalar, Ty, V};
use crate::SimError;
use melior::ir::operation::OperationLike;
use melior::ir::OperationRef;

/// A fragment table: (lane, element) -> (row, col).
type Frag = fn(u64, u64) -> (u64, u64);

impl Exec<'_, '_> {
    /// `nvvm.ldmatrix`, `nvvm.stmatrix`, `nvvm.mma.sync`.
    pub(super) fn mma_sync_op(
        &mut self,
        op: OperationRef,
        name: &str,
        mask: &[bool],
        loc: &str,
    ) -> Result<(), SimError> {
        match name {
            "nvvm.ldmatrix" => self.ldmatrix(op, mask, loc)?,
            "nvvm.stmatrix" => self.stmatrix(op, mask, loc)?,
            "nvvm.mma.sync" => self.mma_sync(op, mask, loc)?,
            _ => return err(loc, format!("not modelled: {name}")),
        }
        Ok(())
    }

    /// `ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16` (PTX ISA 9.7.14.5.15): thread `8i + r` gives
    /// the address of row `r` of matrix `i` (16 bytes); thread `l` receives in register `i` the elements
    /// `(l / 4, 2 (l % 4) + j)` of matrix `i` (`.trans`: `(2 (l % 4) + j, l / 4)`), `j` = 0 in the low half.
    fn ldmatrix(&mut self, op: OperationRef, mask: &[bool], loc: &str) -> Result<(), SimError> {
        let attr = |k: &str| op.attribute(k).map(|a| a.to_string()).unwrap_or_default();
        let num = ints_in(&attr("num")).first().copied().unwrap_or(0) as usize;
        if !attr("eltType").contains("b16") || !attr("shape").contains("m = 8, n = 8") || ![1, 2, 4].contains(&num) {
            return err(loc, "not modelled: this ldmatrix form");
        }
        let trans = attr("layout").contains("col");
        let ptr = self.scalars(op, 0, loc)?;
        let mut regs = vec![vec![0u64; self.n]; num];
        for w in self.whole_groups(mask, 32, "ldmatrix", loc)? {
            let mut rows = vec![[0u16; 8]; 8 * num];
            for (r, row) in rows.iter_mut().enumerate() {
                let b = self.m.read_shared_by(ptr[w * 32 + r], 16, w * 32..w * 32 + 32, loc)?;
                for (c, x) in row.iter_mut().enumerate() {
                    *x = u16::from_le_bytes([b[2 * c], b[2 * c + 1]]);
                }
            }
            for l in 0..32 {
                for (i, reg) in regs.iter_mut().enumerate() {
                    let at = |j: usize| {
                        let (r, c) = if trans { (2 * (l % 4) + j, l / 4) } else { (l / 4, 2 * (l % 4) + j) };
                        u64::from(rows[8 * i + r][c])
                    };
                    reg[w * 32 + l] = at(0) | at(1) << 16;
                }
            }
        }
        let v = if num == 1 && !matches!(self.result_ty(op, loc)?, Ty::Agg(_)) {
            V::S(regs.remove(0))
        } else {
            V::Agg(regs.into_iter().map(V::S).collect())
        };
        self.set(op, 0, v);
        Ok(())
    }

    /// `stmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16` (PTX ISA 9.7.14.5.16): the inverse of
    /// [`Self::ldmatrix`]: thread `8i + r` gives the address of row `r` of matrix `i`; thread `l`'s register `i`
    /// holds the elements `(l / 4, 2 (l % 4) + j)` of matrix `i` (`.trans`: `(2 (l % 4) + j, l / 4)`).
    fn stmatrix(&mut self, op: OperationRef, mask: &[bool], loc: &str) -> Result<(), SimError> {
        let attr = |k: &str| op.attribute(k).map(|a| a.to_string()).unwrap_or_default();
        let num = op.operand_count().saturating_sub(1);
        if !attr("eltType").contains("b16") || !attr("shape").contains("m = 8, n = 8") || ![1, 2, 4].contains(&num) {
            return err(loc, "not modelled: this stmatrix form");
        }
        let trans = attr("layout").contains("col");
        let ptr = self.scalars(op, 0, loc)?;
        let regs: Vec<Vec<u64>> = (1..=num).map(|i| self.scalars(op, i, loc)).collect::<Result<_, _>>()?;
        for w in self.whole_groups(mask, 32, "stmatrix", loc)? {
            let mut rows = vec![[0u16; 8]; 8 * num];
            for l in 0..32 {
                for (i, reg) in regs.iter().enumerate() {
                    for j in 0..2 {
                        let (r, c) = if trans { (2 * (l % 4) + j, l / 4) } else { (l / 4, 2 * (l % 4) + j) };
                        rows[8 * i + r][c] = (reg[w * 32 + l] >> (16 * j)) as u16;
                    }
                }
            }
            for (r, row) in rows.iter().enumerate() {
                let bytes: Vec<u8> = row.iter().flat_map(|x| x.to_le_bytes()).collect();
                self.m.write_shared_by(ptr[w * 32 + r], &bytes, w * 32 + r % 32, loc)?;
            }
        }
        Ok(())
    }

    /// `mma.sync.aligned.m16n8k{8,16}.row.col.f32.{f16,bf16}.{f16,bf16}.f32` (PTX ISA 9.7.14.5.7/8) per warp.
    fn mma_sync(&mut self, op: OperationRef, mask: &[bool], loc: &str) -> Result<(), SimError> {
        let attr = |k: &str| op.attribute(k).map(|a| a.to_string()).unwrap_or_default();
        let shape = ints_in(&attr("shape"));
        let seg = array_ints(&attr("operandSegmentSizes"));
        if shape.len() != 3 || seg.len() != 3 || !attr("layoutA").contains("row") || !attr("layoutB").contains("col") {
            return err(loc, "not modelled: this mma.sync form");
        }
        let (m, n, k) = (shape[0] as u64, shape[1] as u64, shape[2] as u64);
        if m != 16 || n != 8 || !(k == 8 || k == 16) {
            return err(loc, format!("not modelled: mma.sync m{m}n{n}k{k}"));
        }
        let elem = if attr("multiplicandAPtxType").contains("bf16") { Scalar::BF16 } else { Scalar::F16 };
        // Flatten each operand group into its elements (a 32-bit register holds two 16-bit elements, low first).
        let mut groups: Vec<Vec<Vec<u64>>> = Vec::new();
        let mut idx = 0;
        for (g, count) in seg.iter().enumerate() {
            let mut elems = Vec::new();
            for _ in 0..*count {
                let ty = self.operand_ty(op, idx, loc)?;
                match (self.operand(op, idx, loc)?, &ty) {
                    (V::Agg(es), _) => {
                        for e in es {
                            let V::S(s) = e else { return err(loc, "nested operand") };
                            elems.push(s);
                        }
                    }
                    (V::S(s), Ty::Sc(Scalar::I(32))) if g < 2 => {
                        elems.push(s.iter().map(|x| x & 0xFFFF).collect());
                        elems.push(s.iter().map(|x| (x >> 16) & 0xFFFF).collect());
                    }
                    (V::S(s), Ty::Sc(Scalar::F32)) if g == 2 => elems.push(s),
                    (_, ty) => return err(loc, format!("not modelled: mma.sync operand of type {ty:?}")),
                }
                idx += 1;
            }
            groups.push(elems);
        }
        let (fa, fb): (Frag, Frag) =
            if k == 16 { (isa::frag_a_m16k16, isa::frag_b_k16n8) } else { (isa::frag_a_m16k8, isa::frag_b_k8n8) };
        if groups[0].len() as u64 != m * k / 32 || groups[1].len() as u64 != k * n / 32 || groups[2].len() != 4 {
            return err(loc, "mma.sync operand counts do not match the shape");
        }
        let mut out: Vec<Vec<u64>> = groups[2].clone();
        for w in self.whole_groups(mask, 32, "mma.sync", loc)? {
            let mut a = vec![0.0; (m * k) as usize];
            let mut b = vec![0.0; (k * n) as usize];
            let mut c = vec![0.0; (m * n) as usize];
            for l in 0..32u64 {
                let t = w * 32 + l as usize;
                for (i, e) in groups[0].iter().enumerate() {
                    let (r, col) = fa(l, i as u64);
                    a[(r * k + col) as usize] = elem.to_f64(e[t]);
                }
                for (i, e) in groups[1].iter().enumerate() {
                    let (r, col) = fb(l, i as u64);
                    b[(r * n + col) as usize] = elem.to_f64(e[t]);
                }
                for (i, e) in groups[2].iter().enumerate() {
                    let (r, col) = isa::frag_c_m16n8(l, i as u64);
                    c[(r * n + col) as usize] = Scalar::F32.to_f64(e[t]);
                }
            }
            for l in 0..32u64 {
                let t = w * 32 + l as usize;
                for (i, o) in out.iter_mut().enumerate() {
                    let (r, col) = isa::frag_c_m16n8(l, i as u64);
                    let d = c[(r * n + col) as usize]
                        + (0..k).map(|kk| a[(r * k + kk) as usize] * b[(kk * n + col) as usize]).sum::<f64>();
                    o[t] = Scalar::F32.from_f64(d);
                }
            }
        }
        self.set(op, 0, V::Agg(out.into_iter().map(V::S).collect()));
        Ok(())
    }
}
