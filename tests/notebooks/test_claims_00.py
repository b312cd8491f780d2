"""Lesson 00's claims, each checked by running botie (no nbval), and the glossary it links.

Each test is named after the sentence it pins. The notebook is read for its structure only (the order of
cells, the cast card, the terms); the numbers come from the code.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest

from botie import Budget, BudgetError, count_tokens, select
from botie.lessons import fixture_path, load_scene
from botie.lessons.exercises.catalogue import run
from botie.lessons.exercises.questions import QUESTIONS

ROOT = Path(__file__).resolve().parents[2]
LEARNER = ROOT / "notebooks" / "00_welcome.ipynb"
INSTRUCTOR = ROOT / "notebooks" / "instructor"
GLOSSARY = ROOT / "docs" / "glossary.md"
GUIDE = (INSTRUCTOR / "README.md").read_text(encoding="utf-8")
WORD = re.compile(r"[A-Za-z0-9'’-]+")


def welcome():
    return nbformat.read(LEARNER, as_version=4)


def flat(text: str) -> str:
    return " ".join(text.split())


def record_text(record_id: str) -> str:
    return next(r.text for r in load_scene(fixture_path("p2_seal.json")).records if r.id == record_id)


# --- the sentences -----------------------------------------------------------------------------------


def test_two_of_the_eleven_candidates_fit_in_the_room_for_evidence():
    scene = load_scene(fixture_path("p2_seal.json"))
    assert len(scene.records) == 11
    assert len(select(scene.records, scene.allowed_assets, scene.budget).selected_ids) == 2


def test_words_are_not_tokens_from_1_7_to_2_2_tokens_a_word():
    ratios = {}
    for record_id in ("man-p2-r4-s3.2", "tkt-5521", "man-p3-r1-s2"):
        text = record_text(record_id)
        ratios[record_id] = count_tokens(text) / len(text.split())
    assert [f"{r:.1f}" for r in ratios.values()] == ["1.7", "1.9", "2.2"]
    # "no fixed margin on a word count is safe": adding 10% to the words undercounts every one of them
    for record_id in ratios:
        text = record_text(record_id)
        assert len(text.split()) * 1.1 < count_tokens(text)


def test_the_tokenizer_cuts_numbers_units_and_ids_into_several_pieces():
    assert count_tokens("18 N·m") > len("18 N·m".split()) and count_tokens("tkt-5521") > 1


def test_the_guide_quotes_the_word_and_token_counts_the_code_gives():
    p2, p3 = record_text("man-p2-r4-s3.2"), record_text("man-p3-r1-s2")
    quoted = f"{len(p2.split())} words are {count_tokens(p2)} tokens, {len(p3.split())} words are {count_tokens(p3)}"
    assert quoted in flat(GUIDE)


def test_budget_refuses_a_window_of_10_with_reserves_of_8_and_4():
    with pytest.raises(BudgetError, match="exceed the total of 10"):
        Budget(total=10, input_reserve=8, output_reserve=4)
    assert Budget(total=20, input_reserve=8, output_reserve=4).evidence == 8  # the warm-up's example


def test_the_quiet_version_fails_exactly_the_cases_that_do_not_fit_or_hold_a_negative_number():
    """Cell 00-quietly-md: passes every sensible case, fails the three that do not fit and the two negative reserves."""

    def evidence_allowance(total, input_reserve, output_reserve):
        return max(0, total - input_reserve - output_reserve)

    report = run(evidence_allowance)
    assert not isinstance(report, str)
    results = report.results
    failed = [r.case.label for r in results if not r.passed]
    assert failed == [
        "reserves 8 + 4 = 12 above a total of 10",
        "reserves 2 + 2 = 4 above a total of 3",
        "a negative input reserve: total 10, reserves -5 and 4",
        "a negative output reserve: total 10, reserves 2 and -1",
        "a negative total: -1, reserves 0 and 0",
    ]
    # "where its zero looks like an answer": 0 where the reserves need more than a total, negative or not;
    # more room than the window where a reserve is negative
    assert [evidence_allowance(*r.case.args) for r in results if not r.passed] == [0, 0, 11, 9, 0]
    # every case it passes has no number below zero
    assert all(min(r.case.args) >= 0 for r in results if r.passed)
    # "a check with only the example's numbers would have passed it"
    assert evidence_allowance(20, 8, 4) == 8 and results[0].passed and results[0].case.shown


def test_budget_refuses_a_negative_reserve_as_the_warm_up_asks():
    for reserves in ((-5, 4), (2, -1)):
        with pytest.raises(BudgetError, match="int >= 0"):
            Budget(total=10, input_reserve=reserves[0], output_reserve=reserves[1])


def test_budget_refuses_a_negative_total_as_the_warm_up_asks():
    """Cell 00-reserves-md: "when any of the three numbers is below zero (`Budget` refuses that too"."""
    for total in (-1, -20):
        with pytest.raises(BudgetError, match=r"total must be .*int >= 0"):
            Budget(total=total, input_reserve=0, output_reserve=0)


# --- predictions before answers ------------------------------------------------------------------------


def distinctive(qid: str) -> set[str]:
    q = QUESTIONS[qid]
    wrong = {w.lower() for i, o in enumerate(q.options) if i != q.answer for w in WORD.findall(o)}
    right = {w.lower() for w in WORD.findall(q.options[q.answer]) if len(w) >= 4 or w.isdigit()}
    return right - wrong


@pytest.mark.parametrize("qid", ["word-count-instead", "reserves-too-big"])
def test_each_prediction_is_asked_before_its_answer_and_settled_by_a_run(qid):
    cells = welcome().cells
    at = next(i for i, c in enumerate(cells) if c.cell_type == "code" and f'predict("{qid}")' in c.source)
    previous_code = max(i for i in range(at) if cells[i].cell_type == "code")
    above = " ".join(c.source for c in cells[previous_code + 1 : at] if c.cell_type == "markdown").lower()
    words = distinctive(qid)
    assert words and not all(w in WORD.findall(above) for w in words), f"{qid}: the text above gives the answer"
    after = cells[at + 1]
    assert after.cell_type == "code" and "lesson-check" in after.metadata.get("tags", [])
    assert any(o.get("text") for o in after.outputs), f"{qid}: the settling cell prints nothing"


# --- cast card, terms, progress block -------------------------------------------------------------------


def fixture_ids() -> set[str]:
    ids = set()
    for path in (ROOT / "fixtures").glob("*.json"):
        ids |= set(re.findall(r'"id":\s*"([^"]+)"', path.read_text(encoding="utf-8")))
    return ids


def test_the_cast_card_names_every_record_the_lesson_mentions_and_only_real_ones():
    cells = welcome().cells
    card = next(c for c in cells if "cast-card" in c.metadata.get("tags", []))
    assert card.id == "cast-00" and cells[cells.index(card) - 1].source.startswith("# 00 · ")
    rows = re.findall(r"^\| `([^`]+)` \| (.+) \|$", card.source, flags=re.M)
    rest = json.dumps([(c.source, c.get("outputs", [])) for c in cells if c is not card])
    mentioned = {i for i in fixture_ids() if re.search(rf"(?<![\w-]){re.escape(i)}(?![\w-])", rest)}
    assert {i for i, _ in rows} == mentioned and mentioned <= fixture_ids()
    assert len(mentioned) == 3


TERMS = ("evidence", "tool call", "kernel", "token", "tokenizer", "window", "input reserve", "output reserve",
         "evidence allowance", "scripted model")  # fmt: skip


@pytest.mark.parametrize("term", TERMS)
def test_a_term_is_defined_in_the_first_cell_that_uses_it(term):
    prose = [flat(c.source) for c in welcome().cells if c.cell_type == "markdown"]
    pattern = re.compile(rf"\b{term}s?\b", re.I)
    first = next(text for text in prose if pattern.search(text))
    assert re.search(rf"\*{term}s?\*", first, re.I), (
        f"{term!r} is first used in a cell that does not define it: {first[:100]}"
    )


def test_lesson_00_no_longer_front_loads_a_glossary_and_links_the_reference():
    cells = welcome().cells
    text = "\n".join(c.source for c in cells if c.cell_type == "markdown")
    assert "Words you will meet" not in text and "| word | what it means" not in text
    assert "](../docs/glossary.md)" in text and GLOSSARY.exists()


def test_the_progress_block_follows_the_last_sections_closing_paragraph():
    cells = welcome().cells
    where = next(i for i, c in enumerate(cells) if c.source.startswith("## Where you stand"))
    before = cells[where - 1]
    assert before.cell_type == "markdown" and not before.source.startswith("#")
    assert cells[where + 1].source.strip().endswith("show_progress()") and cells[where + 2].source.startswith(
        "## Summary"
    )


def test_lesson_00_stays_within_the_size_limits():
    cells = welcome().cells
    words = sum(
        len(WORD.findall(c.source))
        for c in cells
        if c.cell_type == "markdown" and "cast-card" not in c.metadata.get("tags", [])
    )
    assert len(cells) <= 45 and words <= 2000


# --- the glossary ------------------------------------------------------------------------------------


def glossary_rows() -> list[tuple[str, str, str]]:
    text = GLOSSARY.read_text(encoding="utf-8")
    return re.findall(r"^\| (.+?) \| .+? \| (0\d[a-z]?) (intro|\d+) \|$", text, flags=re.M)


def lesson_sections(lesson: str) -> dict[str, str]:
    """A lesson's text (markdown and code, instructor notes left out) per section: 'intro', '1', '2', ..."""
    (path,) = INSTRUCTOR.glob(f"{lesson}_*.ipynb")
    nb = nbformat.read(path, as_version=4)
    text = "\n".join(c.source for c in nb.cells if "instructor-only" not in c.metadata.get("tags", []))
    parts: dict[str, list[str]] = {"intro": []}
    current = "intro"
    for line in text.splitlines():
        heading = re.match(r"^## (\d+)\. ", line)
        if heading:
            current = heading.group(1)
        elif line.startswith("## "):
            current = "end"
        parts.setdefault(current, []).append(line)
    return {name: "\n".join(lines).lower() for name, lines in parts.items()}


def key_of(term: str) -> str:
    """The word a section must mention: the term's first word of four or more letters, cut to its stem."""
    words = re.findall(r"[A-Za-z_%0-9]+", term)
    word = next((w for w in words if len(w) >= 4 or w.endswith("%")), words[0])
    return word.lower()[:5] if "_" not in word else word.lower()


def test_the_glossary_has_the_terms_the_lessons_lean_on():
    terms = {re.sub(r"[`*]", "", t) for t, _, _ in glossary_rows()}
    assert len(terms) >= 30
    for needed in ("token", "ingestion", "relevance floor", "soft budget", "coverage record", "idempotency"):
        assert needed in terms


@pytest.mark.parametrize("term, lesson, section", glossary_rows())
def test_each_glossary_term_points_to_a_section_that_uses_it(term, lesson, section):
    sections = lesson_sections(lesson)
    assert section in sections, f"{term}: lesson {lesson} has no section {section}"
    assert key_of(term) in sections[section], f"{term}: lesson {lesson} section {section} never says {key_of(term)!r}"


def test_no_text_before_the_reserves_prediction_says_to_raise():
    """The warm-up's statement ("raises a ValueError") answers the prediction, so it must come after the run."""
    cells = welcome().cells
    at = next(i for i, c in enumerate(cells) if 'predict("reserves-too-big")' in c.source)
    said = [i for i, c in enumerate(cells) if c.cell_type == "markdown" and re.search(r"\braise", c.source)]
    assert said and min(said) > at + 1


def test_an_input_reserve_of_9_turns_the_ticket_that_filled_the_room_over_budget():
    scene = load_scene(fixture_path("p2_seal.json"))
    at_8 = select(scene.records, scene.allowed_assets, Budget(20, 8, 4))
    at_9 = select(scene.records, scene.allowed_assets, Budget(20, 9, 4))
    assert at_8.used == at_8.allowance == 8 and at_8.selected_ids[-1] == "tkt-5521"
    assert at_9.allowance == 7 and str(at_9.outcome("tkt-5521").status) == "over_budget"
    assert "`tkt-5521` turns `over_budget`" in flat(GUIDE)


def test_an_input_reserve_of_17_is_refused_like_the_prediction():
    with pytest.raises(BudgetError):
        Budget(20, 17, 4)


# --- section 2: how a lesson is laid out ------------------------------------------------------------------------


def _instructor_lessons():
    return {p.stem.split("_")[0]: nbformat.read(p, as_version=4) for p in sorted(INSTRUCTOR.glob("0*.ipynb"))}


def test_every_numbered_lesson_teaches_three_to_five_ideas_as_the_layout_table_says():
    """Cell 00-06: "What you'll learn | the three to five ideas the lesson is about"."""
    table = next(c.source for c in _instructor_lessons()["00"].cells if c.id == "00-06")
    assert "the three to five ideas the lesson is about" in table
    for lesson, nb in _instructor_lessons().items():
        if lesson == "00":
            continue
        text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
        learn = text.split("**What you'll learn**", 1)[1].split("\n\n", 2)[1]
        assert 3 <= len(re.findall(r"^\d\. ", learn, flags=re.M)) <= 5, lesson


def test_only_02b_has_no_wrong_on_purpose_part_and_05b_runs_its_two_inside_its_sections():
    """Cell 00-06: 02b has none; 05b no part of that name, but a good-news reply and a racing store."""
    table = flat(next(c.source for c in _instructor_lessons()["00"].cells if c.id == "00-06"))
    assert "(02b, the second half of lesson 02, has no wrong-on-purpose part of its own; 05b" in table
    lessons = _instructor_lessons()
    without = {
        lesson
        for lesson, nb in lessons.items()
        if not any(re.search(r"wrong on purpose", c.source, re.I) for c in nb.cells if c.cell_type == "markdown")
    }
    assert without == {"02b", "05b"}
    assert not any(re.search(r"wrong.on.purpose", c.source, re.I) for c in lessons["02b"].cells)
    code_05b = "\n".join(c.source for c in lessons["05b"].cells if c.cell_type == "code")
    assert re.search(r"Wrong on purpose: every outcome reads like good news", code_05b)
    assert "MemoryStore(guarded=False" in code_05b
