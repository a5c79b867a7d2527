//! Test support shared by the passes' unit tests.

use axe_dialect::{create_context, parse_module, verify};
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
