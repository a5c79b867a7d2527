//! `_compile` and `_simulate`: the compiler (`axe_mlir::compile`) and the simulator (`axe_sim`) in process, for the
//! package's `axe.compile` and its simulator path (`axe/compiler.py`, `axe/sim.py`, which add the cache, the
//! launch record and the checks).
//!
//! Each Python thread gets one MLIR context and one [`Compiler`] for the process's life (MLIR contexts are not
//! shared across threads here, and a compiler keeps its pass pipeline and NVPTX target machines between
//! compiles). Both functions release the GIL while they work. A refusal is `CompileError` (the diagnostics as the
//! tools print them) or `SimulationError` (the fault at the op's location), never an abort.

use crate::guarded;
use axe_mlir::compile::Compiler;
use axe_sim::fp8::Fp8;
use axe_sim::{lower, run_with, Arg, Buffer, Launch, Scalar, Schedule};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use std::cell::RefCell;

pyo3::create_exception!(
    axe,
    CompileError,
    PyValueError,
    "axe IR the compiler refuses: `str(e)` is every diagnostic as axe-opt prints it (file:line:col: error: ...)."
);

pyo3::create_exception!(
    axe,
    SimulationError,
    PyRuntimeError,
    "A fault the simulator found while running a kernel (a barrier that never completes, a read of data an \
     asynchronous copy has not delivered, an access out of bounds, ...), at the op's location; or a kernel form \
     it does not model."
);

thread_local! {
    /// This thread's compiler over a context that lives as long as the thread (leaked once per thread).
    static COMPILER: RefCell<Option<Compiler<'static>>> = const { RefCell::new(None) };
}

/// Compiles axe IR `source` (named `name` in diagnostics) for `chip` (`sm_80`, `sm_90a`, `sm_100a`; `None`: the
/// module's `axe.target`) with every lowering; returns `(chip, ptx, launch_record_json)`.
#[pyfunction]
#[pyo3(signature = (source, name="<input>", chip=None))]
pub fn _compile(py: Python<'_>, source: &str, name: &str, chip: Option<&str>) -> PyResult<(String, String, String)> {
    let chip = chip
        .map(|c| axe_mlir::ptx::parse_chip(c).map_err(|e| PyValueError::new_err(format!("chip: {e:#}"))))
        .transpose()?;
    let (source, name) = (source.to_owned(), name.to_owned());
    let result = guarded(py, "compile", || {
        Ok(py.detach(move || {
            COMPILER.with(|cell| {
                let mut slot = cell.borrow_mut();
                if slot.is_none() {
                    let context = axe_dialect::create_context().map_err(|e| format!("context: {e:#}"))?;
                    let context: &'static _ = Box::leak(Box::new(context));
                    *slot = Some(Compiler::for_kernels(context).map_err(|e| format!("pipeline: {e:#}"))?);
                }
                let compiler = slot.as_mut().expect("set above");
                compiler
                    .compile(&source, &name, chip)
                    .map(|c| (c.chip.name().to_owned(), c.ptx, c.launch))
                    .map_err(|e| e.render(&name, &source))
            })
        }))
    })?;
    result.map_err(|text: String| CompileError::new_err(text.trim_end().to_owned()))
}

/// The simulator's element type for a dtype name of `axe/arrays.py`.
fn scalar_of(dtype: &str) -> Option<Scalar> {
    Some(match dtype {
        "float16" => Scalar::F16,
        "bfloat16" => Scalar::BF16,
        "float32" => Scalar::F32,
        "float64" => Scalar::F64,
        "int8" | "uint8" => Scalar::I(8),
        "int16" | "uint16" => Scalar::I(16),
        "int32" | "uint32" => Scalar::I(32),
        "int64" | "uint64" => Scalar::I(64),
        "float8_e4m3fn" => Scalar::F8(Fp8::E4M3),
        "float8_e5m2" => Scalar::F8(Fp8::E5M2),
        _ => return None,
    })
}

/// One argument from its Python form: `("buffer", dtype, bytes)`, `("int", value)` or `("float", value)`.
fn arg_of(item: &Bound<'_, PyAny>) -> PyResult<Arg> {
    let tuple = item.cast::<PyTuple>().map_err(|_| PyValueError::new_err("an argument is a tuple"))?;
    let kind: String = tuple.get_item(0)?.extract()?;
    match (kind.as_str(), tuple.len()) {
        ("buffer", 3) => {
            let dtype: String = tuple.get_item(1)?.extract()?;
            let elem = scalar_of(&dtype).ok_or_else(|| PyValueError::new_err(format!("dtype {dtype}")))?;
            let bytes: Vec<u8> = tuple.get_item(2)?.extract()?;
            Ok(Arg::Buffer(Buffer { elem, bytes }))
        }
        ("int", 2) => Ok(Arg::Int(tuple.get_item(1)?.extract()?)),
        ("float", 2) => Ok(Arg::Float(tuple.get_item(1)?.extract()?)),
        _ => Err(PyValueError::new_err(format!("argument kind {kind:?}"))),
    }
}

/// Runs kernel `kernel` of axe IR `source` on every CTA of `grid` (x fastest), in order, with `args` (see
/// [`arg_of`]; each CTA sees the buffers as the previous one left them); returns each argument's bytes afterwards
/// (`None` for scalars).
#[pyfunction]
pub fn _simulate<'py>(
    py: Python<'py>,
    source: &str,
    name: &str,
    kernel: &str,
    grid: [i64; 3],
    args: Vec<Bound<'py, PyAny>>,
) -> PyResult<Vec<Option<Bound<'py, PyBytes>>>> {
    let mut args = args.iter().map(arg_of).collect::<PyResult<Vec<Arg>>>()?;
    if grid.iter().any(|g| *g < 1) || grid.iter().product::<i64>() > 1 << 20 {
        return Err(PyValueError::new_err(format!("grid {grid:?}: each dimension at least 1, at most 2^20 CTAs")));
    }
    let (source, name, kernel) = (source.to_owned(), name.to_owned(), kernel.to_owned());
    let result = guarded(py, "simulate", || {
        Ok(py.detach(move || -> Result<Vec<Arg>, (bool, String)> {
            let context = axe_dialect::create_context().map_err(|e| (false, format!("context: {e:#}")))?;
            let module = lower(&context, &source, &name).map_err(|e| (false, e))?;
            for z in 0..grid[2] {
                for y in 0..grid[1] {
                    for x in 0..grid[0] {
                        let launch = Launch { kernel: kernel.clone(), block_id: [x, y, z], grid, args: args.clone() };
                        let outcome = run_with(&module, &launch, &Schedule::default())
                            .map_err(|e| (true, format!("block ({x}, {y}, {z}): {e}")))?;
                        for (arg, out) in args.iter_mut().zip(outcome.buffers) {
                            if let (Arg::Buffer(_), Some(buffer)) = (&*arg, out) {
                                *arg = Arg::Buffer(buffer);
                            }
                        }
                    }
                }
            }
            Ok(args)
        }))
    })?;
    match result {
        Ok(args) => Ok(args
            .iter()
            .map(|a| match a {
                Arg::Buffer(b) => Some(PyBytes::new(py, &b.bytes)),
                _ => None,
            })
            .collect()),
        Err((true, message)) => Err(SimulationError::new_err(message)),
        Err((false, message)) => Err(CompileError::new_err(message.trim_end().to_owned())),
    }
}
