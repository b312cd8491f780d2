"""Every lesson has the shape a learner can finish: at most an hour of a competent learner's time, its cast
card, predictions asked before they are answered, a design exercise from lesson 02 on, and the progress block
after the last section.

These read the learner edition, the notebooks a learner opens.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest

from botie.lessons.exercises.catalogue import BY_LESSON
from botie.lessons.exercises.questions import QUESTIONS
from tools import agenda
from tools.agenda import prose_words as agenda_prose_words

ROOT = Path(__file__).resolve().parents[2]
LEARNER = sorted((ROOT / "notebooks").glob("0*.ipynb"))
MAX_CELLS = 45
MEASURES = {m.lesson: m for m in agenda.measure_all()}
# Over the hour by the calibrated model (tools/agenda.py), each to be split or cut (issue 33); strict, so the
# mark must go once a lesson fits.
OVER_THE_HOUR: set[str] = set()


def _read(path: Path):
    return nbformat.read(path, as_version=4)


def _lesson(path: Path) -> str:
    return path.stem.split("_")[0]  # "02", or "02a" for the first part of a split lesson


def prose_words(nb) -> int:
    """Words of prose as the agenda counts them: markdown cells, the cast card left out (a reference table)."""
    return agenda_prose_words(nb.cells)


def test_the_word_count_counts_markdown_only_and_leaves_out_the_cast_card():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("Two words"),
        nbformat.v4.new_code_cell("many many many words here"),
        nbformat.v4.new_markdown_cell("| `id` | what it is |", metadata={"tags": ["cast-card"]}),
    ]
    assert prose_words(nb) == 2


@pytest.mark.parametrize("path", LEARNER, ids=lambda p: p.stem)
def test_every_lesson_is_within_45_cells(path):
    nb = _read(path)
    assert len(nb.cells) <= MAX_CELLS, f"{path.name}: {len(nb.cells)} cells"


@pytest.mark.parametrize(
    "lesson",
    [
        pytest.param(n, marks=pytest.mark.xfail(strict=True, reason="over the hour: to be split"))
        if n in OVER_THE_HOUR
        else n
        for n in sorted(MEASURES)
    ],
)
def test_every_lesson_takes_a_competent_learner_at_most_60_minutes(lesson):
    """Timed from its parts (prose, code, output, exercises, predictions, panels, running), not a word cap."""
    m = MEASURES[lesson]
    parts = ", ".join(f"{k} {v:.1f}" for k, v in m.minutes.items())
    assert m.total <= agenda.MAX_LESSON_MINUTES, f"lesson {lesson} needs {m.total:.1f} minutes: {parts}"


def test_the_time_limit_fails_a_lesson_of_few_words_and_much_to_do():
    """The limit is on time: 500 words with six exercises and a design exercise is over the hour."""
    m = agenda.Measure("09", "09 · dense", cells=30, words=500, exercises=7, design=1, predictions=2, panels=1)
    assert m.words < 2_000 and m.total > agenda.MAX_LESSON_MINUTES


# --- cast cards ------------------------------------------------------------------------------------------------


def fixture_ids() -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "fixtures").glob("*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        stack = [data]
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                if isinstance(item.get("id"), str) and ("text" in item or "cost" in item):
                    found.add(item["id"])
                stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)
    return found


FIXTURE_IDS = fixture_ids()
# Longest first, so "man-p2-r4-s3.2.1" is found as itself and not as "man-p2-r4-s3.2" followed by ".1".
ID_PATTERN = re.compile(
    r"(?<![\w.-])(" + "|".join(re.escape(i) for i in sorted(FIXTURE_IDS, key=len, reverse=True)) + r")(?![\w-]|\.\d)"
)


def cast_card(nb):
    cards = [c for c in nb.cells if "cast-card" in c.metadata.get("tags", [])]
    return cards[0] if len(cards) == 1 else None


def mentioned_ids(nb) -> set[str]:
    text = []
    for c in nb.cells:
        if "cast-card" in c.metadata.get("tags", []):
            continue
        text.append(c.source)
        for o in c.get("outputs", []):
            text.append("".join(o.get("text", "")))
            text.append("".join(o.get("data", {}).get("text/plain", "")))
    return set(ID_PATTERN.findall("\n".join(text)))


def test_the_id_pattern_finds_whole_ids_only():
    assert "man-p2-r4-s3.2.1" in FIXTURE_IDS and "man-p2-r4-s3.2" in FIXTURE_IDS
    assert ID_PATTERN.findall("see man-p2-r4-s3.2.1 and man-p2-r4-s3.2.") == ["man-p2-r4-s3.2.1", "man-p2-r4-s3.2"]
    assert ID_PATTERN.findall("xman-p2-r4-s3.2") == []


@pytest.mark.parametrize("path", [p for p in LEARNER if _lesson(p) != "00"], ids=lambda p: p.stem)
def test_every_lesson_has_one_cast_card_right_after_what_you_will_learn(path):
    nb = _read(path)
    card = cast_card(nb)
    assert card is not None, f"{path.name} has no single cell tagged cast-card"
    at = nb.cells.index(card)
    assert "What you'll learn" in nb.cells[at - 1].source, "the card follows the lesson's opening cell"
    assert card.source.startswith("<details><summary>") and card.source.rstrip().endswith("</details>")


@pytest.mark.parametrize("path", LEARNER, ids=lambda p: p.stem)
def test_the_cast_card_names_every_record_the_lesson_mentions_and_only_real_ones(path):
    nb = _read(path)
    card = cast_card(nb)
    mentioned = mentioned_ids(nb)
    if card is None:
        assert not mentioned, f"{path.name} mentions {sorted(mentioned)} but has no cast card"
        return
    rows = re.findall(r"^\| `([^`]+)` \|", card.source, flags=re.M)
    if not rows:  # a lesson that uses no fixture records (05b writes its own requests) says so on its card
        assert not mentioned and "uses no records" in card.source, "a card with no rows says the lesson uses none"
        return
    assert set(rows) <= FIXTURE_IDS, f"not in any fixture: {sorted(set(rows) - FIXTURE_IDS)}"
    assert mentioned <= set(rows), f"mentioned but not on the card: {sorted(mentioned - set(rows))}"


# --- predictions -----------------------------------------------------------------------------------------------

PREDICT = re.compile(r"""predict\(["']([\w-]+)["']\)""")


def distinctive_words(qid: str) -> set[str]:
    """Words of the right option (4+ letters, or numbers) that no wrong option uses."""
    q = QUESTIONS[qid]

    def words(text: str) -> set[str]:
        return {w.lower() for w in re.findall(r"[A-Za-z_]{4,}|\d+(?:[.,]\d+)?", text)}

    wrong = set().union(*(words(o) for i, o in enumerate(q.options) if i != q.answer))
    return words(q.options[q.answer]) - wrong


def predictions(nb):
    for i, c in enumerate(nb.cells):
        if c.cell_type == "code":
            for qid in PREDICT.findall(c.source):
                yield i, qid


def text_just_above(nb, i: int) -> str:
    """The markdown between the previous code cell and cell ``i``."""
    parts = []
    for c in reversed(nb.cells[:i]):
        if c.cell_type == "code":
            break
        parts.append(c.source)
    return "\n".join(parts).lower()


def cells_above(nb, i: int):
    """What a learner has read and run before cell ``i``, cell by cell: each source with its printed output."""
    for c in nb.cells[:i]:
        if "instructor-only" in c.metadata.get("tags", []):
            continue
        parts = [c.source]
        for out in c.get("outputs", []) if c.cell_type == "code" else ():
            data = out.get("text") or out.get("data", {}).get("text/plain", "")
            parts.append("".join(data) if isinstance(data, list) else data)
        yield c.get("id", ""), "\n".join(parts).lower()


def gives_away(qid: str, text: str) -> bool:
    key = distinctive_words(qid)
    return bool(key) and all(re.search(rf"(?<![\w]){re.escape(w)}(?![\w])", text) for w in key)


def test_the_giveaway_rule_catches_text_that_states_the_answer_and_passes_text_that_does_not():
    assert distinctive_words("route-41") == {"select_documents"}
    assert gives_away("route-41", "so the plan is select_documents for these forty-one")
    assert not gives_away("route-41", "four strategies; which one fires here?")


@pytest.mark.parametrize("path", LEARNER, ids=lambda p: p.stem)
def test_no_prediction_is_answered_by_the_text_just_above_it(path):
    nb = _read(path)
    for i, qid in predictions(nb):
        assert not gives_away(qid, text_just_above(nb, i)), f"{qid}: the text above states {distinctive_words(qid)}"


INSTRUCTOR = sorted((ROOT / "notebooks" / "instructor").glob("0*.ipynb"))


#: Sentences found (by fresh readers) to settle a prediction before it was asked, as patterns over one sentence:
#: none may come back anywhere above its question.
SETTLED_BY = {
    "word-count-instead": (r"\bcost\b[^.]*\btokens?\b", r"\btokens?\b[^.]*\bcost\b"),
    "skip-3-8-2-in-7": (r"position 2 \(cost 2\) would have fitted",),
    "planted-5630-prompts": (r"three passages outscore the ticket", r"retrieval kept the ticket out of all four"),
    # The question was once the unchanged r7 (reuse); now it is r7 changed and approved (conflict). Kept: all four.
    "r7-again": (
        r"sent twice must book once",
        r"sent again:? reuse",
        r"a retry keeps it",
        r"approved, it ends in conflict",
    ),
    # The question itself said the lock comes before the look-up: with 05a's rule, that settled it.
    "race-four-workers": (r"takes the write lock before (?:it looks|its look-up)",),
    # The paragraph before the question said which results are resent and that the scheduler was silent.
    "retry-which": (r"while the result says another try may help", r"stays silent for (?:its|the) first two calls"),
    "valid-minutes-true": (r"hides a python trap",),
    "planted-booking": (r"from a request with 0 documents", r"proposed in a second request"),
    # Lesson 01 named what prefix does in its opening, then walked the scene's report to "stopped here",
    # before asking which of 6 and 5 it keeps in 8.
    "prefix-6-5-in-8": (
        r"stop at the first record that does not fit",
        r"until the next one would not fit, then stop",
        r"\bthe walk stops\b",
        r"prefix rule stopped at",
    ),
    # The retrievers not knowing who is asking leaves only a filter that does: said before the question, it told.
    "internal-policy-layer": (r"\b(?:knows?|knew) who (?:is|was) asking\b",),
    "soft-fraction-one": (r"request carries the documents[^.]*\binstructions\b", r"documents alone fill the window"),
    "floor-0-11": (r"never which is good enough", r"\bfloor\b[^.]*\bcount as evidence\b"),
    # 02b said, before asking whether an address passes, that each citation is checked against the chunks sent.
    "cited-by-address": (r"against the chunks (?:that were )?sent",),
}


def test_the_right_option_is_never_the_only_one_that_explains_itself():
    """An option with a reason after a colon stands out among bare ones: every option has one, or none does."""
    for qid, q in QUESTIONS.items():
        explained = [":" in option for option in q.options]
        assert all(explained) or not explained[q.answer], f"{qid}: only some options give a reason"


def id_gives_away(qid: str, question_id: str) -> set[str]:
    """What ``qid``, read as words, tells of the right option of ``question_id`` that the question itself does not.

    The id is printed in the code cell that asks the question, so it is read before anyone answers: it must not
    spell out the right option's distinctive words, nor its yes or no where only the right option says that.
    """
    q = QUESTIONS[question_id]
    words = set(qid.lower().split("-"))
    asked = {w.lower() for w in re.findall(r"[A-Za-z_]{4,}", q.prompt)}
    told = (words & distinctive_words(question_id)) - asked
    verdict = q.options[q.answer].split(":", 1)[0].lower()
    others = [o.split(":", 1)[0].lower() for i, o in enumerate(q.options) if i != q.answer]
    negations = {"no": {"no", "not", "never"}, "yes": {"yes"}}
    if verdict in negations and verdict not in others and words & negations[verdict]:
        told.add(verdict)
    return told


def test_no_prediction_id_spells_out_its_right_option():
    for qid in QUESTIONS:
        assert not id_gives_away(qid, qid), f"{qid}: the id says {sorted(id_gives_away(qid, qid))}"


def test_the_id_rule_catches_the_ids_that_gave_the_answer_away():
    """The reader's finding: 'words-not-tokens' and 'address-is-no-citation' told the answer in the code cell."""
    assert id_gives_away("words-not-tokens", "word-count-instead") == {"tokens", "no"}
    assert id_gives_away("address-is-no-citation", "cited-by-address") == {"no"}


def test_no_question_states_a_sentence_known_to_settle_it():
    for qid, patterns in SETTLED_BY.items():
        q = QUESTIONS[qid]
        asked = " ".join(q.prompt.lower().split())
        assert not any(re.search(p, asked) for p in patterns), f"{qid}: the question settles itself"


@pytest.mark.parametrize("path", INSTRUCTOR, ids=lambda p: p.stem)
def test_no_sentence_known_to_settle_a_prediction_comes_before_it(path):
    nb = _read(path)
    for i, qid in predictions(nb):
        for pattern in SETTLED_BY.get(qid, ()):
            for cid, text in cells_above(nb, i):
                assert not re.search(pattern, " ".join(text.split())), f"{qid}: cell {cid} settles it ({pattern})"


def test_every_settling_pattern_matches_the_sentence_it_was_written_for():
    said = {
        "word-count-instead": "a model reads text as tokens, and each record carries a cost, the room it takes",
        "skip-3-8-2-in-7": "so the loop stops, though position 2 (cost 2) would have fitted",
        "planted-5630-prompts": "for each question three passages outscore the ticket",
        "r7-again": (
            "and why one request sent twice must book once: idempotency",
            "r7 at 10:00, sent again: reuse -> job-1",
            "the request id names one *intended* booking: a retry keeps it, a new inspection gets a new one",
            "a changed r7 nobody approved stops at needs_approval and never reads the store; approved, it ends in "
            "conflict",
        ),
        "race-four-workers": "its key is (caller, request id), and each transaction takes the write lock before it "
        "looks",
        "retry-which": (
            "sends the *same* proposal again, under the same request id, while the result says another try may help",
            "below, the scheduler stays silent for its first two calls",
        ),
        "valid-minutes-true": "a strict check of the minutes hides a python trap",
        "planted-booking": "propose_inspection(...), from a request with 0 documents in it",
        "prefix-6-5-in-8": "that walk is the prefix rule: keep whole records in ranked order until the next one would "
        "not fit, then stop",
        "internal-policy-layer": "none of them knows who is asking: p-1's manual, which tech-ana may not read, shares",
        "soft-fraction-one": "each request carries the documents, the instructions, room for the answer, and the "
        "conversation so far",
        "floor-0-11": "botie also keeps lesson 02's *relevance floor*: the lowest score a passage needs to count as "
        "evidence, 0.35 here",
        "cited-by-address": "`verify_citations` checks every citation against the chunks that were sent, the pack "
        "printed above",
    }
    for qid, sentences in said.items():
        for sentence in (sentences,) if isinstance(sentences, str) else sentences:
            assert any(re.search(p, sentence) for p in SETTLED_BY[qid]), (qid, sentence)


@pytest.mark.parametrize("path", INSTRUCTOR, ids=lambda p: p.stem)
def test_no_prediction_is_answered_anywhere_in_the_lesson_above_it(path):
    """Every cell above the question, its source and its output: none states all of the right option's own words.

    A key of one word (a number, "first") recurs all through a lesson, so only keys of two words or more are
    looked for across the whole lesson; the text just above is held to every key by the test before.
    """
    nb = _read(path)
    for i, qid in predictions(nb):
        if len(distinctive_words(qid)) < 2:
            continue
        settled = [cid for cid, text in cells_above(nb, i) if gives_away(qid, text)]
        assert not settled, f"{qid}: cells {settled} above it state {sorted(distinctive_words(qid))}"


def test_the_whole_lesson_rule_reads_outputs_and_earlier_cells_not_only_the_text_just_above():
    nb = nbformat.v4.new_notebook()
    said = nbformat.v4.new_code_cell("print(...)")
    said.outputs = [nbformat.v4.new_output("stream", text="the selector will send both, with a flag naming the pair\n")]
    nb.cells = [
        said,
        nbformat.v4.new_markdown_cell("## Next\nThe manual and a bulletin disagree."),
        nbformat.v4.new_code_cell("x = 1"),
        nbformat.v4.new_code_cell('predict("two-high-disagree").widget'),
    ]
    ((i, qid),) = predictions(nb)
    assert not gives_away(qid, text_just_above(nb, i))
    assert [cid for cid, text in cells_above(nb, i) if gives_away(qid, text)] == [said.id]


@pytest.mark.parametrize("path", LEARNER, ids=lambda p: p.stem)
def test_every_prediction_is_resolved_by_a_run_before_the_next_section(path):
    nb = _read(path)
    for i, qid in predictions(nb):
        assert QUESTIONS[qid].lesson == _lesson(path), f"{qid} belongs to lesson {QUESTIONS[qid].lesson}"
        resolved = False
        for c in nb.cells[i + 1 :]:
            if c.cell_type == "markdown" and re.search(r"^## ", c.source, flags=re.M):
                break
            if c.cell_type == "code" and "lesson-check" in c.metadata.get("tags", []):
                resolved = True
                break
        assert resolved, f"{qid}: no lesson-check cell runs it before the next section"


def test_every_question_is_asked_in_its_lesson():
    asked = {qid for p in LEARNER for _, qid in predictions(_read(p))}
    assert asked == set(QUESTIONS)


# --- design exercises and the progress block --------------------------------------------------------------------


#: A lesson without a design exercise of its own, and the part of the same lesson that carries it. Each split
#: lesson's design exercise needs the first part's rules whole, so it opens the second part, and a second design
#: exercise (15 minutes) would put the first part over the hour. 02a: design_pack (a filter, ranking and conflict
#: rule held to all of 02a's rules at once) is 02b's. 05a teaches rules with one right answer each (strict
#: validation; the order of the decision, the seed's); when to send a request again needs 05a's whole decision.
DESIGN_IN_PARTNER = {"02a": "02b", "05a": "05b"}


@pytest.mark.parametrize("path", [p for p in LEARNER if _lesson(p) >= "02"], ids=lambda p: p.stem)
def test_from_lesson_02_on_every_lesson_has_a_design_exercise_that_is_checked(path):
    if _lesson(path) in DESIGN_IN_PARTNER:
        (partner,) = [p for p in LEARNER if _lesson(p) == DESIGN_IN_PARTNER[_lesson(path)]]
        assert not any("Design exercise" in c.source for c in _read(path).cells if c.cell_type == "markdown")
        path = partner  # the exception holds only while the partner has its checked design exercise
    nb = _read(path)
    heads = [i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and "Design exercise" in c.source]
    assert heads, f"{path.name} has no design exercise"
    later = "\n".join(c.source for c in nb.cells[heads[0] :] if c.cell_type == "code")
    names = {e.name for e in BY_LESSON[_lesson(path)]}
    assert any(re.search(rf"check\({re.escape(n)}\)", later) for n in names)


@pytest.mark.parametrize("path", LEARNER, ids=lambda p: p.stem)
def test_the_progress_block_comes_after_the_last_sections_final_paragraph(path):
    nb = _read(path)
    at = [i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and "## Where you stand" in c.source]
    assert len(at) == 1
    after = [c for c in nb.cells[at[0] + 1 :] if c.cell_type == "markdown"]
    # Nothing but a new section may follow: no paragraph of the section before is left stranded below it.
    assert all(c.source.lstrip().startswith("## ") for c in after), [c.source[:60] for c in after]
    assert "show_progress()" in nb.cells[at[0] + 1].source


# --- homework -----------------------------------------------------------------------------------------------

#: Numbered like a section or not, so the guide can name it ("section 10") and still say it is optional.
HOMEWORK_HEADING = re.compile(r"^## (?:\d+\. )?Homework \(optional, after the lesson\): ", re.M)


def homework_shape(nb) -> str | None:
    """What is wrong with a lesson's homework, or None: one block just before "Where you stand" (so the progress
    table below it lists its exercise), marked optional where it opens, holding no prediction (one is asked of
    everyone)."""
    tagged = [i for i, c in enumerate(nb.cells) if agenda.is_homework(c)]
    if not tagged:
        return None
    if tagged != list(range(tagged[0], tagged[-1] + 1)):
        return "the homework cells are not one block"
    after = nb.cells[tagged[-1] + 1] if tagged[-1] + 1 < len(nb.cells) else None
    if after is None or "## Where you stand" not in after.source:
        return "the homework does not come just before Where you stand"
    first = nb.cells[tagged[0]]
    if first.cell_type != "markdown" or not HOMEWORK_HEADING.match(first.source):
        return "the homework does not open with a '## Homework (optional, after the lesson): ...' heading"
    if any(list(PREDICT.findall(c.source)) for c in nb.cells[tagged[0] : tagged[-1] + 1] if c.cell_type == "code"):
        return "the homework asks a prediction"
    return None


@pytest.mark.parametrize("path", LEARNER, ids=lambda p: p.stem)
def test_homework_is_one_block_before_where_you_stand_marked_optional_and_asks_nothing(path):
    assert homework_shape(_read(path)) is None


def test_the_homework_shape_rejects_homework_out_of_place_split_or_not_marked_optional():
    tag = {"tags": [agenda.HOMEWORK]}
    stand = nbformat.v4.new_markdown_cell("## Where you stand")

    def lesson(*cells):
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_markdown_cell("# 09 · x"), *cells]
        return nb

    head = nbformat.v4.new_markdown_cell("## Homework (optional, after the lesson): your own model", metadata=tag)
    code = nbformat.v4.new_code_cell("x = 1", metadata=tag)
    assert homework_shape(lesson(head, code, stand)) is None
    numbered = nbformat.v4.new_markdown_cell("## 10. Homework (optional, after the lesson): own", metadata=tag)
    assert homework_shape(lesson(numbered, code, stand)) is None
    assert homework_shape(lesson(stand)) is None
    assert "Where you stand" in str(homework_shape(lesson(stand, head, code)))
    assert "one block" in str(homework_shape(lesson(head, nbformat.v4.new_markdown_cell("## 3. x"), code, stand)))
    unmarked = nbformat.v4.new_markdown_cell("## 10. Your own model", metadata=tag)
    assert "optional" in str(homework_shape(lesson(unmarked, code, stand)))
    asks = nbformat.v4.new_code_cell('predict("r7-again").widget', metadata=tag)
    assert "prediction" in str(homework_shape(lesson(head, asks, stand)))
