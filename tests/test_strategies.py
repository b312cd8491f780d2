"""Every shared strategy reaches every branch it is used for.

A property only tests what its examples reach: a strategy that can never produce a refusal, a
conflict or a pending key leaves that branch unchecked, however many examples run. Each test here
asks Hypothesis to *find* an example of one strategy that reaches one branch, labelled the way the
properties label their examples with ``hypothesis.event``. Finding one within a bounded search shows
the branch is reachable; how often it is drawn is Hypothesis's business and may change from one
release to the next, so no share is asserted (``pytest --hypothesis-show-statistics`` shows them).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import TypeVar

import pytest
from hypothesis import HealthCheck, Phase, find, settings, strategies as st
from hypothesis.errors import NoSuchExample

from botie import decide, plan_context, select
from botie.context.provenance import select_evidence
from tests.strategies import (
    DECIDER,
    OBSERVED_ON,
    allowances,
    allowed_lists,
    argument_labels,
    attachment_cases,
    budgets,
    decision_cases,
    inspection_arguments,
    provenance_cases,
    provenance_labels,
    record_lists,
    register_turn_cases,
    revision_labels,
    selection_labels,
)

#: How many examples the search may draw before it gives up on a branch: far more than any branch
#: needs, so only a branch the strategy cannot (or almost never) reach fails. The first example found
#: is enough to show the branch is reachable, so it is not shrunk (shrinking only costs time here).
SEARCH = settings(
    max_examples=2_000,
    database=None,
    derandomize=True,
    phases=[Phase.generate],
    suppress_health_check=list(HealthCheck),
)


T = TypeVar("T")


def reach(strategy: st.SearchStrategy[T], labels: Callable[[T], set[str]], label: str) -> T:
    """An example of ``strategy`` whose labels include ``label``; the test fails if the search finds none."""
    try:
        return find(strategy, lambda example: label in labels(example), settings=SEARCH)
    except NoSuchExample:
        pytest.fail(f"no example reached {label!r} in {SEARCH.max_examples} tries")


def test_reach_fails_for_a_branch_the_strategy_cannot_produce():
    """The measuring stick itself: an impossible label is reported, not passed."""
    with pytest.raises(pytest.fail.Exception, match="no example reached 'negative'"):
        reach(st.integers(min_value=0, max_value=9), lambda n: {"negative"} if n < 0 else {"natural"}, "negative")


# --- records and selection --------------------------------------------------------------------

SELECTION_CASES = st.tuples(record_lists(), allowed_lists, allowances | budgets(), st.sampled_from(["prefix", "skip"]))


def _selection(case) -> set[str]:
    records, allowed, budget, policy = case
    return selection_labels(select(records, allowed, budget, policy=policy))


@pytest.mark.parametrize("status", ["selected", "not_permitted", "over_budget", "not_considered"])
def test_record_lists_reach_every_selection_status(status):
    records, allowed, budget, policy = reach(SELECTION_CASES, _selection, status)
    assert status in {str(o.status) for o in select(records, allowed, budget, policy=policy).outcomes}


# --- tool arguments ---------------------------------------------------------------------------


@pytest.mark.parametrize("label", ["valid", "missing", "unexpected", "wrong_type", "not_an_object"])
def test_inspection_arguments_reach_valid_and_every_common_repair(label):
    arguments = reach(inspection_arguments(), argument_labels, label)
    assert label in argument_labels(arguments)


# --- provenance selection ---------------------------------------------------------------------


def _provenance(case) -> set[str]:
    records, allowed, allowance = case
    return provenance_labels(records, select_evidence(records, allowed, allowance, observed_on=OBSERVED_ON))


@pytest.mark.parametrize(
    "label", ["branch answer", "branch refuse", "kept-together conflict", "selected with dependencies"]
)
def test_provenance_cases_answer_refuse_keep_conflicts_together_and_carry_dependencies(label):
    case = reach(provenance_cases(), _provenance, label)
    assert label in _provenance(case)


# --- routing ----------------------------------------------------------------------------------


def _strategy(case) -> set[str]:
    docs, ceiling = case
    return {str(plan_context(docs, ceiling=ceiling).strategy)}


@pytest.mark.parametrize("strategy", ["stuff_all", "select_documents", "retrieve_within_document", "retrieve_chunks"])
def test_attachment_cases_reach_all_four_strategies(strategy):
    docs, ceiling = reach(attachment_cases(), _strategy, strategy)
    assert str(plan_context(docs, ceiling=ceiling).strategy) == strategy


# --- decisions --------------------------------------------------------------------------------


def _decision(case) -> set[str]:
    """The branch, and ``stored <state>`` when the idempotency check read a stored request."""
    proposal, allowed, approval, previous = case
    d = decide(proposal, caller=DECIDER, allowed_assets=allowed, approval=approval, previous=previous)
    found = {str(d.branch)}
    if d.checks[-1].verdict.value != "not_reached" and previous is not None:
        found.add(f"stored {previous.state}")
    return found


@pytest.mark.parametrize(
    "label",
    [
        "invalid",
        "denied",
        "needs_approval",
        "create",
        "reuse",
        "conflict",
        "in_progress",
        "stored failed",
        "stored pending",
        "stored done",
    ],
)
def test_decision_cases_reach_every_branch_and_every_stored_state(label):
    case = reach(decision_cases(), _decision, label)
    assert label in _decision(case)


def test_the_observation_date_sits_inside_the_generated_dates():
    """Stale and current records both occur only if the observation date is inside the drawn range."""
    assert dt.date(2025, 6, 1) < OBSERVED_ON < dt.date(2026, 6, 30)


@pytest.mark.parametrize(
    "label",
    [
        "rev 3 in force",
        "rev 4 in force",
        "rev 5 in force",
        "revision changed between turns",
        "rev 5 chunk not retrieved",
        "single turn",
    ],
)
def test_register_turn_cases_reach_both_sides_of_each_revision_change(label):
    """The version property's days fall on both sides of rev 4's and rev 5's dates, with and without rev 5's chunk."""
    reach(register_turn_cases(), revision_labels, label)
