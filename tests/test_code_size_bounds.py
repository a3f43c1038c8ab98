"""Size bounds of the code (issue 31): no function in ``returnn/`` longer than 80 lines, no module longer than 650."""

from __future__ import annotations

import ast
import pathlib

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "returnn"
MAX_FUNCTION_LINES = 80
MAX_MODULE_LINES = 650


def long_functions(source: str, limit: int):
    """:return: [(name, first line, number of lines)] of the functions (methods, nested ones) over ``limit`` lines"""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines = node.end_lineno - node.lineno + 1
            if lines > limit:
                out.append((node.name, node.lineno, lines))
    return out


def test_the_scan_finds_a_long_function():
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    assert long_functions(f"def f():\n{body}\n", MAX_FUNCTION_LINES) == [("f", 1, MAX_FUNCTION_LINES + 1)]
    assert long_functions("def g():\n    pass\n", MAX_FUNCTION_LINES) == []


def test_no_function_over_80_lines():
    found = [f"{path.relative_to(PACKAGE.parent)}:{line} {name} ({n} lines)"
             for path in sorted(PACKAGE.rglob("*.py"))
             for name, line, n in long_functions(path.read_text(encoding="utf-8"), MAX_FUNCTION_LINES)]
    assert found == []


def test_no_module_over_650_lines():
    found = [f"{path.relative_to(PACKAGE.parent)} ({n} lines)" for path in sorted(PACKAGE.rglob("*.py"))
             if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES]
    assert found == []
