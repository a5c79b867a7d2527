//! Python arguments to the crate's types, as the CLI reads them: a layout is a `Layout` or its text; a shape is
//! a sequence of ints, one int (a 1-D shape) or the CLI's text `"8,16"`; a region a sequence of `(begin, end)`
//! pairs or `"2:3,6:10"`; a coordinate a sequence of ints, one int (the row-major flat index) or `"7,15"`.
//! Text goes through the crate's own parsers (`axe_layout::notation`), so errors carry the same messages and
//! columns as the CLI's; sequences get the same checks.
//!
//! A sequence is read item by item, at most [`MAX_DIMS`] items (the length it reports is checked first and never
//! used to reserve memory: `range(2**40)` reports a length of 2**40 and holds nothing), and an int that does not
//! fit in 64 bits is a `LayoutError`, so no argument can make the conversion abort or panic.

use crate::crate_error;
use crate::pylayout::PyLayout;
use layout::notation::{parse_coord, parse_layout, parse_region, parse_shape};
use layout::{Layout, LayoutError, TileLayout};
use pyo3::exceptions::{PyOverflowError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyString;

/// The most items a shape, coordinate or region sequence may have. A layout has at most
/// `layout::arith::MAX_ITERS` iters, so no admitted shape comes near it.
pub const MAX_DIMS: usize = 1 << 12;

/// A layout argument: a `Layout` or its text (parse errors name `what` and carry the column).
pub fn layout_of(py: Python<'_>, what: &str, obj: &Bound<'_, PyAny>) -> PyResult<Layout> {
    if let Ok(l) = obj.cast::<PyLayout>() {
        return Ok(l.get().layout().clone());
    }
    if let Ok(s) = obj.cast::<PyString>() {
        let text = s.to_str()?;
        return parse_layout(text).map_err(|e| crate_error(py, what, Some(text), &e));
    }
    Err(PyTypeError::new_err(format!("{what}: expected a Layout or its text, got {}", type_name(obj))))
}

/// A layout argument that must not have a swizzle (the outer factor of a tiling, the left side of a direct sum).
pub fn tile_of(py: Python<'_>, what: &str, obj: &Bound<'_, PyAny>) -> PyResult<TileLayout> {
    match layout_of(py, what, obj)? {
        Layout::Tile(t) => Ok(t),
        Layout::Compose(_) => {
            Err(crate_error(py, what, None, &LayoutError::new("must be a tile layout without a swizzle")))
        }
    }
}

/// A shape argument: every dimension at least 1.
pub fn shape_of(py: Python<'_>, what: &str, obj: &Bound<'_, PyAny>) -> PyResult<Vec<i64>> {
    if let Ok(s) = obj.cast::<PyString>() {
        let text = s.to_str()?;
        return parse_shape(text).map_err(|e| crate_error(py, what, Some(text), &e));
    }
    let dims = ints(py, what, obj)?.ok_or_else(|| {
        PyTypeError::new_err(format!(
            "{what}: expected a sequence of ints or a text like '8,16', got {}",
            type_name(obj)
        ))
    })?;
    if let Some(v) = dims.iter().find(|v| **v < 1) {
        let e = LayoutError::new(format!("a shape dimension must be at least 1, got {v}"));
        return Err(crate_error(py, what, None, &e));
    }
    Ok(dims)
}

/// An optional shape argument, or `default` when it is `None`.
pub fn shape_or(
    py: Python<'_>,
    what: &str,
    obj: Option<&Bound<'_, PyAny>>,
    default: impl FnOnce() -> Vec<i64>,
) -> PyResult<Vec<i64>> {
    match obj {
        Some(o) if !o.is_none() => shape_of(py, what, o),
        _ => Ok(default()),
    }
}

/// A region argument: one half-open `(begin, end)` per dimension with `0 <= begin < end`.
pub fn region_of(py: Python<'_>, what: &str, obj: &Bound<'_, PyAny>) -> PyResult<Vec<(i64, i64)>> {
    if let Ok(s) = obj.cast::<PyString>() {
        let text = s.to_str()?;
        return parse_region(text).map_err(|e| crate_error(py, what, Some(text), &e));
    }
    let wrong = || {
        PyTypeError::new_err(format!(
            "{what}: expected a sequence of (begin, end) pairs or a text like '2:3,6:10', got {}",
            type_name(obj)
        ))
    };
    // Pairs as any sequences of two ints (tuples, lists, the rows of a numpy array).
    let rows = items(py, what, obj)?.ok_or_else(wrong)?;
    let mut pairs = Vec::with_capacity(rows.len());
    for row in &rows {
        match items(py, what, row)?.as_deref() {
            Some([b, e]) => pairs.push((int(py, what, b)?.ok_or_else(wrong)?, int(py, what, e)?.ok_or_else(wrong)?)),
            _ => return Err(wrong()),
        }
    }
    if let Some((b, e)) = pairs.iter().find(|(b, e)| *b < 0 || e <= b) {
        let e = LayoutError::new(format!("a region dimension needs 0 <= begin < end, got {b}:{e}"));
        return Err(crate_error(py, what, None, &e));
    }
    Ok(pairs)
}

/// A logical coordinate: a row-major flat index, or one component per dimension.
pub enum CoordArg {
    /// One int: the row-major flat index.
    Flat(i64),
    /// A coordinate of the shape (range checks are the caller's).
    Coord(Vec<i64>),
}

/// A coordinate argument.
pub fn coord_of(py: Python<'_>, what: &str, obj: &Bound<'_, PyAny>) -> PyResult<CoordArg> {
    if let Ok(s) = obj.cast::<PyString>() {
        let text = s.to_str()?;
        return parse_coord(text).map(CoordArg::Coord).map_err(|e| crate_error(py, what, Some(text), &e));
    }
    if let Some(flat) = int(py, what, obj)? {
        return Ok(CoordArg::Flat(flat));
    }
    let wrong = || {
        PyTypeError::new_err(format!(
            "{what}: expected an int (flat index), a sequence of ints or a text like '7,15', got {}",
            type_name(obj)
        ))
    };
    let list = items(py, what, obj)?.ok_or_else(wrong)?;
    let coord = list.iter().map(|v| int(py, what, v)?.ok_or_else(wrong)).collect::<PyResult<Vec<i64>>>()?;
    Ok(CoordArg::Coord(coord))
}

/// One int (a 1-D list) or a sequence of ints; `None` for anything else (a float, a str, a nested list).
fn ints(py: Python<'_>, what: &str, obj: &Bound<'_, PyAny>) -> PyResult<Option<Vec<i64>>> {
    if let Some(n) = int(py, what, obj)? {
        return Ok(Some(vec![n]));
    }
    let Some(list) = items(py, what, obj)? else { return Ok(None) };
    let mut out = Vec::with_capacity(list.len());
    for v in &list {
        match int(py, what, v)? {
            Some(n) => out.push(n),
            None => return Ok(None),
        }
    }
    Ok(Some(out))
}

/// An int (or anything with `__index__`, such as numpy's integers) as an i64; `None` when `obj` is not an int; a
/// `LayoutError` when it is one that does not fit in 64 bits.
fn int(py: Python<'_>, what: &str, obj: &Bound<'_, PyAny>) -> PyResult<Option<i64>> {
    match obj.extract::<i64>() {
        Ok(n) => Ok(Some(n)),
        Err(e) if e.is_instance_of::<PyOverflowError>(py) => {
            let text = obj.str().map(|s| s.to_string()).unwrap_or_default();
            Err(crate_error(py, what, None, &LayoutError::new(format!("{text} does not fit in 64 bits"))))
        }
        Err(_) => Ok(None),
    }
}

/// The items of a sequence (not a str), read one at a time; `None` when `obj` is not a sequence; a `LayoutError`
/// when it has more than [`MAX_DIMS`] items or its length cannot be read (a length past `sys.maxsize`).
fn items<'py>(py: Python<'py>, what: &str, obj: &Bound<'py, PyAny>) -> PyResult<Option<Vec<Bound<'py, PyAny>>>> {
    if obj.cast::<PyString>().is_ok() {
        return Ok(None);
    }
    // SAFETY: `obj` is a live object and the GIL is held (`py`); PySequence_Check only reads its type (it is what
    // pyo3's own Vec extraction asks, so numpy arrays count as sequences).
    if unsafe { pyo3::ffi::PySequence_Check(obj.as_ptr()) } == 0 {
        return Ok(None);
    }
    let refuse = |message: String| crate_error(py, what, None, &LayoutError::new(message));
    match obj.len() {
        Ok(len) if len > MAX_DIMS => return Err(refuse(format!("a sequence of {len} items, more than {MAX_DIMS}"))),
        Ok(_) => {}
        Err(e) => return Err(refuse(format!("the sequence's length cannot be read ({e})"))),
    }
    let mut out = Vec::new();
    for item in obj.try_iter()? {
        if out.len() == MAX_DIMS {
            return Err(refuse(format!("a sequence of more than {MAX_DIMS} items")));
        }
        out.push(item?);
    }
    Ok(Some(out))
}

/// The Python type name of `obj`, for messages.
fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into())
}
