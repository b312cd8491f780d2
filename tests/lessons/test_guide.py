"""The instructor guide quotes the code: its section references exist, its numbers are what the code computes.

``notebooks/instructor/README.md`` is prose an instructor reads aloud. These tests fail when a lesson's sections
are renumbered, when a panel's starting point moves, or when the syllabus coverage table names a section that
is not there.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from botie.context.routing import execute_plan, first_failing_turn, plan_context
from botie.lessons.content.fixtures import fixture_path, load_records, load_scene

ROOT = Path(__file__).resolve().parents[2]
INSTRUCTOR = ROOT / "notebooks" / "instructor"
GUIDE = (INSTRUCTOR / "README.md").read_text(encoding="utf-8")
LESSONS = {p.stem[:2]: p for p in sorted(INSTRUCTOR.glob("0*.ipynb"))}


def sections(lesson: str) -> set[str]:
    """The numbers of a lesson's numbered sections (markdown headings '## 4. ...')."""
    nb = nbformat.read(LESSONS[lesson], as_version=4)
    found = set()
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            found.update(re.findall(r"^## (\d+)\. ", cell.source, flags=re.M))
    return found


def guide_blocks() -> dict[str, str]:
    """The guide's text per lesson, keyed '00'..'05' (from '## 01 · ...' to the next '## ')."""
    parts = re.split(r"^## (0\d) · ", GUIDE, flags=re.M)
    return {parts[i]: parts[i + 1].split("\n## ")[0] for i in range(1, len(parts), 2)}


def test_the_guide_has_a_block_for_every_lesson():
    assert set(guide_blocks()) == set(LESSONS) == {"00", "01", "02", "03", "04", "05", "06"}


@pytest.mark.parametrize("lesson", ["01", "02", "03", "04", "05", "06"])
def test_every_section_the_guide_names_exists_in_that_lesson(lesson):
    named = set(re.findall(r"\bsection (\d+)\b", guide_blocks()[lesson]))
    assert named, f"the guide names no section of lesson {lesson}"
    assert named <= sections(lesson), f"lesson {lesson} has sections {sorted(sections(lesson))}, guide names {named}"


@pytest.mark.parametrize("lesson", sorted(LESSONS))
def test_every_section_an_instructor_note_names_exists(lesson):
    nb = nbformat.read(LESSONS[lesson], as_version=4)
    notes = "\n".join(c.source for c in nb.cells if "instructor-only" in c.metadata.get("tags", []))
    assert set(re.findall(r"\bsection (\d+)\b", notes)) <= sections(lesson)


def coverage_rows() -> list[tuple[str, str, str]]:
    table = GUIDE.split("## Syllabus coverage", 1)[1]
    rows = re.findall(r"^\| (.+?) \| (\d\d|gap) \| (\d*) ?\|$", table, flags=re.M)
    return [(topic, lesson, section) for topic, lesson, section in rows]


def test_the_syllabus_coverage_table_names_only_sections_that_exist():
    rows = coverage_rows()
    assert len(rows) >= 30
    for topic, lesson, section in rows:
        if lesson == "gap":
            assert section == "", topic
        else:
            assert section in sections(lesson), f"{topic}: lesson {lesson} has no section {section}"


def test_every_lesson_appears_in_the_coverage_table():
    assert {lesson for _, lesson, _ in coverage_rows()} >= {"01", "02", "03", "04", "05", "06"}


# --- numbers the guide quotes, computed here from the code ----------------------------------------


def flat(text: str) -> str:
    return " ".join(text.split())


def test_the_routing_panel_numbers_the_guide_quotes_are_the_panels_own():
    from botie.ui.routing import DEFAULTS, routing_panel

    panel = routing_panel()
    coverage = panel.coverage
    text = flat(guide_blocks()["03"])
    assert (
        f"{DEFAULTS['count']} of them, one of {DEFAULTS['largest']:,} tokens and forty of {DEFAULTS['size']:,}"
        f" ({panel.plan.total:,} in all)" in text
    )
    assert DEFAULTS["count"] - 1 == 40  # "forty" above is written out
    quoted = (
        f"{coverage.documents_in_context} read in full ({coverage.token_budget_used:,} of "
        f"{coverage.soft_budget:,} tokens), {coverage.documents_not_read} not read, "
        f"{coverage.documents_in_context} + {coverage.documents_not_read} = "
        f"{coverage.documents_attached}"
    )
    assert quoted in text


def test_the_agreement_numbers_the_guide_quotes_are_the_codes():
    coverage = execute_plan(plan_context(load_records(fixture_path("agreements_41.json")), ceiling=900_000))
    text = flat(guide_blocks()["03"])
    assert (
        f"{coverage.documents_in_context} read in full, {coverage.token_budget_used:,} tokens, "
        f"{coverage.documents_in_context} + {coverage.documents_not_read} = "
        f"{coverage.documents_attached}"
    ) in text


def test_the_first_failing_turns_the_guide_quotes_are_the_codes():
    text = flat(guide_blocks()["03"])
    at_60 = first_failing_turn(900_000, 0.6, per_turn=6_000, fixed=10_000)
    at_100 = first_failing_turn(900_000, 1.0, per_turn=6_000, fixed=10_000)
    assert f"at 60% the first turn over the ceiling is turn {at_60}, at 1.0 it is turn {at_100}" in text


def test_the_selection_panel_start_the_guide_quotes_is_the_panels_own():
    from botie.ui import selection_panel

    lines = selection_panel(load_scene(fixture_path("p2_seal.json"))).result_text().splitlines()
    selected = lines[0].removeprefix("selected: ").split(", ")
    used = re.match(r"tokens used: (\d+) of (\d+)", lines[1]).groups()
    text = flat(guide_blocks()["01"])
    assert f"`{selected[0]}` and `{selected[1]}` selected, {used[0]} of {used[1]} tokens used" in text
    assert len(selected) == 2


def test_the_day_adds_up_to_about_five_hours():
    agenda = GUIDE.split("## A day of about five hours", 1)[1].split("\n---", 1)[0]
    minutes = [int(m) for m in re.findall(r"^\| \d\d:\d\d \| .+? \| (\d+) \|$", agenda, flags=re.M)]
    assert 270 <= sum(minutes) <= 330, sum(minutes)


def test_the_likeliest_shortlist_mistake_fails_the_case_the_guide_names():
    """Dates alone, no supersession: the guide says the first case catches it, and the message shows rev 3."""
    import botie.lessons.exercises.lesson02  # noqa: F401  (registers the exercise)
    from botie.lessons.exercises.catalogue import run

    def shortlist(candidates, allowed_assets, observed_on, k):
        kept = [r for r in candidates if r.asset in allowed_assets and r.effective_date <= observed_on]
        return sorted(kept, key=lambda r: r.score, reverse=True)[:k]

    first = run(shortlist).results[0]
    assert not first.passed and "man-p2-r3-s3.2" in first.message
    label = first.case.label.replace(" (the example above)", "")
    assert f"✗ {label}" in flat(guide_blocks()["02"])
    assert "the message shows `man-p2-r3-s3.2` in the result" in flat(guide_blocks()["02"])


def test_the_coverage_table_has_no_gaps_left():
    assert [topic for topic, lesson, _ in coverage_rows() if lesson == "gap"] == []


def test_the_guides_sixteen_candidates_are_the_scenarios_sixteen_with_one_p3_section():
    from botie.lessons import load_evidence_scenario

    records = load_evidence_scenario().records
    assert len(records) == 16
    assert [r.id for r in records if r.asset == "P-3"] == ["man-p3-r1-s2"]
    assert "sixteen candidates" in GUIDE and "one section of the P-3 pump's manual" in " ".join(GUIDE.split())


def test_the_rooms_lesson_table_names_each_lessons_exercises_and_questions():
    """The guide's "During each lesson" table, against the progress places and the questions."""
    from botie.lessons.classroom.progress import PLACES
    from botie.lessons.exercises.questions import questions_for

    table = GUIDE.split("**During each lesson.**", 1)[1]
    rows = re.findall(r"^\| (0\d) \| lesson 0\d \| (.+?) \| (.+?) \|$", table, flags=re.M)
    assert [lesson for lesson, _, _ in rows] == ["00", "01", "02", "03", "04", "05", "06"]
    for lesson, exercises, questions in rows:
        named = re.findall(r"`([^`]+)`", exercises)
        assert named == [n for n, place in sorted(PLACES.items(), key=lambda i: i[1]) if place[0] == lesson]
        assert re.findall(r"`([^`]+)`", questions) == [q.id for q in questions_for(lesson)]
