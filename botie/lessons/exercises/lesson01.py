"""Lesson 01's exercises: permission first, then the ranked prefix that fits the budget."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from botie.lessons.exercises.engine import Case, Exercise, same_record_objects, show

__all__ = ["EXERCISES"]


def _scene():
    from botie.lessons.content.fixtures import fixture_path, load_scene

    return load_scene(fixture_path("p2_seal.json"))


def _records(*entries: tuple[str, str, int]):
    from botie.context.records import Record

    return [Record(rid, asset, f"text of {rid}", cost) for rid, asset, cost in entries]


def _random_records(rng: random.Random, n: int):
    assets = ("P-1", "P-2", "P-3", "K-7")
    return _records(*[(f"c{i}", rng.choice(assets), rng.randint(0, 7)) for i in range(n)])


def a_list_of_records(got: Any, expected: list[str]) -> str | None:
    """Right only for a list of the Record objects themselves, in ranked order.

    The next step (and the capstone) reads each record's cost and may walk the answer more than once, so a
    generator or any other one-pass iterator, a tuple and a list of ids are all wrong, each with its own
    plain message rather than a crash further on.
    """
    if not isinstance(got, list):
        kind = type(got).__name__
        if isinstance(got, Iterator):
            return (
                f"expected a list of records, got a {kind}, which can be read only once (the next step would "
                "find it empty): build a list, e.g. [record for record in records if ...]"
            )
        if isinstance(got, tuple):
            return f"expected a list of records, got a tuple {show(got)}: return a list (square brackets)"
        return f"expected a list of records, got {show(got)}"
    return same_record_objects(got, expected)


def _permitted_cases() -> tuple[Case, ...]:
    scene = _scene()
    allowed = list(scene.allowed_assets)
    expected = [r.id for r in scene.records if r.asset in allowed]
    near = _records(("a", "P-2", 1), ("b", "P-22", 1), ("c", "p-2", 1), ("d", "P-2 ", 1), ("e", "P-2", 2))
    inside = _records(("f", "P-", 1), ("g", "2", 1), ("h", "P-2", 1))
    order = _records(("x", "P-3", 4), ("y", "P-2", 1), ("z", "P-3", 2), ("w", "K-7", 1))
    cases = [
        Case("the workshop scene, allowed ['P-2', 'P-3']", (list(scene.records), allowed), expected, shown=True),
        Case(
            "the same scene, allowed only ['K-7']",
            (list(scene.records), ["K-7"]),
            [r.id for r in scene.records if r.asset == "K-7"],
        ),
        Case("nobody is allowed anything: allowed []", (list(scene.records), []), []),
        Case("no candidates at all", ([], ["P-2"]), []),
        Case("near misses: 'P-22', 'p-2' and 'P-2 ' are not 'P-2'", (near, ["P-2"]), ["a", "e"]),
        Case("ranked order is kept (not sorted by asset or cost)", (order, ("P-2", "P-3")), ["x", "y", "z"]),
        Case("pieces of an allowed name: 'P-' and '2' are not 'P-2'", (inside, ["P-2"]), ["h"]),
        Case(
            "the caller's list is left as it was: a new list comes back",
            (_records(("m", "P-1", 1), ("n", "P-2", 1), ("o", "K-7", 1)), ["P-2"]),
            ["n"],
            keeps_input=True,
        ),
        Case(
            "every record is allowed: still a new list, not the one you were given",
            (_records(("q", "P-2", 1), ("r", "P-3", 2)), ["P-2", "P-3"]),
            ["q", "r"],
            keeps_input=True,
        ),
    ]
    rng = random.Random(101)
    for i in range(3):
        recs = _random_records(rng, 8)
        allow = sorted(rng.sample(("P-1", "P-2", "P-3", "K-7"), 2))
        cases.append(
            Case(
                f"a generated case ({i + 1} of 3), allowed {allow}",
                (recs, allow),
                [r.id for r in recs if r.asset in allow],
            )
        )
    return tuple(cases)


_PERMITTED = Exercise(
    "permitted",
    "Keep only the candidates the caller may read",
    _permitted_cases,
    a_list_of_records,
    (
        "Go through the records in order and keep each one whose asset is in allowed_assets. "
        "Return them as a new list, still in ranked order, and leave the list you were given as it was.",
        "Membership is exact: 'P-22', 'p-2' and 'P-2 ' are different assets from 'P-2'. "
        "Use `record.asset in allowed_assets`, not a substring test or a case-insensitive one.",
        "One line does it: `return [r for r in records if r.asset in allowed_assets]`.",
    ),
)


def _oracle_prefix(records, allowed, allowance) -> list[str]:
    from botie.context.selection import select

    return list(select(records, allowed, allowance, policy="prefix").selected_ids)


def _prefix_cases() -> tuple[Case, ...]:
    scene = _scene()
    allowed = list(scene.allowed_assets)
    cases = [
        Case(
            "the workshop scene: allowed ['P-2', 'P-3'], allowance 8",
            (list(scene.records), allowed, 8),
            ["man-p2-r4-s3.2", "tkt-5521"],
            shown=True,
        ),
        Case(
            "costs [6, 5] in 8: the second would make 11",
            (_records(("a", "P-2", 6), ("b", "P-2", 5)), ["P-2"], 8),
            ["a"],
            shown=True,  # section 3 runs it before the prediction's answer
        ),
        Case(
            "costs [3, 8, 2] in 7: stop at the 8, even though the 2 would fit",
            (_records(("a", "P-2", 3), ("b", "P-2", 8), ("c", "P-2", 2)), ["P-2"], 7),
            ["a"],
            shown=True,  # section 3's loop on bare costs
        ),
        Case("one record that fills an allowance of 7 exactly", (_records(("a", "P-2", 7)), ["P-2"], 7), ["a"]),
        Case(
            "costs [8, 0] in 8: the room is full, and a record that costs nothing still fits",
            (_records(("a", "P-2", 8), ("b", "P-2", 0)), ["P-2"], 8),
            ["a", "b"],
        ),
        Case(
            "a zero-cost record fits in an allowance of 0",
            (_records(("a", "P-2", 0), ("b", "P-2", 1)), ["P-2"], 0),
            ["a"],
        ),
        Case(
            "a restricted record must not take room: P-1 (5) before P-2 (6), allowance 6",
            (_records(("k", "P-1", 5), ("a", "P-2", 6)), ["P-2"], 6),
            ["a"],
        ),
        Case("nothing permitted", (_records(("k", "K-7", 1)), ["P-2"], 10), []),
        Case(
            "the scene with a bigger allowance of 12",
            (list(scene.records), allowed, 12),
            _oracle_prefix(scene.records, allowed, 12),
        ),
    ]
    rng = random.Random(404)
    for i in range(4):
        recs = _random_records(rng, 9)
        allow = sorted(rng.sample(("P-1", "P-2", "P-3", "K-7"), 2))
        allowance = rng.randint(3, 14)
        cases.append(
            Case(
                f"a generated case ({i + 1} of 4), allowed {allow}, allowance {allowance}",
                (recs, allow, allowance),
                _oracle_prefix(recs, allow, allowance),
            )
        )
    return tuple(cases)


_CHOOSE_EVIDENCE = Exercise(
    "choose_evidence",
    "Permission first, then the ranked prefix that fits",
    _prefix_cases,
    a_list_of_records,
    (
        "Two steps, in this order: first drop the records the caller may not read (your `permitted` "
        "does that), then walk what is left in ranked order, adding up costs.",
        "Keep a record while used + cost is at most the allowance. A record that brings the total to "
        "exactly the allowance fits: use <=, not <. At the first record that does not fit, stop "
        "(break); do not skip it and keep looking.",
        "used = 0; chosen = []; for r in permitted(records, allowed_assets): if used + r.cost > "
        "allowance: break; chosen.append(r); used += r.cost. Return chosen.",
    ),
)


#: This lesson's exercises, in the order the notebook asks them.
EXERCISES = (
    _PERMITTED,
    _CHOOSE_EVIDENCE,
)
