"""Resetting one exercise restores exactly that cell from the shipped learner edition; all other work stays."""

from __future__ import annotations

import shutil
import subprocess

import nbformat
import pytest

from botie.lessons.learner.reset import exercise_cells, reset_exercise, restore_exercise
from botie.lessons.tooling.editions import STUB
from tests.notebooks.test_notebooks import ROOT

SHIPPED = ROOT / "notebooks" / "01_which_records.ipynb"


def _do_work(path):
    """Write answers in both exercise cells and a note in a markdown cell, as a learner would, and save."""
    nb = nbformat.read(path, as_version=4)
    first, second = exercise_cells(nb)
    first.source = (
        "def permitted(records, allowed_assets):\n    return [r for r in records if r.asset in allowed_assets]"
    )
    second.source = "def choose_evidence(records, allowed_assets, allowance):\n    return []  # my attempt"
    second.outputs = [nbformat.v4.new_output("stream", name="stdout", text="my output\n")]
    second.execution_count = 7
    note = next(c for c in nb.cells if c.cell_type == "markdown")
    note.source += "\n\nMy note: permission comes first."
    nbformat.write(nb, path)
    return first.id, second.id


@pytest.fixture
def workbook(tmp_path):
    shutil.copy(SHIPPED, tmp_path / SHIPPED.name)
    ids = _do_work(tmp_path / SHIPPED.name)
    return tmp_path, ids


def test_reset_restores_only_the_chosen_exercise(workbook):
    folder, (first_id, second_id) = workbook
    before = nbformat.read(folder / SHIPPED.name, as_version=4)
    result = restore_exercise("01", 2, folder=folder, shipped=SHIPPED)
    assert result.done and result.cell_id == second_id
    after = nbformat.read(folder / SHIPPED.name, as_version=4)
    shipped = nbformat.read(SHIPPED, as_version=4)
    by_id = {c.id: c for c in after.cells}
    assert by_id[second_id].source == next(c.source for c in shipped.cells if c.id == second_id)
    assert STUB in by_id[second_id].source and by_id[second_id].outputs == []
    assert by_id[second_id].execution_count is None
    # every other cell is exactly what the learner saved, work included
    for old, new in zip(before.cells, after.cells):
        if old.id != second_id:
            assert old == new
    assert "return [r for r in records" in by_id[first_id].source
    assert any("My note" in c.source for c in after.cells)


def test_reset_reads_the_shipped_copy_from_git(workbook):
    folder, (first_id, _) = workbook
    shutil.copy(SHIPPED, folder / "shipped.ipynb")
    git = ["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q"], check=True)
    # commit the shipped edition under the lesson's name, then put the learner's work back on top
    (folder / SHIPPED.name).rename(folder / "work.ipynb")
    (folder / "shipped.ipynb").rename(folder / SHIPPED.name)
    subprocess.run([*git, "add", SHIPPED.name], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "shipped"], check=True)
    (folder / "work.ipynb").replace(folder / SHIPPED.name)
    result = restore_exercise("01", 1, folder=folder)
    assert result.done and result.cell_id == first_id
    cell = next(c for c in nbformat.read(folder / SHIPPED.name, as_version=4).cells if c.id == first_id)
    assert STUB in cell.source


def test_a_wrong_number_or_lesson_changes_nothing_and_says_why(workbook, capsys):
    folder, _ = workbook
    before = (folder / SHIPPED.name).read_bytes()
    reset_exercise("01", 3, folder=folder, shipped=SHIPPED)
    reset_exercise("07", 1, folder=folder, shipped=SHIPPED)
    out = capsys.readouterr().out
    assert "exercises 1 to 2; there is no exercise 3" in out
    assert "no single notebook for lesson '07'" in out
    assert (folder / SHIPPED.name).read_bytes() == before


def test_without_git_or_a_shipped_copy_the_learner_is_told_plainly(workbook, capsys):
    folder, _ = workbook
    reset_exercise("01", 1, folder=folder)
    out = capsys.readouterr().out
    assert "Could not find the shipped copy" in out and "Traceback" not in out


def test_a_deleted_exercise_cell_gets_its_starting_code_printed(workbook, capsys):
    folder, (first_id, _) = workbook
    path = folder / SHIPPED.name
    nb = nbformat.read(path, as_version=4)
    nb.cells = [c for c in nb.cells if c.id != first_id]
    nbformat.write(nb, path)
    reset_exercise("01", 1, folder=folder, shipped=SHIPPED)
    out = capsys.readouterr().out
    assert "no longer in" in out and STUB in out


def test_a_damaged_notebook_is_reported_not_raised(workbook, capsys):
    folder, _ = workbook
    (folder / SHIPPED.name).write_text("{ not a notebook")
    reset_exercise("01", 1, folder=folder, shipped=SHIPPED)
    assert "could not be done" in capsys.readouterr().out
    assert (folder / SHIPPED.name).read_text() == "{ not a notebook"
