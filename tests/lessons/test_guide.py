"""The instructor guide quotes the code: its section references exist, its numbers are what the code computes.

``notebooks/instructor/README.md`` is prose an instructor reads aloud. These tests fail when a lesson's sections
are renumbered, when a panel's starting point moves, or when the syllabus coverage table names a section that
is not there.
"""

from __future__ import annotations

import itertools
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
    """The guide's text per lesson, keyed '00'..'06' (from '## 01 · ...' to the next '## ')."""
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


def day_rows() -> list[tuple[int, str, int | None]]:
    """The guide's day: (start minute, what, minutes); the last row, "end", has no minutes."""
    day = GUIDE.split("<!-- agenda:day -->", 1)[1].split("<!-- /agenda:day -->", 1)[0]
    rows = re.findall(r"^\| (\d\d):(\d\d) \| (.+?) \| (\d*) ?\|$", day, flags=re.M)
    return [(int(h) * 60 + int(m), what, int(n) if n else None) for h, m, what, n in rows]


def test_the_day_states_its_length_and_its_times_add_up():
    rows = day_rows()
    assert rows[-1][1:] == ("end", None)
    for (at, _, minutes), (following, _, _) in itertools.pairwise(rows):
        assert at + minutes == following
    start, end = rows[0][0], rows[-1][0]
    taught = sum(n for _, what, n in rows if re.match(r"0\d · ", what))
    hours, minutes = divmod(end - start, 60)
    stated = (
        f"The day runs from {start // 60:02d}:{start % 60:02d} to {end // 60:02d}:{end % 60:02d}: "
        f"{hours} hours {minutes} minutes, {taught} minutes of them lessons."
    )
    assert stated in GUIDE
    assert [what for _, what, _ in rows].count("lunch") == 1


def test_the_day_never_runs_more_than_90_minutes_without_a_break():
    stretch = 0
    for _, what, minutes in day_rows()[:-1]:
        stretch = 0 if what in ("break", "lunch") else stretch + minutes
        assert stretch <= 90, what


def test_each_lessons_block_is_headed_with_its_minutes_in_the_day():
    in_day = {what[:2]: n for _, what, n in day_rows() if re.match(r"0\d · ", what)}
    headed = dict(re.findall(r"^## (0\d) · .*?\(about (\d+) minutes\)$", GUIDE, flags=re.M))
    assert {lesson: int(n) for lesson, n in headed.items()} == in_day


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


SOLUTION_COUNT = {"One": 1, "Two": 2, "Three": 3, "Four": 4}


@pytest.mark.parametrize("lesson", sorted(LESSONS))
def test_an_instructor_note_counts_the_cells_that_hold_solutions(lesson):
    """ "One exercise holds a solution" in a lesson with two solution cells misleads whoever prepares the day."""
    nb = nbformat.read(LESSONS[lesson], as_version=4)
    notes = " ".join(c.source for c in nb.cells if "instructor-only" in c.metadata.get("tags", []))
    stated = re.search(r"\b(One|Two|Three|Four) exercises? (?:below )?holds? (?:its |a )?solutions?", notes)
    if stated is None:
        pytest.skip(f"lesson {lesson}'s note gives no count")
    markers = sum(1 for c in nb.cells if c.cell_type == "code" and "# BEGIN SOLUTION" in c.source)
    assert SOLUTION_COUNT[stated.group(1)] == markers, f"lesson {lesson}: the note says {stated.group(0)!r}"


def test_the_guide_says_lesson_06_has_two_cells_with_solutions():
    nb = nbformat.read(LESSONS["06"], as_version=4)
    assert sum(1 for c in nb.cells if c.cell_type == "code" and "# BEGIN SOLUTION" in c.source) == 2
    assert "Two cells of this lesson hold solutions between markers" in flat(guide_blocks()["06"])


def _span_case_failures(span_check) -> set[str]:
    import botie.lessons.exercises.lesson04  # noqa: F401  (registers the exercise)
    from botie.lessons.exercises.catalogue import run

    report = run(span_check)
    assert not isinstance(report, str), report
    return {r.case.label for r in report.results if not r.passed}


def test_a_span_check_that_forgets_blank_quotes_fails_the_cases_the_guide_names():
    def span_check(citations, context):
        return bool(citations) and all(
            c.get("id") in context and isinstance(c.get("quote"), str) and c["quote"] in context[c["id"]]
            for c in citations
        )

    failed = _span_case_failures(span_check)
    assert {"an empty quote", "a quote that is a single space"} <= failed
    assert "✗ an empty quote; ✗ a quote that is a single space" in flat(guide_blocks()["04"])


def test_a_span_check_that_searches_every_document_fails_the_case_the_guide_names():
    def span_check(citations, context):
        return bool(citations) and all(
            c.get("id") in context
            and isinstance(c.get("quote"), str)
            and c["quote"].strip()
            and any(c["quote"] in text for text in context.values())
            for c in citations
        )

    assert "a real quote attributed to the wrong document" in _span_case_failures(span_check)
    assert "✗ a real quote attributed to the wrong document" in flat(guide_blocks()["04"])


def test_the_evidence_lessons_numbers_the_guide_quotes_are_the_codes():
    from botie.context.conversation import Conversation
    from botie.lessons import load_evidence_scenario, load_scripted_model
    from botie.lessons.content.injections import PhraseFilter, injection_variants

    scenario = load_evidence_scenario()
    text = flat(guide_blocks()["04"])
    gate = scenario.select(2)
    vendor = next(r for r in scenario.candidates(2) if r.id == "vendor-p2-seal-design")
    assert f"scores {gate.best_score:.2f} against a floor of {gate.floor:.2f}" in text
    assert f"vendor file scores {vendor.score:.2f} and still does not count" in text
    by_id = {r.id: r for r in scenario.records}
    tickets = [by_id[i] for i in scenario.select(3).selected_ids]
    model, growing, first_alert = load_scripted_model(), Conversation(ceiling=1_000, answer_allowance=150), None
    question = scenario.questions[3].question
    for turn_number in range(1, 8):
        turn = growing.ask(question, tickets)
        if first_alert is None and "ALERT" in turn.request.report():
            first_alert = turn_number
        growing.add_turn(question, model.reply(turn.request).answer)
    assert "turn 6 is the first to cross 70%" in text and first_alert == 6
    last, this = injection_variants(2025, 20, newest=3), injection_variants(2026, 20)
    blocklist = PhraseFilter(last)
    assert blocklist.caught(last) == (20, 20) and blocklist.caught(this) == (16, 20)
    assert "catches 20 of 20 of them and 16 of 20 of this quarter's" in text


def test_the_escaping_and_gatekeeper_numbers_the_guide_quotes_are_the_codes():
    from botie.context.evidence import DEFAULT_INSTRUCTIONS, build_request
    from botie.lessons import fixture_path as path_of
    from botie.lessons import load_evidence_scenario, load_scripted_model
    from botie.lessons.content.injections import admitted, escalation

    scenario = load_evidence_scenario()
    by_id = {r.id: r for r in scenario.records}
    planted = {r.id: r for r in load_records(path_of("scripted_turns.json"))}
    tickets = [by_id["tkt-5521"], planted["tkt-5702"], by_id["tkt-5630"]]
    question = scenario.questions[3].question
    body = "".join(f'<document id="{r.id}">\n{r.text}\n</document>\n' for r in tickets)
    pasted = f"{DEFAULT_INSTRUCTIONS}\n\n<evidence>\n{body}</evidence>\n\nQuestion: {question}"
    careful = load_scripted_model()
    assert len(careful.reply(pasted).obeyed) == 2
    assert list(careful.reply(build_request(question, tickets, ceiling=2_000)).obeyed) == []
    questions = [q.question for q in scenario.questions]
    kept_out = admitted("tkt-5630", questions, scenario.records, k=3, design="retrieval")
    let_in = admitted("tkt-5630", questions, scenario.records, k=3, design="stuffing")
    assert len(questions) == 4 and not any(kept_out) and all(let_in)
    assert [step.prompts for step in escalation(requests_per_entry=120, users=40)][-2:] == [120, 4_800]
    text = flat(guide_blocks()["04"])
    assert "it obeys two planted instructions" in text and "retrieval keeps ticket 5630 out of all four" in text
    assert "one upload to 120 prompts, and to 4,800 when 40 users share it" in text
