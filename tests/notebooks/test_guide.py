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
from tests.lessons.exercises.test_checks import WRONG as _CHECKS_WRONG

ROOT = Path(__file__).resolve().parents[2]
INSTRUCTOR = ROOT / "notebooks" / "instructor"
GUIDE = (INSTRUCTOR / "README.md").read_text(encoding="utf-8")
LESSONS = {p.stem.split("_")[0]: p for p in sorted(INSTRUCTOR.glob("0*.ipynb"))}


def sections(lesson: str) -> set[str]:
    """The numbers of a lesson's numbered sections (markdown headings '## 4. ...')."""
    nb = nbformat.read(LESSONS[lesson], as_version=4)
    found = set()
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            found.update(re.findall(r"^## (\d+)\. ", cell.source, flags=re.M))
    return found


def guide_blocks() -> dict[str, str]:
    """The guide's text per lesson, keyed '00'..'06' or '02a' (from '## 01 · ...' to the next '## ')."""
    parts = re.split(r"^## (0\d[a-z]?) · ", GUIDE, flags=re.M)
    return {parts[i]: parts[i + 1].split("\n## ")[0] for i in range(1, len(parts), 2)}


def test_the_guide_has_a_block_for_every_lesson():
    assert set(guide_blocks()) == set(LESSONS) >= {"00", "01", "02a", "02b", "03", "04", "06"}


@pytest.mark.parametrize("lesson", sorted(set(LESSONS) - {"00"}))
def test_every_section_the_guide_names_exists_in_that_lesson(lesson):
    named = set(re.findall(r"\bsection (\d+)\b(?!\.\d)", guide_blocks()[lesson]))  # not a manual's "section 6.1"
    assert named, f"the guide names no section of lesson {lesson}"
    assert named <= sections(lesson), f"lesson {lesson} has sections {sorted(sections(lesson))}, guide names {named}"


@pytest.mark.parametrize("lesson", sorted(LESSONS))
def test_every_section_an_instructor_note_names_exists(lesson):
    nb = nbformat.read(LESSONS[lesson], as_version=4)
    notes = "\n".join(c.source for c in nb.cells if "instructor-only" in c.metadata.get("tags", []))
    assert set(re.findall(r"\bsection (\d+)\b", notes)) <= sections(lesson)


def coverage_rows() -> list[tuple[str, str, str]]:
    table = GUIDE.split("## Syllabus coverage", 1)[1]
    rows = re.findall(r"^\| (.+?) \| (\d\d[a-z]?|gap) \| (\d*) ?\|$", table, flags=re.M)
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
    assert {lesson for _, lesson, _ in coverage_rows()} >= set(LESSONS) - {"00"}


# --- numbers the guide quotes, computed here from the code ----------------------------------------


def flat(text: str) -> str:
    return " ".join(text.split())


def test_the_routing_panel_numbers_the_guide_quotes_are_the_panels_own():
    from botie.lessons.ui.routing import DEFAULTS, routing_panel

    panel = routing_panel()
    coverage = panel.coverage
    text = flat(guide_blocks()["03"])
    assert panel.plan is not None
    assert (
        f"{DEFAULTS['count']} of them, one of {DEFAULTS['largest']:,} tokens and forty of {DEFAULTS['size']:,}"
        f" ({panel.plan.total:,} in all)" in text
    )
    assert DEFAULTS["count"] - 1 == 40  # "forty" above is written out
    assert coverage is not None
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
    at_60 = first_failing_turn(900_000, 0.6, per_turn=11_500, fixed=10_000)
    at_100 = first_failing_turn(900_000, 1.0, per_turn=11_500, fixed=10_000)
    assert f"at 60% the first turn over the ceiling is turn {at_60}, at 1.0 it is turn {at_100}" in text


def test_the_selection_panel_start_the_guide_quotes_is_the_panels_own():
    from botie.lessons.ui import selection_panel

    lines = selection_panel(load_scene(fixture_path("p2_seal.json"))).result_text().splitlines()
    selected = lines[0].removeprefix("selected: ").split(", ")
    found = re.match(r"tokens used: (\d+) of (\d+)", lines[1])
    assert found is not None
    used = found.groups()
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
        assert minutes is not None
        assert at + minutes == following
    start, end = rows[0][0], rows[-1][0]
    taught = sum(n for _, what, n in rows if n is not None and re.match(r"0\d[a-z]? · ", what))
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
        assert minutes is not None
        stretch = 0 if what in ("break", "lunch") else stretch + minutes
        assert stretch <= 90, what


def test_each_lessons_block_is_headed_with_its_minutes_in_the_day():
    in_day = {what.split(" · ")[0]: n for _, what, n in day_rows() if re.match(r"0\d[a-z]? · ", what)}
    headed = dict(re.findall(r"^## (0\d[a-z]?) · .*?\(about (\d+) minutes\)$", GUIDE, flags=re.M))
    assert {lesson: int(n) for lesson, n in headed.items()} == in_day


def test_the_likeliest_shortlist_mistake_fails_the_case_the_guide_names():
    """Dates alone, no supersession: the guide says the first case catches it, and the message shows rev 3."""
    import botie.lessons.exercises.lesson02a  # noqa: F401  (registers the exercise)
    from botie.lessons.exercises.catalogue import run

    def shortlist(candidates, allowed_assets, observed_on, k, register):
        kept = [r for r in candidates if r.asset in allowed_assets and r.effective_date <= observed_on]
        return sorted(kept, key=lambda r: r.score, reverse=True)[:k]

    report = run(shortlist)
    assert not isinstance(report, str)
    first = report.results[0]
    assert not first.passed and "man-p2-r3-s3.2" in first.message
    label = first.case.label.replace(" (the example above)", "")
    assert f"✗ {label}" in flat(guide_blocks()["02a"])
    assert "the message shows `man-p2-r3-s3.2` in the result" in flat(guide_blocks()["02a"])


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
    from botie.lessons.exercises.questions import questions_for
    from botie.lessons.learner.progress import PLACES

    table = GUIDE.split("**During each lesson.**", 1)[1]
    rows = re.findall(r"^\| (0\d[a-z]?) \| lesson 0\d[a-z]? \| (.+?) \| (.+?) \|$", table, flags=re.M)
    assert [lesson for lesson, _, _ in rows] == sorted(LESSONS)
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
    stated = re.search(
        r"\b(One|Two|Three|Four) exercises? (?:below )?holds? (?:its |a |one possible )?solutions?", notes
    )
    assert stated is not None, f"lesson {lesson}'s note does not say how many exercises hold solutions"
    markers = sum(1 for c in nb.cells if c.cell_type == "code" and "# BEGIN SOLUTION" in c.source)
    assert SOLUTION_COUNT[stated.group(1)] == markers, f"lesson {lesson}: the note says {stated.group(0)!r}"


def solution_cells(lesson: str) -> int:
    nb = nbformat.read(LESSONS[lesson], as_version=4)
    return sum(1 for c in nb.cells if c.cell_type == "code" and "# BEGIN SOLUTION" in c.source)


@pytest.mark.parametrize("lesson", sorted(LESSONS))
def test_each_lessons_block_counts_the_cells_that_hold_solutions(lesson):
    """Whoever prepares the day reads "N cells hold solutions": N is the number of BEGIN SOLUTION cells."""
    stated = re.findall(
        r"\b(One|Two|Three|Four) cells? of this lesson holds? (?:a )?solutions?", guide_blocks()[lesson]
    )
    assert len(stated) == 1, f"lesson {lesson}'s block states its solution count {len(stated)} times"
    assert SOLUTION_COUNT[stated[0]] == solution_cells(lesson)


def test_the_guide_says_lesson_06_has_two_cells_with_solutions_and_none_in_the_capstone():
    assert solution_cells("06") == 2
    text = flat(guide_blocks()["06"])
    assert "Two cells of this lesson hold solutions between markers" in text
    nb = nbformat.read(LESSONS["06"], as_version=4)
    capstone = [c for c in nb.cells if c.cell_type == "code" and "run_capstone(" in c.source]
    assert capstone and not any("# BEGIN SOLUTION" in c.source for c in capstone)
    assert "The capstone holds none" in text


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
        assert turn.request is not None
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
    from botie.lessons import fixture_path as path_of, load_evidence_scenario, load_scripted_model
    from botie.lessons.content.injections import admitted, escalation, standing

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
    places = [p.verdict for p in standing("tkt-5630", questions, scenario.records, k=3)]
    let_in = admitted("tkt-5630", questions, scenario.records, k=3, design="stuffing")
    assert len(questions) == 4 and places == ["outscored", "outscored", "tied at the cut", "outscored"]
    assert all(let_in)
    assert [step.prompts for step in escalation(requests_per_entry=120, users=40)][-2:] == [120, 4_800]
    text = flat(guide_blocks()["04"])
    assert "it obeys two planted instructions" in text and "ties at 0.20 with ten others" in text
    assert "only the order of ties (by id) keeps it out" in text
    assert "one upload to 120 prompts, and to 4,800 when 40 users share it" in text


# --- each lesson's block against its notebook: timing, predictions, exercises, panels --------------


def predictions_by_section(lesson: str) -> dict[str, str]:
    """Each prediction the notebook asks, and the number of the section it is asked in."""
    nb = nbformat.read(LESSONS[lesson], as_version=4)
    section, found = "", {}
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            headings = re.findall(r"^## (\d+)\. ", cell.source, flags=re.M)
            section = headings[-1] if headings else section
        else:
            for question in re.findall(r'predict\("([^"]+)"\)', cell.source):
                found[question] = section
    return found


@pytest.mark.parametrize("lesson", ["00", "02a", "02b", "04", "05a", "05b", "06"])
def test_each_prediction_the_block_names_is_asked_in_the_section_it_gives(lesson):
    from botie.lessons.exercises.questions import questions_for

    named = dict((q, n) for n, q in re.findall(r"Section (\d+), `([\w-]+)`", guide_blocks()[lesson]))
    asked = predictions_by_section(lesson)
    assert named == asked
    assert set(named) == {q.id for q in questions_for(lesson)}


@pytest.mark.parametrize("lesson", sorted(LESSONS))
def test_each_lessons_block_names_every_exercise_of_the_lesson(lesson):
    from botie.lessons.learner.progress import PLACES

    text = guide_blocks()[lesson]
    for name, place in PLACES.items():
        if place[0] == lesson:
            assert f"`{name}`" in text, f"lesson {lesson}'s block never names {name}"


def test_every_lesson_has_a_panel_to_present():
    """The guide says `make present` can show any lesson from 00 to 06: each one builds a panel."""
    for lesson, path in LESSONS.items():
        nb = nbformat.read(path, as_version=4)
        assert any(re.search(r"\b\w+_panel\(", c.source) for c in nb.cells if c.cell_type == "code"), lesson
    assert "`make present LESSON=01` (or any lesson from 00 to 06: each has a panel" in GUIDE
    assert "lesson has no panel" not in GUIDE and "(no panel" not in GUIDE


def test_the_evidence_panel_steps_the_guide_walks_through_are_the_panels_own():
    from botie.lessons.ui import evidence_panel

    text = flat(guide_blocks()["04"])
    panel = evidence_panel()
    assert "note-anon-77" not in [r.id for r in panel.sent] and panel.escaped.value
    assert panel.view is not None
    assert panel.view.verdict == "release" and not panel.view.closed_early
    panel.boxes["tkt-5702"].value = True
    panel.escaped.value = False
    assert panel.view.verdict == "withhold" and panel.view.problems == ("fact_not_in_text",)
    assert panel.view.closed_by == ("tkt-5702",)
    assert set(panel.view.obeyed) == {"asks for a tool call", "closes the evidence region"}
    assert "withheld (`fact_not_in_text`), the region closed early by `tkt-5702`" in text
    gullible = evidence_panel()
    gullible.model_kind.value = "gullible"
    gullible.boxes["note-anon-77"].value = True
    assert gullible.view is not None
    assert gullible.view.verdict == "release"
    assert "switch to **gullible** and tick `note-anon-77`: released" in text
    without_rev4 = evidence_panel()
    without_rev4.boxes["man-p2-r4-s3.2"].value = False
    assert without_rev4.view is not None
    assert without_rev4.view.verdict == "withhold" and without_rev4.view.problems == ("unknown_id",)
    assert "untick `man-p2-r4-s3.2`: withheld as `unknown_id`" in text


def test_the_markup_numbers_the_guide_quotes_for_lesson_06_are_the_codes():
    """243 tokens of text, 465 as sent; two documents fit the scenario's budget; the lesson's total is 950."""
    from botie import Budget
    from botie.context.evidence import document_tokens
    from botie.lessons import load_evidence_scenario, load_scripted_model
    from botie.turn import TurnSetup, run_turn

    scenario = load_evidence_scenario()
    nb = nbformat.read(LESSONS["06"], as_version=4)
    setup_cell = next(c for c in nb.cells if c.get("id") == "05-02")  # the lesson's own setup cell
    assert "ceiling=1_300, answer_allowance=150, budget=Budget(950, 200, 150)" in setup_cell.source
    setup = TurnSetup.from_scenario(scenario, ceiling=1_300, answer_allowance=150, budget=Budget(950, 200, 150))
    question = scenario.questions[0].question
    turn = run_turn(question, scenario.candidates(0), setup, load_scripted_model())
    pack = [r for r in scenario.candidates(0) if r.id in turn.context_ids]
    text_only, as_sent = sum(r.cost for r in pack), sum(document_tokens(r) for r in pack)
    small = run_turn(question, scenario.candidates(0), setup.with_(budget=scenario.budget), load_scripted_model())
    found = re.match(r"(\d+) documents in the pack", small.stage("fit").detail)
    assert found is not None
    fitted = found.group(1)
    b = scenario.budget
    words = {2: "two", 3: "three", 7: "seven"}
    assert not isinstance(setup.budget, int)
    quoted = (
        f"the {words[len(pack)]} documents sent are {text_only} tokens of text and "
        f"{as_sent} as sent, so under the scenario's own budget ({b.total} − {b.input_reserve} − "
        f"{b.output_reserve} = {b.evidence} for evidence) only {words[int(fitted)]} documents fit and the answer is "
        f"{small.outcome}; the lesson runs with a total of {setup.budget.total} ({setup.budget.evidence} for evidence)"
    )
    assert quoted in flat(guide_blocks()["06"])


def test_the_capstone_lines_the_guide_quotes_are_the_ones_it_prints(tmp_path, monkeypatch):
    from botie.lessons.content.capstone import run_capstone
    from botie.lessons.learner import kept

    monkeypatch.setenv("BOTIE_PROGRESS_FILE", str(tmp_path / "botie-progress.json"))
    text = flat(guide_blocks()["06"])
    fresh = run_capstone()
    assert "choose_evidence: lesson 01's check has not passed yet, so the capstone uses the reference" in fresh.whose()
    assert '"lesson 01\'s check has not passed yet, so the capstone uses the reference"' in text
    assert fresh.score("injected instructions") == (5, 5)
    assert "`injected instructions` 5/5" in text
    assert kept.keep_function("choose_evidence", _kept_choose_evidence, "01")
    assert "choose_evidence: yours, kept when lesson 01's check passed" in run_capstone().whose()
    assert '"yours, kept when lesson 01\'s check passed"' in text


def _kept_choose_evidence(records, allowed_assets, allowance):
    """A correct choose_evidence, as a learner's passing check would keep it."""
    chosen, used = [], 0
    for record in records:
        if record.asset not in allowed_assets:
            continue
        if used + record.cost > allowance:
            break
        chosen.append(record)
        used += record.cost
    return chosen


# --- the wrong answers the guide's tables name for the design exercises, run against their checks ---------

_TIERS = ("unverified", "community", "internal", "reviewed", "approved")


def _pack(candidates, allowed_assets, observed_on, budget, register, *, supersession=True, flags=True, originals=True):
    """A design_pack that ranks by tier then score and skips what does not fit; switches turn off one rule.

    ``originals=False`` keeps one copy of each section, but the copy: its original gives way to it.
    """

    def current(r):
        if not supersession:
            return r.effective_date <= observed_on
        in_force = register.in_force(r.document, observed_on)
        return in_force is not None and in_force.version == r.version

    usable = sorted(
        (r for r in candidates if r.asset in allowed_assets and current(r)),
        key=lambda r: (_TIERS.index(r.trust or "unverified"), r.score),
        reverse=True,
    )
    if not originals:
        copied = {r.duplicate_of for r in usable if r.duplicate_of}
        firsts = {r.duplicate_of: r.id for r in reversed(usable) if r.duplicate_of}
        usable = [r for r in usable if r.id not in copied and (not r.duplicate_of or firsts[r.duplicate_of] == r.id)]
    send, used = [], 0
    for r in usable:
        if used + r.cost <= budget:
            send.append(r.id)
            used += r.cost
    pairs = [(r.id, o) for r in usable if r.id in send for o in r.conflicts_with if o in send] if flags else []
    return send, pairs


def _sentences(answer):
    return [s for s in re.split(r"(?<=[.!?])\s+", answer.strip()) if s]


def _span(citations, context):
    return bool(citations) and all(
        c.get("id") in context
        and isinstance(c.get("quote"), str)
        and c["quote"].strip()
        and c["quote"] in context[c["id"]]
        for c in citations
    )


def _by_score_then(key_extra, *, stop=False, strict=False):
    def choose_documents(docs, soft_budget):
        chosen, used = [], 0
        for doc in sorted(docs, key=key_extra):
            fits = used + doc.cost < soft_budget if strict else used + doc.cost <= soft_budget
            if fits:
                chosen.append(doc.id)
                used += doc.cost
            elif stop:
                break
        return chosen

    return choose_documents


def _attachment_order(docs, soft_budget):
    chosen, used = [], 0
    for doc in docs:
        if used + doc.cost > soft_budget:
            break
        chosen.append(doc.id)
        used += doc.cost
    return chosen


def _retry(statuses, most, *, lost=True, new_id=False):
    def next_request(proposal, result, attempts):
        if result is None:
            if not lost or attempts >= most:
                return None
            return {**proposal, "request_id": proposal["request_id"] + "-again"} if new_id else proposal
        return proposal if result["status"] in statuses and attempts < most else None

    return next_request


# (exercise, the wrong answer as the guide's row words it, the function, the ✗ cases named, words its messages show)
WRONG_DESIGNS = [
    (
        "design_pack",
        "in force by its own date only, the register ignored",
        lambda c, a, o, b, g: _pack(c, a, o, b, g, supersession=False),
        ["the four items: current section 6.1, rev 3, the vendor file, the bulletin"],
        ["freshness", "man-p2-r3-s3.2"],
    ),
    (
        "design_pack",
        "sending both sides of a disagreement without a flag",
        lambda c, a, o, b, g: _pack(c, a, o, b, g, flags=False),
        ["the four items: current section 6.1, rev 3, the vendor file, the bulletin"],
        ["conflict", "eng-bulletin-2026-02"],
    ),
    (
        "design_pack",
        "ranking by tier and score with no step for copies, the floor or dependencies",
        _pack,
        ["the same at 150 tokens: copies and rivals must not crowd out the exception"],
        ["duplicates", "portal-p2-r4-s3.2", "completeness", "man-p2-r4-t3.4-head", "trace", "man-p2-r4-s3.2.1"],
    ),
    (
        "design_pack",
        "packing two high-authority rivals one at a time",
        _pack,
        ["the four items at 40 tokens: room for the manual or the bulletin, not both"],
        ["together", "man-p2-r4-s6.1"],
    ),
    (
        "design_pack",
        "one copy of each section, but a copy in place of its usable original",
        lambda c, a, o, b, g: _pack(c, a, o, b, g, originals=False),
        ["the sixteen torque candidates on 2026-03-15, 250 tokens"],
        ["duplicates", "portal-p2-r4-s3.2", "gives way to its original"],
    ),
    (
        "design_pack",
        "sending nothing, to be safe",
        lambda c, a, o, b, g: ([], []),
        ["the sixteen torque candidates on 2026-03-15, 250 tokens"],
        ["trace", "man-p2-r4-s3.2"],
    ),
    (
        "design_pack",
        "every usable record, the budget ignored",
        lambda c, a, o, b, g: _pack(c, a, o, 10**9, g),
        ["the sixteen torque candidates on 2026-03-15, 250 tokens"],
        ["budget", "452 tokens"],
    ),
    (
        "permitted",
        "handing back the caller's own list when every record is allowed",
        lambda records, allowed: (
            records if all(r.asset in allowed for r in records) else [r for r in records if r.asset in allowed]
        ),
        ["every record is allowed: still a new list, not the one you were given"],
        ["the caller's own list", "build a new list"],
    ),
    (
        "choose_documents",
        "the order they were attached, not the score",
        _attachment_order,
        ["the 41 agreements attached in reverse"],
        ["relevance", "any order"],
    ),
    (
        "choose_documents",
        "sorted by score alone, ties left in attachment order",
        _by_score_then(lambda d: -d.score),
        ["the same four attached in reverse"],
        ["any order"],
    ),
    (
        "choose_documents",
        "smallest first, to read the most documents",
        _by_score_then(lambda d: (d.cost, d.id)),
        ["the 41 agreements, soft budget 540,000"],
        ["relevance"],
    ),
    (
        "choose_documents",
        "`<` instead of `<=`",
        _by_score_then(lambda d: (-d.score, d.id), strict=True),
        ["the best one fills the soft budget exactly", "the best one fits only in place of a smaller one"],
        [],
    ),
    (
        "span_check",
        "checking cited ids only",
        lambda cs, ctx: bool(cs) and all(c.get("id") in ctx for c in cs),
        ["the gullible model's 30 N·m quote"],
        [],
    ),
    (
        "release",
        "the span check alone",
        lambda answer, cs, ctx: _span(cs, ctx),
        ["section 5's bent answer", "uncited: a booking claim added at the end"],
        ["cites nothing"],
    ),
    (
        "release",
        "every sentence has a `[n]` marker, quotes not checked",
        lambda answer, cs, ctx: all(re.search(r"\[\d+\]", s) for s in _sentences(answer)),
        ["not verbatim: a figure changed in the quote"],
        ["not verbatim"],
    ),
    (
        "release",
        "span check and a marker per sentence, but any number will do",
        lambda answer, cs, ctx: _span(cs, ctx) and all(re.search(r"\[\d+\]", s) for s in _sentences(answer)),
        ["uncited: a marker [3] with two citations"],
        [],
    ),
    (
        "release",
        "always withhold",
        lambda answer, cs, ctx: False,
        ["section 5's honest answer", "honest: one sentence, one quote"],
        ["release an honest answer"],
    ),
    (
        "next_request",
        "always send it again",
        lambda proposal, result, attempts: proposal,
        ["r7 booked job-1 at the first attempt (create)"],
        ["only what may succeed unchanged"],
    ),
    (
        "next_request",
        "a lost answer sent again under a new request id",
        _retry({"unavailable"}, 3, new_id=True),
        ["r7: the answer was lost, attempt 1"],
        ["one job per request", "job-2"],
    ),
    (
        "next_request",
        "trusting `retryable` alone, so a lost answer (no result) is never sent again",
        lambda proposal, result, attempts: proposal if result and result.get("retryable") and attempts < 5 else None,
        ["r7: the answer was lost, attempt 1"],
        ["a second try for a transient failure"],
    ),
    (
        "next_request",
        "retrying `unavailable` and lost answers with no limit",
        _retry({"unavailable"}, 10**6),
        ["r7: still unavailable at attempt 5"],
        ["at most 5 attempts"],
    ),
    (
        "next_request",
        "retrying a `conflict` too",
        _retry({"unavailable", "conflict"}, 3),
        ["r7 for 30 minutes after r7 booked 20 (conflict)"],
        [],
    ),
    (
        "choose_branch",
        "payloads compared with plain `==`, so an approval for 20.0 minutes counts for 20",
        _CHECKS_WRONG["choose_branch"]["plain == on payloads, so an approval for 20.0 minutes counts for 20"],
        ["approved for 20.0 minutes, proposal asks for 20"],
        [],
    ),
    (
        "field_errors",
        '`if not arguments.get("request_id")`: only a missing or empty id caught',
        _CHECKS_WRONG["field_errors"]["request_id only checked for being there"],
        ["request_id as a number, 7", "a request_id of spaces only"],
        [],
    ),
    (
        "field_errors",
        "strptime alone judges the letters: `t` and `z` pass",
        _CHECKS_WRONG["field_errors"]["strptime ignores case, so 't' and 'z' pass"],
        ["start with a lowercase z, '2026-04-02T09:00z'", "start with a lowercase t, '2026-04-02t09:00Z'"],
        [],
    ),
    (
        "may_ship",
        "ship when ordinary questions do not get worse, the slice ignored",
        lambda before, after: after["ordinary questions"][0] >= before["ordinary questions"][0],
        ["botie -> naive", "one more ordinary answer, every refusal lost"],
        ["never ship a change that loses a case"],
    ),
    (
        "may_ship",
        "ship when the total passed, over every set, goes up",
        lambda before, after: sum(v[0] for v in after.values()) > sum(v[0] for v in before.values()),
        ["two more planted documents held, one edit no longer noticed"],
        ["edited between turns 2 -> 1"],
    ),
    (
        "may_ship",
        "never ship",
        lambda before, after: False,
        ["naive -> botie (section 5's table)"],
        ["ship a change that loses nothing and gains at least one case"],
    ),
]


@pytest.mark.parametrize(
    ("name", "wrong", "fn", "caught", "said"), WRONG_DESIGNS, ids=[f"{row[0]}: {row[1]}" for row in WRONG_DESIGNS]
)
def test_each_wrong_answer_the_guide_names_fails_the_cases_its_row_names(
    name, wrong, fn, caught, said, monkeypatch, tmp_path
):
    from botie.lessons.exercises.catalogue import run
    from botie.lessons.learner.progress import PLACES

    monkeypatch.setenv("BOTIE_PROGRESS_FILE", str(tmp_path / "botie-progress.json"))
    report = run(name, fn)
    assert not isinstance(report, str), report
    failed = {r.case.label.removesuffix(" (the example above)"): r.message for r in report.results if not r.passed}
    assert set(caught) <= set(failed), sorted(failed)
    messages = " ".join(failed[label] for label in caught)
    for words in said:
        assert words in messages
    rows = [line for line in guide_blocks()[PLACES[name][0]].splitlines() if line.startswith(f"| `{name}` | {wrong} |")]
    assert len(rows) == 1, f"the guide has no row for {name}: {wrong}"
    for label in caught:
        assert f"✗ {label}" in rows[0]
