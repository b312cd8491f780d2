"""One-off: the instructor-notebook edits that go with the asset in every <document> tag (issue 32).

The lead runs this once on the instructor notebooks, re-executes the lessons whose outputs change (every
printed tag and every token count that includes tags: 01, 02, 03, 04 and 06, wherever their cells now live),
regenerates the learner edition, then deletes this file.

    python tools/_asset_notebook_edits.py notebooks/instructor            # apply
    python tools/_asset_notebook_edits.py notebooks/instructor --check    # say what would change, write nothing

Each edit names a cell by id, so it finds the cell in whichever notebook holds it now (lessons are being split
and trimmed; ids stay). An edit may list alternatives, for a cell that another helper is rewriting: a
(cell id, old, new) for the text on main, and one for the text a branch had when this was written. Exactly one
alternative of each edit must match: its cell id exactly once in the folder, its old text exactly once in that
cell's source. Otherwise nothing at all is written, and the script exits non-zero naming the edit.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat

#: (cell id, old text, new text): exact source text, line breaks included. A new text of None means "a trimmed
#: lesson dropped this sentence": the alternative fits when the old text is in no cell at all, and changes nothing.
Alternative = tuple[str, str, str | None]

EDITS: tuple[tuple[str, tuple[Alternative, ...]], ...] = (
    (
        "lesson 01 section 4: the tag names the asset",
        (
            (
                "01-15",
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
        "lesson 01: what the document tag carries",
        (("01-markup-md", "carrying its id, version and trust\n", "carrying its id, asset, version and trust\n"),),
    ),
    (
        "lesson 01 section 7: the P-1 passage is labelled P-1 now; a label keeps nothing out",
        (
            (
                "01-30b",
                "no longer fits. The request's tags do not carry the asset: "
                "only the text says which number belongs to\n"
                "which pump.",
                "no longer fits. Each tag names its passage's asset, "
                "so the model can read which number belongs to which\n"
                "pump; but a label keeps nothing out of the request: only a correct allowed list does.",
            ),
        ),
    ),
    (
        # The tag now names K-7 too; lesson 01 defines "document tag" only later (01-markup-md), so this cell
        # keeps printing the restricted text alone, as before.
        "lesson 01 section 5: the K-7 text in the unfiltered request, not its tag",
        (
            (
                "01-29",
                '[line for line in request.splitlines() if "K-7" in line])',
                "[line for line in request.splitlines()\n"
                '                                                      if "K-7" in line and not line.startswith("<")])',
            ),
        ),
    ),
    (
        # 950 in all (600 for evidence) so the seven documents, tags included (575), still fit, tkt-5630 among
        # them; a 1,300 ceiling so the 713-token request plus 150 for the answer (863) stays under the 70% alert.
        "lesson 06 setup: Budget(950, 200, 150) under a 1,300 ceiling",
        (
            (
                "05-02",
                "ceiling=1_200, answer_allowance=150, budget=Budget(900, 200, 150)",
                "ceiling=1_300, answer_allowance=150, budget=Budget(950, 200, 150)",
            ),
        ),
    ),
    (
        "lesson 06: the request's count and share",
        (
            (
                "05-05",
                "text: 669 tokens plus 150 kept for the answer is 68.2% of the ceiling.",
                "text: 713 tokens plus 150 kept for the answer is 66.4% of the ceiling.",
            ),
            (  # h-trim06 at 7ef8f43
                "05-05",
                "669 tokens, plus 150 kept for the answer, is 68.2% of 1,200.",
                "713 tokens, plus 150 kept for the answer, is 66.4% of 1,300.",
            ),
        ),
    ),
    (
        "lesson 06: the budget's total",
        (
            ("05-05", "The budget (900 in all, 200", "The budget (950 in all, 200"),
            ("05-05", "The budget (900 in all, 200", None),  # h-trim06 at 7ef8f43 dropped the sentence
        ),
    ),
    (
        "lesson 06: the ceiling",
        (
            ("05-05", "the ceiling (1,200) is what", "the ceiling (1,300) is what"),
            ("05-05", "the ceiling (1,200) is what", None),  # h-trim06 at 7ef8f43 dropped the sentence
        ),
    ),
    (
        "lesson 06: the pack as sent",
        (
            ("05-05", "The pack is 533 tokens *as sent*.", "The pack is 575 tokens *as sent*."),
            ("06-gate-md", "(533 tokens here)", "(575 tokens here)"),  # h-trim06 at 7ef8f43
        ),
    ),
    (
        "lesson 06: the tag's attributes",
        (
            (
                "06-gate-md",
                "`<document id=...\nversion=... trust=...>` tags",
                "`<document id=...\nasset=... version=... trust=...>` tags",
            ),
            (  # h-trim06 at 7ef8f43
                "06-gate-md",
                "`<document id=... version=... trust=...>` tags",
                "`<document id=... asset=... version=... trust=...>` tags",
            ),
        ),
    ),
    (
        "lesson 06: the lesson's total",
        (
            ("06-gate-md", "this lesson uses a total of 900.", "this lesson uses a total of 950."),
            ("06-gate-md", "The budget is 900, not the scenario's 600", "The budget is 950, not the scenario's 600"),
        ),
    ),
    (
        "lesson 06: what the Anthropic body's user message carries",
        (
            ("4dd7008d", "(ids,\nversions, trust, conflict notes)", "(ids,\nassets, versions, trust, conflict notes)"),
            (  # h-trim06 at 7ef8f43 moved the paragraph to its homework cell
                "06-homework",
                "(ids,\nversions, trust, conflict notes)",
                "(ids,\nassets, versions, trust, conflict notes)",
            ),
        ),
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


def _why_not(holders: dict, cell_id: str, old: str, new: str | None) -> str | None:
    """None if this alternative applies; otherwise why not."""
    if new is None:
        held = [cell.source.count(old) for places in holders.values() for _, _, cell in places]
        return None if sum(held) == 0 else f"{old!r} is still in a cell, so it was not dropped"
    where = holders.get(cell_id, [])
    if len(where) != 1:
        return f"cell {cell_id} is in {len(where)} notebooks, not one"
    source = where[0][2].source
    n = source.count(old)
    if n != 1:
        done = " (the new text is there: applied before?)" if new in source else ""
        return f"cell {cell_id} in {where[0][0].name}: {old!r} occurs {n} times, not once{done}"
    return None


def apply(folder: Path, *, check: bool = False) -> list[str]:
    """Apply every edit (or only check them); returns the problems, and writes nothing if there is one."""
    holders, problems, touched = _holders(folder), [], {}
    for name, alternatives in EDITS:
        reasons = [_why_not(holders, *alt) for alt in alternatives]
        fitting = [alt for alt, reason in zip(alternatives, reasons) if reason is None]
        if len(fitting) != 1:
            problems.append(f"{name}: {len(fitting)} alternatives match, not one: " + "; ".join(filter(None, reasons)))
            continue
        cell_id, old, new = fitting[0]
        if new is None:
            continue
        path, nb, cell = holders[cell_id][0]
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
