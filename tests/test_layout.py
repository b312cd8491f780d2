"""The layout keeps its promises, checked over every module of ``botie/``.

* The library (``botie/__init__.py``, ``context/``, ``actions/``, ``model.py``, ``turn/`` and the
  shared modules) never imports the lessons, the UI or anything heavy.
* The library's two halves stay independent: ``context`` never imports ``actions``, nor the reverse.
* The lesson machinery never imports the UI (the panels render what the lessons compute, not the
  other way round).
* No import cycle anywhere in ``botie/``.

The three direction rules are import-linter contracts in pyproject.toml (``[tool.importlinter]``),
run here with ``lint-imports``: direct imports, late ones and ``if TYPE_CHECKING:`` ones included
(a type-only arrow the wrong way is still wrong). The cycle rule stays written here, over modules,
because it leaves type-only imports out (they never run) and import-linter's one cycle contract,
``acyclic_siblings``, judges whole packages. Each rule fails on a planted import.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "botie"
LIBRARY_PARTS = ("context", "actions", "turn")
LIBRARY_FILES = ("__init__.py", "model.py", "errors.py", "_checks.py", "_enum.py", "_lazy.py")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def library_files() -> list[Path]:
    files = [PACKAGE / name for name in LIBRARY_FILES]
    for part in LIBRARY_PARTS:
        files += sorted((PACKAGE / part).rglob("*.py"))
    return files


def all_files() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _type_checking_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def imports_of(path: Path, *, runtime_only: bool = False) -> list[tuple[int, str]]:
    """Every module ``path`` imports, absolute, with its line number (relative imports resolved)."""
    here = _module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_checking_lines(tree) if runtime_only else set()
    found = []
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join([*base, node.module] if node.module else base)
            found.append((node.lineno, target))
            # "from botie import ui" names a submodule in the alias
            found += [(node.lineno, f"{target}.{alias.name}") for alias in node.names]
    return found


def import_graph(files: list[Path]) -> dict[str, set[str]]:
    """Module -> the botie modules it imports when it runs (a name imported from a module counts as the module)."""
    modules = {_module_name(p): p for p in files}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for _line, target in imports_of(path, runtime_only=True):
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                graph[name].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each strongly connected group of more than one module (Tarjan), sorted, so a cycle reads as its members."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


# --- the rules, over the real package --------------------------------------------------------


def test_the_library_is_where_the_layout_says():
    names = {_module_name(p) for p in library_files()}
    assert {
        "botie",
        "botie.context.selection",
        "botie.context.provenance.select",
        "botie.actions.decision",
        "botie.actions.stores.sqlite",
        "botie.turn",
        "botie.model",
    } <= names


def test_the_import_linter_contracts_hold():
    """pyproject's [tool.importlinter] contracts (the direction rules above, as import-linter states them)."""
    root = PACKAGE.parent
    lint = Path(sys.executable).with_name("lint-imports")
    found = subprocess.run(
        [str(lint), "--config", str(root / "pyproject.toml")], cwd=root, capture_output=True, text=True
    )
    assert found.returncode == 0, found.stdout[-3000:]


def test_there_is_no_import_cycle_in_the_package():
    assert cycles(import_graph(all_files())) == []


def test_the_lesson_machinery_never_ships_the_maintainer_tools():
    """The lock writer and the hub driver are for make targets and tests, outside the package."""
    assert not (PACKAGE / "lessons" / "lockfile.py").exists()
    assert [p for p in all_files() if p.name in ("lockfile.py", "hub_driver.py")] == []


def test_run_turn_takes_any_model_and_its_module_never_names_the_scripted_one():
    for path in sorted((PACKAGE / "turn").rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        assert "ScriptedModel" not in source and "scripted" not in source, path.name


def test_every_library_function_is_short_enough_to_read():
    """Teaching code: no function in the library runs past about 40 lines (docstring excluded)."""
    long = []
    for path in library_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                body = node.body[1:] if ast.get_docstring(node) is not None else node.body
                if not body:
                    continue
                length = (node.end_lineno or 0) - body[0].lineno + 1
                if length > 40:
                    long.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name} ({length} lines)")
    assert long == []


# --- guard the guards: each rule fails on a planted import -------------------------------------


@pytest.fixture
def fake(tmp_path, monkeypatch):
    root = tmp_path / "botie"
    for part in ("context", "actions", "lessons", "lessons/ui"):
        (root / part).mkdir(parents=True)
        (root / part / "__init__.py").write_text("")
    (root / "__init__.py").write_text("")
    monkeypatch.setitem(globals(), "PACKAGE", root)
    monkeypatch.setitem(globals(), "LIBRARY_FILES", ("__init__.py",))
    return root


def _plant(root: Path, where: str, source: str) -> Path:
    path = root / where
    path.write_text(source)
    return path


def test_an_import_cycle_is_caught_even_through_a_late_import_but_not_a_type_only_one(fake):
    _plant(fake, "lessons/a.py", "from botie.lessons.b import thing\n")
    _plant(fake, "lessons/b.py", "def thing():\n    from botie.lessons import c\n")
    _plant(fake, "lessons/c.py", "from botie.lessons.a import other\n")
    type_only = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from botie.lessons.e import E\n"
    _plant(fake, "lessons/d.py", type_only)
    _plant(fake, "lessons/e.py", "from botie.lessons.d import D\n")
    assert cycles(import_graph(all_files())) == [["botie.lessons.a", "botie.lessons.b", "botie.lessons.c"]]


# --- guard the import-linter contracts: each is broken by a planted import in a fake botie ----------------

FAKE_PACKAGES = (
    "context",
    "actions",
    "turn",
    *(f"lessons/{p}" for p in ("content", "exercises", "learner", "room", "tooling", "ui")),
)
FAKE_MODULES = ("model.py", "errors.py", "_checks.py", "_enum.py", "_lazy.py")


def _lint_fake(tmp_path: Path, where: str, source: str) -> str:
    """Run pyproject's contracts over a fake botie on ``tmp_path`` with one planted module; return the report."""
    root = tmp_path / "botie"
    for part in ("", "lessons", *FAKE_PACKAGES):
        (root / part).mkdir(parents=True, exist_ok=True)
        (root / part / "__init__.py").write_text("")
    for name in FAKE_MODULES:
        (root / name).write_text("")
    (root / where).write_text(source)
    (tmp_path / "pyproject.toml").write_text((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))
    lint = Path(sys.executable).with_name("lint-imports")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    found = subprocess.run([str(lint)], cwd=tmp_path, capture_output=True, text=True, env=env)
    return found.stdout + found.stderr


@pytest.mark.parametrize(
    ("where", "source", "broken"),
    [
        ("context/planted.py", "def f():\n    import botie.lessons.content\n", "the library never imports"),
        ("turn/planted.py", "import matplotlib\n", "the library never imports"),
        ("context/planted.py", "import botie.actions\n", "independent halves"),
        ("actions/planted.py", "from botie.context import planted\n", "independent halves"),
        ("lessons/learner/planted.py", "from botie.lessons.ui import panel\n", "the UI renders"),
        (
            "__init__.py",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from botie.lessons.learner import progress\n",
            "front door never imports",
        ),
    ],
)
def test_each_import_linter_contract_is_broken_by_a_planted_import(tmp_path, where, source, broken):
    report = _lint_fake(tmp_path, where, source)
    assert re.search(rf"{re.escape(broken)}[^\n]* BROKEN", report), report[-2000:]
    assert "KEPT" in report  # the others were still judged: the fake was read, not refused


def test_the_fake_botie_alone_keeps_every_contract(tmp_path):
    report = _lint_fake(tmp_path, "lessons/ui/planted.py", "from botie.lessons.exercises import x\n")
    assert "BROKEN" not in report and report.count("KEPT") == 4, report[-2000:]
