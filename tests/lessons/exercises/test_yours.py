"""Your function beside the reference: agree, differ (and where), raise, stub, and no way to touch the inputs."""

from __future__ import annotations

import datetime as _dt

import pytest

from botie import Record
from botie.actions.decision import Approval, StoredRequest
from botie.lessons import fixture_path, load_scene
from botie.lessons.content.scenarios import load_evidence_scenario
from botie.lessons.exercises.yours import Agreement, compare_branch, compare_selection, compare_shortlist
from tests.lessons.exercises.test_checks import choose_branch, choose_evidence
from tests.lessons.exercises.test_exercises_evidence import shortlist

P2 = {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r7"}
ANA = {"caller": "tech-ana", "allowed_assets": ["P-2", "P-3"]}


@pytest.fixture(scope="module")
def scene():
    return load_scene(fixture_path("p2_seal.json"))


# --- learner answers: the reference solutions of the exercise tests, and two wrong on purpose ----------


def skip_evidence(records, allowed_assets, allowance):
    """Wrong on purpose: skips a record that does not fit instead of stopping."""
    chosen, used = [], 0
    for record in records:
        if record.asset in allowed_assets and used + record.cost <= allowance:
            chosen.append(record)
            used += record.cost
    return chosen


def approval_before_permission(proposal, *, caller, allowed_assets, approval, previous):
    """Wrong on purpose: asks about the approval before the permission."""
    if approval is None:
        return "needs_approval"
    return choose_branch(proposal, caller=caller, allowed_assets=allowed_assets, approval=approval, previous=previous)


def stub(*args, **kwargs):
    raise NotImplementedError("your code here")


# --- lesson 01 ---------------------------------------------------------------------------------------


def test_a_right_choose_evidence_is_the_same_as_the_reference(scene):
    result = compare_selection(choose_evidence, scene.records, ["P-2", "P-3"], 8)
    assert result.agreement is Agreement.SAME
    assert result.yours == result.reference == "man-p2-r4-s3.2, tkt-5521"
    assert result.line() == "Your function: same as the reference."


def test_skipping_instead_of_stopping_differs_and_names_the_records_only_yours_keeps(scene):
    # Allowance 11: prefix stops at man-p3-r1-s2 (10 + 2 = 12); skip steps over it and takes tkt-4410 (10 + 1).
    result = compare_selection(skip_evidence, scene.records, ["P-2", "P-3"], 11)
    assert result.agreement is Agreement.DIFFERS
    assert result.reference == "man-p2-r4-s3.2, tkt-5521, tkt-5630"
    assert result.differences == ("only yours keeps tkt-4410",)
    assert result.line() == "Your function differs: only yours keeps tkt-4410."


def test_records_only_the_reference_keeps_and_a_different_order_are_named():
    records = [Record("a", "P-2", "x", 1), Record("b", "P-2", "x", 1)]
    dropped = compare_selection(lambda r, a, n: r[:1], records, ["P-2"], 5)
    assert dropped.differences == ("only the reference keeps b",)
    turned = compare_selection(lambda r, a, n: list(reversed(r)), records, ["P-2"], 5)
    assert turned.differences == ("the same records in a different order",)
    twice = compare_selection(lambda r, a, n: [r[0], r[0], r[1]], records, ["P-2"], 5)
    assert twice.differences == ("yours lists a record twice",)


def test_a_stub_or_a_none_is_not_written_yet_rather_than_an_error(scene):
    for fn in (stub, lambda records, allowed, allowance: None):
        result = compare_selection(fn, scene.records, ["P-2"], 8)
        assert result.agreement is Agreement.NOT_WRITTEN
        assert result.line().startswith("Your function: not written yet.")
        assert "Error" not in result.line().replace("NotImplementedError", "")


def test_a_function_that_raises_is_one_line_naming_the_exception_and_no_traceback(scene):
    def broken(records, allowed_assets, allowance):
        return [records[99]]

    result = compare_selection(broken, scene.records, ["P-2"], 8)
    assert result.agreement is Agreement.RAISED
    assert result.line() == "Your function raised an error: IndexError: list index out of range"
    assert "Traceback" not in result.line() and "\n" not in result.line()


def test_an_answer_that_is_not_a_list_of_records_differs_and_says_what_came_back(scene):
    result = compare_selection(lambda r, a, n: 42, scene.records, ["P-2"], 8)
    assert result.agreement is Agreement.DIFFERS
    assert result.differences == ("expected a list of records, got 42",)


def test_the_learner_function_cannot_change_the_inputs_it_was_given(scene):
    records, allowed = list(scene.records), ["P-2", "P-3"]

    def vandal(records_, allowed_assets, allowance):
        records_.clear()
        allowed_assets.append("K-7")
        return []

    compare_selection(vandal, records, allowed, 8)
    assert records == list(scene.records) and allowed == ["P-2", "P-3"]


# --- lesson 02 ---------------------------------------------------------------------------------------


def test_a_shortlist_that_ranks_before_filtering_differs_from_the_reference():
    scenario = load_evidence_scenario()

    def rank_first(candidates, allowed_assets, observed_on, k, register):
        """Wrong on purpose: takes the top scores first and filters afterwards."""
        return shortlist(candidates, allowed_assets, observed_on, k, register, rank_first=True)

    result = compare_shortlist(
        rank_first, scenario.candidates(0), ["P-2", "P-3"], _dt.date(2026, 3, 15), 3, scenario.register
    )
    assert result.reference == "man-p2-r4-s3.2, portal-p2-r4-s3.2, binder-p2-r4-s3.2"
    assert result.agreement is Agreement.DIFFERS
    assert result.yours == "nothing"  # the three best scores (vendor, rev 3, rev 5) are none of them usable
    assert result.differences == ("only the reference keeps man-p2-r4-s3.2, portal-p2-r4-s3.2, binder-p2-r4-s3.2",)


# --- lesson 05 ---------------------------------------------------------------------------------------


def test_a_right_choose_branch_agrees_with_decide():
    result = compare_branch(
        choose_branch, P2, approval=Approval("tech-ana", P2), previous=StoredRequest.settled(P2, "job-1"), **ANA
    )
    assert (result.agreement, result.reference, result.yours) == (Agreement.SAME, "reuse", "reuse")


def test_approval_checked_before_permission_differs_on_an_unapproved_asset_the_caller_may_not_schedule():
    k7 = {**P2, "asset_id": "K-7"}
    result = compare_branch(approval_before_permission, k7, approval=None, previous=None, **ANA)
    assert result.agreement is Agreement.DIFFERS
    assert result.differences == ("yours says needs_approval, the reference says denied",)


def test_an_invalid_proposal_is_not_asked_of_choose_branch():
    calls = []

    def choose_branch(*a, **k):
        calls.append(a)
        return "create"

    result = compare_branch(choose_branch, {**P2, "duration_minutes": 0}, approval=None, previous=None, **ANA)
    assert result.agreement is Agreement.NOT_ASKED and result.reference == "invalid"
    assert calls == []


def test_a_branch_that_is_not_a_string_differs_and_a_stub_is_not_written_yet():
    odd = compare_branch(lambda p, **k: 3, P2, approval=None, previous=None, **ANA)
    assert odd.agreement is Agreement.DIFFERS and odd.yours == "3"
    assert compare_branch(stub, P2, approval=None, previous=None, **ANA).agreement is Agreement.NOT_WRITTEN


def test_choose_branch_gets_a_copy_of_the_proposal():
    proposal = dict(P2)

    def rewrites(p, **kwargs):
        p["asset_id"] = "K-7"
        kwargs["allowed_assets"].append("K-7")
        return "needs_approval"

    allowed = ["P-2", "P-3"]
    compare_branch(rewrites, proposal, caller="tech-ana", allowed_assets=allowed, approval=None, previous=None)
    assert proposal == P2 and allowed == ["P-2", "P-3"]
