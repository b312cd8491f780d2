"""Retries: only retryable branches, within the limit, and the result never reads better than the last attempt."""

import datetime as dt

import pytest

from botie import InspectionService, MemoryStore
from botie.actions.decision import Approval
from botie.actions.retry import submit_with_retries
from botie.errors import SettingError

R7 = {"asset_id": "P-2", "duration_minutes": 20, "request_id": "r7"}


def service(failures):
    calls = []

    def downstream(order):
        calls.append(order.idempotency_key)
        if len(calls) <= failures:
            raise ConnectionError("scheduler down")
        return "ext-1"

    clock = lambda: dt.datetime(2026, 3, 15, 9, tzinfo=dt.timezone.utc)  # noqa: E731
    return InspectionService(MemoryStore(), clock=clock, downstream=downstream), calls


def send(svc, proposal=R7, allowed=("P-2",), approved=True):
    return lambda: svc.submit(proposal, caller="tech-ana", allowed_assets=list(allowed),
                              approval=Approval("tech-ana", proposal) if approved else None)


def test_an_unavailable_service_is_retried_under_one_key_until_it_books_once():
    svc, calls = service(failures=2)
    run = submit_with_retries(send(svc), limit=3)
    assert [str(d.branch) for d in run.attempts] == ["unavailable", "unavailable", "create"]
    assert len(set(calls)) == 1 and run.tool_result()["job_id"] == "job-1"


def test_a_failure_that_outlasts_the_limit_is_reported_as_a_failure():
    svc, _ = service(failures=5)
    run = submit_with_retries(send(svc), limit=3)
    result = run.tool_result()
    assert result["status"] == "unavailable" and result["retryable"] is True and "job_id" not in result
    assert result["attempts"] == 3 and "limit of 3" in run.stopped_because


@pytest.mark.parametrize("proposal, allowed, approved, branch", [
    ({**R7, "asset_id": "K-7"}, ("P-2",), True, "denied"),
    ({**R7, "duration_minutes": 90}, ("P-2",), True, "invalid"),
    (R7, ("P-2",), False, "needs_approval"),
])
def test_a_branch_that_is_not_retryable_is_tried_once(proposal, allowed, approved, branch):
    svc, calls = service(failures=0)
    run = submit_with_retries(send(svc, proposal, allowed, approved), limit=3)
    assert len(run.attempts) == 1 and str(run.final.branch) == branch and calls == []


def test_an_invalid_result_names_the_field_to_repair():
    svc, _ = service(failures=0)
    result = submit_with_retries(send(svc, {**R7, "duration_minutes": 90}), limit=3).tool_result()
    assert [e["field"] for e in result["errors"]] == ["duration_minutes"]


def test_a_bad_limit_or_a_non_decision_is_refused():
    with pytest.raises(SettingError):
        submit_with_retries(lambda: None, limit=0)
    with pytest.raises(SettingError):
        submit_with_retries(lambda: "booked!", limit=2)
