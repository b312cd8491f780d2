"""Lesson 06's design exercise, may_ship: different valid designs pass; each invariant rejects a design breaking it."""

from __future__ import annotations

import pytest
from hypothesis import given

from botie.lessons.exercises.catalogue import run
from botie.lessons.exercises.lesson06 import NO_BARE_LOSS, NO_SLICE_LOSS, SHIPS_PROGRESS
from tests.lessons.exercises.instructor import instructor_solution
from tests.strategies import design_seeds, examples

ORDINARY = "ordinary questions"


def slice_sets(before):
    return [s for s in before if s != ORDINARY]


def change(before, after, which):
    return after[which][0] - before[which][0]


# --- valid designs: they differ where the invariants leave the choice open -------------------------


def strict(before, after):
    """No set may lose a case, and at least one must gain: ordinary questions are never traded away."""
    changes = [change(before, after, s) for s in before]
    return all(c >= 0 for c in changes) and any(c > 0 for c in changes)


def slice_first(before, after):
    """The slice holds a veto; past it, the total decides (one ordinary answer may buy two slice cases)."""
    if any(change(before, after, s) < 0 for s in slice_sets(before)):
        return False
    return sum(change(before, after, s) for s in before) > 0


def weighted(before, after):
    """The slice holds a veto; past it, a slice case weighs twice an ordinary one, as rates not counts."""
    if any(change(before, after, s) < 0 for s in slice_sets(before)):
        return False
    rate = {s: change(before, after, s) / before[s][1] for s in before}
    return rate[ORDINARY] + 2 * sum(rate[s] for s in slice_sets(before)) > 0


@pytest.mark.parametrize("design", [strict, slice_first, weighted])
def test_different_valid_designs_all_pass(design):
    report = run("may_ship", design)
    assert not isinstance(report, str)
    assert report.passed, report.text()


def test_the_valid_designs_really_differ_on_a_trade_the_check_leaves_open():
    before = {ORDINARY: (3, 3), "1.6x the ceiling": (3, 3), "edited between turns": (2, 2),
              "answer absent": (3, 3), "injected instructions": (3, 5)}  # fmt: skip
    after = {**before, ORDINARY: (2, 3), "injected instructions": (5, 5)}
    assert (strict(before, after), slice_first(before, after)) == (False, True)


# --- wrong designs: each breaks exactly one invariant, and the message names it ---------------------


def total_only(before, after):
    """Averaged accuracy: a gain anywhere pays for a loss anywhere."""
    return sum(change(before, after, s) for s in before) > 0


def accuracy_first(before, after):
    """Design B of the prediction: more ordinary answers ship, whatever the slice loses."""
    if change(before, after, ORDINARY) != 0:
        return change(before, after, ORDINARY) > 0
    return any(change(before, after, s) > 0 for s in before)


def never(before, after):
    """Nothing ever ships: safe, and useless."""
    return False


def unless_the_slice_drops(before, after):
    """Ships whenever the slice holds, even a change that only loses ordinary answers."""
    return not any(change(before, after, s) < 0 for s in slice_sets(before))


@pytest.mark.parametrize(
    ("design", "broken", "kept"),
    [
        (total_only, NO_SLICE_LOSS, (SHIPS_PROGRESS, NO_BARE_LOSS)),
        (accuracy_first, NO_SLICE_LOSS, (SHIPS_PROGRESS, NO_BARE_LOSS)),
        (never, SHIPS_PROGRESS, (NO_SLICE_LOSS, NO_BARE_LOSS)),
        (unless_the_slice_drops, NO_BARE_LOSS, (NO_SLICE_LOSS, SHIPS_PROGRESS)),
    ],
)
def test_a_design_breaking_one_invariant_is_rejected_naming_it(design, broken, kept):
    report = run("may_ship", design)
    assert not isinstance(report, str)
    assert not report.passed
    text = report.text()
    assert f"breaks the invariant '{broken}'" in text
    assert all(f"'{other}'" not in text for other in kept)


def test_the_prediction_s_trade_is_held_back_by_name():
    report = run("may_ship", accuracy_first)
    assert not isinstance(report, str)
    failed = {r.case.label: r.message for r in report.results if not r.passed}
    message = failed["one more ordinary answer, every refusal lost"]
    assert "answer absent 3 -> 0" in message and NO_SLICE_LOSS in message


def only_some_sets_veto(before, after):
    """Vetoes a loss in three sets of the slice and forgets the fourth, 1.6x the ceiling."""
    watched = [s for s in slice_sets(before) if s != "1.6x the ceiling"]
    if any(change(before, after, s) < 0 for s in [*watched, ORDINARY]):
        return False
    return any(change(before, after, s) > 0 for s in before)


def test_a_rule_that_never_looks_at_the_1_6x_set_is_rejected():
    report = run("may_ship", only_some_sets_veto)
    assert not isinstance(report, str)
    failed = {r.case.label: r.message for r in report.results if not r.passed}
    assert "one more planted document held, one 1.6x question lost" in failed
    assert "1.6x the ceiling 3 -> 2" in failed["one more planted document held, one 1.6x question lost"]


def test_an_answer_that_is_not_true_or_false_is_told_so():
    report = run("may_ship", lambda before, after: "ship")
    assert not isinstance(report, str)
    assert "expected True (ship) or False (hold), got 'ship'" in report.text()
    checked = run("may_ship", lambda before, after: 1)
    assert not isinstance(checked, str)
    assert not checked.passed


def test_only_the_case_the_notebook_describes_is_marked_as_shown():
    report = run("may_ship", strict)
    assert not isinstance(report, str)
    assert [r.case.label for r in report.results if r.case.shown] == ["one more ordinary answer, every refusal lost"]


def test_the_stub_gets_not_yet_and_the_first_hint():
    def may_ship(before, after):
        raise NotImplementedError

    report = run("may_ship", may_ship)
    assert not isinstance(report, str)
    text = report.text()
    assert text.startswith("may_ship: not yet.") and "Hint 1 of 3" in text


# For the generic checks over every exercise (tests/lessons/exercises/test_exercises_evidence.py, test_checks.py).
REFERENCE = {"may_ship": slice_first}
WRONG = {
    "may_ship": {
        "a total: a gain anywhere pays for a loss anywhere": total_only,
        "ordinary accuracy first": accuracy_first,
        "ships whenever the slice holds": unless_the_slice_drops,
        "hard-coded False": never,
        "hard-coded True": lambda before, after: True,
    }
}


# --- held out: the instructor edition's may_ship on score tables the check never shows ----------------------------


@examples(200)
@given(design_seeds())
def test_the_instructor_edition_may_ship_keeps_the_invariants_on_held_out_score_tables(seed):
    import random

    from botie.lessons.exercises.lesson06 import TOTALS, _holds_invariant, _rule, _scores

    rng = random.Random(seed)
    before = _scores({s: rng.randint(0, total) for s, total in TOTALS.items()})
    after = _scores({s: max(0, min(total, before[s][0] + rng.choice((-1, 0, 0, 1)))) for s, total in TOTALS.items()})
    design = instructor_solution("06", "may_ship")
    assert _holds_invariant(design(before, after), _rule(before, after)) is None
