"""Lesson 06's exercise: find the stage where the needed evidence was lost."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from botie.lessons.exercises._shared import scenario
from botie.lessons.exercises.engine import Case, Exercise, show

__all__ = ["EXERCISES"]


def _oracle_first_lost(needed_id, stages) -> str | None:
    for name, ids in stages:
        if needed_id not in ids:
            return name
    return None


def _trace(setup_changes: Mapping[str, Any] | None = None, drop: str | None = None) -> list[tuple[str, list[str]]]:
    from botie.lessons.content.adversarial import BUDGET
    from botie.turn import Stage, TurnSetup, run_turn

    s = scenario()
    setup = TurnSetup.from_scenario(s, **{"budget": BUDGET, **(setup_changes or {})})
    candidates = [r for r in s.candidates(0) if r.id != drop]
    from botie.lessons.content.scripted import ScriptedModel

    result = run_turn(s.questions[0].question, candidates, setup, ScriptedModel())
    keep = (Stage.CANDIDATES, Stage.PERMITTED, Stage.FRESH, Stage.RELEVANT, Stage.FIT)
    return [(str(st.stage), list(st.ids)) for st in result.stages if st.stage in keep]


def _first_lost_cases() -> tuple[Case, ...]:
    tight = _trace({"budget": 150})
    normal = _trace()
    missing = _trace(drop="man-p2-r4-s3.2.1")
    refused = _trace({"allowed_assets": ("P-3",)})

    def case(label, rid, stages, shown=False):
        return Case(label, (rid, stages), _oracle_first_lost(rid, stages), shown=shown)

    return (
        case("the exception clause with a 150-token budget", "man-p2-r4-s3.2.1", tight, shown=True),
        case("the vendor file", "vendor-p2-seal-design", normal),
        case("rev 5, not yet in force", "man-p2-r5-s3.2", normal),
        case("a copy of rev 4", "portal-p2-r4-s3.2", normal),
        case("the exception clause, never retrieved", "man-p2-r4-s3.2.1", missing),
        case("rev 4 with the normal budget: it survives", "man-p2-r4-s3.2", normal),
        case("the table heading, brought along below the floor", "man-p2-r4-t3.4-head", normal),
        case("rev 4 when only P-3 is allowed", "man-p2-r4-s3.2", refused),
        case("an empty trace", "man-p2-r4-s3.2", []),
        case("other stage names: lost at the last one", "x", [("one", ["x"]), ("two", ["x", "y"]), ("three", [])]),
    )


def _same_stage(got: Any, expected: str | None) -> str | None:
    if expected is None:
        return None if got is None else f"expected None (it survived every stage), got {show(got)}"
    if not isinstance(got, str):
        return f"expected a stage name such as {expected!r}, got {show(got)}"
    return None if got == expected else f"expected {expected!r}, got {got!r}"


_FIRST_LOST = Exercise(
    "first_lost_stage",
    "Which stage lost the evidence?",
    _first_lost_cases,
    _same_stage,
    (
        "stages is a list of (stage name, ids still in play after that stage), in the order the stages ran. "
        "Walk it from the start.",
        "The answer is the first stage whose ids do not contain needed_id: that is where it went missing. "
        "If it is present after every stage, return None (not False, not an empty string).",
        "for name, ids in stages: if needed_id not in ids: return name; return None",
    ),
)


#: This lesson's exercises, in the order the notebook asks them.
EXERCISES = (_FIRST_LOST,)
