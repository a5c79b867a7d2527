//! `axe-canonicalize`: every layout in canonical form, trivial views and slices folded.
//!
//! What it does:
//! - rewrites every `#axe.layout` to the canonical form of axe-layout's `canonicalize` (paper App. A), printed
//!   canonically: in tensor types of op results and block arguments, in function types (`function_type` of
//!   `func.func`/`gpu.func`, any type attribute holding a function or tensor type) and in `#axe.layout`
//!   attributes of any op (`axe.annotate`);
//! - folds a slice whose region is the whole source (static offsets 0, sizes = shape) into its source;
//! - folds a view whose source is a tensor of the same type into its source, and a view of a view into a view of
//!   the inner view's source (erasing the inner view when nothing else uses it).
//!
//! What it does not do: it never changes what a layout maps (canonical forms have the same induced map), never
//! resolves a deferred layout (one left out of the type; that is `--axe-slice`), and never touches non-axe ops
//! beyond their types.
//! Running it twice changes nothing the second time (canonical text is a fixpoint of parse/canonicalize/print).
//!
//! ```mlir
//! %t = axe.view %m : memref<8192xf16> -> !axe.tensor<128x64xf16, global, S[(128,64):(64,1)]>
//!     // its layout becomes S[8192:1]
//! %s = axe.slice %t[0, 0] [128, 64] : ...   // folded into %t
//! ```
//!
//! Invariant needed: the module verifies (the verifier guarantees a full-region slice's explicit layout maps like
//! its source's, so folding keeps every use's meaning).

use crate::glue::{external_pass, PassId};
use crate::glue::{PassInfo, PassKind};
use axe_dialect::{
    access, ffi,
    ops::{tensor_of, walk_preorder},
    types::{layout_attribute_text, parse_layout_attribute, LayoutSpec},
    AxeOp, OpKind,
};
use melior::{
    ir::{
        attribute::TypeAttribute, operation::OperationLike, r#type::FunctionType, Attribute, OperationRef, Type, Value,
        ValueLike,
    },
    pass::Pass,
    IrRewriter,
};

/// `--axe-canonicalize` as `axe-opt` lists it: flag, summary, description, constructor (the registry's entry).
pub const PASS: PassInfo = PassInfo {
    flag: "axe-canonicalize",
    summary: "Put every layout in canonical form and fold trivial views and slices",
    description: "Input: a verified module. Every #axe.layout (in tensor types, function types and\n\
attributes) becomes its canonical form (paper App. A), printed canonically; full-region slices and\n\
same-type views fold into their sources, views of views into views of the storage. Idempotent.\n\
Runs first in the pipeline, before --axe-slice.",
    kind: PassKind::Rust(create),
};

static ID: PassId = PassId::new();

/// What one run changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CanonicalizeStats {
    /// Types and attributes rewritten to canonical layout text.
    pub rewritten: usize,
    /// Views and slices folded away.
    pub folded: usize,
}

/// Canonicalizes every layout under `root` and folds trivial views and slices.
pub fn canonicalize(root: OperationRef) -> CanonicalizeStats {
    let mut stats = CanonicalizeStats::default();
    let mut ops = Vec::new();
    walk_preorder(root, &mut |op| ops.push(op));
    for &op in &ops {
        stats.rewritten += rewrite_op_types(op);
    }
    let rewriter = IrRewriter::from_op(root);
    for op in ops.into_iter().filter_map(AxeOp::new) {
        if fold(&rewriter, op) {
            stats.folded += 1;
        }
    }
    stats
}

/// Rewrites the result types, block argument types and attributes of one op; returns how many changed.
fn rewrite_op_types(op: OperationRef) -> usize {
    let mut changed = 0;
    let mut retype = |value: Value| {
        if let Some(new) = canonical_type(op, value.r#type()) {
            value.set_type(new);
            changed += 1;
        }
    };
    op.results().for_each(|r| retype(r.into()));
    access::blocks(op).flat_map(access::arguments).for_each(|a| retype(a.into()));
    let attributes: Vec<(String, Attribute)> =
        op.attributes().filter_map(|(name, a)| Some((name.as_string_ref().as_str().ok()?.to_string(), a))).collect();
    for (name, attribute) in attributes {
        if let Some(new) = canonical_attribute(op, attribute) {
            ffi::set_attribute(op, &name, new);
            changed += 1;
        }
    }
    changed
}

/// The canonical layout text of `text`; `None` when it does not parse (the verifier reports that).
fn canonical_text(text: &str) -> Option<String> {
    axe_dialect::intern::canonical_text(text)
}

/// The type with canonical layouts, when it differs: a tensor type, or a function type holding tensors.
fn canonical_type<'c>(op: OperationRef<'c, '_>, ty: Type<'c>) -> Option<Type<'c>> {
    if let Ok(function) = FunctionType::try_from(ty) {
        let map = |t: Type<'c>| canonical_type(op, t).unwrap_or(t);
        let inputs: Vec<Type> = (0..function.input_count()).filter_map(|i| function.input(i).ok()).collect();
        let results: Vec<Type> = (0..function.result_count()).filter_map(|i| function.result(i).ok()).collect();
        let (new_inputs, new_results): (Vec<Type>, Vec<Type>) =
            (inputs.iter().map(|&t| map(t)).collect(), results.iter().map(|&t| map(t)).collect());
        if new_inputs == inputs && new_results == results {
            return None;
        }
        return Some(ffi::function_type(op, &new_inputs, &new_results));
    }
    let tensor = axe_dialect::intern::tensor_type(&ty.to_string()).ok()??;
    let LayoutSpec::Text(text) = &tensor.layout else { return None };
    let canonical = canonical_text(text)?;
    if &canonical == text {
        return None;
    }
    ffi::parse_type(op, &tensor.with_layout(LayoutSpec::Text(canonical)).to_text())
}

/// The attribute with canonical layouts, when it differs: `#axe.layout`, or a type attribute.
fn canonical_attribute<'c>(op: OperationRef<'c, '_>, attribute: Attribute<'c>) -> Option<Attribute<'c>> {
    if let Ok(type_attribute) = TypeAttribute::try_from(attribute) {
        return canonical_type(op, type_attribute.value()).map(|t| TypeAttribute::new(t).into());
    }
    let printed = attribute.to_string();
    let text = parse_layout_attribute(&printed).ok()?;
    let canonical = canonical_text(&text)?;
    if canonical == text {
        return None;
    }
    ffi::parse_attribute(op, &layout_attribute_text(&canonical))
}

/// Folds one trivial view or slice; returns whether it changed the IR.
fn fold(rewriter: &IrRewriter, op: AxeOp) -> bool {
    let (Some(result), Some(source)) = (op.result(), op.operand(0)) else { return false };
    let base = rewriter.as_rewriter_base();
    match op.kind() {
        OpKind::Slice if is_full_region(op, source, result) => {
            base.replace_all_uses_with(result, source);
            base.erase_op(op.operation());
            true
        }
        OpKind::View if source.r#type() == result.r#type() => {
            base.replace_all_uses_with(result, source);
            base.erase_op(op.operation());
            true
        }
        OpKind::View => {
            let Some(inner) = defining_view(source) else { return false };
            let Some(storage) = inner.operand(0) else { return false };
            ffi::set_operand(op.operation(), 0, storage);
            if !ffi::has_uses(source) {
                base.erase_op(inner.operation());
            }
            true
        }
        _ => false,
    }
}

/// A slice over the whole source whose result type is the source's (or deferred with the same shape).
fn is_full_region(op: AxeOp, source: Value, result: Value) -> bool {
    let (Ok(Some(from)), Ok(Some(to)), Ok(region)) = (tensor_of(source), tensor_of(result), op.slice_region()) else {
        return false;
    };
    let whole = region.offsets.iter().all(|o| *o == Some(0)) && region.sizes == from.shape;
    whole && (to == from || to.layout == LayoutSpec::Deferred && to.with_layout(from.layout.clone()) == from)
}

/// The `axe.view` that defines `value`, if any.
fn defining_view<'c, 'a>(value: Value<'c, 'a>) -> Option<AxeOp<'c, 'a>> {
    AxeOp::new(access::defining_op(value)?).filter(|op| op.kind() == OpKind::View)
}

/// The melior pass behind `--axe-canonicalize`.
pub fn create() -> Pass {
    external_pass(&ID, "AxeCanonicalize", &PASS, |operation| {
        canonicalize(operation);
        true
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use axe_dialect::{create_context, parse_module, verify};

    const INPUT: &str = r#"!t = !axe.tensor<128x64xf16, global, S[(128,64):(64,1)] + 0>
func.func @f(%m: memref<8192xf16>) -> !t {
  %t = axe.view %m : memref<8192xf16> -> !t
  %s = axe.slice %t[0, 0] [128, 64] : !t to !t
  %v = axe.view %s : !t -> !t
  axe.annotate %v layout(S[(2,4):(4,1)]) : !t
  return %v : !t
}
"#;

    #[test]
    fn canonicalizes_and_folds_and_is_idempotent() {
        let context = create_context().expect("context");
        let module = parse_module(&context, INPUT, "t.mlir").expect("parses");
        let first = canonicalize(module.as_operation());
        assert_eq!(first.folded, 2, "{}", module.as_operation());
        let printed = module.as_operation().to_string();
        assert!(printed.contains("!axe.tensor<128x64xf16, global, S[8192:1]>"), "{printed}");
        assert!(printed.contains("layout(S[8:1])"), "{printed}");
        assert!(!printed.contains("axe.slice") && printed.matches("axe.view").count() == 1, "{printed}");
        assert!(verify(&module), "{:?}", context.diagnostics().take());
        assert_eq!(canonicalize(module.as_operation()), CanonicalizeStats::default());
        assert_eq!(module.as_operation().to_string(), printed);
    }
}
