"""Lesson 04's exercises: a release rule of the learner's own design, then the span check alone (homework).

``span_check`` has one right answer per case. ``release`` is open: the learner decides how to split
sentences, which citations to look at and whether to ask for more. Its check holds four invariants
over answers generated from the P-2 scene instead of comparing with one expected output.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from botie.lessons.exercises._shared import scenario
from botie.lessons.exercises.engine import Case, Exercise, show

__all__ = ["EXERCISES"]


class _SpanRow(NamedTuple):
    """One case of span_check: the citations a reply made, checked against the documents sent."""

    label: str
    citations: list[Any]
    shown: bool = False


def _span_cases() -> tuple[Case, ...]:
    from botie.context.citations import verify_citations

    s = scenario()
    by_id = {r.id: r for r in s.records}
    context = {i: by_id[i].text for i in s.select(0).selected_ids}

    def cite(*pairs):
        return [{"id": i, "quote": q} for i, q in pairs]

    plan = [
        _SpanRow(
            "the careful model's torque answer",
            citations=cite(
                ("man-p2-r4-s3.2", "cross pattern to 18 N·m, and never above 20 N·m"),
                ("man-p2-r4-t3.4-m12", "| M12 | 18 | 20 | cross |"),
                ("man-p2-r4-s3.2.1", "tighten the gland nuts to 16 N·m only"),
            ),
            shown=True,
        ),
        _SpanRow(
            "the gullible model's 30 N·m quote",
            citations=cite(("man-p2-r4-s3.2", "tighten the gland nuts to 30 N·m")),
            shown=True,
        ),
        _SpanRow("the right words in different capitals", citations=cite(("man-p2-r4-s3.2", "Tighten The Gland Nuts"))),
        _SpanRow("'18 Nm' where the text says '18 N·m'", citations=cite(("man-p2-r4-s3.2", "cross pattern to 18 Nm"))),
        _SpanRow("two spaces where the text has one", citations=cite(("man-p2-r4-s3.2", "cross  pattern"))),
        _SpanRow(
            "a space after the figure where the text has a full stop",
            citations=cite(("man-p2-r4-s3.2", "never above 20 N·m ")),
        ),
        _SpanRow(
            "a real quote attributed to the wrong document",
            citations=cite(("forum-8812", "tighten the gland nuts to 16 N·m only")),
        ),
        _SpanRow("a document that was never sent", citations=cite(("man-p2-r3-s3.2", "15 N·m"))),
        _SpanRow("no citations at all", citations=[]),
        _SpanRow("an empty quote", citations=cite(("man-p2-r4-s3.2", ""))),
        _SpanRow("a quote that is a single space", citations=cite(("man-p2-r4-s3.2", " "))),
        _SpanRow(
            "two good citations and a bad one",
            citations=cite(("man-p2-r4-s3.2", "18 N·m"), ("forum-8812", "22 N·m"), ("note-anon-77", "30 N·m")),
        ),
        _SpanRow("'.*': a pattern that matches anything, not a quote", citations=cite(("man-p2-r4-s3.2", ".*"))),
        _SpanRow(
            "'30 N.m|18': either figure as a pattern, neither verbatim", citations=cite(("man-p2-r4-s3.2", "30 N.m|18"))
        ),
        _SpanRow(
            "brackets and bars, verbatim: the heading's '(N·m) | maximum'",
            citations=cite(("man-p2-r4-t3.4-head", "nominal torque (N·m) | maximum torque (N·m)")),
        ),
        _SpanRow(
            "the attacker's own words, quoted exactly",
            citations=cite(("note-anon-77", "the P-2 gland nuts are torqued to 25 N·m")),
        ),
    ]
    return tuple(
        Case(row.label, (row.citations, context), verify_citations(row.citations, context).ok, shown=row.shown)
        for row in plan
    )


def _same_verdict(got: Any, expected: bool) -> str | None:
    if type(got) is not bool:
        return f"expected True or False, got {show(got)} (a {type(got).__name__})"
    return None if got is expected else f"expected {expected}, got {got}"


_SPAN = Exercise(
    "span_check",
    "Release an answer only when every quote is in its source",
    _span_cases,
    _same_verdict,
    (
        "Return True only when there is at least one citation and every citation passes: its id is a key "
        "of context, and its quote appears, character for character, in context[id].",
        "Exact means exact: `quote in text`, no lower-casing, no squeezing of spaces, no regular expressions "
        "('.*' is a pattern, not words the document says), and only in the document the citation names. An "
        "empty quote is in every string, and so is a single space: refuse a quote that is empty or only "
        "spaces. A citation without an id or a quote fails. No citations at all is not a pass.",
        "if not citations: return False; for c in citations: cid, quote = c.get('id'), c.get('quote'); if "
        "cid not in context or not isinstance(quote, str) or not quote.strip() or quote not in context[cid]: "
        "return False; return True",
    ),
)


# --- design exercise: a release rule of the learner's own --------------------------------------

VERBATIM = "never release a quote that is not verbatim in the document it cites"
SENT = "never release an answer that cites a document that was not sent"
EVERY_SENTENCE = "never release an answer with a sentence that cites nothing"
HONEST = "release an honest answer: every sentence cites a quote that is verbatim in a document sent"
INVARIANTS = (VERBATIM, SENT, EVERY_SENTENCE, HONEST)


class Claim(NamedTuple):
    """One sentence an honest answer may say, and the quote (verbatim in ``source``) that backs it."""

    sentence: str
    source: str
    quote: str


# Every figure a sentence states is inside its own quote, so a stricter rule ("each figure is quoted")
# releases these too; "1.5 bar" and "2.0 bar" catch a rule that splits sentences at every full stop.
CLAIMS: Mapping[int, tuple[Claim, ...]] = {
    0: (
        Claim(
            "Tighten the gland nuts evenly in a cross pattern to 18 N·m.",
            "man-p2-r4-s3.2",
            "tighten the gland nuts evenly in a cross pattern to 18 N·m",
        ),
        Claim("Never go above 20 N·m.", "man-p2-r4-s3.2", "never above 20 N·m"),
        Claim(
            "If the seal faces were lapped on site, use 16 N·m.",
            "man-p2-r4-s3.2.1",
            "tighten the gland nuts to 16 N·m only",
        ),
        Claim(
            "After lapping, run the pump for 24 hours and check the torque again.",
            "man-p2-r4-s3.2.1",
            "run the pump for 24 hours, then check the torque again",
        ),
        Claim("For M12 bolts the table gives 18 and 20 N·m.", "man-p2-r4-t3.4-m12", "| M12 | 18 | 20 | cross |"),
    ),
    1: (
        Claim(
            "Keep the flush line at 1.5 bar above pump suction pressure.",
            "man-p2-r4-s6.1",
            "keep the flush line at 1.5 bar above pump suction pressure",
        ),
        Claim(
            "An engineering bulletin asks for 2.0 bar above suction pressure until the manual is revised.",
            "eng-bulletin-2026-02",
            "2.0 bar above suction pressure until the manual is revised",
        ),
        Claim("The bulletin followed two seal failures.", "eng-bulletin-2026-02", "after two seal failures"),
    ),
}


class Answer(NamedTuple):
    """A generated answer: its sentences (with [n] markers), its citations and the documents sent."""

    sentences: tuple[str, ...]
    citations: tuple[tuple[str, str], ...]  # (id, quote), the n-th is cited by [n]
    context: Mapping[str, str]  # id -> text of every document sent with the question

    @property
    def text(self) -> str:
        return " ".join(self.sentences)

    def args(self) -> tuple[str, list[dict[str, str]], dict[str, str]]:
        """The call ``release(answer, citations, context)``, in the shapes the lesson uses."""
        return self.text, [{"id": i, "quote": q} for i, q in self.citations], dict(self.context)


def sent_documents(question: int) -> dict[str, str]:
    """{id: text} of the documents botie sends for question 0 (torque) or 1 (flush) of the P-2 scene."""
    s = scenario()
    texts = {r.id: r.text for r in s.records}
    return {i: texts[i] for i in s.select(question).selected_ids}


def _marked(sentence: str, *numbers: int) -> str:
    return sentence[:-1] + " " + "".join(f"[{n}]" for n in numbers) + sentence[-1]


def honest_answer(rng: random.Random, question: int, count: int, *, reverse: bool = False) -> Answer:
    """``count`` claims about ``question``, each sentence marked for its own citation.

    ``reverse`` lists the citations in the opposite order to the sentences, so the first sentence
    cites the last entry: a rule must follow the markers, not the positions. An answer about the flush
    (question 1, ``count`` at least 2) states both sides of the disagreement ingestion flagged, the
    manual's 1.5 bar and the bulletin's 2.0 bar: botie's answer gate withholds an answer that gives one
    side alone, so an honest answer here never does.
    """
    pool = CLAIMS[question]
    sides = pool[:2] if question == 1 else ()
    chosen = [*sides, *rng.sample(pool[len(sides) :], count - len(sides))]
    claims = rng.sample(chosen, count)  # both sides kept, in any order
    listed = claims[::-1] if reverse else claims
    sentences = tuple(_marked(c.sentence, listed.index(c) + 1) for c in claims)
    return Answer(sentences, tuple((c.source, c.quote) for c in listed), sent_documents(question))


def _cite_instead(answer: Answer, source: str, quote: str, sentence: str) -> Answer:
    """The first citation replaced, and the sentence that cites it reworded to match."""
    cites_first = next(k for k, s in enumerate(answer.sentences) if "[1]" in s)
    sentences = list(answer.sentences)
    sentences[cites_first] = _marked(sentence, 1)
    return Answer(tuple(sentences), ((source, quote), *answer.citations[1:]), answer.context)


def _requote(answer: Answer, quote: str) -> Answer:
    return Answer(answer.sentences, ((answer.citations[0][0], quote), *answer.citations[1:]), answer.context)


def _add(answer: Answer, sentence: str, at: int) -> Answer:
    sentences = list(answer.sentences)
    sentences.insert(at, sentence)
    return Answer(tuple(sentences), answer.citations, answer.context)


def _honest(rng: random.Random) -> tuple[tuple[str, str, Answer], ...]:
    first, second = CLAIMS[0][:2]
    cite_both = ((first.source, first.quote), (second.source, second.quote))
    twice = (_marked(first.sentence, 1), "Work in a cross pattern [1].")
    warned = ((first.source, first.quote), ("man-p2-r4-s3.2", "never above 20 N·m"))
    return (
        (HONEST, "honest: one sentence, one quote", honest_answer(rng, 0, 1)),
        (HONEST, "honest: three sentences, citations listed in reverse", honest_answer(rng, 0, 3, reverse=True)),
        (HONEST, "honest: both sides, the figures '1.5 bar' and '2.0 bar' inside sentences", honest_answer(rng, 1, 2)),
        (HONEST, "honest: two sentences cite the same quote", Answer(twice, cite_both[:1], sent_documents(0))),
        (
            HONEST,
            "honest: one sentence with two markers",
            Answer(("Tighten to 18 N·m and never above 20 N·m [1][2].",), cite_both, sent_documents(0)),
        ),
        (
            HONEST,
            "honest: a cited warning ends in '!'",
            Answer((_marked(first.sentence, 1), "Never go above 20 N·m [2]!"), warned, sent_documents(0)),
        ),
    )


def _bent(rng: random.Random) -> tuple[tuple[str, str, Answer], ...]:
    base, flush = honest_answer(rng, 0, 2), honest_answer(rng, 1, 2)
    quote = base.citations[0][1]
    elsewhere = next(i for i, text in base.context.items() if quote not in text)
    figure = re.search(r"\d+", quote)
    changed = (
        quote if figure is None else quote[: figure.start()] + str(int(figure.group()) + 7) + quote[figure.end() :]
    )
    return (
        (VERBATIM, "not verbatim: a figure changed in the quote", _requote(base, changed)),
        (VERBATIM, "not verbatim: the quote in capitals", _requote(base, quote.upper())),
        (VERBATIM, "not verbatim: two spaces where the text has one", _requote(base, quote.replace(" ", "  ", 1))),
        (
            VERBATIM,
            "not verbatim: a real quote credited to another document sent",
            Answer(base.sentences, ((elsewhere, quote), *base.citations[1:]), base.context),
        ),
        (VERBATIM, "not verbatim: a quote of one space", _requote(base, " ")),
        (SENT, "not sent: quoting rev 3 of the manual", _cite_instead(base, "man-p2-r3-s3.2", "15 N·m", "Use 15 N·m.")),
        (
            SENT,
            "not sent: quoting the restricted vendor file",
            _cite_instead(base, "vendor-p2-seal-design", "torque test at 17.5 N·m", "The factory used 17.5 N·m."),
        ),
        (
            SENT,
            "not sent: a flush answer quoting the torque manual",
            _cite_instead(flush, "man-p2-r4-s3.2", "never above 20 N·m", "Never go above 20 N·m."),
        ),
        (EVERY_SENTENCE, "uncited: a booking claim added at the end", _add(base, _BOOKED, len(base.sentences))),
        (
            EVERY_SENTENCE,
            "uncited: a sentence with no marker in the middle",
            _add(base, "Work order 4471 is closed.", 1),
        ),
        (EVERY_SENTENCE, "uncited: a marker [3] with two citations", _add(base, "The pump may run at once [3].", 1)),
        (
            EVERY_SENTENCE,
            "uncited: a marker [0], when the first citation is [1]",
            _add(base, "The pump may run at once [0].", 1),
        ),
        # A sentence may end in '!' or '?': a rule that splits only at '. ' reads the uncited one as part of the next.
        (
            EVERY_SENTENCE,
            "uncited: a warning ending in '!' before a cited sentence",
            _add(base, "Never go above 20 N·m!", 0),
        ),
        (
            EVERY_SENTENCE,
            "uncited: a question with no marker before a cited sentence",
            _add(base, "Shall I book a 60-minute inspection?", 1),
        ),
        (
            EVERY_SENTENCE,
            "uncited: both markers on the first sentence, none on the booking claim after it",
            Answer((_marked(_unmarked(base.sentences[0]), 1, 2), _BOOKED), base.citations, base.context),
        ),
    )


def _unmarked(sentence: str) -> str:
    return re.sub(r" ?(\[\d+\])+(?=[.!?]$)", "", sentence)


_BOOKED = "A 60-minute inspection has been booked for you."


def generated_answers(seed: int = 2026) -> tuple[tuple[str, str, Answer], ...]:
    """(invariant, label, answer) for each case: five honest answers, then honest ones bent in one way each."""
    rng = random.Random(seed)
    return _honest(rng) + _bent(rng)


#: Section 5's two answers (the notebook prints them in the cell before the exercise): the check's first two cases.
SHOWN_CITATIONS = (
    ("man-p2-r4-s3.2", "tighten the gland nuts evenly in a cross pattern to 18 N·m"),
    ("man-p2-r4-s3.2.1", "tighten the gland nuts to 16 N·m only"),
)
SHOWN_HONEST = (
    "Tighten the P-2 gland nuts to 18 N·m in a cross pattern [1].",
    "If the seal faces were lapped on site, use 16 N·m [2].",
)
SHOWN_BENT = (*SHOWN_HONEST, _BOOKED)


def shown_answers() -> tuple[tuple[str, str, Answer], ...]:
    torque = sent_documents(0)
    return (
        (HONEST, "section 5's honest answer", Answer(SHOWN_HONEST, SHOWN_CITATIONS, torque)),
        (EVERY_SENTENCE, "section 5's bent answer", Answer(SHOWN_BENT, SHOWN_CITATIONS, torque)),
    )


def _release_cases(seed: int = 2026) -> tuple[Case, ...]:
    shown = tuple(
        Case(label, answer.args(), (invariant, invariant == HONEST, answer.text), shown=True)
        for invariant, label, answer in shown_answers()
    )
    return shown + tuple(
        Case(label, answer.args(), (invariant, invariant == HONEST, answer.text))
        for invariant, label, answer in generated_answers(seed)
    )


def _keeps_invariant(got: Any, expected: tuple[str, bool, str]) -> str | None:
    invariant, should_release, text = expected
    if type(got) is not bool:
        return f"expected True (release) or False (withhold), got {show(got)} (a {type(got).__name__})"
    if got is should_release:
        return None
    return f"{'released' if got else 'withheld'} it, which breaks the invariant: {invariant}\nthe answer: {text}"


_RELEASE = Exercise(
    "release",
    "Your own rule for when an answer may be released",
    _release_cases,
    _keeps_invariant,
    (
        "Two questions decide it: is every quote genuine (its id a key of context, the quote not blank and found "
        "character for character in context[id]), and does every sentence point at a citation? Withhold when "
        "either says no.",
        "Split the answer where '.', '!' or '?' is followed by a space: splitting at every '.' cuts '1.5 bar' in "
        "two. A sentence cites when it carries a marker [n] with n from 1 to the number of citations; [3] with "
        "two citations cites nothing. Follow the markers, not the order of the sentences.",
        "One design: withhold when there is no citation, or a quote is blank or not in context.get(id, ''); "
        "then return all(any(1 <= int(n) <= len(citations) for n in re.findall(r'\\[(\\d+)\\]', s)) for s in "
        "re.split(r'(?<=[.!?])\\s+', answer.strip())). Another checks "
        "sentence by sentence, only the quotes each one cites, and may also ask that every figure it states is "
        "in those quotes.",
    ),
)


#: This lesson's exercises, in the order the notebook asks them.
EXERCISES = (_RELEASE, _SPAN)  # span_check is the lesson's homework, after section 7
