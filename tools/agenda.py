"""Time the workshop's lessons from the learner notebooks, instead of guessing: one budget, 60 minutes a lesson.

For each learner notebook (``notebooks/NN_*.ipynb``, the edition learners read) this counts what a competent
learner must read, run, predict and write, and :func:`minutes_by_part` turns the counts into minutes at the
rates below (each rate says why it is what it is; they were calibrated by a section-by-section read-through
of every lesson, recorded in ``docs/lesson_times.json``):

    prose        words of markdown / 140 a minute       technical prose read to be used a minute later
    code         lines of code shown / 15 a minute     read, not written: a print line is scanned, logic read
    output       lines printed / 30 a minute           tables scanned for the value the text points at
    exercises    8 each, 15 for a design exercise     write, run the check, fix once; a design exercise asks
                                                       for a hand trace and meets named invariants
    predictions  2 each                                read the options, choose, reveal, read the why
    panels       3 the first, 1.5 each further one      the "things to try" list; a later panel (driven by
                                                       your function, or wrong on purpose) reuses its controls
    running      10 seconds a code cell, plus the      select, run, wait; the machine's Run All time is
                 measured Run All seconds             measured, not assumed (``--time``)

The sum, rounded up to the next 5 minutes, is the lesson's slot; no lesson may need more than
:data:`MAX_LESSON_MINUTES` (``tests/notebooks/test_lesson_shape.py``): a lesson that needs more is split.
The cast card (a cell tagged ``cast-card``) is folded reference, consulted rather than read through, so its
words are not counted.

Homework is optional work done after the lesson: every cell of it is tagged ``homework`` and sits under a
``## Homework`` heading that says so to the learner (``tests/tools/test_agenda.py`` holds the tag and the
heading together). Its cells and exercises are left out of the lesson's counts and minutes and timed apart, at
the same rates (running included), as the lesson's homework minutes; the guide states them beside the lesson's
time, never inside it, and ``--time`` leaves homework cells out of the Run All it measures.

``docs/lesson_times.json`` is the one source for every time and count the guide and the instructor notes
state: ``--write`` regenerates it from the notebooks (keeping the measured Run All seconds and the
read-through), then the guide's tables and each instructor note's "Timing: about N minutes" from it.
``tests/tools/test_agenda.py`` fails while the file, the guide or a note disagrees with the notebooks.

Usage, from the repository's root:

    python tools/agenda.py             # the measured table, Markdown, one row per lesson
    python tools/agenda.py --day       # the day: start times, breaks (one at least every 90 minutes) and lunch
    python tools/agenda.py --parts 02  # minutes per section and per exercise of lesson 02, to price the cut list
    python tools/agenda.py --time      # Run All of each lesson with its reference solutions; record the seconds
    python tools/agenda.py --write     # docs/lesson_times.json, then the guide and the instructor notes from it

To regenerate after the notebooks changed: ``make learner`` (the learner edition is what is measured), then
``python tools/agenda.py --time`` (a minute or two) and ``python tools/agenda.py --write``, then check the cut
list's minutes against ``--parts``.
"""

from __future__ import annotations

import argparse
import json
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
    "MAX_LESSON_MINUTES",
    "Measure",
    "day_plan",
    "day_table",
    "homework_minutes",
    "is_homework",
    "measure",
    "measure_all",
    "measured_table",
    "minutes_by_part",
    "parts",
    "room_table",
    "times_record",
    "write_guide",
]

LEARNER = ROOT / "notebooks"
INSTRUCTOR = ROOT / "notebooks" / "instructor"
GUIDE = INSTRUCTOR / "README.md"
TIMES = ROOT / "docs" / "lesson_times.json"
WORD = re.compile(r"[A-Za-z0-9'’-]+")

# The rates, each calibrated against the read-through in docs/lesson_times.json (see the module docstring).
PROSE_WORDS_PER_MINUTE = 140  # technical prose full of ids and figures, read to be used: not 200-250 light prose
CODE_LINES_PER_MINUTE = 15  # a line of the lesson's own code, read to follow what it prints (not to write it)
OUTPUT_LINES_PER_MINUTE = 30  # printed tables and reasons, scanned for what the text points at
EXERCISE_MINUTES = 8  # write a few lines, run the check, read one failure and fix it
DESIGN_MINUTES = 15  # trace the example by hand, choose a rule, meet the invariants the check names
PREDICTION_MINUTES = 2  # read the options, choose, reveal, read why
PANEL_MINUTES = 3  # the lesson's first panel: its controls and its "things to try"
MORE_PANEL_MINUTES = 1.5  # each further panel (your function's, one wrong on purpose): the controls are known
CELL_SECONDS = 10  # select a cell, run it, see that it finished; the machine's own time is added as measured
HOMEWORK = "homework"  # the cell tag of an optional part done after the lesson: timed apart, never in the hour
SLOT_STEP = 5
MAX_LESSON_MINUTES = 60  # no lesson needs more of a competent learner; one that does is split

RATES = {
    "prose words a minute": PROSE_WORDS_PER_MINUTE,
    "code lines a minute": CODE_LINES_PER_MINUTE,
    "output lines a minute": OUTPUT_LINES_PER_MINUTE,
    "minutes an exercise": EXERCISE_MINUTES,
    "minutes a design exercise": DESIGN_MINUTES,
    "minutes a prediction": PREDICTION_MINUTES,
    "minutes the first panel": PANEL_MINUTES,
    "minutes each further panel": MORE_PANEL_MINUTES,
    "seconds running a code cell": CELL_SECONDS,
}
PARTS = ("prose", "code", "output", "exercises", "predictions", "panels", "running")

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
    code_cells: int = 0
    code_lines: int = 0
    output_lines: int = 0
    invariants: int = 0  # the design exercise's invariants, as its heading cell lists them
    run_seconds: float = 0.0  # a Run All with the reference solutions, measured by --time
    homework: tuple[str, ...] = ()  # the exercises of its homework cells: in none of the counts above
    homework_minutes: float = 0.0  # the homework cells' minutes at the same rates, running included

    @property
    def minutes(self) -> dict[str, float]:
        return minutes_by_part(self)

    @property
    def reading(self) -> float:
        return sum(self.minutes[k] for k in ("prose", "code", "output"))

    @property
    def doing(self) -> float:
        return sum(self.minutes[k] for k in ("exercises", "predictions", "panels", "running"))

    @property
    def total(self) -> float:
        return sum(self.minutes.values())

    @property
    def slot(self) -> int:
        return round_up(self.total)


def minutes_by_part(m: Measure) -> dict[str, float]:
    """The one place a lesson's counts become minutes, part by part (the rates are stated above)."""
    return {
        "prose": m.words / PROSE_WORDS_PER_MINUTE,
        "code": m.code_lines / CODE_LINES_PER_MINUTE,
        "output": m.output_lines / OUTPUT_LINES_PER_MINUTE,
        "exercises": (m.exercises - m.design) * EXERCISE_MINUTES + m.design * DESIGN_MINUTES,
        "predictions": m.predictions * PREDICTION_MINUTES,
        "panels": min(m.panels, 1) * PANEL_MINUTES + max(m.panels - 1, 0) * MORE_PANEL_MINUTES,
        "running": (m.code_cells * CELL_SECONDS + m.run_seconds) / 60,
    }


def round_up(minutes: float, step: int = SLOT_STEP) -> int:
    # A small tolerance, so 30.0000001 from float division stays 30.
    return step * math.ceil(minutes / step - 1e-9)


def words(text: str) -> int:
    return len(WORD.findall(text))


def _tags(cell) -> list[str]:
    return cell.get("metadata", {}).get("tags", [])


def is_homework(cell) -> bool:
    return HOMEWORK in _tags(cell)


def _defines(cells: Sequence, name: str) -> bool:
    return any(c.cell_type == "code" and f"def {name}(" in c.source for c in cells)


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


def code_lines(cells: Sequence) -> int:
    """Lines of code a learner reads: not blank, not a comment."""
    return sum(
        1
        for c in cells
        if c.cell_type == "code"
        for line in c.source.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    )


_TABLE_ROW = re.compile(r"<tr[\s>]")


def _output_lines(output) -> int:
    if output.get("output_type") == "stream":
        return len("".join(output.get("text", "")).splitlines())
    data = output.get("data", {})
    if "application/vnd.jupyter.widget-view+json" in data:
        return 0  # a widget is the panel or prediction, priced as such
    if "text/html" in data:
        return len(_TABLE_ROW.findall("".join(data["text/html"]))) or 1
    if "image/png" in data:
        return 5  # a figure, looked at for about ten seconds
    return len("".join(data.get("text/plain", "")).splitlines())


def output_lines(cells: Sequence) -> int:
    """Lines of stored output a learner reads (the learner notebooks are committed executed)."""
    return sum(_output_lines(o) for c in cells if c.cell_type == "code" for o in c.get("outputs", []))


_LIST_ITEM = re.compile(r"^(?:\* |\d+\. )", re.M)


def invariants(cells: Sequence) -> int:
    """How many invariants the design exercise lists: the items of the list in its heading cell."""
    for c in cells:
        heads = _headings(c)
        if any("design exercise" in h.lower() for h in heads):
            return len(_LIST_ITEM.findall(c.source))
    return 0


def measure(nb, lesson: str, exercise_names: Iterable[str], run_seconds: float = 0.0) -> Measure:
    """Count one notebook; ``exercise_names`` are the lesson's exercises, in order.

    Cells tagged ``homework``, and the exercises they define, are counted apart: not in the lesson's time."""
    every, exercise_names = list(nb.cells), list(exercise_names)
    cells = [c for c in every if not is_homework(c)]
    extra = [c for c in every if is_homework(c)]
    homework = [n for n in exercise_names if _defines(extra, n)]
    names = [n for n in exercise_names if n not in homework]
    title = next((h.lstrip("# ").strip() for c in every for h in _headings(c) if h.startswith("# ")), lesson)
    return Measure(
        lesson=lesson,
        title=title,
        cells=len(every),
        words=prose_words(cells),
        exercises=len(names),
        design=sum(_is_design(every, n) for n in names),
        predictions=_count(cells, "predict("),
        panels=_count(cells, "_panel("),
        code_cells=sum(1 for c in cells if c.cell_type == "code"),
        code_lines=code_lines(cells),
        output_lines=output_lines(cells),
        invariants=invariants(cells),
        run_seconds=run_seconds,
        homework=tuple(homework),
        homework_minutes=homework_minutes(extra, homework),
    )


def homework_minutes(cells: Sequence, names: Iterable[str]) -> float:
    """The homework cells' minutes: read, write and run at the lesson's rates (no Run All is measured for them)."""
    if not cells:
        return 0.0
    return _chunk(cells, names).total + sum(c.cell_type == "code" for c in cells) * CELL_SECONDS / 60


def learner_notebooks(folder: Path = LEARNER) -> dict[str, Path]:
    return {p.stem.split("_")[0]: p for p in sorted(folder.glob("[0-9][0-9]*_*.ipynb"))}


def _exercise_names() -> dict[str, list[str]]:
    from botie.lessons.exercises.catalogue import BY_LESSON

    return {lesson: [e.name for e in group] for lesson, group in BY_LESSON.items()}


def read_times(path: Path = TIMES) -> dict:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"lessons": {}}


def measure_all(folder: Path = LEARNER, times: Path = TIMES) -> list[Measure]:
    names = _exercise_names()
    recorded = read_times(times)["lessons"]
    return [
        measure(
            nbformat.read(path, as_version=4),
            lesson,
            names.get(lesson, ()),
            recorded.get(lesson, {}).get("run_all_seconds", 0.0),
        )
        for lesson, path in learner_notebooks(folder).items()
    ]


def times_record(measures: Sequence[Measure], previous: dict | None = None) -> dict:
    """The one source: every lesson's counts and minutes by part; the read-through is carried over."""
    previous = previous or {"lessons": {}}
    lessons = {}
    for m in measures:
        kept = previous["lessons"].get(m.lesson, {})
        lessons[m.lesson] = {
            "title": m.title,
            "cells": m.cells,
            "code_cells": m.code_cells,
            "prose_words": m.words,
            "code_lines": m.code_lines,
            "output_lines": m.output_lines,
            "exercises": m.exercises,
            "design_exercises": m.design,
            "invariants": m.invariants,
            "predictions": m.predictions,
            "panels": m.panels,
            "run_all_seconds": m.run_seconds,
            "minutes": {part: round(v, 1) for part, v in m.minutes.items()},
            "total_minutes": round(m.total, 1),
            "slot": m.slot,
            "homework_exercises": list(m.homework),
            "homework_minutes": round(m.homework_minutes, 1),
            **({"read_through": kept["read_through"]} if "read_through" in kept else {}),
        }
    return {
        "about": previous.get("about", ""),
        "rates": RATES,
        "max_lesson_minutes": MAX_LESSON_MINUTES,
        "lessons": lessons,
    }


def write_times(measures: Sequence[Measure], path: Path = TIMES) -> dict:
    record = times_record(measures, read_times(path))
    path.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return record


def measured_table(measures: Sequence[Measure]) -> str:
    lines = [
        "| lesson | cells | predictions | exercises | prose | code | output | exercises | predictions "
        "| panels | running | total | slot |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for m in measures:
        exercises = f"{m.exercises} ({m.design} design)" if m.design else str(m.exercises)
        minutes = " | ".join(f"{m.minutes[part]:.1f}" for part in PARTS)
        lines.append(
            f"| {m.title} | {m.cells} | {m.predictions} | {exercises} | {minutes} | {m.total:.1f} | {m.slot} |"
        )
    sums = " | ".join(f"{sum(m.minutes[part] for m in measures):.1f}" for part in PARTS)
    lines.append(
        f"| all lessons | {sum(m.cells for m in measures)} | {sum(m.predictions for m in measures)} | "
        f"{sum(m.exercises for m in measures)} | {sums} | {sum(m.total for m in measures):.1f} | "
        f"{sum(m.slot for m in measures)} |"
    )
    homework = [
        f"{m.lesson} {_homework_label(m)} (about {m.homework_minutes:.0f} minutes)"
        for m in measures
        if m.homework_minutes
    ]
    if homework:
        lines += ["", f"Homework, optional and done after the lesson, so in no minutes above: {'; '.join(homework)}."]
    return "\n".join(lines)


def _names(names: Iterable[str]) -> str:
    return ", ".join(f"`{n}`" for n in names)


def _homework_label(m: Measure) -> str:
    # Homework without an exercise (reading and running only, as lesson 06's own model) is still homework.
    return _names(m.homework) or "its homework section"


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


def _chunk(cells: Sequence, names: Iterable[str] = ()) -> Measure:
    """A part of a lesson measured like a whole one (no title, no Run All time)."""
    names = list(names)
    return Measure(
        lesson="",
        title="",
        cells=len(cells),
        words=prose_words(cells),
        exercises=len(names),
        design=sum(_is_design(cells, n) for n in names),
        predictions=_count(cells, "predict("),
        panels=_count(cells, "_panel("),
        code_lines=code_lines(cells),
        output_lines=output_lines(cells),
    )


def parts(nb, exercise_names: Iterable[str]) -> list[tuple[str, float]]:
    """Minutes per heading (## and ###, up to the next heading) and per exercise, without the running time."""
    out: list[tuple[str, float]] = []
    cells = list(nb.cells)
    starts = [i for i, c in enumerate(cells) if any(h.startswith(("## ", "### ")) for h in _headings(c))]
    for n, i in enumerate(starts):
        chunk = cells[i : starts[n + 1] if n + 1 < len(starts) else len(cells)]
        heading = next(h for h in _headings(cells[i]) if h.startswith(("## ", "### ")))
        marked = is_homework(cells[i]) and "homework" not in heading.lower()  # say so once, if its heading does not
        out.append((heading + (" (homework)" if marked else ""), _chunk(chunk).total))
    homework = [c for c in cells if is_homework(c)]
    for name in exercise_names:
        label = f"`{name}`" + (" (homework)" if _defines(homework, name) else "")
        out.append((label, DESIGN_MINUTES if _is_design(cells, name) else EXERCISE_MINUTES))
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
    checked = [m for c in chunk if c.cell_type == "code" for m in re.findall(r"^\s*check\((\w+)\)", c.source, re.M)]
    design = sum(_is_design(cells, n) for n in checked)
    return _chunk(chunk).total + (len(checked) - design) * EXERCISE_MINUTES + design * DESIGN_MINUTES


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


def lesson_blocks(text: str) -> dict[str, tuple[int, int]]:
    """Where each lesson's block in the guide starts and ends (from its "## NN · " heading to the next "## ")."""
    heads = [(m.group(1), m.start()) for m in re.finditer(r"^## (\d\d[a-z]?) · ", text, re.M)]
    blocks = {}
    for lesson, start in heads:
        nxt = re.search(r"^## ", text[start + 3 :], re.M)
        blocks[lesson] = (start, start + 3 + nxt.start() if nxt else len(text))
    return blocks


TIMING = re.compile(r"^\*\*Timing\.\*\* .*?(?=\n\n)", re.M | re.S)


def timing_paragraph(m: Measure) -> str:
    homework = (
        f" Its homework ({_homework_label(m)}, about {m.homework_minutes:.0f} minutes) is optional, done after "
        "the lesson, and not in that time."
        if m.homework_minutes
        else ""
    )
    return (
        f"**Timing.** About {m.slot} minutes by the measured table above ({m.total:.0f} before rounding), and the "
        f"day gives it {m.slot}; the notebook's note states the same, from `docs/lesson_times.json`.{homework}"
    )


def write_guide(measures: Sequence[Measure], guide: Path = GUIDE) -> None:
    text = guide.read_text(encoding="utf-8")
    text = _replace_between(text, "measured", measured_table(measures))
    text = _replace_between(text, "day", day_table(measures))
    text = _replace_between(text, "room", room_table(m.lesson for m in measures))
    for m in measures:  # each lesson's block in the guide is headed with its slot, and says it once more
        text = re.sub(
            rf"^(## {m.lesson} · [^\n]*?)\(about \d+ minutes\)$",
            rf"\g<1>(about {m.slot} minutes)",
            text,
            flags=re.M,
        )
        start, end = lesson_blocks(text)[m.lesson]
        paragraph = timing_paragraph(m)
        block = TIMING.sub(paragraph.replace("\\", "\\\\"), text[start:end], count=1)
        text = text[:start] + block + text[end:]
    guide.write_text(text, encoding="utf-8")


# The notes are block quotes: the sentence may wrap onto a line starting "> ".
NOTE_TIMING = re.compile(r"Timing: about\s+(?:>\s*)?\d+\s+(?:>\s*)?minutes[^.]*\.")


def write_notes(measures: Sequence[Measure], folder: Path = INSTRUCTOR) -> list[Path]:
    """Each instructor note's "Timing: about N minutes." from the measurement; only those cells' sources change."""
    slots = {m.lesson: m.slot for m in measures}
    written = []
    for lesson, path in learner_notebooks(folder).items():
        raw = path.read_text(encoding="utf-8")
        nb = nbformat.reads(raw, as_version=4)
        for cell in nb.cells:
            if "instructor-only" in _tags(cell) and lesson in slots:
                cell.source = NOTE_TIMING.sub(f"Timing: about {slots[lesson]} minutes.", cell.source)
        new = nbformat.writes(nb) + "\n"
        if new != raw:
            path.write_text(new, encoding="utf-8")
            written.append(path)
    return written


def time_run_all(lesson_path: Path, cwd: Path = LEARNER) -> float:
    """Seconds of one Run All of the learner edition with the reference solutions left in (a fresh kernel).

    Homework cells are left out: they are run after the lesson, and their time is counted apart."""
    import time

    from botie.lessons.tooling import editions

    source = nbformat.read(lesson_path, as_version=4)
    nb = nbformat.v4.new_notebook(metadata=dict(source.metadata))
    for cell in source.cells:
        if editions.INSTRUCTOR_ONLY in _tags(cell) or is_homework(cell):
            continue
        if cell.cell_type == "code":
            kept = [line for line in cell.source.splitlines() if line.strip() not in (editions.BEGIN, editions.END)]
            cell = nbformat.v4.new_code_cell("\n".join(kept), metadata=dict(cell.metadata))
        nb.cells.append(cell)
    began = time.perf_counter()
    editions.execute(nb, cwd)
    return round(time.perf_counter() - began, 1)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--day", action="store_true", help="the day's agenda with breaks and lunch")
    what.add_argument("--parts", metavar="NN", help="minutes per section and exercise of lesson NN")
    what.add_argument("--time", action="store_true", help="time a Run All of each lesson; record the seconds")
    what.add_argument("--write", action="store_true", help="write docs/lesson_times.json, the guide and notes")
    args = parser.parse_args(argv)
    if args.time:
        record = read_times()
        for lesson, path in learner_notebooks(INSTRUCTOR).items():
            seconds = time_run_all(path)
            record["lessons"].setdefault(lesson, {})["run_all_seconds"] = seconds
            print(f"{lesson}: Run All in {seconds} s")
        TIMES.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        return 0
    measures = measure_all()
    if args.write:
        write_times(measures)
        write_guide(measures)
        notes = write_notes(measures)
        print(f"wrote {TIMES.relative_to(ROOT)}, {GUIDE.relative_to(ROOT)} and {len(notes)} instructor notes")
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
