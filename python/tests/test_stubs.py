"""The type stub describes the native module as built: every public name of axe._native and of Layout is in
axe/_native.pyi and nothing else is, the package carries the stub and py.typed, and the package re-exports the
layout names."""

import ast
from pathlib import Path

import axe
from axe import _native

STUB = Path(__file__).resolve().parents[1] / "axe" / "_native.pyi"


def stub_names():
    tree = ast.parse(STUB.read_text())
    top, layout = set(), set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            top.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            top.add(node.target.id)
        if isinstance(node, ast.ClassDef) and node.name == "Layout":
            layout = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
    return top, layout


def test_stub_matches_the_module():
    top, layout = stub_names()
    module = {n for n in dir(_native) if not n.startswith("__")}
    assert {n for n in top if not n.startswith("__")} == module
    public = {n for n in dir(_native.Layout) if not n.startswith("_")} | {"_repr_html_"}
    assert {n for n in layout if not n.startswith("__")} == public


def test_the_package_reexports_the_layout_names():
    for name in dir(_native):
        if not name.startswith("_"):
            assert getattr(axe, name) is getattr(_native, name), name


def test_installed_package_is_typed():
    package = Path(axe.__file__).parent
    assert (package / "py.typed").exists()
    assert (package / "_native.pyi").read_text() == STUB.read_text()
