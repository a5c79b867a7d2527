//! `axe.Layout`: one immutable layout and the crate's operations on it, with the CLI's argument order
//! (`tile INNER OUTER --inner-shape --outer-shape` is `inner.tile(outer, inner_shape, outer_shape)`).

use crate::args::{coord_of, layout_of, region_of, shape_of, shape_or, tile_of, CoordArg};
use crate::{crate_error, guarded, html, layout_error};
use layout::canonicalize::{canonicalize, equivalent};
use layout::notation::parse_layout;
use layout::tile::admit_operand;
use layout::tile_layout::flatten;
use layout::tile_of::{inner_of, outer_of, without_unit_iters};
use layout::{Axis, Layout, LayoutError};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyDict, PyList, PyString, PyTuple};
use std::hash::{DefaultHasher, Hash, Hasher};

/// The most values [`PyLayout::table`] writes in all (elements times points per element times axes): 16 Mi, 128 MiB
/// of int64 however many axes the layout has.
pub const TABLE_LIMIT: i64 = 1 << 24;

/// The most values [`PyLayout::eval`] returns (points times axes): 4 Mi, a few hundred MB of Python dicts; every
/// copy of an element on the built-in axes fits.
pub const EVAL_LIMIT: i64 = 1 << 22;

/// An Axe layout: `Layout("S[(8,4):(4@laneid,1@laneid)]")`.
///
/// `repr()` and `str()` are the layout's canonical text (the crate's printer, which `Layout()` parses back to
/// the same layout). Two layouts are `==` (and hash alike) when their canonical forms (paper App. A) are
/// identical, which implies the same induced map; `equivalent(other, shape)` decides map equality exactly.
#[pyclass(frozen, name = "Layout", module = "axe")]
pub struct PyLayout {
    layout: Layout,
}

impl PyLayout {
    /// The crate's layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    fn wrap(layout: Layout) -> PyLayout {
        PyLayout { layout }
    }

    /// Checks that the layout admits `shape`, naming the argument.
    fn admit(&self, py: Python<'_>, what: &str, shape: &[i64]) -> PyResult<()> {
        self.layout.admits(shape).map_err(|e| crate_error(py, what, None, &e))
    }

    /// The row-major flat index of a coordinate argument in an admitted `shape`.
    fn flat_of(&self, py: Python<'_>, coord: CoordArg, shape: &[i64]) -> PyResult<i64> {
        match coord {
            CoordArg::Flat(i) if (0..self.layout.size()).contains(&i) => Ok(i),
            CoordArg::Flat(i) => Err(layout_error(
                py,
                &format!("coord: flat index {i} is outside 0..{} (the layout's size)", self.layout.size()),
                None,
                None,
            )),
            CoordArg::Coord(x) => flatten(shape, &x).map_err(|e| crate_error(py, "coord", None, &e)),
        }
    }

    fn canonical(&self) -> Layout {
        canonicalize(&self.layout).layout
    }
}

/// A coordinate as a dict axis name -> value (keys in the crate's order: sorted by name).
fn point_dict<'py>(py: Python<'py>, c: &layout::Coord) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (a, v) in c {
        d.set_item(a.name(), v)?;
    }
    Ok(d)
}

/// Maps a crate error of the operation or argument `what` to a LayoutError prefixed with it.
fn op_error<'a>(py: Python<'a>, what: &'a str) -> impl Fn(LayoutError) -> PyErr + 'a {
    move |e| crate_error(py, what, None, &e)
}

/// A keyword argument `tile_of` needs with the factor it was given.
fn required<'a, 'py>(what: &str, v: Option<&'a Bound<'py, PyAny>>) -> PyResult<&'a Bound<'py, PyAny>> {
    v.filter(|v| !v.is_none()).ok_or_else(|| PyTypeError::new_err(format!("tile_of: {what} is required")))
}

#[pymethods]
impl PyLayout {
    /// Parses a layout in the Axe notation (or copies a Layout). Raises LayoutError with the column on bad text.
    #[new]
    fn new(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<Self> {
        guarded(py, "Layout", || {
            if let Ok(l) = text.cast::<PyLayout>() {
                return Ok(Self::wrap(l.get().layout.clone()));
            }
            let Ok(s) = text.cast::<PyString>() else {
                return Err(PyTypeError::new_err("Layout() takes the layout's text (a str)"));
            };
            let s = s.to_str()?;
            parse_layout(s).map(Self::wrap).map_err(|e| crate_error(py, "", Some(s), &e))
        })
    }

    fn __repr__(&self) -> String {
        self.layout.to_string()
    }

    fn __str__(&self) -> String {
        self.layout.to_string()
    }

    /// Equal canonical forms (a Layout never equals another type).
    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        guarded(py, "__eq__", || Ok(other.cast::<PyLayout>().is_ok_and(|o| self.canonical() == o.get().canonical())))
    }

    /// The hash of the canonical form, so equal layouts hash alike.
    fn __hash__(&self, py: Python<'_>) -> PyResult<u64> {
        guarded(py, "__hash__", || {
            let mut h = DefaultHasher::new();
            self.canonical().hash(&mut h);
            Ok(h.finish())
        })
    }

    /// Pickles as the text.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let text = slf.get().layout.to_string();
        PyTuple::new(slf.py(), [slf.get_type().into_any(), PyTuple::new(slf.py(), [text])?.into_any()])
    }

    /// size(L): the number of logical elements.
    fn size(&self) -> i64 {
        self.layout.size()
    }

    /// Every axis the layout's points have, sorted by name (the keys of eval's dicts and table's dict).
    fn axes(&self) -> Vec<&'static str> {
        self.layout.axes().into_iter().map(Axis::name).collect()
    }

    /// span(L, a) = 1 + sum of (extent-1)*|stride| over the iters on a, plus O[a]; without an axis (or with
    /// "memory") the memory axes count together, as `axe-layout span`.
    #[pyo3(signature = (axis=None))]
    fn span(&self, py: Python<'_>, axis: Option<&str>) -> PyResult<i64> {
        guarded(py, "span", || {
            Ok(match axis {
                None | Some("memory") => self.layout.tile().span_memory(),
                Some(name) => self.layout.tile().span_on(Axis::named(name).map_err(op_error(py, "axis"))?),
            })
        })
    }

    /// L(x): the coordinate set of one logical index, a list of dicts axis -> value (sorted, no duplicates,
    /// every axis of the layout in each; replicas and offsets included; m is the swizzled address of a
    /// swizzled layout). `coord` is a coordinate of `shape` (default: the 1-D shape of the layout's size) or an
    /// int, the row-major flat index.
    #[pyo3(signature = (coord, shape=None))]
    fn eval<'py>(
        &self,
        py: Python<'py>,
        coord: &Bound<'py, PyAny>,
        shape: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        guarded(py, "eval", || {
            let shape = shape_or(py, "shape", shape, || vec![self.layout.size()])?;
            self.admit(py, "shape", &shape)?;
            let flat = self.flat_of(py, coord_of(py, "coord", coord)?, &shape)?;
            let evaluator = self.layout.evaluator().map_err(op_error(py, "eval"))?;
            let (points, axes) = (evaluator.replica_len().max(1) as i64, evaluator.axes().len() as i64);
            if points.saturating_mul(axes) > EVAL_LIMIT {
                let m = format!(
                    "eval: {points} points x {axes} axes = {} values, more than EVAL_LIMIT ({EVAL_LIMIT})",
                    points.saturating_mul(axes)
                );
                return Err(layout_error(py, &m, None, None));
            }
            let set = evaluator.eval_flat(flat).map_err(op_error(py, "eval"))?;
            let dicts = set.iter().map(|c| point_dict(py, c)).collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, dicts)
        })
    }

    /// The whole map as numpy int64 arrays, one per axis (a dict axis -> array, axes sorted by name).
    ///
    /// Each array has the logical `shape` (default: the 1-D shape of the layout's size) when every element maps
    /// to one point. A replicated layout (k points per element) gets a trailing dimension of length k: entry
    /// [..., r] is the element's r-th point in eval's order, so `table(s)[a][x][r] == eval(x, s)[r][a]`. At
    /// most TABLE_LIMIT values in all (elements x points x axes).
    #[pyo3(signature = (shape=None))]
    fn table<'py>(&self, py: Python<'py>, shape: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyDict>> {
        guarded(py, "table", || {
            let shape = shape_or(py, "shape", shape, || vec![self.layout.size()])?;
            self.admit(py, "shape", &shape)?;
            let evaluator = self.layout.evaluator().map_err(op_error(py, "table"))?;
            let size = self.layout.size();
            let k = evaluator.replica_len().max(1);
            let count = size.saturating_mul(k as i64);
            let axes = evaluator.axes().to_vec();
            let total = count.saturating_mul(axes.len().max(1) as i64);
            if total > TABLE_LIMIT {
                return Err(layout_error(
                    py,
                    &format!(
                        "table: {size} elements x {k} points x {} axes = {total} values, more than TABLE_LIMIT \
                         ({TABLE_LIMIT}); use eval",
                        axes.len()
                    ),
                    None,
                    None,
                ));
            }
            let mut columns: Vec<Vec<i64>> = vec![Vec::with_capacity(count as usize); axes.len()];
            for flat in 0..size {
                let points = evaluator.values(flat).map_err(op_error(py, "table"))?;
                if points.len() != k {
                    return Err(layout_error(
                        py,
                        &format!("table: element {flat} has {} points where the layout has {k} replicas", points.len()),
                        None,
                        None,
                    ));
                }
                for point in &points {
                    for (column, v) in columns.iter_mut().zip(point) {
                        column.push(*v);
                    }
                }
            }
            let numpy = py.import("numpy")?;
            let int64 = numpy.getattr("int64")?;
            let mut dims = shape.clone();
            if k > 1 {
                dims.push(k as i64);
            }
            let dims = PyTuple::new(py, dims)?;
            let out = PyDict::new(py);
            for (axis, column) in axes.iter().zip(columns) {
                let bytes: Vec<u8> = column.iter().flat_map(|v| v.to_ne_bytes()).collect();
                let buffer = PyByteArray::new(py, &bytes);
                let array = numpy.call_method1("frombuffer", (buffer, &int64))?.call_method1("reshape", (&dims,))?;
                out.set_item(axis.name(), array)?;
            }
            Ok(out)
        })
    }

    /// The canonical form (paper App. A): same induced map, unique when the gap condition holds.
    fn canonicalize(&self, py: Python<'_>) -> PyResult<PyLayout> {
        guarded(py, "canonicalize", || Ok(Self::wrap(self.canonical())))
    }

    /// Whether the canonical form satisfies the gap condition (Lemma A.9), so that it is unique.
    fn gap_condition(&self, py: Python<'_>) -> PyResult<bool> {
        guarded(py, "gap_condition", || Ok(canonicalize(&self.layout).gap_condition))
    }

    /// Whether this layout and `other` have the same induced map over `shape` (both must admit it), decided
    /// exactly (canonical forms, per-axis replica sets, or enumeration).
    fn equivalent(&self, py: Python<'_>, other: &Bound<'_, PyAny>, shape: &Bound<'_, PyAny>) -> PyResult<bool> {
        guarded(py, "equivalent", || {
            let other = layout_of(py, "other", other)?;
            let shape = shape_of(py, "shape", shape)?;
            equivalent(&self.layout, &other, &shape).map_err(op_error(py, "equivalent"))
        })
    }

    /// tile(self, outer) (paper App. C): the layout over outer_shape[i] * inner_shape[i] with
    /// L(x_o * inner_shape + x_i) = span(self) . outer(x_o) + self(x_i). A swizzle on self is kept; outer must
    /// not have one, and must move self by whole swizzle periods (every value of outer on m times span(self) a
    /// multiple of 2^(M+B+S)), else the equation cannot hold and LayoutError names the swizzle period rule. A bare
    /// swizzle self admits any inner_shape (the swizzle over the row-major tile of the shape).
    fn tile(
        &self,
        py: Python<'_>,
        outer: &Bound<'_, PyAny>,
        inner_shape: &Bound<'_, PyAny>,
        outer_shape: &Bound<'_, PyAny>,
    ) -> PyResult<PyLayout> {
        guarded(py, "tile", || {
            let outer = tile_of(py, "outer", outer)?;
            let inner_shape = shape_of(py, "inner_shape", inner_shape)?;
            let outer_shape = shape_of(py, "outer_shape", outer_shape)?;
            admit_operand(&self.layout, &inner_shape).map_err(op_error(py, "inner_shape"))?;
            Layout::Tile(outer.clone()).admits(&outer_shape).map_err(op_error(py, "outer_shape"))?;
            layout::tile::tile(&self.layout, &outer, &inner_shape, &outer_shape)
                .map(Self::wrap)
                .map_err(op_error(py, "tile"))
        })
    }

    /// tile-of (paper App. D): self is the tiled layout over `tiled_shape`; given exactly one factor, returns the
    /// other: with `inner`, the outer B with tile(inner, B) == self; with `outer`, the inner A with
    /// tile(A, outer) == self. Raises LayoutError when self is not such a tiling.
    #[pyo3(signature = (tiled_shape, *, inner=None, inner_shape=None, outer=None, outer_shape=None))]
    fn tile_of(
        &self,
        py: Python<'_>,
        tiled_shape: &Bound<'_, PyAny>,
        inner: Option<&Bound<'_, PyAny>>,
        inner_shape: Option<&Bound<'_, PyAny>>,
        outer: Option<&Bound<'_, PyAny>>,
        outer_shape: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyLayout> {
        guarded(py, "tile_of", || {
            let tiled_shape = shape_of(py, "tiled_shape", tiled_shape)?;
            admit_operand(&self.layout, &tiled_shape).map_err(op_error(py, "tiled_shape"))?;
            match (inner.filter(|v| !v.is_none()), outer.filter(|v| !v.is_none())) {
                (Some(inner), None) => {
                    let inner = layout_of(py, "inner", inner)?;
                    let inner_shape = shape_of(py, "inner_shape", required("inner_shape with inner", inner_shape)?)?;
                    admit_operand(&inner, &inner_shape).map_err(op_error(py, "inner_shape"))?;
                    outer_of(&self.layout, &inner, &tiled_shape, &inner_shape)
                        .map(|t| Self::wrap(without_unit_iters(&Layout::Tile(t))))
                        .map_err(op_error(py, "tile_of"))
                }
                (None, Some(outer)) => {
                    let outer = tile_of(py, "outer", outer)?;
                    let outer_shape = shape_of(py, "outer_shape", required("outer_shape with outer", outer_shape)?)?;
                    Layout::Tile(outer.clone()).admits(&outer_shape).map_err(op_error(py, "outer_shape"))?;
                    inner_of(&self.layout, &outer, &tiled_shape, &outer_shape)
                        .map(|t| Self::wrap(without_unit_iters(&t)))
                        .map_err(op_error(py, "tile_of"))
                }
                _ => Err(PyTypeError::new_err("tile_of needs exactly one of inner and outer")),
            }
        })
    }

    /// slice (paper App. E): the layout L' of a region of `shape` with L'(y) == L(y + begin); `region` is one
    /// half-open (begin, end) per dimension. A swizzle is kept.
    fn slice(&self, py: Python<'_>, shape: &Bound<'_, PyAny>, region: &Bound<'_, PyAny>) -> PyResult<PyLayout> {
        guarded(py, "slice", || {
            let shape = shape_of(py, "shape", shape)?;
            let region = region_of(py, "region", region)?;
            self.admit(py, "shape", &shape)?;
            if region.len() != shape.len() {
                let m = format!("region has {} dimension(s) but shape has {}", region.len(), shape.len());
                return Err(layout_error(py, &m, None, None));
            }
            if let Some((d, (_, end))) = region.iter().enumerate().find(|(d, (_, end))| *end > shape[*d]) {
                let m = format!("region: dimension {d} ends at {end}, beyond the shape's extent {}", shape[d]);
                return Err(layout_error(py, &m, None, None));
            }
            layout::slice::slice(&self.layout, &shape, &region).map(Self::wrap).map_err(op_error(py, "slice"))
        })
    }

    /// group (paper App. B): the shard split and fused so consecutive blocks of iters multiply to the shape's
    /// dimensions. Returns (layout, seps): dimension i owns shard iters seps[i]..seps[i+1] (a swizzle is kept).
    fn group(&self, py: Python<'_>, shape: &Bound<'_, PyAny>) -> PyResult<(PyLayout, Vec<usize>)> {
        guarded(py, "group", || {
            let shape = shape_of(py, "shape", shape)?;
            self.admit(py, "shape", &shape)?;
            let g = layout::group::group(self.layout.tile(), &shape).map_err(op_error(py, "group"))?;
            let result = self.layout.with_tile(g.layout).map_err(op_error(py, "group"))?;
            Ok((Self::wrap(result), g.seps))
        })
    }

    /// The direct sum (paper App. F) over the interleaved domain: L(x_L * right_shape + x_R) = self(x_L) +
    /// right(x_R). Self (the left side) must not have a swizzle; a swizzled right keeps its swizzle, and every
    /// value of self on m must then be a multiple of its period 2^(M+B+S), else the equation cannot hold and
    /// LayoutError names the swizzle period rule.
    fn direct_sum(
        &self,
        py: Python<'_>,
        right: &Bound<'_, PyAny>,
        left_shape: &Bound<'_, PyAny>,
        right_shape: &Bound<'_, PyAny>,
    ) -> PyResult<PyLayout> {
        guarded(py, "direct_sum", || {
            let Layout::Tile(left) = &self.layout else {
                let e = LayoutError::new("must be a tile layout without a swizzle");
                return Err(crate_error(py, "direct_sum: the left layout", None, &e));
            };
            let right = layout_of(py, "right", right)?;
            let left_shape = shape_of(py, "left_shape", left_shape)?;
            let right_shape = shape_of(py, "right_shape", right_shape)?;
            self.admit(py, "left_shape", &left_shape)?;
            admit_operand(&right, &right_shape).map_err(op_error(py, "right_shape"))?;
            layout::direct_sum::direct_sum(left, &right, &left_shape, &right_shape)
                .map(Self::wrap)
                .map_err(op_error(py, "direct_sum"))
        })
    }

    /// A small HTML grid of a 1-D or 2-D `shape` (default: see `_repr_html_`): each cell coloured by the thread
    /// that holds the element (its first point's thread axes) and labelled with its image, the values on every
    /// axis joined by ':' (a replicated axis lists its values); hover a cell for every point. At most HTML_CELLS.
    #[pyo3(signature = (shape=None))]
    fn html(&self, py: Python<'_>, shape: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
        guarded(py, "html", || {
            let shape = shape_or(py, "shape", shape, || html::default_shape(&self.layout))?;
            self.admit(py, "shape", &shape)?;
            html::grid(&self.layout, &shape).map_err(op_error(py, "html"))
        })
    }

    /// The notebook view: `html()` over a 2-D view of the shard (its outer iters as rows, the most nearly square
    /// split), or a note with the message when the layout cannot be drawn.
    fn _repr_html_(&self, py: Python<'_>) -> PyResult<String> {
        guarded(py, "_repr_html_", || {
            Ok(html::grid(&self.layout, &html::default_shape(&self.layout))
                .unwrap_or_else(|e| html::note(&self.layout, &e)))
        })
    }
}
