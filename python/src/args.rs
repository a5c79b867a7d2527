//! Python arguments to the crate's types, as the CLI reads them: a layout is a `Layout` or its text; a shape is
//! a sequence of ints, one int (a 1-D shape) or the CLI's text `"8,16"`; a region a sequence of `(begin, end)`
//! pairs or `"2:3,6:10"`; a coordinate a sequence of ints, one int (the row-major flat index) or `"7,15"`.
//! Text goes through the crate's own parsers (`axe_layout::notation`), so errors carry the same messages and
//! columns as the CLI's; sequences get the same checks.

use crate::crate_error;
use crate::pylayout::PyLayout;
use layout::notation::{parse_coord, parse_layout, parse_region, parse_shape};
use layout::{Layout, LayoutError, TileLayout};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyString;

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
    let dims = ints(obj).ok_or_else(|| {
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
    let rows: Vec<Vec<i64>> = obj.extract().map_err(|_| wrong())?;
    let pairs: Vec<(i64, i64)> =
        rows.iter().map(|r| if let [b, e] = r[..] { Ok((b, e)) } else { Err(wrong()) }).collect::<PyResult<_>>()?;
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
    if let Ok(flat) = obj.extract::<i64>() {
        return Ok(CoordArg::Flat(flat));
    }
    obj.extract::<Vec<i64>>().map(CoordArg::Coord).map_err(|_| {
        PyTypeError::new_err(format!(
            "{what}: expected an int (flat index), a sequence of ints or a text like '7,15', got {}",
            type_name(obj)
        ))
    })
}

/// One int (a 1-D list) or a sequence of ints; `None` for anything else (a float, a str, a nested list).
fn ints(obj: &Bound<'_, PyAny>) -> Option<Vec<i64>> {
    if let Ok(n) = obj.extract::<i64>() {
        return Some(vec![n]);
    }
    obj.extract::<Vec<i64>>().ok()
}

/// The Python type name of `obj`, for messages.
fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into())
}
