//! Test support shared by the passes' unit tests.

use axe_dialect::{create_context, ops::walk_preorder, parse_module, verify};
use melior::ir::{operation::OperationLike, OperationRef};

/// Parses `source`, runs `pass` on the module and returns its result, the printed module and the diagnostics'
/// messages. When the pass succeeds the module must still verify, MLIR's rules and axe's.
pub(crate) fn run_pass<R>(
    source: &str,
    pass: impl FnOnce(OperationRef) -> Result<R, usize>,
) -> (Result<R, usize>, String, Vec<String>) {
    let context = create_context().expect("context");
    let module = parse_module(&context, source, "t.mlir").expect("parses");
    let result = pass(module.as_operation());
    if result.is_ok() {
        assert!(module.as_operation().verify(), "{}", module.as_operation());
        assert!(verify(&module), "{:?}", context.diagnostics().take());
    }
    let messages = context.diagnostics().take().into_iter().map(|d| d.message).collect();
    (result, module.as_operation().to_string(), messages)
}

/// The names of the axe ops in `printed` (a module's text), in IR order. It parses the text and walks the ops, so
/// an op left behind is found in either form (custom `axe.gemm warp ...` or generic `"axe.gemm"(...)`), where a
/// search for one spelling would miss the other.
pub(crate) fn axe_ops(printed: &str) -> Vec<String> {
    let context = create_context().expect("context");
    let module = parse_module(&context, printed, "printed.mlir").expect("the printed module parses");
    let mut names = Vec::new();
    walk_preorder(module.as_operation(), &mut |op| {
        let name = op.name().as_string_ref().as_str().unwrap_or_default().to_string();
        if name.starts_with("axe.") {
            names.push(name);
        }
    });
    names
}
