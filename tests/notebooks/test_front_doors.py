"""Learners import from two front doors only: ``botie`` (the library) and ``botie.lessons`` (the workshop).

Every code cell of every notebook, both editions, is parsed; an import of any deeper module fails, naming the
notebook, the cell and the module. Each name imported must be one the front door exports.
"""

from __future__ import annotations

import ast
from pathlib import Path

import nbformat
import pytest

import botie
import botie.lessons

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted(ROOT.glob("notebooks/*.ipynb")) + sorted(ROOT.glob("notebooks/instructor/*.ipynb"))
DOORS = {"botie": set(botie.__all__), "botie.lessons": set(botie.lessons.__all__)}


def deep_imports(source: str) -> list[str]:
    """What a cell imports from botie other than the two front doors' public names."""
    code = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())
    found = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.startswith("botie") and a.name not in DOORS]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("botie"):
            module = node.module or ""
            if module not in DOORS:
                found.append(module)
            else:
                found += [f"{module}.{a.name}" for a in node.names if a.name not in DOORS[module]]
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_notebook_imports_only_from_the_two_front_doors(path):
    nb = nbformat.read(path, as_version=4)
    wrong = [
        f"cell {cell.get('id', i)}: {name}"
        for i, cell in enumerate(nb.cells)
        if cell.cell_type == "code"
        for name in deep_imports(cell.source)
    ]
    assert wrong == []


def test_the_guard_catches_a_deeper_module_a_name_not_exported_and_a_plain_import():
    assert deep_imports("from botie.context.evidence import new_fence") == ["botie.context.evidence"]
    assert deep_imports("from botie.lessons import no_such_name") == ["botie.lessons.no_such_name"]
    assert deep_imports("import botie.lessons.ui.predict") == ["botie.lessons.ui.predict"]
    assert deep_imports("def f():\n    from botie.turn import run_turn") == ["botie.turn"]
    assert deep_imports("%matplotlib inline\nfrom botie import Budget\nfrom botie.lessons import check") == []
