"""The agenda is measured from the notebooks (tools/agenda.py), and the guide's day is never shorter than that.

The notebooks are read live: when a lesson grows, the guide's slot for it must grow too
(``python tools/agenda.py --write`` regenerates the tables).
"""

from __future__ import annotations

import dataclasses
import json
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
    assert (m.title, m.cells, m.words, m.code_cells, m.code_lines) == ("09 · A tiny lesson", 9, 400, 5, 7)
    assert (m.exercises, m.design, m.predictions, m.panels) == (2, 1, 1, 1)


def test_the_minutes_come_from_the_parts_at_the_stated_rates():
    m = dataclasses.replace(agenda.measure(tiny_notebook(), "09", ["plain", "mine"]), output_lines=60, run_seconds=30)
    assert m.minutes == pytest.approx(
        {
            "prose": 400 / 140,
            "code": 7 / 15,
            "output": 60 / 30,
            "exercises": 8 + 15,
            "predictions": 2,
            "panels": 3,
            "running": (5 * 10 + 30) / 60,
        }
    )
    assert m.total == pytest.approx(sum(m.minutes.values())) and m.slot == 35


def test_a_second_panel_costs_less_than_the_first():
    m = agenda.measure(tiny_notebook(), "09", ["plain", "mine"])
    assert dataclasses.replace(m, panels=3).minutes["panels"] == 3 + 1.5 + 1.5
    assert dataclasses.replace(m, panels=0).minutes["panels"] == 0


def homework_cells(tag: bool = True):
    """An optional exercise after the lesson: 140 words (a minute), 3 lines of code, an exercise, 2 code cells."""
    cells = [
        new_markdown_cell("## Homework (optional, after the lesson): extra\n\n" + " ".join(["more"] * 134)),
        new_code_cell("def extra(x):\n    return x"),
        new_code_cell("check(extra)"),
    ]
    for cell in cells:
        cell.metadata["tags"] = ["homework"] if tag else []
    return cells


def test_homework_is_timed_apart_and_leaves_the_lessons_minutes_as_they_were():
    lesson = agenda.measure(tiny_notebook(), "09", ["plain", "mine"])
    nb = tiny_notebook()
    nb.cells += homework_cells()
    m = agenda.measure(nb, "09", ["plain", "extra", "mine"])
    assert m.minutes == lesson.minutes and (m.exercises, m.cells) == (2, lesson.cells + 3)
    assert m.homework == ("extra",)
    assert m.homework_minutes == pytest.approx(140 / 140 + 3 / 15 + 8 + 2 * 10 / 60)
    # The same cells untagged are the lesson's own work: its minutes grow by exactly the homework's.
    nb.cells[-3:] = homework_cells(tag=False)
    untagged = agenda.measure(nb, "09", ["plain", "extra", "mine"])
    assert untagged.homework == () and untagged.exercises == 3
    assert untagged.total == pytest.approx(lesson.total + m.homework_minutes)


def test_homework_is_stated_beside_the_lessons_time_never_inside_it():
    nb = tiny_notebook()
    nb.cells += homework_cells()
    m = agenda.measure(nb, "09", ["plain", "extra", "mine"])
    paragraph = agenda.timing_paragraph(m)
    assert f"About {m.slot} minutes" in paragraph and "homework (`extra`, about 10 minutes)" in paragraph
    assert "09 `extra` (about 10 minutes)" in agenda.measured_table([m])
    parts = dict(agenda.parts(nb, ["plain", "extra", "mine"]))
    assert "`extra` (homework)" in parts and "## Homework (optional, after the lesson): extra" in parts
    assert "homework" not in agenda.timing_paragraph(agenda.measure(tiny_notebook(), "09", ["plain", "mine"]))


def test_homework_with_nothing_to_write_is_still_stated_beside_the_lessons_time():
    """Reading and running only (no exercise), as lesson 06's own model: its minutes are still named, apart."""
    nb = tiny_notebook()
    nb.cells += homework_cells()[:1]  # the heading and its reading, no exercise
    m = agenda.measure(nb, "09", ["plain", "mine"])
    assert m.homework == () and m.homework_minutes > 0
    assert "homework (its homework section, about" in agenda.timing_paragraph(m)
    assert "09 its homework section (about" in agenda.measured_table([m])


@pytest.mark.parametrize("path", sorted(agenda.learner_notebooks().values()), ids=lambda p: p.stem)
def test_a_learner_sees_as_homework_exactly_the_cells_timed_as_homework(path):
    """Each cell tagged homework sits under a "## Homework" heading that says so, and every cell there is tagged."""
    heading = ""
    for cell in nbformat.read(path, as_version=4).cells:
        tops = [h for h in agenda._headings(cell) if h.startswith("## ")]
        heading = tops[-1] if tops else heading
        under = re.match(r"## (?:\d+\. )?Homework", heading) is not None and "optional" in heading.lower()
        assert agenda.is_homework(cell) == under, (cell.get("id"), heading)


def test_the_slot_rounds_up_to_the_next_five():
    assert (agenda.round_up(30.0), agenda.round_up(30.01), agenda.round_up(59.9)) == (30, 35, 60)


def test_a_heading_without_design_exercise_is_a_plain_exercise():
    nb = tiny_notebook()
    nb.cells[6].source = nb.cells[6].source.replace("Design exercise", "Exercise 2")
    m = agenda.measure(nb, "09", ["plain", "mine"])
    assert (m.design, m.minutes["exercises"], m.invariants) == (0, 16, 0)


def test_the_invariants_are_the_items_listed_under_the_design_exercise():
    nb = tiny_notebook()
    nb.cells[6].source += "\n\n* **one**: a\n* **two**: b\n  still two\n\nThen 3. is not an item"
    assert agenda.measure(nb, "09", ["plain", "mine"]).invariants == 2


def test_output_lines_count_printed_lines_and_html_rows_but_not_widgets():
    cell = new_code_cell("x")
    cell.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="a\nb\nc\n"),
        nbformat.v4.new_output("display_data", data={"text/html": "<table><tr><td>1</td></tr><tr class=x></tr>"}),
        nbformat.v4.new_output(
            "display_data", data={"application/vnd.jupyter.widget-view+json": {}, "text/plain": "VBox"}
        ),
    ]
    assert agenda.output_lines([cell]) == 3 + 2


def test_the_words_are_counted_as_the_lessons_prose_is():
    assert agenda.words("it's N·m, a test-case; 18 ‘quoted’ don’t") == 8


def test_the_guide_lists_exactly_the_lessons_present():
    from botie.lessons.exercises.catalogue import BY_LESSON

    present = sorted(agenda.learner_notebooks())
    measured = GUIDE.split("<!-- agenda:measured -->", 1)[1].split("<!-- /agenda:measured -->", 1)[0]
    in_table = re.findall(r"^\| (\d\d[a-z]?) · ", measured, flags=re.M)
    day = GUIDE.split("<!-- agenda:day -->", 1)[1].split("<!-- /agenda:day -->", 1)[0]
    in_day = re.findall(r"^\| \d\d:\d\d \| (\d\d[a-z]?) · ", day, flags=re.M)
    assert present == sorted(BY_LESSON) == sorted(agenda.learner_notebooks(ROOT / "notebooks" / "instructor"))
    assert in_table == in_day == present


@pytest.mark.parametrize("lesson", sorted(MEASURES))
def test_the_guides_slot_for_a_lesson_is_at_least_its_measurement(lesson):
    day = GUIDE.split("<!-- agenda:day -->", 1)[1].split("<!-- /agenda:day -->", 1)[0]
    rows = re.findall(r"^\| \d\d:\d\d \| (\d\d[a-z]?) · .+? \| (\d+) \|$", day, re.M)
    slots = {n: int(minutes) for n, minutes in rows}
    assert slots[lesson] >= MEASURES[lesson].slot, (
        f"lesson {lesson} measures {MEASURES[lesson].slot} minutes; run `python tools/agenda.py --write`"
    )


def cut_rows() -> list[tuple[str, str, str, int]]:
    cuts = GUIDE.split("**When you fall behind**", 1)[1].split("\n\n---", 1)[0]
    return [
        (w, lesson, part, int(n))
        for w, lesson, part, n in re.findall(
            r"^\| (.+?) \| (\d\d[a-z]?) \| (section \d+|`\w+`) \| (\d+) \|$", cuts, flags=re.M
        )
    ]


def test_no_cut_claims_to_save_more_than_its_part_costs():
    rows = cut_rows()
    assert len(rows) >= 3
    for what, lesson, part, saves in rows:
        nb = nbformat.read(agenda.learner_notebooks()[lesson], as_version=4)
        if part.startswith("section"):
            costs = agenda.section_minutes(nb, int(part.split()[1]))
        else:
            costs = dict(agenda.parts(nb, [part.strip("`")]))[part]
        assert 0 < costs and saves <= costs, f"{what}: saves {saves}, the part measures {costs:.1f}"


def test_the_cut_lists_total_is_its_rows():
    rows = cut_rows()
    words = {3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}
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


# --- one source: docs/lesson_times.json, the guide and the instructor notes agree ---------------------------------

TIMES = json.loads(agenda.TIMES.read_text(encoding="utf-8"))
NUMBER = {w: n for n, w in enumerate("zero one two three four five six seven eight nine ten".split())}
NUMBER.update({str(n): n for n in range(100)})


def test_the_times_file_is_the_measurement_of_the_notebooks_as_they_are():
    """Counts and minutes by part; stale after a notebook changes until `python tools/agenda.py --write`."""
    fresh = agenda.times_record(list(MEASURES.values()), TIMES)
    assert TIMES["rates"] == agenda.RATES and TIMES["max_lesson_minutes"] == agenda.MAX_LESSON_MINUTES
    for lesson, row in fresh["lessons"].items():
        assert TIMES["lessons"][lesson] == row, f"lesson {lesson}: run `python tools/agenda.py --write`"
    assert set(TIMES["lessons"]) == set(MEASURES)


@pytest.mark.parametrize("lesson", sorted(MEASURES))
def test_every_lesson_has_a_measured_run_all_and_a_read_through(lesson):
    row = TIMES["lessons"][lesson]
    assert row["run_all_seconds"] > 0, "run `python tools/agenda.py --time`"
    read = row["read_through"]
    assert read["sections"] and read["total_minutes"] == pytest.approx(sum(read["sections"].values()), abs=0.05)


def test_the_guides_measured_table_is_the_times_files():
    measured = GUIDE.split("<!-- agenda:measured -->", 1)[1].split("<!-- /agenda:measured -->", 1)[0]
    stated = {
        n: (float(t), int(s))
        for n, t, s in re.findall(r"^\| (\d\d[a-z]?) · .*? \| ([\d.]+) \| (\d+) \|$", measured, re.M)
    }
    assert stated == {n: (row["total_minutes"], row["slot"]) for n, row in TIMES["lessons"].items()}


def _counts_stated(text: str, noun: str) -> list[int]:
    """Every "<number> <noun>" in the text (a word or digits), as a number."""
    found = re.findall(rf"\b(\w+) (?:{noun})\b", text, flags=re.I)
    return [NUMBER[w.lower()] for w in found if w.lower() in NUMBER]


def _notes(lesson: str) -> str:
    path = agenda.learner_notebooks(agenda.INSTRUCTOR)[lesson]
    nb = nbformat.read(path, as_version=4)
    notes = " ".join(c.source for c in nb.cells if "instructor-only" in c.metadata.get("tags", []))
    return " ".join(re.sub(r"^> ?", "", notes, flags=re.M).split())


@pytest.mark.parametrize("lesson", sorted(MEASURES))
def test_each_instructor_note_states_the_times_files_minutes_and_counts(lesson):
    row, notes = TIMES["lessons"][lesson], _notes(lesson)
    assert re.findall(r"Timing: about (\d+) minutes", notes) == [str(row["slot"])], notes
    exercises = _counts_stated(notes, "exercises?")  # the first count is the lesson's ("Four exercises hold ...")
    assert exercises[:1] == [row["exercises"]], notes
    assert set(_counts_stated(notes, "invariants")) <= {row["invariants"]}, notes
    assert set(_counts_stated(notes, "predictions")) <= {row["predictions"]}, notes


def _guide_block(lesson: str) -> str:
    start, end = agenda.lesson_blocks(GUIDE)[lesson]
    return " ".join(GUIDE[start:end].split())


@pytest.mark.parametrize("lesson", sorted(MEASURES))
def test_each_lessons_block_in_the_guide_states_the_times_files_minutes_and_counts(lesson):
    row, block = TIMES["lessons"][lesson], _guide_block(lesson)
    assert re.match(rf"## {lesson} · .*?\(about {row['slot']} minutes\)", block)
    assert agenda.timing_paragraph(MEASURES[lesson]) in block
    assert set(_counts_stated(block, "invariants")) <= {row["invariants"]}, lesson
    assert set(_counts_stated(block, "predictions")) <= {row["predictions"]}, lesson


def test_the_count_reader_reads_words_and_digits():
    assert _counts_stated("keeps the five invariants; 3 invariants; invariants alone", "invariants") == [5, 3]
    assert _counts_stated("Four exercises; one exercise is a design", "exercises?") == [4, 1]


def test_writing_the_notes_changes_only_the_timing_sentence_of_instructor_cells(tmp_path):
    source = agenda.learner_notebooks(agenda.INSTRUCTOR)["02a"]
    copy = tmp_path / source.name
    nb = nbformat.read(source, as_version=4)
    note = next(c for c in nb.cells if "instructor-only" in c.metadata.get("tags", []))
    note.source = note.source.replace(
        f"Timing: about {TIMES['lessons']['02a']['slot']} minutes.", "Timing: about 5 minutes."
    )
    nbformat.write(nb, copy)
    before = nbformat.read(copy, as_version=4)
    agenda.write_notes([MEASURES["02a"]], tmp_path)
    after = nbformat.read(copy, as_version=4)
    changed = [(a.id, a.source) for a, b in zip(after.cells, before.cells) if a.source != b.source]
    assert [i for i, _ in changed] == [note.id]
    assert f"Timing: about {MEASURES['02a'].slot} minutes." in changed[0][1]
    assert [c.get("outputs") for c in after.cells] == [c.get("outputs") for c in before.cells]
