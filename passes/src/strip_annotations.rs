//! `axe-strip-annotations`: erase every `axe.annotate` op.
//!
//! `axe.annotate` attaches a layout to a value for people reading the IR; it
//! has no semantics, so erasing it never changes what a kernel computes. The
//! pass walks every region of the module, nested ones included. It does not
//! touch `#axe.layout` attributes held by other ops.
//!
//! ```mlir
//! axe.annotate %v layout(S[8:1]) : f32   // erased
//! ```

use crate::glue::{external_pass, PassId};
use crate::glue::{PassInfo, PassKind};
use axe_dialect::{names::ANNOTATE_OP, ops::walk_preorder};
use melior::{
    ir::{operation::OperationLike, OperationRef},
    pass::Pass,
    IrRewriter,
};

/// `--axe-strip-annotations` as `axe-opt` lists it: flag, summary, description, constructor (the registry's entry).
pub const PASS: PassInfo = PassInfo {
    flag: "axe-strip-annotations",
    summary: "Erase every axe.annotate op",
    description: "Input: any module. Output: the same module without axe.annotate ops\n\
(they carry no semantics). Other ops and their #axe.layout attributes are kept.\n\
Can run anywhere in the pipeline; run it before lowering to LLVM.",
    kind: PassKind::Rust(create),
};

static ID: PassId = PassId::new();

/// Erases every `axe.annotate` op nested in `root`; returns how many it erased.
pub fn strip_annotations(root: OperationRef) -> usize {
    let mut annotations = Vec::new();
    walk_preorder(root, &mut |op| {
        if op.name().as_string_ref().as_str() == Ok(ANNOTATE_OP) {
            annotations.push(op);
        }
    });
    let rewriter = IrRewriter::from_op(root);
    // An annotation has no results and no regions, so erasing one never touches another.
    annotations.iter().for_each(|&op| rewriter.as_rewriter_base().erase_op(op));
    annotations.len()
}

/// The melior pass behind `--axe-strip-annotations`.
pub fn create() -> Pass {
    external_pass(&ID, "AxeStripAnnotations", &PASS, |operation| {
        strip_annotations(operation);
        true
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use axe_dialect::{create_context, parse_module};
    use melior::pass::PassManager;

    const INPUT: &str = r#"#l = #axe.layout<S[8:1]>
func.func @f(%a: f32) {
  axe.annotate %a layout(#l) : f32
  scf.execute_region {
    axe.annotate %a layout(#l) : f32
    scf.yield
  }
  return
}
"#;

    #[test]
    fn erases_nested_annotations() {
        let context = create_context().expect("context");
        let module = parse_module(&context, INPUT, "t.mlir").expect("parses");
        assert_eq!(strip_annotations(module.as_operation()), 2);
        let printed = module.as_operation().to_string();
        assert!(!printed.contains("axe.annotate"), "{printed}");
        assert!(printed.contains("scf.execute_region"), "{printed}");
        assert!(module.as_operation().verify());
    }

    #[test]
    fn runs_as_an_external_pass_next_to_upstream_passes() {
        let context = create_context().expect("context");
        let mut module = parse_module(&context, INPUT, "t.mlir").expect("parses");
        let manager = PassManager::new(context.context());
        manager.add_pass(create());
        axe_dialect::ffi::add_pipeline(manager.as_operation_pass_manager(), "canonicalize").expect("pipeline");
        manager.run(&mut module).expect("runs");
        let printed = module.as_operation().to_string();
        assert!(!printed.contains("axe.annotate"), "{printed}");
        // canonicalize inlined the now-empty execute_region
        assert!(!printed.contains("scf.execute_region"), "{printed}");
    }
}
