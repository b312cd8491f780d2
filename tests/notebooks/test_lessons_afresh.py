"""The lessons' printed numbers, computed afresh from botie, without nbval and without a kernel.

tests/notebooks/test_notebooks.py and tests/notebooks/test_lessons_evidence.py read the outputs stored in the
committed notebooks. A change in botie that alters a lesson's numbers leaves those stored outputs
as they were, so only nbval would notice. Here each instructor notebook's code runs again in this
process (widget panels are built too, as later cells read them), and every lesson-check cell's
fresh text must equal its stored text: `make test-fast` and a plain `pytest tests` fail at once.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
# Named, not globbed: a missing notebook is a failure, never an empty parameter set.
LESSONS = (
    "00_welcome",
    "01_which_records",
    "02a_relevance",
    "02b_provenance",
    "03_count_then_route",
    "05_suggestion_to_action",
    "06_one_turn_end_to_end",
)
# The same rewrites as tests/nbval_sanitize.cfg: output that cannot be stable, never lesson numbers.
SANITIZE = [
    (re.compile(r"0x[0-9a-fA-F]{6,}"), "0xADDRESS"),
    (re.compile(r"<Figure size [0-9.]+x[0-9.]+ with [0-9]+ Axes>"), "<Figure>"),
]


def sanitize(text: str) -> str:
    for pattern, replacement in SANITIZE:
        text = pattern.sub(replacement, text)
    return text


def stored_text(cell) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream" and o.get("name") == "stdout")


def is_check(cell) -> bool:
    return cell.cell_type == "code" and "lesson-check" in cell.metadata.get("tags", [])


def rerun(nb) -> list[tuple[str, str, str]]:
    """Run the code cells in order in one namespace; return (source, stored, fresh) for each lesson check."""
    namespace: dict = {"__name__": "__lesson__", "display": lambda *args, **kwargs: None}
    found = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            run_cell(cell.source, namespace)
        if is_check(cell):
            found.append((cell.source, stored_text(cell), out.getvalue()))
    return found


def run_cell(source: str, namespace: dict) -> None:
    """Like a kernel: run the statements, and echo the value of a final bare expression unless it is None."""
    tree = ast.parse(source)
    last = tree.body[-1] if tree.body else None
    if isinstance(last, ast.Expr):
        tree.body.pop()  # run the statements before it, then echo its value
    else:
        last = None
    exec(compile(tree, "<lesson cell>", "exec"), namespace)
    if last is not None:
        value = eval(compile(ast.Expression(last.value), "<lesson cell>", "eval"), namespace)
        if value is not None:
            print(repr(value))


@pytest.fixture(scope="module")
def reruns():
    import matplotlib

    matplotlib.use("Agg")
    cache: dict[str, list] = {}

    def get(lesson: str):
        if lesson not in cache:
            path = ROOT / "notebooks" / "instructor" / f"{lesson}.ipynb"
            assert path.exists(), f"{path} is missing"
            cache[lesson] = rerun(nbformat.read(path, as_version=4))
        return cache[lesson]

    return get


@pytest.mark.parametrize("lesson", LESSONS)
def test_every_lesson_check_prints_the_same_text_when_computed_afresh(lesson, reruns):
    checks = reruns(lesson)
    assert checks, f"{lesson} has no lesson-check cells"
    for source, stored, fresh in checks:
        assert sanitize(fresh) == sanitize(stored), f"lesson check changed:\n{source}"
