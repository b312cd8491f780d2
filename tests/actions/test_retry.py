"""Retries: only retryable branches, within the limit, and the result never reads better than the last attempt."""

import datetime as dt

import pytest

from botie import InspectionService, MemoryStore
from botie.actions.decision import Approval
from botie.actions.retry import submit_with_retries
from botie.errors import SettingError

R7 = {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r7"}


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
    return lambda: svc.submit(
        proposal,
        caller="tech-ana",
        allowed_assets=list(allowed),
        approval=Approval("tech-ana", proposal) if approved else None,
    )


def test_an_unavailable_service_is_retried_under_one_key_until_it_books_once():
    svc, calls = service(failures=2)
    run = submit_with_retries(send(svc), limit=3)
    assert [str(d.branch) for d in run.attempts] == ["unavailable", "unavailable", "create"]
    assert len(set(calls)) == 1 and run.tool_result()["job_id"] == "job-1"


def test_a_failure_that_outlasts_the_limit_is_reported_as_a_failure():
    svc, _ = service(failures=5)
    run = submit_with_retries(send(svc), limit=3)
    result = run.tool_result()
    assert result["status"] == "unavailable" and "job_id" not in result
    assert result["attempts"] == 3 and "limit of 3" in run.stopped_because
    # the loop has given up: the model is not told to send it again, and is told nothing is confirmed
    assert result["retryable"] is False and "retry with the same" not in result["message"]
    assert "not confirmed" in result["message"] and run.final.retryable


@pytest.mark.parametrize(
    "proposal, allowed, approved, branch",
    [
        ({**R7, "asset_id": "K-7"}, ("P-2",), True, "denied"),
        ({**R7, "duration_minutes": 90}, ("P-2",), True, "invalid"),
        (R7, ("P-2",), False, "needs_approval"),
    ],
)
def test_a_branch_that_is_not_retryable_is_tried_once(proposal, allowed, approved, branch):
    svc, calls = service(failures=0)
    run = submit_with_retries(send(svc, proposal, allowed, approved), limit=3)
    assert len(run.attempts) == 1 and str(run.final.branch) == branch and calls == []


def test_an_invalid_result_names_the_field_to_repair():
    svc, _ = service(failures=0)
    result = submit_with_retries(send(svc, {**R7, "duration_minutes": 90}), limit=3).tool_result()
    assert [e["field"] for e in result["errors"]] == ["duration_minutes"]


def test_without_a_limit_three_attempts_are_made():
    svc, calls = service(failures=5)
    run = submit_with_retries(send(svc))
    assert len(run.attempts) == 3 and len(calls) == 3 and run.limit == 3


def test_a_limit_of_one_is_allowed_and_means_a_single_attempt():
    svc, calls = service(failures=5)
    run = submit_with_retries(send(svc), limit=1)
    assert len(run.attempts) == 1 and len(calls) == 1
    assert run.stopped_because == "unavailable after 1 attempts: the limit of 1 was reached"


@pytest.mark.parametrize("limit", [0, -2, True, 2.0, "3"])
def test_a_limit_that_is_not_an_int_of_at_least_one_is_refused_before_anything_is_sent(limit):
    """bool is refused although True == 1: a flag is not a count."""
    sent = []
    with pytest.raises(SettingError) as info:
        submit_with_retries(lambda: sent.append(1), limit=limit)  # type: ignore[return-value]  # never sent
    assert (
        info.value.field == "limit" and str(info.value) == f"limit must be a whole number (an int >= 1), got {limit!r}"
    )
    assert sent == []


def test_send_must_return_a_decision_and_the_error_names_send():
    with pytest.raises(SettingError) as info:
        submit_with_retries(lambda: "booked!", limit=2)  # type: ignore[return-value]  # the point: no Decision
    assert info.value.field == "send" and str(info.value) == "send must return a Decision, got 'booked!'"


def test_wait_is_told_how_many_attempts_were_made_and_is_not_called_after_the_last():
    svc, _ = service(failures=5)
    waits: list[int] = []
    submit_with_retries(send(svc), limit=3, wait=waits.append)
    assert waits == [1, 2]


def test_explain_numbers_every_attempt_from_one_and_ends_with_why_it_stopped():
    svc, _ = service(failures=1)
    run = submit_with_retries(send(svc), limit=3)
    assert run.explain() == (
        "attempt 1: unavailable (retryable)\nattempt 2: create (not retryable)\nstopped: create: done"
    )


@pytest.mark.parametrize(("failures", "limit"), [(0, 3), (1, 1), (1, 2), (2, 3), (3, 3), (5, 4)])
def test_only_a_fixable_error_is_retried_within_the_limit_under_one_request_id(failures, limit):
    """Seed 004's retry rule whole: an unavailable service is tried again, under one key, until it books or
    the limit is reached (never one attempt more or fewer); a branch a retry cannot fix is tried once."""
    svc, calls = service(failures)
    run = submit_with_retries(send(svc), limit=limit)
    tried = min(failures + 1, limit)
    booked = failures < limit
    assert [str(d.branch) for d in run.attempts] == ["unavailable"] * (tried - booked) + ["create"] * booked
    assert len(calls) == tried and len(set(calls)) == 1
    assert ("job_id" in run.tool_result()) is booked
    if booked:  # the same request id with another payload: a conflict, which no retry fixes
        changed = submit_with_retries(send(svc, {**R7, "duration_minutes": 30}), limit=limit)
        assert [str(d.branch) for d in changed.attempts] == ["conflict"] and len(calls) == tried
