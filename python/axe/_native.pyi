"""Type stubs of axe._native: the Axe layout algebra (the Rust crate axe-layout), the compiler and the simulator,
built as the native module of the axe package (which re-exports the layout names)."""

from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str
TABLE_LIMIT: int
"""The most values Layout.table writes in all (elements times points per element times axes)."""
EVAL_LIMIT: int
"""The most values Layout.eval returns (points times axes)."""
HTML_CELLS: int
"""The most cells Layout.html draws."""

_LayoutLike = Union["Layout", str]
"""A Layout, or its text in the Axe notation. (The _-prefixed aliases exist only in this stub.)"""
_Shape = Union[Sequence[int], int, str]
"""A logical shape: [8, 16], 128 (1-D), or the CLI's text "8,16"."""
_Region = Union[Sequence[Tuple[int, int]], str]
"""Half-open (begin, end) per dimension: [(2, 3), (6, 10)] or "2:3,6:10"."""
_Coord = Union[Sequence[int], int, str]
"""A coordinate of the shape ([7, 15] or "7,15"), or an int: the row-major flat index."""
_Point = dict[str, int]
"""One coordinate of the image: axis name -> value, every axis of the layout."""

class LayoutError(ValueError):
    """Text that does not parse, or an operation or plan the algebra refuses."""

    message: str
    """The algebra's message (rule first, then the numbers), prefixed with the argument or operation."""
    column: int | None
    """For text that does not parse: the 1-based character column of the problem; else None."""
    text: str | None
    """For text that does not parse: that text; else None."""

class Layout:
    """An Axe layout, L(x) = { D(x) + O + r | r in R }, optionally followed by an XOR swizzle on m.

    repr() and str() are the canonical text. == and hash() compare canonical forms (equal forms imply the same
    map; equivalent() decides map equality exactly).
    """

    def __init__(self, text: _LayoutLike) -> None:
        """Parses the Axe notation, e.g. Layout("S[(8,4):(4@laneid,1@laneid)]"); LayoutError with the column."""
    def __repr__(self) -> str: ...
    def __str__(self) -> str: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...
    def __reduce__(self) -> tuple[Any, tuple[str]]: ...
    def size(self) -> int:
        """size(L): the number of logical elements."""
    def axes(self) -> list[str]:
        """Every axis of the layout's points, sorted by name."""
    def span(self, axis: str | None = None) -> int:
        """span(L, axis); without an axis (or "memory") over the memory axes together."""
    def eval(self, coord: _Coord, shape: _Shape | None = None) -> list[_Point]:
        """L(x): the sorted coordinate set of one element (replicas and offsets included).

        shape defaults to the 1-D shape of the layout's size; an int coord is the row-major flat index.
        """
    def table(self, shape: _Shape | None = None) -> dict[str, npt.NDArray[np.int64]]:
        """The map as one int64 array per axis, of the logical shape (default: 1-D).

        A replicated layout with k points per element gets a trailing dimension of length k, ordered as eval's
        list: table(s)[axis][x][r] == eval(x, s)[r][axis]. At most TABLE_LIMIT values in all (over every axis).
        """
    def canonicalize(self) -> Layout:
        """The canonical form (paper App. A): same induced map."""
    def gap_condition(self) -> bool:
        """Whether the canonical form satisfies the gap condition (then it is unique)."""
    def equivalent(self, other: _LayoutLike, shape: _Shape) -> bool:
        """Whether both layouts have the same induced map over shape."""
    def tile(self, outer: _LayoutLike, inner_shape: _Shape, outer_shape: _Shape) -> Layout:
        """tile(self, outer) (App. C): L(x_o * inner_shape + x_i) = span(self) . outer(x_o) + self(x_i).

        A swizzled self keeps its swizzle; outer must then move it by whole swizzle periods (every value of outer
        on m times span(self) a multiple of 2^(M+B+S)), else LayoutError (swizzle period rule)."""
    def tile_of(
        self,
        tiled_shape: _Shape,
        *,
        inner: _LayoutLike | None = None,
        inner_shape: _Shape | None = None,
        outer: _LayoutLike | None = None,
        outer_shape: _Shape | None = None,
    ) -> Layout:
        """App. D: given exactly one factor of this tiled layout, the other (tile(inner, outer) == self)."""
    def slice(self, shape: _Shape, region: _Region) -> Layout:
        """App. E: the layout L' of a region with L'(y) == L(y + begin)."""
    def group(self, shape: _Shape) -> tuple[Layout, list[int]]:
        """App. B: (layout, seps), dimension i owning shard iters seps[i]..seps[i+1]."""
    def direct_sum(self, right: _LayoutLike, left_shape: _Shape, right_shape: _Shape) -> Layout:
        """App. F: L(x_L * right_shape + x_R) = self(x_L) + right(x_R); self must not have a swizzle.

        A swizzled right keeps its swizzle; every value of self on m must then be a multiple of its period
        2^(M+B+S), else LayoutError (swizzle period rule)."""
    def html(self, shape: _Shape | None = None) -> str:
        """An HTML grid of a 1-D or 2-D shape: cells coloured by thread, labelled with the image."""
    def _repr_html_(self) -> str:
        """The notebook view: html() over a 2-D view of the shard, or a note saying why not."""

def declare_axis(name: str, kind: str) -> None:
    """Declares an axis, as the CLI's --axis NAME=KIND (memory, device or thread:UNIT:WITHIN)."""

def tma_plan(
    *,
    global_layout: _LayoutLike,
    global_shape: _Shape,
    global_region: _Region,
    shared_layout: _LayoutLike,
    shared_shape: _Shape,
    shared_region: _Region,
    dtype: str,
    direction: str = "g2s",
    l2_promotion: str | None = None,
    oob_fill: str | None = None,
) -> dict[str, Any]:
    """The TMA plan as `axe-layout tma-plan --json`: the cuTensorMapEncodeTiled fields and the issues."""

def mma_plan(
    *,
    chip: str,
    dtype: str,
    a: _LayoutLike,
    a_shape: _Shape,
    a_mem: str,
    b: _LayoutLike,
    b_shape: _Shape,
    b_mem: str,
    c: _LayoutLike,
    c_shape: _Shape,
    c_mem: str,
    acc_dtype: str = "f32",
) -> dict[str, Any]:
    """The tensor-core plan of C += A * B as `axe-layout mma-plan --json`."""


class CompileError(ValueError):
    """axe IR the compiler refuses; str(e) is every diagnostic as axe-opt prints it."""

class SimulationError(RuntimeError):
    """A fault the simulator found while running a kernel, at the op's location."""

def _compile(source: str, name: str = "<input>", chip: Optional[str] = None) -> Tuple[str, str, str]:
    """Compiles axe IR with every lowering: (chip, PTX, launch record JSON). axe.compile wraps it."""

def _simulate(
    source: str, name: str, kernel: str, grid: Sequence[int], args: List[Tuple[Any, ...]]
) -> List[Optional[bytes]]:
    """Runs a kernel on every CTA of grid on the simulator: args are ("buffer", dtype, bytes), ("int", v) or
    ("float", v); returns each argument's bytes afterwards (None for scalars). axe.Kernel's simulator path wraps it."""
