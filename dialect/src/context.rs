//! Setting up melior: the one function that builds a `Context`.

use crate::{
    diagnostics::{Diagnostic, DiagnosticSink},
    parse::parse_in,
    IRDL_FILE_NAME, IRDL_SOURCE,
};
use anyhow::{anyhow, Result};
use melior::{
    dialect::DialectRegistry,
    utility::{load_irdl_dialects, register_all_dialects, register_all_llvm_translations, register_all_passes},
    Context,
};

/// A melior context with everything axe needs, plus the diagnostics it emitted.
///
/// **Invariant:** every `Context` in the workspace comes from
/// [`create_context`], so every tool and test sees the same dialects, passes,
/// translations and diagnostic handling.
#[derive(Debug)]
pub struct AxeContext {
    context: Context,
    diagnostics: DiagnosticSink,
}

impl AxeContext {
    /// The melior context.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// Where the context's diagnostic handler puts every diagnostic.
    pub fn diagnostics(&self) -> &DiagnosticSink {
        &self.diagnostics
    }
}

/// Creates the context every axe tool works in.
///
/// - registers all upstream dialects (and loads them), all upstream passes and
///   all dialect-to-LLVM-IR translations;
/// - disables multithreading, so pass runs and diagnostics are deterministic
///   and the diagnostic sink is never touched from another thread;
/// - attaches a diagnostic handler that copies each diagnostic into
///   [`AxeContext::diagnostics`] (nothing is printed: drivers decide);
/// - loads the axe dialect from [`IRDL_SOURCE`].
///
/// Fails only when the embedded IRDL does not load, which the tests rule out.
pub fn create_context() -> Result<AxeContext> {
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    let context = Context::new_with_registry(&registry, false);
    context.load_all_available_dialects();
    register_all_passes();
    register_all_llvm_translations(&context);

    let diagnostics = DiagnosticSink::default();
    let sink = diagnostics.clone();
    context.attach_diagnostic_handler(move |diagnostic| {
        sink.push(Diagnostic::from_mlir(&diagnostic));
        true
    });

    load_axe_dialect(&context, &diagnostics)?;
    Ok(AxeContext { context, diagnostics })
}

/// Parses the embedded IRDL and registers the dialects it defines.
fn load_axe_dialect(context: &Context, diagnostics: &DiagnosticSink) -> Result<()> {
    let failure = |what: &str| {
        let details: String = diagnostics
            .take()
            .iter()
            .map(|diagnostic| diagnostic.render(Some((IRDL_FILE_NAME, IRDL_SOURCE))))
            .collect();
        anyhow!("{what} the axe dialect from {IRDL_FILE_NAME}\n{details}")
    };
    let module = parse_in(context, diagnostics, IRDL_SOURCE, IRDL_FILE_NAME).ok_or_else(|| failure("cannot parse"))?;
    if !load_irdl_dialects(&module) {
        return Err(failure("cannot load"));
    }
    Ok(())
}
