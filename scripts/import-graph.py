#!/usr/bin/env python3
"""The import graph of a Rust crate's top-level modules, and its cycles.

usage: scripts/import-graph.py CRATE_SRC_DIR      (e.g. passes/src)

Each file's module is its first path component under the directory (`lower_tma/emit.rs` is `lower_tma`); an edge
`a -> b` is a `crate::b` path in a's code (comments and `#[cfg(test)] mod tests` blocks excluded). Prints one line
per module, then `cycles: none` or the strongly connected components of more than one module. The passes crate
is layered (ARCHITECTURE.md, passes/): test/Tools/passes-import-graph.test keeps it free of cycles.
"""

import pathlib
import re
import sys


def graph(root: pathlib.Path):
    modules = {}
    for path in sorted(root.rglob("*.rs")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        top = parts[0] if parts and parts[0] not in ("lib", "mod") else "lib"
        text = "\n".join(line.split("//")[0] for line in path.read_text().splitlines())
        cut = re.search(r"#\[cfg\(test\)\]\s*mod \w+\s*\{", text)
        if cut:
            text = text[: cut.start()]
        uses = set(re.findall(r"crate::(\w+)", text))
        for group in re.findall(r"use crate::\{([^;]*)\}", text, re.S):
            uses.update(re.findall(r"(?:^|[,{\s])(\w+)(?:::|\s*[,}]|\s*$)", group))
        modules.setdefault(top, set()).update(u for u in uses if u != top)
    names = set(modules)
    return {m: sorted(u for u in uses if u in names) for m, uses in modules.items()}


def cycles(edges):
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    edges = graph(pathlib.Path(sys.argv[1]))
    for module in sorted(edges):
        print(f"{module} -> {', '.join(edges[module])}")
    found = cycles(edges)
    print("cycles: " + ("none" if not found else "; ".join(" <-> ".join(c) for c in found)))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
