"""The agenda is measured from the notebooks (tools/agenda.py), and the guide's day is never shorter than that.

The notebooks are read live: when a lesson grows, the guide's slot for it must grow too
(``python tools/agenda.py --write`` regenerates the tables).
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from tools import agenda

ROOT = Path(__file__).resolve().parents[2]
GUIDE = (ROOT / "notebooks" / "instructor" / "README.md").read_text(encoding="utf-8")
MEASURES = {m.lesson: m for m in agenda.measure_all()}


def tiny_notebook():
    """400 words to read, a plain exercise, a design exercise, a prediction, a panel, and a cast card."""
    prose = " ".join(["word"] * 196) + " it's the N·m test-case"  # 196 + it's, the, N, m, test-case = 201
    cast = new_markdown_cell("| id | what it is |\n|---|---|\n| `x` | not counted: folded reference |")
    cast.metadata["tags"] = ["cast-card"]
    return new_notebook(
        cells=[
            new_markdown_cell("# 09 · A tiny lesson\n\n" + prose),  # 201 + '09', 'A', 'tiny', 'lesson' = 205
            cast,
            new_code_cell('predict("q").widget'),
            new_code_cell("some_panel(scene).widget"),
            new_markdown_cell("### Exercise 1: plain"),  # 3 words
            new_code_cell("def plain(x):\n    return x"),
            new_markdown_cell("### Design exercise: your own rule\n\n" + " ".join(["rule"] * 187)),  # 5 + 187
            new_code_cell("def mine(x):\n    raise NotImplementedError"),
            new_code_cell("check(mine)"),
        ]
    )


def test_the_counting_on_a_tiny_notebook():
    m = agenda.measure(tiny_notebook(), "09", ["plain", "mine"])
    assert (m.title, m.cells, m.words) == ("09 · A tiny lesson", 9, 400)
    assert (m.exercises, m.design, m.predictions, m.panels) == (2, 1, 1, 1)
    # 400 / 200 = 2 reading; 8 + 12 + 2 + 3 + 3 = 28 doing; 30 exactly stays 30
    assert (m.reading, m.doing, m.slot) == (2.0, 28, 30)


def test_one_word_more_rounds_the_slot_up_to_the_next_five():
    nb = tiny_notebook()
    nb.cells[0].source += " more"
    assert agenda.measure(nb, "09", ["plain", "mine"]).slot == 35


def test_a_heading_without_design_exercise_is_a_plain_exercise():
    nb = tiny_notebook()
    nb.cells[6].source = nb.cells[6].source.replace("Design exercise", "Exercise 2")
    m = agenda.measure(nb, "09", ["plain", "mine"])
    assert (m.design, m.doing) == (0, 24)


def test_the_words_are_counted_as_the_lessons_prose_limit_counts_them():
    assert agenda.words("it's N·m, a test-case; 18 ‘quoted’ don’t") == 8


def test_the_guide_lists_exactly_the_lessons_present():
    from botie.lessons.exercises.catalogue import BY_LESSON

    present = sorted(agenda.learner_notebooks())
    measured = GUIDE.split("<!-- agenda:measured -->", 1)[1].split("<!-- /agenda:measured -->", 1)[0]
    in_table = re.findall(r"^\| (\d\d) · ", measured, flags=re.M)
    day = GUIDE.split("<!-- agenda:day -->", 1)[1].split("<!-- /agenda:day -->", 1)[0]
    in_day = re.findall(r"^\| \d\d:\d\d \| (\d\d) · ", day, flags=re.M)
    assert present == sorted(BY_LESSON) == sorted(agenda.learner_notebooks(ROOT / "notebooks" / "instructor"))
    assert in_table == in_day == present


@pytest.mark.parametrize("lesson", sorted(MEASURES))
def test_the_guides_slot_for_a_lesson_is_at_least_its_measurement(lesson):
    day = GUIDE.split("<!-- agenda:day -->", 1)[1].split("<!-- /agenda:day -->", 1)[0]
    slots = {n: int(minutes) for n, minutes in re.findall(r"^\| \d\d:\d\d \| (\d\d) · .+? \| (\d+) \|$", day, re.M)}
    assert slots[lesson] >= MEASURES[lesson].slot, (
        f"lesson {lesson} measures {MEASURES[lesson].slot} minutes; run `python tools/agenda.py --write`"
    )


def cut_rows() -> list[tuple[str, str, str, int]]:
    cuts = GUIDE.split("**When you fall behind**", 1)[1].split("\n\n---", 1)[0]
    return [
        (w, lesson, part, int(n))
        for w, lesson, part, n in re.findall(
            r"^\| (.+?) \| (\d\d) \| (section \d+|`\w+`) \| (\d+) \|$", cuts, flags=re.M
        )
    ]


def test_no_cut_claims_to_save_more_than_its_part_costs():
    rows = cut_rows()
    assert len(rows) >= 4
    for what, lesson, part, saves in rows:
        nb = nbformat.read(agenda.learner_notebooks()[lesson], as_version=4)
        if part.startswith("section"):
            costs = agenda.section_minutes(nb, int(part.split()[1]))
        else:
            costs = dict(agenda.parts(nb, [part.strip("`")]))[part]
        assert 0 < costs and saves <= costs, f"{what}: saves {saves}, the part measures {costs:.1f}"


def test_the_cut_lists_total_is_its_rows():
    rows = cut_rows()
    words = {4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}
    assert f"All {words[len(rows)]} cuts give back {sum(r[3] for r in rows)} minutes." in GUIDE


def test_the_day_never_cuts_a_wrong_on_purpose_section():
    for what, lesson, part, _ in cut_rows():
        if part.startswith("section"):
            nb = nbformat.read(agenda.learner_notebooks()[lesson], as_version=4)
            heading = next(
                c.source for c in nb.cells if c.cell_type == "markdown" and f"## {part.split()[1]}. " in c.source
            )
            assert "Wrong on purpose" not in heading.split(f"## {part.split()[1]}. ", 1)[1].splitlines()[0], what


def test_writing_the_guide_puts_the_tools_tables_between_the_markers(tmp_path):
    copy = tmp_path / "README.md"
    copy.write_text(GUIDE, encoding="utf-8")
    measures = list(MEASURES.values())
    agenda.write_guide(measures, copy)
    written = copy.read_text(encoding="utf-8")
    assert agenda.measured_table(measures) in written and agenda.day_table(measures) in written
    assert written.count("<!-- agenda:day -->") == 1 and "## Syllabus coverage" in written
