"""The type stub describes the module as built: every public name of the module and of Layout is in
axe_layout.pyi and nothing else is, and the installed package carries the stub and py.typed."""

import ast
from pathlib import Path

import axe_layout

STUB = Path(__file__).resolve().parents[1] / "axe_layout.pyi"


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
    # `axe_layout.axe_layout` is the native submodule that the package's __init__ re-exports.
    module = {n for n in dir(axe_layout) if not n.startswith("_") and n != "axe_layout"}
    assert top == module | {"__version__"}
    public = {n for n in dir(axe_layout.Layout) if not n.startswith("_")} | {"_repr_html_"}
    assert {n for n in layout if not n.startswith("__")} == public


def test_installed_package_is_typed():
    package = Path(axe_layout.__file__).parent
    assert (package / "py.typed").exists()
    assert (package / "__init__.pyi").read_text() == STUB.read_text()
