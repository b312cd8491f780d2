"""Write the learner edition of the notebooks from the instructor edition.

The instructor notebooks in ``notebooks/instructor/`` are the one source.
Inside an exercise cell, a solution sits between two marker lines::

    def permitted(records, allowed_assets):
        # BEGIN SOLUTION
        return [r for r in records if r.asset in allowed_assets]
        # END SOLUTION

The learner edition keeps everything else and replaces each marked block with
a stub at the same indentation, which the checker reports as "not yet"::

        # Your code here (then run the check below).
        raise NotImplementedError("your code here")

Cells tagged ``instructor-only`` (teaching notes) are left out, and a leading
``# NBVAL_IGNORE_OUTPUT`` line (test machinery, meaningless to a learner)
becomes the equivalent ``nbval-ignore-output`` cell tag. The learner
notebooks are then executed with nbclient so they are committed with outputs,
as nbval expects.

Three things keep ``make learner`` repeatable and fair. Widget model ids are
random on every run, so after execution each is renamed to one derived from
the notebook's name and the id's place in it; printed text that arrived in
several chunks is joined into one output: generating twice with no source
change leaves ``git status`` clean. And a cell that asks for a hint
(``hint("name")``) is stored without its output in the learner edition, so
no hint is on the page before the learner asks for it.

Usage: ``python -m botie.lessons.tooling.editions notebooks/instructor notebooks``
(``make learner``). Options: ``--no-execute``; ``--execute-source`` also
re-executes the instructor notebooks in place; ``--check`` writes nothing and
exits 1 when a committed learner notebook has drifted from its source.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import re
import sys
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "BEGIN",
    "END",
    "HINT_TAG",
    "IGNORE_MARKER",
    "IGNORE_TAG",
    "INSTRUCTOR_ONLY",
    "MACHINE_TAG",
    "STUB",
    "drop_machine_output",
    "EditionError",
    "execute",
    "generate",
    "merge_streams",
    "quiet_hints",
    "stable_widget_ids",
    "learner_notebook",
    "shape",
    "strip_solutions",
]

BEGIN = "# BEGIN SOLUTION"
END = "# END SOLUTION"
STUB = 'raise NotImplementedError("your code here")'
STUB_COMMENT = "# Your code here (then run the check below)."
INSTRUCTOR_ONLY = "instructor-only"
IGNORE_MARKER = "# NBVAL_IGNORE_OUTPUT"
IGNORE_TAG = "nbval-ignore-output"  # the same instruction to nbval, kept out of the learner's sight
HINT_TAG = "nbval-skip"  # a hint cell is stored empty (see quiet_hints), so there is nothing to compare
_ENV_DIRS = (
    "JUPYTER_CONFIG_DIR",
    "JUPYTER_DATA_DIR",
    "JUPYTER_RUNTIME_DIR",
    "IPYTHONDIR",
    "MPLCONFIGDIR",
    "TIKTOKEN_CACHE_DIR",
    "XDG_CACHE_HOME",
)


class EditionError(ValueError):
    """The instructor source is malformed (an unmatched or nested solution marker)."""


def strip_solutions(source: str, where: str = "cell") -> str:
    """Replace every ``# BEGIN SOLUTION`` ... ``# END SOLUTION`` block with a stub."""
    out: list[str] = []
    inside: int | None = None
    for number, line in enumerate(source.splitlines(), start=1):
        marker = line.strip()
        if marker == BEGIN:
            if inside is not None:
                raise EditionError(f"{where}, line {number}: {BEGIN} inside another solution (line {inside})")
            inside = number
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}{STUB_COMMENT}")
            out.append(f"{indent}{STUB}")
        elif marker == END:
            if inside is None:
                raise EditionError(f"{where}, line {number}: {END} without a {BEGIN}")
            inside = None
        elif inside is None:
            out.append(line)
    if inside is not None:
        raise EditionError(f"{where}, line {inside}: {BEGIN} is never closed by {END}")
    return "\n".join(out)


def learner_notebook(source_nb: Any, name: str = "notebook") -> Any:
    """The learner edition of one instructor notebook: unexecuted, solutions stubbed."""
    import nbformat

    nb = nbformat.v4.new_notebook(metadata=_clean_metadata(source_nb.metadata))
    for index, cell in enumerate(source_nb.cells):
        tags = list(cell.get("metadata", {}).get("tags", []))
        if INSTRUCTOR_ONLY in tags:
            continue
        where = f"{name}, cell {index}"
        meta = {"tags": tags} if tags else {}
        if cell.cell_type == "code":
            source = strip_solutions(cell.source, where)
            if source.startswith(IGNORE_MARKER):
                source = source[len(IGNORE_MARKER) :].lstrip("\n")
                meta = {"tags": [*tags, IGNORE_TAG]}
            elif _HINT_CALL.search(source):
                meta = {"tags": [*tags, HINT_TAG]}
            new = nbformat.v4.new_code_cell(source, metadata=meta)
        elif cell.cell_type == "markdown":
            if BEGIN in cell.source or END in cell.source:
                raise EditionError(f"{where}: solution markers belong in code cells")
            new = nbformat.v4.new_markdown_cell(cell.source, metadata=meta)
        else:
            new = nbformat.v4.new_raw_cell(cell.source, metadata=meta)
        if "id" in cell:
            new["id"] = cell["id"]
        nb.cells.append(new)
    return nb


def _clean_metadata(metadata: Any) -> dict:
    # Widget state and language details come back from execution; keep only what identifies the kernel.
    keep = {k: metadata[k] for k in ("kernelspec",) if k in metadata}
    keep.setdefault("kernelspec", {"display_name": "Python 3", "language": "python", "name": "python3"})
    return keep


def shape(nb: Any) -> list[tuple[str, str, tuple[str, ...]]]:
    """What must not drift between editions: each cell's type, source and tags."""
    return [(cell.cell_type, cell.source, tuple(cell.get("metadata", {}).get("tags", ()))) for cell in nb.cells]


def _isolated_env(scratch: Path) -> dict[str, str]:
    env = {}
    for var in _ENV_DIRS:
        path = scratch / var.lower()
        path.mkdir(parents=True, exist_ok=True)
        env[var] = str(path)
    # Exercise checks record progress: keep that record out of the notebooks being written.
    env["BOTIE_PROGRESS_FILE"] = str(scratch / "botie-progress.json")
    env["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    env["JUPYTER_PLATFORM_DIRS"] = "1"
    env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
    return env


@contextlib.contextmanager
def _not_run_where_nbval_skips(nb: Any) -> Iterator[None]:
    """Leave out the cells nbval skips (the learner edition's hint cells), as nbval will.

    A hint asked for is recorded in the learner's progress, and each lesson ends
    by printing that record: run here but skipped under nbval, a hint cell would
    make the stored table disagree with the one nbval computes. nbclient passes
    over a cell with no source, so each is blanked for the run and put back after.
    """
    skipped = [c for c in nb.cells if c.cell_type == "code" and HINT_TAG in c.get("metadata", {}).get("tags", ())]
    sources = [c.source for c in skipped]
    for cell in skipped:
        cell.source = ""
    try:
        yield
    finally:
        for cell, source in zip(skipped, sources):
            cell.source, cell.outputs, cell.execution_count = source, [], None


def execute(nb: Any, cwd: Path, *, timeout: int = 300) -> Any:
    """Run a notebook top to bottom in a fresh kernel, writing nothing to the home directory.

    Cells that nbval skips are not run (see :func:`_not_run_where_nbval_skips`).
    Raises nbclient's ``CellExecutionError`` if any cell errors: a learner
    must never meet a traceback we shipped.
    """
    from nbclient import NotebookClient

    saved = {
        var: os.environ.get(var)
        for var in (
            *_ENV_DIRS,
            "BOTIE_PROGRESS_FILE",
            "MPLBACKEND",
            "JUPYTER_PLATFORM_DIRS",
            "PYDEVD_DISABLE_FILE_VALIDATION",
        )
    }
    with tempfile.TemporaryDirectory(prefix="botie-editions-") as scratch:
        os.environ.update(_isolated_env(Path(scratch)))
        try:
            client = NotebookClient(
                nb,
                timeout=timeout,
                kernel_name="python3",
                resources={"metadata": {"path": str(cwd)}},
                record_timing=False,
                store_widget_state=True,
            )
            with _not_run_where_nbval_skips(nb):
                client.execute()
        finally:
            for var, value in saved.items():
                if value is None:
                    os.environ.pop(var, None)
                else:
                    os.environ[var] = value
    return nb


_MODEL_ID = re.compile(r"[0-9a-f]{32}")
_HINT_CALL = re.compile(r"^\s*hint\(", re.M)


def stable_widget_ids(nb: Any, name: str) -> Any:
    """The same notebook with every widget model id replaced by one derived from ``name`` and its order.

    Ids appear in the saved widget state (as keys and as ``IPY_MODEL_<id>``
    references) and in each display output; all are renamed together, so the
    notebook stays self-consistent. Execution creates widgets in the same
    order every run, so the new ids repeat exactly.
    """
    import nbformat

    state = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    text = json.dumps(nb, sort_keys=True)
    renames = {}
    for index, old in enumerate(state):
        if _MODEL_ID.fullmatch(old):
            renames[old] = hashlib.sha1(f"{name}:{index}".encode()).hexdigest()[:32]
    if not renames:
        return nb
    text = _MODEL_ID.sub(lambda m: renames.get(m.group(0), m.group(0)), text)
    return nbformat.from_dict(json.loads(text))


def merge_streams(nb: Any) -> Any:
    """Join adjacent stdout (or stderr) outputs of a cell into one.

    The kernel flushes printed text in chunks whose boundaries vary from run
    to run; one output per stream keeps the committed file the same.
    """
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        merged: list[Any] = []
        for out in cell.outputs:
            last = merged[-1] if merged else None
            if (
                out.output_type == "stream"
                and last is not None
                and last.output_type == "stream"
                and last.name == out.name
            ):
                last.text += out.text
            else:
                merged.append(out)
        cell.outputs = merged
    return nb


def quiet_hints(nb: Any) -> Any:
    """Clear the stored output of every cell that asks for a hint: the learner sees a hint only when they ask."""
    for cell in nb.cells:
        if cell.cell_type == "code" and _HINT_CALL.search(cell.source):
            cell.outputs = []
    return nb


def _read(path: Path) -> Any:
    import nbformat

    return nbformat.read(path, as_version=4)


def _write(nb: Any, path: Path) -> None:
    import nbformat

    nbformat.validate(nb)
    path.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")


def _sources(src_dir: Path, names: Iterable[str] | None) -> list[Path]:
    paths = sorted(src_dir.glob("*.ipynb"))
    if names:
        wanted = set(names)
        paths = [p for p in paths if p.stem in wanted or p.name in wanted]
    return paths


#: A cell whose output describes the machine it ran on (versions, folders): stored without output, so
#: the committed notebooks are the same whatever is installed where `make learner` ran.
MACHINE_TAG = "machine-dependent"


def drop_machine_output(nb: Any) -> Any:
    """The same notebook with the outputs of cells tagged :data:`MACHINE_TAG` removed (they run, but store nothing)."""
    for cell in nb.cells:
        if cell.cell_type == "code" and MACHINE_TAG in cell.get("metadata", {}).get("tags", ()):
            cell.outputs, cell.execution_count = [], None
    return nb


def generate(
    src_dir: Path,
    dst_dir: Path,
    *,
    run: bool = True,
    names: Iterable[str] | None = None,
    execute_source: bool = False,
    log=print,
) -> list[Path]:
    """Write (and by default execute) the learner edition of every source notebook."""
    written = []
    for src in _sources(src_dir, names):
        source_nb = _read(src)
        if execute_source:
            log(f"executing {src}")
            executed = execute(source_nb, src.parent)
            source_nb = drop_machine_output(merge_streams(stable_widget_ids(executed, f"instructor/{src.stem}")))
            _write(source_nb, src)
        nb = learner_notebook(source_nb, src.name)
        dst = dst_dir / src.name
        if run:
            log(f"executing {dst}")
            nb = drop_machine_output(quiet_hints(merge_streams(stable_widget_ids(execute(nb, dst_dir), src.stem))))
        _write(nb, dst)
        written.append(dst)
    return written


def drift(src_dir: Path, dst_dir: Path) -> list[str]:
    """Learner notebooks whose cells differ from what generation would write."""
    problems = []
    for src in _sources(src_dir, None):
        dst = dst_dir / src.name
        if not dst.exists():
            problems.append(f"{dst}: missing")
        elif shape(_read(dst)) != shape(learner_notebook(_read(src), src.name)):
            problems.append(f"{dst}: differs from the learner edition of {src}")
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m botie.lessons.tooling.editions", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("source", type=Path, help="folder of instructor notebooks")
    parser.add_argument("target", type=Path, help="folder for the learner notebooks")
    parser.add_argument("names", nargs="*", help="only these notebooks (e.g. 01_which_records)")
    parser.add_argument("--no-execute", action="store_true", help="write without executing")
    parser.add_argument("--execute-source", action="store_true", help="also re-execute the instructor notebooks")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a learner notebook drifted")
    args = parser.parse_args(argv)
    if args.check:
        problems = drift(args.source, args.target)
        for line in problems:
            print(line)
        print("learner edition up to date" if not problems else f"{len(problems)} notebook(s) drifted")
        return 1 if problems else 0
    try:
        written = generate(
            args.source, args.target, run=not args.no_execute, names=args.names, execute_source=args.execute_source
        )
    except EditionError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:
        from nbclient.exceptions import CellExecutionError

        if not isinstance(exc, CellExecutionError):
            raise
        # A shipped notebook must run clean; show the failing cell and stop without writing it.
        print(f"error: a cell failed while executing, so that notebook was not written:\n{exc}", file=sys.stderr)
        return 3
    print(f"wrote {len(written)} learner notebook(s) into {args.target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
