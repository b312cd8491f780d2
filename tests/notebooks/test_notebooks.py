"""The committed notebooks: executed, lesson checks stored, the seeds' worked examples printed exactly.

nbval (``make test``) re-runs every notebook and compares outputs; it passes a
cell that has no stored output, so these tests make sure the outputs that
matter are there to compare.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
LEARNER = sorted((ROOT / "notebooks").glob("*.ipynb"))
INSTRUCTOR = sorted((ROOT / "notebooks" / "instructor").glob("*.ipynb"))
ALL = LEARNER + INSTRUCTOR
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def _id(path: Path) -> str:
    return str(path.relative_to(ROOT / "notebooks"))


def read(path: Path):
    return nbformat.read(path, as_version=4)


def code_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code"]


def stream_text(cell) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def lesson_check_text(path: Path) -> str:
    nb = read(path)
    return "\n".join(stream_text(c) for c in code_cells(nb) if "lesson-check" in c.metadata.get("tags", []))


def test_there_are_notebooks_in_both_editions():
    names = {p.name for p in LEARNER}
    assert {"00_welcome.ipynb", "01_which_records.ipynb", "05a_suggestion_to_action.ipynb"} <= names
    assert names == {p.name for p in INSTRUCTOR}


@pytest.mark.parametrize("path", ALL, ids=_id)
def test_every_lesson_check_cell_has_stored_text_output(path):
    checks = [c for c in code_cells(read(path)) if "lesson-check" in c.metadata.get("tags", [])]
    assert checks, f"{_id(path)} has no lesson-check cells"
    for cell in checks:
        assert cell.outputs, f"lesson-check cell without stored output:\n{cell.source}"
        assert stream_text(cell).strip(), f"lesson-check cell prints no text:\n{cell.source}"
        assert not cell.source.startswith("# NBVAL_IGNORE_OUTPUT"), "a lesson check must be compared"


@pytest.mark.parametrize("path", ALL, ids=_id)
def test_committed_executed_with_no_errors(path):
    for cell in code_cells(read(path)):
        # A learner-edition hint cell is stored unrun, as nbval skips it: it runs when the learner asks.
        # A machine-dependent cell (lesson 00's pre-flight table) runs but stores nothing of this machine.
        tags = cell.metadata.get("tags", [])
        unrun = "nbval-skip" in tags or "machine-dependent" in tags
        assert (cell.execution_count is None) == unrun, f"executed {unrun=}:\n{cell.source}"
        kinds = {o.output_type for o in cell.outputs}
        assert "error" not in kinds, f"stored error in:\n{cell.source}"
        assert "Traceback" not in stream_text(cell)
        for out in cell.outputs:
            assert out.get("name") != "stderr", f"stderr in:\n{cell.source}\n{out.get('text')}"


def ignored_by_nbval(cell) -> bool:
    """The instructor edition marks a cell with a comment; the learner edition with the equivalent tag."""
    return cell.source.startswith("# NBVAL_IGNORE_OUTPUT") or "nbval-ignore-output" in cell.metadata.get("tags", [])


@pytest.mark.parametrize("path", ALL, ids=_id)
def test_only_widget_cells_are_ignored_and_all_widget_cells_are(path):
    for cell in code_cells(read(path)):
        shows_widget = any(WIDGET_MIME in o.get("data", {}) for o in cell.outputs)
        ignored = ignored_by_nbval(cell)
        if shows_widget:
            assert ignored, f"widget output not marked # NBVAL_IGNORE_OUTPUT:\n{cell.source}"
        if ignored and not shows_widget:
            # Anything else nbval may not compare must say why, in a comment at the top of the cell.
            lines = [line for line in cell.source.splitlines() if not line.startswith("# NBVAL_IGNORE_OUTPUT")]
            assert lines and lines[0].startswith("#"), f"ignored without a reason:\n{cell.source}"


@pytest.mark.parametrize("path", LEARNER, ids=_id)
def test_the_learner_edition_shows_no_test_machinery(path):
    """Learners read lessons, not our test harness: no nbval markers, no talk of tags or the test suite."""
    for cell in read(path).cells:
        assert "NBVAL" not in cell.source, cell.source
        if cell.cell_type == "markdown":
            for word in ("test suite", "nbval", "lesson-check"):
                assert word not in cell.source, (word, cell.source)


@pytest.mark.parametrize("path", LEARNER, ids=_id)
def test_no_hint_is_stored_before_the_learner_asks(path):
    """A cell that calls hint(...) has no stored output, and no stored output goes beyond the first hint."""
    for cell in code_cells(read(path)):
        text = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
        if re.search(r"^\s*hint\(", cell.source, flags=re.M):
            assert not cell.outputs, cell.source
        assert not re.search(r"Hint [2-9] of", text), (cell.source, text)


@pytest.mark.parametrize("name", sorted(p.name for p in INSTRUCTOR))
def test_worked_examples_print_the_same_in_both_editions(name):
    """Lesson checks never depend on an exercise solution."""
    assert lesson_check_text(ROOT / "notebooks" / name) == lesson_check_text(ROOT / "notebooks/instructor" / name)


# The seeds' worked examples, with their exact numbers.
SEED_EXAMPLES = {
    "01_which_records.ipynb": [
        "evidence allowance: 20 − 8 − 4 = 8 tokens",
        "refused: the reserves (8 input + 4 output = 12) exceed the total of 10 by 2 tokens",
        "selected: ['first'] - 1 source, used 6",
        "second: 6 + 5 = 11 exceeds the 8-token allowance; stopped here",
        "[0]\n3\n",
        "prefix kept [0], used 3; left out [1, 2], of which ranked above a kept one: []\n"
        "skip   kept [0, 2], used 5; left out [1], of which ranked above a kept one: [1]",
        "tkt-5521        selected        5 + 3 = 8 fills the 8-token allowance exactly",
    ],
    "05a_suggestion_to_action.ipynb": [
        "True\nFalse\nFalse\nFalse\n",
        "r7, first time:     branch: create -> job-1",
        "r7, same payload:   branch: reuse -> job-1",
        "r7, 30 minutes now: branch: conflict -> None",
        "branch: denied | receipt: None",
    ],
    "05b_retries.ipynb": [
        "jobs booked for r7: 4",  # the naive check-then-create, four workers
        "jobs booked for r7: 1",  # the SQLite store
    ],
}


@pytest.mark.parametrize(("name", "expected"), [(n, e) for n, exp in SEED_EXAMPLES.items() for e in exp])
@pytest.mark.parametrize("edition", ["notebooks", "notebooks/instructor"])
def test_seed_worked_examples_are_lesson_checks(edition, name, expected):
    path = ROOT / edition / name
    if not path.exists():
        pytest.fail(f"{edition}/{name} is missing")
    assert expected in lesson_check_text(path)


def test_every_next_link_names_the_next_lesson_by_its_own_title():
    import re

    titles = {}
    for path in LEARNER:
        first = next(c for c in read(path).cells if c.cell_type == "markdown" and c.source.startswith("# "))
        titles[path.name.split("_")[0]] = first.source.splitlines()[0][2:].strip()
    for path in LEARNER:
        text = "\n".join(c.source for c in read(path).cells if c.cell_type == "markdown")
        for number, title in re.findall(r"Next: \*\*(\d\d[a-z]?) · ([^*]+)\*\*", text):
            assert f"{number} · {title}" == titles[number], f"{path.name} links to {number} · {title}"


@pytest.mark.parametrize("path", ALL, ids=_id)
def test_every_lesson_ends_by_showing_the_learners_progress(path):
    """Just before the closing summary: a 'Where you stand' cell, then show_progress() with its table stored,
    listing this lesson's own exercises as checked and every other lesson's as not started. Homework comes
    before 'Where you stand', so the table lists its exercise too."""
    from botie.lessons.learner.progress import PLACES

    cells = read(path).cells
    heading, shown, last = cells[-3:]
    assert heading.cell_type == "markdown" and heading.source.startswith("## Where you stand")
    assert "reset_exercise(" in heading.source
    assert shown.cell_type == "code" and "show_progress()" in shown.source
    assert last.cell_type == "markdown"
    table = stream_text(shown)
    lesson = path.name.split("_")[0]
    for name, (where, number) in PLACES.items():
        row = re.search(rf"^{where}\s+{number}\. {name}\s+(-|passed\*?|not yet)\s+(\d+)\s+(\d+)$", table, re.M)
        assert row, f"{_id(path)}: no row for {name}"
        tried = row.group(1) != "-"
        assert tried == (where == lesson), f"{_id(path)}: {name} shows {row.group(1)!r}"
    # The instructor's solutions pass and the learner edition's stubs are not yet. Lesson 00 then checks a
    # wrong function of its own with record=False, so no star: that try was not the learner's.
    expected = "not yet " if path in LEARNER else "passed "
    for name in (name for name, (where, _) in PLACES.items() if where == lesson):
        assert re.search(rf"{name}\s+{re.escape(expected)}", table), f"{_id(path)}: {name} is not {expected!r}"
    assert re.search(r"Predict-then-run: 0 of \d+ questions answered", table)


def test_lesson_00_explains_the_progress_table_and_the_reset():
    (welcome,) = [p for p in LEARNER if p.name.startswith("00")]
    text = read(welcome).cells[-3].source
    for words in (
        "botie-progress.json",
        "Working on your own machine, it stays there",
        "never next to your name",
        "Every lesson ends with this table",
        "File > Reload Notebook from Disk",
        'reset_exercise("01", 2)',
    ):
        assert words in text
