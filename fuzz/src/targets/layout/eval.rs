//! The `layout-eval` target: the evaluator agrees with the reference and with `Layout::eval`; indices out of
//! range are errors.

use super::{doc, fail, layout_field, regression, Doc};
use crate::driver::Outcome::{self, Planned, Refused};
use crate::driver::Rng;
use crate::gen_layout::{self, Knobs};
use crate::targets::reference::{self, crate_eval, indices, Ref};
use axe_layout::notation::parse_layout;

pub(super) fn gen_eval(rng: &mut Rng) -> String {
    if let Some(s) = regression(rng, "layout-eval") {
        return s;
    }
    let text = layout_field(rng, Knobs::GENERAL);
    let l = parse_layout(&text).ok();
    let shape = gen_layout::shape_for(rng, l.as_ref());
    let at = gen_layout::coord_for(rng, &shape);
    doc(&[("layout", text), ("shape", gen_layout::list_text(&shape)), ("at", gen_layout::list_text(&at))])
}

/// Planned: `eval` answers at the document's coordinate; refused: it refuses there, or a field does not parse
/// (the evaluator is checked against the reference at flat indices either way).
pub(super) fn check_eval(text: &str) -> Result<Outcome, String> {
    let d = Doc::parse(text);
    let Some(l) = d.layout("layout") else { return Ok(Refused) };
    let mut outcome = Refused;
    let t = l.tile();
    for a in t.axes() {
        let _ = t.span_on(a);
    }
    let _ = t.span_memory();
    let _ = axe_layout::tile::span_vector(t);
    // `Layout::eval_flat` prepares an `Evaluator` each time (which may refuse a replica with too many points).
    for bad in [-1, l.size(), i64::MAX, i64::MIN] {
        if l.eval_flat(bad).is_ok() {
            return fail(format!("index {bad} of a layout of size {} evaluated", l.size()));
        }
    }
    if let Some(r) = Ref::new(&l) {
        for f in indices(l.size()).into_iter().take(256) {
            let got = crate_eval(&l, f)?;
            let want = r.eval(f);
            if got != want {
                return fail(format!("{l} at {f}: the evaluator gives {got:?}, the reference {want:?}"));
            }
        }
    }
    if let (Some(shape), Some(at)) = (d.ints("shape"), d.ints("at")) {
        if let Ok(points) = l.eval(&shape, &at) {
            outcome = Planned;
            let inside = l.admits(&shape).is_ok()
                && at.len() == shape.len()
                && at.iter().zip(&shape).all(|(&c, &e)| (0..e).contains(&c));
            if !inside {
                return fail(format!("eval accepted {at:?} in shape {shape:?} for a layout of size {}", l.size()));
            }
            let flat = reference::flat_of(&shape, &at);
            if l.eval_flat(flat).ok() != Some(points) {
                return fail(format!("eval({at:?}) differs from eval_flat({flat})"));
            }
        }
    }
    Ok(outcome)
}
