"""The layout keeps its promises: the library never reaches into the lessons or the UI.

``botie.context``, ``botie.actions``, ``botie.model``, ``botie.turn`` and the
shared modules are the library. ``botie.lessons`` (teaching machinery) and
``botie.ui`` (widgets and figures) may import the library; an arrow the other
way fails here, naming the file and the line. Imports inside functions count
too: a late import is still a dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "botie"
LIBRARY_PARTS = ("context", "actions")
LIBRARY_FILES = ("model.py", "turn.py", "errors.py", "_checks.py", "_enum.py")
FORBIDDEN = ("botie.lessons", "botie.ui")
HEAVY = ("ipywidgets", "matplotlib", "IPython", "numpy", "nbformat", "nbclient", "jupyter")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def library_files() -> list[Path]:
    files = [PACKAGE / name for name in LIBRARY_FILES]
    for part in LIBRARY_PARTS:
        files += sorted((PACKAGE / part).rglob("*.py"))
    return files


def imports_of(path: Path) -> list[tuple[int, str]]:
    """Every module ``path`` imports, absolute, with its line number (relative imports resolved)."""
    here = _module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join([*base, node.module] if node.module else base)
            found.append((node.lineno, target))
            # "from botie import ui" names a submodule in the alias
            found += [(node.lineno, f"{target}.{alias.name}") for alias in node.names]
    return found


def wrong_way(path: Path) -> list[str]:
    return [
        f"{path.relative_to(PACKAGE.parent)}:{line} imports {target}"
        for line, target in imports_of(path)
        if target.startswith(FORBIDDEN) or target.split(".")[0] in HEAVY
    ]


def test_the_library_is_where_the_layout_says():
    names = {_module_name(p) for p in library_files()}
    assert {"botie.context.selection", "botie.context.provenance.select", "botie.actions.decision",
            "botie.actions.stores.sqlite", "botie.turn", "botie.model"} <= names


@pytest.mark.parametrize("path", library_files(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_library_module_imports_the_lessons_the_ui_or_anything_heavy(path):
    assert wrong_way(path) == []


def test_the_import_walker_sees_an_arrow_the_wrong_way(tmp_path, monkeypatch):
    """Guard the guard: a planted late import of the lessons, relative or absolute, is caught."""
    fake = tmp_path / "botie"
    (fake / "context").mkdir(parents=True)
    planted = fake / "context" / "planted.py"
    planted.write_text(
        "from botie.context.records import Record\n"
        "def f():\n"
        "    from ..lessons.scripted import ScriptedModel\n"
        "    from botie import ui\n"
        "    import matplotlib.pyplot\n"
    )
    monkeypatch.setitem(globals(), "PACKAGE", fake)
    assert wrong_way(planted) == [
        "botie/context/planted.py:3 imports botie.lessons.scripted",
        "botie/context/planted.py:3 imports botie.lessons.scripted.ScriptedModel",
        "botie/context/planted.py:4 imports botie.ui",
        "botie/context/planted.py:5 imports matplotlib.pyplot",
    ]


def test_run_turn_takes_any_model_and_its_module_never_names_the_scripted_one():
    source = (PACKAGE / "turn.py").read_text(encoding="utf-8")
    assert "ScriptedModel" not in source and "scripted" not in source


def test_every_library_function_is_short_enough_to_read():
    """Teaching code: no function in the library runs past about 40 lines (docstring excluded)."""
    long = []
    for path in library_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                body = node.body[1:] if ast.get_docstring(node) is not None else node.body
                if not body:
                    continue
                length = node.end_lineno - body[0].lineno + 1
                if length > 40:
                    long.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name} ({length} lines)")
    assert long == []
