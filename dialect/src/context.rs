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
/// - registers every upstream dialect and dialect-to-LLVM-IR translation, and
///   loads none of them: the parser loads a dialect when the text first names
///   it, and each pass declares the dialects it creates (MLIR's dependent
///   dialects), so start-up pays only for what the input and flags use
///   (loading all ~60 upstream dialects took 5-10 ms of a 12 ms start);
///   upstream passes are registered on demand by [`register_upstream_passes`];
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

/// Registers every upstream pass (process-wide, once), so textual pipelines and pass flags can name them.
///
/// Registering constructs each of several hundred passes to read its name, about a millisecond, so tools call
/// this only when a command line names an upstream pass or pipeline.
pub fn register_upstream_passes() {
    static REGISTERED: std::sync::Once = std::sync::Once::new();
    REGISTERED.call_once(register_all_passes);
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
