"""One-off: the instructor-notebook edits that go with the asset in every <document> tag (issue 32).

The lead runs this once on the instructor notebooks, re-executes the lessons it reports (their outputs change
too: every printed tag and every token count that includes tags), then deletes this file.

    python tools/_asset_notebook_edits.py notebooks/instructor            # apply
    python tools/_asset_notebook_edits.py notebooks/instructor --check    # say what would change, write nothing

Each edit names a cell by id, so it finds the cell in whichever notebook holds it now (lessons are being split
and trimmed; ids stay). Every old text must occur exactly once in that cell's source, and every cell id exactly
once in the folder, or nothing at all is written and the script exits non-zero saying which.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat

# (cell id, ((old, new), ...)): exact source text, line breaks included.
EDITS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    # Lesson 01, section 4: the tag now names the asset.
    (
        "01-15",
        (
            (
                "The request botie builds labels each passage with its id and version,\n"
                "not its asset, so a passage whose text does not name its pump reaches the model "
                "without saying which.\n"
                "The model cannot sort passages by pump; only the code that chooses them can, "
                "before the request is built.",
                "The request botie builds labels each passage with its id, asset and version,\n"
                "so a passage whose text does not name its pump still reaches the model "
                "saying which pump it is about.\n"
                "A label only informs the model; which pumps' passages may enter is decided by the code that chooses\n"
                "them, before the request is built.",
            ),
        ),
    ),
    (
        "01-markup-md",
        (("carrying its id, version and trust\n", "carrying its id, asset, version and trust\n"),),
    ),
    # Lesson 01, section 7: the P-1 passage is labelled P-1 now; the label keeps nothing out.
    (
        "01-30b",
        (
            (
                "no longer fits. The request's tags do not carry the asset: "
                "only the text says which number belongs to\n"
                "which pump.",
                "no longer fits. Each tag names its passage's asset, "
                "so the model can read which number belongs to which\n"
                "pump; but a label keeps nothing out of the request: only a correct allowed list does.",
            ),
        ),
    ),
    # Lesson 06, setup: 950 in all (600 for evidence) so the seven documents, tags included (575), still fit;
    # a 1,300 ceiling so the 713-token request plus 150 for the answer (863) stays under the 70% alert.
    (
        "05-02",
        (
            (
                "ceiling=1_200, answer_allowance=150, budget=Budget(900, 200, 150)",
                "ceiling=1_300, answer_allowance=150, budget=Budget(950, 200, 150)",
            ),
        ),
    ),
    (
        "05-05",
        (
            (
                "text: 669 tokens plus 150 kept for the answer is 68.2% of the ceiling.",
                "text: 713 tokens plus 150 kept for the answer is 66.4% of the ceiling.",
            ),
            ("The budget (900 in all, 200 kept for the", "The budget (950 in all, 200 kept for the"),
            ("the ceiling (1,200) is what the whole", "the ceiling (1,300) is what the whole"),
            ("The pack is 533 tokens *as sent*.", "The pack is 575 tokens *as sent*."),
        ),
    ),
    (
        "06-gate-md",
        (
            (
                "`<document id=...\nversion=... trust=...>` tags",
                "`<document id=...\nasset=... version=... trust=...>` tags",
            ),
            ("this lesson uses a total of 900.", "this lesson uses a total of 950."),
        ),
    ),
    (
        "4dd7008d",
        (("(ids,\nversions, trust, conflict notes)", "(ids,\nassets, versions, trust, conflict notes)"),),
    ),
)


def _holders(folder: Path) -> dict[str, list[tuple[Path, object, object]]]:
    """Every cell id in the folder's notebooks, with the notebook and cell that hold it."""
    found: dict[str, list[tuple[Path, object, object]]] = {}
    for path in sorted(folder.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            found.setdefault(cell.get("id", ""), []).append((path, nb, cell))
    return found


def apply(folder: Path, *, check: bool = False) -> list[str]:
    """Apply every edit (or only check them); returns the problems, and writes nothing if there is one."""
    holders, problems, touched = _holders(folder), [], {}
    for cell_id, replacements in EDITS:
        where = holders.get(cell_id, [])
        if len(where) != 1:
            problems.append(f"cell {cell_id}: found in {len(where)} notebooks ({[str(p) for p, _, _ in where]})")
            continue
        path, nb, cell = where[0]
        for old, new in replacements:
            n = cell.source.count(old)
            if n != 1:
                done = " (the new text is already there: applied before?)" if new in cell.source else ""
                problems.append(f"cell {cell_id} in {path.name}: {old!r} occurs {n} times, not once{done}")
                continue
            cell.source = cell.source.replace(old, new)
        touched[path] = nb
    if problems:
        return problems
    for path, nb in touched.items():
        print(("would edit " if check else "edited ") + str(path))
        if not check:
            nbformat.write(nb, path)
    return []


def main(argv: list[str]) -> int:
    if not argv or argv[0].startswith("-"):
        print(__doc__)
        return 2
    problems = apply(Path(argv[0]), check="--check" in argv[1:])
    for problem in problems:
        print("FAILED:", problem, file=sys.stderr)
    if problems:
        print("nothing was written", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
