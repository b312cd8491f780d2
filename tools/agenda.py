"""Time the workshop's agenda from the learner notebooks, instead of guessing it.

For each learner notebook (``notebooks/NN_*.ipynb``, the edition learners read) this counts the cells,
the words of prose in the markdown cells, the exercises (``botie.lessons.exercises.catalogue.BY_LESSON``),
the predictions (code cells calling ``predict(``) and the panels (code cells calling ``..._panel(``), and
turns them into minutes:

    words / 200                      reading, at about 200 words a minute
    + 8 per exercise                 (12 for a design exercise: one under a heading saying "Design exercise")
    + 2 per prediction
    + 3 per panel
    + 3                              running the cells
    rounded up to the next 5 minutes: the lesson's slot.

The cast card (a cell tagged ``cast-card``) is folded reference, not prose to read through, so its words are
not counted, as in the lessons' prose limit.

Usage, from the repository's root:

    python tools/agenda.py             # the measured table, Markdown, one row per lesson
    python tools/agenda.py --day       # the day: start times, breaks (one at least every 90 minutes) and lunch
    python tools/agenda.py --parts 02  # minutes per section and per exercise of lesson 02, to price the cut list
    python tools/agenda.py --write     # put the measured table, the day and the room's lesson table into the
                                       # guide, notebooks/instructor/README.md, and each lesson block's minutes

To regenerate the guide after the notebooks changed: ``make learner`` (the learner edition is what is
measured), then ``python tools/agenda.py --write``, then check the cut list's minutes against
``--parts`` (``tests/tools/test_agenda.py`` fails while a claimed saving exceeds what the part costs, or a
lesson's slot in the day is shorter than measured).
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import nbformat

# Run as `python tools/agenda.py` from the root: find botie beside us, not an installed copy.
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

__all__ = [
    "Measure",
    "day_plan",
    "day_table",
    "measure",
    "measure_all",
    "measured_table",
    "parts",
    "room_table",
    "write_guide",
]

LEARNER = ROOT / "notebooks"
GUIDE = ROOT / "notebooks" / "instructor" / "README.md"
WORD = re.compile(r"[A-Za-z0-9'’-]+")

WORDS_PER_MINUTE = 200
EXERCISE_MINUTES = 8
DESIGN_MINUTES = 12
PREDICTION_MINUTES = 2
PANEL_MINUTES = 3
RUNNING_MINUTES = 3
SLOT_STEP = 5

MAX_STRETCH = 90  # never more than this many minutes of lessons without a break
BREAK_MINUTES = 15
LUNCH_MINUTES = 45
LUNCH_FROM = 11 * 60 + 30  # the first break starting at or after 11:30 is lunch
START = 9 * 60


@dataclass(frozen=True)
class Measure:
    """One lesson's counts and the minutes they come to."""

    lesson: str
    title: str
    cells: int
    words: int
    exercises: int
    design: int  # how many of the exercises are design exercises
    predictions: int
    panels: int

    @property
    def reading(self) -> float:
        return self.words / WORDS_PER_MINUTE

    @property
    def doing(self) -> int:
        plain = self.exercises - self.design
        return (
            plain * EXERCISE_MINUTES
            + self.design * DESIGN_MINUTES
            + self.predictions * PREDICTION_MINUTES
            + self.panels * PANEL_MINUTES
            + RUNNING_MINUTES
        )

    @property
    def slot(self) -> int:
        return round_up(self.reading + self.doing)


def round_up(minutes: float, step: int = SLOT_STEP) -> int:
    # A small tolerance, so 30.0000001 from float division stays 30.
    return step * math.ceil(minutes / step - 1e-9)


def words(text: str) -> int:
    return len(WORD.findall(text))


def _tags(cell) -> list[str]:
    return cell.get("metadata", {}).get("tags", [])


def _headings(cell) -> list[str]:
    return [line for line in cell.source.splitlines() if line.startswith("#")] if cell.cell_type == "markdown" else []


def _is_design(cells: Sequence, name: str) -> bool:
    """Whether the nearest heading above the cell defining ``name`` says "Design exercise"."""
    where = next((i for i, c in enumerate(cells) if c.cell_type == "code" and f"def {name}(" in c.source), None)
    if where is None:
        return False
    for cell in reversed(cells[:where]):
        heads = _headings(cell)
        if heads:
            return "design exercise" in heads[-1].lower()
    return False


def _count(cells: Sequence, needle: str) -> int:
    return sum(1 for c in cells if c.cell_type == "code" and needle in c.source)


def prose_words(cells: Sequence) -> int:
    return sum(words(c.source) for c in cells if c.cell_type == "markdown" and "cast-card" not in _tags(c))


def measure(nb, lesson: str, exercise_names: Iterable[str]) -> Measure:
    """Count one notebook; ``exercise_names`` are the lesson's exercises, in order."""
    cells = list(nb.cells)
    names = list(exercise_names)
    title = next((h.lstrip("# ").strip() for c in cells for h in _headings(c) if h.startswith("# ")), lesson)
    return Measure(
        lesson=lesson,
        title=title,
        cells=len(cells),
        words=prose_words(cells),
        exercises=len(names),
        design=sum(_is_design(cells, n) for n in names),
        predictions=_count(cells, "predict("),
        panels=_count(cells, "_panel("),
    )


def learner_notebooks(folder: Path = LEARNER) -> dict[str, Path]:
    return {p.stem[:2]: p for p in sorted(folder.glob("[0-9][0-9]_*.ipynb"))}


def _exercise_names() -> dict[str, list[str]]:
    from botie.lessons.exercises.catalogue import BY_LESSON

    return {lesson: [e.name for e in group] for lesson, group in BY_LESSON.items()}


def measure_all(folder: Path = LEARNER) -> list[Measure]:
    names = _exercise_names()
    return [
        measure(nbformat.read(path, as_version=4), lesson, names.get(lesson, ()))
        for lesson, path in learner_notebooks(folder).items()
    ]


def measured_table(measures: Sequence[Measure]) -> str:
    lines = [
        "| lesson | cells | words | exercises | predictions | reading min | doing min | slot |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for m in measures:
        exercises = f"{m.exercises} ({m.design} design)" if m.design else str(m.exercises)
        counts = f"{m.cells} | {m.words:,} | {exercises} | {m.predictions}"
        lines.append(f"| {m.title} | {counts} | {m.reading:.1f} | {m.doing} | {m.slot} |")
    total = sum(m.slot for m in measures)
    lines.append(
        f"| all lessons | {sum(m.cells for m in measures)} | {sum(m.words for m in measures):,} | "
        f"{sum(m.exercises for m in measures)} | {sum(m.predictions for m in measures)} | "
        f"{sum(m.reading for m in measures):.1f} | {sum(m.doing for m in measures)} | {total} |"
    )
    return "\n".join(lines)


def clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def day_plan(measures: Sequence[Measure], start: int = START) -> list[tuple[int, str, int]]:
    """(start minute, what, minutes) for every lesson and break; a break before any stretch would pass 90."""
    rows: list[tuple[int, str, int]] = []
    now, stretch, lunch_taken = start, 0, False
    for m in measures:
        if stretch and stretch + m.slot > MAX_STRETCH:
            is_lunch = not lunch_taken and now >= LUNCH_FROM
            length = LUNCH_MINUTES if is_lunch else BREAK_MINUTES
            rows.append((now, "lunch" if is_lunch else "break", length))
            now, stretch, lunch_taken = now + length, 0, lunch_taken or is_lunch
        rows.append((now, m.title, m.slot))
        now, stretch = now + m.slot, stretch + m.slot
    return rows


def day_table(measures: Sequence[Measure], start: int = START) -> str:
    rows = day_plan(measures, start)
    end = rows[-1][0] + rows[-1][2] if rows else start
    taught = sum(m.slot for m in measures)
    hours, minutes = divmod(end - start, 60)
    lines = [
        f"The day runs from {clock(start)} to {clock(end)}: {hours} hours {minutes} minutes, "
        f"{taught} minutes of them lessons.",
        "",
        "| time | what | minutes |",
        "|---|---|---|",
    ]
    lines += [f"| {clock(at)} | {what} | {length} |" for at, what, length in rows]
    lines.append(f"| {clock(end)} | end | |")
    return "\n".join(lines)


def parts(nb, exercise_names: Iterable[str]) -> list[tuple[str, float]]:
    """Minutes per heading (## and ###, up to the next heading) and per exercise, without the running time."""
    out: list[tuple[str, float]] = []
    cells = list(nb.cells)
    starts = [i for i, c in enumerate(cells) if any(h.startswith(("## ", "### ")) for h in _headings(c))]
    for n, i in enumerate(starts):
        chunk = cells[i : starts[n + 1] if n + 1 < len(starts) else len(cells)]
        heading = next(h for h in _headings(cells[i]) if h.startswith(("## ", "### ")))
        minutes = prose_words(chunk) / WORDS_PER_MINUTE
        minutes += _count(chunk, "predict(") * PREDICTION_MINUTES + _count(chunk, "_panel(") * PANEL_MINUTES
        out.append((heading, minutes))
    for name in exercise_names:
        out.append((f"`{name}`", DESIGN_MINUTES if _is_design(cells, name) else EXERCISE_MINUTES))
    return out


def section_minutes(nb, number: int) -> float:
    """Minutes of the numbered section ``## N. ...`` with its ### subsections, exercises included."""
    cells = list(nb.cells)
    inside = False
    chunk = []
    for c in cells:
        top = [h for h in _headings(c) if h.startswith("## ")]
        if top:
            inside = bool(re.match(rf"## {number}\. ", top[0]))
        if inside:
            chunk.append(c)
    exercises = sum(1 for c in chunk if c.cell_type == "code" and re.search(r"^\s*check\(", c.source, re.M))
    return (
        prose_words(chunk) / WORDS_PER_MINUTE
        + exercises * EXERCISE_MINUTES
        + _count(chunk, "predict(") * PREDICTION_MINUTES
        + _count(chunk, "_panel(") * PANEL_MINUTES
    )


def room_table(lessons: Iterable[str]) -> str:
    """The room page's lesson table: each lesson's exercises (progress places) and its predictions."""
    from botie.lessons.exercises.questions import questions_for
    from botie.lessons.learner.progress import PLACES

    lines = [
        "| lesson | press | watch these exercises | polls to run as peer instruction |",
        "|---|---|---|---|",
    ]
    for lesson in lessons:
        placed = sorted((place, name) for name, place in PLACES.items() if place[0] == lesson)
        exercises = ", ".join(f"`{name}`" for _, name in placed) or "none"
        polls = ", ".join(f"`{q.id}`" for q in questions_for(lesson)) or "none"
        lines.append(f"| {lesson} | lesson {lesson} | {exercises} | {polls} |")
    return "\n".join(lines)


def _replace_between(text: str, name: str, body: str) -> str:
    begin, end = f"<!-- agenda:{name} -->", f"<!-- /agenda:{name} -->"
    if begin not in text or end not in text:
        raise SystemExit(f"{GUIDE} has no {begin} ... {end} markers")
    head, rest = text.split(begin, 1)
    return f"{head}{begin}\n{body}\n{end}{rest.split(end, 1)[1]}"


def write_guide(measures: Sequence[Measure], guide: Path = GUIDE) -> None:
    text = guide.read_text(encoding="utf-8")
    text = _replace_between(text, "measured", measured_table(measures))
    text = _replace_between(text, "day", day_table(measures))
    text = _replace_between(text, "room", room_table(m.lesson for m in measures))
    for m in measures:  # each lesson's block in the guide is headed with its slot
        text = re.sub(
            rf"^(## {m.lesson} · [^\n]*?)\(about \d+ minutes\)$",
            rf"\g<1>(about {m.slot} minutes)",
            text,
            flags=re.M,
        )
    guide.write_text(text, encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--day", action="store_true", help="the day's agenda with breaks and lunch")
    what.add_argument("--parts", metavar="NN", help="minutes per section and exercise of lesson NN")
    what.add_argument("--write", action="store_true", help=f"update the tables in {GUIDE.relative_to(ROOT)}")
    args = parser.parse_args(argv)
    measures = measure_all()
    if args.write:
        write_guide(measures)
        print(f"wrote the measured table and the day into {GUIDE.relative_to(ROOT)}")
    elif args.day:
        print(day_table(measures))
    elif args.parts:
        nb = nbformat.read(learner_notebooks()[args.parts], as_version=4)
        for heading, minutes in parts(nb, _exercise_names().get(args.parts, ())):
            print(f"{minutes:5.1f}  {heading}")
    else:
        print(measured_table(measures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
