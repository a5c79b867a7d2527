//! `axe-slice`: give every `axe.slice` result the sliced layout.
//!
//! For each `axe.slice` whose result layout is deferred (left out of its type) and whose offsets are all static,
//! the pass computes `axe_layout::slice::slice(source layout, source shape, region)` (paper App. E:
//! `L'(y) == L(y + begin)`), canonicalizes it and sets it as the result type's layout. The slice op stays: it still
//! names the storage the result lives in, and a lowering reads its offsets.
//!
//! When no layout maps the region (or the algebra's sufficient conditions fail), the pass emits an error at the
//! slice that names the dimension and why (axe-layout's message) and fails.
//!
//! What it does not do: slices with dynamic offsets stay deferred (their layout depends on run-time
//! values; a lowering such as `--lower-tma` reads the source layout and the offset operands directly); slices
//! with an explicit layout are left alone (the verifier checks that layout element by element).
//! Ops are visited in IR order, so a slice of a deferred slice sees its source already resolved.
//!
//! ```mlir
//! %s = axe.slice %t[0, 32] [128, 32]
//!        : !axe.tensor<128x64xf16, shared, S[(128,64):(64,1)]>
//!        to !axe.tensor<128x32xf16, shared>
//! // becomes ... -> !axe.tensor<128x32xf16, shared, S[(128,32):(64,1)] + 32>
//! ```

use crate::glue::{external_pass, PassId};
use crate::glue::{PassInfo, PassKind};
use axe_dialect::{
    ffi,
    ops::walk_preorder,
    types::{LayoutSpec, TensorType},
    AxeOp, OpKind,
};
use axe_layout::notation::shape_text;
use melior::{
    ir::{operation::OperationLike, OperationRef, ValueLike},
    pass::Pass,
};

/// `--axe-slice` as `axe-opt` lists it: flag, summary, description, constructor (the registry's entry).
pub const PASS: PassInfo = PassInfo {
    flag: "axe-slice",
    summary: "Give every axe.slice result the sliced layout of its source",
    description: "Input: a verified module. Each axe.slice with a deferred result layout (none in its type) and\n\
static offsets gets the canonical sliced layout (paper App. E) in its result type; a region no layout\n\
can map is an error naming the dimension and why. Dynamic-offset slices stay deferred.\n\
Runs after --axe-canonicalize, before --lower-tma.",
    kind: PassKind::Rust(create),
};

static ID: PassId = PassId::new();

/// Resolves every deferred static slice under `root`; returns how many it resolved, or the number of slices it
/// could not resolve (each reported as an error at the slice's location).
pub fn slice_layouts(root: OperationRef) -> Result<usize, usize> {
    let mut slices = Vec::new();
    walk_preorder(root, &mut |op| {
        if let Some(slice) = AxeOp::new(op).filter(|op| op.kind() == OpKind::Slice) {
            slices.push(slice);
        }
    });
    let (mut resolved, mut failed) = (0, 0);
    for slice in slices {
        match sliced_type(slice) {
            Ok(None) => {}
            Ok(Some(text)) => match (ffi::parse_type(slice.operation(), &text), slice.result()) {
                (Some(ty), Some(result)) => {
                    result.set_type(ty);
                    resolved += 1;
                }
                _ => {
                    failed += 1;
                    ffi::emit_error(slice.operation().location(), &format!("sliced type {text} does not parse"));
                }
            },
            Err(message) => {
                failed += 1;
                ffi::emit_error(slice.operation().location(), &message);
            }
        }
    }
    if failed == 0 {
        Ok(resolved)
    } else {
        Err(failed)
    }
}

/// The text of the slice's resolved result type; `None` when there is nothing to do.
fn sliced_type(slice: AxeOp) -> Result<Option<String>, String> {
    let (Some(source), Some(result)) = (slice.tensor("source"), slice.tensor("result")) else { return Ok(None) };
    // A slice of a row_major tensor has run-time strides: it stays deferred (docs/dialect.md).
    if result.layout != LayoutSpec::Deferred || source.layout == LayoutSpec::RowMajor {
        return Ok(None);
    }
    let region = slice.slice_region()?;
    let Some(bounds) = region.static_bounds() else { return Ok(None) };
    let Some(layout) = source.layout.parse() else {
        return Err("cannot slice a tensor whose layout is still deferred (it has dynamic offsets)".to_string());
    };
    let layout = layout.map_err(|e| format!("source layout does not parse: {e}"))?;
    let sliced = axe_layout::slice::slice(&layout, &source.shape, &bounds).map_err(|e| {
        let text: Vec<String> = bounds.iter().map(|(b, e)| format!("{b}:{e}")).collect();
        format!(
            "cannot slice layout {layout} of shape {} to region [{}]: {}",
            shape_text(&source.shape),
            text.join(","),
            e.message
        )
    })?;
    let tensor: TensorType = result.with_layout(LayoutSpec::Text(sliced.canonical().to_string()));
    Ok(Some(tensor.to_text()))
}

/// The melior pass behind `--axe-slice`.
pub fn create() -> Pass {
    external_pass(&ID, "AxeSlice", &PASS, |operation| slice_layouts(operation).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axe_dialect::{create_context, parse_module, verify};

    fn run(source: &str) -> (Result<usize, usize>, String, Vec<String>) {
        let context = create_context().expect("context");
        let module = parse_module(&context, source, "t.mlir").expect("parses");
        let result = slice_layouts(module.as_operation());
        if result.is_ok() {
            assert!(verify(&module), "{:?}", context.diagnostics().take());
        }
        let messages = context.diagnostics().take().into_iter().map(|d| d.message).collect();
        (result, module.as_operation().to_string(), messages)
    }

    #[test]
    fn resolves_a_column_block_and_a_slice_of_a_slice() {
        let (result, printed, _) = run(r#"!t = !axe.tensor<128x64xf16, shared, S[(128,64):(64,1)]>
func.func @f(%t: !t) {
  %a = axe.slice %t[0, 32] [128, 32] : !t to !axe.tensor<128x32xf16, shared>
  %b = axe.slice %a[64, 0] [64, 32] : !axe.tensor<128x32xf16, shared> to !axe.tensor<64x32xf16, shared>
  return
}
"#);
        assert_eq!(result, Ok(2));
        // a(y0, y1) = 64*y0 + (y1 + 32); b(y0, y1) = a(y0 + 64, y1) = 64*y0 + y1 + 4128.
        assert!(printed.contains("!axe.tensor<128x32xf16, shared, S[(128,32):(64,1)] + 32>"), "{printed}");
        assert!(printed.contains("!axe.tensor<64x32xf16, shared, S[(64,32):(64,1)] + 4128>"), "{printed}");
    }

    #[test]
    fn unrepresentable_region_names_the_dimension() {
        // Positions 2, 3, 4 of S[(4,4):(1,4)] are 8, 12, 1: no single iter maps them.
        let (result, _, messages) = run(r#"func.func @f(%t: !axe.tensor<16xf16, shared, S[(4,4):(1,4)]>) {
  %a = axe.slice %t[2] [3] : !axe.tensor<16xf16, shared, S[(4,4):(1,4)]> to !axe.tensor<3xf16, shared>
  return
}
"#);
        assert_eq!(result, Err(1));
        assert!(messages[0].contains("dimension 0"), "{messages:?}");
    }
}
