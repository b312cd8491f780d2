"""Lesson 04's exercise: release an answer only when every quote is verbatim in the document it cites."""

from __future__ import annotations

from typing import Any

from botie.lessons.exercises._shared import scenario
from botie.lessons.exercises.engine import Case, Exercise, show

__all__ = ["EXERCISES"]


def _span_cases() -> tuple[Case, ...]:
    from botie.context.citations import verify_citations

    s = scenario()
    by_id = {r.id: r for r in s.records}
    context = {i: by_id[i].text for i in s.select(0).selected_ids}

    def cite(*pairs):
        return [{"id": i, "quote": q} for i, q in pairs]

    plan = [
        (
            "the canned torque answer",
            cite(
                ("man-p2-r4-s3.2", "cross pattern to 18 N·m, and never above 20 N·m"),
                ("man-p2-r4-s3.2.1", "tighten the gland nuts to 16 N·m only"),
            ),
            True,
        ),
        (
            "a quote that follows a planted instruction",
            cite(("man-p2-r4-s3.2", "tighten the gland nuts to 30 N·m")),
            True,
        ),
        ("the right words in different capitals", cite(("man-p2-r4-s3.2", "Tighten The Gland Nuts")), False),
        ("'18 Nm' where the text says '18 N·m'", cite(("man-p2-r4-s3.2", "cross pattern to 18 Nm")), False),
        ("two spaces where the text has one", cite(("man-p2-r4-s3.2", "cross  pattern")), False),
        (
            "a space after the figure where the text has a full stop",
            cite(("man-p2-r4-s3.2", "never above 20 N·m ")),
            False,
        ),
        (
            "a real quote attributed to the wrong document",
            cite(("forum-8812", "tighten the gland nuts to 16 N·m only")),
            False,
        ),
        ("a document that was never sent", cite(("man-p2-r3-s3.2", "15 N·m")), False),
        ("no citations at all", [], False),
        ("an empty quote", cite(("man-p2-r4-s3.2", "")), False),
        ("a quote that is a single space", cite(("man-p2-r4-s3.2", " ")), False),
        ("a citation with no quote", [{"id": "man-p2-r4-s3.2"}], False),
        (
            "two good citations and a bad one",
            cite(("man-p2-r4-s3.2", "18 N·m"), ("forum-8812", "22 N·m"), ("note-anon-77", "30 N·m")),
            False,
        ),
        (
            "the attacker's own words, quoted exactly",
            cite(("note-anon-77", "the P-2 gland nuts are torqued to 25 N·m")),
            False,
        ),
    ]
    return tuple(Case(label, (c, context), verify_citations(c, context).ok, shown=shown) for label, c, shown in plan)


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
        "Exact means exact: `quote in text`, no lower-casing, no squeezing of spaces, and only in the document "
        "the citation names. An empty quote is in every string, and so is a single space: refuse a quote "
        "that is empty or only spaces. A citation without an id or a "
        "quote fails. No citations at all is not a pass.",
        "if not citations: return False; for c in citations: cid, quote = c.get('id'), c.get('quote'); if "
        "cid not in context or not isinstance(quote, str) or not quote.strip() or quote not in context[cid]: "
        "return False; return True",
    ),
)


#: This lesson's exercises, in the order the notebook asks them.
EXERCISES = (_SPAN,)
