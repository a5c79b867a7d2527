//! TMA copies of a global tensor whose extents are run-time values ([`plan_extents`]): a dense row-major tensor
//! `[d_0, .., d_{r-1}]` (layout `row_major` in the dialect), some `d_i` known only at launch, each with the multiple
//! the launch guarantees.
//!
//! The tensor map's `globalDim` and `globalStrides` are the only fields that depend on the extents: for a
//! row-major tensor, descriptor dimension `j` (innermost first) is tensor dimension `r-1-j`, `globalDim[j] =
//! d_{r-1-j}` and `globalStrides[j-1] = elemsize * prod_{t > r-1-j} d_t` bytes (CUDA driver API,
//! `cuTensorMapEncodeTiled`). Everything else (box, element strides, swizzle, the issues, coordinates and shared
//! offsets) is decided by the region and the shared side. So the copy is planned by [`super::plan_offsets`] on
//! two *stand-in* instances of the tensor (each run-time extent a different odd prime times its multiple, larger
//! than the region), and the answer is accepted only when
//! - the two plans agree on every field but `globalDim` and `globalStrides` (the plan does not depend on the
//!   extents);
//! - both plans keep one descriptor dimension per tensor dimension, in reverse order, with the dims and strides
//!   above (the descriptor is a function of the extents, [`ExtentExpr`]; a promoted innermost type divides
//!   `globalDim[0]` by its factor, which the multiple must then guarantee).
//!
//! Refusals name the rule `dynamic-extent` with the numbers: a stride that the stated multiples do not make a
//! multiple of 16 bytes (the driver's `globalStrides` rule), a descriptor that merges or drops a dimension (unit
//! or fully copied static extents), a plan that would depend on the extents. What stays a run-time precondition
//! of the host, stated in the launch record: `globalDim <= 2^32`, strides `< 2^40`, and the run-time offsets
//! inside the tensor or past its end (TMA fills loads and clips stores there: the ragged edges of a GEMM).

use super::{plan_offsets, DynamicOffset, ElemType, TmaError, TmaOptions, TmaPlan, TmaRequest, TmaRule};
use crate::hw::expr::Expr;
use crate::layout::Layout;
use crate::notation::parse_layout;

/// One dimension of a run-time-sized row-major tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extent {
    /// The extent when it is static, `None` when it is a run-time value.
    pub value: Option<i64>,
    /// A divisor the launch guarantees for a run-time extent (1 when nothing is known; ignored when static).
    pub multiple: i64,
}

/// A descriptor field as a function of the run-time extents: `factor * prod(d_i for i in dims) / divisor`, with
/// `dims` the run-time tensor dimensions it multiplies (ascending) and an exact division.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ExtentExpr {
    /// The static factor (static extents and the element size).
    pub factor: i64,
    /// The run-time tensor dimensions multiplied in.
    pub dims: Vec<usize>,
    /// The exact divisor (a promoted innermost type's factor; 1 otherwise).
    pub divisor: i64,
}

impl ExtentExpr {
    /// The value for the run-time `extents` (indexed by tensor dimension; static entries are not read), or `None`
    /// on a missing extent, an overflow or an inexact division.
    pub fn eval(&self, extents: &[i64]) -> Option<i64> {
        let mut value = self.factor;
        for &d in &self.dims {
            value = value.checked_mul(*extents.get(d)?)?;
        }
        (self.divisor >= 1 && value % self.divisor == 0).then(|| value / self.divisor)
    }

    /// The expression with tensor dimension `d` as `dim(d)` (a kernel argument, for the launch record):
    /// `dims` in order, then `factor` unless it is 1 after a dimension, then `/ divisor` unless it is 1.
    pub fn expr(&self, dim: impl Fn(usize) -> Expr) -> Expr {
        let mut factors: Vec<Expr> = self.dims.iter().map(|&d| dim(d)).collect();
        if self.factor != 1 || factors.is_empty() {
            factors.push(Expr::Int(self.factor));
        }
        let product = Expr::product(factors);
        if self.divisor == 1 {
            product
        } else {
            product.exact_div(Expr::Int(self.divisor))
        }
    }

    /// The expression over names (`K * 2`, `M`, `N / 2`), `names[d]` naming tensor dimension `d`.
    pub fn text(&self, names: &[String]) -> String {
        self.expr(Expr::Arg).named(names).to_string()
    }
}

/// The plan of a copy of a run-time-sized tensor: the plan of a stand-in instance, whose `desc.global_dims` and
/// `desc.global_strides_bytes` hold for that instance only, and those two fields as functions of the extents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtentPlan {
    /// The plan (every field but the global dims and strides holds for every extent).
    pub plan: TmaPlan,
    /// `globalDim`, innermost first.
    pub global_dims: Vec<ExtentExpr>,
    /// `globalStrides` in bytes, for descriptor dimensions 1 and up.
    pub global_strides_bytes: Vec<ExtentExpr>,
}

/// A copy between a region of a run-time-sized row-major global tensor and a region of a shared tensor.
#[derive(Clone, Debug)]
pub struct ExtentRequest<'a> {
    /// The global tensor's dimensions.
    pub extents: &'a [Extent],
    /// The global region at run-time offsets 0, half-open per dimension.
    pub global_region: &'a [(i64, i64)],
    /// The shared layout.
    pub shared: &'a Layout,
    /// The shared tensor's shape.
    pub shared_shape: &'a [i64],
    /// The shared region.
    pub shared_region: &'a [(i64, i64)],
    /// Element type.
    pub dtype: ElemType,
    /// Load or store.
    pub direction: super::Direction,
    /// Driver options.
    pub options: TmaOptions,
}

/// Odd primes, one per run-time dimension and instance: the stand-in extent is the prime times the multiple (and
/// large enough to hold the region), so the two instances share no factor but the multiples.
const PRIMES: [[i64; 5]; 2] = [[1009, 1013, 1019, 1021, 1031], [1033, 1087, 1097, 1093, 1117]];

fn refuse(message: String) -> TmaError {
    TmaError::rule(TmaRule::DynamicExtent, message)
}

/// Plans a copy of a run-time-sized row-major tensor (see the module documentation), with run-time region
/// offsets `dynamic` and shared offsets `shared` as [`super::plan_offsets`] takes them.
pub fn plan_extents(
    req: &ExtentRequest<'_>,
    dynamic: &[DynamicOffset],
    shared: &[DynamicOffset],
) -> Result<ExtentPlan, TmaError> {
    check_extents(req)?;
    check_strides(req)?;
    let mut plans = Vec::new();
    for (instance, primes) in PRIMES.iter().enumerate() {
        plans.push(plan_instance(req, instance, primes, dynamic, shared)?);
    }
    let (a, b) = (&plans[0], &plans[1]);
    let strip = |p: &TmaPlan| {
        let mut p = p.clone();
        p.desc.global_dims.clear();
        p.desc.global_strides_bytes.clear();
        p
    };
    if strip(a) != strip(b) {
        return Err(refuse(
            "the plan depends on the run-time extents (two instances planned differently); use static extents"
                .to_string(),
        ));
    }
    let global_dims = global_dims(req, a)?;
    let rank = req.extents.len();
    let bytes = req.dtype.bytes();
    let global_strides_bytes = (1..rank).map(|j| stride_expr(req.extents, rank - 1 - j, bytes)).collect();
    Ok(ExtentPlan { plan: plans.swap_remove(0), global_dims, global_strides_bytes })
}

/// Rank 1 to 5, a region of that rank, and every extent (or its known multiple) at least 1.
fn check_extents(req: &ExtentRequest<'_>) -> Result<(), TmaError> {
    let rank = req.extents.len();
    if rank == 0 || rank > 5 || req.global_region.len() != rank {
        return Err(refuse(format!(
            "a run-time-sized tensor needs rank 1..=5 and a region of its rank, got rank {rank} and {} region \
             dimensions",
            req.global_region.len()
        )));
    }
    for (d, extent) in req.extents.iter().enumerate() {
        let bad = match extent.value {
            Some(v) => v < 1,
            None => extent.multiple < 1,
        };
        if bad {
            return Err(refuse(format!("dimension {d}: extent {:?} with multiple {}", extent.value, extent.multiple)));
        }
    }
    Ok(())
}

/// The driver's stride rule, on what the launch guarantees: stride of tensor dimension t (t < r-1) is
/// bytes * prod_{j>t} d_j, a multiple of 16 for every allowed extent.
fn check_strides(req: &ExtentRequest<'_>) -> Result<(), TmaError> {
    let rank = req.extents.len();
    let bytes = req.dtype.bytes();
    for t in 0..rank.saturating_sub(1) {
        let expr = stride_expr(req.extents, t, bytes);
        let guaranteed = req.extents[t + 1..]
            .iter()
            .try_fold(bytes, |acc, e| acc.checked_mul(e.value.unwrap_or(e.multiple)))
            .ok_or_else(|| refuse(format!("the stride of dimension {t} overflows")))?;
        if guaranteed % 16 != 0 {
            let names: Vec<String> = (0..rank).map(|d| format!("d{d}")).collect();
            return Err(refuse(format!(
                "the global stride of dimension {t} is {} bytes, which the stated multiples make a multiple of \
                 {guaranteed} only; TMA needs a multiple of 16 (state larger multiples on the view)",
                expr.text(&names)
            )));
        }
    }
    Ok(())
}

/// The plan of stand-in instance `instance` (its run-time extents from `primes`), checked to be the row-major
/// tensor's.
fn plan_instance(
    req: &ExtentRequest<'_>,
    instance: usize,
    primes: &[i64; 5],
    dynamic: &[DynamicOffset],
    shared: &[DynamicOffset],
) -> Result<TmaPlan, TmaError> {
    let mut shape = Vec::with_capacity(req.extents.len());
    for (d, (e, &(_, end))) in req.extents.iter().zip(req.global_region).enumerate() {
        shape.push(match e.value {
            Some(v) => v,
            None => stand_in(primes[d], e.multiple, end).ok_or_else(|| {
                refuse(format!(
                    "dimension {d}: no stand-in extent for multiple {} past the region's end {end}",
                    e.multiple
                ))
            })?,
        });
    }
    let layout = parse_layout(&row_major_text(&shape))
        .map_err(|e| refuse(format!("stand-in instance {instance} does not build: {e}")))?;
    let request = TmaRequest {
        global: &layout,
        global_shape: &shape,
        global_region: req.global_region,
        shared: req.shared,
        shared_shape: req.shared_shape,
        shared_region: req.shared_region,
        dtype: req.dtype,
        direction: req.direction,
        options: req.options,
    };
    let plan = plan_offsets(&request, dynamic, shared)?;
    check_row_major(&plan, &shape, req.dtype.bytes())?;
    Ok(plan)
}

/// The descriptor's `globalDim`s (innermost first) as expressions of the extents, the innermost divided by the
/// plan's promotion factor, which the launch must guarantee divides it.
fn global_dims(req: &ExtentRequest<'_>, a: &TmaPlan) -> Result<Vec<ExtentExpr>, TmaError> {
    let rank = req.extents.len();
    let promotion = a.desc.data_type.bytes() / req.dtype.bytes();
    (0..rank)
        .map(|j| {
            let t = rank - 1 - j;
            let mut expr = dim_expr(req.extents, t);
            if j == 0 && promotion > 1 {
                let guaranteed = req.extents[t].value.unwrap_or(req.extents[t].multiple);
                if guaranteed % promotion != 0 {
                    return Err(refuse(format!(
                        "the innermost dimension is copied as {}-byte units, a multiple of {promotion} elements \
                         the launch does not guarantee",
                        a.desc.data_type.bytes()
                    )));
                }
                expr.divisor = promotion;
            }
            Ok(expr)
        })
        .collect()
}

/// The stand-in extent of a run-time dimension: `q * multiple` with `q` the first number `prime + 30 k` for which
/// it passes `end` (the region ends strictly inside, so no dimension is copied in full and merged); `None` on
/// overflow. The step 30 keeps the two instances' `q` apart (per dimension their primes differ modulo 30).
fn stand_in(prime: i64, multiple: i64, end: i64) -> Option<i64> {
    let need = end.checked_div(multiple)?.checked_add(1)?;
    let steps = if need > prime { (need - prime + 29) / 30 } else { 0 };
    steps.checked_mul(30)?.checked_add(prime)?.checked_mul(multiple)
}

/// The layout text of a dense row-major tensor of `shape` (`S[(a,b):(b,1)]`).
fn row_major_text(shape: &[i64]) -> String {
    if let [n] = shape {
        return format!("S[{n}:1]");
    }
    let mut strides = vec![1i64; shape.len()];
    for t in (0..shape.len().saturating_sub(1)).rev() {
        strides[t] = strides[t + 1].saturating_mul(shape[t + 1]);
    }
    let join = |v: &[i64]| v.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
    format!("S[({}):({})]", join(shape), join(&strides))
}

/// `d_t` as an expression.
fn dim_expr(extents: &[Extent], t: usize) -> ExtentExpr {
    match extents[t].value {
        Some(v) => ExtentExpr { factor: v, dims: vec![], divisor: 1 },
        None => ExtentExpr { factor: 1, dims: vec![t], divisor: 1 },
    }
}

/// `bytes * prod_{j>t} d_j` as an expression.
fn stride_expr(extents: &[Extent], t: usize, bytes: i64) -> ExtentExpr {
    let mut expr = ExtentExpr { factor: bytes, dims: vec![], divisor: 1 };
    for (j, e) in extents.iter().enumerate().skip(t + 1) {
        match e.value {
            Some(v) => expr.factor = expr.factor.saturating_mul(v),
            None => expr.dims.push(j),
        }
    }
    expr
}

/// The stand-in plan keeps one descriptor dimension per tensor dimension with row-major dims and strides.
fn check_row_major(plan: &TmaPlan, shape: &[i64], bytes: i64) -> Result<(), TmaError> {
    let rank = shape.len();
    let d = &plan.desc;
    if d.rank as usize != rank || d.global_dims.len() != rank || d.global_strides_bytes.len() + 1 != rank {
        return Err(refuse(format!(
            "the descriptor has rank {} for a rank-{rank} tensor (unit or fully copied static dimensions merge or \
             drop): not supported with run-time extents",
            d.rank
        )));
    }
    let promotion = (d.data_type.bytes() / bytes).max(1);
    for j in 0..rank {
        let t = rank - 1 - j;
        let dim = if j == 0 { shape[t] / promotion } else { shape[t] };
        if d.global_dims[j] != dim as u64 {
            return Err(refuse(format!(
                "descriptor dimension {j} is {} for tensor extent {} (not row-major)",
                d.global_dims[j], shape[t]
            )));
        }
        if j >= 1 {
            let stride: i64 = bytes * shape[t + 1..].iter().product::<i64>();
            if d.global_strides_bytes[j - 1] != stride as u64 {
                return Err(refuse(format!(
                    "descriptor stride {} is {} bytes, row-major gives {stride}",
                    j - 1,
                    d.global_strides_bytes[j - 1]
                )));
            }
        }
    }
    Ok(())
}
