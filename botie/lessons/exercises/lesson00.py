"""Lesson 00's exercise: the warm-up, how much room a request leaves for evidence."""

from __future__ import annotations

from typing import Any

from botie.lessons.exercises.engine import Case, Exercise, Raises, same_value, show

__all__ = ["EXERCISES"]


def _evidence_cases() -> tuple[Case, ...]:
    over = Raises(ValueError, "reserves above the total are an error, not a silent zero")
    # Budget refuses a negative reserve: it would add room the window does not have.
    negative = Raises(ValueError, "a reserve below zero is an error, as Budget says: it would invent room")
    return (
        Case("total 20, reserves 8 and 4", (20, 8, 4), 8, shown=True),
        Case("total 100, reserves 30 and 10", (100, 30, 10), 60),
        Case("reserves use the whole window: 0 left is fine", (12, 8, 4), 0),
        Case("nothing at all: 0, 0, 0", (0, 0, 0), 0),
        Case("no input reserve: total 9, reserves 0 and 5", (9, 0, 5), 4),
        Case("reserves 8 + 4 = 12 above a total of 10", (10, 8, 4), over),
        Case("reserves 2 + 2 = 4 above a total of 3", (3, 2, 2), over),
        Case("a negative input reserve: total 10, reserves -5 and 4", (10, -5, 4), negative),
        Case("a negative output reserve: total 10, reserves 2 and -1", (10, 2, -1), negative),
        Case(
            "a negative total: -1, reserves 0 and 0",
            (-1, 0, 0),
            Raises(ValueError, "a total below zero is an error, as Budget says: there is no such window"),
        ),
    )


def _same_tokens(got: Any, expected: int) -> str | None:
    # Tokens are counted whole: 8.0 would pass an equality test, and then a budget holds fractions of tokens.
    if type(got) is not int:
        return f"expected a whole number of tokens such as {expected!r}, got {show(got)} (a {type(got).__name__})"
    return same_value(got, expected)


_EVIDENCE_ALLOWANCE = Exercise(
    "evidence_allowance",
    "Warm-up: how much room is left for evidence?",
    _evidence_cases,
    _same_tokens,
    (
        "The evidence allowance is what is left after both reserves: total minus input reserve minus output reserve.",
        "When the two reserves add up to more than the total, the request cannot fit. Raise a "
        "ValueError instead of returning 0 or a negative number. Exactly equal is fine: 0 left. A number "
        "below zero is an error too: a negative reserve would make room out of nothing, a negative total is no window.",
        "If total, input_reserve or output_reserve is below 0, or input_reserve + output_reserve > total, "
        '`raise ValueError("...")` saying which; otherwise return the subtraction.',
    ),
)


#: This lesson's exercises, in the order the notebook asks them.
EXERCISES = (_EVIDENCE_ALLOWANCE,)
