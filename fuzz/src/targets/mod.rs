//! Every fuzz target: in-process over the layout crate, process-level over the three tools, and (feature
//! `mlir`) in-process over the dialect, the passes and the translation.

pub mod collective;
pub mod copy;
pub mod layout;
#[cfg(feature = "mlir")]
pub mod mlir;
pub mod mma;
pub mod process;
pub mod reference;
pub mod trn;

use crate::driver::Target;

/// Every target, in listing order.
pub fn all() -> Vec<Target> {
    let mut out = layout::targets();
    out.extend(mma::targets());
    out.extend(copy::targets());
    out.extend(collective::targets());
    out.extend(trn::targets());
    #[cfg(feature = "mlir")]
    out.extend(mlir::targets());
    out.extend(process::targets());
    out
}

/// The target named `name`.
pub fn find(name: &str) -> Option<Target> {
    all().into_iter().find(|t| t.name == name)
}
