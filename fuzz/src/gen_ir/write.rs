//! How each axe op is written, in the custom form and in the generic form (both parse to the same op), for the
//! templates of [`super`]: the op's scope ([`Scope`]), the barrier it names ([`Barrier`]) and one writer per op.

use super::{dims_text, generic, DYNAMIC, SCOPES};
use crate::driver::Rng;
use rand::seq::IndexedRandom;
use rand::RngExt;

/// An op's execution scope and, sometimes, the thread subset that runs it (`axis[begin:end]`).
pub(super) struct Scope {
    pub(super) exec: &'static str,
    pub(super) threads: Option<(&'static str, i64)>,
}

impl Scope {
    /// `exec` with a thread subset one time in `odds` (never when `odds` is 0).
    pub(super) fn pick(rng: &mut Rng, exec: &'static str, odds: u32) -> Scope {
        let threads = (odds > 0 && rng.random_range(0..odds) == 0).then(|| {
            let (axis, end) =
                *[("warpid", 4), ("laneid", 32), ("wid_in_wg", 4), ("tid", 9)].choose(rng).unwrap_or(&("warpid", 4));
            (axis, rng.random_range(0..=end))
        });
        Scope { exec, threads }
    }

    /// A random scope (any of [`SCOPES`]), with a thread subset one time in `odds`.
    pub(super) fn any(rng: &mut Rng, odds: u32) -> Scope {
        let exec = *SCOPES.choose(rng).unwrap_or(&"cta");
        Scope::pick(rng, exec, odds)
    }

    /// The custom form: `cta`, or `cta(warpid[0:4])`.
    pub(super) fn custom(&self) -> String {
        match self.threads {
            Some((axis, end)) => format!("{}({axis}[0:{end}])", self.exec),
            None => self.exec.to_string(),
        }
    }

    /// The generic form's attributes: `scope = #axe.exec<cta>`, then `threads = #axe.threads<warpid[0:4]>`.
    pub(super) fn attrs(&self) -> String {
        match self.threads {
            Some((axis, end)) => format!("scope = #axe.exec<{}>, threads = #axe.threads<{axis}[0:{end}]>", self.exec),
            None => format!("scope = #axe.exec<{}>", self.exec),
        }
    }
}

/// The barrier an op names: a single barrier (`%bar : !axe.mbarrier`) or an element of an array
/// (`%bars[%i] : !axe.mbarrier<3>`; no index names the whole array, which only an init may).
pub(super) struct Barrier {
    pub(super) name: String,
    pub(super) ty: String,
    pub(super) index: Option<String>,
}

impl Barrier {
    /// The custom form's operand: `%bar` or `%bars[%i]`.
    pub(super) fn custom(&self) -> String {
        match &self.index {
            Some(i) => format!("{}[{i}]", self.name),
            None => self.name.clone(),
        }
    }

    /// The generic form's operands and their types: `%bars, %i` and `!axe.mbarrier<3>, index`.
    pub(super) fn generic(&self) -> (String, String) {
        match &self.index {
            Some(i) => (format!("{}, {i}", self.name), format!("{}, index", self.ty)),
            None => (self.name.clone(), self.ty.clone()),
        }
    }
}

/// An SSA value and its type, as an op's operand.
pub(super) type Operand<'a> = (&'a str, &'a str);

/// `%v = axe.view %src(%e0 : i32) multiples [16] : SRC -> TYPE` (extents and multiples when given).
pub(super) fn op_view(
    g: bool,
    v: &str,
    src: Operand,
    extents: &[(String, &str)],
    multiples: &[i64],
    ty: &str,
) -> String {
    let names: Vec<&str> = extents.iter().map(|(n, _)| n.as_str()).collect();
    let types: Vec<&str> = extents.iter().map(|&(_, t)| t).collect();
    if g {
        let attrs = if multiples.is_empty() {
            String::new()
        } else {
            format!(" {{multiples = array<i64: {}>}}", dims_text(multiples))
        };
        let (ops, tys) = ([&[src.0][..], &names].concat(), [&[src.1][..], &types].concat());
        format!("{v} = \"axe.view\"({}){attrs} : ({}) -> {ty}", ops.join(", "), tys.join(", "))
    } else {
        let ext =
            if extents.is_empty() { String::new() } else { format!("({} : {})", names.join(", "), types.join(", ")) };
        let mult = if multiples.is_empty() { String::new() } else { format!(" multiples [{}]", dims_text(multiples)) };
        format!("{v} = axe.view {}{ext}{mult} : {} -> {ty}", src.0, src.1)
    }
}

/// `%v = axe.slice %src[0, %k] [128, 64] : SRC to TYPE`: an offset of `None` is the run-time offset `%k`.
pub(super) fn op_slice(g: bool, v: &str, src: Operand, offsets: &[Option<i64>], sizes: &[i64], ty: &str) -> String {
    if g {
        let dynamic = offsets.iter().filter(|o| o.is_none()).count();
        let shown: Vec<i64> = offsets.iter().map(|o| o.unwrap_or(DYNAMIC)).collect();
        format!(
            "{v} = \"axe.slice\"({}{}) {{offsets = array<i64: {}>, sizes = array<i64: {}>}} : ({}{}) -> {ty}",
            src.0,
            ", %k".repeat(dynamic),
            dims_text(&shown),
            dims_text(sizes),
            src.1,
            ", index".repeat(dynamic)
        )
    } else {
        let o: Vec<String> = offsets.iter().map(|o| o.map_or_else(|| "%k".to_string(), |o| o.to_string())).collect();
        format!("{v} = axe.slice {}[{}] [{}] : {} to {ty}", src.0, o.join(", "), dims_text(sizes), src.1)
    }
}

/// `%v = axe.alloc cta : TYPE` (and `axe.mbarrier_alloc`): `name` is the op's name without `axe.`.
pub(super) fn op_alloc(g: bool, name: &str, v: &str, s: &Scope, ty: &str) -> String {
    if g {
        format!("{v} = \"axe.{name}\"() {{{}}} : () -> {ty}", s.attrs())
    } else {
        format!("{v} = axe.{name} {} : {ty}", s.custom())
    }
}

/// `axe.copy cta %a to %b : !a to !b` (and `axe.cast`), with `attrs` (entries of the attribute dictionary).
pub(super) fn op_move(g: bool, name: &str, s: &Scope, a: Operand, b: Operand, attrs: &str) -> String {
    let more = if attrs.is_empty() { String::new() } else { format!(", {attrs}") };
    if g {
        format!("\"axe.{name}\"({}, {}) {{{}{more}}} : ({}, {}) -> ()", a.0, b.0, s.attrs(), a.1, b.1)
    } else {
        let dict = if attrs.is_empty() { String::new() } else { format!(" {{{attrs}}}") };
        format!("axe.{name} {} {} to {}{dict} : {} to {}", s.custom(), a.0, b.0, a.1, b.1)
    }
}

/// `axe.copy_async cta %a to %b, %bar : !a to !b, !axe.mbarrier` (the barrier optional).
pub(super) fn op_copy_async(g: bool, s: &Scope, a: Operand, b: Operand, bar: Option<&Barrier>) -> String {
    if g {
        let (ops, tys) = bar.map_or_else(
            || (String::new(), String::new()),
            |b| {
                let (o, t) = b.generic();
                (format!(", {o}"), format!(", {t}"))
            },
        );
        let segments = match bar {
            Some(b) => format!("1, 1, 1, {}", u8::from(b.index.is_some())),
            None => "1, 1, 0, 0".to_string(),
        };
        format!(
            "\"axe.copy_async\"({}, {}{ops}) {{operandSegmentSizes = array<i32: {segments}>, {}}} : ({}, {}{tys}) -> ()",
            a.0,
            b.0,
            s.attrs(),
            a.1,
            b.1
        )
    } else {
        let (op, ty) = bar
            .map_or_else(|| (String::new(), String::new()), |b| (format!(", {}", b.custom()), format!(", {}", b.ty)));
        format!("axe.copy_async {} {} to {}{op} : {} to {}{ty}", s.custom(), a.0, b.0, a.1, b.1)
    }
}

/// `axe.gemm cta %a, %b, %c : !a, !b, !c`.
pub(super) fn op_gemm(g: bool, s: &Scope, a: Operand, b: Operand, c: Operand) -> String {
    if g {
        format!("\"axe.gemm\"({}, {}, {}) {{{}}} : ({}, {}, {}) -> ()", a.0, b.0, c.0, s.attrs(), a.1, b.1, c.1)
    } else {
        format!("axe.gemm {} {}, {}, {} : {}, {}, {}", s.custom(), a.0, b.0, c.0, a.1, b.1, c.1)
    }
}

/// `axe.fill cta %t, %c : !t, f16`.
pub(super) fn op_fill(g: bool, s: &Scope, t: Operand, value: Operand) -> String {
    if g {
        format!("\"axe.fill\"({}, {}) {{{}}} : ({}, {}) -> ()", t.0, value.0, s.attrs(), t.1, value.1)
    } else {
        format!("axe.fill {} {}, {} : {}, {}", s.custom(), t.0, value.0, t.1, value.1)
    }
}

/// `axe.scale cta %src by %alpha to %dst : !s to !d` (generic operand order: source, dest, alpha).
pub(super) fn op_scale(g: bool, s: &Scope, src: Operand, alpha: Operand, dst: Operand) -> String {
    if g {
        format!(
            "\"axe.scale\"({}, {}, {}) {{{}}} : ({}, {}, {}) -> ()",
            src.0,
            dst.0,
            alpha.0,
            s.attrs(),
            src.1,
            dst.1,
            alpha.1
        )
    } else {
        format!("axe.scale {} {} by {} to {} : {} to {}", s.custom(), src.0, alpha.0, dst.0, src.1, dst.1)
    }
}

/// `axe.<name> cta %a, %b[, %c] to %d : !a, !b[, !c] to !d`: `add` and `mul` (two inputs), `fma` (three).
pub(super) fn op_elementwise(g: bool, name: &str, s: &Scope, inputs: &[Operand], d: Operand) -> String {
    let names: Vec<&str> = inputs.iter().map(|o| o.0).collect();
    let types: Vec<&str> = inputs.iter().map(|o| o.1).collect();
    if g {
        format!(
            "\"axe.{name}\"({}, {}) {{{}}} : ({}, {}) -> ()",
            names.join(", "),
            d.0,
            s.attrs(),
            types.join(", "),
            d.1
        )
    } else {
        format!("axe.{name} {} {} to {} : {} to {}", s.custom(), names.join(", "), d.0, types.join(", "), d.1)
    }
}

/// A barrier op: `name` one of `mbarrier_init` (`count N`), `mbarrier_arrive_expect_tx` (`bytes N`),
/// `mbarrier_arrive` and `mbarrier_wait` (`, %phase`); `number` is the count or the bytes.
pub(super) fn op_barrier(g: bool, name: &str, s: &Scope, bar: &Barrier, number: &str) -> String {
    let keyword = match name {
        "mbarrier_init" => "count",
        "mbarrier_arrive_expect_tx" => "bytes",
        _ => "",
    };
    let wait = name == "mbarrier_wait";
    if g {
        let (ops, tys) = bar.generic();
        let (ops, tys) = if wait { (format!("{ops}, %phase"), format!("{tys}, i1")) } else { (ops, tys) };
        let attr = if keyword.is_empty() { String::new() } else { format!("{keyword} = {number} : i64, ") };
        format!("\"axe.{name}\"({ops}) {{{attr}{}}} : ({tys}) -> ()", s.attrs())
    } else {
        let tail = if wait {
            ", %phase".to_string()
        } else if keyword.is_empty() {
            String::new()
        } else {
            format!(" {keyword} {number}")
        };
        format!("axe.{name} {} {}{tail} : {}", s.custom(), bar.custom(), bar.ty)
    }
}

/// `axe.sync cta`.
pub(super) fn op_sync(g: bool, s: &Scope) -> String {
    if g {
        format!("\"axe.sync\"() {{{}}} : () -> ()", s.attrs())
    } else {
        format!("axe.sync {}", s.custom())
    }
}

/// `axe.annotate %x layout(L) : f32`, sometimes with the layout as a full attribute (`layout(#axe.layout<L>)`).
pub(super) fn op_annotate(rng: &mut Rng, value: Operand, layout: &str) -> String {
    if generic(rng) {
        format!("\"axe.annotate\"({}) {{layout = #axe.layout<{layout}>}} : ({}) -> ()", value.0, value.1)
    } else if rng.random_range(0..4) == 0 {
        format!("axe.annotate {} layout(#axe.layout<{layout}>) : {}", value.0, value.1)
    } else {
        format!("axe.annotate {} layout({layout}) : {}", value.0, value.1)
    }
}
