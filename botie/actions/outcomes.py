"""The answers only a service that stores and books can give, decided here once, beside :func:`decide`.

:func:`botie.actions.decision.decide` judges the state it is handed. Some
outcomes arise after it has said ``create``, or before the store could be read
at all: a store that stayed busy, a downstream call that failed, a booking the
store was too busy to record, a key that recovery settled meanwhile. Each one
is a function here that takes the decision (or the :class:`Screened` checks)
and returns the new frozen :class:`Decision`, with its idempotency check
saying what happened; the service stores and calls, and writes none of them.
"""

from __future__ import annotations

from dataclasses import replace

from botie.actions.decision import Branch, Check, CheckName, Decision, Receipt, Screened, StoredRequest, Verdict
from botie.errors import DecisionError

__all__ = ["downstream_failed", "settled_meanwhile", "store_busy", "unrecorded"]


def _after_create(
    decision: Decision, branch: Branch, verdict: Verdict, reason: str, receipt: Receipt | None
) -> Decision:
    """``decision`` (a ``create``) with its idempotency check saying ``reason``; the rule checks after it stand."""
    if decision.branch is not Branch.CREATE or decision.receipt is not None:
        raise DecisionError(
            f"only a create decision without a job settles later, not {decision.branch}", field="decision"
        )
    checks = tuple(
        Check(CheckName.IDEMPOTENCY, verdict, reason) if c.name is CheckName.IDEMPOTENCY else c for c in decision.checks
    )
    return replace(decision, branch=branch, checks=checks, receipt=receipt)


def store_busy(screened: Screened, attempts: int) -> Decision:
    """``unavailable``: the store stayed busy through ``attempts`` tries, so nothing stored was read or written."""
    return screened.store_unread(
        f"the store stayed busy through {attempts} attempts, so nothing was written; "
        "retry later with the same request id"
    )


def downstream_failed(decision: Decision, error: BaseException) -> Decision:
    """``unavailable``: the scheduling service failed, so its outcome is unknown and a retry goes to it again."""
    reason = (
        f"the scheduling service failed ({type(error).__name__}), so no job is confirmed; retry with the "
        f"same request id: the same key goes downstream, and a scheduler that honours it books once"
    )
    return _after_create(decision, Branch.UNAVAILABLE, Verdict.FAILED, reason, None)


def unrecorded(decision: Decision) -> Decision:
    """``in_progress``: the booking was made but not recorded; the key stays pending until recovery completes it."""
    reason = "the booking was made but the store was too busy to record it; ask again with the same request id shortly"
    return _after_create(decision, Branch.IN_PROGRESS, Verdict.FAILED, reason, None)


def settled_meanwhile(decision: Decision, stored: StoredRequest | None) -> Decision:
    """What a key settled by recovery while its booking was being confirmed says: its job (reuse), or unavailable."""
    if stored is not None and stored.receipt is not None:
        job = stored.receipt.job_id
        reason = f"recovery recorded {job} for this key while the booking was confirmed: returning {job}"
        return _after_create(decision, Branch.REUSE, Verdict.PASSED, reason, stored.receipt)
    reason = "this key was settled elsewhere while the booking was confirmed; retry with the same request id"
    return _after_create(decision, Branch.UNAVAILABLE, Verdict.FAILED, reason, None)
