//! The `layout-tma` target: a plan of `tma::plan` validates, moves exactly the region's bytes, and a software
//! model of the hardware copy puts every element where the layouts say (small copies), also when a region start
//! is a run-time offset (the dynamic plan resolved at that start).

// The TMA hardware model lives with the layout crate's tests; one transcription serves both.
#[path = "../../../../layout/tests/model/tma_hw.rs"]
mod tma_hw;

use super::{base_tile, fail, prod, regression, Doc};
use crate::driver::Outcome::{self, Planned, Refused};
use crate::driver::Rng;
use crate::targets::reference;
use crate::{gen_layout, mutate};
use axe_layout::tma::{
    plan_dynamic, validate, Direction, DynamicOffset, ElemType, L2Promotion, OobFill, TmaOptions, TmaPlan, TmaRequest,
};
use axe_layout::{Axis, ComposeLayout, Layout};
use rand::RngExt;
use std::collections::HashMap;
use tma_hw::{check_transfer, hardware_pairs, resolve, SMEM_BASE};

pub(super) fn gen_tma(rng: &mut Rng) -> String {
    if let Some(s) = regression(rng, "layout-tma") {
        return s;
    }
    let text = gen_layout::tma_request(rng);
    if rng.random_range(0..10) == 0 {
        mutate::mutate(rng, &text, &[])
    } else {
        text
    }
}

/// Planning inputs read from a document.
struct Request {
    global: Layout,
    gshape: Vec<i64>,
    gregion: Vec<(i64, i64)>,
    shared: Layout,
    sshape: Vec<i64>,
    sregion: Vec<(i64, i64)>,
    dtype: ElemType,
    direction: Direction,
    options: TmaOptions,
}

impl Request {
    fn read(d: &Doc<'_>) -> Option<Request> {
        Some(Request {
            global: d.layout("global")?,
            gshape: d.ints("global_shape")?,
            gregion: d.region("global_region")?,
            shared: d.layout("shared")?,
            sshape: d.ints("shared_shape")?,
            sregion: d.region("shared_region")?,
            dtype: ElemType::from_name(d.get("dtype")?.trim())?,
            direction: Direction::from_name(d.get("direction").unwrap_or("g2s").trim())?,
            options: TmaOptions {
                l2_promotion: L2Promotion::from_name(d.get("l2").unwrap_or("128B").trim())?,
                oob_fill: if d.get("oob").map(str::trim) == Some("nan") {
                    OobFill::NanRequestZeroFma
                } else {
                    OobFill::None
                },
            },
        })
    }

    fn plan(&self) -> Result<TmaPlan, axe_layout::tma::TmaError> {
        self.plan_at(&self.gregion, &[])
    }

    /// The plan of `gregion` shifted at run time by `dynamic`.
    fn plan_at(&self, gregion: &[(i64, i64)], dynamic: &[DynamicOffset]) -> Result<TmaPlan, axe_layout::tma::TmaError> {
        plan_dynamic(
            &TmaRequest {
                global: &self.global,
                global_shape: &self.gshape,
                global_region: gregion,
                shared: &self.shared,
                shared_shape: &self.sshape,
                shared_region: &self.sregion,
                dtype: self.dtype,
                direction: self.direction,
                options: self.options,
            },
            dynamic,
        )
    }
}

/// Planned: `tma::plan` answers; refused: it refuses, or a field does not parse.
pub(super) fn check_tma(text: &str) -> Result<Outcome, String> {
    let d = Doc::parse(text);
    let Some(req) = Request::read(&d) else { return Ok(Refused) };
    let Ok(p) = req.plan() else { return Ok(Refused) };
    validate(&p.desc, p.global_offset_bytes).map_err(|e| format!("the plan does not validate: {e}"))?;
    let elems: i64 = req.gregion.iter().map(|(b, e)| e - b).product();
    let want = elems as u64 * req.dtype.bytes() as u64;
    if p.total_bytes() != want {
        return fail(format!("the plan moves {} bytes, the region holds {want}", p.total_bytes()));
    }
    if p.box_bytes != p.desc.box_bytes() {
        return fail(format!("box_bytes {} != the descriptor's {}", p.box_bytes, p.desc.box_bytes()));
    }
    // The planner's MAX_ISSUES (2^16): one copy never expands to more instructions.
    if p.issues.len() > 1 << 16 {
        return fail(format!("{} issues", p.issues.len()));
    }
    for issue in &p.issues {
        if issue.coordinates.len() != p.desc.rank as usize {
            return fail(format!("an issue has {} coordinates for rank {}", issue.coordinates.len(), p.desc.rank));
        }
        if issue.smem_offset_bytes % 128 != 0 {
            return fail(format!("issue shared offset {} is not 128-byte aligned", issue.smem_offset_bytes));
        }
    }
    if SMEM_BASE % p.shared_base_alignment_bytes as i64 != 0 {
        return fail(format!("shared base alignment {}", p.shared_base_alignment_bytes));
    }
    let gcount = prod(&req.gshape).unwrap_or(i64::MAX);
    if elems <= 1 << 12 && gcount <= 1 << 14 {
        model(&req, &p)?;
        dynamic_model(&req)?;
    }
    Ok(Planned)
}

/// Each non-zero start of the global region made a run-time offset (the start as its known multiple, the region
/// at offset 0 as the static part): a plan the planner accepts, resolved at that start, must move the region the
/// layouts give (the model), as the static plan does.
fn dynamic_model(req: &Request) -> Result<(), String> {
    for (d, &(b, e)) in req.gregion.iter().enumerate() {
        if b == 0 {
            continue;
        }
        let mut base = req.gregion.clone();
        base[d] = (0, e - b);
        let Ok(p) = req.plan_at(&base, &[DynamicOffset { dim: d, multiple: b }]) else { continue };
        if p.dynamic.is_empty() {
            return fail(format!("a run-time offset on dimension {d} left no coordinate term"));
        }
        model(req, &resolve(&p, &[b])?)?;
    }
    Ok(())
}

/// The one memory address (in elements) a layout gives a coordinate (a bare swizzle whose period differs from
/// the shape's size stands for the identity over the shape under the swizzle, as in slice and tile).
fn address(l: &Layout, shape: &[i64], x: &[i64]) -> Result<i64, String> {
    let widened = match l {
        Layout::Compose(c) if c.is_bare() && Some(c.tile().size()) != prod(shape) => {
            base_tile(l, shape).and_then(|t| ComposeLayout::new(c.swizzle(), t).ok()).map(Layout::Compose)
        }
        _ => None,
    };
    let l = widened.as_ref().unwrap_or(l);
    let points = l.eval(shape, x).map_err(|e| format!("model: {x:?} does not evaluate: {e}"))?;
    if points.len() != 1 {
        return fail(format!("model: a planned TMA operand maps {x:?} to {} addresses", points.len()));
    }
    Ok(points[0].get(&Axis::M).copied().unwrap_or(0))
}

/// The TMA box copy run through the hardware model (`layout/tests/model/tma_hw.rs`, the one transcription shared
/// with the layout crate's tests): every element of the region must land where the layouts say.
fn model(req: &Request, p: &TmaPlan) -> Result<(), String> {
    let e = req.dtype.bytes();
    let gext: Vec<i64> = req.gregion.iter().map(|(b, e)| e - b).collect();
    let sext: Vec<i64> = req.sregion.iter().map(|(b, e)| e - b).collect();
    let n: i64 = gext.iter().product();
    let mut expected: HashMap<i64, i64> = HashMap::new(); // shared byte -> global byte
    for k in 0..n {
        let gx: Vec<i64> = reference::coord_of(&gext, k).iter().zip(&req.gregion).map(|(y, (b, _))| y + b).collect();
        let sx: Vec<i64> = reference::coord_of(&sext, k).iter().zip(&req.sregion).map(|(y, (b, _))| y + b).collect();
        let ga = address(&req.global, &req.gshape, &gx)? * e;
        let sa = SMEM_BASE + address(&req.shared, &req.sshape, &sx)? * e;
        for b in 0..e {
            if expected.insert(sa + b, ga + b).is_some() {
                return fail("model: a planned shared layout is not injective");
            }
        }
    }
    let mut gmem: HashMap<i64, u64> = HashMap::new();
    for id in 0..prod(&req.gshape).unwrap_or(0) {
        let a = address(&req.global, &req.gshape, &reference::coord_of(&req.gshape, id))? * e;
        for b in 0..e {
            gmem.insert(a + b, (id as u64) << 8 | b as u64);
        }
    }
    check_transfer(p.direction, &hardware_pairs(p)?, &expected, &gmem)
}
