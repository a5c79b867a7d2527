"""The launch record: what a compiled kernel needs from whoever launches it (`axe-translate --emit=launch`).

The record is the compiler's contract with the host (docs/dialect.md, "The launch record"): per kernel the grid
as expressions of the parameters, the block, the dynamic shared memory, the parameters in PTX order with their
kind (`tensor_map`, `pointer`, `scalar`), every tensor map's `cuTensorMapEncodeTiled` fields, NVSHMEM's symmetric
buffers, the global tensors behind pointer parameters (`views`), and the preconditions the kernel relies on. This module reads it and evaluates its expressions; it needs
neither the compiler nor a GPU.

Expressions use the record's grammar (tools/axe-mlir/src/launch.rs): integers, parameter names, `+`, `*`, `/`
(exact: a remainder is an error), `%`, `ceildiv(a, b)`, `min(a, b)`, `sm_count` (the SMs of the device the
launch runs on: a persistent kernel's grid is `min(tiles, sm_count)`), parentheses, and in a precondition one
comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`). A pointer parameter's value is its device address.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union


class LaunchError(ValueError):
    """An argument the kernel cannot be launched with: a violated precondition, a tensor whose shape, dtype,
    strides or alignment differs from what the kernel was compiled for, a missing or extra argument.

    Attributes: `kernel` (its name), `param` (the parameter, or None), `precondition` (the record's text of the
    violated precondition, or None), `message`."""

    __module__ = "axe"  # raised and printed as axe.LaunchError, where users catch it

    def __init__(self, kernel: str, message: str, param: Optional[str] = None, precondition: Optional[str] = None):
        where = f"{kernel}: " + (f"argument {param}: " if param else "")
        super().__init__(where + message)
        self.kernel = kernel
        self.param = param
        self.precondition = precondition
        self.message = message


#: The name of the device's SM count in the record's expressions (no parameter may take it).
SM_COUNT = "sm_count"

_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_]*)|(==|!=|<=|>=|<|>|[+*/%(),]))")
_COMPARE = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


class Expr:
    """One expression of the record, parsed once; `expr(env)` evaluates it over parameter values (Python ints,
    so nothing overflows). A comparison evaluates to a bool."""

    def __init__(self, text: str):
        self.text = text
        self._tokens = self._lex(text)
        self._at = 0
        self.names: set = set()
        tree = self._sum()
        if self._peek() in _COMPARE:
            op = self._next()
            tree = ("cmp", op, tree, self._sum())
        if self._at != len(self._tokens):
            raise ValueError(f"expression {text!r}: unexpected {self._tokens[self._at]!r}")
        self._tree = tree

    @staticmethod
    def _lex(text: str) -> List[Union[int, str]]:
        tokens: List[Union[int, str]] = []
        at = 0
        while at < len(text):
            if text[at:].strip() == "":
                break
            m = _TOKEN.match(text, at)
            if not m:
                raise ValueError(f"expression {text!r}: unexpected character {text[at:].lstrip()[:1]!r}")
            number, name, op = m.groups()
            tokens.append(int(number) if number is not None else ("$" + name if name is not None else op))
            at = m.end()
        return tokens

    def _peek(self):
        return self._tokens[self._at] if self._at < len(self._tokens) else None

    def _next(self):
        token = self._peek()
        if token is None:
            raise ValueError(f"expression {self.text!r}: ends early")
        self._at += 1
        return token

    def _expect(self, token: str):
        got = self._next()
        if got != token:
            raise ValueError(f"expression {self.text!r}: expected {token!r}, got {got!r}")

    def _sum(self):
        tree = self._product()
        while self._peek() == "+":
            self._next()
            tree = ("+", tree, self._product())
        return tree

    def _product(self):
        tree = self._atom()
        while self._peek() in ("*", "/", "%"):
            op = self._next()
            tree = (op, tree, self._atom())
        return tree

    def _atom(self):
        token = self._next()
        if isinstance(token, int):
            return ("int", token)
        if token == "(":
            tree = self._sum()
            self._expect(")")
            return tree
        if isinstance(token, str) and token.startswith("$"):
            name = token[1:]
            if name in ("ceildiv", "min"):
                self._expect("(")
                a = self._sum()
                self._expect(",")
                b = self._sum()
                self._expect(")")
                return (name, a, b)
            self.names.add(name)
            return ("name", name)
        raise ValueError(f"expression {self.text!r}: unexpected {token!r}")

    def __call__(self, env: Mapping[str, int]):
        return self._eval(self._tree, env)

    def _eval(self, tree, env):
        kind = tree[0]
        if kind == "int":
            return tree[1]
        if kind == "name":
            if tree[1] not in env:
                raise KeyError(tree[1])
            return int(env[tree[1]])
        if kind == "cmp":
            return _COMPARE[tree[1]](self._eval(tree[2], env), self._eval(tree[3], env))
        a, b = self._eval(tree[1], env), self._eval(tree[2], env)
        if kind == "min":
            return min(a, b)
        if kind == "+":
            return a + b
        if kind == "*":
            return a * b
        if b == 0:
            raise ZeroDivisionError(f"{self.text}: division by zero")
        if kind == "/":
            if a % b:
                raise ValueError(f"{self.text}: {a} / {b} is not exact")
            return a // b
        if kind == "%":
            return a % b
        return -(-a // b)  # ceildiv

    def __repr__(self):
        return f"Expr({self.text!r})"


@dataclass(frozen=True)
class Param:
    """One kernel parameter, in PTX order: `kind` is `tensor_map` (the device address of a 128-byte CUtensorMap
    the host encodes), `pointer` (a device address) or `scalar`; `ptx_type` is its PTX type (u32, u64, f32...)."""

    name: str
    ptx_name: str
    ptx_type: str
    kind: str


@dataclass(frozen=True)
class TensorMap:
    """One `cuTensorMapEncodeTiled` call: enums as the driver numbers them, arrays innermost dimension first,
    dims, strides and the address as expressions of the parameters."""

    param: str
    param_index: int
    global_address: Expr
    data_type: int
    data_type_name: str
    rank: int
    global_dims: Tuple[Expr, ...]
    global_strides_bytes: Tuple[Expr, ...]
    box_dims: Tuple[int, ...]
    element_strides: Tuple[int, ...]
    interleave: int
    swizzle: int
    l2_promotion: int
    oob_fill: int
    preconditions: Tuple[Expr, ...]


@dataclass(frozen=True)
class Symmetric:
    """A buffer every rank allocates on NVSHMEM's symmetric heap and passes as argument `arg` (`param`)."""

    arg: int
    param: str
    bytes: int
    local_shapes: Optional[Tuple[Tuple[int, ...], ...]]


@dataclass(frozen=True)
class View:
    """The global tensor behind pointer parameter `param`: row-major, densely packed, of `dtype` (MLIR's name:
    f16, bf16, f32, i32, ...) with extents `dims`, outermost first."""

    param: str
    param_index: int
    dtype: str
    dims: Tuple[Expr, ...]


@dataclass(frozen=True)
class KernelRecord:
    """One kernel's launch contract."""

    name: str
    grid: Optional[Tuple[Expr, Expr, Expr]]
    block: Tuple[int, int, int]
    dynamic_shared_bytes: int
    params: Tuple[Param, ...]
    tensor_maps: Tuple[TensorMap, ...]
    symmetric: Tuple[Symmetric, ...]
    preconditions: Tuple[Expr, ...]
    views: Tuple[View, ...] = ()
    cluster: Tuple[int, int, int] = (1, 1, 1)
    raw: Dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def grid_dims(self, env: Mapping[str, int]) -> Optional[Tuple[int, int, int]]:
        """The grid for these parameter values, or None when the record has none (the caller gives it)."""
        if self.grid is None:
            return None
        return tuple(int(g(env)) for g in self.grid)  # type: ignore[return-value]

    def reads_sm_count(self) -> bool:
        """Whether the grid depends on the device's SM count (a persistent kernel's)."""
        return self.grid is not None and any(SM_COUNT in g.names for g in self.grid)

    def violated(self, env: Mapping[str, int]) -> List[str]:
        """The text of every precondition these values violate (an expression that cannot be evaluated, e.g. an
        inexact division, counts as violated)."""
        bad = []
        for p in self.preconditions:
            try:
                ok = p(env)
            except (ValueError, ZeroDivisionError, KeyError):
                ok = False
            if not ok:
                bad.append(p.text)
        return bad


@dataclass(frozen=True)
class LaunchRecord:
    """The launch record of one compiled module: the chip and every kernel, in IR order."""

    chip: str
    kernels: Tuple[KernelRecord, ...]

    @staticmethod
    def parse(source: Union[str, bytes, Mapping[str, Any]]) -> "LaunchRecord":
        """Reads a record from its JSON text or the decoded dict; a malformed record raises ValueError."""
        data = json.loads(source) if isinstance(source, (str, bytes)) else source
        try:
            return LaunchRecord(str(data["chip"]), tuple(_kernel(k) for k in data["kernels"]))
        except (KeyError, TypeError, IndexError) as e:
            raise ValueError(f"malformed launch record: {e!r}") from None

    def kernel(self, name: Optional[str] = None) -> KernelRecord:
        if name is None:
            if len(self.kernels) != 1:
                names = ", ".join(k.name for k in self.kernels)
                raise KeyError(f"the module has {len(self.kernels)} kernels ({names}): name one")
            return self.kernels[0]
        for k in self.kernels:
            if k.name == name:
                return k
        raise KeyError(f"no kernel {name!r} (kernels: {', '.join(k.name for k in self.kernels)})")


def _exprs(texts: Sequence[Any]) -> Tuple[Expr, ...]:
    return tuple(Expr(str(t)) for t in texts)


def _kernel(k: Mapping[str, Any]) -> KernelRecord:
    grid = k.get("grid")
    cluster = k.get("cluster") or [1, 1, 1]
    return KernelRecord(
        name=str(k["name"]),
        grid=None if grid is None else _exprs(grid),  # type: ignore[arg-type]
        block=tuple(int(b) for b in k["block"]),  # type: ignore[arg-type]
        dynamic_shared_bytes=int(k["dynamic_shared_bytes"]),
        params=tuple(Param(str(p["name"]), str(p["ptx_name"]), str(p["ptx_type"]), str(p["kind"])) for p in k["params"]),
        tensor_maps=tuple(_tensor_map(m) for m in k["tensor_maps"]),
        symmetric=tuple(
            Symmetric(
                int(s["arg"]),
                str(s["param"]),
                int(s["bytes"]),
                None if s.get("local_shapes") is None else tuple(tuple(int(d) for d in x) for x in s["local_shapes"]),
            )
            for s in k.get("symmetric", [])
        ),
        preconditions=_exprs(k.get("preconditions", [])),
        views=tuple(
            View(str(v["param"]), int(v["param_index"]), str(v["dtype"]), _exprs(v["dims"])) for v in k.get("views", [])
        ),
        cluster=tuple(int(c) for c in cluster),  # type: ignore[arg-type]
        raw=dict(k),
    )


def _tensor_map(m: Mapping[str, Any]) -> TensorMap:
    return TensorMap(
        param=str(m["param"]),
        param_index=int(m["param_index"]),
        global_address=Expr(str(m["global_address"])),
        data_type=int(m["data_type"]),
        data_type_name=str(m["data_type_name"]),
        rank=int(m["rank"]),
        global_dims=_exprs(m["global_dims"]),
        global_strides_bytes=_exprs(m["global_strides_bytes"]),
        box_dims=tuple(int(b) for b in m["box_dims"]),
        element_strides=tuple(int(e) for e in m["element_strides"]),
        interleave=int(m["interleave"]),
        swizzle=int(m["swizzle"]),
        l2_promotion=int(m["l2_promotion"]),
        oob_fill=int(m["oob_fill"]),
        preconditions=_exprs(m.get("preconditions", [])),
    )
