//! The `layout-slice` target: `L'(y) == L(y + begin)`, and whole, single-point and single-row regions always
//! slice on a shape the layout groups by.

use super::{base_tile, doc, fail, layout_field, prod, regression, Doc};
use crate::driver::Outcome::{self, Planned, Refused};
use crate::driver::Rng;
use crate::gen_layout::{self, Knobs};
use crate::targets::reference::{self, indices, Ref};
use axe_layout::group::group;
use axe_layout::notation::parse_layout;
use axe_layout::Layout;

pub(super) fn gen_slice(rng: &mut Rng) -> String {
    if let Some(s) = regression(rng, "layout-slice") {
        return s;
    }
    let text = layout_field(rng, Knobs::GENERAL);
    let l = parse_layout(&text).ok();
    let shape = gen_layout::shape_for(rng, l.as_ref());
    let region = gen_layout::region_for(rng, &shape);
    doc(&[("layout", text), ("shape", gen_layout::list_text(&shape)), ("region", gen_layout::region_text(&region))])
}

/// Whole, single-point or single-row (one index in every dimension but the last, which is whole).
fn always_slices(shape: &[i64], region: &[(i64, i64)]) -> bool {
    if shape.len() != region.len() || region.iter().zip(shape).any(|(&(b, e), &d)| b < 0 || e <= b || e > d) {
        return false;
    }
    let whole = region.iter().zip(shape).all(|(&(b, e), &d)| b == 0 && e == d);
    let point = region.iter().all(|&(b, e)| e == b + 1);
    let last = shape.len().saturating_sub(1);
    let row = region
        .iter()
        .zip(shape)
        .enumerate()
        .all(|(i, (&(b, e), &d))| if i == last { b == 0 && e == d } else { e == b + 1 });
    whole || point || row
}

/// Planned: `slice` answers; refused: it refuses, or a field does not parse.
pub(super) fn check_slice(text: &str) -> Result<Outcome, String> {
    let d = Doc::parse(text);
    let (Some(l), Some(shape), Some(region)) = (d.layout("layout"), d.ints("shape"), d.region("region")) else {
        return Ok(Refused);
    };
    match axe_layout::slice::slice(&l, &shape, &region) {
        Ok(s) => {
            let ext: Vec<i64> = region.iter().map(|(b, e)| e - b).collect();
            let n = prod(&ext).unwrap_or(-1);
            if s.size() != n {
                return fail(format!("sliced size {} != region size {n}: {s}", s.size()));
            }
            let (Some(rs), Some(rl)) = (Ref::new(&s), Ref::new(&l)) else { return Ok(Planned) };
            let base = match &l {
                Layout::Compose(c) if c.is_bare() && c.tile().size() != prod(&shape).unwrap_or(-1) => {
                    let Some(t) = base_tile(&l, &shape) else { return Ok(Planned) };
                    let Some(r) = Ref::with_swizzle(&t, l.swizzle()) else { return Ok(Planned) };
                    r
                }
                _ => rl,
            };
            for y in indices(n) {
                let local = reference::coord_of(&ext, y);
                let x: Vec<i64> = local.iter().zip(&region).map(|(l, (b, _))| l + b).collect();
                let (got, want) = (rs.eval(y), base.eval(reference::flat_of(&shape, &x)));
                if got != want {
                    return fail(format!("slice {s} at {local:?} gives {got:?}, the layout at {x:?} gives {want:?}"));
                }
            }
            Ok(Planned)
        }
        Err(e) => {
            // A result whose offset would pass the supported magnitude (2^48) cannot be built: a fair refusal.
            if always_slices(&shape, &region) && group(l.tile(), &shape).is_ok() && !e.message.contains("magnitude") {
                return fail(format!("a whole/point/row region of a groupable shape was refused: {e}"));
            }
            Ok(Refused)
        }
    }
}
