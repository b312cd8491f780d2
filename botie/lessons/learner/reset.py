"""Put one exercise cell back to its starting stub, leaving the rest of the notebook alone.

In a notebook (save first, so the file on disk holds your latest work)::

    from botie.lessons.learner.reset import reset_exercise
    reset_exercise("01", 2)     # lesson 01, its second exercise

then File > Reload Notebook from Disk. Only that exercise's cell changes;
every other cell keeps your work.

The starting stub comes from the learner edition as shipped: the notebook
as git last received it (the upstream branch that nbgitpuller or ``git
clone`` fetched, else the last commit), or a learner-edition file given as
``shipped=``. An exercise is a code cell that holds the stub line, counted
from 1 in notebook order; cells are matched by their cell id.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from botie.lessons.learner.files import write_atomically
from botie.lessons.tooling.editions import STUB

__all__ = ["ResetResult", "exercise_cells", "reset_exercise", "restore_exercise", "shipped_notebook"]


@dataclass(frozen=True)
class ResetResult:
    """What a reset did: ``done`` is False when nothing was changed, and ``message`` says why."""

    done: bool
    message: str
    notebook: Path | None = None
    cell_id: str | None = None
    stub: str = ""


def exercise_cells(nb: Any) -> list[Any]:
    """The exercise cells of a learner-edition notebook, in order: code cells holding the stub."""
    return [cell for cell in nb.cells if cell.cell_type == "code" and STUB in cell.source]


def _find_notebook(folder: Path, lesson: str) -> Path | None:
    found = sorted(p for p in folder.glob(f"{lesson}_*.ipynb") if p.is_file())
    return found[0] if len(found) == 1 else None


def shipped_notebook(path: Path) -> Any | None:
    """The learner edition of ``path`` as git received it, or None when git cannot tell."""
    import nbformat

    for ref in ("@{upstream}", "HEAD"):
        try:
            shown = subprocess.run(
                ["git", "-C", str(path.parent), "show", f"{ref}:./{path.name}"],
                capture_output=True,
                text=True,
                timeout=30,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return None  # no git at all
        if shown.returncode == 0:
            return nbformat.reads(shown.stdout, as_version=4)
    return None


def restore_exercise(
    lesson: str, number: int, *, folder: str | Path | None = None, shipped: str | Path | None = None
) -> ResetResult:
    """Restore exercise ``number`` of ``lesson`` in the learner's notebook. Never raises for learner mistakes."""
    import nbformat

    folder = Path(folder) if folder is not None else Path.cwd()
    path = _find_notebook(folder, lesson)
    if path is None:
        return ResetResult(False, f"There is no single notebook for lesson {lesson!r} in {folder}.")
    original = nbformat.read(shipped, as_version=4) if shipped is not None else shipped_notebook(path)
    if original is None:
        return ResetResult(False, f"Could not find the shipped copy of {path.name} (git does not know it).", path)
    cells = exercise_cells(original)
    if not 1 <= number <= len(cells):
        return ResetResult(
            False, f"Lesson {lesson} has exercises 1 to {len(cells)}; there is no exercise {number}.", path
        )
    stub = cells[number - 1]
    nb = nbformat.read(path, as_version=4)
    mine = next((cell for cell in nb.cells if cell.get("id") == stub.get("id")), None)
    if mine is None:
        return ResetResult(
            False,
            f"The cell of exercise {number} is no longer in {path.name}; copy the starting code below into a new cell.",
            path,
            stub.get("id"),
            stub.source,
        )
    mine.source = stub.source
    mine.outputs = []
    mine.execution_count = None
    text = nbformat.writes(nb)
    write_atomically(path, text if text.endswith("\n") else text + "\n")  # as nbformat.write ends a file
    done = (
        f"Exercise {number} of lesson {lesson} is back to its starting code in {path.name}. "
        "Now choose File > Reload Notebook from Disk to see it."
    )
    return ResetResult(True, done, path, stub.get("id"), stub.source)


def reset_exercise(
    lesson: str, number: int, *, folder: str | Path | None = None, shipped: str | Path | None = None
) -> None:
    """Print what :func:`restore_exercise` did (and the starting code when it could not put it back)."""
    try:
        result = restore_exercise(lesson, number, folder=folder, shipped=shipped)
    except Exception as exc:  # a damaged notebook file, a full disk: say it, no traceback
        print(f"The reset could not be done ({type(exc).__name__}: {exc}). Your notebook is unchanged.")
        return
    print(result.message)
    if not result.done and result.stub:
        print(result.stub)
