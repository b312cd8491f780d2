"""Lesson 04's design exercise: a release rule of the learner's own, checked by four invariants.

Two different valid designs pass, on the cases the learner sees and on answers generated from other seeds.
For each invariant a wrong design that breaks only that one is rejected, and every failure names it.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given

from botie.context.citations import check_claims, verify_citations
from botie.lessons.exercises.catalogue import run
from botie.lessons.exercises.engine import Verdict, run_exercise
from botie.lessons.exercises.lesson04 import (
    EVERY_SENTENCE,
    EXERCISES,
    HONEST,
    INVARIANTS,
    SENT,
    VERBATIM,
    _release_cases,
    generated_answers,
    sent_documents,
)
from tests.lessons.exercises.instructor import instructor_solution
from tests.strategies import design_seeds, examples

RELEASE = next(e for e in EXERCISES if e.name == "release")
_MARKER = re.compile(r"\[(\d+)\]")


def _genuine(citation, context):
    quote = citation.get("quote")
    return (
        citation.get("id") in context
        and isinstance(quote, str)
        and bool(quote.strip())
        and quote in context[citation["id"]]
    )


def _sentences(answer):
    return [s for s in re.split(r"(?<=[.!?])\s+", answer.strip()) if s]


def _cites(sentence, citations):
    return any(1 <= int(n) <= len(citations) for n in _MARKER.findall(sentence))


# --- two valid designs, built differently ----------------------------------------------------------


def library_design(answer, citations, context):
    """Every quote in the list genuine, then every sentence marked: botie's two checks, composed."""
    return verify_citations(citations, context).ok and check_claims(answer, citations).ok


def sentence_by_sentence(answer, citations, context):
    """Walk the sentences; check only the quotes each one cites, and ask that each figure it states is quoted."""
    sentences = _sentences(answer)
    if not sentences:
        return False
    for sentence in sentences:
        cited = [citations[int(n) - 1] for n in _MARKER.findall(sentence) if 1 <= int(n) <= len(citations)]
        if not cited or not all(_genuine(c, context) for c in cited):
            return False
        figures = re.findall(r"(?<![\w-])\d+(?:\.\d+)?", _MARKER.sub("", sentence))  # not the 2 of P-2
        if any(all(f not in c["quote"] for c in cited) for f in figures):
            return False
    return True


# --- wrong designs, each breaking one invariant ----------------------------------------------------


def no_quote_check(answer, citations, context):
    """Checks the ids were sent and every sentence is marked, never the quotes themselves."""
    return (
        bool(citations)
        and all(c.get("id") in context for c in citations)
        and all(_cites(s, citations) for s in _sentences(answer))
    )


def ignores_case(answer, citations, context):
    lowered = {i: t.lower() for i, t in context.items()}
    return all(
        c.get("id") in lowered and str(c.get("quote", "")).strip() and str(c["quote"]).lower() in lowered[c["id"]]
        for c in citations
    ) and all(_cites(s, citations) for s in _sentences(answer))


def skips_unknown_ids(answer, citations, context):
    """Looks up only the citations it can find: a document that was not sent is passed over."""
    known = [c for c in citations if c.get("id") in context]
    return all(_genuine(c, context) for c in known) and all(_cites(s, citations) for s in _sentences(answer))


def quotes_only(answer, citations, context):
    return verify_citations(citations, context).ok


def any_marker_anywhere(answer, citations, context):
    return verify_citations(citations, context).ok and bool(_MARKER.search(answer))


def always_withhold(answer, citations, context):
    return False


def splits_at_every_full_stop(answer, citations, context):
    pieces = [p for p in re.split(r"[.!?]", answer) if p.strip()]  # '!' and '?' too, but '1.5' is cut in two
    return verify_citations(citations, context).ok and all(_cites(p, citations) for p in pieces)


def always_release(answer, citations, context):
    return True


def splits_only_at_full_stops(answer, citations, context):
    """Ends a sentence only at '. ', so an uncited sentence ending in '!' or '?' hides inside the next one."""
    pieces = [p for p in re.split(r"(?<=\.)\s+", answer.strip()) if p]
    return verify_citations(citations, context).ok and all(_cites(p, citations) for p in pieces)


_SIDES = ("eng-bulletin-2026-02", "man-p2-r4-s6.1")  # the pair ingestion flagged as disagreeing


def also_both_sides(answer, citations, context):
    """A third right design: botie's two checks, and of the flagged pair, both sides cited or neither."""
    ids = {c.get("id") for c in citations}
    one_side = all(s in context for s in _SIDES) and (_SIDES[0] in ids) != (_SIDES[1] in ids)
    return library_design(answer, citations, context) and not one_side


#: For the generic exercise tests (tests/lessons/exercises/test_exercises_evidence.py): a reference and wrong solutions.
REFERENCE = {"release": library_design}
WRONG = {
    "release": {
        "never looks at the quotes": no_quote_check,
        "ignores capitals": ignores_case,
        "passes over a document that was not sent": skips_unknown_ids,
        "checks quotes, never sentences": quotes_only,
        "one marker anywhere is enough": any_marker_anywhere,
        "splits sentences at every full stop": splits_at_every_full_stop,
        "ends sentences only at '. ', never at '!' or '?'": splits_only_at_full_stops,
        "hard-coded False (always withhold)": always_withhold,
        "hard-coded True (always release)": always_release,
    }
}


def _failures(fn, cases=None):
    """The messages of the failed cases (and the report's verdict)."""
    if cases is None:
        report = run_exercise(RELEASE, fn)
        return report.verdict, [r.message for r in report.results if not r.passed]
    messages = []
    for case in cases:
        problem = RELEASE.compare(fn(*case.args), case.expected)
        if problem:
            messages.append(problem)
    return (Verdict.PASSED if not messages else Verdict.FAILED), messages


def test_the_check_holds_four_invariants_over_twenty_three_answers_the_first_two_shown():
    cases = RELEASE.cases()
    assert len(cases) == 23
    assert [c.shown for c in cases[:3]] == [True, True, False] and sum(c.shown for c in cases) == 2
    assert {c.expected[0] for c in cases} == set(INVARIANTS)
    assert sum(c.expected[1] for c in cases) == 7  # seven honest answers to release, sixteen to withhold


def test_a_rule_ending_sentences_only_at_full_stops_is_caught_by_the_bang_and_the_question():
    """Splitting at '. ' alone releases 'Never go above 20 N·m! A 60-minute inspection has been booked [1].'"""
    verdict, _ = _failures(splits_only_at_full_stops)
    assert verdict is Verdict.FAILED
    failed = {c.label for c in RELEASE.cases() if RELEASE.compare(splits_only_at_full_stops(*c.args), c.expected)}
    assert failed == {
        "uncited: a warning ending in '!' before a cited sentence",
        "uncited: a question with no marker before a cited sentence",
    }
    assert _failures(library_design)[0] is Verdict.PASSED  # the library's rule ends sentences at all three


@pytest.mark.parametrize("design", [library_design, sentence_by_sentence], ids=lambda f: f.__name__)
def test_two_different_valid_designs_pass(design):
    assert _failures(design) == (Verdict.PASSED, [])


@pytest.mark.parametrize("seed", [2026, *range(40)])
def test_a_design_that_also_asks_for_both_sides_of_a_flagged_pair_passes(seed):
    """botie's gate withholds an answer giving one side of the manual/bulletin pair; a learner's rule that
    does the same withholds no honest answer, because every honest flush answer states both sides."""
    assert _failures(also_both_sides, _release_cases(seed)) == (Verdict.PASSED, [])


@pytest.mark.parametrize("seed", range(8))
def test_every_honest_answer_is_one_the_turn_releases(seed):
    """The exercise agrees with run_turn's answer gate: each answer the check calls honest is answered."""
    from botie import Budget, TurnSetup, run_turn
    from botie.lessons import AnswerScript, load_evidence_scenario, load_scripted_model

    s, model = load_evidence_scenario(), load_scripted_model()
    setup = TurnSetup.from_scenario(s, ceiling=1_200, answer_allowance=150, budget=Budget(900, 200, 150))
    honest = [a for invariant, _, a in generated_answers(seed) if invariant == HONEST]
    for answer in honest:
        q = next(q for q in (0, 1) if dict(answer.context) == sent_documents(q))
        question = s.questions[q].question
        scripted = model.with_(answers={question: AnswerScript(answer.text, answer.citations)})
        result = run_turn(question, s.candidates(q), setup, scripted)
        assert result.outcome == "answered", (answer.text, result.notice)


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("design", [library_design, sentence_by_sentence], ids=lambda f: f.__name__)
def test_both_designs_keep_the_invariants_on_answers_from_other_seeds(design, seed):
    assert _failures(design, _release_cases(seed)) == (Verdict.PASSED, [])


def test_the_two_designs_are_really_different():
    """The sentence-by-sentence design also asks that each figure is quoted: it withholds what the other releases."""
    context = {"m": "tighten the gland nuts to 18 N·m"}
    citations = [{"id": "m", "quote": "tighten the gland nuts to 18 N·m"}]
    answer = "Tighten the gland nuts to 25 N·m [1]."
    assert library_design(answer, citations, context) and not sentence_by_sentence(answer, citations, context)


@pytest.mark.parametrize(
    ("design", "broken"),
    [
        (no_quote_check, VERBATIM),
        (ignores_case, VERBATIM),
        (skips_unknown_ids, SENT),
        (quotes_only, EVERY_SENTENCE),
        (any_marker_anywhere, EVERY_SENTENCE),
        (always_withhold, HONEST),
        (splits_at_every_full_stop, HONEST),
    ],
    ids=lambda x: getattr(x, "__name__", str(x)[:20]),
)
def test_a_design_that_breaks_one_invariant_is_rejected_naming_it(design, broken):
    verdict, messages = _failures(design)
    assert verdict is Verdict.FAILED and messages
    assert all(f"breaks the invariant: {broken}" in m for m in messages), messages
    assert all(other not in m for m in messages for other in INVARIANTS if other != broken)


def test_always_release_breaks_every_invariant_but_the_honest_one():
    _, messages = _failures(always_release)
    named = {inv for inv in INVARIANTS for m in messages if inv in m}
    assert named == {VERBATIM, SENT, EVERY_SENTENCE}


def test_a_failure_shows_the_answer_it_was_wrong_about():
    _, messages = _failures(quotes_only)
    assert any("the answer:" in m and "A 60-minute inspection has been booked for you." in m for m in messages)


@pytest.mark.parametrize("odd", [None, "release", 1, 0])
def test_a_value_that_is_not_true_or_false_is_refused(odd):
    verdict, messages = _failures(lambda answer, citations, context: odd)
    assert verdict is Verdict.FAILED and all("expected True (release) or False (withhold)" in m for m in messages)


@pytest.mark.parametrize("seed", range(40))
def test_the_generated_answers_are_what_their_labels_say(seed):
    """Honest answers pass both of botie's checks; each bent one fails exactly the check its invariant names."""
    for invariant, label, answer in generated_answers(seed):
        text, citations, context = answer.args()
        quotes_ok = verify_citations(citations, context).ok
        sentences_ok = check_claims(text, citations).ok
        ids_sent = all(c["id"] in context for c in citations)
        if invariant == HONEST:
            assert quotes_ok and sentences_ok, label
        elif invariant == VERBATIM:
            assert ids_sent and not quotes_ok and sentences_ok, label
        elif invariant == SENT:
            assert not ids_sent and sentences_ok, label
            sent_ones = [c for c in citations if c["id"] in context]
            assert verify_citations(sent_ones, context).ok, label  # only the unsent one is wrong
        else:
            assert quotes_ok and not sentences_ok, label


def test_a_stub_gets_not_yet_and_the_first_hint():
    def release(answer, citations, context):
        raise NotImplementedError("your code here")

    report = run_exercise(RELEASE, release)
    assert report.verdict is Verdict.NOT_YET and "Hint 1 of 3" in report.text()


def test_counting_markers_against_sentences_or_accepting_a_zero_marker_is_rejected():
    """Two wrong rules a reader found passing: a marker count that covers the sentences in total (both on the
    first, none on the booking claim), and [0] read as a citation."""

    def counts_markers(answer, citations, context):
        sentences = re.split(r"(?<=[.!?])\s+", answer.strip())
        markers = [int(m) for m in re.findall(r"\[(\d+)\]", answer)]
        quoted = all(c["id"] in context and c["quote"].strip() and c["quote"] in context[c["id"]] for c in citations)
        return len(markers) >= len(sentences) and all(1 <= m <= len(citations) for m in markers) and quoted

    def zero_is_a_marker(answer, citations, context):
        for sentence in re.split(r"(?<=[.!?])\s+", answer.strip()):
            marks = [int(m) for m in re.findall(r"\[(\d+)\]", sentence)]
            if not marks or any(not 0 <= m <= len(citations) for m in marks):
                return False
        return verify_citations(citations, context).ok

    for wrong, case in ((counts_markers, "both markers on the first sentence"), (zero_is_a_marker, "a marker [0]")):
        report = run("release", wrong)
        assert not isinstance(report, str)
        assert not report.passed
        assert any(case in r.case.label for r in report.results if not r.passed), report.text()


@examples(60)
@given(design_seeds())
def test_the_instructor_edition_release_keeps_the_invariants_on_held_out_answers(seed):
    """The notebook's own release (with its span_check), on answers generated from seeds the check never uses."""
    design = instructor_solution("04", "release", "03-39")
    assert _failures(design, _release_cases(seed)) == (Verdict.PASSED, [])
