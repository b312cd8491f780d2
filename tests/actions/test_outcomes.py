"""What only the service learns after deciding: each answer is a new frozen Decision, decided in one module."""

from __future__ import annotations

import pytest

from botie.actions import outcomes
from botie.actions.decision import Approval, Branch, CheckName, StoredRequest, Verdict, decide, screen
from botie.errors import DecisionError

ANA = "tech-ana"
P2 = {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r7"}


def _create():
    return decide(P2, caller=ANA, allowed_assets=["P-2"], approval=Approval(ANA, P2), previous=None)


def _idempotency(decision):
    return next(c for c in decision.checks if c.name is CheckName.IDEMPOTENCY)


@pytest.mark.parametrize(
    ("settle", "branch", "says"),
    [
        (lambda d: outcomes.downstream_failed(d, TimeoutError()), Branch.UNAVAILABLE, "failed (TimeoutError)"),
        (outcomes.unrecorded, Branch.IN_PROGRESS, "too busy to record it"),
        (lambda d: outcomes.settled_meanwhile(d, None), Branch.UNAVAILABLE, "settled elsewhere"),
    ],
)
def test_an_outcome_after_create_changes_the_branch_and_only_the_idempotency_check(settle, branch, says):
    created = _create()
    d = settle(created)
    assert d.branch is branch and d.receipt is None and d.retryable
    assert says in _idempotency(d).reason and _idempotency(d).verdict is Verdict.FAILED
    assert [c for c in d.checks if c.name is not CheckName.IDEMPOTENCY] == [
        c for c in created.checks if c.name is not CheckName.IDEMPOTENCY
    ]
    assert created.branch is Branch.CREATE  # the decision it started from is unchanged (frozen)


def test_a_key_recovery_settled_meanwhile_is_reused_with_its_receipt():
    stored = StoredRequest.settled(P2, "job-1")
    d = outcomes.settled_meanwhile(_create(), stored)
    assert d.branch is Branch.REUSE and d.receipt == stored.receipt and "returning job-1" in d.reason


def test_only_a_create_without_a_job_settles_later():
    refused = decide(P2, caller=ANA, allowed_assets=["P-3"], approval=None, previous=None)
    with pytest.raises(DecisionError) as info:
        outcomes.unrecorded(refused)
    assert info.value.field == "decision"


def test_a_busy_store_leaves_every_check_after_the_store_not_reached():
    screened = screen(P2, caller=ANA, allowed_assets=["P-2"], approval=Approval(ANA, P2), asset_register={"P-2"})
    d = outcomes.store_busy(screened, 4)
    assert d.branch is Branch.UNAVAILABLE and "busy through 4 attempts" in d.reason
    assert [(c.name, c.verdict) for c in d.checks][-2:] == [
        (CheckName.IDEMPOTENCY, Verdict.FAILED),
        (CheckName.REGISTER, Verdict.NOT_REACHED),
    ]


def test_a_screened_refusal_is_the_decision_decide_returns_and_never_reads_the_store():
    screened = screen(P2, caller=ANA, allowed_assets=["P-3"], approval=None)
    assert screened.refusal == decide(P2, caller=ANA, allowed_assets=["P-3"], approval=None, previous=None)
    with pytest.raises(DecisionError):
        outcomes.store_busy(screened, 4)
