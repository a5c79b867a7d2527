//! `arith.*` ops, `llvm.intr.fma` and constants (`arith.constant`, `llvm.mlir.constant`), lane by lane on the active threads:
//! integer arithmetic and bitwise ops at the operand's width, comparisons, floats rounded to the result type,
//! and conversions between them.

use super::{err, ints_in, loc_of, Exec};
use crate::fp8::Fp8;
use crate::value::{sext, wrap, Scalar, Ty, V};
use crate::SimError;
use melior::ir::operation::OperationLike;
use melior::ir::OperationRef;

impl Exec<'_, '_> {
    /// `arith.constant` and `llvm.mlir.constant`: the same bits in every thread.
    pub(super) fn constant_op(&mut self, op: OperationRef) -> Result<(), SimError> {
        let loc = || loc_of(op);
        let ty = self.result_ty(op, &loc())?;
        let text = op.attribute("value").map(|a| a.to_string()).unwrap_or_default();
        let v = constant(&text, &ty).ok_or_else(|| SimError::new(&loc(), format!("not modelled: constant {text}")))?;
        self.set(op, 0, V::S(vec![v; self.n]));
        Ok(())
    }

    /// An `arith` op: a float conversion of a vector element by element, any other on scalars lane by lane.
    pub(super) fn arith(&mut self, op: OperationRef, name: &str, mask: &[bool]) -> Result<(), SimError> {
        let loc = loc_of(op);
        let op_ty = self.operand_ty(op, 0, &loc)?;
        let res_ty = self.result_ty(op, &loc)?;
        if let (Ty::Agg(from), Ty::Agg(to), "arith.truncf" | "arith.extf") = (&op_ty, &res_ty, name) {
            // A float conversion of a vector: element by element, each rounded as a scalar one.
            let V::Agg(elements) = self.operand(op, 0, &loc)? else {
                return err(&loc, format!("{name}: operand is not a vector"));
            };
            let mut out = Vec::with_capacity(elements.len());
            for ((e, f), t) in elements.iter().zip(from).zip(to) {
                let (V::S(lanes), Some(f), Some(t)) = (e, f.scalar(), t.scalar()) else {
                    return err(&loc, format!("not modelled: {name} on {op_ty:?}"));
                };
                let lanes = lanes.iter().zip(mask).map(|(&x, &on)| if on { t.from_f64(f.to_f64(x)) } else { 0 });
                out.push(V::S(lanes.collect()));
            }
            self.set(op, 0, V::Agg(out));
            return Ok(());
        }
        let (Some(a_sc), Some(r_sc)) = (op_ty.scalar(), res_ty.scalar()) else {
            return err(&loc, format!("not modelled: {name} on {op_ty:?}"));
        };
        let a = self.scalars(op, 0, &loc)?;
        let b = if op.operand_count() > 1 { self.scalars(op, 1, &loc)? } else { vec![0; self.n] };
        let w = a_sc.bits();
        let third = if op.operand_count() > 2 { self.scalars(op, 2, &loc)? } else { Vec::new() };
        let pred = op.attribute("predicate").map(|a| a.to_string()).unwrap_or_default();
        let pred = ints_in(&pred).first().copied().unwrap_or(-1);
        let mut out = vec![0u64; self.n];
        for t in (0..self.n).filter(|t| mask[*t]) {
            let (x, y) = (a[t], b[t]);
            out[t] = match name {
                "arith.cmpi" => cmpi(pred, w, x, y, &loc)?,
                "arith.cmpf" => cmpf(pred, a_sc.to_f64(x), a_sc.to_f64(y), &loc)?,
                "llvm.intr.fma" => fma(r_sc, a_sc.to_f64(x), a_sc.to_f64(y), a_sc.to_f64(third[t])),
                "arith.select" => {
                    // operands: condition, true value, false value
                    if x != 0 {
                        y
                    } else {
                        third[t]
                    }
                }
                _ => match integer(name, w, x, y, &loc)? {
                    Some(v) => v,
                    None => float_or_conversion(name, a_sc, r_sc, x, y)
                        .ok_or_else(|| SimError::new(&loc, format!("not modelled: {name}")))?,
                },
            };
        }
        self.set(op, 0, V::S(out));
        Ok(())
    }
}

impl Exec<'_, '_> {
    /// `cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 d, a, b` (`nvvm.convert.f32x2.to.f8x2`; PTX ISA 9.7.9.21 `cvt`): each
    /// of `a` and `b` rounded to the nearest FP8 code (ties to even), saturated to the largest finite value, NaN to
    /// NaN; `a` in the upper byte of `d` and `b` in the lower. As an `i16` result that is the packed value; as a
    /// `vector<2xi8>`, element 0 is the lower byte (`b`'s code) and element 1 the upper (`a`'s).
    pub(super) fn cvt_f8x2(&mut self, op: OperationRef, mask: &[bool], loc: &str) -> Result<(), SimError> {
        let text = |name: &str| op.attribute(name).map(|a| a.to_string()).unwrap_or_default();
        let format = match text("dstTy").as_str() {
            "f8E4M3FN" => Fp8::E4M3,
            "f8E5M2" => Fp8::E5M2,
            other => return err(loc, format!("not modelled: cvt to {other}")),
        };
        if !text("rnd").contains("rn>") || !text("sat").contains("satfinite") || text("relu").contains("true") {
            return err(loc, "not modelled: cvt to f8x2 other than .rn.satfinite without .relu");
        }
        let (a, b) = (self.scalars(op, 0, loc)?, self.scalars(op, 1, loc)?);
        let code = |bits: u64| u64::from(format.encode(Scalar::F32.to_f64(bits)));
        let (mut low, mut high) = (vec![0u64; self.n], vec![0u64; self.n]);
        for t in (0..self.n).filter(|t| mask[*t]) {
            (low[t], high[t]) = (code(b[t]), code(a[t]));
        }
        let value = match self.result_ty(op, loc)? {
            Ty::Sc(Scalar::I(16)) => V::S(low.iter().zip(&high).map(|(l, h)| l | (h << 8)).collect()),
            Ty::Agg(_) => V::Agg(vec![V::S(low), V::S(high)]),
            other => return err(loc, format!("not modelled: cvt to f8x2 as {other:?}")),
        };
        self.set(op, 0, value);
        Ok(())
    }
}

/// `llvm.intr.fma`: `x * y + z` rounded once to `r` (`fma.rn`). For f32 that is Rust's fused `mul_add` on f32; for
/// wider or narrower types the f64 `mul_add`, then rounded to `r`.
fn fma(r: Scalar, x: f64, y: f64, z: f64) -> u64 {
    match r {
        Scalar::F32 => u64::from((x as f32).mul_add(y as f32, z as f32).to_bits()),
        _ => r.from_f64(x.mul_add(y, z)),
    }
}

/// Integer arithmetic, bitwise ops, shifts, minima and maxima on `w`-bit operands (`None`: not one of them).
fn integer(name: &str, w: u32, x: u64, y: u64, loc: &str) -> Result<Option<u64>, SimError> {
    let (sx, sy) = (sext(w, x), sext(w, y));
    let div0 = || SimError::new(loc, format!("{name}: division by zero"));
    Ok(Some(match name {
        "arith.addi" => wrap(w, x.wrapping_add(y)),
        "arith.subi" => wrap(w, x.wrapping_sub(y)),
        "arith.muli" => wrap(w, x.wrapping_mul(y)),
        "arith.divui" => wrap(w, x.checked_div(y).ok_or_else(div0)?),
        "arith.remui" => wrap(w, x.checked_rem(y).ok_or_else(div0)?),
        "arith.divsi" => wrap(w, sx.checked_div(sy).ok_or_else(div0)? as u64),
        "arith.remsi" => wrap(w, sx.checked_rem(sy).ok_or_else(div0)? as u64),
        "arith.floordivsi" => wrap(w, sx.checked_div_euclid(sy).ok_or_else(div0)? as u64),
        "arith.ceildivui" => {
            wrap(w, x.checked_add(y.saturating_sub(1)).and_then(|s| s.checked_div(y)).ok_or_else(div0)?)
        }
        "arith.ceildivsi" => {
            let q = sx.checked_div(sy).ok_or_else(div0)?;
            wrap(w, (if q * sy != sx && ((sx > 0) == (sy > 0)) { q + 1 } else { q }) as u64)
        }
        "arith.andi" => x & y,
        "arith.ori" => x | y,
        "arith.xori" => x ^ y,
        "arith.shli" => {
            if y >= u64::from(w) {
                0
            } else {
                wrap(w, x << y)
            }
        }
        "arith.shrui" => {
            if y >= u64::from(w) {
                0
            } else {
                x >> y
            }
        }
        "arith.shrsi" => wrap(w, (sx >> y.min(63)) as u64),
        "arith.minsi" => wrap(w, sx.min(sy) as u64),
        "arith.maxsi" => wrap(w, sx.max(sy) as u64),
        "arith.minui" => x.min(y),
        "arith.maxui" => x.max(y),
        _ => return Ok(None),
    }))
}

/// `arith.cmpi` with its predicate's number (`arith::CmpIPredicate`: eq, ne, slt, sle, sgt, sge, ult, ule, ugt,
/// uge) on `w`-bit operands.
fn cmpi(pred: i64, w: u32, x: u64, y: u64, loc: &str) -> Result<u64, SimError> {
    let (sx, sy) = (sext(w, x), sext(w, y));
    Ok(u64::from(match pred {
        0 => x == y,
        1 => x != y,
        2 => sx < sy,
        3 => sx <= sy,
        4 => sx > sy,
        5 => sx >= sy,
        6 => x < y,
        7 => x <= y,
        8 => x > y,
        9 => x >= y,
        _ => return err(loc, "not modelled: cmpi predicate"),
    }))
}

/// `arith.cmpf` with its predicate's number (`arith::CmpFPredicate`; the ordered ones: oeq, ogt, oge, olt,
/// ole, one).
fn cmpf(pred: i64, fx: f64, fy: f64, loc: &str) -> Result<u64, SimError> {
    Ok(u64::from(match pred {
        1 => fx == fy,
        2 => fx > fy,
        3 => fx >= fy,
        4 => fx < fy,
        5 => fx <= fy,
        6 => fx != fy,
        _ => return err(loc, "not modelled: cmpf predicate"),
    }))
}

/// Float arithmetic rounded to the result type `r`, and the integer, float and int-float conversions from an
/// operand of type `a` (`None`: not one of them).
fn float_or_conversion(name: &str, a: Scalar, r: Scalar, x: u64, y: u64) -> Option<u64> {
    let w = a.bits();
    let sx = sext(w, x);
    let (fx, fy) = (a.to_f64(x), a.to_f64(y));
    Some(match name {
        "arith.index_cast" | "arith.extsi" | "arith.trunci" => wrap(r.bits(), sx as u64),
        "arith.index_castui" | "arith.extui" => wrap(r.bits(), x),
        "arith.addf" => r.from_f64(fx + fy),
        "arith.subf" => r.from_f64(fx - fy),
        "arith.mulf" => r.from_f64(fx * fy),
        "arith.divf" => r.from_f64(fx / fy),
        "arith.maximumf" | "arith.maxnumf" => r.from_f64(fx.max(fy)),
        "arith.minimumf" | "arith.minnumf" => r.from_f64(fx.min(fy)),
        "arith.negf" => r.from_f64(-fx),
        "arith.truncf" | "arith.extf" => r.from_f64(fx),
        "arith.sitofp" => r.from_f64(sx as f64),
        "arith.uitofp" => r.from_f64(x as f64),
        "arith.fptosi" | "arith.fptoui" => wrap(r.bits(), fx as i64 as u64),
        _ => return None,
    })
}

/// The bits of a printed constant attribute of type `ty`.
fn constant(text: &str, ty: &Ty) -> Option<u64> {
    let sc = ty.scalar()?;
    let lit = text.split(" : ").next()?.trim();
    match lit {
        "true" => return Some(1),
        "false" => return Some(0),
        _ => {}
    }
    if let Some(hex) = lit.strip_prefix("0x") {
        return u64::from_str_radix(hex, 16).ok();
    }
    if sc.is_float() {
        return lit.parse::<f64>().ok().map(|x| sc.from_f64(x));
    }
    lit.parse::<i128>().ok().map(|x| wrap(sc.bits(), x as u64))
}
