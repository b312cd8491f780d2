"""The capstone scores the learner's functions set by set, rejects wrong ones, and never raises at them."""

import pytest

from botie.lessons.content.capstone import SETS, run_capstone

# Lesson 01's reference solutions, written once beside the exercise tests.
from tests.lessons.exercises.test_checks import choose_evidence


def choose_branch(proposal, *, caller, allowed_assets, approval, previous):
    if proposal["asset_id"] not in allowed_assets:
        return "denied"
    if approval is None or approval.actor != caller or dict(approval.payload) != dict(proposal):
        return "needs_approval"
    if previous is None:
        return "create"
    return "reuse" if dict(previous.payload) == dict(proposal) else "conflict"


@pytest.fixture(scope="module")
def reference():
    return run_capstone(choose_evidence, choose_branch)


def test_the_reference_solutions_pass_every_set_the_note_that_supplies_its_own_quote_included(reference):
    assert {s: reference.score(s) for s in SETS} == {
        "ordinary questions": (3, 3),
        "restricted never sent": (4, 4),
        "tight allowances": (3, 3),
        "answer absent": (3, 3),
        "injected instructions": (5, 5),
        "decisions": (11, 11),
    }
    assert [c.name for c in reference.cases if not c.passed] == []


def test_dropping_the_permission_test_fails_restricted_never_sent_naming_the_vendor_file():
    def everything(records, allowed_assets, allowance):
        return choose_evidence(records, [r.asset for r in records], allowance)

    report = run_capstone(everything, choose_branch)
    passed, total = report.score("restricted never sent")
    assert passed < total and "vendor-p2-seal-design" in report.failures()


def test_a_choose_branch_that_ignores_previous_gets_two_decisions_wrong():
    def no_memory(proposal, *, caller, allowed_assets, approval, previous):
        return choose_branch(proposal, caller=caller, allowed_assets=allowed_assets, approval=approval, previous=None)

    report = run_capstone(choose_evidence, no_memory)
    assert report.score("decisions") == (8, 11) and "the rules say reuse" in report.failures()


def test_a_choose_evidence_with_no_budget_check_does_not_score_like_the_reference(reference):
    def no_budget(records, allowed_assets, allowance):
        return [r for r in records if r.asset in allowed_assets]

    report = run_capstone(no_budget, choose_branch)
    assert report.score("tight allowances") == (0, 3)
    assert "over the 60-token allowance" in report.failures()
    assert [report.score(s) for s in SETS] != [reference.score(s) for s in SETS]


def test_a_choose_evidence_that_skips_past_a_misfit_breaks_lesson_01s_prefix_rule():
    def skip(records, allowed_assets, allowance):
        chosen, used = [], 0
        for r in records:
            if r.asset in allowed_assets and used + r.cost <= allowance:
                chosen.append(r)
                used += r.cost
        return chosen

    passed, total = run_capstone(skip, choose_branch).score("tight allowances")
    assert passed < total


def test_an_approval_first_choose_branch_misses_k7_with_nothing_approved():
    """Lesson 05's order: permission before approval, so K-7 is denied even when nobody approved it."""

    def approval_first(proposal, *, caller, allowed_assets, approval, previous):
        if approval is None or approval.actor != caller or dict(approval.payload) != dict(proposal):
            return "needs_approval"
        return choose_branch(
            proposal, caller=caller, allowed_assets=allowed_assets, approval=approval, previous=previous
        )

    report = run_capstone(choose_evidence, approval_first)
    assert report.score("decisions") == (10, 11)
    assert "K-7, which the caller may not schedule, nothing approved: yours needs_approval, the rules say denied" in (
        report.failures()
    )


def _store_first(proposal, *, caller, allowed_assets, approval, previous):
    """Reads the stored request before the approval: the order lesson 05 says is not the workshop's."""
    if proposal["asset_id"] not in allowed_assets:
        return "denied"
    if previous is not None:
        return "reuse" if dict(previous.payload) == dict(proposal) else "conflict"
    return choose_branch(proposal, caller=caller, allowed_assets=allowed_assets, approval=approval, previous=None)


def _ignores_start(proposal, *, caller, allowed_assets, approval, previous):
    """Compares the approval and the stored request without their start: an approval for 09:00 books 11:00."""

    def bare(d):
        return {k: v for k, v in dict(d).items() if k != "start"}

    if proposal["asset_id"] not in allowed_assets:
        return "denied"
    if approval is None or approval.actor != caller or bare(approval.payload) != bare(proposal):
        return "needs_approval"
    if previous is None:
        return "create"
    return "reuse" if bare(previous.payload) == bare(proposal) else "conflict"


def _by_sorted_items(proposal, *, caller, allowed_assets, approval, previous):
    def key(d):
        return sorted(dict(d).items())

    checks = (
        (proposal["asset_id"] in set(allowed_assets), "denied"),
        (approval is not None and (approval.actor, key(approval.payload)) == (caller, key(proposal)), "needs_approval"),
    )
    for passed, branch in checks:
        if not passed:
            return branch
    return "create" if previous is None else ("reuse" if key(previous.payload) == key(proposal) else "conflict")


def _by_json(proposal, *, caller, allowed_assets, approval, previous):
    import json

    def text(d):
        return json.dumps(dict(d), sort_keys=True)

    if proposal["asset_id"] not in list(allowed_assets):
        return "denied"
    if approval is None or approval.actor != caller or text(approval.payload) != text(proposal):
        return "needs_approval"
    if previous is None:
        return "create"
    return {True: "reuse", False: "conflict"}[text(previous.payload) == text(proposal)]


def test_a_store_first_choose_branch_does_not_score_full_decisions():
    report = run_capstone(choose_evidence, _store_first)
    assert report.score("decisions") == (9, 11)
    assert "nothing approved, the same r7 stored: yours reuse, the rules say needs_approval" in report.failures()
    assert "nothing approved, r7 stored for 30 minutes: yours conflict, the rules say needs_approval" in (
        report.failures()
    )


def _conflict_first(proposal, *, caller, allowed_assets, approval, previous):
    """Asks the approval before a reuse, but reports a stored different payload as a conflict before asking it."""
    if proposal["asset_id"] in allowed_assets and previous is not None and dict(previous.payload) != dict(proposal):
        return "conflict"
    return choose_branch(proposal, caller=caller, allowed_assets=allowed_assets, approval=approval, previous=previous)


def test_a_choose_branch_that_reads_a_conflict_before_the_approval_does_not_score_full_decisions():
    report = run_capstone(choose_evidence, _conflict_first)
    assert report.score("decisions") == (10, 11)
    assert report.failures().count("yours conflict, the rules say needs_approval") == 1


def test_a_choose_branch_that_ignores_start_misses_both_start_cases():
    report = run_capstone(choose_evidence, _ignores_start)
    assert report.score("decisions") == (9, 11)
    failures = report.failures()
    assert (
        "approved for 09:00, the proposal now starts at 11:00: yours create, the rules say needs_approval" in failures
    )
    assert "approved, r7 stored for 11:00: yours reuse, the rules say conflict" in failures


@pytest.mark.parametrize("right", [_by_sorted_items, _by_json])
def test_right_decisions_unlike_the_reference_score_full(right):
    assert run_capstone(choose_evidence, right).score("decisions") == (11, 11)


def test_stubs_show_not_yet_and_a_crash_shows_its_message_never_a_traceback():
    def stub(*args, **kwargs):
        raise NotImplementedError("your code here")

    def crash(records, allowed_assets, allowance):
        return records[99]

    stubbed = run_capstone(stub, stub)
    assert all(not c.passed and c.got.startswith("not yet") for c in stubbed.cases)
    assert "(17 more cases failed with: not yet: choose_evidence" in stubbed.failures()
    crashed = run_capstone(crash, choose_branch)
    assert "your choose_evidence raised IndexError" in crashed.failures()


def test_a_selector_returning_a_non_candidate_is_told_so():
    report = run_capstone(lambda records, allowed, allowance: ["made-up-id"], choose_branch)
    assert "not a candidate" in report.failures()
