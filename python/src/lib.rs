//! `axe._native`, the native half of the `axe` Python package: the Axe layout algebra of the `axe-layout` crate
//! (re-exported as `axe.Layout`, `axe.tma_plan`, ...), and the compiler and simulator for the package's kernels
//! (`kernels`: `axe.compile` and the simulator path of a kernel call, written in Python over them).
//!
//! For layouts, every answer comes from the layout crate; this crate only converts arguments and results (shapes, regions,
//! coordinates in, coordinate sets, numpy tables and plan dicts out), so Python and Rust cannot disagree.
//! Arguments follow the `axe-layout` CLI: a shape is `[8, 16]` or the CLI's text `"8,16"`, a region
//! `[(2, 3), (6, 10)]` or `"2:3,6:10"`, a layout a [`Layout`](pylayout::PyLayout) or its text, and the plan
//! functions take the CLI's options as keywords (`--global-shape` is `global_shape`). The plan dicts have the
//! keys of the CLI's `--json` (checked key for key against the CLI by `python/tests`).
//!
//! Errors: every refusal of the algebra or the planners raises `axe.LayoutError` (a `ValueError`) with
//! `.message` (the crate's message) and `.column` (1-based character column in the text for parse errors, else
//! `None`), as the CLI prints them. A wrong Python type raises `TypeError`. No argument aborts the interpreter or
//! escapes `except Exception`: sequences are read with bounds (`args`), answers whose size multiplies several
//! factors are capped before they are built (`TABLE_LIMIT`, `EVAL_LIMIT`, the HTML grid's values), and a panic,
//! which would be pyo3's `PanicException` (a `BaseException`), becomes `LayoutError` ([`guarded`]).
//!
//! Built by maturin (`pip install ./python`); `axe/_native.pyi` is the type stub.

mod args;
mod html;
mod kernels;
mod plans;
mod pylayout;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

pyo3::create_exception!(
    axe,
    LayoutError,
    PyValueError,
    "A layout, shape, region or coordinate that does not parse, or an operation or plan the algebra refuses.\n\n\
     Attributes: message (str), column (int or None: 1-based character column of a parse error), text (str or \
     None: the text that did not parse)."
);

/// A [`LayoutError`] with `.message`, `.column` and `.text` set; `str(e)` reads as the CLI's message
/// (`column 20: unexpected ']' ...`).
pub(crate) fn layout_error(py: Python<'_>, message: &str, column: Option<usize>, text: Option<&str>) -> PyErr {
    let shown = match column {
        Some(c) => format!("column {c}: {message}"),
        None => message.to_owned(),
    };
    let err = LayoutError::new_err(shown);
    let value = err.value(py);
    // Setting attributes on a fresh exception instance cannot fail short of memory exhaustion; if it does, the
    // exception is still raised with its message.
    let _ = value.setattr("message", message);
    let _ = value.setattr("column", column);
    let _ = value.setattr("text", text);
    err
}

/// Runs the body of a function Python calls, turning a panic into a [`LayoutError`] (`what: internal error: ...`).
/// No input should reach a panic (the crate refuses bad input with errors, and `args` bounds every conversion); if
/// one does, pyo3 would raise `PanicException`, which derives from `BaseException` and escapes `except Exception`.
pub(crate) fn guarded<T>(py: Python<'_>, what: &str, body: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)).unwrap_or_else(|payload| {
        let reason = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".to_owned());
        Err(layout_error(py, &format!("{what}: internal error: {reason}"), None, None))
    })
}

/// Converts a crate error about `what` (an argument name or an operation, the message's prefix; none when empty)
/// into a [`LayoutError`]. `text` is the
/// text that was parsed, when the error came from parsing it: the byte offset becomes a character column.
pub(crate) fn crate_error(py: Python<'_>, what: &str, text: Option<&str>, e: &layout::LayoutError) -> PyErr {
    let column = match (e.column, text) {
        (Some(byte), Some(t)) => {
            let byte = byte.min(t.len());
            let byte = (0..=byte).rev().find(|b| t.is_char_boundary(*b)).unwrap_or(0);
            Some(t[..byte].chars().count() + 1)
        }
        (Some(byte), None) => Some(byte + 1),
        (None, _) => None,
    };
    let message = if what.is_empty() { e.message.clone() } else { format!("{what}: {}", e.message) };
    layout_error(py, &message, column, text.filter(|_| column.is_some()))
}

/// The native half of the `axe` package: the Axe layout algebra (shard D + replica R + offset O over named
/// hardware axes, with XOR swizzles), the compiler and the simulator.
#[pymodule(name = "_native")]
mod native {
    use super::*;

    #[pymodule_export]
    use super::kernels::{_compile, _simulate, CompileError, SimulationError};
    #[pymodule_export]
    use super::plans::{mma_plan, tma_plan};
    #[pymodule_export]
    use super::pylayout::PyLayout;
    #[pymodule_export]
    use super::LayoutError;

    /// Declares an axis beyond the built-in ones, as the CLI's `--axis NAME=KIND`: KIND is `memory`, `device`
    /// or `thread:UNIT:WITHIN` (e.g. `thread:thread:warp`). Idempotent; declared axes last for the process.
    #[pyfunction]
    fn declare_axis(py: Python<'_>, name: &str, kind: &str) -> PyResult<()> {
        guarded(py, "declare_axis", || {
            let k = layout::AxisKind::parse(kind).map_err(|e| crate_error(py, "kind", None, &e))?;
            layout::Axis::declare(name, k).map_err(|e| crate_error(py, "declare_axis", None, &e))?;
            Ok(())
        })
    }

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("TABLE_LIMIT", pylayout::TABLE_LIMIT)?;
        m.add("EVAL_LIMIT", pylayout::EVAL_LIMIT)?;
        m.add("HTML_CELLS", html::MAX_CELLS)?;
        m.add("__version__", env!("CARGO_PKG_VERSION"))?;
        Ok(())
    }
}
