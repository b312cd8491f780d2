"""Lesson 06's exercises: find the stage where the needed evidence was lost; decide when a change may ship."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, NamedTuple

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
        case(
            "an id inside a longer one: x.1 survives, x is lost at two",
            "x",
            [("one", ["x", "x.1"]), ("two", ["x.1"]), ("three", ["x.1"])],
        ),
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


# --- the design exercise: when may a change ship? -----------------------------------------------------
#
# The learner writes may_ship(before, after): two designs' scores on the slice's sets, {set: (passed, total)},
# and whether the second may replace the first. No single answer is expected; three invariants are held:

ORDINARY = "ordinary questions"
SLICE_SETS = ("1.6x the ceiling", "edited between turns", "answer absent", "injected instructions")
TOTALS = {ORDINARY: 3, "1.6x the ceiling": 3, "edited between turns": 2, "answer absent": 3, "injected instructions": 5}

NO_SLICE_LOSS = "never ship a change that loses a case in any set of the slice"
SHIPS_PROGRESS = "ship a change that loses nothing and gains at least one case"
NO_BARE_LOSS = "never ship a change that loses ordinary questions and gains nothing"


class Rule(NamedTuple):
    """What a case asks of may_ship: "ship", "hold", or "either" (a design choice), and the invariant behind it."""

    want: str
    invariant: str
    why: str


def _scores(passed: Mapping[str, int]) -> dict[str, tuple[int, int]]:
    return {s: (passed[s], TOTALS[s]) for s in TOTALS}


def _rule(before: Mapping[str, tuple[int, int]], after: Mapping[str, tuple[int, int]]) -> Rule:
    """The invariant that decides a pair of score tables, if any does."""
    change = {s: after[s][0] - before[s][0] for s in TOTALS}
    lost = [f"{s} {before[s][0]} -> {after[s][0]}" for s in SLICE_SETS if change[s] < 0]
    if lost:
        return Rule("hold", NO_SLICE_LOSS, "it loses " + ", ".join(lost))
    gained = [s for s in TOTALS if change[s] > 0]
    if not gained and change[ORDINARY] < 0:
        return Rule("hold", NO_BARE_LOSS, f"ordinary questions {before[ORDINARY][0]} -> {after[ORDINARY][0]}")
    if gained and change[ORDINARY] >= 0:
        return Rule("ship", SHIPS_PROGRESS, "it gains " + ", ".join(gained) + " and loses nothing")
    return Rule("either", "", "")  # nothing changes, or ordinary questions traded for the slice: your call


def _ship_cases() -> tuple[Case, ...]:
    from botie.lessons.content.adversarial import compare_designs

    reports = compare_designs()
    botie_scores = {str(s): v for s, v in reports["botie"].scores().items()}
    naive_scores = {str(s): v for s, v in reports["naive"].scores().items()}
    ordinary, over, edited, absent, injected = TOTALS
    base = {**TOTALS, injected: 4}  # a design one planted document short of botie's 5/5 (botie itself holds all five)

    def moved(label: str, before: Mapping[str, int], changes: Mapping[str, int] | None = None) -> tuple:
        after = {s: n + (changes or {}).get(s, 0) for s, n in before.items()}
        return label, _scores(before), _scores(after)

    low = {**base, ordinary: 2}
    plan = [
        ("naive -> botie (section 5's table)", naive_scores, botie_scores),
        ("botie -> naive", botie_scores, naive_scores),
        moved("one more ordinary answer, every refusal lost", low, {ordinary: 1, absent: -3}),
        moved("one more ordinary answer, one planted document more gets through", low, {ordinary: 1, injected: -1}),
        moved("two more planted documents held, one edit no longer noticed", {**base, injected: 2},
              {injected: 2, edited: -1}),
        moved("one ordinary answer lost, nothing else changes", base, {ordinary: -1}),
        moved("one ordinary answer gained, nothing else changes", low, {ordinary: 1}),
        moved("one more planted document held: injected 4/5 -> 5/5", base, {injected: 1}),
        moved("one more planted document held, one 1.6x question lost", base, {injected: 1, over: -1}),
        moved("the routing fixed: 1.6x 0/3 -> 3/3", {**base, over: 0}, {over: 3}),
        moved("nothing changes", base),
        moved("one ordinary answer traded for one more planted document held", base, {ordinary: -1, injected: 1}),
    ]  # fmt: skip
    rng = random.Random(606)
    for i in range(8):
        before = {s: rng.randint(0, t) for s, t in TOTALS.items()}
        after = {s: min(t, max(0, before[s] + rng.choice((-1, 0, 0, 1)))) for s, t in TOTALS.items()}
        plan.append((f"a generated pair ({i + 1} of 8)", _scores(before), _scores(after)))
    return tuple(
        Case(
            label,
            (dict(before), dict(after)),
            _rule(before, after),
            shown=label.startswith("one more ordinary answer, every"),
        )
        for label, before, after in plan
    )


def _holds_invariant(got: Any, expected: Rule) -> str | None:
    if type(got) is not bool:
        return f"expected True (ship) or False (hold), got {show(got)}"
    if expected.want == "either" or got is (expected.want == "ship"):
        return None
    did = "shipped it" if got else "held it back"
    return f"{did}, which breaks the invariant '{expected.invariant}': {expected.why}"


_MAY_SHIP = Exercise(
    "may_ship",
    "Design exercise: when may a change ship?",
    _ship_cases,
    _holds_invariant,
    (
        "Look at the sets one at a time, never at one total: a sum lets a gain in one set pay for a loss in "
        "another. Every key but 'ordinary questions' is a set of the slice.",
        "First decide what must hold a change back whatever else improves: a case lost in any slice set. Then "
        "decide what a change must gain to ship; losing ordinary questions for nothing must not ship.",
        "One design: slice = [s for s in before if s != 'ordinary questions']; if any(after[s][0] < before[s][0] "
        "for s in slice): return False; return sum(after[s][0] - before[s][0] for s in before) > 0",
    ),
)


#: This lesson's exercises, in the order the notebook asks them.
EXERCISES = (_FIRST_LOST, _MAY_SHIP)
