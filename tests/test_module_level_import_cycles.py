"""The module-level import graph of returnn has no cycle: every import that can form one is inside a function
(a family import of a registry, a sub-network built by a layer), so import order never matters. Imports inside
functions are left out here; .importlinter declares the ones that cross its layers."""

from __future__ import annotations

import pathlib
import sys

import grimp

import returnn

ROOT = pathlib.Path(returnn.__file__).parent.parent


def _module_level_edges(graph):
    lines_of = {}

    def at_module_level(detail) -> bool:
        mod = detail["importer"]
        if mod not in lines_of:
            path = ROOT.joinpath(*mod.split("."))
            path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
            lines_of[mod] = path.read_text().split("\n")
        line = lines_of[mod][detail["line_number"] - 1]
        return not line[:1].isspace()

    edges = {}
    for mod in graph.modules:
        edges[mod] = {imported for imported in graph.find_modules_directly_imported_by(mod)
                      if any(at_module_level(d) for d in graph.get_import_details(importer=mod, imported=imported))}
    return edges


def _cycles(edges):
    """Strongly connected components with more than one module (Tarjan)."""
    sys.setrecursionlimit(max(10000, sys.getrecursionlimit()))
    index, low, stack, on_stack, result = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                result.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return result


def test_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_level_import_cycle():
    graph = grimp.build_graph("returnn", cache_dir=None)
    cycles = _cycles(_module_level_edges(graph))
    assert not cycles, "modules in a module-level import cycle:\n" + "\n".join(", ".join(c) for c in cycles)
