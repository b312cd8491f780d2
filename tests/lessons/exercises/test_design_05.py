"""Lesson 05's design exercise, next_request: different valid retry rules pass; each broken invariant is named.

The check holds five invariants rather than one expected answer. Two rules that disagree on many
situations both pass; for every invariant, a rule that keeps the other four and breaks that one is
rejected, and every message it gets names that invariant and no other.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given

from botie.lessons.exercises import lesson05
from botie.lessons.exercises.catalogue import run
from botie.lessons.exercises.engine import Verdict
from tests.lessons.exercises.instructor import instructor_solution
from tests.strategies import design_seeds, examples

INVARIANTS = (
    lesson05.ONLY_UNCHANGED,
    lesson05.WITHIN_LIMIT,
    lesson05.ONE_JOB,
    lesson05.AS_APPROVED,
    lesson05.SECOND_TRY,
)


# --- two valid designs -----------------------------------------------------------------------


def retry_what_the_service_calls_retryable(proposal, result, attempts):
    """Trust the result's own `retryable`, treat a lost answer the same way, three attempts in all."""
    if attempts >= 3:
        return None
    if result is None or result["retryable"]:
        return proposal
    return None


def a_budget_per_status(proposal, result, attempts):
    """The notebook's design: a silent scheduler four attempts, in_progress three, a lost answer two."""
    most = {"unavailable": 4, "in_progress": 3, "lost": 2}
    status = "lost" if result is None else result["status"]
    if attempts >= most.get(status, 1):
        return None
    return proposal


def resend_a_copy_with_backoff_in_mind(proposal, result, attempts):
    """A third: copies the arguments (an equal dict is the same request) and keeps going on in_progress."""
    if result is not None and result["status"] not in ("unavailable", "in_progress"):
        return None
    return dict(proposal) if attempts < 5 else None


VALID = {
    "retryable, three attempts": retry_what_the_service_calls_retryable,
    "a budget per status": a_budget_per_status,
    "an equal copy, five attempts": resend_a_copy_with_backoff_in_mind,
}


# --- one wrong design per invariant ----------------------------------------------------------


def _retries_everything_but_success(proposal, result, attempts):
    if attempts >= 3 or (result is not None and result["status"] in ("create", "reuse")):
        return None
    return proposal


def _never_stops(proposal, result, attempts):
    return proposal if result is None or result["retryable"] else None


def _fresh_request_id(proposal, result, attempts):
    if attempts >= 3 or not (result is None or result["retryable"]):
        return None
    return {**proposal, "request_id": f"{proposal['request_id']}-{attempts + 1}"}


def _shorter_visit(proposal, result, attempts):
    if attempts >= 3 or not (result is None or result["retryable"]):
        return None
    return {**proposal, "duration_minutes": max(1, proposal["duration_minutes"] // 2)}


def _gives_up_at_once(proposal, result, attempts):
    return None


def _retries_the_business_rules_too(proposal, result, attempts):
    """Retries unknown_asset and window_unavailable as if they were transient."""
    again = ("unavailable", "in_progress", "unknown_asset", "window_unavailable")
    if attempts >= 3 or not (result is None or result["status"] in again):
        return None
    return proposal


def _stops_only_on_the_six_it_knows(proposal, result, attempts):
    """Stops on the six statuses it was told about and retries anything else."""
    known = ("create", "reuse", "invalid", "denied", "needs_approval", "conflict")
    if attempts >= 3 or (result is not None and result["status"] in known):
        return None
    return proposal


WRONG: dict[str, Callable[..., Any]] = {
    lesson05.ONLY_UNCHANGED: _retries_everything_but_success,
    lesson05.WITHIN_LIMIT: _never_stops,
    lesson05.ONE_JOB: _fresh_request_id,
    lesson05.AS_APPROVED: _shorter_visit,
    lesson05.SECOND_TRY: _gives_up_at_once,
}

# What tests/lessons/exercises/test_checks.py runs for every exercise: the reference and plausible wrong answers.
REFERENCE = {"next_request": a_budget_per_status}
WRONG_FOR_CHECKS = {
    "next_request": {
        "retries a denial": _retries_everything_but_success,
        "never stops": _never_stops,
        "a fresh request id on every retry": _fresh_request_id,
        "gives up at once": _gives_up_at_once,
        "retries unknown_asset and window_unavailable": _retries_the_business_rules_too,
        "retries every status it was not told to stop on": _stops_only_on_the_six_it_knows,
        "hard-coded r7": lambda proposal, result, attempts: (
            {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r7"}
            if attempts < 3 and (result is None or result["retryable"])
            else None
        ),
    }
}


@pytest.mark.parametrize("label", sorted(VALID))
def test_a_valid_design_passes(label):
    report = run("next_request", VALID[label])
    assert not isinstance(report, str)
    assert report.verdict is Verdict.PASSED, report.text()


def test_the_valid_designs_really_differ():
    """Not one answer in three spellings: on some situations they answer differently."""
    cases = lesson05._NEXT_REQUEST.cases()

    def answers(rule):
        return [rule(*c.args) is None for c in cases]

    first, second, third = (answers(rule) for rule in VALID.values())
    assert first != second and second != third and first != third


@pytest.mark.parametrize("invariant", INVARIANTS)
def test_a_design_breaking_one_invariant_is_rejected_naming_it(invariant):
    report = run("next_request", WRONG[invariant])
    assert not isinstance(report, str)
    assert report.verdict is Verdict.FAILED
    failed = [r for r in report.results if not r.passed]
    assert failed
    for result in failed:
        assert f"breaks '{invariant}'" in result.message, result.message
        others = [name for name in INVARIANTS if name != invariant]
        assert not any(f"'{name}'" in result.message for name in others), result.message


def test_a_fresh_request_id_after_a_lost_answer_is_shown_booking_a_second_job():
    report = run("next_request", _fresh_request_id)
    assert not isinstance(report, str)
    lost = next(r for r in report.results if r.case.label == "r7: the answer was lost, attempt 1")
    assert "'r7-2' instead of 'r7'" in lost.message
    assert "the jobs are now ['job-1', 'job-2']" in lost.message


def test_a_changed_duration_names_the_field_and_the_approved_payload():
    report = run("next_request", _shorter_visit)
    assert not isinstance(report, str)
    first = next(r for r in report.results if not r.passed)
    assert "you changed duration_minutes" in first.message and "'duration_minutes': 20" in first.message


def test_a_bool_or_a_string_is_not_a_request():
    report = run("next_request", lambda proposal, result, attempts: result is None or result["retryable"])
    assert not isinstance(report, str)
    assert report.verdict is Verdict.FAILED
    assert any("expected the arguments to send (a dict) or None to stop" in r.message for r in report.results)


def test_the_stub_is_not_yet():
    def stub(proposal, result, attempts):
        raise NotImplementedError

    report = run("next_request", stub)
    assert not isinstance(report, str)
    assert report.verdict is Verdict.NOT_YET


def test_the_situations_are_the_real_services_results():
    """What the rule is shown is what Botie would see: the service's own tool results."""
    cases = {c.label: c for c in lesson05._NEXT_REQUEST.cases()}
    unavailable = cases["r7: the scheduler did not answer, attempt 1 (unavailable)"].args[1]
    assert unavailable["status"] == "unavailable" and unavailable["retryable"] is True
    denied = cases["a caller who may schedule only P-3 asks for P-2 (denied)"].args[1]
    assert denied == {
        "status": "denied",
        "retryable": False,
        "message": "P-2 is not in the assets tech-ana may schedule",
    }
    assert cases["r7: the answer was lost, attempt 1"].args[1] is None
    statuses = {c.args[1]["status"] for c in cases.values() if c.args[1] is not None}
    assert statuses == {
        "create",
        "reuse",
        "invalid",
        "denied",
        "needs_approval",
        "conflict",
        "unavailable",
        "in_progress",
        "unknown_asset",
        "window_unavailable",
    }


# --- held out: the instructor edition's next_request on situations the check never shows ----------------------------


def _held_out_situation(seed):
    """A random proposal, one of the service's outcomes for it (or a lost answer) and an attempt count, with what
    the invariants demand, worked out here from the rules rather than from the check's own table."""
    import datetime as dt
    import random

    from botie.actions.decision import Approval, StoredRequest, decide
    from botie.actions.service import InspectionService
    from botie.actions.stores.memory import MemoryStore

    rng = random.Random(seed)
    proposal = {
        "asset_id": rng.choice(("P-2", "P-3")),
        "duration_minutes": rng.randint(1, 60),
        "start": f"2026-04-{rng.randint(1, 28):02d}T{rng.randint(6, 16):02d}:00Z",
        "request_id": f"r{rng.randint(1, 99)}",
    }
    ana = {"caller": "tech-ana", "allowed_assets": ["P-2", "P-3"]}
    situation, attempts = rng.choice(SITUATIONS), rng.randint(1, 7)

    def clock():
        return dt.datetime(2026, 3, 20, 9, 0, tzinfo=dt.timezone.utc)

    def silent(order):
        raise ConnectionError("no answer")

    service = InspectionService(MemoryStore(), clock=clock, downstream=silent if situation == "unavailable" else None)
    approved = Approval("tech-ana", proposal)
    if situation == "lost":
        result = None
    elif situation == "in_progress":
        result = decide(proposal, **ana, approval=approved, previous=StoredRequest(proposal)).tool_result()
    elif situation == "denied":
        result = service.submit(proposal, caller="tech-ana", allowed_assets=["K-7"], approval=approved).tool_result()
    elif situation == "needs_approval":
        result = service.submit(proposal, **ana, approval=None).tool_result()
    elif situation == "conflict":
        first = {**proposal, "duration_minutes": int(proposal["duration_minutes"]) % 60 + 1}
        service.submit(first, **ana, approval=Approval("tech-ana", first))
        result = service.submit(proposal, **ana, approval=approved).tool_result()
    else:  # create, reuse (the second of two), unavailable
        for _ in range(2 if situation == "reuse" else 1):
            result = service.submit(proposal, **ana, approval=approved).tool_result()
    transient = situation in ("lost", "unavailable", "in_progress")
    if not transient or attempts >= lesson05.RETRY_LIMIT:
        must = "stop"
    elif attempts == 1 and situation in ("lost", "unavailable"):
        must = "send"
    else:
        must = "either"
    return proposal, result, attempts, {"proposal": proposal, "result": result, "attempts": attempts, "must": must}


SITUATIONS = ("create", "reuse", "conflict", "denied", "needs_approval", "unavailable", "in_progress", "lost")


@examples(150)
@given(design_seeds())
def test_the_instructor_edition_next_request_keeps_the_invariants_on_held_out_situations(seed):
    design = instructor_solution("05b", "next_request")
    proposal, result, attempts, expected = _held_out_situation(seed)
    assert result is None or result["status"] in SITUATIONS  # the service gave the situation asked for
    assert lesson05.same_request_or_stop(design(proposal, result, attempts), expected) is None


@pytest.mark.parametrize("wrong", [_retries_the_business_rules_too, _stops_only_on_the_six_it_knows])
def test_retrying_a_business_rule_refusal_breaks_only_what_may_succeed_unchanged(wrong):
    """unknown_asset and window_unavailable would get the same answer again: the service says not retryable."""
    report = run("next_request", wrong)
    assert not isinstance(report, str) and report.verdict is Verdict.FAILED
    failed = {r.case.label: r.message for r in report.results if not r.passed}
    assert set(failed) == {
        "r13 names P-999, which no register lists (unknown_asset)",
        "r14 at 09:00, a slot r7 already booked (window_unavailable)",
    }
    assert all(f"breaks '{lesson05.ONLY_UNCHANGED}'" in m for m in failed.values())


def test_the_valid_designs_still_pass_the_business_rule_refusals():
    cases = {c.label: c for c in lesson05._NEXT_REQUEST.cases()}
    for label in (
        "r13 names P-999, which no register lists (unknown_asset)",
        "r14 at 09:00, a slot r7 already booked (window_unavailable)",
    ):
        assert cases[label].args[1]["retryable"] is False
        assert all(rule(*cases[label].args) is None for rule in VALID.values())
