"""Every lesson's exercises by name, and the two calls a notebook makes: ``check`` and ``hint``.

In a notebook::

    from botie.lessons import check, hint
    check(permitted)          # or check("permitted", my_function)
    hint("permitted")         # a nudge; call again for a bigger one

The exercises are found by the function's name, whichever lesson they belong to, so a
notebook needs no import to make its exercises known. Checks and hints are recorded in the
learner's progress file (:mod:`botie.lessons.learner.progress`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from botie.lessons.exercises.engine import Exercise, Report, Verdict, describe_exception, run_exercise
from botie.lessons.exercises.places import BY_LESSON, PLACES
from botie.lessons.learner import kept, progress

__all__ = ["BY_LESSON", "EXERCISES", "check", "hint", "run"]

EXERCISES: Mapping[str, Exercise] = {e.name: e for group in BY_LESSON.values() for e in group}

# How many hints each exercise has shown in this kernel, so hint() moves on to the next one.
_HINTS_GIVEN: dict[str, int] = {}


def _unknown(name: str) -> str:
    return f"there is no exercise called {name!r}. The exercises are: {', '.join(sorted(EXERCISES))}."


def run(target: str | Callable[..., Any], fn: Callable[..., Any] | None = None) -> Report | str:
    """Run ``fn`` against every case of an exercise and return a :class:`Report`.

    ``run(permitted)`` finds the exercise by the function's name;
    ``run("permitted", other_function)`` names it explicitly. Returns a
    message string (not a report) when the exercise name is unknown.
    """
    if isinstance(target, str):
        name = target
    else:
        fn, name = target, getattr(target, "__name__", "")
    exercise = EXERCISES.get(name)
    if exercise is None:
        return _unknown(name)
    return run_exercise(exercise, fn)


def check(target: str | Callable[..., Any], fn: Callable[..., Any] | None = None, *, record: bool = True) -> None:
    """Print which cases of the exercise pass (see :func:`run`). Never raises.

    ``record=False`` keeps the try out of the learner's progress: a lesson uses it when it checks a
    wrong function of its own on purpose, which is not the learner's attempt. A recorded pass also
    keeps the function's source (:mod:`botie.lessons.learner.kept`) for the capstone.
    """
    try:
        report = run(target, fn)
        shown, stub = 0, False
        if isinstance(report, Report) and report.verdict is Verdict.NOT_YET:
            # "not yet" already showed hint 1, so the next hint() call moves on to hint 2.
            name = report.exercise.name
            _HINTS_GIVEN[name] = max(_HINTS_GIVEN.get(name, 0), 1)
            shown, stub = 1, True  # the stub (or no function at all): nothing of the learner's ran yet
        print(report)
        if isinstance(report, Report) and record:
            name = report.exercise.name
            progress.record_check(name, report.passed, hint_shown=shown, stub=stub)
            passing = fn if fn is not None else target
            if report.passed and callable(passing):  # a later lesson (the capstone) runs the learner's own version
                kept.keep_function(name, passing, PLACES.get(name, ("?", 0))[0])
    except Exception as exc:  # a bug in the checker itself: say so plainly, no traceback
        print(
            f"The checker itself failed ({describe_exception(exc)}). This is not your fault; "
            "please tell the instructor."
        )


def hint(name: str, level: int | None = None) -> None:
    """Print the next hint for ``name`` (or hint number ``level``, counting from 1)."""
    exercise = EXERCISES.get(name)
    if exercise is None:
        print(_unknown(name).replace("there", "There", 1))
        return
    total = len(exercise.hints)
    if level is None:
        level = min(_HINTS_GIVEN.get(name, 0) + 1, total)
    level = max(1, min(level, total))
    _HINTS_GIVEN[name] = level
    more = " (that is the last one)" if level == total else f'; hint("{name}") again for the next'
    print(f"Hint {level} of {total}{more}:\n{exercise.hints[level - 1]}")
    progress.record_hint(name, level)
