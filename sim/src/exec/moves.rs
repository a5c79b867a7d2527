//! Register moves: `llvm` struct and vector packing, `undef`/`poison`/`zero`, bit casts, pointer and
//! conversion casts. They move bits without reading them, so a value keeps the asynchronous origin of its
//! operands ([`MOVES`], [`Exec::carry_origin`]).

use super::{array_ints, err, loc_of, Exec, Origin};
use crate::value::{wrap, Scalar, Ty, V};
use crate::SimError;
use melior::ir::operation::OperationLike;
use melior::ir::OperationRef;

/// Ops that only move register values: they carry a pending asynchronous result without reading it.
pub(super) const MOVES: [&str; 11] = [
    "llvm.extractvalue",
    "llvm.insertvalue",
    "llvm.mlir.undef",
    "llvm.mlir.poison",
    "llvm.mlir.zero",
    "llvm.insertelement",
    "llvm.extractelement",
    "llvm.bitcast",
    "arith.bitcast",
    "builtin.unrealized_conversion_cast",
    "nvvm.wgmma.mma_async",
];

impl Exec<'_, '_> {
    /// A move or cast op (see the module's list).
    pub(super) fn move_op(&mut self, op: OperationRef, name: &str, mask: &[bool]) -> Result<(), SimError> {
        let n = self.n;
        let loc = || loc_of(op);
        match name {
            "builtin.unrealized_conversion_cast" | "llvm.addrspacecast" => {
                let v = self.operand(op, 0, &loc())?;
                self.set(op, 0, v);
            }
            "llvm.inttoptr" | "llvm.ptrtoint" => {
                let ty = self.result_ty(op, &loc())?;
                let w = ty.scalar().map(|s| s.bits()).unwrap_or(64);
                let s = self.scalars(op, 0, &loc())?;
                self.set(op, 0, V::S(s.into_iter().map(|x| wrap(w, x)).collect()));
            }
            "llvm.mlir.undef" | "llvm.mlir.poison" | "llvm.mlir.zero" => {
                let ty = self.result_ty(op, &loc())?;
                self.set(op, 0, V::zero(&ty, n));
            }
            "llvm.insertvalue" | "llvm.extractvalue" => self.struct_field(op, name)?,
            "llvm.insertelement" | "llvm.extractelement" => self.vector_element(op, name, mask)?,
            "llvm.bitcast" | "arith.bitcast" => {
                let from = self.operand_ty(op, 0, &loc())?;
                let to = self.result_ty(op, &loc())?;
                let v = self.operand(op, 0, &loc())?;
                self.set(
                    op,
                    0,
                    bitcast(&v, &from, &to, n).ok_or_else(|| SimError::new(&loc(), "not modelled: bitcast"))?,
                );
            }
            _ => return err(&loc(), format!("not modelled: {name}")),
        }
        Ok(())
    }

    /// `llvm.insertvalue` / `llvm.extractvalue` at one (unnested) struct position.
    fn struct_field(&mut self, op: OperationRef, name: &str) -> Result<(), SimError> {
        let loc = || loc_of(op);
        let pos = op.attribute("position").map(|a| array_ints(&a.to_string())).unwrap_or_default();
        if pos.len() != 1 {
            return err(&loc(), "not modelled: nested struct positions");
        }
        let p = pos[0] as usize;
        if name == "llvm.extractvalue" {
            let V::Agg(es) = self.operand(op, 0, &loc())? else {
                return err(&loc(), "extractvalue of a non-struct");
            };
            let e = es.get(p).cloned().ok_or_else(|| SimError::new(&loc(), "position out of range"))?;
            self.set(op, 0, e);
        } else {
            let e = self.operand(op, 1, &loc())?;
            let V::Agg(mut es) = self.operand(op, 0, &loc())? else {
                return err(&loc(), "insertvalue into a non-struct");
            };
            *es.get_mut(p).ok_or_else(|| SimError::new(&loc(), "position out of range"))? = e;
            self.set(op, 0, V::Agg(es));
        }
        Ok(())
    }

    /// `llvm.insertelement` / `llvm.extractelement` at each active thread's index.
    fn vector_element(&mut self, op: OperationRef, name: &str, mask: &[bool]) -> Result<(), SimError> {
        let n = self.n;
        let loc = || loc_of(op);
        if name == "llvm.insertelement" {
            let (e, idx) = (self.scalars(op, 1, &loc())?, self.scalars(op, 2, &loc())?);
            let V::Agg(mut es) = self.operand(op, 0, &loc())? else {
                return err(&loc(), "insertelement into a non-vector");
            };
            for t in (0..n).filter(|t| mask[*t]) {
                let Some(V::S(lane)) = es.get_mut(idx[t] as usize) else {
                    return err(&loc(), "vector index out of range");
                };
                lane[t] = e[t];
            }
            self.set(op, 0, V::Agg(es));
        } else {
            let idx = self.scalars(op, 1, &loc())?;
            let V::Agg(es) = self.operand(op, 0, &loc())? else {
                return err(&loc(), "extractelement of a non-vector");
            };
            let mut out = vec![0; n];
            for t in (0..n).filter(|t| mask[*t]) {
                let Some(V::S(lane)) = es.get(idx[t] as usize) else {
                    return err(&loc(), "vector index out of range");
                };
                out[t] = lane[t];
            }
            self.set(op, 0, V::S(out));
        }
        Ok(())
    }

    /// Moves keep their operands' origin (after the op ran): extracts and casts that of their operand, inserts
    /// the join of the aggregate's and the element's, `undef`/`poison`/`zero` none.
    pub(super) fn carry_origin(&mut self, op: OperationRef, name: &str) {
        match name {
            "llvm.extractvalue"
            | "llvm.extractelement"
            | "llvm.bitcast"
            | "arith.bitcast"
            | "builtin.unrealized_conversion_cast" => {
                let o = self.origin_of(op, 0);
                self.set_origin(op, 0, o);
            }
            "llvm.insertvalue" | "llvm.insertelement" => {
                let o = self.origin_of(op, 0).join(self.origin_of(op, 1));
                self.set_origin(op, 0, o);
            }
            "llvm.mlir.undef" | "llvm.mlir.poison" | "llvm.mlir.zero" => self.set_origin(op, 0, Origin::default()),
            _ => {}
        }
    }
}

/// Reinterprets bits between scalars and vectors of the same total width (little-endian lane order).
fn bitcast(v: &V, from: &Ty, to: &Ty, n: usize) -> Option<V> {
    let lanes = |ty: &Ty| -> Option<Vec<Scalar>> {
        match ty {
            Ty::Agg(es) => es.iter().map(|e| e.scalar()).collect(),
            t => Some(vec![t.scalar()?]),
        }
    };
    let (fl, tl) = (lanes(from)?, lanes(to)?);
    let parts: Vec<Vec<u64>> = match v {
        V::S(s) => vec![s.clone()],
        V::Agg(es) => es.iter().map(|e| if let V::S(s) = e { Some(s.clone()) } else { None }).collect::<Option<_>>()?,
        V::Mem(_) => return None,
    };
    // Lane for lane (vector<64xi32> to vector<64xf32>, any length): each lane keeps its bits.
    if fl.len() == tl.len() && fl.len() > 1 && fl.iter().zip(&tl).all(|(f, t)| f.bits() == t.bits()) {
        let out = parts.iter().zip(&tl).map(|(p, s)| V::S(p.iter().map(|&x| wrap(s.bits(), x)).collect()));
        return Some(V::Agg(out.collect()));
    }
    if fl.iter().map(|s| s.bits()).sum::<u32>() != tl.iter().map(|s| s.bits()).sum::<u32>()
        || tl.iter().map(|s| s.bits()).sum::<u32>() > 64
    {
        return None;
    }
    let mut out: Vec<Vec<u64>> = vec![vec![0; n]; tl.len()];
    for t in 0..n {
        let (mut bits, mut shift) = (0u64, 0u32);
        for (p, s) in parts.iter().zip(&fl) {
            bits |= wrap(s.bits(), p[t]) << shift;
            shift += s.bits();
        }
        let mut shift = 0;
        for (o, s) in out.iter_mut().zip(&tl) {
            o[t] = wrap(s.bits(), bits >> shift);
            shift += s.bits();
        }
    }
    Some(if matches!(to, Ty::Agg(_)) { V::Agg(out.into_iter().map(V::S).collect()) } else { V::S(out.remove(0)) })
}
